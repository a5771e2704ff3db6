/*
 * exchange.c - the request/response state machine of one exchange (HttpExchange).
 *
 * The JDK's ExchangeImpl is the specification for everything a handler can observe:
 * sendResponseHeaders framing, which responses carry no body, Date and Content-length,
 * HTTP/1.0 keep-alive replies, 100-continue, draining unread request bodies on close,
 * and close() without headers closing the connection.
 */
#include "conn.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* ---- setup and teardown ------------------------------------------------------------- */

static int hexdig(unsigned char c) {
    return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}

/*
 * Whether java.net.URI(String) accepts the request-target (RFC 2396 as Java reads it), so
 * that tachy refuses exactly what the JDK refuses: the ASCII characters " < > \ ^ ` { | }
 * [ ] (brackets only belong around an IPv6 host), a '%' not followed by two hex digits, a
 * second '#', and the ISO-8859-1 control and space characters 0x80-0xA0 (the JDK reads
 * the bytes as ISO-8859-1; other non-ASCII characters are URI "other" characters).
 */
static int uri_acceptable(const char *t, size_t n) {
    int hashes = 0;
    const char *host_end = NULL;
    /* brackets are fine inside the authority of an absolute URI ("http://[::1]:80/") */
    const char *sep = n > 0 && t[0] != '/' ? memmem(t, n, "://", 3) : NULL;
    if (sep) {
        const char *a = sep + 3;
        host_end = a;
        while (host_end < t + n && *host_end != '/' && *host_end != '?' && *host_end != '#')
            host_end++;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)t[i];
        switch (c) {
        case '"': case '<': case '>': case '\\': case '^': case '`': case '{': case '|':
        case '}':
            return 0;
        case '[': case ']':
            if (!host_end || t + i >= host_end)
                return 0;
            break;
        case '%':
            if (i + 2 >= n || !hexdig((unsigned char)t[i + 1]) || !hexdig((unsigned char)t[i + 2]))
                return 0;
            break;
        case '#':
            if (++hashes > 1)
                return 0;
            break;
        default:
            if (c >= 0x80 && c <= 0xA0)
                return 0;
        }
    }
    return 1;
}

int tachy__exchange_begin(tachy_exchange *ex, tachy__conn *c, const tachy__request *req,
                          const tachy__framing *fr) {
    ex->conn = c;
    if (!ex->req_headers && tachy_headers_create(&ex->req_headers) < 0)
        return TACHY_ENOMEM;
    if (!ex->rsp_headers && tachy_headers_create(&ex->rsp_headers) < 0)
        return TACHY_ENOMEM;

    /* The JDK answers 400 "URISyntaxException thrown" for a target java.net.URI refuses. */
    if (!uri_acceptable(req->target.base, req->target.len))
        return TACHY_EPROTO;
    /* Strings: method, uri, protocol, decoded path, raw query. Offsets first, pointers
     * after (the buffer may move while it grows). */
    tachy__buf *b = &ex->strs;
    tachy__buf_reset(b);
    const char *t = req->target.base;
    size_t tlen = req->target.len;
    /* Path part of the target: skip "scheme://authority" of an absolute-form target
     * (RFC 9112 3.2.2), stop at '?' or '#'. */
    size_t ps = 0;
    if (tlen > 1 && t[0] == '/' && t[1] == '/') {
        /* "//host/x": java.net.URI reads an authority here, so the JDK's path is "/x"
         * (and "" for "//host"); the context is matched on that. */
        ps = 2;
        while (ps < tlen && t[ps] != '/' && t[ps] != '?' && t[ps] != '#')
            ps++;
    } else if (tlen > 0 && t[0] != '/' && t[0] != '*') {
        const char *sep = memmem(t, tlen, "://", 3);
        if (sep) {
            ps = (size_t)(sep - t) + 3;
            while (ps < tlen && t[ps] != '/' && t[ps] != '?' && t[ps] != '#')
                ps++;
        }
    }
    size_t pe = ps;
    while (pe < tlen && t[pe] != '?' && t[pe] != '#')
        pe++;
    size_t qs = tlen, qe = tlen; /* raw query [qs, qe), when there is one */
    int has_query = pe < tlen && t[pe] == '?';
    if (has_query) {
        qs = pe + 1;
        for (qe = qs; qe < tlen && t[qe] != '#';)
            qe++;
    }
    size_t plen = pe - ps;
    /* The header fields are copied raw, in one piece; the headers object is filled from
     * them only if someone asks for it (most handlers never look at request headers). */
    const char *hbase = NULL;
    size_t hlen = 0;
    if (req->num_headers > 0) {
        const tachy__header_ref *last = &req->headers[req->num_headers - 1];
        hbase = req->headers[0].name.base;
        hlen = (size_t)(last->value.base + last->value.len - hbase);
    }
    /* One reservation for every string (each with its NUL), then plain copies. */
    size_t need = req->method.len + tlen + req->version.len + (qe - qs) + plen + hlen + 5;
    if (need < tlen || tachy__buf_reserve(b, need) < 0)
        return TACHY_ENOMEM;
    char *base = b->data, *w = base;
#define PUT(src, n)                                                                                \
    do {                                                                                           \
        memcpy(w, (src), (n));                                                                     \
        w += (n);                                                                                  \
        *w++ = '\0';                                                                               \
    } while (0)
    const char *method = w;
    PUT(req->method.base, req->method.len);
    const char *uri = w;
    PUT(t, tlen);
    const char *protocol = w;
    PUT(req->version.base, req->version.len);
    const char *query = NULL;
    if (has_query) {
        query = w;
        PUT(t + qs, qe - qs);
    }
#undef PUT
    const char *path = w;
    if (plen > 0) {
        ssize_t dl = tachy__percent_decode(t + ps, plen, w, plen + 1);
        if (dl < 0)
            return TACHY_ENOMEM;
        /* "%00" would cut the C string short and let "/a.txt%00.jpg" pass for "/a.txt":
         * refused (a deliberate difference from the JDK, which keeps the NUL). Only a
         * decoded escape can produce one, and each shortens the path. */
        if ((size_t)dl != plen && memchr(w, '\0', (size_t)dl))
            return TACHY_EINVAL;
        w += dl;
    } /* else URI.getPath() is "": no context matches it (paths start with '/') */
    *w++ = '\0';
    char *hcopy = w;
    if (hlen > 0) {
        memcpy(w, hbase, hlen);
        w += hlen;
    }
    b->len = (size_t)(w - base);
    /* Every append is done: pointers into the store are stable from here on. */
    ex->method = method;
    ex->uri = uri;
    ex->protocol = protocol;
    ex->query = query;
    ex->path = path;
    ex->lazy = c->refs;
    ex->nlazy = req->num_headers;
    for (size_t i = 0; i < req->num_headers; i++) {
        tachy__header_ref *h = &c->refs[i];
        h->name.base = hcopy + (h->name.base - hbase);
        h->value.base = hcopy + (h->value.base - hbase);
    }

    ex->http10 = req->minor_version == 0;
    ex->is_head = req->method.len == 4 && memcmp(req->method.base, "HEAD", 4) == 0;
    ex->framing = *fr;
    /* maxReqTime: the whole request, body included, within the limit of its first byte.
     * (The watchdog enforces it; a handler blocked reading a stalled body is woken.) */
    if (c->srv->opt.max_req_time_ms > 0)
        atomic_store(&c->io_deadline, c->head_started + c->srv->opt.max_req_time_ms);
    ex->body_left = fr->chunked ? -1 : (fr->content_length > 0 ? fr->content_length : 0);
    ex->body_eof = !fr->chunked && ex->body_left == 0;
    if (fr->chunked)
        tachy__chunked_init(&ex->chunked, c->srv->opt.max_chunk_ext, 65536);
    ex->rsp_code = -1;
    ex->rsp_mode = TACHY__RSP_NONE;

    /* Connection management, as the JDK's ServerImpl decides it before the handler runs. */
    if (fr->connection_close)
        c->close_after = 1;
    if (ex->http10) {
        if (fr->connection_keep_alive && !fr->connection_close) {
            char ka[64];
            long idle = c->srv->opt.idle_interval_ms / 1000;
            if (c->srv->opt.http10_keepalive_max)
                snprintf(ka, sizeof ka, "timeout=%ld, max=%d", idle,
                         c->srv->opt.max_idle_connections);
            else
                snprintf(ka, sizeof ka, "timeout=%ld", idle);
            tachy_headers_set(ex->rsp_headers, "Connection", "keep-alive");
            tachy_headers_set(ex->rsp_headers, "Keep-Alive", ka);
        } else {
            c->close_after = 1;
            tachy_headers_set(ex->rsp_headers, "Connection", "close");
        }
    }
    return 0;
}

