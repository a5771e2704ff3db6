/*
 * test_ws_socket.c - WebSocket end to end: a real tachy server on 127.0.0.1 port 0 with
 * WebSocket handlers, and a raw-socket client that does the handshake and writes frames
 * byte by byte as RFC 6455 describes them (valid and invalid ones).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <tachy/tachy.h>
#include <tachy/ws.h>

#include "tsupport.h"
#include "ws/ws.h"

/* ---- server side ------------------------------------------------------------------------- */

static tachy_server *srv;
static int port;

static tachy_ws_options echo_opt, frag_opt, closer_opt, hold_opt, slow_opt, ping_opt, idle_opt;

/* Handles retained by the "hold" endpoint (broadcast and cross-thread tests). */
#define MAX_HELD 64
static pthread_mutex_t held_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t held_cond = PTHREAD_COND_INITIALIZER;
static tachy_ws *held[MAX_HELD];
static int nheld;
static int closes_seen;
static int last_close_code;
static tachy_ws *last_close_ws;
static long long last_close_at; /* ts_now_ms() of the last on_close, for diagnostics */
static int last_error;

/* 0: the endpoints use tachy_ws_serve (a thread per socket); 1: tachy_ws_attach (parked
 * between frames). main runs the suite both ways. */
static int attach_mode;

static int ws_handler(tachy_exchange *ex, void *user) {
    int rc = attach_mode ? tachy_ws_attach(ex, user) : tachy_ws_serve(ex, user);
    return rc == TACHY_EPROTO ? 0 : rc; /* refused: the 4xx was sent */
}

static void echo_message(tachy_ws *ws, int type, const void *data, size_t len, int last,
                         void *user) {
    (void)user;
    if (type == TACHY_WS_TEXT && len == 5 && memcmp(data, "close", 5) == 0) {
        tachy_ws_close(ws, 4000, "asked to");
        return;
    }
    if (type == TACHY_WS_TEXT)
        tachy_ws_send_text(ws, data, len);
    else
        tachy_ws_send_binary(ws, data, len);
    (void)last;
}

/* The thread that ran the last frag_message callback, and /block's state (below). */
static pthread_mutex_t frag_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t frag_thread;
static int frag_blocked, frag_release;

/* deliver_fragments: every piece is echoed as a fragment of the same kind. */
static void frag_message(tachy_ws *ws, int type, const void *data, size_t len, int last,
                         void *user) {
    (void)user;
    pthread_mutex_lock(&frag_lock);
    frag_thread = pthread_self();
    pthread_mutex_unlock(&frag_lock);
    tachy_ws_send_fragment(ws, type, data, len, last);
}

/* GET /block: on the thread that ran the last frag_message callback, waits (at most 5 s)
 * until the test lets go; on any other thread answers at once. */
static int block_handler(tachy_exchange *ex, void *user) {
    (void)user;
    pthread_mutex_lock(&frag_lock);
    if (pthread_equal(frag_thread, pthread_self())) {
        frag_blocked = 1;
        long until = ts_now_ms() + 5000;
        while (!frag_release && ts_now_ms() < until) {
            pthread_mutex_unlock(&frag_lock);
            ts_sleep_ms(5);
            pthread_mutex_lock(&frag_lock);
        }
    }
    pthread_mutex_unlock(&frag_lock);
    tachy_exchange_send_response_headers(ex, 200, -1);
    return tachy_exchange_close(ex);
}

static void closer_open(tachy_ws *ws, void *user) {
    (void)user;
    tachy_ws_send_text(ws, "bye soon", 8);
    tachy_ws_close(ws, 1000, "bye");
}

static void hold_open(tachy_ws *ws, void *user) {
    (void)user;
    tachy_ws_retain(ws);
    pthread_mutex_lock(&held_lock);
    if (nheld < MAX_HELD)
        held[nheld++] = ws;
    else
        tachy_ws_release(ws);
    pthread_cond_broadcast(&held_cond);
    pthread_mutex_unlock(&held_lock);
}

static void note_close(tachy_ws *ws, int code, const char *reason, size_t len, void *user) {
    (void)reason;
    (void)len;
    (void)user;
    pthread_mutex_lock(&held_lock);
    closes_seen++;
    last_close_code = code;
    last_close_ws = ws;
    last_close_at = ts_now_ms();
    pthread_cond_broadcast(&held_cond);
    pthread_mutex_unlock(&held_lock);
}

static void note_error(tachy_ws *ws, int err, int code, const char *what, void *user) {
    (void)ws;
    (void)code;
    (void)what;
    (void)user;
    pthread_mutex_lock(&held_lock);
    last_error = err;
    pthread_mutex_unlock(&held_lock);
}

static const char *const protocols[] = {"v2.chat", "chat"};

static int setup(void **state) {
    (void)state;
    tachy_ws_options_init(&echo_opt);
    echo_opt.cb.on_message = echo_message;
    echo_opt.cb.on_close = note_close;
    echo_opt.cb.on_error = note_error;
    echo_opt.max_message_size = 1 << 20;
    echo_opt.max_frame_size = 1 << 20;
    echo_opt.subprotocols = protocols;
    echo_opt.num_subprotocols = 2;
    echo_opt.close_timeout_ms = 2000;

    frag_opt = echo_opt;
    frag_opt.cb.on_message = frag_message;
    frag_opt.deliver_fragments = 1;

    closer_opt = echo_opt;
    closer_opt.cb.on_open = closer_open;

    hold_opt = echo_opt;
    hold_opt.cb.on_open = hold_open;

    slow_opt = hold_opt;
    slow_opt.send_timeout_ms = 300;
    slow_opt.close_timeout_ms = 300;

    ping_opt = echo_opt;
    ping_opt.ping_interval_ms = 150;
    ping_opt.ping_timeout_ms = 300;

    idle_opt = echo_opt;
    idle_opt.idle_timeout_ms = 200;

    assert_int_equal(tachy_server_create(&srv, "127.0.0.1", 0, 0, NULL), 0);
    assert_int_equal(tachy_server_create_context(srv, "/echo", ws_handler, &echo_opt, NULL), 0);
    assert_int_equal(tachy_server_create_context(srv, "/frag", ws_handler, &frag_opt, NULL), 0);
    assert_int_equal(tachy_server_create_context(srv, "/block", block_handler, NULL, NULL), 0);
    assert_int_equal(tachy_server_create_context(srv, "/closer", ws_handler, &closer_opt, NULL), 0);
    assert_int_equal(tachy_server_create_context(srv, "/hold", ws_handler, &hold_opt, NULL), 0);
    assert_int_equal(tachy_server_create_context(srv, "/slow", ws_handler, &slow_opt, NULL), 0);
    assert_int_equal(tachy_server_create_context(srv, "/ping", ws_handler, &ping_opt, NULL), 0);
    assert_int_equal(tachy_server_create_context(srv, "/idle", ws_handler, &idle_opt, NULL), 0);
    assert_int_equal(tachy_server_start(srv), 0);
    port = tachy_server_port(srv);
    assert_true(port > 0);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    pthread_mutex_lock(&held_lock);
    for (int i = 0; i < nheld; i++)
        tachy_ws_release(held[i]);
    nheld = 0;
    pthread_mutex_unlock(&held_lock);
    tachy_server_stop(srv, 0);
    tachy_server_destroy(srv);
    return 0;
}

