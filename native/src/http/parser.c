/*
 * http/parser.c - request head, body framing and chunked decoding over a caller's buffer.
 *
 * Pure functions: no I/O, no allocation, no global state. Every result that names bytes
 * (method, target, header names and values, chunk data) is a view into the caller's
 * buffer. The contract is picohttpparser's: bytes consumed, TACHY__PARSE_INCOMPLETE (-2)
 * for "need more", TACHY__PARSE_ERROR (-1) for "bad", with the status and a static reason
 * in a tachy__parse_error.
 *
 * The request head parser is stateless: the connection re-parses its buffer from the
 * start each time more bytes arrive. Limits are enforced on what is already there, so a
 * client cannot make the connection buffer grow past them by never finishing a line.
 * Errors are reported in byte order: the first offending byte decides the answer.
 *
 * Policies (RFC 9112, stricter where the RFC allows a choice):
 * - Request line and header fields end in CRLF; a bare LF is accepted (RFC 9112 2.2
 *   allows it), a bare CR is always 400.
 * - Up to TACHY__MAX_EMPTY_LINES empty lines before the request line are skipped
 *   (RFC 9112 2.2); more is 400.
 * - Only "HTTP/1.0" and "HTTP/1.1" are served; any other well-formed HTTP-version is 505
 *   (RFC 9110 2.5 would allow serving "HTTP/1.2" as 1.1; we answer 505 as documented).
 * - obs-fold is rejected with 400 (RFC 9112 5.2 allows rejecting it), except with the JDK
 *   header rules (tachy__limits.jdk_rules, described before parse_head), which accept it.
 * - Transfer-Encoding in an HTTP/1.0 request is 400 (RFC 9112 6.1: the framing is
 *   faulty; we answer 400 and the connection closes, rather than guess a length).
 * - The chunked decoder requires CRLF everywhere (size lines, after data, trailer
 *   fields, final line): RFC 9112 7.1 grammar has no bare-LF allowance there, and
 *   lenient chunk-line parsing is a known request-smuggling vector. Chunk extensions are
 *   checked against the RFC 9112 7.1.1 grammar (BWS only around ';' and '=', values token
 *   or quoted-string), then ignored; trailer fields are validated, counted, discarded.
 * - Expect: 100-continue is ignored in HTTP/1.0 requests (RFC 9110 10.1.1).
 */
#include "http/parser.h"
#include "http/lex.h"
#include "server/options.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <limits.h>
#include <string.h>

/* For a NULL limits pointer or a zero field, the server's defaults (server/options.h);
 * conn.c passes the server's own options. */
/* RFC 9112 2.2 says "at least one" empty line SHOULD be ignored; bound it so that an
 * endless stream of CRLFs is not an idle connection that never times out on a head. */
#define TACHY__MAX_EMPTY_LINES 8

/* Reasons. Some wordings are the JDK's own (sun.net.httpserver.ServerImpl), so that a
 * client sees the same error body from both providers. */
static const char R_BAD_REQUEST_LINE[] = "Bad request line";
static const char R_VERSION[] = "Unsupported HTTP version";
static const char R_URI_TOO_LONG[] = "Request-URI too long";
static const char R_BARE_CR[] = "Bare CR in request head";
static const char R_KEY[] = "Header key contains illegal characters"; /* JDK */
static const char R_KEY_SPACE[] = "Whitespace between header name and colon";
static const char R_NO_COLON[] = "Header line without colon";
static const char R_VALUE[] = "Header value contains illegal characters";
static const char R_OBS_FOLD[] = "Obsolete line folding in header";
static const char R_TOO_MANY[] = "Too many request headers";
static const char R_TOO_LARGE[] = "Request header fields too large";
static const char R_CONTENT_LENGTH[] = "Invalid Content-Length value";
static const char R_TE_UNSUPPORTED[] = "Unsupported Transfer-Encoding value"; /* JDK */
static const char R_TE_BAD[] = "Malformed Transfer-Encoding value";
static const char R_TE_HTTP10[] = "Transfer-Encoding in an HTTP/1.0 request";
static const char R_CONFLICT[] = "Conflicting or malformed headers detected"; /* JDK */


/* ---- request head --------------------------------------------------------------------- */

/* Result of the request line scan: views and the offset just after its line end. */
struct request_line {
    tachy__str method, target, version;
    int minor;
    size_t next;
};

/*
 * Parses "method SP request-target SP HTTP-version CRLF" starting at buf[start]
 * (RFC 9112 3). Single SPs only: RFC 9112 3 lets a recipient accept other whitespace,
 * but parsers that disagree on it are a smuggling vector, so we do not.
 * Every content byte's index in the line is checked against max before it is accepted,
 * so an over-long line is 414 as soon as its (max+1)th byte is there, terminated or not.
 */
