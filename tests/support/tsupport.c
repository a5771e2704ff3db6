/* tsupport.c - see tsupport.h. */
#include "tsupport.h"

#include <sys/mman.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

tachy_server *ts_server(const tachy_options *opt) {
    tachy_server *srv = NULL;
    int rc = tachy_server_create(&srv, "127.0.0.1", 0, 0, opt);
    if (rc < 0)
        fail_msg("tachy_server_create: %s", tachy_strerror(rc));
    return srv;
}

int ts_start(tachy_server *srv) {
    int rc = tachy_server_start(srv);
    if (rc < 0)
        fail_msg("tachy_server_start: %s", tachy_strerror(rc));
    return tachy_server_port(srv);
}

tachy_server *ts_serve(const tachy_options *opt, tachy_handler_fn handler, void *user,
                       int *port) {
    tachy_server *srv = ts_server(opt);
    assert_int_equal(tachy_server_create_context(srv, "/", handler, user, NULL), 0);
    *port = ts_start(srv);
    return srv;
}

void ts_stop(tachy_server *srv) {
    tachy_server_stop(srv, 0);
    tachy_server_destroy(srv);
}

/* Per-fd read-ahead buffers (tests use few descriptors). */
#define TS_MAXFD 4096
static struct {
    char *data;
    size_t len, cap;
} rb[TS_MAXFD];
/* Descriptor numbers are reused across client threads; the lock orders one thread's
 * reset of a slot before the next owner's use (and keeps ThreadSanitizer informed). */
static pthread_mutex_t rb_lock = PTHREAD_MUTEX_INITIALIZER;

int ts_connect(int port) { return ts_connect_timeout(port, 5); }

int ts_connect_timeout(int port, int seconds) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        fail_msg("socket: %s", strerror(errno));
    struct sockaddr_in sin;
    memset(&sin, 0, sizeof sin);
    sin.sin_family = AF_INET;
    sin.sin_port = htons((uint16_t)port);
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct timeval tv = {seconds, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(fd, (struct sockaddr *)&sin, sizeof sin) < 0)
        fail_msg("connect: %s", strerror(errno));
    pthread_mutex_lock(&rb_lock);
    if (fd < TS_MAXFD)
        rb[fd].len = 0;
    pthread_mutex_unlock(&rb_lock);
    return fd;
}

void ts_send(int fd, const void *s, ssize_t len) {
    size_t n = len < 0 ? strlen(s) : (size_t)len;
    const char *p = s;
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            fail_msg("send: %s", strerror(errno));
        }
        p += w;
        n -= (size_t)w;
    }
}

void ts_close(int fd) {
    pthread_mutex_lock(&rb_lock);
    if (fd >= 0 && fd < TS_MAXFD) {
        free(rb[fd].data);
        rb[fd].data = NULL;
        rb[fd].len = rb[fd].cap = 0;
    }
    close(fd);
    pthread_mutex_unlock(&rb_lock);
}

/* Reads more into fd's buffer. Returns bytes read, 0 on EOF, -1 on timeout/error. */
static ssize_t more(int fd) {
    if (rb[fd].cap - rb[fd].len < 65536) {
        size_t cap = rb[fd].cap ? rb[fd].cap * 2 : 131072;
        rb[fd].data = realloc(rb[fd].data, cap + 1);
        rb[fd].cap = cap;
    }
    ssize_t n;
    do
        n = recv(fd, rb[fd].data + rb[fd].len, rb[fd].cap - rb[fd].len, 0);
    while (n < 0 && errno == EINTR);
    if (n > 0)
        rb[fd].len += (size_t)n;
    return n;
}

static void drop(int fd, size_t n) {
    memmove(rb[fd].data, rb[fd].data + n, rb[fd].len - n);
    rb[fd].len -= n;
}

/* Finds "\r\n" + "\r\n" in the buffer; returns index past it or 0. */
static size_t head_end(int fd) {
    for (size_t i = 0; i + 3 < rb[fd].len; i++)
        if (memcmp(rb[fd].data + i, "\r\n\r\n", 4) == 0)
            return i + 4;
    return 0;
}

