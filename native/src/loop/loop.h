/*
 * loop/loop.h - the running server: the connection state machine, connection slots and
 * their ownership word, the park set, the pool threads and the ready ring, accepting, the
 * watchdog, start and stop. Private to the core; never installed.
 *
 *   states.c     THE CONNECTION STATE MACHINE: every state, the ownership invariant, every
 *                transition (adopt, claim, park, requeue, lend, resume, linger, close)
 *   slots.c      the slot table of connection structs
 *   workers.c    pool threads: epoll_wait, the ready ring, closers' harvest
 *   accept.c     the listening socket in the park set, accept
 *   watchdog.c   deadlines of parked connections and exchanges, bringing in threads
 *   lifecycle.c  tachy_server_start / tachy_server_stop, the pool's memory
 *   timers.c     tachy_timer_*: one min-heap per server, a timerfd in the park set
 *   wspark.c     upgraded WebSocket connections parked between frames (tachy_ws_attach)
 *
 * loop/ is the top of the core: it includes http/ (it serves connections), tls/ (it sets
 * a connection's transport up) and server/; nothing includes loop/. The server reaches it
 * through srv->loop and the hooks in server/server.h.
 *
 * Locking: srv->lock guards everything here except what is atomic and the ready ring
 * (ready_lock).
 */
#ifndef TACHY__SRC_LOOP_LOOP_H
#define TACHY__SRC_LOOP_LOOP_H

#include "http/http.h"

#include <pthread.h>
#include <stdatomic.h>
#include <sys/epoll.h>

/*
 * Connection ownership. A connection is either OWNED by exactly one thread, which
 * serves it with blocking semantics, or PARKED in the server's epoll set waiting for its
 * next request. state packs a generation (bits 2..63) with the kind (bits 0..1); epoll
 * events carry (slot, generation), so an event that arrives for a connection that has
 * since been closed and its slot reused is recognised and ignored. Connection structs
 * live in a slot table and are never freed while the server exists.
 */
enum { TACHY__CONN_PARKED = 0, TACHY__CONN_OWNED = 1, TACHY__CONN_PENDING = 2,
       TACHY__CONN_FREE = 3 };


static inline uint64_t tachy__st_gen(uint64_t s) { return s >> 2; }
static inline unsigned tachy__st_kind(uint64_t s) { return (unsigned)(s & 3); }
static inline uint64_t tachy__st_make(uint64_t gen, unsigned kind) { return gen << 2 | kind; }

/* A pool thread's record: joined once it has exited, so no thread outlives stop() unseen. */
typedef struct tachy__thread {
    tachy_server *srv;
    pthread_t tid;
    int done;                 /* exited (under srv->lock) */
    int detached;             /* left running in a handler past stop(): not joined */
    struct tachy__thread *next;
} tachy__thread;

#define TACHY__SLOT_CHUNK 256    /* connections per slot-table chunk */
#define TACHY__SLOT_CHUNKS 16384 /* chunks: up to 4M connections */

#define WAKE_TOKEN UINT64_MAX
/* Set in a connection's token (in the slot half, above any slot number) when its event
 * reported the peer's shutdown (EPOLLRDHUP/HUP/ERR). A request and the FIN behind it can
 * arrive before one epoll_wait and come as one edge: the read returns the request, and
 * without this bit nothing would ever report the FIN again. */
#define HUP_BIT ((uint64_t)1 << 31)
#define LISTEN_TOKEN (UINT64_MAX - 1)
#define TIMER_TOKEN (UINT64_MAX - 2) /* the timerfd (timers.c) */
#define KICK_TOKEN (UINT64_MAX - 3)  /* kickfd: the ready ring got work outside epoll */
#define ACCEPT_BATCH 64   /* connections accepted per listening-socket event */
#define TRIM_PEAK 256     /* connections: a burst worth giving memory back after */
#define WATCHDOG_TICK_MS 5
#define BATCH 64          /* events taken per epoll_wait */
#define READY_CAP 4096    /* ring of events waiting for a thread */

/* A timer in the heap with its due time beside it (timers.c). */
struct tachy__timer_slot {
    int64_t due_ns;
    struct tachy_timer *t;
};

