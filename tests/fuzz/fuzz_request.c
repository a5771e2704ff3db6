/*
 * fuzz_request.c - libFuzzer harness for the request head parser and body framing
 * (tachy__parse_request, tachy__parse_framing in the core's parser).
 *
 * Input: one byte of options (bit 0: small or default limits; bit 1: the JDK header rules,
 * tachy__limits.jdk_rules), one byte of header-array capacity, then the bytes as they would
 * sit in a connection's read buffer (copied into an allocation of exactly that size, so
 * AddressSanitizer sees any read past it).
 *
 * Properties checked besides memory safety:
 * - a complete head is consumed within the buffer, every view points inside it, names are
 *   non-empty tokens, values carry no CR, LF or NUL and no surrounding whitespace;
 * - the connection re-parses a growing buffer, so the verdict must not depend on where the
 *   bytes were split: every strict prefix of a complete head is INCOMPLETE, a prefix that
 *   is already an ERROR stays an ERROR with the whole input, and bytes after a complete
 *   head do not change it;
 * - an error carries one of the statuses the parser documents and a reason (with the JDK
 *   rules also TACHY__PARSE_CLOSE; TACHY__PARSE_MORE_HEADERS only with them: the harness
 *   then doubles the array, as the connection does);
 * - the JDK rules: after tachy__parse_unfold (on a copy) values hold no CR, LF, HTAB or NUL
 *   and no surrounding SP, and the lines before the last have fewer distinct names (ASCII
 *   case-insensitive) than the limit;
 * - framing: chunked and a Content-Length never both, a length is >= 0 or -1, and the
 *   framing errors are 400 or 501.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "http/http.h"

#define MAX_REFS 64
#define MAX_GROWN 8192 /* > lines in a 4096-byte input */

static int parse(const char *buf, size_t len, size_t cap, const tachy__limits *lim,
                 tachy__request *req, tachy__header_ref *refs, tachy__parse_error *err) {
    memset(req, 0, sizeof *req);
    req->headers = refs;
    req->num_headers = cap;
    err->status = 0;
    err->reason = NULL;
    return tachy__parse_request(buf, len, req, lim, err);
}

