/*
 * test_fileserver.c - socket-level tests of examples/fileserver.c (tachy-fileserver), the
 * C twin of the JDK's jwebserver.
 *
 * Builds a temporary tree (plain files, a subdirectory, an index, hidden files, symbolic
 * links leading out of the root, names that need escaping, a 3 MiB file), starts the real
 * program on 127.0.0.1 port 0, reads the port from its "listening on" line and talks to
 * it with raw bytes. Expected results are what jwebserver (JDK 25) answers for the same
 * requests; tests/fileserver_vs_jwebserver.py compares the two side by side.
 *
 * The program is found through $TACHY_FILESERVER (set by ctest), else next to this test:
 * <build>/examples/tachy-fileserver.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* cmocka.h needs setjmp.h (and stdarg.h, stddef.h) included before it */
#include <setjmp.h>

#include <cmocka.h>

#include "tsupport.h"

#define BIG_SIZE (3 * 1024 * 1024)
#define IO_TIMEOUT_S 20

/* ---- fixture: the tree and the running program --------------------------------------- */

struct server {
    pid_t pid;
    int port;
    char out_path[PATH_MAX]; /* the program's stdout (startup lines and log) */
};

static char tmp_dir[64];  /* mkdtemp'ed, holds root/ and outside/ */
static char root_dir[96]; /* the served directory */
static struct server main_srv = {.pid = -1};

static void die(const char *what) {
    fprintf(stderr, "test_fileserver: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void put_file(const char *rel, const void *data, size_t len) {
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", tmp_dir, rel);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        die(p);
    const char *d = data;
    while (len > 0) {
        ssize_t n = write(fd, d, len);
        if (n <= 0)
            die("write");
        d += n;
        len -= (size_t)n;
    }
    close(fd);
}

static void put_text(const char *rel, const char *text) {
    put_file(rel, text, strlen(text));
}

static void put_dir(const char *rel) {
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", tmp_dir, rel);
    if (mkdir(p, 0755) < 0)
        die(p);
}

static void put_link(const char *target, const char *rel) {
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", tmp_dir, rel);
    if (symlink(target, p) < 0)
        die(p);
}

/* The 3 MiB file's content: not periodic at any power of two, so misplaced chunks show. */
static unsigned char big_byte(size_t i) {
    return (unsigned char)((i * 131u + i / 251u) % 253u);
}

static void make_tree(void) {
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/tachy-fs-test-XXXXXX");
    if (!mkdtemp(tmp_dir))
        die("mkdtemp");
    snprintf(root_dir, sizeof root_dir, "%s/root", tmp_dir);
    put_dir("root");
    put_dir("outside");
    put_text("outside/secret.txt", "TOPSECRET\n");
    put_text("root/hello.txt", "hello\n");
    put_text("root/page.html", "<p>page</p>\n");
    put_text("root/style.css", "p{}\n");
    put_text("root/data.json", "{}\n");
    put_text("root/IMG.PNG", "png\n");
    put_text("root/noext", "x");
    put_text("root/a b&<c>.txt", "escaped\n");
    put_text("root/pct%41.txt", "percent\n");
    put_text("root/q\"uote'.txt", "quote\n");
    put_text("root/\xc3\xbc.txt", "umlaut\n");
    put_text("root/.hidden", "TOPSECRET\n");
    put_dir("root/.hdir");
    put_text("root/.hdir/f", "TOPSECRET\n");
    put_dir("root/sub");
    put_text("root/sub/inner.txt", "inner\n");
    put_dir("root/withidx");
    put_text("root/withidx/index.html", "idx\n");
    put_text("root/withidx/other.txt", "other\n");
    put_dir("root/withhtm");
    put_text("root/withhtm/index.htm", "htm\n");
    put_dir("root/empty");
    put_link("../outside/secret.txt", "root/escape.txt");
    put_link("../outside", "root/escdir");
    put_link("hello.txt", "root/inside-link.txt");
    /* An index.html that leads out of the root must not be followed. */
    put_dir("root/linkidx");
    put_link("../../outside/secret.txt", "root/linkidx/index.html");
    unsigned char *big = malloc(BIG_SIZE);
    if (!big)
        die("malloc");
    for (size_t i = 0; i < BIG_SIZE; i++)
        big[i] = big_byte(i);
    put_file("root/big.bin", big, BIG_SIZE);
    free(big);
    /* A fixed mtime for the Last-modified checks: Fri, 3 Jan 2020 04:05:06 GMT. */
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/hello.txt", root_dir);
    struct timespec ts[2] = {{1578024306, 0}, {1578024306, 0}};
    if (utimensat(AT_FDCWD, p, ts, 0) < 0)
        die("utimensat");
}

static void remove_tree(void) {
    if (!tmp_dir[0])
        return;
    pid_t pid = fork();
    if (pid == 0) {
        execlp("rm", "rm", "-rf", tmp_dir, (char *)NULL);
        _exit(127);
    }
    if (pid > 0)
        waitpid(pid, NULL, 0);
}

static const char *program_path(void) {
    static char path[PATH_MAX];
    const char *env = getenv("TACHY_FILESERVER");
    if (env && *env)
        return env;
    /* <build>/tests/test_fileserver -> <build>/examples/tachy-fileserver */
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n <= 0)
        return "tachy-fileserver";
    path[n] = '\0';
    for (int up = 0; up < 2; up++) {
        char *slash = strrchr(path, '/');
        if (slash)
            *slash = '\0';
    }
    strncat(path, "/examples/tachy-fileserver", sizeof path - strlen(path) - 1);
    return path;
}

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0;
    char *s = malloc(cap);
    size_t n;
    while (s && (n = fread(s + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (cap - len < 2) {
            char *t = realloc(s, cap *= 2);
            if (!t) {
                free(s);
                s = NULL;
            }
            s = t;
        }
    }
    fclose(f);
    if (s)
        s[len] = '\0';
    return s;
}

/* Starts the program with args (NULL-terminated after argv[0]), stdout into a file. */
static pid_t spawn(const char *out_path, const char *const *args) {
    const char *argv[16];
    size_t n = 0;
    argv[n++] = program_path();
    for (; args && *args && n < 15; args++)
        argv[n++] = *args;
    argv[n] = NULL;
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
        if (fd < 0)
            _exit(126);
        dup2(fd, 1);
        close(fd);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    return pid;
}

/* Waits up to timeout_ms for pid to exit; returns its wait status or -1 on timeout. */
static int wait_exit(pid_t pid, int timeout_ms) {
    for (int waited = 0; waited <= timeout_ms; waited += 10) {
        int st;
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid)
            return st;
        if (r < 0)
            return -1;
        usleep(10 * 1000);
    }
    return -1;
}

