/* consumer - starts a tachy server on an ephemeral port, asks itself one question over a
 * real socket and checks the answer. Built against an installed tachy. */
#include <tachy/tachy.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int hello(tachy_exchange *ex, void *user) {
    (void)user;
    tachy_exchange_send_response_headers(ex, 200, 2);
    tachy_exchange_write(ex, "hi", 2);
    return tachy_exchange_close(ex);
}

int main(void) {
    tachy_server *srv;
    int rc = tachy_server_create(&srv, "127.0.0.1", 0, 0, NULL);
    if (rc < 0) {
        fprintf(stderr, "consumer: %s\n", tachy_strerror(rc));
        return 1;
    }
    tachy_server_create_context(srv, "/", hello, NULL, NULL);
    tachy_server_start(srv);
    struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons((uint16_t)tachy_server_port(srv))};
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    char buf[512] = {0};
    ssize_t n = -1;
    if (connect(fd, (struct sockaddr *)&sin, sizeof sin) == 0) {
        const char req[] = "GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
        send(fd, req, sizeof req - 1, 0);
        size_t got = 0;
        while ((n = recv(fd, buf + got, sizeof buf - 1 - got, 0)) > 0)
            got += (size_t)n;
        n = (ssize_t)got;
    }
    close(fd);
    tachy_server_stop(srv, 0);
    tachy_server_destroy(srv);
    int ok = n > 0 && strncmp(buf, "HTTP/1.1 200 OK\r\n", 17) == 0 && strstr(buf, "\r\n\r\nhi");
    printf("consumer (tachy %s): %s\n", tachy_version(), ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
