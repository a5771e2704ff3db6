/*
 * test_h2.c - HTTP/2 (native/src/h2/): a raw HTTP/2 client of its own over real 127.0.0.1
 * sockets (and one TLS connection with ALPN "h2"). Requests are encoded here (HPACK literal
 * fields without Huffman, RFC 7541 6.2.2); responses are read frame by frame, their header
 * blocks walked with the client's header table size at 0 (SETTINGS_HEADER_TABLE_SIZE = 0,
 * so the server can index nothing: :status is a static index or a literal, whose digits
 * may be Huffman-coded - decoded here, RFC 7541 Appendix B).
 *
 * Covers: GET/HEAD/204/304/streamed/404/POST echo by prior knowledge and by Upgrade: h2c,
 * slow streams beside fast ones, flow control both ways, the limits (concurrent streams,
 * CONTINUATION flood, Rapid Reset, header list size, PING/SETTINGS floods, window
 * overflow, smuggling fields), deferred and held exchanges, drain, the cost of idle
 * connections (no thread; memory beside HTTP/1.1's).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <tachy/tachy.h>

#include "h2/h2.h"
#include "tsupport.h"

/* ---- frames ------------------------------------------------------------------------------ */

enum { F_DATA = 0, F_HEADERS = 1, F_RST = 3, F_SETTINGS = 4, F_PING = 6, F_GOAWAY = 7,
       F_WINDOW = 8, F_CONT = 9 };
enum { FL_END_STREAM = 1, FL_ACK = 1, FL_END_HEADERS = 4 };
enum { E_NO = 0, E_PROTOCOL = 1, E_INTERNAL = 2, E_FLOW = 3, E_REFUSED = 7, E_CANCEL = 8,
       E_CALM = 0xb };

#define MAXS 1200 /* stream slots: ids 1, 3 ... 2 * MAXS - 1 */

typedef struct st {
    int status;        /* the last final :status, 0 = none yet */
    int interim;       /* a 1xx came */
    int headers;       /* HEADERS blocks */
    int data_frames;
    uint8_t *body;
    size_t len, cap;
    int end;           /* END_STREAM came */
    int rst;           /* RST_STREAM code, -1 = none */
    int64_t swin;      /* our send window on it */
} st;

typedef struct hc {
    int fd;
    SSL *ssl;
    uint8_t *buf;
    size_t len, cap;
    int auto_wu;       /* give back the windows as DATA comes */
    int eof;
    int goaway;        /* GOAWAY code, -1 = none */
    int32_t goaway_last;
    int pings_acked;
    int settings_seen; /* the server's SETTINGS (non-ack) */
    int64_t conn_swin; /* our send window on the connection */
    int64_t init_swin; /* the server's SETTINGS_INITIAL_WINDOW_SIZE */
    uint32_t max_streams;
    int hblock_sid;    /* a header block in CONTINUATIONs: its stream */
    uint8_t *hb;
    size_t hbl;
    st s[MAXS];
} hc;

static st *S(hc *c, int32_t sid) {
    assert_true(sid >= 1 && (sid & 1) && sid / 2 < MAXS);
    return &c->s[sid / 2];
}

static void put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}
static uint32_t get32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Writes all of p; 0, or -1 (the server closed). */
static int raw_send(hc *c, const void *p, size_t n) {
    const uint8_t *b = p;
    while (n) {
        ssize_t k;
        if (c->ssl) {
            /* (the socket is non-blocking under TLS: wait for room and retry) */
            size_t w = 0;
            if (SSL_write_ex(c->ssl, b, n, &w) != 1) {
                int e = SSL_get_error(c->ssl, 0);
                ERR_clear_error();
                if (e == SSL_ERROR_WANT_WRITE || e == SSL_ERROR_WANT_READ) {
                    struct pollfd pw = {c->fd, e == SSL_ERROR_WANT_WRITE ? POLLOUT : POLLIN, 0};
                    if (poll(&pw, 1, 5000) <= 0)
                        return -1;
                    continue;
                }
                return -1;
            }
            k = (ssize_t)w;
        } else {
            k = send(c->fd, b, n, MSG_NOSIGNAL);
        }
        if (k <= 0) {
            if (k < 0 && errno == EINTR)
                continue;
            return -1;
        }
        b += k;
        n -= (size_t)k;
    }
    return 0;
}

static int frame_try(hc *c, int type, int flags, int32_t sid, const void *payload, size_t len) {
    uint8_t *f = malloc(9 + len + 1);
    f[0] = (uint8_t)(len >> 16), f[1] = (uint8_t)(len >> 8), f[2] = (uint8_t)len;
    f[3] = (uint8_t)type, f[4] = (uint8_t)flags;
    put32(f + 5, (uint32_t)sid & 0x7fffffff);
    if (len)
        memcpy(f + 9, payload, len);
    int rc = raw_send(c, f, 9 + len);
    free(f);
    return rc;
}

static void frame(hc *c, int type, int flags, int32_t sid, const void *payload, size_t len) {
    assert_int_equal(frame_try(c, type, flags, sid, payload, len), 0);
}

static void window_update(hc *c, int32_t sid, uint32_t inc) {
    uint8_t p[4];
    put32(p, inc);
    frame(c, F_WINDOW, 0, sid, p, 4);
}

static void rst(hc *c, int32_t sid, uint32_t code) {
    uint8_t p[4];
    put32(p, code);
    frame(c, F_RST, 0, sid, p, 4);
}

/* Reads more bytes within timeout_ms: 1, 0 on timeout, -1 at EOF. */
static int fill_once(hc *c, int timeout_ms);

static int fill(hc *c, int timeout_ms) {
    long t0 = ts_now_ms();
    for (;;) {
        int r = fill_once(c, timeout_ms);
        long left = timeout_ms - (ts_now_ms() - t0);
        if (r != 0 || !c->ssl || left <= 0)
            return r;
        timeout_ms = (int)left; /* TLS: a record without application data; wait on */
    }
}

static int fill_once(hc *c, int timeout_ms) {
    if (c->cap - c->len < 65536) {
        c->cap = c->cap ? c->cap * 2 : 262144;
        c->buf = realloc(c->buf, c->cap);
    }
    if (!c->ssl || SSL_pending(c->ssl) == 0) {
        struct pollfd p = {c->fd, POLLIN, 0};
        int r;
        while ((r = poll(&p, 1, timeout_ms)) < 0 && errno == EINTR)
            ;
        if (r == 0)
            return 0;
    }
    ssize_t n;
    if (c->ssl) {
        /* non-blocking: a record that is not application data (a session ticket) is
         * "nothing yet" */
        size_t got = 0;
        if (SSL_read_ex(c->ssl, c->buf + c->len, c->cap - c->len, &got) == 1) {
            n = (ssize_t)got;
        } else {
            int e = SSL_get_error(c->ssl, 0);
            ERR_clear_error();
            if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE)
                return 0;
            n = -1;
        }
    } else {
        n = recv(c->fd, c->buf + c->len, c->cap - c->len, 0);
    }
    if (n <= 0) {
        c->eof = 1;
        return -1;
    }
    c->len += (size_t)n;
    return 1;
}

/* ---- HPACK ------------------------------------------------------------------------------- */

/* An integer with an n-bit prefix (RFC 7541 5.1). */
static size_t hp_int(uint8_t *out, uint8_t first, int n, size_t v) {
    size_t max = (1u << n) - 1, k = 0;
    if (v < max) {
        out[k++] = (uint8_t)(first | v);
        return k;
    }
    out[k++] = (uint8_t)(first | max);
    v -= max;
    while (v >= 128) {
        out[k++] = (uint8_t)(v % 128 + 128);
        v /= 128;
    }
    out[k++] = (uint8_t)v;
    return k;
}

typedef struct hb {
    uint8_t *p;
    size_t len, cap;
} hb;

static void hb_raw(hb *b, const void *p, size_t n) {
    if (b->len + n + 16 > b->cap) {
        b->cap = (b->len + n + 16) * 2;
        b->p = realloc(b->p, b->cap);
    }
    memcpy(b->p + b->len, p, n);
    b->len += n;
}

/* A literal field without indexing, new name, no Huffman (RFC 7541 6.2.2). */
static void hb_field(hb *b, const char *name, const char *value, size_t vl) {
    uint8_t t[16];
    size_t nl = strlen(name);
    hb_raw(b, "\0", 1);
    hb_raw(b, t, hp_int(t, 0, 7, nl));
    hb_raw(b, name, nl);
    hb_raw(b, t, hp_int(t, 0, 7, vl));
    hb_raw(b, value, vl);
}

/* A request's header block (the caller adds fields, and frees .p). */
static hb hb_request(const char *method, const char *path) {
    hb b = {0};
    hb_field(&b, ":method", method, strlen(method));
    hb_field(&b, ":scheme", "http", 4);
    hb_field(&b, ":path", path, strlen(path));
    hb_field(&b, ":authority", "localhost", 9);
    return b;
}

/* Decodes an integer (n-bit prefix); -1 when cut short. */
static long hp_get(const uint8_t *p, size_t len, size_t *i, int n) {
    if (*i >= len)
        return -1;
    long max = (1 << n) - 1, v = p[(*i)++] & max;
    if (v < max)
        return v;
    int shift = 0;
    while (*i < len) {
        uint8_t b = p[(*i)++];
        v += (long)(b & 127) << shift;
        shift += 7;
        if (!(b & 128))
            return v;
    }
    return -1;
}

/* A Huffman-coded string of digits only (RFC 7541 Appendix B: '0'-'2' are 5 bits 00000-00010,
 * '3'-'9' 6 bits 011001-011111); -1 for anything else. */
