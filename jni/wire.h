/*
 * jni/wire.h - the one format in which the JNI bridge and Java exchange header sets and the
 * request head, in both directions. Mirrored field for field by
 * dev.tachy.httpserver.internal.Wire (java/src/main/java); WireTest checks that the two
 * agree by round-tripping through this file's encoder and decoder (Native.wireEcho,
 * Native.wireResult). Never installed; everything is static (hidden).
 *
 *   string   a 4-byte big-endian length n (0 <= n <= INT32_MAX), then n bytes. Text is
 *            ISO-8859-1 (one byte per char, as the JDK writes header bytes), so any byte,
 *            NUL included, may occur.
 *   number   4 bytes, big-endian two's complement (a port, a count).
 *   pairs    string name, string value, name, value, ...
 *
 * The request head (C -> Java, the byte[] of Native.dispatch; bridge.c head_build):
 *   string method, string uri, string protocol,
 *   number P, then P pairs: the response headers the core set before the handler ran
 *     (HTTP/1.0 Connection/Keep-Alive, as the JDK does),
 *   string remote host, number remote port, string local host, number local port,
 *   pairs to the end: the request headers (names normalised by the core), in order.
 * The response headers (Java -> C, the byte[] of Native.sendResponseHeaders): pairs to the
 *   end, in the order to send them.
 * The result of Native.sendResponseHeaders (C -> Java): a negative TACHY_E* code, or
 *   bits  0..39  the epoch second the head was sent at (the second of its Date header),
 *   bits 40..42  the framing the core decided (tachy_response_framing),
 *   bits 43..44  the Content-length header the core wrote: TACHY_WIRE_CL_NONE, _GIVEN (the
 *                length Java passed) or _ZERO.
 *
 * Threads: pure functions on caller-owned memory; any thread.
 */
#ifndef TACHY_JNI_WIRE_H
#define TACHY_JNI_WIRE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <tachy/exchange.h>
#include <tachy/server.h>

/*
 * The server options (C <- Java): Native.serverCreate's long[], indexed by
 * TACHY_JNI_OPT_<NAME> here and by Native.OPT_<NAME> in Java (Long.MIN_VALUE = keep the C
 * default). X(NAME, member of tachy_wire_options, its C type), in index order. WireTest
 * compares the names with Native's OPT_ constants (Native.wireOptionNames) and sends
 * distinct values through natives.c's mapping and back (Native.wireOptionsEcho): a table
 * changed on one side only fails there.
 */
#define TACHY_WIRE_OPTIONS(X)                                                                \
    X(MAX_REQ_HEADERS, o.max_req_headers, int)                                               \
    X(MAX_REQ_HEADER_SIZE, o.max_req_header_size, int)                                       \
    X(MAX_REQ_TIME_MS, o.max_req_time_ms, long)                                              \
    X(MAX_RSP_TIME_MS, o.max_rsp_time_ms, long)                                              \
    X(IDLE_INTERVAL_MS, o.idle_interval_ms, long)                                            \
    X(MAX_IDLE_CONNECTIONS, o.max_idle_connections, int)                                     \
    X(MAX_CONNECTIONS, o.max_connections, int)                                               \
    X(DRAIN_AMOUNT, o.drain_amount, long)                                                    \
    X(NODELAY, o.nodelay, int)                                                               \
    X(THREAD_STACK_SIZE, o.thread_stack_size, size_t)                                        \
    X(THREAD_KEEPALIVE_MS, o.thread_keepalive_ms, long)                                      \
    X(LOG_LEVEL, log_level, int)                                                             \
    X(HTTP10_KEEPALIVE_MAX, o.http10_keepalive_max, int)                                     \
    X(JDK_HEADER_RULES, o.jdk_header_rules, int)                                             \
    X(CONTEXT_MATCH, o.context_match, int)                                                   \
    X(PROXY_PROTOCOL, o.proxy_protocol, int)                                                 \
    X(REUSEPORT, o.reuseport, int)                                                           \
    X(ACCESS_LOG_FORMAT, o.access_log_format, int)                                           \
    X(ACCESS_LOG_LINES, o.access_log_lines, int)                                             \
    X(ACCESS_LOG_LOGGER, access_log_logger, int)                                             \
    X(HTTP2, o.http2, int)                                                                   \
    X(H2_MAX_STREAMS, o.h2_max_streams, int)

