/*
 * tachy/server.h - the server and its contexts: HttpServer and HttpContext.
 *
 * Model: handlers see thread-per-connection. While a request is in progress one pooled
 * thread owns the connection and runs the filters and the handler, which may block freely
 * (reading, writing, sleeping, calling other services); an upgraded connection keeps its
 * thread for its whole life. Between requests a keep-alive connection holds no thread: it
 * waits in the server's epoll set, and whichever pool thread is free serves its next
 * request. Pool threads are started on demand (a watchdog adds one when all are blocked)
 * and exit after thread_keepalive_ms without work. The thread hooks in tachy_options run on
 * every pool thread. There is no acceptor thread: the listening socket waits in the same
 * epoll set, and the pool thread that sees it readable accepts.
 *
 * Lifetime: tachy_server_create*() -> [bind] -> create contexts -> start -> stop ->
 * destroy. Contexts may be created and removed at any time, from any thread.
 */
#ifndef TACHY_SERVER_H
#define TACHY_SERVER_H

#include <stddef.h>
#include <stdint.h>
#include <tachy/export.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tachy_server tachy_server;
typedef struct tachy_context tachy_context;
typedef struct tachy_exchange tachy_exchange;
typedef struct tachy_filter tachy_filter;
typedef struct tachy_authenticator tachy_authenticator;

/*
 * A handler (HttpHandler.handle). Runs on the connection's thread. Return 0 normally;
 * return a negative value to report failure - the equivalent of a Java handler throwing:
 * the exchange is abandoned and the connection is closed without a response being
 * invented (exactly what the JDK does). When a handler returns without having closed the
 * exchange, tachy closes it (tachy_exchange_close) - unless the handler called
 * tachy_exchange_defer() to finish the exchange from another thread; the connection then
 * belongs to the exchange, no thread waits with it, and the close continues it (see
 * tachy_exchange_defer).
 */
typedef int (*tachy_handler_fn)(tachy_exchange *ex, void *user);

/* Log levels passed to tachy_options.log (mirroring System.Logger.Level). */
enum tachy_log_level { TACHY_LOG_DEBUG = 1, TACHY_LOG_INFO, TACHY_LOG_WARNING, TACHY_LOG_ERROR };

/*
 * Server options. Always initialise with tachy_options_init() and then change fields:
 * new fields may be added at the end. Field names follow the JDK system properties
 * (sun.net.httpserver.* / jdk.httpserver.*); defaults are the JDK's unless noted.
 * Times are in milliseconds; -1 means "no limit" where stated.
 */
