/*
 * ws/ws.h - WebSocket (RFC 6455, RFC 7692): the connection object shared by the files of
 * ws/, and the pure pieces the tests pin byte by byte. Private to the core; never
 * installed.
 *
 *   ws.c         the tachy_ws object and sending (any thread)
 *   broadcast.c  one frame to many sockets (tachy_ws_broadcast)
 *   handshake.c  the opening handshake: the request's checks, the 4xx or the 101, the upgrade
 *   reader.c     tachy_ws_serve, tachy_ws_attach and the read loop with
 *                its close handshake, limits and timers; tachy__ws_drive for attached
 *                connections, which loop/wspark.c runs when their socket has an event
 *   proto.c      frames, masking, close payloads, negotiation (pure)
 *   deflate.c    permessage-deflate codecs (the only file that includes zlib)
 *
 * ws/ includes base/ and http/ (the upgraded stream's I/O goes through http/io.c).
 */
#ifndef TACHY__SRC_WS_WS_H
#define TACHY__SRC_WS_WS_H

#include "base/base.h"
#include "http/http.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <tachy/error.h>
#include <tachy/timer.h>
#include <tachy/ws.h>

/* ---- deflate.c: permessage-deflate codecs (RFC 7692 7.2) --------------------------------- */

typedef struct tachy__deflater tachy__deflater;
typedef struct tachy__inflater tachy__inflater;

/* A raw-deflate compressor for messages. window_bits 9..15 (8 is raised to 9: zlib cannot
 * produce an 8-bit window), mem_level 1..9, level 0..9. no_context_takeover resets the
 * LZ77 window after every message. 0 or TACHY_ENOMEM / TACHY_EINVAL. */
int tachy__deflater_create(tachy__deflater **out, int window_bits, int mem_level, int level,
                           int no_context_takeover);
void tachy__deflater_destroy(tachy__deflater *d);

/* Compresses one whole message, appending to out: the sync-flushed stream with its final
 * 0x00 0x00 0xff 0xff removed (RFC 7692 7.2.1); an empty result becomes one 0x00 byte.
 * 0, TACHY_ENOMEM, or TACHY_EIO (zlib failure; the compressor is then unusable). */
int tachy__deflater_compress(tachy__deflater *d, const void *in, size_t len, tachy__buf *out);

/* A raw-deflate decompressor. It always uses a 15-bit window, which decodes any smaller
 * window. no_context_takeover: the peer resets its window per message, so do we. */
int tachy__inflater_create(tachy__inflater **out, int no_context_takeover);
void tachy__inflater_destroy(tachy__inflater *inf);

/*
 * Decompresses one frame's payload of a compressed message, appending to out; last = 1
 * for the message's final frame (the 0x00 0x00 0xff 0xff tail is appended internally,
 * RFC 7692 7.2.2). Output is produced in bounded steps and stops as soon as out->len would
 * exceed limit: TACHY_ETOOBIG (decompression bomb -> close 1009; the inflater must not be
 * used again). TACHY_EPROTO for corrupt data, TACHY_ENOMEM, else 0.
 */
int tachy__inflater_feed(tachy__inflater *inf, const void *in, size_t len, int last,
                         tachy__buf *out, size_t limit);

/* ---- proto.c: framing (RFC 6455 5.2) ------------------------------------------------------- */

enum {
    TACHY__WS_OP_CONT = 0x0,
    TACHY__WS_OP_TEXT = 0x1,
    TACHY__WS_OP_BINARY = 0x2,
    TACHY__WS_OP_CLOSE = 0x8,
    TACHY__WS_OP_PING = 0x9,
    TACHY__WS_OP_PONG = 0xA
};

#define TACHY__WS_MAX_HEADER 14 /* 2 + 8 (64-bit length) + 4 (mask) */

/* What the frame parser enforces. */
typedef struct tachy__ws_parse_rules {
    int mask;             /* 1: frames must be masked (server side); -1: must not; 0: either */
    int allow_rsv1;       /* permessage-deflate negotiated: RSV1 allowed on data frames */
    uint64_t max_payload; /* larger payload -> 1009; 0 = no limit */
    int lenient;          /* only frame boundaries matter (draining after a failure): skip */
                          /* the RSV, opcode, control-frame and mask checks */
} tachy__ws_parse_rules;