#define TACHY_WIRE__OPT_ENUM(name, member, type) TACHY_JNI_OPT_##name,
enum { TACHY_WIRE_OPTIONS(TACHY_WIRE__OPT_ENUM) TACHY_JNI_OPT_COUNT };
#undef TACHY_WIRE__OPT_ENUM

/* What the options array sets: the server's options, the bridge's own log level (the
 * lowest tachy_log_level forwarded to Java; 0 = none), and whether the access log goes to
 * Java's System.Logger (1; its file path, a string, is serverCreate's second argument). */
typedef struct tachy_wire_options {
    tachy_options o;
    int log_level;
    int access_log_logger;
} tachy_wire_options;

/* v[0, TACHY_JNI_OPT_COUNT) onto w; dflt (Native.OPT_DEFAULT) keeps the member as it is. */
static inline void tachy_wire_options_apply(tachy_wire_options *w, const int64_t *v,
                                            int64_t dflt) {
#define TACHY_WIRE__OPT_SET(name, member, type)                                              \
    if (v[TACHY_JNI_OPT_##name] != dflt) {                                                   \
        w->member = (type)v[TACHY_JNI_OPT_##name];                                           \
    }
    TACHY_WIRE_OPTIONS(TACHY_WIRE__OPT_SET)
#undef TACHY_WIRE__OPT_SET
}

/* w's members in index order into v (the test's way back). */
static inline void tachy_wire_options_read(const tachy_wire_options *w, int64_t *v) {
#define TACHY_WIRE__OPT_GET(name, member, type) v[TACHY_JNI_OPT_##name] = (int64_t)w->member;
    TACHY_WIRE_OPTIONS(TACHY_WIRE__OPT_GET)
#undef TACHY_WIRE__OPT_GET
}

#define TACHY_WIRE_SECOND_BITS 40
#define TACHY_WIRE_FRAMING_SHIFT 40
#define TACHY_WIRE_FRAMING_MASK 0x7
#define TACHY_WIRE_CL_SHIFT 43
#define TACHY_WIRE_CL_MASK 0x3
enum { TACHY_WIRE_CL_NONE = 0, TACHY_WIRE_CL_GIVEN = 1, TACHY_WIRE_CL_ZERO = 2 };

/* ---- encoding --------------------------------------------------------------------------- */

/* A byte buffer that starts in caller memory (the stack) and moves to the heap when it
 * outgrows it; failed is sticky (an allocation failed or a string was too long). */
typedef struct tachy_wire_buf {
    unsigned char *p;
    size_t len;
    size_t cap;
    int heap;
    int failed;
} tachy_wire_buf;

static inline void tachy_wire_init(tachy_wire_buf *b, void *stack, size_t cap) {
    b->p = stack;
    b->len = 0;
    b->cap = cap;
    b->heap = 0;
    b->failed = 0;
}

/* Frees the heap copy, if any. */
static inline void tachy_wire_free(tachy_wire_buf *b) {
    if (b->heap) {
        free(b->p);
    }
    b->p = NULL;
    b->heap = 0;
}

/* Room for n more bytes; 0, or -1 (failed set). */
static inline int tachy_wire_room(tachy_wire_buf *b, size_t n) {
    if (b->failed) {
        return -1;
    }
    if (b->len + n <= b->cap) {
        return 0;
    }
    size_t cap = b->cap > 0 ? b->cap * 2 : 256;
    while (cap < b->len + n) {
        cap *= 2;
    }
    unsigned char *p = b->heap ? realloc(b->p, cap) : malloc(cap);
    if (p == NULL) {
        b->failed = 1;
        return -1;
    }
    if (!b->heap && b->len > 0) {
        memcpy(p, b->p, b->len);
    }
    b->p = p;
    b->cap = cap;
    b->heap = 1;
    return 0;
}

static inline void tachy_wire__be32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static inline void tachy_wire_put_num(tachy_wire_buf *b, int32_t v) {
    if (tachy_wire_room(b, 4) == 0) {
        tachy_wire__be32(b->p + b->len, (uint32_t)v);
        b->len += 4;
    }
}

/* A string of n bytes (s may be NULL when n is 0). */
static inline void tachy_wire_put_str(tachy_wire_buf *b, const char *s, size_t n) {
    if (n > INT32_MAX) {
        b->failed = 1;
        return;
    }
    if (tachy_wire_room(b, 4 + n) == 0) {
        tachy_wire__be32(b->p + b->len, (uint32_t)n);
        if (n > 0) {
            memcpy(b->p + b->len + 4, s, n);
        }
        b->len += 4 + n;
    }
}

/* A NUL-terminated string (NULL: the empty string). */
static inline void tachy_wire_put_cstr(tachy_wire_buf *b, const char *s) {
    tachy_wire_put_str(b, s, s != NULL ? strlen(s) : 0);
}

/* The result of Native.sendResponseHeaders (layout above). */
static inline int64_t tachy_wire_result(int64_t second, int framing, int cl) {
    if (second < 0 || second >= ((int64_t)1 << TACHY_WIRE_SECOND_BITS)) {
        second = 0;
    }
    return second | (int64_t)(framing & TACHY_WIRE_FRAMING_MASK) << TACHY_WIRE_FRAMING_SHIFT |
           (int64_t)(cl & TACHY_WIRE_CL_MASK) << TACHY_WIRE_CL_SHIFT;
}

/* ---- decoding --------------------------------------------------------------------------- */

static inline uint32_t tachy_wire__get32(const unsigned char *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* The string at *i of p[0, len): *s and *n point into p, *i moves past it. 0, or -1 for a
 * truncated or oversized string (*i unchanged). */
static inline int tachy_wire_get_str(const unsigned char *p, size_t len, size_t *i,
                                     const char **s, size_t *n) {
    if (len - *i < 4) {
        return -1;
    }
    uint32_t k = tachy_wire__get32(p + *i);
    if (k > INT32_MAX || len - *i - 4 < k) {
        return -1;
    }
    *s = (const char *)p + *i + 4;
    *n = k;
    *i += 4 + (size_t)k;
    return 0;
}

/*
 * Pairs to the end of p[0, len) as fields pointing into p. *out is fields (cap entries), or
 * a malloc'ed array when there are more: whatever the result, the caller frees *out when it
 * is not fields. Returns the
 * count, TACHY_EINVAL for a malformed set (a truncated string, a name without a value) or
 * TACHY_ENOMEM.
 */
static inline ssize_t tachy_wire_get_fields(const unsigned char *p, size_t len,
                                            tachy_field *fields, size_t cap, tachy_field **out) {
    size_t i = 0, n = 0;
    *out = fields;
    while (i < len) {
        const char *name, *value;
        size_t nl, vl;
        if (tachy_wire_get_str(p, len, &i, &name, &nl) < 0 ||
            tachy_wire_get_str(p, len, &i, &value, &vl) < 0) {
            return TACHY_EINVAL;
        }
        if (n == cap) {
            size_t ncap = cap > 0 ? cap * 2 : 16;
            tachy_field *grown = *out == fields ? malloc(ncap * sizeof *grown)
                                                : realloc(*out, ncap * sizeof *grown);
            if (grown == NULL) {
                return TACHY_ENOMEM;
            }
            if (*out == fields && n > 0) {
                memcpy(grown, fields, n * sizeof *grown);
            }
            *out = grown;
            cap = ncap;
        }
        (*out)[n++] = (tachy_field){name, nl, value, vl};
    }
    return (ssize_t)n;
}

#endif
