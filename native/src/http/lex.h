/*
 * http/lex.h - the character classes of RFC 9110 5.6.2 / 5.5 and the error helper, shared by
 * the request-head parser (parser.c) and the chunked decoder (chunked.c). Private to http/.
 */
#ifndef TACHY__SRC_HTTP_LEX_H
#define TACHY__SRC_HTTP_LEX_H

#include "http/parser.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <stddef.h>

/* ---- character classes (RFC 9110 5.6.2, 5.5) ---------------------------------------- */

/* tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" /
 *         "|" / "~" / DIGIT / ALPHA */
/* clang-format off */
static const unsigned char tchar_tab[256] = {
    /* 0x00 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    /* 0x10 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    /*  !"#$%&'()*+,-./ */
    /* 0x20 */ 0, 1, 0, 1, 1, 1, 1, 1, 0, 0, 1, 1, 0, 1, 1, 0,
    /* 0123456789:;<=>? */
    /* 0x30 */ 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0,
    /* @ABCDEFGHIJKLMNO */
    /* 0x40 */ 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    /* PQRSTUVWXYZ[\]^_ */
    /* 0x50 */ 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 1,
    /* `abcdefghijklmno */
    /* 0x60 */ 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    /* pqrstuvwxyz{|}~DEL */
    /* 0x70 */ 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 1, 0,
    /* 0x80-0xff: obs-text is not a tchar */
};
/* clang-format on */

static inline int is_tchar(unsigned char c) { return tchar_tab[c]; }

static inline int is_ows(unsigned char c) { return c == ' ' || c == '\t'; }

static inline int is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

/* field-value bytes: VCHAR, obs-text, SP and HTAB; every other CTL (NUL, CR, LF, DEL...)
 * is refused (RFC 9110 5.5). */
static inline int is_field_byte(unsigned char c) { return c >= 0x20 ? c != 0x7f : c == '\t'; }

/* request-target bytes: any VCHAR or obs-text. The target's own grammar (origin-form,
 * absolute-form...) is checked by the exchange; here it is only what may sit between two
 * SPs (RFC 9112 3.2): no whitespace, no CTL. */
static inline int is_target_byte(unsigned char c) { return c > 0x20 && c != 0x7f; }

/*
 * Index of the first byte in buf[p, end) that is at most last_stop (unsigned) or DEL, or
 * end: last_stop 0x1f finds a control character (a field value's end), 0x20 also a space
 * (a request-target's end). Sixteen bytes at a time with SSE2 (every x86-64 has it);
 * never reads at or past end, so the guard-page tests hold.
 */
static inline size_t skip_above(const char *buf, size_t p, size_t end, unsigned char last_stop) {
#if defined(__SSE2__)
    const __m128i top = _mm_set1_epi8((char)last_stop), del = _mm_set1_epi8(0x7f);
    while (end - p >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(buf + p));
        __m128i low = _mm_cmpeq_epi8(_mm_min_epu8(v, top), v); /* v <= last_stop */
        int mask = _mm_movemask_epi8(_mm_or_si128(low, _mm_cmpeq_epi8(v, del)));
        if (mask)
            return p + (size_t)__builtin_ctz((unsigned)mask);
        p += 16;
    }
#endif
    while (p < end) {
        unsigned char c = (unsigned char)buf[p];
        if (c <= last_stop || c == 0x7f)
            break;
        p++;
    }
    return p;
}

static inline unsigned char ascii_lower(unsigned char c) {
    return (c >= 'A' && c <= 'Z') ? (unsigned char)(c | 0x20) : c;
}

/* Case-insensitive ASCII comparison of a view with a lower-case literal. */
static inline int str_ieq(const char *p, size_t n, const char *lit) {
    size_t i;
    if (strlen(lit) != n)
        return 0;
    for (i = 0; i < n; i++)
        if (ascii_lower((unsigned char)p[i]) != (unsigned char)lit[i])
            return 0;
    return 1;
}

static inline int fail(tachy__parse_error *err, int status, const char *reason) {
    if (err != NULL) {
        err->status = status;
        err->reason = reason;
    }
    return TACHY__PARSE_ERROR;
}

#endif
