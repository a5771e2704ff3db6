/*
 * test_loop.c - the running server (loop/) over real sockets: stop(delay) with idle and
 * active connections, thread hooks, hundreds of concurrent clients with every request
 * answered, threads reused across connections, accept recovering after the process ran
 * out of descriptors, a handler blocked in a body read delaying nobody, and
 * max_body_time_ms cutting off a slow body.
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
#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include "tsupport.h"

/* Sleeps for the user pointer's milliseconds, then answers 200 without a body. */
static int sleepy(tachy_exchange *ex, void *user) {
    long ms = (long)(intptr_t)user;
    ts_sleep_ms(ms);
    tachy_exchange_send_response_headers(ex, 200, -1);
    tachy_exchange_close(ex);
    return 0;
}

static void test_stop_idle_returns_at_once(void **state) {
    (void)state;
    tachy_server *s = ts_server(NULL);
    tachy_server_create_context(s, "/", ts_named_handler, "r", NULL);
    int port = ts_start(s);
    int st;
    free(ts_get(port, "/", &st));
    int idle = ts_connect(port);
    ts_sleep_ms(50);
    long t0 = ts_now_ms();
    assert_int_equal(tachy_server_stop(s, 5), 0);
    assert_true(ts_now_ms() - t0 < 1000);
    assert_true(ts_wait_eof(idle, 1000));
    ts_close(idle);
    tachy_server_destroy(s);
}

static void test_stop_waits_for_active_exchange_at_most_delay(void **state) {
    (void)state;
    tachy_server *s = ts_server(NULL);
    tachy_server_create_context(s, "/short", sleepy, (void *)(intptr_t)300, NULL);
    tachy_server_create_context(s, "/long", sleepy, (void *)(intptr_t)3000, NULL);
    int port = ts_start(s);
    /* An exchange that ends within the delay completes and stop returns right after it. */
    int fd = ts_connect(port);
    ts_send(fd, "GET /short HTTP/1.1\r\nHost: t\r\n\r\n", -1);
    ts_sleep_ms(50);
    long t0 = ts_now_ms();
    assert_int_equal(tachy_server_stop(s, 2), 0);
    long dt = ts_now_ms() - t0;
    assert_true(dt >= 150 && dt < 1500);
    ts_response r;
    assert_int_equal(ts_read_response(fd, &r, 0), 0);
    assert_int_equal(r.status, 200);
    ts_response_free(&r);
    ts_close(fd);
    /* New connections are refused after stop. */
    tachy_server_destroy(s);

    s = ts_server(NULL);
    tachy_server_create_context(s, "/long", sleepy, (void *)(intptr_t)3000, NULL);
    port = ts_start(s);
    fd = ts_connect(port);
    ts_send(fd, "GET /long HTTP/1.1\r\nHost: t\r\n\r\n", -1);
    ts_sleep_ms(50);
    t0 = ts_now_ms();
    assert_int_equal(tachy_server_stop(s, 1), 0);
    dt = ts_now_ms() - t0;
    assert_true(dt >= 900 && dt < 2000); /* at most the delay */
    assert_true(ts_wait_eof(fd, 5000));
    ts_close(fd);
    tachy_server_destroy(s); /* safe while the handler still sleeps */
}

/* ---- threads and concurrency ---- */

static atomic_int started, stopped;
static void on_start(void *u, const char *name) {
    (void)u;
    assert_non_null(name);
    atomic_fetch_add(&started, 1);
}
static void on_stop(void *u) {
    (void)u;
    atomic_fetch_add(&stopped, 1);
}

static int cport;
static atomic_int answered;
static void *client(void *arg) {
    (void)arg;
    int fd = ts_connect(cport);
    for (int i = 0; i < 20; i++) {
        ts_send(fd, "GET /c HTTP/1.1\r\nHost: t\r\n\r\n", -1);
        ts_response r;
        if (ts_read_response(fd, &r, 0) == 0 && r.status == 200 &&
            strcmp(r.body, "c:/c") == 0)
            atomic_fetch_add(&answered, 1);
        ts_response_free(&r);
    }
    ts_close(fd);
    return NULL;
}

