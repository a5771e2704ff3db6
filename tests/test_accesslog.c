/*
 * test_accesslog.c - the access log (edge/accesslog.c, tachy/accesslog.h) on real servers
 * on 127.0.0.1: a known mix of requests is served and the lines the log holds afterwards
 * are parsed field by field (Common Log Format, the PROXY header's client address, the
 * Combined format's quoted headers, escaping, the 1 KiB cut); a ring the writer cannot
 * drain drops and counts lines while requests go on being answered at full speed; and a
 * file renamed and reopened (from a real SIGHUP handler) three times while a client thread
 * sends 3,000 requests loses no line and duplicates none.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tachy/tachy.h>

#include "tsupport.h"

/* ---- helpers ------------------------------------------------------------------------ */

/* A fresh path in /tmp (the file does not exist). */
static void temp_path(char *out, size_t cap, const char *tag) {
    snprintf(out, cap, "/tmp/tachy-accesslog-%d-%s-XXXXXX", (int)getpid(), tag);
    int fd = mkstemp(out);
    assert_true(fd >= 0);
    close(fd);
    unlink(out);
}

/* Options (defaults otherwise) that log to a fresh file in /tmp, whose name goes to out. */
static void log_to_temp_file(tachy_options *o, char *out, size_t cap, const char *tag) {
    temp_path(out, cap, tag);
    tachy_options_init(o);
    o->access_log = out;
}

