/*
 * tachy/timer.h - server timers: run a callback after a delay, once or periodically, on one
 * of the server's pool threads (tachy-conn-N), without a thread per timer.
 *
 * The timers of a server live in one min-heap in its pool, driven by a timerfd in the
 * pool's park set: when the earliest timer is due, the kernel wakes one pool thread, which
 * takes up to 64 due timers, re-arms the timerfd for the next one and runs them in order.
 * If more are due (or a callback blocks), the next pool thread takes the rest, so a slow
 * callback delays only the timers in its own batch of 64. A periodic timer never runs on
 * two threads at once: its next run is scheduled when its callback returns, on its fixed
 * rate (due + period; runs missed while the callback or the machine was slow are skipped,
 * never bunched up).
 *
 * Times are CLOCK_MONOTONIC (setting the wall clock moves no timer), in milliseconds, on a
 * 1 ms grid: a timer runs at the first whole millisecond of the monotonic clock at or after
 * its due time (never early, at most 1 ms late plus scheduling), so all timers due in the
 * same millisecond run from one kernel wake-up instead of one each. A delay of 0 runs at
 * once, off the grid; a periodic timer's later runs are on it.
 *
 * A callback may send on WebSockets, schedule and cancel timers (also its own), and block
 * (it holds its pool thread meanwhile, like a handler; keep that short: stop() waits for
 * it). Errors are negative TACHY_E* codes (tachy/error.h).
 */
#ifndef TACHY_TIMER_H
#define TACHY_TIMER_H

#include <tachy/export.h>
#include <tachy/server.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One scheduled callback. Opaque; reference-counted internally (see tachy_timer_cancel). */
typedef struct tachy_timer tachy_timer;

/* The callback: t is the timer (valid during the call), user the pointer given to
 * tachy_timer_schedule. Runs on a pool thread. */
typedef void (*tachy_timer_fn)(tachy_timer *t, void *user);

/*
 * Schedules fn(t, user) to run delay_ms from now (0: as soon as a pool thread is free), and
 * then every period_ms if period_ms > 0 (0: once). The server must be started
 * (TACHY_ESTATE before tachy_server_start, TACHY_ESTOPPED once stop began). Any thread,
 * also a timer callback.
 *
 * Ownership: with out != NULL, *out is a handle the caller owns and must give back with
 * exactly one tachy_timer_cancel (also after a one-shot timer has run; the memory stays
 * valid until then, the server's included). With out == NULL the timer cannot be
 * cancelled: a one-shot runs once, a periodic one runs until the server stops.
 * user is not touched by tachy; it must stay valid while the timer can still run.
 *
 * When the server stops, pending timers are dropped without running (handles stay
 * valid until cancelled). Returns 0, TACHY_EINVAL (srv or fn NULL, delay_ms or
 * period_ms < 0), TACHY_ESTATE, TACHY_ESTOPPED or TACHY_ENOMEM.
 */
TACHY_API int tachy_timer_schedule(tachy_server *srv, long delay_ms, long period_ms,
                                   tachy_timer_fn fn, void *user, tachy_timer **out);

/*
 * Cancels t and gives the caller's handle back (t must not be used afterwards). When it
 * returns, the callback is not running and will not start again - except when called from
 * t's own callback, which returns normally and is then not run again. So after cancel the
 * user pointer may be freed. Do not call it while holding a lock the callback takes.
 * Returns 1 if a pending run was prevented, 0 if there was none (a one-shot that already
 * ran, or a timer dropped at stop), TACHY_EINVAL for NULL. Any thread.
 */
TACHY_API int tachy_timer_cancel(tachy_timer *t);

/* Number of timers scheduled and not yet run or cancelled, for tests and stats. Any thread. */
TACHY_API long tachy_timer_pending(tachy_server *srv);

#ifdef __cplusplus
}
#endif

#endif
