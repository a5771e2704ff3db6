/*
 * base/base64.c - base64 (RFC 4648 section 4) for Basic credentials (RFC 7617) and the
 * WebSocket handshake's Sec-WebSocket-Accept (RFC 6455 4.2.2). Pure, any thread.
 */
#include "base/base.h"

#include <limits.h>

static const char b64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Padded encoding; out needs 4 * ((len + 2) / 3) + 1 bytes. Returns the length written
 * (excluding the NUL). Pure. */
size_t tachy__base64_encode(const unsigned char *in, size_t len, char *out) {
    size_t o = 0, i = 0;
    for (; len - i >= 3; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
        out[o++] = b64_alphabet[v >> 18];
        out[o++] = b64_alphabet[(v >> 12) & 63];
        out[o++] = b64_alphabet[(v >> 6) & 63];
        out[o++] = b64_alphabet[v & 63];
    }
    if (len - i == 1) {
        uint32_t v = (uint32_t)in[i] << 16;
        out[o++] = b64_alphabet[v >> 18];
        out[o++] = b64_alphabet[(v >> 12) & 63];
        out[o++] = '=';
        out[o++] = '=';
    } else if (len - i == 2) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8;
        out[o++] = b64_alphabet[v >> 18];
        out[o++] = b64_alphabet[(v >> 12) & 63];
        out[o++] = b64_alphabet[(v >> 6) & 63];
        out[o++] = '=';
    }
    out[o] = '\0';
    return o;
}

/* Value of a base64 alphabet character, or -1. */
static int b64_value(unsigned char c) {
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

/*
 * The decoding rules of java.util.Base64.getDecoder(): alphabet characters only (no
 * whitespace, no URL alphabet); a final unit of one character is refused; padding, when
 * present, must be complete ("xx==" or "xxx=") and end the input; unused low bits of the
 * last unit are ignored. The one difference is allow_unpadded: Java decodes a final
 * unpadded unit of 2 or 3 characters (allow_unpadded = 1; out then needs 3 * (len / 4) + 2
 * bytes), which tachy__base64_decode refuses because its contract sizes the output as
 * 3 * (len / 4). Returns the decoded length or -1. Pure.
 */
ssize_t tachy__base64_decode_java(const char *in, size_t len, unsigned char *out, int allow_unpadded) {
    uint32_t acc = 0;
    size_t q = 0, o = 0, i;

    for (i = 0; i < len; i++) {
        unsigned char c = (unsigned char)in[i];
        int v;
        if (c == '=') {
            /* "xx==" or "xxx=", and nothing may follow. */
            if (q == 2 && i + 1 < len && in[i + 1] == '=' && i + 2 == len) {
                out[o++] = (unsigned char)(acc >> 4);
                return (ssize_t)o;
            }
            if (q == 3 && i + 1 == len) {
                out[o++] = (unsigned char)(acc >> 10);
                out[o++] = (unsigned char)(acc >> 2);
                return (ssize_t)o;
            }
            return -1;
        }
        v = b64_value(c);
        if (v < 0)
            return -1;
        acc = acc << 6 | (uint32_t)v;
        if (++q == 4) {
            out[o++] = (unsigned char)(acc >> 16);
            out[o++] = (unsigned char)(acc >> 8);
            out[o++] = (unsigned char)acc;
            acc = 0;
            q = 0;
        }
    }
    if (q == 0)
        return (ssize_t)o;
    if (q == 1 || !allow_unpadded)
        return -1;
    if (q == 2) {
        out[o++] = (unsigned char)(acc >> 4);
    } else {
        out[o++] = (unsigned char)(acc >> 10);
        out[o++] = (unsigned char)(acc >> 2);
    }
    return (ssize_t)o;
}

/* Strict padded decode into out (3 * (len / 4) bytes of room). Pure. */
ssize_t tachy__base64_decode(const char *in, size_t len, unsigned char *out) {
    if (len > (size_t)SSIZE_MAX || (in == NULL && len > 0))
        return -1;
    return tachy__base64_decode_java(in, len, out, 0);
}