/* ---- client side ------------------------------------------------------------------------- */

static const char *key = "dGhlIHNhbXBsZSBub25jZQ==";

/* Opens a WebSocket on path with extra request header lines; returns the fd. */
static int ws_open(const char *path, const char *extra, char *head, size_t cap) {
    int fd = ts_connect(port);
    char req[1024];
    int n = snprintf(req, sizeof req,
                     "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                     "Connection: keep-alive, Upgrade\r\nSec-WebSocket-Key: %s\r\n"
                     "Sec-WebSocket-Version: 13\r\n%s\r\n",
                     path, key, extra ? extra : "");
    ts_send(fd, req, (ssize_t)((size_t)n));
    char local[2048];
    if (!head) {
        head = local;
        cap = sizeof local;
    }
    assert_int_equal(ts_read_head(fd, head, cap), 101);
    char v[128];
    assert_true(ts_head_value(head, "Sec-WebSocket-Accept", v, sizeof v));
    assert_string_equal(v, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
    return fd;
}

static uint32_t mask_seed = 0x12345678;

/* Writes one client frame (masked unless unmasked = 1). */
static void send_frame_ex(int fd, int fin, int rsv, int op, const void *payload, size_t len,
                          int unmasked) {
    mask_seed = mask_seed * 1103515245u + 12345u;
    uint8_t key4[4] = {(uint8_t)(mask_seed >> 24), (uint8_t)(mask_seed >> 16),
                       (uint8_t)(mask_seed >> 8), (uint8_t)mask_seed};
    uint8_t *buf = malloc(TACHY__WS_MAX_HEADER + len);
    assert_non_null(buf);
    size_t h = tachy__ws_frame_header(buf, fin, 0, op, len, unmasked ? NULL : key4);
    buf[0] |= (uint8_t)(rsv << 4); /* rsv: bits RSV1..RSV3 as 4, 2, 1 */
    if (len)
        memcpy(buf + h, payload, len);
    if (!unmasked)
        tachy__ws_mask(buf + h, len, key4, 0);
    ts_send(fd, buf, (ssize_t)(h + len));
    free(buf);
}

static void send_frame(int fd, int fin, int op, const void *payload, size_t len) {
    send_frame_ex(fd, fin, 0, op, payload, len, 0);
}

typedef struct rframe {
    int fin, rsv1, op;
    uint8_t *data;
    size_t len;
} rframe;

/* Reads one server frame (unmasked, as RFC 6455 requires). Returns 0 or -1 on EOF. */
static int read_frame(int fd, rframe *f) {
    uint8_t h[TACHY__WS_MAX_HEADER];
    if (ts_recv_exact(fd, h, 2) < 0)
        return -1;
    size_t hl = 2 + ((h[1] & 0x7F) == 126 ? 2 : (h[1] & 0x7F) == 127 ? 8 : 0);
    if (hl > 2 && ts_recv_exact(fd, h + 2, hl - 2) < 0)
        return -1;
    tachy__ws_frame fr;
    tachy__ws_parse_rules rules = {-1, 1, 0, 0};
    assert_true(tachy__ws_frame_parse(h, hl, &rules, &fr) >= 0);
    assert_int_equal(fr.header_len, hl);
    f->fin = fr.fin;
    f->rsv1 = fr.rsv1;
    f->op = fr.opcode;
    f->len = (size_t)fr.payload_len;
    f->data = malloc(f->len + 1);
    assert_non_null(f->data);
    if (ts_recv_exact(fd, f->data, f->len) < 0) {
        free(f->data);
        return -1;
    }
    f->data[f->len] = 0;
    return 0;
}

/* The server closes TCP: recv sees EOF (within the 5 s receive timeout). */
static void expect_eof(int fd) {
    char c;
    ssize_t r = recv(fd, &c, 1, 0);
    if (r != 0) {
        int e = errno;
        pthread_mutex_lock(&held_lock);
        long long ago = ts_now_ms() - last_close_at;
        pthread_mutex_unlock(&held_lock);
        fail_msg("expected EOF, got %zd (%s); the last on_close ran %lld ms ago", r,
                 r < 0 ? (e == EAGAIN ? "timed out" : strerror(e)) : "data", ago);
    }
}

/* Expects the server's close frame with code (0 = no payload), then EOF. */
static void expect_close(int fd, int code) {
    rframe f;
    for (int i = 0; i < 64; i++) { /* skip data the server sent before closing */
        assert_int_equal(read_frame(fd, &f), 0);
        if (f.op == 8)
            break;
        free(f.data);
    }
    assert_int_equal(f.op, 8);
    if (code == 0) {
        assert_int_equal(f.len, 0);
    } else {
        assert_true(f.len >= 2);
        assert_int_equal(f.data[0] << 8 | f.data[1], code);
    }
    free(f.data);
    /* Answer like a polite client would, then the server closes TCP. */
    uint8_t reply[2] = {(uint8_t)(code >> 8), (uint8_t)code};
    send_frame(fd, 1, 8, reply, code ? 2 : 0);
    expect_eof(fd);
    close(fd);
}

static void expect_message(int fd, int op, const void *data, size_t len) {
    rframe f;
    assert_int_equal(read_frame(fd, &f), 0);
    assert_int_equal(f.op, op);
    assert_int_equal(f.fin, 1);
    assert_int_equal(f.rsv1, 0);
    assert_int_equal(f.len, len);
    if (len)
        assert_memory_equal(f.data, data, len);
    free(f.data);
}

static void client_close(int fd) {
    const uint8_t bye[] = {0x03, 0xE8, 'o', 'k'};
    send_frame(fd, 1, 8, bye, sizeof bye);
    rframe f;
    assert_int_equal(read_frame(fd, &f), 0);
    assert_int_equal(f.op, 8);
    assert_int_equal(f.len, 2); /* the code echoed */
    assert_int_equal(f.data[0] << 8 | f.data[1], 1000);
    free(f.data);
    expect_eof(fd); /* server closes TCP first */
    close(fd);
}

/* ---- handshake ------------------------------------------------------------------------------ */

static void handshake_ok_with_subprotocol(void **state) {
    (void)state;
    char head[2048], v[128];
    int fd = ws_open("/echo", "Sec-WebSocket-Protocol: chat, v2.chat\r\n", head, sizeof head);
    assert_true(ts_head_value(head, "Upgrade", v, sizeof v));
    assert_true(strcasecmp(v, "websocket") == 0);
    assert_true(ts_head_value(head, "Connection", v, sizeof v));
    assert_true(strcasecmp(v, "Upgrade") == 0);
    assert_true(ts_head_value(head, "Sec-WebSocket-Protocol", v, sizeof v));
    assert_string_equal(v, "v2.chat"); /* the server's preference */
    assert_false(ts_head_value(head, "Sec-WebSocket-Extensions", v, sizeof v));
    client_close(fd);
}

static int refused(const char *request, char *head, size_t cap) {
    int fd = ts_connect(port);
    ts_send(fd, request, (ssize_t)(strlen(request)));
    int status = ts_read_head(fd, head, cap);
    close(fd);
    return status;
}

static void handshake_refusals(void **state) {
    (void)state;
    char head[2048], v[64];
#define REQ(method, proto, hdrs) method " /echo " proto "\r\nHost: x\r\n" hdrs "\r\n"
#define GOOD_UPGRADE "Upgrade: websocket\r\nConnection: Upgrade\r\n"
#define GOOD_KEY "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
#define V13 "Sec-WebSocket-Version: 13\r\n"
    assert_int_equal(refused(REQ("GET", "HTTP/1.1", GOOD_UPGRADE V13), head, sizeof head), 400);
    assert_int_equal(refused(REQ("GET", "HTTP/1.1",
                                 GOOD_UPGRADE "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ\r\n" V13),
                             head, sizeof head),
                     400); /* unpadded */
    assert_int_equal(
        refused(REQ("GET", "HTTP/1.1",
                    GOOD_UPGRADE "Sec-WebSocket-Key: YWJjZGVmZ2hpamtsbW5vcHE=\r\n" V13),
                head, sizeof head),
        400); /* 17 bytes */
    assert_int_equal(
        refused(REQ("GET", "HTTP/1.1", GOOD_UPGRADE GOOD_KEY GOOD_KEY V13), head, sizeof head),
        400); /* two keys */
    assert_int_equal(
        refused(REQ("GET", "HTTP/1.1", GOOD_UPGRADE GOOD_KEY "Sec-WebSocket-Version: 8\r\n"), head,
                sizeof head),
        426);
    assert_true(ts_head_value(head, "Sec-WebSocket-Version", v, sizeof v));
    assert_string_equal(v, "13");
    assert_int_equal(refused(REQ("GET", "HTTP/1.1", GOOD_UPGRADE GOOD_KEY), head, sizeof head),
                     426);
    assert_int_equal(
        refused(REQ("POST", "HTTP/1.1", "Content-Length: 0\r\n" GOOD_UPGRADE GOOD_KEY V13), head,
                sizeof head),
        405);
    assert_true(ts_head_value(head, "Allow", v, sizeof v));
    assert_int_equal(refused(REQ("GET", "HTTP/1.0", GOOD_UPGRADE GOOD_KEY V13), head, sizeof head),
                     400);
    assert_int_equal(
        refused(REQ("GET", "HTTP/1.1", "Connection: Upgrade\r\n" GOOD_KEY V13), head, sizeof head),
        400);
    assert_int_equal(
        refused(REQ("GET", "HTTP/1.1", "Upgrade: websocket\r\nConnection: close\r\n" GOOD_KEY V13),
                head, sizeof head),
        400);
    assert_int_equal(
        refused(REQ("GET", "HTTP/1.1", "Upgrade: h2c\r\nConnection: Upgrade\r\n" GOOD_KEY V13),
                head, sizeof head),
        400);
}

/* ---- data -------------------------------------------------------------------------------------
 */

static void echo_text_and_binary_of_all_lengths(void **state) {
    (void)state;
    int fd = ws_open("/echo", NULL, NULL, 0);
    static const size_t sizes[] = {0, 1, 125, 126, 127, 65535, 65536, 200000};
    uint8_t *buf = malloc(200000);
    assert_non_null(buf);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        for (size_t k = 0; k < sizes[i]; k++)
            buf[k] = (uint8_t)('a' + (k * 7 + i) % 26);
        send_frame(fd, 1, 1, buf, sizes[i]);
        expect_message(fd, 1, buf, sizes[i]);
        for (size_t k = 0; k < sizes[i]; k++)
            buf[k] = (uint8_t)(k * 13 + i);
        send_frame(fd, 1, 2, buf, sizes[i]);
        expect_message(fd, 2, buf, sizes[i]);
    }
    free(buf);
    client_close(fd);
}

