/*
 * ws/proto.c - the WebSocket protocol without a connection: frame headers, masking and close payloads (RFC 6455 5), and the handshake's pieces - the
 * accept key, token lists, subprotocol choice and the permessage-deflate negotiation
 * (RFC 6455 4.2, RFC 7692 7.1). Pure functions, any thread; ws.c runs connections on them.
 */
#include "ws/ws.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <tachy/ws.h>

#define WS_GUID "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
/* ======================================================================================
 * Framing (RFC 6455 5.2).
 * ====================================================================================== */

static ssize_t frame_error(tachy__ws_frame *f, int code, const char *why) {
    f->close_code = code;
    f->error = why;
    return -1;
}

ssize_t tachy__ws_frame_parse(const uint8_t *buf, size_t len, const tachy__ws_parse_rules *r,
                              tachy__ws_frame *f) {
    memset(f, 0, sizeof *f);
    if (len < 1)
        return 0;
    uint8_t b0 = buf[0];
    f->fin = b0 >> 7;
    f->rsv1 = (b0 >> 6) & 1;
    f->rsv2 = (b0 >> 5) & 1;
    f->rsv3 = (b0 >> 4) & 1;
    f->opcode = b0 & 0x0F;
    int control = f->opcode >= 0x8;
    if (r->lenient)
        goto length;
    if (f->rsv2 || f->rsv3)
        return frame_error(f, 1002, "reserved bit set");
    if ((f->opcode >= 0x3 && f->opcode <= 0x7) || f->opcode >= 0xB)
        return frame_error(f, 1002, "reserved opcode");
    if (control && !f->fin)
        return frame_error(f, 1002, "fragmented control frame");
    if (f->rsv1 && (!r->allow_rsv1 || control || f->opcode == TACHY__WS_OP_CONT))
        return frame_error(f, 1002, "RSV1 not allowed here");
length:
    if (len < 2)
        return 0;

    uint8_t b1 = buf[1];
    f->masked = b1 >> 7;
    uint64_t len7 = b1 & 0x7F;
    if (!r->lenient && r->mask > 0 && !f->masked)
        return frame_error(f, 1002, "client frame not masked");
    if (!r->lenient && r->mask < 0 && f->masked)
        return frame_error(f, 1002, "server frame masked");
    if (!r->lenient && control && len7 > 125)
        return frame_error(f, 1002, "control frame payload over 125 bytes");

    size_t ext = len7 == 126 ? 2 : len7 == 127 ? 8 : 0;
    if (len < 2 + ext)
        return 0;
    uint64_t plen = len7;
    if (ext) {
        plen = 0;
        for (size_t i = 0; i < ext; i++)
            plen = plen << 8 | buf[2 + i];
        if (!r->lenient && ext == 8 && (plen >> 63))
            return frame_error(f, 1002, "64-bit length with the top bit set");
        if (!r->lenient && ((ext == 2 && plen < 126) || (ext == 8 && plen <= 0xFFFF)))
            return frame_error(f, 1002, "length not minimally encoded");
    }
    if (r->max_payload && plen > r->max_payload)
        return frame_error(f, 1009, "frame too big");

    size_t hlen = 2 + ext + (f->masked ? 4 : 0);
    if (len < hlen)
        return 0;
    if (f->masked)
        memcpy(f->mask, buf + 2 + ext, 4);
    f->header_len = hlen;
    f->payload_len = plen;
    if (plen > len - hlen)
        return 0;
    return (ssize_t)(hlen + plen);
}

size_t tachy__ws_frame_header(uint8_t out[TACHY__WS_MAX_HEADER], int fin, int rsv1, int opcode,
                              uint64_t payload_len, const uint8_t *mask) {
    size_t n = 0;
    out[n++] = (uint8_t)((fin ? 0x80 : 0) | (rsv1 ? 0x40 : 0) | (opcode & 0x0F));
    uint8_t m = mask ? 0x80 : 0;
    if (payload_len < 126) {
        out[n++] = (uint8_t)(m | payload_len);
    } else if (payload_len <= 0xFFFF) {
        out[n++] = m | 126;
        out[n++] = (uint8_t)(payload_len >> 8);
        out[n++] = (uint8_t)payload_len;
    } else {
        out[n++] = m | 127;
        for (int i = 7; i >= 0; i--)
            out[n++] = (uint8_t)(payload_len >> (8 * i));
    }
    if (mask) {
        memcpy(out + n, mask, 4);
        n += 4;
    }
    return n;
}