static long huff_digits(const uint8_t *p, size_t n) {
    size_t bits = n * 8, at = 0;
    long v = 0;
    while (bits - at >= 5) {
        unsigned c5 = 0, c6 = 0;
        for (int k = 0; k < 5; k++)
            c5 = c5 << 1 | ((p[(at + k) / 8] >> (7 - (at + k) % 8)) & 1);
        if (c5 <= 2) {
            v = v * 10 + c5, at += 5;
            continue;
        }
        if (bits - at >= 6) {
            c6 = c5 << 1 | ((p[(at + 5) / 8] >> (7 - (at + 5) % 8)) & 1);
            if (c6 >= 25 && c6 <= 31) {
                v = v * 10 + (c6 - 22), at += 6;
                continue;
            }
        }
        break;
    }
    for (; at < bits; at++) /* the rest must be EOS padding (all ones, < 8 bits) */
        if (!((p[at / 8] >> (7 - at % 8)) & 1) || bits - at >= 8)
            return -1;
    return v;
}

/* The :status of a header block sent under a header table size of 0; -1 if there is none
 * or it cannot be read. Also fails the test on any connection-specific field name sent as
 * a plain literal. */
static int block_status(const uint8_t *p, size_t len) {
    static const int idx_status[] = {200, 204, 206, 304, 400, 404, 500};
    size_t i = 0;
    int status = -1;
    while (i < len) {
        uint8_t b = p[i];
        if (b & 0x80) { /* indexed */
            long ix = hp_get(p, len, &i, 7);
            if (ix >= 8 && ix <= 14)
                status = idx_status[ix - 8];
            else if (ix > 61)
                return -1; /* dynamic: impossible with a table of 0 */
            continue;
        }
        if ((b & 0xe0) == 0x20) { /* table size update */
            hp_get(p, len, &i, 5);
            continue;
        }
        int n = (b & 0x40) ? 6 : 4;
        long ix = hp_get(p, len, &i, n);
        if (ix < 0)
            return -1;
        char name[64] = "";
        if (ix == 0) {
            if (i >= len)
                return -1;
            int h = p[i] & 0x80;
            long nl = hp_get(p, len, &i, 7);
            if (nl < 0 || i + (size_t)nl > len)
                return -1;
            if (!h && nl < 64) {
                memcpy(name, p + i, (size_t)nl);
                name[nl] = 0;
                assert_false(strcmp(name, "connection") == 0 || strcmp(name, "transfer-encoding") == 0 ||
                             strcmp(name, "keep-alive") == 0 || strcmp(name, "upgrade") == 0);
            }
            i += (size_t)nl;
        }
        if (i >= len)
            return -1;
        int h = p[i] & 0x80;
        long vl = hp_get(p, len, &i, 7);
        if (vl < 0 || i + (size_t)vl > len)
            return -1;
        if (ix == 8 || (ix >= 9 && ix <= 14)) {
            long v;
            if (h) {
                v = huff_digits(p + i, (size_t)vl);
            } else {
                v = 0;
                for (long k = 0; k < vl; k++)
                    v = v * 10 + (p[i + (size_t)k] - '0');
            }
            status = (int)v;
        }
        i += (size_t)vl;
    }
    return status;
}

/* ---- the client ------------------------------------------------------------------------ */

static void on_block(hc *c, int32_t sid, int flags) {
    st *s = S(c, sid);
    int status = block_status(c->hb, c->hbl);
    s->headers++;
    if (status >= 100 && status < 200)
        s->interim++;
    else if (status > 0)
        s->status = status;
    if (flags & FL_END_STREAM)
        s->end = 1;
    c->hbl = 0;
}

/* Reads and handles one frame within timeout_ms: its type, -2 on timeout, -1 at EOF. */
static int pump(hc *c, int timeout_ms) {
    while (c->len < 9 || c->len < 9 + ((size_t)c->buf[0] << 16 | (size_t)c->buf[1] << 8 | c->buf[2])) {
        int r = fill(c, timeout_ms);
        if (r == 0)
            return -2;
        if (r < 0)
            return -1;
    }
    uint8_t *f = c->buf;
    size_t len = (size_t)f[0] << 16 | (size_t)f[1] << 8 | f[2];
    int type = f[3], flags = f[4];
    int32_t sid = (int32_t)(get32(f + 5) & 0x7fffffff);
    uint8_t *p = f + 9;
    switch (type) {
    case F_DATA: {
        st *s = S(c, sid);
        size_t pad = (flags & 8) ? p[0] + 1u : 0;
        size_t n = len - pad;
        if (s->len + n > s->cap) {
            s->cap = (s->len + n) * 2;
            s->body = realloc(s->body, s->cap);
        }
        memcpy(s->body + s->len, p + ((flags & 8) ? 1 : 0), n);
        s->len += n;
        s->data_frames++;
        if (flags & FL_END_STREAM)
            s->end = 1;
        if (c->auto_wu && len > 0) { /* (the server may have closed: no failure here) */
            uint8_t inc[4];
            put32(inc, (uint32_t)len);
            frame_try(c, F_WINDOW, 0, 0, inc, 4);
            if (!s->end)
                frame_try(c, F_WINDOW, 0, sid, inc, 4);
        }
        break;
    }
    case F_HEADERS:
    case F_CONT: {
        size_t off = 0, n = len;
        if (type == F_HEADERS) {
            c->hblock_sid = sid;
            c->hbl = 0;
            if (flags & 8)
                off = 1, n -= p[0] + 1u;
            if (flags & 0x20)
                off += 5, n -= 5;
        }
        c->hb = realloc(c->hb, c->hbl + n + 1);
        memcpy(c->hb + c->hbl, p + off, n);
        c->hbl += n;
        if (type == F_HEADERS)
            S(c, sid)->end |= 0; /* END_STREAM is applied with the block */
        if (flags & FL_END_HEADERS)
            on_block(c, sid, type == F_HEADERS ? flags : 0);
        else if (type == F_HEADERS && (flags & FL_END_STREAM))
            S(c, sid)->end = 1;
        break;
    }
    case F_RST:
        S(c, sid)->rst = (int)get32(p);
        break;
    case F_SETTINGS:
        if (!(flags & FL_ACK)) {
            for (size_t k = 0; k + 6 <= len; k += 6) {
                unsigned id = (unsigned)p[k] << 8 | p[k + 1];
                uint32_t v = get32(p + k + 2);
                if (id == 4) {
                    for (int i = 0; i < MAXS; i++)
                        c->s[i].swin += (int64_t)v - c->init_swin;
                    c->init_swin = v;
                } else if (id == 3) {
                    c->max_streams = v;
                }
            }
            c->settings_seen = 1;
            frame_try(c, F_SETTINGS, FL_ACK, 0, NULL, 0);
        }
        break;
    case F_PING:
        if (flags & FL_ACK)
            c->pings_acked++;
        break;
    case F_GOAWAY:
        if (getenv("TEST_H2_DEBUG"))
            fprintf(stderr, "GOAWAY %u %.*s\n", get32(p + 4), (int)len - 8, (const char *)p + 8);
        c->goaway_last = (int32_t)(get32(p) & 0x7fffffff);
        c->goaway = (int)get32(p + 4);
        break;
    case F_WINDOW:
        if (sid == 0)
            c->conn_swin += get32(p) & 0x7fffffff;
        else
            S(c, sid)->swin += get32(p) & 0x7fffffff;
        break;
    }
    memmove(c->buf, c->buf + 9 + len, c->len - 9 - len);
    c->len -= 9 + len;
    return type;
}

static hc *hc_new(int fd, SSL *ssl) {
    hc *c = calloc(1, sizeof *c);
    c->fd = fd;
    c->ssl = ssl;
    c->goaway = -1;
    c->conn_swin = 65535;
    c->init_swin = 65535;
    for (int i = 0; i < MAXS; i++) {
        c->s[i].rst = -1;
        c->s[i].swin = 65535;
    }
    c->auto_wu = 1;
    return c;
}

static const char preface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/* The preface and our SETTINGS: header table 0, plus (id, value) pairs in extra (n of them);
 * then reads up to the server's SETTINGS. */
static void hc_hello(hc *c, const uint32_t *extra, int n) {
    uint8_t p[6 * 8];
    size_t len = 0;
    p[0] = 0, p[1] = 1, put32(p + 2, 0), len = 6;
    for (int i = 0; i < n; i++, len += 6)
        p[len] = 0, p[len + 1] = (uint8_t)extra[2 * i], put32(p + len + 2, extra[2 * i + 1]);
    assert_int_equal(raw_send(c, preface, 24), 0);
    frame(c, F_SETTINGS, 0, 0, p, len);
    long t0 = ts_now_ms();
    while (!c->settings_seen && ts_now_ms() - t0 < 5000)
        assert_true(pump(c, 5000) >= 0);
    assert_true(c->settings_seen);
}

static hc *hc_open_ex(int port, const uint32_t *extra, int n) {
    hc *c = hc_new(ts_connect(port), NULL);
    hc_hello(c, extra, n);
    return c;
}

static hc *hc_open(int port) {
    return hc_open_ex(port, NULL, 0);
}

static void hc_close(hc *c) {
    if (c->ssl)
        SSL_free(c->ssl);
    close(c->fd);
    for (int i = 0; i < MAXS; i++)
        free(c->s[i].body);
    free(c->buf);
    free(c->hb);
    free(c);
}

