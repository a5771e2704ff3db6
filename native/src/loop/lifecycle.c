/*
 * loop/lifecycle.c - HttpServer.start and HttpServer.stop(delay): creating the pool (park
 * set, tables, watchdog), stopping it in the JDK's order (refuse new connections, close
 * idle ones, wait at most delay for active exchanges, close the rest, wait for the
 * threads), and freeing it with the server's last reference.
 */
#include "loop/loop.h"
#include "h2/h2.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <sys/mman.h>

/* ---- start, stop, free --------------------------------------------------------------- */

static void loop_free(tachy_server *srv);

/* Creates the pool: the park set, the tables and the watchdog. Lock held. 0 or TACHY_E*;
 * on failure what was made is freed with the server (srv->loop_free). */
static int pool_start(tachy_server *srv) {
    srv->loop = calloc(1, sizeof *srv->loop);
    if (!srv->loop)
        return TACHY_ENOMEM;
    srv->loop->epfd = srv->loop->wakefd = srv->loop->kickfd = srv->loop->timerfd = -1;
    srv->loop_free = loop_free;
    srv->loop_blocking = tachy__loop_blocking;
    srv->loop_exchange_closed = tachy__loop_exchange_closed;
    srv->loop_post = tachy__loop_post;
    /* HTTP/2 when asked for and libnghttp2 can be loaded (else HTTP/1.1, said once). */
    srv->h2_ok = srv->opt.http2 != 0 && tachy__h2_available() == 0;
    srv->loop_requeue = tachy__loop_requeue;
    srv->loop_timer_schedule = tachy_timer_schedule;
    srv->loop_timer_cancel = tachy_timer_cancel;
    srv->loop->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (srv->loop->epfd < 0)
        return TACHY_ESYS;
    srv->loop->wakefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    struct epoll_event ev = {EPOLLIN, {.u64 = WAKE_TOKEN}}; /* level-triggered: wakes all */
    if (srv->loop->wakefd < 0 || epoll_ctl(srv->loop->epfd, EPOLL_CTL_ADD, srv->loop->wakefd, &ev) < 0) {
        if (srv->loop->wakefd >= 0)
            close(srv->loop->wakefd);
        close(srv->loop->epfd);
        srv->loop->epfd = srv->loop->wakefd = -1;
        return TACHY_ESYS;
    }
    /* Edge-triggered: each write is one event for one waiter; never read (a counter that
     * cannot reach its 2^64 - 2 ceiling). */
    srv->loop->kickfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    struct epoll_event kev = {EPOLLIN | EPOLLET, {.u64 = KICK_TOKEN}};
    if (srv->loop->kickfd < 0 || epoll_ctl(srv->loop->epfd, EPOLL_CTL_ADD, srv->loop->kickfd, &kev) < 0)
        return TACHY_ESYS; /* freed with the pool */
    cpu_set_t set;
    srv->loop->max_waiters = 1;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 1)
        srv->loop->max_waiters = CPU_COUNT(&set);
    /* Both tables are mapped, not malloc'ed: zero pages that cost no memory until used
     * (an idle server stays small; a calloc from the heap may touch every page). */
    void *slots = mmap(NULL, TACHY__SLOT_CHUNKS * sizeof *srv->loop->slots, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    void *ready = mmap(NULL, READY_CAP * sizeof *srv->loop->ready, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    srv->loop->slots = slots == MAP_FAILED ? NULL : slots;
    srv->loop->ready = ready == MAP_FAILED ? NULL : ready;
    if (!srv->loop->slots || !srv->loop->ready)
        return TACHY_ENOMEM;
    void *wsof = mmap(NULL, (size_t)TACHY__SLOT_CHUNKS * TACHY__SLOT_CHUNK * sizeof *srv->loop->ws_of,
                      PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    srv->loop->ws_of = wsof == MAP_FAILED ? NULL : wsof;
    if (!srv->loop->ws_of)
        return TACHY_ENOMEM;
    srv->loop->ready_cap = READY_CAP;
    int trc = tachy__loop_timers_init(srv);
    if (trc < 0)
        return trc;
    pthread_mutex_init(&srv->loop->ready_lock, NULL);
    tachy__cond_init(&srv->loop->spare_cond);
    tachy__cond_init(&srv->loop->wd_cond);
    pthread_mutex_init(&srv->loop->step_lock, NULL);
    tachy__cond_init(&srv->loop->step_cond);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    int rc = pthread_create(&srv->loop->watchdog, &attr, tachy__loop_watchdog_main, srv);
    pthread_attr_destroy(&attr);
    if (rc != 0)
        return TACHY_ESYS;
    srv->loop->watchdog_started = 1;
    return 0;
}

static int count_in_handler(tachy_server *srv) {
    int n = 0;
    for (tachy__conn *c = srv->loop->conns; c; c = c->next)
        n += atomic_load(&c->in_handler) ? 1 : 0;
    return n;
}

static void wait_tick(tachy_server *srv, long ms) {
    tachy__cond_wait_ms(&srv->cond, &srv->lock, ms);
}

/* stop(delay) steps 2-4: closes parked connections, waits at most delay_seconds for the
 * others, closes everything, wakes and waits for every pool thread. Lock held. */
static void pool_stop(tachy_server *srv, int delay_seconds) {
    if (!srv->loop || (srv->loop->epfd < 0 && !srv->loop->watchdog_started))
        return; /* never started */
    /* Parked connections are idle: close them now. Owned ones close when they next park
     * (tachy__loop_park refuses once the state is not STARTED). */
    tachy__loop_sweep(srv, 1);
    long deadline = tachy__now_ms() + (long)delay_seconds * 1000;
    while (srv->loop->nconns > 0 && tachy__now_ms() < deadline) {
        wait_tick(srv, 10);
        tachy__loop_sweep(srv, 1);
    }
    /* Close everything: threads blocked in socket I/O return at once. A thread inside a
     * handler that ignores its closed socket is not waited for beyond that ("at most
     * delay"); it holds a reference on the server, so nothing it uses is freed under it. */
    for (tachy__conn *c = srv->loop->conns; c; c = c->next)
        if (atomic_exchange(&c->shut, 1) == 0)
            shutdown(c->fd, SHUT_RDWR);
    tachy__loop_sweep(srv, 1);
    while (srv->loop->nconns > count_in_handler(srv)) {
        wait_tick(srv, 10);
        tachy__loop_sweep(srv, 1);
    }
    /* Wake every pool thread (waiters through the eventfd, spares through the condvar) and
     * the watchdog, and wait for the threads not tied up in handlers. */
    uint64_t one = 1;
    if (write(srv->loop->wakefd, &one, sizeof one) < 0)
        tachy__log(srv, TACHY_LOG_WARNING, "eventfd write: %s", strerror(errno));
    pthread_cond_broadcast(&srv->loop->spare_cond);
    pthread_cond_broadcast(&srv->loop->wd_cond);
    if (srv->loop->watchdog_started) {
        pthread_mutex_unlock(&srv->lock);
        pthread_join(srv->loop->watchdog, NULL);
        pthread_mutex_lock(&srv->lock);
        srv->loop->watchdog_started = 0;
    }
    while (srv->loop->nthreads > count_in_handler(srv)) {
        pthread_cond_broadcast(&srv->loop->spare_cond);
        wait_tick(srv, 10);
    }
    /* No pool thread runs a timer any more: drop the pending ones. */
    tachy__loop_timers_close(srv);
    /* Join every thread that has exited; the few still inside handlers are detached
     * (each holds a server reference, so the server outlives them). */
    tachy__loop_reap(srv);
    for (tachy__thread *t = srv->loop->threads; t; t = t->next) {
        if (!t->done && !t->detached) {
            pthread_detach(t->tid);
            t->detached = 1;
        }
    }
}

/* Frees the pool with the server's last reference (no pool thread is left). */
static void loop_free(tachy_server *srv) {
    if (!srv->loop)
        return;
    while (srv->loop->threads) {
        tachy__thread *t = srv->loop->threads;
        srv->loop->threads = t->next;
        free(t);
    }
    if (srv->loop->wakefd >= 0)
        close(srv->loop->wakefd);
    if (srv->loop->kickfd >= 0)
        close(srv->loop->kickfd);
    tachy__loop_timers_free(srv);
    if (srv->loop->ws_of)
        munmap(srv->loop->ws_of, (size_t)TACHY__SLOT_CHUNKS * TACHY__SLOT_CHUNK * sizeof *srv->loop->ws_of);
    if (srv->loop->epfd >= 0) {
        close(srv->loop->epfd);
        pthread_cond_destroy(&srv->loop->spare_cond);
        pthread_cond_destroy(&srv->loop->wd_cond);
        pthread_mutex_destroy(&srv->loop->step_lock);
        pthread_cond_destroy(&srv->loop->step_cond);
    }
    if (srv->loop->ready) {
        pthread_mutex_destroy(&srv->loop->ready_lock);
        munmap(srv->loop->ready, READY_CAP * sizeof *srv->loop->ready);
    }
    for (uint32_t i = 0; srv->loop->slots && i < TACHY__SLOT_CHUNKS && srv->loop->slots[i]; i++) {
        for (uint32_t j = 0; j < TACHY__SLOT_CHUNK; j++) {
            pthread_mutex_destroy(&srv->loop->slots[i][j].lock);
            pthread_cond_destroy(&srv->loop->slots[i][j].cond);
        }
        free(srv->loop->slots[i]);
    }
    if (srv->loop->slots)
        munmap(srv->loop->slots, TACHY__SLOT_CHUNKS * sizeof *srv->loop->slots);
    free(srv->loop);
    srv->loop = NULL;
}

TACHY_API int tachy_server_connection_count(const tachy_server *srv) {
    if (!srv)
        return TACHY_EINVAL;
    pthread_mutex_lock((pthread_mutex_t *)&srv->lock);
    int n = srv->loop ? srv->loop->nconns : 0;
    pthread_mutex_unlock((pthread_mutex_t *)&srv->lock);
    return n;
}

/* ---- start and stop ------------------------------------------------------------------ */

TACHY_API int tachy_server_start(tachy_server *srv) {
    if (!srv)
        return TACHY_EINVAL;
    pthread_mutex_lock(&srv->lock);
    int rc = 0;
    int st = atomic_load(&srv->state);
    if (st == TACHY__SRV_STARTED)
        rc = TACHY_ESTARTED;
    else if (st != TACHY__SRV_CREATED)
        rc = TACHY_ESTOPPED;
    else if (!srv->bound)
        rc = TACHY_ENOTBOUND;
    if (rc == 0)
        rc = tachy__alog_start(srv); /* edge/accesslog.c: before any thread can log */
    if (rc == 0)
        rc = pool_start(srv);
    if (rc == 0) {
        atomic_store(&srv->state, TACHY__SRV_STARTED);
        rc = tachy__loop_listen(srv);
        if (rc < 0) {
            /* The watchdog is running: stop it the normal way. */
            atomic_store(&srv->state, TACHY__SRV_STOPPING);
            tachy__loop_unlisten(srv);
            pool_stop(srv, 0);
            close(srv->fd);
            srv->fd = -1;
            atomic_store(&srv->state, TACHY__SRV_STOPPED);
        }
    }
    pthread_mutex_unlock(&srv->lock);
    return rc;
}

/* A drain closes idle connections only after this long: a connection in use gets its next
 * request meanwhile - answered with "Connection: close", then closed, which no client can
 * mistake - so what is closed idle is idle indeed, not a connection whose client is
 * sending its next request at that instant (a close it would have to retry); and a new
 * connection's first request, on its way, has time to come. */
#define DRAIN_IDLE_GRACE_MS 100

/* Waits for a stop that another caller has begun to finish. Lock held. */
static void wait_stopped(tachy_server *srv) {
    while (atomic_load(&srv->state) != TACHY__SRV_STOPPED)
        pthread_cond_wait(&srv->cond, &srv->lock);
}

/*
 * stop(delay) and drain(timeout): the steps in order (each one's comment below). With
 * drain, the graceful steps (0-2) run for at most timeout_ms; without it (stop(0)) idle
 * connections are closed at once and nothing in progress is waited for.
 */
static int stop_server(tachy_server *srv, long timeout_ms, int drain) {
    pthread_mutex_lock(&srv->lock);
    int st = atomic_load(&srv->state);
    if (st == TACHY__SRV_STOPPED || st == TACHY__SRV_STOPPING ||
        (st == TACHY__SRV_STARTED && atomic_load(&srv->draining))) {
        /* Second stop: wait for the first to finish, then succeed. */
        wait_stopped(srv);
        pthread_mutex_unlock(&srv->lock);
        return 0;
    }
    long deadline = tachy__now_ms() + timeout_ms;
    /* 0. The listening socket's queue is accepted and served first (within the delay),
     * not reset by the shutdown (accept.c, tachy__loop_drain_backlog): with SO_REUSEPORT
     * those connections were hashed to this socket; without it, a balancer's connect has
     * succeeded and its request is on the way - it would not retry it. */
    if (drain && st == TACHY__SRV_STARTED) {
        /* Set first: pool threads accept nothing more (accept.c), every response head from
         * here on says "Connection: close" (http/response.c), and a second stop waits (the
         * lock is let go). The state stays STARTED: connections still park, are served,
         * requeued. */
        atomic_store(&srv->draining, 1);
        tachy__loop_drain_backlog(srv, deadline);
        /* 1. Stop accepting. */
        tachy__loop_unlisten(srv);
        /* 2. Until every connection is gone or the deadline: exchanges in progress
         * finish; requests already in a socket are served; parked WebSockets are sent
         * 1001; idle connections are closed, after the grace (loop/states.c,
         * tachy__loop_drain_step). */
        long began = tachy__now_ms();
        for (;;) {
            long now = tachy__now_ms();
            tachy__loop_drain_step(srv, now - began >= DRAIN_IDLE_GRACE_MS || now >= deadline);
            if (srv->loop->nconns == 0 || tachy__now_ms() >= deadline)
                break;
            wait_tick(srv, 5);
        }
    }
    atomic_store(&srv->state, TACHY__SRV_STOPPING);
    /* 3. Stop accepting at once (new connections are refused from here on). */
    tachy__loop_unlisten(srv);
    /* 4. Idle connections now, active ones within the delay (a drain has used it: none),
     * then threads. */
    long left = drain ? 0 : deadline - tachy__now_ms();
    pool_stop(srv, left > 0 ? (int)((left + 999) / 1000) : 0);
    if (srv->fd >= 0) {
        close(srv->fd);
        srv->fd = -1;
    }
    /* 5. The access log's queued lines are written (its writer runs until the server is
     * freed: a handler still running logs too). */
    tachy__alog_flush(srv, 1000);
    atomic_store(&srv->state, TACHY__SRV_STOPPED);
    pthread_cond_broadcast(&srv->cond);
    pthread_mutex_unlock(&srv->lock);
    return 0;
}

TACHY_API int tachy_server_stop(tachy_server *srv, int delay_seconds) {
    if (!srv || delay_seconds < 0)
        return TACHY_EINVAL;
    return stop_server(srv, (long)delay_seconds * 1000, delay_seconds > 0);
}

TACHY_API int tachy_server_drain(tachy_server *srv, long timeout_ms) {
    if (!srv || timeout_ms < 0)
        return TACHY_EINVAL;
    return stop_server(srv, timeout_ms, timeout_ms > 0);
}

/* HttpServer has no destroy; here the user's reference goes: stop(0) first (the running
 * server is this folder's), then the server's memory once the last reference is gone. */
TACHY_API void tachy_server_destroy(tachy_server *srv) {
    if (!srv)
        return;
    tachy_server_stop(srv, 0);
    tachy__server_release(srv);
}