void tachy__ws_mask(uint8_t *p, size_t len, const uint8_t key[4], size_t offset) {
    uint8_t k[8];
    for (int i = 0; i < 8; i++)
        k[i] = key[(i + offset) & 3];
    uint64_t k8;
    memcpy(&k8, k, 8);
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        w ^= k8;
        memcpy(p + i, &w, 8);
    }
    for (; i < len; i++)
        p[i] ^= k[i & 3];
}

int tachy__ws_close_code_valid(int code) {
    return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) ||
           (code >= 3000 && code <= 4999);
}

int tachy__ws_close_parse(const uint8_t *p, size_t len, int *code, const char **reason,
                          size_t *reason_len) {
    *reason = "";
    *reason_len = 0;
    if (len == 0) {
        *code = TACHY_WS_CLOSE_NO_STATUS;
        return 0;
    }
    if (len == 1)
        return 1002;
    int c = p[0] << 8 | p[1];
    if (!tachy__ws_close_code_valid(c))
        return 1002;
    if (!tachy__utf8_valid(p + 2, len - 2))
        return 1007;
    *code = c;
    *reason = (const char *)p + 2;
    *reason_len = len - 2;
    return 0;
}

/* ======================================================================================
 * Handshake pieces (RFC 6455 4.2, RFC 7692 7.1).
 * ====================================================================================== */

void tachy__ws_accept_key(const char *key, size_t key_len, char out[29]) {
    char cat[64 + sizeof WS_GUID];
    if (key_len > 64)
        key_len = 64; /* callers pass a validated 24-character key */
    memcpy(cat, key, key_len);
    memcpy(cat + key_len, WS_GUID, sizeof WS_GUID - 1);
    uint8_t digest[20];
    tachy__sha1(cat, key_len + sizeof WS_GUID - 1, digest);
    size_t n = tachy__base64_encode(digest, sizeof digest, out);
    out[n] = '\0';
}

static int is_ows(char c) {
    return c == ' ' || c == '\t';
}

static int list_has(const char *value, const char *token, int icase) {
    if (!value)
        return 0;
    size_t tlen = strlen(token);
    const char *p = value;
    for (;;) { /* one element per pass; ends at the string's NUL */
        while (is_ows(*p) || *p == ',')
            p++;
        if (!*p)
            return 0;
        const char *start = p;
        while (*p && *p != ',')
            p++;
        const char *end = p;
        while (end > start && is_ows(end[-1]))
            end--;
        size_t n = (size_t)(end - start);
        if (n == tlen && (icase ? strncasecmp(start, token, n) == 0 : memcmp(start, token, n) == 0))
            return 1;
    }
}

int tachy__ws_has_token(const char *value, const char *token) {
    return list_has(value, token, 1);
}

int tachy__ws_select_subprotocol(const char *const *values, size_t n, const char *const *supported,
                                 size_t ns) {
    for (size_t i = 0; i < ns; i++)
        for (size_t j = 0; j < n; j++)
            if (supported[i] && list_has(values[j], supported[i], 0))
                return (int)i;
    return -1;
}

/* RFC 7230 tchar. */
static int is_tchar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* Reads a token at *pp into out (cap incl. NUL); returns its length, 0 if none/too long. */
static size_t read_token(const char **pp, char *out, size_t cap) {
    const char *p = *pp;
    size_t n = 0;
    while (is_tchar(*p)) {
        if (n + 1 >= cap)
            return 0;
        out[n++] = *p++;
    }
    out[n] = '\0';
    *pp = p;
    return n;
}

/* Reads a token or quoted-string value; returns its length or 0 when malformed. */
static size_t read_value(const char **pp, char *out, size_t cap) {
    const char *p = *pp;
    if (*p != '"')
        return read_token(pp, out, cap);
    p++;
    size_t n = 0;
    while (*p && *p != '"') {
        if (*p == '\\') {
            p++;
            if (!*p)
                return 0;
        }
        if (n + 1 >= cap)
            return 0;
        out[n++] = *p++;
    }
    if (*p != '"')
        return 0;
    out[n] = '\0';
    *pp = p + 1;
    return n;
}

/* A window-bits value: "8".."15", no leading zero (RFC 7692 7.1.2). */
static int parse_bits(const char *v) {
    if (v[0] >= '8' && v[0] <= '9' && v[1] == '\0')
        return v[0] - '0';
    if (v[0] == '1' && v[1] >= '0' && v[1] <= '5' && v[2] == '\0')
        return 10 + (v[1] - '0');
    return -1;
}