/* HEADERS for sid with the block in b (split into CONTINUATIONs of at most 16384). */
static void send_block(hc *c, int32_t sid, hb *b, int end_stream) {
    size_t off = 0;
    int first = 1;
    do {
        size_t n = b->len - off > 16384 ? 16384 : b->len - off;
        int last = off + n == b->len;
        int flags = (last ? FL_END_HEADERS : 0) | (first && end_stream ? FL_END_STREAM : 0);
        frame(c, first ? F_HEADERS : F_CONT, flags, sid, b->p + off, n);
        off += n;
        first = 0;
    } while (off < b->len);
}

/* A request with no extra fields. */
static void req(hc *c, int32_t sid, const char *method, const char *path, int end_stream) {
    hb b = hb_request(method, path);
    send_block(c, sid, &b, end_stream);
    free(b.p);
}

/* Pumps until sid is done (END_STREAM or reset) or timeout_ms; 1 if it is. */
static int wait_stream(hc *c, int32_t sid, int timeout_ms) {
    long t0 = ts_now_ms();
    st *s = S(c, sid);
    while (!s->end && s->rst < 0) {
        long left = timeout_ms - (ts_now_ms() - t0);
        if (left <= 0 || pump(c, (int)left) < 0)
            break;
    }
    return s->end || s->rst >= 0;
}

/* Pumps until GOAWAY or EOF within timeout_ms; 1 if one came. */
static int wait_goaway(hc *c, int timeout_ms) {
    long t0 = ts_now_ms();
    while (c->goaway < 0 && !c->eof) {
        long left = timeout_ms - (ts_now_ms() - t0);
        if (left <= 0 || pump(c, (int)left) == -2)
            break;
    }
    return c->goaway >= 0 || c->eof;
}

/* A GOAWAY with code must come within 5 s. */
static void expect_goaway(hc *c, int code) {
    assert_true(wait_goaway(c, 5000));
    assert_int_equal(c->goaway, code);
}

/* Pumps until EOF within timeout_ms; 1 if the server closed. */
static int wait_eof(hc *c, int timeout_ms) {
    long t0 = ts_now_ms();
    while (!c->eof) {
        long left = timeout_ms - (ts_now_ms() - t0);
        if (left <= 0 || pump(c, (int)left) == -2)
            break;
    }
    return c->eof;
}

/* Sends body on sid as DATA within our send windows (reading meanwhile), END_STREAM last. */
static void send_body(hc *c, int32_t sid, const uint8_t *body, size_t len, int end) {
    st *s = S(c, sid);
    size_t off = 0;
    long t0 = ts_now_ms();
    while (off < len) {
        int64_t w = s->swin < c->conn_swin ? s->swin : c->conn_swin;
        if (w <= 0) {
            assert_true(ts_now_ms() - t0 < 10000);
            int r = pump(c, 2000);
            if (r < 0 && getenv("TEST_H2_DEBUG"))
                fprintf(stderr, "send_body: stream %d at %zu of %zu: windows %lld / %lld, pump %d\n",
                        sid, off, len, (long long)s->swin, (long long)c->conn_swin, r);
            assert_true(r >= 0);
            continue;
        }
        size_t n = len - off;
        if (n > 16384)
            n = 16384;
        if ((int64_t)n > w)
            n = (size_t)w;
        frame(c, F_DATA, end && off + n == len ? FL_END_STREAM : 0, sid, body + off, n);
        s->swin -= (int64_t)n;
        c->conn_swin -= (int64_t)n;
        off += n;
        while (pump(c, 0) >= 0) /* what came meanwhile (windows, the echo) */
            ;
    }
    if (len == 0 && end)
        frame(c, F_DATA, FL_END_STREAM, sid, NULL, 0);
}

/* The bytes of the big bodies (/big, the echoes): position-dependent, so a lost or
 * reordered frame shows. */
static uint8_t pattern(size_t i) {
    return (uint8_t)(i * 7 + (i >> 12));
}

/* One GET on a fresh connection: the status (checks the server still serves). */
static int fresh_get(int port) {
    hc *c = hc_open(port);
    req(c, 1, "GET", "/hello", 1);
    int ok = wait_stream(c, 1, 5000);
    int status = ok ? S(c, 1)->status : -1;
    hc_close(c);
    return status;
}

/* A request of `method` with no body on sid, waited for (5 s): its stream, whose :status
 * must be `status`. */
static st *ask(hc *c, int32_t sid, const char *method, const char *path, int status) {
    req(c, sid, method, path, 1);
    assert_true(wait_stream(c, sid, 5000));
    assert_int_equal(S(c, sid)->status, status);
    return S(c, sid);
}

static st *get(hc *c, int32_t sid, const char *path, int status) {
    return ask(c, sid, "GET", path, status);
}

/* GET path_a on sid_a and GET path_b on sid_b, both in flight at once, and both waited
 * for (5 s each). */
static void get_both(hc *c, int32_t sid_a, const char *path_a, int32_t sid_b, const char *path_b) {
    req(c, sid_a, "GET", path_a, 1);
    req(c, sid_b, "GET", path_b, 1);
    assert_true(wait_stream(c, sid_a, 5000));
    assert_true(wait_stream(c, sid_b, 5000));
}

/* The answer of /hello over HTTP/2. */
static void expect_hello(const st *s) {
    assert_int_equal(s->status, 200);
    assert_int_equal(s->len, 14);
    assert_memory_equal(s->body, "hello HTTP/2.0", 14);
}

/* Pumps c while cond holds, for at most 5 s; every pump must succeed. */
#define PUMP_WHILE(c, cond)                                                                     \
    for (long pw_t0_ = ts_now_ms(); (cond) && ts_now_ms() - pw_t0_ < 5000;)                     \
    assert_true(pump((c), 1000) >= 0)

/* A connection whose SETTINGS_INITIAL_WINDOW_SIZE is win and which gives no window back
 * by itself (auto_wu 0): the test opens the windows. */
static hc *hc_open_window(int port, uint32_t win) {
    uint32_t set[] = {4, win};
    hc *c = hc_open_ex(port, set, 1);
    c->auto_wu = 0;
    return c;
}

/* The preface and an empty SETTINGS, nothing waited for (the threads' many short
 * connections). */
static hc *hc_open_bare(int port) {
    static const uint8_t settings[9] = {0, 0, 0, F_SETTINGS, 0, 0, 0, 0, 0};
    hc *c = hc_new(ts_connect(port), NULL);
    raw_send(c, preface, 24);
    raw_send(c, settings, 9);
    return c;
}

/* GET path over HTTP/1.1 with "Upgrade: h2c" and the HTTP2-Settings settings (base64url),
 * answered 101: the connection, before its preface (hc_hello). */
static hc *hc_upgrade(int port, const char *path, const char *settings) {
    int fd = ts_connect(port);
    char request[512];
    snprintf(request, sizeof request,
             "GET %s HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade, HTTP2-Settings\r\n"
             "Upgrade: h2c\r\nHTTP2-Settings: %s\r\n\r\n",
             path, settings);
    ts_send(fd, request, -1);
    char head[512];
    assert_int_equal(ts_read_head(fd, head, sizeof head), 101);
    return hc_new(fd, NULL);
}

/* pattern(0 .. n-1), malloc'ed. */
static uint8_t *pattern_new(size_t n) {
    uint8_t *p = malloc(n);
    for (size_t i = 0; i < n; i++)
        p[i] = pattern(i);
    return p;
}

/* The stream's body is pattern(0 .. n-1). */
static void expect_pattern(const st *s, size_t n) {
    assert_int_equal(s->len, n);
    for (size_t i = 0; i < n; i++)
        if (s->body[i] != pattern(i))
            fail_msg("byte %zu", i);
}

/* count copies of the frame f (flen bytes) sent 1000 at a time without reading (sending
 * stops once the server closes); then the connection must end within 10 s. */
static void flood(hc *c, const uint8_t *f, size_t flen, int count) {
    hb all = {0};
    for (int i = 0; i < count; i++)
        hb_raw(&all, f, flen);
    for (size_t off = 0; off < all.len; off += flen * 1000)
        if (raw_send(c, all.p + off, flen * 1000) < 0)
            break;
    assert_true(wait_eof(c, 10000));
    free(all.p);
}

/* Runs fn(n) on 4 threads at once: how many returned non-NULL (failed). */
static int run_threads(void *(*fn)(void *), int n) {
    enum { T = 4 };
    pthread_t t[T];
    for (int i = 0; i < T; i++)
        pthread_create(&t[i], NULL, fn, (void *)(intptr_t)n);
    int failed = 0;
    for (int i = 0; i < T; i++) {
        void *r;
        pthread_join(t[i], &r);
        failed += r != NULL;
    }
    return failed;
}

/* ---- the server ------------------------------------------------------------------------ */

static tachy_server *srv;
static int port;
static atomic_int calls;      /* handler calls of the counting contexts */
static atomic_int held_read;  /* what the held read returned */

/* Waits until srv has no connection left (those of earlier tests: slow under valgrind). */
static void wait_no_connections(void) {
    long t0 = ts_now_ms();
    while (tachy_server_connection_count(srv) > 0 && ts_now_ms() - t0 < 10000)
        ts_sleep_ms(10);
    assert_int_equal(tachy_server_connection_count(srv), 0);
}

/* Waits until `calls` has not moved for 50 ms (500 under valgrind): handlers of earlier
 * tests' streams may still be queued. */
static void wait_calls_settle(void) {
    int last = -1;
    long t0 = ts_now_ms();
    while (atomic_load(&calls) != last && ts_now_ms() - t0 < 10000) {
        last = atomic_load(&calls);
        ts_sleep_ms(ts_under_valgrind() ? 500 : 50);
    }
}

