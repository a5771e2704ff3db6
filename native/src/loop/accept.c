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
        tachy__loop_adopt(srv, fd, &peer, plen);
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

