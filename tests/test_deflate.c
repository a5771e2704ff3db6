/*
 * test_deflate.c - permessage-deflate codecs (RFC 7692 7.2): the RFC's own examples,
 * round trips of many sizes, context takeover on and off, window bits, messages split
 * into frames at every offset, corrupt input, and the decompression-bomb limit (1009).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "ws/ws.h"

static void fill_text(uint8_t *p, size_t n, uint32_t seed) {
    static const char words[] = "the quick brown fox jumps over the lazy dog websocket tachy ";
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        p[i] = (seed >> 29) == 0 ? (uint8_t)(seed >> 16) : (uint8_t)words[i % (sizeof words - 1)];
    }
}

static void inflate_all(tachy__inflater *inf, const uint8_t *c, size_t n, tachy__buf *out) {
    out->len = 0;
    assert_int_equal(tachy__inflater_feed(inf, c, n, 1, out, SIZE_MAX), 0);
}

/* RFC 7692 7.2.3: the sample compressed messages decode to "Hello". */
static void rfc7692_examples(void **state) {
    (void)state;
    tachy__buf out = {0};
    tachy__inflater *inf;
    assert_int_equal(tachy__inflater_create(&inf, 0), 0);

    const uint8_t one[] = {0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00}; /* 7.2.3.1 */
    inflate_all(inf, one, sizeof one, &out);
    assert_int_equal(out.len, 5);
    assert_memory_equal(out.bytes, "Hello", 5);
    const uint8_t again[] = {0xf2, 0x00, 0x11, 0x00, 0x00}; /* 7.2.3.2: uses the window */
    inflate_all(inf, again, sizeof again, &out);
    assert_int_equal(out.len, 5);
    assert_memory_equal(out.bytes, "Hello", 5);
    const uint8_t bfinal[] = {0xf3, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00, 0x00}; /* 7.2.3.4 */
    inflate_all(inf, bfinal, sizeof bfinal, &out);
    assert_int_equal(out.len, 5);
    assert_memory_equal(out.bytes, "Hello", 5);
    inflate_all(inf, again, sizeof again, &out); /* the window survived the final block */
    assert_int_equal(out.len, 5);
    assert_memory_equal(out.bytes, "Hello", 5);
    tachy__inflater_destroy(inf);
    /* 7.2.3.3 (a stored block) ends byte-aligned, so the appended tail leaves the decoder
     * inside a new block header: it can only be the last message of a stream. */
    assert_int_equal(tachy__inflater_create(&inf, 0), 0);
    const uint8_t stored[] = {0x00, 0x05, 0x00, 0xfa, 0xff, 0x48, 0x65, 0x6c, 0x6c, 0x6f};
    inflate_all(inf, stored, sizeof stored, &out);
    assert_int_equal(out.len, 5);
    assert_memory_equal(out.bytes, "Hello", 5);
    tachy__inflater_destroy(inf);
    assert_int_equal(tachy__inflater_create(&inf, 0), 0);
    const uint8_t two_blocks[] = {0xf2, 0x48, 0x05, 0x00, 0x00, 0x00, 0xff,
                                  0xff, 0xca, 0xc9, 0xc9, 0x07, 0x00}; /* 7.2.3.5 */
    inflate_all(inf, two_blocks, sizeof two_blocks, &out);
    assert_int_equal(out.len, 5);
    assert_memory_equal(out.bytes, "Hello", 5);
    tachy__inflater_destroy(inf);

    /* Our compressor produces the RFC's bytes for the first "Hello" and a shorter form
     * for the second (context takeover). */
    tachy__deflater *d;
    assert_int_equal(tachy__deflater_create(&d, 15, 8, 9, 0), 0);
    out.len = 0;
    assert_int_equal(tachy__deflater_compress(d, "Hello", 5, &out), 0);
    assert_int_equal(out.len, sizeof one);
    assert_memory_equal(out.bytes, one, sizeof one);
    out.len = 0;
    assert_int_equal(tachy__deflater_compress(d, "Hello", 5, &out), 0);
    assert_int_equal(out.len, sizeof again);
    assert_memory_equal(out.bytes, again, sizeof again);
    tachy__deflater_destroy(d);
    tachy__buf_free(&out);
}