/* One offer's parameters. ok = 0 when the offer must be declined. */
typedef struct pmd_offer {
    int ok;
    int snct, cnct;
    int smwb; /* 0 = absent, else 8..15 */
    int cmwb; /* 0 = absent, -1 = present without value, else 8..15 */
} pmd_offer;

/*
 * Parses one comma-separated element "name; p1; p2=v ..." at *pp. Returns 1 with
 * *is_pmd and *o filled, 0 at the end of the value, -1 on a syntax error (the rest of
 * the header value is ignored).
 */
static int next_offer(const char **pp, int *is_pmd, pmd_offer *o) {
    const char *p = *pp;
    while (is_ows(*p) || *p == ',')
        p++;
    if (!*p)
        return 0;
    char name[64], pname[64], pval[64];
    if (!read_token(&p, name, sizeof name))
        return -1;
    *is_pmd = strcasecmp(name, "permessage-deflate") == 0;
    memset(o, 0, sizeof *o);
    o->ok = 1;
    for (int guard = 0; guard < 64; guard++) { /* at most 64 parameters per offer */
        while (is_ows(*p))
            p++;
        if (*p != ';')
            break;
        p++;
        while (is_ows(*p))
            p++;
        if (!read_token(&p, pname, sizeof pname))
            return -1;
        while (is_ows(*p))
            p++;
        int has_val = 0;
        if (*p == '=') {
            p++;
            while (is_ows(*p))
                p++;
            if (!read_value(&p, pval, sizeof pval))
                return -1;
            has_val = 1;
        }
        if (strcasecmp(pname, "server_no_context_takeover") == 0) {
            if (o->snct || has_val)
                o->ok = 0;
            o->snct = 1;
        } else if (strcasecmp(pname, "client_no_context_takeover") == 0) {
            if (o->cnct || has_val)
                o->ok = 0;
            o->cnct = 1;
        } else if (strcasecmp(pname, "server_max_window_bits") == 0) {
            int b = has_val ? parse_bits(pval) : -1;
            if (o->smwb || b < 0)
                o->ok = 0;
            o->smwb = b < 0 ? 15 : b;
        } else if (strcasecmp(pname, "client_max_window_bits") == 0) {
            int b = has_val ? parse_bits(pval) : -1;
            if (o->cmwb || (has_val && b < 0))
                o->ok = 0;
            o->cmwb = has_val ? (b < 0 ? 15 : b) : -1;
        } else {
            o->ok = 0; /* unknown parameter: decline (RFC 7692 7.1) */
        }
    }
    while (is_ows(*p))
        p++;
    if (*p && *p != ',')
        return -1;
    *pp = p;
    return 1;
}

int tachy__ws_pmd_negotiate(const char *const *values, size_t n, const tachy__ws_pmd *cfg,
                            tachy__ws_pmd *out, char *resp, size_t cap) {
    if (cap)
        resp[0] = '\0';
    if (!cfg->enabled)
        return 0;
    int cfg_bits = cfg->server_max_window_bits;
    if (cfg_bits < 9 || cfg_bits > 15)
        cfg_bits = cfg_bits == 8 ? 9 : 15;
    for (size_t i = 0; i < n; i++) {
        const char *p = values[i];
        if (!p)
            continue;
        int is_pmd;
        pmd_offer o;
        for (int guard = 0; guard < 64; guard++) { /* at most 64 offers per header line */
            int r = next_offer(&p, &is_pmd, &o);
            if (r <= 0)
                break;
            if (!is_pmd || !o.ok)
                continue;
            int bits = cfg_bits;
            if (o.smwb) {
                if (o.smwb < 9)
                    continue; /* zlib cannot compress with a 256-byte window */
                if (o.smwb < bits)
                    bits = o.smwb;
            }
            out->enabled = 1;
            out->server_no_context_takeover = o.snct || cfg->server_no_context_takeover;
            out->client_no_context_takeover = cfg->client_no_context_takeover;
            out->server_max_window_bits = bits;
            out->client_max_window_bits = 15;
            int len =
                snprintf(resp, cap, "permessage-deflate%s%s",
                         out->server_no_context_takeover ? "; server_no_context_takeover" : "",
                         out->client_no_context_takeover ? "; client_no_context_takeover" : "");
            if (len >= 0 && (size_t)len < cap && (o.smwb || bits < 15))
                len += snprintf(resp + len, cap - (size_t)len, "; server_max_window_bits=%d", bits);
            if (len < 0 || (size_t)len >= cap) {
                resp[0] = '\0';
                out->enabled = 0;
                return 0;
            }
            return 1;
        }
    }
    return 0;
}
