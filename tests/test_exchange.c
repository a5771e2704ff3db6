/*
 * test_exchange.c - the exchange state machine over real sockets: response framing
 * (fixed, chunked, none), HEAD/1xx/204/304 rules, the JDK's status lines, request bodies
 * fixed and chunked, 100-continue, draining unread bodies, handler failure, deferred
 * close from another thread, the hold (tachy_exchange_hold), response header validation,
 * upgrade.
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
#include <fcntl.h>
#include <unistd.h>

#include "tsupport.h"

/* GET /r?CODE,LEN,WRITE: sendResponseHeaders(CODE, LEN) then write WRITE bytes of 'x'. */
static int respond(tachy_exchange *ex, void *user) {
    (void)user;
    const char *q = tachy_exchange_request_query(ex);
    int code = 200;
    long long len = 0, wr = 0;
    if (q)
        sscanf(q, "%d,%lld,%lld", &code, &len, &wr);
    int rc = tachy_exchange_send_response_headers(ex, code, len);
    if (rc < 0)
        return rc;
    char buf[4096];
    memset(buf, 'x', sizeof buf);
    while (wr > 0) {
        size_t n = wr > (long long)sizeof buf ? sizeof buf : (size_t)wr;
        ssize_t w = tachy_exchange_write(ex, buf, n);
        if (w < 0)
            break;
        wr -= (long long)n;
    }
    tachy_exchange_close(ex);
    return 0;
}

/* POST /echo: reads the whole body, answers it with a fixed length. */
static int echo(tachy_exchange *ex, void *user) {
    (void)user;
    size_t cap = 1 << 16, len = 0;
    char *body = malloc(cap);
    ssize_t n;
    while ((n = tachy_exchange_read(ex, body + len, cap - len)) > 0) {
        len += (size_t)n;
        if (len == cap)
            body = realloc(body, cap *= 2);
    }
    if (n < 0) {
        free(body);
        return (int)n;
    }
    tachy_exchange_send_response_headers(ex, 200, len ? (int64_t)len : -1);
    if (len)
        tachy_exchange_write(ex, body, len);
    free(body);
    tachy_exchange_close(ex);
    return 0;
}

static int failing(tachy_exchange *ex, void *user) {
    (void)ex;
    (void)user;
    return -1;
}

static int noclose(tachy_exchange *ex, void *user) {
    (void)user;
    tachy_exchange_send_response_headers(ex, 200, 3);
    tachy_exchange_write(ex, "abc", 3);
    tachy_exchange_response_body_close(ex);
    /* the JDK: flushing a finished fixed-length body is harmless */
    if (tachy_exchange_flush(ex) != 0)
        return -1;
    return 0; /* tachy closes the exchange */
}

static int noheaders_close(tachy_exchange *ex, void *user) {
    (void)user;
    tachy_exchange_close(ex);
    return 0;
}

static void *finisher(void *arg) {
    tachy_exchange *ex = arg;
    ts_sleep_ms(100);
    tachy_exchange_send_response_headers(ex, 200, 5);
    tachy_exchange_write(ex, "later", 5);
    tachy_exchange_close(ex);
    return NULL;
}

static int deferred(tachy_exchange *ex, void *user) {
    (void)user;
    pthread_t t;
    tachy_exchange_defer(ex);
    pthread_create(&t, NULL, finisher, ex);
    pthread_detach(t);
    return 0;
}

static int badheader(tachy_exchange *ex, void *user) {
    int *seen = user;
    tachy_headers *h = tachy_exchange_response_headers(ex);
    seen[0] = tachy_headers_add(h, "X-Evil", "a\r\nInjected: yes");
    seen[1] = tachy_headers_add(h, "X-Bad\nName", "v");
    tachy_exchange_send_response_headers(ex, 200, -1);
    tachy_exchange_close(ex);
    return 0;
}

static int stream_upgrade(tachy_exchange *ex, void *user) {
    (void)user;
    tachy_headers_set(tachy_exchange_response_headers(ex), "Upgrade", "echo");
    tachy_headers_set(tachy_exchange_response_headers(ex), "Connection", "Upgrade");
    tachy_exchange_send_response_headers(ex, 101, -1);
    tachy_stream *s;
    if (tachy_exchange_upgrade(ex, &s) < 0)
        return -1;
    char buf[256];
    ssize_t n;
    while ((n = tachy_stream_read(s, buf, sizeof buf, 2000)) > 0)
        tachy_stream_write(s, buf, (size_t)n, 2000);
    return 0;
}

static int getters(tachy_exchange *ex, void *user) {
    (void)user;
    char out[512], host[64];
    int port = 0;
    tachy_exchange_remote_address(ex, host, sizeof host, &port);
    const char *q = tachy_exchange_request_query(ex);
    int n = snprintf(out, sizeof out, "%s|%s|%s|%s|%s|%s|%s|%d", tachy_exchange_request_method(ex),
                     tachy_exchange_request_uri(ex), tachy_exchange_request_path(ex),
                     q ? q : "(null)", tachy_exchange_protocol(ex),
                     tachy_context_path(tachy_exchange_context(ex)), host, port > 0);
    tachy_exchange_send_response_headers(ex, 200, n);
    tachy_exchange_write(ex, out, (size_t)n);
    tachy_exchange_close(ex);
    return 0;
}

