/*
 * test_server.c - HttpServer and HttpContext over real sockets (server/): lifecycle and
 * its errors, port 0, context creation/removal and the JDK's matching rules, context
 * attributes, filters and authenticators in the request path. The running server's
 * threads, accept and stop(delay) are test_loop.c's.
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

static void test_lifecycle_errors(void **state) {
    (void)state;
    tachy_server *s;
    assert_int_equal(tachy_server_create_unbound(&s, NULL), 0);
    assert_int_equal(tachy_server_port(s), TACHY_ENOTBOUND);
    assert_int_equal(tachy_server_start(s), TACHY_ENOTBOUND);
    assert_int_equal(tachy_server_bind(s, "127.0.0.1", 0, 0), 0);
    assert_int_equal(tachy_server_bind(s, "127.0.0.1", 0, 0), TACHY_EBOUND);
    int port = tachy_server_port(s);
    assert_true(port > 0);
    char host[64];
    int p2;
    assert_int_equal(tachy_server_address(s, host, sizeof host, &p2), 0);
    assert_string_equal(host, "127.0.0.1");
    assert_int_equal(p2, port);
    /* The same port cannot be bound twice. */
    tachy_server *t;
    assert_int_equal(tachy_server_create(&t, "127.0.0.1", port, 0, NULL), TACHY_EADDRINUSE);
    assert_null(t);
    assert_int_equal(tachy_server_start(s), 0);
    assert_int_equal(tachy_server_start(s), TACHY_ESTARTED);
    assert_int_equal(tachy_server_stop(s, -1), TACHY_EINVAL);
    assert_int_equal(tachy_server_stop(s, 0), 0);
    assert_int_equal(tachy_server_stop(s, 0), 0); /* a second stop is harmless */
    assert_int_equal(tachy_server_start(s), TACHY_ESTOPPED);
    tachy_server_destroy(s);
    tachy_server_destroy(NULL);
    assert_int_equal(tachy_server_create(&t, "no.such.host.invalid", 0, 0, NULL),
                     TACHY_EADDRNOTAVAIL);
}

static void test_stop_unstarted_and_destroy_running(void **state) {
    (void)state;
    tachy_server *s = ts_server(NULL);
    assert_int_equal(tachy_server_stop(s, 5), 0); /* never started: returns at once */
    tachy_server_destroy(s);
    s = ts_server(NULL);
    tachy_server_create_context(s, "/", ts_named_handler, "root", NULL);
    int port = ts_start(s);
    int fd = ts_connect(port); /* an idle connection */
    tachy_server_destroy(s);   /* stops, closes it */
    assert_true(ts_wait_eof(fd, 2000));
    ts_close(fd);
}

/* Contexts /foo, /bar/ and /foo/deep under the server's context_match: the cases that
 * differ are marked. */
