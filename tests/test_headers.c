/* test_headers.c - tachy_headers: JDK Headers semantics on a flat, arena-backed multimap. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "http/http.h"

static int setup(void **state) {
    tachy_headers *h;
    if (tachy_headers_create(&h) != 0)
        return -1;
    *state = h;
    return 0;
}

static int teardown(void **state) {
    tachy_headers_destroy(*state);
    return 0;
}

static void create_destroy(void **state) {
    (void)state;
    tachy_headers *h = NULL;
    assert_int_equal(tachy_headers_create(NULL), TACHY_EINVAL);
    assert_int_equal(tachy_headers_create(&h), 0);
    assert_non_null(h);
    assert_int_equal(tachy_headers_count(h), 0);
    assert_int_equal(tachy_headers_pairs(h), 0);
    tachy_headers_destroy(h);
    tachy_headers_destroy(NULL);
}

/* The JDK's Headers.normalize: first char a-z upper, other A-Z lower, nothing else. */
static void normalisation_table(void **state) {
    (void)state;
    static const char *const table[][2] = {
        {"content-type", "Content-type"},
        {"CONTENT-TYPE", "Content-type"},
        {"Content-Type", "Content-type"},
        {"x-MIXED-case", "X-mixed-case"},
        {"a", "A"},
        {"Z", "Z"},
        {"1abc-DEF", "1abc-def"},
        {"-X", "-x"},
        {"_foo_BAR", "_foo_bar"},
        {"\xc3\xa9TAG", "\xc3\xa9tag"}, /* non-ASCII bytes untouched */
        {"ETag", "Etag"},
        {"www-authenticate", "Www-authenticate"},
        {"sec-WebSocket-Key", "Sec-websocket-key"},
        {"with space", "With space"}, /* the JDK does not validate tokens */
    };
    char out[64];
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        int n = tachy_headers_normalize(table[i][0], out, sizeof out);
        assert_int_equal(n, (int)strlen(table[i][1]));
        assert_string_equal(out, table[i][1]);
    }
    assert_int_equal(tachy_headers_normalize("", out, sizeof out), TACHY_EINVAL);
    assert_int_equal(tachy_headers_normalize(NULL, out, sizeof out), TACHY_EINVAL);
    assert_int_equal(tachy_headers_normalize("abc", NULL, 4), TACHY_EINVAL);
    assert_int_equal(tachy_headers_normalize("abc", out, 3), TACHY_EINVAL); /* no room for NUL */
    assert_int_equal(tachy_headers_normalize("abc", out, 4), 3);
    assert_int_equal(tachy_headers_normalize("a\rb", out, sizeof out), TACHY_EBADHEADER);
    assert_int_equal(tachy_headers_normalize("\nab", out, sizeof out), TACHY_EBADHEADER);
}

static void stored_names_are_normalised_and_lookups_ignore_case(void **state) {
    tachy_headers *h = *state;
    const char *name, *value;
    size_t cur = 0;
    assert_int_equal(tachy_headers_add(h, "x-MIXED-case", "v"), 0);
    assert_int_equal(tachy_headers_next(h, &cur, &name, &value), 1);
    assert_string_equal(name, "X-mixed-case");
    assert_string_equal(value, "v");
    assert_string_equal(tachy_headers_first(h, "X-MIXED-CASE"), "v");
    assert_string_equal(tachy_headers_first(h, "x-mixed-case"), "v");
    assert_string_equal(tachy_headers_first(h, "X-Mixed-Case"), "v");
    assert_true(tachy_headers_contains(h, "x-mixed-CASE"));
    assert_false(tachy_headers_contains(h, "x-mixed-cas"));
    assert_false(tachy_headers_contains(h, "x-mixed-cases"));
    assert_null(tachy_headers_first(h, "Other"));
    assert_null(tachy_headers_first(h, ""));
    assert_null(tachy_headers_first(h, NULL));
    assert_false(tachy_headers_contains(h, NULL));
}

