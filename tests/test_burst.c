/*
 * test_burst.c - the loop under bursts: thousands of connections arrive in bursts from one
 * client event loop (the shape that once lost wake-ups: issue 24), each with a request from
 * a mix of valid, malformed, incomplete and abandoned ones, written in random pieces with
 * random pauses. Every complete request must be answered (or rejected) within a bound of
 * its last byte, every incomplete one left waiting, and when the clients are gone the
 * server holds no connection.
 *
 * The client is single-threaded and non-blocking (epoll), so requests really are in flight
 * together; the server is an echo that reads the whole body before it answers.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "tsupport.h"

/* Reads the whole request body, then answers 200 with it (no body: -1 framing). */
static int echo(tachy_exchange *ex, void *user) {
    (void)user;
    char body[4096];
    size_t len = 0;
    ssize_t n;
    while ((n = tachy_exchange_read(ex, body + len, sizeof body - len)) > 0)
        len += (size_t)n;
    tachy_exchange_send_response_headers(ex, 200, len ? (int64_t)len : -1);
    if (len)
        tachy_exchange_write(ex, body, len);
    tachy_exchange_close(ex);
    return 0;
}

/* What a request is and what must come back. */
enum kind { COMPLETE, INCOMPLETE, ABANDON };

typedef struct req_shape {
    const char *bytes;
    enum kind kind;
    int status;        /* COMPLETE: the status expected (0: any final status) */
    const char *body;  /* COMPLETE 200: the echoed body */
    int expect_100;    /* the client waits for "100 Continue" before the body (after the
                          blank line), as a careful client does */
} req_shape;

static const req_shape SHAPES[] = {
    {"GET / HTTP/1.1\r\nHost: x\r\n\r\n", COMPLETE, 200, "", 0},
    {"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello", COMPLETE, 200, "hello", 0},
    {"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n",
     COMPLETE, 200, "hello world", 0},
    {"POST / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\nabcd", COMPLETE,
     200, "abcd", 1},
    {"GET / HTTP/1.1\r\n\r\n", COMPLETE, 400, NULL, 0},                        /* no Host */
    {"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", COMPLETE, 400, NULL, 0},  /* two Hosts */
    {"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", COMPLETE, 400, NULL, 0},
    {"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999999\r\n\r\n", COMPLETE,
     400, NULL, 0},
    {"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n", COMPLETE, 400, NULL, 0},
    {"GET / HTTP/1.1\r\nHost: x\r\nX-Empty:\r\n\r\n", COMPLETE, 200, "", 0},
    {"GET / HTTP/1.1\r\nHost: x\r\nX-Ctl: a\x01" "b\r\n\r\n", COMPLETE, 400, NULL, 0},
    {"GET / HTTP/9.9\r\nHost: x\r\n\r\n", COMPLETE, 505, NULL, 0},
    {"\x01garbage / HTTP/1.1\r\nHost: x\r\n\r\n", COMPLETE, 400, NULL, 0},
    {"GET / HTTP/1.1\r\nHost: x\rX: y\r\n\r\n", COMPLETE, 400, NULL, 0},   /* bare CR */
    {"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\ntransfer-ENCODING: chunked\r\n\r\n"
     "5\r\nhello\r\n0\r\n\r\n", COMPLETE, 400, NULL, 0},
    {"GET /waiting HTTP/1.1\r\nHost: x\r\n", INCOMPLETE, 0, NULL, 0},      /* no blank line */
    {"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nhel", INCOMPLETE, 0, NULL, 0},
    {"GET / HTTP/1.1\r\nHost: x\r\nX-Long: aaaaaaaaaaaaaaaaaaaaaaaa", ABANDON, 0, NULL, 0},
    {"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 50\r\n\r\nabc", ABANDON, 0, NULL, 0},
};
#define NSHAPES (sizeof SHAPES / sizeof SHAPES[0])

typedef struct client {
    int fd;
    const req_shape *shape;
    size_t len;         /* of shape->bytes */
    size_t sent;
    size_t cut[4];      /* where the pieces end (increasing, the last == len) */
    int ncut, piece;
    long next_send_ms;  /* the next piece leaves then */
    long done_ms;       /* the last byte left then (0: not yet) */
    char in[8192];
    size_t inlen;
    int waiting_100;    /* the body waits for "100 Continue" */
    int answered, eof, closed;
    long answered_ms;
} client;

static unsigned rng_state;
static unsigned rnd(unsigned n) {
    rng_state = rng_state * 1103515245u + 12345u;
    return (rng_state >> 8) % n;
}

