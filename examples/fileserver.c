/*
 * tachy-fileserver - a static file server, the C twin of the JDK's jwebserver
 * (com.sun.net.httpserver.SimpleFileServer).
 *
 *   tachy-fileserver [-d DIR] [-p PORT] [-b ADDR] [-o none|info|verbose]
 *
 * Observable behaviour follows jwebserver (checked against JDK 25's): only GET and HEAD
 * (anything else is 405 with "Allow: HEAD, GET"); a directory without a trailing slash is
 * redirected (301, query kept); a directory is answered with its index.html or index.htm,
 * else with an HTML listing; hidden (dot) files, symbolic links and any path with a "." or
 * ".." segment are 404 and are never listed; file types come from a built-in table of the
 * JDK's MIME types, application/octet-stream otherwise. Responses carry Last-modified, and
 * HEAD answers carry the Content-length GET would have.
 *
 * Deliberate differences from jwebserver: listing entries are sorted (jwebserver prints
 * them in directory order); an index.html that is a symbolic link is not followed
 * (jwebserver serves it, even when it points outside the root); a path containing %00 is
 * always 404 (jwebserver also answers 404 there); errors are printed on stderr, with
 * jwebserver's wording and exit codes (1 usage, 2 configuration).
 *
 * Paths are resolved with openat(O_NOFOLLOW) one segment at a time from a descriptor of the
 * root, so neither a symlink nor a ".." can leave the root, even if the tree changes while
 * a request is being served.
 *
 * Regular files go through an open-file cache (httparena/filecache.h): for 1 s after it was
 * last checked against the disk, a file is answered without a system call for it - files
 * up to 128 KiB from memory, larger ones by sendfile from a descriptor kept open - with its
 * Content-type, Last-modified and length computed once. After that the path is resolved again
 * by the rules above and the cached file is compared with what it names (device, inode, size,
 * mtime, ctime), so a changed, replaced or removed file is served as it is on disk within
 * 1 s. Directories (redirects, index files, listings) and 404s are never cached. The
 * cache is bounded (4096 entries, 64 MiB in memory, 64 descriptors; least recently used
 * first out).
 *
 * Startup prints jwebserver's lines plus "listening on http://ADDR:PORT/" for scripts.
 * SIGINT / SIGTERM stop the server (tachy_server_stop(srv, 0)) and exit with status 0.
 */
#include <tachy/tachy.h>

#include "common/demo.h"
#include "filecache.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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


enum output { OUT_NONE, OUT_INFO, OUT_VERBOSE };

/* Shared by every connection thread; read-only after startup. */
struct fileserver {
    int rootfd;          /* O_DIRECTORY descriptor of the served directory */
    char root[PATH_MAX]; /* its canonical absolute path (for messages only) */
    enum output output;
    struct fc_cache *files; /* regular files by decoded request path */
};

/* ---- small growable string ---------------------------------------------------------- */

struct sbuf {
    char *data;
    size_t len, cap;
    int failed; /* an allocation failed: contents are incomplete */
};

static void sb_reserve(struct sbuf *b, size_t n) {
    if (b->failed || b->cap - b->len > n)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->len <= n) {
        if (cap > SIZE_MAX / 2) {
            b->failed = 1;
            return;
        }
        cap *= 2;
    }
    char *p = realloc(b->data, cap);
    if (!p) {
        b->failed = 1;
        return;
    }
    b->data = p;
    b->cap = cap;
}

