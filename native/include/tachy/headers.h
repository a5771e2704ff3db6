/*
 * tachy/headers.h - HTTP headers, the twin of com.sun.net.httpserver.Headers.
 *
 * An ordered, case-insensitive multimap from header names to values. Names are
 * normalised exactly as the JDK's Headers does: the first character is upper-cased
 * (if it is a-z), every other character lower-cased ("content-TYPE" -> "Content-type").
 * Entries keep insertion order; values of one name keep the order they were added in.
 *
 * Strings passed in are copied. Strings returned are borrowed: valid until the entry
 * is removed or replaced, or the headers object is destroyed (for an exchange's
 * headers: until the exchange ends).
 *
 * Threads: a headers object is not internally synchronised; use it from one thread at
 * a time (an exchange's headers belong to the thread running the exchange).
 */
#ifndef TACHY_HEADERS_H
#define TACHY_HEADERS_H

#include <stddef.h>
#include <tachy/export.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tachy_headers tachy_headers;

/* Creates an empty, standalone headers object. The caller owns it: tachy_headers_destroy.
 * Returns 0 or TACHY_ENOMEM / TACHY_EINVAL (out == NULL). */
TACHY_API int tachy_headers_create(tachy_headers **out);

/* Frees a standalone headers object; NULL is a no-op. Never call it on an exchange's
 * headers (the exchange owns those). */
TACHY_API void tachy_headers_destroy(tachy_headers *h);

/* Adds a value to name (after existing values). name must be non-empty; CR, LF or NUL
 * in the name or value gives TACHY_EBADHEADER (the JDK throws IllegalArgumentException
 * there) and nothing is added. */
TACHY_API int tachy_headers_add(tachy_headers *h, const char *name, const char *value);

/* Same as tachy_headers_add with explicit lengths (the bytes need not be NUL-terminated;
 * an embedded NUL is refused). */
TACHY_API int tachy_headers_add_n(tachy_headers *h, const char *name, size_t name_len,
                                  const char *value, size_t value_len);

/* Replaces every value of name with this single value (Headers.set). Same errors as add. */
TACHY_API int tachy_headers_set(tachy_headers *h, const char *name, const char *value);

/* First value of name (Headers.getFirst), or NULL. Borrowed. */
TACHY_API const char *tachy_headers_first(const tachy_headers *h, const char *name);

/* Stores up to max values of name into out (borrowed) and returns the total number of
 * values the name has (which may exceed max); 0 when absent. out may be NULL if max is 0. */
TACHY_API size_t tachy_headers_values(const tachy_headers *h, const char *name,
                                      const char **out, size_t max);

/* Removes name and all its values. Returns 1 if something was removed, else 0. */
TACHY_API int tachy_headers_remove(tachy_headers *h, const char *name);

/* 1 if name is present (Headers.containsKey), else 0. */
TACHY_API int tachy_headers_contains(const tachy_headers *h, const char *name);

/* Number of distinct names (Headers.size). */
TACHY_API size_t tachy_headers_count(const tachy_headers *h);

/* Number of (name, value) pairs, counting every value. */
TACHY_API size_t tachy_headers_pairs(const tachy_headers *h);

/* Removes everything (Headers.clear). */
TACHY_API void tachy_headers_clear(tachy_headers *h);

/*
 * Iterates over every (name, value) pair, grouped by name in the order names were
 * first added. Start with *cursor = 0; returns 1 and sets *name / *value (borrowed,
 * normalised name) while there is a pair, 0 at the end. Do not modify h while iterating.
 */
TACHY_API int tachy_headers_next(const tachy_headers *h, size_t *cursor, const char **name,
                                 const char **value);

/* Writes the JDK's normalised form of name into out (cap bytes, NUL-terminated).
 * Returns the length, or TACHY_EINVAL if it does not fit / TACHY_EBADHEADER. */
TACHY_API int tachy_headers_normalize(const char *name, char *out, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
