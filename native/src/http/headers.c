/*
 * http/headers.c - tachy_headers, the twin of com.sun.net.httpserver.Headers.
 *
 * This is on the hot path: every request parses ~5-20 fields into one of these and every
 * response sets a few, so the layout avoids per-entry allocations:
 *
 *  - one array of entries {name, value}, kept grouped by name: the values of a name are
 *    adjacent, and groups appear in the order their names were first added. Iteration
 *    is then a walk over the array, and lookups a linear scan (header counts are small;
 *    a per-entry hash of the lower-cased name makes most comparisons one integer test);
 *  - the strings live in a bump-allocated arena of blocks that never move, so a pointer
 *    handed out stays valid until its entry is removed or replaced, as headers.h
 *    promises, even while other entries are added. Blocks are only freed by clear and
 *    destroy; clear keeps one block and the entry array so that a keep-alive connection
 *    that reuses its headers objects allocates nothing in the steady state.
 *
 * Removed strings are reclaimed at once when they are the most recent allocation (so a
 * loop that keeps replacing the same header does not grow), otherwise at clear/destroy.
 *
 * Not synchronised: one thread at a time (see headers.h).
 */
#include "http/http.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct hdr_entry {
    char *name;  /* normalised, NUL-terminated; shared by every value of the name */
    char *value; /* NUL-terminated */
    size_t nlen;
    size_t vlen;
    uint32_t hash; /* of the ASCII-lower-cased name */
} hdr_entry;

typedef struct hdr_block {
    struct hdr_block *prev; /* older block */
    size_t cap;
    size_t used;
    char data[];
} hdr_block;

struct tachy_headers {
    hdr_entry *e;     /* grouped by name, groups in first-insertion order */
    size_t n;         /* entries (pairs) */
    size_t cap;       /* allocated entries */
    size_t names;     /* distinct names */
    hdr_block *arena; /* newest block first */
};

#define HDR_FIRST_BLOCK 512
#define HDR_MAX_BLOCK_STEP 32768 /* doubling stops here; bigger strings get their own */
#define HDR_KEEP_BLOCK 65536     /* clear() keeps the newest block up to this size */
#define HDR_KEEP_ENTRIES 256     /* ... and the entry array up to this many entries */

/* ---- small helpers ------------------------------------------------------------------ */

static inline unsigned char ascii_lower(unsigned char c) {
    return (c >= 'A' && c <= 'Z') ? (unsigned char)(c + ('a' - 'A')) : c;
}

/* Bytes 0..n-1 of s (n < 8) as the low bytes of a word, the rest zero. */
static inline uint64_t load_tail(const char *s, size_t n) {
    uint64_t w = 0;
    for (size_t i = 0; i < n; i++)
        w |= (uint64_t)(unsigned char)s[i] << (8 * i);
    return w;
}

/* A hash of the name that names equal ignoring ASCII case share: every byte is hashed with
 * its 0x20 bit set, so 'A' and 'a' agree (so do a few non-letters, such as '@' and '`':
 * harmless, equality is decided by name_equal). Eight bytes per step; names are short. */
static uint32_t name_hash(const char *s, size_t n) {
    const uint64_t k = 0x9e3779b97f4a7c15ull, case_bits = 0x2020202020202020ull;
    uint64_t h = k ^ n, w;
    if (n < 8) {
        h = (h ^ (load_tail(s, n) | case_bits)) * k;
        return (uint32_t)(h ^ (h >> 32));
    }
    /* Whole words, then the last eight bytes (overlapping the previous word unless n is a
     * multiple of 8: equal names of equal length still hash alike). */
    const char *last = s + n - 8;
    for (; s < last; s += 8) {
        memcpy(&w, s, 8);
        h = (h ^ (w | case_bits)) * k;
        h ^= h >> 29;
    }
    memcpy(&w, last, 8);
    h = (h ^ (w | case_bits)) * k;
    return (uint32_t)(h ^ (h >> 32));
}

/* ASCII 'A'-'Z' to lower case in each byte of w, every other byte (UTF-8 included)
 * untouched: a byte is upper case when its high bit is clear and its low seven bits are
 * at least 'A' and at most 'Z'; its 0x20 bit is then set. */
static inline uint64_t lower8(uint64_t w) {
    const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
    uint64_t low7 = w & ~high;
    uint64_t ge_a = low7 + ones * (0x80 - 'A'); /* high bit set when >= 'A' */
    uint64_t gt_z = low7 + ones * (0x7f - 'Z'); /* high bit set when >  'Z' */
    return w | (((ge_a ^ gt_z) & ~w & high) >> 2);
}

