/*
 * test_parser.c - parser.c: request head, framing, chunked decoding, percent decoding.
 *
 * Every input is copied next to a PROT_NONE page before it is parsed (picohttpparser's
 * trick): right before one, so that reading buf[len] crashes, and right after one, so
 * that reading buf[-1] crashes. Valid inputs are parsed at every prefix length, chunked
 * bodies at every split point and byte by byte.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "http/http.h"
#include "tsupport.h"

#define S(lit) lit, sizeof(lit) - 1

/* ---- request head helpers ---------------------------------------------------------------- */

#define MAX_HDRS 64

static tachy__header_ref hdrs[MAX_HDRS];
static const tachy__limits test_limits = {8192, MAX_HDRS, 65536, 0};

static int parse_at(const char *buf, size_t n, tachy__request *req, const tachy__limits *lim,
                    tachy__parse_error *err) {
    memset(req, 0, sizeof *req);
    req->headers = hdrs;
    req->num_headers = MAX_HDRS;
    err->status = 0;
    err->reason = NULL;
    return tachy__parse_request(buf, n, req, lim, err);
}

/* Parses s placed before the back guard page. */
static int parse_end(const char *s, size_t n, tachy__request *req, const tachy__limits *lim,
                     tachy__parse_error *err) {
    return parse_at(ts_guard_at_end(s, n), n, req, lim, err);
}

/* Every strict prefix of s must be "incomplete", s itself must parse to `want` bytes,
 * wherever it sits next to a guard page. Returns the parse of s before the back guard. */
static const char *parse_every_prefix(const char *s, size_t n, size_t want,
                                      const tachy__limits *lim, tachy__request *req) {
    tachy__parse_error err;
    const char *buf;
    size_t k;

    for (k = 0; k < want; k++) {
        int rc = parse_at(ts_guard_at_end(s, k), k, req, lim, &err);
        if (rc != TACHY__PARSE_INCOMPLETE)
            fail_msg("prefix %zu of %zu: rc %d (%d %s)", k, want, rc, err.status,
                     err.reason ? err.reason : "");
        rc = parse_at(ts_guard_at_start(s, k), k, req, lim, &err);
        assert_int_equal(rc, TACHY__PARSE_INCOMPLETE);
    }
    assert_int_equal(parse_at(ts_guard_at_start(s, n), n, req, lim, &err), (int)want);
    buf = ts_guard_at_end(s, n);
    if (parse_at(buf, n, req, lim, &err) != (int)want)
        fail_msg("full request: %d %s", err.status, err.reason ? err.reason : "");
    return buf;
}

#define EVERY_PREFIX(lit, lim, req)                                                                \
    parse_every_prefix(lit, sizeof(lit) - 1, sizeof(lit) - 1, lim, req)

static void expect_error_at(const char *s, size_t n, const tachy__limits *lim, int status,
                            const char *reason, const char *file, int line) {
    tachy__request req;
    tachy__parse_error err;
    int rc = parse_end(s, n, &req, lim ? lim : &test_limits, &err);
    _assert_int_equal((uintmax_t)rc, (uintmax_t)TACHY__PARSE_ERROR, file, line);
    _assert_int_equal((uintmax_t)err.status, (uintmax_t)status, file, line);
    if (reason != NULL)
        _assert_string_equal(err.reason, reason, file, line);
    /* Same answer when the head is followed by more bytes or starts after a guard. */
    rc = parse_at(ts_guard_at_start(s, n), n, &req, lim ? lim : &test_limits, &err);
    _assert_int_equal((uintmax_t)rc, (uintmax_t)TACHY__PARSE_ERROR, file, line);
    _assert_int_equal((uintmax_t)err.status, (uintmax_t)status, file, line);
}

#define EXPECT_ERROR(lit, status, reason)                                                          \
    expect_error_at(lit, sizeof(lit) - 1, NULL, status, reason, __FILE__, __LINE__)
#define EXPECT_ERROR_LIM(lit, lim, status, reason)                                                 \
    expect_error_at(lit, sizeof(lit) - 1, lim, status, reason, __FILE__, __LINE__)

static void assert_view(tachy__str v, const char *want) {
    assert_int_equal(v.len, strlen(want));
    assert_memory_equal(v.base, want, v.len);
}

static int view_inside(tachy__str v, const char *buf, size_t n) {
    return v.base >= buf && v.base + v.len <= buf + n;
}

/* ---- request head: valid ------------------------------------------------------------------ */

static void test_simple_get_every_prefix(void **state) {
    static const char req_s[] = "GET /index.html?q=1&r=%20 HTTP/1.1\r\n"
                                "Host: example.com\r\n"
                                "User-Agent:  curl/8.0 \t\r\n"
                                "Accept: */*\r\n"
                                "\r\n";
    tachy__request req;
    const char *buf;
    size_t i;
    (void)state;

    buf = EVERY_PREFIX(req_s, &test_limits, &req);
    assert_view(req.method, "GET");
    assert_view(req.target, "/index.html?q=1&r=%20");
    assert_view(req.version, "HTTP/1.1");
    assert_int_equal(req.minor_version, 1);
    assert_int_equal(req.num_headers, 3);
    assert_view(req.headers[0].name, "Host");
    assert_view(req.headers[0].value, "example.com");
    assert_view(req.headers[1].name, "User-Agent");
    assert_view(req.headers[1].value, "curl/8.0"); /* OWS trimmed both ends */
    assert_view(req.headers[2].name, "Accept");
    assert_view(req.headers[2].value, "*/*");
    /* Zero copy: every view points into the parsed buffer. */
    assert_ptr_equal(req.method.base, buf);
    assert_true(view_inside(req.target, buf, sizeof req_s - 1));
    for (i = 0; i < req.num_headers; i++) {
        assert_true(view_inside(req.headers[i].name, buf, sizeof req_s - 1));
        assert_true(view_inside(req.headers[i].value, buf, sizeof req_s - 1));
    }
}

static void test_http10_no_headers_every_prefix(void **state) {
    tachy__request req;
    (void)state;
    EVERY_PREFIX("GET / HTTP/1.0\r\n\r\n", &test_limits, &req);
    assert_int_equal(req.minor_version, 0);
    assert_view(req.version, "HTTP/1.0");
    assert_int_equal(req.num_headers, 0);
}

static void test_bare_lf_every_prefix(void **state) {
    static const char s[] = "POST /a HTTP/1.1\nHost: a\nContent-Length: 3\r\n\n";
    tachy__request req;
    (void)state;
    EVERY_PREFIX(s, &test_limits, &req);
    assert_view(req.method, "POST");
    assert_int_equal(req.num_headers, 2);
    assert_view(req.headers[1].name, "Content-Length");
    assert_view(req.headers[1].value, "3");
}

static void test_obs_text_and_odd_values(void **state) {
    /* obs-text in the target and values, HTAB inside a value, an empty value, a token
     * method with unusual tchars, absolute-form target. */
    static const char s[] = "M-S.E_A!RCH http://h/\xc3\xa9t\xe9?x=\xff HTTP/1.1\r\n"
                            "X-Empty:\r\n"
                            "X-Blank: \t \r\n"
                            "X-Tab: a\tb\r\n"
                            "X-Latin: caf\xe9 \x80\xff\r\n"
                            "x!#$%&'*+-.^_`|~: v\r\n"
                            "\r\n";
    tachy__request req;
    (void)state;
    EVERY_PREFIX(s, &test_limits, &req);
    assert_view(req.method, "M-S.E_A!RCH");
    assert_view(req.target, "http://h/\xc3\xa9t\xe9?x=\xff");
    assert_int_equal(req.num_headers, 5);
    assert_view(req.headers[0].value, "");
    assert_view(req.headers[1].value, "");
    assert_view(req.headers[2].value, "a\tb");
    assert_view(req.headers[3].value, "caf\xe9 \x80\xff");
    assert_view(req.headers[4].name, "x!#$%&'*+-.^_`|~");
}

static void test_leading_empty_lines(void **state) {
    static const char eight[] = "\r\n\n\r\n\r\n\n\r\n\r\n\r\nGET / HTTP/1.1\r\n\r\n";
    tachy__request req;
    (void)state;
    /* RFC 9112 2.2: skipped, and counted in the bytes consumed. */
    EVERY_PREFIX(eight, &test_limits, &req);
    assert_view(req.method, "GET");
    EXPECT_ERROR("\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\nGET / HTTP/1.1\r\n\r\n", 400,
                 "Bad request line");
    EXPECT_ERROR("\r\n\rGET / HTTP/1.1\r\n\r\n", 400, NULL);
}

static void test_pipelined_bytes_not_consumed(void **state) {
    static const char two[] = "GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\n\r\n";
    tachy__request req;
    tachy__parse_error err;
    int first;
    (void)state;
    first = parse_end(S(two), &req, &test_limits, &err);
    assert_int_equal(first, (int)strlen("GET /a HTTP/1.1\r\nHost: x\r\n\r\n"));
    assert_view(req.target, "/a");
    /* The second request, parsed from where the first ended. */
    assert_int_equal(
        parse_end(two + first, sizeof two - 1 - (size_t)first, &req, &test_limits, &err),
        (int)(sizeof two - 1 - (size_t)first));
    assert_view(req.target, "/b");
    /* A body after the head is left alone too. */
    assert_int_equal(
        parse_end(S("POST / HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi"), &req, &test_limits, &err),
        (int)strlen("POST / HTTP/1.1\r\nContent-Length: 2\r\n\r\n"));
}

