/*
 * tachy-hello - the demo server that tests and benchmarks drive.
 *
 *   tachy-hello [-p PORT] [-b ADDR] [-i MAX_IDLE_CONNECTIONS] [-t TICK_MS]
 *               [-c CERT.pem -k KEY.pem] [--proxy-protocol] [--proxy-trusted NETS]
 *               [--reuseport] [--drain SECONDS] [--access-log FILE] [--access-log-combined]
 *
 * With -c and -k the same routes are served over HTTPS (the chain and key in PEM files).
 * -i caps the idle keep-alive connections kept (maxIdleConnections; default: no cap).
 * --proxy-protocol: every connection starts with a PROXY v1/v2 header (behind HAProxy's
 * send-proxy-v2 or nginx's proxy_protocol); --proxy-trusted "127.0.0.1,10.0.0.0/8" limits
 * who may send one. --reuseport: bind with SO_REUSEPORT (several processes on one port).
 * --drain: how long the graceful drain on SIGTERM/SIGINT may take (default 10 s; 0: stop
 * at once). --access-log FILE: one Common Log Format line per exchange appended to FILE
 * (--access-log-combined: the Combined format), reopened on SIGHUP (logrotate's postrotate).
 *
 *   GET  /      -> 200 text/plain "Hello, World!"
 *   HEAD /      -> the same headers, no body
 *   POST /      -> the same (the request body is read and dropped)
 *   POST /echo  -> the request body back (fixed-length or chunked in; fixed out when the
 *                  request declared a length, chunked otherwise)
 *   GET  /tick  -> WebSocket: every TICK_MS (-t, default 500) one broadcast to every /tick
 *                  client, "<epoch-ns> tick <seq>" stamped with the tick's scheduled time
 *   GET  /ws    -> WebSocket echo: text and binary messages back as they came, up to the
 *                  default 16 MiB limit; permessage-deflate when the client offers it
 *   GET  /ip    -> 200 text/plain "<client address> <port> via <socket peer> <port>\n": the
 *                  client is the PROXY header's with --proxy-protocol (docs/load-balancing.md)
 *   GET  /metrics -> the server's counters as Prometheus text (tachy/metrics.h)
 *   GET  /ts    -> WebSocket: every 500 ms, starting 500 ms after the upgrade, the server's
 *                  wall clock (CLOCK_REALTIME) in microseconds since the epoch as a decimal
 *                  text message, on a server timer per connection (tachy/timer.h)
 *
 * Every WebSocket endpoint uses tachy_ws_attach: an open socket holds no thread.
 *
 * Prints "listening on http://ADDR:PORT/" once the server accepts connections. On SIGINT or
 * SIGTERM it drains (tachy_server_drain: stops accepting, finishes what is in flight with
 * "Connection: close", closes idle connections, sends WebSockets 1001), says "drained in N
 * ms" on stderr and exits 0 - what a balancer's rolling restart needs
 * (docs/load-balancing.md).
 */
#include <tachy/tachy.h>
#include <tachy/ws.h>

#include "common/demo.h"

#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int echo(tachy_exchange *ex, void *user) {
    (void)user;
    if (strcmp(tachy_exchange_request_method(ex), "POST") != 0) {
        tachy_headers_set(tachy_exchange_response_headers(ex), "Allow", "POST");
        tachy_exchange_send_response_headers(ex, 405, -1);
        return tachy_exchange_close(ex);
    }
    const char *ct = tachy_headers_first(tachy_exchange_request_headers(ex), "Content-Type");
    tachy_headers_set(tachy_exchange_response_headers(ex), "Content-Type",
                      ct ? ct : "application/octet-stream");
    return demo_echo_body(ex);
}

/* ---- GET /ws: WebSocket echo ---------------------------------------------------------- */

static int ws_echo(tachy_exchange *ex, void *user) {
    (void)user;
    tachy_ws_options opt;
    tachy_ws_options_init(&opt);
    opt.cb.on_message = demo_ws_echo_message;
    int rc = tachy_ws_attach(ex, &opt); /* handshake; pool threads echo from then on */
    return rc == TACHY_EPROTO ? 0 : rc;  /* EPROTO: refused, the 4xx was sent */
}

/* ---- GET /ts: a time stamp every 500 ms per connection ------------------------------- */

