/*
 * test_ws_crowd.c - attached WebSocket connections (tachy_ws_attach) in numbers: 5,000 open
 * sockets on 127.0.0.1 hold no thread each (the process's thread count, read from
 * /proc/self/status, stays within the pool size plus a few), every one of them gets a
 * message from a server timer, and the per-socket send queue's bound and both overflow
 * policies behave as tachy/ws.h says, with sends that never wait for the slow peer.
 * A parked socket costs little memory (heap from mallinfo2, RSS from /proc/self/statm:
 * it owns no read buffer, the pool thread lends it one per event), and what that
 * lending must not lose: frames that came in the upgrade request's segment, and frames
 * that arrive in pieces, one event each.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <tachy/tachy.h>
#include <tachy/timer.h>
#include <tachy/ws.h>

#include "tsupport.h"

#define CROWD 5000

static tachy_server *srv;
static int port;
static int fd_limit_ok;

/* ---- server side ------------------------------------------------------------------------- */

static atomic_int opened, closed_n, in_callback_overlap;
static tachy_ws_options echo_opt, once_opt, bp_fail_opt, bp_close_opt;

static pthread_mutex_t held_lock = PTHREAD_MUTEX_INITIALIZER;
static tachy_ws *held;
static atomic_int held_error, held_error_code;

static int attach_handler(tachy_exchange *ex, void *user) {
    int rc = tachy_ws_attach(ex, user);
    return rc == TACHY_EPROTO ? 0 : rc;
}

static void echo_message(tachy_ws *ws, int type, const void *data, size_t len, int last,
                         void *user) {
    (void)last;
    /* One callback at a time per socket: user is a per-connection flag. */
    atomic_int *busy = user;
    if (busy && atomic_exchange(busy, 1))
        atomic_fetch_add(&in_callback_overlap, 1);
    if (type == TACHY_WS_TEXT)
        tachy_ws_send_text(ws, data, len);
    else
        tachy_ws_send_binary(ws, data, len);
    if (busy)
        atomic_store(busy, 0);
}

static void counted_open(tachy_ws *ws, void *user) {
    (void)user;
    tachy_ws_set_user(ws, calloc(1, sizeof(atomic_int)));
    atomic_fetch_add(&opened, 1);
}

static void counted_close(tachy_ws *ws, int code, const char *r, size_t n, void *user) {
    (void)ws, (void)code, (void)r, (void)n;
    free(user);
    atomic_fetch_add(&closed_n, 1);
}

/* /once: a server timer sends "tick" 100 ms after the upgrade. */
static void once_fire(tachy_timer *t, void *user) {
    (void)t;
    tachy_ws *ws = user;
    tachy_ws_send_text(ws, "tick", 4);
    tachy_ws_release(ws);
}

static void once_open(tachy_ws *ws, void *user) {
    (void)user;
    tachy_ws_retain(ws);
    if (tachy_timer_schedule(srv, 100, 0, once_fire, ws, NULL) < 0)
        tachy_ws_release(ws);
    atomic_fetch_add(&opened, 1);
}

static void held_open(tachy_ws *ws, void *user) {
    (void)user;
    tachy_ws_retain(ws);
    pthread_mutex_lock(&held_lock);
    held = ws;
    pthread_mutex_unlock(&held_lock);
}

static void held_error_cb(tachy_ws *ws, int err, int code, const char *what, void *user) {
    (void)ws, (void)what, (void)user;
    atomic_store(&held_error, err);
    atomic_store(&held_error_code, code);
}

static void raise_fd_limit(void) {
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    rlim_t want = 2 * CROWD + 512;
    if (rl.rlim_cur < want) {
        rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
        setrlimit(RLIMIT_NOFILE, &rl);
        getrlimit(RLIMIT_NOFILE, &rl);
    }
    fd_limit_ok = rl.rlim_cur >= want;
    if (!fd_limit_ok)
        fprintf(stderr, "test_ws_crowd: RLIMIT_NOFILE %lu < %lu: the crowd tests are skipped\n",
                (unsigned long)rl.rlim_cur, (unsigned long)want);
}