/* Settled, then `calls` from 0. */
static void reset_calls(void) {
    wait_calls_settle();
    atomic_store(&calls, 0);
}

/* `calls` from 0, then a new connection to srv: the tests that count handler calls. */
static hc *hc_open_counting(void) {
    reset_calls();
    return hc_open(port);
}


static int hello(tachy_exchange *ex, void *user) {
    (void)user;
    atomic_fetch_add(&calls, 1);
    const char *p = tachy_exchange_protocol(ex);
    char body[64];
    int n = snprintf(body, sizeof body, "hello %s", p);
    tachy_exchange_send_response_headers(ex, 200, n);
    tachy_exchange_write(ex, body, (size_t)n);
    return tachy_exchange_close(ex);
}

static int status_only(tachy_exchange *ex, void *user) {
    tachy_exchange_send_response_headers(ex, (int)(intptr_t)user, -1);
    return tachy_exchange_close(ex);
}

static int streamed(tachy_exchange *ex, void *user) {
    (void)user;
    tachy_exchange_send_response_headers(ex, 200, 0);
    const char *parts[] = {"one,", "two,", "three"};
    for (int i = 0; i < 3; i++) {
        tachy_exchange_write(ex, parts[i], strlen(parts[i]));
        tachy_exchange_flush(ex);
        ts_sleep_ms(10);
    }
    return tachy_exchange_close(ex);
}

/* Streams the request body back as it reads it. */
static int echo(tachy_exchange *ex, void *user) {
    (void)user;
    tachy_exchange_send_response_headers(ex, 200, 0);
    char buf[16384];
    ssize_t n;
    while ((n = tachy_exchange_read(ex, buf, sizeof buf)) > 0)
        if (tachy_exchange_write(ex, buf, (size_t)n) < 0)
            break;
    return tachy_exchange_close(ex);
}

static int sleepy(tachy_exchange *ex, void *user) {
    ts_sleep_ms(300);
    return hello(ex, user);
}

#define BIG (1024 * 1024)

static atomic_int big_failed; /* /big handlers whose write failed */

static int big(tachy_exchange *ex, void *user) {
    (void)user;
    tachy_exchange_send_response_headers(ex, 200, BIG);
    uint8_t buf[16384];
    for (size_t off = 0; off < BIG; off += sizeof buf) {
        for (size_t i = 0; i < sizeof buf; i++)
            buf[i] = pattern(off + i);
        if (tachy_exchange_write(ex, buf, sizeof buf) < 0) {
            atomic_fetch_add(&big_failed, 1);
            break;
        }
    }
    return tachy_exchange_close(ex);
}

/* Counts and answers without reading the body. */
static int counted(tachy_exchange *ex, void *user) {
    (void)user;
    atomic_fetch_add(&calls, 1);
    tachy_exchange_send_response_headers(ex, 200, 2);
    tachy_exchange_write(ex, "ok", 2);
    return tachy_exchange_close(ex);
}

static void *closer(void *arg) {
    tachy_exchange *ex = arg;
    ts_sleep_ms(5);
    tachy_exchange_send_response_headers(ex, 200, 8);
    tachy_exchange_write(ex, "deferred", 8);
    tachy_exchange_close(ex);
    return NULL;
}

static int deferred(tachy_exchange *ex, void *user) {
    (void)user;
    assert_int_equal(tachy_exchange_defer(ex), 0);
    pthread_t t;
    pthread_create(&t, NULL, closer, ex);
    pthread_detach(t);
    return 0;
}

static int held(tachy_exchange *ex, void *user) {
    (void)user;
    tachy_exchange_hold(ex, 1);
    char b[16];
    atomic_store(&held_read, (int)tachy_exchange_read(ex, b, sizeof b));
    tachy_exchange_hold(ex, 0);
    tachy_exchange_send_response_headers(ex, 200, 4);
    tachy_exchange_write(ex, "held", 4);
    return tachy_exchange_close(ex);
}

/* A held exchange deferred with TACHY_DEFER_CLOSER_CONTINUES (the Java provider on an
 * executor): its closer writes 100000 bytes and closes; none of it may block (a virtual
 * thread must not pin its carrier), whatever the peer's window. */
static atomic_long held_close_ms; /* how long the closer's calls took, -1 = failed */

static void *held_closer(void *arg) {
    tachy_exchange *ex = arg;
    ts_sleep_ms(20);
    long t0 = ts_now_ms();
    static uint8_t buf[100000];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = pattern(i);
    int ok = tachy_exchange_send_response_headers(ex, 200, sizeof buf) == 0 &&
             tachy_exchange_write(ex, buf, sizeof buf) == (ssize_t)sizeof buf;
    int rc = tachy_exchange_close(ex);
    ok = ok && (rc == 0 || rc == TACHY_EWOULDBLOCK);
    atomic_store(&held_close_ms, ok ? ts_now_ms() - t0 : -1);
    return NULL;
}

static int held_deferred(tachy_exchange *ex, void *user) {
    (void)user;
    tachy_exchange_hold(ex, 1);
    assert_int_equal(tachy_exchange_defer_flags(ex, TACHY_DEFER_CLOSER_CONTINUES), 0);
    pthread_t t;
    pthread_create(&t, NULL, held_closer, ex);
    pthread_detach(t);
    return 0;
}

static void contexts(tachy_server *s) {
    tachy_server_create_context(s, "/helddefer", held_deferred, NULL, NULL);
    tachy_server_create_context(s, "/hello", hello, NULL, NULL);
    tachy_server_create_context(s, "/204", status_only, (void *)204, NULL);
    tachy_server_create_context(s, "/304", status_only, (void *)304, NULL);
    tachy_server_create_context(s, "/streamed", streamed, NULL, NULL);
    tachy_server_create_context(s, "/echo", echo, NULL, NULL);
    tachy_server_create_context(s, "/sleep", sleepy, NULL, NULL);
    tachy_server_create_context(s, "/big", big, NULL, NULL);
    tachy_server_create_context(s, "/count", counted, NULL, NULL);
    tachy_server_create_context(s, "/defer", deferred, NULL, NULL);
    tachy_server_create_context(s, "/held", held, NULL, NULL);
}

static void opts(tachy_options *o) {
    tachy_options_init(o);
    o->max_req_header_size = 16384;
    o->h2_max_streams = 8;
}

/* A second server with options o and the test contexts: its port in *p. */
static tachy_server *server_with(const tachy_options *o, int *p) {
    tachy_server *s = ts_server(o);
    contexts(s);
    *p = ts_start(s);
    return s;
}

/* A second server with the tests' options but idleInterval idle_ms and maxRspTime rsp_ms
 * (0: the default): its port in *p. */
static tachy_server *second_server(long idle_ms, long rsp_ms, int *p) {
    tachy_options o;
    opts(&o);
    if (idle_ms)
        o.idle_interval_ms = idle_ms;
    if (rsp_ms)
        o.max_rsp_time_ms = rsp_ms;
    return server_with(&o, p);
}

/* Closes c; then a GET on a new connection must be answered 200 (the server serves on
 * after what c did). */
static void close_then_serve(hc *c) {
    hc_close(c);
    assert_int_equal(fresh_get(port), 200);
}

/* A connection whose window is 0 (given back by the test only) with GET /big on stream 1,
 * big_failed from 0: the handler's write waits on the window. */
static hc *big_on_zero_window(int p) {
    hc *c = hc_open_window(p, 0);
    atomic_store(&big_failed, 0);
    req(c, 1, "GET", "/big", 1);
    return c;
}

/* Waits (up to timeout_ms) for the one /big handler whose write fails. */
static void wait_big_failed(int timeout_ms) {
    long t0 = ts_now_ms();
    while (atomic_load(&big_failed) == 0 && ts_now_ms() - t0 < timeout_ms)
        ts_sleep_ms(10);
    assert_int_equal(atomic_load(&big_failed), 1);
}

static int setup(void **state) {
    (void)state;
    if (tachy__h2_available() < 0) {
        fprintf(stderr, "test_h2: libnghttp2 not loadable, skipped\n");
        return 0;
    }
    tachy_options o;
    opts(&o);
    srv = ts_server(&o);
    contexts(srv);
    port = ts_start(srv);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    if (srv)
        ts_stop(srv);
    return 0;
}

/* Defines the test `name` (a cmocka test, its body follows the macro): skipped when
 * libnghttp2 cannot be loaded (setup left srv NULL), else the body runs. */
#define H2_TEST(name)                                                                           \
    static void name##_body(void);                                                              \
    static void name(void **state) {                                                            \
        (void)state;                                                                            \
        if (!srv)                                                                               \
            skip();                                                                             \
        name##_body();                                                                          \
    }                                                                                           \
    static void name##_body(void)

/* ---- tests ------------------------------------------------------------------------------- */

H2_TEST(get_prior_knowledge) {
    hc *c = hc_open(port);
    st *s = get(c, 1, "/hello", 200);
    expect_hello(s);
    assert_true(s->end);
    assert_int_equal(s->rst, -1);
    /* a second request on the same connection */
    expect_hello(get(c, 3, "/hello", 200));
    /* HEAD: the head, no DATA */
    assert_int_equal(ask(c, 5, "HEAD", "/hello", 200)->data_frames, 0);
    /* 204 and 304: no DATA */
    get_both(c, 7, "/204", 9, "/304");
    assert_int_equal(S(c, 7)->status, 204);
    assert_int_equal(S(c, 9)->status, 304);
    assert_int_equal(S(c, 7)->len, 0);
    assert_int_equal(S(c, 9)->len, 0);
    /* streamed in several writes */
    s = get(c, 11, "/streamed", 200);
    assert_int_equal(s->len, 13);
    assert_memory_equal(s->body, "one,two,three", 13);
    assert_true(s->data_frames >= 2); /* flushed part by part */
    /* no context: 404 */
    get(c, 13, "/nothing-here", 404);
    assert_int_equal(c->goaway, -1);
    hc_close(c);
}

