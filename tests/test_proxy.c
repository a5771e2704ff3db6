/*
 * test_proxy.c - the PROXY protocol (edge/proxy.c, edge/listener.c; HAProxy's
 * doc/proxy-protocol.txt): the codec on every well-formed, malformed, truncated and
 * oversized form, each input placed right before and right after an unmapped page so an
 * over-read crashes; the trusted-network lists (base/addr.c); then real servers on
 * 127.0.0.1 with tachy_options.proxy_protocol, talked to with real bytes: v1 and v2
 * headers, split across segments, LOCAL, missing, malformed, from an untrusted source,
 * and a header sent to a server that does not expect one. (TLS after a PROXY header is in
 * test_tls.c, which has the TLS client.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "edge/edge.h"
#include "tsupport.h"

#define S(lit) lit, sizeof(lit) - 1

/* ---- guard pages ------------------------------------------------------------------------ */



/* Parses s[0,n) placed before the back guard and after the front one; both must agree. */
static int parse(const void *s, size_t n, tachy__proxy *h, const char **why) {
    int a = tachy__proxy_parse(ts_guard_at_end(s, n), n, h, why);
    tachy__proxy h2;
    const char *why2;
    int b = tachy__proxy_parse(ts_guard_at_start(s, n), n, &h2, &why2);
    assert_int_equal(a, b);
    return a;
}

/* Every strict prefix of s is incomplete; s itself parses to want bytes (and s followed by
 * more bytes too: the header's length does not depend on what follows). */
static void every_prefix(const void *s, size_t n, size_t want, tachy__proxy *h) {
    const char *why;
    for (size_t k = 0; k < want; k++) {
        int rc = parse(s, k, h, &why);
        if (rc != TACHY__PROXY_INCOMPLETE)
            fail_msg("prefix %zu of %zu: %d (%s)", k, want, rc, why ? why : "");
    }
    char more[8192];
    assert_true(n + 16 <= sizeof more);
    memcpy(more, s, n);
    memcpy(more + n, "GET / HTTP/1.1\r\n", 16);
    assert_int_equal(parse(more, n + 16, h, &why), (int)want);
    int rc = parse(s, n, h, &why);
    if (rc != (int)want)
        fail_msg("whole header: %d (%s)", rc, why ? why : "");
}

static void expect_error_at(const void *s, size_t n, const char *reason, const char *file,
                            int line) {
    tachy__proxy h;
    const char *why = NULL;
    int rc = parse(s, n, &h, &why);
    _assert_int_equal((uintmax_t)rc, (uintmax_t)TACHY__PROXY_ERROR, file, line);
    _assert_true(why != NULL, "reason", file, line);
    if (reason && !strstr(why, reason))
        _fail(file, line);
}
#define expect_error(s, n, reason) expect_error_at(s, n, reason, __FILE__, __LINE__)
#define EXPECT_ERROR(lit, reason) expect_error_at(lit, sizeof(lit) - 1, reason, __FILE__, __LINE__)

static void addr_is(const tachy__proxy_addr *a, const char *host, int port) {
    char buf[64];
    int p = -1;
    assert_int_equal(tachy__addr_format(&a->sa,
                                        a->sa.sa_family == AF_INET ? sizeof a->in : sizeof a->in6,
                                        buf, sizeof buf, &p),
                     0);
    assert_string_equal(buf, host);
    assert_int_equal(p, port);
}

/* ---- v1 ---------------------------------------------------------------------------------- */

static void v1_tcp4(void **state) {
    (void)state;
    tachy__proxy h;
    static const char s[] = "PROXY TCP4 192.0.2.1 198.51.100.7 56324 443\r\n";
    every_prefix(S(s), sizeof s - 1, &h);
    assert_int_equal(h.version, 1);
    assert_int_equal(h.local, 0);
    assert_int_equal(h.family, AF_INET);
    assert_int_equal(h.addr_len, sizeof(struct sockaddr_in));
    addr_is(&h.src, "192.0.2.1", 56324);
    addr_is(&h.dst, "198.51.100.7", 443);
}

static void v1_tcp6(void **state) {
    (void)state;
    tachy__proxy h;
    static const char s[] = "PROXY TCP6 2001:db8::1 ::ffff:192.0.2.9 0 65535\r\n";
    every_prefix(S(s), sizeof s - 1, &h);
    assert_int_equal(h.family, AF_INET6);
    assert_int_equal(h.addr_len, sizeof(struct sockaddr_in6));
    addr_is(&h.src, "2001:db8::1", 0);
    addr_is(&h.dst, "::ffff:192.0.2.9", 65535);
}