static void attrs_clear(tachy_exchange *ex) {
    for (size_t i = 0; i < ex->nattrs; i++)
        free(ex->attrs[i].name);
    free(ex->attrs);
    ex->attrs = NULL;
    ex->nattrs = 0;
}

void tachy__exchange_end(tachy_exchange *ex) {
    if (ex->conn && atomic_load_explicit(&ex->conn->io_deadline, memory_order_relaxed))
        atomic_store(&ex->conn->io_deadline, 0);
    if (ex->ctx) {
        tachy__context_release(ex->ctx);
        ex->ctx = NULL;
    }
    attrs_clear(ex);
    free(ex->principal_user);
    free(ex->principal_realm);
    ex->principal_user = ex->principal_realm = NULL;
    if (ex->req_headers)
        tachy_headers_clear(ex->req_headers);
    if (ex->rsp_headers)
        tachy_headers_clear(ex->rsp_headers);
    tachy__buf_reset(&ex->pending);
    /* Keep the reusable allocations, reset every state field. */
    tachy_headers *rq = ex->req_headers, *rs = ex->rsp_headers;
    tachy__buf strs = ex->strs, pending = ex->pending;
    tachy__conn *c = ex->conn;
    memset(ex, 0, sizeof *ex);
    ex->req_headers = rq;
    ex->rsp_headers = rs;
    ex->strs = strs;
    ex->pending = pending;
    ex->conn = c;
}

void tachy__exchange_free(tachy_exchange *ex) {
    tachy__exchange_end(ex);
    tachy_headers_destroy(ex->req_headers);
    tachy_headers_destroy(ex->rsp_headers);
    tachy__buf_free(&ex->strs);
    tachy__buf_free(&ex->pending);
    ex->req_headers = ex->rsp_headers = NULL;
}

/* Marks the exchange as broken: the connection closes after it. */
static int fail(tachy_exchange *ex, int rc) {
    ex->failed = 1;
    ex->conn->close_after = 1;
    return rc;
}

/* ---- request getters ---------------------------------------------------------------- */

TACHY_API const char *tachy_exchange_request_method(const tachy_exchange *ex) {
    return ex ? ex->method : NULL;
}
TACHY_API const char *tachy_exchange_request_uri(const tachy_exchange *ex) {
    return ex ? ex->uri : NULL;
}
TACHY_API const char *tachy_exchange_request_path(const tachy_exchange *ex) {
    return ex ? ex->path : NULL;
}
TACHY_API const char *tachy_exchange_request_query(const tachy_exchange *ex) {
    return ex ? ex->query : NULL;
}
TACHY_API const char *tachy_exchange_protocol(const tachy_exchange *ex) {
    return ex ? ex->protocol : NULL;
}
TACHY_API tachy_headers *tachy_exchange_request_headers(tachy_exchange *ex) {
    if (!ex)
        return NULL;
    if (ex->nlazy) {
        /* First look at the request headers: build them from the parsed fields. */
        for (size_t i = 0; i < ex->nlazy; i++) {
            const tachy__header_ref *h = &ex->lazy[i];
            if (tachy__headers_add_trusted(ex->req_headers, h->name.base, h->name.len,
                                           h->value.base, h->value.len) < 0)
                break; /* out of memory: what was added is what the handler gets */
        }
        ex->nlazy = 0;
    }
    return ex->req_headers;
}
TACHY_API ssize_t tachy_exchange_request_fields(tachy_exchange *ex, tachy_field_fn fn, void *user) {
    if (!ex || !fn)
        return TACHY_EINVAL;
    ssize_t n = 0;
    if (ex->nlazy == 0) { /* built (or there are none): its pairs, as a filter left them */
        size_t cur = 0, nl, vl;
        const char *name, *value;
        while (tachy__headers_next_n(ex->req_headers, &cur, &name, &nl, &value, &vl)) {
            fn(user, name, nl, value, vl);
            n++;
        }
        return n;
    }
    char stack[256];
    for (size_t i = 0; i < ex->nlazy; i++) {
        const tachy__header_ref *h = &ex->lazy[i];
        char *name = h->name.len <= sizeof stack ? stack : malloc(h->name.len);
        if (!name)
            return TACHY_ENOMEM;
        tachy__headers_normalize_n(name, h->name.base, h->name.len);
        fn(user, name, h->name.len, h->value.base, h->value.len);
        if (name != stack)
            free(name);
        n++;
    }
    return n;
}
TACHY_API tachy_headers *tachy_exchange_response_headers(tachy_exchange *ex) {
    return ex ? ex->rsp_headers : NULL;
}
TACHY_API int64_t tachy_exchange_request_content_length(const tachy_exchange *ex) {
    if (!ex)
        return TACHY_EINVAL;
    if (ex->framing.chunked)
        return -1;
    return ex->framing.content_length > 0 ? ex->framing.content_length : 0;
}
TACHY_API tachy_context *tachy_exchange_context(const tachy_exchange *ex) {
    return ex ? ex->ctx : NULL;
}
TACHY_API int tachy_exchange_response_code(const tachy_exchange *ex) {
    return ex ? ex->rsp_code : TACHY_EINVAL;
}
TACHY_API int tachy_exchange_is_secure(const tachy_exchange *ex) {
    return ex && ex->conn && ex->conn->xp ? 1 : 0; /* every non-plain transport is TLS */
}