static void frames_arriving_byte_by_byte(void **state) {
    (void)state;
    int fd = ws_open("/echo", NULL, NULL, 0);
    uint8_t fr[64];
    const uint8_t k4[4] = {1, 2, 3, 4};
    size_t h = tachy__ws_frame_header(fr, 1, 0, 1, 11, k4);
    memcpy(fr + h, "hello world", 11);
    tachy__ws_mask(fr + h, 11, k4, 0);
    for (size_t i = 0; i < h + 11; i++) {
        ts_send(fd, fr + i, (ssize_t)(1));
        usleep(1000);
    }
    expect_message(fd, 1, "hello world", 11);
    client_close(fd);
}

static void fragmented_message_with_control_frames_between(void **state) {
    (void)state;
    int fd = ws_open("/echo", NULL, NULL, 0);
    send_frame(fd, 0, 1, "Hel", 3);
    send_frame(fd, 1, 9, "ping!", 5); /* a ping between fragments is answered at once */
    send_frame(fd, 0, 0, "lo, ", 4);
    send_frame(fd, 1, 10, "unsolicited", 11); /* an unsolicited pong is ignored */
    send_frame(fd, 0, 0, "", 0);
    send_frame(fd, 1, 0, "World", 5);
    expect_message(fd, 10, "ping!", 5);
    expect_message(fd, 1, "Hello, World", 12);
    /* UTF-8 split inside a character across fragments is fine. */
    send_frame(fd, 0, 1, "\xce", 1);
    send_frame(fd, 0, 0, "\xba\xe1", 2);
    send_frame(fd, 1, 0, "\xbd\xb9", 2);
    expect_message(fd, 1, "\xce\xba\xe1\xbd\xb9", 5);
    client_close(fd);
}

/*
 * A fragmented message that a callback began is continued by the next frame's callback
 * even when another pool thread runs it (attached sockets: the thread that ran the first
 * callback is kept busy in /block meanwhile). It used to wait for the first thread, which
 * had moved on, until the send timed out: under load the echo of the second piece never
 * came. Served sockets have a thread of their own: the same pieces, with the pauses.
 */
static void fragments_continue_on_another_thread(void **state) {
    (void)state;
    int fd = ws_open("/frag", NULL, NULL, 0);
    rframe f;
    send_frame(fd, 0, 1, "ab", 2);
    assert_int_equal(read_frame(fd, &f), 0);
    assert_string_equal((char *)f.data, "ab");
    free(f.data);
    int blocker = -1;
    pthread_mutex_lock(&frag_lock);
    frag_blocked = frag_release = 0;
    pthread_mutex_unlock(&frag_lock);
    for (int i = 0; attach_mode && i < 50 && blocker < 0; i++) {
        int h = ts_connect(port);
        ts_send(h, "GET /block HTTP/1.1\r\nHost: x\r\n\r\n", -1);
        long until = ts_now_ms() + 300;
        int blocked = 0;
        while (!blocked && ts_now_ms() < until) {
            pthread_mutex_lock(&frag_lock);
            blocked = frag_blocked;
            pthread_mutex_unlock(&frag_lock);
            struct pollfd pfd = {h, POLLIN, 0};
            if (!blocked && poll(&pfd, 1, 10) > 0)
                break; /* answered by another thread: try again */
        }
        if (blocked)
            blocker = h;
        else
            ts_close(h);
    }
    if (attach_mode)
        assert_true(blocker >= 0); /* the first piece's thread is busy now */
    send_frame(fd, 0, 0, "cd", 2);
    assert_int_equal(read_frame(fd, &f), 0);
    assert_int_equal(f.op, 0);
    assert_string_equal((char *)f.data, "cd");
    free(f.data);
    send_frame(fd, 1, 0, "e", 1);
    assert_int_equal(read_frame(fd, &f), 0);
    assert_int_equal(f.fin, 1);
    assert_string_equal((char *)f.data, "e");
    free(f.data);
    pthread_mutex_lock(&frag_lock);
    frag_release = 1;
    pthread_mutex_unlock(&frag_lock);
    if (blocker >= 0) {
        assert_int_equal(ts_read_head(blocker, (char[256]){0}, 256), 200);
        ts_close(blocker);
    }
    client_close(fd);
}