/* Starts a server on 127.0.0.1:0 and waits for its "listening on" line. */
static int start_server(struct server *s, const char *output) {
    snprintf(s->out_path, sizeof s->out_path, "%s/stdout-%s-%d.txt", tmp_dir, output,
             (int)time(NULL) ^ rand());
    const char *args[] = {"-d", root_dir, "-p", "0", "-b", "127.0.0.1", "-o", output, NULL};
    s->pid = spawn(s->out_path, args);
    if (s->pid < 0)
        return -1;
    for (int waited = 0; waited < 10000; waited += 20) {
        char *out = slurp(s->out_path);
        const char *l = out ? strstr(out, "listening on http://127.0.0.1:") : NULL;
        if (l && strchr(l, '\n')) {
            s->port = atoi(l + strlen("listening on http://127.0.0.1:"));
            free(out);
            return s->port > 0 ? 0 : -1;
        }
        free(out);
        if (waitpid(s->pid, NULL, WNOHANG) == s->pid) {
            s->pid = -1;
            return -1;
        }
        usleep(20 * 1000);
    }
    return -1;
}

static void kill_server(struct server *s) {
    if (s->pid > 0) {
        kill(s->pid, SIGKILL);
        waitpid(s->pid, NULL, 0);
        s->pid = -1;
    }
}

static int group_setup(void **state) {
    (void)state;
    signal(SIGPIPE, SIG_IGN);
    srand((unsigned)getpid());
    make_tree();
    if (start_server(&main_srv, "info") < 0) {
        fprintf(stderr, "test_fileserver: cannot start %s\n", program_path());
        return -1;
    }
    return 0;
}

static int group_teardown(void **state) {
    (void)state;
    kill_server(&main_srv);
    remove_tree();
    return 0;
}

/* ---- a small HTTP/1.1 client over raw sockets ---------------------------------------- */

