/*
 * http/response.c - the response: the framing decision (the JDK's sendResponseHeaders
 * rules), the head, body writes (fixed, chunked, until close; from memory or a file), the
 * one table of reason phrases, and the error responses tachy sends on its own.
 *
 * The JDK's ExchangeImpl is the specification for everything a handler can observe:
 * which responses carry no body, Date and Content-length, Transfer-encoding, HEAD and 304.
 */
#include "http/http.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- response ----------------------------------------------------------------------- */

/*
 * The one table of reason phrases. X(code, phrase, jdk): jdk = 1 for the phrases of the
 * JDK's own table (sun.net.httpserver.Code), which is what sendResponseHeaders writes;
 * jdk = 0 for the ones only tachy's own error responses use (the JDK closes the connection
 * there instead of answering).
 */
#define TACHY__REASONS(X) \
    X(100, "Continue", 1) \
    X(200, "OK", 1) \
    X(201, "Created", 1) \
    X(202, "Accepted", 1) \
    X(203, "Non-Authoritative Information", 1) \
    X(204, "No Content", 1) \
    X(205, "Reset Content", 1) \
    X(206, "Partial Content", 1) \
    X(300, "Multiple Choices", 1) \
    X(301, "Moved Permanently", 1) \
    X(302, "Temporary Redirect", 1) \
    X(303, "See Other", 1) \
    X(304, "Not Modified", 1) \
    X(305, "Use Proxy", 1) \
    X(400, "Bad Request", 1) \
    X(401, "Unauthorized", 1) \
    X(402, "Payment Required", 1) \
    X(403, "Forbidden", 1) \
    X(404, "Not Found", 1) \
    X(405, "Method Not Allowed", 1) \
    X(406, "Not Acceptable", 1) \
    X(407, "Proxy Authentication Required", 1) \
    X(408, "Request Time-Out", 1) \
    X(409, "Conflict", 1) \
    X(410, "Gone", 1) \
    X(411, "Length Required", 1) \
    X(412, "Precondition Failed", 1) \
    X(413, "Request Entity Too Large", 1) \
    X(414, "Request-URI Too Large", 1) \
    X(415, "Unsupported Media Type", 1) \
    X(500, "Internal Server Error", 1) \
    X(501, "Not Implemented", 1) \
    X(502, "Bad Gateway", 1) \
    X(503, "Service Unavailable", 1) \
    X(504, "Gateway Timeout", 1) \
    X(505, "HTTP Version Not Supported", 1) \
    X(431, "Request Header Fields Too Large", 0)

/* Looks code up: the phrase, its length and whether it is the JDK's; NULL if absent. */
static const char *reason_lookup(int code, size_t *len, int *jdk) {
    switch (code) {
#define X(c, p, j) case c: *len = sizeof p - 1; *jdk = j; return p;
    TACHY__REASONS(X)
#undef X
    default: return NULL;
    }
}

const char *tachy__reason_phrase(int code, size_t *len) {
    int jdk;
    const char *p = reason_lookup(code, len, &jdk);
    if (p && jdk)
        return p;
    *len = 0;
    return "";
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

/* head_next as the exchange seam's tachy__field_next. */
static int head_next_cb(void *src, const char **name, size_t *nl, const char **value, size_t *vl) {
    return head_next(src, name, nl, value, vl);
}

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

/* The framing header tachy writes itself (the JDK sets it, replacing any the handler
 * set): none, "Transfer-encoding: chunked" or "Content-length: N". */
enum { FRAMING_NONE, FRAMING_CHUNKED, FRAMING_LENGTH };

typedef struct framing_decision {
    int mode;         /* TACHY__RSP_*: what the body may be */
    int header;       /* FRAMING_*: the framing header of the head */
    int64_t len;      /* the length as the JDK reads it (-1: no body) */
    int close_after;  /* the body runs until the connection closes (HTTP/1.0, length 0) */
} framing_decision;

/*
 * The JDK's sendResponseHeaders(code, len) decision (ExchangeImpl), the one place it is
 * made (the Java provider mirrors the result, it does not recompute it):
 *   1xx, 204, 304  no body, no length header (len forced to -1, with the JDK's warning)
 *   HEAD           no body, no length header, whatever len says
 *   len 0          a chunked body (HTTP/1.1), or a body until the connection closes (1.0)
 *   len -1         no body, "Content-length: 0"
 *   len > 0        a fixed body, "Content-length: len"
 * Pure apart from the warnings it logs. Always inlined: HTTP/1.1's send_head and a
 * stream's (stream_head) each have a copy, HTTP/1.1's in its hot path.
 */
static inline __attribute__((always_inline)) framing_decision
decide_framing(const tachy_exchange *ex, int code, int64_t len) {
    tachy__conn *c = ex->conn;
    framing_decision fd = {TACHY__RSP_NONE, FRAMING_NONE, len, 0};
    int no_length_header = 0;
    if ((code >= 100 && code < 200) || code == 204 || code == 304) {
        if (len != -1)
            tachy__log(c->srv, TACHY_LOG_WARNING,
                       "sendResponseHeaders: rCode = %d: forcing contentLen = -1", code);
        len = -1;
        no_length_header = code != 304;
    }
    int framing = FRAMING_NONE;
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
            fd.close_after = 1;
        } else {
            mode = TACHY__RSP_CHUNKED;
            framing = FRAMING_CHUNKED;
        }
    } else {
        mode = len == -1 ? TACHY__RSP_EMPTY : TACHY__RSP_FIXED;
        if (!no_length_header)
            framing = FRAMING_LENGTH;
    }

    fd.mode = mode;
    fd.header = framing;
    fd.len = len;
    return fd;
}