static int setup(void **state) {
    (void)state;
    raise_fd_limit();
    tachy_options o;
    tachy_options_init(&o);
    o.thread_keepalive_ms = 300; /* spares from the handshake burst leave quickly */
    srv = ts_server(&o);
    if (!srv)
        return -1;
    tachy_ws_options_init(&echo_opt);
    echo_opt.cb.on_open = counted_open;
    echo_opt.cb.on_close = counted_close;
    echo_opt.cb.on_message = echo_message;
    tachy_ws_options_init(&once_opt);
    once_opt.cb.on_open = once_open;
    once_opt.cb.on_close = counted_close;
    once_opt.ping_interval_ms = -1; /* no liveness timer: the test counts the timers left */
    tachy_ws_options_init(&bp_fail_opt);
    bp_fail_opt.cb.on_open = held_open;
    bp_fail_opt.cb.on_error = held_error_cb;
    bp_fail_opt.max_backlog = 64 * 1024;
    bp_close_opt = bp_fail_opt;
    bp_close_opt.backlog_policy = TACHY_WS_BACKLOG_CLOSE;
    bp_close_opt.close_timeout_ms = 5000;
    tachy_server_create_context(srv, "/echo", attach_handler, &echo_opt, NULL);
    tachy_server_create_context(srv, "/once", attach_handler, &once_opt, NULL);
    tachy_server_create_context(srv, "/bpfail", attach_handler, &bp_fail_opt, NULL);
    tachy_server_create_context(srv, "/bpclose", attach_handler, &bp_close_opt, NULL);
    port = ts_start(srv);
    return port > 0 ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    ts_stop(srv);
    return 0;
}

/* ---- client side ------------------------------------------------------------------------- */

static const char *KEY = "dGhlIHNhbXBsZSBub25jZQ==";

static void send_upgrade(int fd, const char *path) {
    char req[512];
    int n = snprintf(req, sizeof req,
                     "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                     "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
                     "Sec-WebSocket-Version: 13\r\n\r\n",
                     path, KEY);
    ts_send(fd, req, n);
}

static void expect_101(int fd) {
    char head[2048];
    assert_true(ts_read_head(fd, head, sizeof head) > 0);
    assert_memory_equal(head, "HTTP/1.1 101", 12);
}

/* A masked client frame (fin set) in a malloc'ed buffer; its length in *out_len. */
static uint8_t *make_frame(int op, const void *p, size_t len, size_t *out_len) {
    uint8_t h[14];
    size_t n = 0;
    h[n++] = (uint8_t)(0x80 | op);
    if (len < 126) {
        h[n++] = (uint8_t)(0x80 | len);
    } else if (len <= 0xffff) {
        h[n++] = 0x80 | 126;
        h[n++] = (uint8_t)(len >> 8);
        h[n++] = (uint8_t)len;
    } else {
        h[n++] = 0x80 | 127;
        for (int i = 7; i >= 0; i--)
            h[n++] = (uint8_t)((uint64_t)len >> (8 * i));
    }
    uint8_t key[4] = {1, 2, 3, 4};
    memcpy(h + n, key, 4);
    n += 4;
    uint8_t *buf = malloc(n + len);
    assert_non_null(buf);
    memcpy(buf, h, n);
    for (size_t i = 0; i < len; i++)
        buf[n + i] = ((const uint8_t *)p)[i] ^ key[i % 4];
    *out_len = n + len;
    return buf;
}

static void send_frame(int fd, int op, const void *p, size_t len) {
    size_t n;
    uint8_t *buf = make_frame(op, p, len, &n);
    ts_send(fd, buf, (ssize_t)n);
    free(buf);
}