struct response {
    int status;
    char head[8192]; /* status line and header lines, NUL-terminated */
    char *body;      /* malloc'ed, NUL-terminated */
    size_t body_len;
};

/* Bytes received but not yet consumed, per connection (one at a time is enough here). */
struct conn {
    int fd;
    char buf[65536];
    size_t off, len;
};

/* Receives more bytes after compacting; returns recv's result. buf stays NUL-terminated. */
static int conn_fill(struct conn *c) {
    memmove(c->buf, c->buf + c->off, c->len - c->off);
    c->len -= c->off;
    c->off = 0;
    if (c->len >= sizeof c->buf - 1)
        return -1;
    ssize_t n = recv(c->fd, c->buf + c->len, sizeof c->buf - 1 - c->len, 0);
    if (n > 0)
        c->len += (size_t)n;
    c->buf[c->len] = '\0';
    return (int)n;
}

static void body_add(struct response *r, const char *p, size_t n) {
    char *b = realloc(r->body, r->body_len + n + 1);
    assert_non_null(b);
    memcpy(b + r->body_len, p, n);
    r->body = b;
    r->body_len += n;
    r->body[r->body_len] = '\0';
}

/* Reads one response; head_request: the body is empty whatever the headers say. */
static void read_response(struct conn *c, int head_request, struct response *r) {
    memset(r, 0, sizeof *r);
    r->body = calloc(1, 1);
    char *end;
    for (;;) {
        end = memmem(c->buf + c->off, c->len - c->off, "\r\n\r\n", 4);
        if (end)
            break;
        assert_true(conn_fill(c) > 0);
    }
    size_t hl = (size_t)(end + 4 - (c->buf + c->off));
    assert_true(hl < sizeof r->head);
    memcpy(r->head, c->buf + c->off, hl);
    r->head[hl] = '\0';
    c->off += hl;
    assert_int_equal(strncmp(r->head, "HTTP/1.1 ", 9), 0);
    r->status = atoi(r->head + 9);

    char v[64];
    if (head_request || r->status == 204 || r->status == 304 || r->status < 200)
        return;
    if (ts_head_value((r)->head, "Content-length", v, sizeof v)) {
        size_t want = strtoull(v, NULL, 10);
        while (r->body_len < want) {
            if (c->off == c->len)
                assert_true(conn_fill(c) > 0);
            size_t n = c->len - c->off;
            if (n > want - r->body_len)
                n = want - r->body_len;
            body_add(r, c->buf + c->off, n);
            c->off += n;
        }
    } else if (ts_head_value((r)->head, "Transfer-encoding", v, sizeof v)) {
        assert_string_equal(v, "chunked");
        for (;;) {
            while (!memmem(c->buf + c->off, c->len - c->off, "\r\n", 2))
                assert_true(conn_fill(c) > 0);
            size_t size = strtoul(c->buf + c->off, NULL, 16);
            c->off =
                (size_t)((char *)memmem(c->buf + c->off, c->len - c->off, "\r\n", 2) - c->buf) + 2;
            size_t got = 0;
            while (got < size + 2) { /* data + CRLF */
                if (c->off == c->len)
                    assert_true(conn_fill(c) > 0);
                size_t n = c->len - c->off;
                if (n > size + 2 - got)
                    n = size + 2 - got;
                size_t data = got < size ? (n < size - got ? n : size - got) : 0;
                body_add(r, c->buf + c->off, data);
                c->off += n;
                got += n;
            }
            if (size == 0)
                break;
        }
    } else {
        int n;
        while (c->off < c->len || (n = conn_fill(c)) > 0) {
            body_add(r, c->buf + c->off, c->len - c->off);
            c->off = c->len;
        }
    }
}

/* One request on a fresh connection: "METHOD target". */
static void request(const char *method, const char *target, struct response *r) {
    struct conn *c = calloc(1, sizeof *c);
    assert_non_null(c);
    c->fd = ts_connect_timeout(main_srv.port, IO_TIMEOUT_S);
    char req[4096];
    snprintf(req, sizeof req,
             "%s %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUser-Agent: test_fileserver\r\n\r\n", method,
             target, main_srv.port);
    ts_send(c->fd, req, -1);
    read_response(c, strcmp(method, "HEAD") == 0, r);
    close(c->fd);
    free(c);
}

