/*
 * ws_internal.h - private declarations of the WebSocket files (ws.c, sha1.c, deflate.c).
 * Never installed. Everything here is pure (no I/O) so the tests can pin it byte by byte.
 */
#ifndef TACHY_WS_INTERNAL_H
#define TACHY_WS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <tachy/error.h>

/* ---- sha1.c ----------------------------------------------------------------------------- */

/* SHA-1 (FIPS 180-4) of data[0,len) into out. Only for Sec-WebSocket-Accept. Pure. */
void tachy__sha1(const void *data, size_t len, uint8_t out[20]);

/* ---- a growable byte buffer shared by ws.c and deflate.c ------------------------------- */

typedef struct tachy__wsbuf {
    uint8_t *data;
    size_t len;
    size_t cap;
} tachy__wsbuf;

/* Ensures room for extra more bytes after len. 0 or TACHY_ENOMEM. */
static inline int tachy__wsbuf_reserve(tachy__wsbuf *b, size_t extra) {
    if (extra <= b->cap - b->len)
        return 0;
    if (extra > SIZE_MAX / 2 - b->len)
        return TACHY_ENOMEM;
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->len < extra)
        cap *= 2;
    uint8_t *p = realloc(b->data, cap);
    if (!p)
        return TACHY_ENOMEM;
    b->data = p;
    b->cap = cap;
    return 0;
}

static inline int tachy__wsbuf_append(tachy__wsbuf *b, const void *p, size_t n) {
    int rc = tachy__wsbuf_reserve(b, n);
    if (rc < 0)
        return rc;
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    return 0;
}

static inline void tachy__wsbuf_free(tachy__wsbuf *b) {
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

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
int tachy__deflater_compress(tachy__deflater *d, const void *in, size_t len, tachy__wsbuf *out);

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
                         tachy__wsbuf *out, size_t limit);

/* ---- ws.c: framing (RFC 6455 5.2) ------------------------------------------------------- */

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

/* ---- ws.c: incremental UTF-8 validation (RFC 3629) -------------------------------------- */

typedef struct tachy__utf8 {
    uint8_t need; /* continuation bytes still expected */
    uint8_t lo;   /* allowed range of the next continuation byte (tightened after E0, ED, */
    uint8_t hi;   /* F0, F4 to exclude overlongs, surrogates and > U+10FFFF) */
} tachy__utf8;

static inline void tachy__utf8_init(tachy__utf8 *u) {
    u->need = 0;
    u->lo = 0x80;
    u->hi = 0xBF;
}

/* Feeds bytes; returns 0 while everything seen could still be valid UTF-8, -1 as soon as
 * it cannot (the state is then meaningless). Input may be split anywhere. Pure. */
int tachy__utf8_feed(tachy__utf8 *u, const uint8_t *p, size_t n);

/* 1 when the input so far ends on a character boundary. */
static inline int tachy__utf8_complete(const tachy__utf8 *u) {
    return u->need == 0;
}

/* Whole-buffer check: 1 if p[0,n) is valid UTF-8, else 0. */
int tachy__utf8_valid(const void *p, size_t n);

/* ---- ws.c: broadcast ----------------------------------------------------------------------- */

/* Smallest broadcast sharded over several threads when the affinity mask allows more than
 * one CPU (default 4096; 0 restores it). For tests, which shard small broadcasts. */
void tachy__ws_set_broadcast_shard_min(size_t n);

/* ---- ws.c: handshake pieces --------------------------------------------------------------- */

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

#endif
