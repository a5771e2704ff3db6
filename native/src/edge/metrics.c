/*
 * edge/metrics.c - the server's counters (srv->st_*, relaxed atomics bumped on the request
 * path without a lock): an exchange's end (status class, duration; and the access log's
 * line, accesslog.c), tachy's own rejections and TLS handshakes. The Prometheus text made of them is handler/metrics.c's.
 */
#include "edge/edge.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const long duration_bounds_us[] = {TACHY__DURATION_BOUNDS_US};
static const int reject_codes[] = {TACHY__REJECT_CODES};

_Static_assert(sizeof duration_bounds_us / sizeof *duration_bounds_us + 1 == TACHY__DURATION_BUCKETS,
               "TACHY__DURATION_BUCKETS is the number of bounds + 1");
_Static_assert(sizeof reject_codes / sizeof *reject_codes + 1 == TACHY__REJECT_SLOTS,
               "TACHY__REJECT_SLOTS is the number of codes + 1");

#define RELAXED memory_order_relaxed

#ifndef TACHY_BENCH_NO_OBSERVER
int64_t tachy__edge_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
#endif

void tachy__edge_exchange_done(tachy_server *srv, tachy_exchange *ex, int code, int64_t t0_ns) {
    int cls = code >= 100 && code < 600 ? code / 100 : 0;
    atomic_fetch_add_explicit(&srv->st_status[cls], 1, RELAXED);
    int64_t ns = tachy__edge_now_ns() - t0_ns;
    if (ns < 0)
        ns = 0;
    long us = (long)(ns / 1000);
    size_t b = 0;
    while (b < TACHY__DURATION_BUCKETS - 1 && us > duration_bounds_us[b])
        b++;
    atomic_fetch_add_explicit(&srv->st_duration[b], 1, RELAXED);
    atomic_fetch_add_explicit(&srv->st_duration_ns, (uint64_t)ns, RELAXED);
    /* Off (the default): this one test, always the same way. */
    if (__builtin_expect(srv->alog != NULL, 0))
        tachy__alog_line(srv->alog, ex, code);
}

void tachy__edge_tls_handshake(tachy_server *srv, int failed) {
    if (failed < 0)
        atomic_fetch_add_explicit(&srv->st_tls_done, 1, RELAXED);
    else if (failed < TACHY__TLS_FAIL_COUNT)
        atomic_fetch_add_explicit(&srv->st_tls_failed[failed], 1, RELAXED);
}

void tachy__edge_rejected(tachy_server *srv, int code) {
    size_t i = 0;
    while (i < TACHY__REJECT_SLOTS - 1 && reject_codes[i] != code)
        i++;
    atomic_fetch_add_explicit(&srv->st_rejected[i], 1, RELAXED);
}