static void response_free(struct response *r) {
    free(r->body);
    r->body = NULL;
}

static void assert_header(const struct response *r, const char *name, const char *want) {
    char v[1024];
    if (!ts_head_value((r)->head, name, v, sizeof v)) {
        fprintf(stderr, "missing %s in:\n%s", name, r->head);
        fail();
    }
    assert_string_equal(v, want);
}

static void assert_no_header(const struct response *r, const char *name) {
    char v[1024];
    assert_null(ts_head_value((r)->head, name, v, sizeof v));
}

/* Checks a fixed-length body's Content-length against what arrived. */
static void assert_length_matches(const struct response *r) {
    char v[64];
    assert_non_null(ts_head_value((r)->head, "Content-length", v, sizeof v));
    assert_int_equal(strtoull(v, NULL, 10), r->body_len);
}

static void expect_not_found(const char *target) {
    struct response r;
    request("GET", target, &r);
    if (r.status != 404)
        fprintf(stderr, "GET %s -> %d\n", target, r.status);
    assert_int_equal(r.status, 404);
    assert_header(&r, "Content-type", "text/html; charset=UTF-8");
    assert_length_matches(&r);
    assert_non_null(strstr(r.body, "<h1>File not found</h1>"));
    assert_null(strstr(r.body, "TOPSECRET"));
    response_free(&r);
}

/* A request the server may refuse as unparsable (400, the core) or as not found (404). */
static void expect_refused(const char *target) {
    struct response r;
    request("GET", target, &r);
    if (r.status != 404 && r.status != 400)
        fprintf(stderr, "GET %s -> %d\n", target, r.status);
    assert_true(r.status == 404 || r.status == 400);
    assert_null(strstr(r.body, "TOPSECRET"));
    response_free(&r);
}

static void expect_body(const char *target, int status, const char *type, const char *body) {
    struct response r;
    request("GET", target, &r);
    if (r.status != status)
        fprintf(stderr, "GET %s -> %d\n", target, r.status);
    assert_int_equal(r.status, status);
    assert_header(&r, "Content-type", type);
    assert_length_matches(&r);
    assert_string_equal(r.body, body);
    response_free(&r);
}

/* ---- tests ---------------------------------------------------------------------------- */

static void test_startup_lines(void **state) {
    (void)state;
    char *out = slurp(main_srv.out_path);
    char want[PATH_MAX + 128];
    assert_non_null(out);
    char real[PATH_MAX];
    assert_non_null(realpath(root_dir, real));
    snprintf(want, sizeof want, "Serving %s and subdirectories on 127.0.0.1 port %d\n", real,
             main_srv.port);
    assert_non_null(strstr(out, want));
    snprintf(want, sizeof want, "URL http://127.0.0.1:%d/\n", main_srv.port);
    assert_non_null(strstr(out, want));
    /* -b was given: no "Binding to loopback by default" hint. */
    assert_null(strstr(out, "Binding to loopback"));
    free(out);
}