static int ensure(int fd, size_t n) {
    while (rb[fd].len < n)
        if (more(fd) <= 0)
            return -1;
    return 0;
}

const char *ts_header(const ts_response *r, const char *name, char *out, size_t cap) {
    size_t nl = strlen(name);
    const char *p = strstr(r->head, "\r\n");
    while (p && p[2] != '\r' && p[2] != '\0') {
        const char *line = p + 2;
        const char *eol = strstr(line, "\r\n");
        if (!eol)
            break;
        if ((size_t)(eol - line) > nl && strncasecmp(line, name, nl) == 0 && line[nl] == ':') {
            const char *v = line + nl + 1;
            while (*v == ' ')
                v++;
            size_t vl = (size_t)(eol - v);
            if (vl >= cap)
                vl = cap - 1;
            memcpy(out, v, vl);
            out[vl] = '\0';
            return out;
        }
        p = eol;
    }
    return NULL;
}

int ts_read_response(int fd, ts_response *r, int no_body) {
    memset(r, 0, sizeof *r);
    r->content_length = -1;
    size_t he;
    while ((he = head_end(fd)) == 0)
        if (more(fd) <= 0)
            return -1;
    r->head = malloc(he + 1);
    memcpy(r->head, rb[fd].data, he);
    r->head[he] = '\0';
    drop(fd, he);
    const char *eol = strstr(r->head, "\r\n");
    size_t sl = (size_t)(eol - r->head);
    if (sl >= sizeof r->status_line)
        sl = sizeof r->status_line - 1;
    memcpy(r->status_line, r->head, sl);
    r->status_line[sl] = '\0';
    r->status = atoi(r->head + 9);
    char v[64];
    if (ts_header(r, "Content-Length", v, sizeof v))
        r->content_length = strtoll(v, NULL, 10);
    if (ts_header(r, "Transfer-Encoding", v, sizeof v) && strcasecmp(v, "chunked") == 0)
        r->chunked = 1;
    r->body = malloc(1);
    r->body[0] = '\0';
    if (no_body || r->status / 100 == 1 || r->status == 204 || r->status == 304)
        return 0;
    if (r->chunked) {
        size_t cap = 0;
        for (;;) {
            size_t le;
            for (;;) {
                char *nl = rb[fd].len ? memchr(rb[fd].data, '\n', rb[fd].len) : NULL;
                if (nl) {
                    le = (size_t)(nl - rb[fd].data) + 1;
                    break;
                }
                if (more(fd) <= 0)
                    return -1;
            }
            size_t size = strtoul(rb[fd].data, NULL, 16);
            drop(fd, le);
            if (size == 0) {
                /* trailers until empty line */
                for (;;) {
                    if (ensure(fd, 2) < 0)
                        return -1;
                    char *nl;
                    while (!(nl = memchr(rb[fd].data, '\n', rb[fd].len)))
                        if (more(fd) <= 0)
                            return -1;
                    size_t l = (size_t)(nl - rb[fd].data) + 1;
                    int empty = l <= 2;
                    drop(fd, l);
                    if (empty)
                        return 0;
                }
            }
            if (ensure(fd, size + 2) < 0)
                return -1;
            if (r->body_len + size + 1 > cap) {
                cap = (r->body_len + size + 1) * 2;
                r->body = realloc(r->body, cap);
            }
            memcpy(r->body + r->body_len, rb[fd].data, size);
            r->body_len += size;
            r->body[r->body_len] = '\0';
            drop(fd, size + 2);
        }
    }
    if (r->content_length >= 0) {
        size_t n = (size_t)r->content_length;
        if (ensure(fd, n) < 0)
            return -1;
        r->body = realloc(r->body, n + 1);
        memcpy(r->body, rb[fd].data, n);
        r->body[n] = '\0';
        r->body_len = n;
        drop(fd, n);
        return 0;
    }
    /* No framing: body until EOF. */
    while (more(fd) > 0)
        ;
    r->body = realloc(r->body, rb[fd].len + 1);
    memcpy(r->body, rb[fd].data, rb[fd].len);
    r->body_len = rb[fd].len;
    r->body[r->body_len] = '\0';
    drop(fd, rb[fd].len);
    return 0;
}

