/*
 * demo.h - what the example programs do alike, written once: the handlers that tachy-hello
 * (examples/hello.c), the HttpArena entry (examples/httparena/tachy-arena.c) and the server
 * fuzz harness (tests/fuzz/fuzz_server.c) share, and the stop-signal handling of those two
 * programs and tachy-fileserver (examples/fileserver.c). Header-only (static inline) so
 * that each program compiles them against the libtachy it links (the fuzz harness: its
 * instrumented copy of the core); they use the public API only and are not part of it.
 *
 * Thread rules: the handlers run on the server's handler thread for the exchange, the
 * WebSocket callback on whichever thread delivers the message (tachy/ws.h); the signal
 * helpers on the main thread, demo_block_stop_signals before any other thread exists.
 */
#ifndef TACHY_EXAMPLES_DEMO_H
#define TACHY_EXAMPLES_DEMO_H

#include <tachy/tachy.h>
#include <tachy/ws.h>

#include <pthread.h>
#include <signal.h>
#include <string.h>

/* GET/HEAD / -> 200 text/plain "Hello, World!"; another method 405 (Allow: GET, HEAD);
 * another path under the context 404. */
static inline int demo_hello(tachy_exchange *ex, void *user) {
    (void)user;
    static const char body[] = "Hello, World!";
    const char *m = tachy_exchange_request_method(ex);
    if (strcmp(m, "GET") == 0 || strcmp(m, "HEAD") == 0) {
        /* (the usual case first) */
    } else if (strcmp(m, "POST") == 0) {
        /* POST / answers the same (h2load -d and other load tools post to "/"): the
         * request body is read and dropped first. */
        char sink[4096];
        while (tachy_exchange_read(ex, sink, sizeof sink) > 0)
            ;
    } else {
        tachy_headers_set(tachy_exchange_response_headers(ex), "Allow", "GET, HEAD, POST");
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

/* Sends the request body back as a 200 (whatever the method; the caller checks it and sets
 * the response headers first) and closes the exchange. A declared length is echoed with the
 * same fixed length; a chunked body streams back chunked (0 = chunked framing); an empty
 * body is a -1 "no body" response. Returns 0 or the first negative tachy error. */
static inline int demo_echo_body(tachy_exchange *ex) {
    int64_t len = tachy_exchange_request_content_length(ex);
    int rc = tachy_exchange_send_response_headers(ex, 200, len > 0 ? len : len == 0 ? -1 : 0);
    char buf[16384];
    ssize_t n = 0;
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

/* on_message of an echo endpoint that keeps the default whole-message delivery (last is
 * then always 1): each message goes back as it came, text as text, binary as binary. */
static inline void demo_ws_echo_message(tachy_ws *ws, int type, const void *data, size_t len,
                                        int last, void *user) {
    (void)last;
    (void)user;
    if (type == TACHY_WS_TEXT)
        tachy_ws_send_text(ws, data, len);
    else
        tachy_ws_send_binary(ws, data, len);
}

/* Blocks SIGINT and SIGTERM (into *set) and ignores SIGPIPE. Call it before the server
 * starts a thread: every thread inherits the mask, so only demo_wait_stop sees the stop
 * signals (no handler races the server's threads), and a vanished client cannot kill the
 * process with SIGPIPE. */
static inline void demo_block_stop_signals(sigset_t *set) {
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, set, NULL);
    signal(SIGPIPE, SIG_IGN);
}

/* Waits until SIGINT or SIGTERM arrives (set: from demo_block_stop_signals). */
static inline void demo_wait_stop(const sigset_t *set) {
    int sig = 0;
    while (sig != SIGINT && sig != SIGTERM)
        if (sigwait(set, &sig) != 0)
            sig = 0;
}

#endif
