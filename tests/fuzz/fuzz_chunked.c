/*
 * fuzz_chunked.c - libFuzzer harness for the streaming chunked-body decoder
 * (tachy__chunked_decode).
 *
 * Input: one byte of options (small line / trailer limits), one byte giving how many
 * split points follow (0..15), that many 16-bit split points, then the body bytes.
 *
 * The same bytes are decoded three ways: as one buffer, in the pieces the split points
 * cut, and one byte at a time. Each piece is a separate exact-size allocation, so
 * AddressSanitizer catches a read past the piece. All three must agree on the verdict
 * (done / error / needs more), on the decoded data, and, once done, on how many bytes the
 * body took. Every call makes progress, and each data run lies inside what it consumed.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "http/http.h"

enum { V_MORE = 0, V_DONE = 1, V_ERROR = 2 };

typedef struct result {
    int verdict;
    size_t used; /* bytes of the input the body took (valid when done) */
    uint8_t *out;
    size_t out_len;
    int status;
} result;

/* Feeds in[0,len) (one piece) to d; appends data to r. Returns 1 when decoding ended. */
static int feed(tachy__chunked *d, const uint8_t *piece, size_t len, result *r) {
    uint8_t *copy = malloc(len ? len : 1);
    FUZZ_CHECK(copy != NULL);
    memcpy(copy, piece, len);
    size_t pos = 0;
    int ended = 0;
    while (pos < len) {
        size_t consumed = 0, off = 0, dlen = 0;
        tachy__parse_error err = {0, NULL};
        int rc = tachy__chunked_decode(d, (const char *)copy + pos, len - pos, &consumed, &off,
                                       &dlen, &err);
        FUZZ_CHECK(rc == 0 || rc == 1 || rc == TACHY__PARSE_ERROR);
        if (rc == TACHY__PARSE_ERROR) {
            FUZZ_CHECK(err.status == 400 || err.status == 413 || err.status == 431);
            FUZZ_CHECK(err.reason != NULL);
            r->verdict = V_ERROR;
            r->status = err.status;
            ended = 1;
            break;
        }
        FUZZ_CHECK(consumed <= len - pos);
        if (dlen > 0) {
            FUZZ_CHECK(off + dlen <= consumed);
            memcpy(r->out + r->out_len, copy + pos + off, dlen);
            r->out_len += dlen;
        }
        r->used += consumed;
        pos += consumed;
        if (rc == 1) {
            r->verdict = V_DONE;
            ended = 1;
            break;
        }
        FUZZ_CHECK(consumed > 0); /* rc 0 with input left: it must have used some */
    }
    free(copy);
    return ended;
}

static void run(const uint8_t *body, size_t len, const size_t *cuts, size_t ncuts,
                size_t max_line, size_t max_trailer, result *r) {
    tachy__chunked d;
    tachy__chunked_init(&d, max_line, max_trailer);
    memset(r, 0, sizeof *r);
    r->out = malloc(len ? len : 1);
    FUZZ_CHECK(r->out != NULL);
    size_t start = 0;
    for (size_t i = 0; i <= ncuts; i++) {
        size_t end = i < ncuts ? cuts[i] : len;
        if (end < start)
            continue;
        if (feed(&d, body + start, end - start, r))
            return;
        start = end;
    }
    r->verdict = V_MORE;
}

static int cmp_size(const void *a, const void *b) {
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

static void same(const result *a, const result *b) {
    FUZZ_CHECK(a->verdict == b->verdict);
    FUZZ_CHECK(a->out_len == b->out_len);
    FUZZ_CHECK(a->out_len == 0 || memcmp(a->out, b->out, a->out_len) == 0);
    if (a->verdict == V_DONE)
        FUZZ_CHECK(a->used == b->used);
    if (a->verdict == V_ERROR)
        FUZZ_CHECK(a->status == b->status);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_in in = {data, size};
    uint8_t opts = fuzz_u8(&in);
    size_t ncuts = fuzz_u8(&in) % 16;
    size_t cuts[16];
    for (size_t i = 0; i < ncuts; i++)
        cuts[i] = fuzz_u16(&in);
    const uint8_t *body = in.p;
    size_t len = in.n;
    for (size_t i = 0; i < ncuts; i++)
        cuts[i] = len ? cuts[i] % (len + 1) : 0;
    qsort(cuts, ncuts, sizeof cuts[0], cmp_size);
    size_t max_line = (opts & 1) ? 16 : 0;
    size_t max_trailer = (opts & 2) ? 64 : 0;

    result whole, pieces, bytes;
    run(body, len, NULL, 0, max_line, max_trailer, &whole);
    run(body, len, cuts, ncuts, max_line, max_trailer, &pieces);
    same(&whole, &pieces);
    if (len <= 4096) { /* byte by byte: one call per byte at least */
        size_t *all = malloc((len ? len : 1) * sizeof *all);
        FUZZ_CHECK(all != NULL);
        for (size_t i = 0; i < len; i++)
            all[i] = i + 1;
        run(body, len, all, len, max_line, max_trailer, &bytes);
        free(all);
        same(&whole, &bytes);
        free(bytes.out);
    }
    if (whole.verdict == V_DONE)
        FUZZ_CHECK(whole.used <= len);
    free(whole.out);
    free(pieces.out);
    return 0;
}