#define TS_PERIOD_MS 500

typedef struct ts_conn {
    tachy_ws *ws;      /* retained while the timer may run */
    tachy_timer *timer;
} ts_conn;

static void ts_fire(tachy_timer *t, void *user) {
    (void)t;
    ts_conn *tc = user;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    char msg[32];
    int n = snprintf(msg, sizeof msg, "%lld",
                     (long long)now.tv_sec * 1000000 + now.tv_nsec / 1000);
    tachy_ws_send_text(tc->ws, msg, (size_t)n); /* queued if the peer is slow; never waits */
}

static void ts_open(tachy_ws *ws, void *user) {
    tachy_server *srv = user;
    tachy_ws_set_user(ws, NULL); /* on_close: nothing of ours unless all goes well */
    ts_conn *tc = calloc(1, sizeof *tc);
    if (!tc) {
        tachy_ws_close(ws, TACHY_WS_CLOSE_INTERNAL_ERROR, "out of memory");
        return;
    }
    tachy_ws_retain(ws);
    tc->ws = ws;
    if (tachy_timer_schedule(srv, TS_PERIOD_MS, TS_PERIOD_MS, ts_fire, tc, &tc->timer) < 0) {
        tachy_ws_release(ws);
        free(tc);
        tachy_ws_close(ws, TACHY_WS_CLOSE_INTERNAL_ERROR, "no timer");
        return;
    }
    tachy_ws_set_user(ws, tc);
}

static void ts_close(tachy_ws *ws, int code, const char *reason, size_t len, void *user) {
    (void)ws, (void)code, (void)reason, (void)len;
    ts_conn *tc = user;
    if (!tc) /* on_open failed */
        return;
    tachy_timer_cancel(tc->timer); /* the callback is not running once this returns */
    tachy_ws_release(tc->ws);
    free(tc);
}

static int ws_ts(tachy_exchange *ex, void *user) {
    tachy_ws_options opt;
    tachy_ws_options_init(&opt);
    opt.cb.on_open = ts_open;
    opt.cb.on_close = ts_close;
    opt.user = user; /* the server (for its timers); on_open replaces it with the ts_conn */
    opt.deflate = 0; /* 16-byte messages: nothing to gain */
    int rc = tachy_ws_attach(ex, &opt);
    return rc == TACHY_EPROTO ? 0 : rc;
}

/* ---- GET /tick: broadcast ticks (the benchmark's 10,000-client WebSocket profile) ------ */

/* Every connected /tick client, each with a reference held here. While the ticker
 * broadcasts from a copy of the array, a closing client's reference is parked in
 * tick_graveyard instead of being dropped, and the ticker drops it after the broadcast:
 * the copy stays valid without a retain/release per client per tick (20,000 atomic
 * operations on cold cache lines with 10,000 clients). */
static pthread_mutex_t tick_lock = PTHREAD_MUTEX_INITIALIZER;
static tachy_ws **tick_clients, **tick_graveyard;
static size_t tick_n, tick_cap, tick_dead_n, tick_dead_cap;
static int tick_broadcasting;

static int grow(tachy_ws ***arr, size_t *cap, size_t need) {
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap * 2 : 1024;
    while (c < need)
        c *= 2;
    tachy_ws **n = realloc(*arr, c * sizeof *n);
    if (!n)
        return -1;
    *arr = n;
    *cap = c;
    return 0;
}

static void tick_open(tachy_ws *ws, void *user) {
    (void)user;
    pthread_mutex_lock(&tick_lock);
    if (grow(&tick_clients, &tick_cap, tick_n + 1) == 0) {
        tachy_ws_retain(ws);
        tick_clients[tick_n++] = ws;
    }
    pthread_mutex_unlock(&tick_lock);
}

static void tick_close(tachy_ws *ws, int code, const char *reason, size_t len, void *user) {
    (void)code, (void)reason, (void)len, (void)user;
    pthread_mutex_lock(&tick_lock);
    for (size_t i = 0; i < tick_n; i++) {
        if (tick_clients[i] == ws) {
            tick_clients[i] = tick_clients[--tick_n];
            /* the ticker may be writing to it from its copy: it drops this reference */
            if (!tick_broadcasting || grow(&tick_graveyard, &tick_dead_cap, tick_dead_n + 1) < 0) {
                if (tick_broadcasting) { /* no memory to park it: keep it listed instead */
                    tick_clients[tick_n++] = ws;
                    break;
                }
                tachy_ws_release(ws);
            } else {
                tick_graveyard[tick_dead_n++] = ws;
            }
            break;
        }
    }
    pthread_mutex_unlock(&tick_lock);
}