static void test_listing(void **state) {
    (void)state;
    struct response r;
    request("GET", "/", &r);
    assert_int_equal(r.status, 200);
    assert_header(&r, "Content-type", "text/html; charset=UTF-8");
    assert_length_matches(&r);
    char v[128];
    assert_true(ts_head_value(r.head, "Last-modified", v, sizeof v));
    const char *b = r.body;
    assert_int_equal(strncmp(b,
                             "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\"/>\n"
                             "</head>\n<body>\n<h1>Directory listing for &#x2F;</h1>\n<ul>\n",
                             strlen("<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\"/>\n"
                                    "</head>\n<body>\n<h1>Directory listing for &#x2F;</h1>\n"
                                    "<ul>\n")),
                     0);
    assert_true(r.body_len > 22);
    assert_string_equal(b + r.body_len - 22, "</ul>\n</body>\n</html>\n");
    /* Directories with a trailing slash; names URL-encoded in href, HTML-escaped in text. */
    const char *sub = strstr(b, "<li><a href=\"sub/\">sub&#x2F;</a></li>\n");
    const char *amp =
        strstr(b, "<li><a href=\"a%20b&%3Cc%3E.txt\">a b&amp;&lt;c&gt;.txt</a></li>\n");
    const char *big = strstr(b, "<li><a href=\"big.bin\">big.bin</a></li>\n");
    const char *hello = strstr(b, "<li><a href=\"hello.txt\">hello.txt</a></li>\n");
    assert_non_null(sub);
    assert_non_null(amp);
    assert_non_null(big);
    assert_non_null(hello);
    assert_non_null(strstr(b, "<li><a href=\"pct%2541.txt\">pct%41.txt</a></li>\n"));
    assert_non_null(strstr(b, "<li><a href=\"q%22uote'.txt\">q&quot;uote&#x27;.txt</a></li>\n"));
    assert_non_null(strstr(b, "<li><a href=\"%C3%BC.txt\">\xc3\xbc.txt</a></li>\n"));
    assert_non_null(strstr(b, "<li><a href=\"empty/\">empty&#x2F;</a></li>\n"));
    /* Sorted. */
    assert_true(amp < big && big < hello && hello < sub);
    /* Hidden files and symbolic links are not listed. */
    assert_null(strstr(b, "hidden"));
    assert_null(strstr(b, ".hdir"));
    assert_null(strstr(b, "escape"));
    assert_null(strstr(b, "escdir"));
    assert_null(strstr(b, "inside-link"));
    response_free(&r);

    expect_body("/empty/", 200, "text/html; charset=UTF-8",
                "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\"/>\n</head>\n<body>\n"
                "<h1>Directory listing for &#x2F;empty&#x2F;</h1>\n<ul>\n</ul>\n</body>\n"
                "</html>\n");
    expect_body("/sub/", 200, "text/html; charset=UTF-8",
                "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\"/>\n</head>\n<body>\n"
                "<h1>Directory listing for &#x2F;sub&#x2F;</h1>\n<ul>\n"
                "<li><a href=\"inner.txt\">inner.txt</a></li>\n</ul>\n</body>\n</html>\n");
}

static void test_redirect(void **state) {
    (void)state;
    struct response r;
    request("GET", "/sub", &r);
    assert_int_equal(r.status, 301);
    assert_header(&r, "Location", "/sub/");
    assert_header(&r, "Content-length", "0");
    assert_int_equal(r.body_len, 0);
    response_free(&r);

    request("GET", "/sub?x=1&y=%20", &r);
    assert_int_equal(r.status, 301);
    assert_header(&r, "Location", "/sub/?x=1&y=%20");
    response_free(&r);

    request("GET", "/withidx", &r);
    assert_int_equal(r.status, 301);
    assert_header(&r, "Location", "/withidx/");
    response_free(&r);

    /* HEAD: jwebserver sends no Content-length on a HEAD redirect. */
    request("HEAD", "/sub", &r);
    assert_int_equal(r.status, 301);
    assert_header(&r, "Location", "/sub/");
    response_free(&r);
}

static void test_index(void **state) {
    (void)state;
    expect_body("/withidx/", 200, "text/html", "idx\n");
    expect_body("/withhtm/", 200, "text/html", "htm\n");
    expect_body("/withidx/other.txt", 200, "text/plain", "other\n");
    /* A symbolic-link index is ignored: the directory is listed instead. */
    struct response r;
    request("GET", "/linkidx/", &r);
    assert_int_equal(r.status, 200);
    assert_header(&r, "Content-type", "text/html; charset=UTF-8");
    assert_null(strstr(r.body, "TOPSECRET"));
    assert_null(strstr(r.body, "index.html"));
    response_free(&r);
}

static void test_mime(void **state) {
    (void)state;
    expect_body("/hello.txt", 200, "text/plain", "hello\n");
    expect_body("/page.html", 200, "text/html", "<p>page</p>\n");
    expect_body("/style.css", 200, "text/css", "p{}\n");
    expect_body("/data.json", 200, "application/json", "{}\n");
    expect_body("/IMG.PNG", 200, "image/png", "png\n");
    expect_body("/noext", 200, "application/octet-stream", "x");
    expect_body("/a%20b&%3Cc%3E.txt", 200, "text/plain", "escaped\n");
    expect_body("/pct%2541.txt", 200, "text/plain", "percent\n");
    expect_body("/%C3%BC.txt", 200, "text/plain", "umlaut\n");
    expect_body("/hello.txt?query=1", 200, "text/plain", "hello\n");
    /* A trailing slash after a file name is tolerated, as by jwebserver. */
    expect_body("/hello.txt/", 200, "text/plain", "hello\n");
}