static int parse_request_line(const char *buf, size_t len, size_t start, size_t max,
                              struct request_line *rl, tachy__parse_error *err) {
    static const char pattern[] = "HTTP/#.#"; /* '#' = DIGIT; HTTP-name is case-sensitive */
    size_t p = start, mark, i;
    /* Content bytes may sit in [start, lim): the loops run to lim without a per-byte
     * limit check, and a member byte found at lim is the (max+1)th: 414. */
    size_t lim = len - start > max ? start + max : len;
    unsigned char c;

#define CONTENT_BYTE()                                                                             \
    do {                                                                                           \
        if (p - start >= max)                                                                      \
            return fail(err, 414, R_URI_TOO_LONG);                                                 \
        p++;                                                                                       \
    } while (0)

    /* method = token */
    mark = p;
    while (p < lim && is_tchar((unsigned char)buf[p]))
        p++;
    if (p == len)
        return TACHY__PARSE_INCOMPLETE;
    c = (unsigned char)buf[p];
    if (is_tchar(c))
        return fail(err, 414, R_URI_TOO_LONG);
    if (c != ' ' || p == mark)
        return fail(err, 400, R_BAD_REQUEST_LINE);
    rl->method.base = buf + mark;
    rl->method.len = p - mark;
    CONTENT_BYTE(); /* SP */

    /* request-target */
    mark = p;
    p = skip_above(buf, p, lim, 0x20); /* to the first non-target byte */
    if (p == len)
        return TACHY__PARSE_INCOMPLETE;
    c = (unsigned char)buf[p];
    if (is_target_byte(c))
        return fail(err, 414, R_URI_TOO_LONG);
    if (c != ' ' || p == mark)
        return fail(err, 400, R_BAD_REQUEST_LINE);
    rl->target.base = buf + mark;
    rl->target.len = p - mark;
    CONTENT_BYTE(); /* SP */

    /* HTTP-version = HTTP-name "/" DIGIT "." DIGIT (RFC 9112 2.3) */
    mark = p;
    if (lim - p >= 8 && memcmp(buf + p, "HTTP/", 5) == 0 && is_digit((unsigned char)buf[p + 5]) &&
        buf[p + 6] == '.' && is_digit((unsigned char)buf[p + 7]))
        p += 8; /* the whole version is there and within the limit */
    for (i = p - mark; i < sizeof pattern - 1; i++) {
        if (p == len)
            return TACHY__PARSE_INCOMPLETE;
        c = (unsigned char)buf[p];
        if (pattern[i] == '#' ? !is_digit(c) : c != (unsigned char)pattern[i])
            return fail(err, 400, R_BAD_REQUEST_LINE);
        CONTENT_BYTE();
    }
#undef CONTENT_BYTE
    rl->version.base = buf + mark;
    rl->version.len = p - mark;

    if (p == len)
        return TACHY__PARSE_INCOMPLETE;
    if (buf[p] == '\r') {
        if (p + 1 == len)
            return TACHY__PARSE_INCOMPLETE;
        if (buf[p + 1] != '\n')
            return fail(err, 400, R_BARE_CR);
        p += 2;
    } else if (buf[p] == '\n') {
        p++;
    } else {
        return fail(err, 400, R_BAD_REQUEST_LINE);
    }

    /* Well-formed but not one we serve: RFC 9110 15.6.6. */
    if (buf[mark + 5] != '1' || (buf[mark + 7] != '0' && buf[mark + 7] != '1'))
        return fail(err, 505, R_VERSION);
    rl->minor = buf[mark + 7] - '0';
    rl->next = p;
    return 0;
}

