/*
 * ws/deflate.c - permessage-deflate codecs (RFC 7692 7.2). The only file that includes zlib.
 *
 * A message is compressed as raw DEFLATE ending with an empty stored block from a sync
 * flush, whose 4 octets 0x00 0x00 0xff 0xff are removed before sending and appended again
 * before decompressing. With context takeover the LZ77 window survives from one message
 * to the next; without it each message starts afresh (deflateReset/inflateReset).
 */
#include "ws/ws.h"

#include <zlib.h>

#define CHUNK 16384 /* output step: bounds the overshoot of the inflated-size limit */

struct tachy__deflater {
    z_stream z;
    int no_context_takeover;
    int broken;
};

struct tachy__inflater {
    z_stream z;
    int no_context_takeover;
    int broken;
};

static const uint8_t tail[4] = {0x00, 0x00, 0xff, 0xff};

int tachy__deflater_create(tachy__deflater **out, int window_bits, int mem_level, int level,
                           int no_context_takeover) {
    if (!out || window_bits < 8 || window_bits > 15 || mem_level < 1 || mem_level > 9 ||
        level < 0 || level > 9)
        return TACHY_EINVAL;
    if (window_bits == 8)
        window_bits = 9; /* zlib refuses 8 for raw deflate */
    tachy__deflater *d = calloc(1, sizeof *d);
    if (!d)
        return TACHY_ENOMEM;
    if (deflateInit2(&d->z, level, Z_DEFLATED, -window_bits, mem_level, Z_DEFAULT_STRATEGY) !=
        Z_OK) {
        free(d);
        return TACHY_ENOMEM;
    }
    d->no_context_takeover = no_context_takeover;
    *out = d;
    return 0;
}

void tachy__deflater_destroy(tachy__deflater *d) {
    if (!d)
        return;
    deflateEnd(&d->z);
    free(d);
}

int tachy__deflater_compress(tachy__deflater *d, const void *in, size_t len, tachy__buf *out) {
    if (d->broken)
        return TACHY_EIO;
    if (len == 0) {
        /* RFC 7692 7.2.3.6: an empty message is a single 0x00 (with the tail: one empty
         * stored block). Not via zlib: it emits nothing for a second flush in a row. */
        uint8_t zero = 0;
        return tachy__buf_append(out, &zero, 1);
    }
    size_t start = out->len;
    const uint8_t *p = in;
    size_t left = len;
    /* zlib counts in uInt: feed at most 1 GiB at a time. Bounded: every pass either
     * consumes input or, once input is gone, ends at the flush (avail_out left over). */
    for (;;) {
        uInt feed = left > (1u << 30) ? (1u << 30) : (uInt)left;
        d->z.next_in = (Bytef *)(uintptr_t)p;
        d->z.avail_in = feed;
        int done = 0;
        while (!done) {
            size_t room = CHUNK + feed / 8; /* grow roughly with the input */
            if (tachy__buf_reserve(out, room) < 0) {
                d->broken = 1;
                out->len = start;
                return TACHY_ENOMEM;
            }
            d->z.next_out = out->bytes + out->len;
            d->z.avail_out = (uInt)room;
            int flush = (left == feed) ? Z_SYNC_FLUSH : Z_NO_FLUSH;
            int rc = deflate(&d->z, flush);
            out->len += room - d->z.avail_out;
            if (rc != Z_OK && rc != Z_BUF_ERROR) {
                d->broken = 1;
                out->len = start;
                return TACHY_EIO;
            }
            /* Done with this feed when zlib has input consumed and spare output room
             * (a sync flush is complete exactly then). */
            done = d->z.avail_in == 0 && d->z.avail_out > 0;
        }
        p += feed;
        left -= feed;
        if (left == 0)
            break;
    }
    size_t n = out->len - start;
    if (n < 4 || memcmp(out->bytes + out->len - 4, tail, 4) != 0) {
        d->broken = 1;
        out->len = start;
        return TACHY_EIO;
    }
    out->len -= 4;
    if (d->no_context_takeover && deflateReset(&d->z) != Z_OK) {
        d->broken = 1;
        return TACHY_EIO;
    }
    return 0;
}

