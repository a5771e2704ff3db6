/*
 * internal.h - declarations shared between the core's files. Never installed.
 *
 * Internal non-static symbols are named tachy__<module>_<verb>.
 */
#ifndef TACHY_INTERNAL_H
#define TACHY_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <tachy/tachy.h>
#include <unistd.h>

#define TACHY__UNUSED(x) ((void)(x))
#define TACHY__MIN(a, b) ((a) < (b) ? (a) : (b))
#define TACHY__MAX(a, b) ((a) > (b) ? (a) : (b))

/* ---- buf.c: growable byte buffers --------------------------------------------------- */

/* A growable byte buffer. Zero-initialise ({0}) for an empty one. data is NULL until the
 * first reserve. Readable bytes are data[off, len). */
typedef struct tachy__buf {
    char *data;
    size_t off; /* first unread byte */
    size_t len; /* end of valid bytes */
    size_t cap;
} tachy__buf;

/* Ensures room for at least n more bytes after len (compacting or growing). 0 or ENOMEM.
 * Inline when the room is already there (the hot path), buf.c otherwise. */
int tachy__buf_reserve_slow(tachy__buf *b, size_t n);
static inline int tachy__buf_reserve(tachy__buf *b, size_t n) {
    return b->cap - b->len >= n ? 0 : tachy__buf_reserve_slow(b, n);
}
/* Appends n bytes. 0 or TACHY_ENOMEM. */
int tachy__buf_append_slow(tachy__buf *b, const void *p, size_t n);
static inline int tachy__buf_append(tachy__buf *b, const void *p, size_t n) {
    if (n > 0 && n <= (size_t)PTRDIFF_MAX && b->cap - b->len >= n) {
        memcpy(b->data + b->len, p, n);
        b->len += n;
        return 0;
    }
    return tachy__buf_append_slow(b, p, n);
}
/* Appends a NUL-terminated string (without the NUL). */
int tachy__buf_append_str(tachy__buf *b, const char *s);
/*
 * recv() and send() on the request path, without glibc's cancellation wrappers: in a
 * multi-threaded process each cancellable call enables and disables asynchronous
 * cancellation around the system call (two atomic read-modify-writes, a few percent of a
 * keep-alive request's CPU in perf). tachy never cancels threads, and a JNI-attached
 * thread must not be cancelled anyway. Same results and errno as recv()/send().
 */
#if defined(__SANITIZE_THREAD__)
/* ThreadSanitizer learns from its send/recv interceptors that data passed through a socket
 * orders the threads on both ends; raw system calls would hide that from it. */
static inline ssize_t tachy__recv(int fd, void *buf, size_t len, int flags) {
    return recv(fd, buf, len, flags);
}
static inline ssize_t tachy__send(int fd, const void *buf, size_t len, int flags) {
    return send(fd, buf, len, flags);
}
#else
static inline ssize_t tachy__recv(int fd, void *buf, size_t len, int flags) {
    return syscall(SYS_recvfrom, fd, buf, len, flags, NULL, NULL);
}
static inline ssize_t tachy__send(int fd, const void *buf, size_t len, int flags) {
    return syscall(SYS_sendto, fd, buf, len, flags, NULL, 0);
}
#endif

/* Writes v in decimal at p (at most 20 bytes, no NUL) and returns how many. */
static inline size_t tachy__format_u64(char *p, uint64_t v) {
    char tmp[20]; /* UINT64_MAX has 20 digits */
    size_t i = sizeof tmp;
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    memcpy(p, tmp + i, sizeof tmp - i);
    return sizeof tmp - i;
}
/* Appends a decimal (u)int64. */
int tachy__buf_append_u64(tachy__buf *b, uint64_t v);
/* Appends v as lower-case hex without leading zeros ("0" for 0). */
int tachy__buf_append_hex(tachy__buf *b, uint64_t v);
/* Marks n readable bytes consumed; resets to empty when everything is consumed. */
void tachy__buf_consume(tachy__buf *b, size_t n);
/* Number of readable bytes. */
static inline size_t tachy__buf_size(const tachy__buf *b) { return b->len - b->off; }
/* Moves readable bytes to the front (off = 0). */
void tachy__buf_compact(tachy__buf *b);
/* Empties the buffer, keeping its memory. */
static inline void tachy__buf_reset(tachy__buf *b) { b->off = b->len = 0; }
/* Frees memory; the buffer is empty afterwards and may be reused. */
void tachy__buf_free(tachy__buf *b);