/*
 * JDK header rules (tachy__limits.jdk_rules; the Java provider turns them on), as JDK 25's
 * sun.net.httpserver.Request reads a head (Request.readLine and Request.headers, checked
 * against the JDK 25 source):
 * - maxReqHeaderSize (max_header_bytes): the request line costs its length + 32 and may be
 *   at most limit - 32 bytes long; each field line then costs 33 + its length once the
 *   trailing whitespace is cut off, and it is refused as soon as the cost so far + 33 + the
 *   bytes of it read so far exceed the limit - whitespace included, the line end not, an
 *   obs-fold counting as the one SP it becomes. The 32 is the per-field overhead of HTTP/2's
 *   SETTINGS_MAX_HEADER_LIST_SIZE (RFC 9113 6.5.2), which the JDK borrowed; the 33rd byte is
 *   the JDK counting a line's first byte twice. Hence "X-a: " + a value of limit - 86 bytes
 *   after "GET /ok HTTP/1.1" passes and one byte more does not.
 * - maxReqHeaders (max_headers): before a line is added, the number of distinct names
 *   (ASCII case-insensitive, as Headers normalises them) on the lines before it must be
 *   below the limit: any number of lines of fewer names pass.
 * - Over either limit the JDK throws an IOException out of the exchange and closes the
 *   connection without a response: here a TACHY__PARSE_CLOSE error (no 431, no 414).
 * - obs-fold is accepted (RFC 9112 5.2 lets a recipient replace it by SP): a continuation
 *   line extends the previous field's value, and tachy__parse_unfold turns each CRLF plus
 *   the first SP/HTAB after it, and every other HTAB of a value, into one SP, as the JDK
 *   does. A line that begins with whitespace right after the request line stays a 400.
 * - The header array is not a limit: when it is full, TACHY__PARSE_MORE_HEADERS asks the
 *   caller for a bigger one (lines are bounded by max_header_bytes, 35 bytes each at least).
 * Everything else is as strict as without them: bare CR, CTLs in values, invalid names and
 * whitespace before the colon are 400 (the JDK answers 400 to the last two as well, once it
 * has read the whole line: one over maxReqHeaderSize is closed without a response). The
 * strict parse below is the same function specialised with jdk = 0, so none of this costs
 * the default mode an instruction.
 */
static const char R_JDK_SIZE[] = "Maximum header (sun.net.httpserver.maxReqHeaderSize) exceeded";
static const char R_JDK_COUNT[] =
    "Maximum number of request headers (sun.net.httpserver.maxReqHeaders) exceeded";

/* Per-field-line overhead of the JDK's maxReqHeaderSize count (see above). */
#define JDK_LINE_COST 33

/* The first position a content byte of a field line starting at ls may not take, when
 * `used` of `max` bytes of the JDK's count are spent (saturating). */
static inline size_t jdk_line_limit(size_t ls, size_t used, size_t max) {
    size_t budget = max - used > JDK_LINE_COST ? max - used - JDK_LINE_COST : 0;
    return budget > SIZE_MAX - ls ? SIZE_MAX : ls + budget;
}

/* JDK rules: whether the field line whose content goes on at p ends (CR or LF) before the
 * content limit plim - which the line end itself may sit at: 1, 0 (over the limit), or -1
 * (not known yet: the buffer ends first). */
static inline int jdk_line_fits(const char *buf, size_t p, size_t len, size_t plim) {
    size_t stop = TACHY__MIN(plim, len);
    while (p < stop && buf[p] != '\r' && buf[p] != '\n')
        p++;
    if (p < stop)
        return 1;
    if (p == len)
        return -1;
    return buf[p] == '\r' || buf[p] == '\n';
}

static inline int same_name(const tachy__str *a, const tachy__str *b) {
    if (a->len != b->len)
        return 0;
    for (size_t i = 0; i < a->len; i++)
        if (ascii_lower((unsigned char)a->base[i]) != ascii_lower((unsigned char)b->base[i]))
            return 0;
    return 1;
}

/*
 * The number of distinct names among h[0,n) (ASCII case-insensitive), counted up to max:
 * returns max as soon as it is reached. An open-addressing table on the stack for limits up
 * to DISTINCT_SLOTS / 2 (the default is 200), so a head of thousands of lines of few names
 * costs one hash per line; above that, each line is compared with the lines before it.
 */
#define DISTINCT_SLOTS 2048
static __attribute__((noinline)) size_t distinct_names(const tachy__header_ref *h, size_t n,
                                                        size_t max) {
    size_t d = 0, i, j;
    if (max <= DISTINCT_SLOTS / 2 && n < UINT32_MAX) {
        uint32_t table[DISTINCT_SLOTS]; /* index + 1 of each distinct name; 0 = free */
        memset(table, 0, sizeof table);
        for (i = 0; i < n && d < max; i++) {
            uint32_t hash = 2166136261u; /* FNV-1a over the lower-cased name */
            for (j = 0; j < h[i].name.len; j++)
                hash = (hash ^ ascii_lower((unsigned char)h[i].name.base[j])) * 16777619u;
            for (j = hash & (DISTINCT_SLOTS - 1);; j = (j + 1) & (DISTINCT_SLOTS - 1)) {
                if (table[j] == 0) { /* never full: d < max <= DISTINCT_SLOTS / 2 */
                    table[j] = (uint32_t)i + 1;
                    d++;
                    break;
                }
                if (same_name(&h[table[j] - 1].name, &h[i].name))
                    break;
            }
        }
        return d;
    }
    for (i = 0; i < n && d < max; i++) {
        for (j = 0; j < i && !same_name(&h[j].name, &h[i].name); j++)
            ;
        d += j == i;
    }
    return d;
}

