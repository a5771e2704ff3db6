/*
 * pool.c - connection threads, the park set and the watchdog.
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
 * Ownership is one atomic word per connection (conn.h): PARKED -> OWNED by a CAS, so an
 * event can be claimed by one thread only; an event that arrives while the connection is
 * OWNED marks it PENDING, and the owner reads again instead of parking. Events carry the
 * connection's slot and generation: slots are reused but never freed while the server
 * lives, so a stale event is detected, never a use-after-free.
 *
 * Threads: at most max_waiters threads (the CPUs this process may run on) wait in the park
 * set; others wait as spares. Because a handler may block for as long as it likes, a
 * watchdog checks every few milliseconds that someone is waiting for events or has taken
 * one since the last check; if not, it wakes a spare or starts a thread. The watchdog also
 * closes parked connections whose idle or request-head deadline has passed.
 */
#include "conn.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stddef.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#define WAKE_TOKEN UINT64_MAX
/* Set in a connection's token (in the slot half, above any slot number) when its event
 * reported the peer's shutdown (EPOLLRDHUP/HUP/ERR). A request and the FIN behind it can
 * arrive before one epoll_wait and come as one edge: the read returns the request, and
 * without this bit nothing would ever report the FIN again. */
#define HUP_BIT ((uint64_t)1 << 31)
#define LISTEN_TOKEN (UINT64_MAX - 1)
#define ACCEPT_BATCH 64   /* connections accepted per listening-socket event */
#define TRIM_PEAK 256     /* connections: a burst worth giving memory back after */
#define WATCHDOG_TICK_MS 5
#define BATCH 64          /* events taken per epoll_wait */
#define READY_CAP 4096    /* ring of events waiting for a thread */