static void context_rules(int string_prefix) {
    tachy_options o;
    tachy_options_init(&o);
    assert_int_equal(o.context_match, TACHY_CONTEXT_MATCH_PATH_PREFIX); /* the default */
    if (string_prefix)
        o.context_match = TACHY_CONTEXT_MATCH_STRING_PREFIX;
    tachy_server *s = ts_server(&o);
    tachy_context *foo;
    assert_int_equal(tachy_server_create_context(s, "/foo", ts_named_handler, "foo", &foo), 0);
    assert_int_equal(tachy_server_create_context(s, "/foo", ts_named_handler, "dup", NULL), TACHY_EEXISTS);
    assert_int_equal(tachy_server_create_context(s, "foo", ts_named_handler, "x", NULL), TACHY_EINVAL);
    assert_int_equal(tachy_server_create_context(s, "/bar/", ts_named_handler, "bar/", NULL), 0);
    assert_int_equal(tachy_server_create_context(s, "/foo/deep", ts_named_handler, "deep", NULL), 0);
    assert_string_equal(tachy_context_path(foo), "/foo");
    assert_ptr_equal(tachy_context_server(foo), s);
    int port = ts_start(s);
    struct {
        const char *path;
        int status;
        const char *body;
    } cases[] = {
        {"/foo", 200, "foo:/foo"},
        /* string prefix (the JDK up to 26): /foo serves /foobar; path prefix: a segment
         * must match whole */
        {"/foobar", string_prefix ? 200 : 404, string_prefix ? "foo:/foobar" : NULL},
        {"/foo/", 200, "foo:/foo/"},
        {"/foo/x", 200, "foo:/foo/x"},
        {"/foo/deep/er", 200, "deep:/foo/deep/er"}, /* longest match wins */
        {"/foo/deeper", 200, string_prefix ? "deep:/foo/deeper" : "foo:/foo/deeper"},
        {"/bar", 404, NULL},                        /* "/bar/" is not a prefix of "/bar" */
        {"/bar/", 200, "bar/:/bar/"},
        {"/bar/x", 200, "bar/:/bar/x"},
        {"/", 404, NULL},
        {"/foo%2Fz", 200, "foo:/foo/z"}, /* matched on the decoded path */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int st;
        char *b = ts_get(port, cases[i].path, &st);
        if (st != cases[i].status)
            fail_msg("%s: status %d, expected %d", cases[i].path, st, cases[i].status);
        if (cases[i].body)
            assert_string_equal(b, cases[i].body);
        free(b);
    }
    assert_ptr_equal(tachy_server_find_context(s, "/foobar"), string_prefix ? foo : NULL);
    assert_ptr_equal(tachy_server_find_context(s, "/foo/bar"), foo);
    assert_int_equal(tachy_server_remove_context(s, "/nope"), TACHY_ENOTFOUND);
    assert_int_equal(tachy_server_remove_context(s, "/foo/deep"), 0);
    int st;
    char *b = ts_get(port, "/foo/deep/er", &st);
    assert_string_equal(b, "foo:/foo/deep/er");
    free(b);
    assert_int_equal(tachy_server_remove_context_handle(s, foo), 0);
    b = ts_get(port, "/foo", &st);
    assert_int_equal(st, 404);
    free(b);
    /* set_handler takes effect for later requests */
    tachy_context *bar = tachy_server_find_context(s, "/bar/");
    assert_int_equal(tachy_context_set_handler(bar, ts_named_handler, "new"), 0);
    b = ts_get(port, "/bar/", &st);
    assert_string_equal(b, "new:/bar/");
    free(b);
    ts_stop(s);
}

/* The default: path-prefix matching (JDK 27's pathMatcher=pathPrefix). */
static void test_context_rules(void **state) {
    (void)state;
    context_rules(0);
}

/* TACHY_CONTEXT_MATCH_STRING_PREFIX: the JDK's rule up to 26. */
static void test_context_rules_string_prefix(void **state) {
    (void)state;
    context_rules(1);
}

/* A context "/" serves every path under both rules, and a value that is neither rule is
 * the default (path prefix). */
static void test_context_match_root_and_unknown_value(void **state) {
    (void)state;
    tachy_options o;
    tachy_options_init(&o);
    o.context_match = 7;
    tachy_server *s = ts_server(&o);
    assert_int_equal(tachy_server_options(s)->context_match, TACHY_CONTEXT_MATCH_PATH_PREFIX);
    tachy_server_create_context(s, "/", ts_named_handler, "root", NULL);
    tachy_server_create_context(s, "/a", ts_named_handler, "a", NULL);
    int port = ts_start(s);
    int st;
    char *b = ts_get(port, "/ab", &st);
    assert_string_equal(b, "root:/ab");
    free(b);
    b = ts_get(port, "/a/b", &st);
    assert_string_equal(b, "a:/a/b");
    free(b);
    ts_stop(s);
}

/* Handler for the attribute tests: reads attribute "who" (a string), answers it (or
 * "none"), then stores the request's query there. */