/*
 * Details of the contract in parser.h:
 * - lim may be NULL, and a zero field means its default (server/options.h).
 * - req->num_headers (capacity of req->headers) is a bound like lim->max_headers: more
 *   header lines than min(capacity, max_headers) is 431 "Too many request headers" (with
 *   the JDK rules: TACHY__PARSE_MORE_HEADERS when the capacity is the bound).
 * - req's views and num_headers are written only on success, so after -2 the same req
 *   can be passed again; req->headers[] entries may have been overwritten regardless.
 * - max_header_bytes counts the field lines with their line ends, not the request line and
 *   not the empty line that ends the head (the JDK rules count otherwise, see above).
 *
 * parse_head is the whole parse, specialised by the constant jdk (always inlined into the
 * two callers); *nlines gets the number of complete field lines in req->headers whatever
 * it returns, for the JDK's count of distinct names (parse_jdk).
 */
static inline __attribute__((always_inline)) int
parse_head(const char *buf, size_t len, tachy__request *req, const tachy__limits *lim,
           tachy__parse_error *err, const int jdk, size_t *nlines) {
    size_t max_line = TACHY__DEFAULT_max_request_line;
    size_t max_headers = TACHY__DEFAULT_max_req_headers;
    size_t max_bytes = TACHY__DEFAULT_max_req_header_size;
    size_t cap = req->num_headers, count = 0, p = 0, empty, hstart;
    struct request_line rl;
    int rc, jdk_line = 0, unfold = 0;

    if (lim != NULL) {
        if (lim->max_request_line > 0)
            max_line = lim->max_request_line;
        if (lim->max_headers > 0)
            max_headers = lim->max_headers;
        if (lim->max_header_bytes > 0)
            max_bytes = lim->max_header_bytes;
    }
    /* The header array is the hard bound: more lines than it holds is the same 431 (the
     * JDK rules count names, not lines: the array grows instead). */
    if (req->headers == NULL)
        cap = 0;
    max_headers = jdk ? cap : TACHY__MIN(max_headers, cap);
    /* The JDK refuses a request line of more than maxReqHeaderSize - 32 bytes. */
    if (jdk && (max_bytes > 32 ? max_bytes - 32 : 0) < max_line) {
        max_line = max_bytes > 32 ? max_bytes - 32 : 0;
        jdk_line = 1;
    }

    /* RFC 9112 2.2: ignore empty lines received before the request line (clients that
     * send an extra CRLF after a POST body), a bounded number of them. */
    for (empty = 0;; empty++) {
        if (p == len)
            return TACHY__PARSE_INCOMPLETE;
        if (buf[p] != '\r' && buf[p] != '\n')
            break;
        if (empty == TACHY__MAX_EMPTY_LINES)
            return fail(err, 400, R_BAD_REQUEST_LINE);
        if (buf[p] == '\r') {
            if (p + 1 == len)
                return TACHY__PARSE_INCOMPLETE;
            if (buf[p + 1] != '\n')
                return fail(err, 400, R_BARE_CR);
            p++;
        }
        p++;
    }

    rc = parse_request_line(buf, len, p, max_line, &rl, err);
    if (rc != 0) {
        if (jdk && jdk_line && rc == TACHY__PARSE_ERROR && err != NULL && err->status == 414)
            return fail(err, TACHY__PARSE_CLOSE, R_JDK_SIZE);
        return rc;
    }
    p = rl.next;

    /* field-line = field-name ":" OWS field-value OWS (RFC 9112 5). Bytes of field lines,
     * terminators included, are counted against max_bytes as they are accepted; the
     * empty line that ends the head is not. */
    hstart = p;
    /* Content bytes may sit in [hstart, plim) (the JDK rules: per line, see above) and
     * line ends below tlim; as in the request line, the name loop runs to hlim and a name
     * byte found there is one too many: 431. */
    size_t plim = max_bytes > SIZE_MAX - hstart ? SIZE_MAX : hstart + max_bytes;
    size_t tlim = jdk ? SIZE_MAX : plim;
    size_t hlim = TACHY__MIN(len, plim);
    /* The JDK's count (jdk only): spent so far; the last line's (virtual) start, line end,
     * trimmed length and cost, which an obs-fold reopens. */
    size_t used = 0, vls = 0, lterm = 0, ltrim = 0, lcost = 0;
    if (jdk)
        used = (size_t)(rl.version.base + rl.version.len - rl.method.base) + 32;

#define RET(x)                                                                                     \
    do {                                                                                           \
        *nlines = count;                                                                           \
        return (x);                                                                                \
    } while (0)
#define TOO_LARGE() RET(fail(err, jdk ? TACHY__PARSE_CLOSE : 431, jdk ? R_JDK_SIZE : R_TOO_LARGE))
#define HEADER_BYTE()                                                                              \
    do {                                                                                           \
        if (p >= plim)                                                                             \
            TOO_LARGE();                                                                           \
        p++;                                                                                       \
    } while (0)
#define TERM_BYTE()                                                                                \
    do {                                                                                           \
        if (p >= tlim)                                                                             \
            TOO_LARGE();                                                                           \
        p++;                                                                                       \
    } while (0)

    for (;;) {
        size_t name, name_end, value, value_end, seg, term, pvend = 0;
        unsigned char c;

        if (p == len)
            RET(TACHY__PARSE_INCOMPLETE);
        c = (unsigned char)buf[p];
        if (c == '\r') {
            if (p + 1 == len)
                RET(TACHY__PARSE_INCOMPLETE);
            if (buf[p + 1] != '\n')
                RET(fail(err, 400, R_BARE_CR));
            p += 2;
            break;
        }
        if (c == '\n') {
            p++;
            break;
        }
        /* RFC 9112 5.2: obs-fold (and, after the request line, RFC 9112 2.2's whitespace
         * before the first field) is rejected rather than unfolded. The JDK rules unfold:
         * the previous field line goes on, its fold counted as one byte. */
        if (is_ows(c)) {
            if (!jdk || count == 0)
                RET(fail(err, 400, R_OBS_FOLD));
            count--;
            name = (size_t)(req->headers[count].name.base - buf);
            name_end = name + req->headers[count].name.len;
            value = (size_t)(req->headers[count].value.base - buf);
            pvend = value + req->headers[count].value.len;
            used -= lcost;
            vls = p - (lterm - vls); /* so that p - vls is the line's length so far */
            plim = jdk_line_limit(vls, used, max_bytes);
            HEADER_BYTE(); /* the SP or HTAB, the SP that replaces the fold */
            seg = p;
            unfold = 1;
            goto field_value;
        }
        if (count == max_headers) {
            if (jdk)
                RET(TACHY__PARSE_MORE_HEADERS);
            RET(fail(err, 431, R_TOO_MANY));
        }
        if (jdk) {
            vls = p;
            plim = jdk_line_limit(p, used, max_bytes);
            hlim = TACHY__MIN(len, plim);
        }

        /* field-name = token, then the colon with no whitespace before it (RFC 9112 5.1) */
        name = p;
        while (p < hlim && is_tchar((unsigned char)buf[p]))
            p++;
        if (p == len)
            RET(TACHY__PARSE_INCOMPLETE);
        c = (unsigned char)buf[p];
        if (is_tchar(c))
            TOO_LARGE();
        if (c != ':' || p == name) {
            /* The JDK reads the whole line before it looks at the name: a malformed name on
             * a line over maxReqHeaderSize closes the connection without a response. */
            if (jdk) {
                int fits = jdk_line_fits(buf, p, len, plim);
                if (fits < 0)
                    RET(TACHY__PARSE_INCOMPLETE);
                if (!fits)
                    TOO_LARGE();
            }
            if (c == ':')
                RET(fail(err, 400, R_KEY));
            if (is_ows(c))
                RET(fail(err, 400, R_KEY_SPACE));
            if (c == '\r' || c == '\n')
                RET(fail(err, 400, R_NO_COLON));
            RET(fail(err, 400, R_KEY));
        }
        name_end = p;
        HEADER_BYTE(); /* ':' */

        /* field-value with leading and trailing OWS trimmed */
        for (;;) {
            if (p == len)
                RET(TACHY__PARSE_INCOMPLETE);
            if (!is_ows((unsigned char)buf[p]))
                break;
            HEADER_BYTE();
        }
        value = p;
        seg = p;
    field_value:
        /* The value: a fast scan to the first control byte (usually the CR), bounded by
         * the buffer and by the header-bytes limit; HTAB is the only control allowed. */
        {
            size_t stop = TACHY__MIN(plim, len);
            for (;;) {
                p = skip_above(buf, p, stop, 0x1f); /* to the first control byte */
                if (p == stop) {
                    if (stop == len)
                        RET(TACHY__PARSE_INCOMPLETE);
                    /* (the JDK rules do not count the line end: it may sit at plim) */
                    if (!jdk || is_field_byte((unsigned char)buf[p]))
                        TOO_LARGE();
                }
                c = (unsigned char)buf[p];
                if (c != '\t')
                    break;
                if (jdk) {
                    if (p >= plim)
                        TOO_LARGE();
                    unfold = 1; /* the JDK turns HTAB into SP */
                }
                p++;
            }
            if (c != '\r' && c != '\n')
                RET(fail(err, 400, R_VALUE));
            value_end = p;
            while (value_end > seg && is_ows((unsigned char)buf[value_end - 1]))
                value_end--;
        }
        term = p;
        if (c == '\r') {
            if (p + 1 == len)
                RET(TACHY__PARSE_INCOMPLETE);
            if (buf[p + 1] != '\n')
                RET(fail(err, 400, R_BARE_CR));
            TERM_BYTE();
        }
        TERM_BYTE(); /* LF */

        if (jdk) {
            /* The line's length as the JDK keeps it: trailing whitespace cut off, back into
             * the part before a fold if the continuation is only whitespace. */
            size_t trim;
            if (value_end > seg)
                trim = value_end - vls;
            else if (seg != value) { /* a continuation of whitespace only */
                trim = ltrim;
                value_end = pvend;
            } else
                trim = (value_end > value ? value_end : name_end + 1) - vls;
            ltrim = trim;
            lcost = JDK_LINE_COST + trim;
            used += lcost;
            lterm = term;
        }
        (void)term;

        req->headers[count].name.base = buf + name;
        req->headers[count].name.len = name_end - name;
        req->headers[count].value.base = buf + value;
        req->headers[count].value.len = value_end - value;
        count++;
    }
#undef TERM_BYTE
#undef HEADER_BYTE
#undef TOO_LARGE

    /* Only reachable with limits near SIZE_MAX; the return type is an int. */
    if (p > (size_t)INT_MAX)
        RET(fail(err, jdk ? TACHY__PARSE_CLOSE : 431, jdk ? R_JDK_SIZE : R_TOO_LARGE));
#undef RET

    req->method = rl.method;
    req->target = rl.target;
    req->version = rl.version;
    req->minor_version = rl.minor;
    req->num_headers = count;
    if (jdk)
        req->unfold = unfold;
    *nlines = count;
    return (int)p;
}