typedef struct tachy_options {
    int max_req_headers;       /* maxReqHeaders: max header lines per request (200) -> 431  */
    int max_req_header_size;   /* maxReqHeaderSize: max bytes of all header lines (393216)  */
    int max_request_line;      /* tachy: longest request line in bytes (16384) -> 414      */
    long max_req_time_ms;      /* maxReqTime: from the request's first byte until its body
                                  has been read (-1); the connection closes after it       */
    long max_rsp_time_ms;      /* maxRspTime: from the end of the request (its body read)
                                  until the response is complete (-1); closes after it     */
    long idle_interval_ms;     /* idleInterval: keep-alive idle timeout (30000)            */
    /* maxIdleConnections: how many idle keep-alive connections are kept; once that many are
     * idle, a connection whose response completes is closed instead of waiting for its next
     * request. -1 (tachy's default) = no cap but the descriptor limit: a parked connection
     * costs about 2 KB and no thread, and a cap behind a client pool larger than it (1,024
     * connections at a paced rate) closes and reopens connections on every request.
     * The JDK's default is 200, which the Java provider keeps (and its property). 0 = none. */
    int max_idle_connections;
    int max_connections;       /* jdk.httpserver.maxConnections: -1 or 0 = unlimited       */
    long drain_amount;         /* drainAmount: unread request body drained at close (65536) */
    int nodelay;               /* nodelay: TCP_NODELAY on accepted sockets (tachy: 1)      */
    size_t thread_stack_size;  /* connection thread stack in bytes (tachy: 256 KiB)        */
    long thread_keepalive_ms;  /* how long an idle pooled thread waits for work (10000)    */
    size_t max_chunk_ext;      /* tachy: longest chunk-size line incl. extensions (4096)   */
    int http10_keepalive_max;  /* add ", max=N" to HTTP/1.0 Keep-Alive replies (JDK <= 20: 1;
                                  JDK 21+ and tachy default: 0); N = max_idle_connections,
                                  left out when that is -1 (no cap) */
    /* Called on every connection thread right after it starts and right before
     * it exits, on that thread (the JNI bridge attaches/detaches threads here). name is
     * a short readable thread name. Either may be NULL. */
    void (*on_thread_start)(void *user, const char *name);
    void (*on_thread_stop)(void *user);
    void *thread_hook_user;
    /* Diagnostics (handler failures, rejected connections). NULL = silent. Any thread. */
    void (*log)(void *user, int level, const char *message);
    void *log_user;
    /*
     * tachy: the longest a request body may take to arrive, counted from the end of its
     * head, in ms; -1 (the default) = no bound of its own. The JDK has none: there only
     * maxReqTime (max_req_time_ms, which covers the body too) bounds a slow body, and
     * between two bytes a read waits at most idle_interval_ms. Past the bound the
     * connection is closed without a response (the handler's read fails), as maxReqTime
     * closes it. A blocked body read never holds up other connections either way: the
     * pool brings in another thread before it waits.
     */
    long max_body_time_ms;
    /*
     * tachy: RFC 9112 section 3.2 (1, the default): an HTTP/1.1 request without Host, any
     * request with more than one Host field, or a Host value that is not a valid
     * uri-host[:port] gets 400 "Bad Request" and the connection is closed. 0 = no check
     * (the JDK's behaviour; the Java provider sets 0).
     */
    int check_host;
    /*
     * tachy, HTTPS only: the TLS handshake must be done within this many ms of accept
     * (10000); a client that sends nothing or a partial ClientHello is closed then,
     * instead of holding its buffers until the request deadline. <= 0 = the default.
     */
    long tls_handshake_time_ms;
    /*
     * tachy: 0 (the default) = the strict limits and rules above: over max_req_headers
     * lines or max_req_header_size bytes of header lines is 431 and an obs-fold 400 (RFC
     * 6585 5, RFC 9112 5.2). 1 = JDK 25's own rules, which the Java provider uses: the two
     * limits are counted as sun.net.httpserver.Request counts them (max_req_headers:
     * distinct field names, checked before each line, so repeated names pass;
     * max_req_header_size: the request line + 32, and per field line its length without
     * trailing whitespace + 33; the request line may then be up to max_req_header_size - 32
     * bytes, where max_request_line is not lower), a request over either is closed without
     * a response, and an obs-fold is accepted and replaced by SP (as is HTAB in values).
     */
    int jdk_header_rules;
    /*
     * tachy, behind a load balancer (docs/load-balancing.md): 1 = every connection starts
     * with a PROXY protocol header, version 1 or 2 (HAProxy's send-proxy / send-proxy-v2,
     * nginx's proxy_protocol on), read before the first HTTP byte - and before the TLS
     * handshake on an HTTPS server (a balancer in TCP mode in front of tachy's TLS). The
     * header's source becomes the exchange's remote address (tachy_exchange_remote_address,
     * Java's getRemoteAddress); tachy_exchange_peer_address keeps the balancer's. A
     * connection without a valid header is closed without a response (it did not come
     * through the balancer). 0 (the default): no header is expected, and one that comes is
     * not HTTP: 400 and close.
     */
    int proxy_protocol;
    /*
     * tachy, with proxy_protocol: the networks the header may come from, e.g.
     * "127.0.0.1, 10.0.0.0/8, fd00::/8" (addresses with an optional prefix length,
     * separated by commas or blanks, at most 64). A connection from any other peer is
     * closed before anything is read from it. NULL or "" = any peer (only safe when
     * nothing but the balancer can reach the port). Read by tachy_server_create*, which
     * keeps its own copy; a malformed list makes them fail with TACHY_EINVAL.
     */
    const char *proxy_trusted;
    /*
     * tachy: 1 = bind with SO_REUSEPORT, so several processes (or servers in one process)
     * listen on the same port, each with its own accept queue, the kernel spreading new
     * connections over them. Every socket on the port must set it (and belong to the same
     * user). 0 (the default): a second bind to the port fails with TACHY_EADDRINUSE.
     */
    int reuseport;
    /*
     * How a request path finds its context (HttpServer's context matching; the longest
     * matching context path wins either way):
     *   TACHY_CONTEXT_MATCH_PATH_PREFIX (the default): the context path must be the request
     *     path or a prefix of it that ends at a '/' - "/foo" serves "/foo", "/foo/" and
     *     "/foo/bar" but not "/foobar"; "/foo/" serves "/foo/" and "/foo/bar" but not "/foo".
     *     JDK 27's default (JDK-8272758, sun.net.httpserver.pathMatcher=pathPrefix).
     *   TACHY_CONTEXT_MATCH_STRING_PREFIX: any string prefix - "/foo" serves "/foobar" too.
     *     The JDK's rule up to 26 (and JDK 27's pathMatcher=stringPrefix).
     * Any other value is the default.
     */
    int context_match;
    /*
     * Where tachy_exchange_set_attribute / tachy_exchange_attribute keep attributes
     * (HttpExchange.setAttribute / getAttribute):
     *   TACHY_ATTRIBUTES_EXCHANGE (the default): per exchange, gone when it ends. JDK 26's
     *     default (JDK-7105350): a principal stamped into one request's attributes cannot
     *     leak into the next.
     *   TACHY_ATTRIBUTES_CONTEXT: in the exchange's context, as tachy_context_set_attribute
     *     (no free function), shared by every exchange of the context and kept after it -
     *     the JDK's behaviour up to 25 (and JDK 26's jdk.httpserver.attributes=context).
     * Any other value is the default.
     */
    int exchange_attributes;
    /*
     * tachy: 0 (the default) = a request whose decoded path holds a NUL byte ("%00") gets
     * 400 and the connection closes: a C handler would see the path cut short, and
     * "/a.txt%00.jpg" pass for "/a.txt". 1 = passed on as the JDK does (the Java provider's
     * setting): contexts are matched on the whole decoded path, and
     * tachy_exchange_request_path returns it up to the NUL (the raw target is in
     * tachy_exchange_request_uri).
     */
    int path_nul;
    /*
     * tachy: the access log (tachy/accesslog.h, docs/load-balancing.md "Access log"), one
     * line per exchange in the Common Log Format (or Combined, below), written by a thread
     * of the server's own, never on the request path. Off (the default) when both sinks
     * are NULL: then nothing is formatted. access_log: a file path, opened for appending
     * (created 0644) by tachy_server_start, which fails with the open's error; the server
     * keeps its own copy of the string. access_log_fn: called instead with each line
     * (without its newline, NUL-terminated, valid during the call only) on the log's
     * writer thread, in the order the lines were queued; on_thread_start / on_thread_stop
     * run on that thread too. When both are set the callback wins.
     */
    const char *access_log;
    void (*access_log_fn)(void *user, const char *line, size_t len);
    void *access_log_user;
    /* TACHY_ACCESS_LOG_COMMON (0, the default) or TACHY_ACCESS_LOG_COMBINED (1: Referer and
     * User-Agent added). Any other value is the default. */
    int access_log_format;
    /* Lines the access log's ring holds between two writes (rounded up to a power of two,
     * at most 1,048,576; 4096 by default, 1 KiB each): when it is full, a line is dropped
     * and counted (tachy_access_log_dropped_total) rather than wait. */
    int access_log_lines;
    /*
     * tachy: which ways to HTTP/2 are open (docs/http2.md), a set of TACHY_HTTP2_* bits:
     *   TACHY_HTTP2_TLS         on an HTTPS server, "h2" offered by ALPN (RFC 9113 3.2)
     *   TACHY_HTTP2_PRIOR       on a plain server, a connection that starts with the HTTP/2
     *                           preface (h2c with prior knowledge, RFC 9113 3.3)
     *   TACHY_HTTP2_UPGRADE     on a plain server, "Upgrade: h2c" on a request without a body
     *                           (RFC 7540 3.2): 101, then its answer comes on stream 1
     *   TACHY_HTTP2_ONLY        with the others: HTTP/2 alone - a plain connection that
     *                           does not start with the preface, or a TLS one that did
     *                           not choose "h2", is answered 505 and closed (HttpArena's
     *                           h2c port)
     * The default is the first three (TACHY_HTTP2_ALL); 0 = HTTP/1.1 only (the Java provider's
     * default: -Dtachy.http2=true opens them). Each stream is an exchange; where libnghttp2
     * cannot be loaded the server speaks HTTP/1.1 alone and says so once on stderr.
     */
    int http2;
    /* tachy, HTTP/2: SETTINGS_MAX_CONCURRENT_STREAMS, the streams a client may have open on
     * one connection (each may hold a handler). <= 0 = the default, 256: the JDK's
     * HttpClient fails requests beyond the server's limit instead of queueing them, and
     * programs send 200 at once. */
    int h2_max_streams;
} tachy_options;

