/*
 * loop/workers.c - the pool threads: waiting in the park set, the ready ring, serving.
 *
 * Handlers see thread-per-connection: while a connection has a request in progress, one
 * thread owns it and may block (reading a body, writing a response, in user code). Between
 * requests the connection does not keep a thread: it is *parked* in an edge-triggered
 * epoll set (the park set). Pool threads wait there; the kernel wakes one per event, and
 * that thread claims the connection and serves it, then parks it again and takes the next
 * ready connection - without a hand-off, so under load a thread goes from one connection
 * to the next with no context switch and no futex call per request (a naive blocking
 * thread-per-connection server pays a wake-up and a switch for every request).
 *
 * What a thread does with a connection it claimed - and every state a connection moves
 * through - is loop/states.c's: this file only finds ready connections and hands them
 * there (tachy__loop_claim, tachy__loop_serve).
 *
 * Threads: at most max_waiters threads (the CPUs this process may run on) wait in the park
 * set; others wait as spares. Because a handler may block for as long as it likes, a
 * watchdog checks every few milliseconds that someone is waiting for events or has taken
 * one since the last check; if not, it wakes a spare or starts a thread. The watchdog also
 * closes parked connections whose idle or request-head deadline has passed.
 *
 * With an executor that closes exchanges itself (TACHY_DEFER_CLOSER_CONTINUES), the
 * closing threads also take ready connections from the park set, and pool threads step
 * back while they do (see "closers harvest" below).
 */
#include "loop/loop.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sched.h>
#include "tls/tls.h"
#include "ws/ws.h"

/* ---- the ready ring ------------------------------------------------------------------ */

/* The token of the next ready event: the ring's first, else the first resumed
 * connection's. 1 if there was one. */
static int ready_pop(tachy_server *srv, uint64_t *tok) {
    struct tachy__loop *p = srv->loop;
    if (__atomic_load_n(&p->ready_count, __ATOMIC_RELAXED) == 0 &&
        __atomic_load_n(&p->nresumed, __ATOMIC_RELAXED) == 0)
        return 0; /* cheap check first: usually empty when there is no backlog */
    int got = 0;
    pthread_mutex_lock(&p->ready_lock);
    if (p->ready_count > 0) {
        *tok = p->ready[p->ready_head];
        p->ready_head = (p->ready_head + 1) % p->ready_cap;
        __atomic_store_n(&p->ready_count, p->ready_count - 1, __ATOMIC_RELAXED);
        got = 1;
    } else if (p->resumed_head) {
        tachy__conn *c = p->resumed_head;
        p->resumed_head = c->next_ready;
        if (!p->resumed_head)
            p->resumed_tail = NULL;
        c->next_ready = NULL;
        c->in_resumed = 0;
        __atomic_store_n(&p->nresumed, p->nresumed - 1, __ATOMIC_RELAXED);
        /* Its token as an event would carry it; a stale one (closed since) is ignored. */
        *tok = (uint64_t)(uint32_t)tachy__st_gen(atomic_load(&c->state)) << 32 | c->slot;
        got = 1;
    }
    pthread_mutex_unlock(&p->ready_lock);
    return got;
}