static void sb_add(struct sbuf *b, const char *s, size_t n) {
    sb_reserve(b, n);
    if (b->failed)
        return;
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

static void sb_str(struct sbuf *b, const char *s) {
    sb_add(b, s, strlen(s));
}

static void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(struct sbuf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = 1;
        return;
    }
    sb_reserve(b, (size_t)n);
    if (b->failed)
        return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

static void sb_free(struct sbuf *b) {
    free(b->data);
    memset(b, 0, sizeof *b);
}

/* ---- escaping ------------------------------------------------------------------------ */

/* HTML text escaping as jwebserver does it: & < > " ' and also '/'. n bytes of s. */
static void sb_html_n(struct sbuf *b, const char *s, size_t n) {
    for (const char *e = s + n; s < e; s++) {
        switch (*s) {
        case '&': sb_str(b, "&amp;"); break;
        case '<': sb_str(b, "&lt;"); break;
        case '>': sb_str(b, "&gt;"); break;
        case '"': sb_str(b, "&quot;"); break;
        case '\'': sb_str(b, "&#x27;"); break;
        case '/': sb_str(b, "&#x2F;"); break;
        default: sb_add(b, s, 1);
        }
    }
}

static void sb_html(struct sbuf *b, const char *s) {
    sb_html_n(b, s, strlen(s));
}

/* Characters java.net.URI leaves unquoted in a path segment (RFC 2396 pchar): unreserved
 * alphanumerics and marks, plus ; : @ & = + $ , . Everything else, including every byte
 * of a non-ASCII UTF-8 sequence, becomes %XX (upper-case hex). */
static int uri_path_char(unsigned char c) {
    return (c < 0x80 && isalnum(c)) || strchr("-_.!~*'();:@&=+$,", c) != NULL;
}

static void sb_urlencode(struct sbuf *b, const char *s) {
    static const char hex[] = "0123456789ABCDEF";
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (uri_path_char(c)) {
            sb_add(b, s, 1);
        } else {
            char e[3] = {'%', hex[c >> 4], hex[c & 15]};
            sb_add(b, e, 3);
        }
    }
}

/* ---- MIME types ---------------------------------------------------------------------- */

/* File name extension -> Content-type, the values jwebserver answers (JDK 25). */
static const struct mime {
    const char *ext, *type;
} mime_table[] = {
    {"aac", "audio/aac"},
    {"ai", "application/postscript"},
    {"aif", "audio/x-aiff"},
    {"aifc", "audio/x-aiff"},
    {"aiff", "audio/x-aiff"},
    {"au", "audio/basic"},
    {"avi", "application/x-troff-msvideo"},
    {"bmp", "image/bmp"},
    {"bz2", "application/bz2"},
    {"c", "text/plain"},
    {"cc", "text/plain"},
    {"css", "text/css"},
    {"csv", "text/csv"},
    {"doc", "application/msword"},
    {"docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"},
    {"dvi", "application/x-dvi"},
    {"eps", "application/postscript"},
    {"etx", "text/x-setext"},
    {"flac", "audio/flac"},
    {"gif", "image/gif"},
    {"gtar", "application/x-gtar"},
    {"gz", "application/gzip"},
    {"h", "text/plain"},
    {"htm", "text/html"},
    {"html", "text/html"},
    {"ief", "image/ief"},
    {"jar", "application/java-archive"},
    {"java", "text/plain"},
    {"jfif", "image/jpeg"},
    {"jpe", "image/jpeg"},
    {"jpeg", "image/jpeg"},
    {"jpg", "image/jpeg"},
    {"js", "text/javascript"},
    {"json", "application/json"},
    {"latex", "application/x-latex"},
    {"m4a", "audio/mp4"},
    {"man", "application/x-troff-man"},
    {"md", "text/markdown"},
    {"me", "application/x-troff-me"},
    {"mov", "video/quicktime"},
    {"movie", "video/x-sgi-movie"},
    {"mp3", "audio/mpeg"},
    {"mp4", "video/mp4"},
    {"mpeg", "video/mpeg"},
    {"mpg", "video/mpeg"},
    {"ms", "application/x-troff-ms"},
    {"odp", "application/vnd.oasis.opendocument.presentation"},
    {"ods", "application/vnd.oasis.opendocument.spreadsheet"},
    {"odt", "application/vnd.oasis.opendocument.text"},
    {"oga", "audio/ogg"},
    {"ogg", "audio/ogg"},
    {"ogv", "video/ogg"},
    {"opus", "audio/ogg"},
    {"pbm", "image/x-portable-bitmap"},
    {"pdf", "application/pdf"},
    {"pgm", "image/x-portable-graymap"},
    {"pl", "text/plain"},
    {"png", "image/png"},
    {"pnm", "image/x-portable-anymap"},
    {"ppm", "image/x-portable-pixmap"},
    {"ppt", "application/vnd.ms-powerpoint"},
    {"pptx", "application/vnd.openxmlformats-officedocument.presentationml.presentation"},
    {"ps", "application/postscript"},
    {"py", "text/plain"},
    {"qt", "video/quicktime"},
    {"rar", "application/vnd.rar"},
    {"rgb", "image/x-rgb"},
    {"roff", "application/x-troff"},
    {"rtf", "application/rtf"},
    {"sh", "application/x-shar"},
    {"snd", "audio/basic"},
    {"src", "application/x-wais-source"},
    {"svg", "image/svg+xml"},
    {"t", "application/x-troff"},
    {"tar", "application/x-tar"},
    {"tex", "application/x-tex"},
    {"tif", "image/tiff"},
    {"tiff", "image/tiff"},
    {"tr", "application/x-troff"},
    {"tsv", "text/tab-separated-values"},
    {"txt", "text/plain"},
    {"wasm", "application/wasm"},
    {"wav", "audio/x-wav"},
    {"webm", "video/webm"},
    {"webp", "image/webp"},
    {"wsrc", "application/x-wais-source"},
    {"xbm", "image/x-xbitmap"},
    {"xls", "application/vnd.ms-excel"},
    {"xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"},
    {"xml", "application/xml"},
    {"xpm", "image/x-xbitmap"},
    {"xwd", "image/x-xwindowdump"},
    {"zip", "application/zip"},
    {"7z", "application/x-7z-compressed"},
};

