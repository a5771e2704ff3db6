/*
 * edge/proxy.c - the PROXY protocol codec (HAProxy's doc/proxy-protocol.txt, versions 1
 * and 2): a balancer in TCP mode sends one header before the client's first byte, saying
 * whose connection this is. The picohttpparser contract: bytes consumed, incomplete or
 * error with a reason; pure, nothing copied but the decoded addresses, never a read
 * outside the buffer. Section numbers below are the spec's.
 */
#include "edge/edge.h"

#include <arpa/inet.h>

#define V1_PREFIX "PROXY "
#define V1_PREFIX_LEN 6
#define SIG_LEN 12

static int fail(const char **reason, const char *why) {
    if (reason)
        *reason = why;
    return TACHY__PROXY_ERROR;
}

/* ---- version 1 (section 2.1) ----------------------------------------------------------- */

/* A decimal port: 1 to 5 digits, no leading zero (but "0"), at most 65535. -1 if not. */
static long v1_port(const char *p, size_t n) {
    if (n == 0 || n > 5 || (n > 1 && p[0] == '0'))
        return -1;
    long v = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9')
            return -1;
        v = v * 10 + (p[i] - '0');
    }
    return v <= 65535 ? v : -1;
}

/* A v1 address of family af into a (port set later). inet_pton wants a NUL-terminated
 * string: the field (at most 45 bytes, INET6_ADDRSTRLEN - 1) is copied to the stack. */
static int v1_addr(int af, const char *p, size_t n, tachy__proxy_addr *a) {
    char tmp[INET6_ADDRSTRLEN];
    if (n == 0 || n >= sizeof tmp)
        return -1;
    memcpy(tmp, p, n);
    tmp[n] = '\0';
    memset(a, 0, sizeof *a);
    if (af == AF_INET) {
        a->in.sin_family = AF_INET;
        return inet_pton(AF_INET, tmp, &a->in.sin_addr) == 1 ? 0 : -1;
    }
    a->in6.sin6_family = AF_INET6;
    return inet_pton(AF_INET6, tmp, &a->in6.sin6_addr) == 1 ? 0 : -1;
}

static void set_port(tachy__proxy_addr *a, long port) {
    if (a->sa.sa_family == AF_INET)
        a->in.sin_port = htons((uint16_t)port);
    else
        a->in6.sin6_port = htons((uint16_t)port);
}

/* The next field of line[*pos, end): up to a single SP (consumed) or the end. The field's
 * bytes are [*start, *start + *flen). 0, or -1 for an empty field (two spaces, a space at
 * the end: section 2.1 says exactly one space between fields). */
static int v1_field(const char *line, size_t end, size_t *pos, int last, size_t *start,
                    size_t *flen) {
    size_t i = *pos;
    while (i < end && line[i] != ' ')
        i++;
    if (i == *pos)
        return -1;
    if (last ? i != end : i == end)
        return -1; /* a field missing, or one too many */
    *start = *pos;
    *flen = i - *pos;
    *pos = last ? i : i + 1;
    return 0;
}