static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        *len = 0;
        return calloc(1, 1);
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    size_t r;
    while ((r = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += r;
        if (cap - n < 2)
            buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* Stops srv once its connections are gone (their exchanges have ended and queued their
 * lines: stop(0) does not wait for a thread between its response and its exchange's end). */
static void quiet_stop(tachy_server *srv) {
    for (long t0 = ts_now_ms(); tachy_server_connection_count(srv) > 0 && ts_now_ms() - t0 < 5000;)
        ts_sleep_ms(1);
    assert_int_equal(tachy_server_connection_count(srv), 0);
    tachy_server_stop(srv, 0); /* writes what is queued */
}

/* One Common Log Format line, split. */
typedef struct clf {
    char host[64], ident[64], user[128], date[64], request[1024];
    int status;     /* -1 for "-" */
    long long bytes; /* -1 for "-" */
    char referer[1024], agent[1024];
    int combined;
} clf;

/* Copies a quoted field starting at *p ('"'); fails the test on an unescaped quote inside
 * or a missing closing quote. */
static void take_quoted(const char **p, char *out, size_t cap) {
    assert_int_equal(**p, '"');
    const char *s = *p + 1;
    const char *e = strchr(s, '"');
    assert_non_null(e);
    size_t n = (size_t)(e - s);
    assert_true(n < cap);
    memcpy(out, s, n);
    out[n] = '\0';
    *p = e + 1;
}

static void take_word(const char **p, char *out, size_t cap, char stop) {
    const char *e = strchr(*p, stop);
    assert_non_null(e);
    size_t n = (size_t)(e - *p);
    assert_true(n > 0 && n < cap);
    memcpy(out, *p, n);
    out[n] = '\0';
    *p = e;
}

/* Parses "host ident user [date] "request" status bytes[ "referer" "agent"]" strictly. */
static void parse_clf(const char *line, clf *c) {
    memset(c, 0, sizeof *c);
    const char *p = line;
    take_word(&p, c->host, sizeof c->host, ' ');
    p++;
    take_word(&p, c->ident, sizeof c->ident, ' ');
    p++;
    take_word(&p, c->user, sizeof c->user, ' ');
    p++;
    assert_int_equal(*p, '[');
    take_word(&p, c->date, sizeof c->date, ']');
    p++;
    assert_int_equal(*p++, ' ');
    take_quoted(&p, c->request, sizeof c->request);
    assert_int_equal(*p++, ' ');
    char word[32];
    take_word(&p, word, sizeof word, ' ');
    c->status = strcmp(word, "-") == 0 ? -1 : atoi(word);
    p++;
    const char *sp = strchr(p, ' ');
    size_t n = sp ? (size_t)(sp - p) : strlen(p);
    assert_true(n > 0 && n < sizeof word);
    memcpy(word, p, n);
    word[n] = '\0';
    c->bytes = strcmp(word, "-") == 0 ? -1 : atoll(word);
    p += n;
    if (*p == ' ') {
        c->combined = 1;
        p++;
        take_quoted(&p, c->referer, sizeof c->referer);
        assert_int_equal(*p++, ' ');
        take_quoted(&p, c->agent, sizeof c->agent);
    }
    assert_int_equal(*p, '\0');
    /* [dd/Mon/yyyy:hh:mm:ss +zzzz] */
    assert_int_equal(strlen(c->date), 27);
    assert_int_equal(c->date[3], '/');
    assert_int_equal(c->date[7], '/');
    assert_int_equal(c->date[12], ':');
    assert_true(c->date[22] == '+' || c->date[22] == '-');
}

/* Splits text into lines (each must end in '\n'); returns how many, *out malloc'ed. */
static size_t split_lines(char *text, char ***out) {
    size_t n = 0, cap = 64;
    char **v = malloc(cap * sizeof *v);
    char *p = text;
    while (*p) {
        char *e = strchr(p, '\n');
        assert_non_null(e);
        *e = '\0';
        if (n == cap)
            v = realloc(v, (cap *= 2) * sizeof *v);
        v[n++] = p;
        p = e + 1;
    }
    *out = v;
    return n;
}

/* /user: a handler that authenticates its caller as "alice" (the authuser field). */
static int user_handler(tachy_exchange *ex, void *user) {
    (void)user;
    tachy_exchange_set_principal(ex, "alice", "r");
    tachy_exchange_send_response_headers(ex, 204, -1);
    return tachy_exchange_close(ex);
}

/* /chunked: a chunked body of 3 writes, 10 bytes in all. */
static int chunked_handler(tachy_exchange *ex, void *user) {
    (void)user;
    tachy_exchange_send_response_headers(ex, 200, 0);
    tachy_exchange_write(ex, "abcd", 4);
    tachy_exchange_write(ex, "efg", 3);
    tachy_exchange_write(ex, "hij", 3);
    return tachy_exchange_close(ex);
}

/* /fail: the handler fails before a response: no status. */
static int fail_handler(tachy_exchange *ex, void *user) {
    (void)ex;
    (void)user;
    return TACHY_EIO;
}

/* ---- Common Log Format, the PROXY client ---------------------------------------------- */

static void common_log_format_fields(void **state) {
    (void)state;
    char path[128];
    tachy_options o;
    log_to_temp_file(&o, path, sizeof path, "clf");
    tachy_server *srv = ts_server(&o);
    tachy_server_create_context(srv, "/a", ts_body_handler, "hello", NULL);
    tachy_server_create_context(srv, "/user", user_handler, NULL, NULL);
    tachy_server_create_context(srv, "/chunked", chunked_handler, NULL, NULL);
    tachy_server_create_context(srv, "/fail", fail_handler, NULL, NULL);
    int port = ts_start(srv);
    assert_int_equal(access(path, F_OK), 0); /* opened (created) by start */

    int fd = ts_connect(port);
    ts_expect_body(fd, "GET /a?x=1 HTTP/1.1\r\nHost: h\r\n\r\n", "hello");
    ts_response r;
    ts_roundtrip(fd, "HEAD /a HTTP/1.1\r\nHost: h\r\n\r\n", -1, &r, 1);
    ts_response_free(&r);
    ts_roundtrip(fd, "GET /user HTTP/1.1\r\nHost: h\r\n\r\n", -1, &r, 1);
    assert_int_equal(r.status, 204);
    ts_response_free(&r);
    ts_expect_body(fd, "GET /chunked HTTP/1.1\r\nHost: h\r\n\r\n", "abcdefghij");
    ts_roundtrip(fd, "GET /nowhere HTTP/1.1\r\nHost: h\r\n\r\n", -1, &r, 0); /* tachy's 404 */
    assert_int_equal(r.status, 404);
    size_t reject_body = r.body_len;
    ts_response_free(&r);
    ts_close(fd);
    fd = ts_connect(port);
    ts_send(fd, "GET /fail HTTP/1.1\r\nHost: h\r\n\r\n", -1);
    assert_true(ts_wait_eof(fd, 3000));
    ts_close(fd);
    quiet_stop(srv);

    size_t len;
    char *text = slurp(path, &len);
    char **lines;
    size_t n = split_lines(text, &lines);
    assert_int_equal(n, 6);
    clf c;
    /* In the order the exchanges ended: the first connection's in its order; the second
     * connection's one line may come before the first's last (its 404 is logged once the
     * response is out, which the client may read, close and connect again before: seen
     * under valgrind). */
    parse_clf(lines[0], &c);
    assert_string_equal(c.host, "127.0.0.1");
    assert_string_equal(c.ident, "-");
    assert_string_equal(c.user, "-");
    assert_string_equal(c.request, "GET /a?x=1 HTTP/1.1");
    assert_int_equal(c.status, 200);
    assert_int_equal(c.bytes, 5);
    assert_false(c.combined);
    parse_clf(lines[1], &c);
    assert_string_equal(c.request, "HEAD /a HTTP/1.1");
    assert_int_equal(c.status, 200);
    assert_int_equal(c.bytes, -1); /* no body went out */
    parse_clf(lines[2], &c);
    assert_string_equal(c.user, "alice");
    assert_int_equal(c.status, 204);
    parse_clf(lines[3], &c);
    assert_string_equal(c.request, "GET /chunked HTTP/1.1");
    assert_int_equal(c.bytes, 10); /* the body, not the chunk framing */
    int fail_first = strstr(lines[4], "/fail") != NULL;
    parse_clf(lines[fail_first ? 5 : 4], &c);
    assert_string_equal(c.request, "GET /nowhere HTTP/1.1");
    assert_int_equal(c.status, 404);
    assert_int_equal(c.bytes, (long long)reject_body);
    parse_clf(lines[fail_first ? 4 : 5], &c);
    assert_string_equal(c.request, "GET /fail HTTP/1.1");
    assert_int_equal(c.status, -1);
    assert_int_equal(c.bytes, -1);
    assert_int_equal(tachy_access_log_dropped(srv), 0);
    free(lines);
    free(text);
    tachy_server_destroy(srv);
    unlink(path);
}

static void proxy_client_address(void **state) {
    (void)state;
    char path[128];
    tachy_options o;
    log_to_temp_file(&o, path, sizeof path, "proxy");
    o.proxy_protocol = 1;
    tachy_server *srv = ts_server(&o);
    tachy_server_create_context(srv, "/", ts_body_handler, "ok", NULL);
    int port = ts_start(srv);
    int fd = ts_connect(port);
    ts_send(fd, "PROXY TCP4 127.0.0.2 127.0.0.1 40000 80\r\n", -1);
    ts_expect_body(fd, "GET /v1 HTTP/1.1\r\nHost: h\r\n\r\n", "ok");
    ts_close(fd);
    fd = ts_connect(port);
    /* v2: PROXY, TCP over IPv6, ::ffff:10.1.2.3 -> ::1 */
    static const unsigned char v2[] = {
        '\r', '\n', '\r', '\n', 0, '\r', '\n', 'Q', 'U', 'I', 'T', '\n', 0x21, 0x21, 0, 36,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 1, 2, 3,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
        0x9c, 0x40, 0, 80};
    ts_send(fd, v2, sizeof v2);
    ts_expect_body(fd, "GET /v2 HTTP/1.1\r\nHost: h\r\n\r\n", "ok");
    ts_close(fd);
    quiet_stop(srv);
    size_t len;
    char *text = slurp(path, &len);
    char **lines;
    assert_int_equal(split_lines(text, &lines), 2);
    clf c;
    parse_clf(lines[0], &c);
    assert_string_equal(c.host, "127.0.0.2");
    assert_string_equal(c.request, "GET /v1 HTTP/1.1");
    parse_clf(lines[1], &c);
    assert_string_equal(c.host, "::ffff:10.1.2.3");
    free(lines);
    free(text);
    tachy_server_destroy(srv);
    unlink(path);
}

/* ---- a callback sink: Combined, escaping, the cut ---------------------------------------- */

typedef struct sink {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    char **lines;
    size_t n, cap;
    int gate_closed;      /* the callback waits while this is set */
    int in_callback;      /* it is waiting */
    pthread_t writer;     /* the thread that called */
    int writer_seen;
} sink;

static void sink_init(sink *s) {
    memset(s, 0, sizeof *s);
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->cond, NULL);
}

static void sink_free(sink *s) {
    for (size_t i = 0; i < s->n; i++)
        free(s->lines[i]);
    free(s->lines);
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->cond);
}

static void sink_fn(void *user, const char *line, size_t len) {
    sink *s = user;
    assert_int_equal(strlen(line), len); /* NUL-terminated, no newline */
    assert_null(strchr(line, '\n'));
    pthread_mutex_lock(&s->lock);
    s->writer = pthread_self();
    s->writer_seen = 1;
    while (s->gate_closed) {
        s->in_callback = 1;
        pthread_cond_broadcast(&s->cond);
        pthread_cond_wait(&s->cond, &s->lock);
    }
    s->in_callback = 0;
    if (s->n == s->cap)
        s->lines = realloc(s->lines, (s->cap = s->cap ? 2 * s->cap : 64) * sizeof *s->lines);
    s->lines[s->n++] = strdup(line);
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->lock);
}