static int stamp_handler(tachy_exchange *ex, void *user) {
    (void)user;
    static char seen[2][16];
    static int turn;
    const char *prev = tachy_exchange_attribute(ex, "who");
    char body[32];
    snprintf(body, sizeof body, "%s", prev ? prev : "none");
    const char *q = tachy_exchange_request_query(ex);
    char *slot = seen[turn++ & 1];
    snprintf(slot, sizeof seen[0], "%s", q ? q : "");
    assert_int_equal(tachy_exchange_set_attribute(ex, "who", slot), 0);
    assert_ptr_equal(tachy_exchange_attribute(ex, "who"), slot);
    size_t n = strlen(body);
    tachy_exchange_send_response_headers(ex, 200, (int64_t)n);
    tachy_exchange_write(ex, body, n);
    return tachy_exchange_close(ex);
}

/* exchange_attributes: per exchange by default (JDK 26+), nothing one request stamps is
 * seen by the next; TACHY_ATTRIBUTES_CONTEXT shares the context's map (the JDK up to 25). */
static void exchange_attributes(int context) {
    tachy_options o;
    tachy_options_init(&o);
    assert_int_equal(o.exchange_attributes, TACHY_ATTRIBUTES_EXCHANGE);
    if (context)
        o.exchange_attributes = TACHY_ATTRIBUTES_CONTEXT;
    tachy_server *s = ts_server(&o);
    tachy_context *c;
    tachy_server_create_context(s, "/", stamp_handler, NULL, &c);
    int port = ts_start(s);
    int st;
    char *b = ts_get(port, "/?alice", &st);
    assert_string_equal(b, "none");
    free(b);
    b = ts_get(port, "/?bob", &st);
    assert_string_equal(b, context ? "alice" : "none");
    free(b);
    const char *v = tachy_context_attribute(c, "who");
    if (context)
        assert_string_equal(v, "bob");
    else
        assert_null(v);
    ts_stop(s);
}

static void test_exchange_attributes_are_per_exchange(void **state) {
    (void)state;
    exchange_attributes(0);
}

static void test_exchange_attributes_in_the_context(void **state) {
    (void)state;
    exchange_attributes(1);
}

/* path_nul: "%00" in the path is 400 by default; with path_nul = 1 it reaches the handler,
 * matched on the whole decoded path (a NUL is not a '/': context /a does not serve
 * "/a%00"; context "/a" does serve "/a/%00"). */
static void test_path_nul(void **state) {
    (void)state;
    tachy_server *s = ts_server(NULL);
    tachy_server_create_context(s, "/", ts_named_handler, "root", NULL);
    int port = ts_start(s);
    assert_int_equal(ts_status(port, "GET /aFile%00.txt HTTP/1.1\r\nHost: t\r\n\r\n"), 400);
    ts_stop(s);
    tachy_options o;
    tachy_options_init(&o);
    o.path_nul = 1;
    s = ts_server(&o);
    tachy_server_create_context(s, "/", ts_named_handler, "root", NULL);
    tachy_server_create_context(s, "/a", ts_named_handler, "a", NULL);
    port = ts_start(s);
    int st;
    char *b = ts_get(port, "/aFile%00.txt", &st);
    assert_int_equal(st, 200);
    assert_string_equal(b, "root:/aFile"); /* the C string ends at the NUL */
    free(b);
    b = ts_get(port, "/a%00", &st);
    assert_string_equal(b, "root:/a");
    free(b);
    b = ts_get(port, "/a/%00x", &st);
    assert_string_equal(b, "a:/a/");
    free(b);
    ts_stop(s);
}

static void free_counter(void *p) { (*(int *)p)++; }

