/*
 * http/chunked.c - the chunked transfer coding's decoder (RFC 9112 7.1): sizes, extensions,
 * data, trailers; the same output however the input is split (a state machine). Pure.
 */
#include "http/parser.h"
#include "http/lex.h"
#include "server/options.h"

#include <limits.h>
#include <string.h>

static const char R_CHUNK_SIZE[] = "Bad chunk size";
static const char R_CHUNK_OVERFLOW[] = "Chunk size too large";
static const char R_CHUNK_LINE[] = "Chunk size line too long";
static const char R_CHUNK_EXT[] = "Bad chunk extension";
static const char R_CHUNK_CRLF[] = "Missing CRLF in chunked body";
static const char R_TRAILER[] = "Bad trailer field";
static const char R_TRAILER_LARGE[] = "Request trailer fields too large";
static const char R_CHUNK_STATE[] = "Chunked body already failed";

/* ---- chunked body (RFC 9112 7.1) ------------------------------------------------------- */

/*
 * chunked-body = *chunk last-chunk trailer-section CRLF
 * chunk        = chunk-size [ chunk-ext ] CRLF chunk-data CRLF
 * chunk-ext    = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] )
 * One state per position in that grammar, so the input may be split at any byte.
 */
enum {
    CH_SIZE_START = 0, /* first HEXDIG of chunk-size (0 so that {0} is a fresh decoder) */
    CH_SIZE,           /* more HEXDIG, or what follows chunk-size */
    CH_EXT_WS,         /* BWS that must be followed by ';' */
    CH_EXT_PRE_NAME,   /* after ';': BWS, then chunk-ext-name */
    CH_EXT_NAME,       /* in chunk-ext-name */
    CH_EXT_NAME_WS,    /* BWS after a name: '=' or ';' must follow */
    CH_EXT_PRE_VAL,    /* after '=': BWS, then token or quoted-string */
    CH_EXT_VAL,        /* in a token value */
    CH_EXT_QUOTED,     /* in a quoted-string value */
    CH_EXT_QUOTED_ESC, /* after a backslash in a quoted-string */
    CH_EXT_VAL_END,    /* after a closing quote */
    CH_SIZE_LF,        /* after the CR of a size line */
    CH_DATA,           /* remaining bytes of chunk-data */
    CH_DATA_CR,        /* CRLF after chunk-data */
    CH_DATA_LF,
    CH_TRAILER_START, /* start of a trailer field line, or the final CRLF */
    CH_TRAILER_NAME,
    CH_TRAILER_VALUE,
    CH_TRAILER_LF,
    CH_END_LF, /* LF of the final CRLF */
    CH_DONE,
    CH_ERROR
};

void tachy__chunked_init(tachy__chunked *d, size_t max_line, size_t max_trailer_bytes) {
    memset(d, 0, sizeof *d);
    d->state = CH_SIZE_START;
    d->max_line = max_line;
    d->max_trailer_bytes = max_trailer_bytes;
}

/* qdtext / quoted-pair bytes (RFC 9110 5.6.4), minus the DQUOTE and backslash. */
static inline int is_qdtext(unsigned char c) {
    return c == '\t' || c == ' ' || c == 0x21 || (c >= 0x23 && c <= 0x5b) ||
           (c >= 0x5d && c <= 0x7e) || c >= 0x80;
}