/* Reads one (unmasked) server frame: opcode, payload into a malloc'ed *data. */
static int read_frame(int fd, int *op, uint8_t **data, size_t *len) {
    uint8_t h[10];
    if (ts_recv_exact(fd, h, 2) < 0)
        return -1;
    *op = h[0] & 0x0f;
    uint64_t n = h[1] & 0x7f;
    if (n == 126) {
        if (ts_recv_exact(fd, h + 2, 2) < 0)
            return -1;
        n = (uint64_t)h[2] << 8 | h[3];
    } else if (n == 127) {
        if (ts_recv_exact(fd, h + 2, 8) < 0)
            return -1;
        n = 0;
        for (int i = 0; i < 8; i++)
            n = n << 8 | h[2 + i];
    }
    *data = malloc(n + 1);
    if (n && ts_recv_exact(fd, *data, n) < 0) {
        free(*data);
        return -1;
    }
    (*data)[n] = 0;
    *len = (size_t)n;
    return 0;
}

static int cpus(void) {
    cpu_set_t set;
    return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
}

/* Opens n WebSockets on path: all requests first, then all 101s (a crowd arrives at once). */
static int *open_crowd(const char *path, int n) {
    int *fds = malloc((size_t)n * sizeof *fds);
    for (int i = 0; i < n; i++) {
        fds[i] = ts_connect(port);
        send_upgrade(fds[i], path);
    }
    for (int i = 0; i < n; i++)
        expect_101(fds[i]);
    return fds;
}

static void wait_count(atomic_int *c, int n, long limit_ms) {
    long end = ts_now_ms() + limit_ms;
    while (atomic_load(c) < n && ts_now_ms() < end)
        ts_sleep_ms(5);
}

/* A crowd test's start: skipped without the file descriptors for it; the open and close
 * counts from 0; CROWD sockets upgraded on path. */
static int *crowd_begin(const char *path) {
    if (!fd_limit_ok)
        skip();
    atomic_store(&opened, 0);
    atomic_store(&closed_n, 0);
    return open_crowd(path, CROWD);
}

/* Waits (bounded) until the server has let every connection go: the next test counts. */
static void wait_no_connections(void) {
    long end = ts_now_ms() + 5000;
    while (tachy_server_connection_count(srv) > 0 && ts_now_ms() < end)
        ts_sleep_ms(10);
}

/* A crowd test's end: closes the sockets on our side, waits (bounded) for on_close of each
 * and for the server to let the connections go. */
static void crowd_end(int *fds) {
    for (int i = 0; i < CROWD; i++)
        close(fds[i]);
    free(fds);
    wait_count(&closed_n, CROWD, 10000);
    wait_no_connections();
}

/* Reads one frame from fd: it must be a whole opcode-op frame with exactly these bytes. */
static void expect_frame(int fd, int op, const void *data, size_t len) {
    int got_op;
    uint8_t *d;
    size_t n;
    assert_int_equal(read_frame(fd, &got_op, &d, &n), 0);
    assert_int_equal(got_op, op);
    assert_int_equal(n, len);
    assert_memory_equal(d, data, len);
    free(d);
}

/* ---- tests ---------------------------------------------------------------------------------- */

#define PARKED 2000

#if defined(__GLIBC__) && defined(__GLIBC_PREREQ)
#if __GLIBC_PREREQ(2, 33)
#define HAVE_MALLINFO2 1
#endif
#endif

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define UNDER_SANITIZER 1
#endif
#endif

#if defined(HAVE_MALLINFO2) && !defined(UNDER_SANITIZER)
/* The process's resident set in bytes (/proc/self/statm), or -1. */
static long rss_bytes(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    long size = 0, resident = -1;
    if (f) {
        if (fscanf(f, "%ld %ld", &size, &resident) != 2)
            resident = -1;
        fclose(f);
    }
    return resident < 0 ? -1 : resident * sysconf(_SC_PAGESIZE);
}

/* Bytes the allocator has handed out (every arena, mmapped chunks too), after giving free
 * pages back so that RSS shows live memory only. */
static long heap_in_use(void) {
    malloc_trim(0);
    struct mallinfo2 mi = mallinfo2();
    return (long)(mi.uordblks + mi.hblkhd);
}
#endif