static void multiple_values_keep_order(void **state) {
    tachy_headers *h = *state;
    const char *v[8];
    assert_int_equal(tachy_headers_add(h, "Accept", "a"), 0);
    assert_int_equal(tachy_headers_add(h, "Host", "h"), 0);
    assert_int_equal(tachy_headers_add(h, "accept", "b"), 0);
    assert_int_equal(tachy_headers_add(h, "ACCEPT", "c"), 0);
    assert_int_equal(tachy_headers_values(h, "Accept", v, 8), 3);
    assert_string_equal(v[0], "a");
    assert_string_equal(v[1], "b");
    assert_string_equal(v[2], "c");
    /* max smaller than the count: fills max, reports the total */
    v[1] = NULL;
    assert_int_equal(tachy_headers_values(h, "accept", v, 1), 3);
    assert_string_equal(v[0], "a");
    assert_null(v[1]);
    assert_int_equal(tachy_headers_values(h, "accept", NULL, 0), 3);
    assert_int_equal(tachy_headers_values(h, "missing", v, 8), 0);
    assert_string_equal(tachy_headers_first(h, "accept"), "a");
    assert_int_equal(tachy_headers_count(h), 2);
    assert_int_equal(tachy_headers_pairs(h), 4);
}

static void empty_values_are_values(void **state) {
    tachy_headers *h = *state;
    assert_int_equal(tachy_headers_add(h, "X-empty", ""), 0);
    assert_true(tachy_headers_contains(h, "x-empty"));
    assert_string_equal(tachy_headers_first(h, "x-empty"), "");
    assert_int_equal(tachy_headers_add_n(h, "X-empty", 7, NULL, 0), 0);
    assert_int_equal(tachy_headers_values(h, "x-empty", NULL, 0), 2);
}