/* The next job, or NULL (cheap check first: usually there is none). */
static tachy__job *job_pop(struct tachy__loop *p) {
    if (__atomic_load_n(&p->njobs, __ATOMIC_RELAXED) == 0)
        return NULL;
    pthread_mutex_lock(&p->ready_lock);
    tachy__job *j = p->jobs_head;
    if (j) {
        p->jobs_head = j->next;
        if (!p->jobs_head)
            p->jobs_tail = NULL;
        __atomic_store_n(&p->njobs, p->njobs - 1, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&p->ready_lock);
    return j;
}

void tachy__loop_post(tachy_server *srv, tachy__job *job, int wake) {
    struct tachy__loop *p = srv->loop;
    tachy__job *last = job;
    size_t n = 1;
    for (; last->next; last = last->next)
        n++;
    pthread_mutex_lock(&p->ready_lock);
    if (p->jobs_tail)
        p->jobs_tail->next = job;
    else
        p->jobs_head = job;
    p->jobs_tail = last;
    __atomic_store_n(&p->njobs, p->njobs + n, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&p->ready_lock);
    if (!wake)
        return;
    uint64_t one = 1;
    if (write(p->kickfd, &one, sizeof one) < 0 && errno != EAGAIN)
        tachy__log(srv, TACHY_LOG_WARNING, "eventfd write: %s", strerror(errno));
    tachy__loop_blocking(srv);
}

/* An event's token, with HUP_BIT when it reported the peer's shutdown. */
static uint64_t ev_token(const struct epoll_event *ev) {
    uint64_t tok = ev->data.u64;
    if (tok != WAKE_TOKEN && tok != LISTEN_TOKEN && tok != TIMER_TOKEN && tok != KICK_TOKEN &&
        (ev->events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)))
        tok |= HUP_BIT;
    return tok;
}

void tachy__loop_ready_push(tachy_server *srv, const struct epoll_event *ev, int n) {
    pthread_mutex_lock(&srv->loop->ready_lock);
    for (int i = 0; i < n; i++) {
        if (ev[i].data.u64 == WAKE_TOKEN || srv->loop->ready_count == srv->loop->ready_cap)
            continue; /* a full ring cannot happen: batches are sized to its free space */
        srv->loop->ready[(srv->loop->ready_head + srv->loop->ready_count) % srv->loop->ready_cap] = ev_token(&ev[i]);
        __atomic_store_n(&srv->loop->ready_count, srv->loop->ready_count + 1, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&srv->loop->ready_lock);
}

static uint32_t ready_space(tachy_server *srv) {
    return srv->loop->ready_cap - __atomic_load_n(&srv->loop->ready_count, __ATOMIC_RELAXED);
}

/* ---- threads ------------------------------------------------------------------------- */

static void *worker_main(void *arg);

/* Starts a pool thread (lock held). */
int tachy__loop_spawn_worker(tachy_server *srv) {
    tachy__thread *t = calloc(1, sizeof *t);
    if (!t)
        return TACHY_ENOMEM;
    t->srv = srv;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    if (srv->opt.thread_stack_size)
        pthread_attr_setstacksize(&attr, srv->opt.thread_stack_size);
    atomic_fetch_add(&srv->refs, 1);
    int rc = pthread_create(&t->tid, &attr, worker_main, t);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        atomic_fetch_sub(&srv->refs, 1);
        free(t);
        tachy__log(srv, TACHY_LOG_ERROR, "cannot start a connection thread: %s", strerror(rc));
        return TACHY_ESYS;
    }
    t->next = srv->loop->threads;
    srv->loop->threads = t;
    srv->loop->nthreads++;
    return 0;
}

/* Joins pool threads that have exited (lock held; they no longer need it). */
void tachy__loop_reap(tachy_server *srv) {
    for (tachy__thread **pp = &srv->loop->threads; *pp;) {
        tachy__thread *t = *pp;
        if (t->done && !t->detached) {
            pthread_join(t->tid, NULL);
            *pp = t->next;
            free(t);
        } else {
            pp = &t->next;
        }
    }
}

/* Makes sure someone will take events: wakes a spare or starts a thread (lock held). */
void tachy__loop_ensure_waiter(tachy_server *srv) {
    if (srv->loop->nspare > 0)
        pthread_cond_signal(&srv->loop->spare_cond);
    else
        tachy__loop_spawn_worker(srv);
}

void tachy__loop_accept_some(tachy_server *srv);

static void step_wake(struct tachy__loop *p);

/* ---- closers harvest the park set ---------------------------------------------------- */

