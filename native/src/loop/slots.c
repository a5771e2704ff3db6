/*
 * loop/slots.c - the slot table and the ownership word of each connection.
 *
 * Connection structs live in a table of chunks that only grows while the server lives; a
 * slot is reused for a new socket under a new generation. Ownership is one atomic word
 * per connection: PARKED -> OWNED by a CAS, so an event can be claimed by one thread only;
 * an event that arrives while the connection is OWNED marks it PENDING, and the owner reads
 * again instead of parking. Events carry the connection's slot and generation, so a stale
 * event is detected, never a use-after-free.
 */
#include "loop/loop.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <stddef.h>

static tachy__conn *slot_conn(tachy_server *srv, uint32_t slot) {
    tachy__conn *chunk = __atomic_load_n(&srv->loop->slots[slot / TACHY__SLOT_CHUNK], __ATOMIC_ACQUIRE);
    return chunk ? &chunk[slot % TACHY__SLOT_CHUNK] : NULL;
}

/*
 * Tries to take ownership of the connection in slot whose generation is gen32 (the low 32
 * bits). With mark_pending, a connection that is already owned is marked PENDING so that
 * its owner reads again. Returns the connection when the caller now owns it, else NULL.
 */
tachy__conn *tachy__loop_claim(tachy_server *srv, uint32_t slot, uint32_t gen32, int mark_pending,
                          int hup) {
    tachy__conn *c = slot_conn(srv, slot);
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

/* Takes a free connection struct (lock held). */
tachy__conn *tachy__loop_conn_alloc(tachy_server *srv) {
    tachy__conn *c = srv->loop->free_conns;
    if (c) {
        srv->loop->free_conns = c->next_free;
        return c;
    }
    if (srv->loop->nslots >= (uint32_t)TACHY__SLOT_CHUNK * TACHY__SLOT_CHUNKS)
        return NULL;
    uint32_t chunk = srv->loop->nslots / TACHY__SLOT_CHUNK;
    if (!srv->loop->slots[chunk]) {
        tachy__conn *arr = calloc(TACHY__SLOT_CHUNK, sizeof *arr);
        if (!arr)
            return NULL;
        for (uint32_t i = 0; i < TACHY__SLOT_CHUNK; i++) {
            pthread_mutex_init(&arr[i].lock, NULL);
            pthread_cond_init(&arr[i].cond, NULL);
            atomic_init(&arr[i].state, tachy__st_make(0, TACHY__CONN_FREE));
            arr[i].slot = chunk * TACHY__SLOT_CHUNK + i;
            arr[i].srv = srv;
            arr[i].fd = -1;
        }
        __atomic_store_n(&srv->loop->slots[chunk], arr, __ATOMIC_RELEASE);
    }
    return &srv->loop->slots[chunk][srv->loop->nslots++ % TACHY__SLOT_CHUNK];
}

/* Resets a connection struct for a new socket, keeping its identity (slot, state, sync). */
void tachy__loop_conn_reset(tachy__conn *c) {
    memset(&c->fd, 0, sizeof *c - offsetof(tachy__conn, fd));
    c->fd = -1;
}

void tachy__loop_close(tachy__conn *c) {
    tachy_server *srv = c->srv;
    tachy__loop_ws_closing(c); /* an attached WebSocket lets go of the socket first */
    if (__atomic_load_n(&srv->loop->nresumed, __ATOMIC_RELAXED))
        tachy__loop_unresume(c); /* closed while waiting to be resumed (the watchdog) */
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