static void test_last_modified(void **state) {
    (void)state;
    struct response r;
    request("GET", "/hello.txt", &r);
    assert_int_equal(r.status, 200);
    /* Java's RFC_1123_DATE_TIME: the day of the month is not zero-padded. */
    assert_header(&r, "Last-modified", "Fri, 3 Jan 2020 04:05:06 GMT");
    char v[128];
    assert_true(ts_head_value(r.head, "Date", v, sizeof v));
    response_free(&r);
}

static void test_not_found(void **state) {
    (void)state;
    struct response r;
    request("GET", "/nope", &r);
    assert_int_equal(r.status, 404);
    assert_string_equal(r.body, "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\"/>\n"
                                "</head>\n<body>\n<h1>File not found</h1>\n<p>&#x2F;nope</p>\n"
                                "</body>\n</html>\n");
    assert_length_matches(&r);
    response_free(&r);

    /* The decoded path is shown, HTML-escaped. */
    request("GET", "/a%3Cb%3E%22'&", &r);
    assert_int_equal(r.status, 404);
    assert_non_null(strstr(r.body, "<p>&#x2F;a&lt;b&gt;&quot;&#x27;&amp;</p>"));
    response_free(&r);

    expect_not_found("/.hidden");
    expect_not_found("/.hdir/f");
    expect_not_found("/.hdir/");
    expect_not_found("/sub/nope.txt");
    expect_not_found("/hello.txt/x");
    /* Symbolic links are refused, wherever they point (jwebserver: 404). */
    expect_not_found("/escape.txt");
    expect_not_found("/escdir/secret.txt");
    expect_not_found("/escdir/");
    expect_not_found("/inside-link.txt");
}

static void test_method_not_allowed(void **state) {
    (void)state;
    static const char *const methods[] = {"POST", "PUT", "DELETE", "OPTIONS", "PATCH", "TRACE"};
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++) {
        struct response r;
        request(methods[i], i % 2 ? "/nope" : "/hello.txt", &r);
        assert_int_equal(r.status, 405);
        assert_header(&r, "Allow", "HEAD, GET");
        assert_header(&r, "Content-length", "0");
        assert_int_equal(r.body_len, 0);
        response_free(&r);
    }
}

static void test_head(void **state) {
    (void)state;
    /* GET then HEAD then GET on one keep-alive connection: HEAD must carry no body, or
     * the third response would not parse. */
    struct conn *c = calloc(1, sizeof *c);
    assert_non_null(c);
    c->fd = ts_connect_timeout(main_srv.port, IO_TIMEOUT_S);
    struct response get, head, get2, dhead, nhead;
    ts_send(c->fd, "GET /hello.txt HTTP/1.1\r\nHost: x\r\n\r\n", -1);
    read_response(c, 0, &get);
    ts_send(c->fd, "HEAD /hello.txt HTTP/1.1\r\nHost: x\r\n\r\n", -1);
    read_response(c, 1, &head);
    ts_send(c->fd, "HEAD / HTTP/1.1\r\nHost: x\r\n\r\nHEAD /nope HTTP/1.1\r\nHost: x\r\n\r\n", -1);
    read_response(c, 1, &dhead);
    read_response(c, 1, &nhead);
    ts_send(c->fd, "GET /sub/inner.txt HTTP/1.1\r\nHost: x\r\n\r\n", -1);
    read_response(c, 0, &get2);

    assert_int_equal(head.status, 200);
    assert_header(&head, "Content-length", "6");
    assert_header(&head, "Content-type", "text/plain");
    assert_header(&head, "Last-modified", "Fri, 3 Jan 2020 04:05:06 GMT");
    assert_int_equal(dhead.status, 200);
    assert_header(&dhead, "Content-type", "text/html; charset=UTF-8");
    assert_int_equal(nhead.status, 404);
    char v[64];
    assert_true(ts_head_value(nhead.head, "Content-length", v, sizeof v));
    assert_true(atoi(v) > 100); /* the length the 404 page would have */
    assert_int_equal(get2.status, 200);
    assert_string_equal(get2.body, "inner\n");

    /* Nothing extra after the last response. */
    struct pollfd p = {c->fd, POLLIN, 0};
    assert_int_equal(c->off, c->len);
    assert_int_equal(poll(&p, 1, 200), 0);
    close(c->fd);
    free(c);
    response_free(&get);
    response_free(&head);
    response_free(&get2);
    response_free(&dhead);
    response_free(&nhead);
}