static void deliver_fragments_mode_echoes_pieces(void **state) {
    (void)state;
    int fd = ws_open("/frag", NULL, NULL, 0);
    send_frame(fd, 0, 2, "ab", 2);
    send_frame(fd, 0, 0, "cd", 2);
    send_frame(fd, 1, 0, "e", 1);
    rframe f;
    const struct {
        int fin, op;
        const char *s;
    } want[] = {{0, 2, "ab"}, {0, 0, "cd"}, {1, 0, "e"}};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(read_frame(fd, &f), 0);
        assert_int_equal(f.fin, want[i].fin);
        assert_int_equal(f.op, want[i].op);
        assert_string_equal((char *)f.data, want[i].s);
        free(f.data);
    }
    client_close(fd);
}

static void ping_pong(void **state) {
    (void)state;
    int fd = ws_open("/echo", NULL, NULL, 0);
    uint8_t p[125];
    for (int i = 0; i < 125; i++)
        p[i] = (uint8_t)i;
    send_frame(fd, 1, 9, p, 125);
    expect_message(fd, 10, p, 125);
    send_frame(fd, 1, 9, NULL, 0);
    expect_message(fd, 10, NULL, 0);
    client_close(fd);
}

/* ---- closing ----------------------------------------------------------------------------------
 */

static void close_with_and_without_code(void **state) {
    (void)state;
    int fd = ws_open("/echo", NULL, NULL, 0);
    client_close(fd);
    /* An empty close is answered by an empty close. */
    fd = ws_open("/echo", NULL, NULL, 0);
    send_frame(fd, 1, 8, NULL, 0);
    rframe f;
    assert_int_equal(read_frame(fd, &f), 0);
    assert_int_equal(f.op, 8);
    assert_int_equal(f.len, 0);
    free(f.data);
    expect_eof(fd);
    close(fd);
    /* Application codes are echoed. */
    fd = ws_open("/echo", NULL, NULL, 0);
    const uint8_t app[] = {0x0F, 0xA0, 'x'}; /* 4000 */
    send_frame(fd, 1, 8, app, sizeof app);
    assert_int_equal(read_frame(fd, &f), 0);
    assert_int_equal(f.op, 8);
    assert_int_equal(f.data[0] << 8 | f.data[1], 4000);
    free(f.data);
    expect_eof(fd);
    close(fd);
}

static void bad_close_frames(void **state) {
    (void)state;
    const uint8_t one_byte[] = {0x03};
    const uint8_t code_1005[] = {0x03, 0xED};
    const uint8_t code_999[] = {0x03, 0xE7};
    const uint8_t code_5000[] = {0x13, 0x88};
    const uint8_t bad_reason[] = {0x03, 0xE8, 0xff};
    struct {
        const uint8_t *p;
        size_t n;
        int code;
    } cases[] = {{one_byte, 1, 1002},
                 {code_1005, 2, 1002},
                 {code_999, 2, 1002},
                 {code_5000, 2, 1002},
                 {bad_reason, 3, 1007}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int fd = ws_open("/echo", NULL, NULL, 0);
        send_frame(fd, 1, 8, cases[i].p, cases[i].n);
        rframe f;
        assert_int_equal(read_frame(fd, &f), 0);
        assert_int_equal(f.op, 8);
        assert_int_equal(f.data[0] << 8 | f.data[1], cases[i].code);
        free(f.data);
        expect_eof(fd);
        close(fd);
    }
}

static void server_initiated_close(void **state) {
    (void)state;
    int fd = ws_open("/closer", NULL, NULL, 0);
    expect_message(fd, 1, "bye soon", 8);
    expect_close(fd, 1000);
    /* Closed by the application from on_message, with its own code. */
    fd = ws_open("/echo", NULL, NULL, 0);
    send_frame(fd, 1, 1, "close", 5);
    expect_close(fd, 4000);
}

static void data_after_close_is_ignored(void **state) {
    (void)state;
    int fd = ws_open("/closer", NULL, NULL, 0);
    expect_message(fd, 1, "bye soon", 8);
    rframe f;
    assert_int_equal(read_frame(fd, &f), 0);
    assert_int_equal(f.op, 8);
    free(f.data);
    send_frame(fd, 1, 1, "late", 4); /* not echoed: the server sent its close */
    send_frame(fd, 1, 9, "p", 1);    /* not answered either */
    const uint8_t bye[] = {0x03, 0xE8};
    send_frame(fd, 1, 8, bye, 2);
    expect_eof(fd);
    close(fd);
}

/* ---- protocol errors --------------------------------------------------------------------------
 */

static void protocol_errors_are_1002(void **state) {
    (void)state;
    for (int i = 0; i < 12; i++) {
        int fd = ws_open("/echo", NULL, NULL, 0);
        uint8_t big[126];
        memset(big, 'x', sizeof big);
        switch (i) {
        case 0: send_frame_ex(fd, 1, 2, 1, "rsv2", 4, 0); break;  /* RSV2 */
        case 1: send_frame_ex(fd, 1, 1, 1, "rsv3", 4, 0); break;  /* RSV3 */
        case 2: send_frame_ex(fd, 1, 4, 1, "rsv1", 4, 0); break;  /* RSV1, no extension */
        case 3: send_frame(fd, 1, 3, "op3", 3); break;            /* reserved data opcode */
        case 4: send_frame(fd, 1, 0xB, "opB", 3); break;          /* reserved control op */
        case 5: send_frame_ex(fd, 1, 0, 1, "plain", 5, 1); break; /* not masked */
        case 6: send_frame(fd, 1, 0, "cont", 4); break;           /* continuation, no start */
        case 7:
            send_frame(fd, 0, 1, "a", 1);
            send_frame(fd, 1, 1, "b", 1); /* new message inside a fragmented one */
            break;
        case 8: send_frame(fd, 0, 9, "p", 1); break;          /* fragmented ping */
        case 9: send_frame(fd, 1, 9, big, 126); break;        /* control payload > 125 */
        case 10: send_frame_ex(fd, 1, 4, 9, "", 0, 0); break; /* RSV1 on a control frame */
        case 11: {
            const uint8_t nonminimal[] = {0x81, 0xFE, 0x00, 0x05, 0,   0,  0,
                                          0,    'a',  'b',  'c',  'd', 'e'};
            ts_send(fd, nonminimal, (ssize_t)(sizeof nonminimal));
            break;
        }
        }
        expect_close(fd, 1002);
    }
}

static void invalid_utf8_is_1007(void **state) {
    (void)state;
    int fd = ws_open("/echo", NULL, NULL, 0);
    send_frame(fd, 1, 1, "\xed\xa0\x80", 3); /* a surrogate */
    expect_close(fd, 1007);
    /* Fail fast: the first fragment alone is already invalid; the close arrives before the
     * message is complete. */
    fd = ws_open("/echo", NULL, NULL, 0);
    send_frame(fd, 0, 1, "ok \xc0\xaf", 5);
    expect_close(fd, 1007);
    /* Truncated at the end of the message. */
    fd = ws_open("/echo", NULL, NULL, 0);
    send_frame(fd, 0, 1, "ok \xe2", 4);
    send_frame(fd, 1, 0, "\x82", 1);
    expect_close(fd, 1007);
}