/* ---- request body ------------------------------------------------------------------- */

/* Blocking recv for body bytes straight into the caller's buffer (no copy through rbuf);
 * pending output is flushed first so no response waits while we block. */
static ssize_t recv_direct(tachy__conn *c, void *buf, size_t len) {
    int rc = tachy__conn_flush(c);
    if (rc < 0)
        return rc;
    if (c->xp) {
        ssize_t n = c->xp->read(c, buf, len, 0);
        if (n > 0 && c->xp->pending(c))
            c->last_read_full = 1; /* the next request may already be decoded: look again */
        return n;
    }
    for (;;) {
        ssize_t n = recv(c->fd, buf, len, 0);
        if (n >= 0)
            return n;
        if (errno == EINTR)
            continue;
        return errno == EAGAIN || errno == EWOULDBLOCK ? TACHY_ETIMEDOUT
               : errno == ECONNRESET                   ? TACHY_EPEERCLOSED
                                                       : TACHY_EIO;
    }
}

static ssize_t read_fixed(tachy_exchange *ex, char *buf, size_t len) {
    tachy__conn *c = ex->conn;
    size_t want = (size_t)TACHY__MIN((int64_t)len, ex->body_left);
    size_t have = tachy__buf_size(&c->rbuf);
    ssize_t n;
    if (have > 0) {
        n = (ssize_t)TACHY__MIN(want, have);
        memcpy(buf, c->rbuf.data + c->rbuf.off, (size_t)n);
        tachy__buf_consume(&c->rbuf, (size_t)n);
    } else {
        n = recv_direct(c, buf, want);
        if (n == 0)
            n = TACHY_ETRUNCATED;
        if (n < 0)
            return n;
    }
    ex->body_left -= n;
    if (ex->body_left == 0)
        ex->body_eof = 1;
    return n;
}

/* Decodes every chunked byte already buffered in rbuf into ex->pending (the one place the
 * chunked decoder is driven). 0, or TACHY_EPROTO (bad framing) / TACHY_ENOMEM. */
static int decode_buffered(tachy_exchange *ex) {
    tachy__buf *rb = &ex->conn->rbuf;
    while (tachy__buf_size(rb) > 0 && !ex->body_eof) {
        size_t consumed = 0, doff = 0, dlen = 0;
        tachy__parse_error perr;
        const char *in = rb->data + rb->off;
        int rc = tachy__chunked_decode(&ex->chunked, in, tachy__buf_size(rb), &consumed, &doff,
                                       &dlen, &perr);
        if (rc == TACHY__PARSE_ERROR)
            return TACHY_EPROTO;
        if (dlen && tachy__buf_append(&ex->pending, in + doff, dlen) < 0)
            return TACHY_ENOMEM;
        tachy__buf_consume(rb, consumed);
        if (rc == 1)
            ex->body_eof = 1;
        if (consumed == 0)
            break;
    }
    return 0;
}

static ssize_t read_chunked(tachy_exchange *ex, char *buf, size_t len) {
    for (;;) {
        int rc = decode_buffered(ex);
        if (rc < 0)
            return rc;
        size_t pend = tachy__buf_size(&ex->pending);
        if (pend > 0) {
            size_t n = TACHY__MIN(len, pend);
            memcpy(buf, ex->pending.data + ex->pending.off, n);
            tachy__buf_consume(&ex->pending, n);
            return (ssize_t)n;
        }
        if (ex->body_eof)
            return 0;
        ssize_t f = tachy__conn_fill(ex->conn);
        if (f == 0)
            return TACHY_ETRUNCATED;
        if (f < 0)
            return f;
    }
}

TACHY_API ssize_t tachy_exchange_read(tachy_exchange *ex, void *buf, size_t len) {
    if (!ex || (!buf && len))
        return TACHY_EINVAL;
    if (ex->body_closed || ex->upgraded)
        return TACHY_ECLOSED;
    if (ex->body_error)
        return ex->body_error;
    if (len == 0)
        return 0;
    if (ex->body_eof && tachy__buf_size(&ex->pending) == 0)
        return 0;
    ssize_t n = ex->framing.chunked ? read_chunked(ex, buf, len) : read_fixed(ex, buf, len);
    if (n < 0) {
        ex->body_error = (int)n;
        fail(ex, (int)n);
    }
    return n;
}

TACHY_API ssize_t tachy_exchange_available(tachy_exchange *ex) {
    if (!ex)
        return TACHY_EINVAL;
    if (ex->body_closed)
        return TACHY_ECLOSED;
    if (ex->body_eof)
        return (ssize_t)tachy__buf_size(&ex->pending);
    if (ex->framing.chunked) {
        /* Decode what is buffered so the answer is not 0 while data is there. */
        if (tachy__buf_size(&ex->pending) == 0 && decode_buffered(ex) < 0)
            return 0; /* the error surfaces at the next read */
        return (ssize_t)tachy__buf_size(&ex->pending);
    }
    return (ssize_t)TACHY__MIN((int64_t)tachy__buf_size(&ex->conn->rbuf), ex->body_left);
}

/* Reads and discards up to limit body bytes. Returns 1 if the body ended, 0 if not. */
static int drain(tachy_exchange *ex, long limit) {
    char sink[8192];
    long total = 0;
    while (!ex->body_error) {
        if (ex->body_eof && tachy__buf_size(&ex->pending) == 0)
            return 1;
        if (total >= limit)
            return 0;
        size_t want = (size_t)TACHY__MIN((long)sizeof sink, limit - total);
        ssize_t n = tachy_exchange_read(ex, sink, want);
        if (n <= 0)
            return n == 0;
        total += n;
    }
    return 0;
}

TACHY_API int tachy_exchange_request_body_close(tachy_exchange *ex) {
    if (!ex)
        return TACHY_EINVAL;
    if (ex->body_closed)
        return 0;
    if (!ex->upgraded && !drain(ex, ex->conn->srv->opt.drain_amount))
        ex->conn->close_after = 1; /* too much left (or an error): do not reuse */
    ex->body_closed = 1;
    return 0;
}