static void combined_escapes_and_cuts(void **state) {
    (void)state;
    sink s;
    sink_init(&s);
    tachy_options o;
    tachy_options_init(&o);
    o.access_log_fn = sink_fn;
    o.access_log_user = &s;
    o.access_log_format = TACHY_ACCESS_LOG_COMBINED;
    int port;
    tachy_server *srv = ts_serve(&o, ts_body_handler, "x", &port);
    int fd = ts_connect(port);
    ts_expect_body(fd, "GET /plain HTTP/1.1\r\nHost: h\r\n\r\n", "x");
    ts_expect_body(fd,
                   "GET /q HTTP/1.1\r\nHost: h\r\nReferer: http://a/\"b\\c\r\n"
                   "User-Agent: ua\xc3\xa9 \"quoted\"\r\n\r\n",
                   "x");
    /* A 3,000-byte User-Agent and a 2,000-byte target: the line is cut to its slot. */
    char *req = malloc(8192);
    char *p = req;
    p += sprintf(p, "GET /");
    memset(p, 'u', 2000);
    p += 2000;
    p += sprintf(p, " HTTP/1.1\r\nHost: h\r\nUser-Agent: ");
    memset(p, 'a', 3000);
    p += 3000;
    p += sprintf(p, "\r\n\r\n");
    *p = '\0';
    ts_expect_body(fd, req, "x");
    free(req);
    ts_close(fd);
    quiet_stop(srv);
    assert_int_equal(s.n, 3);
    assert_true(s.writer_seen);
    assert_false(pthread_equal(s.writer, pthread_self()));
    clf c;
    parse_clf(s.lines[0], &c);
    assert_true(c.combined);
    assert_string_equal(c.request, "GET /plain HTTP/1.1");
    assert_string_equal(c.referer, "-");
    assert_string_equal(c.agent, "-");
    parse_clf(s.lines[1], &c);
    assert_string_equal(c.referer, "http://a/\\x22b\\x5Cc");
    assert_string_equal(c.agent, "ua\\xC3\\xA9 \\x22quoted\\x22");
    parse_clf(s.lines[2], &c);
    assert_true(strlen(s.lines[2]) <= 1011); /* a slot's line, its newline taken off */
    size_t rl = strlen(c.request), al = strlen(c.agent);
    assert_true(rl > 300 && al > 150); /* both cut, neither squeezed out */
    assert_string_equal(c.request + rl - 3, "...");
    assert_string_equal(c.agent + al - 3, "...");
    assert_int_equal(strncmp(c.request, "GET /uuuu", 9), 0);
    assert_int_equal(c.status, 200);
    assert_int_equal(c.bytes, 1);
    tachy_server_destroy(srv);
    sink_free(&s);
}

