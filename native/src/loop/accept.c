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
    c->local_len = 0; /* getsockname() when someone asks (tachy__conn_local) */
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

/* The listening socket is readable: accept what waits, at most ACCEPT_BATCH at a time so
 * that connections already open are not starved by a flood of new ones. */
void tachy__loop_accept_some(tachy_server *srv) {
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
             * retries at its next tick (up to 200 times a second: the warning is said at
             * most once a second). */
            long now = tachy__now_ms(), last = atomic_load(&srv->loop->accept_warned_ms);
            if (now - last >= 1000 &&
                atomic_compare_exchange_strong(&srv->loop->accept_warned_ms, &last, now))
                tachy__log(srv, TACHY_LOG_WARNING, "accept: %s", strerror(errno));
            atomic_store(&srv->loop->accept_retry, 1);
            return;
        }
        adopt(srv, fd, &peer, plen);
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
    /* New connections are refused from now on; a thread inside accept_some sees EINVAL
     * or the state. The descriptor itself is closed after the pool threads are gone. */
    shutdown(srv->fd, SHUT_RDWR);
}

