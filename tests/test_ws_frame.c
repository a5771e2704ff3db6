/*
 * test_ws_frame.c - WebSocket framing (RFC 6455 5.2): the frame parser and writer at every
 * split offset, masking, 7/16/64-bit lengths, control-frame rules, reserved bits and
 * opcodes, close payloads, and the handshake's pure pieces (SHA-1, Sec-WebSocket-Accept,
 * token lists, subprotocols, permessage-deflate negotiation).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws/ws.h"

static const tachy__ws_parse_rules server_rules = {1, 0, 0, 0};
static const tachy__ws_parse_rules server_pmd = {1, 1, 0, 0};

/* Builds a client (masked) frame into out; returns its length. */
static size_t build(uint8_t *out, int fin, int rsv1, int op, const uint8_t *payload, size_t len,
                    const uint8_t key[4]) {
    size_t h = tachy__ws_frame_header(out, fin, rsv1, op, len, key);
    memcpy(out + h, payload, len);
    if (key)
        tachy__ws_mask(out + h, len, key, 0);
    return h + len;
}

/* Parses one frame from raw bytes and returns the close code of the violation, or 0. */
static int violation(const uint8_t *bytes, size_t len, const tachy__ws_parse_rules *r) {
    tachy__ws_frame f;
    ssize_t n = tachy__ws_frame_parse(bytes, len, r, &f);
    if (n < 0) {
        assert_non_null(f.error);
        return f.close_code;
    }
    return 0;
}

/* ---- writer ------------------------------------------------------------------------------ */

static void header_lengths_use_minimal_encoding(void **state) {
    (void)state;
    uint8_t h[TACHY__WS_MAX_HEADER];
    const uint8_t key[4] = {1, 2, 3, 4};
    struct {
        uint64_t len;
        size_t hlen;
    } cases[] = {{0, 2},
                 {1, 2},
                 {125, 2},
                 {126, 4},
                 {127, 4},
                 {65535, 4},
                 {65536, 10},
                 {0xFFFFFFFFull, 10},
                 {0x100000000ull, 10},
                 {0x7FFFFFFFFFFFFFFFull, 10}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(tachy__ws_frame_header(h, 1, 0, 2, cases[i].len, NULL), cases[i].hlen);
        assert_int_equal(h[0], 0x82);
        assert_int_equal(tachy__ws_frame_header(h, 0, 1, 1, cases[i].len, key), cases[i].hlen + 4);
        assert_int_equal(h[0], 0x41);
        assert_true(h[1] & 0x80);
        assert_memory_equal(h + cases[i].hlen, key, 4);
        /* The parser reads back the same length from the header alone. */
        tachy__ws_frame f;
        tachy__ws_parse_rules any = {0, 1, 0, 0};
        assert_int_equal(tachy__ws_frame_parse(h, cases[i].hlen + 4, &any, &f),
                         cases[i].len == 0 ? (ssize_t)(cases[i].hlen + 4) : 0);
        assert_int_equal(f.header_len, cases[i].hlen + 4);
        assert_true(f.payload_len == cases[i].len);
        assert_int_equal(f.opcode, 1);
        assert_int_equal(f.fin, 0);
        assert_int_equal(f.rsv1, 1);
    }
    /* 16-bit and 64-bit lengths are big-endian. */
    tachy__ws_frame_header(h, 1, 0, 2, 0x1234, NULL);
    assert_int_equal(h[1], 126);
    assert_int_equal(h[2], 0x12);
    assert_int_equal(h[3], 0x34);
    tachy__ws_frame_header(h, 1, 0, 2, 0x0102030405060708ull, NULL);
    assert_int_equal(h[1], 127);
    for (int i = 0; i < 8; i++)
        assert_int_equal(h[2 + i], i + 1);
}

/* ---- masking ------------------------------------------------------------------------------ */