static void v1_unknown(void **state) {
    (void)state;
    tachy__proxy h;
    every_prefix(S("PROXY UNKNOWN\r\n"), 15, &h);
    assert_int_equal(h.local, 1);
    assert_int_equal(h.addr_len, 0);
    /* "the receiver must ignore anything presented before the CRLF" */
    static const char s[] = "PROXY UNKNOWN ffff::1 ffff::2 1 2\r\n";
    every_prefix(S(s), sizeof s - 1, &h);
    assert_int_equal(h.local, 1);
}

/* The longest v1 line is 107 bytes, CRLF included: the worst case of the spec. */
static void v1_longest(void **state) {
    (void)state;
    static const char s[] = "PROXY TCP6 ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff "
                            "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff 65535 65535\r\n";
    assert_int_equal(sizeof s - 1, 104);
    tachy__proxy h;
    every_prefix(S(s), sizeof s - 1, &h);
    /* UNKNOWN padded to exactly 107 bytes passes; to 108 it does not. */
    char line[200] = "PROXY UNKNOWN ";
    size_t n = strlen(line);
    memset(line + n, 'x', 105 - n);
    memcpy(line + 105, "\r\n", 2);
    every_prefix(line, 107, 107, &h);
    memset(line + n, 'x', 106 - n);
    memcpy(line + 106, "\r\n", 2);
    expect_error(line, 108, "107");
    /* and no CRLF at all is an error as soon as 107 bytes are there, not later */
    memset(line, 'x', sizeof line);
    memcpy(line, "PROXY UNKNOWN ", 14);
    tachy__proxy h2;
    const char *why;
    assert_int_equal(parse(line, 105, &h2, &why), TACHY__PROXY_INCOMPLETE);
    expect_error(line, 106, "107"); /* its CR at 106 would end it at 108 */
    expect_error(line, sizeof line, "107");
}

static void v1_malformed(void **state) {
    (void)state;
    EXPECT_ERROR("PROXY TCP5 1.2.3.4 5.6.7.8 1 2\r\n", "protocol");
    EXPECT_ERROR("PROXY tcp4 1.2.3.4 5.6.7.8 1 2\r\n", "protocol");
    EXPECT_ERROR("PROXY UNKNOWNX\r\n", "protocol");
    EXPECT_ERROR("PROXY  TCP4 1.2.3.4 5.6.7.8 1 2\r\n", "protocol");
    EXPECT_ERROR("PROXY TCP4  1.2.3.4 5.6.7.8 1 2\r\n", "source address");
    EXPECT_ERROR("PROXY TCP4 1.2.3.4  5.6.7.8 1 2\r\n", "destination address");
    EXPECT_ERROR("PROXY TCP4 1.2.3.4 5.6.7.8 1  2\r\n", "destination port");
    EXPECT_ERROR("PROXY TCP4 1.2.3.4 5.6.7.8 1 2 \r\n", "destination port");
    EXPECT_ERROR("PROXY TCP4 1.2.3.4 5.6.7.8 1\r\n", "source port");
    EXPECT_ERROR("PROXY TCP4 1.2.3.4 5.6.7.8\r\n", "destination address");
    EXPECT_ERROR("PROXY TCP4\r\n", "protocol");
    EXPECT_ERROR("PROXY \r\n", "protocol");
    EXPECT_ERROR("PROXY TCP4 1.2.3.4 5.6.7.8 1 2 3\r\n", "destination port");
    /* addresses of the wrong family, or not addresses */
    EXPECT_ERROR("PROXY TCP4 ::1 5.6.7.8 1 2\r\n", "source address");
    EXPECT_ERROR("PROXY TCP6 1.2.3.4 ::1 1 2\r\n", "source address");
    EXPECT_ERROR("PROXY TCP4 1.2.3.4 ::1 1 2\r\n", "destination address");
    EXPECT_ERROR("PROXY TCP4 1.2.3.256 5.6.7.8 1 2\r\n", "source address");
    EXPECT_ERROR("PROXY TCP4 01.2.3.4 5.6.7.8 1 2\r\n", "source address");
    EXPECT_ERROR("PROXY TCP4 localhost 5.6.7.8 1 2\r\n", "source address");
    EXPECT_ERROR("PROXY TCP6 fe80::1%eth0 ::1 1 2\r\n", "source address");
    /* ports */
    EXPECT_ERROR("PROXY TCP4 1.2.3.4 5.6.7.8 65536 2\r\n", "source port");
    EXPECT_ERROR("PROXY TCP4 1.2.3.4 5.6.7.8 080 2\r\n", "source port");
    EXPECT_ERROR("PROXY TCP4 1.2.3.4 5.6.7.8 -1 2\r\n", "source port");
    EXPECT_ERROR("PROXY TCP4 1.2.3.4 5.6.7.8 1 +2\r\n", "destination port");
    EXPECT_ERROR("PROXY TCP4 1.2.3.4 5.6.7.8 1 999999\r\n", "destination port");
    /* line ends and bytes */
    EXPECT_ERROR("PROXY TCP4 1.2.3.4 5.6.7.8 1 2\n", "printable");
    EXPECT_ERROR("PROXY TCP4 1.2.3.4 5.6.7.8 1 2\r\r\n", "CR without LF");
    EXPECT_ERROR("PROXY TCP4 1.2.3.4\t5.6.7.8 1 2\r\n", "printable");
    EXPECT_ERROR("PROXY TCP4 1.2.3.4 5.6.7.8 1 2\0\r\n", "printable");
    EXPECT_ERROR("PROXY TCP4 1.2.3.4 5.6.7.8 1 \x80\r\n", "printable");
    /* the prefix */
    EXPECT_ERROR("PROXY\r\n", "not a PROXY");
    EXPECT_ERROR("proxy TCP4 1.2.3.4 5.6.7.8 1 2\r\n", "not a PROXY");
    EXPECT_ERROR("PROXYTCP4 1.2.3.4 5.6.7.8 1 2\r\n", "not a PROXY");
}

