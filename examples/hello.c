/*
 * tachy-hello - the demo server that tests and benchmarks drive.
 *
 *   tachy-hello [-p PORT] [-b ADDR] [-i MAX_IDLE_CONNECTIONS] [-t TICK_MS]
 *               [-c CERT.pem -k KEY.pem]
 *
 * With -c and -k the same routes are served over HTTPS (the chain and key in PEM files).
 *
 *   GET  /      -> 200 text/plain "Hello, World!"
 *   HEAD /      -> the same headers, no body
 *   POST /echo  -> the request body back (fixed-length or chunked in; fixed out when the
 *                  request declared a length, chunked otherwise)
 *   GET  /tick  -> WebSocket: every TICK_MS (-t, default 500) "<epoch-ns> tick <seq>"
 *   GET  /ws    -> WebSocket echo: text and binary messages back as they came, up to the
 *                  default 16 MiB limit; permessage-deflate when the client offers it
 *
 * Prints "listening on http://ADDR:PORT/" once the server accepts connections, and stops
 * cleanly on SIGINT/SIGTERM.
 */
#include <tachy/tachy.h>
#include <tachy/ws.h>

#include <pthread.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int hello(tachy_exchange *ex, void *user) {
    (void)user;
    static const char body[] = "Hello, World!";
    const char *m = tachy_exchange_request_method(ex);
    if (strcmp(m, "GET") != 0 && strcmp(m, "HEAD") != 0) {
        tachy_headers_set(tachy_exchange_response_headers(ex), "Allow", "GET, HEAD");
        tachy_exchange_send_response_headers(ex, 405, -1);
        return tachy_exchange_close(ex);
    }
    if (strcmp(tachy_exchange_request_path(ex), "/") != 0) {
        tachy_exchange_send_response_headers(ex, 404, -1);
        return tachy_exchange_close(ex);
    }
    tachy_headers_set(tachy_exchange_response_headers(ex), "Content-Type", "text/plain");
    int rc = tachy_exchange_send_response_headers(ex, 200, sizeof body - 1);
    if (rc == 0 && strcmp(m, "HEAD") != 0)
        rc = (int)tachy_exchange_write(ex, body, sizeof body - 1);
    tachy_exchange_close(ex);
    return rc < 0 ? rc : 0;
}

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
    int64_t len = tachy_exchange_request_content_length(ex);
    /* A declared length is echoed with the same fixed length; a chunked body streams back
     * chunked (0 = chunked framing); an empty body is a -1 "no body" response. */
    int rc = tachy_exchange_send_response_headers(ex, 200, len > 0 ? len : len == 0 ? -1 : 0);
    char buf[16384];
    ssize_t n;
    while (rc == 0 && (n = tachy_exchange_read(ex, buf, sizeof buf)) > 0) {
        ssize_t w = tachy_exchange_write(ex, buf, (size_t)n);
        if (w < 0)
            rc = (int)w;
    }
    if (rc == 0 && n < 0)
        rc = (int)n;
    tachy_exchange_close(ex);
    return rc < 0 ? rc : 0;
}

/* ---- GET /ws: WebSocket echo ---------------------------------------------------------- */

static void ws_echo_message(tachy_ws *ws, int type, const void *data, size_t len, int last,
                            void *user) {
    (void)last;
    (void)user;
    if (type == TACHY_WS_TEXT)
        tachy_ws_send_text(ws, data, len);
    else
        tachy_ws_send_binary(ws, data, len);
}

static int ws_echo(tachy_exchange *ex, void *user) {
    (void)user;
    tachy_ws_options opt;
    tachy_ws_options_init(&opt);
    opt.cb.on_message = ws_echo_message;
    int rc = tachy_ws_serve(ex, &opt); /* handshake, then echo until closed */
    return rc == TACHY_EPROTO ? 0 : rc;  /* EPROTO: refused, the 4xx was sent */
}

/* ---- GET /tick: broadcast ticks (the benchmark's 10,000-client WebSocket profile) ------ */

