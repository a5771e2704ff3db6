/*
 * loop/slots.c - the slot table: connection structs live in a table of chunks that only
 * grows while the server lives, so an event for a closed connection always finds memory
 * (and a generation that tells it is stale: loop/states.c). A slot is reused for a new
 * socket under a new generation.
 */
#include "loop/loop.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <stddef.h>

tachy__conn *tachy__loop_slot_conn(tachy_server *srv, uint32_t slot) {
    tachy__conn *chunk = __atomic_load_n(&srv->loop->slots[slot / TACHY__SLOT_CHUNK], __ATOMIC_ACQUIRE);
    return chunk ? &chunk[slot % TACHY__SLOT_CHUNK] : NULL;
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
    atomic_store_explicit(&c->peer_hup, 0, memory_order_relaxed); /* see http/http.h */
}