/* Serialises the head into wbuf: status line, Date (always, from the per-thread cache),
 * the handler's headers except the ones tachy owns, the framing header, the empty line.
 * A handler's "Connection: close" marks the connection. 0 or TACHY_ENOMEM. */
static int write_head(tachy__conn *c, int code, int framing, int64_t len, head_src *src) {
    tachy__buf *w = &c->wbuf;
    c->rsp_sent = 0; /* a new response: nothing of it has gone out yet */
    size_t pl;
    const char *phrase = tachy__reason_phrase(code, &pl);
    if (tachy__buf_reserve(w, 15 + pl + 8 + TACHY__DATE_LEN) < 0)
        return TACHY_ENOMEM;
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
    /* The server is draining (tachy_server_drain): a final response closes its connection
     * and says so (RFC 9112 section 9.6), so the client sends nothing more on it and
     * retries elsewhere; the handler's own Connection and Keep-Alive give way to ours. A
     * 1xx is not final, and a 101's connection becomes a WebSocket's. */
    int drain = code >= 200 && atomic_load_explicit(&c->srv->draining, memory_order_relaxed);
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
        if (__builtin_expect(drain, 0) &&
            ((nl == 10 && memcmp(name, "Connection", 10) == 0) ||
             (nl == 10 && memcmp(name, "Keep-alive", 10) == 0)))
            continue;
        /* A handler that answers "Connection: close" gets it honoured. */
        if (nl == 10 && memcmp(name, "Connection", 10) == 0 && vl == 5 &&
            strncasecmp(value, "close", 5) == 0)
            c->close_after = 1;
        if (tachy__buf_reserve(w, nl + vl + 4) < 0)
            return TACHY_ENOMEM;
        char *p = w->data + w->len;
        memcpy(p, name, nl);
        p[nl] = ':';
        p[nl + 1] = ' ';
        memcpy(p + nl + 2, value, vl);
        p[nl + 2 + vl] = '\r';
        p[nl + 3 + vl] = '\n';
        w->len += nl + vl + 4;
    }
    if (__builtin_expect(drain, 0)) {
        if (tachy__buf_append(w, "Connection: close\r\n", 19) < 0)
            return TACHY_ENOMEM;
        c->close_after = 1;
    }
    /* The framing header and the empty line, in one reservation. */
    static const char te[] = "Transfer-encoding: chunked\r\n\r\n", cl_name[] = "Content-length: ";
    if (tachy__buf_reserve(w, sizeof te + 24) < 0)
        return TACHY_ENOMEM;
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
    return 0;
}

/*
 * An HTTP/2 stream's side of the functions below (ex->ops: the codec frames what
 * HTTP/1.1 writes into wbuf). Each is out of line and cold, and is given values, not the
 * caller's head_src or body_src: HTTP/1.1's functions keep one test of ex->ops and none
 * of the codec's code, and their sources are not handed away.
 */

