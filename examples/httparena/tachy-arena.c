/*
 * tachy-arena - tachy's HttpArena entry (github.com/MDA2AV/HttpArena): the HTTP/1.1,
 * HTTP/2 and WebSocket profiles on the public libtachy API, nothing else.
 *
 *   tachy-arena [--port P] [--tls-port Q --cert C --key K] [--data DIR] [--bind ADDR]
 *               [--h2-port R] [--h2c-port S]
 *
 * Defaults are the arena's: plain HTTP on 8080; HTTPS (HTTP/1.1) on 8081 when a certificate
 * and key are available (--cert/--key, else /certs/server.crt and /certs/server.key); the
 * data directory DIR holds dataset.json and static/ (default /data when it has a
 * dataset.json, else the tree shipped next to this source, examples/httparena/data).
 * HTTP/2: over TLS with ALPN "h2" on 8443 (--h2-port, with the certificate; the HTTPS port
 * offers h2 too), and h2c with prior knowledge alone on 8082 (--h2c-port: HTTP/1.1 there is
 * answered 505, as HttpArena requires; the HTTPS port speaks HTTP/1.1 alone, as its
 * profiles are); -1 turns either off (0, as for every port: any free
 * one). The plain port also takes h2c.
 * Prints "listening on http://ADDR:PORT/" (and https://, h2://, h2c://) once every listener
 * accepts connections. SIGINT / SIGTERM stop it with status 0.
 *
 * Endpoints (the same on both listeners):
 *   GET/POST /baseline11?a=&b=  a + b (+ the number in the body, Content-Length or
 *                               chunked), text/plain                (baseline, limited-conn)
 *   GET /baseline2?a=&b=        the same                            (baseline-h2, -h2c)
 *   GET /pipeline               "ok", text/plain                    (pipelined)
 *   GET /json/{count}?m=M       the first count items of the dataset, each with
 *                               total = price * quantity * M, as {"items":[...],"count":n};
 *                               gzip (zlib) when Accept-Encoding asks  (json-comp, json-tls)
 *   POST /upload                the number of body bytes, text/plain (upload)
 *   POST /echo                  the body back, byte for byte        (8gbit, over TLS)
 *   GET /static/NAME            a file of DIR/static; NAME.br / NAME.gz are sent instead when
 *                               Accept-Encoding allows br / gzip; a replaced file is served
 *                               within 1 s (filecache.h)            (static, static-tls)
 *   GET /delay/{ms}             waits ms milliseconds, then answers ms (async)
 *   GET /ws                     WebSocket echo; a plain GET is refused with 400 (echo-ws)
 *
 * /delay: the handler defers its exchange (tachy_exchange_defer) and one timer thread of
 * this program completes it at the deadline, so no handler sleeps and no thread waits: the
 * deferred exchange is lent its connection, the pool thread goes back to serving others,
 * and the close continues the connection on a pool thread.
 */
#include <tachy/tachy.h>
#include <tachy/ws.h>

#include "../common/demo.h"
#include "filecache.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#ifndef TACHY_ARENA_SHIPPED_DATA
#define TACHY_ARENA_SHIPPED_DATA "examples/httparena/data"
#endif

/* ---- growable buffer ------------------------------------------------------------------ */

struct buf {
    char *p;
    size_t len, cap;
    int failed;
};

static int buf_reserve(struct buf *b, size_t n) {
    if (b->failed)
        return -1;
    if (b->cap - b->len >= n)
        return 0;
    size_t cap = b->cap ? b->cap : 1024;
    while (cap - b->len < n) {
        if (cap > SIZE_MAX / 2) {
            b->failed = 1;
            return -1;
        }
        cap *= 2;
    }
    char *p = realloc(b->p, cap);
    if (!p) {
        b->failed = 1;
        return -1;
    }
    b->p = p;
    b->cap = cap;
    return 0;
}

static void buf_add(struct buf *b, const void *s, size_t n) {
    if (buf_reserve(b, n) == 0) {
        memcpy(b->p + b->len, s, n);
        b->len += n;
    }
}

static void buf_str(struct buf *b, const char *s) {
    buf_add(b, s, strlen(s));
}

static void buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void buf_printf(struct buf *b, const char *fmt, ...) {
    char tmp[64];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof tmp) {
        b->failed = 1;
        return;
    }
    buf_add(b, tmp, (size_t)n);
}

/* ---- the dataset ------------------------------------------------------------------------ */

/* One dataset item: its JSON object as read (whitespace outside strings removed) without
 * the closing brace, so a response appends ,"total":X} to it; and the two numbers. */
struct item {
    char *json;
    size_t len;
    int integral; /* price and quantity are both integers */
    int64_t price_i, qty_i;
    double price_d, qty_d;
};

struct dataset {
    struct item *items;
    size_t n;
};

