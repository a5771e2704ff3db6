/*
 * loop/wspark.c - WebSocket connections parked between frames (tachy_ws_attach).
 *
 * A handler that calls tachy_ws_attach returns at once; the HTTP loop then reports the
 * upgraded connection as finished (TACHY__CONN_NEXT_CLOSE). Before closing it, the pool
 * asks ws/ whether this thread's handler attached a WebSocket to it: if so the connection
 * is adopted instead - its HTTP memory shed (tachy__ws_take_attached: a parked socket keeps
 * no buffers, docs/architecture.md), recorded in pool->ws_of[slot], its epoll registration
 * widened to EPOLLOUT (so a socket that had a full send buffer raises an event when it
 * drains and its queue can go out) - and parked like an idle HTTP connection, without a
 * deadline (the WebSocket's own timers bound it). Each event for it is served here: the
 * owner flushes the queue and reads and handles the frames that are there (ws/reader.c),
 * then parks it again, so one thread at a time runs its callbacks, in order.
 */
#include "loop/loop.h"

#include "ws/ws.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

/* Serves c's WebSocket until it would wait: parks it (return) or closes it. */
static void ws_loop(tachy__conn *c, tachy_ws *ws) {
    for (;;) {
        if (!tachy__ws_drive(ws))
            break; /* ended */
        int pr = tachy__loop_park(c, 0, LONG_MAX);
        if (pr > 0)
            return; /* parked: no longer ours */
        if (pr < 0)
            break; /* stopping */
    }
    tachy__loop_close(c); /* detaches the WebSocket first (tachy__loop_ws_closing) */
}

#define WS_EVENTS (EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET)

/*
 * ws->kick (tachy_ws_resume_reading from a thread that is not driving the socket): the
 * socket's registration is modified to the same events, which makes epoll look at its
 * readiness again and queue an event for it now - EPOLLOUT is ready unless the send buffer
 * is full, and then it becomes ready when the buffer drains. The event is an ordinary one:
 * a parked connection is claimed and driven by whichever pool thread takes it; an owned one
 * is marked pending, so its owner's park fails and it drives it again. ws->lock is held and
 * the socket is alive (the pool closes it only after tachy__ws_detach, which takes the lock).
 */
static void ws_kick(tachy_ws *ws) {
    tachy__conn *c = ws->conn;
    struct epoll_event ev = {WS_EVENTS, {.u64 = ws->kick_token}};
    if (epoll_ctl(c->srv->loop->epfd, EPOLL_CTL_MOD, c->fd, &ev) < 0)
        tachy__log(c->srv, TACHY_LOG_WARNING, "epoll_ctl(MOD) to resume a WebSocket: %s",
                   strerror(errno));
}

int tachy__loop_ws_adopt(tachy__conn *c) {
    tachy_ws *ws = tachy__ws_take_attached(c);
    if (!ws)
        return 0;
    tachy_server *srv = c->srv;
    srv->loop->ws_of[c->slot] = ws;
    atomic_fetch_add_explicit(&srv->loop->nws, 1, memory_order_relaxed);
    uint64_t gen = tachy__st_gen(atomic_load(&c->state));
    uint64_t token = (uint64_t)c->slot | (gen & 0xffffffffu) << 32;
    struct epoll_event ev = {WS_EVENTS, {.u64 = token}};
    if (epoll_ctl(srv->loop->epfd, EPOLL_CTL_MOD, c->fd, &ev) < 0)
        tachy__log(srv, TACHY_LOG_WARNING, "epoll_ctl(MOD) for a WebSocket: %s", strerror(errno));
    pthread_mutex_lock(&ws->lock);
    ws->kick_token = token;
    ws->kick = ws_kick;
    pthread_mutex_unlock(&ws->lock);
    /* Bytes may already be buffered (frames sent right after the request): serve now. */
    ws_loop(c, ws);
    return 1;
}

int tachy__loop_ws_serve(tachy__conn *c) {
    tachy_ws *ws = c->srv->loop->ws_of[c->slot];
    if (!ws)
        return 0;
    ws_loop(c, ws);
    return 1;
}

void tachy__loop_ws_closing(tachy__conn *c) {
    tachy_ws **slot = &c->srv->loop->ws_of[c->slot];
    tachy_ws *ws = *slot;
    if (!ws)
        return;
    *slot = NULL;
    atomic_fetch_sub_explicit(&c->srv->loop->nws, 1, memory_order_relaxed);
    tachy__ws_detach(ws);
}