static void test_traversal(void **state) {
    (void)state;
    static const char *const attempts[] = {
        "/../outside/secret.txt",
        "/%2e%2e/outside/secret.txt",
        "/%2E%2E/outside/secret.txt",
        "/..%2foutside/secret.txt",
        "/..%2Foutside/secret.txt",
        "/sub/../../outside/secret.txt",
        "/sub/..%2f..%2foutside/secret.txt",
        "/sub/%2e%2e/%2e%2e/outside/secret.txt",
        "/%2e%2e%2foutside%2fsecret.txt",
        "/sub/../hello.txt", /* jwebserver refuses any ".." segment, even inside the root */
        "/./hello.txt",
        "/sub/.",
        "/sub/..",
    };
    for (size_t i = 0; i < sizeof attempts / sizeof attempts[0]; i++)
        expect_not_found(attempts[i]);
    /* NUL in the path: the core refuses the request line itself (400). */
    expect_refused("/hello.txt%00");
    expect_refused("/hello.txt%00.png");
    expect_refused("/%00");
    expect_refused("/..\\outside/secret.txt");
    expect_refused("/%2e%2e%5coutside%5csecret.txt");
    /* An encoded slash that stays inside the root is just a slash (as in jwebserver). */
    expect_body("/sub%2finner.txt", 200, "text/plain", "inner\n");
    expect_body("/sub//inner.txt", 200, "text/plain", "inner\n");
    /* "//sub/..." is a network-path reference to java.net.URI: "sub" is an authority and
     * the path is what follows, as with jwebserver (404 here). */
    expect_not_found("//sub//inner.txt");
}

static void test_large_file(void **state) {
    (void)state;
    struct response r;
    request("GET", "/big.bin", &r);
    assert_int_equal(r.status, 200);
    assert_header(&r, "Content-length", "3145728");
    assert_header(&r, "Content-type", "application/octet-stream");
    assert_no_header(&r, "Transfer-encoding");
    assert_int_equal(r.body_len, BIG_SIZE);
    size_t bad = 0;
    for (size_t i = 0; i < BIG_SIZE; i++) {
        if ((unsigned char)r.body[i] != big_byte(i)) {
            bad = i + 1;
            break;
        }
    }
    assert_int_equal(bad, 0);
    response_free(&r);

    request("HEAD", "/big.bin", &r);
    assert_int_equal(r.status, 200);
    assert_header(&r, "Content-length", "3145728");
    response_free(&r);
}

/* Several clients downloading the big file at once. */
static void test_concurrent_downloads(void **state) {
    (void)state;
    enum { N = 4 };
    struct conn *c[N];
    for (int i = 0; i < N; i++) {
        c[i] = calloc(1, sizeof *c[i]);
        assert_non_null(c[i]);
        c[i]->fd = ts_connect_timeout(main_srv.port, IO_TIMEOUT_S);
        ts_send(c[i]->fd, "GET /big.bin HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", -1);
    }
    for (int i = 0; i < N; i++) {
        struct response r;
        read_response(c[i], 0, &r);
        assert_int_equal(r.status, 200);
        assert_int_equal(r.body_len, BIG_SIZE);
        assert_int_equal((unsigned char)r.body[BIG_SIZE - 1], big_byte(BIG_SIZE - 1));
        assert_int_equal((unsigned char)r.body[BIG_SIZE / 2], big_byte(BIG_SIZE / 2));
        response_free(&r);
        close(c[i]->fd);
        free(c[i]);
    }
}

static void test_info_log(void **state) {
    (void)state;
    /* The log line is written after the response; give it a moment. */
    char *out = NULL;
    for (int i = 0; i < 100; i++) {
        free(out);
        out = slurp(main_srv.out_path);
        if (out && strstr(out, "\"GET /sub HTTP/1.1\" 301 -\n"))
            break;
        usleep(20 * 1000);
    }
    assert_non_null(out);
    const char *l = strstr(out, "127.0.0.1 - - [");
    assert_non_null(l);
    assert_non_null(strstr(out, "\"GET /hello.txt HTTP/1.1\" 200 -\n"));
    assert_non_null(strstr(out, "\"GET /sub HTTP/1.1\" 301 -\n"));
    assert_non_null(strstr(out, "\"GET /nope HTTP/1.1\" 404 -\n"));
    assert_non_null(strstr(out, "\"POST /hello.txt HTTP/1.1\" 405 -\n"));
    free(out);
}

