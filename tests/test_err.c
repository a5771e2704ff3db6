/* test_err.c - the error table: every code has its own message and name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>
#include <tachy/tachy.h>

static void every_code_has_a_distinct_message(void **state) {
    (void)state;
    for (int c = -1; c > -(int)TACHY__EIDX_END; c--) {
        const char *m = tachy_strerror(c);
        assert_non_null(m);
        assert_string_not_equal(m, "unknown error");
        assert_true(strlen(m) > 0);
        for (int d = c - 1; d > -(int)TACHY__EIDX_END; d--)
            assert_string_not_equal(m, tachy_strerror(d));
    }
}

static void every_code_has_a_distinct_name(void **state) {
    (void)state;
    for (int c = -1; c > -(int)TACHY__EIDX_END; c--) {
        const char *n = tachy_err_name(c);
        assert_non_null(n);
        assert_string_not_equal(n, "UNKNOWN");
        for (int d = c - 1; d > -(int)TACHY__EIDX_END; d--)
            assert_string_not_equal(n, tachy_err_name(d));
    }
}

static void names_match_the_enum(void **state) {
    (void)state;
    assert_int_equal(TACHY_EINVAL, -1);
    assert_int_equal(TACHY_ENOMEM, -2);
    assert_string_equal(tachy_err_name(TACHY_EINVAL), "INVAL");
    assert_string_equal(tachy_err_name(TACHY_ENOMEM), "NOMEM");
    assert_string_equal(tachy_err_name(TACHY_EBADHEADER), "BADHEADER");
    assert_string_equal(tachy_err_name(TACHY_ENOTSUP), "NOTSUP");
    assert_string_equal(tachy_strerror(TACHY_ENOMEM), "out of memory");
    assert_string_equal(tachy_strerror(TACHY_EINVAL), "invalid argument");
}

static void unknown_codes(void **state) {
    (void)state;
    int unknown[] = {-(int)TACHY__EIDX_END, -1000, INT32_MIN, 1, 42, INT32_MAX};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        assert_string_equal(tachy_strerror(unknown[i]), "unknown error");
        assert_string_equal(tachy_err_name(unknown[i]), "UNKNOWN");
    }
}

static void zero_is_success(void **state) {
    (void)state;
    assert_string_equal(tachy_strerror(0), "success");
    assert_string_equal(tachy_err_name(0), "OK");
}

static void version(void **state) {
    (void)state;
    assert_string_equal(tachy_version(), TACHY_VERSION_STRING);
    assert_string_equal(tachy_version(), "0.1.0");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_code_has_a_distinct_message),
        cmocka_unit_test(every_code_has_a_distinct_name),
        cmocka_unit_test(names_match_the_enum),
        cmocka_unit_test(unknown_codes),
        cmocka_unit_test(zero_is_success),
        cmocka_unit_test(version),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