static void test_context_attributes(void **state) {
    (void)state;
    tachy_server *s = ts_server(NULL);
    tachy_context *c;
    tachy_server_create_context(s, "/", ts_named_handler, "r", &c);
    int freed = 0;
    assert_int_equal(tachy_context_set_attribute(c, "a", &freed, free_counter), 0);
    assert_ptr_equal(tachy_context_attribute(c, "a"), &freed);
    assert_null(tachy_context_attribute(c, "b"));
    assert_int_equal(tachy_context_set_attribute(c, "a", NULL, NULL), 0); /* removes */
    assert_int_equal(freed, 1);
    assert_null(tachy_context_attribute(c, "a"));
    tachy_context_set_attribute(c, "b", &freed, free_counter);
    ts_stop(s); /* freed with the context */
    assert_int_equal(freed, 2);
}

/* ---- filters and authentication ---- */

static char trace[256];
static pthread_mutex_t trace_lock = PTHREAD_MUTEX_INITIALIZER;
static void note(const char *s) {
    pthread_mutex_lock(&trace_lock);
    strncat(trace, s, sizeof trace - strlen(trace) - 1);
    pthread_mutex_unlock(&trace_lock);
}

static void reset_trace(void) {
    pthread_mutex_lock(&trace_lock);
    trace[0] = '\0';
    pthread_mutex_unlock(&trace_lock);
}

/* The after-parts of filters run after the response left, so the client may see it
 * before the trace is complete: wait (bounded) for the expected trace. */
static void assert_trace(const char *expected) {
    char now[256];
    for (int i = 0; i < 200; i++) {
        pthread_mutex_lock(&trace_lock);
        snprintf(now, sizeof now, "%s", trace);
        pthread_mutex_unlock(&trace_lock);
        if (strcmp(now, expected) == 0)
            return;
        ts_sleep_ms(5);
    }
    assert_string_equal(now, expected);
}

static int full_filter(tachy_exchange *ex, tachy_chain *chain, void *user) {
    note((const char *)user);
    note("(");
    int rc = tachy_chain_do_filter(chain, ex);
    note(")");
    return rc;
}
static int before_fn(tachy_exchange *ex, void *user) {
    (void)ex;
    note((const char *)user);
    return 0;
}
static int traced_handler(tachy_exchange *ex, void *user) {
    (void)user;
    note("H");
    tachy_exchange_send_response_headers(ex, 200, -1);
    tachy_exchange_close(ex);
    return 0;
}
static int stop_filter(tachy_exchange *ex, tachy_chain *chain, void *user) {
    (void)chain;
    (void)user;
    note("S");
    tachy_exchange_send_response_headers(ex, 403, -1);
    tachy_exchange_close(ex);
    return 0;
}

static void test_filter_chain_order(void **state) {
    (void)state;
    tachy_server *s = ts_server(NULL);
    tachy_context *c, *c2;
    tachy_server_create_context(s, "/f", traced_handler, NULL, &c);
    tachy_server_create_context(s, "/stop", traced_handler, NULL, &c2);
    tachy_filter *a, *b, *before, *after, *stop;
    assert_int_equal(tachy_filter_create(&a, "A", full_filter, "A", NULL), 0);
    assert_int_equal(tachy_filter_create(&b, "B", full_filter, "B", NULL), 0);
    assert_int_equal(tachy_filter_create_before(&before, "before", before_fn, "b", NULL), 0);
    assert_int_equal(tachy_filter_create_after(&after, "after", before_fn, "a", NULL), 0);
    assert_int_equal(tachy_filter_create(&stop, "stop", stop_filter, NULL, NULL), 0);
    tachy_context_add_filter(c, a);
    tachy_context_add_filter(c, before);
    tachy_context_add_filter(c, b);
    tachy_context_add_filter(c, after);
    assert_int_equal(tachy_context_filter_count(c), 4);
    tachy_context_add_filter(c2, stop);
    int port = ts_start(s);
    int st;
    reset_trace();
    free(ts_get(port, "/f", &st));
    assert_int_equal(st, 200);
    assert_trace("A(bB(Ha))");
    reset_trace();
    free(ts_get(port, "/stop", &st));
    assert_int_equal(st, 403);
    assert_trace("S"); /* the handler never ran */
    assert_int_equal(tachy_context_remove_filter(c, b), 0);
    assert_int_equal(tachy_context_remove_filter(c, b), TACHY_ENOTFOUND);
    reset_trace();
    free(ts_get(port, "/f", &st));
    assert_trace("A(bHa)");
    tachy_filter_destroy(a);
    tachy_filter_destroy(b);
    tachy_filter_destroy(before);
    tachy_filter_destroy(after);
    tachy_filter_destroy(stop);
    ts_stop(s);
}