static const char *skip_ws(const char *p, const char *e) {
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

/* Copies one JSON value from *pp into out without insignificant whitespace, checking its
 * syntax loosely (strings, numbers, literals, arrays, objects). 0 or -1. */
static int json_copy(const char **pp, const char *e, struct buf *out, int depth) {
    const char *p = skip_ws(*pp, e);
    if (p >= e || depth > 32)
        return -1;
    if (*p == '"') {
        const char *s = p++;
        while (p < e && *p != '"') {
            if (*p == '\\')
                p++;
            p++;
        }
        if (p >= e)
            return -1;
        p++;
        buf_add(out, s, (size_t)(p - s));
    } else if (*p == '{' || *p == '[') {
        char close = *p == '{' ? '}' : ']';
        buf_add(out, p, 1);
        p = skip_ws(p + 1, e);
        if (p < e && *p == close) {
            p++;
        } else {
            for (;;) {
                if (close == '}') {
                    if (json_copy(&p, e, out, depth + 1) < 0)
                        return -1;
                    p = skip_ws(p, e);
                    if (p >= e || *p != ':')
                        return -1;
                    buf_add(out, ":", 1);
                    p++;
                }
                if (json_copy(&p, e, out, depth + 1) < 0)
                    return -1;
                p = skip_ws(p, e);
                if (p < e && *p == ',') {
                    buf_add(out, ",", 1);
                    p++;
                    continue;
                }
                if (p < e && *p == close) {
                    p++;
                    break;
                }
                return -1;
            }
        }
        buf_add(out, &close, 1);
    } else {
        const char *s = p;
        while (p < e && (isalnum((unsigned char)*p) || *p == '-' || *p == '+' || *p == '.'))
            p++;
        if (p == s)
            return -1;
        buf_add(out, s, (size_t)(p - s));
    }
    *pp = p;
    return out->failed ? -1 : 0;
}

/* Parses the number text s[0,n): integral (no '.', 'e') -> *i, always -> *d. */
static int parse_number(const char *s, size_t n, int64_t *i, double *d, int *integral) {
    char tmp[64];
    if (n == 0 || n >= sizeof tmp)
        return -1;
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    char *end;
    errno = 0;
    *d = strtod(tmp, &end);
    if (*end || errno)
        return -1;
    *integral = strpbrk(tmp, ".eE") == NULL;
    if (*integral) {
        errno = 0;
        *i = strtoll(tmp, &end, 10);
        if (*end || errno)
            *integral = 0;
    }
    return 0;
}

/* Reads the array of item objects in text[0,len). 0 or -1 (message on stderr). */
static int dataset_parse(struct dataset *ds, const char *text, size_t len) {
    const char *p = skip_ws(text, text + len), *e = text + len;
    if (p >= e || *p != '[')
        return -1;
    p = skip_ws(p + 1, e);
    size_t cap = 0;
    while (p < e && *p != ']') {
        if (*p != '{')
            return -1;
        struct buf obj = {0};
        if (json_copy(&p, e, &obj, 0) < 0) {
            free(obj.p);
            return -1;
        }
        /* find the top-level "price" and "quantity" members in the compact copy */
        struct item it = {0};
        int have_p = 0, have_q = 0, ip = 0, iq = 0;
        const char *q = obj.p + 1, *qe = obj.p + obj.len - 1;
        while (q < qe) {
            const char *key = q;
            struct buf scratch = {0};
            if (json_copy(&q, qe, &scratch, 0) < 0 || q >= qe || *q != ':') {
                free(scratch.p);
                break;
            }
            size_t klen = (size_t)(q - key);
            q++;
            const char *val = q;
            scratch.len = 0;
            if (json_copy(&q, qe, &scratch, 0) < 0) {
                free(scratch.p);
                break;
            }
            free(scratch.p);
            if (klen == 7 && memcmp(key, "\"price\"", 7) == 0)
                have_p = parse_number(val, (size_t)(q - val), &it.price_i, &it.price_d, &ip) == 0;
            else if (klen == 10 && memcmp(key, "\"quantity\"", 10) == 0)
                have_q = parse_number(val, (size_t)(q - val), &it.qty_i, &it.qty_d, &iq) == 0;
            if (q < qe && *q == ',')
                q++;
        }
        if (!have_p || !have_q) {
            free(obj.p);
            fprintf(stderr, "tachy-arena: dataset item %zu has no numeric price/quantity\n", ds->n);
            return -1;
        }
        it.integral = ip && iq;
        it.json = obj.p;
        it.len = obj.len - 1; /* without the closing '}' */
        if (ds->n == cap) {
            cap = cap ? cap * 2 : 64;
            struct item *v = realloc(ds->items, cap * sizeof *v);
            if (!v) {
                free(obj.p);
                return -1;
            }
            ds->items = v;
        }
        ds->items[ds->n++] = it;
        p = skip_ws(p, e);
        if (p < e && *p == ',')
            p = skip_ws(p + 1, e);
    }
    return p < e ? 0 : -1;
}

static int dataset_load(struct dataset *ds, const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    struct buf b = {0};
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        buf_add(&b, chunk, n);
    int err = ferror(f);
    fclose(f);
    int rc = err || b.failed ? -1 : dataset_parse(ds, b.p, b.len);
    free(b.p);
    return rc;
}

/* The shortest "%.Ng" that reads back as the same double (what Python's repr prints), so a
 * client computing price * quantity * m in doubles compares equal. */
static void format_double(double v, char *out, size_t cap) {
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(out, cap, "%.*g", prec, v);
        if (strtod(out, NULL) == v)
            break;
    }
    if (!strpbrk(out, ".eEn")) /* keep it a JSON float: 12 -> 12.0 */
        strncat(out, ".0", cap - strlen(out) - 1);
}

