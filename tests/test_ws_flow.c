/*
 * test_ws_flow.c - the read side's flow control of attached WebSockets
 * (tachy_ws_suspend_reading / tachy_ws_resume_reading, what Java's request(n) is built on)
 * and the default liveness policy (a ping after a quiet interval, the connection failed when
 * no pong follows), over real sockets on 127.0.0.1.
 *
 * Flow: the server grants "credits" like request(n): each delivered message takes one, and
 * the callback that takes the last suspends reading. The tests check that no message is
 * delivered beyond the credits, that a suspended socket is not read (the client's writes
 * hit a full TCP window: EAGAIN), and that a resume from another thread (or from inside a
 * callback) delivers what was held back, in order.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <tachy/tachy.h>
#include <tachy/ws.h>

#include "tsupport.h"

static tachy_server *srv;
static int port;

/* ---- server side ------------------------------------------------------------------------- */

static tachy_ws_options flow_opt, bounce_opt, live_opt, quiet_opt;

static pthread_mutex_t flow_lock = PTHREAD_MUTEX_INITIALIZER;
static tachy_ws *flow_ws;          /* the /flow connection (retained) */
static atomic_long credits;        /* messages the "application" asked for */
static atomic_long delivered;      /* messages delivered */
static atomic_long out_of_order;   /* a message's sequence number was not the next one */
static atomic_int live_error, live_close;

static int attach_handler(tachy_exchange *ex, void *user) {
    int rc = tachy_ws_attach(ex, user);
    return rc == TACHY_EPROTO ? 0 : rc;
}

static void flow_open(tachy_ws *ws, void *user) {
    (void)user;
    assert_int_equal(tachy_ws_suspend_reading(ws), 0); /* nothing requested yet */
    tachy_ws_retain(ws);
    pthread_mutex_lock(&flow_lock);
    flow_ws = ws;
    pthread_mutex_unlock(&flow_lock);
}

