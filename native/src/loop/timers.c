/*
 * loop/timers.c - tachy_timer_*: the server's timers (tachy/timer.h).
 *
 * One 4-ary min-heap per server, ordered by due time (CLOCK_MONOTONIC ns, rounded up to the
 * millisecond), under pool->timer_lock. A timerfd in the park set (edge-triggered,
 * TIMER_TOKEN) is armed for the heap's top: when it fires, one pool thread takes up to
 * TIMER_BATCH due timers, re-arms the timerfd for what is left (at once if more are due, so
 * another thread takes them) and runs its batch. A periodic timer goes back into the heap
 * when its callback returns.
 *
 * References: a timer has one reference for being scheduled (in the heap or running) and
 * one for the caller's handle (until tachy_timer_cancel); each timer holds a server
 * reference, so a handle outlives a stopped or destroyed server safely.
 */
#include "loop/loop.h"

#include <tachy/timer.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define TIMER_BATCH 64

/* Due times are rounded up to a whole millisecond of CLOCK_MONOTONIC (tachy/timer.h): the
 * timers due in the same millisecond share one timerfd expiry, one wake-up and one batch,
 * instead of one each (with 20,000 /ts sockets that is 40,000 timers a second). */
#define TIMER_GRID_NS 1000000

static int64_t on_grid(int64_t ns) {
    return (ns + TIMER_GRID_NS - 1) / TIMER_GRID_NS * TIMER_GRID_NS;
}

struct tachy_timer {
    tachy_server *srv;
    tachy_timer_fn fn;
    void *user;
    int64_t due_ns;
    int64_t period_ns;
    long idx;         /* position in the heap, -1 when not in it (under timer_lock) */
    int cancelled;    /* under timer_lock */
    int running;      /* under timer_lock */
    pthread_t runner; /* the thread running it, while running */
    atomic_int refs;
    tachy_timer *next; /* a batch being run */
};

static int64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void timer_release(tachy_timer *t) {
    if (atomic_fetch_sub(&t->refs, 1) != 1)
        return;
    tachy_server *srv = t->srv;
    free(t);
    tachy__server_release(srv);
}

/* ---- the heap (timer_lock held) ---------------------------------------------------------
 *
 * A 4-ary min-heap of (due, timer) pairs: the keys sit in the array itself, so sifting
 * compares within one contiguous array (a node's four children share a cache line or two)
 * instead of following a pointer to every timer it passes; and four children per node
 * halve the depth of a binary heap. With tens of thousands of timers, popping the top was
 * a tenth of a /ts server's CPU with a binary heap of pointers (perf, bench/wscrowd.sh). */

#define HEAP_D 4

static void heap_set(struct tachy__loop *p, size_t i, struct tachy__timer_slot e) {
    p->theap[i] = e;
    e.t->idx = (long)i;
}

static void heap_up(struct tachy__loop *p, size_t i) {
    struct tachy__timer_slot e = p->theap[i];
    while (i > 0) {
        size_t parent = (i - 1) / HEAP_D;
        if (p->theap[parent].due_ns <= e.due_ns)
            break;
        heap_set(p, i, p->theap[parent]);
        i = parent;
    }
    heap_set(p, i, e);
}

static void heap_down(struct tachy__loop *p, size_t i) {
    struct tachy__timer_slot e = p->theap[i];
    size_t n = p->ntimers;
    for (;;) {
        size_t first = HEAP_D * i + 1, m = i;
        if (first >= n)
            break;
        int64_t best = e.due_ns;
        size_t last = first + HEAP_D < n ? first + HEAP_D : n;
        for (size_t c = first; c < last; c++) {
            if (p->theap[c].due_ns < best) {
                m = c;
                best = p->theap[c].due_ns;
            }
        }
        if (m == i)
            break;
        heap_set(p, i, p->theap[m]);
        i = m;
    }
    heap_set(p, i, e);
}

static int heap_push(struct tachy__loop *p, tachy_timer *t) {
    if (p->ntimers == p->theap_cap) {
        size_t cap = p->theap_cap ? p->theap_cap * 2 : 64;
        struct tachy__timer_slot *n = realloc(p->theap, cap * sizeof *n);
        if (!n)
            return TACHY_ENOMEM;
        p->theap = n;
        p->theap_cap = cap;
    }
    size_t i = p->ntimers++;
    heap_set(p, i, (struct tachy__timer_slot){t->due_ns, t});
    heap_up(p, i);
    return 0;
}