/* ---- gzip (zlib), one deflate state per thread ------------------------------------------- */

static pthread_key_t z_key;

static void z_free(void *p) {
    z_stream *z = p;
    deflateEnd(z);
    free(z);
}

/* Compresses in[0,n) as one gzip member into out. 0 or -1. */
static int gzip_into(const void *in, size_t n, struct buf *out) {
    z_stream *z = pthread_getspecific(z_key);
    if (!z) {
        z = calloc(1, sizeof *z);
        if (!z || deflateInit2(z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
            free(z);
            return -1;
        }
        pthread_setspecific(z_key, z);
    } else if (deflateReset(z) != Z_OK) {
        return -1;
    }
    size_t bound = deflateBound(z, (uLong)n);
    if (buf_reserve(out, bound) < 0)
        return -1;
    z->next_in = (Bytef *)(uintptr_t)in;
    z->avail_in = (uInt)n;
    z->next_out = (Bytef *)out->p + out->len;
    z->avail_out = (uInt)(out->cap - out->len);
    if (deflate(z, Z_FINISH) != Z_STREAM_END)
        return -1;
    out->len = out->cap - z->avail_out;
    return 0;
}

/* ---- request helpers ----------------------------------------------------------------------- */

/* Collects the Accept-Encoding field values (several fields are joined with ','). */
struct ae_state {
    char v[512];
    size_t len;
    int seen;
};

static void ae_field(void *user, const char *name, size_t nlen, const char *value, size_t vlen) {
    struct ae_state *s = user;
    if (nlen != 15 || strncasecmp(name, "Accept-Encoding", 15) != 0)
        return;
    if (s->len && s->len < sizeof s->v - 1)
        s->v[s->len++] = ',';
    size_t room = sizeof s->v - 1 - s->len;
    if (vlen > room)
        vlen = room;
    memcpy(s->v + s->len, value, vlen);
    s->len += vlen;
    s->v[s->len] = '\0';
    s->seen = 1;
}

/* 1 when the Accept-Encoding value list allows coding (RFC 9110 12.5.3): listed with
 * q > 0, or not listed and "*" with q > 0. */
static int accepts(const struct ae_state *ae, const char *coding) {
    if (!ae->seen)
        return 0;
    double named = -1, star = -1;
    const char *p = ae->v;
    size_t clen = strlen(coding);
    while (*p) {
        while (*p == ' ' || *p == '\t' || *p == ',')
            p++;
        const char *tok = p;
        while (*p && *p != ',' && *p != ';' && *p != ' ' && *p != '\t')
            p++;
        size_t tlen = (size_t)(p - tok);
        double q = 1;
        while (*p && *p != ',') {
            if (*p == ';') {
                p++;
                while (*p == ' ' || *p == '\t')
                    p++;
                if ((p[0] == 'q' || p[0] == 'Q') && p[1] == '=')
                    q = strtod(p + 2, NULL);
            } else {
                p++;
            }
        }
        if (tlen == clen && strncasecmp(tok, coding, clen) == 0)
            named = q;
        else if (tlen == 1 && *tok == '*')
            star = q;
    }
    return named >= 0 ? named > 0 : star > 0;
}

/* The integer value of query parameter name, or def. */
static int64_t query_int(const char *query, const char *name, int64_t def) {
    size_t n = strlen(name);
    for (const char *p = query; p && *p;) {
        if (strncmp(p, name, n) == 0 && p[n] == '=')
            return strtoll(p + n + 1, NULL, 10);
        p = strchr(p, '&');
        if (p)
            p++;
    }
    return def;
}

/* Reads the whole request body into out, at most max bytes. 0, or -1 (too long / error). */
static int read_body(tachy_exchange *ex, struct buf *out, size_t max) {
    for (;;) {
        if (buf_reserve(out, 16384) < 0)
            return -1;
        ssize_t r = tachy_exchange_read(ex, out->p + out->len, out->cap - out->len);
        if (r == 0)
            return 0;
        if (r < 0)
            return -1;
        out->len += (size_t)r;
        if (out->len > max)
            return -1;
    }
}

/* Sends a complete response with Content-type (and optionally Content-encoding and Vary)
 * given as fields: no headers object on the hot path. */
static void respond(tachy_exchange *ex, int code, const char *type, const char *encoding,
                    const void *body, size_t len) {
    tachy_field f[3];
    size_t n = 0;
    f[n++] = (tachy_field){"Content-type", 12, type, strlen(type)};
    if (encoding)
        f[n++] = (tachy_field){"Content-encoding", 16, encoding, strlen(encoding)};
    if (encoding || strcmp(type, "application/json") == 0)
        f[n++] = (tachy_field){"Vary", 4, "Accept-Encoding", 15};
    if (tachy_exchange_send_response_fields(ex, code, len ? (int64_t)len : -1, f, n) == 0 && len)
        tachy_exchange_write(ex, body, len);
    tachy_exchange_close(ex);
}

static void respond_text(tachy_exchange *ex, int code, const char *text) {
    respond(ex, code, "text/plain", NULL, text, strlen(text));
}

static int is_head_or_get(tachy_exchange *ex) {
    const char *m = tachy_exchange_request_method(ex);
    return strcmp(m, "GET") == 0 || strcmp(m, "HEAD") == 0;
}

/* ---- the application --------------------------------------------------------------------- */

struct arena {
    struct dataset ds;
    int staticfd; /* O_DIRECTORY descriptor of DIR/static, or -1 */
    struct fc_cache *files;
};

static int h_baseline(tachy_exchange *ex, void *user) {
    (void)user;
    const char *path = tachy_exchange_request_path(ex);
    if (strcmp(path, "/baseline11") != 0 && strcmp(path, "/baseline2") != 0) {
        respond_text(ex, 404, "not found");
        return 0;
    }
    const char *q = tachy_exchange_request_query(ex);
    /* Unsigned: an overflowing sum wraps instead of being undefined. */
    uint64_t sum = (uint64_t)query_int(q, "a", 0) + (uint64_t)query_int(q, "b", 0);
    if (strcmp(tachy_exchange_request_method(ex), "POST") == 0) {
        struct buf body = {0};
        if (read_body(ex, &body, 4096) < 0) {
            free(body.p);
            respond_text(ex, 400, "bad body");
            return 0;
        }
        buf_add(&body, "", 1);
        if (!body.failed)
            sum += (uint64_t)strtoll(body.p, NULL, 10);
        free(body.p);
    }
    char out[32];
    snprintf(out, sizeof out, "%" PRId64, (int64_t)sum);
    respond_text(ex, 200, out);
    return 0;
}

static int h_pipeline(tachy_exchange *ex, void *user) {
    (void)user;
    respond_text(ex, 200, "ok");
    return 0;
}

static int h_json(tachy_exchange *ex, void *user) {
    const struct arena *a = user;
    const char *path = tachy_exchange_request_path(ex);
    char *end;
    long count = strtol(path + 6, &end, 10); /* after "/json/" */
    if (end == path + 6 || *end || count < 0) {
        respond_text(ex, 404, "not found");
        return 0;
    }
    int64_t m = query_int(tachy_exchange_request_query(ex), "m", 1);
    size_t n = (size_t)count < a->ds.n ? (size_t)count : a->ds.n;
    struct buf out = {0};
    buf_str(&out, "{\"items\":[");
    for (size_t i = 0; i < n; i++) {
        const struct item *it = &a->ds.items[i];
        if (i)
            buf_add(&out, ",", 1);
        buf_add(&out, it->json, it->len);
        int64_t pq, total;
        if (it->integral && !__builtin_mul_overflow(it->price_i, it->qty_i, &pq) &&
            !__builtin_mul_overflow(pq, m, &total)) {
            buf_printf(&out, ",\"total\":%" PRId64 "}", total);
        } else { /* fractional numbers, or beyond int64: in doubles, as a JSON client would */
            char num[40];
            format_double(it->price_d * it->qty_d * (double)m, num, sizeof num);
            buf_printf(&out, ",\"total\":%s}", num);
        }
    }
    buf_printf(&out, "],\"count\":%zu}", n);
    if (out.failed) {
        free(out.p);
        respond_text(ex, 500, "out of memory");
        return 0;
    }
    struct ae_state ae = {0};
    tachy_exchange_request_fields(ex, ae_field, &ae);
    if (accepts(&ae, "gzip")) {
        struct buf z = {0};
        if (gzip_into(out.p, out.len, &z) == 0) {
            respond(ex, 200, "application/json", "gzip", z.p, z.len);
            free(z.p);
            free(out.p);
            return 0;
        }
        free(z.p);
    }
    respond(ex, 200, "application/json", NULL, out.p, out.len);
    free(out.p);
    return 0;
}

static int h_upload(tachy_exchange *ex, void *user) {
    (void)user;
    char chunk[65536];
    int64_t total = 0;
    ssize_t r;
    while ((r = tachy_exchange_read(ex, chunk, sizeof chunk)) > 0)
        total += r;
    if (r < 0)
        return -1; /* the body broke off: close without a response */
    char out[32];
    snprintf(out, sizeof out, "%" PRId64, total);
    respond_text(ex, 200, out);
    return 0;
}

static int h_echo(tachy_exchange *ex, void *user) {
    (void)user;
    struct buf body = {0};
    if (read_body(ex, &body, (size_t)64 << 20) < 0) {
        free(body.p);
        respond_text(ex, 413, "body too large or broken");
        return 0;
    }
    respond(ex, 200, "application/octet-stream", NULL, body.p, body.len);
    free(body.p);
    return 0;
}

/* ---- static files -------------------------------------------------------------------------- */

static const char *static_type(const char *name) {
    static const struct {
        const char *ext, *type;
    } t[] = {{".css", "text/css"},          {".js", "application/javascript"},
             {".json", "application/json"}, {".html", "text/html"},
             {".htm", "text/html"},         {".svg", "image/svg+xml"},
             {".webp", "image/webp"},       {".woff2", "font/woff2"},
             {".woff", "font/woff"},        {".png", "image/png"},
             {".jpg", "image/jpeg"},        {".txt", "text/plain"},
             {".ico", "image/x-icon"},      {".wasm", "application/wasm"}};
    const char *dot = strrchr(name, '.');
    if (dot)
        for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
            if (strcasecmp(dot, t[i].ext) == 0)
                return t[i].type;
    return "application/octet-stream";
}

static void imf_date(time_t t, char *out, size_t cap) {
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, cap, "%a, %d %b %Y %H:%M:%S GMT", &tm);
}

