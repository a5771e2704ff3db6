/*
 * base/buf.c - growable byte buffers (tachy__buf, see base.h).
 *
 * A buffer is a plain struct owned by whoever embeds it (a connection's read and write
 * buffers, an exchange's scratch space). It is not synchronised: one thread at a time.
 * Readable bytes are data[off, len); consuming only advances off, and space before off
 * is reclaimed by compaction when more room is needed, so a read loop that parses and
 * consumes pipelined requests never moves bytes more than once per refill.
 */
#include "base/base.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Smallest allocation: one small request head fits without a second growth. */
#define TACHY__BUF_MIN_CAP 256

/* Moves the readable bytes to the front. Keeps the memory. */
void tachy__buf_compact(tachy__buf *b) {
    size_t n = tachy__buf_size(b);
    if (b->off == 0)
        return;
    if (n > 0)
        memmove(b->data, b->data + b->off, n);
    b->off = 0;
    b->len = n;
}

/*
 * Ensures cap - len >= n. Compacts first when that alone makes room (cheaper than a
 * realloc that would copy the consumed prefix too); otherwise grows by doubling so that
 * appends are amortised O(1). Every size computation is checked: a request larger than
 * PTRDIFF_MAX fails with TACHY_ENOMEM without calling the allocator. On failure the
 * buffer is unchanged (apart from a possible compaction) and still valid.
 */
int tachy__buf_reserve_slow(tachy__buf *b, size_t n) {
    size_t used, need, cap;
    char *p;

    if (b->cap - b->len >= n)
        return 0;
    used = tachy__buf_size(b);
    if (n > (size_t)PTRDIFF_MAX - used)
        return TACHY_ENOMEM;
    need = used + n;
    if (need <= b->cap) {
        tachy__buf_compact(b);
        return 0;
    }
    cap = b->cap ? b->cap : TACHY__BUF_MIN_CAP;
    while (cap < need)
        cap = cap > (size_t)PTRDIFF_MAX / 2 ? need : cap * 2;
    /* Drop the consumed prefix before realloc so it is not copied. */
    tachy__buf_compact(b);
    p = realloc(b->data, cap);
    if (p == NULL)
        return TACHY_ENOMEM;
    b->data = p;
    b->cap = cap;
    return 0;
}

/* Appends n bytes from p (p may be NULL when n == 0). 0 or TACHY_ENOMEM (nothing added). */
int tachy__buf_append_slow(tachy__buf *b, const void *p, size_t n) {
    int rc;
    if (n == 0)
        return 0;
    rc = tachy__buf_reserve_slow(b, n);
    if (rc < 0)
        return rc;
    memcpy(b->data + b->len, p, n);
    b->len += n;
    return 0;
}

/* Appends s without its NUL. */
int tachy__buf_append_str(tachy__buf *b, const char *s) {
    return tachy__buf_append(b, s, strlen(s));
}

/* Appends v in decimal (no sign, no padding): Content-length values, chunk counts. */
int tachy__buf_append_u64(tachy__buf *b, uint64_t v) {
    if (tachy__buf_reserve(b, 20) < 0)
        return TACHY_ENOMEM;
    b->len += tachy__format_u64(b->data + b->len, v);
    return 0;
}

/* Appends v in lower-case hex without leading zeros: chunk-size lines (RFC 9112 7.1). */
int tachy__buf_append_hex(tachy__buf *b, uint64_t v) {
    static const char digits[] = "0123456789abcdef";
    char tmp[16];
    size_t i = sizeof tmp;
    do {
        tmp[--i] = digits[v & 0xf];
        v >>= 4;
    } while (v != 0);
    return tachy__buf_append(b, tmp + i, sizeof tmp - i);
}

/* Consumes n readable bytes (clamped to what is readable). When nothing is left, both
 * offsets go back to 0 so the next read lands at the start without any memmove. */
void tachy__buf_consume(tachy__buf *b, size_t n) {
    size_t avail = tachy__buf_size(b);
    if (n >= avail) {
        b->off = b->len = 0;
        return;
    }
    b->off += n;
}

/* Frees the memory; the struct is zeroed and reusable as an empty buffer. */
void tachy__buf_free(tachy__buf *b) {
    free(b->data);
    b->data = NULL;
    b->off = b->len = b->cap = 0;
}
