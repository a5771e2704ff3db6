/*
 * loop/watchdog.c - one thread per server, ticking every few milliseconds while there are
 * connections: it brings in a thread when every pool thread is busy in a handler, closes
 * parked connections past their idle or request-head deadline, shuts down exchanges past
 * maxReqTime/maxRspTime, retries a failed accept and gives memory back after a burst.
 */
#include "loop/loop.h"
#include "h2/h2.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <malloc.h>
#include <tachy/timer.h>

/* ---- the watchdog -------------------------------------------------------------------- */

/* Claims every parked connection that is past its deadline (or every parked one when
 * all is set) and closes it; *earliest becomes the earliest deadline still ahead (0:
 * none). Lock held on entry and exit; released while closing. */
static void sweep(tachy_server *srv, int all, long *earliest) {
    tachy__conn *victims = NULL;
    long now = tachy__now_ms();
    long next = 0;
    for (tachy__conn *c = srv->loop->conns; c; c = c->next) {
        /* An exchange past maxReqTime/maxRspTime/max_body_time_ms: shut the socket down
         * (the lock keeps the descriptor from being closed and reused meanwhile); its
         * thread's next or current I/O fails and the connection closes, as the JDK's
         * timer closes it. */
        long io = atomic_load_explicit(&c->io_deadline, memory_order_relaxed);
        if (io && io <= now && atomic_exchange(&c->shut, 1) == 0) {
            tachy__log(srv, TACHY_LOG_DEBUG, "exchange exceeded its time limit: closing");
            shutdown(c->fd, SHUT_RDWR);
        } else if (io > now && (!next || io < next)) {
            next = io;
        }
        uint64_t s = atomic_load(&c->state);
        if (tachy__st_kind(s) != TACHY__CONN_PARKED)
            continue;
        long dl = atomic_load_explicit(&c->deadline, memory_order_relaxed);
        if (!all && dl > now) {
            if (!next || dl < next)
                next = dl;
            continue;
        }
        if (tachy__loop_claim(srv, c->slot, (uint32_t)tachy__st_gen(s), 0, 0)) {
            c->next_free = victims; /* reused as a scratch link until closed */
            victims = c;
        }
    }
    *earliest = next;
    if (!victims)
        return;
    pthread_mutex_unlock(&srv->lock);
    while (victims) {
        tachy__conn *c = victims;
        victims = c->next_free;
        /* An HTTP/2 connection is timed from its last handler's end, which it does not
         * see while parked: look again. */
        int idle;
        long dl = !all && c->h2 ? tachy__h2_recheck(c, &idle) : 0;
        int pr = dl ? tachy__loop_park(c, idle, dl) : -1;
        if (pr == 0)
            tachy__loop_requeue(c); /* an event came meanwhile: a pool thread reads it */
        else if (pr < 0)
            tachy__loop_close(c);
    }
    pthread_mutex_lock(&srv->lock);
}

void tachy__loop_sweep(tachy_server *srv, int all) {
    long earliest;
    sweep(srv, all, &earliest);
}

/*
 * After a burst of connections has gone (the count fell to a quarter of a peak of at least
 * TRIM_PEAK), gives the freed connection buffers back to the system. glibc keeps freed
 * memory in its arenas and only trims what sits at the top of a heap; buffers freed in
 * the middle stay resident, so a server that once held 4,096 idle connections would keep
 * their ~50 MiB. Lock held; released around the trim (it walks every arena).
 */
static void trim_after_burst(tachy_server *srv, int *peak) {
    if (srv->loop->nconns > *peak)
        *peak = srv->loop->nconns;
#if defined(__GLIBC__)
    if (*peak >= TRIM_PEAK && srv->loop->nconns <= *peak / 4) {
        *peak = srv->loop->nconns;
        pthread_mutex_unlock(&srv->lock);
        malloc_trim(0);
        pthread_mutex_lock(&srv->lock);
    }
#endif
}

void *tachy__loop_watchdog_main(void *arg) {
    tachy_server *srv = arg;
    pthread_setname_np(pthread_self(), "tachy-watchdog");
    const tachy_options *o = &srv->opt;
    long shortest = o->idle_interval_ms;
    if (o->max_req_time_ms > 0 && o->max_req_time_ms < shortest)
        shortest = o->max_req_time_ms;
    if (o->max_rsp_time_ms > 0 && o->max_rsp_time_ms < shortest)
        shortest = o->max_rsp_time_ms;
    if (o->max_body_time_ms > 0 && o->max_body_time_ms < shortest)
        shortest = o->max_body_time_ms;
    if (srv->tls && o->tls_handshake_time_ms < shortest)
        shortest = o->tls_handshake_time_ms;
    long sweep_every = TACHY__MAX(10, TACHY__MIN(1000, shortest / 4));
    long next_sweep = tachy__now_ms() + sweep_every;
    uint64_t last_progress = 0;
    int conn_peak = 0;
    pthread_mutex_lock(&srv->lock);
    while (atomic_load(&srv->state) == TACHY__SRV_STARTED) {
        tachy__cond_wait_ms(&srv->loop->wd_cond, &srv->lock,
                            srv->loop->nconns > 0 || tachy_timer_pending(srv) > 0
                                ? WATCHDOG_TICK_MS
                                : sweep_every);
        if (atomic_load(&srv->state) != TACHY__SRV_STARTED)
            break;
        /* Nobody waits for events and nobody took one for a whole tick: every thread is
         * busy (or blocked) in a connection. Bring in another so parked connections with
         * a request waiting are not starved by a slow handler. */
        if (atomic_exchange(&srv->loop->accept_retry, 0))
            tachy__loop_requeue_listener(srv); /* accept failed (descriptors or memory): try again */
        uint64_t p = atomic_load_explicit(&srv->loop->progress, memory_order_relaxed);
        int backlog = __atomic_load_n(&srv->loop->ready_count, __ATOMIC_RELAXED) > 0 ||
                      __atomic_load_n(&srv->loop->njobs, __ATOMIC_RELAXED) > 0;
        int timers = srv->loop->nconns == 0 && tachy_timer_pending(srv) > 0;
        if ((srv->loop->nconns > 0 || backlog || timers) &&
            (backlog || atomic_load(&srv->loop->nwaiting) == 0) &&
            p == last_progress)
            tachy__loop_ensure_waiter(srv);
        last_progress = p;
        long now = tachy__now_ms();
        if (now >= next_sweep) {
            long earliest = 0;
            sweep(srv, 0, &earliest);
            tachy__loop_reap(srv);
            /* The next sweep comes at the earliest deadline seen (within a tick while there
             * are connections), or after sweep_every. An exchange's or an idle connection's
             * deadline set since is a whole limit away (sweep_every is at most a quarter of
             * the shortest), so a later sweep sees it before it is due and is on time for
             * it; only a partial head parked since (due maxReqTime after its first byte) can
             * still be up to sweep_every late. */
            next_sweep = now + sweep_every;
            if (earliest && earliest < next_sweep)
                next_sweep = earliest;
            trim_after_burst(srv, &conn_peak);
        }
    }
    pthread_mutex_unlock(&srv->lock);
    return NULL;
}

