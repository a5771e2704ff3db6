/*
 * test_drain.c - tachy_server_drain (and stop(delay), which drains): a graceful stop on
 * real sockets. In-flight exchanges finish and say "Connection: close"; requests that have
 * reached the server (pipelined, or still in the socket) are answered; idle connections are
 * closed without a byte; new connections are refused; parked WebSockets get 1001.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <tachy/ws.h>

#include "tsupport.h"

/* Sleeps the user pointer's milliseconds, then answers 200 "slow". */
static int slow(tachy_exchange *ex, void *user) {
    ts_sleep_ms((long)(intptr_t)user);
    tachy_exchange_send_response_headers(ex, 200, 4);
    tachy_exchange_write(ex, "slow", 4);
    return tachy_exchange_close(ex);
}

/* Sends its head at once (chunked), then sleeps the user pointer's ms, then the body: its
 * connection policy is decided before a drain that begins meanwhile. */
static int streaming(tachy_exchange *ex, void *user) {
    tachy_exchange_send_response_headers(ex, 200, 0);
    ts_sleep_ms((long)(intptr_t)user);
    tachy_exchange_write(ex, "streamed", 8);
    return tachy_exchange_close(ex);
}

typedef struct {
    tachy_server *srv;
    long delay_ms, timeout_ms;
    long took_ms; /* out: how long tachy_server_drain took */
    pthread_t tid;
} drainer;

static void *drain_main(void *arg) {
    drainer *d = arg;
    ts_sleep_ms(d->delay_ms);
    long t0 = ts_now_ms();
    assert_int_equal(tachy_server_drain(d->srv, d->timeout_ms), 0);
    d->took_ms = ts_now_ms() - t0;
    return NULL;
}

/* Drains srv on a thread after delay_ms. */
static void drain_later(drainer *d, tachy_server *srv, long delay_ms, long timeout_ms) {
    d->srv = srv;
    d->delay_ms = delay_ms;
    d->timeout_ms = timeout_ms;
    d->took_ms = -1;
    assert_int_equal(pthread_create(&d->tid, NULL, drain_main, d), 0);
}

/* 1 if a connection to port is refused (or reset at once). */
static int refused(int port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int rc = connect(fd, (struct sockaddr *)&a, sizeof a);
    int err = errno;
    close(fd);
    return rc < 0 && err == ECONNREFUSED;
}

/* A request in progress when the drain begins gets its whole response, with "Connection:
 * close", then the close; meanwhile new connections are refused; the drain returns right
 * after. */
static void test_in_flight_finishes_with_close(void **state) {
    (void)state;
    tachy_server *s = ts_server(NULL);
    tachy_server_create_context(s, "/slow", slow, (void *)(intptr_t)500, NULL);
    int port = ts_start(s);
    int fd = ts_connect(port);
    ts_send(fd, "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n", -1);
    drainer d;
    drain_later(&d, s, 100, 5000);
    ts_sleep_ms(250);
    assert_true(refused(port)); /* the drain has stopped accepting */
    ts_response r;
    assert_int_equal(ts_read_response(fd, &r, 0), 0);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body, "slow");
    char v[32];
    assert_non_null(ts_header(&r, "Connection", v, sizeof v));
    assert_string_equal(v, "close");
    ts_response_free(&r);
    assert_true(ts_wait_eof(fd, 1000));
    ts_close(fd);
    pthread_join(d.tid, NULL);
    assert_true(d.took_ms >= 300 && d.took_ms < 2000);
    tachy_server_destroy(s);
}

/* Idle keep-alive connections (one answered, one never used) are closed without a byte,
 * after the drain's 100 ms grace; the drain returns at once then. */
static void test_idle_closed(void **state) {
    (void)state;
    tachy_server *s = ts_server(NULL);
    tachy_server_create_context(s, "/", ts_named_handler, "r", NULL);
    int port = ts_start(s);
    int used = ts_connect(port);
    ts_expect_body(used, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", "r:/");
    int fresh = ts_connect(port);
    ts_sleep_ms(50);
    long t0 = ts_now_ms();
    assert_int_equal(tachy_server_drain(s, 5000), 0);
    long took = ts_now_ms() - t0;
    assert_true(took >= 90 && took < 1000);
    ts_expect_silent_close(used, 1000);
    ts_expect_silent_close(fresh, 1000);
    tachy_server_destroy(s);
}

/* Two requests sent together: the first one's response began before the drain (kept
 * alive), so the second, already in the server's buffer, is answered - with "Connection:
 * close" - and only then is the connection closed. */
static void test_pipelined_second_answered(void **state) {
    (void)state;
    tachy_server *s = ts_server(NULL);
    tachy_server_create_context(s, "/stream", streaming, (void *)(intptr_t)400, NULL);
    tachy_server_create_context(s, "/", ts_named_handler, "r", NULL);
    int port = ts_start(s);
    int fd = ts_connect(port);
    ts_send(fd, "GET /stream HTTP/1.1\r\nHost: x\r\n\r\nGET /second HTTP/1.1\r\nHost: x\r\n\r\n", -1);
    drainer d;
    drain_later(&d, s, 100, 5000);
    ts_response r;
    char v[32];
    assert_int_equal(ts_read_response(fd, &r, 0), 0);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body, "streamed");
    assert_null(ts_header(&r, "Connection", v, sizeof v));
    ts_response_free(&r);
    assert_int_equal(ts_read_response(fd, &r, 0), 0);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body, "r:/second");
    assert_non_null(ts_header(&r, "Connection", v, sizeof v));
    assert_string_equal(v, "close");
    ts_response_free(&r);
    assert_true(ts_wait_eof(fd, 1000));
    ts_close(fd);
    pthread_join(d.tid, NULL);
    tachy_server_destroy(s);
}

