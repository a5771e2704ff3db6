/*
 * fuzz_conn.h - what the whole-connection harnesses (fuzz_server, fuzz_h2) share: one real
 * tachy server on 127.0.0.1 (public C API only, started once per process), and for each
 * input a fresh loopback connection that receives the fuzzed bytes, then the properties
 * every such harness checks besides memory safety in the server's threads:
 * - the server closes the half-closed fuzzed connection within 5 s (it never lingers on a
 *   client that has nothing more to send);
 * - a following good request on a new connection is answered 200 "Hello, World!" within
 *   5 s: one bad client does not take the server down or wedge it;
 * - every 64 inputs, the open-connection count drops back to 0 within 5 s (no connection,
 *   and nothing holding one, is leaked).
 * A failed property prints the harness's name and what failed, and aborts (libFuzzer keeps
 * the input). fuzz_conn.c defines LLVMFuzzerInitialize (it starts the server as the
 * harness's fuzz_conn_configure says); the harness defines LLVMFuzzerTestOneInput, which
 * hands each input to fuzz_conn_run. Everything here runs on libFuzzer's thread; the server
 * runs on its own.
 */
#ifndef TACHY_FUZZ_CONN_H
#define TACHY_FUZZ_CONN_H

#include <stddef.h>
#include <stdint.h>

#include <tachy/tachy.h>

/* A context beyond the common ones; a list of them ends with {NULL, NULL}. */
typedef struct fuzz_route {
    const char *path;
    tachy_handler_fn handler;
} fuzz_route;

/* Defined by each harness, called once by fuzz_conn.c's LLVMFuzzerInitialize before the
 * server starts: may change *opt (set to the defaults with idleInterval 2 s, maxReqTime and
 * maxRspTime 3 s, so that a stuck connection ends within the 5 s the checks allow); sets
 * *name (a string literal that prefixes every failure message) and *extra (contexts beyond
 * the common ones: "/" 200 "Hello, World!", "/echo" the request body back whatever its
 * framing, "/nohandler" no handler: 500). The server is destroyed at exit. */
void fuzz_conn_configure(tachy_options *opt, const char **name, const fuzz_route **extra);

/* One input: on a new connection, sends each string of heads (NULL-terminated list, or
 * NULL) whole, then data[0..n) in `segments` sends (TCP_NODELAY: usually as many
 * segments); stops sending once the server closes (fine). Then checks the three properties
 * above. */
void fuzz_conn_run(const char *const *heads, const uint8_t *data, size_t n, size_t segments);

#endif
