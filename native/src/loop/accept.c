/*
 * loop/accept.c - accepting: the listening socket sits in the park set and the pool thread
 * that sees it readable accepts (see the comment below).
 */
#include "loop/loop.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

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
void tachy__loop_requeue_listener(tachy_server *srv) {
    struct epoll_event ev = {EPOLLIN, {.u64 = LISTEN_TOKEN}};
    tachy__loop_ready_push(srv, &ev, 1);
}

/* Accepts one connection and registers it (drain: adopt's mark). 1 when one was taken, 0
 * when the queue is empty, -1 on another error (errno says which). Accepted sockets are
 * blocking (no SOCK_NONBLOCK): an owner thread blocks in them, bounded by the timeouts
 * they inherit. */
static int accept_one(tachy_server *srv, int drain) {
    for (;;) {
        struct sockaddr_storage peer;
        socklen_t plen = sizeof peer;
        int fd = accept4(srv->fd, (struct sockaddr *)&peer, &plen, SOCK_CLOEXEC);
        if (fd >= 0) {
            tachy__loop_adopt(srv, fd, &peer, plen, drain);
            return 1;
        }
        if (errno == EINTR || errno == ECONNABORTED)
            continue;
        return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
    }
}

/* Accepting has ended: the server stops, or drains (its listening socket is shut down). */
static int not_accepting(tachy_server *srv) {
    return atomic_load(&srv->state) != TACHY__SRV_STARTED || atomic_load(&srv->draining);
}

/* The listening socket is readable: accept what waits, at most ACCEPT_BATCH at a time so
 * that connections already open are not starved by a flood of new ones. */
void tachy__loop_accept_some(tachy_server *srv) {
    for (int i = 0; i < ACCEPT_BATCH; i++) {
        if (not_accepting(srv))
            return;
        int r = accept_one(srv, TACHY__DRAIN_NONE);
        if (r == 0)
            return; /* drained: the next connection brings a new edge */
        if (r < 0) {
            if (not_accepting(srv))
                return;
            /* Out of descriptors or memory (or worse): the backlog keeps its connections,
             * and edge-triggered epoll will not report them again, so the watchdog
             * retries at its next tick (up to 200 times a second: the warning is said at
             * most once a second). */
            long now = tachy__now_ms(), last = atomic_load(&srv->loop->accept_warned_ms);
            if (now - last >= 1000 &&
                atomic_compare_exchange_strong(&srv->loop->accept_warned_ms, &last, now))
                tachy__log(srv, TACHY_LOG_WARNING, "accept: %s", strerror(errno));
            atomic_store(&srv->loop->accept_retry, 1);
            return;
        }
    }
    tachy__loop_requeue_listener(srv);
}

int tachy__loop_listen(tachy_server *srv) {
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
        epoll_ctl(srv->loop->epfd, EPOLL_CTL_ADD, srv->fd, &ev) < 0)
        return TACHY_ESYS;
    /* The first waiter; the watchdog brings more when handlers keep them busy. */
    return tachy__loop_spawn_worker(srv);
}

void tachy__loop_unlisten(tachy_server *srv) {
    if (srv->fd < 0)
        return;
    if (srv->loop && srv->loop->epfd >= 0)
        epoll_ctl(srv->loop->epfd, EPOLL_CTL_DEL, srv->fd, NULL);
    /* New connections are refused from now on; a thread inside tachy__loop_accept_some sees EINVAL
     * or the state. The descriptor itself is closed after the pool threads are gone. */
    shutdown(srv->fd, SHUT_RDWR);
}