/* Sets its own Date and Content-length, then answers with the framing in the query. */
static int own_headers(tachy_exchange *ex, void *user) {
    (void)user;
    tachy_headers *h = tachy_exchange_response_headers(ex);
    tachy_headers_set(h, "Date", "bogus");
    tachy_headers_set(h, "Content-Length", "7");
    long long len = atoll(tachy_exchange_request_query(ex));
    tachy_exchange_send_response_headers(ex, 200, len);
    if (len > 0)
        tachy_exchange_write(ex, "abc", 3);
    tachy_exchange_close(ex);
    return 0;
}

/* The file /file serves: FILE_SIZE bytes of a pattern with no period shorter than it. */
#define FILE_SIZE (3 * 1024 * 1024 + 17)
static char file_path[64];
/* The last tachy_exchange_send_file result seen by /file. Written by the handler thread:
 * the test reads it only where the handler stored it before the client could see the end
 * of the response (a refused call before the rest of the body, a failure before the
 * close the client waits for). */
static atomic_int send_file_rc;

static char file_byte(int64_t i) { return (char)('A' + (i * 7 + i / 251) % 26); }

/*
 * GET /file?MODE,OFF,LEN: body bytes [OFF, OFF+LEN) of the file with send_file.
 * MODE f: sendResponseHeaders(200, LEN) then one send_file; c: chunked, the range in two
 * send_file calls; t: declares LEN-1 (too long); s: declares LEN, sends LEN from a file
 * that has fewer bytes left (short).
 */