/* The Content-type for a file name: by its extension, case-insensitively. */
static const char *mime_type(const char *name) {
    const char *dot = strrchr(name, '.');
    if (dot && dot[1]) {
        for (size_t i = 0; i < sizeof mime_table / sizeof mime_table[0]; i++)
            if (strcasecmp(dot + 1, mime_table[i].ext) == 0)
                return mime_table[i].type;
    }
    return "application/octet-stream";
}

/* ---- dates --------------------------------------------------------------------------- */

static const char *const wday_names[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
static const char *const month_names[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                          "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

/* Last-modified as jwebserver writes it (Java's RFC_1123_DATE_TIME: the day of the month
 * is not zero-padded, "Fri, 3 Jan 2020 04:05:06 GMT"). Independent of the locale. */
static void http_date(time_t t, char *out, size_t cap) {
    struct tm tm;
    if (!gmtime_r(&t, &tm)) {
        snprintf(out, cap, "Thu, 1 Jan 1970 00:00:00 GMT");
        return;
    }
    snprintf(out, cap, "%s, %d %s %d %02d:%02d:%02d GMT", wday_names[tm.tm_wday], tm.tm_mday,
             month_names[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

/* Common log format timestamp: "30/Nov/2026:13:55:01 +0000", local time. */
static void log_date(char *out, size_t cap) {
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    long off = tm.tm_gmtoff / 60;
    char sign = off < 0 ? '-' : '+';
    if (off < 0)
        off = -off;
    snprintf(out, cap, "%02d/%s/%d:%02d:%02d:%02d %c%02ld%02ld", tm.tm_mday, month_names[tm.tm_mon],
             tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec, sign, off / 60, off % 60);
}

/* ---- path resolution ----------------------------------------------------------------- */

/* The outcome of resolving a request path below the root. */
struct target {
    int fd; /* open descriptor of the file or directory, or -1 */
    struct stat st;
    struct sbuf fspath; /* root + segments, for the verbose log */
};

/* 1 when the raw request-target's path part contains an encoded NUL ("%00"): the decoded
 * path the core hands out is a C string, so such a path would be silently cut there. */
static int raw_path_has_nul(const char *uri) {
    for (const char *p = uri; *p && *p != '?' && *p != '#'; p++)
        if (p[0] == '%' && p[1] == '0' && p[2] == '0')
            return 1;
    return 0;
}

/*
 * Resolves the decoded request path below the root, one segment at a time with
 * openat(O_NOFOLLOW), so nothing outside the root is reachable. Empty segments ("//",
 * a trailing '/') are skipped. Returns 0 with t->fd open on a regular file or directory,
 * or -1 (404) for: a "." or ".." segment, a hidden segment (leading '.'), a symbolic link
 * anywhere on the way, a missing or unreadable entry, or anything that is neither a
 * regular file nor a directory.
 */
static int resolve(const struct fileserver *fs, const char *path, struct target *t) {
    int cur = openat(fs->rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    sb_str(&t->fspath, fs->root);
    if (cur < 0)
        return -1;
    const char *p = path;
    for (;;) {
        while (*p == '/')
            p++;
        if (!*p)
            break;
        const char *end = strchr(p, '/');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        char name[NAME_MAX + 1];
        if (p[0] == '.' || n > NAME_MAX) /* ".", "..", and hidden names */
            goto notfound;
        memcpy(name, p, n);
        name[n] = '\0';
        /* O_NONBLOCK: opening a FIFO must not block the connection thread. */
        int fd = openat(cur, name, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0)
            goto notfound;
        close(cur);
        cur = fd;
        if (fstat(cur, &t->st) < 0 || !(S_ISREG(t->st.st_mode) || S_ISDIR(t->st.st_mode)))
            goto notfound;
        if (strcmp(t->fspath.data ? t->fspath.data : "", "/") != 0)
            sb_str(&t->fspath, "/");
        sb_str(&t->fspath, name);
        p += n;
        /* "/file.txt/" is served like jwebserver does; "/file.txt/x" is not. */
        if (*p == '/' && p[strspn(p, "/")] && !S_ISDIR(t->st.st_mode))
            goto notfound;
    }
    if (fstat(cur, &t->st) < 0)
        goto notfound;
    t->fd = cur;
    return 0;
notfound:
    close(cur);
    return -1;
}

/* ---- responses ----------------------------------------------------------------------- */

static void set_header(tachy_exchange *ex, const char *name, const char *value) {
    tachy_headers_set(tachy_exchange_response_headers(ex), name, value);
}

/* Sends a complete in-memory body. HEAD gets the Content-length GET would have had and no
 * body: the JDK's handler does exactly this (sendResponseHeaders(code, -1) after setting
 * the header itself). */
static void send_body(tachy_exchange *ex, int head, int code, const char *body, size_t len) {
    if (head) {
        char num[24];
        snprintf(num, sizeof num, "%zu", len);
        set_header(ex, "Content-length", num);
        tachy_exchange_send_response_headers(ex, code, -1);
        return;
    }
    /* len 0 would mean "chunked": an empty body is sent as "no body" instead. */
    if (tachy_exchange_send_response_headers(ex, code, len ? (int64_t)len : -1) == 0 && len)
        tachy_exchange_write(ex, body, len);
}

static void send_not_found(tachy_exchange *ex, int head, const char *path, size_t path_len) {
    struct sbuf b = {0};
    sb_str(&b, "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\"/>\n</head>\n<body>\n"
               "<h1>File not found</h1>\n<p>");
    sb_html_n(&b, path, path_len);
    sb_str(&b, "</p>\n</body>\n</html>\n");
    set_header(ex, "Content-Type", "text/html; charset=UTF-8");
    if (b.failed)
        tachy_exchange_send_response_headers(ex, 500, -1);
    else
        send_body(ex, head, 404, b.data, b.len);
    sb_free(&b);
}

/* The raw path of the request-target ("/a%20b" of "/a%20b?x" or "http://h/a%20b?x"):
 * jwebserver's redirect Location is built from it. */
static void raw_path(const char *uri, struct sbuf *out) {
    const char *p = uri;
    if (*p != '/') {
        const char *s = strstr(p, "://");
        p = s ? strchr(s + 3, '/') : NULL;
        if (!p)
            p = "/";
    }
    sb_add(out, p, strcspn(p, "?#"));
}

static int hex_digit(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (char)(c | 0x20);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Percent-decodes the raw path of uri into out, keeping NUL bytes (the 404 page of a path
 * with %00 shows it whole, as jwebserver's does). Invalid escapes stay literal. */
static void decode_raw_path(const char *uri, struct sbuf *out) {
    struct sbuf raw = {0};
    raw_path(uri, &raw);
    for (size_t i = 0; i < raw.len; i++) {
        int hi, lo;
        if (raw.data[i] == '%' && i + 2 < raw.len && (hi = hex_digit(raw.data[i + 1])) >= 0 &&
            (lo = hex_digit(raw.data[i + 2])) >= 0) {
            char c = (char)(hi << 4 | lo);
            sb_add(out, &c, 1);
            i += 2;
        } else {
            sb_add(out, raw.data + i, 1);
        }
    }
    if (raw.failed)
        out->failed = 1;
    sb_free(&raw);
}

static void send_redirect(tachy_exchange *ex) {
    struct sbuf loc = {0};
    const char *query = tachy_exchange_request_query(ex);
    raw_path(tachy_exchange_request_uri(ex), &loc);
    sb_str(&loc, "/");
    if (query) {
        sb_str(&loc, "?");
        sb_str(&loc, query);
    }
    if (loc.failed) {
        tachy_exchange_send_response_headers(ex, 500, -1);
    } else {
        set_header(ex, "Location", loc.data);
        tachy_exchange_send_response_headers(ex, 301, -1);
    }
    sb_free(&loc);
}

/* Streams an open regular file. */
static int send_file(tachy_exchange *ex, int head, int fd, const struct stat *st,
                     const char *name) {
    char date[64], num[24];
    http_date(st->st_mtime, date, sizeof date);
    set_header(ex, "Last-Modified", date);
    set_header(ex, "Content-Type", mime_type(name));
    int64_t size = (int64_t)st->st_size;
    if (head) {
        snprintf(num, sizeof num, "%lld", (long long)size);
        set_header(ex, "Content-length", num);
        tachy_exchange_send_response_headers(ex, 200, -1);
        return 200;
    }
    /* An empty file goes out as sendResponseHeaders(200, 0) - chunked - as in jwebserver. */
    if (tachy_exchange_send_response_headers(ex, 200, size) < 0 || size == 0)
        return 200;
    /* sendfile(2) on plain HTTP. A file that shrank meanwhile ends the response short and
     * the core closes the connection, as jwebserver's does. */
    tachy_exchange_send_file(ex, fd, 0, size);
    return 200;
}

/* Sends a cached regular file: the same response as send_file, from the cache entry's
 * precomputed fields and its memory or descriptor. With verbose output the response
 * headers go through the headers object, because the log prints them from there. */
static int send_cached(const struct fileserver *fs, tachy_exchange *ex, int head,
                       const struct fc_entry *e) {
    int64_t size = e->size;
    int rc;
    if (fs->output == OUT_VERBOSE) {
        set_header(ex, "Last-Modified", e->last_modified);
        set_header(ex, "Content-Type", e->type);
        if (head)
            set_header(ex, "Content-length", e->size_text);
        rc = tachy_exchange_send_response_headers(ex, 200, head ? -1 : size);
    } else {
        tachy_field f[3] = {
            {"Last-modified", 13, e->last_modified, strlen(e->last_modified)},
            {"Content-type", 12, e->type, strlen(e->type)},
            {"Content-length", 14, e->size_text, strlen(e->size_text)},
        };
        /* An empty file goes out chunked (length 0), as in send_file. */
        rc = tachy_exchange_send_response_fields(ex, 200, head ? -1 : size, f, head ? 3 : 2);
    }
    if (rc < 0 || head || size == 0)
        return 200;
    if (e->data)
        tachy_exchange_write(ex, e->data, (size_t)size);
    else
        tachy_exchange_send_file(ex, e->fd, 0, size);
    return 200;
}

/* Directory entry names collected for a listing (directories carry a trailing '/'). */
struct names {
    char **v;
    size_t n, cap;
};

static int names_add(struct names *ns, const char *name, int is_dir) {
    if (ns->n == ns->cap) {
        size_t cap = ns->cap ? ns->cap * 2 : 32;
        char **v = realloc(ns->v, cap * sizeof *v);
        if (!v)
            return -1;
        ns->v = v;
        ns->cap = cap;
    }
    size_t len = strlen(name);
    char *s = malloc(len + 2);
    if (!s)
        return -1;
    memcpy(s, name, len);
    s[len] = '/';
    s[len + is_dir] = '\0';
    ns->v[ns->n++] = s;
    return 0;
}

static void names_free(struct names *ns) {
    for (size_t i = 0; i < ns->n; i++)
        free(ns->v[i]);
    free(ns->v);
}

static int cmp_names(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Reads the visible entries of dirfd: no dot files, no symbolic links (as jwebserver). */
static int read_names(int dirfd, struct names *ns) {
    int dfd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!d) {
        if (dfd >= 0)
            close(dfd);
        return -1;
    }
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        struct stat est;
        if (e->d_name[0] == '.')
            continue;
        if (fstatat(dirfd, e->d_name, &est, AT_SYMLINK_NOFOLLOW) < 0 || S_ISLNK(est.st_mode))
            continue;
        rc = names_add(ns, e->d_name, S_ISDIR(est.st_mode));
    }
    closedir(d);
    if (rc == 0 && ns->n > 1)
        qsort(ns->v, ns->n, sizeof *ns->v, cmp_names);
    return rc;
}

/* The HTML listing of a directory, in jwebserver's markup. path is the decoded request
 * path (it ends with '/'). */
static void send_listing(tachy_exchange *ex, int head, int dirfd, const struct stat *st,
                         const char *path) {
    struct names ns = {0};
    struct sbuf b = {0};
    if (read_names(dirfd, &ns) < 0)
        b.failed = 1;
    sb_str(&b, "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\"/>\n</head>\n<body>\n"
               "<h1>Directory listing for ");
    sb_html(&b, path);
    sb_str(&b, "</h1>\n<ul>\n");
    for (size_t i = 0; i < ns.n; i++) {
        const char *name = ns.v[i];
        size_t len = strlen(name);
        int is_dir = name[len - 1] == '/';
        sb_str(&b, "<li><a href=\"");
        /* Encode the name without its '/' and then add the '/' literally. */
        ns.v[i][len - is_dir] = '\0';
        sb_urlencode(&b, name);
        if (is_dir) {
            ns.v[i][len - 1] = '/';
            sb_str(&b, "/");
        }
        sb_str(&b, "\">");
        sb_html(&b, name);
        sb_str(&b, "</a></li>\n");
    }
    sb_str(&b, "</ul>\n</body>\n</html>\n");
    if (b.failed) {
        tachy_exchange_send_response_headers(ex, 500, -1);
    } else {
        char date[64];
        http_date(st->st_mtime, date, sizeof date);
        set_header(ex, "Last-Modified", date);
        set_header(ex, "Content-Type", "text/html; charset=UTF-8");
        send_body(ex, head, 200, b.data, b.len);
    }
    sb_free(&b);
    names_free(&ns);
}

/* Opens dirfd/name if it is a regular file and not a symbolic link. */
static int open_index(int dirfd, const char *name, struct stat *st) {
    int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return -1;
    if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode)) {
        close(fd);
        return -1;
    }
    return fd;
}

/* ---- logging ------------------------------------------------------------------------- */

static void add_headers(struct sbuf *b, const char *prefix, const tachy_headers *h) {
    size_t cur = 0;
    const char *name, *value;
    while (tachy_headers_next(h, &cur, &name, &value))
        sb_printf(b, "%s %s: %s\n", prefix, name, value);
    sb_printf(b, "%s\n", prefix);
}

/* jwebserver's output: info is one common-log-format line per exchange; verbose adds the
 * resource and both header sets. One write per exchange so that lines of concurrent
 * exchanges never interleave. */
static void log_exchange(const struct fileserver *fs, tachy_exchange *ex, int code,
                         const char *resource) {
    if (fs->output == OUT_NONE)
        return;
    char host[128] = "-", when[64];
    struct sbuf b = {0};
    tachy_exchange_remote_address(ex, host, sizeof host, NULL);
    log_date(when, sizeof when);
    sb_printf(&b, "%s - - [%s] \"%s %s %s\" %d -\n", host, when, tachy_exchange_request_method(ex),
              tachy_exchange_request_uri(ex), tachy_exchange_protocol(ex), code);
    if (fs->output == OUT_VERBOSE) {
        sb_printf(&b, "Resource requested: %s\n",
                  resource ? resource : "could not resolve request URI path");
        add_headers(&b, ">", tachy_exchange_request_headers(ex));
        add_headers(&b, "<", tachy_exchange_response_headers(ex));
    }
    if (!b.failed) {
        flockfile(stdout);
        fwrite(b.data, 1, b.len, stdout);
        fflush(stdout);
        funlockfile(stdout);
    }
    sb_free(&b);
}

/* ---- the handler --------------------------------------------------------------------- */

static const char *last_segment(const char *fspath) {
    const char *s = strrchr(fspath, '/');
    return s ? s + 1 : fspath;
}

static int handle(tachy_exchange *ex, void *user) {
    const struct fileserver *fs = user;
    const char *method = tachy_exchange_request_method(ex);
    const char *path = tachy_exchange_request_path(ex);
    const char *uri = tachy_exchange_request_uri(ex);
    int head = strcmp(method, "HEAD") == 0;
    struct target t = {.fd = -1};
    const char *resource = NULL;
    struct fc_entry *cached = NULL;
    int code;

    if (!head && strcmp(method, "GET") != 0) {
        set_header(ex, "Allow", "HEAD, GET");
        tachy_exchange_send_response_headers(ex, 405, -1);
        code = 405;
    } else if (!path || !uri || raw_path_has_nul(uri)) {
        struct sbuf shown = {0};
        if (uri)
            decode_raw_path(uri, &shown);
        if (shown.failed || !shown.data)
            send_not_found(ex, head, "", 0);
        else
            send_not_found(ex, head, shown.data, shown.len);
        sb_free(&shown);
        code = 404;
    } else if ((cached = fc_lookup(fs->files, path, strlen(path))) != NULL) {
        resource = cached->aux;
        code = send_cached(fs, ex, head, cached);
    } else if (resolve(fs, path, &t) < 0) {
        send_not_found(ex, head, path, strlen(path));
        code = 404;
    } else if (S_ISDIR(t.st.st_mode)) {
        resource = t.fspath.data;
        size_t plen = strlen(path);
        if (plen == 0 || path[plen - 1] != '/') {
            send_redirect(ex);
            code = 301;
        } else {
            static const char *const index_names[] = {"index.html", "index.htm"};
            struct stat ist;
            int fd = -1;
            size_t i;
            for (i = 0; i < 2 && fd < 0; i++)
                fd = open_index(t.fd, index_names[i], &ist);
            if (fd >= 0) {
                code = send_file(ex, head, fd, &ist, index_names[i - 1]);
                close(fd);
            } else {
                send_listing(ex, head, t.fd, &t.st, path);
                code = 200;
            }
        }
    } else {
        resource = t.fspath.data;
        const char *name = last_segment(t.fspath.data);
        cached = fc_store(fs->files, path, strlen(path), t.fd, &t.st, mime_type(name), resource);
        if (cached)
            code = send_cached(fs, ex, head, cached);
        else
            code = send_file(ex, head, t.fd, &t.st, name);
    }
    tachy_exchange_close(ex);
    log_exchange(fs, ex,
                 tachy_exchange_response_code(ex) > 0 ? tachy_exchange_response_code(ex) : code,
                 resource);
    fc_release(cached);
    if (t.fd >= 0)
        close(t.fd);
    sb_free(&t.fspath);
    return 0;
}

/* ---- command line -------------------------------------------------------------------- */

static void usage(void) {
    printf("Usage: tachy-fileserver [-b bind address] [-p port] [-d directory]\n"
           "                        [-o none|info|verbose] [-h to show options]\n"
           "                        [-version to show version information]\n");
}

static void help(void) {
    usage();
    printf("Options:\n"
           "-b, --bind-address    - Address to bind to. Default: 127.0.0.1 (loopback).\n"
           "                        For all interfaces use \"-b 0.0.0.0\" or \"-b ::\".\n"
           "-d, --directory       - Directory to serve. Default: current directory.\n"
           "-o, --output          - Output format. none|info|verbose. Default: info.\n"
           "-p, --port            - Port to listen on. Default: 8000.\n"
           "-h, -?, --help        - Prints this help message and exits.\n"
           "-version, --version   - Prints version information and exits.\n"
           "To stop the server, press Ctrl + C.\n");
}

static void core_log(void *user, int level, const char *message) {
    const struct fileserver *fs = user;
    if (fs->output == OUT_VERBOSE || level >= TACHY_LOG_WARNING)
        fprintf(stderr, "tachy: %s\n", message);
}

static int is_opt(const char *arg, const char *s, const char *l) {
    return strcmp(arg, s) == 0 || strcmp(arg, l) == 0;
}

int main(int argc, char **argv) {
    static struct fileserver fs = {.rootfd = -1, .output = OUT_INFO};
    const char *dir = ".", *bind_addr = NULL, *port_arg = "8000";

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (is_opt(a, "-h", "--help") || strcmp(a, "-?") == 0) {
            help();
            return 0;
        }
        if (is_opt(a, "-version", "--version")) {
            printf("tachy-fileserver %s\n", tachy_version());
            return 0;
        }
        int known = is_opt(a, "-d", "--directory") || is_opt(a, "-p", "--port") ||
                    is_opt(a, "-b", "--bind-address") || is_opt(a, "-o", "--output");
        if (!known) {
            fprintf(stderr, "Error: unknown option: %s\n", a);
            usage();
            return 1;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "Error: no value given for %s\n", a);
            usage();
            return 1;
        }
        const char *v = argv[++i];
        if (is_opt(a, "-d", "--directory")) {
            dir = v;
        } else if (is_opt(a, "-p", "--port")) {
            port_arg = v;
        } else if (is_opt(a, "-b", "--bind-address")) {
            bind_addr = v;
        } else if (strcasecmp(v, "none") == 0) {
            fs.output = OUT_NONE;
        } else if (strcasecmp(v, "info") == 0) {
            fs.output = OUT_INFO;
        } else if (strcasecmp(v, "verbose") == 0) {
            fs.output = OUT_VERBOSE;
        } else {
            fprintf(stderr, "Error: invalid value given for %s: %s\n", a, v);
            return 1;
        }
    }

    char *end;
    errno = 0;
    long port = strtol(port_arg, &end, 10);
    if (errno || end == port_arg || *end) {
        fprintf(stderr, "Error: invalid value given for -p: %s\n", port_arg);
        return 1;
    }
    if (port < 0 || port > 65535) {
        fprintf(stderr, "Error: server config failed: port out of range:%ld\n", port);
        return 2;
    }

    struct stat st;
    if (stat(dir, &st) < 0) {
        fprintf(stderr, "Error: server config failed: Path does not exist: %s\n", dir);
        return 2;
    }
    if (!S_ISDIR(st.st_mode)) {
        fprintf(stderr, "Error: server config failed: Path is not a directory: %s\n", dir);
        return 2;
    }
    fs.rootfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fs.rootfd < 0 || !realpath(dir, fs.root)) {
        fprintf(stderr, "Error: server config failed: Path is not readable: %s\n", dir);
        return 2;
    }

    sigset_t stop_set;
    demo_block_stop_signals(&stop_set);

    struct fc_limits lim = {.max_entries = 4096,
                            .max_bytes = (size_t)64 << 20,
                            .max_fds = 64, /* of the default 1024: leave room for sockets */
                            .small_max = (size_t)128 << 10,
                            .ttl_ms = 1000};
    fs.files = fc_create(&lim, http_date);
    if (!fs.files) {
        fprintf(stderr, "Error: server config failed: out of memory\n");
        return 2;
    }

    tachy_options opt;
    tachy_options_init(&opt);
    opt.log = core_log;
    opt.log_user = &fs;

    tachy_server *srv = NULL;
    int rc = tachy_server_create(&srv, bind_addr ? bind_addr : "127.0.0.1", (int)port, 0, &opt);
    if (rc < 0)
        srv = NULL; /* never trust *out after a failure */
    if (rc == 0)
        rc = tachy_server_create_context(srv, "/", handle, &fs, NULL);
    if (rc == 0)
        rc = tachy_server_start(srv);
    char host[128];
    int bound_port = 0;
    if (rc == 0)
        rc = tachy_server_address(srv, host, sizeof host, &bound_port);
    if (rc < 0) {
        fprintf(stderr, "Error: server config failed: %s\n", tachy_strerror(rc));
        tachy_server_destroy(srv);
        fc_destroy(fs.files);
        close(fs.rootfd);
        return 2;
    }

    int v6 = strchr(host, ':') != NULL;
    int wildcard = strcmp(host, "0.0.0.0") == 0 || strcmp(host, "::") == 0;
    char shown[160], url_host[160];
    snprintf(shown, sizeof shown, v6 ? "[%s]" : "%s", host);
    if (wildcard)
        snprintf(url_host, sizeof url_host, "%s", v6 ? "[::1]" : "127.0.0.1");
    else
        snprintf(url_host, sizeof url_host, "%s", shown);
    if (!bind_addr)
        printf("Binding to loopback by default. For all interfaces use \"-b 0.0.0.0\" or "
               "\"-b ::\".\n");
    printf("Serving %s and subdirectories on %s%s port %d\n", fs.root, shown,
           wildcard ? " (all interfaces)" : "", bound_port);
    printf("URL http://%s:%d/\n", url_host, bound_port);
    printf("listening on http://%s:%d/\n", url_host, bound_port);
    fflush(stdout);

    demo_wait_stop(&stop_set);
    tachy_server_stop(srv, 0);
    tachy_server_destroy(srv);
    fc_destroy(fs.files);
    close(fs.rootfd);
    return 0;
}