/* The JDK rules: parse_head, then the JDK's count of distinct names over the complete
 * lines (whatever parse_head found after them, the JDK would have closed first). */
static __attribute__((noinline)) int parse_jdk(const char *buf, size_t len, tachy__request *req,
                                               const tachy__limits *lim,
                                               tachy__parse_error *err) {
    tachy__parse_error e = {400, NULL};
    size_t n = 0;
    size_t max = lim->max_headers > 0 ? lim->max_headers : TACHY__DEFAULT_max_req_headers;
    int rc = parse_head(buf, len, req, lim, &e, 1, &n);
    /* Line i is refused when the lines before it have max distinct names already. */
    if (!(rc == TACHY__PARSE_ERROR && e.status == TACHY__PARSE_CLOSE) && n > max &&
        distinct_names(req->headers, n - 1, max) >= max)
        return fail(err, TACHY__PARSE_CLOSE, R_JDK_COUNT);
    if (rc == TACHY__PARSE_ERROR && err != NULL)
        *err = e;
    return rc;
}

/* The parse behind both entry points: always inlined, so that each is a copy of its own. */
static inline __attribute__((always_inline)) int
parse_request(const char *buf, size_t len, tachy__request *req, const tachy__limits *lim,
              tachy__parse_error *err) {
    size_t n;
    if (lim != NULL && lim->jdk_rules)
        return parse_jdk(buf, len, req, lim, err);
    return parse_head(buf, len, req, lim, err, 0, &n);
}

