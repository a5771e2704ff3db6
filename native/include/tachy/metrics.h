/*
 * tachy/metrics.h - the server's counters as Prometheus / OpenMetrics text, for a scraper.
 *
 * Mount the handler on a context of the server it describes:
 *
 *     tachy_server_create_context(srv, "/metrics", tachy_metrics_handler, NULL, NULL);
 *
 * Every counter is a relaxed atomic the request path bumps without a lock; a scrape reads
 * them one by one (a consistent snapshot across them is not promised while serving).
 * docs/load-balancing.md lists the series.
 */
#ifndef TACHY_METRICS_H
#define TACHY_METRICS_H

#include <stddef.h>
#include <tachy/export.h>
#include <tachy/server.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A handler (tachy_handler_fn) answering GET/HEAD with the metrics of the exchange's own
 * server in the Prometheus text exposition format 0.0.4 (Content-Type text/plain;
 * version=0.0.4), which OpenMetrics scrapers read too; other methods get 405. user is
 * ignored. Runs on the exchange's thread like any handler.
 */
TACHY_API int tachy_metrics_handler(tachy_exchange *ex, void *user);

/*
 * Writes the same text for srv into buf (cap bytes, NUL-terminated). Returns the length
 * it needs without the NUL (as snprintf: larger than cap - 1 means it was cut short), or
 * TACHY_EINVAL. Any thread.
 */
TACHY_API long tachy_metrics_render(const tachy_server *srv, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