static int connect_nb(int port) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    assert_true(fd >= 0);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int rc = connect(fd, (struct sockaddr *)&sin, sizeof sin);
    assert_true(rc == 0 || errno == EINPROGRESS);
    return fd;
}

/* The end of a complete response in c->in (head + Content-Length body, or a 100
 * Continue), or 0. *status gets its status. */
static size_t response_end(const client *c, size_t from, int *status) {
    const char *p = c->in + from;
    size_t n = c->inlen - from;
    const char *end = memmem(p, n, "\r\n\r\n", 4);
    if (!end || n < 12)
        return 0;
    *status = atoi(p + 9);
    size_t head = (size_t)(end - p) + 4;
    if (*status < 200)
        return from + head;
    const char *cl = memmem(p, head, "\r\nContent-length: ", 18);
    size_t body = cl ? (size_t)atol(cl + 18) : 0;
    if (n < head + body)
        return 0;
    return from + head + body;
}

/* Checks what came for a COMPLETE request; sets answered when a final response is in. */
static void check_input(client *c, long now) {
    size_t at = 0;
    for (;;) {
        int status = 0;
        size_t end = response_end(c, at, &status);
        if (!end)
            break;
        if (status == 100) {
            if (!c->waiting_100)
                fail_msg("an unasked 100 Continue for %s", c->shape->bytes);
            c->waiting_100 = 0; /* the body may leave now */
            at = end;
            continue;
        }
        if (c->shape->kind != COMPLETE)
            fail_msg("a response (%d) to an incomplete request: %.40s", status, c->shape->bytes);
        if (c->shape->status && status != c->shape->status)
            fail_msg("status %d, expected %d, for %.60s", status, c->shape->status, c->shape->bytes);
        if (c->shape->body) {
            const char *b = memmem(c->in + at, end - at, "\r\n\r\n", 4) + 4;
            size_t blen = (size_t)(c->in + end - b);
            if (blen != strlen(c->shape->body) || memcmp(b, c->shape->body, blen) != 0)
                fail_msg("body '%.*s', expected '%s'", (int)blen, b, c->shape->body);
        }
        c->answered = 1;
        c->answered_ms = now;
        at = end;
        break;
    }
    if (at) {
        memmove(c->in, c->in + at, c->inlen - at);
        c->inlen -= at;
    }
}

/* The report's burst: 16 incomplete heads first, then every complete shape, each written
 * whole; else a random shape in 1 to 4 random pieces. */
static int report_shape;

static void plan(client *c, int i) {
    int pieces = 1 + (int)rnd(4);
    if (report_shape) {
        static const req_shape *complete[NSHAPES];
        size_t ncomplete = 0;
        for (size_t k = 0; k < NSHAPES; k++)
            if (SHAPES[k].kind == COMPLETE)
                complete[ncomplete++] = &SHAPES[k];
        c->shape = i < 16 ? &SHAPES[NSHAPES - 4] : complete[(size_t)(i - 16) % ncomplete];
        pieces = 1;
    } else {
        c->shape = &SHAPES[rnd(NSHAPES)];
    }
    c->len = strlen(c->shape->bytes);
    /* cut at random places (the 100-continue shape: the head is one cut) */
    c->ncut = 0;
    size_t at = 0;
    for (int k = 1; k < pieces; k++) {
        size_t left = c->len - at;
        if (left < 2)
            break;
        at += 1 + rnd((unsigned)left - 1);
        c->cut[c->ncut++] = at;
    }
    c->cut[c->ncut++] = c->len;
    if (c->shape->expect_100) {
        const char *blank = strstr(c->shape->bytes, "\r\n\r\n");
        c->cut[0] = (size_t)(blank - c->shape->bytes) + 4;
        c->cut[1] = c->len;
        c->ncut = 2;
    }
}

/*
 * Runs `total` connections in bursts of `burst` against port; each complete request must
 * be answered within bound_ms of its last byte. Incomplete ones must get nothing for
 * quiet_ms after their last byte; abandoned ones are closed by the client mid-request.
 */