static int ws_tick(tachy_exchange *ex, void *user) {
    (void)user;
    tachy_ws_options opt;
    tachy_ws_options_init(&opt);
    opt.cb.on_open = tick_open;
    opt.cb.on_close = tick_close;
    int rc = tachy_ws_attach(ex, &opt);
    return rc == TACHY_EPROTO ? 0 : rc;
}

static long tick_interval_ms = 500;
static atomic_int ticking = 1;

static int cmp_ll(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? -1 : x > y;
}

/*
 * Ticks on a fixed schedule, every tick_interval_ms of CLOCK_REALTIME: at each scheduled
 * time T it sends every /tick client ONE message "<T as epoch-ns> tick <seq>" (the protocol
 * of bench/wsload.c, which measures the delay from that time stamp to the kernel's receipt
 * at the client). The stamp is the tick's scheduled time, taken once per tick, so a
 * client's latency includes the timer wake-up and the fan-out up to that client. A tick
 * whose time has passed when the previous one ends is skipped (counted).
 *
 * On exit prints "TICKSTATS {...}": ticks, median/min/max fan-out time per client, and the
 * broadcast counts (bench/lib/bench.py reads it from the server log).
 */
static void *ticker(void *arg) {
    (void)arg;
    unsigned long seq = 0;
    tachy_ws **snap = NULL, **dead = NULL;
    size_t snap_cap = 0, nstat = 0, stat_cap = 0, sends = 0, skipped = 0;
    long long *per_send = NULL; /* ns per client, one entry per tick */
    tachy_ws_broadcast_stats total = {0, 0, 0, 0, 0};
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    long long period = tick_interval_ms * 1000000LL;
    long long next = ((long long)now.tv_sec * 1000000000LL + now.tv_nsec) / period * period + period;
    while (atomic_load(&ticking)) {
        struct timespec at = {(time_t)(next / 1000000000LL), (long)(next % 1000000000LL)};
        while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &at, NULL) != 0 &&
               atomic_load(&ticking)) {
        }
        if (!atomic_load(&ticking))
            break;
        long long stamp = next;
        clock_gettime(CLOCK_REALTIME, &now);
        long long wall = (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
        next += period;
        while (next <= wall) { /* a fan-out longer than the period: skip the missed ticks */
            next += period;
            skipped++;
        }
        pthread_mutex_lock(&tick_lock);
        size_t n = tick_n;
        if (n > snap_cap) {
            tachy_ws **grown = realloc(snap, n * sizeof *snap);
            if (!grown) {
                pthread_mutex_unlock(&tick_lock);
                continue;
            }
            snap = grown;
            snap_cap = n;
        }
        if (n)
            memcpy(snap, tick_clients, n * sizeof *snap);
        tick_broadcasting = 1;
        pthread_mutex_unlock(&tick_lock);
        if (n > 0) {
            char msg[64];
            int len = snprintf(msg, sizeof msg, "%lld tick %lu", stamp, ++seq);
            struct timespec t0, t1;
            clock_gettime(CLOCK_MONOTONIC, &t0);
            tachy_ws_broadcast_stats st;
            tachy_ws_broadcast_ex(snap, n, TACHY_WS_TEXT, msg, (size_t)len, &st);
            clock_gettime(CLOCK_MONOTONIC, &t1);
            total.sent += st.sent, total.closed += st.closed, total.failed += st.failed;
            total.busy += st.busy, total.deferred += st.deferred;
            sends += n;
            if (nstat == stat_cap) {
                size_t c = stat_cap ? stat_cap * 2 : 256;
                long long *g = realloc(per_send, c * sizeof *g);
                if (g) {
                    per_send = g;
                    stat_cap = c;
                }
            }
            if (nstat < stat_cap)
                per_send[nstat++] = ((t1.tv_sec - t0.tv_sec) * 1000000000LL +
                                     (t1.tv_nsec - t0.tv_nsec)) / (long long)n;
        }
        /* references of clients that closed meanwhile */
        pthread_mutex_lock(&tick_lock);
        tick_broadcasting = 0;
        size_t nd = tick_dead_n;
        dead = tick_graveyard;
        tick_graveyard = NULL;
        tick_dead_n = tick_dead_cap = 0;
        pthread_mutex_unlock(&tick_lock);
        for (size_t i = 0; i < nd; i++)
            tachy_ws_release(dead[i]);
        free(dead);
    }
    long long med = 0, mn = 0, mx = 0;
    if (nstat) {
        qsort(per_send, nstat, sizeof *per_send, cmp_ll);
        med = per_send[nstat / 2], mn = per_send[0], mx = per_send[nstat - 1];
    }
    printf("TICKSTATS {\"ticks\":%zu,\"sends\":%zu,\"skipped_ticks\":%zu,\"ns_per_send_median\":%lld,"
           "\"ns_per_send_min\":%lld,\"ns_per_send_max\":%lld,\"sent\":%zu,\"closed\":%zu,"
           "\"failed\":%zu,\"busy\":%zu,\"deferred\":%zu}\n",
           nstat, sends, skipped, med, mn, mx, total.sent, total.closed, total.failed, total.busy,
           total.deferred);
    fflush(stdout);
    free(per_send);
    free(snap);
    return NULL;
}