static void mask_matches_the_definition_at_any_offset(void **state) {
    (void)state;
    const uint8_t key[4] = {0x37, 0xfa, 0x21, 0x3d};
    uint8_t data[67], ref[67];
    for (size_t len = 0; len <= sizeof data; len++) {
        for (size_t off = 0; off < 4; off++) {
            for (size_t i = 0; i < len; i++)
                data[i] = ref[i] = (uint8_t)(i * 31 + 7);
            for (size_t i = 0; i < len; i++)
                ref[i] ^= key[(i + off) % 4];
            tachy__ws_mask(data, len, key, off);
            assert_memory_equal(data, ref, len);
        }
    }
    /* Unmasking in pieces with the running offset equals unmasking at once. */
    uint8_t a[50], b[50];
    for (size_t i = 0; i < 50; i++)
        a[i] = b[i] = (uint8_t)i;
    tachy__ws_mask(a, 50, key, 0);
    tachy__ws_mask(b, 13, key, 0);
    tachy__ws_mask(b + 13, 30, key, 13);
    tachy__ws_mask(b + 43, 7, key, 43);
    assert_memory_equal(a, b, 50);
    /* RFC 6455 5.7: masked "Hello". */
    uint8_t hello[] = {0x7f, 0x9f, 0x4d, 0x51, 0x58};
    const uint8_t k2[4] = {0x37, 0xfa, 0x21, 0x3d};
    tachy__ws_mask(hello, 5, k2, 0);
    assert_memory_equal(hello, "Hello", 5);
}

/* ---- parser: every split offset ------------------------------------------------------------ */

typedef struct expect {
    int fin, rsv1, op;
    size_t len;
    uint8_t fill;
} expect;

/* Parses frames from buf[*pos, have): checks each against frames[*got...] without
 * modifying the buffer; stops at the first incomplete frame. */
static void parse_available(const uint8_t *buf, size_t have, size_t *pos, size_t *got,
                            const expect *frames, size_t nframes) {
    for (;;) {
        tachy__ws_frame f;
        ssize_t n = tachy__ws_frame_parse(buf + *pos, have - *pos, &server_pmd, &f);
        assert_true(n >= 0);
        if (n == 0) {
            if (f.header_len) /* header reported only once all its bytes are in */
                assert_true(f.header_len + f.payload_len > have - *pos);
            return;
        }
        assert_true(*got < nframes);
        const expect *e = &frames[*got];
        assert_int_equal(f.fin, e->fin);
        assert_int_equal(f.rsv1, e->rsv1);
        assert_int_equal(f.opcode, e->op);
        assert_true(f.payload_len == e->len);
        assert_int_equal(f.masked, 1);
        const uint8_t *p = buf + *pos + f.header_len;
        for (size_t k = 0; k < e->len; k++)
            if ((uint8_t)(p[k] ^ f.mask[k & 3]) != e->fill)
                fail_msg("frame %zu byte %zu", *got, k);
        *pos += (size_t)n;
        (*got)++;
    }
}

/*
 * Encodes frames as one client stream and parses it delivered in two pieces, split at
 * every offset (exhaustive), or else at every offset within 20 bytes of a frame boundary
 * and at a stride through the payloads. The first piece sits in a buffer of exactly
 * its size, so an over-read is caught by ASan/valgrind.
 */