int tachy__parse_request(const char *buf, size_t len, tachy__request *req, const tachy__limits *lim,
                         tachy__parse_error *err) {
    return parse_request(buf, len, req, lim, err);
}

TACHY__NO_ICF int tachy__parse_request_conn(const char *buf, size_t len, tachy__request *req,
                                            const tachy__limits *lim, tachy__parse_error *err) {
    return parse_request(buf, len, req, lim, err);
}

void tachy__parse_unfold(char *buf, tachy__request *req) {
    for (size_t i = 0; i < req->num_headers; i++) {
        tachy__header_ref *h = &req->headers[i];
        char *v = buf + (h->value.base - buf);
        size_t n = h->value.len, r, w = 0, lead = 0;
        for (r = 0; r < n && (unsigned char)v[r] >= 0x20; r++)
            ;
        if (r == n)
            continue; /* nothing to replace: most values */
        for (r = 0; r < n; r++) {
            char c = v[r];
            if (c == '\r')
                continue; /* always followed by LF here */
            if (c == '\n') {
                v[w++] = ' '; /* CRLF and the first SP/HTAB after it: one SP */
                if (r + 1 < n && is_ows((unsigned char)v[r + 1]))
                    r++;
                continue;
            }
            v[w++] = c == '\t' ? ' ' : c;
        }
        while (lead < w && v[lead] == ' ')
            lead++;
        while (w > lead && v[w - 1] == ' ')
            w--;
        h->value.base = v + lead;
        h->value.len = w - lead;
    }
}

/* ---- body framing (RFC 9112 6) --------------------------------------------------------- */