void ts_roundtrip(int fd, const void *req, ssize_t len, ts_response *r, int no_body) {
    ts_send(fd, req, len);
    assert_int_equal(ts_read_response(fd, r, no_body), 0);
}

void ts_expect_body(int fd, const char *req, const char *body) {
    ts_response r;
    ts_roundtrip(fd, req, -1, &r, 0);
    assert_string_equal(r.body, body);
    ts_response_free(&r);
}

int ts_request(int port, const void *req, ssize_t len, ts_response *r, int no_body) {
    int fd = ts_connect(port);
    ts_roundtrip(fd, req, len, r, no_body);
    return fd;
}

int ts_status(int port, const char *req) {
    int fd = ts_connect(port);
    ts_send(fd, req, -1);
    ts_response r;
    int st = -1;
    if (ts_read_response(fd, &r, 0) == 0) {
        st = r.status;
        ts_response_free(&r);
    }
    ts_close(fd);
    return st;
}

void ts_expect_raw(int port, const char *req, const char *expected) {
    int fd = ts_connect(port);
    ts_send(fd, req, -1);
    size_t len;
    char *raw = ts_read_raw(fd, 1000, &len, NULL);
    assert_string_equal(raw, expected);
    free(raw);
    ts_close(fd);
}

void ts_response_free(ts_response *r) {
    free(r->head);
    free(r->body);
    memset(r, 0, sizeof *r);
}

char *ts_read_raw(int fd, int timeout_ms, size_t *len, int *eof) {
    int seen_eof = 0;
    for (;;) {
        struct pollfd p = {fd, POLLIN, 0};
        int pr = poll(&p, 1, timeout_ms);
        if (pr <= 0)
            break;
        if (rb[fd].cap == 0 || rb[fd].cap - rb[fd].len < 65536) {
            size_t cap = rb[fd].cap ? rb[fd].cap * 2 : 131072;
            rb[fd].data = realloc(rb[fd].data, cap + 1);
            rb[fd].cap = cap;
        }
        ssize_t n = recv(fd, rb[fd].data + rb[fd].len, rb[fd].cap - rb[fd].len, 0);
        if (n <= 0) {
            seen_eof = n == 0 || errno == ECONNRESET;
            break;
        }
        rb[fd].len += (size_t)n;
    }
    char *out = malloc(rb[fd].len + 1);
    if (rb[fd].len)
        memcpy(out, rb[fd].data, rb[fd].len);
    out[rb[fd].len] = '\0';
    if (len)
        *len = rb[fd].len;
    rb[fd].len = 0;
    if (eof)
        *eof = seen_eof;
    return out;
}

int ts_wait_eof(int fd, int timeout_ms) {
    int eof = 0;
    free(ts_read_raw(fd, timeout_ms, NULL, &eof));
    return eof;
}

void ts_expect_silent_close(int fd, int timeout_ms) {
    size_t len = 0;
    int eof = 0;
    free(ts_read_raw(fd, timeout_ms, &len, &eof));
    assert_int_equal(len, 0);
    assert_true(eof);
    ts_close(fd);
}

long ts_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void ts_sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

uint64_t ts_server_writes(tachy_server *srv) {
    tachy_stats st;
    tachy_server_stats(srv, &st);
    return st.writes;
}

int ts_recv_exact(int fd, void *p, size_t n) {
    char *c = p;
    while (n > 0) {
        ssize_t r = recv(fd, c, n, 0);
        if (r <= 0)
            return -1;
        c += r;
        n -= (size_t)r;
    }
    return 0;
}