static int file_handler(tachy_exchange *ex, void *user) {
    (void)user;
    char mode = 'f';
    long long off = 0, len = 0;
    const char *q = tachy_exchange_request_query(ex);
    if (q)
        sscanf(q, "%c,%lld,%lld", &mode, &off, &len);
    int fd = open(file_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc;
    if (mode == 'c') {
        tachy_exchange_send_response_headers(ex, 200, 0);
        rc = tachy_exchange_send_file(ex, fd, off, len / 2);
        if (rc == 0)
            rc = tachy_exchange_send_file(ex, fd, off + len / 2, len - len / 2);
    } else if (mode == 't') {
        tachy_exchange_send_response_headers(ex, 200, len - 1);
        rc = tachy_exchange_send_file(ex, fd, off, len);
        /* nothing was written: the declared body can still be completed */
        if (rc == TACHY_ETOOLONG) {
            atomic_store(&send_file_rc, rc); /* before the client can see the body end */
            tachy_exchange_send_file(ex, fd, off, len - 1);
        }
    } else {
        tachy_exchange_send_response_headers(ex, 200, len);
        rc = tachy_exchange_send_file(ex, fd, off, len);
    }
    atomic_store(&send_file_rc, rc);
    close(fd);
    tachy_exchange_close(ex);
    return 0;
}

/* tachy_field_fn: "name=value;" into a buffer. */
static void field_line(void *user, const char *name, size_t nl, const char *value, size_t vl) {
    char *out = user;
    size_t at = strlen(out);
    snprintf(out + at, 1024 - at, "%.*s=%.*s;", (int)nl, name, (int)vl, value);
}

/* GET /fields: the request fields as tachy_exchange_request_fields visits them, then (when
 * the query says so) again after a change through the headers object. */
static int fields_handler(tachy_exchange *ex, void *user) {
    (void)user;
    char out[2048] = "";
    ssize_t n = tachy_exchange_request_fields(ex, field_line, out);
    const char *q = tachy_exchange_request_query(ex);
    if (q && strcmp(q, "change") == 0) {
        tachy_headers_set(tachy_exchange_request_headers(ex), "X-a", "changed");
        strcat(out, "|");
        n += tachy_exchange_request_fields(ex, field_line, out + strlen(out));
    }
    char body[2100];
    int len = snprintf(body, sizeof body, "%zd %s", n, out);
    tachy_exchange_send_response_headers(ex, 200, len);
    tachy_exchange_write(ex, body, (size_t)len);
    tachy_exchange_close(ex);
    return 0;
}

/* GET /sendfields: the response headers as fields (one with CR first, refused), Date and
 * Content-length among them as a handler may set them, and Connection: close. */
static atomic_int fields_bad_rc;
static int sendfields_handler(tachy_exchange *ex, void *user) {
    (void)user;
    tachy_field evil = {"X-evil", 6, "a\r\nInjected: yes", 17};
    atomic_store(&fields_bad_rc, tachy_exchange_send_response_fields(ex, 200, 2, &evil, 1));
    const tachy_field f[] = {{"Content-type", 12, "text/plain", 10},
                             {"Date", 4, "yesterday", 9},
                             {"Content-length", 14, "99", 2},
                             {"X-empty", 7, NULL, 0},
                             {"Connection", 10, "Close", 5}};
    tachy_exchange_send_response_fields(ex, 200, 2, f, sizeof f / sizeof f[0]);
    tachy_exchange_write(ex, "ok", 2);
    tachy_exchange_close(ex);
    return 0;
}

/* GET|HEAD /framing?CODE,LEN: records tachy_exchange_response_framing before and after
 * sendResponseHeaders(CODE, LEN), then writes what that framing allows ("hello" for a fixed
 * length of 5, "x" for a streamed body). */
static atomic_int framing_before, framing_after;
static _Atomic int64_t framing_cl;
static int framing_handler(tachy_exchange *ex, void *user) {
    (void)user;
    int code = 200;
    long long len = 0;
    const char *q = tachy_exchange_request_query(ex);
    if (q)
        sscanf(q, "%d,%lld", &code, &len);
    int64_t cl = 42;
    atomic_store(&framing_before, tachy_exchange_response_framing(ex, &cl));
    if (cl != -1)
        atomic_store(&framing_before, -100); /* *content_length must be -1 before */
    if (tachy_exchange_send_response_headers(ex, code, len) < 0)
        return -1;
    int f = tachy_exchange_response_framing(ex, &cl);
    atomic_store(&framing_cl, cl);
    atomic_store(&framing_after, f);
    if (f == TACHY_RESPONSE_FIXED)
        tachy_exchange_write(ex, "hello", 5);
    else if (f == TACHY_RESPONSE_CHUNKED || f == TACHY_RESPONSE_UNTIL_CLOSE)
        tachy_exchange_write(ex, "x", 1);
    tachy_exchange_close(ex);
    return 0;
}

/* GET /reject: tachy_exchange_reject(400), then a second reject and a send refused. */
static atomic_int reject_again_rc, reject_send_rc;
static int reject_handler(tachy_exchange *ex, void *user) {
    (void)user;
    if (tachy_exchange_reject(ex, 400, "URISyntaxException thrown") < 0)
        return -1;
    atomic_store(&reject_again_rc, tachy_exchange_reject(ex, 400, "again"));
    atomic_store(&reject_send_rc, tachy_exchange_send_response_headers(ex, 200, -1));
    tachy_exchange_close(ex);
    return 0;
}

static tachy_server *srv;
static int port;

/* POST /held (Content-Length 10, "hello" sent with the head, "world" once held_ready is
 * set): under tachy_exchange_hold nothing blocks and nothing is sent; then the hold is
 * lifted and the exchange finishes normally. held_ok: 0 while it runs, then 2 if every
 * call behaved, 1 if not. */
static atomic_int held_ready, held_ok;

static int held_handler(tachy_exchange *ex, void *user) {
    (void)user;
    int ok = 1;
    char buf[16];
    ok &= tachy_exchange_hold(ex, 1) == 0;
    uint64_t w0 = ts_server_writes(srv);
    size_t got = 0;
    while (got < 5) {
        ssize_t n = tachy_exchange_read(ex, buf + got, 5 - got);
        if (n == TACHY_EWOULDBLOCK) {
            /* "hello" not buffered yet: wait for it the normal way */
            tachy_exchange_hold(ex, 0);
            n = tachy_exchange_read(ex, buf + got, 5 - got);
            tachy_exchange_hold(ex, 1);
            w0 = ts_server_writes(srv);
        }
        if (n <= 0) {
            ok = 0;
            break;
        }
        got += (size_t)n;
    }
    ok &= got == 5 && memcmp(buf, "hello", 5) == 0;
    /* "world" is not sent yet: every call that would wait for it refuses, changing nothing */
    ok &= tachy_exchange_read(ex, buf, sizeof buf) == TACHY_EWOULDBLOCK;
    ok &= tachy_exchange_request_body_close(ex) == TACHY_EWOULDBLOCK;
    /* a response larger than every flush threshold stays in the write buffer */
    ok &= tachy_exchange_send_response_headers(ex, 200, 70000) == 0;
    char *body = malloc(70000);
    memset(body, 'h', 70000);
    ok &= tachy_exchange_write(ex, body, 70000) == 70000;
    free(body);
    ok &= tachy_exchange_close(ex) == TACHY_EWOULDBLOCK;
    ok &= tachy_exchange_held_bytes(ex) >= 70000;
    ok &= ts_server_writes(srv) == w0;
    atomic_store(&held_ready, 1);
    /* lifted: the read waits for "world" (sending the held response first), close drains */
    ok &= tachy_exchange_hold(ex, 0) == 0;
    got = 0;
    while (got < 5) {
        ssize_t n = tachy_exchange_read(ex, buf + got, 5 - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    ok &= got == 5 && memcmp(buf, "world", 5) == 0;
    ok &= tachy_exchange_close(ex) == 0;
    atomic_store(&held_ok, ok ? 2 : 1); /* 0 while running */
    return 0;
}

static int bad_seen[2];

static int setup(void **state) {
    (void)state;
    srv = ts_server(NULL);
    tachy_server_create_context(srv, "/r", respond, NULL, NULL);
    tachy_server_create_context(srv, "/echo", echo, NULL, NULL);
    tachy_server_create_context(srv, "/noread", ts_body_handler, "ok", NULL); /* reads no body */
    tachy_server_create_context(srv, "/fail", failing, NULL, NULL);
    tachy_server_create_context(srv, "/noclose", noclose, NULL, NULL);
    tachy_server_create_context(srv, "/noheaders", noheaders_close, NULL, NULL);
    tachy_server_create_context(srv, "/deferred", deferred, NULL, NULL);
    tachy_server_create_context(srv, "/badheader", badheader, bad_seen, NULL);
    tachy_server_create_context(srv, "/upgrade", stream_upgrade, NULL, NULL);
    tachy_server_create_context(srv, "/get", getters, NULL, NULL);
    tachy_server_create_context(srv, "/own", own_headers, NULL, NULL);
    tachy_server_create_context(srv, "/file", file_handler, NULL, NULL);
    tachy_server_create_context(srv, "/fields", fields_handler, NULL, NULL);
    tachy_server_create_context(srv, "/sendfields", sendfields_handler, NULL, NULL);
    tachy_server_create_context(srv, "/framing", framing_handler, NULL, NULL);
    tachy_server_create_context(srv, "/reject", reject_handler, NULL, NULL);
    tachy_server_create_context(srv, "/held", held_handler, NULL, NULL);
    snprintf(file_path, sizeof file_path, "/tmp/tachy-test-file-%d", (int)getpid());
    FILE *f = fopen(file_path, "wb");
    assert_non_null(f);
    for (int64_t i = 0; i < FILE_SIZE; i++)
        fputc(file_byte(i), f);
    fclose(f);
    port = ts_start(srv);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    unlink(file_path);
    ts_stop(srv);
    return 0;
}

static void test_fixed_length(void **state) {
    (void)state;
    ts_response r;
    int fd = ts_request(port, "GET /r?200,5,5 HTTP/1.1\r\nHost: x\r\n\r\n", -1, &r, 0);
    assert_string_equal(r.status_line, "HTTP/1.1 200 OK");
    assert_int_equal(r.content_length, 5);
    assert_string_equal(r.body, "xxxxx");
    char v[64];
    assert_non_null(ts_header(&r, "Date", v, sizeof v));
    assert_int_equal(strlen(v), 29); /* IMF-fixdate */
    assert_memory_equal(v + 25, " GMT", 4);
    assert_non_null(strstr(r.head, "\r\nContent-length: 5\r\n")); /* the JDK's spelling */
    ts_response_free(&r);
    ts_close(fd);
}

static void test_chunked_response(void **state) {
    (void)state;
    ts_response r;
    int fd = ts_request(port, "GET /r?200,0,10000 HTTP/1.1\r\nHost: t\r\n\r\n", -1, &r, 0);
    assert_int_equal(r.chunked, 1);
    assert_non_null(strstr(r.head, "\r\nTransfer-encoding: chunked\r\n"));
    assert_int_equal(r.body_len, 10000);
    ts_response_free(&r);
    ts_close(fd);
}

static void test_no_body_minus_one(void **state) {
    (void)state;
    ts_response r;
    int fd = ts_request(port, "GET /r?200,-1,0 HTTP/1.1\r\nHost: t\r\n\r\n", -1, &r, 0);
    assert_int_equal(r.content_length, 0);
    assert_int_equal(r.body_len, 0);
    ts_response_free(&r);
    ts_close(fd);
}

static void test_head_has_no_body(void **state) {
    (void)state;
    const char *reqs[] = {"HEAD /r?200,5,5 HTTP/1.1\r\nHost: t\r\n\r\n", "HEAD /r?200,0,5 HTTP/1.1\r\nHost: t\r\n\r\n",
                          "HEAD /r?200,-1,0 HTTP/1.1\r\nHost: t\r\n\r\n"};
    for (size_t i = 0; i < 3; i++) {
        int fd = ts_connect(port);
        ts_send(fd, reqs[i], -1);
        size_t len;
        char *raw = ts_read_raw(fd, 300, &len, NULL);
        /* Exactly a head, no body, no length, no chunking - as the JDK does. */
        assert_non_null(strstr(raw, "HTTP/1.1 200 OK\r\n"));
        assert_null(strstr(raw, "Content-length"));
        assert_null(strstr(raw, "Transfer-encoding"));
        assert_true(len >= 4 && memcmp(raw + len - 4, "\r\n\r\n", 4) == 0);
        free(raw);
        ts_close(fd);
    }
}

static void test_204_304_1xx_never_have_body(void **state) {
    (void)state;
    const char *reqs[] = {"GET /r?204,5,5 HTTP/1.1\r\nHost: t\r\n\r\n", "GET /r?304,5,5 HTTP/1.1\r\nHost: t\r\n\r\n",
                          "GET /r?102,5,5 HTTP/1.1\r\nHost: t\r\n\r\n"};
    const char *lines[] = {"HTTP/1.1 204 No Content\r\n", "HTTP/1.1 304 Not Modified\r\n",
                           "HTTP/1.1 102 \r\n"};
    for (size_t i = 0; i < 3; i++) {
        int fd = ts_connect(port);
        ts_send(fd, reqs[i], -1);
        size_t len;
        char *raw = ts_read_raw(fd, 300, &len, NULL);
        assert_memory_equal(raw, lines[i], strlen(lines[i]));
        assert_null(strstr(raw, "Content-length"));
        assert_true(memcmp(raw + len - 4, "\r\n\r\n", 4) == 0);
        free(raw);
        ts_close(fd);
    }
}

static void test_unknown_code_trailing_space(void **state) {
    (void)state;
    ts_response r;
    int fd = ts_request(port, "GET /r?207,3,3 HTTP/1.1\r\nHost: t\r\n\r\n", -1, &r, 0);
    assert_non_null(strstr(r.head, "HTTP/1.1 207 \r\n"));
    assert_string_equal(r.body, "xxx");
    ts_response_free(&r);
    ts_close(fd);
    /* codes outside the usual range go out as given, as the JDK sends them */
    fd = ts_request(port, "GET /r?99,1,1 HTTP/1.1\r\nHost: t\r\n\r\n", -1, &r, 0);
    assert_non_null(strstr(r.head, "HTTP/1.1 99 \r\n"));
    ts_response_free(&r);
    ts_close(fd);
}

static void test_fixed_body_echo(void **state) {
    (void)state;
    ts_response r;
    int fd = ts_request(port, "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 11\r\n\r\nhello world",
                        -1, &r, 0);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body, "hello world");
    ts_response_free(&r);
    ts_close(fd);
}

static void test_chunked_request_body(void **state) {
    (void)state;
    int fd = ts_connect(port);
    ts_send(fd, "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n", -1);
    ts_send(fd, "5;ext=1\r\nhello\r\n", -1);
    ts_sleep_ms(20);
    ts_expect_body(fd, "1\r\n \r\n5\r\nworld\r\n0\r\nX-Trailer: t\r\n\r\n", "hello world");
    /* The connection is still usable afterwards. */
    ts_expect_body(fd, "GET /r?200,2,2 HTTP/1.1\r\nHost: t\r\n\r\n", "xx");
    ts_close(fd);
}

static void test_large_bodies_both_ways(void **state) {
    (void)state;
    size_t n = 3 * 1024 * 1024 + 7;
    char *body = malloc(n);
    for (size_t i = 0; i < n; i++)
        body[i] = (char)('a' + i % 26);
    int fd = ts_connect(port);
    char head[128];
    snprintf(head, sizeof head, "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: %zu\r\n\r\n", n);
    ts_send(fd, head, -1);
    ts_send(fd, body, (ssize_t)n);
    ts_response r;
    assert_int_equal(ts_read_response(fd, &r, 0), 0);
    assert_int_equal(r.body_len, n);
    assert_memory_equal(r.body, body, n);
    ts_response_free(&r);
    /* 4 MiB chunked response */
    ts_roundtrip(fd, "GET /r?200,0,4194304 HTTP/1.1\r\nHost: t\r\n\r\n", -1, &r, 0);
    assert_int_equal(r.body_len, 4194304);
    ts_response_free(&r);
    free(body);
    ts_close(fd);
}

static void test_expect_continue(void **state) {
    (void)state;
    int fd = ts_connect(port);
    ts_send(fd, "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n", -1);
    size_t len;
    char *raw = ts_read_raw(fd, 300, &len, NULL);
    /* A bare interim response, sent before the handler reads: RFC 9110 8.6 forbids
     * Content-Length in a 1xx (the JDK sends "Content-Length: 0"). */
    assert_string_equal(raw, "HTTP/1.1 100 Continue\r\n\r\n");
    free(raw);
    ts_send(fd, "ping", 4);
    ts_response r;
    assert_int_equal(ts_read_response(fd, &r, 0), 0);
    assert_string_equal(r.body, "ping");
    ts_response_free(&r);
    ts_close(fd);
}

static void test_unread_small_body_is_drained(void **state) {
    (void)state;
    int fd = ts_connect(port);
    ts_send(fd, "POST /noread HTTP/1.1\r\nHost: t\r\nContent-Length: 1000\r\n\r\n", -1);
    char body[1000];
    memset(body, 'b', sizeof body);
    ts_send(fd, body, sizeof body);
    ts_response r;
    assert_int_equal(ts_read_response(fd, &r, 0), 0);
    assert_string_equal(r.body, "ok");
    ts_response_free(&r);
    ts_expect_body(fd, "GET /r?200,1,1 HTTP/1.1\r\nHost: t\r\n\r\n", "x");
    ts_close(fd);
}

static void test_unread_large_body_closes(void **state) {
    (void)state;
    int fd = ts_connect(port);
    /* More than drainAmount (64 KiB): the connection is not reused. */
    ts_send(fd, "POST /noread HTTP/1.1\r\nHost: t\r\nContent-Length: 10000000\r\n\r\n", -1);
    char chunk[65536];
    memset(chunk, 'b', sizeof chunk);
    ts_send(fd, chunk, sizeof chunk);
    ts_send(fd, chunk, sizeof chunk);
    ts_response r;
    assert_int_equal(ts_read_response(fd, &r, 0), 0);
    assert_string_equal(r.body, "ok");
    ts_response_free(&r);
    assert_true(ts_wait_eof(fd, 3000));
    ts_close(fd);
}

static void test_handler_failure_closes_without_response(void **state) {
    (void)state;
    int fd = ts_connect(port);
    ts_send(fd, "GET /fail HTTP/1.1\r\nHost: t\r\n\r\n", -1);
    size_t len;
    int eof;
    char *raw = ts_read_raw(fd, 2000, &len, &eof);
    assert_int_equal(len, 0); /* like the JDK: no 500 invented */
    assert_true(eof);
    free(raw);
    ts_close(fd);
    /* The server keeps serving. */
    ts_response r;
    fd = ts_request(port, "GET /r?200,1,1 HTTP/1.1\r\nHost: t\r\n\r\n", -1, &r, 0);
    assert_int_equal(r.status, 200);
    ts_response_free(&r);
    ts_close(fd);
}

static void test_handler_return_closes_exchange(void **state) {
    (void)state;
    ts_response r;
    int fd = ts_request(port, "GET /noclose HTTP/1.1\r\nHost: t\r\n\r\n", -1, &r, 0);
    assert_string_equal(r.body, "abc");
    ts_response_free(&r);
    ts_roundtrip(fd, "GET /r?200,1,1 HTTP/1.1\r\nHost: t\r\n\r\n", -1, &r, 0);
    ts_response_free(&r);
    ts_close(fd);
}

static void test_close_without_headers_closes_connection(void **state) {
    (void)state;
    int fd = ts_connect(port);
    ts_send(fd, "GET /noheaders HTTP/1.1\r\nHost: t\r\n\r\n", -1);
    ts_expect_silent_close(fd, 2000);
}

static void test_deferred_close_from_other_thread(void **state) {
    (void)state;
    ts_response r;
    int fd = ts_request(port, "GET /deferred HTTP/1.1\r\nHost: t\r\n\r\n", -1, &r, 0);
    assert_string_equal(r.body, "later");
    ts_response_free(&r);
    ts_expect_body(fd, "GET /deferred HTTP/1.1\r\nHost: t\r\n\r\n", "later");
    ts_close(fd);
}

static void test_hold_keeps_output_and_refuses_waits(void **state) {
    (void)state;
    atomic_store(&held_ready, 0);
    atomic_store(&held_ok, 0);
    int fd = ts_connect(port);
    ts_send(fd, "POST /held HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\nhello", -1);
    long end = ts_now_ms() + 10000;
    while (!atomic_load(&held_ready) && ts_now_ms() < end)
        ts_sleep_ms(2);
    assert_true(atomic_load(&held_ready));
    ts_send(fd, "world", -1);
    ts_response r;
    assert_int_equal(ts_read_response(fd, &r, 0), 0);
    assert_string_equal(r.status_line, "HTTP/1.1 200 OK");
    assert_int_equal(r.content_length, 70000);
    assert_int_equal(strspn(r.body, "h"), 70000);
    ts_response_free(&r);
    /* the response left inside the handler's last read: wait for the handler's verdict */
    end = ts_now_ms() + 10000;
    while (!atomic_load(&held_ok) && ts_now_ms() < end)
        ts_sleep_ms(2);
    assert_int_equal(atomic_load(&held_ok), 2);
    /* the connection is reusable: the hold ended with the handler */
    ts_expect_body(fd, "GET /r?200,2,2 HTTP/1.1\r\nHost: t\r\n\r\n", "xx");
    ts_close(fd);
}

static void test_crlf_in_response_header_refused(void **state) {
    (void)state;
    ts_response r;
    int fd = ts_request(port, "GET /badheader HTTP/1.1\r\nHost: t\r\n\r\n", -1, &r, 0);
    assert_int_equal(bad_seen[0], TACHY_EBADHEADER);
    assert_int_equal(bad_seen[1], TACHY_EBADHEADER);
    assert_null(strstr(r.head, "Injected"));
    assert_null(strstr(r.head, "X-evil"));
    ts_response_free(&r);
    ts_close(fd);
}

static void test_upgrade_takes_over_stream(void **state) {
    (void)state;
    int fd = ts_connect(port);
    /* Bytes right after the request must reach the upgraded stream. */
    ts_send(fd, "GET /upgrade HTTP/1.1\r\nHost: t\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\nearly", -1);
    ts_response r;
    assert_int_equal(ts_read_response(fd, &r, 1), 0);
    assert_int_equal(r.status, 101);
    ts_response_free(&r);
    size_t len;
    char *raw = ts_read_raw(fd, 500, &len, NULL);
    assert_string_equal(raw, "early");
    free(raw);
    ts_send(fd, "more", -1);
    raw = ts_read_raw(fd, 500, &len, NULL);
    assert_string_equal(raw, "more");
    free(raw);
    ts_close(fd);
}

static void test_request_getters(void **state) {
    (void)state;
    ts_response r;
    int fd = ts_request(port, "GET /get/a%20b?x=1&y=%20 HTTP/1.1\r\nHost: t\r\n\r\n", -1, &r, 0);
    assert_string_equal(r.body, "GET|/get/a%20b?x=1&y=%20|/get/a b|x=1&y=%20|HTTP/1.1|/get|127.0.0.1|1");
    ts_response_free(&r);
    ts_close(fd);
    fd = ts_request(port, "GET http://example.com/get/abs HTTP/1.1\r\nHost: t\r\n\r\n", -1, &r, 0);
    assert_string_equal(r.body, "GET|http://example.com/get/abs|/get/abs|(null)|HTTP/1.1|/get|127.0.0.1|1");
    ts_response_free(&r);
    ts_close(fd);
}

static void test_framing_headers_replace_the_handlers_like_the_jdk(void **state) {
    (void)state;
    /* Fixed length: tachy's Content-length replaces the handler's; Date is always ours. */
    ts_response r;
    int fd = ts_request(port, "GET /own?3 HTTP/1.1\r\nHost: t\r\n\r\n", -1, &r, 0);
    assert_string_equal(r.body, "abc");
    assert_null(strstr(r.head, "bogus"));
    assert_null(strstr(r.head, ": 7\r\n"));
    ts_response_free(&r);
    /* HEAD: the JDK sets no length, so the handler's stays (SimpleFileServer relies on it) */
    ts_send(fd, "HEAD /own?-1 HTTP/1.1\r\nHost: t\r\n\r\n", -1);
    size_t len;
    char *raw = ts_read_raw(fd, 300, &len, NULL);
    assert_non_null(strstr(raw, "\r\nContent-length: 7\r\n"));
    assert_null(strstr(raw, "bogus"));
    free(raw);
    ts_close(fd);
}

/* request_fields: names normalised, arrival order (the two x-a values keep theirs, the
 * other name stays between them), then the headers object's grouped pairs after a set. */
static void test_request_fields(void **state) {
    (void)state;
    ts_response r;
    int fd = ts_request(port, "GET /fields HTTP/1.1\r\nhost: h\r\nX-A: 1\r\nCONTENT-TYPE: t/p\r\n"
                              "x-a: 2\r\n\r\n",
                        -1, &r, 0);
    assert_string_equal(r.body, "4 Host=h;X-a=1;Content-type=t/p;X-a=2;");
    ts_response_free(&r);
    ts_close(fd);
    fd = ts_request(port, "GET /fields?change HTTP/1.1\r\nHost: t\r\nX-A: 1\r\nB: 2\r\nx-a: 3\r\n\r\n",
                    -1, &r, 0);
    assert_string_equal(r.body, "7 Host=t;X-a=1;B=2;X-a=3;|Host=t;X-a=changed;B=2;");
    ts_response_free(&r);
    ts_close(fd);
}

/* send_response_fields: CR refused with nothing sent; then the fields in order, the
 * handler's Date and Content-length replaced by tachy's own, an empty value kept, and
 * "Connection: Close" honoured (the connection closes after the response). */
static void test_send_response_fields(void **state) {
    (void)state;
    int fd = ts_connect(port);
    ts_send(fd, "GET /sendfields HTTP/1.1\r\nHost: t\r\n\r\n", -1);
    size_t len;
    int eof = 0;
    char *raw = ts_read_raw(fd, 3000, &len, &eof);
    assert_true(eof);
    assert_int_equal(atomic_load(&fields_bad_rc), TACHY_EBADHEADER);
    assert_null(strstr(raw, "Injected"));
    assert_non_null(strstr(raw, "HTTP/1.1 200 OK\r\nDate: "));
    assert_null(strstr(raw, "yesterday"));
    assert_null(strstr(raw, ": 99"));
    assert_non_null(strstr(raw, "\r\nContent-type: text/plain\r\nX-empty: \r\nConnection: Close\r\n"
                                "Content-length: 2\r\n\r\nok"));
    free(raw);
    ts_close(fd);
}

/* tachy_exchange_response_framing reports send_head's decision for every framing rule. */
static void test_response_framing_reports_the_decision(void **state) {
    (void)state;
    static const struct {
        const char *method, *query, *version;
        int framing;
        int64_t cl;
        const char *tail; /* the end of the raw response */
    } cases[] = {
        {"GET", "200,5", "1.1", TACHY_RESPONSE_FIXED, 5, "Content-length: 5\r\n\r\nhello"},
        {"GET", "200,0", "1.1", TACHY_RESPONSE_CHUNKED, -1, "chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n"},
        {"GET", "200,-1", "1.1", TACHY_RESPONSE_EMPTY, 0, "Content-length: 0\r\n\r\n"},
        {"HEAD", "200,5", "1.1", TACHY_RESPONSE_EMPTY, -1, "\r\n\r\n"},
        {"GET", "304,5", "1.1", TACHY_RESPONSE_EMPTY, -1, "\r\n\r\n"},
        {"GET", "204,-1", "1.1", TACHY_RESPONSE_EMPTY, -1, "\r\n\r\n"},
        {"GET", "200,0", "1.0", TACHY_RESPONSE_UNTIL_CLOSE, -1, "\r\n\r\nx"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        atomic_store(&framing_after, -1);
        char req[128];
        snprintf(req, sizeof req, "%s /framing?%s HTTP/%s\r\nHost: t\r\nConnection: close\r\n\r\n",
                 cases[i].method, cases[i].query, cases[i].version);
        int fd = ts_connect(port);
        ts_send(fd, req, -1);
        size_t len;
        int eof = 0;
        char *raw = ts_read_raw(fd, 3000, &len, &eof);
        assert_true(eof);
        assert_int_equal(atomic_load(&framing_before), TACHY_RESPONSE_NOT_SENT);
        assert_int_equal(atomic_load(&framing_after), cases[i].framing);
        assert_int_equal(atomic_load(&framing_cl), cases[i].cl);
        size_t tl = strlen(cases[i].tail);
        if (len < tl || memcmp(raw + len - tl, cases[i].tail, tl) != 0)
            fail_msg("case %zu: response ends differently:\n%s", i, raw);
        if (cases[i].cl < 0 && strstr(raw, "Content-length"))
            fail_msg("case %zu: a Content-length where none was reported:\n%s", i, raw);
        free(raw);
        ts_close(fd);
    }
    assert_int_equal(tachy_exchange_response_framing(NULL, NULL), TACHY_EINVAL);
}

/* tachy_exchange_reject sends the bytes of the core's own 400 (a target it refuses), then
 * the connection closes; a second reject or a send is refused. */
static void test_reject_is_the_cores_own_400(void **state) {
    (void)state;
    char *got[2];
    const char *reqs[2] = {"GET /reject HTTP/1.1\r\nHost: t\r\n\r\n",
                           "GET /r|x HTTP/1.1\r\nHost: t\r\n\r\n"};
    for (int i = 0; i < 2; i++) {
        int fd = ts_connect(port);
        ts_send(fd, reqs[i], -1);
        size_t len;
        int eof = 0;
        got[i] = ts_read_raw(fd, 3000, &len, &eof);
        assert_true(eof);
        ts_close(fd);
    }
    assert_string_equal(got[0], "HTTP/1.1 400 Bad Request\r\nContent-Length: 49\r\n"
                                "Content-Type: text/html\r\nConnection: close\r\n\r\n"
                                "<h1>400 Bad Request</h1>URISyntaxException thrown");
    assert_string_equal(got[0], got[1]);
    assert_int_equal(atomic_load(&reject_again_rc), TACHY_EHDRSENT);
    assert_int_equal(atomic_load(&reject_send_rc), TACHY_EHDRSENT);
    free(got[0]);
    free(got[1]);
}

static void check_file_body(const ts_response *r, int64_t off, int64_t len) {
    assert_int_equal(r->status, 200);
    assert_int_equal(r->body_len, (size_t)len);
    for (int64_t i = 0; i < len; i++)
        if (r->body[i] != file_byte(off + i))
            fail_msg("body byte %lld differs from file byte %lld", (long long)i,
                     (long long)(off + i));
}

/* send_file: a fixed-length range and a chunked one, then the connection carries on (the
 * framing is intact), with sendfile on this plain connection. */
static void test_send_file(void **state) {
    (void)state;
    int fd = ts_connect(port);
    char req[128];
    ts_response r;
    const long long cases[][2] = {{0, FILE_SIZE}, {1000, 2 * 1024 * 1024}, {FILE_SIZE - 5, 5}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        snprintf(req, sizeof req, "GET /file?f,%lld,%lld HTTP/1.1\r\nHost: t\r\n\r\n",
                 cases[k][0], cases[k][1]);
        ts_send(fd, req, -1);
        assert_int_equal(ts_read_response(fd, &r, 0), 0);
        assert_int_equal(r.content_length, cases[k][1]);
        check_file_body(&r, cases[k][0], cases[k][1]);
        ts_response_free(&r);
    }
    ts_roundtrip(fd, "GET /file?c,777,100001 HTTP/1.1\r\nHost: t\r\n\r\n", -1, &r, 0);
    assert_true(r.chunked);
    check_file_body(&r, 777, 100001);
    ts_response_free(&r);
    /* too long for the declared length: refused with nothing sent, then completed */
    ts_roundtrip(fd, "GET /file?t,10,50 HTTP/1.1\r\nHost: t\r\n\r\n", -1, &r, 0);
    assert_int_equal(atomic_load(&send_file_rc), TACHY_ETOOLONG);
    check_file_body(&r, 10, 49);
    ts_response_free(&r);
    ts_close(fd);
}

/* A file with fewer bytes than asked: TACHY_ESHORT, the body stops short and the
 * connection closes (the client sees EOF, not a wrong next response). */
static void test_send_file_short(void **state) {
    (void)state;
    int fd = ts_connect(port);
    char req[128];
    snprintf(req, sizeof req, "GET /file?s,%d,%d HTTP/1.1\r\nHost: t\r\n\r\n", FILE_SIZE - 100,
             1000);
    ts_send(fd, req, -1);
    size_t len;
    int eof = 0;
    char *raw = ts_read_raw(fd, 3000, &len, &eof);
    assert_true(eof);
    assert_non_null(strstr(raw, "Content-length: 1000"));
    const char *body = strstr(raw, "\r\n\r\n") + 4;
    assert_int_equal(len - (size_t)(body - raw), 100); /* what the file had */
    assert_int_equal(atomic_load(&send_file_rc), TACHY_ESHORT);
    free(raw);
    ts_close(fd);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixed_length),
        cmocka_unit_test(test_send_file),
        cmocka_unit_test(test_request_fields),
        cmocka_unit_test(test_send_response_fields),
        cmocka_unit_test(test_send_file_short),
        cmocka_unit_test(test_chunked_response),
        cmocka_unit_test(test_no_body_minus_one),
        cmocka_unit_test(test_head_has_no_body),
        cmocka_unit_test(test_204_304_1xx_never_have_body),
        cmocka_unit_test(test_unknown_code_trailing_space),
        cmocka_unit_test(test_fixed_body_echo),
        cmocka_unit_test(test_chunked_request_body),
        cmocka_unit_test(test_large_bodies_both_ways),
        cmocka_unit_test(test_expect_continue),
        cmocka_unit_test(test_unread_small_body_is_drained),
        cmocka_unit_test(test_unread_large_body_closes),
        cmocka_unit_test(test_handler_failure_closes_without_response),
        cmocka_unit_test(test_handler_return_closes_exchange),
        cmocka_unit_test(test_close_without_headers_closes_connection),
        cmocka_unit_test(test_deferred_close_from_other_thread),
        cmocka_unit_test(test_hold_keeps_output_and_refuses_waits),
        cmocka_unit_test(test_crlf_in_response_header_refused),
        cmocka_unit_test(test_upgrade_takes_over_stream),
        cmocka_unit_test(test_request_getters),
        cmocka_unit_test(test_framing_headers_replace_the_handlers_like_the_jdk),
        cmocka_unit_test(test_response_framing_reports_the_decision),
        cmocka_unit_test(test_reject_is_the_cores_own_400),
    };
    return cmocka_run_group_tests_name("exchange", tests, setup, teardown);
}