/* Iterates the elements of a comma-separated list (RFC 9110 5.6.1), OWS trimmed.
 * *pos starts at 0; returns 0 when the list is exhausted. An empty value yields one
 * empty element, so callers that require a value see it. */
static int next_element(const tachy__str *v, size_t *pos, tachy__str *elem) {
    size_t s = *pos, e;
    if (s > v->len)
        return 0;
    e = s;
    while (e < v->len && v->base[e] != ',')
        e++;
    *pos = e + 1; /* past the comma, or v->len + 1 when done */
    while (s < e && is_ows((unsigned char)v->base[s]))
        s++;
    while (e > s && is_ows((unsigned char)v->base[e - 1]))
        e--;
    elem->base = v->base + s;
    elem->len = e - s;
    return 1;
}

/* Content-Length = 1*DIGIT (RFC 9110 8.6), as a list of identical values at most. */
static int parse_content_length(const tachy__str *v, int64_t *cl, tachy__parse_error *err) {
    size_t pos = 0, i;
    tachy__str e;

    while (next_element(v, &pos, &e)) {
        int64_t n = 0;
        if (e.len == 0)
            return fail(err, 400, R_CONTENT_LENGTH);
        for (i = 0; i < e.len; i++) {
            unsigned char c = (unsigned char)e.base[i];
            if (!is_digit(c))
                return fail(err, 400, R_CONTENT_LENGTH);
            if (n > (INT64_MAX - (c - '0')) / 10)
                return fail(err, 400, R_CONTENT_LENGTH);
            n = n * 10 + (c - '0');
        }
        /* RFC 9110 8.6 lets a recipient accept repeated identical values; the JDK refuses
         * any repetition (a list, or a second field) and so do we: one length, stated once. */
        if (*cl >= 0)
            return fail(err, 400, R_CONFLICT);
        *cl = n;
    }
    return 0;
}

struct te_state {
    int present;
    int codings;       /* number of codings seen */
    int chunked;       /* times "chunked" was seen */
    int after_chunked; /* a coding followed "chunked" */
    int other;         /* a coding other than chunked */
    int malformed;
};

/* transfer-coding = token *( OWS ";" OWS transfer-parameter ) (RFC 9112 7). Only the
 * name matters: chunked takes no parameters, anything else is refused anyway. */
static void scan_transfer_encoding(const tachy__str *v, struct te_state *te) {
    size_t pos = 0, n, r;
    tachy__str e;

    te->present = 1;
    while (next_element(v, &pos, &e)) {
        if (e.len == 0)
            continue; /* RFC 9110 5.6.1: empty list elements are ignored */
        for (n = 0; n < e.len && is_tchar((unsigned char)e.base[n]);)
            n++;
        for (r = n; r < e.len && is_ows((unsigned char)e.base[r]);)
            r++;
        if (n == 0 || (r < e.len && e.base[r] != ';')) {
            te->malformed = 1;
            continue;
        }
        te->codings++;
        if (te->chunked)
            te->after_chunked = 1;
        if (str_ieq(e.base, n, "chunked")) {
            te->chunked++;
            if (n != e.len)
                te->malformed = 1;
        } else {
            te->other = 1;
        }
    }
}

/* Sets the flags for the tokens of a Connection or Expect value it knows. */
static void scan_tokens(const tachy__str *v, tachy__framing *out, int is_expect) {
    size_t pos = 0;
    tachy__str e;

    while (next_element(v, &pos, &e)) {
        if (is_expect) {
            if (str_ieq(e.base, e.len, "100-continue"))
                out->expect_continue = 1;
        } else if (str_ieq(e.base, e.len, "close")) {
            out->connection_close = 1;
        } else if (str_ieq(e.base, e.len, "keep-alive")) {
            out->connection_keep_alive = 1;
        } else if (str_ieq(e.base, e.len, "upgrade")) {
            out->upgrade = 1;
        }
    }
}

/* RFC 3986 unreserved / sub-delims, one load per byte (pct-encoded is checked by the
 * caller): the Host of every request is checked on the hot path. */