static void test_num_headers_kept_when_incomplete(void **state) {
    /* The same request struct can be passed again after -2: capacity is not clobbered. */
    static const char s[] = "GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\n";
    tachy__request req;
    tachy__parse_error err;
    (void)state;
    memset(&req, 0, sizeof req);
    req.headers = hdrs;
    req.num_headers = MAX_HDRS;
    assert_int_equal(tachy__parse_request(ts_guard_at_end(S(s)), sizeof s - 1, &req, &test_limits, &err),
                     TACHY__PARSE_INCOMPLETE);
    assert_int_equal(req.num_headers, MAX_HDRS);
    /* NULL limits mean the defaults. */
    assert_int_equal(
        tachy__parse_request(ts_guard_at_end(S("GET / HTTP/1.1\r\nA: 1\r\n\r\n")), 24, &req, NULL, &err),
        24);
    assert_int_equal(req.num_headers, 1);
}

/* ---- request head: errors ------------------------------------------------------------------ */

static void test_bad_request_line(void **state) {
    (void)state;
    EXPECT_ERROR("GET  / HTTP/1.1\r\n\r\n", 400, "Bad request line");
    EXPECT_ERROR("GET / HTTP/1.1 \r\n\r\n", 400, "Bad request line");
    EXPECT_ERROR("GET /  HTTP/1.1\r\n\r\n", 400, "Bad request line");
    EXPECT_ERROR(" GET / HTTP/1.1\r\n\r\n", 400, "Bad request line");
    EXPECT_ERROR("GET\t/ HTTP/1.1\r\n\r\n", 400, "Bad request line");
    EXPECT_ERROR("GET /\t HTTP/1.1\r\n\r\n", 400, "Bad request line");
    EXPECT_ERROR("G@T / HTTP/1.1\r\n\r\n", 400, "Bad request line");
    EXPECT_ERROR("GET /a\x01 HTTP/1.1\r\n\r\n", 400, "Bad request line");
    EXPECT_ERROR("GET /a\x7f HTTP/1.1\r\n\r\n", 400, "Bad request line");
    EXPECT_ERROR("GET /a\0b HTTP/1.1\r\n\r\n", 400, "Bad request line");
    EXPECT_ERROR("GET / http/1.1\r\n\r\n", 400, "Bad request line");
    EXPECT_ERROR("GET / HTTP/1.1x\r\n\r\n", 400, "Bad request line");
    EXPECT_ERROR("GET / HTTP/11\r\n\r\n", 400, "Bad request line");
    EXPECT_ERROR("GET / HTTP/1.10\r\n\r\n", 400, "Bad request line");
    EXPECT_ERROR("GET / HTTP/a.1\r\n\r\n", 400, "Bad request line");
    EXPECT_ERROR("GET /\r\n\r\n", 400, "Bad request line"); /* HTTP/0.9 */
    EXPECT_ERROR("GET\r\n\r\n", 400, "Bad request line");
    EXPECT_ERROR(" / HTTP/1.1\r\n\r\n", 400, "Bad request line");
    EXPECT_ERROR("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 400, "Bad request line");
    /* Errors are found before the line is complete. */
    EXPECT_ERROR("GET /x HTTX", 400, "Bad request line");
    EXPECT_ERROR("GE\x01", 400, "Bad request line");
}

static void test_bare_cr(void **state) {
    (void)state;
    EXPECT_ERROR("GET / HTTP/1.1\rX\r\n\r\n", 400, "Bare CR in request head");
    EXPECT_ERROR("GET / HTTP/1.1\r\nA: b\rc\r\n\r\n", 400, "Bare CR in request head");
    EXPECT_ERROR("GET / HTTP/1.1\r\nA: b\r\r\n\r\n", 400, "Bare CR in request head");
    EXPECT_ERROR("GET / HTTP/1.1\r\nA: b\r\n\rX", 400, "Bare CR in request head");
    EXPECT_ERROR("\rGET / HTTP/1.1\r\n\r\n", 400, "Bare CR in request head");
    EXPECT_ERROR("GET /a\rb HTTP/1.1\r\n\r\n", 400, NULL);
}

static void test_unsupported_version(void **state) {
    (void)state;
    EXPECT_ERROR("GET / HTTP/2.0\r\n\r\n", 505, "Unsupported HTTP version");
    EXPECT_ERROR("GET / HTTP/1.2\r\n\r\n", 505, "Unsupported HTTP version");
    EXPECT_ERROR("GET / HTTP/0.9\r\n\r\n", 505, "Unsupported HTTP version");
    EXPECT_ERROR("GET / HTTP/3.1\nHost: a\n\n", 505, "Unsupported HTTP version");
    /* Decided once the line is complete, not on the partial version. */
    {
        tachy__request req;
        tachy__parse_error err;
        assert_int_equal(parse_end(S("GET / HTTP/2.0"), &req, &test_limits, &err),
                         TACHY__PARSE_INCOMPLETE);
        assert_int_equal(parse_end(S("GET / HTTP/2.0\r"), &req, &test_limits, &err),
                         TACHY__PARSE_INCOMPLETE);
    }
}

static void test_request_line_too_long(void **state) {
    tachy__limits lim = {32, MAX_HDRS, 65536, 0};
    char line[128];
    tachy__request req;
    tachy__parse_error err;
    int n;
    (void)state;

    /* Exactly 32 bytes of request line: fine. */
    n = snprintf(line, sizeof line, "GET /%s HTTP/1.1\r\n\r\n", "xxxxxxxxxxxxxxxxxx");
    assert_int_equal(n - 4, 32);
    assert_int_equal(parse_end(line, (size_t)n, &req, &lim, &err), n);
    /* 33 bytes: 414, complete or not. */
    n = snprintf(line, sizeof line, "GET /%s HTTP/1.1\r\n\r\n", "xxxxxxxxxxxxxxxxxxx");
    assert_int_equal(n - 4, 33);
    expect_error_at(line, (size_t)n, &lim, 414, "Request-URI too long", __FILE__, __LINE__);
    expect_error_at(line, 33, &lim, 414, "Request-URI too long", __FILE__, __LINE__);
    /* 32 bytes and no CRLF yet (or only its CR): still incomplete. */
    assert_int_equal(parse_end(line, 32, &req, &lim, &err), TACHY__PARSE_INCOMPLETE);
    n = snprintf(line, sizeof line, "GET /%s HTTP/1.1\r", "xxxxxxxxxxxxxxxxxx");
    assert_int_equal(parse_end(line, (size_t)n, &req, &lim, &err), TACHY__PARSE_INCOMPLETE);
    /* A target that never ends: 414 as soon as the 33rd byte is in. */
    memset(line, 'a', sizeof line);
    memcpy(line, "GET /", 5);
    assert_int_equal(parse_end(line, 32, &req, &lim, &err), TACHY__PARSE_INCOMPLETE);
    expect_error_at(line, 33, &lim, 414, "Request-URI too long", __FILE__, __LINE__);
    expect_error_at(line, sizeof line, &lim, 414, "Request-URI too long", __FILE__, __LINE__);
    /* Leading empty lines do not count against the request line. */
    n = snprintf(line, sizeof line, "\r\n\r\nGET /%s HTTP/1.1\r\n\r\n", "xxxxxxxxxxxxxxxxxx");
    assert_int_equal(parse_end(line, (size_t)n, &req, &lim, &err), n);
}

static void test_bad_header_names(void **state) {
    (void)state;
    EXPECT_ERROR("GET / HTTP/1.1\r\nHost : a\r\n\r\n", 400,
                 "Whitespace between header name and colon");
    EXPECT_ERROR("GET / HTTP/1.1\r\nHost\t: a\r\n\r\n", 400,
                 "Whitespace between header name and colon");
    EXPECT_ERROR("GET / HTTP/1.1\r\nH@st: a\r\n\r\n", 400,
                 "Header key contains illegal characters");
    EXPECT_ERROR("GET / HTTP/1.1\r\nH\"st: a\r\n\r\n", 400,
                 "Header key contains illegal characters");
    EXPECT_ERROR("GET / HTTP/1.1\r\nH\xe9: a\r\n\r\n", 400,
                 "Header key contains illegal characters");
    EXPECT_ERROR("GET / HTTP/1.1\r\n: a\r\n\r\n", 400, "Header key contains illegal characters");
    EXPECT_ERROR("GET / HTTP/1.1\r\nA\0B: a\r\n\r\n", 400,
                 "Header key contains illegal characters");
    EXPECT_ERROR("GET / HTTP/1.1\r\nHosta\r\n\r\n", 400, "Header line without colon");
    EXPECT_ERROR("GET / HTTP/1.1\r\nHost\n\n", 400, "Header line without colon");
}

static void test_bad_header_values(void **state) {
    (void)state;
    EXPECT_ERROR("GET / HTTP/1.1\r\nA: x\0y\r\n\r\n", 400,
                 "Header value contains illegal characters");
    EXPECT_ERROR("GET / HTTP/1.1\r\nA: \0\r\n\r\n", 400,
                 "Header value contains illegal characters");
    EXPECT_ERROR("GET / HTTP/1.1\r\nA: x\x01y\r\n\r\n", 400,
                 "Header value contains illegal characters");
    EXPECT_ERROR("GET / HTTP/1.1\r\nA: x\x1fy\r\n\r\n", 400,
                 "Header value contains illegal characters");
    EXPECT_ERROR("GET / HTTP/1.1\r\nA: x\x7fy\r\n\r\n", 400,
                 "Header value contains illegal characters");
    EXPECT_ERROR("GET / HTTP/1.1\r\nA: x\x0by\r\n\r\n", 400,
                 "Header value contains illegal characters");
}

static void test_obs_fold(void **state) {
    (void)state;
    EXPECT_ERROR("GET / HTTP/1.1\r\nA: x\r\n y\r\n\r\n", 400, "Obsolete line folding in header");
    EXPECT_ERROR("GET / HTTP/1.1\r\nA: x\r\n\ty\r\n\r\n", 400, "Obsolete line folding in header");
    /* RFC 9112 2.2: whitespace between the request line and the first field. */
    EXPECT_ERROR("GET / HTTP/1.1\r\n Host: a\r\n\r\n", 400, "Obsolete line folding in header");
}

static void test_too_many_headers(void **state) {
    tachy__limits lim = {8192, 3, 65536, 0};
    tachy__request req;
    tachy__parse_error err;
    (void)state;
    EVERY_PREFIX("GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", &lim, &req);
    assert_int_equal(req.num_headers, 3);
    EXPECT_ERROR_LIM("GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n", &lim, 431,
                     "Too many request headers");
    /* Known as soon as the fourth line starts. */
    EXPECT_ERROR_LIM("GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\nD", &lim, 431,
                     "Too many request headers");
    assert_int_equal(parse_end(S("GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\n"), &req, &lim, &err),
                     TACHY__PARSE_INCOMPLETE);
    /* The caller's array is a bound too. */
    memset(&req, 0, sizeof req);
    req.headers = hdrs;
    req.num_headers = 1;
    assert_int_equal(tachy__parse_request(ts_guard_at_end(S("GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\n\r\n")), 30,
                                          &req, &test_limits, &err),
                     TACHY__PARSE_ERROR);
    assert_int_equal(err.status, 431);
}

static void test_header_bytes_limit(void **state) {
    /* "A: 12345\r\n" is 10 bytes; two of them are 20. */
    tachy__limits lim = {8192, MAX_HDRS, 20, 0};
    tachy__request req;
    (void)state;
    EVERY_PREFIX("GET / HTTP/1.1\r\nA: 12345\r\nB: 12345\r\n\r\n", &lim, &req);
    assert_int_equal(req.num_headers, 2);
    assert_view(req.headers[1].value, "12345");
    /* The same with bare LFs leaves room for two more bytes. */
    EVERY_PREFIX("GET / HTTP/1.1\r\nA: 12345\nB: 1234567\n\n", &lim, &req);
    EXPECT_ERROR_LIM("GET / HTTP/1.1\r\nA: 12345\r\nB: 123456\r\n\r\n", &lim, 431,
                     "Request header fields too large");
    /* Detected while the line is still incomplete. */
    EXPECT_ERROR_LIM("GET / HTTP/1.1\r\nA: 1234567890123456789012345", &lim, 431,
                     "Request header fields too large");
    EXPECT_ERROR_LIM("GET / HTTP/1.1\r\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", &lim, 431,
                     "Request header fields too large");
}

/* ---- request head: the JDK header rules (tachy__limits.jdk_rules) ------------------------- */

/* "GET /ok HTTP/1.1\r\n" + a + nv bytes 'v' + b + "\r\n" (the end of the head) into out. */
static size_t jdk_head(char *out, size_t cap, const char *a, size_t nv, const char *b) {
    size_t n = (size_t)snprintf(out, cap, "GET /ok HTTP/1.1\r\n%s", a);
    assert_true(n + nv + strlen(b) + 2 < cap);
    memset(out + n, 'v', nv);
    n += nv;
    n += (size_t)snprintf(out + n, cap - n, "%s\r\n", b);
    return n;
}

static int parse_jdk_end(const char *s, size_t n, const tachy__limits *lim, tachy__request *req,
                         tachy__parse_error *err) {
    return parse_end(s, n, req, lim, err);
}

#define EXPECT_CLOSED(buf, n, lim, why)                                                         \
    do {                                                                                           \
        tachy__request r_;                                                                         \
        tachy__parse_error e_;                                                                     \
        assert_int_equal(parse_jdk_end(buf, n, lim, &r_, &e_), TACHY__PARSE_ERROR);                \
        assert_int_equal(e_.status, TACHY__PARSE_CLOSE);                                           \
        assert_string_equal(e_.reason, why);                                                       \
    } while (0)

static const char JDK_SIZE[] = "Maximum header (sun.net.httpserver.maxReqHeaderSize) exceeded";
static const char JDK_COUNT[] =
    "Maximum number of request headers (sun.net.httpserver.maxReqHeaders) exceeded";

/* maxReqHeaderSize as JDK 25 counts it (parser.c): with 2000 and "GET /ok HTTP/1.1" (16
 * + 32 bytes), one line "X-a: " + 1914 bytes costs 33 + 1919 = 2000 and passes. */
static void test_jdk_header_size(void **state) {
    tachy__limits jdk = {8192, MAX_HDRS, 2000, 1}, strict = {8192, MAX_HDRS, 2000, 0};
    tachy__request req;
    tachy__parse_error err;
    static char b[4096];
    size_t n;
    (void)state;

    n = jdk_head(b, sizeof b, "X-a: ", 1914, "\r\n");
    parse_every_prefix(b, n, n, &jdk, &req);
    assert_int_equal(req.num_headers, 1);
    assert_int_equal(req.headers[0].value.len, 1914);
    n = jdk_head(b, sizeof b, "X-a: ", 1915, "\r\n");
    EXPECT_CLOSED(b, n, &jdk, JDK_SIZE);
    /* Strict counting (bytes with CRLFs, the request line apart): 1922 bytes are fine. */
    assert_int_equal(parse_end(b, n, &req, &strict, &err), (int)n);
    /* Known as soon as the 1916th value byte is there, the line unfinished. */
    n = jdk_head(b, sizeof b, "X-a: ", 1915, "");
    EXPECT_CLOSED(b, n - 2, &jdk, JDK_SIZE);
    n = jdk_head(b, sizeof b, "X-a: ", 1914, "");
    assert_int_equal(parse_end(b, n - 2, &req, &jdk, &err), TACHY__PARSE_INCOMPLETE);
    /* Whitespace counts: the space after the colon, before the value or after it. */
    n = jdk_head(b, sizeof b, "X-a:", 1915, "\r\n");
    assert_int_equal(parse_end(b, n, &req, &jdk, &err), (int)n);
    n = jdk_head(b, sizeof b, "X-a:   ", 1914, "\r\n");
    EXPECT_CLOSED(b, n, &jdk, JDK_SIZE);
    n = jdk_head(b, sizeof b, "X-a: ", 1914, "  \r\n");
    EXPECT_CLOSED(b, n, &jdk, JDK_SIZE);
    n = jdk_head(b, sizeof b, "X-a: ", 1912, "\t\r\n");
    assert_int_equal(parse_end(b, n, &req, &jdk, &err), (int)n);
    /* A further line costs 33 + its bytes ("B: ": 36 while it is read, 35 once trimmed). */
    n = jdk_head(b, sizeof b, "X-a: ", 1878, "\r\nB: \r\n");
    assert_int_equal(parse_end(b, n, &req, &jdk, &err), (int)n);
    assert_int_equal(req.num_headers, 2);
    n = jdk_head(b, sizeof b, "X-a: ", 1879, "\r\nB: \r\n");
    EXPECT_CLOSED(b, n, &jdk, JDK_SIZE);
    /* ... and the trimmed length is what the lines after it see: "B: " leaves 35 spent,
     * so "C:" (35) still fits after 48 + 1882 (a value of 1844). */
    n = jdk_head(b, sizeof b, "X-a: ", 1844, "\r\nB: \r\nC:\r\n");
    assert_int_equal(parse_end(b, n, &req, &jdk, &err), (int)n);
    n = jdk_head(b, sizeof b, "X-a: ", 1845, "\r\nB: \r\nC:\r\n");
    EXPECT_CLOSED(b, n, &jdk, JDK_SIZE);
    /* An obs-fold is one byte (the SP it becomes): 5 + 1912 + 1 + 1 = 1919. */
    n = jdk_head(b, sizeof b, "X-a: ", 1912, "\r\n 1\r\n");
    assert_int_equal(parse_end(b, n, &req, &jdk, &err), (int)n);
    assert_int_equal(req.num_headers, 1);
    n = jdk_head(b, sizeof b, "X-a: ", 1912, "\r\n 12\r\n");
    EXPECT_CLOSED(b, n, &jdk, JDK_SIZE);
    /* A continuation of whitespace only is trimmed away again: the next line has room. */
    n = jdk_head(b, sizeof b, "X-a: ", 1878, "\r\n  \r\nB: \r\n");
    assert_int_equal(parse_end(b, n, &req, &jdk, &err), (int)n);
    assert_int_equal(req.num_headers, 2);
    assert_int_equal(req.headers[0].value.len, 1878);

    /* Whitespace before the colon (or another bad name) is 400 on a line that fits, and
     * closed without a response on one over the limit: the JDK reads the whole line
     * before it looks at the name. "k :" + 1914 is 1917 bytes, 33 + 1917 = 1950. */
    n = jdk_head(b, sizeof b, "k :", 1914, "\r\n");
    assert_int_equal(parse_end(b, n, &req, &jdk, &err), TACHY__PARSE_ERROR);
    assert_int_equal(err.status, 400);
    n = jdk_head(b, sizeof b, "k :", 1917, "\r\n");
    EXPECT_CLOSED(b, n, &jdk, JDK_SIZE);
    n = jdk_head(b, sizeof b, "k@:", 1917, "\r\n");
    EXPECT_CLOSED(b, n, &jdk, JDK_SIZE);
    n = jdk_head(b, sizeof b, "k :", 1914, "");
    assert_int_equal(parse_end(b, n - 2, &req, &jdk, &err), TACHY__PARSE_INCOMPLETE);
    /* strict: 400 as soon as the space is seen */
    assert_int_equal(parse_end(b, 20, &req, &strict, &err), TACHY__PARSE_ERROR);
    assert_int_equal(err.status, 400);

    /* The request line: at most 2000 - 32 bytes, then closed (not 414). */
    memset(b, 'a', sizeof b);
    memcpy(b, "GET /", 5);
    memcpy(b + 1968 - 9, " HTTP/1.1\r\n\r\n", 13);
    assert_int_equal(parse_end(b, 1968 + 4, &req, &jdk, &err), 1968 + 4);
    memset(b, 'a', sizeof b);
    memcpy(b, "GET /", 5);
    memcpy(b + 1969 - 9, " HTTP/1.1\r\n\r\n", 13);
    EXPECT_CLOSED(b, 1969 + 4, &jdk, JDK_SIZE);
    EXPECT_CLOSED(b, 1969, &jdk, JDK_SIZE); /* before the line ends */
    /* ... unless max_request_line is lower: then it is tachy's 414. */
    tachy__limits short_line = {100, MAX_HDRS, 2000, 1};
    assert_int_equal(parse_end(b, 1969 + 4, &req, &short_line, &err), TACHY__PARSE_ERROR);
    assert_int_equal(err.status, 414);
    /* ... and the line's length is counted in the headers' budget: 1968 + 32 leaves none. */
    memcpy(b + 1968 - 9, " HTTP/1.1\r\nA:\r\n\r\n", 17);
    EXPECT_CLOSED(b, 1968 + 8, &jdk, JDK_SIZE);
}

/* maxReqHeaders as JDK 25 counts it: the distinct names on the lines before each line. */
static void test_jdk_distinct_names(void **state) {
    tachy__limits jdk = {8192, 5, 65536, 1}, strict = {8192, 5, 65536, 0};
    tachy__request req;
    tachy__parse_error err;
    static char b[64 * 1024];
    size_t n, i;
    (void)state;

#define HEAD(...) (n = (size_t)snprintf(b, sizeof b, __VA_ARGS__))
    HEAD("GET / HTTP/1.1\r\n"
         "X-same: 0\r\nX-same: 1\r\nX-same: 2\r\nX-same: 3\r\nX-same: 4\r\n"
         "X-same: 5\r\nX-same: 6\r\nX-same: 7\r\nX-same: 8\r\nX-same: 9\r\n\r\n");
    parse_every_prefix(b, n, n, &jdk, &req);
    assert_int_equal(req.num_headers, 10);
    assert_view(req.headers[9].value, "9");
    assert_int_equal(parse_end(b, n, &req, &strict, &err), TACHY__PARSE_ERROR);
    assert_int_equal(err.status, 431);
    /* Five names in five lines; four in seven; case does not make a name (Headers). */
    HEAD("GET / HTTP/1.1\r\nX-d0: 1\r\nX-d1: 1\r\nX-d2: 1\r\nX-d3: 1\r\nX-d4: 1\r\n\r\n");
    assert_int_equal(parse_end(b, n, &req, &jdk, &err), (int)n);
    HEAD("GET / HTTP/1.1\r\nX-d0: 1\r\nX-d1: 1\r\nX-d2: 1\r\nX-d3: 1\r\n"
         "x-D0: again\r\nX-D1: again\r\nx-d2: again\r\n\r\n");
    assert_int_equal(parse_end(b, n, &req, &jdk, &err), (int)n);
    assert_int_equal(req.num_headers, 7);
    /* A line after five names, even of a name seen, is refused: closed. */
    HEAD("GET / HTTP/1.1\r\nX-d0: 1\r\nX-d1: 1\r\nX-d2: 1\r\nX-d3: 1\r\nX-d4: 1\r\n"
         "x-d0: again\r\n\r\n");
    EXPECT_CLOSED(b, n, &jdk, JDK_COUNT);
    EXPECT_CLOSED(b, n - 2, &jdk, JDK_COUNT); /* the head not over yet */
    HEAD("GET / HTTP/1.1\r\nX-d0: 1\r\nX-d1: 1\r\nX-d2: 1\r\nX-d3: 1\r\nX-d4: 1\r\nX-d");
    assert_int_equal(parse_end(b, n, &req, &jdk, &err), TACHY__PARSE_INCOMPLETE);
    HEAD("GET / HTTP/1.1\r\nX-d0: 1\r\nX-d1: 1\r\nX-d2: 1\r\nX-d3: 1\r\nX-d4: 1\r\n"
         "X-d5: 1\r\n\r\n");
    EXPECT_CLOSED(b, n, &jdk, JDK_COUNT);
    /* The count wins over a 400 found later (the JDK reads every line first). */
    HEAD("GET / HTTP/1.1\r\nX-d0: 1\r\nX-d1: 1\r\nX-d2: 1\r\nX-d3: 1\r\nX-d4: 1\r\n"
         "X-d5: 1\r\nk : v\r\n\r\n");
    EXPECT_CLOSED(b, n, &jdk, JDK_COUNT);

    /* A full array asks for a bigger one instead of refusing. */
    HEAD("GET / HTTP/1.1\r\nA: 1\r\nA: 2\r\nA: 3\r\nA: 4\r\n\r\n");
    memset(&req, 0, sizeof req);
    req.headers = hdrs;
    req.num_headers = 3;
    assert_int_equal(tachy__parse_request(b, n, &req, &jdk, &err), TACHY__PARSE_MORE_HEADERS);
    req.num_headers = 4;
    assert_int_equal(tachy__parse_request(b, n, &req, &jdk, &err), (int)n);

    /* Many lines: the default 200 names (the hash table), and 1100 (the plain scan):
     * limit - 1 names, 1500 repeats of them, the limit's name last passes; one line more
     * (a repeat) does not. */
    static tachy__header_ref many[4000];
    size_t limits[] = {200, 1100};
    for (size_t k = 0; k < 2; k++) {
        tachy__limits big = {8192, limits[k], 1 << 20, 1};
        for (int extra = 0; extra < 2; extra++) {
            n = (size_t)snprintf(b, sizeof b, "GET / HTTP/1.1\r\n");
            for (i = 0; i < limits[k] - 1; i++)
                n += (size_t)snprintf(b + n, sizeof b - n, "N%zu: 1\r\n", i);
            for (i = 0; i < 1500 - 1; i++)
                n += (size_t)snprintf(b + n, sizeof b - n, "n%zu: 2\r\n", i % (limits[k] - 1));
            n += (size_t)snprintf(b + n, sizeof b - n, "Last: 3\r\n%s\r\n", extra ? "n0: 4\r\n" : "");
            assert_true(n < sizeof b);
            memset(&req, 0, sizeof req);
            req.headers = many;
            req.num_headers = 4000;
            int rc = tachy__parse_request(b, n, &req, &big, &err);
            if (extra) {
                assert_int_equal(rc, TACHY__PARSE_ERROR);
                assert_int_equal(err.status, TACHY__PARSE_CLOSE);
            } else {
                assert_int_equal(rc, (int)n);
                assert_int_equal(req.num_headers, limits[k] - 1 + 1500);
            }
        }
    }
#undef HEAD
}

/* Parses lit with the JDK rules in a writable copy, unfolds, checks header 0's value. */
static void expect_unfolded(const char *lit, const char *want, int unfold, const char *file,
                            int line) {
    tachy__limits jdk = {8192, MAX_HDRS, 65536, 1};
    tachy__request req;
    tachy__parse_error err;
    size_t n = strlen(lit);
    char *b = ts_guard_at_end(lit, n); /* writable, right before the back guard */
    int rc = parse_at(b, n, &req, &jdk, &err);
    if (rc != (int)n)
        _fail(file, line);
    _assert_int_equal((uintmax_t)req.unfold, (uintmax_t)unfold, file, line);
    if (req.unfold)
        tachy__parse_unfold(b, &req);
    _assert_int_equal(req.headers[0].value.len, strlen(want), file, line);
    _assert_memory_equal(req.headers[0].value.base, want, strlen(want), file, line);
}
#define EXPECT_UNFOLDED(lit, want, unfold) expect_unfolded(lit, want, unfold, __FILE__, __LINE__)

/* obs-fold with the JDK rules: accepted, each fold and HTAB one SP (RFC 9112 5.2). */
static void test_jdk_obs_fold(void **state) {
    tachy__limits jdk = {8192, MAX_HDRS, 65536, 1};
    tachy__request req;
    (void)state;
    EVERY_PREFIX("GET / HTTP/1.1\r\nX-a: 1\r\n 2\r\nB: 3\r\n\r\n", &jdk, &req);
    assert_int_equal(req.num_headers, 2);
    assert_view(req.headers[1].value, "3");
    EXPECT_UNFOLDED("GET / HTTP/1.1\r\nX-a: 1\r\n 2\r\nB: 3\r\n\r\n", "1 2", 1);
    EXPECT_UNFOLDED("GET / HTTP/1.1\r\nX-a: 1\r\n\t  2\r\n\r\n", "1   2", 1);
    EXPECT_UNFOLDED("GET / HTTP/1.1\r\nX-a: 1 \r\n 2\r\n\r\n", "1  2", 1);
    EXPECT_UNFOLDED("GET / HTTP/1.1\r\nX-a:\r\n 2\r\n\r\n", "2", 1);
    EXPECT_UNFOLDED("GET / HTTP/1.1\r\nX-a: 1\r\n \r\n\r\n", "1", 1);
    EXPECT_UNFOLDED("GET / HTTP/1.1\r\nX-a: 1\r\n 2\r\n 3\r\n\r\n", "1 2 3", 1);
    EXPECT_UNFOLDED("GET / HTTP/1.1\nX-a: 1\n 2\n\n", "1 2", 1);
    EXPECT_UNFOLDED("GET / HTTP/1.1\r\nX-a: a\tb\r\n\r\n", "a b", 1);
    EXPECT_UNFOLDED("GET / HTTP/1.1\r\nX-a: a b\r\n\r\n", "a b", 0);
    /* Still 400 with the JDK rules (the JDK's answer too): whitespace before the first
     * field or before the colon, bare CR, a CTL in a value. */
    EXPECT_ERROR_LIM("GET / HTTP/1.1\r\n X-a: 1\r\n\r\n", &jdk, 400, "Obsolete line folding in header");
    EXPECT_ERROR_LIM("GET / HTTP/1.1\r\nk :\r\n\r\n", &jdk, 400, NULL);
    EXPECT_ERROR_LIM("GET / HTTP/1.1\r\nX-a: 1\r 2\r\n\r\n", &jdk, 400, "Bare CR in request head");
    EXPECT_ERROR_LIM("GET / HTTP/1.1\r\nX-a: 1\r\n 2\x01\r\n\r\n", &jdk, 400,
                     "Header value contains illegal characters");
}

/* ---- framing --------------------------------------------------------------------------------- */

/* Parses a full head and runs tachy__parse_framing on it. */
static int framing_of(const char *s, size_t n, tachy__framing *f, tachy__parse_error *err) {
    tachy__request req;
    int rc = parse_end(s, n, &req, &test_limits, err);
    if (rc != (int)n)
        fail_msg("head did not parse: %d %d %s", rc, err->status, err->reason ? err->reason : "");
    return tachy__parse_framing(&req, f, err);
}

#define FRAMING(lit, f, err) framing_of(lit, sizeof(lit) - 1, f, err)

static void expect_framing_error_at(const char *s, size_t n, int status, const char *reason,
                                    const char *file, int line) {
    tachy__framing f;
    tachy__parse_error err = {0, NULL};
    _assert_int_equal((uintmax_t)framing_of(s, n, &f, &err), (uintmax_t)TACHY__PARSE_ERROR, file,
                      line);
    _assert_int_equal((uintmax_t)err.status, (uintmax_t)status, file, line);
    if (reason != NULL)
        _assert_string_equal(err.reason, reason, file, line);
}

#define EXPECT_FRAMING_ERROR(lit, status, reason)                                                  \
    expect_framing_error_at(lit, sizeof(lit) - 1, status, reason, __FILE__, __LINE__)

static int64_t content_length_of(const char *s, size_t n) {
    tachy__framing f;
    tachy__parse_error err;
    assert_int_equal(framing_of(s, n, &f, &err), 0);
    assert_int_equal(f.chunked, 0);
    return f.content_length;
}

#define CL_OF(lit) content_length_of(lit, sizeof(lit) - 1)

static void test_content_length(void **state) {
    tachy__framing f;
    tachy__parse_error err;
    (void)state;
    assert_int_equal(CL_OF("POST / HTTP/1.1\r\nContent-Length: 42\r\n\r\n"), 42);
    assert_int_equal(CL_OF("POST / HTTP/1.1\r\ncontent-LENGTH:0\r\n\r\n"), 0);
    assert_int_equal(CL_OF("POST / HTTP/1.1\r\nContent-Length: 007\r\n\r\n"), 7);
    /* Repeated lengths, even identical ones, are refused as the JDK refuses them. */
    EXPECT_FRAMING_ERROR("POST / HTTP/1.1\r\nContent-Length: 5, 5\r\n\r\n", 400,
                         "Conflicting or malformed headers detected");
    EXPECT_FRAMING_ERROR("POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n",
                         400, "Conflicting or malformed headers detected");
    assert_int_equal(CL_OF("POST / HTTP/1.1\r\nContent-Length: 9223372036854775807\r\n\r\n"),
                     INT64_MAX);
    assert_int_equal(CL_OF("GET / HTTP/1.1\r\nHost: a\r\n\r\n"), -1);

    EXPECT_FRAMING_ERROR("POST / HTTP/1.1\r\nContent-Length: 9223372036854775808\r\n\r\n", 400,
                         "Invalid Content-Length value");
    EXPECT_FRAMING_ERROR("POST / HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n", 400,
                         NULL);
    EXPECT_FRAMING_ERROR("POST / HTTP/1.1\r\nContent-Length: 5, 6\r\n\r\n", 400, NULL);
    EXPECT_FRAMING_ERROR("POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", 400,
                         NULL);
    EXPECT_FRAMING_ERROR("POST / HTTP/1.1\r\nContent-Length:\r\n\r\n", 400, NULL);
    EXPECT_FRAMING_ERROR("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400, NULL);
    EXPECT_FRAMING_ERROR("POST / HTTP/1.1\r\nContent-Length: +5\r\n\r\n", 400, NULL);
    EXPECT_FRAMING_ERROR("POST / HTTP/1.1\r\nContent-Length: 5a\r\n\r\n", 400, NULL);
    EXPECT_FRAMING_ERROR("POST / HTTP/1.1\r\nContent-Length: 0x5\r\n\r\n", 400, NULL);
    EXPECT_FRAMING_ERROR("POST / HTTP/1.1\r\nContent-Length: 5 5\r\n\r\n", 400, NULL);
    EXPECT_FRAMING_ERROR("POST / HTTP/1.1\r\nContent-Length: 5,,5\r\n\r\n", 400, NULL);
    EXPECT_FRAMING_ERROR("POST / HTTP/1.1\r\nContent-Length: 5,\r\n\r\n", 400, NULL);
    EXPECT_FRAMING_ERROR("POST / HTTP/1.1\r\nContent-Length: 1.0\r\n\r\n", 400, NULL);
    /* The flags are reset even on a request without any of the headers. */
    memset(&f, 0xff, sizeof f);
    assert_int_equal(FRAMING("GET / HTTP/1.1\r\n\r\n", &f, &err), 0);
    assert_int_equal(f.chunked + f.connection_close + f.connection_keep_alive + f.expect_continue +
                         f.upgrade,
                     0);
}

static void test_transfer_encoding(void **state) {
    tachy__framing f;
    tachy__parse_error err;
    (void)state;
    assert_int_equal(FRAMING("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", &f, &err), 0);
    assert_int_equal(f.chunked, 1);
    assert_int_equal(f.content_length, -1);
    assert_int_equal(FRAMING("POST / HTTP/1.1\r\ntransfer-encoding: CHUNKED\r\n\r\n", &f, &err), 0);
    assert_int_equal(f.chunked, 1);
    /* Empty list elements are ignored (RFC 9110 5.6.1). */
    assert_int_equal(FRAMING("POST / HTTP/1.1\r\nTransfer-Encoding: , chunked ,\r\n\r\n", &f, &err),
                     0);
    assert_int_equal(f.chunked, 1);

    EXPECT_FRAMING_ERROR("POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", 501,
                         "Unsupported Transfer-Encoding value");
    EXPECT_FRAMING_ERROR("POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501,
                         "Unsupported Transfer-Encoding value");
    EXPECT_FRAMING_ERROR("POST / HTTP/1.1\r\nTransfer-Encoding: deflate, chunked\r\n\r\n", 501,
                         NULL);
    EXPECT_FRAMING_ERROR("POST / HTTP/1.1\r\nTransfer-Encoding: compress\r\n\r\n", 501, NULL);
    EXPECT_FRAMING_ERROR("POST / HTTP/1.1\r\nTransfer-Encoding: identity\r\n\r\n", 501, NULL);
    EXPECT_FRAMING_ERROR("POST / HTTP/1.1\r\nTransfer-Encoding: x-foo;q=1\r\n\r\n", 501, NULL);
    EXPECT_FRAMING_ERROR(
        "POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n", 501,
        NULL);
    /* chunked must be final and appear once (RFC 9112 6.1, 6.3). */
    EXPECT_FRAMING_ERROR("POST / HTTP/1.1\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", 400,
                         "Malformed Transfer-Encoding value");
    EXPECT_FRAMING_ERROR("POST / HTTP/1.1\r\nTransfer-Encoding: chunked, chunked\r\n\r\n", 400,
                         NULL);
    EXPECT_FRAMING_ERROR(
        "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", 400,
        NULL);
    EXPECT_FRAMING_ERROR(
        "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n\r\n", 400,
        NULL);
    EXPECT_FRAMING_ERROR("POST / HTTP/1.1\r\nTransfer-Encoding:\r\n\r\n", 400, NULL);
    EXPECT_FRAMING_ERROR("POST / HTTP/1.1\r\nTransfer-Encoding: chunked;x=1\r\n\r\n", 400, NULL);
    EXPECT_FRAMING_ERROR("POST / HTTP/1.1\r\nTransfer-Encoding: chunked x\r\n\r\n", 400, NULL);
    EXPECT_FRAMING_ERROR("POST / HTTP/1.1\r\nTransfer-Encoding: \"chunked\"\r\n\r\n", 400, NULL);
    /* Both framings: refused (RFC 9112 6.1, the JDK's wording), in either order. */
    EXPECT_FRAMING_ERROR(
        "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n", 400,
        "Conflicting or malformed headers detected");
    EXPECT_FRAMING_ERROR(
        "POST / HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", 400,
        "Conflicting or malformed headers detected");
    /* HTTP/1.0 has no chunked framing (RFC 9112 6.1): 400. */
    EXPECT_FRAMING_ERROR("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400,
                         "Transfer-Encoding in an HTTP/1.0 request");
}

static void test_connection_and_expect(void **state) {
    tachy__framing f;
    tachy__parse_error err;
    (void)state;
    assert_int_equal(FRAMING("GET / HTTP/1.1\r\nConnection: close\r\n\r\n", &f, &err), 0);
    assert_true(f.connection_close && !f.connection_keep_alive && !f.upgrade);
    assert_int_equal(FRAMING("GET / HTTP/1.0\r\nconnection: Keep-Alive\r\n\r\n", &f, &err), 0);
    assert_true(!f.connection_close && f.connection_keep_alive && !f.upgrade);
    assert_int_equal(FRAMING("GET / HTTP/1.1\r\nConnection: keep-alive, UPGRADE\r\n"
                             "Upgrade: websocket\r\n\r\n",
                             &f, &err),
                     0);
    assert_true(!f.connection_close && f.connection_keep_alive && f.upgrade);
    assert_int_equal(
        FRAMING("GET / HTTP/1.1\r\nConnection: foo,\r\nConnection: , Close\r\n\r\n", &f, &err), 0);
    assert_true(f.connection_close && !f.connection_keep_alive && !f.upgrade);
    assert_int_equal(FRAMING("GET / HTTP/1.1\r\nConnection: closed, keep-alive2\r\n\r\n", &f, &err),
                     0);
    assert_true(!f.connection_close && !f.connection_keep_alive && !f.upgrade);

    assert_int_equal(FRAMING("PUT / HTTP/1.1\r\nExpect: 100-Continue\r\n"
                             "Content-Length: 3\r\n\r\n",
                             &f, &err),
                     0);
    assert_int_equal(f.expect_continue, 1);
    assert_int_equal(f.content_length, 3);
    assert_int_equal(FRAMING("PUT / HTTP/1.1\r\nExpect: 100-continue-x\r\n\r\n", &f, &err), 0);
    assert_int_equal(f.expect_continue, 0);
    assert_int_equal(FRAMING("PUT / HTTP/1.1\r\nExpect: foo, 100-continue\r\n\r\n", &f, &err), 0);
    assert_int_equal(f.expect_continue, 1);
    /* RFC 9110 10.1.1: ignored in HTTP/1.0. */
    assert_int_equal(FRAMING("PUT / HTTP/1.0\r\nExpect: 100-continue\r\n\r\n", &f, &err), 0);
    assert_int_equal(f.expect_continue, 0);
}

/* ---- chunked ------------------------------------------------------------------------------ */

struct chunk_run {
    int rc;     /* 1, 0 (input exhausted) or TACHY__PARSE_ERROR */
    size_t end; /* with rc 1: offset in the whole input just after the body */
    tachy__parse_error err;
    char body[4096];
    size_t body_len;
};

/* Feeds in[0,n) to a fresh decoder as pieces ending at the offsets in cuts[] (each piece
 * copied before the guard page), looping like a connection would. */
static void chunk_feed(const char *in, size_t n, const size_t *cuts, size_t ncuts,
                       const tachy__chunked *init, struct chunk_run *r) {
    tachy__chunked d;
    size_t piece_start = 0, c;

    if (init != NULL)
        d = *init;
    else
        tachy__chunked_init(&d, 0, 0);
    memset(r, 0, sizeof *r);
    for (c = 0; c <= ncuts; c++) {
        size_t piece_end = c < ncuts ? cuts[c] : n;
        size_t plen = piece_end - piece_start, off = 0;
        const char *p = ts_guard_at_end(in + piece_start, plen);

        while (off < plen || plen == 0) {
            size_t used = 99, doff = 99, dlen = 99;
            int rc = tachy__chunked_decode(&d, p + off, plen - off, &used, &doff, &dlen, &r->err);
            if (rc == TACHY__PARSE_ERROR) {
                r->rc = rc;
                return;
            }
            assert_true(used <= plen - off);
            if (dlen > 0) {
                assert_true(doff + dlen <= used);
                assert_true(r->body_len + dlen <= sizeof r->body);
                memcpy(r->body + r->body_len, p + off + doff, dlen);
                r->body_len += dlen;
            }
            off += used;
            if (rc == 1) {
                r->rc = 1;
                r->end = piece_start + off;
                return;
            }
            assert_int_equal(rc, 0);
            if (plen == 0)
                break;
            /* Progress is guaranteed: a 0 return with bytes left must have used some. */
            assert_true(used > 0);
        }
        piece_start = piece_end;
    }
    r->rc = 0;
}

static const char chunked_body[] = "4;name=value\r\n"
                                   "Wiki\r\n"
                                   "5 ; a ; b = \"q\\\"x;y\" ;c=tok\r\n"
                                   "pedia\r\n"
                                   "E\r\n"
                                   " in\r\n\r\nchunks.\r\n"
                                   "000a\t;\tz\r\n"
                                   "0123456789\r\n"
                                   "0;last=\"\xe9\"\r\n"
                                   "X-Trailer: v\r\n"
                                   "Y:\r\n"
                                   "Z: \t a\xff \r\n"
                                   "\r\n";
static const char chunked_expect[] = "Wikipedia in\r\n\r\nchunks.0123456789";
static const char pipelined[] = "GET /next HTTP/1.1\r\n\r\n";

static void check_run(const struct chunk_run *r, size_t body_end) {
    if (r->rc != 1)
        fail_msg("rc %d: %d %s", r->rc, r->err.status, r->err.reason ? r->err.reason : "");
    assert_int_equal(r->end, body_end);
    assert_int_equal(r->body_len, sizeof chunked_expect - 1);
    assert_memory_equal(r->body, chunked_expect, r->body_len);
}

static void test_chunked_every_split(void **state) {
    char in[512];
    size_t blen = sizeof chunked_body - 1, n, s, s2;
    struct chunk_run r;
    (void)state;

    memcpy(in, chunked_body, blen);
    memcpy(in + blen, pipelined, sizeof pipelined - 1);
    n = blen + sizeof pipelined - 1;

    /* Whole, then split once at every offset (pipelined bytes ride along). */
    chunk_feed(in, n, NULL, 0, NULL, &r);
    check_run(&r, blen);
    for (s = 0; s <= n; s++) {
        chunk_feed(in, n, &s, 1, NULL, &r);
        check_run(&r, blen);
    }
    /* Split twice at every pair of offsets inside the body. */
    for (s = 0; s <= blen; s++) {
        for (s2 = s; s2 <= blen; s2++) {
            size_t cuts[2] = {s, s2};
            chunk_feed(in, n, cuts, 2, NULL, &r);
            check_run(&r, blen);
        }
    }
    /* The body alone ends exactly where its input does. */
    chunk_feed(in, blen, NULL, 0, NULL, &r);
    check_run(&r, blen);
}

static void test_chunked_byte_by_byte(void **state) {
    char in[512];
    size_t cuts[512], blen = sizeof chunked_body - 1, n, i;
    struct chunk_run r;
    (void)state;

    memcpy(in, chunked_body, blen);
    memcpy(in + blen, pipelined, sizeof pipelined - 1);
    n = blen + sizeof pipelined - 1;
    for (i = 0; i + 1 < n; i++)
        cuts[i] = i + 1;
    chunk_feed(in, n, cuts, n - 1, NULL, &r);
    check_run(&r, blen);
}

static void test_chunked_done_and_error_are_sticky(void **state) {
    tachy__chunked d;
    tachy__parse_error err;
    size_t used, doff, dlen;
    const char *p;
    (void)state;

    memset(&d, 0, sizeof d); /* {0} is a valid fresh decoder */
    p = ts_guard_at_end(S("0\r\n\r\nGET"));
    assert_int_equal(tachy__chunked_decode(&d, p, 8, &used, &doff, &dlen, &err), 1);
    assert_int_equal(used, 5);
    assert_int_equal(dlen, 0);
    assert_int_equal(tachy__chunked_decode(&d, p + 5, 3, &used, &doff, &dlen, &err), 1);
    assert_int_equal(used, 0);

    tachy__chunked_init(&d, 0, 0);
    p = ts_guard_at_end(S("x\r\n"));
    assert_int_equal(tachy__chunked_decode(&d, p, 3, &used, &doff, &dlen, &err),
                     TACHY__PARSE_ERROR);
    assert_int_equal(err.status, 400);
    p = ts_guard_at_end(S("0\r\n\r\n"));
    assert_int_equal(tachy__chunked_decode(&d, p, 5, &used, &doff, &dlen, &err),
                     TACHY__PARSE_ERROR);
    /* No input is no progress, and no error. */
    tachy__chunked_init(&d, 0, 0);
    assert_int_equal(tachy__chunked_decode(&d, ts_guard_at_end("", 0), 0, &used, &doff, &dlen, &err), 0);
    assert_int_equal(used, 0);
    assert_int_equal(dlen, 0);
}

/* Decodes lit whole and byte by byte; both must fail with status. */
static void expect_chunk_error_at(const char *s, size_t n, const tachy__chunked *init, int status,
                                  const char *reason, const char *file, int line) {
    struct chunk_run r;
    size_t cuts[256], i;

    chunk_feed(s, n, NULL, 0, init, &r);
    _assert_int_equal((uintmax_t)r.rc, (uintmax_t)TACHY__PARSE_ERROR, file, line);
    _assert_int_equal((uintmax_t)r.err.status, (uintmax_t)status, file, line);
    if (reason != NULL)
        _assert_string_equal(r.err.reason, reason, file, line);
    assert_true(n <= 256);
    for (i = 0; i + 1 < n; i++)
        cuts[i] = i + 1;
    chunk_feed(s, n, cuts, n ? n - 1 : 0, init, &r);
    _assert_int_equal((uintmax_t)r.rc, (uintmax_t)TACHY__PARSE_ERROR, file, line);
    _assert_int_equal((uintmax_t)r.err.status, (uintmax_t)status, file, line);
}

#define EXPECT_CHUNK_ERROR(lit, init, status, reason)                                              \
    expect_chunk_error_at(lit, sizeof(lit) - 1, init, status, reason, __FILE__, __LINE__)

static void expect_chunk_ok_at(const char *s, size_t n, const tachy__chunked *init,
                               const char *body, const char *file, int line) {
    struct chunk_run r;
    chunk_feed(s, n, NULL, 0, init, &r);
    if (r.rc != 1)
        fail_msg("%s:%d: rc %d (%d %s)", file, line, r.rc, r.err.status,
                 r.err.reason ? r.err.reason : "");
    _assert_int_equal((uintmax_t)r.end, (uintmax_t)n, file, line);
    _assert_int_equal((uintmax_t)r.body_len, (uintmax_t)strlen(body), file, line);
    if (r.body_len > 0)
        assert_memory_equal(r.body, body, r.body_len);
}

#define EXPECT_CHUNK_OK(lit, init, body)                                                           \
    expect_chunk_ok_at(lit, sizeof(lit) - 1, init, body, __FILE__, __LINE__)

static void test_chunk_size(void **state) {
    tachy__chunked d;
    tachy__parse_error err;
    size_t used, doff, dlen;
    (void)state;

    EXPECT_CHUNK_OK("0000000000000000000000000000001\r\nA\r\n0\r\n\r\n", NULL, "A");
    EXPECT_CHUNK_OK("a\r\n0123456789\r\nA\r\n0123456789\r\n00\r\n\r\n", NULL,
                    "01234567890123456789");
    EXPECT_CHUNK_ERROR("\r\n", NULL, 400, "Bad chunk size");
    EXPECT_CHUNK_ERROR(";a\r\n", NULL, 400, "Bad chunk size");
    EXPECT_CHUNK_ERROR("g\r\n", NULL, 400, "Bad chunk size");
    EXPECT_CHUNK_ERROR("-1\r\n", NULL, 400, "Bad chunk size");
    EXPECT_CHUNK_ERROR("0x5\r\n", NULL, 400, "Bad chunk size");
    EXPECT_CHUNK_ERROR(" 5\r\n", NULL, 400, "Bad chunk size");
    EXPECT_CHUNK_ERROR("5g\r\n", NULL, 400, "Bad chunk size");
    /* Overflow: INT64_MAX is the largest size, anything above is 400. */
    EXPECT_CHUNK_ERROR("8000000000000000\r\n", NULL, 400, "Chunk size too large");
    EXPECT_CHUNK_ERROR("10000000000000000\r\n", NULL, 400, "Chunk size too large");
    EXPECT_CHUNK_ERROR("ffffffffffffffffffff\r\n", NULL, 400, "Chunk size too large");
    tachy__chunked_init(&d, 0, 0);
    assert_int_equal(tachy__chunked_decode(&d, ts_guard_at_end(S("7fffffffffffffff\r\nab")), 20, &used,
                                           &doff, &dlen, &err),
                     0);
    assert_int_equal(used, 20);
    assert_int_equal(doff, 18);
    assert_int_equal(dlen, 2);
    assert_true(d.remaining == (uint64_t)INT64_MAX - 2);
    tachy__chunked_init(&d, 0, 0);
    assert_int_equal(tachy__chunked_decode(&d, ts_guard_at_end(S("07FFFFFFFFFFFFFFF\r\n")), 19, &used, &doff,
                                           &dlen, &err),
                     0);
    assert_true(d.remaining == (uint64_t)INT64_MAX);
}

static void test_chunk_crlf_strict(void **state) {
    (void)state;
    /* Bare LF is refused everywhere in the chunked framing. */
    EXPECT_CHUNK_ERROR("5\nhello\r\n0\r\n\r\n", NULL, 400, NULL);
    EXPECT_CHUNK_ERROR("5\r\nhello\n0\r\n\r\n", NULL, 400, "Missing CRLF in chunked body");
    EXPECT_CHUNK_ERROR("5\r\nhello\n\n0\r\n\r\n", NULL, 400, "Missing CRLF in chunked body");
    EXPECT_CHUNK_ERROR("5\r\nhello\r\n0\n\r\n", NULL, 400, NULL);
    EXPECT_CHUNK_ERROR("5\r\nhello\r\n0\r\n\n", NULL, 400, "Missing CRLF in chunked body");
    EXPECT_CHUNK_ERROR("5\r\nhello\r\n0\r\nA: b\n\r\n", NULL, 400, NULL);
    /* Data longer or shorter than announced. */
    EXPECT_CHUNK_ERROR("5\r\nhello!\r\n0\r\n\r\n", NULL, 400, "Missing CRLF in chunked body");
    EXPECT_CHUNK_ERROR("5\r\nhell\r\n0\r\n\r\n", NULL, 400, "Missing CRLF in chunked body");
    EXPECT_CHUNK_ERROR("5\r\nhello\rX0\r\n\r\n", NULL, 400, "Missing CRLF in chunked body");
    EXPECT_CHUNK_ERROR("5\rX", NULL, 400, "Missing CRLF in chunked body");
    EXPECT_CHUNK_ERROR("0\r\n\rX", NULL, 400, "Missing CRLF in chunked body");
}

static void test_chunk_extensions(void **state) {
    tachy__chunked small;
    (void)state;
    EXPECT_CHUNK_OK("1;a\r\nx\r\n0\r\n\r\n", NULL, "x");
    EXPECT_CHUNK_OK("1 ;a=b;c = \"d\\\\e\"\t;f\r\nx\r\n0\r\n\r\n", NULL, "x");
    EXPECT_CHUNK_OK("1;a=\"\"\r\nx\r\n0;z=\"\\\"\"\r\n\r\n", NULL, "x");
    EXPECT_CHUNK_ERROR("1;\r\nx\r\n0\r\n\r\n", NULL, 400, "Bad chunk extension");
    EXPECT_CHUNK_ERROR("1;=b\r\nx\r\n0\r\n\r\n", NULL, 400, "Bad chunk extension");
    EXPECT_CHUNK_ERROR("1;a=\r\nx\r\n0\r\n\r\n", NULL, 400, "Bad chunk extension");
    EXPECT_CHUNK_ERROR("1;a b\r\nx\r\n0\r\n\r\n", NULL, 400, "Bad chunk extension");
    EXPECT_CHUNK_ERROR("1;a=b c\r\nx\r\n0\r\n\r\n", NULL, 400, "Bad chunk extension");
    EXPECT_CHUNK_ERROR("1;a=\"b\"c\r\nx\r\n0\r\n\r\n", NULL, 400, "Bad chunk extension");
    EXPECT_CHUNK_ERROR("1;a=\"b\r\nx\r\n0\r\n\r\n", NULL, 400, "Bad chunk extension");
    EXPECT_CHUNK_ERROR("1;a=\"b\x01\"\r\nx\r\n0\r\n\r\n", NULL, 400, "Bad chunk extension");
    EXPECT_CHUNK_ERROR("1;a@\r\nx\r\n0\r\n\r\n", NULL, 400, "Bad chunk extension");
    /* RFC 9112 7.1.1: BWS only before ';' and around '=', not before the CRLF. */
    EXPECT_CHUNK_ERROR("1 \r\nx\r\n0\r\n\r\n", NULL, 400, "Bad chunk extension");
    EXPECT_CHUNK_ERROR("1;a \r\nx\r\n0\r\n\r\n", NULL, 400, "Bad chunk extension");
    EXPECT_CHUNK_ERROR("1;a=b \r\nx\r\n0\r\n\r\n", NULL, 400, "Bad chunk extension");
    EXPECT_CHUNK_ERROR("1;a=b\n", NULL, 400, "Bad chunk extension");

    /* The size line, extensions included, is bounded by max_line (CRLF not counted). */
    tachy__chunked_init(&small, 8, 0);
    EXPECT_CHUNK_OK("1;abcdef\r\nx\r\n0\r\n\r\n", &small, "x");
    EXPECT_CHUNK_ERROR("1;abcdefg\r\nx\r\n0\r\n\r\n", &small, 400, "Chunk size line too long");
    EXPECT_CHUNK_ERROR("000000001\r\nx\r\n0\r\n\r\n", &small, 400, "Chunk size line too long");
    EXPECT_CHUNK_ERROR("1;abcdefghijklmnopqrstuvwxyz", &small, 400, "Chunk size line too long");
    /* The bound is per line, not cumulative. */
    EXPECT_CHUNK_OK("1;abcdef\r\nx\r\n1;abcdef\r\ny\r\n0;abcdef\r\n\r\n", &small, "xy");
}

static void test_chunk_trailers(void **state) {
    tachy__chunked small;
    (void)state;
    EXPECT_CHUNK_OK("0\r\nA: b\r\nC: d\r\n\r\n", NULL, "");
    EXPECT_CHUNK_ERROR("0\r\nA : b\r\n\r\n", NULL, 400, "Bad trailer field");
    EXPECT_CHUNK_ERROR("0\r\n A: b\r\n\r\n", NULL, 400, "Bad trailer field");
    EXPECT_CHUNK_ERROR("0\r\nA: b\r\n c\r\n\r\n", NULL, 400, "Bad trailer field");
    EXPECT_CHUNK_ERROR("0\r\n: b\r\n\r\n", NULL, 400, "Bad trailer field");
    EXPECT_CHUNK_ERROR("0\r\nA\r\n\r\n", NULL, 400, "Bad trailer field");
    EXPECT_CHUNK_ERROR("0\r\nA: b\0c\r\n\r\n", NULL, 400, "Bad trailer field");
    EXPECT_CHUNK_ERROR("0\r\nA: b\x7f\r\n\r\n", NULL, 400, "Bad trailer field");
    EXPECT_CHUNK_ERROR("0\r\nA: b\rc\r\n\r\n", NULL, 400, "Missing CRLF in chunked body");

    /* "AB: 1234\r\n" is 10 bytes. */
    tachy__chunked_init(&small, 0, 10);
    EXPECT_CHUNK_OK("0\r\nAB: 1234\r\n\r\n", &small, "");
    EXPECT_CHUNK_ERROR("0\r\nAB: 12345\r\n\r\n", &small, 431, "Request trailer fields too large");
    EXPECT_CHUNK_ERROR("0\r\nA: 1\r\nB: 2\r\n\r\n", &small, 431,
                       "Request trailer fields too large");
    EXPECT_CHUNK_ERROR("0\r\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", &small, 431,
                       "Request trailer fields too large");
}

/* ---- percent decoding ---------------------------------------------------------------------- */

static void expect_decode(const char *in, const char *want, size_t want_len) {
    char out[256];
    ssize_t n = tachy__percent_decode(ts_guard_at_end(in, strlen(in)), strlen(in), out, sizeof out);
    assert_int_equal(n, (ssize_t)want_len);
    assert_memory_equal(out, want, want_len);
    assert_int_equal(out[n], '\0');
}

static void test_percent_decode(void **state) {
    char out[8], inplace[32];
    ssize_t n;
    (void)state;
    expect_decode("/a%20b", "/a b", 4);
    expect_decode("/%41%42%43", "/ABC", 4);
    expect_decode("/%e2%82%AC", "/\xe2\x82\xac", 4); /* UTF-8 bytes stay bytes */
    expect_decode("/a+b", "/a+b", 4);                /* '+' is not a space in a path */
    expect_decode("/%2F", "//", 2);
    expect_decode("/%2", "/%2", 3); /* invalid escapes are kept */
    expect_decode("/%", "/%", 2);
    expect_decode("/%zz%4g%g4", "/%zz%4g%g4", 10);
    expect_decode("/%%41", "/%A", 3);
    expect_decode("/%00x", "/\0x", 3); /* NUL decoded: use the length */
    expect_decode("/\xe9", "/\xe9", 2);
    expect_decode("", "", 0);

    /* Capacity counts the NUL. */
    assert_int_equal(tachy__percent_decode("abcdefg", 7, out, 8), 7);
    assert_string_equal(out, "abcdefg");
    assert_int_equal(tachy__percent_decode("abcdefgh", 8, out, 8), -1);
    assert_int_equal(tachy__percent_decode("%41%42%43%44%45%46%47", 21, out, 8), 7);
    assert_string_equal(out, "ABCDEFG");
    assert_int_equal(tachy__percent_decode("%41%42%43%44%45%46%47%48", 24, out, 8), -1);
    assert_int_equal(tachy__percent_decode("", 0, out, 1), 0);
    assert_int_equal(tachy__percent_decode("", 0, out, 0), -1);

    /* In place. */
    strcpy(inplace, "/%7Euser/a%20b%zz");
    n = tachy__percent_decode(inplace, strlen(inplace), inplace, sizeof inplace);
    assert_int_equal(n, 13);
    assert_string_equal(inplace, "/~user/a b%zz");
}

/* ---- robustness ---------------------------------------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t rng(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Mutated heads and bodies, next to guard pages: any over-read crashes, any result is in
 * the contract's range. */
static void test_mutations(void **state) {
    static const char head[] = "POST /p?q HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n"
                               "Content-Length: 12\r\nConnection: close\r\n\r\n";
    static const char alphabet[] = "\r\n \t:;,=\"\\0aF\x7f\x80\xff";
    char m[sizeof chunked_body + 16];
    tachy__limits lim = {64, 8, 256, 0};
    int iter;
    (void)state;

    for (iter = 0; iter < 20000; iter++) {
        size_t n = sizeof head - 1, k, muts = 1 + rng() % 4;
        tachy__request req;
        tachy__parse_error err;
        tachy__framing f;
        int rc;

        memcpy(m, head, n);
        for (k = 0; k < muts; k++) {
            size_t at = (size_t)(rng() % n);
            m[at] = (rng() & 1) ? (char)rng() : alphabet[rng() % (sizeof alphabet - 1)];
        }
        n = (size_t)(rng() % (n + 1));
        rc = parse_end(m, n, &req, &lim, &err);
        assert_true(rc == TACHY__PARSE_INCOMPLETE || rc == TACHY__PARSE_ERROR ||
                    (rc > 0 && (size_t)rc <= n));
        if (rc == TACHY__PARSE_ERROR)
            assert_true(err.status == 400 || err.status == 414 || err.status == 431 ||
                        err.status == 505);
        if (rc > 0) {
            rc = tachy__parse_framing(&req, &f, &err);
            assert_true(rc == 0 ||
                        (rc == TACHY__PARSE_ERROR && (err.status == 400 || err.status == 501)));
        }
        rc = parse_at(ts_guard_at_start(m, n), n, &req, &lim, &err);
        assert_true(rc >= TACHY__PARSE_INCOMPLETE);
    }

    for (iter = 0; iter < 20000; iter++) {
        size_t n = sizeof chunked_body - 1, k, muts = 1 + rng() % 3, cut;
        struct chunk_run r;
        memcpy(m, chunked_body, n);
        for (k = 0; k < muts; k++) {
            size_t at = (size_t)(rng() % n);
            m[at] = (rng() & 1) ? (char)rng() : alphabet[rng() % (sizeof alphabet - 1)];
        }
        cut = (size_t)(rng() % (n + 1));
        chunk_feed(m, n, &cut, 1, NULL, &r);
        assert_true(r.rc == 0 || r.rc == 1 || r.rc == TACHY__PARSE_ERROR);
        if (r.rc == 1)
            assert_true(r.end <= n);
        if (r.rc == TACHY__PARSE_ERROR)
            assert_true(r.err.status == 400 || r.err.status == 431);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_simple_get_every_prefix),
        cmocka_unit_test(test_http10_no_headers_every_prefix),
        cmocka_unit_test(test_bare_lf_every_prefix),
        cmocka_unit_test(test_obs_text_and_odd_values),
        cmocka_unit_test(test_leading_empty_lines),
        cmocka_unit_test(test_pipelined_bytes_not_consumed),
        cmocka_unit_test(test_num_headers_kept_when_incomplete),
        cmocka_unit_test(test_bad_request_line),
        cmocka_unit_test(test_bare_cr),
        cmocka_unit_test(test_unsupported_version),
        cmocka_unit_test(test_request_line_too_long),
        cmocka_unit_test(test_bad_header_names),
        cmocka_unit_test(test_bad_header_values),
        cmocka_unit_test(test_obs_fold),
        cmocka_unit_test(test_too_many_headers),
        cmocka_unit_test(test_header_bytes_limit),
        cmocka_unit_test(test_content_length),
        cmocka_unit_test(test_transfer_encoding),
        cmocka_unit_test(test_connection_and_expect),
        cmocka_unit_test(test_chunked_every_split),
        cmocka_unit_test(test_chunked_byte_by_byte),
        cmocka_unit_test(test_chunked_done_and_error_are_sticky),
        cmocka_unit_test(test_chunk_size),
        cmocka_unit_test(test_chunk_crlf_strict),
        cmocka_unit_test(test_chunk_extensions),
        cmocka_unit_test(test_chunk_trailers),
        cmocka_unit_test(test_jdk_header_size),
        cmocka_unit_test(test_jdk_distinct_names),
        cmocka_unit_test(test_jdk_obs_fold),
        cmocka_unit_test(test_percent_decode),
        cmocka_unit_test(test_mutations),
    };
    return cmocka_run_group_tests(tests, ts_guard_setup, ts_guard_teardown);
}