/* Text frames are validated while they arrive: a big frame whose first bytes are invalid is
 * refused before the rest is sent, and a valid one that trickles in (split inside
 * characters and mask periods) comes back intact. */
static void utf8_checked_while_a_frame_arrives(void **state) {
    (void)state;
    size_t len = 60000;
    uint8_t *text = malloc(len);
    assert_non_null(text);
    for (size_t i = 0; i + 11 <= len; i += 11) /* "κόσμε" is 11 bytes */
        memcpy(text + i, "\xce\xba\xe1\xbd\xb9\xcf\x83\xce\xbc\xce\xb5", 11);
    for (size_t i = len - len % 11; i < len; i++)
        text[i] = '.';
    const uint8_t k4[4] = {0x11, 0x22, 0x33, 0x44};
    uint8_t *fr = malloc(len + TACHY__WS_MAX_HEADER);
    assert_non_null(fr);
    size_t h = tachy__ws_frame_header(fr, 1, 0, 1, len, k4);
    memcpy(fr + h, text, len);
    tachy__ws_mask(fr + h, len, k4, 0);

    int fd = ws_open("/echo", NULL, NULL, 0);
    for (size_t off = 0; off < h + len; off += 997) {
        ts_send(fd, fr + off, (ssize_t)(off + 997 <= h + len ? 997 : h + len - off));
        usleep(200);
    }
    expect_message(fd, 1, text, len);
    client_close(fd);

    /* Invalid bytes early in the frame: 1007 arrives while most of the frame is unsent. */
    memcpy(fr + h, "ok \xed\xa0\x80", 6);
    tachy__ws_mask(fr + h, 6, k4, 0);
    fd = ws_open("/echo", NULL, NULL, 0);
    ts_send(fd, fr, (ssize_t)(h + 100));
    rframe f;
    assert_int_equal(read_frame(fd, &f), 0);
    assert_int_equal(f.op, 8);
    assert_int_equal(f.data[0] << 8 | f.data[1], 1007);
    free(f.data);
    ts_send(fd, fr + h + 100, (ssize_t)(len - 100)); /* finish the frame, then answer the close */
    const uint8_t reply[2] = {0x03, 0xEF};
    send_frame(fd, 1, 8, reply, 2);
    expect_eof(fd);
    close(fd);
    free(fr);
    free(text);
}

static void too_big_is_1009(void **state) {
    (void)state;
    /* One frame over max_frame_size: refused from its header. */
    int fd = ws_open("/echo", NULL, NULL, 0);
    uint8_t h[TACHY__WS_MAX_HEADER];
    const uint8_t k4[4] = {1, 2, 3, 4};
    size_t hl = tachy__ws_frame_header(h, 1, 0, 2, (1 << 20) + 1, k4);
    ts_send(fd, h, (ssize_t)(hl));
    expect_close(fd, 1009);
    /* A message over max_message_size in frames that are each fine. */
    fd = ws_open("/echo", NULL, NULL, 0);
    uint8_t *chunk = calloc(1, 300000);
    assert_non_null(chunk);
    send_frame(fd, 0, 2, chunk, 300000);
    send_frame(fd, 0, 0, chunk, 300000);
    send_frame(fd, 0, 0, chunk, 300000);
    send_frame(fd, 1, 0, chunk, 300000); /* 1.2 MB > 1 MiB */
    free(chunk);
    expect_close(fd, 1009);
}

/* ---- permessage-deflate ------------------------------------------------------------------------
 */

static void permessage_deflate_echo(void **state) {
    (void)state;
    char head[2048], v[256];
    int fd =
        ws_open("/echo", "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n",
                head, sizeof head);
    assert_true(ts_head_value(head, "Sec-WebSocket-Extensions", v, sizeof v));
    assert_string_equal(v, "permessage-deflate");
    tachy__deflater *d;
    tachy__inflater *inf;
    assert_int_equal(tachy__deflater_create(&d, 15, 8, 6, 0), 0);
    assert_int_equal(tachy__inflater_create(&inf, 0), 0);
    tachy__buf c = {0}, out = {0};
    char msg[5000];
    for (size_t i = 0; i < sizeof msg; i++)
        msg[i] = "all work and no play "[i % 21];
    for (int round = 0; round < 3; round++) {
        c.len = 0;
        assert_int_equal(tachy__deflater_compress(d, msg, sizeof msg, &c), 0);
        send_frame_ex(fd, 1, 4, 1, c.bytes, c.len, 0);
        rframe f;
        assert_int_equal(read_frame(fd, &f), 0);
        assert_int_equal(f.op, 1);
        assert_int_equal(f.rsv1, 1); /* >= threshold: compressed back */
        assert_true(f.len < sizeof msg / 4);
        out.len = 0;
        assert_int_equal(tachy__inflater_feed(inf, f.data, f.len, 1, &out, SIZE_MAX), 0);
        assert_int_equal(out.len, sizeof msg);
        assert_memory_equal(out.bytes, msg, sizeof msg);
        free(f.data);
    }
    /* A compressed message in two frames; a short message comes back uncompressed. */
    c.len = 0;
    assert_int_equal(tachy__deflater_compress(d, "tiny", 4, &c), 0);
    send_frame_ex(fd, 0, 4, 2, c.bytes, 1, 0);
    send_frame(fd, 1, 0, c.bytes + 1, c.len - 1);
    expect_message(fd, 2, "tiny", 4);
    /* RSV1 on a continuation frame is a protocol error. */
    send_frame(fd, 0, 1, "a", 1);
    send_frame_ex(fd, 1, 4, 0, "", 0, 0);
    expect_close(fd, 1002);
    tachy__buf_free(&c);
    tachy__buf_free(&out);
    tachy__deflater_destroy(d);
    tachy__inflater_destroy(inf);
}

static void deflate_negotiation_variants(void **state) {
    (void)state;
    char head[2048], v[256];
    int fd =
        ws_open("/echo",
                "Sec-WebSocket-Extensions: permessage-deflate; server_max_window_bits=8, "
                "permessage-deflate; server_no_context_takeover; server_max_window_bits=10\r\n",
                head, sizeof head);
    assert_true(ts_head_value(head, "Sec-WebSocket-Extensions", v, sizeof v));
    assert_string_equal(v, "permessage-deflate; server_no_context_takeover; "
                           "server_max_window_bits=10");
    /* Without context takeover, a fresh inflater per message decodes each reply. */
    char msg[3000];
    memset(msg, 'z', sizeof msg);
    for (int i = 0; i < 2; i++) {
        send_frame(fd, 1, 2, msg, sizeof msg);
        rframe f;
        assert_int_equal(read_frame(fd, &f), 0);
        assert_int_equal(f.rsv1, 1);
        tachy__inflater *inf;
        tachy__buf out = {0};
        assert_int_equal(tachy__inflater_create(&inf, 0), 0);
        assert_int_equal(tachy__inflater_feed(inf, f.data, f.len, 1, &out, SIZE_MAX), 0);
        assert_int_equal(out.len, sizeof msg);
        tachy__inflater_destroy(inf);
        tachy__buf_free(&out);
        free(f.data);
    }
    client_close(fd);
    /* Unknown parameters: declined, the connection still opens without compression. */
    fd = ws_open("/echo", "Sec-WebSocket-Extensions: permessage-deflate; foo=1\r\n", head,
                 sizeof head);
    assert_false(ts_head_value(head, "Sec-WebSocket-Extensions", v, sizeof v));
    client_close(fd);
}