/* What is not a header is refused at its first wrong byte, without waiting for more. */
static void not_a_header(void **state) {
    (void)state;
    EXPECT_ERROR("G", "not a PROXY");
    EXPECT_ERROR("GET / HTTP/1.1\r\n", "not a PROXY");
    EXPECT_ERROR("PROXX", "not a PROXY");
    EXPECT_ERROR("\x16\x03\x01\x02\x00", "not a PROXY"); /* a TLS ClientHello */
    EXPECT_ERROR("\r\n\r\n\0\r\nQUIX", "not a PROXY");
    EXPECT_ERROR("\r\nGET", "not a PROXY");
    tachy__proxy h;
    const char *why;
    assert_int_equal(parse("", 0, &h, &why), TACHY__PROXY_INCOMPLETE);
    assert_int_equal(parse("PRO", 3, &h, &why), TACHY__PROXY_INCOMPLETE);
    assert_int_equal(parse("\r\n\r\n\0", 5, &h, &why), TACHY__PROXY_INCOMPLETE);
}

/* ---- v2 ---------------------------------------------------------------------------------- */

/* Builds a v2 header: sig, ver_cmd, fam, the body (len bytes). Returns its length. */
static size_t v2(uint8_t *out, uint8_t ver_cmd, uint8_t fam, const void *body, size_t len) {
    memcpy(out, TACHY__PROXY_V2_SIG, 12);
    out[12] = ver_cmd;
    out[13] = fam;
    out[14] = (uint8_t)(len >> 8);
    out[15] = (uint8_t)len;
    if (body)
        memcpy(out + 16, body, len);
    return 16 + len;
}

static const uint8_t ip4_block[12] = {192, 0, 2, 1, 203, 0, 113, 5, 0xdb, 0xf4, 0x01, 0xbb};

static void v2_tcp4(void **state) {
    (void)state;
    uint8_t b[64];
    size_t n = v2(b, 0x21, 0x11, ip4_block, sizeof ip4_block);
    tachy__proxy h;
    every_prefix(b, n, n, &h);
    assert_int_equal(h.version, 2);
    assert_int_equal(h.local, 0);
    assert_int_equal(h.family, AF_INET);
    addr_is(&h.src, "192.0.2.1", 0xdbf4);
    addr_is(&h.dst, "203.0.113.5", 443);
    assert_null(h.tlv);
    assert_int_equal(h.ntlv, 0);
}