struct tachy__loop {
    int epfd;                 /* the park set: parked connections, edge-triggered */
    int wakefd;               /* eventfd in epfd: made readable to wake every waiter */
    int kickfd;               /* eventfd in epfd, edge-triggered: written when a connection
                                 is put in the ready ring by hand (tachy__loop_resume), so
                                 that a waiter wakes up to take it */
    pthread_t watchdog;
    int watchdog_started;
    atomic_int accept_retry;  /* accept() failed for lack of resources: watchdog retries */
    atomic_long accept_warned_ms; /* when that was last logged (once a second at most) */
    /* connections */
    tachy__conn **slots;      /* TACHY__SLOT_CHUNKS chunk pointers (allocated at start, a
                                 zero-page mapping: untouched until connections come) */
    uint32_t nslots;
    tachy__conn *free_conns;
    tachy__conn *conns;       /* open connections */
    int nconns;               /* written under srv->lock (atomically: timers.c reads it
                                 without the lock) */
    atomic_int nidle;         /* parked between requests */
    atomic_int nws;           /* parked WebSockets (wspark.c; a metrics gauge) */
    /* threads */
    int nthreads;             /* live pool threads (under lock) */
    tachy__thread *threads;   /* records of pool threads not yet joined */
    int nspare;               /* threads parked on spare_cond */
    int max_waiters;          /* threads allowed in epoll_wait at once (= usable CPUs) */
    atomic_int nwaiting;      /* threads in (or entering) epoll_wait */
    atomic_uint_fast64_t progress; /* bumped whenever a thread takes an event */
    /* Events taken from epoll in a batch and not yet claimed: any thread may take them,
     * so a thread that blocks in a handler never holds other connections' events. */
    pthread_mutex_t ready_lock;
    uint64_t *ready;          /* ring of event tokens */
    uint32_t ready_head, ready_count, ready_cap;
    /* Connections put back by hand (tachy__loop_resume), taken after the ring: a FIFO
     * through tachy__conn.next_ready, unbounded (the ring's size bounds only epoll's). */
    tachy__conn *resumed_head, *resumed_tail;
    uint32_t nresumed;
    /* Jobs (tachy__loop_post: HTTP/2 streams to serve, output to flush), a FIFO under
     * ready_lock; taken before events, and also while the server stops. */
    tachy__job *jobs_head, *jobs_tail;
    uint32_t njobs;
    pthread_cond_t spare_cond; /* spare threads wait here (monotonic clock) */
    /* Closers harvest the park set (workers.c, "closers harvest"): harvests counts their
     * looks that found events; pool threads that stepped back meanwhile wait on step_cond (step_lock, which
     * also guards step_gen, bumped to wake them). */
    atomic_uint_fast64_t harvests;
    atomic_int nstepback;
    pthread_mutex_t step_lock;
    pthread_cond_t step_cond;
    uint64_t step_gen;
    /* timers.c: a 4-ary min-heap of (due, timer), under timer_lock; the timerfd is in the
     * park set */
    pthread_mutex_t timer_lock;
    pthread_cond_t timer_cond; /* a timer's callback returned (tachy_timer_cancel waits) */
    int timerfd;
    int timers_inited;        /* timer_lock and timer_cond exist */
    int timers_closed;        /* stop() dropped the timers: no more scheduling */
    int64_t timer_armed_ns;   /* what the timerfd is armed for (0: disarmed) */
    struct tachy__timer_slot *theap;
    size_t ntimers, theap_cap;
    /* wspark.c: the WebSocket attached to each slot's connection (NULL: plain HTTP). A
     * zero-page mapping like slots; an entry is read and written by the slot's owner. */
    struct tachy_ws **ws_of;
    pthread_cond_t wd_cond;    /* the watchdog waits here (monotonic clock) */
};

/* ---- states.c: the connection state machine (its header comment is the map) ------------ */

/* FREE -> PARKED: registers an accepted socket (fd, owned from now on) as a parked
 * connection; its first bytes, if already there, are reported by EPOLL_CTL_ADD itself.
 * drain: TACHY__DRAIN_NEW when stop()'s backlog drain accepted it (it then waits for it).
 * Closes fd when the server is stopping, full (maxConnections) or out of memory. Pool
 * thread (the one accepting). */