/* ---- response ----------------------------------------------------------------------- */

/* The JDK's reason phrases (sun.net.httpserver.Code): codes outside its table get an
 * empty phrase, giving the JDK's "HTTP/1.1 207 " with a trailing space. */
/* The reason phrase of code (the JDK's table; "" for codes it has none for) and its
 * length. */
static const char *reason_phrase(int code, size_t *len) {
#define R(s) return (*len = sizeof s - 1), s
    switch (code) {
    case 100: R("Continue");
    case 200: R("OK");
    case 201: R("Created");
    case 202: R("Accepted");
    case 203: R("Non-Authoritative Information");
    case 204: R("No Content");
    case 205: R("Reset Content");
    case 206: R("Partial Content");
    case 300: R("Multiple Choices");
    case 301: R("Moved Permanently");
    case 302: R("Temporary Redirect");
    case 303: R("See Other");
    case 304: R("Not Modified");
    case 305: R("Use Proxy");
    case 400: R("Bad Request");
    case 401: R("Unauthorized");
    case 402: R("Payment Required");
    case 403: R("Forbidden");
    case 404: R("Not Found");
    case 405: R("Method Not Allowed");
    case 406: R("Not Acceptable");
    case 407: R("Proxy Authentication Required");
    case 408: R("Request Time-Out");
    case 409: R("Conflict");
    case 410: R("Gone");
    case 411: R("Length Required");
    case 412: R("Precondition Failed");
    case 413: R("Request Entity Too Large");
    case 414: R("Request-URI Too Large");
    case 415: R("Unsupported Media Type");
    case 500: R("Internal Server Error");
    case 501: R("Not Implemented");
    case 502: R("Bad Gateway");
    case 503: R("Service Unavailable");
    case 504: R("Gateway Timeout");
    case 505: R("HTTP Version Not Supported");
    default: R("");
    }
#undef R
}

/* The next response header for the head: from the headers object (it refused CR/LF/NUL
 * when they were added) or from a caller's field array (checked here). */
typedef struct head_src {
    const tachy_headers *h;
    const tachy_field *f;
    size_t n, cur;
} head_src;

static int head_next(head_src *s, const char **name, size_t *nl, const char **value, size_t *vl) {
    if (s->h)
        return tachy__headers_next_n(s->h, &s->cur, name, nl, value, vl);
    if (s->cur >= s->n)
        return 0;
    const tachy_field *f = &s->f[s->cur++];
    *name = f->name;
    *nl = f->name_len;
    *value = f->value_len ? f->value : "";
    *vl = f->value_len;
    return 1;
}

/* 1 if s[0,n) holds CR, LF or NUL (a header that would split the response). */
static int field_forbidden(const char *s, size_t n) {
    return memchr(s, '\r', n) || memchr(s, '\n', n) || memchr(s, '\0', n);
}

static int send_head(tachy_exchange *ex, int code, int64_t len, head_src *src);

TACHY_API int tachy_exchange_send_response_headers(tachy_exchange *ex, int code, int64_t len) {
    if (!ex)
        return TACHY_EINVAL;
    head_src src = {ex->rsp_headers, NULL, 0, 0};
    return send_head(ex, code, len, &src);
}

TACHY_API int tachy_exchange_send_response_fields(tachy_exchange *ex, int code, int64_t len,
                                                  const tachy_field *fields, size_t n) {
    if (!ex || (n && !fields))
        return TACHY_EINVAL;
    for (size_t i = 0; i < n; i++)
        if (!fields[i].name || fields[i].name_len == 0 || (fields[i].value_len && !fields[i].value))
            return TACHY_EINVAL;
    for (size_t i = 0; i < n; i++)
        if (field_forbidden(fields[i].name, fields[i].name_len) ||
            (fields[i].value_len && field_forbidden(fields[i].value, fields[i].value_len)))
            return TACHY_EBADHEADER;
    head_src src = {NULL, fields, n, 0};
    return send_head(ex, code, len, &src);
}

