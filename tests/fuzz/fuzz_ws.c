/*
 * fuzz_ws.c - libFuzzer harness for the connection-free WebSocket pieces: frame header
 * parsing and writing, masking, UTF-8 validation, close payloads, permessage-deflate
 * negotiation and the other handshake helpers (ws_internal.h).
 *
 * Input: one byte choosing the piece (and its options), then the bytes under test.
 *
 * Properties checked besides memory safety (every input sits in an exact-size allocation):
 * - frames: a complete frame is header_len + payload_len long and within the buffer; no
 *   strict prefix of it is complete or an error; an error is seen with the whole input
 *   whenever a prefix showed it; the error carries 1002 or 1009; a strictly parsed header
 *   is re-encoded byte for byte by tachy__ws_frame_header; an incomplete frame with a
 *   complete header really needs more bytes (lengths up to 2^64 - 1 in lenient mode);
 * - masking: unmasking in arbitrary pieces equals unmasking at once, and masking twice
 *   gives the original;
 * - UTF-8: the incremental validator, fed in arbitrary pieces, and the whole-buffer check
 *   both agree with a plain reference decoder written here (RFC 3629);
 * - close: a valid payload gives a valid code and a UTF-8 reason inside the payload;
 * - negotiation: the response is NUL-terminated inside its buffer, empty when declined,
 *   and the agreed window sizes are in range.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "ws/ws.h"

/* RFC 3629 decoder: 1 if p[0,n) is valid UTF-8. Written for clarity, not speed. */
static int ref_utf8(const uint8_t *p, size_t n) {
    size_t i = 0;
    while (i < n) {
        uint32_t c = p[i];
        size_t k;
        uint32_t min;
        if (c < 0x80) {
            i++;
            continue;
        } else if ((c & 0xE0) == 0xC0) {
            k = 1, min = 0x80, c &= 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            k = 2, min = 0x800, c &= 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            k = 3, min = 0x10000, c &= 0x07;
        } else {
            return 0;
        }
        if (n - i - 1 < k)
            return 0;
        for (size_t j = 1; j <= k; j++) {
            if ((p[i + j] & 0xC0) != 0x80)
                return 0;
            c = c << 6 | (p[i + j] & 0x3F);
        }
        if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
            return 0;
        i += k + 1;
    }
    return 1;
}

/* 1 if p[0,n) is a valid beginning of UTF-8: valid, or valid up to a trailing partial
 * sequence whose bytes so far allow a completion (RFC 3629 section 4 table). */
static int ref_utf8_prefix_ok(const uint8_t *p, size_t n) {
    if (ref_utf8(p, n))
        return 1;
    for (size_t cut = 1; cut <= 3 && cut <= n; cut++) {
        const uint8_t *t = p + n - cut;
        uint8_t lead = t[0];
        size_t want;
        uint8_t lo = 0x80, hi = 0xBF;
        if (lead >= 0xC2 && lead <= 0xDF)
            want = 2;
        else if (lead >= 0xE0 && lead <= 0xEF)
            want = 3;
        else if (lead >= 0xF0 && lead <= 0xF4)
            want = 4;
        else
            continue;
        if (want <= cut || !ref_utf8(p, n - cut))
            continue;
        if (lead == 0xE0)
            lo = 0xA0;
        else if (lead == 0xED)
            hi = 0x9F;
        else if (lead == 0xF0)
            lo = 0x90;
        else if (lead == 0xF4)
            hi = 0x8F;
        int ok = 1;
        for (size_t j = 1; j < cut; j++) {
            uint8_t l = j == 1 ? lo : 0x80, h = j == 1 ? hi : 0xBF;
            if (t[j] < l || t[j] > h)
                ok = 0;
        }
        if (ok)
            return 1;
    }
    return 0;
}

static uint8_t *dup_bytes(const uint8_t *p, size_t n) {
    uint8_t *c = malloc(n ? n : 1);
    FUZZ_CHECK(c != NULL);
    memcpy(c, p, n);
    return c;
}

