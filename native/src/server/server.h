/*
 * server/server.h - HttpServer, HttpContext, Filter and Authenticator as data: the server
 * struct (options, listening socket, contexts, counters), contexts, filter chains and
 * authenticators. Private to the core; never installed.
 *
 * This folder knows nothing of connections or threads: the running server (start, the
 * threads, the park set, stop) is loop/'s, which fills in the hooks below. http/, tls/,
 * ws/ and loop/ include this header; it includes only base/.
 *
 * Locking: srv->lock guards the context list and every context's mutable fields, the
 * server state and (in loop/) the pool. Lifetime: the server is reference-counted (the
 * user's reference, dropped by tachy_server_destroy, and one per live pool thread), so a
 * thread still finishing a handler after stop() returned never touches freed memory.
 */
#ifndef TACHY__SRC_SERVER_SERVER_H
#define TACHY__SRC_SERVER_SERVER_H

#include "base/base.h"
#include "server/options.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/socket.h>

/* Request-duration histogram bounds in microseconds (edge/metrics.c prints them in seconds):
 * Prometheus's default buckets with 0.1, 0.25 and 0.5 ms below them (tachy answers most
 * requests in well under a millisecond). */
#define TACHY__DURATION_BOUNDS_US                                                           \
    100, 250, 500, 1000, 2500, 5000, 10000, 25000, 50000, 100000, 250000, 500000, 1000000, \
        2500000, 5000000, 10000000
#define TACHY__DURATION_BUCKETS 17 /* the 16 bounds + Inf */
/* Statuses tachy's own rejects are counted by (server.st_rejected). */
#define TACHY__REJECT_CODES 400, 404, 413, 414, 431, 500, 501, 503, 505
#define TACHY__REJECT_SLOTS 10 /* the 9 codes + any other */

/* Why a TLS handshake failed (server.st_tls_failed; the names are the metric's labels in
 * this order). A handshake counts once its first ClientHello record has arrived (tls/). */
enum {
    TACHY__TLS_FAIL_PROTOCOL, /* OpenSSL refused it: no shared version or cipher, a bad or
                                 missing client certificate, not TLS at all */
    TACHY__TLS_FAIL_EOF,      /* the client closed or reset the connection during it */
    TACHY__TLS_FAIL_TIMEOUT,  /* closed unfinished by tachy: the handshake deadline or a stop */
    TACHY__TLS_FAIL_EVICTED,  /* evicted by newer handshakes (tachy_tls_config_set_max_handshakes) */
    TACHY__TLS_FAIL_COUNT
};
#define TACHY__TLS_FAIL_NAMES "protocol", "eof", "timeout", "evicted"

/* Server states. */
enum { TACHY__SRV_CREATED, TACHY__SRV_STARTED, TACHY__SRV_STOPPING, TACHY__SRV_STOPPED };

typedef struct tachy__attr {
    char *name;
    void *value;
    void (*free_fn)(void *);
} tachy__attr;

struct tachy_context {
    tachy_server *srv;
    char *path;
    size_t path_len;
    int removed;        /* removed from the server; freed when refs drop to 0 */
    atomic_int refs;    /* 1 for the server's list + 1 per exchange using it */
    /* mutable, under srv->lock: */
    tachy_handler_fn handler;
    void *user;
    tachy_filter **filters;
    size_t nfilters, filters_cap;
    tachy_authenticator *auth;
    tachy__attr *attrs;
    size_t nattrs;
};

struct tachy__loop; /* loop/loop.h */
struct tachy__conn; /* http/http.h */

/* Work for a pool thread that is not a connection's event: an HTTP/2 stream whose handler
 * must run, or output to flush (h2/). The poster owns the job until run is called; run
 * may free it. Jobs are run in the order posted, also while the server stops (run must
 * then only finish what it holds, never call a handler: srv->state says so). */
typedef struct tachy__job {
    void (*run)(struct tachy__job *job);
    struct tachy__job *next; /* the loop's queue (loop/workers.c); a batch posted at once */
} tachy__job;

