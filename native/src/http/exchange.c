/*
 * http/exchange.c - one exchange's state (HttpExchange): setup from a parsed request,
 * teardown, the request getters, the request body (fixed and chunked, draining), close,
 * attributes, principal, addresses and the upgrade.
 *
 * The JDK's ExchangeImpl is the specification for everything a handler can observe:
 * HTTP/1.0 keep-alive replies, draining unread request bodies on close, and close()
 * without headers closing the connection. Targets are checked and split by target.c,
 * responses written by response.c.
 */
#include "http/http.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- setup and teardown ------------------------------------------------------------- */

/* Connection management, as the JDK's ServerImpl decides it before the handler runs:
 * "Connection: close" closes after the exchange; HTTP/1.0 keeps the connection only when
 * asked to, and says so (Connection + Keep-Alive). */
static void connection_policy(tachy_exchange *ex, tachy__conn *c, const tachy__framing *fr) {
    if (fr->connection_close)
        c->close_after = 1;
    if (ex->http10) {
        if (fr->connection_keep_alive && !fr->connection_close) {
            char ka[64];
            long idle = c->srv->opt.idle_interval_ms / 1000;
            if (c->srv->opt.http10_keepalive_max && c->srv->opt.max_idle_connections >= 0)
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
}

/*
 * The exchange's deadline (c->io_deadline, which the watchdog enforces by shutting the
 * socket down; a handler blocked in a read or a write is woken, the connection closes),
 * counted as the JDK's ServerImpl counts its timers:
 *   while the request is being read (head and body): maxReqTime from its first byte, and
 *   tachy's max_body_time_ms from the end of the head, whichever comes first;
 *   once the request has been read (its body at EOF, at once when it has none): maxRspTime
 *   until the response is complete (tachy__exchange_end clears it).
 * Nothing is read or stored when no limit is set (the default).
 */
static void request_deadline(tachy__conn *c) {
    const tachy_options *o = &c->srv->opt;
    long dl = 0;
    if (o->max_req_time_ms > 0)
        dl = c->head_started + o->max_req_time_ms;
    if (o->max_body_time_ms > 0) {
        long b = tachy__now_ms() + o->max_body_time_ms;
        if (!dl || b < dl)
            dl = b;
    }
    if (dl)
        atomic_store(&c->io_deadline, dl);
}

static void request_complete(tachy__conn *c) {
    long rsp = c->srv->opt.max_rsp_time_ms;
    if (rsp > 0)
        atomic_store(&c->io_deadline, tachy__now_ms() + rsp);
    else if (atomic_load_explicit(&c->io_deadline, memory_order_relaxed))
        atomic_store(&c->io_deadline, 0);
}

int tachy__exchange_begin(tachy_exchange *ex, tachy__conn *c, const tachy__request *req,
                          const tachy__framing *fr) {
    ex->conn = c;
    if (!ex->req_headers && tachy_headers_create(&ex->req_headers) < 0)
        return TACHY_ENOMEM;
    if (!ex->rsp_headers && tachy_headers_create(&ex->rsp_headers) < 0)
        return TACHY_ENOMEM;

    /* The JDK answers 400 "URISyntaxException thrown" for a target java.net.URI refuses. */
    if (!tachy__target_acceptable(req->target.base, req->target.len))
        return TACHY_EPROTO;
    /* Strings: method, uri, protocol, decoded path, raw query. Offsets first, pointers
     * after (the buffer may move while it grows). */
    tachy__buf *b = &ex->strs;
    tachy__buf_reset(b);
    const char *t = req->target.base;
    size_t tlen = req->target.len;
    tachy__target tg;
    tachy__target_split(t, tlen, &tg);
    size_t ps = tg.path_off, pe = tg.path_off + tg.path_len;
    int has_query = tg.has_query;
    size_t qs = has_query ? tg.query_off : tlen, qe = has_query ? tg.query_off + tg.query_len : tlen;
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
         * refused unless opt.path_nul (the Java provider: the JDK keeps the NUL and hands
         * the request to its handler). Only a decoded escape can produce one, and each
         * shortens the path. */
        if ((size_t)dl != plen && !c->srv->opt.path_nul && memchr(w, '\0', (size_t)dl))
            return TACHY_EINVAL;
        w += dl;
        ex->path_len = (size_t)dl;
    } else {
        ex->path_len = 0; /* URI.getPath() is "": no context matches it (paths start '/') */
    }
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
    ex->lazy = req->headers; /* HTTP/1.1: c->refs; HTTP/2: the stream's own */
    ex->nlazy = req->num_headers;
    for (size_t i = 0; i < req->num_headers; i++) {
        tachy__header_ref *h = &req->headers[i];
        h->name.base = hcopy + (h->name.base - hbase);
        h->value.base = hcopy + (h->value.base - hbase);
    }

    ex->http10 = req->minor_version == 0;
    ex->is_head = req->method.len == 4 && memcmp(req->method.base, "HEAD", 4) == 0;
    ex->framing = *fr;
    ex->body_left = fr->chunked ? -1 : (fr->content_length > 0 ? fr->content_length : 0);
    ex->body_eof = !fr->chunked && ex->body_left == 0;
    if (fr->chunked)
        tachy__chunked_init(&ex->chunked, c->srv->opt.max_chunk_ext, TACHY__MAX_TRAILER_BYTES);
    ex->rsp_code = -1;
    ex->rsp_mode = TACHY__RSP_NONE;
    ex->t0_ns = tachy__edge_now_ns();

    connection_policy(ex, c, fr);
    return 0;
}

void tachy__exchange_deadlines(tachy_exchange *ex) {
    if (ex->body_eof)
        request_complete(ex->conn);
    else
        request_deadline(ex->conn);
}

static void attrs_clear(tachy_exchange *ex) {
    for (size_t i = 0; i < ex->nattrs; i++)
        free(ex->attrs[i].name);
    free(ex->attrs);
    ex->attrs = NULL;
    ex->nattrs = 0;
}

void tachy__exchange_end(tachy_exchange *ex) {
    if (ex->t0_ns && ex->conn) /* edge/metrics.c: status class, duration, access log */
        tachy__edge_exchange_done(ex->conn->srv, ex, ex->rsp_code, ex->t0_ns);
    if (ex->conn && atomic_load_explicit(&ex->conn->io_deadline, memory_order_relaxed) && !ex->ops)
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
        n = tachy__io_read_body(c, buf, want);
        if (n == 0)
            n = TACHY_ETRUNCATED;
        if (n < 0)
            return n;
    }
    ex->body_left -= n;
    if (ex->body_left == 0) {
        ex->body_eof = 1;
        request_complete(c);
    }
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
        if (rc == 1) {
            ex->body_eof = 1;
            request_complete(ex->conn);
        }
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
        ssize_t f = tachy__io_fill(ex->conn);
        if (f == 0)
            return TACHY_ETRUNCATED;
        if (f < 0)
            return f;
    }
}

