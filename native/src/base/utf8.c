/*
 * base/utf8.c - UTF-8 validation (RFC 3629), incremental (input split anywhere) and whole
 * buffer. Used by the WebSocket reader (text messages, close reasons). Pure, any thread.
 */
#include "base/base.h"

/* A byte-at-a-time automaton with an ASCII fast path. */

int tachy__utf8_feed(tachy__utf8 *u, const uint8_t *p, size_t n) {
    uint8_t need = u->need, lo = u->lo, hi = u->hi;
    size_t i = 0;
    while (i < n) {
        if (need == 0) {
            while (i + 8 <= n) { /* skip ASCII eight bytes at a time */
                uint64_t w;
                memcpy(&w, p + i, 8);
                if (w & 0x8080808080808080ull)
                    break;
                i += 8;
            }
            if (i >= n)
                break;
            uint8_t c = p[i++];
            if (c < 0x80)
                continue;
            if (c < 0xC2) /* stray continuation byte, or overlong C0/C1 lead */
                return -1;
            if (c < 0xE0) {
                need = 1;
                lo = 0x80;
                hi = 0xBF;
            } else if (c < 0xF0) {
                need = 2;
                lo = c == 0xE0 ? 0xA0 : 0x80; /* E0 80..9F would be overlong */
                hi = c == 0xED ? 0x9F : 0xBF; /* ED A0..BF are UTF-16 surrogates */
            } else if (c < 0xF5) {
                need = 3;
                lo = c == 0xF0 ? 0x90 : 0x80; /* F0 80..8F would be overlong */
                hi = c == 0xF4 ? 0x8F : 0xBF; /* F4 90.. is above U+10FFFF */
            } else {
                return -1;
            }
        } else {
            uint8_t c = p[i++];
            if (c < lo || c > hi)
                return -1;
            need--;
            lo = 0x80;
            hi = 0xBF;
        }
    }
    u->need = need;
    u->lo = lo;
    u->hi = hi;
    return 0;
}

int tachy__utf8_valid(const void *p, size_t n) {
    tachy__utf8 u;
    tachy__utf8_init(&u);
    return tachy__utf8_feed(&u, p, n) == 0 && tachy__utf8_complete(&u);
}