/* Case-insensitive (ASCII only, locale-independent) equality of two n-byte names. */
static int name_equal(const char *a, const char *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (ascii_lower((unsigned char)a[i]) != ascii_lower((unsigned char)b[i]))
            return 0;
    return 1;
}

/* The JDK's Headers.normalize: first char a-z upper-cased, every other A-Z lower-cased,
 * all other bytes (including UTF-8) untouched. dst may be src, not otherwise overlap. */
void tachy__headers_normalize_n(char *dst, const char *src, size_t n) {
    uint64_t w;
    if (n >= 8) {
        /* Whole words, then the last eight bytes (lower-casing twice is harmless). The
         * last word is read before any store, so dst == src works too. */
        uint64_t tail;
        memcpy(&tail, src + n - 8, 8);
        for (size_t i = 0; i < n - 8; i += 8) {
            memcpy(&w, src + i, 8);
            w = lower8(w);
            memcpy(dst + i, &w, 8);
        }
        tail = lower8(tail);
        memcpy(dst + n - 8, &tail, 8);
    } else {
        for (size_t i = 0; i < n; i++)
            dst[i] = (char)ascii_lower((unsigned char)src[i]);
    }
    if (n > 0 && dst[0] >= 'a' && dst[0] <= 'z')
        dst[0] = (char)(dst[0] - ('a' - 'A'));
}

/* 1 if s[0,n) holds CR, LF or NUL (forbidden in fields: RFC 9110 5.5, response
 * splitting), else 0. */
static int has_forbidden(const char *s, size_t n) {
    /* One unsigned compare rejects every byte above CR (the common case) at once. */
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c <= '\r' && (c == '\r' || c == '\n' || c == '\0'))
            return 1;
    }
    return 0;
}

/* ---- arena -------------------------------------------------------------------------- */

/* Bump-allocates n bytes (not aligned: strings only). NULL on overflow or ENOMEM. */
static char *arena_alloc(tachy_headers *h, size_t n) {
    hdr_block *b = h->arena;
    size_t cap;

    if (b != NULL && b->cap - b->used >= n) {
        char *p = b->data + b->used;
        b->used += n;
        return p;
    }
    cap = b == NULL ? HDR_FIRST_BLOCK : TACHY__MIN(b->cap * 2, (size_t)HDR_MAX_BLOCK_STEP);
    cap = TACHY__MAX(cap, n);
    if (cap > (size_t)PTRDIFF_MAX - sizeof *b)
        return NULL;
    b = malloc(sizeof *b + cap);
    if (b == NULL)
        return NULL;
    b->cap = cap;
    b->used = n;
    b->prev = h->arena;
    h->arena = b;
    return b->data;
}

/* Gives back the n bytes at p if they are the newest allocation; otherwise they stay
 * until clear/destroy. The bytes themselves are untouched. */
static void arena_release(tachy_headers *h, const char *p, size_t n) {
    hdr_block *b = h->arena;
    if (b != NULL && b->used >= n && p == b->data + (b->used - n))
        b->used -= n;
}

/* 1 if the n bytes at p are the newest allocation. */
static int arena_is_top(const tachy_headers *h, const char *p, size_t n) {
    const hdr_block *b = h->arena;
    return b != NULL && b->used >= n && p == b->data + (b->used - n);
}

/* Bytes still free in the newest block. */
static size_t arena_room(const tachy_headers *h) {
    return h->arena == NULL ? 0 : h->arena->cap - h->arena->used;
}

/* Copies s[0,n) plus a NUL into the arena. */
static char *arena_strdup(tachy_headers *h, const char *s, size_t n) {
    char *p;
    if (n == SIZE_MAX)
        return NULL;
    p = arena_alloc(h, n + 1);
    if (p == NULL)
        return NULL;
    if (n > 0)
        memmove(p, s, n); /* s may be the string being replaced (set with its own value) */
    p[n] = '\0';
    return p;
}

/* ---- lookup ------------------------------------------------------------------------- */

/* Index of the first entry of name's group, or h->n when absent. */
static size_t find_group(const tachy_headers *h, const char *name, size_t nlen, uint32_t hash) {
    for (size_t i = 0; i < h->n; i++) {
        const hdr_entry *e = &h->e[i];
        if (e->hash == hash && e->nlen == nlen && name_equal(e->name, name, nlen))
            return i;
    }
    return h->n;
}

