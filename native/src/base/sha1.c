/*
 * base/sha1.c - SHA-1 (FIPS 180-4, section 6.1), only for the WebSocket handshake's
 * Sec-WebSocket-Accept (RFC 6455 4.2.2). SHA-1 is not used for anything that needs
 * collision resistance here; a small own implementation keeps OpenSSL confined to tls/.
 */
#include "base/base.h"

#include <string.h>

typedef struct sha1_ctx {
    uint32_t h[5];
    uint64_t total; /* bytes fed */
    uint8_t block[64];
    size_t used; /* bytes in block */
} sha1_ctx;

static uint32_t rol(uint32_t x, int n) {
    return (x << n) | (x >> (32 - n));
}

static void sha1_block(uint32_t h[5], const uint8_t *p) {
    uint32_t w[80];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
               (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
    for (int i = 16; i < 80; i++)
        w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);

    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    for (int i = 0; i < 80; i++) {
        uint32_t f, k;
        if (i < 20) {
            f = (b & c) | (~b & d);
            k = 0x5A827999u;
        } else if (i < 40) {
            f = b ^ c ^ d;
            k = 0x6ED9EBA1u;
        } else if (i < 60) {
            f = (b & c) | (b & d) | (c & d);
            k = 0x8F1BBCDCu;
        } else {
            f = b ^ c ^ d;
            k = 0xCA62C1D6u;
        }
        uint32_t t = rol(a, 5) + f + e + k + w[i];
        e = d;
        d = c;
        c = rol(b, 30);
        b = a;
        a = t;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
}

static void sha1_update(sha1_ctx *c, const uint8_t *p, size_t len) {
    c->total += len;
    while (len > 0) {
        size_t take = 64 - c->used;
        if (take > len)
            take = len;
        memcpy(c->block + c->used, p, take);
        c->used += take;
        p += take;
        len -= take;
        if (c->used == 64) {
            sha1_block(c->h, c->block);
            c->used = 0;
        }
    }
}

void tachy__sha1(const void *data, size_t len, uint8_t out[20]) {
    sha1_ctx c = {{0x67452301u, 0xEFCDAB89u, 0x98BADCFEu, 0x10325476u, 0xC3D2E1F0u}, 0, {0}, 0};
    sha1_update(&c, data, len);

    /* Padding: 0x80, zeros up to 56 mod 64, then the bit length big-endian. */
    uint64_t bits = c.total * 8;
    uint8_t pad[72] = {0x80};
    size_t padlen = (c.used < 56) ? 56 - c.used : 120 - c.used;
    for (int i = 0; i < 8; i++)
        pad[padlen + i] = (uint8_t)(bits >> (56 - 8 * i));
    sha1_update(&c, pad, padlen + 8);

    for (int i = 0; i < 5; i++) {
        out[4 * i] = (uint8_t)(c.h[i] >> 24);
        out[4 * i + 1] = (uint8_t)(c.h[i] >> 16);
        out[4 * i + 2] = (uint8_t)(c.h[i] >> 8);
        out[4 * i + 3] = (uint8_t)c.h[i];
    }
}