int ts_read_head(int fd, char *buf, size_t cap) {
    size_t n = 0;
    while (n + 1 < cap) {
        if (recv(fd, buf + n, 1, 0) != 1)
            break;
        n++;
        if (n >= 4 && memcmp(buf + n - 4, "\r\n\r\n", 4) == 0)
            break;
    }
    buf[n] = '\0';
    int status = 0;
    sscanf(buf, "HTTP/1.%*d %d", &status);
    return status;
}

int ts_head_value(const char *head, const char *name, char *out, size_t cap) {
    size_t nlen = strlen(name);
    for (const char *p = strstr(head, "\r\n"); p && p[2]; p = strstr(p + 2, "\r\n")) {
        const char *line = p + 2;
        if (strncasecmp(line, name, nlen) == 0 && line[nlen] == ':') {
            const char *v = line + nlen + 1;
            while (*v == ' ')
                v++;
            const char *e = strstr(v, "\r\n");
            size_t len = e ? (size_t)(e - v) : strlen(v);
            if (len >= cap)
                len = cap - 1;
            memcpy(out, v, len);
            out[len] = '\0';
            return 1;
        }
    }
    return 0;
}

int ts_under_valgrind(void) {
    const char *p = getenv("LD_PRELOAD");
    return p && (strstr(p, "vgpreload") || strstr(p, "valgrind"));
}

int ts_body_handler(tachy_exchange *ex, void *user) {
    const char *body = user;
    size_t n = strlen(body);
    tachy_exchange_send_response_headers(ex, 200, (int64_t)n);
    tachy_exchange_write(ex, body, n);
    tachy_exchange_close(ex);
    return 0;
}

int ts_named_handler(tachy_exchange *ex, void *user) {
    char out[256];
    int n = snprintf(out, sizeof out, "%s:%s", (const char *)user, tachy_exchange_request_path(ex));
    tachy_exchange_send_response_headers(ex, 200, n);
    tachy_exchange_write(ex, out, (size_t)n);
    tachy_exchange_close(ex);
    return 0;
}

char *ts_get(int port, const char *path, int *status) {
    int fd = ts_connect(port);
    char req[512];
    snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: t\r\n\r\n", path);
    ts_send(fd, req, -1);
    ts_response r;
    char *body = NULL;
    if (ts_read_response(fd, &r, 0) == 0) {
        *status = r.status;
        body = strdup(r.body);
        ts_response_free(&r);
    } else {
        *status = -1;
    }
    ts_close(fd);
    return body;
}

long ts_proc_status(const char *field) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    size_t fl = strlen(field);
    long v = -1;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, field, fl) == 0 && line[fl] == ':' &&
            sscanf(line + fl + 1, "%ld", &v) == 1)
            break;
    if (f)
        fclose(f);
    return v;
}

int ts_thread_count(void) {
    return (int)ts_proc_status("Threads");
}

/* ---- guard pages ------------------------------------------------------------------------ */

static char *guard_map;  /* [PROT_NONE page][TS_GUARD_RW bytes][PROT_NONE page] */
static char *guard_lo;   /* first readable byte, right after the front guard */
static char *guard_hi;   /* first unreadable byte of the back guard */
static size_t guard_len; /* bytes mapped */

int ts_guard_setup(void **state) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    (void)state;
    guard_len = TS_GUARD_RW + 2 * page;
    guard_map = mmap(NULL, guard_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (guard_map == MAP_FAILED)
        return -1;
    if (mprotect(guard_map, page, PROT_NONE) != 0 ||
        mprotect(guard_map + page + TS_GUARD_RW, page, PROT_NONE) != 0)
        return -1;
    guard_lo = guard_map + page;
    guard_hi = guard_lo + TS_GUARD_RW;
    return 0;
}

int ts_guard_teardown(void **state) {
    (void)state;
    munmap(guard_map, guard_len);
    return 0;
}

char *ts_guard_at_end(const void *s, size_t n) {
    assert_true(n <= TS_GUARD_RW);
    memcpy(guard_hi - n, s, n);
    return guard_hi - n;
}

char *ts_guard_at_start(const void *s, size_t n) {
    assert_true(n <= TS_GUARD_RW);
    memcpy(guard_lo, s, n);
    return guard_lo;
}