/* One past the last entry of the group starting at i (entries of a group share the
 * name pointer). */
static size_t group_end(const tachy_headers *h, size_t i) {
    size_t j = i + 1;
    while (j < h->n && h->e[j].name == h->e[i].name)
        j++;
    return j;
}

/* Group start for a NUL-terminated lookup name, or h->n. Names that cannot be stored
 * (NULL, empty) are simply absent. */
static size_t lookup(const tachy_headers *h, const char *name) {
    size_t nlen;
    if (h == NULL || name == NULL || (nlen = strlen(name)) == 0)
        return h == NULL ? 0 : h->n;
    return find_group(h, name, nlen, name_hash(name, nlen));
}

/* Makes room for one more entry. */
static int reserve_entry(tachy_headers *h) {
    hdr_entry *p;
    size_t cap;
    if (h->n < h->cap)
        return 0;
    cap = h->cap ? h->cap * 2 : 16;
    if (cap > (size_t)PTRDIFF_MAX / sizeof *p)
        return TACHY_ENOMEM;
    p = realloc(h->e, cap * sizeof *p);
    if (p == NULL)
        return TACHY_ENOMEM;
    h->e = p;
    h->cap = cap;
    return 0;
}

/* ---- core operations (no validation) ------------------------------------------------ */

/* Appends a value to name's group, creating the group at the end if needed. On failure
 * nothing is added. */
static int add_hashed(tachy_headers *h, const char *name, size_t nlen, uint32_t hash,
                      size_t i, const char *value, size_t vlen);

static int add_unchecked(tachy_headers *h, const char *name, size_t nlen, const char *value,
                         size_t vlen) {
    uint32_t hash = name_hash(name, nlen);
    return add_hashed(h, name, nlen, hash, find_group(h, name, nlen, hash), value, vlen);
}

/* add_unchecked for a caller that already hashed the name and looked up its group i. */
static int add_hashed(tachy_headers *h, const char *name, size_t nlen, uint32_t hash,
                      size_t i, const char *value, size_t vlen) {
    int is_new = i == h->n;
    char *nstore, *vstore;
    hdr_entry *e;

    if (reserve_entry(h) < 0)
        return TACHY_ENOMEM;
    if (!is_new) {
        nstore = h->e[i].name;
        i = group_end(h, i); /* insert after the name's last value */
    } else {
        if (nlen == SIZE_MAX || (nstore = arena_alloc(h, nlen + 1)) == NULL)
            return TACHY_ENOMEM;
        tachy__headers_normalize_n(nstore, name, nlen);
        nstore[nlen] = '\0';
    }
    vstore = arena_strdup(h, value, vlen);
    if (vstore == NULL) {
        if (is_new)
            arena_release(h, nstore, nlen + 1);
        return TACHY_ENOMEM;
    }
    if (i < h->n)
        memmove(&h->e[i + 1], &h->e[i], (h->n - i) * sizeof *h->e);
    if (is_new)
        h->names++;
    e = &h->e[i];
    e->name = nstore;
    e->value = vstore;
    e->nlen = nlen;
    e->vlen = vlen;
    e->hash = hash;
    h->n++;
    return 0;
}

/* Removes entries [i, j) of one group, giving their strings back to the arena when they
 * are the newest allocation (newest first, so a whole trailing group unwinds). */
static void remove_range(tachy_headers *h, size_t i, size_t j, int drop_name) {
    for (size_t k = j; k > i; k--)
        arena_release(h, h->e[k - 1].value, h->e[k - 1].vlen + 1);
    if (drop_name) {
        arena_release(h, h->e[i].name, h->e[i].nlen + 1);
        h->names--;
    }
    memmove(&h->e[i], &h->e[j], (h->n - j) * sizeof *h->e);
    h->n -= j - i;
}

/* ---- validation --------------------------------------------------------------------- */

/* Checks what the public add/set accept: non-empty name, no CR/LF/NUL anywhere (the
 * JDK's Headers throws IllegalArgumentException for CR/LF; NUL cannot be represented
 * in the C API and would truncate on the wire). */
static int check_field(const char *name, size_t nlen, const char *value, size_t vlen) {
    if (name == NULL || nlen == 0 || (value == NULL && vlen > 0))
        return TACHY_EINVAL;
    if (has_forbidden(name, nlen) || (vlen > 0 && has_forbidden(value, vlen)))
        return TACHY_EBADHEADER;
    return 0;
}