static int check_creds(const char *u, const char *p, void *user) {
    (void)user;
    return strcmp(u, "alice") == 0 && strcmp(p, "s3cret") == 0;
}

static int whoami(tachy_exchange *ex, void *user) {
    (void)user;
    char out[128];
    int n = snprintf(out, sizeof out, "%s@%s", tachy_exchange_principal_user(ex),
                     tachy_exchange_principal_realm(ex));
    tachy_exchange_send_response_headers(ex, 200, n);
    tachy_exchange_write(ex, out, (size_t)n);
    tachy_exchange_close(ex);
    return 0;
}

static void test_basic_authenticator(void **state) {
    (void)state;
    tachy_server *s = ts_server(NULL);
    tachy_context *c;
    tachy_server_create_context(s, "/secure", whoami, NULL, &c);
    tachy_authenticator *auth;
    assert_int_equal(tachy_authenticator_create_basic(&auth, "my realm", 0, check_creds, NULL,
                                                      NULL),
                     0);
    tachy_context_set_authenticator(c, auth);
    tachy_authenticator_destroy(auth); /* the context holds its own reference */
    tachy_filter *f;
    tachy_filter_create_before(&f, "trace", before_fn, "F", NULL);
    tachy_context_add_filter(c, f);
    tachy_filter_destroy(f);
    int port = ts_start(s);
    struct {
        const char *authz;
        int status;
        const char *www;
    } cases[] = {
        {NULL, 401, "Basic realm=\"my realm\""},
        {"Basic YWxpY2U6czNjcmV0", 200, NULL}, /* alice:s3cret */
        {"bAsIc YWxpY2U6czNjcmV0", 200, NULL}, /* scheme is case-insensitive */
        {"Basic YWxpY2U6d3Jvbmc=", 401, "Basic realm=\"my realm\""}, /* alice:wrong */
        {"Basic !!!notbase64", 401, NULL},
        {"Bearer abc", 401, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        reset_trace();
        int fd = ts_connect(port);
        char req[256];
        if (cases[i].authz)
            snprintf(req, sizeof req, "GET /secure HTTP/1.1\r\nHost: t\r\nAuthorization: %s\r\n\r\n",
                     cases[i].authz);
        else
            snprintf(req, sizeof req, "GET /secure HTTP/1.1\r\nHost: t\r\n\r\n");
        ts_send(fd, req, -1);
        ts_response r;
        assert_int_equal(ts_read_response(fd, &r, 0), 0);
        if (r.status != cases[i].status)
            fail_msg("case %zu: status %d", i, r.status);
        char v[128];
        const char *www = ts_header(&r, "WWW-Authenticate", v, sizeof v);
        if (cases[i].www)
            assert_string_equal(www, cases[i].www);
        if (r.status == 200)
            assert_string_equal(r.body, "alice@my realm");
        /* The JDK's order: user filters run before the authenticator, even when it refuses. */
        assert_trace("F");
        ts_response_free(&r);
        ts_close(fd);
    }
    ts_stop(s);
}

/* ---- SO_REUSEPORT (tachy_options.reuseport) ------------------------------------------- */

static tachy_server *reuseport_server(int port, const char *name, int *out_port) {
    tachy_options o;
    tachy_options_init(&o);
    o.reuseport = 1;
    tachy_server *s = NULL;
    int rc = tachy_server_create(&s, "127.0.0.1", port, 0, &o);
    if (rc < 0)
        fail_msg("create on port %d: %s", port, tachy_strerror(rc));
    tachy_server_create_context(s, "/", ts_named_handler, (void *)name, NULL);
    *out_port = ts_start(s);
    return s;
}

/* Two servers on one port both serve (the kernel spreads new connections over their
 * queues: 64 connections all landing on one has a probability of 2^-63); a third server
 * without the option cannot bind there. */
static void test_reuseport_two_servers(void **state) {
    (void)state;
    int port, port2;
    tachy_server *a = reuseport_server(0, "A", &port);
    tachy_server *b = reuseport_server(port, "B", &port2);
    assert_int_equal(port, port2);
    int seen_a = 0, seen_b = 0;
    for (int i = 0; i < 64; i++) {
        int status = 0;
        char *body = ts_get(port, "/x", &status);
        assert_int_equal(status, 200);
        seen_a += strcmp(body, "A:/x") == 0;
        seen_b += strcmp(body, "B:/x") == 0;
        free(body);
    }
    assert_int_equal(seen_a + seen_b, 64);
    assert_true(seen_a > 0);
    assert_true(seen_b > 0);
    tachy_server *c = NULL;
    assert_int_equal(tachy_server_create(&c, "127.0.0.1", port, 0, NULL), TACHY_EADDRINUSE);
    ts_stop(a);
    ts_stop(b);
}

/* Stopping one of them loses no request that was sent before the stop: N connections
 * are opened (the kernel queues them on either server at once) and each sends a request,
 * then A stops with a delay at once - while some of A's connections still wait in its
 * accept queue (closing would reset them) or parked with their request unread (a stop
 * would close them as idle). Every request gets its 200, from A or B. */
static void test_reuseport_stop_serves_its_queue(void **state) {
    (void)state;
    enum { N = 200 };
    for (int round = 0; round < 3; round++) {
        int port, port2;
        tachy_server *a = reuseport_server(0, "A", &port);
        tachy_server *b = reuseport_server(port, "B", &port2);
        int fds[N];
        for (int i = 0; i < N; i++)
            fds[i] = ts_connect(port);
        for (int i = 0; i < N; i++)
            ts_send(fds[i], "GET /q HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", -1);
        assert_int_equal(tachy_server_stop(a, 5), 0);
        int from_a = 0;
        for (int i = 0; i < N; i++) {
            ts_response r;
            if (ts_read_response(fds[i], &r, 0) < 0)
                fail_msg("round %d: connection %d of %d got no response", round, i, N);
            assert_int_equal(r.status, 200);
            from_a += strcmp(r.body, "A:/q") == 0;
            ts_response_free(&r);
            ts_close(fds[i]);
        }
        assert_true(from_a > 0);
        tachy_server_destroy(a);
        ts_stop(b);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lifecycle_errors),
        cmocka_unit_test(test_stop_unstarted_and_destroy_running),
        cmocka_unit_test(test_context_rules),
        cmocka_unit_test(test_context_attributes),
        cmocka_unit_test(test_context_rules_string_prefix),
        cmocka_unit_test(test_context_match_root_and_unknown_value),
        cmocka_unit_test(test_exchange_attributes_are_per_exchange),
        cmocka_unit_test(test_exchange_attributes_in_the_context),
        cmocka_unit_test(test_path_nul),
        cmocka_unit_test(test_filter_chain_order),
        cmocka_unit_test(test_basic_authenticator),
        cmocka_unit_test(test_reuseport_two_servers),
        cmocka_unit_test(test_reuseport_stop_serves_its_queue),
    };
    return cmocka_run_group_tests_name("server", tests, NULL, NULL);
}

