/*
 * http/parser.h - the request head parser and body framing (parser.c), the chunked decoder
 * (chunked.c) and percent-decoding (target.c). Pure: no I/O, no allocation, no global state; any thread. Private
 * to the core (and its tests and fuzzers); never installed.
 */
#ifndef TACHY__SRC_HTTP_PARSER_H
#define TACHY__SRC_HTTP_PARSER_H

#include "base/base.h"

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
    /* tachy_options.jdk_header_rules: count and refuse as JDK 25's server does (parser.c
     * says exactly how): max_headers counts distinct names, max_header_bytes the JDK's
     * way, both refused with TACHY__PARSE_CLOSE; obs-fold accepted (tachy__parse_unfold). */
    int jdk_rules;
} tachy__limits;

/* A parse error: the status to answer and a static human-readable reason that ends up
 * in the error response body. */
typedef struct tachy__parse_error {
    int status;         /* 400, 414, 431, 501, 505, or TACHY__PARSE_CLOSE */
    const char *reason; /* static string, e.g. "Bad request line" */
} tachy__parse_error;

typedef struct tachy__request {
    tachy__str method;    /* token */
    tachy__str target;    /* request-target as sent */
    tachy__str version;   /* "HTTP/1.1" */
    int minor_version;    /* 0 or 1 */
    tachy__header_ref *headers; /* caller-provided array */
    size_t num_headers;   /* in: capacity of headers; out: count */
    /* out, with jdk_rules only (else not written): a value holds an obs-fold or an HTAB,
     * so tachy__parse_unfold must run before the values are used */
    int unfold;
} tachy__request;

#define TACHY__PARSE_INCOMPLETE (-2)
#define TACHY__PARSE_ERROR (-1)
/* jdk_rules only: req->headers is full but the JDK would take more lines; call again with
 * a bigger array (req->num_headers = its capacity). */
#define TACHY__PARSE_MORE_HEADERS (-3)
/* tachy__parse_error.status of a request refused without a response: the connection is
 * just closed (the JDK's answer to its header limits). */
#define TACHY__PARSE_CLOSE 0

/*
 * Parses a request head (request line + header fields + empty line) from buf[0,len).
 * Returns the number of bytes consumed (> 0) when complete, TACHY__PARSE_INCOMPLETE when
 * more bytes are needed (but limits are already enforced on what is there), or
 * TACHY__PARSE_ERROR with *err filled. Strict RFC 9112: a CRLF line end is required
 * (bare LF accepted, bare CR -> 400), tokens validated, no whitespace before the colon,
 * no obs-fold, no NUL/CTL in values. With lim->jdk_rules the limits are counted and
 * refused as the JDK does (TACHY__PARSE_CLOSE), obs-fold is accepted (req->unfold), and
 * TACHY__PARSE_MORE_HEADERS may ask for a bigger header array. Leading empty lines before the request line are
 * skipped (RFC 9112 2.2). Only HTTP/1.0 and HTTP/1.1 are accepted (else 505).
 * Never reads outside buf[0,len). Nothing is copied: views point into buf.
 */
int tachy__parse_request(const char *buf, size_t len, tachy__request *req,
                         const tachy__limits *lim, tachy__parse_error *err);
/*
 * The same parse, for http/conn.c's request loop alone. An entry point with one caller
 * is one that link-time optimisation inlines into it (GCC inlines a function called
 * once), and HTTP/1.1's loop wants the parse inlined; tachy__parse_request has other
 * callers (h2/'s h2c upgrade, the tests) and is too big to inline into each. Measured by
 * callgrind (tachy-hello, keep-alive GET): its call costs HTTP/1.1 ~50 instructions per
 * request.
 */
TACHY__NO_ICF int tachy__parse_request_conn(const char *buf, size_t len, tachy__request *req,
                                            const tachy__limits *lim, tachy__parse_error *err);

/*
 * After a complete parse with jdk_rules that set req->unfold: rewrites the values in place
 * as the JDK reads them (each obs-fold - CRLF or LF and the SP/HTAB after it - and each
 * HTAB becomes one SP; leading and trailing SP go) and updates their views (shorter, same
 * place). buf is the buffer that was parsed, writable.
 */
void tachy__parse_unfold(char *buf, tachy__request *req);

/* How a request body is framed, from its headers (RFC 9112 6). */
typedef struct tachy__framing {
    int chunked;            /* Transfer-Encoding: chunked */
    int64_t content_length; /* >= 0 if Content-Length present, -1 otherwise */
    int connection_close;   /* Connection: close token present */
    int connection_keep_alive; /* Connection: keep-alive token present */
    int expect_continue;    /* Expect: 100-continue */
    int upgrade;            /* Connection: upgrade token present */
    int hosts;              /* Host fields */
    int host_index;         /* the (last) Host field's index in req->headers */
} tachy__framing;

/*
 * Analyses the parsed headers: Content-Length (duplicates must agree, digits only, no
 * overflow -> else 400), Transfer-Encoding (only "chunked", possibly as the last of a
 * list of known codings; anything else -> 501; both TE and CL -> 400), Connection
 * tokens, Expect. Returns 0 or TACHY__PARSE_ERROR with *err.
 */
int tachy__parse_framing(const tachy__request *req, tachy__framing *out, tachy__parse_error *err);
/*
 * RFC 9112 3.2: an HTTP/1.1 request without Host, a request with more than one Host
 * field, or a Host value that is not uri-host [ ":" port ] (RFC 3986; empty is valid) is
 * a 400. Uses what tachy__parse_framing found (the count and the field). 0, or
 * TACHY__PARSE_ERROR with *err.
 */
int tachy__check_host(const tachy__request *req, const tachy__framing *fr, tachy__parse_error *err);

/* Streaming chunked-body decoder state. Zero-initialise, or tachy__chunked_init. */
typedef struct tachy__chunked {
    int state;
    uint64_t remaining;  /* bytes left in the current chunk */
    size_t line_len;     /* bytes seen of the current size/trailer line */
    size_t trailer_bytes;
    size_t max_line;     /* longest chunk-size line incl. extensions; 0 = 4096 */
    size_t max_trailer_bytes; /* 0 = TACHY__MAX_TRAILER_BYTES (server/options.h) */
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
 * escapes are kept literally (as java.net.URI would refuse them; see target.c). Returns
 * the decoded length or -1 if it does not fit. */
ssize_t tachy__percent_decode(const char *in, size_t len, char *out, size_t cap);

#endif