/* tachy_options.access_log_format */
enum tachy_access_log_format { TACHY_ACCESS_LOG_COMMON = 0, TACHY_ACCESS_LOG_COMBINED = 1 };

/* tachy_options.http2 */
enum tachy_http2 {
    TACHY_HTTP2_TLS = 1,
    TACHY_HTTP2_PRIOR = 2,
    TACHY_HTTP2_UPGRADE = 4,
    TACHY_HTTP2_ALL = 7,
    TACHY_HTTP2_ONLY = 8
};

/* tachy_options.context_match */
enum tachy_context_match {
    TACHY_CONTEXT_MATCH_PATH_PREFIX = 0,
    TACHY_CONTEXT_MATCH_STRING_PREFIX = 1
};

/* tachy_options.exchange_attributes */
enum tachy_exchange_attributes { TACHY_ATTRIBUTES_EXCHANGE = 0, TACHY_ATTRIBUTES_CONTEXT = 1 };

/* Fills opt with the defaults above. Any thread. */
TACHY_API void tachy_options_init(tachy_options *opt);

/* ---- server ------------------------------------------------------------------------ */

/* Creates an unbound server (HttpServer.create()). opt is copied; NULL = defaults.
 * The caller owns *out: tachy_server_destroy. Any thread. */
TACHY_API int tachy_server_create_unbound(tachy_server **out, const tachy_options *opt);