void tachy__loop_adopt(tachy_server *srv, int fd, const struct sockaddr_storage *peer,
                       socklen_t plen, int drain);
/* c->backlog_drain, adopt's drain: what stop()'s backlog drain waits for (accept.c). */
enum { TACHY__DRAIN_NONE, TACHY__DRAIN_NEW, TACHY__DRAIN_INFLIGHT };
/* stop()'s backlog drain: has parked c served a request yet (states.c says how it looks)?
 * -1, or bits: 1 served, 2 c is the caller's to requeue. Lock held. */
int tachy__loop_served_yet(tachy__conn *c, uint64_t st);
/* PARKED -> OWNED. */
/* Tries to take ownership of the connection in slot whose generation is gen32 (the low 32
 * bits). With mark_pending, a connection that is already owned is marked PENDING so that
 * its owner reads again; hup records the peer's shutdown for whoever owns it. Returns the
 * connection when the caller now owns it, else NULL. Any pool thread. */
tachy__conn *tachy__loop_claim(tachy_server *srv, uint32_t slot, uint32_t gen32, int mark_pending,
                               int hup);
/*
 * Parks c (owned by the caller) in the park set until its next request, with a deadline
 * (ms, monotonic) after which the watchdog closes it. Returns 1 if parked (the caller no
 * longer owns c), 0 if an event arrived meanwhile and the caller still owns it (read
 * again), -1 if it must be closed instead (stopping, or too many idle connections).
 */
int tachy__loop_park(tachy__conn *c, int idle, long deadline);
/* OWNED -> FREE. */
/* Closes c (owned by the caller): socket, buffers; returns its slot to the pool. */
void tachy__loop_close(tachy__conn *c);
/* c is closing: if it waits in the resumed list, it leaves it (tachy__loop_close). */
void tachy__loop_unresume(tachy__conn *c);
/* OWNED -> QUEUED: puts c (owned by the caller) back for a pool thread, marked ready: it
 * goes on the resumed list and a waiter is woken. Any thread that owns c. */
void tachy__loop_requeue(tachy__conn *c);
/* Runs c (owned by the caller) - the protocol step, and the transition its verdict asks
 * for - until c is no longer the caller's (parked, lent, queued, closed). closer: the
 * caller must not block (tachy__conn_run). Returns 1 if c ended parked waiting for its
 * next bytes. */
int tachy__loop_run(tachy__conn *c, int closer);
/* Serves a connection the caller has just claimed: an attached WebSocket's event, else
 * the HTTPS transport set up on the first run, then tachy__loop_run. Pool thread. */
void tachy__loop_serve(tachy_server *srv, tachy__conn *c);
/* srv->loop_exchange_closed (see server/server.h): a deferred exchange of c was closed on
 * the calling thread. Any thread. */
void tachy__loop_exchange_closed(tachy__conn *c);

/* tachy_server_drain's step: parked WebSockets are sent 1001 (once), idle HTTP connections
 * (a request served, nothing unread) are closed when close_idle is set, every other
 * parked connection is left as it was (states.c says which and why). Lock held on entry
 * and exit, released meanwhile; the server is STARTED and draining. */
void tachy__loop_drain_step(tachy_server *srv, int close_idle);
/* 1 if c's socket holds unread bytes (a peek). srv->lock held or c owned: the socket stays
 * open meanwhile. */
int tachy__loop_unread(const tachy__conn *c);

/* ---- slots.c ------------------------------------------------------------------------- */

/* The connection struct of a slot (NULL: its chunk was never made). Any thread. */
tachy__conn *tachy__loop_slot_conn(tachy_server *srv, uint32_t slot);

/* Takes a free connection struct (lock held); NULL when the table is full or memory is
 * short. */
tachy__conn *tachy__loop_conn_alloc(tachy_server *srv);
/* Resets a connection struct for a new socket, keeping its identity (slot, state, sync). */
void tachy__loop_conn_reset(tachy__conn *c);

/* ---- workers.c ----------------------------------------------------------------------- */