/* ---- a full ring ------------------------------------------------------------------------ */

static void full_ring_drops_and_counts(void **state) {
    (void)state;
    sink s;
    sink_init(&s);
    s.gate_closed = 1; /* the writer's first line blocks it: nothing is drained */
    tachy_options o;
    tachy_options_init(&o);
    o.access_log_fn = sink_fn;
    o.access_log_user = &s;
    o.access_log_lines = 16;
    tachy_server *srv = ts_server(&o);
    tachy_server_create_context(srv, "/", ts_body_handler, "x", NULL);
    tachy_server_create_context(srv, "/metrics", tachy_metrics_handler, NULL, NULL);
    int port = ts_start(srv);
    enum { N = 2000 };
    int fd = ts_connect(port);
    long t0 = ts_now_ms();
    for (int i = 0; i < N; i++)
        ts_expect_body(fd, "GET / HTTP/1.1\r\nHost: h\r\n\r\n", "x");
    long took = ts_now_ms() - t0;
    ts_close(fd);
    ts_sleep_ms(100); /* the last exchanges' ends (after their responses went out) */
    /* Requests never waited for the stuck log: 2,000 round trips in well under the time
     * one waiting request per full ring would take (and far under any lock-up). */
    assert_true(took < (ts_under_valgrind() ? 60000 : 5000));
    pthread_mutex_lock(&s.lock);
    while (!s.in_callback)
        pthread_cond_wait(&s.cond, &s.lock);
    pthread_mutex_unlock(&s.lock);
    uint64_t dropped = tachy_access_log_dropped(srv);
    /* At most the ring's 16 lines are held (the one in the callback among them). */
    assert_true(dropped >= N - 16 && dropped <= N - 1);
    char text[8192];
    assert_true(tachy_metrics_render(srv, text, sizeof text) < (long)sizeof text);
    char want[64];
    snprintf(want, sizeof want, "\ntachy_access_log_dropped_total %llu\n",
             (unsigned long long)dropped);
    assert_non_null(strstr(text, want));
    /* Let the writer go: what the ring held is delivered, and later lines are logged. */
    pthread_mutex_lock(&s.lock);
    s.gate_closed = 0;
    pthread_cond_broadcast(&s.cond);
    while (s.n < N - dropped)
        pthread_cond_wait(&s.cond, &s.lock); /* sink_fn signals each line */
    pthread_mutex_unlock(&s.lock);
    ts_sleep_ms(20); /* the writer gives the batch's slots back after its last line */
    fd = ts_connect(port);
    ts_expect_body(fd, "GET /after HTTP/1.1\r\nHost: h\r\n\r\n", "x");
    ts_close(fd);
    quiet_stop(srv);
    assert_int_equal(tachy_access_log_dropped(srv), dropped);
    assert_int_equal(s.n + dropped, N + 1);
    clf c;
    parse_clf(s.lines[s.n - 1], &c);
    assert_string_equal(c.request, "GET /after HTTP/1.1");
    tachy_server_destroy(srv);
    sink_free(&s);
}