typedef struct tachy__ws_frame {
    int fin, rsv1, rsv2, rsv3;
    int opcode;
    int masked;
    uint8_t mask[4];
    size_t header_len;    /* 0 while the header is incomplete */
    uint64_t payload_len; /* valid once header_len > 0 */
    int close_code;       /* on error: the code to close with (1002, 1009) */
    const char *error;    /* on error: a static reason */
} tachy__ws_frame;

/*
 * Parses one frame at buf[0,len). Returns the whole frame's length (header + payload,
 * > 0) when it is complete in buf; 0 when more bytes are needed (f->header_len is then
 * set if the header is complete, so header_len + payload_len bytes are needed); -1 on a
 * violation with f->close_code and f->error: RSV2/RSV3 set, RSV1 without deflate or on a
 * control or continuation frame, reserved opcode, fragmented control frame, control
 * payload > 125, 64-bit length with the top bit set, non-minimal length encoding, mask
 * rule broken (all 1002), payload over max_payload (1009). Violations are detected as soon
 * as the bytes that show them are present. Never reads outside buf[0,len). The payload
 * stays masked: see tachy__ws_mask. Pure.
 */
ssize_t tachy__ws_frame_parse(const uint8_t *buf, size_t len, const tachy__ws_parse_rules *r,
                              tachy__ws_frame *f);

/* Writes a frame header into out and returns its length (2..14). mask NULL = unmasked.
 * The payload (masked by the caller for a client) follows it. Pure. */
size_t tachy__ws_frame_header(uint8_t out[TACHY__WS_MAX_HEADER], int fin, int rsv1, int opcode,
                              uint64_t payload_len, const uint8_t *mask);

/* XORs p[0,len) with key, starting at key position offset % 4 (for payloads unmasked in
 * pieces). Pure. */
void tachy__ws_mask(uint8_t *p, size_t len, const uint8_t key[4], size_t offset);

/* Close codes a peer may send (RFC 6455 7.4): 1000-1003, 1007-1014, 3000-4999. */
int tachy__ws_close_code_valid(int code);

/* Parses a close frame's (unmasked) payload: 0 with *code (1005 when empty), *reason and
 * *reason_len set, or the code to fail with: 1002 (length 1, invalid code), 1007 (reason
 * not UTF-8). Pure. */
int tachy__ws_close_parse(const uint8_t *p, size_t len, int *code, const char **reason,
                          size_t *reason_len);

/* ---- broadcast.c ----------------------------------------------------------------------- */

/* Smallest broadcast sharded over several threads when the affinity mask allows more than
 * one CPU (default 4096; 0 restores it). For tests, which shard small broadcasts. */
void tachy__ws_set_broadcast_shard_min(size_t n);

/* ---- proto.c: handshake pieces --------------------------------------------------------------- */

/* Sec-WebSocket-Accept for key (RFC 6455 4.2.2): base64(SHA-1(key + GUID)) into out
 * (28 chars + NUL). */
void tachy__ws_accept_key(const char *key, size_t key_len, char out[29]);

/* 1 if the comma-separated header value list contains token (case-insensitive, optional
 * whitespace around elements), else 0. */
int tachy__ws_has_token(const char *value, const char *token);

/* permessage-deflate configuration (from tachy_ws_options) and negotiated result. */
typedef struct tachy__ws_pmd {
    int enabled;
    int server_no_context_takeover;
    int client_no_context_takeover;
    int server_max_window_bits; /* 9..15 */
    int client_max_window_bits; /* 8..15; 15 when not negotiated */
} tachy__ws_pmd;

/*
 * RFC 7692 negotiation over the Sec-WebSocket-Extensions values (each a comma-separated
 * list of offers). The first acceptable permessage-deflate offer wins. Returns 1 with *out
 * and the response header value in resp (cap bytes, NUL-terminated), or 0 when nothing is
 * accepted (resp empty). Pure.
 */
int tachy__ws_pmd_negotiate(const char *const *values, size_t n, const tachy__ws_pmd *cfg,
                            tachy__ws_pmd *out, char *resp, size_t cap);

/* Selects a subprotocol: the first of supported[0,ns) that appears in any of the
 * comma-separated Sec-WebSocket-Protocol values (exact match). Index or -1. Pure. */