/* The cache entry for file (NAME or NAME.gz / NAME.br), a negative entry when it does not
 * exist, or NULL when it cannot be cached (served uncached then: *fd_out opened). */
static struct fc_entry *static_get(const struct arena *a, const char *file, const char *type,
                                   int *fd_out, struct stat *st_out) {
    size_t len = strlen(file);
    struct fc_entry *e = fc_lookup(a->files, file, len);
    *fd_out = -1;
    if (e)
        return e;
    int fd = openat(a->staticfd, file, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        if (fd >= 0)
            close(fd);
        fc_store_missing(a->files, file, len);
        return NULL;
    }
    e = fc_store(a->files, file, len, fd, &st, type, NULL);
    if (e) {
        close(fd);
        return e;
    }
    *fd_out = fd;
    *st_out = st;
    return NULL;
}

static int h_static(tachy_exchange *ex, void *user) {
    const struct arena *a = user;
    const char *name = tachy_exchange_request_path(ex) + 8; /* after "/static/" */
    if (!is_head_or_get(ex)) {
        respond_text(ex, 405, "method not allowed");
        return 0;
    }
    if (a->staticfd < 0 || !*name || name[0] == '.' || strchr(name, '/') ||
        strlen(name) > NAME_MAX - 3) {
        respond_text(ex, 404, "not found");
        return 0;
    }
    const char *type = static_type(name);
    struct ae_state ae = {0};
    tachy_exchange_request_fields(ex, ae_field, &ae);
    static const char *const codings[2][2] = {{"br", ".br"}, {"gzip", ".gz"}};
    struct fc_entry *e = NULL;
    const char *encoding = NULL;
    int fd = -1;
    struct stat st = {0};
    char file[NAME_MAX + 1];
    for (int i = 0; i < 3 && !e && fd < 0; i++) {
        if (i < 2 && !accepts(&ae, codings[i][0]))
            continue;
        snprintf(file, sizeof file, "%s%s", name, i < 2 ? codings[i][1] : "");
        e = static_get(a, file, type, &fd, &st);
        if (e && e->missing) {
            fc_release(e);
            e = NULL;
        }
        encoding = i < 2 ? codings[i][0] : NULL;
    }
    if (!e && fd < 0) {
        respond_text(ex, 404, "not found");
        return 0;
    }
    char lm[48], size_text[24];
    int64_t size;
    if (e) {
        size = e->size;
    } else {
        size = (int64_t)st.st_size;
        imf_date(st.st_mtime, lm, sizeof lm);
        snprintf(size_text, sizeof size_text, "%lld", (long long)size);
    }
    tachy_field f[5];
    size_t n = 0;
    f[n++] = (tachy_field){"Content-type", 12, type, strlen(type)};
    const char *lmv = e ? e->last_modified : lm;
    f[n++] = (tachy_field){"Last-modified", 13, lmv, strlen(lmv)};
    f[n++] = (tachy_field){"Vary", 4, "Accept-Encoding", 15};
    if (encoding)
        f[n++] = (tachy_field){"Content-encoding", 16, encoding, strlen(encoding)};
    int head = strcmp(tachy_exchange_request_method(ex), "HEAD") == 0;
    if (head) {
        const char *sv = e ? e->size_text : size_text;
        f[n++] = (tachy_field){"Content-length", 14, sv, strlen(sv)};
    }
    if (tachy_exchange_send_response_fields(ex, 200, head || size == 0 ? -1 : size, f, n) == 0 &&
        !head && size > 0) {
        if (e && e->data)
            tachy_exchange_write(ex, e->data, (size_t)size);
        else
            tachy_exchange_send_file(ex, e ? e->fd : fd, 0, size);
    }
    tachy_exchange_close(ex);
    fc_release(e);
    if (fd >= 0)
        close(fd);
    return 0;
}