static void check_splits(const expect *frames, size_t nframes, int exhaustive) {
    size_t total = 0;
    for (size_t i = 0; i < nframes; i++)
        total += frames[i].len + TACHY__WS_MAX_HEADER;
    uint8_t *stream = malloc(total), *payload = malloc(total);
    size_t *bounds = calloc(nframes + 1, sizeof *bounds);
    assert_non_null(stream);
    assert_non_null(payload);
    assert_non_null(bounds);
    size_t slen = 0;
    for (size_t i = 0; i < nframes; i++) {
        const uint8_t key[4] = {(uint8_t)i, 0x80, 0x55, (uint8_t)(0xAA ^ i)};
        memset(payload, frames[i].fill, frames[i].len);
        bounds[i] = slen;
        slen += build(stream + slen, frames[i].fin, frames[i].rsv1, frames[i].op, payload,
                      frames[i].len, key);
    }
    bounds[nframes] = slen;
    size_t splits = 0;
    for (size_t split = 0; split <= slen; split++) {
        int take = exhaustive || split % 4099 == 0;
        for (size_t b = 0; b <= nframes && !take; b++) /* around every frame boundary */
            take = split + 20 >= bounds[b] && split <= bounds[b] + 20;
        if (!take)
            continue;
        splits++;
        size_t pos = 0, got = 0;
        uint8_t *first = malloc(split ? split : 1);
        assert_non_null(first);
        memcpy(first, stream, split);
        parse_available(first, split, &pos, &got, frames, nframes);
        free(first);
        parse_available(stream, slen, &pos, &got, frames, nframes);
        assert_int_equal(got, nframes);
        assert_int_equal(pos, slen);
    }
    assert_true(splits > 0);
    free(stream);
    free(payload);
    free(bounds);
}

static void parser_every_split_offset_small_frames(void **state) {
    (void)state;
    /* 7- and 16-bit lengths, fragments, control frames between fragments, empty frames. */
    const expect frames[] = {
        {1, 0, 1, 5, 'a'},    {0, 0, 2, 125, 'b'}, {1, 0, 9, 3, 'p'},  {0, 0, 0, 126, 'c'},
        {1, 0, 0, 300, 'd'},  {1, 1, 1, 40, 'e'},  {1, 0, 8, 2, 0x03}, {1, 0, 2, 0, 0},
        {1, 0, 10, 125, 'q'}, {1, 0, 9, 0, 0},
    };
    check_splits(frames, sizeof frames / sizeof frames[0], 1);
}

static void parser_split_offsets_64bit_frames(void **state) {
    (void)state;
    /* 16-bit maximum, 64-bit minimum, and a 64-bit frame of 200000 bytes. */
    const expect frames[] = {
        {1, 0, 2, 65535, 'x'},
        {0, 1, 1, 65536, 'y'},
        {1, 0, 9, 1, 'p'},
        {1, 0, 0, 200000, 'z'},
    };
    check_splits(frames, sizeof frames / sizeof frames[0], 0);
}

static void incomplete_header_reports_nothing_early(void **state) {
    (void)state;
    uint8_t fr[TACHY__WS_MAX_HEADER + 300];
    uint8_t payload[300] = {0};
    const uint8_t key[4] = {9, 8, 7, 6};
    size_t n = build(fr, 1, 0, 2, payload, 300, key); /* 2 + 2 + 4 header */
    for (size_t k = 0; k < n; k++) {
        tachy__ws_frame f;
        assert_int_equal(tachy__ws_frame_parse(fr, k, &server_rules, &f), 0);
        assert_int_equal(f.header_len, k >= 8 ? 8 : 0);
    }
    tachy__ws_frame f;
    assert_int_equal(tachy__ws_frame_parse(fr, n, &server_rules, &f), (ssize_t)n);
}

/* ---- parser: rules -------------------------------------------------------------------------- */

static void reserved_bits_and_opcodes_are_1002(void **state) {
    (void)state;
    uint8_t fr[8] = {0, 0x80, 1, 2, 3, 4};
    for (int b0 = 0; b0 < 256; b0++) {
        fr[0] = (uint8_t)b0;
        int op = b0 & 0x0F, fin = b0 >> 7, rsv1 = (b0 >> 6) & 1, rsv23 = (b0 >> 4) & 3;
        int control = op >= 8;
        int reserved_op = (op >= 3 && op <= 7) || op >= 11;
        int bad = rsv23 || reserved_op || (control && !fin) || (rsv1 && (control || op == 0));
        int bad_plain = bad || rsv1; /* no extension negotiated: RSV1 is reserved too */
        assert_int_equal(violation(fr, 6, &server_pmd), bad ? 1002 : 0);
        assert_int_equal(violation(fr, 6, &server_rules), bad_plain ? 1002 : 0);
        /* Detected from the first byte alone. */
        assert_int_equal(violation(fr, 1, &server_rules), bad_plain ? 1002 : 0);
    }
}