/* Messages carry "<n>" (small ones) or start with a 4-byte big-endian sequence number. */
static void flow_message(tachy_ws *ws, int type, const void *data, size_t len, int last,
                         void *user) {
    (void)type, (void)last, (void)user;
    long n = atomic_fetch_add(&delivered, 1);
    const uint8_t *p = data;
    long seq = len >= 4 ? (long)((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
                                 (uint32_t)p[2] << 8 | p[3])
                        : -1;
    if (seq != n)
        atomic_fetch_add(&out_of_order, 1);
    if (atomic_fetch_sub(&credits, 1) == 1) /* that was the last credit */
        tachy_ws_suspend_reading(ws);
}

static void flow_close(tachy_ws *ws, int code, const char *r, size_t n, void *user) {
    (void)ws, (void)code, (void)r, (void)n, (void)user;
}

/* /bounce: every message suspends and resumes reading from inside the callback, then is
 * echoed (request(1) inside onText, the common Java pattern). */
static void bounce_message(tachy_ws *ws, int type, const void *data, size_t len, int last,
                           void *user) {
    (void)last, (void)user;
    tachy_ws_suspend_reading(ws);
    tachy_ws_resume_reading(ws);
    if (type == TACHY_WS_TEXT)
        tachy_ws_send_text(ws, data, len);
    else
        tachy_ws_send_binary(ws, data, len);
}

static void live_error_cb(tachy_ws *ws, int err, int code, const char *what, void *user) {
    (void)ws, (void)code, (void)what, (void)user;
    atomic_store(&live_error, err);
}

static void live_close_cb(tachy_ws *ws, int code, const char *r, size_t n, void *user) {
    (void)ws, (void)r, (void)n, (void)user;
    atomic_store(&live_close, code);
}

/* /quiet: suspended from the start, with a short ping policy. */
static void quiet_open(tachy_ws *ws, void *user) {
    flow_open(ws, user);
}

static int setup(void **state) {
    (void)state;
    srv = ts_server(NULL);
    if (!srv)
        return -1;
    tachy_ws_options_init(&flow_opt);
    flow_opt.cb.on_open = flow_open;
    flow_opt.cb.on_message = flow_message;
    flow_opt.cb.on_close = flow_close;
    flow_opt.ping_interval_ms = -1;
    tachy_ws_options_init(&bounce_opt);
    bounce_opt.cb.on_message = bounce_message;
    tachy_ws_options_init(&live_opt);
    live_opt.ping_interval_ms = 200;
    live_opt.ping_timeout_ms = 300;
    live_opt.cb.on_error = live_error_cb;
    live_opt.cb.on_close = live_close_cb;
    quiet_opt = live_opt;
    quiet_opt.cb.on_open = quiet_open;
    tachy_server_create_context(srv, "/flow", attach_handler, &flow_opt, NULL);
    tachy_server_create_context(srv, "/bounce", attach_handler, &bounce_opt, NULL);
    tachy_server_create_context(srv, "/live", attach_handler, &live_opt, NULL);
    tachy_server_create_context(srv, "/quiet", attach_handler, &quiet_opt, NULL);
    port = ts_start(srv);
    return port > 0 ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    ts_stop(srv);
    return 0;
}

/* ---- client side ------------------------------------------------------------------------- */

static int ws_open(const char *path) {
    int fd = ts_connect(port);
    char req[512];
    int n = snprintf(req, sizeof req,
                     "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                     "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                     "Sec-WebSocket-Version: 13\r\n\r\n",
                     path);
    ts_send(fd, req, n);
    char head[2048];
    assert_true(ts_read_head(fd, head, sizeof head) > 0);
    assert_memory_equal(head, "HTTP/1.1 101", 12);
    return fd;
}

/* Encodes a masked client frame into out (header + payload); returns its length. */
static size_t encode(uint8_t *out, int op, const void *p, size_t len) {
    size_t n = 0;
    out[n++] = (uint8_t)(0x80 | op);
    if (len < 126) {
        out[n++] = (uint8_t)(0x80 | len);
    } else {
        out[n++] = 0x80 | 126;
        out[n++] = (uint8_t)(len >> 8);
        out[n++] = (uint8_t)len;
    }
    static const uint8_t key[4] = {9, 8, 7, 6};
    memcpy(out + n, key, 4);
    n += 4;
    for (size_t i = 0; i < len; i++)
        out[n + i] = ((const uint8_t *)p)[i] ^ key[i % 4];
    return n + len;
}

static void send_seq(int fd, uint32_t seq, size_t len) {
    uint8_t *payload = calloc(1, len);
    payload[0] = (uint8_t)(seq >> 24), payload[1] = (uint8_t)(seq >> 16);
    payload[2] = (uint8_t)(seq >> 8), payload[3] = (uint8_t)seq;
    uint8_t *f = malloc(len + 14);
    size_t n = encode(f, 2, payload, len);
    ts_send(fd, f, (ssize_t)n);
    free(f);
    free(payload);
}

/* One server frame's opcode (payload skipped), -1 on EOF/error, -2 when nothing arrived
 * within timeout_ms. */
static int next_op(int fd, int timeout_ms, uint8_t *payload, size_t *plen) {
    struct pollfd p = {fd, POLLIN, 0};
    if (poll(&p, 1, timeout_ms) == 0)
        return -2;
    uint8_t h[4];
    if (ts_recv_exact(fd, h, 2) < 0)
        return -1;
    size_t n = h[1] & 0x7f;
    if (n == 126) {
        if (ts_recv_exact(fd, h + 2, 2) < 0)
            return -1;
        n = (size_t)h[2] << 8 | h[3];
    }
    uint8_t buf[65536];
    if (n > sizeof buf || (n && ts_recv_exact(fd, buf, n) < 0))
        return -1;
    if (payload)
        memcpy(payload, buf, n < 125 ? n : 125);
    if (plen)
        *plen = n;
    return h[0] & 0x0f;
}

static void wait_long(atomic_long *v, long want, long limit_ms) {
    long end = ts_now_ms() + limit_ms;
    while (atomic_load(v) < want && ts_now_ms() < end)
        ts_sleep_ms(5);
}

static tachy_ws *the_flow_ws(void) {
    tachy_ws *ws = NULL;
    long end = ts_now_ms() + 2000;
    while (!ws && ts_now_ms() < end) {
        pthread_mutex_lock(&flow_lock);
        ws = flow_ws;
        pthread_mutex_unlock(&flow_lock);
        if (!ws)
            ts_sleep_ms(2);
    }
    return ws;
}

/* The application's request(n) from its own thread: credits, then the resume. */
static void request(tachy_ws *ws, long n) {
    atomic_fetch_add(&credits, n);
    assert_int_equal(tachy_ws_resume_reading(ws), 0);
}

static void nothing_is_delivered_beyond_what_was_requested(void **state) {
    (void)state;
    atomic_store(&credits, 0);
    atomic_store(&delivered, 0);
    atomic_store(&out_of_order, 0);
    flow_ws = NULL;
    int fd = ws_open("/flow");
    tachy_ws *ws = the_flow_ws();
    assert_non_null(ws);
    for (uint32_t i = 0; i < 10; i++)
        send_seq(fd, i, 16);
    ts_sleep_ms(200);
    assert_int_equal(atomic_load(&delivered), 0); /* nothing requested: nothing delivered */

    request(ws, 3);
    wait_long(&delivered, 3, 3000);
    ts_sleep_ms(200);
    assert_int_equal(atomic_load(&delivered), 3); /* exactly the three requested */

    request(ws, 1);
    wait_long(&delivered, 4, 3000);
    ts_sleep_ms(100);
    assert_int_equal(atomic_load(&delivered), 4);

    request(ws, 100);
    wait_long(&delivered, 10, 3000);
    assert_int_equal(atomic_load(&delivered), 10);
    assert_int_equal(atomic_load(&out_of_order), 0);
    close(fd);
    tachy_ws_release(ws);
}

static void a_suspended_socket_pushes_back_on_the_peer(void **state) {
    (void)state;
    atomic_store(&credits, 0);
    atomic_store(&delivered, 0);
    atomic_store(&out_of_order, 0);
    flow_ws = NULL;
    int fd = ws_open("/flow");
    tachy_ws *ws = the_flow_ws();
    assert_non_null(ws);
    int small = 4096;
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);

    /* Write 16 KiB frames until the TCP window is full (bounded: 64 MiB). */
    enum { FRAME = 16 * 1024 };
    uint8_t *payload = calloc(1, FRAME), *f = malloc(FRAME + 14);
    size_t total = 0, pend_off = 0, pend_len = 0;
    uint32_t frames = 0;
    int full = 0;
    while (total < (64u << 20)) {
        if (pend_len == 0) {
            payload[0] = (uint8_t)(frames >> 24), payload[1] = (uint8_t)(frames >> 16);
            payload[2] = (uint8_t)(frames >> 8), payload[3] = (uint8_t)frames;
            pend_len = encode(f, 2, payload, FRAME);
            pend_off = 0;
            frames++;
        }
        ssize_t n = send(fd, f + pend_off, pend_len - pend_off, MSG_NOSIGNAL);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd p = {fd, POLLOUT, 0};
            if (poll(&p, 1, 500) == 0) {
                full = 1; /* nothing drained for 500 ms: the server is not reading */
                break;
            }
            continue;
        }
        assert_true(n > 0);
        pend_off += (size_t)n;
        total += (size_t)n;
        if (pend_off == pend_len)
            pend_len = 0;
    }
    assert_true(full);
    assert_true(total < (64u << 20));
    assert_int_equal(atomic_load(&delivered), 0);
    fprintf(stderr, "test_ws_flow: the peer was stopped after %zu bytes (%u frames begun)\n",
            total, frames);

    /* Resume from this thread: everything arrives, in order; finish the partial frame. */
    request(ws, 1L << 40);
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    if (pend_len)
        ts_send(fd, f + pend_off, (ssize_t)(pend_len - pend_off));
    wait_long(&delivered, frames, 10000);
    assert_int_equal(atomic_load(&delivered), frames);
    assert_int_equal(atomic_load(&out_of_order), 0);
    free(payload);
    free(f);
    close(fd);
    tachy_ws_release(ws);
}