/* PARKED WebSockets, upgraded and left idle: the growth of the heap and of RSS per socket
 * (with malloc_trim before each reading, so freed memory is not counted). About 2.3 KB of
 * each is what a parked socket costs (its slot 944 B, the tachy_ws, the reader, a timer):
 * a socket that kept its HTTP buffers or a read buffer of its own costs 18 KB. */
static void parked_sockets_cost_little_memory(void **state) {
    (void)state;
#if defined(UNDER_SANITIZER)
    fprintf(stderr, "test_ws_crowd: parked_sockets_cost_little_memory skipped: a sanitizer's "
                    "allocator makes the memory figures meaningless\n");
    skip();
#elif !defined(HAVE_MALLINFO2)
    fprintf(stderr, "test_ws_crowd: parked_sockets_cost_little_memory skipped: needs glibc's "
                    "mallinfo2 (2.33+)\n");
    skip();
#else
    if (ts_under_valgrind()) {
        fprintf(stderr, "test_ws_crowd: parked_sockets_cost_little_memory skipped under "
                        "valgrind (its allocator makes the figures meaningless)\n");
        skip();
    }
    if (!fd_limit_ok)
        skip();
    atomic_store(&opened, 0);
    atomic_store(&closed_n, 0);
    int *fds = malloc(PARKED * sizeof *fds);
    assert_non_null(fds);
    long heap0 = heap_in_use(), rss0 = rss_bytes();
    for (int i = 0; i < PARKED; i++) {
        fds[i] = ts_connect(port);
        send_upgrade(fds[i], "/echo");
    }
    for (int i = 0; i < PARKED; i++)
        expect_101(fds[i]);
    wait_count(&opened, PARKED, 10000);
    assert_int_equal(atomic_load(&opened), PARKED);
    /* Let the handshake burst's spare threads go (thread_keepalive_ms 300): they are not
     * the sockets' cost. */
    long end = ts_now_ms() + 3000;
    while (ts_thread_count() > cpus() + 8 && ts_now_ms() < end)
        ts_sleep_ms(20);
    ts_sleep_ms(100);
    long heap1 = heap_in_use(), rss1 = rss_bytes();
    long heap_per = (heap1 - heap0) / PARKED, rss_per = (rss1 - rss0) / PARKED;
    fprintf(stderr, "test_ws_crowd: %d parked WebSockets: heap +%ld B, RSS +%ld B per socket\n",
            PARKED, heap_per, rss_per);
    /* Still alive: every tenth one echoes. */
    for (int i = 0; i < PARKED; i += 10)
        send_frame(fds[i], 1, "still here", 10);
    for (int i = 0; i < PARKED; i += 10)
        expect_frame(fds[i], 1, "still here", 10);
    for (int i = 0; i < PARKED; i++)
        close(fds[i]);
    free(fds);
    wait_count(&closed_n, PARKED, 10000);
    wait_no_connections();
    assert_true(rss0 > 0 && rss1 > 0);
    assert_true(heap_per <= 4096);
    assert_true(rss_per <= 5120);
#endif
}

/* Frames sent in the upgrade request's own segment are in the HTTP read buffer when the
 * pool adopts the socket: they must be read from there, the last one incomplete (its rest
 * comes later). */
static void frames_behind_the_upgrade_request_are_delivered(void **state) {
    (void)state;
    char req[1024];
    int n = snprintf(req, sizeof req,
                     "GET /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                     "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
                     "Sec-WebSocket-Version: 13\r\n\r\n",
                     KEY);
    size_t l1, l2, l3;
    uint8_t *f1 = make_frame(1, "first", 5, &l1);
    uint8_t *f2 = make_frame(2, "second\x00\xff", 8, &l2);
    uint8_t *f3 = make_frame(1, "third, split", 12, &l3);
    size_t cut = 5; /* of f3: in the same segment; the rest after a pause */
    size_t total = (size_t)n + l1 + l2 + cut;
    uint8_t *all = malloc(total);
    assert_non_null(all);
    memcpy(all, req, (size_t)n);
    memcpy(all + n, f1, l1);
    memcpy(all + n + l1, f2, l2);
    memcpy(all + n + l1 + l2, f3, cut);
    int fd = ts_connect(port);
    ts_send(fd, all, (ssize_t)total); /* one send: one segment on loopback */
    expect_101(fd);
    expect_frame(fd, 1, "first", 5);
    expect_frame(fd, 2, "second\x00\xff", 8);
    ts_sleep_ms(50); /* parked with part of f3 */
    ts_send(fd, f3 + cut, (ssize_t)(l3 - cut));
    expect_frame(fd, 1, "third, split", 12);
    free(all);
    free(f1);
    free(f2);
    free(f3);
    close(fd);
    wait_no_connections();
}