/* Creates a server bound to host:port (HttpServer.create(addr, backlog)). host NULL or
 * "" = all addresses (wildcard), a name is resolved; port 0 = an ephemeral port;
 * backlog <= 0 = the system default. Errors: TACHY_EADDRINUSE, TACHY_EADDRNOTAVAIL,
 * TACHY_ESYS, TACHY_ENOMEM, TACHY_EINVAL. */
TACHY_API int tachy_server_create(tachy_server **out, const char *host, int port, int backlog,
                                  const tachy_options *opt);

/* Binds an unbound server (HttpServer.bind). TACHY_EBOUND if already bound. */
TACHY_API int tachy_server_bind(tachy_server *srv, const char *host, int port, int backlog);

/* Starts accepting (HttpServer.start). TACHY_ENOTBOUND, TACHY_ESTARTED (second start),
 * TACHY_ESTOPPED (after stop). Returns once the listening socket accepts connections. */
TACHY_API int tachy_server_start(tachy_server *srv);

/*
 * HttpServer.stop(delay): with delay_seconds > 0, tachy_server_drain(srv, delay_seconds *
 * 1000) - a graceful drain of at most the delay; with 0, stops accepting at once, closes
 * every idle connection and then every other one without waiting. Returns when every pool
 * thread and the watchdog have exited (a thread still inside a handler that ignores its
 * closed connection is not waited for past the delay). A second call (or one during a
 * drain) waits for the first to finish and returns 0. delay_seconds < 0 gives
 * TACHY_EINVAL. Any thread; called from one of this server's handlers it cannot wait for
 * that handler, whose connection is closed when the delay is over.
 */
TACHY_API int tachy_server_stop(tachy_server *srv, int delay_seconds);

/*
 * Graceful drain, then stop (docs/load-balancing.md, "Graceful drain"), for at most
 * timeout_ms:
 *   - accepting stops at once, once the connections already in the listening socket's
 *     queue have been accepted (closing it would reset them) and have sent their first
 *     request;
 *   - exchanges in progress finish; every response head written from now on carries
 *     "Connection: close" and its connection closes after it;
 *   - a request whose bytes have reached a connection (even one not read yet: pipelined,
 *     or in the socket) is served, with "Connection: close";
 *   - idle connections - keep-alive ones between requests, and new ones whose first
 *     request has not come - are closed once the drain has run 100 ms: the close a client
 *     may retry after (RFC 9112 section 9.6); a connection in use gets its next request
 *     within that time and is closed after answering it;
 *   - parked WebSockets (tachy_ws_attach) are sent a close frame with 1001 (going away)
 *     and closed when the close handshake ends;
 * and the stop ends as stop(0) does: at the deadline, whatever is left is closed. Returns
 * as soon as no connection is left (or at the deadline, plus the time threads need to
 * leave). timeout_ms 0 is stop(0). 0, or TACHY_EINVAL (srv NULL, timeout_ms < 0); a second
 * call waits for the first and returns 0. Any thread except a handler of this server's
 * (its own exchange would hold the drain until the deadline); srv stays the caller's (free
 * it with tachy_server_destroy). WebSockets served by tachy_ws_serve (a thread each) are
 * not sent 1001: their handler owns them (it may close them itself).
 */
TACHY_API int tachy_server_drain(tachy_server *srv, long timeout_ms);

/* Stops (delay 0) if needed and frees the server and its contexts. NULL is a no-op.
 * Any thread except the server's own; srv and every context handle become invalid. */
TACHY_API void tachy_server_destroy(tachy_server *srv);

