/*
 * loop/states.c - the connection state machine: every state a connection can be in, who
 * holds it there, and every transition between them. Nothing outside this file moves a
 * connection from one state to another; the protocol code (http/conn.c and the codecs)
 * only says what it needs next (tachy__conn_next), and tachy__loop_run acts on it.
 *
 * THE OWNERSHIP INVARIANT. At any moment a connection is held by exactly one of: a thread
 * (OWNED), the park set (PARKED: an epoll registration, or the resumed list), a deferred
 * exchange (LENT), or the free list (FREE). Only the holder touches the connection's
 * fields; a holder hands the connection on only through a transition below. The ownership
 * word c->state packs a generation with the kind (loop.h): PARKED -> OWNED is a CAS, so an
 * event is claimed by one thread only; an event that arrives while the connection is OWNED
 * (or LENT, which is OWNED in the word) marks it PENDING, and whoever parks it next sees
 * that and reads again instead - so no edge of the edge-triggered park set is ever lost.
 * Events carry (slot, generation): a slot is reused only under a new generation, and slot
 * memory is never freed while the server lives, so a stale event is recognised and
 * ignored, never a use-after-free.
 *
 *   state            held by             word      enters by                leaves by
 *   ---------------  ------------------  --------  -----------------------  --------------------
 *   FREE             the free list       FREE      close                    adopt
 *   PARKED idle      the park set        PARKED    adopt, park (idle)       claim (event), sweep,
 *                                                                           drain (close)
 *   PARKED head      the park set        PARKED    park (a partial head)    claim, sweep (maxReqTime)
 *   QUEUED           the resumed list    PARKED    requeue                  claim (ready_pop), sweep
 *   OWNED            one thread          OWNED     claim                    park, lend, linger,
 *     (reading a head, in a handler,     (PENDING:                          requeue, ws adopt, close
 *      writing)                          an event came)
 *   LENT             a deferred exchange OWNED     lend (handler returned   its close: resume
 *                                                  with it deferred)        (here or QUEUED)
 *   LINGERING        the park set        PARKED    linger (after an error   claim -> drain; EOF,
 *                                                  response)                deadline: close
 *   PARKED WebSocket the park set        PARKED    ws adopt (loop/wspark.c) claim -> a frame;
 *                                                                           close; drain (1001,
 *                                                                           parked again)
 *
 * Stop (loop/lifecycle.c) and the watchdog's sweep (loop/watchdog.c) only claim PARKED
 * connections - a claim like any other - and close them; an OWNED or LENT connection is
 * ended by its holder (a shut-down socket makes its next I/O fail). A drain
 * (tachy__loop_drain_step) claims parked connections too, and closes only the idle ones;
 * the others it parks again.
 */
#include "loop/loop.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "h2/h2.h"
#include "tls/tls.h"
#include "ws/ws.h"

/* ---- FREE -> PARKED: a new connection ------------------------------------------------ */

/* Registers an accepted socket as a parked connection; its request (if already there) is
 * reported by EPOLL_CTL_ADD itself, edge-triggered. */
