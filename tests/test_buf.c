/* test_buf.c - growable byte buffers: growth, consumption, compaction, overflow. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "base/base.h"

static void zero_initialised_is_empty(void **state) {
    (void)state;
    tachy__buf b = {0};
    assert_int_equal(tachy__buf_size(&b), 0);
    assert_int_equal(tachy__buf_append(&b, NULL, 0), 0);
    assert_null(b.data);
    assert_int_equal(tachy__buf_reserve(&b, 0), 0);
    tachy__buf_consume(&b, 10); /* harmless on empty */
    tachy__buf_compact(&b);
    tachy__buf_free(&b);
    tachy__buf_free(&b); /* twice is fine */
}

static void append_and_grow_by_doubling(void **state) {
    (void)state;
    tachy__buf b = {0};
    char chunk[100];
    size_t prev_cap = 0, growths = 0;

    for (size_t i = 0; i < 1000; i++) {
        memset(chunk, (int)('a' + i % 26), sizeof chunk);
        assert_int_equal(tachy__buf_append(&b, chunk, sizeof chunk), 0);
        if (b.cap != prev_cap) {
            if (prev_cap != 0)
                assert_true(b.cap >= 2 * prev_cap);
            prev_cap = b.cap;
            growths++;
        }
    }
    assert_int_equal(tachy__buf_size(&b), 100000);
    assert_true(growths < 20); /* amortised: logarithmic number of reallocs */
    for (size_t i = 0; i < 1000; i++)
        assert_int_equal(b.data[i * 100 + 99], 'a' + i % 26);
    tachy__buf_free(&b);
    assert_null(b.data);
    assert_int_equal(b.cap, 0);
}

static void append_numbers(void **state) {
    (void)state;
    tachy__buf b = {0};
    assert_int_equal(tachy__buf_append_u64(&b, 0), 0);
    assert_int_equal(tachy__buf_append_str(&b, " "), 0);
    assert_int_equal(tachy__buf_append_u64(&b, 1234567890), 0);
    assert_int_equal(tachy__buf_append_str(&b, " "), 0);
    assert_int_equal(tachy__buf_append_u64(&b, UINT64_MAX), 0);
    assert_int_equal(tachy__buf_append_str(&b, " "), 0);
    assert_int_equal(tachy__buf_append_hex(&b, 0), 0);
    assert_int_equal(tachy__buf_append_str(&b, " "), 0);
    assert_int_equal(tachy__buf_append_hex(&b, 0x1a2B), 0);
    assert_int_equal(tachy__buf_append_str(&b, " "), 0);
    assert_int_equal(tachy__buf_append_hex(&b, UINT64_MAX), 0);
    assert_int_equal(tachy__buf_append_str(&b, ""), 0);
    const char *want = "0 1234567890 18446744073709551615 0 1a2b ffffffffffffffff";
    assert_int_equal(tachy__buf_size(&b), strlen(want));
    assert_memory_equal(b.data + b.off, want, strlen(want));
    tachy__buf_free(&b);
}

static void consume_and_reset(void **state) {
    (void)state;
    tachy__buf b = {0};
    assert_int_equal(tachy__buf_append_str(&b, "GET / HTTP/1.1\r\n"), 0);
    tachy__buf_consume(&b, 4);
    assert_int_equal(b.off, 4);
    assert_int_equal(tachy__buf_size(&b), 12);
    assert_memory_equal(b.data + b.off, "/ HTTP/1.1\r\n", 12);
    tachy__buf_consume(&b, 12);
    /* fully consumed: back to the start without a memmove */
    assert_int_equal(b.off, 0);
    assert_int_equal(b.len, 0);
    assert_int_equal(tachy__buf_append_str(&b, "xyz"), 0);
    tachy__buf_consume(&b, 100); /* clamped */
    assert_int_equal(tachy__buf_size(&b), 0);
    assert_int_equal(b.off, 0);
    tachy__buf_reset(&b);
    assert_non_null(b.data); /* reset keeps memory */
    tachy__buf_free(&b);
}