static void v2_tcp6(void **state) {
    (void)state;
    uint8_t body[36] = {0};
    inet_pton(AF_INET6, "2001:db8::42", body);
    inet_pton(AF_INET6, "2001:db8::1", body + 16);
    body[32] = 0x30; body[33] = 0x39; /* 12345 */
    body[34] = 0x00; body[35] = 0x50; /* 80 */
    uint8_t b[64];
    size_t n = v2(b, 0x21, 0x21, body, sizeof body);
    tachy__proxy h;
    every_prefix(b, n, n, &h);
    assert_int_equal(h.family, AF_INET6);
    addr_is(&h.src, "2001:db8::42", 12345);
    addr_is(&h.dst, "2001:db8::1", 80);
}

/* LOCAL (a health check from the balancer itself): the body, whatever it holds, is skipped
 * and the socket's addresses are kept. */
static void v2_local(void **state) {
    (void)state;
    uint8_t b[64];
    tachy__proxy h;
    size_t n = v2(b, 0x20, 0x00, NULL, 0);
    every_prefix(b, n, n, &h);
    assert_int_equal(h.local, 1);
    assert_int_equal(h.addr_len, 0);
    n = v2(b, 0x20, 0x11, ip4_block, 5); /* a short "address block": ignored */
    every_prefix(b, n, n, &h);
    assert_int_equal(h.local, 1);
    assert_int_equal(h.addr_len, 0);
}

static void v2_unspec_and_unix(void **state) {
    (void)state;
    uint8_t b[300], body[216];
    tachy__proxy h;
    size_t n = v2(b, 0x21, 0x00, "\x01\x00\x01z", 4); /* UNSPEC with one TLV */
    every_prefix(b, n, n, &h);
    assert_int_equal(h.local, 1);
    assert_int_equal(h.family, AF_UNSPEC);
    assert_int_equal(h.ntlv, 1);
    memset(body, 0, sizeof body);
    memcpy(body, "/run/client.sock", 16);
    memcpy(body + 108, "/run/server.sock", 16);
    n = v2(b, 0x21, 0x31, body, sizeof body);
    every_prefix(b, n, n, &h);
    assert_int_equal(h.local, 1);
    assert_int_equal(h.family, AF_UNIX);
    assert_memory_equal(h.unix_src, "/run/client.sock", 16);
    assert_memory_equal(h.unix_dst, "/run/server.sock", 16);
}

/* TLVs are walked, never interpreted, and must tile the rest of the header exactly. */
static void v2_tlvs(void **state) {
    (void)state;
    uint8_t body[64], b[128];
    memcpy(body, ip4_block, 12);
    size_t k = 12;
    memcpy(body + k, "\x01\x00\x02h2", 5); k += 5;        /* ALPN */
    memcpy(body + k, "\x04\x00\x00", 3); k += 3;          /* NOOP, empty */
    memcpy(body + k, "\xe0\x00\x03xyz", 6); k += 6;       /* custom */
    size_t n = v2(b, 0x21, 0x11, body, k);
    tachy__proxy h;
    every_prefix(b, n, n, &h);
    assert_int_equal(h.ntlv, 3);
    assert_int_equal(h.tlv_len, k - 12);
    assert_ptr_not_equal(h.tlv, NULL);
    /* a TLV header cut short, a value longer than what is left */
    for (size_t cut = 1; cut <= 2; cut++) {
        n = v2(b, 0x21, 0x11, body, 12 + cut);
        expect_error(b, n, "truncated TLV");
    }
    n = v2(b, 0x21, 0x11, body, 12 + 4); /* ALPN says 2 bytes, 1 there */
    expect_error(b, n, "TLV longer");
    memcpy(body + 12, "\x01\xff\xff", 3);
    n = v2(b, 0x21, 0x11, body, k);
    expect_error(b, n, "TLV longer");
}

