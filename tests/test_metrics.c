/*
 * test_metrics.c - the Prometheus text of tachy_metrics_handler (edge/metrics.c,
 * tachy/metrics.h): a real server on 127.0.0.1 serves a known mix of requests, then its
 * /metrics is fetched with real bytes and parsed line by line - every line a comment or
 * "name[{labels}] value" - and each series checked against what was sent.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tachy/metrics.h>

#include "tsupport.h"

/* The value of the sample "series" (name with labels, exactly as printed) in text; fails
 * the test when it is missing or when any line of text is malformed. */
static double sample(const char *text, const char *series) {
    double found = -1;
    int seen = 0;
    const char *line = text;
    while (*line) {
        const char *end = strchr(line, '\n');
        assert_non_null(end); /* every line ends in LF, the last one too */
        if (*line != '#') {
            const char *sp = memchr(line, ' ', (size_t)(end - line));
            assert_non_null(sp);
            char *after;
            double v = strtod(sp + 1, &after);
            if (after != end)
                fail_msg("bad sample line: %.*s", (int)(end - line), line);
            if ((size_t)(sp - line) == strlen(series) && memcmp(line, series, strlen(series)) == 0) {
                found = v;
                seen++;
            }
        } else if (strncmp(line, "# HELP ", 7) != 0 && strncmp(line, "# TYPE ", 7) != 0) {
            fail_msg("bad comment line: %.*s", (int)(end - line), line);
        }
        line = end + 1;
    }
    if (seen != 1)
        fail_msg("series %s seen %d times", series, seen);
    return found;
}

static char *scrape(int port) {
    int status = 0;
    char *body = ts_get(port, "/metrics", &status);
    assert_int_equal(status, 200);
    assert_non_null(body);
    return body;
}

/* /ws: a WebSocket attached to the server (parked between frames), echoing nothing. */
static int ws_handler(tachy_exchange *ex, void *user) {
    (void)user;
    tachy_ws_options opt;
    tachy_ws_options_init(&opt);
    int rc = tachy_ws_attach(ex, &opt);
    return rc == TACHY_EPROTO ? 0 : rc;
}

/* Scrapes until the sample name reaches want, for at most 5 s: a gauge follows what the
 * server does after the client has its response (a connection parks once its response is
 * out), which a loaded machine under TSan was seen to take more than 20 ms for. */
static char *scrape_until(int port, const char *name, double want) {
    char *text = scrape(port);
    for (int i = 0; i < 250 && sample(text, name) < want; i++) {
        free(text);
        ts_sleep_ms(20);
        text = scrape(port);
    }
    return text;
}

static void counts_what_was_served(void **state) {
    (void)state;
    tachy_server *srv = ts_server(NULL);
    tachy_server_create_context(srv, "/a", ts_body_handler, "hello", NULL);
    tachy_server_create_context(srv, "/metrics", tachy_metrics_handler, NULL, NULL);
    tachy_server_create_context(srv, "/ws", ws_handler, NULL, NULL);
    int port = ts_start(srv);
    char *before = scrape(port);
    assert_int_equal(sample(before, "tachy_requests_total"), 1); /* the scrape itself */
    assert_int_equal(sample(before, "tachy_responses_total{code=\"2xx\"}"), 0);
    free(before);
    enum { OK = 7 };
    for (int i = 0; i < OK; i++) {
        int status = 0;
        free(ts_get(port, "/a", &status));
        assert_int_equal(status, 200);
    }
    int status = 0;
    free(ts_get(port, "/nothing-here", &status)); /* no context: 404 */
    assert_int_equal(status, 404);
    assert_int_equal(ts_status(port, "GET / HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n"), 400);
    char *text = scrape(port);
    /* two scrapes + OK + the 404 + the 400 parsed; the 400 began no exchange (refused at
     * the Host check), so it counts as a reject only */
    assert_int_equal(sample(text, "tachy_requests_total"), 2 + OK + 1);
    assert_int_equal(sample(text, "tachy_responses_total{code=\"2xx\"}"), 1 + OK);
    assert_int_equal(sample(text, "tachy_responses_total{code=\"4xx\"}"), 1);
    assert_int_equal(sample(text, "tachy_rejected_total{code=\"400\"}"), 1);
    assert_int_equal(sample(text, "tachy_rejected_total{code=\"404\"}"), 1);
    assert_int_equal(sample(text, "tachy_request_duration_seconds_count"), 1 + OK + 1);
    assert_int_equal(sample(text, "tachy_request_duration_seconds_bucket{le=\"+Inf\"}"),
                     1 + OK + 1);
    assert_true(sample(text, "tachy_request_duration_seconds_bucket{le=\"0.0001\"}") <=
                sample(text, "tachy_request_duration_seconds_bucket{le=\"10\"}"));
    assert_true(sample(text, "tachy_request_duration_seconds_sum") > 0);
    assert_int_equal(sample(text, "tachy_connections_accepted_total"), 2 + OK + 2);
    assert_true(sample(text, "tachy_received_bytes_total") > 40 * OK);
    assert_true(sample(text, "tachy_sent_bytes_total") > 60 * OK);
    assert_true(sample(text, "tachy_connections_open") >= 1);
    assert_int_equal(sample(text, "tachy_proxy_refused_total"), 0);
    free(text);
    /* the gauges: connections kept alive after a request are idle; the thread that serves
     * the scrape is a busy pool thread; no WebSocket here */
    enum { KEPT = 5 };
    int kept[KEPT];
    for (int i = 0; i < KEPT; i++) {
        ts_response r;
        kept[i] = ts_request(port, "GET /a HTTP/1.1\r\nHost: x\r\n\r\n", -1, &r, 0);
        assert_int_equal(r.status, 200);
        ts_response_free(&r);
    }
    text = scrape_until(port, "tachy_connections_idle", KEPT); /* each parks after its response */
    assert_true(sample(text, "tachy_connections_idle") >= KEPT);
    assert_true(sample(text, "tachy_pool_threads{state=\"busy\"}") >= 1);
    assert_true(sample(text, "tachy_pool_threads{state=\"idle\"}") >= 0);
    assert_int_equal(sample(text, "tachy_websockets_parked"), 0);
    free(text);
    for (int i = 0; i < KEPT; i++)
        ts_close(kept[i]);
    /* a parked WebSocket counts while it is open */
    ts_response r;
    int ws = ts_request(port,
                        "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                        "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                        "Sec-WebSocket-Version: 13\r\n\r\n",
                        -1, &r, 1);
    assert_int_equal(r.status, 101);
    ts_response_free(&r);
    text = scrape_until(port, "tachy_websockets_parked", 1);
    assert_int_equal(sample(text, "tachy_websockets_parked"), 1);
    free(text);
    ts_close(ws);
    double parked = 1;
    for (int i = 0; i < 100 && parked != 0; i++) { /* the server sees the EOF */
        ts_sleep_ms(10);
        text = scrape(port);
        parked = sample(text, "tachy_websockets_parked");
        free(text);
    }
    assert_true(parked == 0);
    /* other methods: 405 */
    assert_int_equal(ts_status(port, "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"),
                     405);
    /* the render call: as snprintf, the length it needs */
    char small[16];
    long need = tachy_metrics_render(srv, small, sizeof small);
    assert_true(need > (long)sizeof small);
    assert_int_equal(strlen(small), sizeof small - 1);
    assert_int_equal(tachy_metrics_render(NULL, small, sizeof small), TACHY_EINVAL);
    ts_stop(srv);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(counts_what_was_served),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