int tachy__chunked_decode(tachy__chunked *d, const char *in, size_t len, size_t *consumed,
                          size_t *data_off, size_t *data_len, tachy__parse_error *err) {
    size_t max_line = d->max_line ? d->max_line : TACHY__DEFAULT_max_chunk_ext;
    size_t max_trailer = d->max_trailer_bytes ? d->max_trailer_bytes : TACHY__MAX_TRAILER_BYTES;
    size_t p = 0;
    const char *reason;
    int status = 400;

    *consumed = 0;
    *data_off = 0;
    *data_len = 0;

    if (d->state == CH_DONE)
        return 1;
    if (d->state == CH_ERROR)
        return fail(err, 400, R_CHUNK_STATE);

    while (p < len) {
        unsigned char c = (unsigned char)in[p];

        /* Bytes of the size line before its CR count against max_line. */
        if (d->state < CH_SIZE_LF && c != '\r') {
            if (d->line_len >= max_line) {
                reason = R_CHUNK_LINE;
                goto bad;
            }
            d->line_len++;
        }
        /* Every byte of a trailer field line, CRLF included, counts. */
        if (d->state >= CH_TRAILER_NAME && d->state <= CH_TRAILER_LF) {
            if (d->trailer_bytes >= max_trailer) {
                status = 431;
                reason = R_TRAILER_LARGE;
                goto bad;
            }
            d->trailer_bytes++;
        }

        switch (d->state) {
        case CH_SIZE_START:
        case CH_SIZE: {
            int h = tachy__hex_value(c);
            if (h >= 0) {
                /* Bound to INT64_MAX so a Java long can always hold what is left. */
                if (d->remaining > (uint64_t)(INT64_MAX - h) / 16) {
                    reason = R_CHUNK_OVERFLOW;
                    goto bad;
                }
                d->remaining = d->remaining * 16 + (uint64_t)h;
                d->state = CH_SIZE;
            } else if (d->state == CH_SIZE_START) {
                reason = R_CHUNK_SIZE; /* 1*HEXDIG */
                goto bad;
            } else if (c == '\r') {
                d->state = CH_SIZE_LF;
            } else if (c == ';') {
                d->state = CH_EXT_PRE_NAME;
            } else if (is_ows(c)) {
                d->state = CH_EXT_WS;
            } else {
                reason = R_CHUNK_SIZE;
                goto bad;
            }
            break;
        }
        case CH_EXT_WS:
            /* BWS is only allowed before ';', not before the CRLF. */
            if (c == ';')
                d->state = CH_EXT_PRE_NAME;
            else if (!is_ows(c)) {
                reason = R_CHUNK_EXT;
                goto bad;
            }
            break;
        case CH_EXT_PRE_NAME:
            if (is_tchar(c))
                d->state = CH_EXT_NAME;
            else if (!is_ows(c)) {
                reason = R_CHUNK_EXT;
                goto bad;
            }
            break;
        case CH_EXT_NAME:
        case CH_EXT_NAME_WS:
            if (d->state == CH_EXT_NAME && is_tchar(c))
                break;
            if (c == '=')
                d->state = CH_EXT_PRE_VAL;
            else if (c == ';')
                d->state = CH_EXT_PRE_NAME;
            else if (is_ows(c))
                d->state = CH_EXT_NAME_WS;
            else if (c == '\r' && d->state == CH_EXT_NAME)
                d->state = CH_SIZE_LF;
            else {
                reason = R_CHUNK_EXT;
                goto bad;
            }
            break;
        case CH_EXT_PRE_VAL:
            if (c == '"')
                d->state = CH_EXT_QUOTED;
            else if (is_tchar(c))
                d->state = CH_EXT_VAL;
            else if (!is_ows(c)) {
                reason = R_CHUNK_EXT;
                goto bad;
            }
            break;
        case CH_EXT_VAL:
        case CH_EXT_VAL_END:
            if (d->state == CH_EXT_VAL && is_tchar(c))
                break;
            if (c == ';')
                d->state = CH_EXT_PRE_NAME;
            else if (is_ows(c))
                d->state = CH_EXT_WS;
            else if (c == '\r')
                d->state = CH_SIZE_LF;
            else {
                reason = R_CHUNK_EXT;
                goto bad;
            }
            break;
        case CH_EXT_QUOTED:
            if (c == '"')
                d->state = CH_EXT_VAL_END;
            else if (c == '\\')
                d->state = CH_EXT_QUOTED_ESC;
            else if (!is_qdtext(c)) {
                reason = R_CHUNK_EXT;
                goto bad;
            }
            break;
        case CH_EXT_QUOTED_ESC:
            /* quoted-pair = "\" ( HTAB / SP / VCHAR / obs-text ) */
            if (!(c == '\t' || (c >= 0x20 && c != 0x7f))) {
                reason = R_CHUNK_EXT;
                goto bad;
            }
            d->state = CH_EXT_QUOTED;
            break;
        case CH_SIZE_LF:
            if (c != '\n') {
                reason = R_CHUNK_CRLF;
                goto bad;
            }
            d->line_len = 0;
            d->state = d->remaining == 0 ? CH_TRAILER_START : CH_DATA;
            break;
        case CH_DATA: {
            /* One data run per call: hand out what is here, at most the chunk's rest. */
            size_t n = len - p;
            if ((uint64_t)n > d->remaining)
                n = (size_t)d->remaining;
            d->remaining -= n;
            if (d->remaining == 0)
                d->state = CH_DATA_CR;
            *data_off = p;
            *data_len = n;
            *consumed = p + n;
            return 0;
        }
        case CH_DATA_CR:
            if (c != '\r') {
                reason = R_CHUNK_CRLF;
                goto bad;
            }
            d->state = CH_DATA_LF;
            break;
        case CH_DATA_LF:
            if (c != '\n') {
                reason = R_CHUNK_CRLF;
                goto bad;
            }
            d->state = CH_SIZE_START;
            break;
        case CH_TRAILER_START:
            if (c == '\r') {
                d->state = CH_END_LF;
                break;
            }
            /* A trailer field line is a field line (RFC 9112 7.1.2): token name, no
             * obs-fold. It is validated, counted, and dropped. */
            if (!is_tchar(c)) {
                reason = c == '\n' ? R_CHUNK_CRLF : R_TRAILER;
                goto bad;
            }
            if (d->trailer_bytes >= max_trailer) {
                status = 431;
                reason = R_TRAILER_LARGE;
                goto bad;
            }
            d->trailer_bytes++;
            d->state = CH_TRAILER_NAME;
            break;
        case CH_TRAILER_NAME:
            if (c == ':')
                d->state = CH_TRAILER_VALUE;
            else if (!is_tchar(c)) {
                reason = R_TRAILER;
                goto bad;
            }
            break;
        case CH_TRAILER_VALUE:
            if (c == '\r')
                d->state = CH_TRAILER_LF;
            else if (!is_field_byte(c)) {
                reason = R_TRAILER;
                goto bad;
            }
            break;
        case CH_TRAILER_LF:
            if (c != '\n') {
                reason = R_CHUNK_CRLF;
                goto bad;
            }
            d->state = CH_TRAILER_START;
            break;
        case CH_END_LF:
            if (c != '\n') {
                reason = R_CHUNK_CRLF;
                goto bad;
            }
            d->state = CH_DONE;
            *consumed = p + 1; /* pipelined bytes after the body stay unconsumed */
            return 1;
        default:
            reason = R_CHUNK_STATE;
            goto bad;
        }
        p++;
    }
    *consumed = p;
    return 0;

bad:
    d->state = CH_ERROR;
    *consumed = p;
    return fail(err, status, reason);
}

