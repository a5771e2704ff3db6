/*
 * tsupport.h - helpers for the socket-level tests: start a real server on 127.0.0.1
 * port 0, talk to it with raw bytes, parse what comes back.
 *
 * Every blocking call has a timeout so a broken server fails a test instead of hanging
 * the suite.
 */
#ifndef TACHY_TSUPPORT_H
#define TACHY_TSUPPORT_H

#include <stddef.h>
#include <stdint.h>
#include <tachy/tachy.h>

/* Creates a server bound to 127.0.0.1:0 with opt (NULL = defaults), not yet started.
 * Fails the test on error. */
tachy_server *ts_server(const tachy_options *opt);
/* Starts srv and returns its port. */
int ts_start(tachy_server *srv);
/* A started server (opt NULL = defaults) whose one context "/" runs handler with user;
 * *port is its port. Fails the test on error. */
tachy_server *ts_serve(const tachy_options *opt, tachy_handler_fn handler, void *user,
                       int *port);
/* Stops (delay 0) and destroys. */
void ts_stop(tachy_server *srv);

/* Connects to 127.0.0.1:port with 5 s send/receive timeouts; fails the test on error. */
int ts_connect(int port);
/* The same with timeout_s-second send/receive timeouts. */
int ts_connect_timeout(int port, int timeout_s);
/* Sends all of s (len -1 = strlen). */
void ts_send(int fd, const void *s, ssize_t len);

/* One parsed response. */
typedef struct ts_response {
    int status;
    char status_line[128];
    char *head;        /* status line + headers, NUL-terminated, malloc'ed */
    char *body;        /* decoded body, NUL-terminated, malloc'ed */
    size_t body_len;
    int chunked;
    int64_t content_length; /* -1 when absent */
} ts_response;

/*
 * Reads exactly one response from fd (buffered per fd: bytes after it are kept for the
 * next call). no_body = 1 for HEAD/1xx/204/304 responses. Returns 0, or -1 on EOF/timeout
 * before a complete response.
 */
int ts_read_response(int fd, ts_response *r, int no_body);
void ts_response_free(ts_response *r);
/* Sends req (len -1 = strlen) on fd and reads one response into *r (no_body as above);
 * fails the test when none comes. Free r with ts_response_free. */
void ts_roundtrip(int fd, const void *req, ssize_t len, ts_response *r, int no_body);
/* ts_roundtrip of req (a C string) whose response must have exactly this body. */
void ts_expect_body(int fd, const char *req, const char *body);
/* The same on a new connection to port (ts_connect); returns its fd, still open. */
int ts_request(int port, const void *req, ssize_t len, ts_response *r, int no_body);
/* One request on a new connection: the response's status, -1 when none came (no test
 * failure: for tables of requests that may be refused by closing). Closes the connection. */
int ts_status(int port, const char *req);
/* One request on a new connection: fails the test unless the bytes that come back within
 * 1 s of silence are exactly `expected` (the whole response). Closes the connection. */
void ts_expect_raw(int port, const char *req, const char *expected);
/* The value of a header in r (case-insensitive name), or NULL. Points into r->head. */
const char *ts_header(const ts_response *r, const char *name, char *out, size_t cap);

/* Reads raw bytes until EOF or timeout_ms of silence; returns a malloc'ed NUL-terminated
 * string (bytes buffered by ts_read_response first). *eof is set to 1 if EOF was seen. */
char *ts_read_raw(int fd, int timeout_ms, size_t *len, int *eof);
/* 1 if the peer closes fd within timeout_ms (no further bytes expected), 0 otherwise. */
int ts_wait_eof(int fd, int timeout_ms);
/* Fails the test unless the peer closes fd within timeout_ms without sending a byte (no
 * response); then closes fd. */
void ts_expect_silent_close(int fd, int timeout_ms);
/* Closes fd and forgets its buffered bytes. */
void ts_close(int fd);

/* Reads exactly n bytes (unbuffered: not mixed with ts_read_response on one fd); 0, or
 * -1 on EOF/error/timeout. */
int ts_recv_exact(int fd, void *p, size_t n);
/* Reads a response head byte by byte into buf (NUL-terminated, up to the empty line, so
 * nothing after it is consumed); returns the status code, 0 if none was read. */
int ts_read_head(int fd, char *buf, size_t cap);
/* Case-insensitive header lookup in a NUL-terminated response head; copies the value into
 * out. 1 if found, else 0. */
int ts_head_value(const char *head, const char *name, char *out, size_t cap);

/* The number after "field:" in /proc/self/status (e.g. "VmRSS", in KiB), -1 if unknown. */
long ts_proc_status(const char *field);

/* The calling process's thread count (/proc/self/status), -1 if unknown. */
int ts_thread_count(void);

/* 1 when the test runs under valgrind (everything is ~20x slower: time bounds widen). */
int ts_under_valgrind(void);

/* A handler answering 200 with user (a C string) as a fixed-length body; it reads nothing
 * of the request body (what is left is the server's to drain or to close on). */
int ts_body_handler(tachy_exchange *ex, void *user);
/* A handler answering "<name>:<path>" (200), name being the user pointer (a C string). */
int ts_named_handler(tachy_exchange *ex, void *user);
/* GET path on a new connection; returns the body (malloc'ed) or NULL; *status is the
 * response's status, -1 when none came. */
char *ts_get(int port, const char *path, int *status);

/*
 * Guard pages for parser tests (picohttpparser's trick): ts_guard_setup maps
 * [PROT_NONE page][TS_GUARD_RW bytes][PROT_NONE page] - a cmocka group setup, with
 * ts_guard_teardown as its teardown. ts_guard_at_end copies n bytes so that they end right
 * before the back guard page, ts_guard_at_start so that they start right after the front
 * one: a parser that reads one byte too far (or too early) crashes.
 */
#define TS_GUARD_RW (256 * 1024)
int ts_guard_setup(void **state);
int ts_guard_teardown(void **state);
char *ts_guard_at_end(const void *s, size_t n);
char *ts_guard_at_start(const void *s, size_t n);

/* Monotonic milliseconds. */
long ts_now_ms(void);
/* Sleeps ms milliseconds. */
void ts_sleep_ms(long ms);

/* Writes count-delta stats between two snapshots. */
uint64_t ts_server_writes(tachy_server *srv);

#endif