static int parse_v1(const char *buf, size_t len, tachy__proxy *out, const char **reason) {
    /* The whole line first: printable US-ASCII up to CRLF, within 107 bytes. Checking as
     * bytes arrive refuses garbage (a binary protocol, an HTTP request) without waiting. */
    size_t lim = TACHY__PROXY_V1_MAX - 1, i; /* the CR's index is below 106 */
    for (i = V1_PREFIX_LEN; i < len && i < lim; i++) {
        unsigned char ch = (unsigned char)buf[i];
        if (ch == '\r')
            break;
        if (ch < 0x20 || ch > 0x7e)
            return fail(reason, "PROXY v1: a byte that is not printable US-ASCII");
    }
    if (i >= lim)
        return fail(reason, "PROXY v1: no CRLF within 107 bytes");
    if (i + 1 >= len)
        return TACHY__PROXY_INCOMPLETE; /* the CR (or nothing) is the last byte there */
    if (buf[i + 1] != '\n')
        return fail(reason, "PROXY v1: CR without LF");
    size_t end = i; /* the line without CRLF */
    size_t pos = V1_PREFIX_LEN, fs, fl;
    /* "UNKNOWN": the sender could not tell (section 2.1); the receiver ignores whatever
     * follows it up to the CRLF and keeps the socket's addresses. */
    if (end - pos >= 7 && memcmp(buf + pos, "UNKNOWN", 7) == 0 &&
        (end - pos == 7 || buf[pos + 7] == ' ')) {
        out->version = 1;
        out->local = 1;
        out->family = AF_UNSPEC;
        return (int)(end + 2);
    }
    if (v1_field(buf, end, &pos, 0, &fs, &fl) < 0 || fl != 4 ||
        (memcmp(buf + fs, "TCP4", 4) != 0 && memcmp(buf + fs, "TCP6", 4) != 0))
        return fail(reason, "PROXY v1: protocol is not TCP4, TCP6 or UNKNOWN");
    int af = buf[fs + 3] == '4' ? AF_INET : AF_INET6;
    if (v1_field(buf, end, &pos, 0, &fs, &fl) < 0 || v1_addr(af, buf + fs, fl, &out->src) < 0)
        return fail(reason, "PROXY v1: bad source address");
    if (v1_field(buf, end, &pos, 0, &fs, &fl) < 0 || v1_addr(af, buf + fs, fl, &out->dst) < 0)
        return fail(reason, "PROXY v1: bad destination address");
    long sport, dport;
    if (v1_field(buf, end, &pos, 0, &fs, &fl) < 0 || (sport = v1_port(buf + fs, fl)) < 0)
        return fail(reason, "PROXY v1: bad source port");
    if (v1_field(buf, end, &pos, 1, &fs, &fl) < 0 || (dport = v1_port(buf + fs, fl)) < 0)
        return fail(reason, "PROXY v1: bad destination port");
    set_port(&out->src, sport);
    set_port(&out->dst, dport);
    out->version = 1;
    out->family = af;
    out->addr_len = af == AF_INET ? sizeof out->src.in : sizeof out->src.in6;
    return (int)(end + 2);
}

/* ---- version 2 (section 2.2) ----------------------------------------------------------- */

/* The family/transport byte: only the pairs the spec lists; other values "must be rejected
 * as invalid by receivers". */
static int v2_family(unsigned char b, int *af, size_t *addr_len, const char **reason) {
    switch (b) {
    case 0x00: *af = AF_UNSPEC; *addr_len = 0; return 0;
    case 0x11: *af = AF_INET; *addr_len = 12; return 0;
    case 0x21: *af = AF_INET6; *addr_len = 36; return 0;
    case 0x31: *af = AF_UNIX; *addr_len = 216; return 0;
    case 0x12: case 0x22: case 0x32:
        return fail(reason, "PROXY v2: a DGRAM transport (tachy serves TCP)");
    default:
        return fail(reason, "PROXY v2: unknown address family or transport");
    }
}