struct tachy_server {
    tachy_options opt;        /* fixed at creation (server/options.h clamps it) */
    tachy_tls_config *tls;    /* HTTPS when set (before start; one reference held, tls/) */
    pthread_mutex_t lock;
    pthread_cond_t cond;      /* state, connection and thread counts changed (monotonic) */
    atomic_int refs;          /* 1 for the user + 1 per live pool thread */
    atomic_int state;         /* TACHY__SRV_* */
    /* tachy_server_drain (or stop with a delay) has begun: every response head written from
     * now on says "Connection: close" (http/response.c) and the loop closes connections as
     * they fall idle (loop/states.c, tachy__loop_drain_step). Set once, never cleared. */
    atomic_int draining;
    /* HTTP/2 can be spoken: tachy_options.http2 is not 0 and libnghttp2 was loaded (set by
     * loop/ at start, read by tls/'s ALPN and http/conn.c). */
    int h2_ok;
    int fd;                   /* listening socket or -1 */
    struct sockaddr_storage addr;
    socklen_t addr_len;
    int bound;
    tachy_context **contexts;
    size_t ncontexts, contexts_cap;
    /* The running server (loop/): created by tachy_server_start. loop/ sits above this
     * folder, so the server reaches it only through these hooks, which loop/ fills in. */
    struct tachy__loop *loop;
    /* The calling pool thread is about to be busy for a long time (a deferred exchange,
     * an upgraded connection, a body read that blocks): bring in another thread now. */
    void (*loop_blocking)(tachy_server *srv);
    /* Frees the pool (the last reference to the server is going away). */
    void (*loop_free)(tachy_server *srv);
    /* The loop's timers (tachy_timer_schedule / tachy_timer_cancel, loop/timers.c) for the
     * protocol code below it (ws/: pings, close and flush timeouts), through
     * tachy__server_timer_schedule / _cancel below. Set when the server starts. */
    int (*loop_timer_schedule)(tachy_server *srv, long delay_ms, long period_ms,
                               tachy_timer_fn fn, void *user, tachy_timer **out);
    int (*loop_timer_cancel)(tachy_timer *t);
    /* Drops the server's reference to srv->tls (tls/ sets it with srv->tls: server/ sits
     * below tls/ and calls it only through this hook). */
    void (*tls_release)(struct tachy_tls_config *cfg);
    /* A deferred exchange of conn was closed on the calling thread: marks it closed under
     * conn->lock and, if it had been lent the connection, continues the connection (here:
     * on this thread as far as it needs no blocking call, see tachy__conn_run, and with
     * the exchange's harvest flag serving other ready connections after it; else on a pool
     * thread). loop/states.c. */
    void (*loop_exchange_closed)(struct tachy__conn *conn);
    /* Queues job, and the jobs chained after it by next (NULL-terminated: the caller sets
     * it), for pool threads (loop/workers.c, tachy__loop_post); wake: make sure a thread
     * comes for them now (else the caller, a pool thread, will take them itself when it is
     * back in the loop, or another comes when this one blocks). Any thread. */
    void (*loop_post)(tachy_server *srv, tachy__job *job, int wake);
    /* Puts conn, which the caller holds (a codec's TACHY__CONN_NEXT_HOLD ended), back for a
     * pool thread (tachy__loop_requeue). Any thread. */
    void (*loop_requeue)(struct tachy__conn *conn);
    /* Lent exchanges (loop/states.c) deferred with TACHY_DEFER_CLOSER_CONTINUES and not
     * yet closed: their closers may harvest the park set (loop/workers.c). */
    atomic_int lent_closers;
    /* tachy_options.proxy_trusted parsed (server.c; edge/listener.c checks peers against
     * it): ntrusted 0 = any peer. opt.proxy_trusted points to the server's own copy. */
    tachy__cidr *trusted;
    size_t ntrusted;
    /* The access log (edge/accesslog.c), made by tachy_server_start when tachy_options has
     * a sink, else NULL: the observer's one test on the request path. Set before the pool
     * threads start, freed (through alog_free, which edge/ sets with it) with the server. */
    struct tachy__alog *alog;
    void (*alog_free)(tachy_server *srv);
    /* tachy_stats counters */
    atomic_uint_fast64_t st_connections, st_requests, st_reads, st_writes;
    /* Prometheus metrics (edge/metrics.c renders them; relaxed atomics, no lock on the
     * request path), on their own cache lines, away from the fields above that every
     * request reads. */
    _Alignas(64) atomic_uint_fast64_t st_bytes_in, st_bytes_out;
    /* exchanges ended, by status class: [0] no response, [1..5] 1xx..5xx */
    atomic_uint_fast64_t st_status[6];
    /* request duration (first byte of the head parsed -> exchange ended): counts per bucket
     * of TACHY__DURATION_BOUNDS_US (not cumulative; the last is +Inf) and the sum in ns */
    atomic_uint_fast64_t st_duration[TACHY__DURATION_BUCKETS], st_duration_ns;
    /* requests tachy answered itself with an error (tachy__response_reject), by status
     * (TACHY__REJECT_CODES; the last slot: any other), and PROXY-protocol refusals */
    atomic_uint_fast64_t st_rejected[TACHY__REJECT_SLOTS], st_proxy_refused;
    /* TLS handshakes (tls/ through edge/metrics.c): completed, and failed by
     * TACHY__TLS_FAIL_* */
    atomic_uint_fast64_t st_tls_done, st_tls_failed[TACHY__TLS_FAIL_COUNT];
    /* access-log lines lost: the ring was full, or the sink's write failed */
    atomic_uint_fast64_t st_alog_dropped;
};

/* The calling pool thread is about to be busy for long (a deferred exchange, an upgraded
 * connection): loop/ brings in another thread now rather than at the watchdog's tick. */
static inline void tachy__server_blocking(tachy_server *srv) {
    if (srv->loop_blocking)
        srv->loop_blocking(srv);
}

/* tachy_timer_schedule / tachy_timer_cancel for code below loop/ (see the hooks above):
 * TACHY_ESTATE before the server has started. Any thread. */