static void round_trip(int bits, int level, int snct, int cnct) {
    tachy__deflater *d;
    tachy__inflater *inf;
    assert_int_equal(tachy__deflater_create(&d, bits, 8, level, snct), 0);
    assert_int_equal(tachy__inflater_create(&inf, cnct), 0);
    static const size_t sizes[] = {0, 1, 2, 5, 100, 1000, 4096, 16383, 16384, 16385, 70000, 300000};
    uint8_t *msg = malloc(300000);
    assert_non_null(msg);
    tachy__buf c = {0}, out = {0};
    for (int round = 0; round < 2; round++) {
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            fill_text(msg, sizes[i], (uint32_t)(i + 100 * round));
            c.len = 0;
            assert_int_equal(tachy__deflater_compress(d, msg, sizes[i], &c), 0);
            assert_true(c.len >= 1);
            if (sizes[i] == 0) { /* RFC 7692 7.2.3.6 */
                assert_int_equal(c.len, 1);
                assert_int_equal(c.bytes[0], 0);
            }
            if (snct) { /* each message stands alone: a fresh inflater decodes it */
                tachy__inflater *fresh;
                assert_int_equal(tachy__inflater_create(&fresh, 0), 0);
                inflate_all(fresh, c.bytes, c.len, &out);
                assert_int_equal(out.len, sizes[i]);
                tachy__inflater_destroy(fresh);
            }
            inflate_all(inf, c.bytes, c.len, &out);
            assert_int_equal(out.len, sizes[i]);
            if (sizes[i])
                assert_memory_equal(out.bytes, msg, sizes[i]);
        }
    }
    free(msg);
    tachy__buf_free(&c);
    tachy__buf_free(&out);
    tachy__deflater_destroy(d);
    tachy__inflater_destroy(inf);
}

static void round_trips_with_context_takeover(void **state) {
    (void)state;
    round_trip(15, 1, 0, 0);
    round_trip(15, 9, 0, 0);
    round_trip(15, 0, 0, 0); /* level 0: stored blocks */
}

static void round_trips_without_context_takeover(void **state) {
    (void)state;
    round_trip(15, 6, 1, 1);
    round_trip(15, 6, 1, 0);
}

static void round_trips_small_windows(void **state) {
    (void)state;
    for (int bits = 8; bits <= 15; bits++)
        round_trip(bits, 6, bits & 1, 0);
    tachy__deflater *d;
    assert_int_equal(tachy__deflater_create(&d, 7, 8, 6, 0), TACHY_EINVAL);
    assert_int_equal(tachy__deflater_create(&d, 16, 8, 6, 0), TACHY_EINVAL);
    assert_int_equal(tachy__deflater_create(&d, 15, 0, 6, 0), TACHY_EINVAL);
    assert_int_equal(tachy__deflater_create(&d, 15, 8, 10, 0), TACHY_EINVAL);
}

/* Context takeover makes a repeated message shrink; without it every copy costs the same. */
static void context_takeover_is_observable(void **state) {
    (void)state;
    uint8_t msg[2000];
    fill_text(msg, sizeof msg, 7);
    for (int nct = 0; nct < 2; nct++) {
        tachy__deflater *d;
        assert_int_equal(tachy__deflater_create(&d, 15, 8, 6, nct), 0);
        tachy__buf a = {0}, b = {0};
        assert_int_equal(tachy__deflater_compress(d, msg, sizeof msg, &a), 0);
        assert_int_equal(tachy__deflater_compress(d, msg, sizeof msg, &b), 0);
        if (nct) {
            assert_int_equal(a.len, b.len);
            assert_memory_equal(a.bytes, b.bytes, a.len);
        } else {
            assert_true(b.len * 4 < a.len);
        }
        tachy__buf_free(&a);
        tachy__buf_free(&b);
        tachy__deflater_destroy(d);
    }
}

/* A compressed message spread over two frames at every split offset inflates the same. */
static void frames_split_at_every_offset(void **state) {
    (void)state;
    uint8_t msg[3000];
    fill_text(msg, sizeof msg, 99);
    tachy__deflater *d;
    assert_int_equal(tachy__deflater_create(&d, 15, 8, 6, 1), 0);
    tachy__buf c = {0}, out = {0};
    assert_int_equal(tachy__deflater_compress(d, msg, sizeof msg, &c), 0);
    tachy__inflater *inf;
    assert_int_equal(tachy__inflater_create(&inf, 1), 0);
    for (size_t split = 0; split <= c.len; split++) {
        out.len = 0;
        assert_int_equal(tachy__inflater_feed(inf, c.bytes, split, 0, &out, SIZE_MAX), 0);
        assert_int_equal(
            tachy__inflater_feed(inf, c.bytes + split, c.len - split, 1, &out, SIZE_MAX), 0);
        assert_int_equal(out.len, sizeof msg);
        assert_memory_equal(out.bytes, msg, sizeof msg);
    }
    /* Byte by byte, too. */
    out.len = 0;
    for (size_t i = 0; i < c.len; i++)
        assert_int_equal(tachy__inflater_feed(inf, c.bytes + i, 1, i + 1 == c.len, &out, SIZE_MAX),
                         0);
    assert_int_equal(out.len, sizeof msg);
    tachy__buf_free(&c);
    tachy__buf_free(&out);
    tachy__deflater_destroy(d);
    tachy__inflater_destroy(inf);
}