static void decompression_bomb_is_1009(void **state) {
    (void)state;
    int fd = ws_open("/echo", "Sec-WebSocket-Extensions: permessage-deflate\r\n", NULL, 0);
    size_t big = 16u << 20;
    uint8_t *zeros = calloc(1, big);
    assert_non_null(zeros);
    tachy__deflater *d;
    assert_int_equal(tachy__deflater_create(&d, 15, 8, 9, 0), 0);
    tachy__buf c = {0};
    assert_int_equal(tachy__deflater_compress(d, zeros, big, &c), 0);
    free(zeros);
    assert_true(c.len < (1 << 20)); /* the frame itself is within limits */
    send_frame_ex(fd, 1, 4, 2, c.bytes, c.len, 0);
    expect_close(fd, 1009);
    tachy__buf_free(&c);
    tachy__deflater_destroy(d);
}

/* ---- threads -----------------------------------------------------------------------------------
 */

static void wait_held(int n) {
    pthread_mutex_lock(&held_lock);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += 5;
    while (nheld < n && pthread_cond_timedwait(&held_cond, &held_lock, &ts) == 0) {
    }
    assert_true(nheld >= n);
    pthread_mutex_unlock(&held_lock);
}

static void release_held(void) {
    pthread_mutex_lock(&held_lock);
    for (int i = 0; i < nheld; i++)
        tachy_ws_release(held[i]);
    nheld = 0;
    pthread_mutex_unlock(&held_lock);
}

static void broadcast_from_another_thread(void **state) {
    (void)state;
    release_held();
    int fds[3];
    for (int i = 0; i < 3; i++) { /* one at a time, so held[i] belongs to fds[i] */
        fds[i] = ws_open("/hold", NULL, NULL, 0);
        wait_held(i + 1);
    }
    assert_int_equal(tachy_ws_broadcast(held, 3, TACHY_WS_TEXT, "tick", 4), 3);
    assert_int_equal(tachy_ws_send_binary(held[1], "\x01\x02", 2), 0);
    assert_int_equal(tachy_ws_broadcast(held, 3, TACHY_WS_TEXT, "\xff", 1), TACHY_EINVAL);
    for (int i = 0; i < 3; i++)
        expect_message(fds[i], 1, "tick", 4);
    expect_message(fds[1], 2, "\x01\x02", 2);
    /* A fragmented message from this thread; the connection's own echo of another
     * message waits until its last fragment. */
    assert_int_equal(tachy_ws_send_fragment(held[0], TACHY_WS_TEXT, "frag", 4, 0), 0);
    send_frame(fds[0], 1, 1, "echo", 4);
    usleep(50000);
    assert_int_equal(tachy_ws_send_fragment(held[0], TACHY_WS_TEXT, "ment", 4, 1), 0);
    rframe f;
    assert_int_equal(read_frame(fds[0], &f), 0);
    assert_int_equal(f.fin, 0);
    assert_string_equal((char *)f.data, "frag");
    free(f.data);
    assert_int_equal(read_frame(fds[0], &f), 0);
    assert_int_equal(f.op, 0);
    assert_string_equal((char *)f.data, "ment");
    free(f.data);
    expect_message(fds[0], 1, "echo", 4);
    /* After the clients close, the retained handles fail fast. */
    for (int i = 0; i < 3; i++)
        client_close(fds[i]);
    for (int i = 0; i < 50 && tachy_ws_is_open(held[2]); i++)
        usleep(10000);
    assert_false(tachy_ws_is_open(held[2]));
    assert_int_equal(tachy_ws_send_text(held[2], "late", 4), TACHY_ECLOSED);
    assert_int_equal(tachy_ws_broadcast(held, 3, TACHY_WS_TEXT, "late", 4), 0);
    release_held();
}

/* A client that never reads: sends fail with TACHY_ETIMEDOUT after send_timeout_ms and the
 * connection is failed; later sends fail at once. */
static void slow_client_is_dropped(void **state) {
    (void)state;
    release_held();
    pthread_mutex_lock(&held_lock);
    int closes_before = closes_seen;
    pthread_mutex_unlock(&held_lock);
    int fd = ws_open("/slow", NULL, NULL, 0);
    int small = 4096;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    wait_held(1);
    tachy_ws *ws = held[0];
    size_t len = 256 * 1024;
    uint8_t *blob = calloc(1, len);
    assert_non_null(blob);
    long long t0 = ts_now_ms();
    int rc = 0;
    for (int i = 0; i < 200 && rc == 0; i++)
        rc = tachy_ws_send_binary(ws, blob, len);
    long long took = ts_now_ms() - t0;
    assert_int_equal(rc, TACHY_ETIMEDOUT);
    assert_true(took < 5000);
    assert_false(tachy_ws_is_open(ws));
    t0 = ts_now_ms();
    assert_int_equal(tachy_ws_send_binary(ws, blob, len), TACHY_ECLOSED);
    assert_true(ts_now_ms() - t0 < 100);
    free(blob);
    /* The connection thread noticed: on_error(ETIMEDOUT), on_close(1006). */
    pthread_mutex_lock(&held_lock);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += 5;
    while (last_close_ws != ws && pthread_cond_timedwait(&held_cond, &held_lock, &ts) == 0) {
    }
    assert_true(closes_seen > closes_before);
    assert_int_equal(last_close_code, 1006);
    assert_int_equal(last_error, TACHY_ETIMEDOUT);
    pthread_mutex_unlock(&held_lock);
    close(fd);
    release_held();
}

/* ---- broadcast ------------------------------------------------------------------------------ */

/* Opens n /hold (or /slow) clients one at a time, so that held[i] belongs to fds[i]. */
static void open_held(const char *path, int *fds, int n) {
    release_held();
    for (int i = 0; i < n; i++) {
        fds[i] = ws_open(path, NULL, NULL, 0);
        wait_held(i + 1);
    }
}

static void fill_pattern(uint8_t *p, size_t len, unsigned seed) {
    for (size_t i = 0; i < len; i++)
        p[i] = (uint8_t)(seed * 31u + i * 7u);
}

/* Every client gets every broadcast frame whole and in order, small and large (header with
 * 16- and 64-bit lengths), on one thread and sharded over several. */