/* ---- /delay: one timer thread completes deferred exchanges ---------------------------------- */

struct delayed {
    int64_t due_ns;
    tachy_exchange *ex;
    long ms;
};

static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    struct delayed *heap; /* binary min-heap on due_ns */
    size_t n, cap;
    int stop;
    pthread_t thread;
} timers = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, 0, 0, 0, 0};

static int64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void heap_swap(size_t i, size_t j) {
    struct delayed t = timers.heap[i];
    timers.heap[i] = timers.heap[j];
    timers.heap[j] = t;
}

static int heap_push(struct delayed d) {
    if (timers.n == timers.cap) {
        size_t cap = timers.cap ? timers.cap * 2 : 1024;
        struct delayed *h = realloc(timers.heap, cap * sizeof *h);
        if (!h)
            return -1;
        timers.heap = h;
        timers.cap = cap;
    }
    size_t i = timers.n++;
    timers.heap[i] = d;
    while (i && timers.heap[(i - 1) / 2].due_ns > timers.heap[i].due_ns) {
        heap_swap(i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
    return 0;
}

static struct delayed heap_pop(void) {
    struct delayed top = timers.heap[0];
    timers.heap[0] = timers.heap[--timers.n];
    for (size_t i = 0;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < timers.n && timers.heap[l].due_ns < timers.heap[m].due_ns)
            m = l;
        if (r < timers.n && timers.heap[r].due_ns < timers.heap[m].due_ns)
            m = r;
        if (m == i)
            break;
        heap_swap(i, m);
        i = m;
    }
    return top;
}

static void delay_answer(tachy_exchange *ex, long ms) {
    char out[24];
    snprintf(out, sizeof out, "%ld", ms);
    respond_text(ex, 200, out);
}

/* The timer thread: sleeps until the earliest deadline, answers every due exchange. On
 * stop it answers what is still waiting, so no connection is left hanging. */
static void *timer_main(void *arg) {
    (void)arg;
    pthread_mutex_lock(&timers.lock);
    for (;;) {
        if (timers.n == 0) {
            if (timers.stop)
                break;
            pthread_cond_wait(&timers.cond, &timers.lock);
            continue;
        }
        int64_t now = mono_ns();
        if (timers.heap[0].due_ns > now && !timers.stop) {
            int64_t due = timers.heap[0].due_ns;
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            int64_t wake = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec + (due - now);
            ts.tv_sec = (time_t)(wake / 1000000000);
            ts.tv_nsec = (long)(wake % 1000000000);
            pthread_cond_timedwait(&timers.cond, &timers.lock, &ts);
            continue;
        }
        struct delayed d = heap_pop();
        pthread_mutex_unlock(&timers.lock);
        delay_answer(d.ex, d.ms);
        pthread_mutex_lock(&timers.lock);
    }
    pthread_mutex_unlock(&timers.lock);
    return NULL;
}

static int timers_start(void) {
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_destroy(&timers.cond);
    pthread_cond_init(&timers.cond, &ca);
    pthread_condattr_destroy(&ca);
    return pthread_create(&timers.thread, NULL, timer_main, NULL) == 0 ? 0 : -1;
}

static void timers_stop(void) {
    pthread_mutex_lock(&timers.lock);
    timers.stop = 1;
    pthread_cond_signal(&timers.cond);
    pthread_mutex_unlock(&timers.lock);
    pthread_join(timers.thread, NULL);
    free(timers.heap);
}

static int h_delay(tachy_exchange *ex, void *user) {
    (void)user;
    const char *p = tachy_exchange_request_path(ex) + 7; /* after "/delay/" */
    char *end;
    errno = 0;
    long ms = strtol(p, &end, 10);
    if (end == p || *end || errno || ms < 0 || ms > 60000) {
        respond_text(ex, 400, "delay must be 0..60000 ms");
        return 0;
    }
    if (ms == 0) {
        delay_answer(ex, 0);
        return 0;
    }
    /* Deferred before it is queued: the timer thread may close it as soon as it is due.
     * The core reads the exchange's closed flag under its lock after this handler returns
     * (and lends the connection only if it is still open), so a close that comes first is
     * safe. */
    tachy_exchange_defer(ex);
    pthread_mutex_lock(&timers.lock);
    int rc = timers.stop ? -1 : heap_push((struct delayed){mono_ns() + ms * 1000000, ex, ms});
    int first = rc == 0 && timers.heap[0].ex == ex;
    if (first)
        pthread_cond_signal(&timers.cond);
    pthread_mutex_unlock(&timers.lock);
    if (rc < 0)
        respond_text(ex, 503, "no timer");
    return 0;
}

/* ---- WebSocket echo -------------------------------------------------------------------------- */

static int h_ws(tachy_exchange *ex, void *user) {
    (void)user;
    tachy_ws_options opt;
    tachy_ws_options_init(&opt);
    opt.cb.on_message = demo_ws_echo_message;
    int rc = tachy_ws_serve(ex, &opt);
    return rc == 0 || rc == TACHY_EPROTO ? 0 : -1;
}

/* ---- main ------------------------------------------------------------------------------------ */

static int add_contexts(tachy_server *srv, struct arena *a) {
    static const struct {
        const char *path;
        tachy_handler_fn fn;
    } routes[] = {{"/baseline11", h_baseline}, {"/baseline2", h_baseline},
                  {"/pipeline", h_pipeline},
                  {"/json/", h_json},          {"/upload", h_upload},
                  {"/echo", h_echo},           {"/static/", h_static},
                  {"/delay/", h_delay},        {"/ws", h_ws}};
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
        int rc = tachy_server_create_context(srv, routes[i].path, routes[i].fn, a, NULL);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static void usage(void) {
    fprintf(stderr, "usage: tachy-arena [--port P] [--tls-port Q --cert C --key K] [--data DIR]"
                    " [--bind ADDR] [--h2-port R] [--h2c-port S]\n");
}

static int file_exists(const char *p) {
    return access(p, R_OK) == 0;
}

static void core_log(void *user, int level, const char *message) {
    (void)user;
    if (level >= TACHY_LOG_WARNING)
        fprintf(stderr, "tachy: %s\n", message);
}

int main(int argc, char **argv) {
    const char *bind_addr = "0.0.0.0", *data = NULL, *cert = NULL, *key = NULL;
    long port = 8080, tls_port = 8081, h2_port = 8443, h2c_port = 8082;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        if (strcmp(o, "-h") == 0 || strcmp(o, "--help") == 0) {
            usage();
            return 0;
        }
        if (i + 1 >= argc) {
            usage();
            return 1;
        }
        const char *v = argv[++i];
        if (strcmp(o, "--port") == 0)
            port = strtol(v, NULL, 10);
        else if (strcmp(o, "--tls-port") == 0)
            tls_port = strtol(v, NULL, 10);
        else if (strcmp(o, "--cert") == 0)
            cert = v;
        else if (strcmp(o, "--key") == 0)
            key = v;
        else if (strcmp(o, "--data") == 0)
            data = v;
        else if (strcmp(o, "--bind") == 0)
            bind_addr = v;
        else if (strcmp(o, "--h2-port") == 0)
            h2_port = strtol(v, NULL, 10);
        else if (strcmp(o, "--h2c-port") == 0)
            h2c_port = strtol(v, NULL, 10);
        else {
            usage();
            return 1;
        }
    }
    if (port < 0 || port > 65535 || tls_port < 0 || tls_port > 65535 || h2_port < -1 ||
        h2_port > 65535 || h2c_port < -1 || h2c_port > 65535) {
        fprintf(stderr, "tachy-arena: port out of range\n");
        return 1;
    }
    if (!data)
        data = file_exists("/data/dataset.json") ? "/data" : TACHY_ARENA_SHIPPED_DATA;
    if (!cert && !key && file_exists("/certs/server.crt") && file_exists("/certs/server.key")) {
        cert = "/certs/server.crt";
        key = "/certs/server.key";
    }
    if (!cert != !key) {
        fprintf(stderr, "tachy-arena: --cert and --key go together\n");
        return 1;
    }

    static struct arena a = {.staticfd = -1};
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/dataset.json", data);
    if (dataset_load(&a.ds, path) < 0) {
        fprintf(stderr, "tachy-arena: cannot read the dataset %s\n", path);
        return 2;
    }
    snprintf(path, sizeof path, "%s/static", data);
    a.staticfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (a.staticfd < 0)
        fprintf(stderr, "tachy-arena: no static directory %s (/static answers 404)\n", path);
    struct fc_limits lim = {.max_entries = 4096,
                            .max_bytes = (size_t)64 << 20,
                            .max_fds = 256,
                            .small_max = (size_t)256 << 10,
                            .ttl_ms = 1000};
    a.files = fc_create(&lim, imf_date);
    if (!a.files || pthread_key_create(&z_key, z_free) != 0 || timers_start() < 0) {
        fprintf(stderr, "tachy-arena: out of resources\n");
        return 2;
    }

    sigset_t stop_set;
    demo_block_stop_signals(&stop_set);

    tachy_options opt;
    tachy_options_init(&opt);
    opt.max_idle_connections = 1 << 20; /* the arena holds up to 16384+ keep-alive conns */
    opt.log = core_log;

    tachy_server *srv = NULL, *tls = NULL, *h2 = NULL, *h2c = NULL;
    tachy_tls_config *cfg = NULL;
    int rc = tachy_server_create(&srv, bind_addr, (int)port, 4096, &opt);
    if (rc < 0)
        srv = NULL;
    if (rc == 0)
        rc = add_contexts(srv, &a);
    if (rc == 0 && cert) {
        /* The HTTPS port is HttpArena's HTTP/1.1-over-TLS one (json-tls, static-tls): it
         * does not offer h2 (8443 does). */
        tachy_options o1 = opt;
        o1.http2 = 0;
        rc = tachy_tls_config_create(&cfg);
        if (rc == 0)
            rc = tachy_tls_config_load_pem_files(cfg, cert, key, NULL);
        /* TLS 1.2+ (the default minimum) with AEAD suites only; 1.3's are all AEAD. */
        if (rc == 0)
            rc = tachy_tls_config_set_ciphers(cfg, "ECDHE+AESGCM:ECDHE+CHACHA20", NULL);
        if (rc == 0)
            rc = tachy_https_server_create(&tls, bind_addr, (int)tls_port, 4096, &o1, cfg);
        if (rc < 0)
            tls = NULL;
        if (rc == 0)
            rc = add_contexts(tls, &a);
        if (rc == 0 && h2_port >= 0) { /* the same routes; ALPN chooses h2 (or http/1.1) */
            rc = tachy_https_server_create(&h2, bind_addr, (int)h2_port, 4096, &opt, cfg);
            if (rc < 0)
                h2 = NULL;
            if (rc == 0)
                rc = add_contexts(h2, &a);
        }
    }
    if (rc == 0 && h2c_port >= 0) {
        tachy_options o2 = opt;
        o2.http2 = TACHY_HTTP2_PRIOR | TACHY_HTTP2_ONLY;
        rc = tachy_server_create(&h2c, bind_addr, (int)h2c_port, 4096, &o2);
        if (rc < 0)
            h2c = NULL;
        if (rc == 0)
            rc = add_contexts(h2c, &a);
    }
    if (rc == 0)
        rc = tachy_server_start(srv);
    if (rc == 0 && tls)
        rc = tachy_server_start(tls);
    if (rc == 0 && h2)
        rc = tachy_server_start(h2);
    if (rc == 0 && h2c)
        rc = tachy_server_start(h2c);
    if (rc < 0) {
        fprintf(stderr, "tachy-arena: %s\n", tachy_strerror(rc));
        tachy_server_destroy(h2c);
        tachy_server_destroy(h2);
        tachy_server_destroy(tls);
        tachy_server_destroy(srv);
        tachy_tls_config_free(cfg);
        return 2;
    }
    char host[128];
    int bound;
    tachy_server_address(srv, host, sizeof host, &bound);
    printf("dataset: %zu items; static: %s/static\n", a.ds.n, data);
    printf("listening on http://%s:%d/\n", host, bound);
    if (tls) {
        tachy_server_address(tls, host, sizeof host, &bound);
        printf("listening on https://%s:%d/\n", host, bound);
    }
    if (h2) {
        tachy_server_address(h2, host, sizeof host, &bound);
        printf("listening on h2://%s:%d/\n", host, bound);
    }
    if (h2c) {
        tachy_server_address(h2c, host, sizeof host, &bound);
        printf("listening on h2c://%s:%d/\n", host, bound);
    }
    fflush(stdout);

    demo_wait_stop(&stop_set);
    /* Answer the waiting /delay requests first, so stop() finds no deferred exchange. */
    timers_stop();
    tachy_server_stop(srv, 0);
    if (tls)
        tachy_server_stop(tls, 0);
    if (h2)
        tachy_server_stop(h2, 0);
    if (h2c)
        tachy_server_stop(h2c, 0);
    tachy_server_destroy(h2c);
    tachy_server_destroy(h2);
    tachy_server_destroy(tls);
    tachy_server_destroy(srv);
    tachy_tls_config_free(cfg);
    fc_destroy(a.files);
    for (size_t i = 0; i < a.ds.n; i++)
        free(a.ds.items[i].json);
    free(a.ds.items);
    if (a.staticfd >= 0)
        close(a.staticfd);
    return 0;
}