static void a_resume_inside_the_callback_keeps_delivering(void **state) {
    (void)state;
    int fd = ws_open("/bounce");
    uint8_t f[64];
    for (int i = 0; i < 20; i++)
        ts_send(fd, f, (ssize_t)encode(f, 1, "hello", 5));
    for (int i = 0; i < 20; i++)
        assert_int_equal(next_op(fd, 3000, NULL, NULL), 1);
    close(fd);
}

static void defaults_are_the_documented_liveness_policy(void **state) {
    (void)state;
    tachy_ws_options o;
    tachy_ws_options_init(&o);
    assert_int_equal(o.ping_interval_ms, 30000);
    assert_int_equal(o.ping_timeout_ms, 15000);
    assert_int_equal(o.idle_timeout_ms, -1);
}

static void a_quiet_peer_is_pinged_and_dropped_without_a_pong(void **state) {
    (void)state;
    atomic_store(&live_error, 0);
    atomic_store(&live_close, 0);
    int fd = ws_open("/live");
    long t0 = ts_now_ms();
    assert_int_equal(next_op(fd, 3000, NULL, NULL), 9); /* a ping after ~200 ms */
    long t1 = ts_now_ms();
    assert_true(t1 - t0 >= 150);
    /* No pong: the connection is failed ~300 ms later (no close frame: EOF). */
    int op;
    do
        op = next_op(fd, 3000, NULL, NULL);
    while (op == 9);
    assert_int_equal(op, -1);
    long end = ts_now_ms() + 2000;
    while (atomic_load(&live_close) == 0 && ts_now_ms() < end)
        ts_sleep_ms(5);
    assert_int_equal(atomic_load(&live_error), TACHY_ETIMEDOUT);
    assert_int_equal(atomic_load(&live_close), 1006);
    close(fd);
}