static void broadcast_to_many_clients_intact(void **state) {
    (void)state;
    enum { N = 24 };
    int fds[N];
    open_held("/hold", fds, N);
    static const size_t sizes[] = {0, 5, 125, 126, 4000, 65535, 65536, 300000};
    const size_t nsizes = sizeof sizes / sizeof sizes[0];
    uint8_t *buf = malloc(300000);
    assert_non_null(buf);
    for (int sharded = 0; sharded < 2; sharded++) {
        tachy__ws_set_broadcast_shard_min(sharded ? 2 : 0);
        for (size_t k = 0; k < nsizes; k++) {
            fill_pattern(buf, sizes[k], (unsigned)k);
            tachy_ws_broadcast_stats st;
            /* 300 kB may be more than a socket takes at once while its client is not
             * reading: pass 2 finishes it (within the 5 s send timeout) */
            ssize_t r;
            r = tachy_ws_broadcast_ex(held, N, TACHY_WS_BINARY, buf, sizes[k], &st);
            assert_int_equal(r, N);
            assert_int_equal(st.sent, N);
            assert_int_equal(st.closed + st.failed + st.busy, 0);
            for (int i = 0; i < N; i++)
                expect_message(fds[i], 2, buf, sizes[k]);
        }
        assert_int_equal(tachy_ws_broadcast(held, N, TACHY_WS_TEXT, "tick", 4), N);
        for (int i = 0; i < N; i++)
            expect_message(fds[i], 1, "tick", 4);
    }
    tachy__ws_set_broadcast_shard_min(0);
    free(buf);
    for (int i = 0; i < N; i++)
        client_close(fds[i]);
    release_held();
}

/* A closed client, a NULL entry and a client in the middle of this thread's fragmented
 * message are skipped and counted; the others get the message. */
static void broadcast_skips_closed_and_busy(void **state) {
    (void)state;
    int fds[4];
    open_held("/hold", fds, 4);
    client_close(fds[3]);
    for (int i = 0; i < 100 && tachy_ws_is_open(held[3]); i++)
        usleep(10000);
    assert_false(tachy_ws_is_open(held[3]));
    assert_int_equal(tachy_ws_send_fragment(held[2], TACHY_WS_TEXT, "fr", 2, 0), 0);
    tachy_ws *list[5] = {held[0], NULL, held[1], held[2], held[3]};
    tachy_ws_broadcast_stats st;
    assert_int_equal(tachy_ws_broadcast_ex(list, 5, TACHY_WS_TEXT, "hello", 5, &st), 2);
    assert_int_equal(st.sent, 2);
    assert_int_equal(st.closed, 2); /* NULL and the closed one */
    assert_int_equal(st.busy, 1);   /* our own unfinished message on held[2] */
    assert_int_equal(st.failed, 0);
    assert_int_equal(tachy_ws_send_fragment(held[2], TACHY_WS_TEXT, "ag", 2, 1), 0);
    expect_message(fds[0], 1, "hello", 5);
    expect_message(fds[1], 1, "hello", 5);
    rframe f;
    assert_int_equal(read_frame(fds[2], &f), 0); /* nothing between the two fragments */
    assert_int_equal(f.fin, 0);
    assert_int_equal(f.op, 1);
    free(f.data);
    assert_int_equal(read_frame(fds[2], &f), 0);
    assert_int_equal(f.fin, 1);
    assert_int_equal(f.op, 0);
    free(f.data);
    /* Statistics are zeroed even when the arguments are refused. */
    st.sent = 99;
    assert_int_equal(tachy_ws_broadcast_ex(list, 5, 7, "x", 1, &st), TACHY_EINVAL);
    assert_int_equal(st.sent, 0);
    for (int i = 0; i < 3; i++)
        client_close(fds[i]);
    release_held();
}

/* A client reading in a thread of its own: counts whole frames of the expected pattern. */
typedef struct reader_client {
    int fd;
    size_t len;             /* payload length of every frame */
    int frames, bad;        /* frames received intact / wrong */
    long long last_at;      /* ts_now_ms() of the last whole frame */
    int stop;               /* atomic builtins */
    pthread_mutex_t lock;
} reader_client;