static void test_hundreds_of_concurrent_connections(void **state) {
    (void)state;
    tachy_options o;
    tachy_options_init(&o);
    o.on_thread_start = on_start;
    o.on_thread_stop = on_stop;
    o.thread_keepalive_ms = 200;
    o.max_idle_connections = 1000; /* all 300 may be idle between requests at once */
    tachy_server *s = ts_server(&o);
    tachy_server_create_context(s, "/c", ts_named_handler, "c", NULL);
    cport = ts_start(s);
    enum { N = 300 };
    pthread_t t[N];
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 128 * 1024);
    for (int i = 0; i < N; i++)
        assert_int_equal(pthread_create(&t[i], &attr, client, NULL), 0);
    for (int i = 0; i < N; i++)
        pthread_join(t[i], NULL);
    pthread_attr_destroy(&attr);
    assert_int_equal(atomic_load(&answered), N * 20);
    tachy_stats st;
    tachy_server_stats(s, &st);
    assert_int_equal(st.requests, N * 20);
    assert_int_equal(st.connections, N);
    assert_true(atomic_load(&started) >= 1);
    ts_stop(s);
    /* Every pool thread reported its start and its end. */
    for (int i = 0; i < 100 && atomic_load(&stopped) != atomic_load(&started); i++)
        ts_sleep_ms(20);
    assert_int_equal(atomic_load(&stopped), atomic_load(&started));
}

static void test_threads_are_reused(void **state) {
    (void)state;
    atomic_store(&started, 0);
    atomic_store(&stopped, 0);
    tachy_options o;
    tachy_options_init(&o);
    o.on_thread_start = on_start;
    o.on_thread_stop = on_stop;
    tachy_server *s = ts_server(&o);
    tachy_server_create_context(s, "/", ts_named_handler, "r", NULL);
    int port = ts_start(s);
    for (int i = 0; i < 20; i++) {
        int st;
        free(ts_get(port, "/", &st));
        assert_int_equal(st, 200);
        ts_sleep_ms(5);
    }
    /* 20 sequential connections are served by a few pooled threads, not 20. */
    assert_true(atomic_load(&started) <= 4);
    ts_stop(s);
}

/*
 * With every descriptor in use, accept() fails (EMFILE) and the connection stays in the
 * kernel's backlog; edge-triggered epoll would never mention it again, so the watchdog
 * retries. Once descriptors are free, the waiting client is served without any new
 * connection arriving to prompt it.
 */
static void test_accept_recovers_from_descriptor_exhaustion(void **state) {
    (void)state;
    /* valgrind emulates RLIMIT_NOFILE above the kernel: the kernel accepts, valgrind
     * closes the new socket and reports EMFILE, so the client sees EOF. Not testable
     * there; the sanitizer builds run it. */
    const char *pre = getenv("LD_PRELOAD");
    if (pre && strstr(pre, "vgpreload"))
        skip();
    tachy_server *s = ts_server(NULL);
    tachy_server_create_context(s, "/", ts_named_handler, "r", NULL);
    int port = ts_start(s);
    int st;
    free(ts_get(port, "/", &st));
    assert_int_equal(st, 200);
    ts_sleep_ms(200); /* the server closes its side of that connection: a free slot */

    struct rlimit saved;
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &saved), 0);
    int client = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(client >= 0);
    /* Room for a few more descriptors than are open now, then fill all of it. */
    int highest = client;
    for (int fd = 0; fd < 4096; fd++)
        if (fcntl(fd, F_GETFD) >= 0 && fd > highest)
            highest = fd;
    struct rlimit low = saved;
    low.rlim_cur = (rlim_t)highest + 8;
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
    enum { MAXF = 4200 };
    static int fillers[MAXF];
    int nf = 0;
    while (nf < MAXF && (fillers[nf] = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0)
        nf++;
    assert_int_equal(errno, EMFILE); /* the table is full */

    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(connect(client, (struct sockaddr *)&a, sizeof a), 0);
    ts_send(client, "GET /x HTTP/1.1\r\nHost: t\r\n\r\n", -1);
    size_t len;
    int eof;
    char *early = ts_read_raw(client, 200, &len, &eof);
    assert_int_equal(len, 0); /* not accepted: nothing can be answered yet */
    free(early);

    for (int i = 0; i < nf; i++)
        close(fillers[i]);
    /* Best effort: under valgrind the limits are virtual and the old one may be refused;
     * the descriptors just freed are room enough either way. */
    setrlimit(RLIMIT_NOFILE, &saved);
    long t0 = ts_now_ms();
    ts_response r;
    assert_int_equal(ts_read_response(client, &r, 0), 0);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body, "r:/x");
    assert_true(ts_now_ms() - t0 < 2000);
    ts_response_free(&r);
    ts_close(client);
    ts_stop(s);
}