/* Length of the C string s, or SIZE_MAX when it holds CR or LF. One SIMD pass (glibc's
 * strcspn with a two-byte set) both measures and checks: the public string calls are on
 * every response's path. */
static size_t checked_len(const char *s) {
    size_t n = strcspn(s, "\r\n");
    return s[n] == '\0' ? n : SIZE_MAX;
}

/* ---- public API ----------------------------------------------------------------------- */

/* Allocates an empty object (no arena yet: the first add allocates). Caller owns it. */
int tachy_headers_create(tachy_headers **out) {
    tachy_headers *h;
    if (out == NULL)
        return TACHY_EINVAL;
    h = calloc(1, sizeof *h);
    if (h == NULL)
        return TACHY_ENOMEM;
    *out = h;
    return 0;
}

/* Frees h, its entries and every arena block; borrowed strings die with it. */
void tachy_headers_destroy(tachy_headers *h) {
    if (h == NULL)
        return;
    while (h->arena != NULL) {
        hdr_block *prev = h->arena->prev;
        free(h->arena);
        h->arena = prev;
    }
    free(h->e);
    free(h);
}

/* Headers.add: copies name (normalised) and value. Owner thread only. */
int tachy_headers_add_n(tachy_headers *h, const char *name, size_t name_len, const char *value,
                        size_t value_len) {
    int rc;
    if (h == NULL)
        return TACHY_EINVAL;
    rc = check_field(name, name_len, value, value_len);
    if (rc < 0)
        return rc;
    return add_unchecked(h, name, name_len, value_len > 0 ? value : "", value_len);
}

int tachy_headers_add(tachy_headers *h, const char *name, const char *value) {
    size_t nlen, vlen;
    if (h == NULL || name == NULL || value == NULL || name[0] == '\0')
        return TACHY_EINVAL;
    if ((nlen = checked_len(name)) == SIZE_MAX || (vlen = checked_len(value)) == SIZE_MAX)
        return TACHY_EBADHEADER;
    return add_unchecked(h, name, nlen, value, vlen);
}

/* Parser path: the parser already refused CR/LF/NUL and empty names (RFC 9112), so only
 * normalisation and storage remain. Owner thread only. */
int tachy__headers_add_trusted(tachy_headers *h, const char *name, size_t nlen, const char *value,
                               size_t vlen) {
    if (h == NULL || name == NULL || nlen == 0 || (value == NULL && vlen > 0))
        return TACHY_EINVAL;
    return add_unchecked(h, name, nlen, vlen > 0 ? value : "", vlen);
}

/*
 * Headers.set: name ends up with exactly this one value, keeping the group's position
 * (like the JDK's map put on an existing key). The old first value's storage is reused
 * when the new value fits in it or when it is the newest arena allocation; borrowed
 * pointers to the replaced values become invalid, as headers.h allows. On failure nothing
 * changes.
 */
int tachy_headers_set(tachy_headers *h, const char *name, const char *value) {
    size_t nlen, vlen, i, j;
    hdr_entry *e;

    if (h == NULL || name == NULL || value == NULL || name[0] == '\0')
        return TACHY_EINVAL;
    if ((nlen = checked_len(name)) == SIZE_MAX || (vlen = checked_len(value)) == SIZE_MAX)
        return TACHY_EBADHEADER;
    uint32_t hash = name_hash(name, nlen);
    i = find_group(h, name, nlen, hash);
    if (i == h->n)
        return add_hashed(h, name, nlen, hash, i, value, vlen);

    j = group_end(h, i);
    e = &h->e[i];
    if (vlen <= e->vlen) {
        memmove(e->value, value, vlen + 1); /* value may alias e->value */
    } else if (j == i + 1 && arena_is_top(h, e->value, e->vlen + 1) &&
               arena_room(h) >= vlen - e->vlen) {
        /* Newest allocation with room behind it: grow in place. */
        arena_release(h, e->value, e->vlen + 1);
        e->value = arena_strdup(h, value, vlen); /* cannot fail: the room was checked */
    } else {
        char *v = arena_strdup(h, value, vlen);
        if (v == NULL)
            return TACHY_ENOMEM;
        e->value = v;
    }
    e->vlen = vlen;
    if (j > i + 1)
        remove_range(h, i + 1, j, 0);
    return 0;
}

