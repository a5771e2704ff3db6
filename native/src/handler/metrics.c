/*
 * handler/metrics.c - the built-in metrics endpoint (tachy/metrics.h): the server's counters
 * (server/server.h, bumped by edge/metrics.c) as Prometheus text, and the handler that
 * serves it. The text format is Prometheus's exposition format 0.0.4: "# HELP" and "# TYPE"
 * lines, then one sample per line; counters end in _total, a histogram has cumulative
 * _bucket{le=...} samples, _sum and _count. A handler like any application's: it sits
 * above the core (it uses the exchange's public API, and reads the running server's gauges -
 * idle connections, parked WebSockets, pool threads - under its lock, loop/loop.h), and
 * nothing in the core calls it.
 */
#include "loop/loop.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tachy/metrics.h>

static const long duration_bounds_us[] = {TACHY__DURATION_BOUNDS_US};
static const int reject_codes[] = {TACHY__REJECT_CODES};

/* ---- rendering ------------------------------------------------------------------------- */

typedef struct out {
    char *p;
    size_t cap, len; /* len: what the whole text needs, even past cap */
} out;

__attribute__((format(printf, 2, 3))) static void put(out *o, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    size_t room = o->len < o->cap ? o->cap - o->len : 0;
    int n = vsnprintf(room ? o->p + o->len : NULL, room, fmt, ap);
    va_end(ap);
    if (n > 0)
        o->len += (size_t)n;
}