static int send_head(tachy_exchange *ex, int code, int64_t len, head_src *src) {
    if (ex->closed)
        return TACHY_ECLOSED;
    if (ex->rsp_code >= 0)
        return TACHY_EHDRSENT;
    if (code < 0 || code > 999 || len < -1) /* the JDK sends "HTTP/1.1 99 " as given */
        return TACHY_EINVAL;
    tachy__conn *c = ex->conn;

    int no_length_header = 0;
    if ((code >= 100 && code < 200) || code == 204 || code == 304) {
        if (len != -1)
            tachy__log(c->srv, TACHY_LOG_WARNING,
                       "sendResponseHeaders: rCode = %d: forcing contentLen = -1", code);
        len = -1;
        no_length_header = code != 304;
    }
    /* The framing header tachy writes itself (the JDK sets it, replacing any the handler
     * set): none, "Transfer-encoding: chunked" or "Content-length: N". */
    enum { FRAMING_NONE, FRAMING_CHUNKED, FRAMING_LENGTH } framing = FRAMING_NONE;
    int mode;
    if (ex->is_head || code == 304) {
        if (len >= 0)
            tachy__log(c->srv, TACHY_LOG_WARNING,
                       "sendResponseHeaders: being invoked with a content length for a HEAD "
                       "request");
        mode = TACHY__RSP_EMPTY;
    } else if (len == 0) {
        if (ex->http10) {
            mode = TACHY__RSP_UNTIL_CLOSE;
            c->close_after = 1;
        } else {
            mode = TACHY__RSP_CHUNKED;
            framing = FRAMING_CHUNKED;
        }
    } else {
        mode = len == -1 ? TACHY__RSP_EMPTY : TACHY__RSP_FIXED;
        if (!no_length_header)
            framing = FRAMING_LENGTH;
    }

    /* Status line, Date (always, from the per-thread cache), the handler's headers except
     * the ones tachy owns, the framing header, the empty line. */
    tachy__buf *w = &c->wbuf;
    size_t pl;
    const char *phrase = reason_phrase(code, &pl);
    if (tachy__buf_reserve(w, 15 + pl + 8 + TACHY__DATE_LEN) < 0)
        return fail(ex, TACHY_ENOMEM);
    char *line = w->data + w->len;
    memcpy(line, "HTTP/1.1 ", 9);
    size_t cl = 9;
    if (code >= 100)
        line[cl++] = (char)('0' + code / 100);
    if (code >= 10)
        line[cl++] = (char)('0' + code / 10 % 10);
    line[cl++] = (char)('0' + code % 10);
    line[cl++] = ' ';
    memcpy(line + cl, phrase, pl);
    line[cl + pl] = '\r';
    line[cl + pl + 1] = '\n';
    char *d = line + cl + pl + 2;
    memcpy(d, "Date: ", 6);
    char date[TACHY__DATE_LEN + 1];
    tachy__date_now(date);
    memcpy(d + 6, date, TACHY__DATE_LEN);
    d[6 + TACHY__DATE_LEN] = '\r';
    d[7 + TACHY__DATE_LEN] = '\n';
    w->len += cl + pl + 2 + 8 + TACHY__DATE_LEN;
    size_t nl, vl;
    const char *name, *value;
    while (head_next(src, &name, &nl, &value, &vl)) {
        /* Names are normalised ("Content-length"), so exact comparisons suffice. Like the
         * JDK's set(), ours replaces the handler's header only when we write one. */
        if ((nl == 4 && memcmp(name, "Date", 4) == 0) ||
            (nl == 14 && framing == FRAMING_LENGTH && memcmp(name, "Content-length", 14) == 0) ||
            (nl == 17 && framing == FRAMING_CHUNKED &&
             memcmp(name, "Transfer-encoding", 17) == 0))
            continue;
        /* A handler that answers "Connection: close" gets it honoured. */
        if (nl == 10 && memcmp(name, "Connection", 10) == 0 && vl == 5 &&
            strncasecmp(value, "close", 5) == 0)
            c->close_after = 1;
        if (tachy__buf_reserve(w, nl + vl + 4) < 0)
            return fail(ex, TACHY_ENOMEM);
        char *p = w->data + w->len;
        memcpy(p, name, nl);
        p[nl] = ':';
        p[nl + 1] = ' ';
        memcpy(p + nl + 2, value, vl);
        p[nl + 2 + vl] = '\r';
        p[nl + 3 + vl] = '\n';
        w->len += nl + vl + 4;
    }
    /* The framing header and the empty line, in one reservation. */
    static const char te[] = "Transfer-encoding: chunked\r\n\r\n", cl_name[] = "Content-length: ";
    if (tachy__buf_reserve(w, sizeof te + 24) < 0)
        return fail(ex, TACHY_ENOMEM);
    char *p = w->data + w->len;
    if (framing == FRAMING_CHUNKED) {
        memcpy(p, te, sizeof te - 1);
        p += sizeof te - 1;
    } else {
        if (framing == FRAMING_LENGTH) {
            memcpy(p, cl_name, sizeof cl_name - 1);
            p += sizeof cl_name - 1;
            p += tachy__format_u64(p, (uint64_t)(len == -1 ? 0 : len));
            *p++ = '\r';
            *p++ = '\n';
        }
        *p++ = '\r';
        *p++ = '\n';
    }
    w->len = (size_t)(p - w->data);
    ex->rsp_code = code;
    ex->rsp_mode = mode;
    ex->rsp_left = mode == TACHY__RSP_FIXED ? len : 0;
    ex->rsp_length_header = framing == FRAMING_LENGTH ? (len == -1 ? 0 : len) : -1;
    /* maxRspTime: from the response's start to its end (as the JDK's timer counts it). */
    if (c->srv->opt.max_rsp_time_ms > 0 && mode != TACHY__RSP_EMPTY)
        atomic_store(&c->io_deadline, tachy__now_ms() + c->srv->opt.max_rsp_time_ms);
    else if (atomic_load_explicit(&c->io_deadline, memory_order_relaxed))
        atomic_store(&c->io_deadline, 0);
    int rc = 0;
    if (mode == TACHY__RSP_EMPTY) {
        ex->rsp_done = 1;
        if (code == 101)
            rc = tachy__conn_flush(c);
        else
            rc = tachy__conn_response_done(c);
    } else if (mode != TACHY__RSP_FIXED) {
        /* A streamed body: the client should see the headers now, as with the JDK. */
        rc = tachy__conn_flush(c);
    } else if (tachy__buf_size(w) >= TACHY__WBUF_FLUSH_AT) {
        rc = tachy__conn_flush(c);
    }
    return rc < 0 ? fail(ex, rc) : 0;
}

/* Appends body bytes (already framed by the caller) to wbuf, or sends them directly with
 * whatever is buffered when they are large. */
static int put_body(tachy__conn *c, const void *buf, size_t len) {
    if (len >= 16384)
        return tachy__conn_send2(c, buf, len);
    if (tachy__buf_append(&c->wbuf, buf, len) < 0)
        return TACHY_ENOMEM;
    if (tachy__buf_size(&c->wbuf) >= TACHY__WBUF_FLUSH_AT)
        return tachy__conn_flush(c);
    return 0;
}

/* len bytes of file fd from off as body bytes already framed: sendfile when the
 * transport allows, else pread into a buffer and the ordinary write path. */