/* Sends buf[0,len) in pieces of `piece` bytes with a pause after each, so that each piece
 * is its own event on a socket that parks in between. */
static void send_in_pieces(int fd, const uint8_t *buf, size_t len, size_t piece, long pause_ms) {
    for (size_t off = 0; off < len; off += piece) {
        size_t k = len - off < piece ? len - off : piece;
        ts_send(fd, buf + off, (ssize_t)k);
        if (pause_ms)
            ts_sleep_ms(pause_ms);
    }
}

/* A parked socket keeps an incomplete frame's bytes between events: frames delivered one
 * byte at a time (a text frame with multi-byte UTF-8 split across events, validated as it
 * arrives), in pieces around the leftover size the socket copies, and one larger than the
 * thread's 64 KiB buffer, are all assembled. */
static void a_frame_in_pieces_is_assembled_by_a_parked_socket(void **state) {
    (void)state;
    int fd = ts_connect(port);
    send_upgrade(fd, "/echo");
    expect_101(fd);
    ts_sleep_ms(20);

    /* Byte by byte: 2-byte header + mask + payload, each byte its own event. */
    static const char text[] = "h\xc3\xa9llo w\xc3\xb6rld \xe2\x82\xac\xf0\x9f\x98\x80!";
    size_t len;
    uint8_t *f = make_frame(1, text, sizeof text - 1, &len);
    send_in_pieces(fd, f, len, 1, 2);
    expect_frame(fd, 1, text, sizeof text - 1);
    free(f);

    /* Sizes around the leftover the socket copies (4 KiB) and the thread buffer (64 KiB). */
    static const size_t sizes[] = {300, 4000, 4200, 9000, 70000, 200000};
    static const size_t pieces[] = {7, 1000, 1500, 4096, 16384, 30000};
    for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++) {
        uint8_t *payload = malloc(sizes[t]);
        assert_non_null(payload);
        for (size_t i = 0; i < sizes[t]; i++)
            payload[i] = (uint8_t)(i * 7 + t);
        f = make_frame(2, payload, sizes[t], &len);
        send_in_pieces(fd, f, len, pieces[t], 5);
        expect_frame(fd, 2, payload, sizes[t]);
        /* Then two whole frames in one send: the buffer state after a big frame is sound. */
        send_frame(fd, 1, "after", 5);
        expect_frame(fd, 1, "after", 5);
        free(f);
        free(payload);
    }

    /* A frame's end and the next frame's start in one piece, with a pause between. */
    size_t la, lb;
    uint8_t *fa = make_frame(1, "alpha", 5, &la);
    uint8_t *fb = make_frame(1, "bravo", 5, &lb);
    uint8_t both[64];
    memcpy(both, fa, la);
    memcpy(both + la, fb, lb);
    send_in_pieces(fd, both, la + lb, la - 2, 20); /* cuts inside alpha, then inside bravo */
    expect_frame(fd, 1, "alpha", 5);
    expect_frame(fd, 1, "bravo", 5);
    free(fa);
    free(fb);
    close(fd);
    wait_no_connections();
}

