/*
 * fuzz_inflate.c - libFuzzer harness for the permessage-deflate codecs (deflate.c),
 * above all the inflater's output limit (the decompression-bomb guard).
 *
 * Input: one byte of options, two bytes of output limit, one byte of frame split, then
 * data. Two modes:
 * - raw: the data is taken as a compressed message from a peer, fed in two frames. The
 *   inflater must never hand out more than limit bytes: 0 means out->len <= limit,
 *   TACHY_ETOOBIG means it stopped at most one byte past it; any other result is
 *   TACHY_EPROTO. After a failure the inflater refuses further input.
 * - round trip: the data is compressed with tachy's deflater (window, level, context
 *   takeover from the options) and inflated again in two frames: the same bytes come back
 *   when they fit the limit, TACHY_ETOOBIG when they do not. Two messages in a row check
 *   context takeover on both sides.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "ws/ws.h"

static int inflate_frames(tachy__inflater *inf, const uint8_t *p, size_t n, size_t cut,
                          tachy__buf *out, size_t limit) {
    uint8_t *a = malloc(cut ? cut : 1), *b = malloc(n - cut ? n - cut : 1);
    FUZZ_CHECK(a && b);
    memcpy(a, p, cut);
    memcpy(b, p + cut, n - cut);
    int rc = tachy__inflater_feed(inf, a, cut, 0, out, limit);
    if (rc == 0)
        rc = tachy__inflater_feed(inf, b, n - cut, 1, out, limit);
    free(a);
    free(b);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_in in = {data, size};
    uint8_t opts = fuzz_u8(&in);
    size_t limit = fuzz_u16(&in);
    uint8_t split = fuzz_u8(&in);
    int nct = (opts >> 1) & 1;

    tachy__inflater *inf = NULL;
    if (tachy__inflater_create(&inf, nct) < 0)
        return 0;

    if ((opts & 1) == 0) { /* raw peer data */
        tachy__buf out = {0};
        size_t cut = in.n ? split % (in.n + 1) : 0;
        int rc = inflate_frames(inf, in.p, in.n, cut, &out, limit);
        FUZZ_CHECK(rc == 0 || rc == TACHY_ETOOBIG || rc == TACHY_EPROTO);
        if (rc == 0)
            FUZZ_CHECK(out.len <= limit);
        else if (rc == TACHY_ETOOBIG)
            FUZZ_CHECK(out.len <= limit + 1);
        if (rc < 0) {
            size_t before = out.len;
            FUZZ_CHECK(tachy__inflater_feed(inf, in.p, in.n, 1, &out, limit) == TACHY_EPROTO);
            FUZZ_CHECK(out.len == before);
        }
        tachy__buf_free(&out);
    } else { /* round trip through tachy's own deflater */
        int bits = 9 + (opts >> 2) % 7, level = (opts >> 5) % 10;
        tachy__deflater *def = NULL;
        if (tachy__deflater_create(&def, bits, 8, level, nct) < 0) {
            tachy__inflater_destroy(inf);
            return 0;
        }
        for (int msg = 0; msg < 2; msg++) {
            tachy__buf z = {0}, out = {0};
            FUZZ_CHECK(tachy__deflater_compress(def, in.p, in.n, &z) == 0);
            FUZZ_CHECK(z.len > 0);
            size_t cut = split % (z.len + 1);
            int rc = inflate_frames(inf, z.bytes, z.len, cut, &out, limit);
            if (in.n <= limit) {
                FUZZ_CHECK(rc == 0);
                FUZZ_CHECK(out.len == in.n);
                FUZZ_CHECK(in.n == 0 || memcmp(out.bytes, in.p, in.n) == 0);
            } else {
                FUZZ_CHECK(rc == TACHY_ETOOBIG);
                FUZZ_CHECK(out.len <= limit + 1);
            }
            tachy__buf_free(&z);
            tachy__buf_free(&out);
            if (rc < 0)
                break;
        }
        tachy__deflater_destroy(def);
    }
    tachy__inflater_destroy(inf);
    return 0;
}
