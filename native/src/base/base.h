/*
 * base/base.h - the core's foundations: byte buffers, the clock, the Date header, base64,
 * SHA-1 and UTF-8. Private to the core; never installed.
 *
 * Nothing here knows about HTTP or servers or calls a socket: every other folder may
 * include this header, and this header includes nothing of theirs. Internal non-static symbols are named
 * tachy__<module>_<verb>.
 */
#ifndef TACHY__SRC_BASE_BASE_H
#define TACHY__SRC_BASE_BASE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <tachy/tachy.h>

#define TACHY__UNUSED(x) ((void)(x))
#define TACHY__MIN(a, b) ((a) < (b) ? (a) : (b))
#define TACHY__MAX(a, b) ((a) > (b) ? (a) : (b))

/* On an entry point that is a twin of another (the same code, kept apart so that it has one
 * caller and link-time optimisation inlines it there: http/parser.h, http/dispatch.c):
 * GCC's identical code folding (-fipa-icf, on at -O2) would otherwise make the two one
 * function again, with both callers. Clang folds no functions unless told to. */
#if defined(__GNUC__) && !defined(__clang__)
#define TACHY__NO_ICF __attribute__((no_icf))
#else
#define TACHY__NO_ICF
#endif

/* The value of an ASCII hex digit, or -1. Pure. */
static inline int tachy__hex_value(unsigned char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    c |= 0x20; /* ASCII lower case; digits were handled above */
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* ---- buf.c: growable byte buffers --------------------------------------------------- */

/* A growable byte buffer. Zero-initialise ({0}) for an empty one. data is NULL until the
 * first reserve. Readable bytes are data[off, len). */
typedef struct tachy__buf {
    union {
        char *data;     /* HTTP text */
        uint8_t *bytes; /* the same memory as octets (WebSocket frames, deflate) */
    };
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
/* The same, for HTTP/2 (h2/stream.c): a call site of its own, so that HTTP/1.1's response
 * head (http/response.c) stays tachy__date_now's only one and link-time optimisation keeps
 * inlining it there (GCC inlines a function called once; measured by callgrind: 28
 * instructions per keep-alive request). */
void tachy__date_now_h2(char out[TACHY__DATE_LEN + 1]);
/* Formats t (seconds since the epoch) into out; pure. */
void tachy__date_format(int64_t t, char out[TACHY__DATE_LEN + 1]);

/* ---- addr.c: socket addresses ------------------------------------------------------ */

struct sockaddr;
/* The numeric host of sa (len bytes: an IPv4 or IPv6 address) into host (cap bytes,
 * NUL-terminated; NULL/0 to skip) and its port into *port (NULL to skip). 0, or
 * TACHY_EINVAL when the host does not fit. */
int tachy__addr_format(const struct sockaddr *sa, unsigned len, char *host, size_t cap,
                       int *port);

/* A network: an IPv4 or IPv6 address and a prefix length (tachy_options.proxy_trusted). */
typedef struct tachy__cidr {
    int family;       /* AF_INET or AF_INET6 */
    uint8_t addr[16]; /* network order; host bits cleared */
    int bits;         /* prefix length: 0-32 or 0-128 */
} tachy__cidr;
/* Parses a list of networks, "address[/bits]" separated by commas and/or blanks (an
 * address alone is one host), into out[0,cap). The count (0 for NULL or ""),
 * TACHY_EINVAL for a malformed one, TACHY_ETOOBIG for more than cap. Pure. */
int tachy__cidr_parse(const char *s, tachy__cidr *out, size_t cap);
/* 1 if sa (IPv4 or IPv6; an IPv4-mapped IPv6 address also matches IPv4 networks) lies in
 * one of nets[0,n), else 0. Pure. */
int tachy__cidr_match(const tachy__cidr *nets, size_t n, const struct sockaddr *sa);

/* ---- clock.c: the one clock -------------------------------------------------------- */

/*
 * Every timeout in tachy is measured on CLOCK_MONOTONIC, in milliseconds: deadlines of
 * parked connections, request and response limits, handshake limits, WebSocket pings and
 * closes, the watchdog's tick and every timed condition-variable wait.
 */

/* Monotonic milliseconds, read from CLOCK_MONOTONIC_COARSE (the same clock at jiffy
 * resolution, a few ms): it costs a memory read instead of a TSC read, and it runs for
 * every pipelined request. Any thread. */
long tachy__now_ms(void);

/* Initialises a condition variable whose timed waits run on CLOCK_MONOTONIC (so a change
 * of the wall clock never shortens or stretches a wait). 0 or an errno value. */
int tachy__cond_init(pthread_cond_t *cond);

/* pthread_cond_timedwait for at most ms milliseconds (< 0: no limit) on a condition made
 * by tachy__cond_init. mutex must be held. 0, or ETIMEDOUT when the time ran out. */
int tachy__cond_wait_ms(pthread_cond_t *cond, pthread_mutex_t *mutex, long ms);

/* ---- base64.c: RFC 4648 ------------------------------------------------------------- */

/* Base64 (RFC 4648, with padding): returns encoded length written into out (cap must be
 * >= 4 * ((len + 2) / 3) + 1). Used by the WebSocket handshake too. */
size_t tachy__base64_encode(const unsigned char *in, size_t len, char *out);
/* Strict decode (padding required as Java's Base64.getDecoder); returns decoded length or
 * -1. out must have room for 3 * (len / 4) bytes. */
ssize_t tachy__base64_decode(const char *in, size_t len, unsigned char *out);
/* java.util.Base64.getDecoder()'s rules; allow_unpadded also takes a final unit of 2 or 3
 * characters without padding (out then needs 3 * (len / 4) + 2 bytes). Length or -1. */
ssize_t tachy__base64_decode_java(const char *in, size_t len, unsigned char *out,
                                  int allow_unpadded);

/* ---- sha1.c ----------------------------------------------------------------------------- */

/* SHA-1 (FIPS 180-4) of data[0,len) into out. Only for Sec-WebSocket-Accept. Pure. */
void tachy__sha1(const void *data, size_t len, uint8_t out[20]);

/* ---- utf8.c: incremental UTF-8 validation (RFC 3629) ------------------------------------ */

typedef struct tachy__utf8 {
    uint8_t need; /* continuation bytes still expected */
    uint8_t lo;   /* allowed range of the next continuation byte (tightened after E0, ED, */
    uint8_t hi;   /* F0, F4 to exclude overlongs, surrogates and > U+10FFFF) */
} tachy__utf8;

static inline void tachy__utf8_init(tachy__utf8 *u) {
    u->need = 0;
    u->lo = 0x80;
    u->hi = 0xBF;
}

/* Feeds bytes; returns 0 while everything seen could still be valid UTF-8, -1 as soon as
 * it cannot (the state is then meaningless). Input may be split anywhere. Pure. */
int tachy__utf8_feed(tachy__utf8 *u, const uint8_t *p, size_t n);

/* 1 when the input so far ends on a character boundary. */
static inline int tachy__utf8_complete(const tachy__utf8 *u) {
    return u->need == 0;
}

/* Whole-buffer check: 1 if p[0,n) is valid UTF-8, else 0. */
int tachy__utf8_valid(const void *p, size_t n);

#endif