/*
 * A closer (the thread that closed an exchange deferred with TACHY_DEFER_CLOSER_CONTINUES)
 * continues its own connection; closing with TACHY_CLOSE_HARVEST (the JNI bridge does on
 * virtual threads) it then takes up to HARVEST_BATCH more ready connections from the park
 * set, without waiting (epoll_wait with a zero timeout), and serves them the same way:
 * read what is there, dispatch the requests (their handlers only hand off again), park.
 * A harvest that served n connections makes its thread skip the next n - 1 harvests
 * (tl_harvest_skip): the connections it served close again about then, so one look per
 * batch is enough. Looking at every close cost one epoll_wait per request under load;
 * skipping cut the CPU per request by 5-20 % in alternating rounds at 64 and 1,024
 * connections with the same p99 (bench/README "Executors"). An earlier attempt (counting
 * events, not connections served) seemed to stretch the tail to seconds at 1,024
 * connections; that tail was a ForkJoinPool serving one submission queue while the others
 * waited - it was there with no harvest at all - which the provider now avoids by running
 * exchanges oldest first (TachyHttpServer.run).
 *
 * Under load the executor's threads thus keep themselves fed and no pool thread wakes for
 * each batch of requests - a wake-up that, with as many busy threads as CPUs, preempts an
 * executor's thread: two context switches that cost more than the request. A pool of
 * platform threads gains nothing: its execute() wakes a worker for every task anyway, and
 * the harvests' epoll_wait calls and the pool threads' 1 ms waits made the fixed pool ~5 %
 * slower (measured), so the bridge closes those without it.
 *
 * That only works if pool threads are not waiting in the park set meanwhile: the kernel
 * would hand every event to them first. So a pool thread steps back (step_back) while
 * closers harvest: it waits on step_cond instead of in epoll_wait, for STEP_BACK_MS at a
 * time, and goes back to epoll_wait as soon as no harvest happened during its wait (every
 * executor thread is busy in a long handler, or blocked), when no exchange whose closer
 * harvests is in flight any more, or when it is woken (step_wake): something only a pool
 * thread can serve is ready (a listening socket, a timer, a WebSocket, a step that may
 * block), or a thread is about to block. So an event waits at most about STEP_BACK_MS for
 * a thread; normally it waits for the next close on a busy executor thread.
 *
 * Only a harvest that found something counts (p->harvests): one that found the park set
 * empty says the pool threads are keeping up, and stepping back for it bought nothing but
 * a round trip. Nor does a pool thread step back for a single exchange in flight
 * (STEP_BACK_MIN_LENT): its closer harvests once and, being the last, wakes the thread
 * again (harvest_done) - two context switches for a hand-off nobody needed. At a paced rate (HttpArena's latency-10k: 1,024 connections, one request
 * every 100 µs, each alone) every close harvested nothing and was the last in flight, so
 * for every request the pool thread stepped back, was woken by harvest_done and went back
 * to epoll_wait: 5 context switches per request on one core where a hand-off needs 2, and
 * the tail that comes with being scheduled that often on a shared core (bench/README.md,
 * "Where the Java provider's tail waited"). step_wake also broadcasts after unlocking
 * step_lock: a thread it wakes on the same core runs at once and would only block on the
 * lock the waker still holds (a futex wait and wake more per wake-up).
 *
 * Nor does a closer look when it is the last exchange in flight and its thread's previous
 * look found nothing (tl_harvest_empty): the pool threads are then waiting in epoll_wait
 * themselves, so the look can only find what they would be woken for anyway. At the paced
 * rate every close was such a look: one empty epoll_wait per request (perf stat, 1,024
 * connections at 10k req/s: 1.93 epoll_wait per request with virtual threads against 0.95
 * without an executor). A look that finds something, or another exchange in flight, starts
 * the harvests again.
 */
#define HARVEST_BATCH 8
#define STEP_BACK_MS 1
#define STEP_BACK_MIN_LENT 2 /* exchanges in flight whose closers harvest (see above) */