static void v2_malformed(void **state) {
    (void)state;
    uint8_t b[128];
    size_t n;
    n = v2(b, 0x11, 0x11, ip4_block, 12);
    expect_error(b, 13, "version"); /* refused once the byte is there */
    expect_error(b, n, "version");
    n = v2(b, 0x31, 0x11, ip4_block, 12);
    expect_error(b, n, "version");
    n = v2(b, 0x22, 0x11, ip4_block, 12);
    expect_error(b, n, "command");
    n = v2(b, 0x2f, 0x11, ip4_block, 12);
    expect_error(b, 13, "command");
    static const uint8_t bad_fam[] = {0x01, 0x10, 0x13, 0x20, 0x41, 0xff, 0x03};
    for (size_t i = 0; i < sizeof bad_fam; i++) {
        n = v2(b, 0x21, bad_fam[i], ip4_block, 12);
        expect_error(b, 14, "unknown address family");
        expect_error(b, n, "unknown address family");
    }
    static const uint8_t dgram[] = {0x12, 0x22, 0x32};
    for (size_t i = 0; i < sizeof dgram; i++) {
        n = v2(b, 0x21, dgram[i], ip4_block, 12);
        expect_error(b, n, "DGRAM");
    }
    /* lengths shorter than the family's address block, refused before the body arrives */
    n = v2(b, 0x21, 0x11, ip4_block, 11);
    expect_error(b, 16, "address block");
    n = v2(b, 0x21, 0x21, ip4_block, 12);
    expect_error(b, 16, "address block");
    n = v2(b, 0x21, 0x31, ip4_block, 12);
    expect_error(b, n, "address block");
    /* a wrong signature byte anywhere */
    for (size_t i = 0; i < 12; i++) {
        n = v2(b, 0x21, 0x11, ip4_block, 12);
        b[i] ^= 0x40;
        expect_error(b, n, "not a PROXY");
        expect_error(b, i + 1, "not a PROXY");
    }
}

/* An oversized length is not an error for the codec (up to 16 + 65535): it waits. The
 * listener caps the header at TACHY__PROXY_MAX_HEADER (socket test below). */
static void v2_long(void **state) {
    (void)state;
    size_t body = 65535;
    uint8_t *b = malloc(16 + body);
    assert_non_null(b);
    memcpy(b + 16, ip4_block, 12);
    size_t pos = 12;
    while (pos < body) { /* NOOP TLVs up to the end */
        size_t v = TACHY__MIN(body - pos - 3, (size_t)60000);
        b[16 + pos] = 0x04;
        b[16 + pos + 1] = (uint8_t)(v >> 8);
        b[16 + pos + 2] = (uint8_t)v;
        memset(b + 16 + pos + 3, 0, v);
        pos += 3 + v;
        if (body - pos < 3 && body - pos > 0) { /* cannot end on 1-2 bytes: shift */
            pos -= 3 + v;
            v -= 3;
            b[16 + pos + 1] = (uint8_t)(v >> 8);
            b[16 + pos + 2] = (uint8_t)v;
            pos += 3 + v;
        }
    }
    v2(b, 0x21, 0x11, NULL, body);
    tachy__proxy h;
    const char *why;
    assert_int_equal(parse(b, 16 + body, &h, &why), (int)(16 + body));
    assert_int_equal(parse(b, 16 + body - 1, &h, &why), TACHY__PROXY_INCOMPLETE);
    assert_int_equal(parse(b, 4096, &h, &why), TACHY__PROXY_INCOMPLETE);
    free(b);
}

/* ---- trusted networks (base/addr.c) ------------------------------------------------------- */

static int in(const char *list, const char *addr) {
    tachy__cidr nets[8];
    int n = tachy__cidr_parse(list, nets, 8);
    assert_true(n >= 0);
    union {
        struct sockaddr sa;
        struct sockaddr_in in;
        struct sockaddr_in6 in6;
    } a;
    memset(&a, 0, sizeof a);
    if (inet_pton(AF_INET, addr, &a.in.sin_addr) == 1)
        a.in.sin_family = AF_INET;
    else if (inet_pton(AF_INET6, addr, &a.in6.sin6_addr) == 1)
        a.in6.sin6_family = AF_INET6;
    else
        fail_msg("bad test address %s", addr);
    return tachy__cidr_match(nets, (size_t)n, &a.sa);
}