static void run_bursts(int port, int total, int burst, long bound_ms, long quiet_ms) {
    int ep = epoll_create1(EPOLL_CLOEXEC);
    assert_true(ep >= 0);
    client *cs = calloc((size_t)burst, sizeof *cs);
    assert_non_null(cs);
    int done_total = 0, complete = 0, incomplete = 0, abandoned = 0;
    long worst = 0;
    while (done_total < total) {
        int n = total - done_total < burst ? total - done_total : burst;
        long t0 = ts_now_ms();
        for (int i = 0; i < n; i++) {
            client *c = &cs[i];
            memset(c, 0, sizeof *c);
            plan(c, i);
            c->fd = connect_nb(port);
            c->next_send_ms = t0 + (long)rnd(3); /* most leave together */
            c->waiting_100 = c->shape->expect_100;
            struct epoll_event ev = {EPOLLIN | EPOLLRDHUP, {.u32 = (uint32_t)i}};
            assert_int_equal(epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev), 0);
        }
        long give_up = t0 + 20000; /* a hard stop: the test fails, never hangs */
        for (;;) {
            long now = ts_now_ms();
            int open = 0;
            for (int i = 0; i < n; i++) {
                client *c = &cs[i];
                if (c->closed)
                    continue;
                /* send what is due */
                if (c->piece < c->ncut && now >= c->next_send_ms &&
                    !(c->waiting_100 && c->piece == 1)) {
                    size_t upto = c->cut[c->piece];
                    ssize_t w = send(c->fd, c->shape->bytes + c->sent, upto - c->sent, MSG_NOSIGNAL);
                    if (w > 0)
                        c->sent += (size_t)w;
                    else if (w < 0 && errno != EAGAIN && errno != ENOTCONN)
                        c->eof = 1; /* the server closed (a rejection, all sent) */
                    if (c->sent == upto) {
                        c->piece++;
                        c->next_send_ms = now + (long)rnd(4); /* a pause between pieces */
                        if (c->piece == c->ncut)
                            c->done_ms = now;
                    }
                }
                if (c->shape->kind == ABANDON && c->done_ms && now >= c->done_ms + (long)rnd(3)) {
                    close(c->fd); /* gone mid-request: the server must cope */
                    c->closed = 1;
                    continue;
                }
                if (c->shape->kind == COMPLETE && c->done_ms && !c->answered &&
                    now - c->done_ms > bound_ms)
                    fail_msg("no answer within %ld ms to %.60s (burst of %d)", bound_ms,
                             c->shape->bytes, n);
                if (c->answered || (c->shape->kind == INCOMPLETE && c->done_ms &&
                                    now - c->done_ms > quiet_ms) ||
                    (c->eof && c->shape->kind != COMPLETE)) {
                    if (c->answered && c->done_ms && c->answered_ms - c->done_ms > worst)
                        worst = c->answered_ms - c->done_ms;
                    close(c->fd);
                    c->closed = 1;
                    continue;
                }
                if (c->eof && !c->answered)
                    fail_msg("closed without an answer: %.60s", c->shape->bytes);
                open++;
            }
            if (!open)
                break;
            assert_true(now < give_up);
            struct epoll_event evs[64];
            int k = epoll_wait(ep, evs, 64, 1);
            for (int j = 0; j < k; j++) {
                client *c = &cs[evs[j].data.u32];
                if (c->closed)
                    continue;
                for (;;) {
                    if (c->inlen == sizeof c->in)
                        fail_msg("response too long");
                    ssize_t r = recv(c->fd, c->in + c->inlen, sizeof c->in - c->inlen, 0);
                    if (r > 0) {
                        c->inlen += (size_t)r;
                        continue;
                    }
                    if (r == 0 || (errno != EAGAIN && errno != EINTR))
                        c->eof = 1;
                    break;
                }
                check_input(c, ts_now_ms());
            }
        }
        for (int i = 0; i < n; i++) {
            enum kind k = cs[i].shape->kind;
            complete += k == COMPLETE;
            incomplete += k == INCOMPLETE;
            abandoned += k == ABANDON;
        }
        done_total += n;
    }
    print_message("%d connections: %d complete (slowest answer %ld ms), %d incomplete, %d "
                  "abandoned\n", total, complete, worst, incomplete, abandoned);
    free(cs);
    close(ep);
}

/* The open connections of srv drop to 0 within ms (the clients are gone). */
static void expect_no_connections(tachy_server *srv, long ms) {
    long until = ts_now_ms() + ms;
    int open = -1;
    while (ts_now_ms() < until) {
        open = tachy_server_connection_count(srv);
        if (open == 0)
            return;
        ts_sleep_ms(5);
    }
    fail_msg("%d connections still open %ld ms after the clients left", open, ms);
}

/* A factor for time bounds: sanitizers and valgrind make everything slower. */
static long slow_factor(void) {
    if (ts_under_valgrind())
        return 20;
#if defined(__SANITIZE_THREAD__)
    return 8;
#elif defined(__SANITIZE_ADDRESS__)
    return 3;
#else
    const char *f = getenv("TACHY_TEST_SLOW");
    return f ? atol(f) : 1;
#endif
}

