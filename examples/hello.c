/*
 * tachy-hello - the demo server that tests and benchmarks drive.
 *
 *   tachy-hello [-p PORT] [-b ADDR]
 *
 *   GET  /      -> 200 text/plain "Hello, World!"
 *   HEAD /      -> the same headers, no body
 *   POST /echo  -> the request body back (fixed-length or chunked in; fixed out when the
 *                  request declared a length, chunked otherwise)
 *
 * Prints "listening on http://ADDR:PORT/" once the server accepts connections, and stops
 * cleanly on SIGINT/SIGTERM.
 */
#include <tachy/tachy.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int hello(tachy_exchange *ex, void *user) {
    (void)user;
    static const char body[] = "Hello, World!";
    const char *m = tachy_exchange_request_method(ex);
    if (strcmp(m, "GET") != 0 && strcmp(m, "HEAD") != 0) {
        tachy_headers_set(tachy_exchange_response_headers(ex), "Allow", "GET, HEAD");
        tachy_exchange_send_response_headers(ex, 405, -1);
        return tachy_exchange_close(ex);
    }
    if (strcmp(tachy_exchange_request_path(ex), "/") != 0) {
        tachy_exchange_send_response_headers(ex, 404, -1);
        return tachy_exchange_close(ex);
    }
    tachy_headers_set(tachy_exchange_response_headers(ex), "Content-Type", "text/plain");
    int rc = tachy_exchange_send_response_headers(ex, 200, sizeof body - 1);
    if (rc == 0 && strcmp(m, "HEAD") != 0)
        rc = (int)tachy_exchange_write(ex, body, sizeof body - 1);
    tachy_exchange_close(ex);
    return rc < 0 ? rc : 0;
}

static int echo(tachy_exchange *ex, void *user) {
    (void)user;
    if (strcmp(tachy_exchange_request_method(ex), "POST") != 0) {
        tachy_headers_set(tachy_exchange_response_headers(ex), "Allow", "POST");
        tachy_exchange_send_response_headers(ex, 405, -1);
        return tachy_exchange_close(ex);
    }
    const char *ct = tachy_headers_first(tachy_exchange_request_headers(ex), "Content-Type");
    tachy_headers_set(tachy_exchange_response_headers(ex), "Content-Type",
                      ct ? ct : "application/octet-stream");
    int64_t len = tachy_exchange_request_content_length(ex);
    /* A declared length is echoed with the same fixed length; a chunked body streams back
     * chunked (0 = chunked framing); an empty body is a -1 "no body" response. */
    int rc = tachy_exchange_send_response_headers(ex, 200, len > 0 ? len : len == 0 ? -1 : 0);
    char buf[16384];
    ssize_t n;
    while (rc == 0 && (n = tachy_exchange_read(ex, buf, sizeof buf)) > 0) {
        ssize_t w = tachy_exchange_write(ex, buf, (size_t)n);
        if (w < 0)
            rc = (int)w;
    }
    if (rc == 0 && n < 0)
        rc = (int)n;
    tachy_exchange_close(ex);
    return rc < 0 ? rc : 0;
}

static volatile sig_atomic_t stop_requested;
static void on_signal(int sig) {
    (void)sig;
    stop_requested = 1;
}

static void usage(void) { fprintf(stderr, "usage: tachy-hello [-p PORT] [-b ADDR]\n"); }

int main(int argc, char **argv) {
    int port = 8080;
    const char *addr = "127.0.0.1";
    int opt;
    while ((opt = getopt(argc, argv, "p:b:h")) != -1) {
        switch (opt) {
        case 'p':
            port = atoi(optarg);
            break;
        case 'b':
            addr = optarg;
            break;
        default:
            usage();
            return opt == 'h' ? 0 : 2;
        }
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    tachy_server *srv;
    int rc = tachy_server_create(&srv, addr, port, 0, NULL);
    if (rc < 0) {
        fprintf(stderr, "tachy-hello: cannot listen on %s:%d: %s\n", addr, port,
                tachy_strerror(rc));
        return 1;
    }
    tachy_server_create_context(srv, "/", hello, NULL, NULL);
    tachy_server_create_context(srv, "/echo", echo, NULL, NULL);
    rc = tachy_server_start(srv);
    if (rc < 0) {
        fprintf(stderr, "tachy-hello: %s\n", tachy_strerror(rc));
        tachy_server_destroy(srv);
        return 1;
    }
    char host[64];
    int real_port = 0;
    tachy_server_address(srv, host, sizeof host, &real_port);
    printf(strchr(host, ':') ? "listening on http://[%s]:%d/\n" : "listening on http://%s:%d/\n",
           host, real_port);
    fflush(stdout);
    while (!stop_requested)
        pause();
    tachy_server_stop(srv, 1);
    tachy_server_destroy(srv);
    return 0;
}