int tachy__inflater_create(tachy__inflater **out, int no_context_takeover) {
    if (!out)
        return TACHY_EINVAL;
    tachy__inflater *inf = calloc(1, sizeof *inf);
    if (!inf)
        return TACHY_ENOMEM;
    if (inflateInit2(&inf->z, -15) != Z_OK) {
        free(inf);
        return TACHY_ENOMEM;
    }
    inf->no_context_takeover = no_context_takeover;
    *out = inf;
    return 0;
}

void tachy__inflater_destroy(tachy__inflater *inf) {
    if (!inf)
        return;
    inflateEnd(&inf->z);
    free(inf);
}

/* Resets the decoder after a final block; the window survives unless the peer said it
 * does not take the context over. */
static int restart(tachy__inflater *inf) {
    if (inf->no_context_takeover)
        return inflateReset(&inf->z) == Z_OK ? 0 : -1;
    Bytef *dict = malloc(32768);
    uInt dlen = 32768;
    int ok = dict && inflateGetDictionary(&inf->z, dict, &dlen) == Z_OK &&
             inflateReset(&inf->z) == Z_OK &&
             (dlen == 0 || inflateSetDictionary(&inf->z, dict, dlen) == Z_OK);
    free(dict);
    return ok ? 0 : -1;
}

/* Inflates in[0,len) into out, at most limit bytes in total. */
static int inflate_some(tachy__inflater *inf, const uint8_t *in, size_t len, tachy__buf *out,
                        size_t limit) {
    while (len > 0) {
        uInt feed = len > (1u << 30) ? (1u << 30) : (uInt)len;
        inf->z.next_in = (Bytef *)(uintptr_t)in;
        inf->z.avail_in = feed;
        /* Each pass either consumes input or produces output; output is capped by limit,
         * so the loop ends. */
        for (;;) {
            if (out->len > limit)
                return TACHY_ETOOBIG;
            /* At most one byte more than allowed: that byte proves the overflow. */
            size_t room = limit - out->len >= CHUNK ? CHUNK : limit - out->len + 1;
            if (tachy__buf_reserve(out, room) < 0)
                return TACHY_ENOMEM;
            inf->z.next_out = out->bytes + out->len;
            inf->z.avail_out = (uInt)room;
            int rc = inflate(&inf->z, Z_SYNC_FLUSH);
            out->len += room - inf->z.avail_out;
            if (out->len > limit)
                return TACHY_ETOOBIG;
            if (rc == Z_STREAM_END) {
                /* The peer ended the DEFLATE stream (BFINAL, RFC 7692 7.2.3.4): start a
                 * new one for whatever follows (at least our re-appended tail), keeping
                 * the window when the context is taken over. */
                if (restart(inf) < 0)
                    return TACHY_EPROTO;
                if (inf->z.avail_in == 0)
                    break;
                continue;
            }
            if (rc == Z_BUF_ERROR) {
                if (inf->z.avail_in == 0)
                    break; /* all consumed, nothing pending */
                if (inf->z.avail_out == 0)
                    continue; /* needs more room */
                return TACHY_EPROTO;
            }
            if (rc != Z_OK)
                return rc == Z_MEM_ERROR ? TACHY_ENOMEM : TACHY_EPROTO;
            if (inf->z.avail_in == 0 && inf->z.avail_out > 0)
                break;
        }
        in += feed;
        len -= feed;
    }
    return 0;
}

int tachy__inflater_feed(tachy__inflater *inf, const void *in, size_t len, int last,
                         tachy__buf *out, size_t limit) {
    if (inf->broken)
        return TACHY_EPROTO;
    int rc = inflate_some(inf, in, len, out, limit);
    if (rc == 0 && last)
        rc = inflate_some(inf, tail, sizeof tail, out, limit);
    if (rc == 0 && last && inf->no_context_takeover && inflateReset(&inf->z) != Z_OK)
        rc = TACHY_EPROTO;
    if (rc < 0)
        inf->broken = 1;
    return rc;
}