static __thread int tl_harvesting;   /* a harvest is running on this thread (no nesting) */
static __thread int tl_harvest_skip; /* harvests this thread skips (see above) */
static __thread int tl_harvest_empty; /* this thread's last harvest found nothing (see above) */

/* Wakes the pool threads that stepped back: they go to epoll_wait (once at least). */
static void step_wake(struct tachy__loop *p) {
    if (atomic_load(&p->nstepback) == 0)
        return;
    pthread_mutex_lock(&p->step_lock);
    p->step_gen++;
    pthread_mutex_unlock(&p->step_lock);
    /* After the unlock (see above). Nothing is lost: a thread stepping back holds step_lock
     * from its check to its wait, so one that read the old step_gen is waiting by now. */
    pthread_cond_broadcast(&p->step_cond);
}

/* Pool thread, before epoll_wait: steps back if closers harvested since *seen and one may
 * still harvest. 1 if it stepped back and should look again, 0 to go to epoll_wait. */
static int step_back(tachy_server *srv, uint64_t *seen) {
    struct tachy__loop *p = srv->loop;
    uint64_t h = atomic_load_explicit(&p->harvests, memory_order_relaxed);
    if (h == *seen) {
        return 0;
    }
    *seen = h;
    pthread_mutex_lock(&p->step_lock);
    /* Seen beside the closer's check in harvest_done (both sequentially consistent): either
     * it sees us stepping back and wakes us, or we see no exchange left to harvest after. */
    atomic_fetch_add(&p->nstepback, 1);
    int woken = 0;
    if (atomic_load(&srv->lent_closers) >= STEP_BACK_MIN_LENT &&
        atomic_load(&srv->state) == TACHY__SRV_STARTED) {
        uint64_t gen = p->step_gen;
        tachy__cond_wait_ms(&p->step_cond, &p->step_lock, STEP_BACK_MS);
        woken = p->step_gen != gen;
    } else {
        woken = 1;
    }
    atomic_fetch_sub(&p->nstepback, 1);
    pthread_mutex_unlock(&p->step_lock);
    if (woken) {
        /* Go to epoll_wait now, whatever the harvests do meanwhile. */
        *seen = UINT64_MAX;
        return 0;
    }
    return 1;
}

/* Hands tokens a closer may not serve to the pool threads. */
static void harvest_handoff(tachy_server *srv, const struct epoll_event *ev, int n) {
    tachy__loop_ready_push(srv, ev, n);
    uint64_t one = 1;
    if (write(srv->loop->kickfd, &one, sizeof one) < 0 && errno != EAGAIN)
        tachy__log(srv, TACHY_LOG_WARNING, "eventfd write: %s", strerror(errno));
    step_wake(srv->loop);
}

/* After a closer's run (harvest_done: the caller's lent exchange is over): takes ready
 * connections from the park set and serves them on this thread. */
static void harvest(tachy_server *srv) {
    struct tachy__loop *p = srv->loop;
    if (tl_harvesting || srv->tls || atomic_load(&srv->state) != TACHY__SRV_STARTED)
        return; /* TLS: every step may wait (conn.c leaves it to a pool thread) */
    if (tl_harvest_skip > 0) {
        tl_harvest_skip--;
        return;
    }
    if (tl_harvest_empty && atomic_load(&srv->lent_closers) == 0)
        return; /* alone, and the last look was empty: the pool threads are waiting (above) */
    tl_harvesting = 1;
    int served = 0;
    struct epoll_event evs[HARVEST_BATCH];
    int n = epoll_wait(p->epfd, evs, HARVEST_BATCH, 0);
    tl_harvest_empty = n <= 0;
    if (n > 0) /* an empty look is not a reason for pool threads to step back (see above) */
        atomic_fetch_add_explicit(&p->harvests, 1, memory_order_relaxed);
    for (int i = 0; i < n; i++) {
        uint64_t tok = ev_token(&evs[i]);
        if (tok == WAKE_TOKEN)
            continue; /* level-triggered: the pool threads see it too */
        if (tok == LISTEN_TOKEN || tok == TIMER_TOKEN || tok == KICK_TOKEN) {
            harvest_handoff(srv, &evs[i], 1);
            continue;
        }
        tachy__conn *c = tachy__loop_claim(srv, (uint32_t)(tok & ~HUP_BIT), (uint32_t)(tok >> 32), 1,
                                           (tok & HUP_BIT) != 0);
        if (!c)
            continue; /* stale, or its owner reads again */
        atomic_fetch_add_explicit(&p->progress, 1, memory_order_relaxed);
        if (__builtin_expect(p->ws_of[c->slot] != NULL, 0))
            tachy__loop_requeue(c); /* a WebSocket's callbacks may block: a pool thread's */
        else {
            tachy__loop_run(c, 1);
            served++;
        }
    }
    tl_harvest_skip = served > 1 ? served - 1 : 0;
    tl_harvesting = 0;
}