/* Every connected /tick client, each with a reference held here. */
static pthread_mutex_t tick_lock = PTHREAD_MUTEX_INITIALIZER;
static tachy_ws **tick_clients;
static size_t tick_n, tick_cap;

static void tick_open(tachy_ws *ws, void *user) {
    (void)user;
    pthread_mutex_lock(&tick_lock);
    if (tick_n == tick_cap) {
        size_t cap = tick_cap ? tick_cap * 2 : 1024;
        tachy_ws **n = realloc(tick_clients, cap * sizeof *n);
        if (!n) {
            pthread_mutex_unlock(&tick_lock);
            return;
        }
        tick_clients = n;
        tick_cap = cap;
    }
    tachy_ws_retain(ws);
    tick_clients[tick_n++] = ws;
    pthread_mutex_unlock(&tick_lock);
}

static void tick_close(tachy_ws *ws, int code, const char *reason, size_t len, void *user) {
    (void)code, (void)reason, (void)len, (void)user;
    pthread_mutex_lock(&tick_lock);
    for (size_t i = 0; i < tick_n; i++) {
        if (tick_clients[i] == ws) {
            tick_clients[i] = tick_clients[--tick_n];
            tachy_ws_release(ws);
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
    int rc = tachy_ws_serve(ex, &opt);
    return rc == TACHY_EPROTO ? 0 : rc;
}

static long tick_interval_ms = 500;
static atomic_int ticking = 1;

/* Every tick_interval_ms sends each /tick client "<epoch-ns> tick <seq>" (the protocol of
 * bench/wsload.c, which measures the delay from the timestamp to its receipt). */
static void *ticker(void *arg) {
    (void)arg;
    unsigned long seq = 0;
    tachy_ws **snap = NULL;
    size_t snap_cap = 0;
    while (ticking) {
        struct timespec ts = {tick_interval_ms / 1000, (tick_interval_ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
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
        for (size_t i = 0; i < n; i++) {
            snap[i] = tick_clients[i];
            tachy_ws_retain(snap[i]);
        }
        pthread_mutex_unlock(&tick_lock);
        if (n == 0)
            continue;
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        char msg[64];
        int len = snprintf(msg, sizeof msg, "%lld tick %lu",
                           (long long)now.tv_sec * 1000000000LL + now.tv_nsec, ++seq);
        tachy_ws_broadcast(snap, n, TACHY_WS_TEXT, msg, (size_t)len);
        for (size_t i = 0; i < n; i++)
            tachy_ws_release(snap[i]);
    }
    free(snap);
    return NULL;
}

/* ---------------------------------------------------------------------------------------- */

static void usage(void) {
    fprintf(stderr,
            "usage: tachy-hello [-p PORT] [-b ADDR] [-i MAX_IDLE_CONNECTIONS] [-t TICK_MS]\n"
            "                   [-c CERT.pem -k KEY.pem]   (HTTPS)\n");
}

int main(int argc, char **argv) {
    int port = 8080;
    const char *addr = "127.0.0.1";
    tachy_options options;
    tachy_options_init(&options); /* the JDK's defaults, e.g. maxIdleConnections 200 */
    const char *cert_file = NULL, *key_file = NULL;
    int opt;
    while ((opt = getopt(argc, argv, "p:b:i:t:c:k:h")) != -1) {
        switch (opt) {
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
    /* Block the stop signals before any server thread exists (threads inherit the mask),
     * then wait for them synchronously: no handler races with the server's threads. */
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop_signals, NULL);
    signal(SIGPIPE, SIG_IGN);

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
    tachy_server_create_context(srv, "/", hello, NULL, NULL);
    tachy_server_create_context(srv, "/echo", echo, NULL, NULL);
    tachy_server_create_context(srv, "/ws", ws_echo, NULL, NULL);
    tachy_server_create_context(srv, "/tick", ws_tick, NULL, NULL);
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
    int sig;
    sigwait(&stop_signals, &sig);
    ticking = 0;
    if (have_ticker)
        pthread_join(tick_thread, NULL);
    tachy_server_stop(srv, 1);
    tachy_server_destroy(srv);
    return 0;
}