static void control_frames_at_most_125_bytes(void **state) {
    (void)state;
    uint8_t fr[TACHY__WS_MAX_HEADER + 200];
    uint8_t payload[200];
    memset(payload, 'x', sizeof payload);
    const uint8_t key[4] = {1, 1, 1, 1};
    int ops[] = {8, 9, 10};
    for (size_t i = 0; i < 3; i++) {
        size_t n = build(fr, 1, 0, ops[i], payload, 125, key);
        assert_int_equal(violation(fr, n, &server_rules), 0);
        n = build(fr, 1, 0, ops[i], payload, 126, key);
        assert_int_equal(violation(fr, 2, &server_rules), 1002); /* from the length byte */
        n = build(fr, 0, 0, ops[i], payload, 1, key);
        assert_int_equal(violation(fr, n, &server_rules), 1002); /* fragmented control */
    }
}

static void mask_rules(void **state) {
    (void)state;
    uint8_t fr[32];
    const uint8_t key[4] = {1, 2, 3, 4};
    size_t n = build(fr, 1, 0, 1, (const uint8_t *)"hi", 2, NULL);
    assert_int_equal(violation(fr, n, &server_rules), 1002); /* a client must mask */
    assert_int_equal(violation(fr, 2, &server_rules), 1002);
    tachy__ws_parse_rules client = {-1, 0, 0, 0};
    assert_int_equal(violation(fr, n, &client), 0);
    n = build(fr, 1, 0, 1, (const uint8_t *)"hi", 2, key);
    assert_int_equal(violation(fr, n, &client), 1002); /* a server must not */
    tachy__ws_parse_rules either = {0, 0, 0, 0};
    assert_int_equal(violation(fr, n, &either), 0);
}

static void lengths_must_be_minimal_and_63_bit(void **state) {
    (void)state;
    /* 126 form carrying 125 */
    uint8_t a[] = {0x82, 0xFE, 0x00, 0x7D, 1, 2, 3, 4};
    assert_int_equal(violation(a, sizeof a, &server_rules), 1002);
    /* 127 form carrying 65535 */
    uint8_t b[] = {0x82, 0xFF, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 1, 2, 3, 4};
    assert_int_equal(violation(b, sizeof b, &server_rules), 1002);
    /* 127 form with the most significant bit set */
    uint8_t c[] = {0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4};
    assert_int_equal(violation(c, sizeof c, &server_rules), 1002);
    /* 127 form carrying 65536 is fine (and incomplete) */
    uint8_t d[] = {0x82, 0xFF, 0, 0, 0, 0, 0, 1, 0, 0, 1, 2, 3, 4};
    tachy__ws_frame f;
    assert_int_equal(tachy__ws_frame_parse(d, sizeof d, &server_rules, &f), 0);
    assert_true(f.payload_len == 65536);
    /* A 2^62 declared length is only incomplete, never an overflow. */
    uint8_t e[] = {0x82, 0xFF, 0x40, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4};
    assert_int_equal(tachy__ws_frame_parse(e, sizeof e, &server_rules, &f), 0);
    assert_true(f.payload_len == (1ull << 62));
}

static void max_payload_is_1009(void **state) {
    (void)state;
    tachy__ws_parse_rules r = {1, 0, 1000, 0};
    uint8_t h[TACHY__WS_MAX_HEADER];
    const uint8_t key[4] = {0};
    size_t n = tachy__ws_frame_header(h, 1, 0, 2, 1000, key);
    assert_int_equal(violation(h, n, &r), 0);
    n = tachy__ws_frame_header(h, 1, 0, 2, 1001, key);
    assert_int_equal(violation(h, n, &r), 1009);
    n = tachy__ws_frame_header(h, 1, 0, 2, 1ull << 40, key);
    assert_int_equal(violation(h, 10, &r), 1009); /* known before the mask key arrives */
}