/* Reads the whole request body, then answers its length. */
static int body_reader(tachy_exchange *ex, void *user) {
    (void)user;
    char buf[4096];
    ssize_t n, total = 0;
    while ((n = tachy_exchange_read(ex, buf, sizeof buf)) > 0)
        total += n;
    char out[32];
    int len = snprintf(out, sizeof out, "%zd", total);
    tachy_exchange_send_response_headers(ex, 200, len);
    tachy_exchange_write(ex, out, (size_t)len);
    tachy_exchange_close(ex);
    return 0;
}

static int slow_port;
static atomic_long slow_worst_ms;
static atomic_int slow_answered;

static void *slow_get(void *arg) {
    (void)arg;
    long t0 = ts_now_ms();
    int st;
    char *b = ts_get(slow_port, "/g", &st);
    long took = ts_now_ms() - t0;
    if (st == 200 && b && strcmp(b, "g:/g") == 0)
        atomic_fetch_add(&slow_answered, 1);
    free(b);
    long w = atomic_load(&slow_worst_ms);
    while (took > w && !atomic_compare_exchange_weak(&slow_worst_ms, &w, took)) {
    }
    return NULL;
}

/*
 * A handler blocked reading a body that never comes must not delay anyone else: on a
 * freshly started server (one pool thread), one connection announces a 5-byte body and
 * sends none, then 30 ordinary GETs on their own connections are all answered promptly.
 * The blocked read asks the pool for a replacement thread before it blocks.
 */
static void test_blocked_body_read_delays_nobody(void **state) {
    (void)state;
    tachy_server *s = ts_server(NULL);
    tachy_server_create_context(s, "/g", ts_named_handler, "g", NULL);
    tachy_server_create_context(s, "/body", body_reader, NULL, NULL);
    slow_port = ts_start(s);
    int stalled = ts_connect(slow_port);
    ts_send(stalled, "POST /body HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\n", -1);
    ts_sleep_ms(20); /* the handler is in its read */
    enum { N = 30 };
    pthread_t t[N];
    atomic_store(&slow_worst_ms, 0);
    atomic_store(&slow_answered, 0);
    long t0 = ts_now_ms();
    for (int i = 0; i < N; i++)
        assert_int_equal(pthread_create(&t[i], NULL, slow_get, NULL), 0);
    for (int i = 0; i < N; i++)
        pthread_join(t[i], NULL);
    long all = ts_now_ms() - t0;
    print_message("30 GETs beside a stalled body: worst %ld ms, all %ld ms\n",
                  atomic_load(&slow_worst_ms), all);
    assert_int_equal(atomic_load(&slow_answered), N);
    /* Before the fix each waited for the watchdog, which sleeps up to 1 s while the server
     * has no connection: ~980 ms here, right after start. Now a few ms. */
    assert_true(atomic_load(&slow_worst_ms) < (ts_under_valgrind() ? 3000 : 500));
    /* The stalled body is still served once it comes. */
    ts_send(stalled, "hello", 5);
    ts_response r;
    assert_int_equal(ts_read_response(stalled, &r, 0), 0);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body, "5");
    ts_response_free(&r);
    ts_close(stalled);
    ts_stop(s);
}

