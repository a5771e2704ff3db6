/*
 * test_ws_utf8.c - the incremental UTF-8 validator behind RFC 6455 8.1 (text frames and
 * close reasons, 1007): valid text, invalid bytes, overlong forms, surrogates, code points
 * above U+10FFFF, truncated sequences, sequences split across fragments at every offset,
 * fail-fast position, and an exhaustive comparison with a reference decoder.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "ws/ws.h"

/* Reference: decodes by the definition (RFC 3629 section 4) and returns 1 if valid. */
static int reference_valid(const uint8_t *p, size_t n) {
    size_t i = 0;
    while (i < n) {
        uint8_t c = p[i];
        uint32_t cp;
        size_t len;
        if (c < 0x80) {
            i++;
            continue;
        } else if ((c & 0xE0) == 0xC0) {
            len = 2;
            cp = c & 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            len = 3;
            cp = c & 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            len = 4;
            cp = c & 0x07;
        } else {
            return 0;
        }
        if (i + len > n)
            return 0;
        for (size_t k = 1; k < len; k++) {
            if ((p[i + k] & 0xC0) != 0x80)
                return 0;
            cp = cp << 6 | (p[i + k] & 0x3F);
        }
        static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
        if (cp < min[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return 0;
        i += len;
    }
    return 1;
}

static int valid(const char *s, size_t n) {
    return tachy__utf8_valid(s, n);
}
#define VALID(lit) valid(lit, sizeof lit - 1)

static void accepts_valid_text(void **state) {
    (void)state;
    assert_true(VALID(""));
    assert_true(VALID("Hello, World!"));
    assert_true(VALID("\xce\xba\xe1\xbd\xb9\xcf\x83\xce\xbc\xce\xb5")); /* κόσμε */
    assert_true(VALID("\x7f"));                                         /* U+007F */
    assert_true(VALID("\xc2\x80"));                                     /* U+0080 */
    assert_true(VALID("\xdf\xbf"));                                     /* U+07FF */
    assert_true(VALID("\xe0\xa0\x80"));                                 /* U+0800 */
    assert_true(VALID("\xed\x9f\xbf"));                                 /* U+D7FF */
    assert_true(VALID("\xee\x80\x80"));                                 /* U+E000 */
    assert_true(VALID("\xef\xbf\xbd"));                                 /* U+FFFD */
    assert_true(VALID("\xef\xbf\xbf"));                                 /* U+FFFF */
    assert_true(VALID("\xf0\x90\x80\x80"));                             /* U+10000 */
    assert_true(VALID("\xf4\x8f\xbf\xbf"));                             /* U+10FFFF */
    assert_true(VALID("\xf0\x9f\x98\x80 emoji"));
    assert_true(valid("\0", 1)); /* NUL is a character */
}

static void rejects_invalid_bytes(void **state) {
    (void)state;
    assert_false(VALID("\x80")); /* lone continuation */
    assert_false(VALID("\xbf"));
    assert_false(VALID("a\x80"
                       "b"));
    assert_false(VALID("\xc2")); /* truncated */
    assert_false(VALID("\xe0\xa0"));
    assert_false(VALID("\xf0\x90\x80"));
    assert_false(VALID("\xc2"
                       "A")); /* lead then ASCII */
    assert_false(VALID("\xfe"));
    assert_false(VALID("\xff"));
    assert_false(VALID("\xf5\x80\x80\x80"));     /* leads F5..F7 would exceed U+10FFFF */
    assert_false(VALID("\xf8\x88\x80\x80\x80")); /* old 5-byte form */
    assert_false(VALID("\xfc\x84\x80\x80\x80\x80"));
}

static void rejects_overlong_forms(void **state) {
    (void)state;
    assert_false(VALID("\xc0\xaf")); /* '/' */
    assert_false(VALID("\xc1\xbf"));
    assert_false(VALID("\xe0\x80\xaf"));
    assert_false(VALID("\xe0\x9f\xbf"));
    assert_false(VALID("\xf0\x80\x80\xaf"));
    assert_false(VALID("\xf0\x8f\xbf\xbf"));
    assert_false(VALID("\xc0\x80")); /* "modified UTF-8" NUL */
}

static void rejects_surrogates_and_beyond_unicode(void **state) {
    (void)state;
    assert_false(VALID("\xed\xa0\x80"));             /* U+D800 */
    assert_false(VALID("\xed\xad\xbf"));             /* U+DB7F */
    assert_false(VALID("\xed\xbf\xbf"));             /* U+DFFF */
    assert_false(VALID("\xed\xa0\x80\xed\xb0\x80")); /* CESU-8 pair */
    assert_false(VALID("\xf4\x90\x80\x80"));         /* U+110000 */
    assert_false(VALID("\xf7\xbf\xbf\xbf"));
}

/* Every split of a valid text into two fragments validates; the state carries over. */
static void valid_across_fragments_at_every_offset(void **state) {
    (void)state;
    static const char text[] = "a\xc2\x80\xe0\xa0\x80\xed\x9f\xbf\xf0\x90\x80\x80\xf4\x8f\xbf\xbf"
                               "0123456789abcdef\xce\xba\xe1\xbd\xb9\xcf\x83\xce\xbc\xce\xb5z";
    const size_t n = sizeof text - 1;
    for (size_t a = 0; a <= n; a++) {
        for (size_t b = a; b <= n; b++) { /* three fragments: [0,a) [a,b) [b,n) */
            tachy__utf8 u;
            tachy__utf8_init(&u);
            assert_int_equal(tachy__utf8_feed(&u, (const uint8_t *)text, a), 0);
            assert_int_equal(tachy__utf8_feed(&u, (const uint8_t *)text + a, b - a), 0);
            assert_int_equal(tachy__utf8_feed(&u, (const uint8_t *)text + b, n - b), 0);
            assert_true(tachy__utf8_complete(&u));
        }
    }
}

/* A message whose last fragment ends inside a character is invalid (1007 at the end). */
static void truncated_at_the_end_of_a_message(void **state) {
    (void)state;
    static const char *seqs[] = {"\xc2\x80", "\xe0\xa0\x80", "\xf0\x90\x80\x80"};
    for (size_t s = 0; s < 3; s++) {
        size_t n = strlen(seqs[s]);
        for (size_t k = 1; k < n; k++) {
            tachy__utf8 u;
            tachy__utf8_init(&u);
            assert_int_equal(tachy__utf8_feed(&u, (const uint8_t *)"ok", 2), 0);
            assert_int_equal(tachy__utf8_feed(&u, (const uint8_t *)seqs[s], k), 0);
            assert_false(tachy__utf8_complete(&u));
        }
    }
}

/* Invalid input is reported by the feed call that contains the first bad byte, even
 * when that is not the message's last fragment (fail fast, RFC 6455 8.1). */
static void fails_fast_at_the_first_bad_byte(void **state) {
    (void)state;
    /* 'κόσμε' followed by a surrogate's first two bytes, then more text. */
    static const char text[] = "\xce\xba\xe1\xbd\xb9\xcf\x83\xce\xbc\xce\xb5\xed\xa0\x80"
                               "edited";
    const size_t bad_at = 12; /* index of \xa0: ED A0 is already impossible */
    for (size_t split = 0; split < sizeof text - 1; split++) {
        tachy__utf8 u;
        tachy__utf8_init(&u);
        int r1 = tachy__utf8_feed(&u, (const uint8_t *)text, split);
        if (split <= bad_at) {
            assert_int_equal(r1, 0);
            assert_int_equal(
                tachy__utf8_feed(&u, (const uint8_t *)text + split, sizeof text - 1 - split), -1);
        } else {
            assert_int_equal(r1, -1);
        }
    }
    /* The ASCII fast path does not skip over a bad byte in the middle of 8-byte words. */
    char buf[64];
    for (size_t pos = 0; pos < sizeof buf; pos++) {
        memset(buf, 'a', sizeof buf);
        buf[pos] = (char)0x80;
        tachy__utf8 u;
        tachy__utf8_init(&u);
        assert_int_equal(tachy__utf8_feed(&u, (const uint8_t *)buf, pos), 0);
        assert_int_equal(tachy__utf8_feed(&u, (const uint8_t *)buf + pos, sizeof buf - pos), -1);
    }
}

/* Every 1- and 2-byte sequence, every 3-byte sequence and a sample of 4-byte sequences
 * agree with the reference decoder, both whole and fed byte by byte. */
static void agrees_with_reference_decoder(void **state) {
    (void)state;
    uint8_t s[4];
    for (uint32_t x = 0; x < (1u << 16); x++) {
        s[0] = (uint8_t)(x >> 8);
        s[1] = (uint8_t)x;
        assert_int_equal(tachy__utf8_valid(s, 1), reference_valid(s, 1));
        assert_int_equal(tachy__utf8_valid(s, 2), reference_valid(s, 2));
    }
    for (uint32_t x = 0xC00000; x < (1u << 24); x++) { /* lead bytes C0..FF */
        s[0] = (uint8_t)(x >> 16);
        s[1] = (uint8_t)(x >> 8);
        s[2] = (uint8_t)x;
        int want = reference_valid(s, 3);
        if (tachy__utf8_valid(s, 3) != want)
            fail_msg("%02x %02x %02x", s[0], s[1], s[2]);
        tachy__utf8 u;
        tachy__utf8_init(&u);
        int ok = 1;
        for (int i = 0; i < 3 && ok; i++)
            ok = tachy__utf8_feed(&u, s + i, 1) == 0;
        assert_int_equal(ok && tachy__utf8_complete(&u), want);
    }
    uint32_t seed = 12345;
    for (int i = 0; i < 2000000; i++) {
        seed = seed * 1103515245u + 12345u;
        s[0] = (uint8_t)(0xF0 | ((seed >> 28) & 0x0F));
        s[1] = (uint8_t)(seed >> 8);
        s[2] = (uint8_t)(seed >> 16);
        s[3] = (uint8_t)(seed >> 3);
        if (i & 1) { /* bias towards continuation bytes so valid ones show up */
            s[1] = (uint8_t)(0x80 | (s[1] & 0x3F));
            s[2] = (uint8_t)(0x80 | (s[2] & 0x3F));
            s[3] = (uint8_t)(0x80 | (s[3] & 0x3F));
        }
        if (tachy__utf8_valid(s, 4) != reference_valid(s, 4))
            fail_msg("%02x %02x %02x %02x", s[0], s[1], s[2], s[3]);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(accepts_valid_text),
        cmocka_unit_test(rejects_invalid_bytes),
        cmocka_unit_test(rejects_overlong_forms),
        cmocka_unit_test(rejects_surrogates_and_beyond_unicode),
        cmocka_unit_test(valid_across_fragments_at_every_offset),
        cmocka_unit_test(truncated_at_the_end_of_a_message),
        cmocka_unit_test(fails_fast_at_the_first_bad_byte),
        cmocka_unit_test(agrees_with_reference_decoder),
    };
    return cmocka_run_group_tests_name("ws_utf8", tests, NULL, NULL);
}
