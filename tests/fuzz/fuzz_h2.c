/*
 * fuzz_h2.c - libFuzzer harness over whole HTTP/2 connections (native/src/h2/): a real
 * tachy server on 127.0.0.1 (public C API only, started once), and for each input a fresh
 * loopback connection that sends the connection preface ("PRI * HTTP/2.0...", so every
 * input reaches nghttp2 and the h2 codec) followed by the fuzzed bytes - frames: SETTINGS,
 * HEADERS/CONTINUATION (HPACK), DATA, WINDOW_UPDATE, RST_STREAM, PING, GOAWAY, PRIORITY.
 *
 * Input: one byte choosing how many segments the bytes are sent in (1..4, low bits) and,
 * with bit 7 set, the way in: an HTTP/1.1 "Upgrade: h2c" request first (its answer comes
 * on stream 1), then the preface; then the bytes after the preface. The contexts: "/" (200
 * "Hello, World!"), "/echo" (the body back, streamed as it is read), "/stream" (a streamed
 * response in three flushed writes), "/nohandler" (500). The client then half-closes
 * (SHUT_WR) and reads what comes back.
 *
 * The server, the connection and the properties checked besides memory safety in the
 * server's threads (ASan + UBSan) are fuzz_conn.c's, shared with fuzz_server: the server
 * closes the half-closed connection within 5 s; a following good HTTP/1.1 request on a new
 * connection is answered 200 "Hello, World!" within 5 s; every 64 inputs, the
 * open-connection count drops back to 0 within 5 s (no connection, and no stream holding
 * one, is leaked).
 */
#include <stdint.h>

#include <tachy/tachy.h>

#include "fuzz_conn.h"
#include "fuzz_util.h"

static int streamed(tachy_exchange *ex, void *user) {
    (void)user;
    if (tachy_exchange_send_response_headers(ex, 200, 0) == 0)
        for (int i = 0; i < 3; i++)
            if (tachy_exchange_write(ex, "part,", 5) < 0 || tachy_exchange_flush(ex) < 0)
                break;
    tachy_exchange_close(ex);
    return 0;
}

void fuzz_conn_configure(tachy_options *opt, const char **name, const fuzz_route **extra) {
    opt->max_req_header_size = 8192;
    opt->h2_max_streams = 16;
    static const fuzz_route routes[] = {{"/stream", streamed}, {NULL, NULL}};
    *name = "fuzz_h2";
    *extra = routes;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const char preface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
    static const char upgrade[] = "GET /stream HTTP/1.1\r\nHost: x\r\n"
                                  "Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\n"
                                  "HTTP2-Settings: AAMAAABkAAQAAP__\r\n\r\n";
    static const char *const direct[] = {preface, NULL};
    static const char *const upgraded[] = {upgrade, preface, NULL};
    fuzz_in in = {data, size};
    uint8_t how = fuzz_u8(&in);
    fuzz_conn_run(how & 0x80 ? upgraded : direct, in.p, in.n, 1 + (how & 3));
    return 0;
}