/* The bound address (HttpServer.getAddress): numeric host into host (cap bytes) and the
 * real port into *port (port 0 at bind -> the port the system chose). Either output may
 * be NULL. TACHY_ENOTBOUND before bind. Any thread. */
TACHY_API int tachy_server_address(const tachy_server *srv, char *host, size_t cap, int *port);

/* Convenience: the bound port, or TACHY_ENOTBOUND. Any thread. */
TACHY_API int tachy_server_port(const tachy_server *srv);

/* The listening socket, or -1 (for diagnostics and tests; do not close it). */
TACHY_API int tachy_server_fd(const tachy_server *srv);

/* The options in force (borrowed, read-only, valid for the server's life). */
TACHY_API const tachy_options *tachy_server_options(const tachy_server *srv);

/*
 * HttpServer.createContext(path[, handler]). path must start with '/' (TACHY_EINVAL) and
 * not already exist (TACHY_EEXISTS). handler may be NULL: requests then get the JDK's
 * 500 "No handler for context". *out (may be NULL) is borrowed: valid until the context
 * is removed or the server destroyed. Any thread, also while serving.
 */
TACHY_API int tachy_server_create_context(tachy_server *srv, const char *path,
                                          tachy_handler_fn handler, void *user,
                                          tachy_context **out);

/* HttpServer.removeContext(path) / removeContext(context). TACHY_ENOTFOUND if absent.
 * Exchanges already running on the context finish normally. Any thread. */
TACHY_API int tachy_server_remove_context(tachy_server *srv, const char *path);
TACHY_API int tachy_server_remove_context_handle(tachy_server *srv, tachy_context *ctx);

/* The context that would serve path (decoded request path), or NULL: the longest context
 * path that matches path by the server's tachy_options.context_match (by default a path
 * prefix: "/foo" matches "/foo/bar", not "/foobar"). Borrowed. Any thread. */
TACHY_API tachy_context *tachy_server_find_context(tachy_server *srv, const char *path);

/* Number of open connections (for tests and metrics). Any thread. */
TACHY_API int tachy_server_connection_count(const tachy_server *srv);

/* Counters since the server was created (relaxed atomics: a consistent snapshot is not
 * promised while serving). Tests use `writes` to check that pipelined responses leave in
 * one write. */
typedef struct tachy_stats {
    uint64_t connections; /* accepted connections                     */
    uint64_t requests;    /* requests parsed                          */
    uint64_t reads;       /* recv calls that returned data            */
    uint64_t writes;      /* send calls on connections (each syscall) */
} tachy_stats;

/* Copies the counters into *out. Any thread. */
TACHY_API int tachy_server_stats(const tachy_server *srv, tachy_stats *out);

/* ---- context (HttpContext) --------------------------------------------------------- */

/* The context's path (borrowed, immutable). */
TACHY_API const char *tachy_context_path(const tachy_context *ctx);

/* The owning server. */
TACHY_API tachy_server *tachy_context_server(const tachy_context *ctx);

/* HttpContext.setHandler. Takes effect for requests dispatched afterwards. Any thread. */
TACHY_API int tachy_context_set_handler(tachy_context *ctx, tachy_handler_fn handler, void *user);

/* The current handler and its user pointer (either output may be NULL). */
TACHY_API tachy_handler_fn tachy_context_handler(const tachy_context *ctx, void **user);

/* Context attributes (HttpContext.getAttributes): name is copied; value is stored as is;
 * free_fn (may be NULL) is called on the old value when replaced/removed and on the
 * context's destruction. value NULL removes the attribute. Any thread. */
TACHY_API int tachy_context_set_attribute(tachy_context *ctx, const char *name, void *value,
                                          void (*free_fn)(void *));
TACHY_API void *tachy_context_attribute(const tachy_context *ctx, const char *name);

/* Appends a filter to the chain (HttpContext.getFilters().add). The context takes its own
 * reference; the caller keeps (and still must destroy) its own. Any thread. */
TACHY_API int tachy_context_add_filter(tachy_context *ctx, tachy_filter *filter);

/* Removes the first occurrence of filter. TACHY_ENOTFOUND if absent. Any thread. */
TACHY_API int tachy_context_remove_filter(tachy_context *ctx, tachy_filter *filter);

/* Number of filters in the chain. */
TACHY_API size_t tachy_context_filter_count(const tachy_context *ctx);

/* HttpContext.setAuthenticator; NULL removes it. The context takes its own reference.
 * The authenticator runs after the user filters and before the handler, as in the JDK.
 * Any thread. */
TACHY_API int tachy_context_set_authenticator(tachy_context *ctx, tachy_authenticator *auth);

#ifdef __cplusplus
}
#endif
#endif