/* GET /ip: who the server thinks the client is, and the socket's own peer. */
static int whoami(tachy_exchange *ex, void *user) {
    (void)user;
    char client[64] = "?", peer[64] = "?", body[192];
    int cport = 0, pport = 0;
    tachy_exchange_remote_address(ex, client, sizeof client, &cport);
    tachy_exchange_peer_address(ex, peer, sizeof peer, &pport);
    int n = snprintf(body, sizeof body, "%s %d via %s %d\n", client, cport, peer, pport);
    tachy_headers_set(tachy_exchange_response_headers(ex), "Content-Type", "text/plain");
    tachy_exchange_send_response_headers(ex, 200, n);
    tachy_exchange_write(ex, body, (size_t)n);
    return tachy_exchange_close(ex);
}

/* ---------------------------------------------------------------------------------------- */

/* Monotonic milliseconds. */
static long now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void usage(void) {
    fprintf(stderr,
            "usage: tachy-hello [-p PORT] [-b ADDR] [-i MAX_IDLE_CONNECTIONS] [-t TICK_MS]\n"
            "                   [-c CERT.pem -k KEY.pem]   (HTTPS)\n"
            "                   [--proxy-protocol]         (a PROXY v1/v2 header starts each\n"
            "                                               connection: behind HAProxy, nginx)\n"
            "                   [--proxy-trusted NETS]     (only these may send it, e.g.\n"
            "                                               \"127.0.0.1,10.0.0.0/8\")\n"
            "                   [--reuseport]              (SO_REUSEPORT: share the port)\n"
            "                   [--drain SECONDS]          (graceful drain on SIGTERM/SIGINT,\n"
            "                                               at most this long; default 10)\n"
            "                   [--access-log FILE]        (Common Log Format lines appended to\n"
            "                                               FILE, reopened on SIGHUP)\n"
            "                   [--access-log-combined]    (the Combined format: + Referer, UA)\n"
            "  GET /metrics: Prometheus text; GET /ip: the client's address\n");
}