static void heap_remove(struct tachy__loop *p, tachy_timer *t) {
    size_t i = (size_t)t->idx;
    t->idx = -1;
    struct tachy__timer_slot last = p->theap[--p->ntimers];
    if (i == p->ntimers)
        return;
    heap_set(p, i, last);
    if (i > 0 && p->theap[(i - 1) / HEAP_D].due_ns > last.due_ns)
        heap_up(p, i);
    else
        heap_down(p, i);
}

/* Arms the timerfd for the heap's top (timer_lock held). */
static void rearm(struct tachy__loop *p) {
    int64_t due = p->ntimers ? p->theap[0].due_ns : 0;
    if (due == p->timer_armed_ns)
        return;
    struct itimerspec its;
    memset(&its, 0, sizeof its);
    its.it_value.tv_sec = due / 1000000000;
    its.it_value.tv_nsec = due % 1000000000;
    if (due == 0) /* an all-zero it_value disarms */
        memset(&its, 0, sizeof its);
    timerfd_settime(p->timerfd, TFD_TIMER_ABSTIME, &its, NULL);
    p->timer_armed_ns = due;
}

/* ---- the pool's side ---------------------------------------------------------------------- */

int tachy__loop_timers_init(tachy_server *srv) {
    struct tachy__loop *p = srv->loop;
    pthread_mutex_init(&p->timer_lock, NULL);
    tachy__cond_init(&p->timer_cond);
    p->timers_inited = 1;
    p->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (p->timerfd < 0)
        return TACHY_ESYS;
    struct epoll_event ev = {EPOLLIN | EPOLLET, {.u64 = TIMER_TOKEN}};
    if (epoll_ctl(p->epfd, EPOLL_CTL_ADD, p->timerfd, &ev) < 0)
        return TACHY_ESYS;
    return 0;
}

void tachy__loop_timers_run(tachy_server *srv) {
    struct tachy__loop *p = srv->loop;
    uint64_t ticks;
    if (read(p->timerfd, &ticks, sizeof ticks) < 0 && errno != EAGAIN)
        tachy__log(srv, TACHY_LOG_WARNING, "timerfd read: %s", strerror(errno));
    tachy_timer *batch = NULL, **tail = &batch;
    int n = 0;
    pthread_mutex_lock(&p->timer_lock);
    int64_t now = mono_ns();
    p->timer_armed_ns = 0; /* it fired (or the read raced a re-arm): arm again below */
    while (p->ntimers > 0 && p->theap[0].due_ns <= now && n < TIMER_BATCH) {
        tachy_timer *t = p->theap[0].t;
        heap_remove(p, t);
        t->running = 1;
        t->runner = pthread_self();
        t->next = NULL;
        *tail = t;
        tail = &t->next;
        n++;
    }
    rearm(p);
    pthread_mutex_unlock(&p->timer_lock);
    /* The batch may block. With connections open the watchdog looks every tick and brings
     * in a thread when nobody waits for events; without any it sleeps until its next sweep
     * (up to a second), so make sure here that someone else waits for the next timer. */
    if (n > 0 && __atomic_load_n(&p->nconns, __ATOMIC_RELAXED) == 0)
        tachy__loop_blocking(srv);

    while (batch) {
        tachy_timer *t = batch;
        batch = t->next;
        t->fn(t, t->user);
        pthread_mutex_lock(&p->timer_lock);
        t->running = 0;
        int keep = !t->cancelled && t->period_ns > 0 && !p->timers_closed;
        if (keep) {
            int64_t now2 = mono_ns();
            t->due_ns += t->period_ns;
            if (t->due_ns <= now2) /* late: skip the missed runs, keep the phase */
                t->due_ns += ((now2 - t->due_ns) / t->period_ns + 1) * t->period_ns;
            t->due_ns = on_grid(t->due_ns); /* after a first run "at once" */
            keep = heap_push(p, t) == 0;
            if (keep && t->idx == 0)
                rearm(p);
        }
        pthread_cond_broadcast(&p->timer_cond);
        pthread_mutex_unlock(&p->timer_lock);
        if (!keep)
            timer_release(t); /* the scheduled reference */
    }
}

