/*
 * test_lend.c - deferred exchanges lend their connection (http/dispatch.c, http/conn.c,
 * loop/workers.c): no pool thread waits for a deferred exchange's close; the close
 * continues the connection, on a pool thread or (TACHY_DEFER_CLOSER_CONTINUES) on the
 * closing thread itself, which then dispatches the next pipelined request and serves other
 * ready connections (the harvest).
 *
 * The "executor" here is one worker thread with a queue, as a bridge would have: handlers
 * hold the exchange, defer it and queue it; the worker answers and closes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tachy/tachy.h"
#include "tsupport.h"

/* ---- a one-thread executor ------------------------------------------------------------ */

#define QCAP 4096

static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    tachy_exchange *q[QCAP];
    int head, count;
    int stop;
    int gate;            /* while set, the worker takes nothing (exchanges pile up lent) */
    int busy;            /* the worker is answering an exchange (counters not yet updated) */
    pthread_t tid;
} ex_q = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, {0}, 0, 0, 0, 0, 0, 0};

static atomic_int on_worker;    /* handlers that ran on the worker thread */
static atomic_int handled;      /* handlers that ran */
static atomic_int worker_done;  /* exchanges the worker closed */
static atomic_int harvested;    /* ... of which dispatched by the worker while it closed
                                   another connection's exchange (a path unlike the one
                                   it was closing) */
static char closing[64];        /* the worker: the path of the exchange it is closing */

static void submit(tachy_exchange *ex) {
    pthread_mutex_lock(&ex_q.lock);
    assert_true(ex_q.count < QCAP);
    ex_q.q[(ex_q.head + ex_q.count) % QCAP] = ex;
    ex_q.count++;
    pthread_cond_broadcast(&ex_q.cond);
    pthread_mutex_unlock(&ex_q.lock);
}

/* Waits (up to 10 s) until the worker has nothing queued and is not answering: the
 * counters a test resets are then not still moving from the test before it (an aborted
 * exchange's client sees EOF before the worker counts it done). */
static void worker_idle(void) {
    long end = ts_now_ms() + 10000;
    pthread_mutex_lock(&ex_q.lock);
    while ((ex_q.count > 0 || ex_q.busy) && ts_now_ms() < end) {
        pthread_mutex_unlock(&ex_q.lock);
        ts_sleep_ms(1);
        pthread_mutex_lock(&ex_q.lock);
    }
    int idle = ex_q.count == 0 && !ex_q.busy;
    pthread_mutex_unlock(&ex_q.lock);
    assert_true(idle);
}

static void gate(int on) {
    pthread_mutex_lock(&ex_q.lock);
    ex_q.gate = on;
    pthread_cond_broadcast(&ex_q.cond);
    pthread_mutex_unlock(&ex_q.lock);
}

/* What the worker does with an exchange: answers "<path>" or, for /abort, a short body. */
static void answer(tachy_exchange *ex) {
    const char *path = tachy_exchange_request_path(ex);
    if (strcmp(path, "/abort") == 0) {
        tachy_exchange_send_response_headers(ex, 200, 10);
        tachy_exchange_write(ex, "abc", 3);
        assert_int_equal(tachy_exchange_abort(ex), 0); /* ex is not ours after this */
    } else {
        size_t n = strlen(path);
        tachy_exchange_send_response_headers(ex, 200, (int64_t)n);
        tachy_exchange_write(ex, path, n);
        snprintf(closing, sizeof closing, "%s", path); /* path is the exchange's: copied */
        unsigned flags = strncmp(path, "/harvest", 8) == 0 ? TACHY_CLOSE_HARVEST : 0;
        assert_int_equal(tachy_exchange_close_flags(ex, flags), 0);
        closing[0] = '\0';
    }
    atomic_fetch_add(&worker_done, 1);
}

static void *worker(void *arg) {
    (void)arg;
    pthread_mutex_lock(&ex_q.lock);
    for (;;) {
        while (!ex_q.stop && (ex_q.count == 0 || ex_q.gate))
            pthread_cond_wait(&ex_q.cond, &ex_q.lock);
        if (ex_q.stop && ex_q.count == 0)
            break;
        if (ex_q.gate)
            continue;
        tachy_exchange *ex = ex_q.q[ex_q.head];
        ex_q.head = (ex_q.head + 1) % QCAP;
        ex_q.count--;
        ex_q.busy = 1;
        pthread_mutex_unlock(&ex_q.lock);
        answer(ex); /* may dispatch the next pipelined request here (closer continues) */
        pthread_mutex_lock(&ex_q.lock);
        ex_q.busy = 0;
        pthread_cond_broadcast(&ex_q.cond);
    }
    pthread_mutex_unlock(&ex_q.lock);
    return NULL;
}