static void compact_moves_readable_bytes(void **state) {
    (void)state;
    tachy__buf b = {0};
    assert_int_equal(tachy__buf_append_str(&b, "0123456789"), 0);
    tachy__buf_consume(&b, 6);
    tachy__buf_compact(&b);
    assert_int_equal(b.off, 0);
    assert_int_equal(b.len, 4);
    assert_memory_equal(b.data, "6789", 4);
    tachy__buf_free(&b);
}

static void reserve_compacts_before_growing(void **state) {
    (void)state;
    tachy__buf b = {0};
    assert_int_equal(tachy__buf_reserve(&b, 1), 0);
    size_t cap = b.cap;
    char *data = b.data;
    char fill[4096];
    memset(fill, 'x', sizeof fill);
    assert_true(cap <= sizeof fill);
    /* fill completely, consume all but 2 bytes, then ask for cap - 2: fits after compaction */
    assert_int_equal(tachy__buf_append(&b, fill, cap), 0);
    b.data[cap - 2] = 'A';
    b.data[cap - 1] = 'B';
    tachy__buf_consume(&b, cap - 2);
    assert_int_equal(tachy__buf_reserve(&b, cap - 2), 0);
    assert_int_equal(b.cap, cap);
    assert_ptr_equal(b.data, data);
    assert_int_equal(b.off, 0);
    assert_memory_equal(b.data, "AB", 2);
    /* one more byte than that forces growth, keeping the readable bytes */
    assert_int_equal(tachy__buf_reserve(&b, cap - 1), 0);
    assert_true(b.cap >= 2 * cap);
    assert_int_equal(tachy__buf_size(&b), 2);
    assert_memory_equal(b.data + b.off, "AB", 2);
    tachy__buf_free(&b);
}

static void growth_keeps_only_readable_bytes(void **state) {
    (void)state;
    tachy__buf b = {0};
    char big[1000];
    memset(big, 'q', sizeof big);
    assert_int_equal(tachy__buf_append(&b, big, sizeof big), 0);
    assert_int_equal(tachy__buf_append_str(&b, "tail"), 0);
    tachy__buf_consume(&b, sizeof big);
    assert_int_equal(tachy__buf_reserve(&b, 10 * b.cap), 0);
    assert_int_equal(b.off, 0);
    assert_int_equal(tachy__buf_size(&b), 4);
    assert_memory_equal(b.data, "tail", 4);
    tachy__buf_free(&b);
}

static void overflow_is_enomem(void **state) {
    (void)state;
    tachy__buf b = {0};
    assert_int_equal(tachy__buf_append_str(&b, "abc"), 0);
    char *data = b.data;
    size_t cap = b.cap;
    /* sizes whose sum with the readable bytes overflows, or exceeds PTRDIFF_MAX, fail
     * without reaching the allocator and leave the buffer intact */
    assert_int_equal(tachy__buf_reserve(&b, SIZE_MAX), TACHY_ENOMEM);
    assert_int_equal(tachy__buf_reserve(&b, SIZE_MAX - 2), TACHY_ENOMEM);
    assert_int_equal(tachy__buf_reserve(&b, (size_t)PTRDIFF_MAX), TACHY_ENOMEM);
    assert_int_equal(tachy__buf_append(&b, "x", SIZE_MAX), TACHY_ENOMEM);
    assert_ptr_equal(b.data, data);
    assert_int_equal(b.cap, cap);
    assert_int_equal(tachy__buf_size(&b), 3);
    assert_memory_equal(b.data + b.off, "abc", 3);
    tachy__buf_free(&b);
}

static void reuse_after_free(void **state) {
    (void)state;
    tachy__buf b = {0};
    assert_int_equal(tachy__buf_append_str(&b, "one"), 0);
    tachy__buf_free(&b);
    assert_int_equal(tachy__buf_append_str(&b, "two"), 0);
    assert_memory_equal(b.data + b.off, "two", 3);
    tachy__buf_free(&b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(zero_initialised_is_empty),
        cmocka_unit_test(append_and_grow_by_doubling),
        cmocka_unit_test(append_numbers),
        cmocka_unit_test(consume_and_reset),
        cmocka_unit_test(compact_moves_readable_bytes),
        cmocka_unit_test(reserve_compacts_before_growing),
        cmocka_unit_test(growth_keeps_only_readable_bytes),
        cmocka_unit_test(overflow_is_enomem),
        cmocka_unit_test(reuse_after_free),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
