/*
 * fuzz_conn.c - the server and the per-input connection of the whole-connection harnesses
 * (fuzz_conn.h).
 */
#include "fuzz_conn.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../../examples/common/demo.h"
#include "fuzz_util.h"

static tachy_server *srv;
static int port;
static const char *harness = "fuzz";

/* POST or not, the body back: the decoders of every framing see the fuzzed bytes. A failed
 * read or write still returns 0 (the connection ends by its own state, not the handler's). */
static int echo(tachy_exchange *ex, void *user) {
    (void)user;
    (void)demo_echo_body(ex);
    return 0;
}

static void stop_server(void) {
    tachy_server_destroy(srv);
    srv = NULL;
}

static long now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    /* a connection that stops moving ends well within the 5 s the checks allow */
    tachy_options opt;
    tachy_options_init(&opt);
    opt.idle_interval_ms = 2000;
    opt.max_req_time_ms = opt.max_rsp_time_ms = 3000;
    const fuzz_route *extra = NULL;
    fuzz_conn_configure(&opt, &harness, &extra);
    FUZZ_CHECK(tachy_server_create(&srv, "127.0.0.1", 0, 0, &opt) == 0);
    FUZZ_CHECK(tachy_server_create_context(srv, "/", demo_hello, NULL, NULL) == 0);
    FUZZ_CHECK(tachy_server_create_context(srv, "/echo", echo, NULL, NULL) == 0);
    FUZZ_CHECK(tachy_server_create_context(srv, "/nohandler", NULL, NULL, NULL) == 0);
    for (const fuzz_route *r = extra; r && r->path; r++)
        FUZZ_CHECK(tachy_server_create_context(srv, r->path, r->handler, NULL, NULL) == 0);
    FUZZ_CHECK(tachy_server_start(srv) == 0);
    port = tachy_server_port(srv);
    atexit(stop_server);
    return 0;
}

static int dial(void) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    FUZZ_CHECK(fd >= 0);
    struct sockaddr_in sin;
    memset(&sin, 0, sizeof sin);
    sin.sin_family = AF_INET;
    sin.sin_port = htons((uint16_t)port);
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct timeval tv = {5, 0};
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    /* libFuzzer's timer signal may interrupt connect: the connection then completes in
     * the background, so wait for it. */
    int rc = connect(fd, (struct sockaddr *)&sin, sizeof sin);
    if (rc < 0 && errno == EINTR) {
        struct pollfd p = {fd, POLLOUT, 0};
        while ((rc = poll(&p, 1, 5000)) < 0 && errno == EINTR)
            ;
        int err = 0;
        socklen_t el = sizeof err;
        if (rc == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) == 0 && err == 0)
            rc = 0;
        else
            errno = err ? err : ETIMEDOUT, rc = -1;
    }
    if (rc < 0) {
        fprintf(stderr, "%s: connect: %s\n", harness, strerror(errno));
        abort();
    }
    return fd;
}

/* Reads until EOF (1), or until deadline (0). Keeps the first cap-1 bytes in out. */
static int read_to_eof(int fd, long deadline, char *out, size_t cap, size_t *got) {
    char tmp[16384];
    *got = 0;
    for (;;) {
        long left = deadline - now_ms();
        if (left <= 0)
            return 0;
        struct pollfd p = {fd, POLLIN, 0};
        int r = poll(&p, 1, (int)left);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return 0;
        ssize_t n = recv(fd, tmp, sizeof tmp, 0);
        if (n == 0 || (n < 0 && errno == ECONNRESET))
            return 1;
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return 1;
        if (out && *got < cap - 1) {
            size_t k = (size_t)n < cap - 1 - *got ? (size_t)n : cap - 1 - *got;
            memcpy(out + *got, tmp, k);
            *got += k;
            out[*got] = '\0';
        }
    }
}

/* Sends p[0..n) unless *closed; sets *closed when the server has closed on us. */
static void send_all(int fd, const void *p, size_t n, int *closed) {
    size_t off = 0;
    while (off < n && !*closed) {
        ssize_t w = send(fd, (const char *)p + off, n - off, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            *closed = 1;
            break;
        }
        off += (size_t)w;
    }
}

void fuzz_conn_run(const char *const *heads, const uint8_t *data, size_t n, size_t segments) {
    static unsigned long runs;

    int fd = dial();
    int closed = 0;
    for (const char *const *h = heads; h && *h; h++)
        send_all(fd, *h, strlen(*h), &closed);
    size_t off = 0;
    for (size_t s = 0; s < segments && !closed; s++) {
        size_t end = s + 1 == segments ? n : n / segments * (s + 1);
        send_all(fd, data + off, end - off, &closed);
        off = end;
    }
    shutdown(fd, SHUT_WR);
    size_t got;
    if (!read_to_eof(fd, now_ms() + 5000, NULL, 0, &got)) {
        fprintf(stderr, "%s: the server kept a half-closed connection open for 5 s\n", harness);
        abort();
    }
    close(fd);

    fd = dial();
    static const char good[] = "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    closed = 0;
    send_all(fd, good, sizeof good - 1, &closed);
    FUZZ_CHECK(!closed);
    char resp[512];
    int eof = read_to_eof(fd, now_ms() + 5000, resp, sizeof resp, &got);
    close(fd);
    if (!eof || got < 12 || memcmp(resp, "HTTP/1.1 200", 12) != 0 ||
        strstr(resp, "\r\n\r\nHello, World!") == NULL) {
        fprintf(stderr, "%s: the good request after the fuzzed one failed: %.200s\n", harness,
                got ? resp : "(no response)");
        abort();
    }

    if (++runs % 64 == 0) {
        long deadline = now_ms() + 5000;
        while (tachy_server_connection_count(srv) > 0 && now_ms() < deadline) {
            struct timespec ts = {0, 2000000};
            nanosleep(&ts, NULL);
        }
        if (tachy_server_connection_count(srv) > 0) {
            fprintf(stderr, "%s: %d connections still open 5 s after the clients left\n", harness,
                    tachy_server_connection_count(srv));
            abort();
        }
    }
}