/* send_head for a stream (ex->ops): the same decision as HTTP/1.1's, sent as the codec
 * frames it (h2/stream.c). A 1xx cannot be a final response there: it goes as an interim
 * one. */
__attribute__((cold, noinline)) static int stream_head(tachy_exchange *ex, int code, int64_t len,
                                                       const tachy_headers *h,
                                                       const tachy_field *f, size_t n) {
    head_src src = {h, f, n, 0};
    framing_decision fd = decide_framing(ex, code, len);
    len = fd.len;
    int mode = fd.mode;
    int framing = fd.header;
    if (fd.close_after)
        ex->conn->close_after = 1;
    int64_t cl = framing == FRAMING_LENGTH ? (len == -1 ? 0 : len) : -1;
    int rc = code < 200 ? ex->ops->interim(ex, code)
                        : ex->ops->head(ex, code, cl, mode == TACHY__RSP_EMPTY, head_next_cb, &src);
    if (rc < 0)
        return tachy__exchange_fail(ex, rc);
    ex->rsp_code = code;
    ex->rsp_mode = mode;
    ex->rsp_left = mode == TACHY__RSP_FIXED ? len : 0;
    ex->rsp_length_header = cl;
    ex->rsp_done = mode == TACHY__RSP_EMPTY;
    return 0;
}

static int send_head(tachy_exchange *ex, int code, int64_t len, head_src *src) {
    if (ex->closed)
        return TACHY_ECLOSED;
    if (ex->rsp_code >= 0)
        return TACHY_EHDRSENT;
    if (code < 0 || code > 999 || len < -1) /* the JDK sends "HTTP/1.1 99 " as given */
        return TACHY_EINVAL;
    if (ex->ops)
        return stream_head(ex, code, len, src->h, src->f, src->n);
    tachy__conn *c = ex->conn;

    framing_decision fd = decide_framing(ex, code, len);
    len = fd.len;
    int mode = fd.mode;
    int framing = fd.header;
    if (fd.close_after)
        c->close_after = 1;

    int rc = write_head(c, code, framing, len, src);
    if (rc < 0)
        return tachy__exchange_fail(ex, rc);
    ex->rsp_code = code;
    ex->rsp_mode = mode;
    ex->rsp_left = mode == TACHY__RSP_FIXED ? len : 0;
    ex->rsp_length_header = framing == FRAMING_LENGTH ? (len == -1 ? 0 : len) : -1;
    /* maxRspTime runs from the end of the request (http/exchange.c, request_complete); an
     * upgraded connection (101) is no longer an exchange: no deadline. */
    if (code == 101 && atomic_load_explicit(&c->io_deadline, memory_order_relaxed))
        atomic_store(&c->io_deadline, 0);
    if (mode == TACHY__RSP_EMPTY) {
        ex->rsp_done = 1;
        if (code == 101)
            rc = tachy__io_flush(c);
        else
            rc = tachy__io_response_done(c);
    } else if (mode != TACHY__RSP_FIXED) {
        /* A streamed body: the client should see the headers now, as with the JDK. */
        rc = tachy__io_flush(c);
    } else if (tachy__buf_size(&c->wbuf) >= TACHY__WBUF_FLUSH_AT) {
        rc = tachy__io_flush(c);
    }
    return rc < 0 ? tachy__exchange_fail(ex, rc) : 0;
}

/* Appends body bytes (already framed by the caller) to wbuf, or sends them directly with
 * whatever is buffered when they are large. */
static int put_body(tachy__conn *c, const void *buf, size_t len) {
    if (len >= 16384)
        return tachy__io_send2(c, buf, len);
    if (tachy__buf_append(&c->wbuf, buf, len) < 0)
        return TACHY_ENOMEM;
    if (tachy__buf_size(&c->wbuf) >= TACHY__WBUF_FLUSH_AT)
        return tachy__io_flush(c);
    return 0;
}

/* len bytes of file fd from off as body bytes already framed: sendfile when the
 * transport allows, else pread into a buffer and the ordinary write path. */