static void head(out *o, const char *name, const char *type, const char *help) {
    put(o, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static uint64_t ld(const atomic_uint_fast64_t *a) {
    return atomic_load_explicit((atomic_uint_fast64_t *)a, memory_order_relaxed);
}

TACHY_API long tachy_metrics_render(const tachy_server *srv, char *buf, size_t cap) {
    if (!srv || (!buf && cap))
        return TACHY_EINVAL;
    out o = {buf, cap, 0};
    head(&o, "tachy_connections_accepted_total", "counter", "Connections accepted.");
    put(&o, "tachy_connections_accepted_total %llu\n",
        (unsigned long long)ld(&srv->st_connections));
    int open = tachy_server_connection_count(srv);
    head(&o, "tachy_connections_open", "gauge",
         "Open connections (in an exchange, parked idle, or upgraded).");
    put(&o, "tachy_connections_open %d\n", open < 0 ? 0 : open);
    head(&o, "tachy_requests_total", "counter", "Request heads parsed.");
    put(&o, "tachy_requests_total %llu\n", (unsigned long long)ld(&srv->st_requests));
    head(&o, "tachy_responses_total", "counter",
         "Exchanges ended, by status class (none: ended without a response).");
    static const char *const cls[6] = {"none", "1xx", "2xx", "3xx", "4xx", "5xx"};
    for (int i = 0; i < 6; i++)
        put(&o, "tachy_responses_total{code=\"%s\"} %llu\n", cls[i],
            (unsigned long long)ld(&srv->st_status[i]));
    head(&o, "tachy_request_duration_seconds", "histogram",
         "From the request head parsed to the exchange's end.");
    uint64_t cum = 0;
    for (int b = 0; b < TACHY__DURATION_BUCKETS; b++) {
        cum += ld(&srv->st_duration[b]);
        if (b < TACHY__DURATION_BUCKETS - 1)
            put(&o, "tachy_request_duration_seconds_bucket{le=\"%g\"} %llu\n",
                duration_bounds_us[b] / 1e6, (unsigned long long)cum);
        else
            put(&o, "tachy_request_duration_seconds_bucket{le=\"+Inf\"} %llu\n",
                (unsigned long long)cum);
    }
    put(&o, "tachy_request_duration_seconds_sum %.9f\n", ld(&srv->st_duration_ns) / 1e9);
    put(&o, "tachy_request_duration_seconds_count %llu\n", (unsigned long long)cum);
    head(&o, "tachy_rejected_total", "counter",
         "Requests tachy answered itself with an error (malformed, too large, no context ...), "
         "by status.");
    for (int i = 0; i < TACHY__REJECT_SLOTS; i++) {
        if (i < TACHY__REJECT_SLOTS - 1)
            put(&o, "tachy_rejected_total{code=\"%d\"} %llu\n", reject_codes[i],
                (unsigned long long)ld(&srv->st_rejected[i]));
        else
            put(&o, "tachy_rejected_total{code=\"other\"} %llu\n",
                (unsigned long long)ld(&srv->st_rejected[i]));
    }
    head(&o, "tachy_proxy_refused_total", "counter",
         "Connections closed for a missing, malformed or untrusted PROXY protocol header.");
    put(&o, "tachy_proxy_refused_total %llu\n", (unsigned long long)ld(&srv->st_proxy_refused));
    head(&o, "tachy_received_bytes_total", "counter", "Bytes read from connections (decrypted).");
    put(&o, "tachy_received_bytes_total %llu\n", (unsigned long long)ld(&srv->st_bytes_in));
    head(&o, "tachy_sent_bytes_total", "counter",
         "Bytes written to HTTP connections (before encryption).");
    put(&o, "tachy_sent_bytes_total %llu\n", (unsigned long long)ld(&srv->st_bytes_out));
    head(&o, "tachy_socket_reads_total", "counter", "recv calls that returned data.");
    put(&o, "tachy_socket_reads_total %llu\n", (unsigned long long)ld(&srv->st_reads));
    head(&o, "tachy_socket_writes_total", "counter", "send calls on connections.");
    put(&o, "tachy_socket_writes_total %llu\n", (unsigned long long)ld(&srv->st_writes));
    head(&o, "tachy_tls_handshakes_total", "counter",
         "TLS handshakes completed (one per connection whose ClientHello arrived).");
    put(&o, "tachy_tls_handshakes_total %llu\n", (unsigned long long)ld(&srv->st_tls_done));
    head(&o, "tachy_tls_handshake_failures_total", "counter",
         "TLS handshakes that failed: refused by OpenSSL (protocol), closed by the client "
         "(eof), closed unfinished by tachy at the handshake deadline or a stop (timeout), "
         "evicted by newer handshakes (evicted).");
    static const char *const tls_fail[TACHY__TLS_FAIL_COUNT] = {TACHY__TLS_FAIL_NAMES};
    for (int i = 0; i < TACHY__TLS_FAIL_COUNT; i++)
        put(&o, "tachy_tls_handshake_failures_total{reason=\"%s\"} %llu\n", tls_fail[i],
            (unsigned long long)ld(&srv->st_tls_failed[i]));
    head(&o, "tachy_access_log_dropped_total", "counter",
         "Access-log lines dropped: the log's ring was full, or its file's write failed.");
    put(&o, "tachy_access_log_dropped_total %llu\n",
        (unsigned long long)ld(&srv->st_alog_dropped));
    /* The running server's gauges, read under its lock (off the request path). */
    int idle = 0, ws = 0, threads = 0, waiting = 0;
    tachy_server *s = (tachy_server *)srv;
    pthread_mutex_lock(&s->lock);
    if (s->loop && atomic_load(&s->state) == TACHY__SRV_STARTED) {
        idle = atomic_load(&s->loop->nidle);
        ws = atomic_load(&s->loop->nws);
        threads = s->loop->nthreads;
        waiting = atomic_load(&s->loop->nwaiting) + s->loop->nspare + atomic_load(&s->loop->nstepback);
    }
    pthread_mutex_unlock(&s->lock);
    if (waiting > threads)
        waiting = threads; /* counted at different moments */
    head(&o, "tachy_connections_idle", "gauge", "Connections parked between requests.");
    put(&o, "tachy_connections_idle %d\n", idle);
    head(&o, "tachy_websockets_parked", "gauge",
         "WebSockets attached to the server (tachy_ws_attach), parked between frames.");
    put(&o, "tachy_websockets_parked %d\n", ws);
    head(&o, "tachy_pool_threads", "gauge",
         "Pool threads: busy (serving a connection, in a handler) or idle (waiting for events).");
    put(&o, "tachy_pool_threads{state=\"busy\"} %d\n", threads - waiting);
    put(&o, "tachy_pool_threads{state=\"idle\"} %d\n", waiting);
    if (o.len < cap)
        buf[o.len] = '\0';
    else if (cap)
        buf[cap - 1] = '\0';
    return (long)o.len;
}

TACHY_API int tachy_metrics_handler(tachy_exchange *ex, void *user) {
    TACHY__UNUSED(user);
    const char *m = tachy_exchange_request_method(ex);
    int head_only = strcmp(m, "HEAD") == 0;
    if (!head_only && strcmp(m, "GET") != 0) {
        tachy_headers_set(tachy_exchange_response_headers(ex), "Allow", "GET, HEAD");
        tachy_exchange_send_response_headers(ex, 405, -1);
        return tachy_exchange_close(ex);
    }
    tachy_server *srv = tachy_context_server(tachy_exchange_context(ex));
    char stackbuf[8192];
    long n = tachy_metrics_render(srv, stackbuf, sizeof stackbuf);
    if (n < 0)
        return (int)n;
    char *text = stackbuf, *heap = NULL;
    if ((size_t)n >= sizeof stackbuf) { /* does not happen today: room for growth */
        heap = malloc((size_t)n + 1);
        if (!heap)
            return TACHY_ENOMEM;
        n = tachy_metrics_render(srv, heap, (size_t)n + 1);
        text = heap;
    }
    tachy_headers_set(tachy_exchange_response_headers(ex), "Content-Type",
                      "text/plain; version=0.0.4; charset=utf-8");
    int rc = tachy_exchange_send_response_headers(ex, 200, head_only ? -1 : n);
    if (rc == 0 && !head_only)
        rc = tachy_exchange_write(ex, text, (size_t)n);
    free(heap);
    int crc = tachy_exchange_close(ex);
    return rc < 0 ? rc : crc;
}
