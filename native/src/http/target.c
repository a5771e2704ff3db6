/*
 * http/target.c - the request-target (RFC 9112 3.2): which targets are accepted, where the
 * path and the query are, and percent-decoding of the path. Pure, any thread.
 *
 * The acceptance rule follows java.net.URI, so that tachy refuses what the JDK refuses,
 * but it is not exactly URI's: it does not check an absolute-form target's scheme (URI
 * refuses "1a://h/"; the Java provider finds those itself, TachyHttpExchange.rejected),
 * and http/exchange.c refuses an encoded NUL in the path ("%00"), which URI keeps.
 * tests/request-targets.tsv lists what the C server and the JDK answer for each kind of
 * target; tests/test_target.c and the provider's TargetRuleTest check it.
 */
#include "http/http.h"

#include <string.h>

static int hexdig(unsigned char c) { return tachy__hex_value(c) >= 0; }

/*
 * Whether the request-target is accepted. Refused, as java.net.URI(String) refuses them
 * (RFC 2396 as Java reads it): the ASCII characters " < > \ ^ ` { | }, '[' and ']' in the
 * path (there brackets only belong around an IPv6 host; java.net.URI counts them among
 * the "reserved" characters allowed in the query and the fragment, so once a '?' or '#'
 * is seen they are accepted), a '%' not followed by two hex digits, a second '#', and the
 * ISO-8859-1 control and space characters 0x80-0xA0 (the JDK reads the bytes as
 * ISO-8859-1; other non-ASCII characters are URI "other" characters). Not checked: the
 * scheme (see the top of this file).
 */
int tachy__target_acceptable(const char *t, size_t n) {
    int hashes = 0;
    int path_ended = 0; /* a '?' or '#' was seen: query or fragment */
    const char *host_end = NULL;
    /* brackets are fine inside the authority of an absolute URI ("http://[::1]:80/") */
    const char *sep = n > 0 && t[0] != '/' ? memmem(t, n, "://", 3) : NULL;
    if (sep) {
        const char *a = sep + 3;
        host_end = a;
        while (host_end < t + n && *host_end != '/' && *host_end != '?' && *host_end != '#')
            host_end++;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)t[i];
        switch (c) {
        case '"': case '<': case '>': case '\\': case '^': case '`': case '{': case '|':
        case '}':
            return 0;
        case '[': case ']':
            if (!path_ended && (!host_end || t + i >= host_end))
                return 0;
            break;
        case '?':
            path_ended = 1;
            break;
        case '%':
            if (i + 2 >= n || !hexdig((unsigned char)t[i + 1]) || !hexdig((unsigned char)t[i + 2]))
                return 0;
            break;
        case '#':
            if (++hashes > 1)
                return 0;
            path_ended = 1;
            break;
        default:
            if (c >= 0x80 && c <= 0xA0)
                return 0;
        }
    }
    return 1;
}

void tachy__target_split(const char *t, size_t tlen, tachy__target *out) {
    /* Path part of the target: skip "scheme://authority" of an absolute-form target
     * (RFC 9112 3.2.2), stop at '?' or '#'. */
    size_t ps = 0;
    if (tlen > 1 && t[0] == '/' && t[1] == '/') {
        /* "//host/x": java.net.URI reads an authority here, so the JDK's path is "/x"
         * (and "" for "//host"); the context is matched on that. */
        ps = 2;
        while (ps < tlen && t[ps] != '/' && t[ps] != '?' && t[ps] != '#')
            ps++;
    } else if (tlen > 0 && t[0] != '/' && t[0] != '*') {
        const char *sep = memmem(t, tlen, "://", 3);
        if (sep) {
            ps = (size_t)(sep - t) + 3;
            while (ps < tlen && t[ps] != '/' && t[ps] != '?' && t[ps] != '#')
                ps++;
        }
    }
    size_t pe = ps;
    while (pe < tlen && t[pe] != '?' && t[pe] != '#')
        pe++;
    out->path_off = ps;
    out->path_len = pe - ps;
    out->has_query = pe < tlen && t[pe] == '?';
    out->query_off = out->query_len = 0;
    if (out->has_query) {
        size_t qs = pe + 1, qe = qs;
        while (qe < tlen && t[qe] != '#')
            qe++;
        out->query_off = qs;
        out->query_len = qe - qs;
    }
}

/* Like java.net.URI's decoding of a path for valid %XX escapes; the decoded bytes are not
 * reinterpreted (UTF-8 stays as its bytes). '+' is not a space in a path. A '%' that does
 * not start a valid escape is copied as is. out may be the same pointer as in (the output
 * never runs ahead of the input). The result may contain NUL bytes ("%00"): use the
 * returned length. */
ssize_t tachy__percent_decode(const char *in, size_t len, char *out, size_t cap) {
    size_t i = 0, o = 0;

    if (cap == 0)
        return -1;
    while (i < len) {
        unsigned char c = (unsigned char)in[i];
        int hi, lo;
        if (c == '%' && len - i >= 3 && (hi = tachy__hex_value((unsigned char)in[i + 1])) >= 0 &&
            (lo = tachy__hex_value((unsigned char)in[i + 2])) >= 0) {
            c = (unsigned char)(hi << 4 | lo);
            i += 3;
        } else {
            i++;
        }
        if (cap - o < 2) /* this byte plus the terminating NUL */
            return -1;
        out[o++] = (char)c;
    }
    out[o] = '\0';
    return (ssize_t)o;
}