H2_TEST(post_echo_1mib) {
    hc *c = hc_open(port);
    uint8_t *body = pattern_new(BIG);
    req(c, 1, "POST", "/echo", 0);
    send_body(c, 1, body, BIG, 1);
    assert_true(wait_stream(c, 1, 10000));
    st *s = S(c, 1);
    assert_int_equal(s->status, 200);
    assert_int_equal(s->rst, -1);
    expect_pattern(s, BIG);
    free(body);
    hc_close(c);
}

/* A handler that never reads its body holds back only its own stream. */
H2_TEST(unread_body_does_not_stall) {
    hc *c = hc_open(port);
    uint8_t *body = calloc(1, 256 * 1024);
    hb b = hb_request("POST", "/sleep"); /* answers after 300 ms, never reads */
    send_block(c, 1, &b, 0);
    free(b.p);
    send_body(c, 1, body, (size_t)S(c, 1)->swin, 0); /* its whole window */
    req(c, 3, "POST", "/echo", 0);
    send_body(c, 3, body, 100000, 1);
    assert_true(wait_stream(c, 3, 5000));
    assert_int_equal(S(c, 3)->status, 200);
    assert_int_equal(S(c, 3)->len, 100000);
    assert_false(S(c, 1)->end); /* stream 1 still sleeping */
    assert_true(wait_stream(c, 1, 5000));
    assert_int_equal(S(c, 1)->status, 200);
    free(body);
    hc_close(c);
}

H2_TEST(slow_stream_does_not_block) {
    hc *c = hc_open(port);
    hc *d = hc_open(port);
    long t0 = ts_now_ms();
    req(c, 1, "GET", "/sleep", 1);
    req(c, 3, "GET", "/hello", 1);
    req(d, 1, "GET", "/hello", 1);
    assert_true(wait_stream(c, 3, 5000));
    assert_true(wait_stream(d, 1, 5000));
    long fast = ts_now_ms() - t0;
    assert_false(S(c, 1)->end); /* the slow one is not done yet */
    assert_true(fast < 250 || ts_under_valgrind());
    assert_true(wait_stream(c, 1, 5000));
    assert_int_equal(S(c, 1)->status, 200);
    assert_true(ts_now_ms() - t0 >= 290);
    hc_close(c);
    hc_close(d);
}

/* Client window small: the 1 MiB body is paced, then arrives whole as the window opens. */
H2_TEST(flow_control_paces_writer) {
    hc *c = hc_open_window(port, 1000);
    req(c, 1, "GET", "/big", 1);
    /* at most the 1000-byte window comes */
    long t0 = ts_now_ms();
    while (ts_now_ms() - t0 < 300)
        if (pump(c, 50) == -1)
            break;
    assert_int_equal(S(c, 1)->status, 200);
    assert_int_equal(S(c, 1)->len, 1000);
    assert_false(S(c, 1)->end);
    /* a second stream whose window the client opens is served while stream 1 sits at 0 */
    req(c, 3, "GET", "/big", 1);
    window_update(c, 0, 4 * BIG);
    window_update(c, 3, 2 * BIG);
    assert_true(wait_stream(c, 3, 10000));
    assert_int_equal(S(c, 3)->len, BIG);
    assert_int_equal(S(c, 1)->len, 1000);
    /* now stream 1 is opened: the rest comes */
    window_update(c, 1, BIG);
    assert_true(wait_stream(c, 1, 10000));
    expect_pattern(S(c, 1), BIG);
    hc_close(c);
}

/* A stream reset by the client while its handler waits for the window: the handler's write
 * fails (it ends), the connection serves on, nothing is left behind. */
H2_TEST(client_reset_mid_response) {
    hc *c = hc_open_window(port, 1000);
    req(c, 1, "GET", "/big", 1);
    PUMP_WHILE(c, S(c, 1)->len < 1000);
    rst(c, 1, E_CANCEL);
    c->auto_wu = 1;
    window_update(c, 0, 4 * BIG);
    get(c, 3, "/hello", 200);
    hc_close(c);
    wait_no_connections();
}

/* A stream whose window the client keeps at 0 for ever: with maxRspTime set, the writer
 * gives up after it (as an HTTP/1.1 write does, SO_SNDTIMEO) - the stream is reset, its
 * handler returns, the connection serves on. */
H2_TEST(zero_window_forever) {
    int p2;
    tachy_server *s2 = second_server(0, 300, &p2);
    hc *c = big_on_zero_window(p2);
    long t0 = ts_now_ms();
    assert_true(wait_stream(c, 1, 5000));
    assert_true(S(c, 1)->rst >= 0);
    assert_int_equal(S(c, 1)->len, 0);
    assert_true(ts_now_ms() - t0 >= 250);
    wait_big_failed(2000);
    req(c, 3, "GET", "/hello", 1);
    window_update(c, 3, 100);
    assert_true(wait_stream(c, 3, 5000));
    expect_hello(S(c, 3));
    hc_close(c);
    ts_stop(s2);
}

/* The client leaves while handlers wait on its streams (a write on a zero window, a read
 * of a body that never ends, a deferred exchange closed later): each wakes with an error or
 * finishes into nothing, and the connection is freed. */
H2_TEST(peer_gone_while_handlers_wait) {
    hc *c = big_on_zero_window(port);
    req(c, 3, "POST", "/echo", 0);
    frame(c, F_DATA, 0, 3, "abc", 3);
    req(c, 5, "GET", "/defer", 1);
    PUMP_WHILE(c, S(c, 1)->status == 0); /* /big's head: it is writing */
    hc_close(c);
    long t0 = ts_now_ms();
    while ((tachy_server_connection_count(srv) > 0 || atomic_load(&big_failed) == 0) &&
           ts_now_ms() - t0 < 5000)
        ts_sleep_ms(10);
    assert_int_equal(atomic_load(&big_failed), 1);
    assert_int_equal(tachy_server_connection_count(srv), 0);
    ts_sleep_ms(100); /* the deferred closer has run */
    assert_int_equal(fresh_get(port), 200);
}

/* stop(0) with streams in flight (one writing on a zero window, one sleeping): it returns
 * at once, the writer's handler fails. */
H2_TEST(stop_with_streams_in_flight) {
    int p2;
    tachy_server *s2 = second_server(0, 0, &p2);
    hc *c = big_on_zero_window(p2);
    req(c, 3, "GET", "/sleep", 1);
    PUMP_WHILE(c, S(c, 1)->status == 0);
    long t0 = ts_now_ms();
    assert_int_equal(tachy_server_stop(s2, 0), 0);
    assert_true(ts_now_ms() - t0 < 2000);
    assert_true(wait_eof(c, 2000));
    wait_big_failed(2000);
    hc_close(c);
    ts_sleep_ms(350); /* /sleep's handler returns into a stopped server */
    tachy_server_destroy(s2);
}

/* Expect: 100-continue gets an interim 100 HEADERS; request trailers end the body. */
H2_TEST(expect_continue_and_trailers) {
    hc *c = hc_open(port);
    hb b = hb_request("POST", "/echo");
    hb_field(&b, "expect", "100-continue", 12);
    send_block(c, 1, &b, 0);
    free(b.p);
    PUMP_WHILE(c, S(c, 1)->interim == 0);
    assert_int_equal(S(c, 1)->interim, 1);
    frame(c, F_DATA, 0, 1, "abc", 3);
    hb t = {0};
    hb_field(&t, "x-trailer", "v", 1);
    send_block(c, 1, &t, 1);
    free(t.p);
    assert_true(wait_stream(c, 1, 5000));
    assert_int_equal(S(c, 1)->status, 200);
    assert_int_equal(S(c, 1)->len, 3);
    assert_memory_equal(S(c, 1)->body, "abc", 3);
    hc_close(c);
}

/* 4 connections x 8 streams of 64 KiB echoes at once (threads meet in every stream and
 * connection lock: the TSan run's workload). */
H2_TEST(concurrent_echoes) {
    enum { NC = 4, NS = 8, LEN = 65536 };
    hc *c[NC];
    uint8_t *body = pattern_new(LEN);
    for (int k = 0; k < NC; k++) {
        c[k] = hc_open(port);
        for (int j = 0; j < NS; j++)
            req(c[k], 1 + 2 * j, "POST", "/echo", 0);
    }
    for (size_t off = 0; off < LEN; off += 16384)
        for (int k = 0; k < NC; k++)
            for (int j = 0; j < NS; j++) {
                frame(c[k], F_DATA, off + 16384 == LEN ? FL_END_STREAM : 0, 1 + 2 * j, body + off,
                      16384);
                while (pump(c[k], 0) >= 0)
                    ;
            }
    for (int k = 0; k < NC; k++) {
        for (int j = 0; j < NS; j++) {
            assert_true(wait_stream(c[k], 1 + 2 * j, 10000));
            st *s = S(c[k], 1 + 2 * j);
            assert_int_equal(s->status, 200);
            expect_pattern(s, LEN);
        }
        hc_close(c[k]);
    }
    free(body);
}

/* Clients that close as soon as their response is in, from 4 threads at once: a stream's
 * handler ends while its connection closes (the last reference to the connection's
 * session changes hands between the job's thread and the connection's owner). */