/* A closer is done: if no exchange is left whose close would harvest, the pool threads
 * that stepped back must wait in the park set again. */
static void harvest_done(tachy_server *srv) {
    if (atomic_load(&srv->lent_closers) == 0)
        step_wake(srv->loop);
}

void tachy__loop_resume(tachy__conn *c, int here, int harvest_too) {
    if (!here) {
        tachy__loop_requeue(c);
        return;
    }
    tachy_server *srv = c->srv; /* c may be another thread's once run */
    if (tachy__loop_run(c, 1) && harvest_too)
        harvest(srv); /* c parked: no more of its requests are buffered */
    harvest_done(srv);
}

/* Serves one event token: the listening socket's, or a parked connection's. */
static void serve_token(tachy_server *srv, uint64_t tok) {
    if (tok == LISTEN_TOKEN) {
        tachy__loop_accept_some(srv);
        return;
    }
    if (tok == TIMER_TOKEN) {
        tachy__loop_timers_run(srv);
        return;
    }
    if (tok == KICK_TOKEN)
        return; /* the loop takes what was put in the ready ring */
    tachy__conn *c = tachy__loop_claim(srv, (uint32_t)(tok & ~HUP_BIT), (uint32_t)(tok >> 32), 1,
                                       (tok & HUP_BIT) != 0);
    if (c)
        tachy__loop_serve(srv, c);
}

