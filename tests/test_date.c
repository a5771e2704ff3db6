/* test_date.c - IMF-fixdate formatting (RFC 9110 5.6.7) and the per-thread cache. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/base.h"

static void expect(int64_t t, const char *want) {
    char out[TACHY__DATE_LEN + 1];
    memset(out, '#', sizeof out);
    tachy__date_format(t, out);
    assert_string_equal(out, want);
    assert_int_equal(strlen(out), TACHY__DATE_LEN);
}

static void known_epochs(void **state) {
    (void)state;
    expect(0, "Thu, 01 Jan 1970 00:00:00 GMT");
    expect(784111777, "Sun, 06 Nov 1994 08:49:37 GMT"); /* RFC 9110's example */
    expect(86399, "Thu, 01 Jan 1970 23:59:59 GMT");
    expect(86400, "Fri, 02 Jan 1970 00:00:00 GMT");
    expect(946684799, "Fri, 31 Dec 1999 23:59:59 GMT");
    expect(946684800, "Sat, 01 Jan 2000 00:00:00 GMT");
    expect(1700000000, "Tue, 14 Nov 2023 22:13:20 GMT");
}

static void leap_years(void **state) {
    (void)state;
    expect(951782400, "Tue, 29 Feb 2000 00:00:00 GMT"); /* divisible by 400: leap */
    expect(951868800, "Wed, 01 Mar 2000 00:00:00 GMT");
    expect(1709164800, "Thu, 29 Feb 2024 00:00:00 GMT");
    expect(1709251199, "Thu, 29 Feb 2024 23:59:59 GMT");
    expect(1709251200, "Fri, 01 Mar 2024 00:00:00 GMT");
    expect(4107542400, "Mon, 01 Mar 2100 00:00:00 GMT"); /* 2100 is not a leap year */
    expect(4107456000, "Sun, 28 Feb 2100 00:00:00 GMT");
    expect(1078012800, "Sun, 29 Feb 2004 00:00:00 GMT");
    expect(1104451200, "Fri, 31 Dec 2004 00:00:00 GMT"); /* day 366 of a leap year */
}

static void beyond_2038(void **state) {
    (void)state;
    expect(2147483647, "Tue, 19 Jan 2038 03:14:07 GMT");
    expect(2147483648, "Tue, 19 Jan 2038 03:14:08 GMT");
    expect(4102444800, "Fri, 01 Jan 2100 00:00:00 GMT");
    expect(32503680000, "Wed, 01 Jan 3000 00:00:00 GMT");
    expect(253402300799, "Fri, 31 Dec 9999 23:59:59 GMT");
}

static void before_1970_and_clamping(void **state) {
    (void)state;
    expect(-1, "Wed, 31 Dec 1969 23:59:59 GMT");
    expect(-86400, "Wed, 31 Dec 1969 00:00:00 GMT");
    expect(-2208988800, "Mon, 01 Jan 1900 00:00:00 GMT");
    expect(-62135596800, "Mon, 01 Jan 0001 00:00:00 GMT");
    /* the 4-digit year cannot go further: clamped */
    expect(INT64_MAX, "Fri, 31 Dec 9999 23:59:59 GMT");
    expect(INT64_MIN, "Mon, 01 Jan 0001 00:00:00 GMT");
}

/* Cross-check every day of 1970..2100 (and some seconds) against glibc's gmtime_r. */
static void agrees_with_gmtime(void **state) {
    (void)state;
    static const char *wd[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
    static const char *mo[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                               "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    for (int64_t t = -86400LL * 365 * 70; t < 4102444800LL; t += 86400 + 3607) {
        time_t tt = (time_t)t;
        struct tm tm;
        char want[64], got[TACHY__DATE_LEN + 1];
        assert_non_null(gmtime_r(&tt, &tm));
        snprintf(want, sizeof want, "%s, %02d %s %04d %02d:%02d:%02d GMT", wd[tm.tm_wday],
                 tm.tm_mday, mo[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
        tachy__date_format(t, got);
        assert_string_equal(got, want);
    }
}

/* Waits until time() moves to a new second and returns it. */
static time_t next_second(void) {
    time_t t0 = time(NULL), t;
    struct timespec ts = {0, 5 * 1000 * 1000};
    while ((t = time(NULL)) == t0)
        nanosleep(&ts, NULL);
    return t;
}

static void now_is_cached_within_a_second(void **state) {
    (void)state;
    char a[TACHY__DATE_LEN + 1], b[TACHY__DATE_LEN + 1], want[TACHY__DATE_LEN + 1];
    time_t t = next_second(); /* a whole second ahead of us */
    tachy__date_now(a);
    tachy__date_now(b);
    time_t t2 = time(NULL);
    if (t2 == t) {
        tachy__date_format(t, want);
        assert_string_equal(a, want);
        assert_string_equal(a, b);
    }
    /* after the second changes, the string follows */
    t = next_second();
    tachy__date_now(a);
    if (time(NULL) == t) {
        tachy__date_format(t, want);
        assert_string_equal(a, want);
        assert_string_not_equal(a, b);
    }
}

static void *thread_now(void *arg) {
    char *out = arg;
    tachy__date_now(out);
    return NULL;
}

static void now_works_on_every_thread(void **state) {
    (void)state;
    char mine[TACHY__DATE_LEN + 1], theirs[4][TACHY__DATE_LEN + 1];
    pthread_t th[4];
    time_t t = next_second();
    tachy__date_now(mine);
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&th[i], NULL, thread_now, theirs[i]), 0);
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_join(th[i], NULL), 0);
    if (time(NULL) == t)
        for (int i = 0; i < 4; i++)
            assert_string_equal(mine, theirs[i]);
    for (int i = 0; i < 4; i++)
        assert_int_equal(strlen(theirs[i]), TACHY__DATE_LEN);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(known_epochs),
        cmocka_unit_test(leap_years),
        cmocka_unit_test(beyond_2038),
        cmocka_unit_test(before_1970_and_clamping),
        cmocka_unit_test(agrees_with_gmtime),
        cmocka_unit_test(now_is_cached_within_a_second),
        cmocka_unit_test(now_works_on_every_thread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