int tachy__ws_select_subprotocol(const char *const *values, size_t n, const char *const *supported,
                                 size_t ns);

/* ---- ws.c: the connection object ---------------------------------------------------- */

/* The fields a broadcast touches come first: they share the struct's first two cache
 * lines (the struct is 64-byte aligned), so writing to 10,000 sockets costs two cold lines
 * per socket, not five. */
struct tachy_ws {
    pthread_mutex_t lock;
    /* under lock */
    int fd;               /* the socket, cached at upgrade; valid while stream != NULL */
    int dead;             /* socket failed, aborted or gone: no more writes */
    int close_sent;
    int frag_active;      /* a fragmented message is being sent */
    tachy_stream *stream; /* NULL once the connection is gone */
    tachy__buf backlog; /* unsent rest of broadcast frames: written before anything else; */
                        /* freed whenever it empties (a parked socket keeps no queue) */
    int refs;             /* atomic builtins */
    int aborted;
    int send_err; /* first send failure, reported by the reader */
    long long close_sent_at;

    pthread_cond_t cond; /* a fragmented message ended / the socket died */
    tachy_ws_options opt;
    tachy_exchange *ex;
    void *user;
    char *subprotocol;
    char *extensions;
    tachy__ws_pmd pmd;

    /* under lock */
    pthread_t frag_owner;
    int frag_by_driver;      /* the unfinished message was begun by a callback of the
                                attached socket: its next driver continues it (ws.c) */
    int frag_type;
    tachy__utf8 frag_utf8;
    tachy__deflater *deflater; /* created at the first compressed send */
    tachy__buf zbuf;         /* compressed payload scratch (attached: freed after each send) */

    /* Attached connections (tachy_ws_attach): no thread of their own. Constant after
     * attach unless said otherwise. */
    int parked;              /* sends queue (backlog) instead of waiting for the peer */
    tachy_server *srv;       /* for the timers */
    tachy__conn *conn;       /* the connection; its slot is the pool's */
    tachy_stream own_stream; /* the exchange's stream is reset when the handler returns */
    struct tachy__ws_reader *rd; /* the read side: the connection's owner only */
    tachy_timer *close_timer; /* under lock: cuts the socket off close_timeout_ms after a close */
    tachy_timer *tick_timer;  /* idle and ping checks (only when configured) */
    tachy_timer *flush_timer; /* under lock: retries the backlog while it is not empty */
    long long last_rx;        /* atomic builtins: ms of the last bytes from the peer */
    long long ping_sent_at;   /* atomic builtins: ms of the outstanding ping, 0 = none */
    const char *fail_what;    /* under lock: why a timer or the queue failed the socket */
    /* Reading paused (tachy_ws_suspend_reading): written under lock, read with atomic
     * builtins by the owner before each frame. */
    int read_paused;
    /* The thread in tachy__ws_drive now (its thread-local mark; atomic builtins), so that
     * a resume from inside a callback needs no kick: the owner's loop sees it. */
    const void *driver;
    /* Set by loop/wspark.c when it adopts the connection (under lock): raises an event
     * for the parked socket so that a pool thread drives it again (resume). Lock held,
     * socket alive (stream != NULL). NULL before adoption: the adoption drives it. */
    void (*kick)(tachy_ws *ws);
    uint64_t kick_token;      /* the connection's epoll token, for kick */
    tachy_ws *reg_next;       /* the attach registry (reader.c), until the pool takes it */
};


#define TACHY__WS_KEEP_BUF (64 * 1024) /* buffers larger than this are freed after use */
#define TACHY__WS_SMALL_FRAME 4096     /* frames up to this: one copy, one write */
#define TACHY__WS_THREAD_BUF (64 * 1024) /* attached sockets read into the pool thread's */
                                         /* buffer of this size (reader.c) */

/* Milliseconds left until deadline (-1 = none), clamped to int; 0 when past. */
int tachy__ws_ms_left(long long deadline);
/* now + ms on the one clock, or -1 (none) for ms < 0. */
long long tachy__ws_deadline_after(long ms);
/* Hands p[0,len) to a plain socket without waiting (ws.c): bytes taken (<= len), or < 0
 * when the socket failed (the connection is then dead). Lock held. */