/* ---- rotation under load ---------------------------------------------------------------- */

static tachy_server *volatile hup_server;

static void on_sighup(int sig) {
    (void)sig;
    tachy_access_log_reopen(hup_server); /* async-signal-safe */
}

typedef struct load {
    int port;
    int n;
    atomic_int done;
} load;

static void *client_main(void *arg) {
    load *l = arg;
    int fd = ts_connect(l->port);
    for (int i = 0; i < l->n; i++) {
        char req[64];
        snprintf(req, sizeof req, "GET /r%d HTTP/1.1\r\nHost: h\r\n\r\n", i);
        ts_expect_body(fd, req, "x");
        atomic_store(&l->done, i + 1);
    }
    ts_close(fd);
    return NULL;
}

static void rotation_under_load_loses_nothing(void **state) {
    (void)state;
    char path[128], old[4][160];
    tachy_options o;
    log_to_temp_file(&o, path, sizeof path, "rot");
    int port;
    tachy_server *srv = ts_serve(&o, ts_body_handler, "x", &port);
    hup_server = srv;
    struct sigaction sa, prev;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sighup;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGHUP, &sa, &prev);
    enum { N = 3000 };
    load l = {port, N, 0};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, client_main, &l), 0);
    for (int k = 0; k < 3; k++) {
        while (atomic_load(&l.done) < (k + 1) * N / 4)
            ts_sleep_ms(1);
        /* The previous reopen has made the new file (the writer does it between two
         * batches, at once but on its own thread). */
        for (long t0 = ts_now_ms(); access(path, F_OK) != 0 && ts_now_ms() - t0 < 5000;)
            ts_sleep_ms(1);
        snprintf(old[k], sizeof old[k], "%s.%d", path, k + 1);
        assert_int_equal(rename(path, old[k]), 0); /* logrotate's move */
        raise(SIGHUP);                             /* its postrotate */
    }
    pthread_join(t, NULL);
    quiet_stop(srv);
    sigaction(SIGHUP, &prev, NULL);
    snprintf(old[3], sizeof old[3], "%s", path);
    /* Every request exactly once across the four files, and each file has lines (the
     * writer did reopen each time). */
    char *seen = calloc(N, 1);
    size_t total = 0;
    for (int k = 0; k < 4; k++) {
        size_t len;
        char *text = slurp(old[k], &len);
        char **lines;
        size_t n = split_lines(text, &lines);
        assert_true(n > 0);
        for (size_t i = 0; i < n; i++) {
            clf c;
            parse_clf(lines[i], &c);
            int id = -1;
            assert_int_equal(sscanf(c.request, "GET /r%d HTTP/1.1", &id), 1);
            assert_true(id >= 0 && id < N);
            assert_int_equal(seen[id], 0);
            seen[id] = 1;
        }
        total += n;
        free(lines);
        free(text);
        unlink(old[k]);
    }
    assert_int_equal(total, N);
    assert_int_equal(tachy_access_log_dropped(srv), 0);
    free(seen);
    tachy_server_destroy(srv);
}