static int is_tchar(unsigned char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

static void check_view(const char *buf, size_t len, tachy__str s) {
    FUZZ_CHECK(s.len == 0 || (s.base >= buf && s.base + s.len <= buf + len));
}

static int same_name_ci(tachy__str a, tachy__str b) {
    if (a.len != b.len)
        return 0;
    for (size_t i = 0; i < a.len; i++) {
        unsigned char x = (unsigned char)a.base[i], y = (unsigned char)b.base[i];
        if ((x >= 'A' && x <= 'Z' ? x | 0x20 : x) != (y >= 'A' && y <= 'Z' ? y | 0x20 : y))
            return 0;
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_in in = {data, size};
    uint8_t opts = fuzz_u8(&in);
    size_t cap = 1 + fuzz_u8(&in) % MAX_REFS;
    int jdk = (opts & 2) != 0;
    tachy__limits small = {64, 8, 256, jdk}, dflt = {0, 0, 0, 1};
    const tachy__limits *lim = (opts & 1) ? &small : jdk ? &dflt : NULL;

    char *buf = malloc(in.n ? in.n : 1);
    if (!buf)
        return 0;
    memcpy(buf, in.p, in.n);
    size_t len = in.n;

    tachy__header_ref *refs = malloc(MAX_GROWN * sizeof *refs);
    if (!refs) {
        free(buf);
        return 0;
    }
    tachy__request req;
    tachy__parse_error err;
    int rc;
    /* The connection's loop: a full array (JDK rules only) is doubled and parsed again. */
    while ((rc = parse(buf, len, cap, lim, &req, refs, &err)) == TACHY__PARSE_MORE_HEADERS) {
        FUZZ_CHECK(jdk);
        FUZZ_CHECK(cap * 2 <= MAX_GROWN);
        cap *= 2;
    }
    FUZZ_CHECK(rc > 0 || rc == TACHY__PARSE_INCOMPLETE || rc == TACHY__PARSE_ERROR);

    if (rc == TACHY__PARSE_ERROR) {
        FUZZ_CHECK(err.status == 400 || err.status == 414 || err.status == 431 ||
                   err.status == 501 || err.status == 505 ||
                   (jdk && err.status == TACHY__PARSE_CLOSE));
        /* the JDK rules refuse by closing, never with 431 */
        FUZZ_CHECK(!(jdk && err.status == 431));
        FUZZ_CHECK(err.reason != NULL && err.reason[0] != '\0');
    }

    if (rc > 0) {
        size_t used = (size_t)rc;
        FUZZ_CHECK(used <= len);
        FUZZ_CHECK(req.num_headers <= cap);
        FUZZ_CHECK(req.minor_version == 0 || req.minor_version == 1);
        FUZZ_CHECK(req.method.len > 0 && req.target.len > 0);
        check_view(buf, used, req.method);
        check_view(buf, used, req.target);
        check_view(buf, used, req.version);
        for (size_t i = 0; i < req.method.len; i++)
            FUZZ_CHECK(is_tchar((unsigned char)req.method.base[i]));
        for (size_t i = 0; i < req.num_headers; i++) {
            tachy__header_ref *h = &req.headers[i];
            check_view(buf, used, h->name);
            check_view(buf, used, h->value);
            FUZZ_CHECK(h->name.len > 0);
            for (size_t k = 0; k < h->name.len; k++)
                FUZZ_CHECK(is_tchar((unsigned char)h->name.base[k]));
            for (size_t k = 0; k < h->value.len && !(jdk && req.unfold); k++) {
                char c = h->value.base[k];
                FUZZ_CHECK(c != '\r' && c != '\n' && c != '\0');
            }
            if (h->value.len > 0) {
                char f = h->value.base[0], l = h->value.base[h->value.len - 1];
                FUZZ_CHECK(f != ' ' && f != '\t' && l != ' ' && l != '\t');
            }
        }
        if (jdk) {
            /* distinct names before the last line < the limit (quadratic: small heads) */
            size_t maxh = lim->max_headers ? lim->max_headers : 200, d = 0;
            if (req.num_headers <= 300) {
                for (size_t i = 0; i + 1 < req.num_headers; i++) {
                    size_t j = 0;
                    while (j < i && !same_name_ci(req.headers[j].name, req.headers[i].name))
                        j++;
                    d += j == i;
                }
                FUZZ_CHECK(d < maxh || req.num_headers == 0);
            }
            /* unfolded on a copy (the prefixes below re-parse buf) */
            char *copy = malloc(used);
            tachy__header_ref *refs3 = malloc(cap * sizeof *refs3);
            if (copy && refs3) {
                memcpy(copy, buf, used);
                tachy__request req3;
                tachy__parse_error err3;
                FUZZ_CHECK(parse(copy, used, cap, lim, &req3, refs3, &err3) == rc);
                if (req3.unfold) /* else no value needs it: checked below as it is */
                    tachy__parse_unfold(copy, &req3);
                for (size_t i = 0; i < req3.num_headers; i++) {
                    tachy__str v = req3.headers[i].value;
                    check_view(copy, used, v);
                    for (size_t k = 0; k < v.len; k++)
                        FUZZ_CHECK(v.base[k] != '\r' && v.base[k] != '\n' && v.base[k] != '\t' &&
                                   v.base[k] != '\0');
                    FUZZ_CHECK(v.len == 0 || (v.base[0] != ' ' && v.base[v.len - 1] != ' '));
                }
            }
            free(copy);
            free(refs3);
        }

        tachy__framing fr;
        tachy__parse_error ferr = {0, NULL};
        int frc = tachy__parse_framing(&req, &fr, &ferr);
        FUZZ_CHECK(frc == 0 || frc == TACHY__PARSE_ERROR);
        if (frc == 0) {
            FUZZ_CHECK(fr.content_length >= -1);
            FUZZ_CHECK(!(fr.chunked && fr.content_length >= 0));
        } else {
            FUZZ_CHECK(ferr.status == 400 || ferr.status == 501);
            FUZZ_CHECK(ferr.reason != NULL);
        }

        /* Bytes after the head (a pipelined request, a body) do not change it. */
        if (used < len) {
            tachy__header_ref *refs2 = malloc(cap * sizeof *refs2);
            FUZZ_CHECK(refs2 != NULL);
            tachy__request req2;
            tachy__parse_error err2;
            int rc2 = parse(buf, used, cap, lim, &req2, refs2, &err2);
            FUZZ_CHECK(rc2 == rc);
            FUZZ_CHECK(req2.num_headers == req.num_headers);
            free(refs2);
        }
    }

    /* Prefixes: a handful of split points, the input's last bytes choosing them (the
     * parser is linear, so this stays cheap). */
    if (len > 0) {
        size_t points[8];
        size_t np = 0;
        points[np++] = len - 1;
        points[np++] = len / 2;
        for (size_t i = 0; i < 6 && i < len; i++)
            points[np++] = (size_t)(unsigned char)buf[len - 1 - i] * 131u % len;
        for (size_t i = 0; i < np; i++) {
            size_t k = points[i];
            tachy__header_ref *refs2 = malloc(cap * sizeof *refs2);
            tachy__request req2;
            tachy__parse_error err2;
            char *pre = malloc(k ? k : 1);
            if (!pre || !refs2) {
                free(pre);
                free(refs2);
                break;
            }
            memcpy(pre, buf, k);
            int prc = parse(pre, k, cap, lim, &req2, refs2, &err2);
            free(pre);
            free(refs2);
            if (rc > 0 && k < (size_t)rc)
                FUZZ_CHECK(prc == TACHY__PARSE_INCOMPLETE);
            else if (rc > 0)
                FUZZ_CHECK(prc == rc);
            else if (rc == TACHY__PARSE_INCOMPLETE)
                FUZZ_CHECK(prc == TACHY__PARSE_INCOMPLETE);
            else /* the whole input is an error: a prefix is an error or not yet one */
                FUZZ_CHECK(prc == TACHY__PARSE_INCOMPLETE || prc == TACHY__PARSE_ERROR);
        }
    }
    free(refs);
    free(buf);
    return 0;
}