/* ---- date.c: cached IMF-fixdate ------------------------------------------------------ */

#define TACHY__DATE_LEN 29 /* "Sun, 06 Nov 1994 08:49:37 GMT" */

/* Writes the current time as an RFC 9110 IMF-fixdate (exactly 29 chars + NUL) into out.
 * The formatted string is cached per thread and recomputed once a second. Any thread. */
void tachy__date_now(char out[TACHY__DATE_LEN + 1]);
/* Formats t (seconds since the epoch) into out; pure. */
void tachy__date_format(int64_t t, char out[TACHY__DATE_LEN + 1]);

/* ---- parser.c: request head and chunked parsing over a buffer; no I/O ----------------- */

/* A borrowed string view into the parsed buffer. */
typedef struct tachy__str {
    const char *base;
    size_t len;
} tachy__str;

typedef struct tachy__header_ref {
    tachy__str name;  /* as sent (not normalised), never empty */
    tachy__str value; /* leading/trailing SP/HTAB trimmed */
} tachy__header_ref;

typedef struct tachy__limits {
    size_t max_request_line;  /* bytes of the request line without CRLF -> 414 */
    size_t max_headers;       /* header lines -> 431 */
    size_t max_header_bytes;  /* bytes of all header lines incl. CRLFs -> 431 */
} tachy__limits;

/* A parse error: the status to answer and a static human-readable reason that ends up
 * in the error response body. */
typedef struct tachy__parse_error {
    int status;         /* 400, 414, 431, 501, 505 */
    const char *reason; /* static string, e.g. "Bad request line" */
} tachy__parse_error;

typedef struct tachy__request {
    tachy__str method;    /* token */
    tachy__str target;    /* request-target as sent */
    tachy__str version;   /* "HTTP/1.1" */
    int minor_version;    /* 0 or 1 */
    tachy__header_ref *headers; /* caller-provided array */
    size_t num_headers;   /* in: capacity of headers; out: count */
} tachy__request;

#define TACHY__PARSE_INCOMPLETE (-2)
#define TACHY__PARSE_ERROR (-1)

/*
 * Parses a request head (request line + header fields + empty line) from buf[0,len).
 * Returns the number of bytes consumed (> 0) when complete, TACHY__PARSE_INCOMPLETE when
 * more bytes are needed (but limits are already enforced on what is there), or
 * TACHY__PARSE_ERROR with *err filled. Strict RFC 9112: a CRLF line end is required
 * (bare LF accepted, bare CR -> 400), tokens validated, no whitespace before the colon,
 * no obs-fold, no NUL/CTL in values. Leading empty lines before the request line are
 * skipped (RFC 9112 2.2). Only HTTP/1.0 and HTTP/1.1 are accepted (else 505).
 * Never reads outside buf[0,len). Nothing is copied: views point into buf.
 */
int tachy__parse_request(const char *buf, size_t len, tachy__request *req,
                         const tachy__limits *lim, tachy__parse_error *err);

/* How a request body is framed, from its headers (RFC 9112 6). */
typedef struct tachy__framing {
    int chunked;            /* Transfer-Encoding: chunked */
    int64_t content_length; /* >= 0 if Content-Length present, -1 otherwise */
    int connection_close;   /* Connection: close token present */
    int connection_keep_alive; /* Connection: keep-alive token present */
    int expect_continue;    /* Expect: 100-continue */
    int upgrade;            /* Connection: upgrade token present */
} tachy__framing;

/*
 * Analyses the parsed headers: Content-Length (duplicates must agree, digits only, no
 * overflow -> else 400), Transfer-Encoding (only "chunked", possibly as the last of a
 * list of known codings; anything else -> 501; both TE and CL -> 400), Connection
 * tokens, Expect. Returns 0 or TACHY__PARSE_ERROR with *err.
 */
int tachy__parse_framing(const tachy__request *req, tachy__framing *out, tachy__parse_error *err);