/* ---- off, and errors ------------------------------------------------------------------- */

static void off_by_default_and_bad_path(void **state) {
    (void)state;
    tachy_options o;
    tachy_options_init(&o);
    assert_null(o.access_log);
    assert_null(o.access_log_fn);
    assert_int_equal(o.access_log_format, TACHY_ACCESS_LOG_COMMON);
    assert_int_equal(o.access_log_lines, 4096);
    int port;
    tachy_server *srv = ts_serve(&o, ts_body_handler, "x", &port);
    assert_int_equal(ts_status(port, "GET / HTTP/1.1\r\nHost: h\r\n\r\n"), 200);
    assert_int_equal(tachy_access_log_reopen(srv), 0); /* nothing to reopen */
    ts_stop(srv);
    assert_int_equal(tachy_access_log_reopen(NULL), TACHY_EINVAL);
    /* A path that cannot be opened makes start fail, and the server can be destroyed. */
    o.access_log = "/nonexistent-dir/x/access.log";
    srv = ts_server(&o);
    assert_int_equal(tachy_server_start(srv), TACHY_ENOFILE);
    tachy_server_destroy(srv);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(common_log_format_fields),
        cmocka_unit_test(proxy_client_address),
        cmocka_unit_test(combined_escapes_and_cuts),
        cmocka_unit_test(full_ring_drops_and_counts),
        cmocka_unit_test(rotation_under_load_loses_nothing),
        cmocka_unit_test(off_by_default_and_bad_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