/* SIGTERM -> tachy_server_stop(srv, 0) and exit status 0. Runs last on the main server. */
static void test_sigterm(void **state) {
    (void)state;
    assert_int_equal(kill(main_srv.pid, SIGTERM), 0);
    int st = wait_exit(main_srv.pid, 10000);
    assert_int_not_equal(st, -1);
    main_srv.pid = -1;
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
}

/* SIGINT while a client holds an idle keep-alive connection and another is in the middle
 * of the big download: stop(0) must still end the program promptly and cleanly. */
static void test_sigint_with_open_connections(void **state) {
    (void)state;
    struct server s = {.pid = -1};
    assert_int_equal(start_server(&s, "none"), 0);
    int idle = ts_connect_timeout(s.port, IO_TIMEOUT_S);
    ts_send(idle, "GET /hello.txt HTTP/1.1\r\nHost: x\r\n\r\n", -1);
    int busy = ts_connect_timeout(s.port, IO_TIMEOUT_S);
    int rcvbuf = 4096;
    setsockopt(busy, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    ts_send(busy, "GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n", -1);
    char tmp[4096];
    assert_true(recv(busy, tmp, sizeof tmp, 0) > 0); /* the download has started */
    assert_true(recv(idle, tmp, sizeof tmp, 0) > 0);
    assert_int_equal(kill(s.pid, SIGINT), 0);
    int st = wait_exit(s.pid, 10000);
    if (st == -1)
        kill_server(&s);
    assert_int_not_equal(st, -1);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    close(idle);
    close(busy);
}

static void test_command_line_errors(void **state) {
    (void)state;
    char out[PATH_MAX], missing[PATH_MAX];
    snprintf(out, sizeof out, "%s/cli.txt", tmp_dir);
    snprintf(missing, sizeof missing, "%s/does-not-exist", tmp_dir);
    const char *bad_dir[] = {"-d", missing, "-p", "0", NULL};
    assert_int_equal(WEXITSTATUS(wait_exit(spawn(out, bad_dir), 10000)), 2);
    char file[PATH_MAX];
    snprintf(file, sizeof file, "%s/hello.txt", root_dir);
    const char *not_dir[] = {"-d", file, "-p", "0", NULL};
    assert_int_equal(WEXITSTATUS(wait_exit(spawn(out, not_dir), 10000)), 2);
    const char *unknown[] = {"-x", NULL};
    assert_int_equal(WEXITSTATUS(wait_exit(spawn(out, unknown), 10000)), 1);
    const char *bad_port[] = {"-d", root_dir, "-p", "abc", NULL};
    assert_int_equal(WEXITSTATUS(wait_exit(spawn(out, bad_port), 10000)), 1);
    const char *bad_out[] = {"-d", root_dir, "-p", "0", "-o", "loud", NULL};
    assert_int_equal(WEXITSTATUS(wait_exit(spawn(out, bad_out), 10000)), 1);
    const char *help[] = {"-h", NULL};
    assert_int_equal(WEXITSTATUS(wait_exit(spawn(out, help), 10000)), 0);
    char *text = slurp(out);
    assert_non_null(text);
    assert_non_null(strstr(text, "Usage: "));
    free(text);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_startup_lines),
        cmocka_unit_test(test_listing),
        cmocka_unit_test(test_redirect),
        cmocka_unit_test(test_index),
        cmocka_unit_test(test_mime),
        cmocka_unit_test(test_last_modified),
        cmocka_unit_test(test_not_found),
        cmocka_unit_test(test_method_not_allowed),
        cmocka_unit_test(test_head),
        cmocka_unit_test(test_traversal),
        cmocka_unit_test(test_large_file),
        cmocka_unit_test(test_concurrent_downloads),
        cmocka_unit_test(test_info_log),
        cmocka_unit_test(test_sigterm),
        cmocka_unit_test(test_sigint_with_open_connections),
        cmocka_unit_test(test_command_line_errors),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