static void *worker_main(void *arg) {
    tachy__thread *self = arg;
    tachy_server *srv = self->srv;
    char name[16];
    static atomic_uint thread_seq;
    snprintf(name, sizeof name, "tachy-conn-%u", atomic_fetch_add(&thread_seq, 1) + 1);
    pthread_setname_np(pthread_self(), name);
    if (srv->opt.on_thread_start)
        srv->opt.on_thread_start(srv->opt.thread_hook_user, name);
    long keepalive = srv->opt.thread_keepalive_ms > 0 ? srv->opt.thread_keepalive_ms : 1;

    struct epoll_event evs[BATCH];
    uint64_t harvests_seen = 0;
    for (;;) {
        /* Jobs first, and even while stopping: each holds a stream, and through it a
         * connection, that only its run lets go of. */
        tachy__job *job = job_pop(srv->loop);
        if (job) {
            atomic_fetch_add_explicit(&srv->loop->progress, 1, memory_order_relaxed);
            job->run(job);
            continue;
        }
        if (atomic_load(&srv->state) != TACHY__SRV_STARTED)
            break;
        uint64_t tok;
        if (ready_pop(srv, &tok)) {
            /* An event another thread took in its batch: serve it without a syscall. */
            atomic_fetch_add_explicit(&srv->loop->progress, 1, memory_order_relaxed);
            serve_token(srv, tok);
            continue;
        }
        if (atomic_load(&srv->loop->nwaiting) >= srv->loop->max_waiters) {
            /* Enough threads wait for events: be a spare until the watchdog needs us. */
            pthread_mutex_lock(&srv->lock);
            int timed_out = 0;
            if (atomic_load(&srv->state) == TACHY__SRV_STARTED &&
                atomic_load(&srv->loop->nwaiting) >= srv->loop->max_waiters) {
                srv->loop->nspare++;
                timed_out = tachy__cond_wait_ms(&srv->loop->spare_cond, &srv->lock, keepalive) ==
                            ETIMEDOUT;
                srv->loop->nspare--;
            }
            pthread_mutex_unlock(&srv->lock);
            if (timed_out)
                break;
            continue;
        }
        if (step_back(srv, &harvests_seen))
            continue; /* closers take the events meanwhile */
        int max = (int)TACHY__MIN((uint32_t)BATCH, ready_space(srv) + 1);
        atomic_fetch_add(&srv->loop->nwaiting, 1);
        int n = epoll_wait(srv->loop->epfd, evs, max, (int)keepalive);
        int others = atomic_fetch_sub(&srv->loop->nwaiting, 1) - 1;
        if (n < 0) {
            if (errno == EINTR)
                continue;
            tachy__log(srv, TACHY_LOG_ERROR, "epoll_wait: %s", strerror(errno));
            break;
        }
        if (n == 0) {
            if (others > 0)
                break; /* idle for a keep-alive period and not the last waiter: exit */
            continue;
        }
        /* Keep the first event, share the rest through the ready ring. */
        if (n > 1)
            tachy__loop_ready_push(srv, evs + 1, n - 1);
        if (evs[0].data.u64 == WAKE_TOKEN)
            continue; /* stop(): the loop head sees the state */
        atomic_fetch_add_explicit(&srv->loop->progress, 1, memory_order_relaxed);
        serve_token(srv, ev_token(&evs[0]));
    }

    tachy__ws_thread_end(); /* the WebSocket read buffer this thread lent (ws/reader.c) */
    if (srv->opt.on_thread_stop)
        srv->opt.on_thread_stop(srv->opt.thread_hook_user);
    /* Counted down only now, so stop() returns after every stop hook has run (the JNI
     * bridge detaches the thread from the JVM there). */
    pthread_mutex_lock(&srv->lock);
    srv->loop->nthreads--;
    self->done = 1; /* the record is joined and freed by tachy__loop_reap() or loop_free() */
    pthread_cond_broadcast(&srv->cond);
    pthread_mutex_unlock(&srv->lock);
    tachy__server_release(srv);
    return NULL;
}

void tachy__loop_blocking(tachy_server *srv) {
    struct tachy__loop *p = srv->loop;
    if (atomic_load(&p->nwaiting) > 0) {
        /* A thread waits in epoll_wait - but it never looks at the ready ring while it
         * waits there. Events this thread took in its batch (and left in the ring) would
         * sit there, behind a handler that may wait for as long as its peer likes, until
         * the watchdog's next tick: kick a waiter so that it takes them now. */
        if (__atomic_load_n(&p->ready_count, __ATOMIC_RELAXED) > 0 ||
            __atomic_load_n(&p->njobs, __ATOMIC_RELAXED) > 0) {
            uint64_t one = 1;
            if (write(p->kickfd, &one, sizeof one) < 0 && errno != EAGAIN)
                tachy__log(srv, TACHY_LOG_WARNING, "eventfd write: %s", strerror(errno));
        }
        return;
    }
    if (atomic_load(&srv->loop->nstepback) > 0) {
        step_wake(srv->loop); /* a thread that stepped back (harvest) waits again */
        return;
    }
    pthread_mutex_lock(&srv->lock);
    if (atomic_load(&srv->state) == TACHY__SRV_STARTED && atomic_load(&srv->loop->nwaiting) == 0)
        tachy__loop_ensure_waiter(srv);
    pthread_mutex_unlock(&srv->lock);
}