/*
 * Closing (or shutting down) a listening socket resets every connection still in its
 * queue: connections whose clients have connected and may have sent their request (a
 * balancer would not resend it), and with SO_REUSEPORT (tachy_options.reuseport, where
 * the kernel hashes each new connection to one of the sockets on the port) connections
 * the siblings would have served. So before a drain (tachy_server_drain, stop with a
 * delay) stops accepting, what the queue holds is accepted, and it waits (until
 * deadline, ms) for:
 *   - each connection taken from the queue (backlog_drain = TACHY__DRAIN_NEW) to be claimed by a
 *     pool thread once, i.e. to have its first request served - a client that connected
 *     but has not sent yet is waited for too (it will send; it cannot know we stop);
 *   - each connection parked with bytes unread in its socket when the drain began
 *     (TACHY__DRAIN_INFLIGHT: a request whose event a pool thread has not taken yet) to be
 *     claimed, or to have nothing unread any more;
 * accepting again on every tick for connections that arrive meanwhile. Then the drain goes
 * on (loop/lifecycle.c: the listening socket shut down, the connections drained).
 * A connection whose handshake completes between the last accept and the close is still
 * reset by the kernel, unless net.ipv4.tcp_migrate_req = 1 (Linux 5.14+), which moves it
 * to a sibling (docs/load-balancing.md). Lock held, state STARTED; the lock is released
 * while accepting and waiting.
 */

void tachy__loop_drain_backlog(tachy_server *srv, long deadline) {
    /* srv->draining is set: pool threads accept nothing more (tachy__loop_accept_some), so
     * every connection taken from the queue from here on is taken here, marked DRAIN_NEW. */
    for (;;) {
        /* Every tick: a connection parked with request bytes unread - already there when
         * the drain began, or accepted by a pool thread since - is waited for. */
        for (tachy__conn *c = srv->loop->conns; c; c = c->next)
            if (c->backlog_drain == TACHY__DRAIN_NONE &&
                tachy__st_kind(atomic_load(&c->state)) == TACHY__CONN_PARKED && tachy__loop_unread(c))
                c->backlog_drain = TACHY__DRAIN_INFLIGHT;
        int took = 0;
        pthread_mutex_unlock(&srv->lock);
        while (accept_one(srv, TACHY__DRAIN_NEW) > 0) /* until empty (or out of descriptors) */
            took++;
        pthread_mutex_lock(&srv->lock);
        int busy = 0;
        tachy__conn *requeue = NULL;
        for (tachy__conn *c = srv->loop->conns; c; c = c->next) {
            if (c->backlog_drain == TACHY__DRAIN_NONE)
                continue;
            uint64_t st = atomic_load(&c->state);
            if (tachy__st_kind(st) != TACHY__CONN_PARKED) {
                c->backlog_drain = TACHY__DRAIN_NONE; /* being served: stop waits for it anyway */
                continue;
            }
            if (tachy__loop_unread(c)) {
                busy = 1; /* its request waits for a pool thread */
                continue;
            }
            if (c->backlog_drain == TACHY__DRAIN_INFLIGHT) {
                c->backlog_drain = TACHY__DRAIN_NONE; /* its request was read: idle now */
                continue;
            }
            /* DRAIN_NEW, parked, nothing unread: served already, or its client has not
             * sent yet? Only its owner may look (loop/states.c). */
            int served = tachy__loop_served_yet(c, st);
            if (served < 0) {
                busy = 1; /* a pool thread took it meanwhile: look again next tick */
                continue;
            }
            if (served & 2) { /* an event came while we held it: ours to requeue */
                c->next_free = requeue; /* scratch link while we own it, as the sweep's */
                requeue = c;
            }
            if (served & 1)
                c->backlog_drain = TACHY__DRAIN_NONE;
            else
                busy = 1;
        }
        if (requeue) {
            pthread_mutex_unlock(&srv->lock);
            while (requeue) {
                tachy__conn *c = requeue;
                requeue = c->next_free;
                tachy__loop_requeue(c); /* to a pool thread, which reads it */
            }
            pthread_mutex_lock(&srv->lock);
        }
        if ((!busy && !took) || tachy__now_ms() >= deadline)
            return;
        tachy__cond_wait_ms(&srv->cond, &srv->lock, 5);
    }
}
