/*
 * filecache.c - see filecache.h. One mutex guards the hash table, the LRU list and the
 * accounting; file contents are read and descriptors duplicated outside it.
 */
#include "filecache.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct node {
    struct fc_entry pub;        /* first: an fc_entry pointer is a node pointer */
    atomic_int refs;            /* the table's reference (while linked) + each caller's */
    struct node *hnext;         /* hash chain */
    struct node *lprev, *lnext; /* LRU list, most recent first */
    uint64_t hash;
    char *key;
    size_t key_len;
    int64_t checked_ms; /* when the entry was last compared with the disk */
    int linked;
    char *mem; /* owned copy of the contents (pub.data) */
};

struct fc_cache {
    pthread_mutex_t lock;
    struct node **buckets;
    size_t nbuckets; /* a power of two */
    struct node *lru_head, *lru_tail;
    struct fc_limits lim;
    void (*fmt_date)(time_t, char *, size_t);
    size_t entries, bytes, fds;
    uint64_t hits, misses, reloads, revalidated, evictions;
};

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static uint64_t hash_key(const char *k, size_t n) {
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)k[i];
        h *= 1099511628211ull;
    }
    return h;
}

struct fc_cache *fc_create(const struct fc_limits *lim,
                           void (*fmt_date)(time_t t, char *out, size_t cap)) {
    struct fc_cache *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->lim = *lim;
    if (c->lim.max_entries == 0)
        c->lim.max_entries = 1;
    c->nbuckets = 64;
    while (c->nbuckets < c->lim.max_entries)
        c->nbuckets *= 2;
    c->buckets = calloc(c->nbuckets, sizeof *c->buckets);
    if (!c->buckets) {
        free(c);
        return NULL;
    }
    c->fmt_date = fmt_date;
    pthread_mutex_init(&c->lock, NULL);
    return c;
}

static void node_free(struct node *n) {
    if (n->pub.fd >= 0)
        close(n->pub.fd);
    free(n->mem);
    free((char *)n->pub.aux);
    free(n->key);
    free(n);
}

void fc_release(struct fc_entry *e) {
    if (!e)
        return;
    struct node *n = (struct node *)e;
    if (atomic_fetch_sub_explicit(&n->refs, 1, memory_order_acq_rel) == 1)
        node_free(n);
}

static struct node *find(struct fc_cache *c, uint64_t h, const char *key, size_t len) {
    for (struct node *n = c->buckets[h & (c->nbuckets - 1)]; n; n = n->hnext)
        if (n->hash == h && n->key_len == len && memcmp(n->key, key, len) == 0)
            return n;
    return NULL;
}

static void lru_remove(struct fc_cache *c, struct node *n) {
    if (n->lprev)
        n->lprev->lnext = n->lnext;
    else
        c->lru_head = n->lnext;
    if (n->lnext)
        n->lnext->lprev = n->lprev;
    else
        c->lru_tail = n->lprev;
    n->lprev = n->lnext = NULL;
}

static void lru_push_front(struct fc_cache *c, struct node *n) {
    n->lprev = NULL;
    n->lnext = c->lru_head;
    if (c->lru_head)
        c->lru_head->lprev = n;
    c->lru_head = n;
    if (!c->lru_tail)
        c->lru_tail = n;
}

/* Takes n out of the table (lock held) and drops the table's reference. */
static void unlink_node(struct fc_cache *c, struct node *n) {
    struct node **pp = &c->buckets[n->hash & (c->nbuckets - 1)];
    while (*pp && *pp != n)
        pp = &(*pp)->hnext;
    if (*pp)
        *pp = n->hnext;
    lru_remove(c, n);
    n->linked = 0;
    c->entries--;
    c->bytes -= n->mem ? (size_t)n->pub.size : 0;
    c->fds -= n->pub.fd >= 0 ? 1 : 0;
    fc_release(&n->pub);
}

static void link_node(struct fc_cache *c, struct node *n) {
    size_t b = n->hash & (c->nbuckets - 1);
    n->hnext = c->buckets[b];
    c->buckets[b] = n;
    lru_push_front(c, n);
    n->linked = 1;
    c->entries++;
    c->bytes += n->mem ? (size_t)n->pub.size : 0;
    c->fds += n->pub.fd >= 0 ? 1 : 0;
}

/* Drops least recently used entries (never keep) until adding one entry of `bytes` in
 * memory and `fds` descriptors stays within the limits. Lock held. */
static void make_room(struct fc_cache *c, size_t bytes, size_t fds, const struct node *keep) {
    struct node *n = c->lru_tail;
    while (n && (c->entries + 1 > c->lim.max_entries || c->bytes + bytes > c->lim.max_bytes ||
                 c->fds + fds > c->lim.max_fds)) {
        struct node *prev = n->lprev;
        if (n != keep) {
            unlink_node(c, n);
            c->evictions++;
        }
        n = prev;
    }
}