static void trusted_networks(void **state) {
    (void)state;
    assert_true(in("127.0.0.1", "127.0.0.1"));
    assert_false(in("127.0.0.1", "127.0.0.2"));
    assert_true(in("10.0.0.0/8", "10.255.1.2"));
    assert_false(in("10.0.0.0/8", "11.0.0.1"));
    assert_true(in("10.1.2.3/8", "10.9.9.9")); /* host bits cleared */
    assert_true(in("192.168.1.128/25", "192.168.1.200"));
    assert_false(in("192.168.1.128/25", "192.168.1.127"));
    assert_true(in("0.0.0.0/0", "8.8.8.8"));
    assert_false(in("0.0.0.0/0", "::1"));
    assert_true(in("::/0", "::1"));
    assert_true(in("fd00::/8", "fd12:3456::1"));
    assert_false(in("fd00::/8", "fe80::1"));
    assert_true(in("2001:db8::/33", "2001:db8:7fff::1"));
    assert_false(in("2001:db8::/33", "2001:db8:8000::1"));
    assert_true(in("127.0.0.1, ::1", "::1"));
    assert_true(in(" 10.0.0.1 ,\t127.0.0.0/8 ", "127.1.2.3"));
    assert_true(in("127.0.0.0/8", "::ffff:127.0.0.5")); /* dual-stack listener */
    assert_false(in("::1", "127.0.0.1"));
    tachy__cidr nets[4];
    assert_int_equal(tachy__cidr_parse("", nets, 4), 0);
    assert_int_equal(tachy__cidr_parse(NULL, nets, 4), 0);
    assert_int_equal(tachy__cidr_parse(" , ", nets, 4), 0);
    const char *bad[] = {"10.0.0.0/33", "::/129", "10.0.0.0/", "10.0.0.0/-1", "10.0.0.0/08",
                         "localhost", "10.0.0", "1.2.3.4/8/8", "1.2.3.4;5.6.7.8", "/8"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        if (tachy__cidr_parse(bad[i], nets, 4) != TACHY_EINVAL)
            fail_msg("accepted %s", bad[i]);
    assert_int_equal(tachy__cidr_parse("1.1.1.1 2.2.2.2 3.3.3.3 4.4.4.4 5.5.5.5", nets, 4),
                     TACHY_ETOOBIG);
    /* the option: a malformed list fails the server's creation */
    tachy_options o;
    tachy_options_init(&o);
    o.proxy_trusted = "10.0.0.0/99";
    tachy_server *srv = NULL;
    assert_int_equal(tachy_server_create_unbound(&srv, &o), TACHY_EINVAL);
    assert_null(srv);
    char list[64];
    strcpy(list, "127.0.0.0/8");
    o.proxy_trusted = list;
    assert_int_equal(tachy_server_create_unbound(&srv, &o), 0);
    strcpy(list, "garbage"); /* the server keeps its own copy */
    assert_string_equal(tachy_server_options(srv)->proxy_trusted, "127.0.0.0/8");
    tachy_server_destroy(srv);
}

/* ---- real servers -------------------------------------------------------------------------- */

/* Answers "remote=<host>:<port> peer=<host>:<port> local=<host>". */
static int addrs(tachy_exchange *ex, void *user) {
    (void)user;
    char r[64], p[64], l[64], body[256];
    int rp = 0, pp = 0;
    if (tachy_exchange_remote_address(ex, r, sizeof r, &rp) < 0 ||
        tachy_exchange_peer_address(ex, p, sizeof p, &pp) < 0 ||
        tachy_exchange_local_address(ex, l, sizeof l, NULL) < 0)
        return -1;
    int n = snprintf(body, sizeof body, "remote=%s:%d peer=%s:%d local=%s", r, rp, p, pp, l);
    tachy_exchange_send_response_headers(ex, 200, n);
    tachy_exchange_write(ex, body, (size_t)n);
    return tachy_exchange_close(ex);
}

static tachy_server *proxy_server(const char *trusted, int *port) {
    tachy_options o;
    tachy_options_init(&o);
    o.proxy_protocol = 1;
    o.proxy_trusted = trusted;
    return ts_serve(&o, addrs, NULL, port);
}

static const char GET[] = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";

/* The body of the response to GET after header on a new connection; fails unless 200. */
static char *via(int port, const void *header, size_t len) {
    int fd = ts_connect(port);
    ts_send(fd, header, (ssize_t)len);
    ts_response r;
    ts_roundtrip(fd, GET, -1, &r, 0);
    assert_int_equal(r.status, 200);
    char *body = strdup(r.body);
    ts_response_free(&r);
    /* keep-alive: the second request on the connection has the same client */
    ts_roundtrip(fd, GET, -1, &r, 0);
    assert_string_equal(r.body, body);
    ts_response_free(&r);
    ts_close(fd);
    return body;
}

static void socket_v1_and_v2(void **state) {
    (void)state;
    int port;
    tachy_server *srv = proxy_server(NULL, &port);
    static const char v1[] = "PROXY TCP4 192.0.2.1 127.0.0.1 56324 8080\r\n";
    char *body = via(port, S(v1));
    assert_non_null(strstr(body, "remote=192.0.2.1:56324 peer=127.0.0.1:"));
    assert_non_null(strstr(body, "local=127.0.0.1"));
    free(body);
    static const char v1_6[] = "PROXY TCP6 2001:db8::7 ::1 443 80\r\n";
    body = via(port, S(v1_6));
    assert_non_null(strstr(body, "remote=2001:db8::7:443 peer=127.0.0.1:"));
    free(body);
    uint8_t b[64];
    size_t n = v2(b, 0x21, 0x11, ip4_block, 12);
    body = via(port, b, n);
    assert_non_null(strstr(body, "remote=192.0.2.1:56308 peer=127.0.0.1:"));
    free(body);
    /* LOCAL and UNKNOWN: the socket's own peer */
    n = v2(b, 0x20, 0x00, NULL, 0);
    body = via(port, b, n);
    assert_non_null(strstr(body, "remote=127.0.0.1:"));
    free(body);
    body = via(port, S("PROXY UNKNOWN\r\n"));
    assert_non_null(strstr(body, "remote=127.0.0.1:"));
    free(body);
    /* the header and the request in one segment */
    char both[256];
    int len = snprintf(both, sizeof both, "%s%s", v1, GET);
    int fd = ts_connect(port);
    ts_response r;
    ts_roundtrip(fd, both, len, &r, 0);
    assert_int_equal(r.status, 200);
    assert_non_null(strstr(r.body, "remote=192.0.2.1:56324"));
    ts_response_free(&r);
    ts_close(fd);
    ts_stop(srv);
}

/* The header split across reads: byte by byte, with pauses that make each byte its own
 * segment (and its own event). */
static void socket_split_header(void **state) {
    (void)state;
    int port;
    tachy_server *srv = proxy_server(NULL, &port);
    uint8_t b[64];
    size_t n = v2(b, 0x21, 0x11, ip4_block, 12);
    static const char v1[] = "PROXY TCP4 198.51.100.9 127.0.0.1 1000 80\r\n";
    const void *hdr[2] = {b, v1};
    size_t len[2] = {n, sizeof v1 - 1};
    const char *want[2] = {"remote=192.0.2.1:56308", "remote=198.51.100.9:1000"};
    for (int i = 0; i < 2; i++) {
        int fd = ts_connect(port);
        for (size_t k = 0; k < len[i]; k++) {
            ts_send(fd, (const char *)hdr[i] + k, 1);
            ts_sleep_ms(k % 8 == 0 ? 5 : 0);
        }
        ts_sleep_ms(20);
        ts_response r;
        ts_roundtrip(fd, GET, -1, &r, 0);
        assert_int_equal(r.status, 200);
        assert_non_null(strstr(r.body, want[i]));
        ts_response_free(&r);
        ts_close(fd);
    }
    ts_stop(srv);
}

/* Sends what the server takes: it may close (and reset) while bytes are still coming. */
static void send_any(int fd, const void *p, size_t n) {
    if (send(fd, p, n, MSG_NOSIGNAL) < 0)
        return;
}

/* Without a header, with a bad one, with one too long: closed without a byte. */
static void socket_missing_or_bad(void **state) {
    (void)state;
    int port;
    tachy_server *srv = proxy_server(NULL, &port);
    int fd = ts_connect(port);
    ts_send(fd, GET, -1);
    ts_expect_silent_close(fd, 5000);
    fd = ts_connect(port);
    send_any(fd, S("PROXY TCP4 1.2.3.4 5.6.7.8 1 99999\r\n"));
    send_any(fd, GET, sizeof GET - 1);
    ts_expect_silent_close(fd, 5000);
    /* a v2 header with 5000 bytes of TLVs: over the listener's 4096 */
    size_t body = 5000;
    uint8_t *b = calloc(1, 16 + body);
    memcpy(b + 16, ip4_block, 12);
    b[16 + 12] = 0x04;
    b[16 + 13] = (uint8_t)((body - 15) >> 8);
    b[16 + 14] = (uint8_t)(body - 15);
    v2(b, 0x21, 0x11, NULL, body);
    fd = ts_connect(port);
    send_any(fd, b, 16 + body);
    ts_expect_silent_close(fd, 5000);
    free(b);
    ts_stop(srv);
}

static void socket_second_header_is_400(void **state) {
    (void)state;
    int port;
    tachy_server *srv = proxy_server(NULL, &port);
    int fd = ts_connect(port);
    ts_response r;
    ts_send(fd, S("PROXY TCP4 1.2.3.4 5.6.7.8 1 2\r\n"));
    ts_roundtrip(fd, "PROXY TCP4 1.2.3.4 5.6.7.8 1 2\r\n\r\n", -1, &r, 0);
    assert_int_equal(r.status, 400);
    ts_response_free(&r);
    ts_close(fd);
    ts_stop(srv);
}

/* Trusted networks: 127.0.0.0/8 lets the test in; a list without it closes the
 * connection before reading (the header is never looked at). */
static void socket_trusted(void **state) {
    (void)state;
    int port;
    tachy_server *srv = proxy_server("10.0.0.0/8, 127.0.0.0/8", &port);
    static const char v1[] = "PROXY TCP4 192.0.2.1 127.0.0.1 56324 8080\r\n";
    char *body = via(port, S(v1));
    assert_non_null(strstr(body, "remote=192.0.2.1:56324"));
    free(body);
    ts_stop(srv);
    srv = proxy_server("10.0.0.0/8 ::1", &port);
    int fd = ts_connect(port);
    send_any(fd, S(v1));
    send_any(fd, GET, sizeof GET - 1);
    ts_expect_silent_close(fd, 5000);
    /* also when the untrusted peer sends nothing: closed at once, not at the deadline */
    fd = ts_connect(port);
    long t0 = ts_now_ms();
    send_any(fd, "P", 1);
    ts_expect_silent_close(fd, 5000);
    assert_true(ts_now_ms() - t0 < 4000);
    ts_stop(srv);
}

/* Off (the default): a PROXY header is not HTTP. v1 is a 400 (a request line with a bad
 * version); v2 starts with two empty lines (skipped, RFC 9112 2.2) then a NUL: 400. */
static void socket_off_rejects_header(void **state) {
    (void)state;
    int port;
    tachy_server *srv = ts_serve(NULL, addrs, NULL, &port);
    char req[256];
    snprintf(req, sizeof req, "PROXY TCP4 192.0.2.1 127.0.0.1 56324 8080\r\n%s", GET);
    assert_int_equal(ts_status(port, req), 400);
    uint8_t b[128];
    size_t n = v2(b, 0x21, 0x11, ip4_block, 12);
    memcpy(b + n, GET, sizeof GET - 1);
    int fd = ts_connect(port);
    ts_response r;
    ts_roundtrip(fd, b, (ssize_t)(n + sizeof GET - 1), &r, 0);
    assert_int_equal(r.status, 400);
    ts_response_free(&r);
    ts_close(fd);
    /* and the peer address is the socket's */
    fd = ts_connect(port);
    ts_roundtrip(fd, GET, -1, &r, 0);
    assert_non_null(strstr(r.body, "remote=127.0.0.1:"));
    assert_non_null(strstr(r.body, "peer=127.0.0.1:"));
    ts_response_free(&r);
    ts_close(fd);
    ts_stop(srv);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(v1_tcp4),
        cmocka_unit_test(v1_tcp6),
        cmocka_unit_test(v1_unknown),
        cmocka_unit_test(v1_longest),
        cmocka_unit_test(v1_malformed),
        cmocka_unit_test(not_a_header),
        cmocka_unit_test(v2_tcp4),
        cmocka_unit_test(v2_tcp6),
        cmocka_unit_test(v2_local),
        cmocka_unit_test(v2_unspec_and_unix),
        cmocka_unit_test(v2_tlvs),
        cmocka_unit_test(v2_malformed),
        cmocka_unit_test(v2_long),
        cmocka_unit_test(trusted_networks),
        cmocka_unit_test(socket_v1_and_v2),
        cmocka_unit_test(socket_split_header),
        cmocka_unit_test(socket_missing_or_bad),
        cmocka_unit_test(socket_second_header_is_400),
        cmocka_unit_test(socket_trusted),
        cmocka_unit_test(socket_off_rejects_header),
    };
    return cmocka_run_group_tests(tests, ts_guard_setup, ts_guard_teardown);
}