static int file_body(tachy_exchange *ex, int fd, int64_t off, int64_t len) {
    tachy__conn *c = ex->conn;
    int rc = ex->ops ? TACHY_ENOTSUP : tachy__io_send_file(c, fd, &off, len);
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
        else if ((rc = ex->ops ? ex->ops->body(ex, buf, (size_t)n)
                               : put_body(c, buf, (size_t)n)) == 0) {
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
/* A stream frames its body itself (DATA frames, END_STREAM at its end): framed_body's
 * HTTP/2 side (see stream_head). */
__attribute__((cold, noinline)) static int stream_body(tachy_exchange *ex, body_src src,
                                                       int64_t len) {
    int rc = src.buf ? ex->ops->body(ex, src.buf, (size_t)len)
                     : file_body(ex, src.fd, src.off, len);
    if (rc == 0)
        ex->rsp_bytes += len;
    if (rc == 0 && ex->rsp_mode == TACHY__RSP_FIXED && (ex->rsp_left -= len) == 0) {
        ex->rsp_done = 1;
        rc = ex->ops->end(ex, 1);
    }
    return rc < 0 ? tachy__exchange_fail(ex, rc) : 0;
}

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
    if (ex->rsp_mode == TACHY__RSP_FIXED && len > ex->rsp_left)
        return TACHY_ETOOLONG; /* nothing written */
    if (ex->ops)
        return stream_body(ex, *src, len);
    int chunked = ex->rsp_mode == TACHY__RSP_CHUNKED;
    if (chunked && (tachy__buf_append_hex(&c->wbuf, (uint64_t)len) < 0 ||
                    tachy__buf_append(&c->wbuf, "\r\n", 2) < 0))
        return tachy__exchange_fail(ex, TACHY_ENOMEM);
    int rc = src->buf ? put_body(c, src->buf, (size_t)len)
                      : file_body(ex, src->fd, src->off, len);
    if (rc == 0 && chunked && tachy__buf_append(&c->wbuf, "\r\n", 2) < 0)
        rc = TACHY_ENOMEM;
    if (rc == 0)
        ex->rsp_bytes += len;
    if (rc == 0 && ex->rsp_mode == TACHY__RSP_FIXED && (ex->rsp_left -= len) == 0) {
        ex->rsp_done = 1;
        rc = tachy__io_response_done(c);
    }
    return rc < 0 ? tachy__exchange_fail(ex, rc) : 0;
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
    int rc = ex->ops ? ex->ops->flush(ex, 1) : tachy__io_flush(ex->conn);
    return rc < 0 ? tachy__exchange_fail(ex, rc) : 0;
}

TACHY_API int tachy_exchange_try_flush(tachy_exchange *ex) {
    if (!ex)
        return TACHY_EINVAL;
    if (ex->closed || ex->rsp_closed)
        return ex->rsp_mode == TACHY__RSP_FIXED ? 0 : TACHY_ECLOSED;
    if (ex->rsp_code < 0)
        return 0;
    int rc = ex->ops ? ex->ops->flush(ex, 0) : tachy__io_flush_end_nowait(ex->conn);
    return rc < 0 ? tachy__exchange_fail(ex, rc) : rc;
}

/* A stream's response body closed (see stream_head): a short fixed body is reset (the peer
 * must not take it for whole), a streamed one ends; an empty one ended with its head. */
__attribute__((cold, noinline)) static int stream_body_close(tachy_exchange *ex) {
    int rc = 0;
    if (ex->rsp_mode == TACHY__RSP_FIXED && ex->rsp_left > 0) {
        ex->ops->end(ex, 0);
        return tachy__exchange_fail(ex, TACHY_ESHORT);
    }
    if (ex->rsp_mode == TACHY__RSP_CHUNKED && !ex->failed) {
        ex->rsp_done = 1;
        rc = ex->ops->end(ex, 1);
    }
    return rc < 0 ? tachy__exchange_fail(ex, rc) : 0;
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
    if (ex->ops)
        return stream_body_close(ex);
    switch (ex->rsp_mode) {
    case TACHY__RSP_FIXED:
        if (ex->rsp_left > 0) {
            /* The JDK: "insufficient bytes written to stream"; the connection closes. */
            tachy__io_flush(c);
            return tachy__exchange_fail(ex, TACHY_ESHORT);
        }
        break;
    case TACHY__RSP_CHUNKED:
        if (ex->failed)
            break;
        if (tachy__buf_append(&c->wbuf, "0\r\n\r\n", 5) < 0)
            return tachy__exchange_fail(ex, TACHY_ENOMEM);
        ex->rsp_done = 1;
        rc = tachy__io_response_done(c);
        break;
    case TACHY__RSP_UNTIL_CLOSE:
        c->close_after = 1;
        rc = tachy__io_flush(c);
        break;
    default:
        break;
    }
    return rc < 0 ? tachy__exchange_fail(ex, rc) : 0;
}


/*
 * Sends an error response in exactly the JDK's format (ServerImpl.reject):
 *   HTTP/1.1 404 Not Found / Content-Length / Content-Type: text/html / Connection: close
 *   <h1>404 Not Found</h1>No context found for request
 * and marks the connection for closing. Pending pipelined responses go out first.
 */
size_t tachy__reject_body(char *buf, size_t cap, int code, const char *msg) {
    size_t rl;
    int jdk;
    const char *r = reason_lookup(code, &rl, &jdk);
    if (!r)
        r = "Error";
    int blen = snprintf(buf, cap, "<h1>%d %s</h1>%s", code, r, msg ? msg : "");
    if (blen < 0)
        return 0;
    return (size_t)blen >= cap ? cap - 1 : (size_t)blen;
}

void tachy__response_reject(tachy__conn *c, int code, const char *msg) {
    tachy__edge_rejected(c->srv, code); /* edge/metrics.c */
    int begun = c->ex.t0_ns && c->ex.rsp_code < 0;
    if (begun)
        c->ex.rsp_code = code; /* a begun exchange answered so: its end counts this status */
    size_t rl;
    int jdk;
    const char *r = reason_lookup(code, &rl, &jdk);
    if (!r)
        r = "Error";
    char body[512];
    int blen = (int)tachy__reject_body(body, sizeof body, code, msg);
    if (begun)
        c->ex.rsp_bytes = blen; /* and the access log its body */
    char head[256];
    int hlen = snprintf(head, sizeof head,
                        "HTTP/1.1 %d %s\r\nContent-Length: %d\r\nContent-Type: text/html\r\n"
                        "Connection: close\r\n\r\n",
                        code, r, blen);
    if (hlen > 0 && (size_t)hlen < sizeof head) {
        tachy__buf_append(&c->wbuf, head, (size_t)hlen);
        tachy__buf_append(&c->wbuf, body, (size_t)blen);
    }
    tachy__io_flush(c);
    c->close_after = 1;
}

void tachy__exchange_reject_own(tachy_exchange *ex, int code, const char *msg) {
    if (!ex->ops) {
        tachy__response_reject(ex->conn, code, msg);
        return;
    }
    /* A stream: the same status and body, on this stream only. */
    tachy__edge_rejected(ex->conn->srv, code);
    char body[512];
    size_t blen = tachy__reject_body(body, sizeof body, code, msg);
    ex->rsp_bytes = (int64_t)blen; /* (the access log's) */
    tachy_field ct = {"Content-Type", 12, "text/html", 9};
    head_src src = {NULL, &ct, 1, 0};
    int rc = ex->ops->head(ex, code, (int64_t)blen, 0, head_next_cb, &src);
    if (rc == 0)
        rc = ex->ops->body(ex, body, blen);
    if (rc == 0)
        rc = ex->ops->end(ex, 1);
    if (rc < 0)
        ex->failed = 1;
    ex->rsp_code = code;
    ex->rsp_mode = TACHY__RSP_EMPTY;
    ex->rsp_left = 0;
    ex->rsp_length_header = -1;
    ex->rsp_done = 1;
}


/* ---- the decision and the reject, for bridges ------------------------------------------- */

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

TACHY_API int64_t tachy_exchange_response_bytes(const tachy_exchange *ex) {
    return ex ? ex->rsp_bytes : TACHY_EINVAL;
}

TACHY_API int tachy_exchange_reject(tachy_exchange *ex, int code, const char *msg) {
    if (!ex || code < 100 || code > 999)
        return TACHY_EINVAL;
    if (ex->closed)
        return TACHY_ECLOSED;
    if (ex->rsp_code >= 0)
        return TACHY_EHDRSENT;
    tachy__exchange_reject_own(ex, code, msg); /* the bytes the core's own rejects send */
    ex->rsp_code = code;
    ex->rsp_mode = TACHY__RSP_EMPTY;
    ex->rsp_left = 0;
    ex->rsp_length_header = -1; /* its Content-Length is not the JDK's framing header */
    ex->rsp_done = 1;
    return 0;
}