/* Hands the exchange to the worker; user: the defer flags. */
static int to_worker(tachy_exchange *ex, void *user) {
    unsigned flags = (unsigned)(uintptr_t)user;
    atomic_fetch_add(&handled, 1);
    if (pthread_equal(pthread_self(), ex_q.tid)) {
        atomic_fetch_add(&on_worker, 1);
        if (closing[0] && strcmp(closing, tachy_exchange_request_path(ex)) != 0)
            atomic_fetch_add(&harvested, 1);
    }
    if (flags & TACHY_DEFER_CLOSER_CONTINUES)
        assert_int_equal(tachy_exchange_hold(ex, 1), 0);
    assert_int_equal(tachy_exchange_defer_flags(ex, flags), 0);
    submit(ex);
    return 0;
}

static int now_handler(tachy_exchange *ex, void *user) {
    (void)user;
    tachy_exchange_send_response_headers(ex, 200, 3);
    tachy_exchange_write(ex, "now", 3);
    return 0;
}

static tachy_server *srv;
static int port;

static void start_server(void) {
    srv = ts_server(NULL);
    tachy_server_create_context(srv, "/pool", to_worker, (void *)(uintptr_t)0, NULL);
    tachy_server_create_context(srv, "/closer", to_worker,
                                (void *)(uintptr_t)TACHY_DEFER_CLOSER_CONTINUES, NULL);
    tachy_server_create_context(srv, "/harvest", to_worker, /* closed with TACHY_CLOSE_HARVEST */
                                (void *)(uintptr_t)TACHY_DEFER_CLOSER_CONTINUES, NULL);
    tachy_server_create_context(srv, "/abort", to_worker,
                                (void *)(uintptr_t)TACHY_DEFER_CLOSER_CONTINUES, NULL);
    tachy_server_create_context(srv, "/now", now_handler, NULL, NULL);
    port = ts_start(srv);
}

static int setup(void **state) {
    (void)state;
    ex_q.stop = 0;
    assert_int_equal(pthread_create(&ex_q.tid, NULL, worker, NULL), 0);
    start_server();
    return 0;
}

static int teardown(void **state) {
    (void)state;
    if (srv)
        ts_stop(srv);
    pthread_mutex_lock(&ex_q.lock);
    ex_q.stop = 1;
    ex_q.gate = 0;
    pthread_cond_broadcast(&ex_q.cond);
    pthread_mutex_unlock(&ex_q.lock);
    pthread_join(ex_q.tid, NULL);
    return 0;
}

/* ---- tests ---------------------------------------------------------------------------- */

/* 200 exchanges wait with the worker at once: no pool thread waits with them (the thread
 * count stays far below 200), other requests are served meanwhile, and each connection
 * gets its answer when the worker closes, then serves a second request. */
static void test_lent_exchanges_hold_no_thread(void **state) {
    (void)state;
    enum { N = 200 };
    int fds[N];
    int before = ts_thread_count();
    atomic_store(&worker_done, 0);
    gate(1);
    for (int i = 0; i < N; i++) {
        fds[i] = ts_connect(port);
        ts_send(fds[i], i % 2 ? "GET /pool HTTP/1.1\r\nHost: t\r\n\r\n"
                              : "GET /closer HTTP/1.1\r\nHost: t\r\n\r\n", -1);
    }
    long end = ts_now_ms() + 20000;
    while (atomic_load(&handled) < N && ts_now_ms() < end)
        ts_sleep_ms(5);
    assert_int_equal(atomic_load(&handled), N);
    int during = ts_thread_count();
    int st = 0;
    char *body = ts_get(port, "/now", &st); /* served while all 200 are lent */
    assert_int_equal(st, 200);
    assert_string_equal(body, "now");
    free(body);
    /* Pool threads: at most a few per CPU beyond what the suite started with. */
    assert_true(during - before < 20);
    gate(0);
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < N; i++) {
            ts_response r;
            if (ts_read_response(fds[i], &r, 0) != 0) fail_msg("round %d conn %d", round, i);
            assert_string_equal(r.body, i % 2 ? "/pool" : "/closer");
            ts_response_free(&r);
            if (round == 0)
                ts_send(fds[i], i % 2 ? "GET /pool HTTP/1.1\r\nHost: t\r\n\r\n"
                                      : "GET /closer HTTP/1.1\r\nHost: t\r\n\r\n", -1);
        }
    }
    for (int i = 0; i < N; i++)
        ts_close(fds[i]);
    /* The worker counts an exchange after its close, which the client may see first. */
    end = ts_now_ms() + 10000;
    while (atomic_load(&worker_done) < 2 * N && ts_now_ms() < end)
        ts_sleep_ms(2);
    assert_int_equal(atomic_load(&worker_done), 2 * N);
}