static void lenient_rules_only_find_boundaries(void **state) {
    (void)state;
    tachy__ws_parse_rules lenient = {0, 0, 0, 1};
    uint8_t fr[] = {0x73, 0x03, 'a', 'b', 'c'}; /* RSV2|RSV3, opcode 3, unmasked */
    tachy__ws_frame f;
    assert_int_equal(tachy__ws_frame_parse(fr, sizeof fr, &lenient, &f), 5);
    assert_int_equal(tachy__ws_frame_parse(fr, sizeof fr, &server_rules, &f), -1);
}

/* ---- close payloads -------------------------------------------------------------------------- */

static void close_payloads(void **state) {
    (void)state;
    int code;
    const char *reason;
    size_t rlen;
    assert_int_equal(tachy__ws_close_parse(NULL, 0, &code, &reason, &rlen), 0);
    assert_int_equal(code, 1005);
    uint8_t one[] = {0x03};
    assert_int_equal(tachy__ws_close_parse(one, 1, &code, &reason, &rlen), 1002);
    int valid[] = {1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010,
                   1011, 1012, 1013, 1014, 3000, 3999, 4000, 4999};
    int invalid[] = {0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535};
    for (size_t i = 0; i < sizeof valid / sizeof valid[0]; i++) {
        uint8_t p[] = {(uint8_t)(valid[i] >> 8), (uint8_t)valid[i], 'o', 'k'};
        assert_int_equal(tachy__ws_close_parse(p, 4, &code, &reason, &rlen), 0);
        assert_int_equal(code, valid[i]);
        assert_int_equal(rlen, 2);
        assert_memory_equal(reason, "ok", 2);
    }
    for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++) {
        uint8_t p[] = {(uint8_t)(invalid[i] >> 8), (uint8_t)invalid[i]};
        assert_int_equal(tachy__ws_close_parse(p, 2, &code, &reason, &rlen), 1002);
        assert_false(tachy__ws_close_code_valid(invalid[i]));
    }
    uint8_t bad_utf8[] = {0x03, 0xE8, 0xCE, 0xBA, 0xE1, 0xBD}; /* truncated character */
    assert_int_equal(tachy__ws_close_parse(bad_utf8, sizeof bad_utf8, &code, &reason, &rlen), 1007);
    uint8_t good_utf8[] = {0x03, 0xE8, 0xCE, 0xBA, 0xE1, 0xBD, 0xB9};
    assert_int_equal(tachy__ws_close_parse(good_utf8, sizeof good_utf8, &code, &reason, &rlen), 0);
}

/* ---- handshake pieces --------------------------------------------------------------------------
 */

static void hex(const uint8_t *d, size_t n, char *out) {
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", d[i]);
}

static void sha1_vectors(void **state) {
    (void)state;
    /* Messages of bytes (i * 7 + 3) & 255 around every padding boundary; digests from an
     * independent implementation. */
    struct {
        size_t n;
        const char *hex;
    } v[] = {{0, "da39a3ee5e6b4b0d3255bfef95601890afd80709"},
             {1, "9842926af7ca0a8cca12604f945414f07b01e13d"},
             {3, "4201de9f98cb0a9b8cf52398be7802b55d45266a"},
             {55, "ddf57317ef34bfee3b6df83d359098930eb278bc"},
             {56, "a0d492bb0fc889d0eca3bc137066ab6f4f74f369"},
             {57, "11a02dcf95859677a62e75024067c22b165d890f"},
             {63, "c55856749bef509bdfe6bfebfc7bf4e793e82132"},
             {64, "bede92be29c3874e1b54ddc77988d606fc857a8e"},
             {65, "b05a80522b053d6dc7e0a517d0e70212c7dad11f"},
             {119, "504e27376a6e0f0dba8295b85cb25dc4dfa17d23"},
             {120, "82134b02fb3f702491be9bed581eeab59334acb2"},
             {128, "a09133e6730ffe899efb70204cb5646cd5dc24ee"},
             {1000, "4231a8a50a10fa9758db8ec71fdef855b751048a"}};
    uint8_t msg[1000], d[20];
    char h[41];
    for (size_t i = 0; i < sizeof msg; i++)
        msg[i] = (uint8_t)((i * 7 + 3) & 255);
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        tachy__sha1(msg, v[i].n, d);
        hex(d, 20, h);
        assert_string_equal(h, v[i].hex);
    }
    tachy__sha1("abc", 3, d); /* FIPS 180 example */
    hex(d, 20, h);
    assert_string_equal(h, "a9993e364706816aba3e25717850c26c9cd0d89d");
}