static int file_body(tachy__conn *c, int fd, int64_t off, int64_t len) {
    int rc = tachy__conn_send_file(c, fd, &off, len);
    if (rc != TACHY_ENOTSUP)
        return rc;
    rc = 0;
    enum { CHUNK = 64 * 1024 };
    char *buf = malloc(CHUNK);
    if (!buf)
        return TACHY_ENOMEM;
    while (rc == 0 && len > 0) {
        ssize_t n = pread(fd, buf, len < CHUNK ? (size_t)len : CHUNK, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            rc = errno == EBADF || errno == EINVAL || errno == ESPIPE ? TACHY_EINVAL : TACHY_EIO;
        else if (n == 0)
            rc = TACHY_ESHORT; /* the file ended early */
        else if ((rc = put_body(c, buf, (size_t)n)) == 0) {
            off += n;
            len -= n;
        }
    }
    free(buf);
    return rc;
}

/* Where body bytes come from: memory (buf), or a range of file fd from off. */
typedef struct body_src {
    const void *buf;
    int fd;
    int64_t off;
} body_src;

/* The body rules tachy_exchange_write and tachy_exchange_send_file share: the state
 * checks, then len bytes from src framed as the response's mode says. A failure after
 * bytes went out leaves a truncated body, so the connection closes after the exchange. */
static int framed_body(tachy_exchange *ex, const body_src *src, int64_t len) {
    if (ex->closed || ex->rsp_closed || ex->upgraded)
        return TACHY_ECLOSED;
    if (ex->rsp_code < 0)
        return TACHY_EHDRNOTSENT;
    if (ex->failed)
        return TACHY_EIO;
    if (ex->rsp_mode == TACHY__RSP_EMPTY)
        return TACHY_ENOBODY;
    if (len == 0)
        return 0;
    tachy__conn *c = ex->conn;
    int chunked = ex->rsp_mode == TACHY__RSP_CHUNKED;
    if (ex->rsp_mode == TACHY__RSP_FIXED && len > ex->rsp_left)
        return TACHY_ETOOLONG; /* nothing written */
    if (chunked && (tachy__buf_append_hex(&c->wbuf, (uint64_t)len) < 0 ||
                    tachy__buf_append(&c->wbuf, "\r\n", 2) < 0))
        return fail(ex, TACHY_ENOMEM);
    int rc = src->buf ? put_body(c, src->buf, (size_t)len)
                      : file_body(c, src->fd, src->off, len);
    if (rc == 0 && chunked && tachy__buf_append(&c->wbuf, "\r\n", 2) < 0)
        rc = TACHY_ENOMEM;
    if (rc == 0 && ex->rsp_mode == TACHY__RSP_FIXED && (ex->rsp_left -= len) == 0) {
        ex->rsp_done = 1;
        rc = tachy__conn_response_done(c);
    }
    return rc < 0 ? fail(ex, rc) : 0;
}

TACHY_API ssize_t tachy_exchange_write(tachy_exchange *ex, const void *buf, size_t len) {
    if (!ex || (!buf && len) || len > (size_t)INT64_MAX)
        return TACHY_EINVAL;
    body_src src = {buf ? buf : "", -1, 0};
    int rc = framed_body(ex, &src, (int64_t)len);
    return rc < 0 ? rc : (ssize_t)len;
}

TACHY_API int tachy_exchange_send_file(tachy_exchange *ex, int fd, int64_t offset, int64_t len) {
    if (!ex || fd < 0 || offset < 0 || len < 0)
        return TACHY_EINVAL;
    body_src src = {NULL, fd, offset};
    return framed_body(ex, &src, len);
}

TACHY_API int tachy_exchange_flush(tachy_exchange *ex) {
    if (!ex)
        return TACHY_EINVAL;
    if (ex->closed || ex->rsp_closed)
        /* As the JDK: flushing a finished fixed-length body is harmless, a chunked one
         * throws "stream is closed". */
        return ex->rsp_mode == TACHY__RSP_FIXED ? 0 : TACHY_ECLOSED;
    if (ex->rsp_code < 0)
        return 0; /* nothing to send yet: the JDK's flush before headers is a no-op */
    int rc = tachy__conn_flush(ex->conn);
    return rc < 0 ? fail(ex, rc) : 0;
}

TACHY_API int tachy_exchange_response_body_close(tachy_exchange *ex) {
    if (!ex)
        return TACHY_EINVAL;
    if (ex->rsp_closed)
        return 0;
    if (ex->rsp_code < 0)
        return TACHY_EHDRNOTSENT;
    ex->rsp_closed = 1;
    tachy__conn *c = ex->conn;
    int rc = 0;
    switch (ex->rsp_mode) {
    case TACHY__RSP_FIXED:
        if (ex->rsp_left > 0) {
            /* The JDK: "insufficient bytes written to stream"; the connection closes. */
            tachy__conn_flush(c);
            return fail(ex, TACHY_ESHORT);
        }
        break;
    case TACHY__RSP_CHUNKED:
        if (ex->failed)
            break;
        if (tachy__buf_append(&c->wbuf, "0\r\n\r\n", 5) < 0)
            return fail(ex, TACHY_ENOMEM);
        ex->rsp_done = 1;
        rc = tachy__conn_response_done(c);
        break;
    case TACHY__RSP_UNTIL_CLOSE:
        c->close_after = 1;
        rc = tachy__conn_flush(c);
        break;
    default:
        break;
    }
    return rc < 0 ? fail(ex, rc) : 0;
}

static void signal_closed(tachy_exchange *ex) {
    if (!ex->deferred)
        return;
    tachy__conn *c = ex->conn;
    pthread_mutex_lock(&c->lock);
    ex->closed = 1;
    pthread_cond_signal(&c->cond);
    pthread_mutex_unlock(&c->lock);
}

TACHY_API int tachy_exchange_close(tachy_exchange *ex) {
    if (!ex)
        return TACHY_EINVAL;
    if (ex->closed)
        return 0;
    int rc = 0;
    if (ex->upgraded) {
        ex->conn->close_after = 1;
    } else if (ex->rsp_code < 0) {
        /* The JDK closes the connection when an exchange ends without a response. */
        ex->conn->close_after = 1;
        ex->failed = 1;
    } else {
        tachy_exchange_request_body_close(ex);
        rc = tachy_exchange_response_body_close(ex);
    }
    if (ex->deferred)
        signal_closed(ex);
    else
        ex->closed = 1;
    return rc;
}

TACHY_API int tachy_exchange_defer(tachy_exchange *ex) {
    if (!ex)
        return TACHY_EINVAL;
    if (ex->closed)
        return TACHY_ECLOSED;
    ex->deferred = 1;
    return 0;
}

/* ---- dispatch ----------------------------------------------------------------------- */

/* The authenticator as the last link before the handler (the JDK's AuthFilter). */
struct auth_link {
    tachy_authenticator *auth;
    tachy_handler_fn handler;
    void *user;
};

static int auth_then_handler(tachy_exchange *ex, void *arg) {
    struct auth_link *l = arg;
    tachy_auth_result res;
    memset(&res, 0, sizeof res);
    tachy_authenticator_authenticate(l->auth, ex, &res);
    int rc = 0;
    if (res.kind == TACHY_AUTH_SUCCESS) {
        tachy_exchange_set_principal(ex, res.user, res.realm);
        rc = l->handler(ex, l->user);
    } else {
        /* Failure and Retry: consume the input, answer the code with no body. */
        tachy_exchange_request_body_close(ex);
        tachy_exchange_send_response_headers(ex, res.code > 0 ? res.code : 401, -1);
    }
    tachy_auth_result_clear(&res);
    return rc;
}

int tachy__exchange_dispatch(tachy_exchange *ex) {
    tachy__conn *c = ex->conn;
    tachy_server *srv = c->srv;
    /* One lock for the lookup and for a snapshot of the context's chain (with references),
     * so the context may change concurrently without affecting this request. */
    tachy_filter *local[8];
    tachy_filter **filters = local;
    tachy_handler_fn handler = NULL;
    void *user = NULL;
    size_t nf = 0;
    tachy_authenticator *auth = NULL;
    pthread_mutex_lock(&srv->lock);
    tachy_context *ctx = tachy__server_find_context_locked(srv, ex->path);
    if (ctx) {
        atomic_fetch_add(&ctx->refs, 1);
        handler = ctx->handler;
        user = ctx->user;
        nf = ctx->nfilters;
        if (nf > 8)
            filters = malloc(nf * sizeof *filters);
        if (filters)
            for (size_t i = 0; i < nf; i++) {
                filters[i] = ctx->filters[i];
                tachy__filter_ref(filters[i]);
            }
        auth = ctx->auth;
        if (auth)
            tachy__authenticator_ref(auth);
    }
    pthread_mutex_unlock(&srv->lock);
    if (!ctx) {
        tachy__conn_reject(c, 404, "No context found for request");
        return -1;
    }
    ex->ctx = ctx;
    if (!filters) {
        tachy_authenticator_destroy(auth);
        tachy__conn_reject(c, 500, "Out of memory");
        return -1;
    }
    int rc = 0;
    if (!handler) {
        tachy__conn_reject(c, 500, "No handler for context");
        rc = -1;
        goto out;
    }
    if (ex->framing.expect_continue) {
        /* The JDK answers 100-continue before the handler runs, in this exact form. */
        tachy__buf_append_str(&c->wbuf, "HTTP/1.1 100 Continue\r\nContent-Length: 0\r\n\r\n");
        if (tachy__conn_flush(c) < 0) {
            rc = -1;
            goto out;
        }
    }
    atomic_store(&c->in_handler, 1);
    if (auth) {
        /* The JDK runs the user's filters first, then the authenticator (a "system
         * filter"), then the handler. */
        struct auth_link link = {auth, handler, user};
        rc = tachy__chain_run(filters, nf, auth_then_handler, &link, ex);
    } else {
        rc = tachy__chain_run(filters, nf, handler, user, ex);
    }
    if (rc < 0) {
        tachy__log(srv, TACHY_LOG_DEBUG, "handler for %s failed (%d): closing the connection",
                   ex->path, rc);
        /* Like the JDK: no response is invented; what the handler already produced and
         * earlier pipelined responses still go out, then the connection closes. */
        tachy__conn_flush(c);
        ex->failed = 1;
        c->close_after = 1;
        if (ex->deferred) {
            /* Another thread may still hold it: wait for its close below. */
            rc = 0;
        }
    }
    if (rc == 0) {
        if (ex->deferred) {
            tachy__pool_long_task(srv);
            pthread_mutex_lock(&c->lock);
            while (!ex->closed)
                pthread_cond_wait(&c->cond, &c->lock);
            pthread_mutex_unlock(&c->lock);
        } else if (!ex->closed) {
            tachy_exchange_close(ex);
        }
        if (ex->failed)
            rc = -1;
    }
    atomic_store(&c->in_handler, 0);
out:
    for (size_t i = 0; i < nf; i++)
        tachy_filter_destroy(filters[i]);
    if (filters != local)
        free(filters);
    tachy_authenticator_destroy(auth);
    return rc < 0 || c->close_after ? -1 : 0;
}

/* ---- attributes, principal, addresses ------------------------------------------------ */

TACHY_API int tachy_exchange_set_attribute(tachy_exchange *ex, const char *name, void *value) {
    if (!ex || !name)
        return TACHY_EINVAL;
    for (size_t i = 0; i < ex->nattrs; i++) {
        if (strcmp(ex->attrs[i].name, name) == 0) {
            if (value) {
                ex->attrs[i].value = value;
            } else {
                free(ex->attrs[i].name);
                ex->attrs[i] = ex->attrs[--ex->nattrs];
            }
            return 0;
        }
    }
    if (!value)
        return 0;
    tachy__attr *n = realloc(ex->attrs, (ex->nattrs + 1) * sizeof *n);
    if (!n)
        return TACHY_ENOMEM;
    ex->attrs = n;
    char *dup = strdup(name);
    if (!dup)
        return TACHY_ENOMEM;
    ex->attrs[ex->nattrs++] = (tachy__attr){dup, value, NULL};
    return 0;
}

TACHY_API void *tachy_exchange_attribute(const tachy_exchange *ex, const char *name) {
    if (!ex || !name)
        return NULL;
    for (size_t i = 0; i < ex->nattrs; i++)
        if (strcmp(ex->attrs[i].name, name) == 0)
            return ex->attrs[i].value;
    return NULL;
}

TACHY_API const char *tachy_exchange_principal_user(const tachy_exchange *ex) {
    return ex ? ex->principal_user : NULL;
}
TACHY_API const char *tachy_exchange_principal_realm(const tachy_exchange *ex) {
    return ex ? ex->principal_realm : NULL;
}
TACHY_API int tachy_exchange_set_principal(tachy_exchange *ex, const char *user,
                                           const char *realm) {
    if (!ex)
        return TACHY_EINVAL;
    char *u = user ? strdup(user) : NULL;
    char *r = realm ? strdup(realm) : NULL;
    if ((user && !u) || (realm && !r)) {
        free(u);
        free(r);
        return TACHY_ENOMEM;
    }
    free(ex->principal_user);
    free(ex->principal_realm);
    ex->principal_user = u;
    ex->principal_realm = r;
    return 0;
}

static int format_addr(const struct sockaddr_storage *ss, socklen_t len, char *host,
                       size_t cap, int *port) {
    const struct sockaddr *sa = (const struct sockaddr *)ss;
    if (host && cap &&
        getnameinfo(sa, len, host, (socklen_t)cap, NULL, 0, NI_NUMERICHOST) != 0)
        return TACHY_EINVAL;
    if (port)
        *port = sa->sa_family == AF_INET6 ? ntohs(((const struct sockaddr_in6 *)sa)->sin6_port)
                                          : ntohs(((const struct sockaddr_in *)sa)->sin_port);
    return 0;
}

/* The local address, read from the socket the first time someone asks (most exchanges
 * never do; the accept path does not pay a getsockname for them). Owner thread. */
static void local_known(tachy__conn *c) {
    if (c->local_len == 0) {
        socklen_t len = sizeof c->local;
        if (getsockname(c->fd, (struct sockaddr *)&c->local, &len) == 0)
            c->local_len = len;
    }
}

/* Copies the connection's address (formatted once per connection: getnameinfo is not cheap
 * and a keep-alive connection asks for it with every request). */
static int cached_addr(tachy__conn *c, int local, char *host, size_t cap, int *port) {
    if (local)
        local_known(c);
    int bit = local ? 2 : 1;
    char *h = local ? c->local_host : c->peer_host;
    int *p = local ? &c->local_port : &c->peer_port;
    if (!(c->addr_cached & bit)) {
        int rc = format_addr(local ? &c->local : &c->peer, local ? c->local_len : c->peer_len,
                             h, sizeof c->peer_host, p);
        if (rc < 0)
            return rc;
        c->addr_cached |= bit;
    }
    if (host && cap) {
        size_t n = strlen(h);
        if (n >= cap)
            return TACHY_EINVAL;
        memcpy(host, h, n + 1);
    }
    if (port)
        *port = *p;
    return 0;
}

TACHY_API int tachy_exchange_remote_address(const tachy_exchange *ex, char *host, size_t cap,
                                            int *port) {
    if (!ex)
        return TACHY_EINVAL;
    return cached_addr(ex->conn, 0, host, cap, port);
}

TACHY_API int tachy_exchange_local_address(const tachy_exchange *ex, char *host, size_t cap,
                                           int *port) {
    if (!ex)
        return TACHY_EINVAL;
    return cached_addr(ex->conn, 1, host, cap, port);
}

TACHY_API const struct sockaddr *tachy_exchange_remote_sockaddr(const tachy_exchange *ex,
                                                                socklen_t *len) {
    if (!ex)
        return NULL;
    if (len)
        *len = ex->conn->peer_len;
    return (const struct sockaddr *)&ex->conn->peer;
}

TACHY_API const struct sockaddr *tachy_exchange_local_sockaddr(const tachy_exchange *ex,
                                                               socklen_t *len) {
    if (!ex)
        return NULL;
    local_known(ex->conn);
    if (len)
        *len = ex->conn->local_len;
    return (const struct sockaddr *)&ex->conn->local;
}

/* ---- upgrade and raw streams -------------------------------------------------------- */

TACHY_API int tachy_exchange_upgrade(tachy_exchange *ex, tachy_stream **out) {
    if (!ex || !out)
        return TACHY_EINVAL;
    *out = NULL;
    if (ex->rsp_code != 101 || ex->upgraded)
        return TACHY_ESTATE;
    tachy__conn *c = ex->conn;
    int rc = tachy__conn_flush(c);
    if (rc < 0)
        return fail(ex, rc);
    ex->upgraded = 1;
    ex->body_closed = 1;
    ex->rsp_closed = 1;
    c->close_after = 1;
    /* Blocking with timeouts is done with poll() on the stream; clear SO_RCVTIMEO. */
    struct timeval tv = {0, 0};
    setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ex->stream.conn = c;
    atomic_init(&ex->stream.shut, 0);
    *out = &ex->stream;
    /* This thread now belongs to the upgraded connection for its whole life. */
    tachy__pool_long_task(c->srv);
    return 0;
}

TACHY_API ssize_t tachy_stream_read(tachy_stream *s, void *buf, size_t len, int timeout_ms) {
    if (!s || (!buf && len))
        return TACHY_EINVAL;
    if (atomic_load(&s->shut))
        return TACHY_ECLOSED;
    tachy__conn *c = s->conn;
    size_t have = tachy__buf_size(&c->rbuf);
    if (have > 0) {
        size_t n = TACHY__MIN(have, len);
        memcpy(buf, c->rbuf.data + c->rbuf.off, n);
        tachy__buf_consume(&c->rbuf, n);
        return (ssize_t)n;
    }
    if (c->xp) {
        ssize_t n = c->xp->stream_read(c, buf, len, timeout_ms, &s->shut);
        return atomic_load(&s->shut) ? TACHY_ECLOSED : n;
    }
    for (;;) {
        ssize_t n = recv(c->fd, buf, len, MSG_DONTWAIT);
        if (n >= 0)
            return atomic_load(&s->shut) ? TACHY_ECLOSED : n;
        if (errno == EINTR)
            continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK)
            return errno == ECONNRESET ? TACHY_EPEERCLOSED : TACHY_EIO;
        int rc = tachy__wait_fd(c->fd, POLLIN, timeout_ms);
        if (rc < 0)
            return rc;
    }
}