static void *close_after_response_main(void *arg) {
    int n = (int)(intptr_t)arg;
    for (int i = 0; i < n; i++) {
        hc *c = hc_open_bare(port);
        int deferred = i & 1; /* (its response leaves from the closer's thread) */
        req(c, 1, "GET", deferred ? "/defer" : "/hello", 1);
        wait_stream(c, 1, 5000);
        int ok = S(c, 1)->len == (deferred ? 8 : 14);
        hc_close(c);
        if (!ok)
            return (void *)1;
    }
    return NULL;
}

H2_TEST(close_after_response) {
    int n = ts_under_valgrind() ? 20 : 250;
    assert_int_equal(run_threads(close_after_response_main, n), 0);
    wait_no_connections();
}

/* An idle HTTP/2 connection is closed after idleInterval with GOAWAY (NO_ERROR). */
H2_TEST(idle_timeout_goaway) {
    int p2;
    tachy_server *s2 = second_server(300, 0, &p2);
    /* a fast handler, and a slow one (it ends long after the connection parked) */
    for (int slow = 0; slow < 2; slow++) {
        hc *c = hc_open(p2);
        ts_sleep_ms(50); /* (our SETTINGS ack is in) */
        get(c, 1, slow ? "/sleep" : "/hello", 200);
        long t0 = ts_now_ms();
        assert_true(wait_eof(c, 5000));
        long took = ts_now_ms() - t0;
        assert_int_equal(c->goaway, E_NO);
        assert_true(took >= 200 && (took < 2000 || ts_under_valgrind()));
        hc_close(c);
    }
    ts_stop(s2);
}

/* A stream whose handler is done but whose request never ends (no END_STREAM) does not
 * keep the connection from its idle timeout. */
H2_TEST(idle_timeout_with_unfinished_request) {
    int p2;
    tachy_server *s2 = second_server(300, 0, &p2);
    hc *c = hc_open(p2);
    req(c, 1, "POST", "/hello", 0);
    frame(c, F_DATA, 0, 1, "abc", 3);
    assert_true(wait_stream(c, 1, 5000));
    assert_int_equal(S(c, 1)->status, 200);
    long t0 = ts_now_ms();
    assert_true(wait_eof(c, 5000));
    long took = ts_now_ms() - t0;
    assert_true(took < 3000 || ts_under_valgrind());
    hc_close(c);
    ts_stop(s2);
}

/* tachy_options.http2 opens each way alone: without TACHY_HTTP2_PRIOR the preface is not
 * HTTP/2 (no SETTINGS comes back), without TACHY_HTTP2_UPGRADE "Upgrade: h2c" is served as
 * HTTP/1.1, with 0 neither. */
H2_TEST(http2_option_bits) {
    for (int bits = 0; bits <= TACHY_HTTP2_ALL; bits += TACHY_HTTP2_PRIOR) {
        tachy_options o;
        opts(&o);
        o.http2 = bits & ~TACHY_HTTP2_TLS;
        int p2;
        tachy_server *s2 = server_with(&o, &p2);
        /* the preface */
        hc *c = hc_new(ts_connect(p2), NULL);
        assert_int_equal(raw_send(c, preface, 24), 0);
        frame_try(c, F_SETTINGS, 0, 0, NULL, 0);
        int r = pump(c, 1000);
        if (o.http2 & TACHY_HTTP2_PRIOR)
            assert_int_equal(r, F_SETTINGS);
        else
            assert_true(r != F_SETTINGS || c->len == 0);
        hc_close(c);
        /* the upgrade */
        int fd = ts_connect(p2);
        ts_send(fd, "GET /hello HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\n"
                    "Upgrade: h2c\r\nHTTP2-Settings: AAEAAAAA\r\n\r\n", -1);
        char head[512];
        int status = ts_read_head(fd, head, sizeof head);
        assert_int_equal(status, (o.http2 & TACHY_HTTP2_UPGRADE) ? 101 : 200);
        close(fd);
        ts_stop(s2);
    }
}

/* Clients that leave in the middle of transfers (an echo being read and written, a 1 MiB
 * download, a streamed response), from 4 threads at once: the connection dies while
 * handlers read, write and end, and while another thread sends. */
static void *abrupt_close_main(void *arg) {
    int n = (int)(intptr_t)arg;
    static uint8_t body[32768];
    for (int i = 0; i < n; i++) {
        hc *c = hc_open_bare(port);
        req(c, 1, "POST", "/echo", 0);
        req(c, 3, "GET", "/big", 1);
        req(c, 5, "GET", "/streamed", 1);
        frame_try(c, F_DATA, 0, 1, body, 16384);
        frame_try(c, F_DATA, 0, 1, body, 16384);
        for (int k = 0; k < (i % 4); k++) /* leave after 0 to 3 frames */
            if (pump(c, 100) < 0)
                break;
        hc_close(c);
    }
    return NULL;
}

H2_TEST(abrupt_close_mid_transfer) {
    int n = ts_under_valgrind() ? 10 : 100;
    run_threads(abrupt_close_main, n); /* (it checks nothing itself: the server must survive) */
    wait_no_connections();
    assert_int_equal(fresh_get(port), 200);
}

H2_TEST(upgrade_h2c) {
    /* HTTP2-Settings: SETTINGS_HEADER_TABLE_SIZE = 0 (base64url of 00 01 00 00 00 00) */
    hc *c = hc_upgrade(port, "/hello", "AAEAAAAA");
    hc_hello(c, NULL, 0);
    assert_true(wait_stream(c, 1, 5000));
    expect_hello(S(c, 1));
    get(c, 3, "/hello", 200);
    hc_close(c);
}

/* The upgraded request is stream 1 like any other: a client reset of it mid-response
 * reaches its handler (its write fails) while the connection stays open. */
H2_TEST(upgrade_stream_reset) {
    /* HTTP2-Settings: HEADER_TABLE_SIZE 0, INITIAL_WINDOW_SIZE 1000 */
    hc *c = hc_upgrade(port, "/big", "AAEAAAAAAAQAAAPo");
    c->auto_wu = 0;
    atomic_store(&big_failed, 0);
    uint32_t set[] = {4, 1000};
    hc_hello(c, set, 1);
    PUMP_WHILE(c, S(c, 1)->len < 1000);
    rst(c, 1, E_CANCEL);
    wait_big_failed(3000);
    req(c, 3, "GET", "/hello", 1);
    window_update(c, 3, 100);
    assert_true(wait_stream(c, 3, 5000));
    assert_int_equal(S(c, 3)->status, 200);
    hc_close(c);
}

/* More streams than SETTINGS_MAX_CONCURRENT_STREAMS (8 here): the extra are refused. */
H2_TEST(max_concurrent_streams) {
    hc *c = hc_open(port);
    assert_int_equal(c->max_streams, 8);
    for (int i = 0; i < 10; i++)
        req(c, 1 + 2 * i, "GET", "/sleep", 1);
    int ok = 0, refused = 0;
    for (int i = 0; i < 10; i++) {
        wait_stream(c, 1 + 2 * i, 5000);
        if (c->goaway >= 0 || c->eof)
            break;
        st *s = S(c, 1 + 2 * i);
        if (s->status == 200)
            ok++;
        else if (s->rst == E_REFUSED || s->rst == E_PROTOCOL)
            refused++;
    }
    if (c->goaway >= 0)
        assert_int_equal(c->goaway, E_PROTOCOL);
    else
        assert_true(ok == 8 && refused == 2);
    close_then_serve(c);
}

/* A new stream's id must be above every id the client used (RFC 9113 5.1.1): HEADERS on
 * 1 after 3 (1 was skipped, never opened) is a connection error. */
H2_TEST(lower_stream_id) {
    for (int first = 3; first <= 7; first += 4) {
        hc *c = hc_open_counting();
        get(c, first, "/count", 200);
        req(c, first - 2, "GET", "/count", 1);
        expect_goaway(c, E_PROTOCOL);
        assert_int_equal(atomic_load(&calls), 1);
        hc_close(c);
    }
    /* the same while a 1 MiB response is being sent by another thread: its GOAWAY still
     * comes before the connection ends */
    for (int i = 0; i < 5; i++) {
        hc *c = hc_open(port);
        req(c, 3, "GET", "/big", 1);
        while (S(c, 3)->len < 100000)
            assert_true(pump(c, 5000) >= 0);
        req(c, 1, "GET", "/count", 1);
        expect_goaway(c, E_PROTOCOL);
        hc_close(c);
    }
}

H2_TEST(continuation_flood) {
    hc *c = hc_open(port);
    hb b = hb_request("GET", "/count");
    frame(c, F_HEADERS, 0, 1, b.p, b.len);
    free(b.p);
    hb one = {0};
    hb_field(&one, "x-a", "b", 1);
    for (int i = 0; i < 1000; i++) /* (the server may close mid-way: sending stops then) */
        if (frame_try(c, F_CONT, 0, 1, one.p, one.len) < 0)
            break;
    free(one.p);
    expect_goaway(c, E_CALM);
    close_then_serve(c);
}

H2_TEST(rapid_reset) {
    hc *c = hc_open_counting();
    hb b = hb_request("GET", "/count");
    /* one buffer of 500 HEADERS + RST_STREAM pairs, sent at once */
    hb all = {0};
    for (int i = 0; i < 500; i++) {
        uint8_t h[9];
        int32_t sid = 1 + 2 * i;
        h[0] = (uint8_t)(b.len >> 16), h[1] = (uint8_t)(b.len >> 8), h[2] = (uint8_t)b.len;
        h[3] = F_HEADERS, h[4] = FL_END_HEADERS | FL_END_STREAM;
        put32(h + 5, (uint32_t)sid);
        hb_raw(&all, h, 9);
        hb_raw(&all, b.p, b.len);
        uint8_t r[13] = {0, 0, 4, F_RST, 0};
        put32(r + 5, (uint32_t)sid);
        put32(r + 9, E_CANCEL);
        hb_raw(&all, r, 13);
    }
    free(b.p);
    raw_send(c, all.p, all.len);
    free(all.p);
    expect_goaway(c, E_CALM);
    wait_eof(c, 3000);
    ts_sleep_ms(100);
    wait_calls_settle();
    int n = atomic_load(&calls);
    assert_true(n < 100); /* far fewer handler calls than streams */
    close_then_serve(c);
}

