/*
 * fuzz_h2.c - libFuzzer harness over whole HTTP/2 connections (native/src/h2/): a real
 * tachy server on 127.0.0.1 (public C API only, started once), and for each input a fresh
 * loopback connection that sends the connection preface ("PRI * HTTP/2.0...", so every
 * input reaches nghttp2 and the h2 codec) followed by the fuzzed bytes - frames: SETTINGS,
 * HEADERS/CONTINUATION (HPACK), DATA, WINDOW_UPDATE, RST_STREAM, PING, GOAWAY, PRIORITY.
 *
 * Input: one byte choosing how many segments the bytes are sent in (1..4, low bits) and,
 * with bit 7 set, the way in: an HTTP/1.1 "Upgrade: h2c" request first (its answer comes
 * on stream 1), then the preface; then the bytes after the preface. The contexts: "/" (200 "Hello, World!"), "/echo" (the body back,
 * streamed as it is read), "/stream" (a streamed response in three flushed writes),
 * "/nohandler" (500). The client then half-closes (SHUT_WR) and reads what comes back.
 *
 * Properties checked besides memory safety in the server's threads (ASan + UBSan):
 * - the server closes the half-closed connection within 5 s;
 * - a following good HTTP/1.1 request on a new connection is answered 200 within 5 s;
 * - every 64 inputs, the open-connection count drops back to 0 within 5 s (no connection,
 *   and no stream holding one, is leaked).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <tachy/tachy.h>

#include "../../examples/common/demo.h"
#include "fuzz_util.h"

static tachy_server *srv;
static int port;

static int echo(tachy_exchange *ex, void *user) {
    (void)user;
    (void)demo_echo_body(ex);
    return 0;
}

static int streamed(tachy_exchange *ex, void *user) {
    (void)user;
    if (tachy_exchange_send_response_headers(ex, 200, 0) == 0)
        for (int i = 0; i < 3; i++)
            if (tachy_exchange_write(ex, "part,", 5) < 0 || tachy_exchange_flush(ex) < 0)
                break;
    tachy_exchange_close(ex);
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
    tachy_options opt;
    tachy_options_init(&opt);
    opt.idle_interval_ms = 2000;
    opt.max_req_time_ms = 3000;
    opt.max_rsp_time_ms = 3000;
    opt.max_req_header_size = 8192;
    opt.h2_max_streams = 16;
    FUZZ_CHECK(tachy_server_create(&srv, "127.0.0.1", 0, 0, &opt) == 0);
    FUZZ_CHECK(tachy_server_create_context(srv, "/", demo_hello, NULL, NULL) == 0);
    FUZZ_CHECK(tachy_server_create_context(srv, "/echo", echo, NULL, NULL) == 0);
    FUZZ_CHECK(tachy_server_create_context(srv, "/stream", streamed, NULL, NULL) == 0);
    FUZZ_CHECK(tachy_server_create_context(srv, "/nohandler", NULL, NULL, NULL) == 0);
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
        fprintf(stderr, "fuzz_h2: connect: %s\n", strerror(errno));
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

static void send_all(int fd, const uint8_t *p, size_t n, int *closed) {
    size_t off = 0;
    while (off < n && !*closed) {
        ssize_t w = send(fd, p + off, n - off, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            *closed = 1; /* the server closed on us: fine */
            break;
        }
        off += (size_t)w;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static unsigned long runs;
    static const char preface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
    fuzz_in in = {data, size};
    static const char upgrade[] = "GET /stream HTTP/1.1\r\nHost: x\r\n"
                                  "Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\n"
                                  "HTTP2-Settings: AAMAAABkAAQAAP__\r\n\r\n";
    uint8_t how = fuzz_u8(&in);
    size_t segments = 1 + (how & 3);

    int fd = dial();
    int closed = 0;
    if (how & 0x80)
        send_all(fd, (const uint8_t *)upgrade, sizeof upgrade - 1, &closed);
    send_all(fd, (const uint8_t *)preface, sizeof preface - 1, &closed);
    size_t off = 0;
    for (size_t s = 0; s < segments && !closed; s++) {
        size_t end = s + 1 == segments ? in.n : in.n / segments * (s + 1);
        send_all(fd, in.p + off, end - off, &closed);
        off = end;
    }
    shutdown(fd, SHUT_WR);
    size_t got;
    if (!read_to_eof(fd, now_ms() + 5000, NULL, 0, &got)) {
        fprintf(stderr, "fuzz_h2: the server kept a half-closed connection open for 5 s\n");
        abort();
    }
    close(fd);

    fd = dial();
    static const char good[] = "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    closed = 0;
    send_all(fd, (const uint8_t *)good, sizeof good - 1, &closed);
    FUZZ_CHECK(!closed);
    char resp[512];
    int eof = read_to_eof(fd, now_ms() + 5000, resp, sizeof resp, &got);
    close(fd);
    if (!eof || got < 12 || memcmp(resp, "HTTP/1.1 200", 12) != 0) {
        fprintf(stderr, "fuzz_h2: the good request after the fuzzed one failed: %.200s\n",
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
            fprintf(stderr, "fuzz_h2: %d connections still open 5 s after the clients left\n",
                    tachy_server_connection_count(srv));
            abort();
        }
    }
    return 0;
}
