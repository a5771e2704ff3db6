/*
 * test_target.c - target.c: which request-targets a C server hands to its handlers.
 *
 * The rule is shared with the Java provider: every row of tests/request-targets.tsv (its
 * header says how to read and update it) is sent to a real server on 127.0.0.1 whose one
 * context "/" answers 200, and the status must be the row's column c. The Java side reads
 * the same table (java/src/test/.../TargetRuleTest.java), so a change to the rule on
 * either side shows up as a difference from one table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/http.h"
#include "tsupport.h"

#ifndef TACHY_TARGETS_TSV
#error "TACHY_TARGETS_TSV: the path of tests/request-targets.tsv (tests/CMakeLists.txt)"
#endif

static int ok_handler(tachy_exchange *ex, void *user) {
    (void)user;
    tachy_exchange_send_response_headers(ex, 200, -1);
    return tachy_exchange_close(ex);
}

/* The target of a table row with its \xHH escapes decoded into out (NUL-terminated; the
 * table has no %00-style raw NUL bytes, which no request line can carry). 0, or -1. */
static int unescape(const char *in, char *out, size_t cap) {
    size_t o = 0;
    for (size_t i = 0; in[i] != '\0'; i++) {
        if (o + 1 >= cap)
            return -1;
        if (in[i] == '\\') {
            int hi, lo;
            if (in[i + 1] != 'x' || (hi = tachy__hex_value((unsigned char)in[i + 2])) < 0 ||
                (lo = tachy__hex_value((unsigned char)in[i + 3])) < 0)
                return -1;
            out[o++] = (char)(hi << 4 | lo);
            i += 3;
        } else {
            out[o++] = in[i];
        }
    }
    out[o] = '\0';
    return 0;
}

static void test_request_targets_table(void **state) {
    (void)state;
    FILE *f = fopen(TACHY_TARGETS_TSV, "r");
    assert_non_null(f);
    int port;
    tachy_server *srv = ts_serve(NULL, ok_handler, NULL, &port);
    char line[1024], raw[512], target[512], req[1024];
    int rows = 0, wrong = 0;
    while (fgets(line, sizeof line, f)) {
        int c, jdk;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        assert_int_equal(sscanf(line, "%511s %d %d", raw, &c, &jdk), 3);
        assert_int_equal(unescape(raw, target, sizeof target), 0);
        snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
                 target);
        int st = ts_status(port, req);
        if (st != c) {
            print_error("target %s: the C server answers %d, the table says %d\n", raw, st, c);
            wrong++;
        }
        rows++;
    }
    fclose(f);
    ts_stop(srv);
    assert_true(rows >= 30); /* the table was read, not an empty or truncated file */
    assert_int_equal(wrong, 0);
}

/* tachy__target_acceptable alone on the rows it decides: whatever it refuses gets 400 from
 * the server (the %00 rows are refused later, by exchange.c, and it accepts them). */
static void test_acceptable_agrees_with_the_table(void **state) {
    (void)state;
    FILE *f = fopen(TACHY_TARGETS_TSV, "r");
    assert_non_null(f);
    char line[1024], raw[512], target[512];
    while (fgets(line, sizeof line, f)) {
        int c, jdk;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        assert_int_equal(sscanf(line, "%511s %d %d", raw, &c, &jdk), 3);
        assert_int_equal(unescape(raw, target, sizeof target), 0);
        if (!tachy__target_acceptable(target, strlen(target)) && c != 400) {
            print_error("target %s: refused by tachy__target_acceptable, the table says %d\n",
                        raw, c);
            fail();
        }
    }
    fclose(f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_request_targets_table),
        cmocka_unit_test(test_acceptable_agrees_with_the_table),
    };
    return cmocka_run_group_tests_name("target", tests, NULL, NULL);
}