void tachy__loop_adopt(tachy_server *srv, int fd, const struct sockaddr_storage *peer, socklen_t plen,
                       int drain) {
    const tachy_options *o = &srv->opt;
    pthread_mutex_lock(&srv->lock);
    if (atomic_load(&srv->state) != TACHY__SRV_STARTED) {
        pthread_mutex_unlock(&srv->lock);
        close(fd);
        return;
    }
    if (o->max_connections > 0 && srv->loop->nconns >= o->max_connections) {
        /* jdk.httpserver.maxConnections: the JDK closes the new connection at once. */
        pthread_mutex_unlock(&srv->lock);
        tachy__log(srv, TACHY_LOG_DEBUG, "connection refused: maxConnections reached");
        close(fd);
        return;
    }
    tachy__conn *c = tachy__loop_conn_alloc(srv);
    if (!c) {
        pthread_mutex_unlock(&srv->lock);
        close(fd);
        return;
    }
    tachy__loop_conn_reset(c);
    c->fd = fd;
    if (plen > sizeof c->peer) /* not IPv4/IPv6: cannot happen on a tachy listener */
        plen = 0;
    memcpy(&c->peer, peer, plen);
    c->peer_len = plen;
    c->backlog_drain = drain;
    c->local_len = 0; /* getsockname() when someone asks (http/exchange.c) */
    /* Until its first byte a new connection waits idleInterval, or maxReqTime when that is
     * shorter, as the JDK's does (its NEWLY_ACCEPTED_CONN_IDLE_INTERVAL; once bytes come,
     * maxReqTime counts from the first one: http/conn.c); an HTTPS one must finish its
     * handshake within tls_handshake_time_ms (tls/handshake.c). */
    long limit = o->idle_interval_ms;
    if (o->max_req_time_ms > 0 && o->max_req_time_ms < limit)
        limit = o->max_req_time_ms;
    if (srv->tls && o->tls_handshake_time_ms < limit)
        limit = o->tls_handshake_time_ms;
    atomic_store(&c->deadline, tachy__now_ms() + limit);
    uint64_t gen = tachy__st_gen(atomic_load(&c->state));
    atomic_store(&c->state, tachy__st_make(gen, TACHY__CONN_PARKED));
    c->next = srv->loop->conns;
    c->prev = NULL;
    if (srv->loop->conns)
        srv->loop->conns->prev = c;
    srv->loop->conns = c;
    __atomic_store_n(&srv->loop->nconns, srv->loop->nconns + 1, __ATOMIC_RELAXED);
    /* Without connections the watchdog sleeps up to a second (watchdog.c); the first one
     * wakes it, so that a fresh server's first burst has its safety net at once. */
    if (srv->loop->nconns == 1)
        pthread_cond_signal(&srv->loop->wd_cond);
    atomic_fetch_add_explicit(&srv->st_connections, 1, memory_order_relaxed);
    struct epoll_event ev = {EPOLLIN | EPOLLRDHUP | EPOLLET,
                             {.u64 = (uint64_t)c->slot | (gen & 0xffffffffu) << 32}};
    if (epoll_ctl(srv->loop->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
        tachy__log(srv, TACHY_LOG_ERROR, "epoll_ctl: %s", strerror(errno));
        atomic_store(&c->state, tachy__st_make(gen, TACHY__CONN_OWNED));
        pthread_mutex_unlock(&srv->lock);
        tachy__loop_close(c);
        return;
    }
    pthread_mutex_unlock(&srv->lock);
}

/* ---- PARKED -> OWNED (claim), OWNED -> PARKED (park) ------------------------------ */

/*
 * Tries to take ownership of the connection in slot whose generation is gen32 (the low 32
 * bits). With mark_pending, a connection that is already owned is marked PENDING so that
 * its owner reads again. Returns the connection when the caller now owns it, else NULL.
 */
tachy__conn *tachy__loop_claim(tachy_server *srv, uint32_t slot, uint32_t gen32, int mark_pending,
                          int hup) {
    tachy__conn *c = tachy__loop_slot_conn(srv, slot);
    if (!c)
        return NULL;
    if (hup && (uint32_t)tachy__st_gen(atomic_load(&c->state)) == gen32)
        atomic_store(&c->peer_hup, 1); /* for us, or for the owner we mark PENDING */
    for (;;) {
        uint64_t s = atomic_load(&c->state);
        if ((uint32_t)tachy__st_gen(s) != gen32)
            return NULL;
        switch (tachy__st_kind(s)) {
        case TACHY__CONN_PARKED:
            if (atomic_compare_exchange_weak(&c->state, &s, tachy__st_make(tachy__st_gen(s), TACHY__CONN_OWNED))) {
                if (c->parked_idle) {
                    c->parked_idle = 0;
                    atomic_fetch_sub(&srv->loop->nidle, 1);
                }
                return c;
            }
            break;
        case TACHY__CONN_OWNED:
            if (!mark_pending)
                return NULL;
            if (atomic_compare_exchange_weak(&c->state, &s,
                                             tachy__st_make(tachy__st_gen(s), TACHY__CONN_PENDING)))
                return NULL;
            break;
        default: /* PENDING already, or FREE */
            return NULL;
        }
    }
}

int tachy__loop_park(tachy__conn *c, int idle, long deadline) {
    tachy_server *srv = c->srv;
    if (atomic_load(&srv->state) != TACHY__SRV_STARTED || atomic_load(&c->shut))
        return -1;
    if (idle) {
        /* maxIdleConnections, counted as the JDK does: once a response is complete. */
        int n = atomic_fetch_add(&srv->loop->nidle, 1);
        if (c->served > 0 && srv->opt.max_idle_connections >= 0 &&
            n >= srv->opt.max_idle_connections) {
            atomic_fetch_sub(&srv->loop->nidle, 1);
            return -1;
        }
        c->parked_idle = 1;
    }
    atomic_store_explicit(&c->deadline, deadline, memory_order_relaxed);
    uint64_t s = atomic_load(&c->state);
    if (tachy__st_kind(s) == TACHY__CONN_OWNED &&
        atomic_compare_exchange_strong(&c->state, &s, tachy__st_make(tachy__st_gen(s), TACHY__CONN_PARKED)))
        return 1; /* c belongs to the park set now: do not touch it */
    /* An event arrived while we owned it: keep it and read again. */
    atomic_store(&c->state, tachy__st_make(tachy__st_gen(s), TACHY__CONN_OWNED));
    if (c->parked_idle) {
        c->parked_idle = 0;
        atomic_fetch_sub(&srv->loop->nidle, 1);
    }
    return 0;
}

/*
 * PARKED -> OWNED -> PARKED, for stop()'s backlog drain (accept.c): has c (parked, state
 * word st when the caller looked) served a request yet? Only its owner may read c->served,
 * so c is claimed for a moment and parked again with its deadline. Returns -1 if a pool
 * thread took c meanwhile (look again later); else bit 0 set when c has served, and bit 1
 * when an event came while we held it: c is then still the caller's, to requeue
 * (tachy__loop_requeue) once srv->lock is released. Lock held.
 */
int tachy__loop_served_yet(tachy__conn *c, uint64_t st) {
    if (!tachy__loop_claim(c->srv, c->slot, (uint32_t)tachy__st_gen(st), 0, 0))
        return -1;
    int r = c->served > 0;
    long dl = atomic_load_explicit(&c->deadline, memory_order_relaxed);
    if (tachy__loop_park(c, 0, dl) == 0)
        r |= 2;
    return r;
}

/* ---- OWNED -> QUEUED: back to a pool thread ------------------------------------------ */

/* Puts c (owned by the caller, not in the middle of anything a pool thread cannot redo)
 * back in the park set marked ready: its token goes in the ready ring, and a waiter is
 * woken to take it. Under srv->lock, so that stop() either sees it parked (and closes it)
 * or has already begun (and it is closed here). */
void tachy__loop_requeue(tachy__conn *c) {
    tachy_server *srv = c->srv;
    pthread_mutex_lock(&srv->lock);
    if (atomic_load(&srv->state) != TACHY__SRV_STARTED) {
        pthread_mutex_unlock(&srv->lock);
        tachy__loop_close(c);
        return;
    }
    struct tachy__loop *p = srv->loop;
    if (!p->ws_of[c->slot]) /* a parked WebSocket has no deadline (wspark.c) */
        atomic_store_explicit(&c->deadline, tachy__now_ms() + srv->opt.idle_interval_ms,
                              memory_order_relaxed);
    pthread_mutex_lock(&p->ready_lock);
    c->next_ready = NULL;
    c->in_resumed = 1;
    if (p->resumed_tail)
        p->resumed_tail->next_ready = c;
    else
        p->resumed_head = c;
    p->resumed_tail = c;
    __atomic_store_n(&p->nresumed, p->nresumed + 1, __ATOMIC_RELAXED);
    /* Parked last: once it is, any thread may claim it (an event, the list's taker) and
     * the struct is theirs. An event that marked c PENDING meanwhile needs no keeping: the
     * run reads anyway. */
    uint64_t s = atomic_load(&c->state);
    atomic_store(&c->state, tachy__st_make(tachy__st_gen(s), TACHY__CONN_PARKED));
    pthread_mutex_unlock(&p->ready_lock);
    pthread_mutex_unlock(&srv->lock);
    uint64_t one = 1;
    if (write(srv->loop->kickfd, &one, sizeof one) < 0 && errno != EAGAIN)
        tachy__log(srv, TACHY_LOG_WARNING, "eventfd write: %s", strerror(errno));
    tachy__loop_blocking(srv); /* nobody waits for events: bring a thread in */
}

void tachy__loop_unresume(tachy__conn *c) {
    struct tachy__loop *p = c->srv->loop;
    pthread_mutex_lock(&p->ready_lock);
    if (c->in_resumed) {
        tachy__conn *prev = NULL;
        for (tachy__conn *x = p->resumed_head; x; prev = x, x = x->next_ready) {
            if (x != c)
                continue;
            if (prev)
                prev->next_ready = c->next_ready;
            else
                p->resumed_head = c->next_ready;
            if (p->resumed_tail == c)
                p->resumed_tail = prev;
            break;
        }
        c->next_ready = NULL;
        c->in_resumed = 0;
        __atomic_store_n(&p->nresumed, p->nresumed - 1, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&p->ready_lock);
}

/* ---- OWNED -> LENT, and back --------------------------------------------------------- */

/*
 * The handler returned with its exchange deferred (tachy_exchange_defer): this thread lets
 * go of c unless the exchange was closed already. c->lock orders this against the close on
 * the other thread (tachy__loop_exchange_closed): either the close comes later and finds c
 * lent (it then continues c), or it came first and this thread carries on. A handler that
 * failed after deferring leaves the exchange to its closer: the connection closes after
 * it. Returns 1 when c is LENT (no longer ours), 0 when we still own it (c->resume tells
 * tachy__conn_run to end the exchange first).
 */
static int lend(tachy__conn *c) {
    tachy_server *srv = c->srv;
    pthread_mutex_lock(&c->lock);
    if (c->ex.handler_failed)
        tachy__exchange_fail(&c->ex, 0);
    int lent = !c->ex.closed;
    c->lent = lent;
    if (lent) {
        atomic_fetch_add(&srv->refs, 1); /* the server outlives a stop() meanwhile */
        if (c->ex.defer_flags & TACHY_DEFER_CLOSER_CONTINUES)
            atomic_fetch_add(&srv->lent_closers, 1); /* its closer harvests (workers.c) */
    }
    pthread_mutex_unlock(&c->lock);
    if (!lent)
        c->resume = TACHY__RESUME_CARRY_ON;
    return lent;
}

void tachy__loop_exchange_closed(tachy__conn *c) {
    pthread_mutex_lock(&c->lock);
    c->ex.closed = 1;
    int lent = c->lent;
    c->lent = 0;
    pthread_mutex_unlock(&c->lock);
    if (!lent)
        return; /* the thread still in dispatch carries on (lend) */
    /* LENT -> OWNED by this thread: continue c here (as far as nothing could block) or on a
     * pool thread (QUEUED). */
    tachy_server *srv = c->srv;
    c->resume = TACHY__RESUME_LENT;
    int here = (c->ex.defer_flags & TACHY_DEFER_CLOSER_CONTINUES) != 0;
    if (here)
        atomic_fetch_sub(&srv->lent_closers, 1); /* counted in lend() */
    tachy__loop_resume(c, here, here && c->ex.close_harvest);
    tachy__server_release(srv); /* the lend's reference */
}

/* ---- running a connection: the protocol step's verdicts become transitions ----------- */

/*
 * Runs the HTTP loop on c (owned by the caller) until it parks, closes or lends c (closer:
 * the caller must not block, see tachy__conn_run; what it cannot do goes to a pool
 * thread). An event that arrives while we own it (tachy__loop_park returns 0) means more
 * bytes: run the loop again. Returns 1 if c ended parked (waiting for its next bytes).
 */
int tachy__loop_run(tachy__conn *c, int closer) {
    for (;;) {
        if (c->lingering) {
            /* A lingering close (http/io.c): discard what came; while the peer may send
             * more, the connection waits in the park set - never a thread - until its EOF
             * or the deadline, when the watchdog closes it. */
            if (!tachy__io_linger_drain(c))
                break;
            int pr = tachy__loop_park(c, 0, c->linger_until);
            if (pr > 0)
                return 1;
            if (pr < 0)
                break;
            continue;
        }
        int idle = 0;
        long deadline = 0;
        tachy__conn_next next;
        if (c->h2) /* HTTP/2 (h2/): a closer does not run it, a pool thread does */
            next = closer ? TACHY__CONN_NEXT_POOL : tachy__h2_run(c, &idle, &deadline);
        else
            next = tachy__conn_run(c, closer, &idle, &deadline);
        /* Parking is the common end of a run (a keep-alive connection between requests):
         * one test for it, the other ends after it. */
        if (next != TACHY__CONN_NEXT_PARK) {
            if (next == TACHY__CONN_NEXT_H2) {
                /* The client speaks HTTP/2 (its preface, ALPN "h2", "Upgrade: h2c"): the
                 * connection changes codecs and its next step is HTTP/2's. */
                if (tachy__h2_start(c) < 0)
                    break;
                continue;
            }
            if (next == TACHY__CONN_NEXT_HOLD)
                return 0; /* held by its streams' exchanges: the last one requeues it */
            if (next == TACHY__CONN_NEXT_LEND) {
                if (lend(c))
                    return 0; /* LENT: the exchange has it; its close resumes it */
                continue;     /* closed before its handler returned: carry on */
            }
            if (next == TACHY__CONN_NEXT_POOL) {
                tachy__loop_requeue(c);
                return 0;
            }
            if (next == TACHY__CONN_NEXT_LINGER) {
                c->linger_until = tachy__now_ms() + TACHY__LINGER_MS;
                continue;
            }
            if (next == TACHY__CONN_NEXT_CLOSE) {
                if (tachy__loop_ws_adopt(c))
                    return 0; /* the handler attached a WebSocket: parked as one now */
                break;
            }
        }
        int pr = tachy__loop_park(c, idle, deadline);
        if (pr > 0)
            return 1; /* parked: no longer ours */
        if (pr < 0)
            break; /* stopping, or too many idle connections (output already flushed) */
    }
    tachy__loop_close(c);
    return 0;
}

/* Serves a connection the caller owns: sets its transport up on the first run (HTTPS),
 * then runs the HTTP loop. */
void tachy__loop_serve(tachy_server *srv, tachy__conn *c) {
    if (__builtin_expect(srv->loop->ws_of[c->slot] != NULL, 0) && tachy__loop_ws_serve(c))
        return; /* an attached WebSocket (wspark.c) */
    if (srv->tls && !c->xp && tachy__tls_start(c) < 0) {
        tachy__loop_close(c);
        return;
    }
    tachy__loop_run(c, 0);
}

/* ---- draining: PARKED -> OWNED -> FREE, or back to PARKED ---------------------------- */

int tachy__loop_unread(const tachy__conn *c) {
    char b;
    return recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) > 0;
}

/*
 * One step of tachy_server_drain (loop/lifecycle.c), which calls it every few ms until no
 * connection is left. Each parked connection is claimed (a claim like any other) and:
 *   - a parked WebSocket is sent a close frame with 1001, going away (RFC 6455 section
 *     7.4.1), once (tachy_ws_close refuses a second); its close handshake then runs as
 *     usual on a pool thread, which closes the connection when it is over (or the
 *     WebSocket's close timer when the peer does not answer), and it is parked again;
 *   - with close_idle, an idle HTTP connection - between requests, or not run yet (a
 *     fresh one whose first request has not come), nothing unread in its socket - is
 *     closed: that is the close a client may retry after (RFC 9112 section 9.6: it sent
 *     nothing we have not answered);
 *   - every other one goes back to the park set as it was: a request whose bytes are in
 *     its socket (its event is on its way to a pool thread, which serves it with
 *     "Connection: close"), a partial head, an idle one before close_idle, a lingering
 *     close.
 * A connection with unread bytes is not even claimed. Lock held on entry and exit;
 * released while acting.
 */
void tachy__loop_drain_step(tachy_server *srv, int close_idle) {
    tachy__conn *mine = NULL;
    for (tachy__conn *c = srv->loop->conns; c; c = c->next) {
        uint64_t s = atomic_load(&c->state);
        if (tachy__st_kind(s) != TACHY__CONN_PARKED || tachy__loop_unread(c))
            continue;
        /* The claim (tachy__loop_claim's, keeping parked_idle: it says how c parked) */
        if (!atomic_compare_exchange_strong(&c->state, &s,
                                            tachy__st_make(tachy__st_gen(s), TACHY__CONN_OWNED)))
            continue; /* a pool thread took it: it is being served */
        c->drain_idle = c->parked_idle;
        if (c->parked_idle) {
            c->parked_idle = 0;
            atomic_fetch_sub(&srv->loop->nidle, 1);
        }
        c->next_free = mine; /* scratch link while we own it, as the sweep's */
        mine = c;
    }
    if (!mine)
        return;
    pthread_mutex_unlock(&srv->lock);
    while (mine) {
        tachy__conn *c = mine;
        mine = c->next_free;
        tachy_ws *ws = srv->loop->ws_of[c->slot];
        if (ws) {
            tachy_ws_close(ws, TACHY_WS_CLOSE_GOING_AWAY, "server going away");
        } else if (c->h2) {
            /* HTTP/2: GOAWAY once; the streams begun finish, then it closes. */
            if (tachy__h2_drain(c) && !tachy__loop_unread(c)) {
                tachy__loop_close(c);
                continue;
            }
        } else if (close_idle && (c->drain_idle || !c->started) && !c->lingering &&
                   !tachy__loop_unread(c)) {
            tachy__loop_close(c);
            continue;
        }
        /* Back as it was: idle (counted again), or waiting for the rest of a head. */
        int pr = tachy__loop_park(c, c->drain_idle,
                                  atomic_load_explicit(&c->deadline, memory_order_relaxed));
        if (pr == 0)
            tachy__loop_requeue(c); /* an event came while we held it: a pool thread reads */
        else if (pr < 0)
            tachy__loop_close(c); /* maxIdleConnections (it was counted out by the claim) */
    }
    pthread_mutex_lock(&srv->lock);
}

/* ---- -> FREE ------------------------------------------------------------------------- */

void tachy__loop_close(tachy__conn *c) {
    tachy_server *srv = c->srv;
    /* HTTP/2: GOAWAY; while its streams' exchanges still run, the connection waits for
     * them, held by nobody, and the last one's end brings it back here (h2/). */
    if (c->h2 && tachy__h2_closing(c))
        return;
    tachy__loop_ws_closing(c); /* an attached WebSocket lets go of the socket first */
    if (__atomic_load_n(&srv->loop->nresumed, __ATOMIC_RELAXED))
        tachy__loop_unresume(c); /* closed while waiting to be resumed (the watchdog) */
    tachy__h2_free(c);
    tachy__conn_cleanup(c);
    pthread_mutex_lock(&srv->lock);
    if (c->prev)
        c->prev->next = c->next;
    else
        srv->loop->conns = c->next;
    if (c->next)
        c->next->prev = c->prev;
    __atomic_store_n(&srv->loop->nconns, srv->loop->nconns - 1, __ATOMIC_RELAXED);
    if (c->parked_idle) {
        c->parked_idle = 0;
        atomic_fetch_sub(&srv->loop->nidle, 1);
    }
    /* Leave the park set explicitly before closing. Merely closing would leave it to the
     * file's last reference, and an epoll_wait in another thread may hold a transient one
     * while it scans ready items (Linux 6.10+); dropped there, the release is deferred
     * until that thread returns to user space - seconds later if it goes back to sleep -
     * and the peer sees no FIN meanwhile. EPOLL_CTL_DEL waits for such a scan to end. */
    epoll_ctl(srv->loop->epfd, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    c->fd = -1;
    /* A new generation: events still in flight for the old socket are ignored. */
    uint64_t s = atomic_load(&c->state);
    atomic_store(&c->state, tachy__st_make(tachy__st_gen(s) + 1, TACHY__CONN_FREE));
    c->next_free = srv->loop->free_conns;
    srv->loop->free_conns = c;
    pthread_cond_broadcast(&srv->cond);
    pthread_mutex_unlock(&srv->lock);
}
