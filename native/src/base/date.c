/*
 * base/date.c - the Date header value: RFC 9110 5.6.7 IMF-fixdate ("Sun, 06 Nov 1994 08:49:37
 * GMT").
 *
 * Formatting is integer arithmetic on the proleptic Gregorian calendar: no gmtime, no
 * strftime, so no locale and no global state. Every response carries a Date header, so
 * tachy__date_now keeps the formatted string per thread and only redoes the work when
 * the wall-clock second changes.
 */
#include "base/base.h"

#include <string.h>
#include <time.h>

/* IMF-fixdate has a 4-digit year: clamp to 0001-01-01T00:00:00 .. 9999-12-31T23:59:59. */
#define TACHY__DATE_MIN INT64_C(-62135596800)
#define TACHY__DATE_MAX INT64_C(253402300799)

static const char tachy__wdays[7][4] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
static const char tachy__months[12][4] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                          "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

/* Floor division and modulo (C's / truncates toward zero, wrong for dates before 1970). */
static int64_t floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static int64_t floor_mod(int64_t a, int64_t b) { return a - floor_div(a, b) * b; }

/*
 * Days since 1970-01-01 -> (year, month 1..12, day 1..31). Counts in 400-year eras
 * (146097 days each) of years starting on March 1st, so the leap day is the last day of
 * its year and month lengths follow the 153-days-per-5-months pattern.
 */
static void civil_from_days(int64_t days, int64_t *year, int *month, int *day) {
    int64_t z = days + 719468; /* shift the epoch to 0000-03-01 */
    int64_t era = floor_div(z, 146097);
    int64_t doe = z - era * 146097;                                      /* [0, 146096] */
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365; /* [0, 399] */
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);               /* [0, 365] */
    int64_t mp = (5 * doy + 2) / 153;                                    /* 0 = March */
    *day = (int)(doy - (153 * mp + 2) / 5 + 1);
    *month = (int)(mp < 10 ? mp + 3 : mp - 9);
    *year = yoe + era * 400 + (*month <= 2);
}

static void put2(char *p, int v) {
    p[0] = (char)('0' + v / 10);
    p[1] = (char)('0' + v % 10);
}

/* Pure: formats t (seconds since the epoch, UTC) into out (29 chars + NUL). Times
 * outside years 1..9999 are clamped, as the format cannot express them. Any thread. */
void tachy__date_format(int64_t t, char out[TACHY__DATE_LEN + 1]) {
    int64_t days, secs, year;
    int month, day, wday;

    if (t < TACHY__DATE_MIN)
        t = TACHY__DATE_MIN;
    if (t > TACHY__DATE_MAX)
        t = TACHY__DATE_MAX;
    days = floor_div(t, 86400);
    secs = t - days * 86400;
    civil_from_days(days, &year, &month, &day);
    wday = (int)floor_mod(days + 4, 7); /* 1970-01-01 was a Thursday */

    memcpy(out, tachy__wdays[wday], 3);
    out[3] = ',';
    out[4] = ' ';
    put2(out + 5, day);
    out[7] = ' ';
    memcpy(out + 8, tachy__months[month - 1], 3);
    out[11] = ' ';
    put2(out + 12, (int)(year / 100));
    put2(out + 14, (int)(year % 100));
    out[16] = ' ';
    put2(out + 17, (int)(secs / 3600));
    out[19] = ':';
    put2(out + 20, (int)(secs / 60 % 60));
    out[22] = ':';
    put2(out + 23, (int)(secs % 60));
    memcpy(out + 25, " GMT", 5); /* includes the NUL */
}

/* Per-thread cache: connection threads never contend on a shared cache line or lock. */
static _Thread_local time_t tachy__date_cached_sec = (time_t)-1;
static _Thread_local char tachy__date_cached[TACHY__DATE_LEN + 1];

/* Writes the current time into out, reformatting at most once per second per thread.
 * time() is a vDSO call on Linux, so checking the second costs no syscall. Any thread. */
static inline void date_now(char out[TACHY__DATE_LEN + 1]) {
    time_t now = time(NULL);
    if (now != tachy__date_cached_sec) {
        tachy__date_format((int64_t)now, tachy__date_cached);
        tachy__date_cached_sec = now;
    }
    memcpy(out, tachy__date_cached, TACHY__DATE_LEN + 1);
}

void tachy__date_now(char out[TACHY__DATE_LEN + 1]) {
    date_now(out);
}

void tachy__date_now_h2(char out[TACHY__DATE_LEN + 1]) {
    date_now(out);
}