/* Puts n events' tokens in the ready ring (WAKE_TOKEN skipped). Any thread. */
void tachy__loop_ready_push(tachy_server *srv, const struct epoll_event *ev, int n);
/* Starts a pool thread (lock held). 0 or TACHY_E*. */
int tachy__loop_spawn_worker(tachy_server *srv);
/* Joins pool threads that have exited (lock held). */
void tachy__loop_reap(tachy_server *srv);
/* Makes sure someone will take events: wakes a spare or starts a thread (lock held). */
void tachy__loop_ensure_waiter(tachy_server *srv);
/* srv->loop_post: queues job and the jobs chained after it (run in order by pool
 * threads; one lock for the batch); wake: kick a waiter, or bring a thread in, for them
 * now. Any thread. */
void tachy__loop_post(tachy_server *srv, tachy__job *job, int wake);
/* srv->loop_blocking: if nobody waits for events, bring in a thread now. Any thread. */
void tachy__loop_blocking(tachy_server *srv);
/*
 * c's lent exchange was closed by the calling thread, which owns c now (states.c).
 * With here, the caller continues c itself as far as that needs no blocking call
 * (tachy__conn_run with closer = 1): it may park c, or lend it again; with harvest it then
 * serves other ready connections the same way (workers.c, "closers harvest"). Whatever
 * remains (or everything, without here) goes to a pool thread: c is put in the ready ring
 * and a waiter is woken (kickfd). Any thread.
 */
void tachy__loop_resume(tachy__conn *c, int here, int harvest);

/* ---- accept.c ------------------------------------------------------------------------ */

/* Puts the listening socket in the park set (pool threads accept from it) and starts the
 * first pool thread. Lock held, state already STARTED. */
int tachy__loop_listen(tachy_server *srv);
/* Stops accepting: the listening socket leaves the park set and is shut down (closed by
 * the caller once the pool threads are gone). Lock held. */
void tachy__loop_unlisten(tachy_server *srv);
/* A drain (stop with a delay), before it stops accepting: accepts what the listening
 * socket's queue holds (closing it would reset those connections) and waits, at most until
 * deadline (ms), for each to have its first request read (accept.c says exactly what is
 * waited for). Lock held, state STARTED; released meanwhile. */
void tachy__loop_drain_backlog(tachy_server *srv, long deadline);
/* The listening socket is readable: accepts up to ACCEPT_BATCH connections. Pool thread. */
void tachy__loop_accept_some(tachy_server *srv);
/* Puts the listening socket's token in the ready ring: accept again later. */
void tachy__loop_requeue_listener(tachy_server *srv);

/* ---- timers.c ------------------------------------------------------------------------ */

/* Creates the timerfd and puts it in the park set (pool_start). 0 or TACHY_E*. */
int tachy__loop_timers_init(tachy_server *srv);
/* The timerfd fired: runs up to 64 due timers on the calling pool thread. */
void tachy__loop_timers_run(tachy_server *srv);
/* stop(): drops every pending timer; later schedules fail with TACHY_ESTOPPED. */
void tachy__loop_timers_close(tachy_server *srv);
/* loop_free: releases what tachy__loop_timers_init made. */
void tachy__loop_timers_free(tachy_server *srv);

/* ---- wspark.c ------------------------------------------------------------------------ */

/* After tachy__conn_run returned CLOSE for c: if the handler attached a WebSocket to c
 * (tachy_ws_attach), c becomes a parked WebSocket connection and 1 is returned (the
 * caller no longer owns c); else 0 and the caller closes c. Pool thread, owner of c. */
int tachy__loop_ws_adopt(tachy__conn *c);
/* A parked WebSocket connection's event: c (owned by the caller) is served; it is parked
 * again or closed. Returns 1 if c was a WebSocket connection (handled), else 0. */
int tachy__loop_ws_serve(tachy__conn *c);
/* tachy__loop_close's hook: c is closing; its WebSocket (if any) ends (on_close 1006 if the
 * close handshake did not happen) and lets go of the socket. Owner of c. */
void tachy__loop_ws_closing(tachy__conn *c);

/* ---- watchdog.c ---------------------------------------------------------------------- */

/* Claims every parked connection past its deadline (every parked one with all) and closes
 * it; shuts down exchanges past maxReqTime/maxRspTime. Lock held on entry and exit. */
void tachy__loop_sweep(tachy_server *srv, int all);
/* The watchdog thread's body (arg: the server). */
void *tachy__loop_watchdog_main(void *arg);

#endif