void tachy__loop_timers_close(tachy_server *srv) {
    struct tachy__loop *p = srv->loop;
    if (!p || !p->timers_inited)
        return;
    pthread_mutex_lock(&p->timer_lock);
    p->timers_closed = 1;
    size_t n = p->ntimers;
    struct tachy__timer_slot *all = p->theap;
    for (size_t i = 0; i < n; i++)
        all[i].t->idx = -1;
    p->theap = NULL;
    p->ntimers = p->theap_cap = 0;
    rearm(p);
    pthread_mutex_unlock(&p->timer_lock);
    for (size_t i = 0; i < n; i++)
        timer_release(all[i].t);
    free(all);
}

void tachy__loop_timers_free(tachy_server *srv) {
    struct tachy__loop *p = srv->loop;
    if (!p->timers_inited)
        return;
    if (p->timerfd >= 0)
        close(p->timerfd);
    p->timerfd = -1;
    free(p->theap);
    p->theap = NULL;
    pthread_cond_destroy(&p->timer_cond);
    pthread_mutex_destroy(&p->timer_lock);
}

/* ---- the public API ----------------------------------------------------------------------- */

TACHY_API int tachy_timer_schedule(tachy_server *srv, long delay_ms, long period_ms,
                                   tachy_timer_fn fn, void *user, tachy_timer **out) {
    if (out)
        *out = NULL;
    if (!srv || !fn || delay_ms < 0 || period_ms < 0)
        return TACHY_EINVAL;
    int st = atomic_load(&srv->state);
    if (st == TACHY__SRV_CREATED)
        return TACHY_ESTATE;
    if (st != TACHY__SRV_STARTED || !srv->loop)
        return TACHY_ESTOPPED;
    tachy_timer *t = calloc(1, sizeof *t);
    if (!t)
        return TACHY_ENOMEM;
    t->srv = srv;
    t->fn = fn;
    t->user = user;
    t->period_ns = (int64_t)period_ms * 1000000;
    t->idx = -1;
    atomic_init(&t->refs, out ? 2 : 1);
    atomic_fetch_add(&srv->refs, 1);
    struct tachy__loop *p = srv->loop;
    pthread_mutex_lock(&p->timer_lock);
    int rc = p->timers_closed || p->timerfd < 0 ? TACHY_ESTOPPED : 0;
    if (rc == 0) {
        /* The handle is stored before the timer can run (its callback may read it). */
        if (out)
            *out = t;
        t->due_ns = mono_ns();
        if (delay_ms > 0) /* 0: at once, not at the next millisecond */
            t->due_ns = on_grid(t->due_ns + (int64_t)delay_ms * 1000000);
        rc = heap_push(p, t);
        if (rc < 0 && out)
            *out = NULL;
    }
    if (rc == 0 && t->idx == 0)
        rearm(p);
    pthread_mutex_unlock(&p->timer_lock);
    if (rc < 0) {
        atomic_store(&t->refs, 1);
        timer_release(t);
        return rc;
    }
    return 0;
}

TACHY_API int tachy_timer_cancel(tachy_timer *t) {
    if (!t)
        return TACHY_EINVAL;
    struct tachy__loop *p = t->srv->loop;
    int prevented = 0;
    pthread_mutex_lock(&p->timer_lock);
    t->cancelled = 1;
    if (t->idx >= 0) {
        heap_remove(p, t);
        rearm(p);
        prevented = 1;
    } else {
        while (t->running && !pthread_equal(t->runner, pthread_self()))
            pthread_cond_wait(&p->timer_cond, &p->timer_lock);
    }
    pthread_mutex_unlock(&p->timer_lock);
    if (prevented)
        timer_release(t); /* the scheduled reference */
    timer_release(t);     /* the handle */
    return prevented;
}

TACHY_API long tachy_timer_pending(tachy_server *srv) {
    if (!srv || !srv->loop || !srv->loop->timers_inited)
        return 0;
    pthread_mutex_lock(&srv->loop->timer_lock);
    long n = (long)srv->loop->ntimers;
    pthread_mutex_unlock(&srv->loop->timer_lock);
    return n;
}