/* Streaming chunked-body decoder state. Zero-initialise, or tachy__chunked_init. */
typedef struct tachy__chunked {
    int state;
    uint64_t remaining;  /* bytes left in the current chunk */
    size_t line_len;     /* bytes seen of the current size/trailer line */
    size_t trailer_bytes;
    size_t max_line;     /* longest chunk-size line incl. extensions; 0 = 4096 */
    size_t max_trailer_bytes; /* 0 = 65536 */
} tachy__chunked;

void tachy__chunked_init(tachy__chunked *d, size_t max_line, size_t max_trailer_bytes);

/*
 * Decodes chunked framing from in[0,len) without copying. On return *consumed bytes of
 * in were used; if *data_len > 0, in[*data_off, *data_off + *data_len) is body data
 * (inside the consumed range; the caller should hand it out before calling again).
 * Returns 0 (call again with the unconsumed rest, or with more input if it consumed all),
 * 1 when the last chunk and the trailers are complete (the body is over; *consumed
 * excludes bytes after it), or TACHY__PARSE_ERROR (bad/overflowing size, bad CRLF,
 * oversized line or trailers) with *err. It returns after at most one data run, so callers
 * loop. State survives across calls: input may be split at any byte.
 */
int tachy__chunked_decode(tachy__chunked *d, const char *in, size_t len, size_t *consumed,
                          size_t *data_off, size_t *data_len, tachy__parse_error *err);

/* Percent-decodes a path into out (NUL-terminated, at most cap bytes incl. NUL). Invalid
 * escapes are kept literally (as java.net.URI would refuse them; see exchange.c). Returns
 * the decoded length or -1 if it does not fit. */
ssize_t tachy__percent_decode(const char *in, size_t len, char *out, size_t cap);

/* ---- headers.c ---------------------------------------------------------------------- */

/* Adds without validation of CR/LF (the parser has validated). name normalised. */
int tachy__headers_add_trusted(tachy_headers *h, const char *name, size_t nlen,
                               const char *value, size_t vlen);
/* Checks name and value for CR, LF, NUL (a response header must never carry them):
 * 0 or TACHY_EBADHEADER. */
int tachy__headers_validate(const tachy_headers *h);
/* Headers.normalize of src[0,n) into dst (dst may be src): the first byte upper-cased if
 * it is a-z, every other A-Z lower-cased, other bytes untouched. Any thread. */
void tachy__headers_normalize_n(char *dst, const char *src, size_t n);
/* tachy_headers_next with the lengths it already knows (the response head is written from
 * it). Owner thread. */
int tachy__headers_next_n(const tachy_headers *h, size_t *cursor, const char **name,
                          size_t *nlen, const char **value, size_t *vlen);

/* ---- filter.c ------------------------------------------------------------------------ */

void tachy__filter_ref(tachy_filter *f);
void tachy__authenticator_ref(tachy_authenticator *a);

/* Runs the chain filters[i..n) then handler on ex. Returns the first failure (< 0). */
int tachy__chain_run(tachy_filter *const *filters, size_t n, tachy_handler_fn handler,
                     void *handler_user, tachy_exchange *ex);

/* Decodes "Basic <b64>" credentials: on success *user and *pass are malloc'ed UTF-8
 * strings (caller frees) and 0 is returned; -1 for a malformed value (bad base64, no
 * colon, other scheme checked by the caller). utf8 = 0 decodes ISO-8859-1. */
int tachy__basic_decode(const char *b64, size_t len, int utf8, char **user, char **pass);

/* Base64 (RFC 4648, with padding): returns encoded length written into out (cap must be
 * >= 4 * ((len + 2) / 3) + 1). Used by the WebSocket handshake too. */
size_t tachy__base64_encode(const unsigned char *in, size_t len, char *out);
/* Strict decode (padding required as Java's Base64.getDecoder); returns decoded length or
 * -1. out must have room for 3 * (len / 4) bytes. */
ssize_t tachy__base64_decode(const char *in, size_t len, unsigned char *out);

/* ---- server.c / conn.c / exchange.c shared internals are in conn.h ------------------- */

/* Emits a log line through the server's options (printf-style). */
void tachy__log(const tachy_server *srv, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
