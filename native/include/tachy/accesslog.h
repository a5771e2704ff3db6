/*
 * tachy/accesslog.h - the access log: one line per exchange, in the Common Log Format
 *
 *     127.0.0.2 - - [05/Dec/2026:04:37:12 +0000] "GET /ip HTTP/1.1" 200 31
 *
 * or the Combined one (the same, then "Referer" "User-Agent"), to a file or a callback.
 * It is configured with tachy_options (access_log, access_log_fn, access_log_format,
 * access_log_lines; tachy/server.h) and off by default.
 *
 * The fields: the client's address (the PROXY protocol header's source when the listener
 * reads one, as tachy_exchange_remote_address), "-" (identd), the authenticated user
 * (tachy_exchange_principal_user, else "-"), the local time the exchange ended, the request
 * line (method, target and protocol as received), the status ("-" when the exchange ended
 * without a response: the handler failed or the client went away) and the response body's
 * bytes ("-" for none; what the handler wrote, before chunked framing - the body tachy sends
 * with its own error responses included). Quotes, backslashes, control and non-ASCII bytes
 * in quoted fields are written as \xHH, so a line is one line and its quotes are the
 * fields' (nginx does the same). A line over 1 KiB is cut inside its quoted fields, which
 * then end in "...". A request tachy refuses before its head is parsed (malformed, too
 * large) has no exchange and no line: tachy_rejected_total counts it.
 *
 * The path of a line: the exchange's thread formats it at the exchange's end into a slot of
 * a bounded ring (one atomic ticket per line, no lock); a writer thread of the server's own
 * drains the ring in batches (64 KiB writes for a file) every 100 ms, or sooner when a quarter of
 * the ring is waiting. When the ring is full the line is dropped and counted
 * (tachy_access_log_dropped_total in tachy_metrics_render's text): a request never waits for
 * the log. tachy_server_stop writes what was queued before it returns.
 */
#ifndef TACHY_ACCESSLOG_H
#define TACHY_ACCESSLOG_H

#include <stdint.h>
#include <tachy/export.h>
#include <tachy/server.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Makes the access log's writer close its file and open tachy_options.access_log again,
 * between two batches: after logrotate has renamed the file, the lines queued before go
 * to the old file, the later ones to a new file by the old name - none is lost. Returns at
 * once (0; TACHY_EINVAL for NULL); a no-op when the server has no running file log.
 * Async-signal-safe (an atomic store and a write to an eventfd): call it from a SIGHUP
 * handler, which is what logrotate's postrotate sends. Any thread; srv must stay alive
 * during the call.
 */
TACHY_API int tachy_access_log_reopen(tachy_server *srv);

/* Access-log lines dropped so far (the ring was full, or the file's write failed).
 * Any thread. */
TACHY_API uint64_t tachy_access_log_dropped(const tachy_server *srv);

#ifdef __cplusplus
}
#endif
#endif