static void fuzz_frame(uint8_t opts, const uint8_t *p, size_t n) {
    tachy__ws_parse_rules r;
    r.mask = (opts & 3) == 0 ? 0 : (opts & 3) == 1 ? 1 : -1;
    r.allow_rsv1 = (opts >> 2) & 1;
    r.max_payload = (opts & 8) ? 1000 : 0;
    r.lenient = (opts >> 4) & 1;
    tachy__ws_frame f;
    uint8_t *buf = dup_bytes(p, n);
    ssize_t rc = tachy__ws_frame_parse(buf, n, &r, &f);
    FUZZ_CHECK(rc >= -1);
    if (rc > 0) {
        FUZZ_CHECK(f.header_len >= 2 && f.header_len <= TACHY__WS_MAX_HEADER);
        FUZZ_CHECK((uint64_t)rc == f.header_len + f.payload_len && (size_t)rc <= n);
        if (r.max_payload)
            FUZZ_CHECK(f.payload_len <= r.max_payload);
        if (!r.lenient && !f.rsv2 && !f.rsv3) {
            uint8_t h[TACHY__WS_MAX_HEADER];
            size_t hl = tachy__ws_frame_header(h, f.fin, f.rsv1, f.opcode, f.payload_len,
                                               f.masked ? f.mask : NULL);
            FUZZ_CHECK(hl == f.header_len && memcmp(h, buf, hl) == 0);
        }
        /* unmask in pieces vs. at once, and back */
        size_t pl = (size_t)f.payload_len;
        uint8_t *a = dup_bytes(buf + f.header_len, pl), *b = dup_bytes(buf + f.header_len, pl);
        tachy__ws_mask(a, pl, f.mask, 0);
        size_t cut = pl ? (size_t)(opts * 7u) % pl : 0;
        tachy__ws_mask(b, cut, f.mask, 0);
        tachy__ws_mask(b + cut, pl - cut, f.mask, cut);
        FUZZ_CHECK(pl == 0 || memcmp(a, b, pl) == 0);
        tachy__ws_mask(a, pl, f.mask, 0);
        FUZZ_CHECK(pl == 0 || memcmp(a, buf + f.header_len, pl) == 0);
        free(a);
        free(b);
    } else if (rc == -1) {
        FUZZ_CHECK(f.close_code == 1002 || f.close_code == 1009);
        FUZZ_CHECK(f.error != NULL);
    } else if (f.header_len > 0) {
        FUZZ_CHECK(f.header_len <= n && f.payload_len > n - f.header_len);
    }
    /* every prefix: incomplete before a complete frame; an error stays an error */
    size_t step = n > 64 ? n / 64 : 1;
    for (size_t k = 0; k < n; k += step) {
        tachy__ws_frame g;
        uint8_t *pre = dup_bytes(buf, k);
        ssize_t prc = tachy__ws_frame_parse(pre, k, &r, &g);
        free(pre);
        if (rc > 0 && k < (size_t)rc)
            FUZZ_CHECK(prc == 0);
        if (prc == -1)
            FUZZ_CHECK(rc == -1 && g.close_code == f.close_code);
    }
    free(buf);
}

static void fuzz_utf8(uint8_t opts, const uint8_t *p, size_t n) {
    uint8_t *buf = dup_bytes(p, n);
    int ref = ref_utf8(buf, n);
    FUZZ_CHECK(tachy__utf8_valid(buf, n) == ref);
    tachy__utf8 u;
    tachy__utf8_init(&u);
    size_t piece = 1 + opts % 7, pos = 0;
    int ok = 1;
    while (pos < n && ok) {
        size_t k = n - pos < piece ? n - pos : piece;
        ok = tachy__utf8_feed(&u, buf + pos, k) == 0;
        pos += k;
        if (ok && n <= 512) /* everything so far must still be a valid beginning */
            FUZZ_CHECK(ref_utf8_prefix_ok(buf, pos));
    }
    if (!ok) /* it refused as soon as the bytes so far could not be completed */
        FUZZ_CHECK(!ref_utf8_prefix_ok(buf, pos));
    int inc = ok && tachy__utf8_complete(&u);
    FUZZ_CHECK(inc == ref);
    free(buf);
}

