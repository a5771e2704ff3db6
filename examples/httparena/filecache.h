/*
 * filecache.h - a bounded open-file / metadata cache for static file handlers
 * (tachy-fileserver and tachy-arena share it).
 *
 * What a hit costs: one clock read (CLOCK_MONOTONIC_COARSE, no system call), one mutex
 * round trip, a hash lookup. The file is neither opened nor stat'ed: small files are kept
 * in memory, larger ones keep an open descriptor for sendfile.
 *
 * Following the disk: an entry is trusted for `ttl_ms` after it was last checked against
 * the file system. After that fc_lookup reports a miss, the caller resolves the path again
 * with its own rules (symlink refusal, hidden names...) and hands the result to fc_store,
 * which compares the file's identity (device, inode, size, mtime, ctime) with the cached
 * one: unchanged -> the entry is trusted for another ttl; changed -> the entry is
 * replaced. So a file replaced on disk is served within ttl_ms (plus one request).
 *
 * Bounds: at most max_entries entries, at most max_bytes of file contents in memory, at
 * most max_fds descriptors kept open; the least recently used entries are dropped first.
 *
 * Threads: every function may be called from any thread; entries are reference-counted so
 * a replaced or evicted entry stays valid for whoever still serves it.
 */
#ifndef TACHY_EXAMPLES_FILECACHE_H
#define TACHY_EXAMPLES_FILECACHE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

struct fc_cache;

/* One cached file. Every field is read-only for users and valid until fc_release. */
struct fc_entry {
    int missing;            /* a negative entry: the file did not exist when checked     */
    const char *data;       /* the whole contents when the file is small, else NULL        */
    int fd;                 /* an open descriptor (pread/sendfile) when data is NULL, or -1 */
    int64_t size;           /* bytes                                                       */
    struct stat st;         /* the stat the entry was built from                           */
    const char *type;       /* Content-type given to fc_store (borrowed static string)     */
    const char *aux;        /* the caller's string given to fc_store (copied), or NULL      */
    char last_modified[48]; /* st_mtime formatted by the cache's date function          */
    char size_text[24];     /* size in decimal, for Content-length                         */
};

struct fc_limits {
    size_t max_entries; /* entries (including negative ones)                           */
    size_t max_bytes;   /* bytes of file contents kept in memory                       */
    size_t max_fds;     /* descriptors kept open for large files                       */
    size_t small_max;   /* files up to this size are kept in memory                    */
    long ttl_ms;        /* how long a check against the disk is trusted                */
};

/* Creates a cache. fmt_date formats a file time for fc_entry.last_modified (called once
 * per stored file). Returns NULL when out of memory. */
struct fc_cache *fc_create(const struct fc_limits *lim,
                           void (*fmt_date)(time_t t, char *out, size_t cap));

/* Frees the cache. Entries still held by callers stay valid until their fc_release. */
void fc_destroy(struct fc_cache *c);

/* The entry for key if it was checked against the disk less than ttl_ms ago (a negative
 * one included: check ->missing), with a reference the caller drops with fc_release; else
 * NULL (absent or due for a check: resolve and call fc_store / fc_store_missing). */
struct fc_entry *fc_lookup(struct fc_cache *c, const char *key, size_t key_len);

/* After a miss: fd is the caller's open descriptor of the regular file key names, st its
 * fstat. Returns the entry to serve (the cached one when the file is unchanged, else a new
 * one), with a reference, or NULL when the file cannot be cached (out of memory, a read
 * failed, too many descriptors...): serve from fd then. fd stays the caller's (a large
 * file's descriptor is duplicated). type and aux describe the response (type borrowed,
 * aux copied; both may be NULL). */
struct fc_entry *fc_store(struct fc_cache *c, const char *key, size_t key_len, int fd,
                          const struct stat *st, const char *type, const char *aux);

/* After a miss: records that key names no file, so lookups answer `missing` for ttl_ms
 * without touching the disk. For callers whose 404 may lag a new file by ttl_ms. */
void fc_store_missing(struct fc_cache *c, const char *key, size_t key_len);

/* Drops a reference from fc_lookup / fc_store. NULL is a no-op. */
void fc_release(struct fc_entry *e);

/* Counters for tests and benchmarks. */
struct fc_stats {
    uint64_t hits, misses, reloads, revalidated, evictions;
    size_t entries, bytes, fds;
};
void fc_get_stats(struct fc_cache *c, struct fc_stats *out);

#endif