struct fc_entry *fc_lookup(struct fc_cache *c, const char *key, size_t key_len) {
    uint64_t h = hash_key(key, key_len);
    int64_t now = now_ms();
    pthread_mutex_lock(&c->lock);
    struct node *n = find(c, h, key, key_len);
    if (n && now - n->checked_ms < c->lim.ttl_ms) {
        atomic_fetch_add_explicit(&n->refs, 1, memory_order_relaxed);
        if (c->lru_head != n) {
            lru_remove(c, n);
            lru_push_front(c, n);
        }
        c->hits++;
        pthread_mutex_unlock(&c->lock);
        return &n->pub;
    }
    c->misses++;
    pthread_mutex_unlock(&c->lock);
    return NULL;
}

static int same_file(const struct stat *a, const struct stat *b) {
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
           a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

static struct node *node_new(const char *key, size_t key_len, uint64_t h) {
    struct node *n = calloc(1, sizeof *n);
    if (!n)
        return NULL;
    n->key = malloc(key_len + 1);
    if (!n->key) {
        free(n);
        return NULL;
    }
    memcpy(n->key, key, key_len);
    n->key[key_len] = '\0';
    n->key_len = key_len;
    n->hash = h;
    n->pub.fd = -1;
    atomic_init(&n->refs, 1); /* the table's */
    return n;
}

/* Puts n in the table in place of any entry with its key, and returns it with a caller
 * reference; or frees it and returns NULL when it cannot fit at all. */
static struct node *insert(struct fc_cache *c, struct node *n) {
    size_t bytes = n->mem ? (size_t)n->pub.size : 0, fds = n->pub.fd >= 0 ? 1 : 0;
    if (bytes > c->lim.max_bytes || fds > c->lim.max_fds) {
        node_free(n);
        return NULL;
    }
    pthread_mutex_lock(&c->lock);
    struct node *old = find(c, n->hash, n->key, n->key_len);
    if (old)
        unlink_node(c, old);
    make_room(c, bytes, fds, NULL);
    n->checked_ms = now_ms();
    link_node(c, n);
    atomic_fetch_add_explicit(&n->refs, 1, memory_order_relaxed);
    pthread_mutex_unlock(&c->lock);
    return n;
}

struct fc_entry *fc_store(struct fc_cache *c, const char *key, size_t key_len, int fd,
                          const struct stat *st, const char *type, const char *aux) {
    uint64_t h = hash_key(key, key_len);
    pthread_mutex_lock(&c->lock);
    struct node *old = find(c, h, key, key_len);
    if (old && !old->pub.missing && same_file(&old->pub.st, st)) {
        old->checked_ms = now_ms();
        atomic_fetch_add_explicit(&old->refs, 1, memory_order_relaxed);
        c->revalidated++;
        pthread_mutex_unlock(&c->lock);
        return &old->pub;
    }
    c->reloads++;
    pthread_mutex_unlock(&c->lock);

    if (!S_ISREG(st->st_mode) || st->st_size < 0)
        return NULL;
    struct node *n = node_new(key, key_len, h);
    if (!n)
        return NULL;
    n->pub.st = *st;
    n->pub.size = (int64_t)st->st_size;
    n->pub.type = type;
    if (aux && !(n->pub.aux = strdup(aux))) {
        node_free(n);
        return NULL;
    }
    if (c->fmt_date)
        c->fmt_date(st->st_mtime, n->pub.last_modified, sizeof n->pub.last_modified);
    snprintf(n->pub.size_text, sizeof n->pub.size_text, "%lld", (long long)n->pub.size);
    if ((size_t)st->st_size <= c->lim.small_max) {
        n->mem = malloc(n->pub.size ? (size_t)n->pub.size : 1);
        size_t got = 0;
        while (n->mem && got < (size_t)n->pub.size) {
            ssize_t r = pread(fd, n->mem + got, (size_t)n->pub.size - got, (off_t)got);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0)
                break;
            got += (size_t)r;
        }
        if (!n->mem || got != (size_t)n->pub.size) { /* the file changed under us */
            node_free(n);
            return NULL;
        }
        n->pub.data = n->mem;
    } else {
        n->pub.fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
        if (n->pub.fd < 0) {
            node_free(n);
            return NULL;
        }
    }
    n = insert(c, n);
    return n ? &n->pub : NULL;
}

void fc_store_missing(struct fc_cache *c, const char *key, size_t key_len) {
    struct node *n = node_new(key, key_len, hash_key(key, key_len));
    if (!n)
        return;
    n->pub.missing = 1;
    n = insert(c, n);
    if (n)
        fc_release(&n->pub);
}

void fc_get_stats(struct fc_cache *c, struct fc_stats *out) {
    pthread_mutex_lock(&c->lock);
    out->hits = c->hits;
    out->misses = c->misses;
    out->reloads = c->reloads;
    out->revalidated = c->revalidated;
    out->evictions = c->evictions;
    out->entries = c->entries;
    out->bytes = c->bytes;
    out->fds = c->fds;
    pthread_mutex_unlock(&c->lock);
}

void fc_destroy(struct fc_cache *c) {
    if (!c)
        return;
    pthread_mutex_lock(&c->lock);
    while (c->lru_head)
        unlink_node(c, c->lru_head);
    pthread_mutex_unlock(&c->lock);
    pthread_mutex_destroy(&c->lock);
    free(c->buckets);
    free(c);
}