static atomic_long body_read_result;

/* Reads the body; records the last read's result (a count or a TACHY_E* code). */
static int body_recorder(tachy_exchange *ex, void *user) {
    (void)user;
    char buf[64];
    ssize_t n;
    while ((n = tachy_exchange_read(ex, buf, sizeof buf)) > 0) {
    }
    atomic_store(&body_read_result, (long)n);
    if (n == 0) {
        tachy_exchange_send_response_headers(ex, 200, -1);
    }
    tachy_exchange_close(ex);
    return 0;
}

/*
 * max_body_time_ms bounds a slow body: a body that has sent 2 of its 5 bytes is cut off
 * (connection closed, the handler's read fails) soon after the bound; without the option
 * (the JDK's semantics) the same body is still waited for, and served when it completes.
 */
static void test_max_body_time_cuts_off_a_slow_body(void **state) {
    (void)state;
    tachy_options o;
    tachy_options_init(&o);
    assert_int_equal(o.max_body_time_ms, -1);
    o.max_body_time_ms = 300;
    tachy_server *s = ts_server(&o);
    tachy_server_create_context(s, "/body", body_recorder, NULL, NULL);
    int port = ts_start(s);
    atomic_store(&body_read_result, 1);
    int fd = ts_connect(port);
    long t0 = ts_now_ms();
    ts_send(fd, "POST /body HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nab", -1);
    assert_true(ts_wait_eof(fd, 3000));
    long took = ts_now_ms() - t0;
    print_message("a stalled body with max_body_time_ms=300 closed after %ld ms\n", took);
    assert_true(took >= 250 && took < 1500);
    for (int i = 0; i < 100 && atomic_load(&body_read_result) > 0; i++)
        ts_sleep_ms(10);
    assert_true(atomic_load(&body_read_result) < 0);
    ts_close(fd);
    /* A body that completes in time is served on a server with the bound. */
    fd = ts_connect(port);
    ts_send(fd, "POST /body HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nab", -1);
    ts_sleep_ms(100);
    ts_send(fd, "cde", 3);
    ts_response r;
    assert_int_equal(ts_read_response(fd, &r, 0), 0);
    assert_int_equal(r.status, 200);
    ts_response_free(&r);
    ts_close(fd);
    ts_stop(s);

    /* The default: no bound of its own; the body is waited for past 300 ms. */
    s = ts_server(NULL);
    tachy_server_create_context(s, "/body", body_recorder, NULL, NULL);
    port = ts_start(s);
    fd = ts_connect(port);
    ts_send(fd, "POST /body HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nab", -1);
    assert_false(ts_wait_eof(fd, 800));
    ts_send(fd, "cde", 3);
    assert_int_equal(ts_read_response(fd, &r, 0), 0);
    assert_int_equal(r.status, 200);
    ts_response_free(&r);
    ts_close(fd);
    ts_stop(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stop_idle_returns_at_once),
        cmocka_unit_test(test_stop_waits_for_active_exchange_at_most_delay),
        cmocka_unit_test(test_hundreds_of_concurrent_connections),
        cmocka_unit_test(test_threads_are_reused),
        cmocka_unit_test(test_accept_recovers_from_descriptor_exhaustion),
        cmocka_unit_test(test_blocked_body_read_delays_nobody),
        cmocka_unit_test(test_max_body_time_cuts_off_a_slow_body),
    };
    return cmocka_run_group_tests_name("pool", tests, NULL, NULL);
}
