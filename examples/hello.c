/*
 * tachy-hello - the demo server that tests and benchmarks drive.
 *
 *   tachy-hello [-p PORT] [-b ADDR] [-i MAX_IDLE_CONNECTIONS]
 *
 *   GET  /      -> 200 text/plain "Hello, World!"
 *   HEAD /      -> the same headers, no body
 *   POST /echo  -> the request body back (fixed-length or chunked in; fixed out when the
 *                  request declared a length, chunked otherwise)
 *   GET  /ws    -> WebSocket echo: text and binary messages back as they came, up to the
 *                  default 16 MiB limit; permessage-deflate when the client offers it
 *
 * Prints "listening on http://ADDR:PORT/" once the server accepts connections, and stops
 * cleanly on SIGINT/SIGTERM.
 */
#include <tachy/tachy.h>
#include <tachy/ws.h>

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* ---------------------------------------------------------------------------------------- */

static void usage(void) {
    fprintf(stderr, "usage: tachy-hello [-p PORT] [-b ADDR] [-i MAX_IDLE_CONNECTIONS]\n");
}

int main(int argc, char **argv) {
    int port = 8080;
    const char *addr = "127.0.0.1";
    tachy_options options;
    tachy_options_init(&options); /* the JDK's defaults, e.g. maxIdleConnections 200 */
    int opt;
    while ((opt = getopt(argc, argv, "p:b:i:h")) != -1) {
        switch (opt) {
        case 'p':
            port = atoi(optarg);
            break;
        case 'b':
            addr = optarg;
            break;
        case 'i':
            options.max_idle_connections = atoi(optarg);
            break;
        default:
            usage();
            return opt == 'h' ? 0 : 2;
        }
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
    int rc = tachy_server_create(&srv, addr, port, 0, &options);
    if (rc < 0) {
        fprintf(stderr, "tachy-hello: cannot listen on %s:%d: %s\n", addr, port,
                tachy_strerror(rc));
        return 1;
    }
    tachy_server_create_context(srv, "/", hello, NULL, NULL);
    tachy_server_create_context(srv, "/echo", echo, NULL, NULL);
    tachy_server_create_context(srv, "/ws", ws_echo, NULL, NULL);
    rc = tachy_server_start(srv);
    if (rc < 0) {
        fprintf(stderr, "tachy-hello: %s\n", tachy_strerror(rc));
        tachy_server_destroy(srv);
        return 1;
    }
    char host[64];
    int real_port = 0;
    tachy_server_address(srv, host, sizeof host, &real_port);
    printf(strchr(host, ':') ? "listening on http://[%s]:%d/\n" : "listening on http://%s:%d/\n",
           host, real_port);
    fflush(stdout);
    int sig;
    sigwait(&stop_signals, &sig);
    tachy_server_stop(srv, 1);
    tachy_server_destroy(srv);
    return 0;
}