/* Pipelined requests behind a closer-continues exchange are dispatched by the worker as it
 * closes the one before (no pool thread involved), answered in order, and leave together. */
static void test_closer_continues_pipelined(void **state) {
    (void)state;
    enum { N = 16 };
    char req[N * 64];
    size_t len = 0;
    for (int i = 0; i < N; i++)
        len += (size_t)snprintf(req + len, sizeof req - len,
                                "GET /closer HTTP/1.1\r\nHost: t\r\n\r\n");
    worker_idle();
    atomic_store(&on_worker, 0);
    atomic_store(&handled, 0);
    int fd = ts_connect(port);
    gate(1); /* all 16 arrive before the first is answered */
    ts_send(fd, req, (ssize_t)len);
    long end = ts_now_ms() + 10000;
    while (atomic_load(&handled) < 1 && ts_now_ms() < end)
        ts_sleep_ms(2);
    ts_sleep_ms(50);
    uint64_t w0 = ts_server_writes(srv);
    gate(0);
    for (int i = 0; i < N; i++) {
        ts_response r;
        assert_int_equal(ts_read_response(fd, &r, 0), 0);
        assert_string_equal(r.status_line, "HTTP/1.1 200 OK");
        assert_string_equal(r.body, "/closer");
        ts_response_free(&r);
    }
    assert_int_equal(atomic_load(&handled), N);
    /* The first handler ran on a pool thread, the other 15 on the worker, each dispatched
     * by the close of the one before. */
    assert_int_equal(atomic_load(&on_worker), N - 1);
    /* The flush rule holds across threads: the 16 responses left in one write (counted
     * from the moment the worker was let go). */
    assert_true(ts_server_writes(srv) - w0 <= 1);
    /* The connection is still good. */
    ts_send(fd, "GET /now HTTP/1.1\r\nHost: t\r\n\r\n", -1);
    ts_response r;
    assert_int_equal(ts_read_response(fd, &r, 0), 0);
    assert_string_equal(r.body, "now");
    ts_response_free(&r);
    ts_close(fd);
}

/* A pipelined request behind a pool-resumed exchange is served too (by a pool thread). */
static void test_pool_resume_pipelined(void **state) {
    (void)state;
    int fd = ts_connect(port);
    ts_send(fd, "GET /pool HTTP/1.1\r\nHost: t\r\n\r\nGET /now HTTP/1.1\r\nHost: t\r\n\r\n"
                "GET /pool HTTP/1.1\r\nHost: t\r\n\r\n", -1);
    const char *want[] = {"/pool", "now", "/pool"};
    for (int i = 0; i < 3; i++) {
        ts_response r;
        assert_int_equal(ts_read_response(fd, &r, 0), 0);
        assert_string_equal(r.body, want[i]);
        ts_response_free(&r);
    }
    ts_close(fd);
}

/* tachy_exchange_abort: the bytes written go out, then the connection closes (the client
 * sees a short body and EOF), and nothing behind it is answered. */
static void test_abort_closes_after_output(void **state) {
    (void)state;
    int fd = ts_connect(port);
    ts_send(fd, "GET /abort HTTP/1.1\r\nHost: t\r\n\r\nGET /now HTTP/1.1\r\nHost: t\r\n\r\n", -1);
    size_t n = 0;
    int eof = 0;
    char *raw = ts_read_raw(fd, 5000, &n, &eof);
    assert_true(eof);
    assert_non_null(strstr(raw, "HTTP/1.1 200 OK"));
    assert_non_null(strstr(raw, "\r\n\r\nabc"));
    assert_null(strstr(raw, "now"));
    free(raw);
    ts_close(fd);
}