H2_TEST(header_list_too_big) {
    hc *c = hc_open_counting();
    hb b = hb_request("GET", "/count");
    char *v = malloc(10000);
    memset(v, 'v', 10000);
    hb_field(&b, "x-big1", v, 10000);
    hb_field(&b, "x-big2", v, 10000); /* 20 KB > 16384: in HEADERS + CONTINUATION */
    free(v);
    send_block(c, 1, &b, 1);
    free(b.p);
    assert_true(wait_stream(c, 1, 5000));
    assert_int_equal(S(c, 1)->status, 431);
    assert_int_equal(atomic_load(&calls), 0);
    /* the connection serves on */
    get(c, 3, "/count", 200);
    hc_close(c);
}

/* An HPACK bomb: one 4000-byte field put into the dynamic table, then referenced 2000
 * times by one byte each (8 MB of header list from a 6 KB block): 431, nothing kept, the
 * connection serves on. */
H2_TEST(hpack_bomb) {
    hc *c = hc_open_counting();
    hb b = hb_request("GET", "/count");
    uint8_t t[16];
    char *v = malloc(4000);
    memset(v, 'a', 4000);
    hb_raw(&b, "\x40", 1); /* literal with incremental indexing, new name */
    hb_raw(&b, t, hp_int(t, 0, 7, 6));
    hb_raw(&b, "x-bomb", 6);
    hb_raw(&b, t, hp_int(t, 0, 7, 4000));
    hb_raw(&b, v, 4000);
    free(v);
    for (int i = 0; i < 2000; i++)
        hb_raw(&b, "\xbe", 1); /* indexed: dynamic entry 62 */
    long t0 = ts_now_ms();
    send_block(c, 1, &b, 1);
    free(b.p);
    assert_true(wait_stream(c, 1, 5000));
    if (getenv("TEST_H2_DEBUG"))
        fprintf(stderr, "bomb: status %d rst %d goaway %d\n", S(c, 1)->status, S(c, 1)->rst, c->goaway);
    assert_true(S(c, 1)->status == 431 || S(c, 1)->rst >= 0 || c->goaway >= 0);
    assert_int_equal(atomic_load(&calls), 0);
    assert_true(ts_now_ms() - t0 < 2000 || ts_under_valgrind());
    if (c->goaway < 0)
        get(c, 3, "/count", 200);
    close_then_serve(c);
}

H2_TEST(ping_flood) {
    hc *c = hc_open(port);
    /* pings sent without reading the acks: nghttp2 ends the session once too many acks are
     * queued (1000 by default); the connection must end */
    static const uint8_t ping[17] = {0, 0, 8, F_PING, 0};
    flood(c, ping, sizeof ping, 20000);
    close_then_serve(c);
}

H2_TEST(settings_flood) {
    hc *c = hc_open(port);
    /* one SETTINGS with 100 entries: more than the 32 allowed (max_settings) */
    uint8_t p[600];
    for (int i = 0; i < 100; i++)
        p[6 * i] = 0, p[6 * i + 1] = 3, put32(p + 6 * i + 2, 100);
    frame(c, F_SETTINGS, 0, 0, p, 600);
    assert_true(wait_goaway(c, 5000));
    assert_true(c->goaway == E_CALM || c->goaway == E_PROTOCOL || c->eof);
    hc_close(c);
    /* 20000 SETTINGS frames (each wants an ACK) sent without reading: the connection ends
     * (nghttp2 counts the ACKs it cannot send, CVE-2019-9515) */
    c = hc_open(port);
    static const uint8_t settings[15] = {0, 0, 6, F_SETTINGS, 0, 0, 0, 0, 0, 0, 4, 0, 1, 0, 0};
    flood(c, settings, sizeof settings, 20000);
    close_then_serve(c);
}

H2_TEST(window_overflow) {
    hc *c = hc_open(port);
    window_update(c, 0, 0x7fffffff);
    expect_goaway(c, E_FLOW);
    hc_close(c);
    /* on a stream: RST_STREAM FLOW_CONTROL_ERROR */
    c = hc_open(port);
    req(c, 1, "GET", "/sleep", 1);
    window_update(c, 1, 0x7fffffff);
    assert_true(wait_stream(c, 1, 5000));
    assert_int_equal(S(c, 1)->rst, E_FLOW);
    close_then_serve(c);
}

/* Fields a proxy would turn into HTTP/1.1 smuggling: the stream is reset, no handler runs. */
H2_TEST(smuggling) {
    struct {
        const char *name, *value;
        size_t vl;
        int no_path;
    } cases[] = {
        {"transfer-encoding", "chunked", 7, 0},
        {"connection", "close", 5, 0},
        {"x-a", "a\r\nb: c", 7, 0},
        {"x-a", "a\nb", 3, 0},
        {"x-a", "a\0b", 3, 0},
        {"X-Upper", "a", 1, 0},
        {"x-a", "a", 1, 1},
    };
    hc *c = hc_open_counting();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int32_t sid = (int32_t)(1 + 2 * i);
        hb b = {0};
        hb_field(&b, ":method", "GET", 3);
        hb_field(&b, ":scheme", "http", 4);
        if (!cases[i].no_path)
            hb_field(&b, ":path", "/count", 6);
        hb_field(&b, ":authority", "localhost", 9);
        hb_field(&b, cases[i].name, cases[i].value, cases[i].vl);
        send_block(c, sid, &b, 1);
        free(b.p);
        assert_true(wait_stream(c, sid, 5000));
        if (S(c, sid)->rst != E_PROTOCOL)
            fail_msg("case %zu: rst %d status %d", i, S(c, sid)->rst, S(c, sid)->status);
        assert_int_equal(c->goaway, -1);
    }
    assert_int_equal(atomic_load(&calls), 0);
    get(c, 99, "/count", 200);
    hc_close(c);
}

H2_TEST(deferred_exchange) {
    hc *c = hc_open(port);
    get_both(c, 1, "/defer", 3, "/hello");
    assert_int_equal(S(c, 1)->status, 200);
    assert_int_equal(S(c, 1)->len, 8);
    assert_memory_equal(S(c, 1)->body, "deferred", 8);
    assert_int_equal(S(c, 3)->status, 200);
    hc_close(c);
}

H2_TEST(held_deferred_closer_never_blocks) {
    hc *c = hc_open_window(port, 0);
    atomic_store(&held_close_ms, -2);
    req(c, 1, "GET", "/helddefer", 1);
    long t0 = ts_now_ms();
    while (atomic_load(&held_close_ms) == -2 && ts_now_ms() - t0 < 5000)
        ts_sleep_ms(5);
    long took = atomic_load(&held_close_ms);
    assert_true(took >= 0);
    assert_true(took < 200 || ts_under_valgrind());
    window_update(c, 0, 1 << 20);
    window_update(c, 1, 1 << 20);
    assert_true(wait_stream(c, 1, 5000));
    assert_int_equal(S(c, 1)->status, 200);
    expect_pattern(S(c, 1), 100000);
    hc_close(c);
}

H2_TEST(held_exchange_read) {
    atomic_store(&held_read, 1);
    hc *c = hc_open(port);
    req(c, 1, "POST", "/held", 0); /* no body bytes yet: the stream stays open */
    assert_true(wait_stream(c, 1, 5000));
    assert_int_equal(S(c, 1)->status, 200);
    assert_int_equal(atomic_load(&held_read), TACHY_EWOULDBLOCK);
    hc_close(c);
}

/* A drain with a stream in flight: GOAWAY, the stream finishes, the server stops. */
H2_TEST(drain_with_stream) {
    int p2;
    tachy_server *s2 = second_server(0, 0, &p2);
    hc *c = hc_open(p2);
    hc *idle = hc_open(p2);
    req(c, 1, "GET", "/sleep", 1);
    ts_sleep_ms(50);
    long t0 = ts_now_ms();
    assert_int_equal(tachy_server_drain(s2, 5000), 0);
    long took = ts_now_ms() - t0;
    assert_true(wait_stream(c, 1, 5000));
    expect_hello(S(c, 1));
    assert_true(c->goaway == E_NO || (wait_goaway(c, 1000) && c->goaway == E_NO));
    assert_true(wait_eof(c, 2000));
    assert_true(wait_eof(idle, 2000));
    assert_true(took < 3000);
    hc_close(c);
    hc_close(idle);
    tachy_server_destroy(s2);
}

/* RSS of this process in KiB. */
static long rss_kib(void) {
    return ts_proc_status("VmRSS");
}

/* n idle connections, each after one request (h2: by prior knowledge, else HTTP/1.1),
 * opened by a child process (so that the client's memory is not in the figure): the
 * server's RSS growth per connection in bytes, and its thread count's. */