int main(int argc, char **argv) {
    int port = 8080;
    const char *addr = "127.0.0.1";
    tachy_options options;
    /* tachy's defaults: the JDK's, except where tachy/server.h says otherwise - e.g. no cap
     * on idle keep-alive connections (-i sets maxIdleConnections: 200 is the JDK's) */
    tachy_options_init(&options);
    const char *cert_file = NULL, *key_file = NULL;
    long drain_seconds = 10;
    int opt;
    static const struct option longopts[] = {
        {"proxy-protocol", no_argument, NULL, 'P'},
        {"proxy-trusted", required_argument, NULL, 'T'},
        {"reuseport", no_argument, NULL, 'R'},
        {"drain", required_argument, NULL, 'D'},
        {"access-log", required_argument, NULL, 'L'},
        {"access-log-combined", no_argument, NULL, 'C'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    while ((opt = getopt_long(argc, argv, "p:b:i:t:c:k:h", longopts, NULL)) != -1) {
        switch (opt) {
        case 'P':
            options.proxy_protocol = 1;
            break;
        case 'T':
            options.proxy_trusted = optarg;
            break;
        case 'R':
            options.reuseport = 1;
            break;
        case 'L':
            options.access_log = optarg;
            break;
        case 'C':
            options.access_log_format = TACHY_ACCESS_LOG_COMBINED;
            break;
        case 'D':
            drain_seconds = atol(optarg) >= 0 ? atol(optarg) : 10;
            break;
        case 'c':
            cert_file = optarg;
            break;
        case 'k':
            key_file = optarg;
            break;
        case 'p':
            port = atoi(optarg);
            break;
        case 'b':
            addr = optarg;
            break;
        case 'i':
            options.max_idle_connections = atoi(optarg);
            break;
        case 't':
            tick_interval_ms = atol(optarg) > 0 ? atol(optarg) : 500;
            break;
        default:
            usage();
            return opt == 'h' ? 0 : 2;
        }
    }
    if (!cert_file != !key_file) {
        usage();
        return 2;
    }
    /* Before any server thread exists (threads inherit the mask). */
    sigset_t stop_signals;
    demo_block_stop_signals(&stop_signals);
    /* SIGHUP too: the main thread takes it with sigwait below and reopens the access log. */
    sigaddset(&stop_signals, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &stop_signals, NULL);

    tachy_server *srv;
    tachy_tls_config *tls = NULL;
    int rc = 0;
    if (cert_file) {
        rc = tachy_tls_config_create(&tls);
        if (rc == 0)
            rc = tachy_tls_config_load_pem_files(tls, cert_file, key_file, NULL);
        if (rc < 0) {
            fprintf(stderr, "tachy-hello: %s / %s: %s\n", cert_file, key_file, tachy_strerror(rc));
            tachy_tls_config_free(tls);
            return 1;
        }
    }
    rc = tls ? tachy_https_server_create(&srv, addr, port, 0, &options, tls)
             : tachy_server_create(&srv, addr, port, 0, &options);
    tachy_tls_config_free(tls); /* the server keeps its own reference */
    if (rc < 0) {
        fprintf(stderr, "tachy-hello: cannot listen on %s:%d: %s\n", addr, port,
                tachy_strerror(rc));
        return 1;
    }
    tachy_server_create_context(srv, "/", demo_hello, NULL, NULL);
    tachy_server_create_context(srv, "/echo", echo, NULL, NULL);
    tachy_server_create_context(srv, "/ws", ws_echo, NULL, NULL);
    tachy_server_create_context(srv, "/tick", ws_tick, NULL, NULL);
    tachy_server_create_context(srv, "/ts", ws_ts, srv, NULL);
    tachy_server_create_context(srv, "/ip", whoami, NULL, NULL);
    tachy_server_create_context(srv, "/metrics", tachy_metrics_handler, NULL, NULL);
    rc = tachy_server_start(srv);
    if (rc < 0) {
        fprintf(stderr, "tachy-hello: %s\n", tachy_strerror(rc));
        tachy_server_destroy(srv);
        return 1;
    }
    char host[64];
    int real_port = 0;
    tachy_server_address(srv, host, sizeof host, &real_port);
    printf(strchr(host, ':') ? "listening on %s://[%s]:%d/\n" : "listening on %s://%s:%d/\n",
           cert_file ? "https" : "http", host, real_port);
    fflush(stdout);
    pthread_t tick_thread;
    int have_ticker = pthread_create(&tick_thread, NULL, ticker, NULL) == 0;
    for (int sig = 0; sig != SIGINT && sig != SIGTERM;) {
        if (sigwait(&stop_signals, &sig) != 0)
            sig = 0;
        else if (sig == SIGHUP)
            tachy_access_log_reopen(srv); /* logrotate has renamed the file */
    }
    ticking = 0;
    if (have_ticker)
        pthread_join(tick_thread, NULL);
    long t0 = now_ms();
    tachy_server_drain(srv, drain_seconds * 1000);
    fprintf(stderr, "tachy-hello: drained in %ld ms\n", now_ms() - t0);
    tachy_server_destroy(srv);
    return 0;
}