/* Whether a read returns without a socket call: body bytes are decoded or buffered (or
 * the body has ended). Decodes what is buffered of a chunked body. */
static int body_buffered(tachy_exchange *ex) {
    if (ex->body_eof || tachy__buf_size(&ex->pending) > 0)
        return 1;
    if (ex->framing.chunked) {
        if (decode_buffered(ex) < 0)
            return 1; /* the error surfaces at the read, without a socket call */
        return ex->body_eof || tachy__buf_size(&ex->pending) > 0;
    }
    return tachy__buf_size(&ex->conn->rbuf) > 0;
}

/* Whether the request body is consumed to its end (a drain makes no socket call). */
static int body_done(const tachy_exchange *ex) {
    return ex->body_closed || ex->upgraded || ex->body_error ||
           (ex->body_eof && tachy__buf_size(&ex->pending) == 0);
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
    if (ex->ops) {
        ssize_t r = ex->ops->read(ex, buf, len);
        if (r == 0)
            ex->body_eof = 1;
        else if (r < 0 && r != TACHY_EWOULDBLOCK)
            ex->body_error = (int)r;
        return r;
    }
    if (ex->conn->held && !body_buffered(ex))
        return TACHY_EWOULDBLOCK; /* nothing read, no state changed */
    ssize_t n = ex->framing.chunked ? read_chunked(ex, buf, len) : read_fixed(ex, buf, len);
    if (n < 0) {
        ex->body_error = (int)n;
        /* A body cut short by the client (EOF) or malformed fails the read, not the
         * exchange: a handler that catches it may still answer, and the connection closes
         * after that response, as the JDK's does (compat-tests BodyReadFailureTest). */
        if (n == TACHY_ETRUNCATED || n == TACHY_EPROTO)
            tachy__exchange_close_after(ex);
        else
            tachy__exchange_fail(ex, (int)n);
    }
    return n;
}