static int parse_v2(const uint8_t *b, size_t len, tachy__proxy *out, const char **reason) {
    /* Each fixed byte is checked as soon as it is there. */
    if (len > SIG_LEN) {
        if (b[12] >> 4 != 2)
            return fail(reason, "PROXY v2: version is not 2");
        if ((b[12] & 0xf) > 1)
            return fail(reason, "PROXY v2: command is neither LOCAL nor PROXY");
    }
    int af = AF_UNSPEC;
    size_t alen = 0;
    if (len > 13 && v2_family(b[13], &af, &alen, reason) < 0)
        return TACHY__PROXY_ERROR;
    if (len < TACHY__PROXY_V2_FIXED)
        return TACHY__PROXY_INCOMPLETE;
    size_t body = (size_t)b[14] << 8 | b[15];
    size_t total = TACHY__PROXY_V2_FIXED + body;
    int local = (b[12] & 0xf) == 0;
    /* A PROXY header must hold its family's addresses; a LOCAL one's block is skipped
     * whole, whatever it holds ("the receiver must ... discard the protocol block"). */
    if (!local && body < alen)
        return fail(reason, "PROXY v2: length shorter than the address block");
    if (len < total)
        return TACHY__PROXY_INCOMPLETE;
    out->version = 2;
    out->family = af;
    if (local) {
        out->local = 1;
        return (int)total;
    }
    const uint8_t *a = b + TACHY__PROXY_V2_FIXED;
    if (af == AF_INET) {
        out->src.in.sin_family = out->dst.in.sin_family = AF_INET;
        memcpy(&out->src.in.sin_addr, a, 4);
        memcpy(&out->dst.in.sin_addr, a + 4, 4);
        memcpy(&out->src.in.sin_port, a + 8, 2); /* both in network order already */
        memcpy(&out->dst.in.sin_port, a + 10, 2);
        out->addr_len = sizeof out->src.in;
    } else if (af == AF_INET6) {
        out->src.in6.sin6_family = out->dst.in6.sin6_family = AF_INET6;
        memcpy(&out->src.in6.sin6_addr, a, 16);
        memcpy(&out->dst.in6.sin6_addr, a + 16, 16);
        memcpy(&out->src.in6.sin6_port, a + 32, 2);
        memcpy(&out->dst.in6.sin6_port, a + 34, 2);
        out->addr_len = sizeof out->src.in6;
    } else {
        /* UNSPEC: "the receiver ... must use the real connection endpoints"; UNIX: not an
         * address a TCP server's peer can have. Both keep the socket's. */
        out->local = 1;
        if (af == AF_UNIX) {
            out->unix_src = a;
            out->unix_dst = a + 108;
        }
    }
    /* TLVs (section 2.2.7): type, a 16-bit length, the value; they must tile the rest of
     * the header exactly. None is interpreted (a receiver "must ignore" unknown ones). */
    size_t pos = alen;
    if (pos < body) {
        out->tlv = a + pos;
        out->tlv_len = body - pos;
    }
    while (pos < body) {
        if (body - pos < 3)
            return fail(reason, "PROXY v2: truncated TLV");
        size_t vlen = (size_t)a[pos + 1] << 8 | a[pos + 2];
        if (vlen > body - pos - 3)
            return fail(reason, "PROXY v2: TLV longer than the header");
        pos += 3 + vlen;
        out->ntlv++;
    }
    return (int)total;
}

/* ---- either ---------------------------------------------------------------------------- */

int tachy__proxy_parse(const char *buf, size_t len, tachy__proxy *out, const char **reason) {
    memset(out, 0, sizeof *out);
    if (reason)
        *reason = NULL;
    if (len == 0)
        return TACHY__PROXY_INCOMPLETE;
    /* The first byte tells the versions apart: 'P' or CR. What is there of the prefix or
     * the signature must match before anything waits for more. */
    if (buf[0] == 'P') {
        size_t n = TACHY__MIN(len, (size_t)V1_PREFIX_LEN);
        if (memcmp(buf, V1_PREFIX, n) != 0)
            return fail(reason, "not a PROXY protocol header");
        if (len <= V1_PREFIX_LEN)
            return TACHY__PROXY_INCOMPLETE;
        return parse_v1(buf, len, out, reason);
    }
    size_t n = TACHY__MIN(len, (size_t)SIG_LEN);
    if (memcmp(buf, TACHY__PROXY_V2_SIG, n) != 0)
        return fail(reason, "not a PROXY protocol header");
    if (len <= SIG_LEN)
        return TACHY__PROXY_INCOMPLETE;
    return parse_v2((const uint8_t *)buf, len, out, reason);
}