static void five_thousand_open_sockets_hold_no_threads(void **state) {
    (void)state;
    int before = ts_thread_count();
    int *fds = crowd_begin("/echo");
    wait_count(&opened, CROWD, 10000);
    assert_int_equal(atomic_load(&opened), CROWD);
    assert_int_equal(tachy_server_connection_count(srv), CROWD);
    int peak = ts_thread_count();
    /* Pool threads: one waiter per CPU plus spares the watchdog brought in while the burst
     * kept every thread busy (they leave after thread_keepalive_ms); the watchdog; this
     * test's main thread. Not one per socket. */
    int limit = cpus() + 8;
    long end = ts_now_ms() + 3000;
    while (ts_thread_count() > limit && ts_now_ms() < end)
        ts_sleep_ms(20);
    int threads = ts_thread_count();
    fprintf(stderr, "test_ws_crowd: %d open WebSockets, %d threads (%d right after the burst, "
            "%d before, limit %d)\n", CROWD, threads, peak, before, limit);
    assert_true(threads > 0 && threads <= limit);
    /* Every socket is alive and echoes, in order, with one callback at a time. */
    for (int i = 0; i < CROWD; i += 50) {
        char msg[32];
        int n = snprintf(msg, sizeof msg, "hello %d", i);
        send_frame(fds[i], 1, msg, (size_t)n);
        send_frame(fds[i], 1, "second", 6);
    }
    for (int i = 0; i < CROWD; i += 50) {
        char msg[32];
        int n = snprintf(msg, sizeof msg, "hello %d", i);
        expect_frame(fds[i], 1, msg, (size_t)n);
        expect_frame(fds[i], 1, "second", 6);
    }
    assert_true(ts_thread_count() <= limit);
    assert_int_equal(atomic_load(&in_callback_overlap), 0);
    crowd_end(fds);
    assert_int_equal(atomic_load(&closed_n), CROWD); /* on_close for every one (1006) */
}

static void a_timer_per_socket_reaches_every_socket(void **state) {
    (void)state;
    int *fds = crowd_begin("/once");
    int got = 0;
    for (int i = 0; i < CROWD; i++) {
        int op;
        uint8_t *d;
        size_t len;
        if (read_frame(fds[i], &op, &d, &len) == 0) {
            got += op == 1 && len == 4 && memcmp(d, "tick", 4) == 0;
            free(d);
        }
    }
    assert_int_equal(got, CROWD);
    assert_int_equal(tachy_timer_pending(srv), 0);
    crowd_end(fds);
}

static tachy_ws *wait_held(void) {
    long end = ts_now_ms() + 5000;
    for (;;) {
        pthread_mutex_lock(&held_lock);
        tachy_ws *ws = held;
        pthread_mutex_unlock(&held_lock);
        if (ws || ts_now_ms() > end)
            return ws;
        ts_sleep_ms(2);
    }
}

/* A client that does not read: sends of 16 KiB fill the socket buffers, then the queue up to
 * max_backlog (64 KiB); the next send fails with TACHY_ETOOBIG. No send waits. */
static int fill_until_refused(tachy_ws *ws, uint8_t *msg, size_t len, int *accepted,
                              long *slowest_ms) {
    *accepted = 0;
    *slowest_ms = 0;
    for (int i = 0; i < 100000; i++) {
        memset(msg, (int)(i & 0xff), len);
        long t0 = ts_now_ms();
        int rc = tachy_ws_send_binary(ws, msg, len);
        long took = ts_now_ms() - t0;
        if (took > *slowest_ms)
            *slowest_ms = took;
        if (rc != 0)
            return rc;
        (*accepted)++;
    }
    return 0;
}

/* A client that reads nothing until told to. (Its receive buffer keeps the default size: a
 * tiny one makes loopback TCP stall in zero-window probing for seconds once it reads.) */
static int small_rcvbuf_client(const char *path) {
    int fd = ts_connect_timeout(port, 10);
    send_upgrade(fd, path);
    expect_101(fd);
    return fd;
}