static void *reader_main(void *arg) {
    reader_client *rc = arg;
    size_t flen = rc->len + 10, have = 0;
    uint8_t *buf = malloc(flen), *want = malloc(rc->len);
    fill_pattern(want, rc->len, 1);
    struct timeval tv = {0, 50000};
    setsockopt(rc->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    while (!__atomic_load_n(&rc->stop, __ATOMIC_ACQUIRE)) {
        ssize_t r = recv(rc->fd, buf + have, flen - have, 0);
        if (r == 0)
            break;
        if (r < 0)
            continue; /* timeout: look at stop */
        have += (size_t)r;
        if (have == flen) { /* 127-length header of 10 bytes, then the payload */
            int ok = buf[0] == 0x82 && buf[1] == 127 && memcmp(buf + 10, want, rc->len) == 0;
            pthread_mutex_lock(&rc->lock);
            if (ok)
                rc->frames++;
            else
                rc->bad++;
            rc->last_at = ts_now_ms();
            pthread_mutex_unlock(&rc->lock);
            have = 0;
        }
    }
    free(buf);
    free(want);
    return NULL;
}

/* One client stops reading: the others keep getting every broadcast, the stuck one is
 * waited for (with the others) at most send_timeout_ms (300 ms on /slow) in one call, then
 * failed: on_error(TACHY_ETIMEDOUT), on_close(1006); later broadcasts skip it at once. */
static void broadcast_stuck_client_is_dropped_without_stalling_others(void **state) {
    (void)state;
    pthread_mutex_lock(&held_lock);
    int closes_before = closes_seen;
    pthread_mutex_unlock(&held_lock);
    int fds[3];
    open_held("/slow", fds, 3);
    int small = 4096;
    setsockopt(fds[0], SOL_SOCKET, SO_RCVBUF, &small, sizeof small); /* fds[0] never reads */
    size_t len = 256 * 1024;
    uint8_t *blob = malloc(len);
    assert_non_null(blob);
    fill_pattern(blob, len, 1);
    reader_client rc[2];
    pthread_t th[2];
    for (int i = 0; i < 2; i++) {
        memset(&rc[i], 0, sizeof rc[i]);
        rc[i].fd = fds[i + 1];
        rc[i].len = len;
        pthread_mutex_init(&rc[i].lock, NULL);
        assert_int_equal(pthread_create(&th[i], NULL, reader_main, &rc[i]), 0);
    }
    int sent_to_good = 0, failed_at = -1;
    long long stall_start = 0, stall_end = 0;
    for (int k = 0; k < 400 && failed_at < 0; k++) {
        tachy_ws_broadcast_stats st;
        long long t0 = ts_now_ms();
        ssize_t r = tachy_ws_broadcast_ex(held, 3, TACHY_WS_BINARY, blob, len, &st);
        long long t1 = ts_now_ms();
        assert_true(r >= 2); /* the readers always get it */
        assert_int_equal(st.busy, 0);
        assert_true(t1 - t0 < 2000); /* at most one send timeout (300 ms) and some slack */
        sent_to_good++;
        if (st.failed) {
            assert_int_equal(st.failed, 1);
            assert_int_equal(r, 2);
            failed_at = k;
            stall_start = t0;
            stall_end = t1;
            assert_true(t1 - t0 >= 250); /* it was given its send timeout */
        }
    }
    assert_true(failed_at >= 0);
    assert_false(tachy_ws_is_open(held[0]));
    assert_true(tachy_ws_is_open(held[1]) && tachy_ws_is_open(held[2]));
    /* The readers had the stalled broadcast's frame before the call gave up on the stuck
     * client: pass 2 waits for everyone together. */
    for (int i = 0; i < 2; i++) {
        for (int w = 0; w < 200; w++) {
            pthread_mutex_lock(&rc[i].lock);
            int got = rc[i].frames + rc[i].bad;
            pthread_mutex_unlock(&rc[i].lock);
            if (got >= sent_to_good)
                break;
            usleep(10000);
        }
        pthread_mutex_lock(&rc[i].lock);
        assert_int_equal(rc[i].bad, 0);
        assert_int_equal(rc[i].frames, sent_to_good);
        if (failed_at > 0) /* the frame of the stalled call arrived before the call returned */
            assert_true(rc[i].last_at <= stall_end);
        pthread_mutex_unlock(&rc[i].lock);
    }
    (void)stall_start;
    /* Later broadcasts skip the dropped client at once. */
    tachy_ws_broadcast_stats st;
    long long t0 = ts_now_ms();
    assert_int_equal(tachy_ws_broadcast_ex(held, 3, TACHY_WS_BINARY, blob, len, &st), 2);
    assert_true(ts_now_ms() - t0 < 250);
    assert_int_equal(st.closed, 1);
    assert_int_equal(st.failed, 0);
    sent_to_good++;
    for (int i = 0; i < 2; i++) {
        for (int w = 0; w < 200; w++) {
            pthread_mutex_lock(&rc[i].lock);
            int got = rc[i].frames;
            pthread_mutex_unlock(&rc[i].lock);
            if (got >= sent_to_good)
                break;
            usleep(10000);
        }
        __atomic_store_n(&rc[i].stop, 1, __ATOMIC_RELEASE);
        pthread_join(th[i], NULL);
        assert_int_equal(rc[i].frames, sent_to_good);
        pthread_mutex_destroy(&rc[i].lock);
    }
    /* The stuck client's connection thread reported it. */
    pthread_mutex_lock(&held_lock);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += 5;
    while (closes_seen == closes_before && pthread_cond_timedwait(&held_cond, &held_lock, &ts) == 0) {
    }
    assert_true(closes_seen > closes_before);
    assert_int_equal(last_close_ws, held[0]);
    assert_int_equal(last_close_code, 1006);
    assert_int_equal(last_error, TACHY_ETIMEDOUT);
    pthread_mutex_unlock(&held_lock);
    free(blob);
    for (int i = 0; i < 3; i++)
        close(fds[i]);
    release_held();
}

/* ---- timers -----------------------------------------------------------------------------------
 */

/* A quiet peer is pinged; one that answers stays; one that does not is dropped (no close
 * frame: it is not listening) with on_error(ETIMEDOUT) and on_close(1006). */
static void server_pings_and_drops_silent_peers(void **state) {
    (void)state;
    int fd = ws_open("/ping", NULL, NULL, 0);
    for (int i = 0; i < 3; i++) {
        rframe f;
        assert_int_equal(read_frame(fd, &f), 0);
        assert_int_equal(f.op, 9);
        assert_int_equal(f.len, 8);
        send_frame(fd, 1, 10, f.data, f.len); /* answer */
        free(f.data);
    }
    send_frame(fd, 1, 1, "alive", 5);
    expect_message(fd, 1, "alive", 5);
    client_close(fd);

    fd = ws_open("/ping", NULL, NULL, 0);
    long long t0 = ts_now_ms();
    rframe f;
    assert_int_equal(read_frame(fd, &f), 0);
    assert_int_equal(f.op, 9);
    free(f.data);
    expect_eof(fd); /* dropped: EOF */
    long long took = ts_now_ms() - t0;
    assert_true(took >= 300 && took < 3000);
    close(fd);
}

static void idle_peer_is_closed_with_1001(void **state) {
    (void)state;
    int fd = ws_open("/idle", NULL, NULL, 0);
    long long t0 = ts_now_ms();
    expect_close(fd, 1001);
    long long took = ts_now_ms() - t0;
    assert_true(took >= 150 && took < 3000);
}

/* tachy_ws_close from another thread while the connection thread waits in read: the
 * close goes out, and a peer that never answers is cut off after close_timeout_ms. */
static void close_from_another_thread(void **state) {
    (void)state;
    release_held();
    int fd = ws_open("/slow", NULL, NULL, 0); /* hold + close_timeout 300 ms */
    wait_held(1);
    long long t0 = ts_now_ms();
    assert_int_equal(tachy_ws_close(held[0], 1001, "going away"), 0);
    assert_int_equal(tachy_ws_close(held[0], 1000, NULL), TACHY_ECLOSED);
    assert_int_equal(tachy_ws_send_text(held[0], "x", 1), TACHY_ECLOSED);
    assert_false(tachy_ws_is_open(held[0]));
    rframe f;
    assert_int_equal(read_frame(fd, &f), 0);
    assert_int_equal(f.op, 8);
    assert_int_equal(f.data[0] << 8 | f.data[1], 1001);
    assert_string_equal((char *)f.data + 2, "going away");
    free(f.data);
    expect_eof(fd); /* no reply from us: cut off */
    long long took = ts_now_ms() - t0;
    assert_true(took >= 250 && took < 3000);
    close(fd);
    /* Invalid close arguments. */
    assert_int_equal(tachy_ws_close(held[0], 1005, NULL), TACHY_EINVAL);
    assert_int_equal(tachy_ws_close(held[0], 0, "reason without code"), TACHY_EINVAL);
    release_held();
}

/* Every case, in order; SERVE_ONLY: the ones that pin tachy_ws_serve's blocking
 * slow-client policy (attached sockets queue instead: test_ws_crowd.c). */
#define WS_SOCKET_CASES(BOTH, SERVE_ONLY) \
    BOTH(handshake_ok_with_subprotocol) \
    BOTH(handshake_refusals) \
    BOTH(echo_text_and_binary_of_all_lengths) \
    BOTH(frames_arriving_byte_by_byte) \
    BOTH(fragmented_message_with_control_frames_between) \
    BOTH(deliver_fragments_mode_echoes_pieces) \
    BOTH(fragments_continue_on_another_thread) \
    BOTH(ping_pong) \
    BOTH(close_with_and_without_code) \
    BOTH(bad_close_frames) \
    BOTH(server_initiated_close) \
    BOTH(data_after_close_is_ignored) \
    BOTH(protocol_errors_are_1002) \
    BOTH(invalid_utf8_is_1007) \
    BOTH(utf8_checked_while_a_frame_arrives) \
    BOTH(too_big_is_1009) \
    BOTH(permessage_deflate_echo) \
    BOTH(deflate_negotiation_variants) \
    BOTH(decompression_bomb_is_1009) \
    BOTH(broadcast_from_another_thread) \
    SERVE_ONLY(slow_client_is_dropped) \
    BOTH(broadcast_to_many_clients_intact) \
    BOTH(broadcast_skips_closed_and_busy) \
    SERVE_ONLY(broadcast_stuck_client_is_dropped_without_stalling_others) \
    BOTH(server_pings_and_drops_silent_peers) \
    BOTH(idle_peer_is_closed_with_1001) \
    BOTH(close_from_another_thread)

#define WS_CASE(t) cmocka_unit_test(t),
#define WS_SKIP(t)

int main(void) {
    const struct CMUnitTest tests[] = {WS_SOCKET_CASES(WS_CASE, WS_CASE)};
    int failed = cmocka_run_group_tests_name("ws_socket", tests, setup, teardown);
    /* The same cases on attached connections, except the SERVE_ONLY ones. */
    const struct CMUnitTest attached[] = {WS_SOCKET_CASES(WS_CASE, WS_SKIP)};
    attach_mode = 1;
    failed += cmocka_run_group_tests_name("ws_socket_attached", attached, setup, teardown);
    return failed;
}