static const unsigned char HOST_CHAR[256] = {
    ['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1,
    ['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1,
    ['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1, ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1,
    ['y'] = 1, ['z'] = 1, ['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1,
    ['G'] = 1, ['H'] = 1, ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1,
    ['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1,
    ['W'] = 1, ['X'] = 1, ['Y'] = 1, ['Z'] = 1, ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1,
    ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1, ['-'] = 1, ['.'] = 1,
    ['_'] = 1, ['~'] = 1, ['!'] = 1, ['$'] = 1, ['&'] = 1, ['\''] = 1, ['('] = 1, [')'] = 1,
    ['*'] = 1, ['+'] = 1, [','] = 1, [';'] = 1, ['='] = 1,
};
static int host_char(unsigned char ch) { return HOST_CHAR[ch]; }

static int is_hex(unsigned char ch) {
    return (ch >= '0' && ch <= '9') || ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'f');
}

/* Host = uri-host [ ":" port ] (RFC 9110 7.2, RFC 3986 3.2.2): an IP-literal in brackets
 * (hex digits, ':' and '.', or an IPvFuture's unreserved / sub-delims / ':'), or a
 * reg-name / IPv4address (unreserved, pct-encoded, sub-delims); port = *DIGIT. Empty is
 * valid (a target without an authority). */
static int host_valid(const tachy__str *v) {
    const unsigned char *p = (const unsigned char *)v->base, *end = p + v->len;
    if (p < end && *p == '[') {
        p++;
        const unsigned char *start = p;
        while (p < end && *p != ']' && (host_char(*p) || *p == ':'))
            p++;
        if (p == end || *p != ']' || p == start)
            return 0;
        p++;
    } else {
        while (p < end && HOST_CHAR[*p]) /* the common case: one load and test per byte */
            p++;
        while (p < end && *p != ':') {
            if (*p == '%') {
                if (end - p < 3 || !is_hex(p[1]) || !is_hex(p[2]))
                    return 0;
                p += 3;
            } else if (host_char(*p)) {
                p++;
            } else {
                return 0;
            }
        }
    }
    if (p == end)
        return 1;
    if (*p++ != ':')
        return 0;
    while (p < end && *p >= '0' && *p <= '9')
        p++;
    return p == end;
}

static const char R_HOST_MISSING[] = "Missing Host header";
static const char R_HOST_MULTIPLE[] = "Multiple Host headers";
static const char R_HOST_BAD[] = "Invalid Host header";

int tachy__check_host(const tachy__request *req, const tachy__framing *fr, tachy__parse_error *err) {
    if (fr->hosts > 1)
        return fail(err, 400, R_HOST_MULTIPLE);
    if (fr->hosts == 1 && !host_valid(&req->headers[fr->host_index].value))
        return fail(err, 400, R_HOST_BAD);
    if (fr->hosts == 0 && req->minor_version >= 1)
        return fail(err, 400, R_HOST_MISSING);
    return 0;
}

int tachy__parse_framing(const tachy__request *req, tachy__framing *out, tachy__parse_error *err) {
    struct te_state te;
    int64_t cl = -1;
    size_t i;

    memset(out, 0, sizeof *out);
    memset(&te, 0, sizeof te);
    out->content_length = -1;

    for (i = 0; i < req->num_headers; i++) {
        const tachy__header_ref *h = &req->headers[i];
        const char *n = h->name.base;
        size_t nl = h->name.len;

        /* The length picks the one candidate name (most fields are none of these). */
        if (nl == 14 && str_ieq(n, nl, "content-length")) {
            if (parse_content_length(&h->value, &cl, err) < 0)
                return TACHY__PARSE_ERROR;
        } else if (nl == 17 && str_ieq(n, nl, "transfer-encoding")) {
            scan_transfer_encoding(&h->value, &te);
        } else if (nl == 10 && str_ieq(n, nl, "connection")) {
            scan_tokens(&h->value, out, 0);
        } else if (nl == 4 && str_ieq(n, nl, "host")) {
            out->hosts++;
            out->host_index = (int)i;
        } else if (nl == 6 && str_ieq(n, nl, "expect")) {
            /* RFC 9110 10.1.1: a server MUST ignore 100-continue in an HTTP/1.0 request
             * (such a client cannot read a 1xx response). */
            if (req->minor_version >= 1)
                scan_tokens(&h->value, out, 1);
        }
    }

    if (te.present) {
        /* RFC 9112 6.1: a sender must not send both; we refuse instead of letting
         * Transfer-Encoding win, because an intermediary might have used the length. */
        if (cl >= 0)
            return fail(err, 400, R_CONFLICT);
        /* RFC 9112 6.1: Transfer-Encoding in HTTP/1.0 means faulty framing. */
        if (req->minor_version == 0)
            return fail(err, 400, R_TE_HTTP10);
        /* RFC 9112 6.3: chunked must be final, and applied once (RFC 9112 6.1). */
        if (te.malformed || te.codings == 0 || te.chunked > 1 || te.after_chunked)
            return fail(err, 400, R_TE_BAD);
        /* RFC 9112 6.1: a coding we do not implement is 501 (the JDK's answer too). */
        if (te.other)
            return fail(err, 501, R_TE_UNSUPPORTED);
        out->chunked = 1;
    } else {
        out->content_length = cl;
    }
    return 0;
}

/* ---- percent decoding ------------------------------------------------------------------ */