static void a_peer_that_answers_pings_stays(void **state) {
    (void)state;
    atomic_store(&live_close, 0);
    int fd = ws_open("/live");
    int pings = 0;
    long end = ts_now_ms() + 1500;
    while (ts_now_ms() < end) {
        uint8_t p[125];
        size_t n = 0;
        int op = next_op(fd, 100, p, &n);
        if (op == -2)
            continue;
        assert_int_equal(op, 9);
        pings++;
        uint8_t f[160];
        ts_send(fd, f, (ssize_t)encode(f, 0xA, p, n)); /* the pong, same payload */
    }
    assert_true(pings >= 3); /* ~every 200 ms of silence */
    assert_int_equal(atomic_load(&live_close), 0);
    close(fd);
    /* Its on_close (1006) comes on a pool thread: wait, so it is not the next test's. */
    long until = ts_now_ms() + 3000;
    while (atomic_load(&live_close) == 0 && ts_now_ms() < until)
        ts_sleep_ms(5);
    assert_int_equal(atomic_load(&live_close), 1006);
}

static void a_suspended_socket_is_not_pinged_or_dropped(void **state) {
    (void)state;
    atomic_store(&credits, 0);
    atomic_store(&live_close, 0);
    flow_ws = NULL;
    int fd = ws_open("/quiet");
    tachy_ws *ws = the_flow_ws();
    assert_non_null(ws);
    /* Twice interval + timeout while suspended: no ping, still open. */
    assert_int_equal(next_op(fd, 1000, NULL, NULL), -2);
    assert_int_equal(atomic_load(&live_close), 0);
    assert_true(tachy_ws_is_open(ws));
    /* Resumed: the policy applies again. */
    request(ws, 10);
    assert_int_equal(next_op(fd, 3000, NULL, NULL), 9);
    close(fd);
    tachy_ws_release(ws);
}

static void null_handles_are_refused(void **state) {
    (void)state;
    assert_int_equal(tachy_ws_suspend_reading(NULL), TACHY_EINVAL);
    assert_int_equal(tachy_ws_resume_reading(NULL), TACHY_EINVAL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nothing_is_delivered_beyond_what_was_requested),
        cmocka_unit_test(a_suspended_socket_pushes_back_on_the_peer),
        cmocka_unit_test(a_resume_inside_the_callback_keeps_delivering),
        cmocka_unit_test(defaults_are_the_documented_liveness_policy),
        cmocka_unit_test(a_quiet_peer_is_pinged_and_dropped_without_a_pong),
        cmocka_unit_test(a_peer_that_answers_pings_stays),
        cmocka_unit_test(a_suspended_socket_is_not_pinged_or_dropped),
        cmocka_unit_test(null_handles_are_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