/* 16 MiB of zeros is ~16 KiB compressed; with a 1 MiB limit the inflater stops early,
 * having produced at most the limit plus one byte. */
static void decompression_bomb_hits_the_limit(void **state) {
    (void)state;
    const size_t big = 16u << 20, limit = 1u << 20;
    uint8_t *zeros = calloc(1, big);
    assert_non_null(zeros);
    tachy__deflater *d;
    assert_int_equal(tachy__deflater_create(&d, 15, 8, 9, 0), 0);
    tachy__buf c = {0}, out = {0};
    assert_int_equal(tachy__deflater_compress(d, zeros, big, &c), 0);
    free(zeros);
    assert_true(c.len < 100000);
    tachy__inflater *inf;
    assert_int_equal(tachy__inflater_create(&inf, 0), 0);
    assert_int_equal(tachy__inflater_feed(inf, c.bytes, c.len, 1, &out, limit), TACHY_ETOOBIG);
    assert_true(out.len > limit && out.len <= limit + 1);
    assert_true(out.cap <= 2 * limit + 65536);
    /* Broken afterwards: refuses further input. */
    assert_int_equal(tachy__inflater_feed(inf, c.bytes, 1, 1, &out, limit), TACHY_EPROTO);
    tachy__inflater_destroy(inf);

    /* Exactly at the limit is fine; one byte less is too big. */
    tachy__deflater_destroy(d);
    uint8_t small[1000] = {0};
    tachy__buf c2 = {0};
    assert_int_equal(tachy__deflater_create(&d, 15, 8, 9, 1), 0);
    assert_int_equal(tachy__inflater_create(&inf, 0), 0);
    c2.len = 0;
    assert_int_equal(tachy__deflater_compress(d, small, sizeof small, &c2), 0);
    out.len = 0;
    assert_int_equal(tachy__inflater_feed(inf, c2.bytes, c2.len, 1, &out, 1000), 0);
    assert_int_equal(out.len, 1000);
    tachy__inflater_destroy(inf);
    assert_int_equal(tachy__inflater_create(&inf, 0), 0);
    out.len = 0;
    assert_int_equal(tachy__inflater_feed(inf, c2.bytes, c2.len, 1, &out, 999), TACHY_ETOOBIG);
    tachy__inflater_destroy(inf);
    tachy__deflater_destroy(d);
    tachy__buf_free(&c);
    tachy__buf_free(&c2);
    tachy__buf_free(&out);
}

static void corrupt_data_is_a_protocol_error(void **state) {
    (void)state;
    tachy__inflater *inf;
    tachy__buf out = {0};
    const uint8_t bad_block_type[] = {0xff, 0xff, 0xff, 0xff}; /* BTYPE 11 is reserved */
    assert_int_equal(tachy__inflater_create(&inf, 0), 0);
    assert_int_equal(tachy__inflater_feed(inf, bad_block_type, 4, 1, &out, SIZE_MAX), TACHY_EPROTO);
    tachy__inflater_destroy(inf);
    const uint8_t bad_stored_len[] = {0x00, 0x05, 0x00, 0x00, 0x00, 'H'}; /* NLEN mismatch */
    assert_int_equal(tachy__inflater_create(&inf, 0), 0);
    assert_int_equal(
        tachy__inflater_feed(inf, bad_stored_len, sizeof bad_stored_len, 1, &out, SIZE_MAX),
        TACHY_EPROTO);
    tachy__inflater_destroy(inf);
    tachy__buf_free(&out);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rfc7692_examples),
        cmocka_unit_test(round_trips_with_context_takeover),
        cmocka_unit_test(round_trips_without_context_takeover),
        cmocka_unit_test(round_trips_small_windows),
        cmocka_unit_test(context_takeover_is_observable),
        cmocka_unit_test(frames_split_at_every_offset),
        cmocka_unit_test(decompression_bomb_hits_the_limit),
        cmocka_unit_test(corrupt_data_is_a_protocol_error),
    };
    return cmocka_run_group_tests_name("deflate", tests, NULL, NULL);
}