ssize_t tachy__ws_push_nowait_locked(tachy_ws *ws, const uint8_t *p, size_t len);
/* Marks the connection dead after a write failure (lock held). */
void tachy__ws_die_locked(tachy_ws *ws, int err);
/* Takes ws->lock for a data frame, waiting while another thread's fragmented message is
 * in progress (continuing: the caller's own). 0 with the lock held, or TACHY_E* unlocked. */
int tachy__ws_lock_for_data(tachy_ws *ws, int continuing);
/* Writes a whole encoded frame after any backlog (lock held). 0 or TACHY_E*. */
int tachy__ws_write_encoded_locked(tachy_ws *ws, const uint8_t *frame, size_t len);
/* Builds and writes one frame (lock held). 0 or TACHY_E*. */
int tachy__ws_write_frame_locked(tachy_ws *ws, int fin, int rsv1, int opcode, const void *payload,
                                 size_t len);
/* Blocking write of the broadcast backlog before any other frame (lock held). */
int tachy__ws_flush_backlog_locked(tachy_ws *ws, long long deadline);
/* Attach mode, plain sockets: hands header + payload to the socket without waiting; what
 * it does not take is queued in the backlog (bounded by opt.max_backlog, see
 * opt.backlog_policy). Lock held. 0, or TACHY_ETOOBIG / TACHY_ECLOSED / TACHY_E*. */
int tachy__ws_queue_locked(tachy_ws *ws, const uint8_t *hdr, size_t hlen, const void *payload,
                           size_t plen);
/* Non-blocking write of the backlog (lock held): 1 empty, 0 bytes remain, < 0 the socket
 * failed (the connection is then dead). */
int tachy__ws_flush_nowait_locked(tachy_ws *ws);
/* Attach mode: schedules the close timer once a close frame went out (lock held). */
void tachy__ws_arm_close_timer_locked(tachy_ws *ws);

/* ---- reader.c: attached connections (driven by loop/wspark.c) ----------------------- */

/* The WebSocket the calling thread's handler attached to c with tachy_ws_attach, taken
 * (the thread forgets it), or NULL. The caller owns the read side from then on. Bytes
 * already in c's HTTP read buffer (frames right behind the upgrade request) move to the
 * reader, and c sheds its HTTP memory (tachy__conn_shed_http). Owner of c. */
tachy_ws *tachy__ws_take_attached(tachy__conn *c);

/* The opening handshake (handshake.c; RFC 6455 4.2.1, subprotocol, RFC 7692), the 101 and
 * the upgrade: *out is the new connection object with ws->stream set, one reference, owned
 * by the caller. keeps_thread: the caller's thread goes on serving the socket (serve) or
 * not (attach). 0, TACHY_EPROTO (refused: the 4xx went out and the exchange is closed) or
 * another TACHY_E* (nothing made). The thread that runs the exchange's handler. */
int tachy__ws_handshake(tachy_exchange *ex, const tachy_ws_options *opt, int keeps_thread,
                        tachy_ws **out);
/* 1 when the calling thread is in tachy__ws_drive for ws now (running its callbacks).
 * Any thread. */
int tachy__ws_in_driver(const tachy_ws *ws);
/* Serves an attached connection's event (owner of its connection): flushes the backlog,
 * reads and handles every frame that is there, running the callbacks. 1: park it again
 * (nothing more to read now); 0: it has ended (tachy__ws_detach next). */
int tachy__ws_drive(tachy_ws *ws);
/* The connection is closing (ended, or closed by stop()): on_close if not called yet (1006,
 * after a 1001 close frame when none was sent), the socket forgotten, timers cancelled,
 * the connection's reference dropped. Owner of the connection. */
void tachy__ws_detach(tachy_ws *ws);

/* Frees the calling thread's WebSocket read buffer (reader.c: attached sockets borrow it
 * for one tachy__ws_drive). loop/workers.c calls it when a pool thread ends; any thread
 * that ran tachy__ws_drive must. Calling thread. */
void tachy__ws_thread_end(void);

/* Sends a close frame once (lock held). 0 or TACHY_E*. */
int tachy__ws_send_close_locked(tachy_ws *ws, int code, const char *reason, size_t rlen);
#endif