static void set_replaces_all_values_in_place(void **state) {
    tachy_headers *h = *state;
    const char *name, *value, *v[4];
    size_t cur = 0;
    assert_int_equal(tachy_headers_add(h, "A", "1"), 0);
    assert_int_equal(tachy_headers_add(h, "B", "1"), 0);
    assert_int_equal(tachy_headers_add(h, "b", "2"), 0);
    assert_int_equal(tachy_headers_add(h, "C", "1"), 0);
    assert_int_equal(tachy_headers_set(h, "b", "only"), 0);
    assert_int_equal(tachy_headers_values(h, "B", v, 4), 1);
    assert_string_equal(v[0], "only");
    assert_int_equal(tachy_headers_count(h), 3);
    assert_int_equal(tachy_headers_pairs(h), 3);
    /* the name keeps its place */
    assert_int_equal(tachy_headers_next(h, &cur, &name, &value), 1);
    assert_string_equal(name, "A");
    assert_int_equal(tachy_headers_next(h, &cur, &name, &value), 1);
    assert_string_equal(name, "B");
    assert_string_equal(value, "only");
    assert_int_equal(tachy_headers_next(h, &cur, &name, &value), 1);
    assert_string_equal(name, "C");
    /* shorter, longer, much longer */
    assert_int_equal(tachy_headers_set(h, "A", ""), 0);
    assert_string_equal(tachy_headers_first(h, "a"), "");
    assert_int_equal(tachy_headers_set(h, "A", "a longer value than before"), 0);
    assert_string_equal(tachy_headers_first(h, "a"), "a longer value than before");
    char big[5000];
    memset(big, 'z', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    assert_int_equal(tachy_headers_set(h, "A", big), 0);
    assert_string_equal(tachy_headers_first(h, "a"), big);
    /* setting a value to itself (aliasing the stored string) is fine */
    assert_int_equal(tachy_headers_set(h, "A", tachy_headers_first(h, "A")), 0);
    assert_string_equal(tachy_headers_first(h, "a"), big);
    assert_int_equal(tachy_headers_set(h, "C", tachy_headers_first(h, "c")), 0);
    assert_string_equal(tachy_headers_first(h, "c"), "1");
    /* set on an absent name adds it at the end */
    assert_int_equal(tachy_headers_set(h, "D", "d"), 0);
    assert_int_equal(tachy_headers_count(h), 4);
    assert_string_equal(tachy_headers_first(h, "d"), "d");
}

/* Repeatedly replacing one header must not grow memory without bound. */
static void set_in_a_loop_reuses_storage(void **state) {
    tachy_headers *h = *state;
    char val[32];
    assert_int_equal(tachy_headers_add(h, "Keep", "me"), 0);
    const char *keep = tachy_headers_first(h, "keep");
    for (int i = 0; i < 100000; i++) {
        snprintf(val, sizeof val, "%d", i);
        assert_int_equal(tachy_headers_set(h, "Counter", val), 0);
    }
    assert_string_equal(tachy_headers_first(h, "counter"), "99999");
    assert_ptr_equal(tachy_headers_first(h, "keep"), keep); /* untouched entries never move */
    assert_string_equal(keep, "me");
}

static void borrowed_pointers_survive_later_adds(void **state) {
    tachy_headers *h = *state;
    char name[32];
    assert_int_equal(tachy_headers_add(h, "First", "value-1"), 0);
    const char *p = tachy_headers_first(h, "first");
    for (int i = 0; i < 2000; i++) {
        snprintf(name, sizeof name, "H%d", i);
        assert_int_equal(tachy_headers_add(h, name, "some value that takes room"), 0);
    }
    assert_ptr_equal(tachy_headers_first(h, "first"), p);
    assert_string_equal(p, "value-1");
}

static void remove_and_contains(void **state) {
    tachy_headers *h = *state;
    const char *name, *value;
    size_t cur = 0;
    assert_int_equal(tachy_headers_add(h, "A", "1"), 0);
    assert_int_equal(tachy_headers_add(h, "B", "1"), 0);
    assert_int_equal(tachy_headers_add(h, "B", "2"), 0);
    assert_int_equal(tachy_headers_add(h, "C", "1"), 0);
    assert_int_equal(tachy_headers_remove(h, "b"), 1);
    assert_int_equal(tachy_headers_remove(h, "b"), 0);
    assert_int_equal(tachy_headers_remove(h, "nope"), 0);
    assert_int_equal(tachy_headers_remove(h, NULL), 0);
    assert_false(tachy_headers_contains(h, "B"));
    assert_true(tachy_headers_contains(h, "A"));
    assert_true(tachy_headers_contains(h, "c"));
    assert_int_equal(tachy_headers_count(h), 2);
    assert_int_equal(tachy_headers_pairs(h), 2);
    assert_int_equal(tachy_headers_next(h, &cur, &name, &value), 1);
    assert_string_equal(name, "A");
    assert_int_equal(tachy_headers_next(h, &cur, &name, &value), 1);
    assert_string_equal(name, "C");
    assert_int_equal(tachy_headers_next(h, &cur, &name, &value), 0);
    /* removed then re-added goes to the end */
    assert_int_equal(tachy_headers_remove(h, "A"), 1);
    assert_int_equal(tachy_headers_add(h, "a", "again"), 0);
    cur = 0;
    assert_int_equal(tachy_headers_next(h, &cur, &name, &value), 1);
    assert_string_equal(name, "C");
    assert_int_equal(tachy_headers_next(h, &cur, &name, &value), 1);
    assert_string_equal(name, "A");
    assert_string_equal(value, "again");
    /* remove the last one, then everything */
    assert_int_equal(tachy_headers_remove(h, "a"), 1);
    assert_int_equal(tachy_headers_remove(h, "C"), 1);
    assert_int_equal(tachy_headers_count(h), 0);
    assert_int_equal(tachy_headers_pairs(h), 0);
}

static void iteration_groups_by_first_insertion(void **state) {
    tachy_headers *h = *state;
    static const char *const adds[][2] = {
        {"Via", "1"}, {"Host", "h"},    {"via", "2"},    {"Cookie", "c1"},
        {"VIA", "3"}, {"cookie", "c2"}, {"Accept", "a"},
    };
    static const char *const want[][2] = {
        {"Via", "1"},     {"Via", "2"},     {"Via", "3"},    {"Host", "h"},
        {"Cookie", "c1"}, {"Cookie", "c2"}, {"Accept", "a"},
    };
    const char *name, *value;
    size_t cur = 0, i = 0;
    for (size_t k = 0; k < sizeof adds / sizeof adds[0]; k++)
        assert_int_equal(tachy_headers_add(h, adds[k][0], adds[k][1]), 0);
    while (tachy_headers_next(h, &cur, &name, &value)) {
        assert_true(i < sizeof want / sizeof want[0]);
        assert_string_equal(name, want[i][0]);
        assert_string_equal(value, want[i][1]);
        i++;
    }
    assert_int_equal(i, sizeof want / sizeof want[0]);
    assert_int_equal(tachy_headers_next(h, &cur, &name, &value), 0); /* stays at the end */
    /* NULL outputs are allowed */
    cur = 0;
    assert_int_equal(tachy_headers_next(h, &cur, NULL, NULL), 1);
    assert_int_equal(tachy_headers_next(NULL, &cur, &name, &value), 0);
}

static void cr_lf_nul_are_refused_and_nothing_is_added(void **state) {
    tachy_headers *h = *state;
    assert_int_equal(tachy_headers_add(h, "Good", "v"), 0);
    assert_int_equal(tachy_headers_add(h, "X-a", "a\r\nSet-Cookie: evil"), TACHY_EBADHEADER);
    assert_int_equal(tachy_headers_add(h, "X-a", "a\rb"), TACHY_EBADHEADER);
    assert_int_equal(tachy_headers_add(h, "X-a", "a\nb"), TACHY_EBADHEADER);
    assert_int_equal(tachy_headers_add(h, "X-a", "\r\n continued"), TACHY_EBADHEADER);
    assert_int_equal(tachy_headers_add(h, "X\r\n-a", "v"), TACHY_EBADHEADER);
    assert_int_equal(tachy_headers_add(h, "\nX", "v"), TACHY_EBADHEADER);
    assert_int_equal(tachy_headers_add(h, "Good", "v\r"), TACHY_EBADHEADER);
    assert_int_equal(tachy_headers_set(h, "Good", "v\n"), TACHY_EBADHEADER);
    assert_int_equal(tachy_headers_set(h, "Go\rod", "v"), TACHY_EBADHEADER);
    assert_int_equal(tachy_headers_add_n(h, "X-a", 3, "a\0b", 3), TACHY_EBADHEADER);
    assert_int_equal(tachy_headers_add_n(h, "X\0a", 3, "ab", 2), TACHY_EBADHEADER);
    assert_int_equal(tachy_headers_add(h, "", "v"), TACHY_EINVAL);
    assert_int_equal(tachy_headers_set(h, "", "v"), TACHY_EINVAL);
    assert_int_equal(tachy_headers_add_n(h, "X", 0, "v", 1), TACHY_EINVAL);
    assert_int_equal(tachy_headers_add(h, NULL, "v"), TACHY_EINVAL);
    assert_int_equal(tachy_headers_add(h, "X", NULL), TACHY_EINVAL);
    assert_int_equal(tachy_headers_add_n(h, "X", 1, NULL, 3), TACHY_EINVAL);
    assert_int_equal(tachy_headers_add(NULL, "X", "v"), TACHY_EINVAL);
    assert_int_equal(tachy_headers_set(NULL, "X", "v"), TACHY_EINVAL);
    assert_int_equal(tachy_headers_count(h), 1);
    assert_int_equal(tachy_headers_pairs(h), 1);
    assert_string_equal(tachy_headers_first(h, "good"), "v");
    assert_false(tachy_headers_contains(h, "X-a"));
    assert_int_equal(tachy__headers_validate(h), 0);
}

static void add_n_needs_no_terminator(void **state) {
    tachy_headers *h = *state;
    const char buf[] = "content-lengthXXX12345YYY";
    assert_int_equal(tachy_headers_add_n(h, buf, 14, buf + 17, 5), 0);
    assert_string_equal(tachy_headers_first(h, "Content-Length"), "12345");
}

static void trusted_adds_and_validate(void **state) {
    tachy_headers *h = *state;
    const char *name, *value;
    size_t cur = 0;
    /* parser views are not NUL-terminated and not normalised */
    const char line[] = "HOST: example.com\r\n";
    assert_int_equal(tachy__headers_add_trusted(h, line, 4, line + 6, 11), 0);
    assert_int_equal(tachy_headers_next(h, &cur, &name, &value), 1);
    assert_string_equal(name, "Host");
    assert_string_equal(value, "example.com");
    assert_int_equal(tachy__headers_validate(h), 0);
    assert_int_equal(tachy__headers_add_trusted(h, "", 0, "v", 1), TACHY_EINVAL);
    /* trusted adds skip the check; validate catches what must never reach the wire */
    assert_int_equal(tachy__headers_add_trusted(h, "X-bad", 5, "a\r\nb", 4), 0);
    assert_int_equal(tachy__headers_validate(h), TACHY_EBADHEADER);
    assert_int_equal(tachy_headers_remove(h, "x-bad"), 1);
    assert_int_equal(tachy__headers_validate(h), 0);
    assert_int_equal(tachy__headers_add_trusted(h, "X-nul", 5, "a\0b", 3), 0);
    assert_int_equal(tachy__headers_validate(h), TACHY_EBADHEADER);
    tachy_headers_clear(h);
    assert_int_equal(tachy__headers_add_trusted(h, "X\nY", 3, "v", 1), 0);
    assert_int_equal(tachy__headers_validate(h), TACHY_EBADHEADER);
    assert_int_equal(tachy__headers_validate(NULL), TACHY_EINVAL);
}

static void a_thousand_headers(void **state) {
    tachy_headers *h = *state;
    char name[32], value[32];
    const char *v[3];
    for (int i = 0; i < 1000; i++) {
        snprintf(name, sizeof name, "x-header-%d", i);
        snprintf(value, sizeof value, "value %d", i);
        assert_int_equal(tachy_headers_add(h, name, value), 0);
        if (i % 10 == 0)
            assert_int_equal(tachy_headers_add(h, name, "again"), 0);
    }
    assert_int_equal(tachy_headers_count(h), 1000);
    assert_int_equal(tachy_headers_pairs(h), 1100);
    for (int i = 0; i < 1000; i++) {
        snprintf(name, sizeof name, "X-HEADER-%d", i);
        snprintf(value, sizeof value, "value %d", i);
        assert_int_equal(tachy_headers_values(h, name, v, 3), i % 10 == 0 ? 2 : 1);
        assert_string_equal(v[0], value);
        if (i % 10 == 0)
            assert_string_equal(v[1], "again");
    }
    /* iteration order: by first insertion, values grouped */
    const char *n, *val;
    size_t cur = 0;
    int i = 0;
    while (tachy_headers_next(h, &cur, &n, &val)) {
        snprintf(name, sizeof name, "X-header-%d", i);
        assert_string_equal(n, name);
        if (i % 10 == 0) {
            assert_int_equal(tachy_headers_next(h, &cur, &n, &val), 1);
            assert_string_equal(val, "again");
        }
        i++;
    }
    assert_int_equal(i, 1000);
    for (i = 999; i >= 0; i -= 2) {
        snprintf(name, sizeof name, "x-header-%d", i);
        assert_int_equal(tachy_headers_remove(h, name), 1);
    }
    assert_int_equal(tachy_headers_count(h), 500);
    assert_int_equal(tachy_headers_pairs(h), 500 + 100);
}

static void clear_and_reuse(void **state) {
    tachy_headers *h = *state;
    char name[32];
    for (int round = 0; round < 50; round++) {
        for (int i = 0; i < 20; i++) {
            snprintf(name, sizeof name, "h%d", i);
            assert_int_equal(tachy_headers_add(h, name, "a value of moderate length"), 0);
        }
        assert_int_equal(tachy_headers_count(h), 20);
        assert_string_equal(tachy_headers_first(h, "H19"), "a value of moderate length");
        tachy_headers_clear(h);
        assert_int_equal(tachy_headers_count(h), 0);
        assert_int_equal(tachy_headers_pairs(h), 0);
        assert_null(tachy_headers_first(h, "h1"));
        size_t cur = 0;
        assert_int_equal(tachy_headers_next(h, &cur, NULL, NULL), 0);
    }
    /* clear after something huge frees it; still usable */
    static char big[100000];
    memset(big, 'b', sizeof big - 1);
    assert_int_equal(tachy_headers_add(h, "Big", big), 0);
    tachy_headers_clear(h);
    assert_int_equal(tachy_headers_add(h, "Small", "s"), 0);
    assert_string_equal(tachy_headers_first(h, "small"), "s");
    tachy_headers_clear(NULL);
}

static void null_object_queries(void **state) {
    (void)state;
    size_t cur = 0;
    assert_null(tachy_headers_first(NULL, "a"));
    assert_int_equal(tachy_headers_values(NULL, "a", NULL, 0), 0);
    assert_int_equal(tachy_headers_remove(NULL, "a"), 0);
    assert_int_equal(tachy_headers_contains(NULL, "a"), 0);
    assert_int_equal(tachy_headers_count(NULL), 0);
    assert_int_equal(tachy_headers_pairs(NULL), 0);
    assert_int_equal(tachy_headers_next(NULL, &cur, NULL, NULL), 0);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(create_destroy),
        cmocka_unit_test(normalisation_table),
        T(stored_names_are_normalised_and_lookups_ignore_case),
        T(multiple_values_keep_order),
        T(empty_values_are_values),
        T(set_replaces_all_values_in_place),
        T(set_in_a_loop_reuses_storage),
        T(borrowed_pointers_survive_later_adds),
        T(remove_and_contains),
        T(iteration_groups_by_first_insertion),
        T(cr_lf_nul_are_refused_and_nothing_is_added),
        T(add_n_needs_no_terminator),
        T(trusted_adds_and_validate),
        T(a_thousand_headers),
        T(clear_and_reuse),
        cmocka_unit_test(null_object_queries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
