/*
 * h2/mem.c - the allocator each nghttp2 session is given (nghttp2_session_server_new3):
 * size classes with per-session free lists in front of malloc.
 *
 * Why: nghttp2 allocates and frees a few small blocks for every stream (the stream, its
 * outbound items, the header copies) - four mallocs and four frees per request in a
 * keep-alive benchmark, about 800 instructions of glibc's malloc per request, where a
 * batch of 32 streams overflows glibc's per-thread cache and the blocks are freed on
 * another thread than the one that allocated them. A session is only ever used by one
 * thread at a time (under h2->mu, or by its only owner while it is created and deleted),
 * so its free lists need no lock of their own: a block is taken and given back in a few
 * instructions.
 *
 * Bounds: blocks of up to TACHY__H2_MEM_MAX bytes are rounded up to a power of two from 32
 * (8 classes); larger ones go straight to malloc. A session keeps at most
 * TACHY__H2_MEM_KEEP bytes of freed blocks, and none once it is idle (tachy__h2_mem_trim,
 * with the stream pool's trim): an idle connection costs what it did with malloc.
 */
#include "h2/internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Each block is preceded by a header; 16 bytes keep the block as aligned as malloc's. */
typedef struct {
    uint32_t cls;  /* size class, or TACHY__H2_MEM_CLASSES: from malloc, freed to it */
    uint32_t pad;
    size_t size;   /* the usable size */
} mem_hdr;
_Static_assert(sizeof(mem_hdr) == 16, "a block's header keeps malloc's 16-byte alignment");

#define CLASS_SIZE(k) ((size_t)32 << (k))

static unsigned size_class(size_t n) {
    if (n <= 32)
        return 0;
    return (unsigned)(64 - __builtin_clzll((unsigned long long)(n - 1))) - 5;
}

static void *mem_malloc(size_t size, void *ud) {
    tachy__h2_mem *m = ud;
    if (size > TACHY__H2_MEM_MAX) {
        if (size > SIZE_MAX - sizeof(mem_hdr))
            return NULL;
        mem_hdr *h = malloc(sizeof *h + size);
        if (!h)
            return NULL;
        h->cls = TACHY__H2_MEM_CLASSES;
        h->size = size;
        return h + 1;
    }
    unsigned k = size_class(size);
    mem_hdr *h = m->free_list[k];
    if (h) {
        m->free_list[k] = *(mem_hdr **)(h + 1);
        m->kept -= CLASS_SIZE(k);
        return h + 1;
    }
    h = malloc(sizeof *h + CLASS_SIZE(k));
    if (!h)
        return NULL;
    h->cls = k;
    h->size = CLASS_SIZE(k);
    return h + 1;
}

static void mem_free(void *ptr, void *ud) {
    tachy__h2_mem *m = ud;
    if (!ptr)
        return;
    mem_hdr *h = (mem_hdr *)ptr - 1;
    unsigned k = h->cls;
    if (k == TACHY__H2_MEM_CLASSES || m->kept + CLASS_SIZE(k) > TACHY__H2_MEM_KEEP) {
        free(h);
        return;
    }
    *(mem_hdr **)ptr = m->free_list[k];
    m->free_list[k] = h;
    m->kept += CLASS_SIZE(k);
}

static void *mem_calloc(size_t nmemb, size_t size, void *ud) {
    if (size && nmemb > SIZE_MAX / size)
        return NULL;
    void *p = mem_malloc(nmemb * size, ud);
    if (p)
        memset(p, 0, nmemb * size);
    return p;
}

static void *mem_realloc(void *ptr, size_t size, void *ud) {
    if (!ptr)
        return mem_malloc(size, ud);
    mem_hdr *h = (mem_hdr *)ptr - 1;
    if (size <= h->size && (h->cls == TACHY__H2_MEM_CLASSES || size > h->size / 2))
        return ptr; /* fits, and not so much smaller that it should move down a class */
    void *q = mem_malloc(size, ud);
    if (!q)
        return NULL; /* (ptr stays valid, as realloc's does) */
    memcpy(q, ptr, size < h->size ? size : h->size);
    mem_free(ptr, ud);
    return q;
}

nghttp2_mem tachy__h2_mem_of(tachy__h2_mem *m) {
    return (nghttp2_mem){m, mem_malloc, mem_free, mem_calloc, mem_realloc};
}

void tachy__h2_mem_trim(tachy__h2_mem *m) {
    for (unsigned k = 0; k < TACHY__H2_MEM_CLASSES; k++) {
        while (m->free_list[k]) {
            mem_hdr *h = m->free_list[k];
            m->free_list[k] = *(mem_hdr **)(h + 1);
            free(h);
        }
    }
    m->kept = 0;
}