static inline int tachy__server_timer_schedule(tachy_server *srv, long delay_ms, long period_ms,
                                               tachy_timer_fn fn, void *user, tachy_timer **out) {
    if (!srv || !srv->loop_timer_schedule)
        return srv ? TACHY_ESTATE : TACHY_EINVAL;
    return srv->loop_timer_schedule(srv, delay_ms, period_ms, fn, user, out);
}
static inline int tachy__server_timer_cancel(tachy_server *srv, tachy_timer *t) {
    if (!srv || !srv->loop_timer_cancel)
        return TACHY_EINVAL;
    return srv->loop_timer_cancel(t);
}

/* ---- server.c ------------------------------------------------------------------------ */

/* Drops one reference; the last one frees contexts, the TLS configuration, the pool and
 * the struct. Any thread. */
void tachy__server_release(tachy_server *srv);

/* Frees a server that was never started (a create that failed half-way): closes its
 * listening socket and drops the user's reference. Creating thread. */
void tachy__server_discard(tachy_server *srv);

/* Emits a log line through the server's options (printf-style). */
void tachy__log(const tachy_server *srv, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));


/* ---- context.c ------------------------------------------------------------------------ */

/* Drops one reference to a context (the server's list holds one, each exchange one). */
void tachy__context_release(tachy_context *ctx);
/* Whether context c serves request path p[0,n) under the server's context_match: a string
 * prefix, or (the default) a path prefix - the whole path, or a prefix that ends at a '/'
 * (its own last byte, or the path's next one), as JDK 27's ContextList does. "/" is a
 * prefix of every path either way. */
static inline int tachy__context_matches(const tachy_context *c, const char *p, size_t n,
                                         int string_prefix) {
    size_t cn = c->path_len;
    if (cn > n || memcmp(c->path, p, cn) != 0)
        return 0;
    return string_prefix || cn == n || c->path[cn - 1] == '/' || p[cn] == '/';
}

/* The context serving the decoded request path path[0,len) (which may hold NUL bytes, see
 * tachy_options.path_nul), or NULL: the JDK's ContextList.findContext, the longest context
 * path that matches it by opt.context_match. srv->lock held. Inline: every request runs
 * it, from http/dispatch.c's two copies (HTTP/1.1's and HTTP/2's), which would make it a
 * call (with tachy__chain_run: ~4 instructions per request, callgrind, keep-alive GET). */
static inline tachy_context *tachy__server_find_context_locked(tachy_server *srv,
                                                               const char *path, size_t len) {
    tachy_context *best = NULL;
    int string_prefix = srv->opt.context_match == TACHY_CONTEXT_MATCH_STRING_PREFIX;
    for (size_t i = 0; i < srv->ncontexts; i++) {
        tachy_context *c = srv->contexts[i];
        if (tachy__context_matches(c, path, len, string_prefix) &&
            (!best || c->path_len > best->path_len))
            best = c;
    }
    return best;
}

/* ---- filter.c, auth.c --------------------------------------------------------------- */

void tachy__filter_ref(tachy_filter *f);
void tachy__authenticator_ref(tachy_authenticator *a);

/* A run of the chain: filters[next..n) then handler (tachy_chain_do_filter walks it). */
struct tachy_chain {
    tachy_filter *const *filters;
    size_t n;
    size_t next; /* shared cursor, like the JDK's ListIterator */
    tachy_handler_fn handler;
    void *handler_user;
};

/* Runs filters[0, n) then handler on ex. Returns the first failure (< 0). The caller holds
 * references on the filters for the duration (a snapshot of the context's list).
 * Exchange's thread. Inline, as tachy__server_find_context_locked is and for the same
 * reason: every request runs it from http/dispatch.c's two copies. */
static inline int tachy__chain_run(tachy_filter *const *filters, size_t n,
                                   tachy_handler_fn handler, void *handler_user,
                                   tachy_exchange *ex) {
    tachy_chain chain = {filters, n, 0, handler, handler_user};
    if (filters == NULL && n > 0)
        return TACHY_EINVAL;
    return tachy_chain_do_filter(&chain, ex);
}

/* Decodes "Basic <b64>" credentials: on success *user and *pass are malloc'ed UTF-8
 * strings (caller frees) and 0 is returned; -1 for a malformed value (bad base64, no
 * colon, other scheme checked by the caller). utf8 = 0 decodes ISO-8859-1. */
int tachy__basic_decode(const char *b64, size_t len, int utf8, char **user, char **pass);
/* The parts of Authenticator.authenticate that need no exchange (http/authenticate.c runs
 * them): a Basic authenticator's verdict on the Authorization value auth (NULL: none) into
 * *res, 1 when its challenge must be sent; a custom authenticator's callback, failing
 * closed; the Basic challenge (NULL for a custom authenticator). Exchange's thread. */
int tachy__basic_authenticate(const tachy_authenticator *a, const char *auth,
                              tachy_auth_result *res);
void tachy__authenticator_call(const tachy_authenticator *a, tachy_exchange *ex,
                               tachy_auth_result *res);
const char *tachy__authenticator_challenge(const tachy_authenticator *a);

#endif
