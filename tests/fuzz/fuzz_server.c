/*
 * fuzz_server.c - libFuzzer harness that drives a whole server connection: a real tachy
 * server on 127.0.0.1 (public C API only, started once), fuzzed bytes sent on a fresh
 * loopback connection, then an ordinary request on another connection.
 *
 * Input: one byte choosing how many segments the bytes are sent in (1..4), then the bytes
 * a client would send. They reach the request parser, the body decoders of /echo (length
 * and chunked), the 100-continue path, and the WebSocket handshake and frame loop of /ws
 * (an upgrade request followed by frames). The client then half-closes (SHUT_WR) and reads
 * what the server answers.
 *
 * The server, the connection and the properties checked (the half-closed connection is
 * closed, a good request after it is answered, no connection is leaked) are fuzz_conn.c's,
 * shared with fuzz_h2.
 */
#include <stdint.h>

#include <tachy/tachy.h>
#include <tachy/ws.h>

#include "../../examples/common/demo.h"
#include "fuzz_conn.h"
#include "fuzz_util.h"

static int ws(tachy_exchange *ex, void *user) {
    (void)user;
    tachy_ws_options opt;
    tachy_ws_options_init(&opt);
    opt.cb.on_message = demo_ws_echo_message;
    opt.max_message_size = 1 << 20;
    opt.deflate_threshold = 0;
    opt.close_timeout_ms = 500;
    opt.send_timeout_ms = 2000;
    tachy_ws_serve(ex, &opt);
    return 0;
}

void fuzz_conn_configure(tachy_options *opt, const char **name, const fuzz_route **extra) {
    (void)opt;
    static const fuzz_route routes[] = {{"/ws", ws}, {NULL, NULL}};
    *name = "fuzz_server";
    *extra = routes;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_in in = {data, size};
    size_t segments = 1 + fuzz_u8(&in) % 4;
    fuzz_conn_run(NULL, in.p, in.n, segments);
    return 0;
}