/* Fresh servers, one burst each: the shape of the report (33 connections at once). */
static void test_fresh_servers_answer_every_burst(void **state) {
    (void)state;
    rng_state = 24;
    report_shape = 1;
    int rounds = ts_under_valgrind() ? 3 : 20;
    for (int i = 0; i < rounds; i++) {
        int port;
        tachy_server *srv = ts_serve(NULL, echo, NULL, &port);
        run_bursts(port, 33, 33, 100 * slow_factor(), 150);
        ts_stop(srv);
    }
    report_shape = 0;
}

/* Thousands of connections in bursts of 200 against one server, then none left open. */
static void test_thousands_in_bursts(void **state) {
    (void)state;
    rng_state = 2024;
    int port;
    tachy_server *srv = ts_serve(NULL, echo, NULL, &port);
    run_bursts(port, ts_under_valgrind() ? 400 : 3000, 200, 100 * slow_factor(), 50);
    expect_no_connections(srv, 2000 * slow_factor());
    ts_stop(srv);
}

/*
 * Rejected requests whose clients keep their connections open: each gets its 400 at once
 * and its lingering close (input discarded until the peer's EOF, at most 500 ms) waits in
 * the park set, not on a thread - so a burst of them neither delays the requests behind
 * them nor makes the pool bring in a thread per rejection.
 */
static void test_lingering_closes_hold_no_thread(void **state) {
    (void)state;
    enum { N = 64 };
    int port;
    tachy_server *srv = ts_serve(NULL, echo, NULL, &port);
    ts_status(port, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); /* the pool is up */
    ts_sleep_ms(50);
    int threads = ts_thread_count();
    int fds[N];
    for (int i = 0; i < N; i++)
        fds[i] = ts_connect(port);
    long t0 = ts_now_ms();
    for (int i = 0; i < N; i++) /* a bad length, and body bytes the server never reads */
        ts_send(fds[i], "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\nunread", -1);
    long slowest = 0;
    for (int i = 0; i < N; i++) {
        char head[512];
        assert_int_equal(ts_read_head(fds[i], head, sizeof head), 400);
        if (ts_now_ms() - t0 > slowest)
            slowest = ts_now_ms() - t0;
    }
    int grown = ts_thread_count() - threads;
    print_message("%d rejections answered within %ld ms; pool threads grew by %d\n", N, slowest,
                  grown);
    assert_true(slowest <= 100 * slow_factor());
    assert_true(grown <= 2); /* a lingering thread each would have made the watchdog add many */
    /* Our EOF ends each lingering close: the server holds nothing after it. */
    for (int i = 0; i < N; i++)
        close(fds[i]);
    expect_no_connections(srv, 1000 * slow_factor());
    ts_stop(srv);
}

/* /slow sleeps 1.5 s in the handler (user code that never tells the pool it blocks);
 * anything else is echoed. */
static int slow_or_echo(tachy_exchange *ex, void *user) {
    if (strcmp(tachy_exchange_request_path(ex), "/slow") == 0)
        ts_sleep_ms(1500);
    return echo(ex, user);
}

/* A fresh server's only pool thread is held by a handler that sleeps: the next
 * connection's request is answered at once - the watchdog, which sleeps up to a second
 * while a server has no connections, is woken by the first one. */
static void test_fresh_server_with_a_sleeping_handler(void **state) {
    (void)state;
    for (int round = 0; round < 3; round++) {
        int port;
        tachy_server *srv = ts_serve(NULL, slow_or_echo, NULL, &port);
        int a = ts_connect(port);
        ts_send(a, "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n", -1);
        ts_sleep_ms(20);
        long t0 = ts_now_ms();
        int b = ts_connect(port);
        ts_send(b, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", -1);
        char head[512];
        assert_int_equal(ts_read_head(b, head, sizeof head), 200);
        long took = ts_now_ms() - t0;
        print_message("answered in %ld ms beside a sleeping handler\n", took);
        assert_true(took <= 100 * slow_factor());
        assert_int_equal(ts_read_head(a, head, sizeof head), 200);
        close(a);
        close(b);
        ts_stop(srv);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fresh_servers_answer_every_burst),
        cmocka_unit_test(test_thousands_in_bursts),
        cmocka_unit_test(test_lingering_closes_hold_no_thread),
        cmocka_unit_test(test_fresh_server_with_a_sleeping_handler),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
