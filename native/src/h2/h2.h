/*
 * h2/h2.h - HTTP/2 (RFC 9113): the second protocol codec beside HTTP/1.1 (http/conn.c), and
 * the calls loop/ makes into it. Private to the core; never installed.
 *
 *   ng.c        libnghttp2, loaded with dlopen (ng.h: the ABI subset and why)
 *   session.c   the connection: switching to HTTP/2 (preface, ALPN, Upgrade: h2c), the
 *               read step the loop runs, sending, GOAWAY, closing, the limits
 *   stream.c    each stream an exchange: the exchange seam (http.h, tachy__exchange_ops)
 *               for streams, and the job that runs a stream's handler on a pool thread
 *   internal.h  the session and stream structs shared by the two
 *
 * Threads. The loop owns the connection as it owns an HTTP/1.1 one: a pool thread that
 * claims it runs tachy__h2_run, which reads what the socket holds, feeds nghttp2, queues
 * each stream whose request head is complete as a job (tachy__job, loop/workers.c) and
 * parks the connection again - an idle HTTP/2 connection holds no thread. A stream's
 * handler runs on whichever pool thread takes its job (one slow stream never holds up the
 * others), and its response goes out from that thread: whoever has output sends it while
 * no other thread does (h2->sending), so reading never waits for writing and a stream's
 * response never waits for the connection's next event. One mutex per connection
 * (h2->mu) guards the nghttp2 session and every stream's shared fields.
 *
 * h2/ includes http/ (exchanges, the I/O layer, the HTTP/1.1 parser for Upgrade: h2c) and
 * server/; loop/ includes h2/; nothing below includes it.
 */
#ifndef TACHY__SRC_H2_H2_H
#define TACHY__SRC_H2_H2_H

#include "http/http.h"

/* 0 when HTTP/2 can be spoken (libnghttp2 loaded), else TACHY_ENOTSUP (said once on
 * stderr). Any thread. */
int tachy__h2_available(void);

/* c (owned by the caller) switches to HTTP/2: http/conn.c returned TACHY__CONN_NEXT_H2 and
 * rbuf holds the client's preface or an "Upgrade: h2c" request (answered 101 here, its
 * exchange becomes stream 1). 0, or TACHY_E* (close c). */
int tachy__h2_start(tachy__conn *c);

/* The HTTP/2 step (owner of c, a pool thread): reads what is there, feeds the session,
 * queues the streams that are ready, sends. Returns TACHY__CONN_NEXT_PARK (with *idle:
 * no stream open, and *deadline), _LINGER (the session is over: a lingering close),
 * _CLOSE, or _HOLD (closing while stream exchanges still run: the last one requeues c,
 * srv->loop_requeue). */
tachy__conn_next tachy__h2_run(tachy__conn *c, int *idle, long *deadline);

/* The watchdog found c (parked, now the caller's) past its deadline: 0 when it is idle
 * (close it), else the deadline to park it again with - handlers still run on its streams,
 * or the last of them ended less than idleInterval ago - and *idle (no handler runs). */
long tachy__h2_recheck(tachy__conn *c, int *idle);

/* tachy__loop_close's hook for an HTTP/2 connection (the caller owns c): says GOAWAY
 * (without waiting) and wakes every stream; 1 when stream exchanges still run (c is then
 * held until the last ends, which requeues it: do not close it now), 0 to close. */
int tachy__h2_closing(tachy__conn *c);

/* A drain (tachy_server_drain) reached c, parked: GOAWAY is said once (no new streams; the
 * ones begun finish). 1 when c has no stream left (close it), else 0 (park it again).
 * Owner of c. */
int tachy__h2_drain(tachy__conn *c);

/* Frees c->h2 (c is closing, no stream is left). Owner of c. */
void tachy__h2_free(tachy__conn *c);

#endif