static long idle_cost(int h2, int n, int *threads_delta, long *heap) {
    wait_no_connections();
    int up[2], down[2];
    assert_int_equal(pipe(up), 0);
    assert_int_equal(pipe(down), 0);
    long before = rss_kib();
    size_t heap0 = mallinfo2().uordblks;
    int t0 = ts_thread_count();
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char ok = 1;
        for (int i = 0; i < n && ok; i++) {
            int fd = ts_connect(port);
            if (h2) {
                static const char hello_req[] = "\x00\x00\x00\x04\x00\x00\x00\x00\x00";
                hb b = hb_request("GET", "/hello");
                uint8_t h[9] = {(uint8_t)(b.len >> 16), (uint8_t)(b.len >> 8), (uint8_t)b.len,
                                F_HEADERS, FL_END_HEADERS | FL_END_STREAM, 0, 0, 0, 1};
                ok = send(fd, preface, 24, 0) == 24 && send(fd, hello_req, 9, 0) == 9 &&
                     send(fd, h, 9, 0) == 9 && send(fd, b.p, b.len, 0) == (ssize_t)b.len;
                free(b.p);
                /* up to the response's DATA (the body ends in "2.0") */
                char buf[4096];
                size_t got = 0;
                while (ok && (got < 3 || !memmem(buf, got, "HTTP/2.0", 8))) {
                    ssize_t r = recv(fd, buf + got, sizeof buf - got, 0);
                    ok = r > 0;
                    got += r > 0 ? (size_t)r : 0;
                    if (got == sizeof buf)
                        got = 0;
                }
            } else {
                const char *r = "GET /hello HTTP/1.1\r\nHost: x\r\n\r\n";
                char buf[512];
                ok = send(fd, r, strlen(r), 0) == (ssize_t)strlen(r) &&
                     recv(fd, buf, sizeof buf, 0) > 0;
            }
        }
        (void)!write(up[1], &ok, 1);
        char x;
        (void)!read(down[0], &x, 1);
        _exit(0);
    }
    char ok = 0;
    assert_int_equal(read(up[0], &ok, 1), 1);
    assert_int_equal(ok, 1);
    ts_sleep_ms(300);
    long after = rss_kib();
    *heap = ((long)mallinfo2().uordblks - (long)heap0) / n;
    *threads_delta = ts_thread_count() - t0;
    assert_int_equal(tachy_server_connection_count(srv), n);
    (void)!write(down[1], &ok, 1);
    int status;
    waitpid(pid, &status, 0);
    close(up[0]), close(up[1]), close(down[0]), close(down[1]);
    wait_no_connections();
    return (after - before) * 1024 / n;
}

H2_TEST(idle_connections_cost) {
    int n = ts_under_valgrind() ? 50 : 1000;
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    if (rl.rlim_cur < (rlim_t)(n + 100))
        n = (int)rl.rlim_cur - 100;
    int th1, th2;
    long heap1, heap2;
    long h1 = idle_cost(0, n, &th1, &heap1);
    long h2 = idle_cost(1, n, &th2, &heap2);
    fprintf(stderr, "test_h2: %d idle connections: RSS HTTP/1.1 %ld B each, HTTP/2 %ld B each; "
                    "malloc'ed %ld / %ld B each; server threads +%d / +%d\n",
            n, h1, h2, heap1, heap2, th1, th2);
    assert_true(th2 <= 2); /* no thread per idle connection */
    if (!ts_under_valgrind())
        assert_true(h2 <= 4 * (h1 > 4096 ? h1 : 4096)); /* issue 25's target is 2x: reported */
}

/* ---- TLS with ALPN h2 ----------------------------------------------------------------- */

typedef struct tls_env {
    EVP_PKEY *k;
    X509 *x;
    tachy_tls_config *cfg;
    tachy_server *s;
    SSL_CTX *cctx;
    int port;
} tls_env;

/* An HTTPS server (self-signed, its test contexts) and a client context. */
static void tls_up(tls_env *e) {
    e->k = EVP_EC_gen("P-256");
    e->x = X509_new();
    X509 *x = e->x;
    X509_set_version(x, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
    X509_gmtime_adj(X509_getm_notBefore(x), -3600);
    X509_gmtime_adj(X509_getm_notAfter(x), 86400);
    X509_set_pubkey(x, e->k);
    X509_NAME *name = X509_get_subject_name(x);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)"localhost", -1, -1, 0);
    X509_set_issuer_name(x, name);
    assert_true(X509_sign(x, e->k, EVP_sha256()) > 0);
    BIO *cb = BIO_new(BIO_s_mem()), *kb = BIO_new(BIO_s_mem());
    PEM_write_bio_X509(cb, x);
    PEM_write_bio_PrivateKey(kb, e->k, NULL, NULL, 0, NULL, NULL);
    char *cp, *kp;
    long cl = BIO_get_mem_data(cb, &cp), kl = BIO_get_mem_data(kb, &kp);
    assert_int_equal(tachy_tls_config_create(&e->cfg), 0);
    assert_int_equal(tachy_tls_config_load_pem(e->cfg, cp, (size_t)cl, kp, (size_t)kl, NULL), 0);
    BIO_free(cb);
    BIO_free(kb);
    tachy_options o;
    opts(&o);
    assert_int_equal(tachy_https_server_create(&e->s, "127.0.0.1", 0, 0, &o, e->cfg), 0);
    contexts(e->s);
    e->port = ts_start(e->s);
    e->cctx = SSL_CTX_new(TLS_client_method());
}

/* A TLS connection offering h2 and http/1.1 by ALPN: h2 must be chosen. Non-blocking once
 * the handshake is done (fill and raw_send wait themselves). */
static hc *tls_open(tls_env *e) {
    SSL *ssl = SSL_new(e->cctx);
    int fd = ts_connect(e->port);
    SSL_set_fd(ssl, fd);
    SSL_set_alpn_protos(ssl, (const unsigned char *)"\x02h2\x08http/1.1", 12);
    assert_int_equal(SSL_connect(ssl), 1);
    const unsigned char *alpn;
    unsigned alen;
    SSL_get0_alpn_selected(ssl, &alpn, &alen);
    assert_int_equal(alen, 2);
    assert_memory_equal(alpn, "h2", 2);
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    hc *c = hc_new(fd, ssl);
    hc_hello(c, NULL, 0);
    return c;
}

static void tls_down(tls_env *e) {
    SSL_CTX_free(e->cctx);
    ts_stop(e->s);
    tachy_tls_config_free(e->cfg);
    X509_free(e->x);
    EVP_PKEY_free(e->k);
}

H2_TEST(tls_alpn_h2) {
    tls_env e;
    tls_up(&e);
    hc *c = tls_open(&e);
    expect_hello(get(c, 1, "/hello", 200));
    hc_close(c);
    tls_down(&e);
}

/* Over TLS, streams whose handlers read, write and sleep at once (the reader and the
 * senders take turns on the one SSL: h2->xp_lock): a 1 MiB echo, a 1 MiB download, a slow
 * stream. */
H2_TEST(tls_concurrent_streams) {
    tls_env e;
    tls_up(&e);
    hc *c = getenv("TEST_H2_PLAIN") ? hc_open(port) : tls_open(&e);
    uint8_t *body = pattern_new(BIG);
    req(c, 1, "POST", "/echo", 0);
    req(c, 3, "GET", "/big", 1);
    req(c, 5, "GET", "/sleep", 1);
    send_body(c, 1, body, BIG, 1);
    assert_true(wait_stream(c, 1, 10000));
    assert_true(wait_stream(c, 3, 10000));
    assert_true(wait_stream(c, 5, 10000));
    assert_int_equal(S(c, 1)->status, 200);
    expect_pattern(S(c, 1), BIG);
    expect_pattern(S(c, 3), BIG);
    assert_int_equal(S(c, 5)->status, 200);
    free(body);
    hc_close(c);
    tls_down(&e);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(get_prior_knowledge),
        cmocka_unit_test(post_echo_1mib),
        cmocka_unit_test(unread_body_does_not_stall),
        cmocka_unit_test(slow_stream_does_not_block),
        cmocka_unit_test(flow_control_paces_writer),
        cmocka_unit_test(client_reset_mid_response),
        cmocka_unit_test(zero_window_forever),
        cmocka_unit_test(peer_gone_while_handlers_wait),
        cmocka_unit_test(stop_with_streams_in_flight),
        cmocka_unit_test(expect_continue_and_trailers),
        cmocka_unit_test(concurrent_echoes),
        cmocka_unit_test(close_after_response),
        cmocka_unit_test(idle_timeout_goaway),
        cmocka_unit_test(idle_timeout_with_unfinished_request),
        cmocka_unit_test(http2_option_bits),
        cmocka_unit_test(abrupt_close_mid_transfer),
        cmocka_unit_test(upgrade_h2c),
        cmocka_unit_test(upgrade_stream_reset),
        cmocka_unit_test(max_concurrent_streams),
        cmocka_unit_test(lower_stream_id),
        cmocka_unit_test(continuation_flood),
        cmocka_unit_test(rapid_reset),
        cmocka_unit_test(header_list_too_big),
        cmocka_unit_test(hpack_bomb),
        cmocka_unit_test(ping_flood),
        cmocka_unit_test(settings_flood),
        cmocka_unit_test(window_overflow),
        cmocka_unit_test(smuggling),
        cmocka_unit_test(deferred_exchange),
        cmocka_unit_test(held_exchange_read),
        cmocka_unit_test(held_deferred_closer_never_blocks),
        cmocka_unit_test(drain_with_stream),
        cmocka_unit_test(idle_connections_cost),
        cmocka_unit_test(tls_alpn_h2),
        cmocka_unit_test(tls_concurrent_streams),
    };
    if (getenv("TEST_H2_ONLY")) /* one test by name (debugging) */
        cmocka_set_test_filter(getenv("TEST_H2_ONLY"));
    return cmocka_run_group_tests(tests, setup, teardown);
}