TACHY_API ssize_t tachy_exchange_available(tachy_exchange *ex) {
    if (!ex)
        return TACHY_EINVAL;
    if (ex->body_closed)
        return TACHY_ECLOSED;
    if (ex->ops)
        return ex->ops->available(ex);
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

/*
 * Reads and discards what the handler left of the body, as the JDK's drain(drainAmount)
 * does: 1 (reuse the connection) when fewer than limit bytes were left, 0 (close) when
 * limit or more were, or on an error. A body read to its end, or none, is never a reason
 * to close.
 */
static int drain(tachy_exchange *ex, long limit) {
    char sink[8192];
    long total = 0;
    for (;;) {
        if (ex->body_error)
            return 0;
        if (total > 0 && total >= limit)
            return 0; /* drainAmount bytes were left unread, even if the body ends here */
        if (ex->body_eof && tachy__buf_size(&ex->pending) == 0)
            return 1;
        if (total >= limit)
            return 0; /* limit 0 and bytes left */
        size_t want = (size_t)TACHY__MIN((long)sizeof sink, limit - total);
        ssize_t n = tachy_exchange_read(ex, sink, want);
        if (n < 0)
            return 0;
        if (n == 0)
            return 1;
        total += n;
    }
}

/* A stream's request body closed: what is left is discarded as it comes (its window given
 * back), never waited for. Out of line and cold: HTTP/1.1's close keeps one test of ex->ops. */
__attribute__((cold, noinline)) static int stream_body_close(tachy_exchange *ex) {
    ex->ops->discard(ex);
    ex->body_closed = 1;
    return 0;
}

/* tachy_exchange_request_body_close, always inlined: close_exchange, which every exchange
 * runs, has a copy of its own (out of line, with its other caller in dispatch.c, it cost
 * HTTP/1.1 ~26 instructions per request: callgrind, keep-alive GET). */
static inline __attribute__((always_inline)) int request_body_close(tachy_exchange *ex) {
    if (ex->body_closed)
        return 0;
    if (ex->ops)
        return stream_body_close(ex);
    if (ex->conn->held && !body_done(ex))
        return TACHY_EWOULDBLOCK; /* the drain would read the socket: nothing done */
    /* A body read to its end, or none (a GET), is drain's first answer: 1, without its
     * call and 8 KiB frame (callgrind, keep-alive GET: ~23 instructions per request). */
    int drained = !ex->body_error && ex->body_eof && tachy__buf_size(&ex->pending) == 0;
    if (!ex->upgraded && !drained && !drain(ex, ex->conn->srv->opt.drain_amount))
        ex->conn->close_after = 1; /* too much left (or an error): do not reuse */
    ex->body_closed = 1;
    return 0;
}

TACHY_API int tachy_exchange_request_body_close(tachy_exchange *ex) {
    if (!ex)
        return TACHY_EINVAL;
    return request_body_close(ex);
}

/* A stream's exchange is closed: the stream's own hand-off (h2/stream.c). Cold. */
__attribute__((cold, noinline)) static void stream_closed(tachy_exchange *ex) {
    ex->ops->closed(ex);
}

/* The exchange is closed. A deferred one tells whoever waits for it: the pool thread
 * still in dispatch (it then carries on), or nobody, when the exchange was lent the
 * connection: the caller then continues the connection (tachy__loop_exchange_closed,
 * through srv->loop_exchange_closed). */
static void mark_closed(tachy_exchange *ex) {
    if (ex->ops) {
        stream_closed(ex);
        return;
    }
    if (!ex->deferred) {
        ex->closed = 1;
        return;
    }
    tachy__conn *c = ex->conn;
    c->srv->loop_exchange_closed(c); /* the loop: LENT -> continued (loop/states.c) */
}

static int close_exchange(tachy_exchange *ex, int harvest) {
    if (!ex)
        return TACHY_EINVAL;
    if (ex->closed)
        return 0;
    if (ex->conn->held && !ex->ops && ex->rsp_code >= 0 && !body_done(ex))
        return TACHY_EWOULDBLOCK; /* the drain would read the socket: nothing done */
    int rc = 0;
    if (ex->upgraded) {
        ex->conn->close_after = 1;
    } else if (ex->rsp_code < 0) {
        /* The JDK closes the connection when an exchange ends without a response (an
         * HTTP/2 stream is reset instead: its connection serves other streams). */
        tachy__exchange_close_after(ex);
        ex->failed = 1;
    } else {
        request_body_close(ex);
        rc = tachy_exchange_response_body_close(ex);
    }
    ex->close_harvest = harvest;
    mark_closed(ex);
    return rc;
}

TACHY_API int tachy_exchange_close(tachy_exchange *ex) {
    return close_exchange(ex, 0);
}

TACHY_API int tachy_exchange_close_flags(tachy_exchange *ex, unsigned flags) {
    if (flags & ~TACHY_CLOSE_HARVEST)
        return TACHY_EINVAL;
    return close_exchange(ex, (flags & TACHY_CLOSE_HARVEST) != 0);
}

TACHY_API int tachy_exchange_abort(tachy_exchange *ex) {
    if (!ex)
        return TACHY_EINVAL;
    if (ex->closed)
        return 0;
    tachy__exchange_fail(ex, 0);
    ex->close_harvest = 0;
    mark_closed(ex);
    return 0;
}

TACHY_API int tachy_exchange_hold(tachy_exchange *ex, int on) {
    if (!ex)
        return TACHY_EINVAL;
    if (ex->ops)
        return ex->ops->hold(ex, on);
    tachy__conn *c = ex->conn;
    if (c->held && !on) {
        /* The hold is lifted for a call that may block (tachy_exchange_hold): the thread
         * will be busy; if nobody waits for events, the pool brings one in now. */
        tachy__server_blocking(c->srv);
    }
    c->held = on != 0;
    return 0;
}

TACHY_API int tachy_exchange_held_bytes(const tachy_exchange *ex) {
    if (!ex)
        return TACHY_EINVAL;
    if (ex->ops)
        return ex->ops->held_bytes(ex);
    size_t n = tachy__buf_size(&ex->conn->wbuf);
    return n > INT32_MAX ? INT32_MAX : (int)n;
}

TACHY_API int tachy_exchange_defer_flags(tachy_exchange *ex, unsigned flags) {
    if (!ex || (flags & ~TACHY_DEFER_CLOSER_CONTINUES))
        return TACHY_EINVAL;
    if (ex->closed)
        return TACHY_ECLOSED;
    ex->deferred = 1;
    ex->defer_flags = flags;
    if (!(flags & TACHY_DEFER_CLOSER_CONTINUES)) {
        /* the closer, another thread, may block: the hold ends here */
        if (ex->ops)
            ex->ops->hold(ex, 0);
        else
            ex->conn->held = 0;
    }
    return 0;
}

TACHY_API int tachy_exchange_defer(tachy_exchange *ex) {
    return tachy_exchange_defer_flags(ex, 0);
}


/* ---- attributes, principal, addresses ------------------------------------------------ */

TACHY_API int tachy_exchange_set_attribute(tachy_exchange *ex, const char *name, void *value) {
    if (!ex || !name)
        return TACHY_EINVAL;
    /* The JDK up to 25 (and 26+ with jdk.httpserver.attributes=context): the context's map */
    if (ex->ctx && ex->conn->srv->opt.exchange_attributes == TACHY_ATTRIBUTES_CONTEXT)
        return tachy_context_set_attribute(ex->ctx, name, value, NULL);
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
    if (ex->ctx && ex->conn->srv->opt.exchange_attributes == TACHY_ATTRIBUTES_CONTEXT)
        return tachy_context_attribute(ex->ctx, name);
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

/* The local address, read from the socket the first time someone asks (most exchanges
 * never do; the accept path does not pay a getsockname for them). Owner thread. */
static void local_known(tachy__conn *c) {
    if (c->local_len == 0) {
        socklen_t len = sizeof c->local;
        if (getsockname(c->fd, &c->local.sa, &len) == 0 && len <= sizeof c->local)
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
        int rc = tachy__addr_format(local ? &c->local.sa : &c->peer.sa,
                                    local ? c->local_len : c->peer_len, h, sizeof c->peer_host, p);
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

TACHY_API int tachy_exchange_peer_address(const tachy_exchange *ex, char *host, size_t cap,
                                          int *port) {
    if (!ex)
        return TACHY_EINVAL;
    const tachy__conn *c = ex->conn;
    if (c->lb_len == 0) /* no PROXY header: the socket's peer is the client */
        return cached_addr(ex->conn, 0, host, cap, port);
    char tmp[INET6_ADDRSTRLEN];
    int rc = tachy__addr_format(&c->lb.sa, c->lb_len, tmp, sizeof tmp, port);
    if (rc < 0 || !host || !cap)
        return rc;
    size_t n = strlen(tmp);
    if (n >= cap)
        return TACHY_EINVAL;
    memcpy(host, tmp, n + 1);
    return 0;
}

TACHY_API const struct sockaddr *tachy_exchange_remote_sockaddr(const tachy_exchange *ex,
                                                                socklen_t *len) {
    if (!ex)
        return NULL;
    if (len)
        *len = ex->conn->peer_len;
    return &ex->conn->peer.sa;
}

TACHY_API const struct sockaddr *tachy_exchange_local_sockaddr(const tachy_exchange *ex,
                                                               socklen_t *len) {
    if (!ex)
        return NULL;
    local_known(ex->conn);
    if (len)
        *len = ex->conn->local_len;
    return &ex->conn->local.sa;
}

/* ---- upgrade and raw streams -------------------------------------------------------- */

TACHY_API int tachy_exchange_upgrade(tachy_exchange *ex, tachy_stream **out) {
    return tachy__exchange_upgrade(ex, out, 1);
}

int tachy__exchange_upgrade(tachy_exchange *ex, tachy_stream **out, int keeps_thread) {
    if (!ex || !out)
        return TACHY_EINVAL;
    *out = NULL;
    if (ex->ops)
        return TACHY_ENOTSUP; /* an HTTP/2 stream is not a connection to take over */
    if (ex->rsp_code != 101 || ex->upgraded)
        return TACHY_ESTATE;
    tachy__conn *c = ex->conn;
    int rc = tachy__io_flush(c);
    if (rc < 0)
        return tachy__exchange_fail(ex, rc);
    ex->upgraded = 1;
    ex->body_closed = 1;
    ex->rsp_closed = 1;
    c->close_after = 1;
    tachy__io_stream_mode(c);
    ex->stream.conn = c;
    atomic_init(&ex->stream.shut, 0);
    *out = &ex->stream;
    /* This thread now belongs to the upgraded connection for its whole life (unless the
     * caller hands the connection back to the pool: tachy_ws_attach). */
    if (keeps_thread)
        tachy__server_blocking(c->srv);
    return 0;
}