/* Many idle keep-alive connections each send a request and the drain begins at once:
 * requests in the sockets, not read yet, are served (with "Connection: close"), not reset. */
#define NCONN 64
static void test_requests_in_socket_served(void **state) {
    (void)state;
    for (int round = 0; round < 3; round++) {
        tachy_server *s = ts_server(NULL);
        tachy_server_create_context(s, "/", ts_named_handler, "r", NULL);
        int port = ts_start(s);
        int fds[NCONN];
        for (int i = 0; i < NCONN; i++) {
            fds[i] = ts_connect(port);
            ts_expect_body(fds[i], "GET / HTTP/1.1\r\nHost: x\r\n\r\n", "r:/");
        }
        ts_sleep_ms(20);
        for (int i = 0; i < NCONN; i++)
            ts_send(fds[i], "GET /again HTTP/1.1\r\nHost: x\r\n\r\n", -1);
        assert_int_equal(tachy_server_drain(s, 5000), 0);
        /* Those a pool thread had answered before the drain began are kept alive (and then
         * closed idle); every other one says "Connection: close". */
        int ok = 0, closing = 0;
        for (int i = 0; i < NCONN; i++) {
            ts_response r;
            if (ts_read_response(fds[i], &r, 0) == 0) {
                char v[32];
                ok += r.status == 200 && strcmp(r.body, "r:/again") == 0;
                closing += ts_header(&r, "Connection", v, sizeof v) && strcmp(v, "close") == 0;
                ts_response_free(&r);
                assert_true(ts_wait_eof(fds[i], 1000));
            }
            ts_close(fds[i]);
        }
        print_message("round %d: %d of %d answered, %d with Connection: close\n", round, ok,
                      NCONN, closing);
        assert_int_equal(ok, NCONN);
        tachy_server_destroy(s);
    }
}

/* A parked WebSocket (tachy_ws_attach) gets a close frame with 1001; the client's answer
 * ends the close handshake and the connection, and the drain with it. */
static int ws_closed_code;
static void ws_on_close(tachy_ws *ws, int code, const char *reason, size_t rlen, void *user) {
    (void)ws, (void)reason, (void)rlen, (void)user;
    __atomic_store_n(&ws_closed_code, code, __ATOMIC_SEQ_CST);
}

static int ws_handler(tachy_exchange *ex, void *user) {
    (void)user;
    tachy_ws_options o;
    tachy_ws_options_init(&o);
    o.cb.on_close = ws_on_close;
    int rc = tachy_ws_attach(ex, &o);
    return rc == TACHY_EPROTO ? 0 : rc;
}

static void test_websocket_going_away(void **state) {
    (void)state;
    tachy_server *s = ts_server(NULL);
    tachy_server_create_context(s, "/ws", ws_handler, NULL, NULL);
    int port = ts_start(s);
    int fd = ts_connect(port);
    ts_send(fd,
            "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
            -1);
    char head[1024];
    assert_int_equal(ts_read_head(fd, head, sizeof head), 101);
    ws_closed_code = 0;
    drainer d;
    drain_later(&d, s, 50, 5000);
    uint8_t f[2 + 2 + 17];
    assert_int_equal(ts_recv_exact(fd, f, 2), 0);
    assert_int_equal(f[0], 0x88); /* FIN + close */
    size_t n = f[1] & 0x7f;
    assert_true(n >= 2 && n <= sizeof f - 2);
    assert_int_equal(ts_recv_exact(fd, f + 2, n), 0);
    assert_int_equal(f[2] << 8 | f[3], 1001);
    /* The client's close, masked (RFC 6455 section 5.3), echoing the code. */
    uint8_t reply[8] = {0x88, 0x80 | 2, 1, 2, 3, 4, (uint8_t)(0x03 ^ 1), (uint8_t)(0xe9 ^ 2)};
    ts_send(fd, reply, sizeof reply);
    assert_true(ts_wait_eof(fd, 2000));
    ts_close(fd);
    pthread_join(d.tid, NULL);
    assert_true(d.took_ms < 2000);
    assert_int_equal(__atomic_load_n(&ws_closed_code, __ATOMIC_SEQ_CST), 1001);
    tachy_server_destroy(s);
}

/* stop(delay) drains too; stop(0) does not wait; a second drain waits for the first. */
static void test_stop_delay_drains(void **state) {
    (void)state;
    tachy_server *s = ts_server(NULL);
    tachy_server_create_context(s, "/slow", slow, (void *)(intptr_t)300, NULL);
    int port = ts_start(s);
    int fd = ts_connect(port);
    ts_send(fd, "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n", -1);
    ts_sleep_ms(100);
    drainer d;
    drain_later(&d, s, 20, 5000); /* a second one, while stop runs */
    assert_int_equal(tachy_server_stop(s, 5), 0);
    ts_response r;
    char v[32];
    assert_int_equal(ts_read_response(fd, &r, 0), 0);
    assert_int_equal(r.status, 200);
    assert_non_null(ts_header(&r, "Connection", v, sizeof v));
    assert_string_equal(v, "close");
    ts_response_free(&r);
    ts_close(fd);
    pthread_join(d.tid, NULL);
    assert_int_equal(tachy_server_drain(NULL, 1), TACHY_EINVAL);
    assert_int_equal(tachy_server_drain(s, -1), TACHY_EINVAL);
    tachy_server_destroy(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_in_flight_finishes_with_close),
        cmocka_unit_test(test_idle_closed),
        cmocka_unit_test(test_pipelined_second_answered),
        cmocka_unit_test(test_requests_in_socket_served),
        cmocka_unit_test(test_websocket_going_away),
        cmocka_unit_test(test_stop_delay_drains),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