static void overflow_fails_the_send_and_keeps_the_socket(void **state) {
    (void)state;
    pthread_mutex_lock(&held_lock);
    held = NULL;
    pthread_mutex_unlock(&held_lock);
    int fd = small_rcvbuf_client("/bpfail");
    tachy_ws *ws = wait_held();
    assert_non_null(ws);
    size_t len = 16 * 1024;
    uint8_t *msg = malloc(len);
    int accepted;
    long slowest;
    assert_int_equal(fill_until_refused(ws, msg, len, &accepted, &slowest), TACHY_ETOOBIG);
    assert_true(slowest < 200); /* never waited for the peer */
    assert_true(accepted >= 4); /* at least the 64 KiB queue */
    assert_int_equal(tachy_ws_is_open(ws), 1);
    /* The peer reads: exactly the accepted messages, whole and in order. */
    for (int i = 0; i < accepted; i++) {
        int op;
        uint8_t *d;
        size_t n;
        assert_int_equal(read_frame(fd, &op, &d, &n), 0);
        assert_int_equal(op, 2);
        assert_int_equal(n, len);
        assert_int_equal(d[0], i & 0xff);
        assert_int_equal(d[len - 1], i & 0xff);
        free(d);
    }
    /* The queue drained (the pool wrote it when the socket became writable): sends go on. */
    assert_int_equal(tachy_ws_send_text(ws, "after", 5), 0);
    int op;
    uint8_t *d;
    size_t n;
    assert_int_equal(read_frame(fd, &op, &d, &n), 0);
    assert_int_equal(op, 1);
    assert_memory_equal(d, "after", 5);
    free(d);
    assert_int_equal(atomic_load(&held_error), 0);
    free(msg);
    close(fd);
    tachy_ws_release(ws);
}

static void overflow_closes_with_1008_under_the_close_policy(void **state) {
    (void)state;
    pthread_mutex_lock(&held_lock);
    held = NULL;
    pthread_mutex_unlock(&held_lock);
    atomic_store(&held_error, 0);
    int fd = small_rcvbuf_client("/bpclose");
    tachy_ws *ws = wait_held();
    assert_non_null(ws);
    size_t len = 16 * 1024;
    uint8_t *msg = malloc(len);
    int accepted;
    long slowest;
    assert_int_equal(fill_until_refused(ws, msg, len, &accepted, &slowest), TACHY_ETOOBIG);
    assert_true(slowest < 200);
    assert_int_equal(tachy_ws_send_text(ws, "late", 4), TACHY_ECLOSED);
    assert_int_equal(tachy_ws_is_open(ws), 0);
    for (int i = 0; i < accepted; i++) {
        int op;
        uint8_t *d;
        size_t n;
        assert_int_equal(read_frame(fd, &op, &d, &n), 0);
        assert_int_equal(op, 2);
        assert_int_equal(n, len);
        assert_int_equal(d[0], i & 0xff);
        free(d);
    }
    int op;
    uint8_t *d;
    size_t n;
    assert_int_equal(read_frame(fd, &op, &d, &n), 0);
    assert_int_equal(op, 8);
    assert_true(n >= 2);
    assert_int_equal(d[0] << 8 | d[1], 1008);
    free(d);
    send_frame(fd, 8, "\x03\xf0", 2); /* our close reply */
    assert_int_equal(ts_wait_eof(fd, 5000), 1);
    long end = ts_now_ms() + 3000;
    while (atomic_load(&held_error) == 0 && ts_now_ms() < end)
        ts_sleep_ms(5);
    assert_int_equal(atomic_load(&held_error), TACHY_ETOOBIG);
    assert_int_equal(atomic_load(&held_error_code), 1008);
    free(msg);
    close(fd);
    tachy_ws_release(ws);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        /* first: a fresh server, before the crowds below grow its tables */
        cmocka_unit_test(parked_sockets_cost_little_memory),
        cmocka_unit_test(frames_behind_the_upgrade_request_are_delivered),
        cmocka_unit_test(a_frame_in_pieces_is_assembled_by_a_parked_socket),
        cmocka_unit_test(five_thousand_open_sockets_hold_no_threads),
        cmocka_unit_test(a_timer_per_socket_reaches_every_socket),
        cmocka_unit_test(overflow_fails_the_send_and_keeps_the_socket),
        cmocka_unit_test(overflow_closes_with_1008_under_the_close_policy),
    };
    return cmocka_run_group_tests_name("ws_crowd", tests, setup, teardown);
}