/* Headers.getFirst. Borrowed. */
const char *tachy_headers_first(const tachy_headers *h, const char *name) {
    size_t i = lookup(h, name);
    return (h != NULL && i < h->n) ? h->e[i].value : NULL;
}

/* Headers.get: the values in insertion order (borrowed) and their total count. */
size_t tachy_headers_values(const tachy_headers *h, const char *name, const char **out,
                            size_t max) {
    size_t i = lookup(h, name), j, k;
    if (h == NULL || i == h->n)
        return 0;
    j = group_end(h, i);
    for (k = 0; k < j - i && k < max && out != NULL; k++)
        out[k] = h->e[i + k].value;
    return j - i;
}

/* Headers.remove. 1 if name was present. */
int tachy_headers_remove(tachy_headers *h, const char *name) {
    size_t i = lookup(h, name);
    if (h == NULL || i == h->n)
        return 0;
    remove_range(h, i, group_end(h, i), 1);
    return 1;
}

/* Headers.containsKey. */
int tachy_headers_contains(const tachy_headers *h, const char *name) {
    size_t i = lookup(h, name);
    return h != NULL && i < h->n;
}

/* Headers.size: distinct names. */
size_t tachy_headers_count(const tachy_headers *h) { return h == NULL ? 0 : h->names; }

/* Every (name, value) pair. */
size_t tachy_headers_pairs(const tachy_headers *h) { return h == NULL ? 0 : h->n; }

/* Headers.clear. Keeps the entry array and the newest arena block (if not huge) so a
 * reused object allocates nothing; every borrowed string becomes invalid. */
void tachy_headers_clear(tachy_headers *h) {
    hdr_block *keep;
    if (h == NULL)
        return;
    h->n = 0;
    h->names = 0;
    keep = h->arena;
    if (keep != NULL && keep->cap > HDR_KEEP_BLOCK)
        keep = NULL;
    while (h->arena != NULL) {
        hdr_block *prev = h->arena->prev;
        if (h->arena != keep)
            free(h->arena);
        h->arena = prev;
    }
    if (keep != NULL) {
        keep->used = 0;
        keep->prev = NULL;
    }
    h->arena = keep;
    if (h->cap > HDR_KEEP_ENTRIES) {
        free(h->e);
        h->e = NULL;
        h->cap = 0;
    }
}

/* Walks the pairs in array order, which is the documented grouped order. */
int tachy_headers_next(const tachy_headers *h, size_t *cursor, const char **name,
                       const char **value) {
    if (h == NULL || cursor == NULL || *cursor >= h->n)
        return 0;
    if (name != NULL)
        *name = h->e[*cursor].name;
    if (value != NULL)
        *value = h->e[*cursor].value;
    (*cursor)++;
    return 1;
}

int tachy__headers_next_n(const tachy_headers *h, size_t *cursor, const char **name,
                          size_t *nlen, const char **value, size_t *vlen) {
    if (*cursor >= h->n)
        return 0;
    const hdr_entry *e = &h->e[(*cursor)++];
    *name = e->name;
    *nlen = e->nlen;
    *value = e->value;
    *vlen = e->vlen;
    return 1;
}

/* Headers.normalize as a pure function. Empty names are refused (TACHY_EINVAL) because
 * no tachy call accepts them. Any thread. */
int tachy_headers_normalize(const char *name, char *out, size_t cap) {
    size_t n;
    if (name == NULL || out == NULL)
        return TACHY_EINVAL;
    n = strlen(name);
    if (n == 0)
        return TACHY_EINVAL;
    if (has_forbidden(name, n))
        return TACHY_EBADHEADER;
    if (n >= cap || n > INT_MAX)
        return TACHY_EINVAL;
    tachy__headers_normalize_n(out, name, n);
    out[n] = '\0';
    return (int)n;
}

/* Final check before serialising response headers: 0 or TACHY_EBADHEADER. Trusted adds
 * skip the check, so this is the last line against response splitting. Owner thread. */
int tachy__headers_validate(const tachy_headers *h) {
    if (h == NULL)
        return TACHY_EINVAL;
    for (size_t i = 0; i < h->n; i++) {
        const hdr_entry *e = &h->e[i];
        if (e->nlen == 0 || has_forbidden(e->name, e->nlen) || has_forbidden(e->value, e->vlen))
            return TACHY_EBADHEADER;
    }
    return 0;
}