static void accept_key_rfc_example(void **state) {
    (void)state;
    char out[29];
    tachy__ws_accept_key("dGhlIHNhbXBsZSBub25jZQ==", 24, out); /* RFC 6455 1.3 */
    assert_string_equal(out, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
}

static void token_lists(void **state) {
    (void)state;
    assert_true(tachy__ws_has_token("Upgrade", "upgrade"));
    assert_true(tachy__ws_has_token("keep-alive, Upgrade", "upgrade"));
    assert_true(tachy__ws_has_token(" keep-alive ,\tUPGRADE\t", "upgrade"));
    assert_true(tachy__ws_has_token("websocket", "websocket"));
    assert_false(tachy__ws_has_token("upgrades", "upgrade"));
    assert_false(tachy__ws_has_token("keep-alive", "upgrade"));
    assert_false(tachy__ws_has_token("", "upgrade"));
    assert_false(tachy__ws_has_token(",,,", "upgrade"));
    assert_false(tachy__ws_has_token(NULL, "upgrade"));
    assert_false(tachy__ws_has_token("web socket", "websocket"));
}

static void subprotocol_selection_follows_server_preference(void **state) {
    (void)state;
    const char *server[] = {"v2.chat", "chat", "superchat"};
    const char *offer1[] = {"chat, v2.chat"};
    assert_int_equal(tachy__ws_select_subprotocol(offer1, 1, server, 3), 0);
    const char *offer2[] = {"superchat", "chat"};
    assert_int_equal(tachy__ws_select_subprotocol(offer2, 2, server, 3), 1);
    const char *offer3[] = {"CHAT, other"}; /* subprotocol names are case-sensitive */
    assert_int_equal(tachy__ws_select_subprotocol(offer3, 1, server, 3), -1);
    assert_int_equal(tachy__ws_select_subprotocol(NULL, 0, server, 3), -1);
    assert_int_equal(tachy__ws_select_subprotocol(offer1, 1, NULL, 0), -1);
}

static int negotiate(const char *offer, const tachy__ws_pmd *cfg, tachy__ws_pmd *out, char *resp) {
    const char *vals[] = {offer};
    memset(out, 0, sizeof *out);
    return tachy__ws_pmd_negotiate(vals, 1, cfg, out, resp, 160);
}

static void permessage_deflate_negotiation(void **state) {
    (void)state;
    tachy__ws_pmd cfg = {1, 0, 0, 15, 15}, out;
    char resp[160];

    assert_int_equal(negotiate("permessage-deflate", &cfg, &out, resp), 1);
    assert_string_equal(resp, "permessage-deflate");
    assert_int_equal(out.server_max_window_bits, 15);

    /* What browsers send. */
    assert_int_equal(negotiate("permessage-deflate; client_max_window_bits", &cfg, &out, resp), 1);
    assert_string_equal(resp, "permessage-deflate");

    assert_int_equal(negotiate("permessage-deflate; server_no_context_takeover; "
                               "client_no_context_takeover",
                               &cfg, &out, resp),
                     1);
    assert_string_equal(resp, "permessage-deflate; server_no_context_takeover");
    assert_int_equal(out.server_no_context_takeover, 1);

    assert_int_equal(negotiate("permessage-deflate; server_max_window_bits=10", &cfg, &out, resp),
                     1);
    assert_string_equal(resp, "permessage-deflate; server_max_window_bits=10");
    assert_int_equal(out.server_max_window_bits, 10);

    /* Quoted values are allowed (RFC 7692 7.1: the value is a token or quoted-string). */
    assert_int_equal(
        negotiate("permessage-deflate; server_max_window_bits=\"12\"", &cfg, &out, resp), 1);
    assert_int_equal(out.server_max_window_bits, 12);

    /* An 8-bit window cannot be honoured by zlib: that offer is declined, the next taken. */
    assert_int_equal(negotiate("permessage-deflate; server_max_window_bits=8, permessage-deflate",
                               &cfg, &out, resp),
                     1);
    assert_string_equal(resp, "permessage-deflate");

    /* Invalid offers are declined. */
    const char *bad[] = {
        "permessage-deflate; server_max_window_bits",    /* value required */
        "permessage-deflate; server_max_window_bits=16", /* out of range */
        "permessage-deflate; server_max_window_bits=7",
        "permessage-deflate; server_max_window_bits=09", /* leading zero */
        "permessage-deflate; client_max_window_bits=99",
        "permessage-deflate; server_no_context_takeover=1", /* no value allowed */
        "permessage-deflate; server_no_context_takeover; server_no_context_takeover",
        "permessage-deflate; unknown_param",
        "x-webkit-deflate-frame",
        "permessage-deflate; server_max_window_bits=\"10", /* unterminated quote */
        "",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(negotiate(bad[i], &cfg, &out, resp), 0);
        assert_string_equal(resp, "");
    }

    /* Several offers over several header lines: the first acceptable wins. */
    const char *vals[] = {
        "foo; bar=1, permessage-deflate; nope",
        "permessage-deflate; client_max_window_bits=12; server_max_window_bits=11"};
    assert_int_equal(tachy__ws_pmd_negotiate(vals, 2, &cfg, &out, resp, sizeof resp), 1);
    assert_string_equal(resp, "permessage-deflate; server_max_window_bits=11");

    /* Server configuration: forced no-context-takeover both ways and a smaller window. */
    tachy__ws_pmd strict = {1, 1, 1, 9, 15};
    assert_int_equal(negotiate("permessage-deflate", &strict, &out, resp), 1);
    assert_string_equal(resp, "permessage-deflate; server_no_context_takeover; "
                              "client_no_context_takeover; server_max_window_bits=9");
    assert_int_equal(out.client_no_context_takeover, 1);

    /* Disabled: never accepted. */
    tachy__ws_pmd off = {0, 0, 0, 15, 15};
    assert_int_equal(negotiate("permessage-deflate", &off, &out, resp), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(header_lengths_use_minimal_encoding),
        cmocka_unit_test(mask_matches_the_definition_at_any_offset),
        cmocka_unit_test(parser_every_split_offset_small_frames),
        cmocka_unit_test(parser_split_offsets_64bit_frames),
        cmocka_unit_test(incomplete_header_reports_nothing_early),
        cmocka_unit_test(reserved_bits_and_opcodes_are_1002),
        cmocka_unit_test(control_frames_at_most_125_bytes),
        cmocka_unit_test(mask_rules),
        cmocka_unit_test(lengths_must_be_minimal_and_63_bit),
        cmocka_unit_test(max_payload_is_1009),
        cmocka_unit_test(lenient_rules_only_find_boundaries),
        cmocka_unit_test(close_payloads),
        cmocka_unit_test(sha1_vectors),
        cmocka_unit_test(accept_key_rfc_example),
        cmocka_unit_test(token_lists),
        cmocka_unit_test(subprotocol_selection_follows_server_preference),
        cmocka_unit_test(permessage_deflate_negotiation),
    };
    return cmocka_run_group_tests_name("ws_frame", tests, NULL, NULL);
}