TACHY_API ssize_t tachy_stream_write(tachy_stream *s, const void *buf, size_t len,
                                     int timeout_ms) {
    if (!s || (!buf && len))
        return TACHY_EINVAL;
    if (s->conn->xp)
        return s->conn->xp->stream_write(s->conn, buf, len, timeout_ms, &s->shut);
    const char *p = buf;
    size_t left = len;
    while (left > 0) {
        if (atomic_load(&s->shut))
            return TACHY_ECLOSED;
        ssize_t n = send(s->conn->fd, p, left, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            p += n;
            left -= (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
            return errno == EPIPE || errno == ECONNRESET ? TACHY_EPEERCLOSED : TACHY_EIO;
        int rc = tachy__wait_fd(s->conn->fd, POLLOUT, timeout_ms);
        if (rc < 0)
            return rc;
    }
    return (ssize_t)len;
}

TACHY_API void tachy_stream_shutdown(tachy_stream *s) {
    if (!s)
        return;
    if (atomic_exchange(&s->shut, 1) == 0)
        shutdown(s->conn->fd, SHUT_RDWR);
}

TACHY_API int tachy_stream_fd(const tachy_stream *s) { return s ? s->conn->fd : -1; }

/* ---- response framing and reject, for bridges (tachy_exchange_response_framing,
 * tachy_exchange_reject) -------------------------------------------------------------- */

TACHY_API int tachy_exchange_response_framing(const tachy_exchange *ex, int64_t *content_length) {
    if (content_length)
        *content_length = -1;
    if (!ex)
        return TACHY_EINVAL;
    if (ex->rsp_code < 0)
        return TACHY_RESPONSE_NOT_SENT;
    if (content_length)
        *content_length = ex->rsp_length_header;
    switch (ex->rsp_mode) {
    case TACHY__RSP_FIXED: return TACHY_RESPONSE_FIXED;
    case TACHY__RSP_CHUNKED: return TACHY_RESPONSE_CHUNKED;
    case TACHY__RSP_UNTIL_CLOSE: return TACHY_RESPONSE_UNTIL_CLOSE;
    case TACHY__RSP_EMPTY: return TACHY_RESPONSE_EMPTY;
    default: return TACHY_RESPONSE_NOT_SENT; /* an upgrade's 101 is sent as EMPTY */
    }
}

TACHY_API int tachy_exchange_reject(tachy_exchange *ex, int code, const char *msg) {
    if (!ex || code < 100 || code > 999)
        return TACHY_EINVAL;
    if (ex->closed)
        return TACHY_ECLOSED;
    if (ex->rsp_code >= 0)
        return TACHY_EHDRSENT;
    tachy__conn_reject(ex->conn, code, msg); /* the bytes the core's own rejects send */
    ex->rsp_code = code;
    ex->rsp_mode = TACHY__RSP_EMPTY;
    ex->rsp_left = 0;
    ex->rsp_length_header = -1; /* its Content-Length is not the JDK's framing header */
    ex->rsp_done = 1;
    return 0;
}

/* ---- end of response framing and reject ---------------------------------------------- */
