/*
 * server/options.h - the one table of tachy_options defaults and of what an out-of-range
 * value becomes. tachy_options_init and tachy_server_create_unbound (server.c) expand it,
 * and so does the parser (http/parser.c) for the limits it applies when given none.
 * Private to the core; never installed.
 */
#ifndef TACHY__SRC_SERVER_OPTIONS_H
#define TACHY__SRC_SERVER_OPTIONS_H

/*
 * X(field, default, fix), in the order of tachy_options (tachy/server.h documents each;
 * proxy_trusted and access_log, strings, are not here: server.c parses the first into
 * srv->trusted and copies the second; the access log's callback is not here either).
 * fix says what a value that means nothing becomes when a server is created:
 *   KEEP      every value means something (-1 = none, 0 = off ...): kept
 *   POSITIVE  <= 0 becomes the default
 *   NONNEG    < 0 becomes 0
 *   NONZERO   0 becomes the default
 *   MINSTACK  below 64 KiB (but not 0 = the system's default) becomes 64 KiB
 *   CHOICE2   a choice of two (0 or 1): anything else becomes the default
 */
#define TACHY__OPTIONS(X)                                                                   \
    X(max_req_headers, 200, POSITIVE)          /* sun.net.httpserver.maxReqHeaders */       \
    X(max_req_header_size, 393216, POSITIVE)   /* sun.net.httpserver.maxReqHeaderSize */    \
    X(max_request_line, 16384, POSITIVE)                                                    \
    X(max_req_time_ms, -1, KEEP)               /* sun.net.httpserver.maxReqTime */          \
    X(max_rsp_time_ms, -1, KEEP)               /* sun.net.httpserver.maxRspTime */          \
    X(idle_interval_ms, 30000, POSITIVE)       /* sun.net.httpserver.idleInterval */        \
    X(max_idle_connections, -1, KEEP)          /* maxIdleConnections (JDK 200; provider 200) */\
    X(max_connections, -1, KEEP)               /* jdk.httpserver.maxConnections */          \
    X(drain_amount, 65536, NONNEG)             /* sun.net.httpserver.drainAmount */         \
    X(nodelay, 1, KEEP)                        /* sun.net.httpserver.nodelay (JDK: 0) */    \
    X(thread_stack_size, 256 * 1024, MINSTACK)                                              \
    X(thread_keepalive_ms, 10000, NONNEG)                                                   \
    X(max_chunk_ext, 4096, NONZERO)                                                         \
    X(http10_keepalive_max, 0, KEEP)                                                        \
    X(max_body_time_ms, -1, KEEP)              /* tachy: -1 = none (JDK: maxReqTime only) */\
    X(check_host, 1, KEEP)                     /* tachy: RFC 9112 3.2 (JDK: 0) */           \
    X(tls_handshake_time_ms, 10000, POSITIVE)                                               \
    X(jdk_header_rules, 0, KEEP)               /* tachy: 0 = 431/400 (the provider: 1) */\
    X(proxy_protocol, 0, KEEP)                 /* tachy: PROXY protocol header (edge/) */   \
    X(reuseport, 0, KEEP)                      /* tachy: SO_REUSEPORT at bind */           \
    X(context_match, 0, CHOICE2)               /* sun.net.httpserver.pathMatcher (JDK 27) */\
    X(exchange_attributes, 0, CHOICE2)         /* jdk.httpserver.attributes (JDK 26) */     \
    X(path_nul, 0, KEEP)                       /* tachy: 0 = "%00" in the path is 400 */   \
    X(access_log_format, 0, CHOICE2)           /* tachy: Common (0) or Combined (1) */      \
    X(access_log_lines, 4096, POSITIVE)        /* tachy: the access log's ring, in lines */ \
    X(http2, 7, KEEP)                          /* tachy: TACHY_HTTP2_ALL (provider: 0) */   \
    X(h2_max_streams, 256, POSITIVE)           /* tachy: SETTINGS_MAX_CONCURRENT_STREAMS */

#define TACHY__OPT_MIN_STACK (64 * 1024)
/* tachy_options.proxy_trusted: at most this many networks. */
#define TACHY__MAX_TRUSTED 64

/* Limits that are not options (tachy_options has no field for them), kept beside the
 * table so that every limit has one home. */
/* Bytes of trailer field lines after a chunked body, CRLFs included (RFC 9112 7.1.2), that
 * http/chunked.c accepts before it refuses the request with 431 (RFC 6585 5). */
#define TACHY__MAX_TRAILER_BYTES 65536

/* TACHY__DEFAULT_<field>: each field's default as a constant (all fit an int). */
#define TACHY__OPT_DEFAULT_ENUM(field, def, fix) TACHY__DEFAULT_##field = (def),
enum { TACHY__OPTIONS(TACHY__OPT_DEFAULT_ENUM) };
#undef TACHY__OPT_DEFAULT_ENUM

#endif