static void fuzz_close(const uint8_t *p, size_t n) {
    uint8_t *buf = dup_bytes(p, n);
    int code = 0;
    const char *reason = NULL;
    size_t rlen = 0;
    int rc = tachy__ws_close_parse(buf, n, &code, &reason, &rlen);
    if (rc == 0) {
        FUZZ_CHECK(n == 0 ? code == 1005 : tachy__ws_close_code_valid(code));
        FUZZ_CHECK(reason != NULL);
        if (rlen > 0)
            FUZZ_CHECK((const uint8_t *)reason == buf + 2 && rlen == n - 2);
        FUZZ_CHECK(ref_utf8((const uint8_t *)reason, rlen));
    } else {
        FUZZ_CHECK(rc == 1002 || rc == 1007);
        if (rc == 1007)
            FUZZ_CHECK(n >= 2 && !ref_utf8(buf + 2, n - 2));
    }
    free(buf);
}

/* Splits p[0,n) at '\n' into up to 8 NUL-terminated header values. */
static size_t split_values(const uint8_t *p, size_t n, char **vals, size_t max) {
    size_t nv = 0, s = 0;
    for (size_t i = 0; i <= n && nv < max; i++) {
        if (i == n || p[i] == '\n') {
            vals[nv] = malloc(i - s + 1);
            FUZZ_CHECK(vals[nv] != NULL);
            memcpy(vals[nv], p + s, i - s);
            vals[nv][i - s] = '\0';
            nv++;
            s = i + 1;
        }
    }
    return nv;
}

static void fuzz_negotiate(uint8_t opts, const uint8_t *p, size_t n) {
    fuzz_in in = {p, n};
    uint8_t b = fuzz_u8(&in), capb = fuzz_u8(&in);
    tachy__ws_pmd cfg = {1, b & 1, (b >> 1) & 1, 8 + (b >> 2) % 9, 15};
    char *vals[8];
    size_t nv = split_values(in.p, in.n, vals, 8);
    size_t cap = (opts & 1) ? 1 + capb % 64 : 256;
    char *resp = malloc(cap);
    FUZZ_CHECK(resp != NULL);
    tachy__ws_pmd out;
    memset(&out, 0, sizeof out);
    int rc = tachy__ws_pmd_negotiate((const char *const *)vals, nv, &cfg, &out, resp, cap);
    FUZZ_CHECK(rc == 0 || rc == 1);
    FUZZ_CHECK(memchr(resp, '\0', cap) != NULL);
    if (rc == 1) {
        FUZZ_CHECK(strncmp(resp, "permessage-deflate", 18) == 0);
        FUZZ_CHECK(out.server_max_window_bits >= 9 && out.server_max_window_bits <= 15);
        FUZZ_CHECK(out.client_max_window_bits >= 8 && out.client_max_window_bits <= 15);
        if (cfg.server_no_context_takeover)
            FUZZ_CHECK(out.server_no_context_takeover);
    } else {
        FUZZ_CHECK(resp[0] == '\0');
    }
    /* the other handshake helpers on the same values */
    static const char *const protos[] = {"chat", "superchat", "v2.json"};
    int sel = tachy__ws_select_subprotocol((const char *const *)vals, nv, protos, 3);
    FUZZ_CHECK(sel >= -1 && sel < 3);
    if (nv > 0) {
        int t = tachy__ws_has_token(vals[0], "upgrade");
        FUZZ_CHECK(t == 0 || t == 1);
        char acc[29];
        tachy__ws_accept_key(vals[0], strlen(vals[0]), acc);
        FUZZ_CHECK(strlen(acc) == 28);
    }
    free(resp);
    for (size_t i = 0; i < nv; i++)
        free(vals[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_in in = {data, size};
    uint8_t sel = fuzz_u8(&in);
    uint8_t opts = fuzz_u8(&in);
    switch (sel % 4) {
    case 0:
        fuzz_frame(opts, in.p, in.n);
        break;
    case 1:
        fuzz_utf8(opts, in.p, in.n);
        break;
    case 2:
        fuzz_close(in.p, in.n);
        break;
    default:
        fuzz_negotiate(opts, in.p, in.n);
        break;
    }
    return 0;
}