long tachy__now_ms(void) {
    /* The coarse clock (jiffy resolution, a few ms) is plenty for timeouts and costs a
     * memory read instead of a TSC read - this runs for every pipelined request. */
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void deadline_in(struct timespec *ts, long ms) {
    clock_gettime(CLOCK_REALTIME, ts);
    ts->tv_sec += ms / 1000;
    ts->tv_nsec += (ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

static inline uint64_t st_gen(uint64_t s) { return s >> 2; }
static inline unsigned st_kind(uint64_t s) { return (unsigned)(s & 3); }
static inline uint64_t st_make(uint64_t gen, unsigned kind) { return gen << 2 | kind; }

static tachy__conn *slot_conn(tachy_server *srv, uint32_t slot) {
    tachy__conn *chunk = __atomic_load_n(&srv->slots[slot / TACHY__SLOT_CHUNK], __ATOMIC_ACQUIRE);
    return chunk ? &chunk[slot % TACHY__SLOT_CHUNK] : NULL;
}

/*
 * Tries to take ownership of the connection in slot whose generation is gen32 (the low 32
 * bits). With mark_pending, a connection that is already owned is marked PENDING so that
 * its owner reads again. Returns the connection when the caller now owns it, else NULL.
 */
static tachy__conn *claim(tachy_server *srv, uint32_t slot, uint32_t gen32, int mark_pending,
                          int hup) {
    tachy__conn *c = slot_conn(srv, slot);
    if (!c)
        return NULL;
    if (hup && (uint32_t)st_gen(atomic_load(&c->state)) == gen32)
        atomic_store(&c->peer_hup, 1); /* for us, or for the owner we mark PENDING */
    for (;;) {
        uint64_t s = atomic_load(&c->state);
        if ((uint32_t)st_gen(s) != gen32)
            return NULL;
        switch (st_kind(s)) {
        case TACHY__CONN_PARKED:
            if (atomic_compare_exchange_weak(&c->state, &s, st_make(st_gen(s), TACHY__CONN_OWNED))) {
                if (c->parked_idle) {
                    c->parked_idle = 0;
                    atomic_fetch_sub(&srv->nidle, 1);
                }
                return c;
            }
            break;
        case TACHY__CONN_OWNED:
            if (!mark_pending)
                return NULL;
            if (atomic_compare_exchange_weak(&c->state, &s,
                                             st_make(st_gen(s), TACHY__CONN_PENDING)))
                return NULL;
            break;
        default: /* PENDING already, or FREE */
            return NULL;
        }
    }
}

int tachy__pool_park(tachy__conn *c, int idle, long deadline) {
    tachy_server *srv = c->srv;
    if (atomic_load(&srv->state) != TACHY__SRV_STARTED || atomic_load(&c->shut))
        return -1;
    if (idle) {
        /* maxIdleConnections, counted as the JDK does: once a response is complete. */
        int n = atomic_fetch_add(&srv->nidle, 1);
        if (c->served > 0 && srv->opt.max_idle_connections >= 0 &&
            n >= srv->opt.max_idle_connections) {
            atomic_fetch_sub(&srv->nidle, 1);
            return -1;
        }
        c->parked_idle = 1;
    }
    atomic_store_explicit(&c->deadline, deadline, memory_order_relaxed);
    uint64_t s = atomic_load(&c->state);
    if (st_kind(s) == TACHY__CONN_OWNED &&
        atomic_compare_exchange_strong(&c->state, &s, st_make(st_gen(s), TACHY__CONN_PARKED)))
        return 1; /* c belongs to the park set now: do not touch it */
    /* An event arrived while we owned it: keep it and read again. */
    atomic_store(&c->state, st_make(st_gen(s), TACHY__CONN_OWNED));
    if (c->parked_idle) {
        c->parked_idle = 0;
        atomic_fetch_sub(&srv->nidle, 1);
    }
    return 0;
}

/* Takes a free connection struct (lock held). */
static tachy__conn *conn_alloc(tachy_server *srv) {
    tachy__conn *c = srv->free_conns;
    if (c) {
        srv->free_conns = c->next_free;
        return c;
    }
    if (srv->nslots >= (uint32_t)TACHY__SLOT_CHUNK * TACHY__SLOT_CHUNKS)
        return NULL;
    uint32_t chunk = srv->nslots / TACHY__SLOT_CHUNK;
    if (!srv->slots[chunk]) {
        tachy__conn *arr = calloc(TACHY__SLOT_CHUNK, sizeof *arr);
        if (!arr)
            return NULL;
        for (uint32_t i = 0; i < TACHY__SLOT_CHUNK; i++) {
            pthread_mutex_init(&arr[i].lock, NULL);
            pthread_cond_init(&arr[i].cond, NULL);
            atomic_init(&arr[i].state, st_make(0, TACHY__CONN_FREE));
            arr[i].slot = chunk * TACHY__SLOT_CHUNK + i;
            arr[i].srv = srv;
            arr[i].fd = -1;
        }
        __atomic_store_n(&srv->slots[chunk], arr, __ATOMIC_RELEASE);
    }
    return &srv->slots[chunk][srv->nslots++ % TACHY__SLOT_CHUNK];
}

/* Resets a connection struct for a new socket, keeping its identity (slot, state, sync). */
static void conn_reset(tachy__conn *c) {
    memset(&c->fd, 0, sizeof *c - offsetof(tachy__conn, fd));
    c->fd = -1;
}

void tachy__pool_close(tachy__conn *c) {
    tachy_server *srv = c->srv;
    tachy__conn_cleanup(c);
    pthread_mutex_lock(&srv->lock);
    if (c->prev)
        c->prev->next = c->next;
    else
        srv->conns = c->next;
    if (c->next)
        c->next->prev = c->prev;
    srv->nconns--;
    if (c->parked_idle) {
        c->parked_idle = 0;
        atomic_fetch_sub(&srv->nidle, 1);
    }
    /* Leave the park set explicitly before closing. Merely closing would leave it to the
     * file's last reference, and an epoll_wait in another thread may hold a transient one
     * while it scans ready items (Linux 6.10+); dropped there, the release is deferred
     * until that thread returns to user space - seconds later if it goes back to sleep -
     * and the peer sees no FIN meanwhile. EPOLL_CTL_DEL waits for such a scan to end. */
    epoll_ctl(srv->epfd, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    c->fd = -1;
    /* A new generation: events still in flight for the old socket are ignored. */
    uint64_t s = atomic_load(&c->state);
    atomic_store(&c->state, st_make(st_gen(s) + 1, TACHY__CONN_FREE));
    c->next_free = srv->free_conns;
    srv->free_conns = c;
    pthread_cond_broadcast(&srv->cond);
    pthread_mutex_unlock(&srv->lock);
}

/* ---- the ready ring ------------------------------------------------------------------ */

static int ready_pop(tachy_server *srv, uint64_t *tok) {
    if (__atomic_load_n(&srv->ready_count, __ATOMIC_RELAXED) == 0)
        return 0; /* cheap check first: usually empty when there is no backlog */
    int got = 0;
    pthread_mutex_lock(&srv->ready_lock);
    if (srv->ready_count > 0) {
        *tok = srv->ready[srv->ready_head];
        srv->ready_head = (srv->ready_head + 1) % srv->ready_cap;
        __atomic_store_n(&srv->ready_count, srv->ready_count - 1, __ATOMIC_RELAXED);
        got = 1;
    }
    pthread_mutex_unlock(&srv->ready_lock);
    return got;
}

/* An event's token, with HUP_BIT when it reported the peer's shutdown. */
static uint64_t ev_token(const struct epoll_event *ev) {
    uint64_t tok = ev->data.u64;
    if (tok != WAKE_TOKEN && tok != LISTEN_TOKEN && (ev->events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)))
        tok |= HUP_BIT;
    return tok;
}

static void ready_push(tachy_server *srv, const struct epoll_event *ev, int n) {
    pthread_mutex_lock(&srv->ready_lock);
    for (int i = 0; i < n; i++) {
        if (ev[i].data.u64 == WAKE_TOKEN || srv->ready_count == srv->ready_cap)
            continue; /* a full ring cannot happen: batches are sized to its free space */
        srv->ready[(srv->ready_head + srv->ready_count) % srv->ready_cap] = ev_token(&ev[i]);
        __atomic_store_n(&srv->ready_count, srv->ready_count + 1, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&srv->ready_lock);
}

static uint32_t ready_space(tachy_server *srv) {
    return srv->ready_cap - __atomic_load_n(&srv->ready_count, __ATOMIC_RELAXED);
}

/* ---- threads ------------------------------------------------------------------------- */

static void *worker_main(void *arg);

/* Starts a pool thread (lock held). */
static int spawn_worker(tachy_server *srv) {
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
    t->next = srv->threads;
    srv->threads = t;
    srv->nthreads++;
    return 0;
}

/* Joins pool threads that have exited (lock held; they no longer need it). */
static void reap(tachy_server *srv) {
    for (tachy__thread **pp = &srv->threads; *pp;) {
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
static void ensure_waiter(tachy_server *srv) {
    if (srv->nspare > 0)
        pthread_cond_signal(&srv->spare_cond);
    else
        spawn_worker(srv);
}

static void accept_some(tachy_server *srv);

/* Serves one event token: the listening socket's, or a parked connection's. */
static void serve_token(tachy_server *srv, uint64_t tok) {
    if (tok == LISTEN_TOKEN) {
        accept_some(srv);
        return;
    }
    tachy__conn *c = claim(srv, (uint32_t)(tok & ~HUP_BIT), (uint32_t)(tok >> 32), 1,
                           (tok & HUP_BIT) != 0);
    if (c)
        tachy__conn_run(c);
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
    for (;;) {
        if (atomic_load(&srv->state) != TACHY__SRV_STARTED)
            break;
        uint64_t tok;
        if (ready_pop(srv, &tok)) {
            /* An event another thread took in its batch: serve it without a syscall. */
            atomic_fetch_add_explicit(&srv->progress, 1, memory_order_relaxed);
            serve_token(srv, tok);
            continue;
        }
        if (atomic_load(&srv->nwaiting) >= srv->max_waiters) {
            /* Enough threads wait for events: be a spare until the watchdog needs us. */
            pthread_mutex_lock(&srv->lock);
            int timed_out = 0;
            if (atomic_load(&srv->state) == TACHY__SRV_STARTED &&
                atomic_load(&srv->nwaiting) >= srv->max_waiters) {
                struct timespec ts;
                deadline_in(&ts, keepalive);
                srv->nspare++;
                timed_out = pthread_cond_timedwait(&srv->spare_cond, &srv->lock, &ts) == ETIMEDOUT;
                srv->nspare--;
            }
            pthread_mutex_unlock(&srv->lock);
            if (timed_out)
                break;
            continue;
        }
        int max = (int)TACHY__MIN((uint32_t)BATCH, ready_space(srv) + 1);
        atomic_fetch_add(&srv->nwaiting, 1);
        int n = epoll_wait(srv->epfd, evs, max, (int)keepalive);
        int others = atomic_fetch_sub(&srv->nwaiting, 1) - 1;
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
            ready_push(srv, evs + 1, n - 1);
        if (evs[0].data.u64 == WAKE_TOKEN)
            continue; /* stop(): the loop head sees the state */
        atomic_fetch_add_explicit(&srv->progress, 1, memory_order_relaxed);
        serve_token(srv, ev_token(&evs[0]));
    }

    if (srv->opt.on_thread_stop)
        srv->opt.on_thread_stop(srv->opt.thread_hook_user);
    /* Counted down only now, so stop() returns after every stop hook has run (the JNI
     * bridge detaches the thread from the JVM there). */
    pthread_mutex_lock(&srv->lock);
    srv->nthreads--;
    self->done = 1; /* the record is joined and freed by reap() or pool_free */
    pthread_cond_broadcast(&srv->cond);
    pthread_mutex_unlock(&srv->lock);
    tachy__server_release(srv);
    return NULL;
}

void tachy__pool_long_task(tachy_server *srv) {
    if (atomic_load(&srv->nwaiting) > 0)
        return;
    pthread_mutex_lock(&srv->lock);
    if (atomic_load(&srv->state) == TACHY__SRV_STARTED && atomic_load(&srv->nwaiting) == 0)
        ensure_waiter(srv);
    pthread_mutex_unlock(&srv->lock);
}

/* ---- accepting ---------------------------------------------------------------------- */

/* ---- accepting ----------------------------------------------------------------------- */

/*
 * There is no acceptor thread: the listening socket sits in the park set like a parked
 * connection, and the pool thread that receives its event accepts what is waiting and
 * registers the new connections, whose first requests then come to it (or to another
 * waiter) as ordinary events. A new connection costs no hand-off between threads. The
 * socket options a connection needs (TCP_NODELAY, SO_RCVTIMEO, SO_SNDTIMEO) are set once
 * on the listening socket: Linux copies them into every accepted socket.
 */

/* Puts the listening socket's token in the ready ring: accept again later (a batch was
 * cut short, or accept failed for lack of descriptors). */
static void requeue_listener(tachy_server *srv) {
    struct epoll_event ev = {EPOLLIN, {.u64 = LISTEN_TOKEN}};
    ready_push(srv, &ev, 1);
}

/* Registers an accepted socket as a parked connection; its request (if already there) is
 * reported by EPOLL_CTL_ADD itself, edge-triggered. */
static void adopt(tachy_server *srv, int fd, const struct sockaddr_storage *peer, socklen_t plen) {
    const tachy_options *o = &srv->opt;
    pthread_mutex_lock(&srv->lock);
    if (atomic_load(&srv->state) != TACHY__SRV_STARTED) {
        pthread_mutex_unlock(&srv->lock);
        close(fd);
        return;
    }
    if (o->max_connections > 0 && srv->nconns >= o->max_connections) {
        /* jdk.httpserver.maxConnections: the JDK closes the new connection at once. */
        pthread_mutex_unlock(&srv->lock);
        tachy__log(srv, TACHY_LOG_DEBUG, "connection refused: maxConnections reached");
        close(fd);
        return;
    }
    tachy__conn *c = conn_alloc(srv);
    if (!c) {
        pthread_mutex_unlock(&srv->lock);
        close(fd);
        return;
    }
    conn_reset(c);
    c->fd = fd;
    memcpy(&c->peer, peer, plen);
    c->peer_len = plen;
    c->local_len = 0; /* getsockname() when someone asks (tachy__conn_local) */
    long limit = o->max_req_time_ms > 0 ? o->max_req_time_ms : o->idle_interval_ms;
    atomic_store(&c->deadline, tachy__now_ms() + limit);
    uint64_t gen = st_gen(atomic_load(&c->state));
    atomic_store(&c->state, st_make(gen, TACHY__CONN_PARKED));
    c->next = srv->conns;
    c->prev = NULL;
    if (srv->conns)
        srv->conns->prev = c;
    srv->conns = c;
    srv->nconns++;
    atomic_fetch_add_explicit(&srv->st_connections, 1, memory_order_relaxed);
    struct epoll_event ev = {EPOLLIN | EPOLLRDHUP | EPOLLET,
                             {.u64 = (uint64_t)c->slot | (gen & 0xffffffffu) << 32}};
    if (epoll_ctl(srv->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
        tachy__log(srv, TACHY_LOG_ERROR, "epoll_ctl: %s", strerror(errno));
        atomic_store(&c->state, st_make(gen, TACHY__CONN_OWNED));
        pthread_mutex_unlock(&srv->lock);
        tachy__pool_close(c);
        return;
    }
    pthread_mutex_unlock(&srv->lock);
}

/* The listening socket is readable: accept what waits, at most ACCEPT_BATCH at a time so
 * that connections already open are not starved by a flood of new ones. */
static void accept_some(tachy_server *srv) {
    for (int i = 0; i < ACCEPT_BATCH; i++) {
        if (atomic_load(&srv->state) != TACHY__SRV_STARTED)
            return;
        struct sockaddr_storage peer;
        socklen_t plen = sizeof peer;
        /* Accepted sockets are blocking (no SOCK_NONBLOCK): an owner thread blocks in
         * them, bounded by the timeouts they inherit. */
        int fd = accept4(srv->fd, (struct sockaddr *)&peer, &plen, SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return; /* drained: the next connection brings a new edge */
            if (atomic_load(&srv->state) != TACHY__SRV_STARTED)
                return;
            /* Out of descriptors or memory (or worse): the backlog keeps its connections,
             * and edge-triggered epoll will not report them again, so the watchdog
             * retries at its next tick. */
            tachy__log(srv, TACHY_LOG_WARNING, "accept: %s", strerror(errno));
            atomic_store(&srv->accept_retry, 1);
            return;
        }
        adopt(srv, fd, &peer, plen);
    }
    requeue_listener(srv);
}

int tachy__pool_listen(tachy_server *srv) {
    const tachy_options *o = &srv->opt;
    int one = 1;
    if (o->nodelay)
        setsockopt(srv->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct timeval tv = {o->idle_interval_ms / 1000, (o->idle_interval_ms % 1000) * 1000};
    setsockopt(srv->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (o->max_rsp_time_ms > 0) {
        struct timeval sv = {o->max_rsp_time_ms / 1000, (o->max_rsp_time_ms % 1000) * 1000};
        setsockopt(srv->fd, SOL_SOCKET, SO_SNDTIMEO, &sv, sizeof sv);
    }
    int fl = fcntl(srv->fd, F_GETFL);
    struct epoll_event ev = {EPOLLIN | EPOLLET, {.u64 = LISTEN_TOKEN}};
    if (fl < 0 || fcntl(srv->fd, F_SETFL, fl | O_NONBLOCK) < 0 ||
        epoll_ctl(srv->epfd, EPOLL_CTL_ADD, srv->fd, &ev) < 0)
        return TACHY_ESYS;
    /* The first waiter; the watchdog brings more when handlers keep them busy. */
    return spawn_worker(srv);
}

void tachy__pool_unlisten(tachy_server *srv) {
    if (srv->fd < 0)
        return;
    if (srv->epfd >= 0)
        epoll_ctl(srv->epfd, EPOLL_CTL_DEL, srv->fd, NULL);
    /* New connections are refused from now on; a thread inside accept_some sees EINVAL
     * or the state. The descriptor itself is closed after the pool threads are gone. */
    shutdown(srv->fd, SHUT_RDWR);
}

/* ---- the watchdog -------------------------------------------------------------------- */

/* Claims every parked connection that is past its deadline (or every parked one when
 * all is set) and closes it. Lock held on entry and exit; released while closing. */
static void sweep(tachy_server *srv, int all) {
    tachy__conn *victims = NULL;
    long now = tachy__now_ms();
    for (tachy__conn *c = srv->conns; c; c = c->next) {
        /* An exchange past maxReqTime/maxRspTime: shut the socket down (the lock keeps the
         * descriptor from being closed and reused meanwhile); its thread's next or current
         * I/O fails and the connection closes, as the JDK's timer closes it. */
        long io = atomic_load_explicit(&c->io_deadline, memory_order_relaxed);
        if (io && io <= now && atomic_exchange(&c->shut, 1) == 0) {
            tachy__log(srv, TACHY_LOG_DEBUG, "exchange exceeded its time limit: closing");
            shutdown(c->fd, SHUT_RDWR);
        }
        uint64_t s = atomic_load(&c->state);
        if (st_kind(s) != TACHY__CONN_PARKED)
            continue;
        if (!all && atomic_load_explicit(&c->deadline, memory_order_relaxed) > now)
            continue;
        if (claim(srv, c->slot, (uint32_t)st_gen(s), 0, 0)) {
            c->next_free = victims; /* reused as a scratch link until closed */
            victims = c;
        }
    }
    if (!victims)
        return;
    pthread_mutex_unlock(&srv->lock);
    while (victims) {
        tachy__conn *c = victims;
        victims = c->next_free;
        tachy__pool_close(c);
    }
    pthread_mutex_lock(&srv->lock);
}

/*
 * After a burst of connections has gone (the count fell to a quarter of a peak of at least
 * TRIM_PEAK), gives the freed connection buffers back to the system. glibc keeps freed
 * memory in its arenas and only trims what sits at the top of a heap; buffers freed in
 * the middle stay resident, so a server that once held 4,096 idle connections would keep
 * their ~50 MiB. Lock held; released around the trim (it walks every arena).
 */
static void trim_after_burst(tachy_server *srv, int *peak) {
    if (srv->nconns > *peak)
        *peak = srv->nconns;
#if defined(__GLIBC__)
    if (*peak >= TRIM_PEAK && srv->nconns <= *peak / 4) {
        *peak = srv->nconns;
        pthread_mutex_unlock(&srv->lock);
        malloc_trim(0);
        pthread_mutex_lock(&srv->lock);
    }
#endif
}

static void *watchdog_main(void *arg) {
    tachy_server *srv = arg;
    pthread_setname_np(pthread_self(), "tachy-watchdog");
    const tachy_options *o = &srv->opt;
    long shortest = o->idle_interval_ms;
    if (o->max_req_time_ms > 0 && o->max_req_time_ms < shortest)
        shortest = o->max_req_time_ms;
    if (o->max_rsp_time_ms > 0 && o->max_rsp_time_ms < shortest)
        shortest = o->max_rsp_time_ms;
    long sweep_every = TACHY__MAX(10, TACHY__MIN(1000, shortest / 4));
    long next_sweep = tachy__now_ms() + sweep_every;
    uint64_t last_progress = 0;
    int conn_peak = 0;
    pthread_mutex_lock(&srv->lock);
    while (atomic_load(&srv->state) == TACHY__SRV_STARTED) {
        struct timespec ts;
        deadline_in(&ts, srv->nconns > 0 ? WATCHDOG_TICK_MS : sweep_every);
        pthread_cond_timedwait(&srv->wd_cond, &srv->lock, &ts);
        if (atomic_load(&srv->state) != TACHY__SRV_STARTED)
            break;
        /* Nobody waits for events and nobody took one for a whole tick: every thread is
         * busy (or blocked) in a connection. Bring in another so parked connections with
         * a request waiting are not starved by a slow handler. */
        if (atomic_exchange(&srv->accept_retry, 0))
            requeue_listener(srv); /* accept failed (descriptors or memory): try again */
        uint64_t p = atomic_load_explicit(&srv->progress, memory_order_relaxed);
        int backlog = __atomic_load_n(&srv->ready_count, __ATOMIC_RELAXED) > 0;
        if ((srv->nconns > 0 || backlog) && (backlog || atomic_load(&srv->nwaiting) == 0) &&
            p == last_progress)
            ensure_waiter(srv);
        last_progress = p;
        long now = tachy__now_ms();
        if (now >= next_sweep) {
            sweep(srv, 0);
            reap(srv);
            next_sweep = now + sweep_every;
            trim_after_burst(srv, &conn_peak);
        }
    }
    pthread_mutex_unlock(&srv->lock);
    return NULL;
}

/* ---- start, stop, free --------------------------------------------------------------- */

int tachy__pool_start(tachy_server *srv) {
    srv->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (srv->epfd < 0)
        return TACHY_ESYS;
    srv->wakefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    struct epoll_event ev = {EPOLLIN, {.u64 = WAKE_TOKEN}}; /* level-triggered: wakes all */
    if (srv->wakefd < 0 || epoll_ctl(srv->epfd, EPOLL_CTL_ADD, srv->wakefd, &ev) < 0) {
        if (srv->wakefd >= 0)
            close(srv->wakefd);
        close(srv->epfd);
        srv->epfd = srv->wakefd = -1;
        return TACHY_ESYS;
    }
    cpu_set_t set;
    srv->max_waiters = 1;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 1)
        srv->max_waiters = CPU_COUNT(&set);
    /* Both tables are mapped, not malloc'ed: zero pages that cost no memory until used
     * (an idle server stays small; a calloc from the heap may touch every page). */
    void *slots = mmap(NULL, TACHY__SLOT_CHUNKS * sizeof *srv->slots, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    void *ready = mmap(NULL, READY_CAP * sizeof *srv->ready, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    srv->slots = slots == MAP_FAILED ? NULL : slots;
    srv->ready = ready == MAP_FAILED ? NULL : ready;
    if (!srv->slots || !srv->ready)
        return TACHY_ENOMEM;
    srv->ready_cap = READY_CAP;
    pthread_mutex_init(&srv->ready_lock, NULL);
    pthread_cond_init(&srv->spare_cond, NULL);
    pthread_cond_init(&srv->wd_cond, NULL);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    int rc = pthread_create(&srv->watchdog, &attr, watchdog_main, srv);
    pthread_attr_destroy(&attr);
    if (rc != 0)
        return TACHY_ESYS;
    srv->watchdog_started = 1;
    return 0;
}

static int count_in_handler(tachy_server *srv) {
    int n = 0;
    for (tachy__conn *c = srv->conns; c; c = c->next)
        n += atomic_load(&c->in_handler) ? 1 : 0;
    return n;
}

static void wait_tick(tachy_server *srv, long ms) {
    struct timespec ts;
    deadline_in(&ts, ms);
    pthread_cond_timedwait(&srv->cond, &srv->lock, &ts);
}

void tachy__pool_stop(tachy_server *srv, int delay_seconds) {
    if (srv->epfd < 0 && !srv->watchdog_started)
        return; /* never started */
    /* Parked connections are idle: close them now. Owned ones close when they next park
     * (tachy__pool_park refuses once the state is not STARTED). */
    sweep(srv, 1);
    long deadline = tachy__now_ms() + (long)delay_seconds * 1000;
    while (srv->nconns > 0 && tachy__now_ms() < deadline) {
        wait_tick(srv, 10);
        sweep(srv, 1);
    }
    /* Close everything: threads blocked in socket I/O return at once. A thread inside a
     * handler that ignores its closed socket is not waited for beyond that ("at most
     * delay"); it holds a reference on the server, so nothing it uses is freed under it. */
    for (tachy__conn *c = srv->conns; c; c = c->next)
        if (atomic_exchange(&c->shut, 1) == 0)
            shutdown(c->fd, SHUT_RDWR);
    sweep(srv, 1);
    while (srv->nconns > count_in_handler(srv)) {
        wait_tick(srv, 10);
        sweep(srv, 1);
    }
    /* Wake every pool thread (waiters through the eventfd, spares through the condvar) and
     * the watchdog, and wait for the threads not tied up in handlers. */
    uint64_t one = 1;
    if (write(srv->wakefd, &one, sizeof one) < 0)
        tachy__log(srv, TACHY_LOG_WARNING, "eventfd write: %s", strerror(errno));
    pthread_cond_broadcast(&srv->spare_cond);
    pthread_cond_broadcast(&srv->wd_cond);
    if (srv->watchdog_started) {
        pthread_mutex_unlock(&srv->lock);
        pthread_join(srv->watchdog, NULL);
        pthread_mutex_lock(&srv->lock);
        srv->watchdog_started = 0;
    }
    while (srv->nthreads > count_in_handler(srv)) {
        pthread_cond_broadcast(&srv->spare_cond);
        wait_tick(srv, 10);
    }
    /* Join every thread that has exited; the few still inside handlers are detached
     * (each holds a server reference, so the server outlives them). */
    reap(srv);
    for (tachy__thread *t = srv->threads; t; t = t->next) {
        if (!t->done && !t->detached) {
            pthread_detach(t->tid);
            t->detached = 1;
        }
    }
}

void tachy__pool_free(tachy_server *srv) {
    while (srv->threads) {
        tachy__thread *t = srv->threads;
        srv->threads = t->next;
        free(t);
    }
    if (srv->wakefd >= 0)
        close(srv->wakefd);
    if (srv->epfd >= 0) {
        close(srv->epfd);
        pthread_cond_destroy(&srv->spare_cond);
        pthread_cond_destroy(&srv->wd_cond);
    }
    if (srv->ready) {
        pthread_mutex_destroy(&srv->ready_lock);
        munmap(srv->ready, READY_CAP * sizeof *srv->ready);
    }
    for (uint32_t i = 0; srv->slots && i < TACHY__SLOT_CHUNKS && srv->slots[i]; i++) {
        for (uint32_t j = 0; j < TACHY__SLOT_CHUNK; j++) {
            pthread_mutex_destroy(&srv->slots[i][j].lock);
            pthread_cond_destroy(&srv->slots[i][j].cond);
        }
        free(srv->slots[i]);
    }
    if (srv->slots)
        munmap(srv->slots, TACHY__SLOT_CHUNKS * sizeof *srv->slots);
}