/* The server is stopped and destroyed while an exchange is lent: the exchange's late close
 * finds its memory still there (the lend holds a server reference) and frees it. */
static void test_close_after_destroy(void **state) {
    (void)state;
    worker_idle();
    atomic_store(&handled, 0);
    atomic_store(&worker_done, 0);
    gate(1);
    int fd = ts_connect(port);
    ts_send(fd, "GET /closer HTTP/1.1\r\nHost: t\r\n\r\n", -1);
    long end = ts_now_ms() + 10000;
    while (atomic_load(&handled) < 1 && ts_now_ms() < end)
        ts_sleep_ms(2);
    assert_int_equal(atomic_load(&handled), 1);
    ts_stop(srv); /* stop(0) + destroy: the lent exchange is still with the worker */
    srv = NULL;
    gate(0);
    end = ts_now_ms() + 10000;
    while (atomic_load(&worker_done) < 1 && ts_now_ms() < end)
        ts_sleep_ms(2);
    assert_int_equal(atomic_load(&worker_done), 1);
    assert_true(ts_wait_eof(fd, 5000) >= 0);
    ts_close(fd);
    start_server(); /* for the tests after this one */
}

/* Rounds of one request on each of n connections (path prefix/i on connection i), until
 * max_rounds or, past min_rounds, a harvest was seen; returns the rounds run. Every answer
 * is checked. */
static int load_rounds(const int *fds, int n, const char *prefix, int min_rounds, int max_rounds) {
    long end = ts_now_ms() + 10000;
    int rounds = 0;
    while (rounds < max_rounds && ts_now_ms() < end &&
           (rounds < min_rounds || atomic_load(&harvested) == 0)) {
        for (int i = 0; i < n; i++) {
            char req[64];
            snprintf(req, sizeof req, "GET %s/%d HTTP/1.1\r\nHost: t\r\n\r\n", prefix, i);
            ts_send(fds[i], req, -1);
        }
        for (int i = 0; i < n; i++) {
            char want[32];
            snprintf(want, sizeof want, "%s/%d", prefix, i);
            ts_response r;
            if (ts_read_response(fds[i], &r, 0) != 0)
                fail_msg("%s round %d conn %d", prefix, rounds, i);
            assert_string_equal(r.body, want);
            ts_response_free(&r);
        }
        rounds++;
    }
    return rounds;
}

/* Closers harvest (loop/workers.c): under load, the worker that closes an exchange with
 * TACHY_CLOSE_HARVEST also takes other connections' ready requests from the park set and
 * dispatches them itself (a handler runs on the worker while it closes another
 * connection's exchange; each connection has its own path); closed without the flag, it
 * never does. Every answer is still the right one, in order. */
static void test_closers_serve_other_connections(void **state) {
    (void)state;
    enum { N = 32 };
    int fds[N];
    if (srv == NULL)
        start_server(); /* test_close_after_destroy failed before restarting it */
    for (int i = 0; i < N; i++)
        fds[i] = ts_connect(port);
    worker_idle();
    atomic_store(&harvested, 0);
    atomic_store(&handled, 0);
    int plain = load_rounds(fds, N, "/closer", 100, 100);
    assert_int_equal(atomic_load(&harvested), 0);
    int rounds = load_rounds(fds, N, "/harvest", 20, 3000);
    assert_int_equal(atomic_load(&handled), (plain + rounds) * N);
    if (atomic_load(&harvested) == 0)
        fail_msg("no harvest in %d rounds of %d connections", rounds, N);
    for (int i = 0; i < N; i++)
        ts_close(fds[i]);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lent_exchanges_hold_no_thread),
        cmocka_unit_test(test_closer_continues_pipelined),
        cmocka_unit_test(test_pool_resume_pipelined),
        cmocka_unit_test(test_abort_closes_after_output),
        cmocka_unit_test(test_close_after_destroy),
        cmocka_unit_test(test_closers_serve_other_connections),
    };
    return cmocka_run_group_tests_name("lend", tests, setup, teardown);
}
