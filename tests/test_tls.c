/*
 * test_tls.c - HTTPS end to end: a tachy server with a self-signed certificate made here
 * (OpenSSL API, EC P-256) on 127.0.0.1 port 0, and an OpenSSL client that verifies it and
 * talks HTTP/1.1 over it: keep-alive, pipelining (one server write for sixteen responses),
 * chunked and multi-MiB bodies both ways, the handshake timeout, plain HTTP to the TLS
 * port, clients vanishing mid-request, the HttpsExchange accessors, and a WebSocket echo
 * over TLS with a second thread sending on the same socket.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <tachy/tachy.h>
#include <tachy/ws.h>

#include "tsupport.h"

#define MIN(a, b) ((a) < (b) ? (a) : (b))

/* ---- key material ------------------------------------------------------------------------ */

static char *cert_pem, *key_pem, *other_key_pem;
static size_t cert_len, key_len, other_key_len;
static char cert_path[64] = "/tmp/tachy-tls-cert-XXXXXX";
static char key_path[64] = "/tmp/tachy-tls-key-XXXXXX";
static X509 *cert;

static char *to_pem(int is_key, void *obj, size_t *len) {
    BIO *b = BIO_new(BIO_s_mem());
    assert_non_null(b);
    if (is_key)
        assert_int_equal(PEM_write_bio_PrivateKey(b, obj, NULL, NULL, 0, NULL, NULL), 1);
    else
        assert_int_equal(PEM_write_bio_X509(b, obj), 1);
    char *data;
    long n = BIO_get_mem_data(b, &data);
    char *out = malloc((size_t)n + 1);
    memcpy(out, data, (size_t)n);
    out[n] = '\0';
    *len = (size_t)n;
    BIO_free(b);
    return out;
}

static void write_file(char *tmpl, const char *data, size_t len) {
    int fd = mkstemp(tmpl);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, data, len), (ssize_t)len);
    close(fd);
}

/* A self-signed certificate for localhost / 127.0.0.1. */
static void make_key_material(void) {
    EVP_PKEY *k = EVP_EC_gen("P-256");
    EVP_PKEY *other = EVP_EC_gen("P-256");
    assert_non_null(k);
    assert_non_null(other);
    X509 *x = X509_new();
    X509_set_version(x, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
    X509_gmtime_adj(X509_getm_notBefore(x), -3600);
    X509_gmtime_adj(X509_getm_notAfter(x), 86400);
    X509_set_pubkey(x, k);
    X509_NAME *name = X509_get_subject_name(x);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)"localhost", -1,
                               -1, 0);
    X509_set_issuer_name(x, name);
    X509V3_CTX v3;
    X509V3_set_ctx_nodb(&v3);
    X509V3_set_ctx(&v3, x, x, NULL, NULL, 0);
    X509_EXTENSION *san =
        X509V3_EXT_conf_nid(NULL, &v3, NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1");
    assert_non_null(san);
    X509_add_ext(x, san, -1);
    X509_EXTENSION_free(san);
    assert_true(X509_sign(x, k, EVP_sha256()) > 0);
    cert_pem = to_pem(0, x, &cert_len);
    key_pem = to_pem(1, k, &key_len);
    other_key_pem = to_pem(1, other, &other_key_len);
    write_file(cert_path, cert_pem, cert_len);
    write_file(key_path, key_pem, key_len);
    cert = x;
    EVP_PKEY_free(k);
    EVP_PKEY_free(other);
}

/* ---- server -------------------------------------------------------------------------------- */

static tachy_server *srv;
static int port;
static tachy_tls_config *cfg;

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static int tls_log_lines;

static void on_log(void *user, int level, const char *msg) {
    (void)user;
    (void)level;
    pthread_mutex_lock(&log_lock);
    if (strncmp(msg, "TLS ", 4) == 0)
        tls_log_lines++;
    pthread_mutex_unlock(&log_lock);
}

static int log_count(void) {
    pthread_mutex_lock(&log_lock);
    int n = tls_log_lines;
    pthread_mutex_unlock(&log_lock);
    return n;
}

static int reply(tachy_exchange *ex, int code, const char *body) {
    size_t n = strlen(body);
    tachy_exchange_send_response_headers(ex, code, n ? (int64_t)n : -1);
    if (n)
        tachy_exchange_write(ex, body, n);
    return tachy_exchange_close(ex);
}

static int info(tachy_exchange *ex, void *user) {
    (void)user;
    char body[512];
    const char *sni = tachy_exchange_tls_server_name(ex);
    const char *alpn = tachy_exchange_tls_alpn(ex);
    snprintf(body, sizeof body, "secure=%d proto=%s cipher=%s sni=%s alpn=%s path=%s",
             tachy_exchange_is_secure(ex), tachy_exchange_tls_protocol(ex),
             tachy_exchange_tls_cipher_suite(ex), sni ? sni : "-", alpn ? alpn : "-",
             tachy_exchange_request_path(ex));
    return reply(ex, 200, body);
}

/* Echo: fixed length in -> fixed out, chunked in -> chunked out (each read one chunk). */
static int echo(tachy_exchange *ex, void *user) {
    (void)user;
    int64_t len = tachy_exchange_request_content_length(ex);
    int rc = tachy_exchange_send_response_headers(ex, 200, len > 0 ? len : len == 0 ? -1 : 0);
    char buf[8192];
    ssize_t n = 0;
    while (rc == 0 && (n = tachy_exchange_read(ex, buf, sizeof buf)) > 0)
        if (tachy_exchange_write(ex, buf, (size_t)n) < 0)
            rc = -1;
    tachy_exchange_close(ex);
    return rc < 0 || n < 0 ? -1 : 0;
}

static unsigned char pattern(size_t i) { return (unsigned char)(i * 7 + (i >> 10)); }

/* GET /big?N: N pattern bytes, fixed length; /bigchunked?N the same chunked. */
static int big(tachy_exchange *ex, void *user) {
    int chunked = user != NULL;
    const char *q = tachy_exchange_request_query(ex);
    size_t total = q ? strtoul(q, NULL, 10) : 0;
    tachy_exchange_send_response_headers(ex, 200, chunked ? 0 : (int64_t)total);
    unsigned char buf[65536];
    for (size_t off = 0; off < total;) {
        size_t n = MIN(sizeof buf - (off % 5000), total - off);
        for (size_t i = 0; i < n; i++)
            buf[i] = pattern(off + i);
        if (tachy_exchange_write(ex, buf, n) < 0)
            return -1; /* the client went away */
        off += n;
    }
    return tachy_exchange_close(ex);
}

/* GET /file?N: N pattern bytes written to a temporary file, then answered with
 * tachy_exchange_send_file (no sendfile on TLS: tachy reads and encrypts). */
static int file_big(tachy_exchange *ex, void *user) {
    (void)user;
    const char *q = tachy_exchange_request_query(ex);
    size_t total = q ? strtoul(q, NULL, 10) : 0;
    char path[] = "/tmp/tachy-tls-file-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    unlink(path);
    unsigned char buf[4096];
    for (size_t off = 0; off < total;) {
        size_t n = MIN(sizeof buf, total - off);
        for (size_t i = 0; i < n; i++)
            buf[i] = pattern(off + i);
        if (write(fd, buf, n) != (ssize_t)n) {
            close(fd);
            return -1;
        }
        off += n;
    }
    tachy_exchange_send_response_headers(ex, 200, (int64_t)total);
    int rc = tachy_exchange_send_file(ex, fd, 0, (int64_t)total);
    close(fd);
    tachy_exchange_close(ex);
    return rc;
}

/* POST /sum: reads the whole body, answers "len=N sum=S". */
static atomic_int sum_errors;
static int sum(tachy_exchange *ex, void *user) {
    (void)user;
    unsigned char buf[32768];
    size_t len = 0;
    unsigned long s = 0;
    ssize_t n;
    while ((n = tachy_exchange_read(ex, buf, sizeof buf)) > 0) {
        for (ssize_t i = 0; i < n; i++)
            s = s * 31 + buf[i];
        len += (size_t)n;
    }
    if (n < 0) {
        atomic_fetch_add(&sum_errors, 1);
        return (int)n; /* truncated: the connection closes */
    }
    char body[64];
    snprintf(body, sizeof body, "len=%zu sum=%lu", len, s);
    return reply(ex, 200, body);
}

/* WebSocket echo; /wshold also keeps the handle for sends from the test's thread. */
static pthread_mutex_t held_lock = PTHREAD_MUTEX_INITIALIZER;
static tachy_ws *held;

static void ws_message(tachy_ws *ws, int type, const void *data, size_t len, int last,
                       void *user) {
    (void)last;
    (void)user;
    if (type == TACHY_WS_TEXT)
        tachy_ws_send_text(ws, data, len);
    else
        tachy_ws_send_binary(ws, data, len);
}

static void ws_hold(tachy_ws *ws, void *user) {
    (void)user;
    tachy_ws_retain(ws);
    pthread_mutex_lock(&held_lock);
    held = ws;
    pthread_mutex_unlock(&held_lock);
}

static int ws_handler(tachy_exchange *ex, void *user) {
    tachy_ws_options opt;
    tachy_ws_options_init(&opt);
    opt.cb.on_message = ws_message;
    if (user)
        opt.cb.on_open = ws_hold;
    int rc = tachy_ws_serve(ex, &opt);
    return rc == TACHY_EPROTO ? 0 : rc;
}

static tachy_server *start_https(tachy_tls_config *c, const tachy_options *opt, int *out_port) {
    tachy_options o;
    if (opt)
        o = *opt;
    else
        tachy_options_init(&o);
    o.log = on_log;
    tachy_server *s = NULL;
    int rc = tachy_https_server_create(&s, "127.0.0.1", 0, 0, &o, c);
    if (rc < 0)
        fail_msg("tachy_https_server_create: %s", tachy_strerror(rc));
    tachy_server_create_context(s, "/", info, NULL, NULL);
    tachy_server_create_context(s, "/echo", echo, NULL, NULL);
    tachy_server_create_context(s, "/big", big, NULL, NULL);
    tachy_server_create_context(s, "/bigchunked", big, (void *)1, NULL);
    tachy_server_create_context(s, "/sum", sum, NULL, NULL);
    tachy_server_create_context(s, "/file", file_big, NULL, NULL);
    tachy_server_create_context(s, "/ws", ws_handler, NULL, NULL);
    tachy_server_create_context(s, "/wshold", ws_handler, (void *)1, NULL);
    *out_port = ts_start(s);
    return s;
}

/* An HTTPS server on the test certificate whose handshake cap is cap (the cap tests). */
static tachy_server *start_https_capped(int cap, int *out_port) {
    tachy_tls_config *c;
    assert_int_equal(tachy_tls_config_create(&c), 0);
    assert_int_equal(tachy_tls_config_load_pem(c, cert_pem, cert_len, key_pem, key_len, NULL), 0);
    assert_int_equal(tachy_tls_config_set_max_handshakes(c, cap), 0);
    tachy_server *s = start_https(c, NULL, out_port);
    tachy_tls_config_free(c);
    return s;
}

/* ---- client --------------------------------------------------------------------------------- */

static SSL_CTX *cctx;

typedef struct tc {
    int fd;
    SSL *ssl;
    char *buf;
    size_t len, cap;
} tc;

/* Connects and handshakes (verifying the server's certificate and host name); max_version
 * 0 = any; alpn in wire format or NULL. Returns NULL if the handshake fails. */
static tc *tc_open_ex(int p, int max_version, const char *alpn) {
    tc *c = calloc(1, sizeof *c);
    c->fd = ts_connect(p);
    c->ssl = SSL_new(cctx);
    SSL_set_fd(c->ssl, c->fd);
    SSL_set_tlsext_host_name(c->ssl, "localhost");
    SSL_set1_host(c->ssl, "localhost");
    if (max_version)
        SSL_set_max_proto_version(c->ssl, max_version);
    if (alpn)
        SSL_set_alpn_protos(c->ssl, (const unsigned char *)alpn, (unsigned)strlen(alpn));
    if (SSL_connect(c->ssl) != 1) {
        ERR_clear_error();
        SSL_free(c->ssl);
        close(c->fd);
        free(c);
        return NULL;
    }
    return c;
}

static tc *tc_open(int p) {
    tc *c = tc_open_ex(p, 0, NULL);
    assert_non_null(c);
    return c;
}

static void tc_send(tc *c, const void *data, size_t len) {
    size_t n = 0;
    if (len == 0)
        return;
    assert_int_equal(SSL_write_ex(c->ssl, data, len, &n), 1);
    assert_int_equal(n, len);
}

static void tc_sends(tc *c, const char *s) { tc_send(c, s, strlen(s)); }

/* Reads more into the buffer: > 0, or 0 at EOF/error/timeout. */
static int tc_fill(tc *c) {
    if (c->cap - c->len < 65536) {
        c->cap = c->cap ? c->cap * 2 : 131072;
        c->buf = realloc(c->buf, c->cap + 1);
    }
    size_t n = 0;
    if (SSL_read_ex(c->ssl, c->buf + c->len, c->cap - c->len, &n) != 1) {
        ERR_clear_error();
        return 0;
    }
    c->len += n;
    return 1;
}

static int tc_need(tc *c, size_t n) {
    while (c->len < n)
        if (!tc_fill(c))
            return 0;
    return 1;
}

static void tc_drop(tc *c, size_t n) {
    memmove(c->buf, c->buf + n, c->len - n);
    c->len -= n;
}

static void tc_close(tc *c) {
    SSL_free(c->ssl);
    close(c->fd);
    free(c->buf);
    free(c);
}

typedef struct resp {
    int status;
    int chunked;
    char *body;
    size_t body_len;
} resp;

/* Reads one response (Content-Length or chunked). 0, or -1 on EOF before its end. */
static int tc_response(tc *c, resp *r) {
    memset(r, 0, sizeof *r);
    char *end;
    for (;;) {
        if (c->buf) {
            c->buf[c->len] = '\0';
            if ((end = strstr(c->buf, "\r\n\r\n")))
                break;
        }
        if (!tc_fill(c))
            return -1;
    }
    size_t head = (size_t)(end - c->buf) + 4;
    r->status = atoi(c->buf + 9);
    long clen = -1;
    for (char *l = strstr(c->buf, "\r\n"); l && l < end; l = strstr(l + 2, "\r\n")) {
        if (strncasecmp(l + 2, "Content-length:", 15) == 0)
            clen = strtol(l + 17, NULL, 10);
        if (strncasecmp(l + 2, "Transfer-encoding: chunked", 26) == 0)
            r->chunked = 1;
    }
    tc_drop(c, head);
    size_t cap = 1024, n = 0;
    r->body = malloc(cap);
    if (!r->chunked) {
        size_t want = clen > 0 ? (size_t)clen : 0;
        if (!tc_need(c, want))
            return -1;
        r->body = realloc(r->body, want + 1);
        memcpy(r->body, c->buf, want);
        r->body[want] = '\0';
        r->body_len = want;
        tc_drop(c, want);
        return 0;
    }
    for (;;) {
        char *crlf;
        for (;;) {
            c->buf[c->len] = '\0';
            if ((crlf = strstr(c->buf, "\r\n")))
                break;
            if (!tc_fill(c))
                return -1;
        }
        size_t size = strtoul(c->buf, NULL, 16);
        tc_drop(c, (size_t)(crlf - c->buf) + 2);
        if (!tc_need(c, size + 2))
            return -1;
        if (n + size + 1 > cap) {
            cap = (n + size + 1) * 2;
            r->body = realloc(r->body, cap);
        }
        memcpy(r->body + n, c->buf, size);
        n += size;
        tc_drop(c, size + 2);
        if (size == 0)
            break;
    }
    r->body[n] = '\0';
    r->body_len = n;
    return 0;
}

static void resp_free(resp *r) { free(r->body); }

/* The body is the pattern /big and /file serve, byte for byte. */
static void check_pattern(const resp *r) {
    for (size_t i = 0; i < r->body_len; i++)
        if ((unsigned char)r->body[i] != pattern(i))
            fail_msg("byte %zu differs", i);
}


/* GET path on c and checks status 200; returns the body (caller frees). */
static char *tc_get(tc *c, const char *path) {
    char req[256];
    snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: localhost\r\n\r\n", path);
    tc_sends(c, req);
    resp r;
    assert_int_equal(tc_response(c, &r), 0);
    assert_int_equal(r.status, 200);
    return r.body;
}

/* 1 once the server has no connection left (within ms). */
/* How long the server may take to notice that clients went away. Normally milliseconds;
 * generous because the sanitizer builds run beside other suites on a 2-core machine. */
#define CLOSE_WAIT_MS 15000

static int wait_no_connections(tachy_server *s, long ms) {
    long end = ts_now_ms() + ms;
    while (ts_now_ms() < end) {
        if (tachy_server_connection_count(s) == 0)
            return 1;
        ts_sleep_ms(10);
    }
    return tachy_server_connection_count(s) == 0;
}

static int setup(void **state) {
    (void)state;
    make_key_material();
    assert_int_equal(tachy_tls_config_create(&cfg), 0);
    assert_int_equal(tachy_tls_config_load_pem(cfg, cert_pem, cert_len, key_pem, key_len, NULL), 0);
    srv = start_https(cfg, NULL, &port);
    cctx = SSL_CTX_new(TLS_client_method());
    X509_STORE_add_cert(SSL_CTX_get_cert_store(cctx), cert);
    SSL_CTX_set_verify(cctx, SSL_VERIFY_PEER, NULL);
    return 0;
}

static void free_client_material(void);

static int teardown(void **state) {
    (void)state;
    ts_stop(srv);
    tachy_tls_config_free(cfg);
    SSL_CTX_free(cctx);
    X509_free(cert);
    unlink(cert_path);
    unlink(key_path);
    free(cert_pem);
    free(key_pem);
    free(other_key_pem);
    free_client_material();
    return 0;
}

/* ---- tests ----------------------------------------------------------------------------------- */

/* "remote=<host>:<port> peer=<host>:<port>" (the PROXY protocol test). */
static int remote(tachy_exchange *ex, void *user) {
    (void)user;
    char r[64], p[64], body[160];
    int rp = 0, pp = 0;
    if (tachy_exchange_remote_address(ex, r, sizeof r, &rp) < 0 ||
        tachy_exchange_peer_address(ex, p, sizeof p, &pp) < 0)
        return -1;
    snprintf(body, sizeof body, "remote=%s:%d peer=%s:%d", r, rp, p, pp);
    return reply(ex, 200, body);
}

/* A balancer in TCP mode in front of tachy's TLS (HAProxy's "mode tcp" + send-proxy-v2):
 * the PROXY header comes before the ClientHello - here split over two segments - and the
 * client's address is the header's. Without a header the handshake never starts. */
static void proxy_protocol_before_tls(void **state) {
    (void)state;
    tachy_options o;
    tachy_options_init(&o);
    o.proxy_protocol = 1;
    o.proxy_trusted = "127.0.0.0/8";
    int p;
    tachy_server *s = start_https(cfg, &o, &p);
    tachy_server_create_context(s, "/remote", remote, NULL, NULL);
    static const unsigned char hdr[28] = {
        '\r', '\n', '\r', '\n', 0, '\r', '\n', 'Q', 'U', 'I', 'T', '\n', 0x21, 0x11, 0, 12,
        198, 51, 100, 20, 127, 0, 0, 1, 0x1f, 0x90, 0x01, 0xbb};
    for (int round = 0; round < 2; round++) {
        tc *c = calloc(1, sizeof *c);
        c->fd = ts_connect(p);
        ts_send(c->fd, hdr, 10);
        ts_sleep_ms(20);
        ts_send(c->fd, hdr + 10, sizeof hdr - 10);
        c->ssl = SSL_new(cctx);
        SSL_set_fd(c->ssl, c->fd);
        SSL_set_tlsext_host_name(c->ssl, "localhost");
        SSL_set1_host(c->ssl, "localhost");
        assert_int_equal(SSL_connect(c->ssl), 1);
        char *body = tc_get(c, "/remote");
        assert_non_null(strstr(body, "remote=198.51.100.20:8080 peer=127.0.0.1:"));
        free(body);
        body = tc_get(c, "/remote"); /* keep-alive */
        assert_non_null(strstr(body, "remote=198.51.100.20:8080"));
        free(body);
        tc_close(c);
    }
    /* A ClientHello without the header: not a PROXY header, closed unanswered. */
    tc *c = tc_open_ex(p, 0, NULL);
    assert_null(c);
    tachy_server_destroy(s);
}

static void config_errors(void **state) {
    (void)state;
    tachy_tls_config *c;
    assert_int_equal(tachy_tls_config_create(NULL), TACHY_EINVAL);
    assert_int_equal(tachy_tls_config_create(&c), 0);
    assert_int_equal(tachy_tls_config_load_pem_files(c, "/nonexistent/cert.pem", key_path, NULL),
                     TACHY_ENOFILE);
    assert_int_equal(tachy_tls_config_load_pem_files(c, cert_path, "/nonexistent/key.pem", NULL),
                     TACHY_ENOFILE);
    assert_int_equal(tachy_tls_config_load_pem_files(c, key_path, key_path, NULL), TACHY_EBADCERT);
    assert_int_equal(tachy_tls_config_load_pem_files(c, cert_path, cert_path, NULL), TACHY_EBADKEY);
    assert_int_equal(tachy_tls_config_load_pem(c, "junk", 4, key_pem, key_len, NULL),
                     TACHY_EBADCERT);
    assert_int_equal(
        tachy_tls_config_load_pem(c, cert_pem, cert_len, other_key_pem, other_key_len, NULL),
        TACHY_EKEYMISMATCH);
    assert_string_equal(tachy_err_name(TACHY_EKEYMISMATCH), "KEYMISMATCH");
    assert_int_equal(tachy_tls_config_set_min_version(c, 0x0301), TACHY_EINVAL);
    assert_int_equal(tachy_tls_config_set_ciphers(c, "NO-SUCH-CIPHER", NULL), TACHY_EINVAL);
    assert_int_equal(tachy_tls_config_set_ciphers(c, "ECDHE+AESGCM", "TLS_AES_128_GCM_SHA256"), 0);

    /* Nothing loaded yet: a server refuses it. */
    tachy_server *s = ts_server(NULL);
    assert_int_equal(tachy_server_set_tls(s, c), TACHY_ESTATE);
    assert_int_equal(tachy_tls_config_load_pem_files(c, cert_path, key_path, NULL), 0);
    assert_int_equal(tachy_server_set_tls(s, c), 0);
    assert_ptr_equal(tachy_server_tls(s), c);
    /* Given to a server: read-only. The server keeps its own reference. */
    assert_int_equal(tachy_tls_config_set_min_version(c, TACHY_TLS_1_3), TACHY_ESTATE);
    tachy_tls_config_free(c);
    tachy_server_create_context(s, "/", info, NULL, NULL);
    int p = ts_start(s);
    assert_int_equal(tachy_server_set_tls(s, NULL), TACHY_ESTARTED);
    tc *t = tc_open(p);
    char *body = tc_get(t, "/x");
    assert_non_null(strstr(body, "secure=1 proto=TLSv1.3 cipher=TLS_AES_128_GCM_SHA256"));
    free(body);
    tc_close(t);
    ts_stop(s);
}

static void keep_alive(void **state) {
    (void)state;
    tachy_stats before, after;
    tachy_server_stats(srv, &before);
    tc *c = tc_open(port);
    for (int i = 0; i < 5; i++) {
        char path[32];
        snprintf(path, sizeof path, "/req%d", i);
        char *body = tc_get(c, path);
        char want[40];
        snprintf(want, sizeof want, "path=%s", path);
        assert_non_null(strstr(body, want));
        free(body);
    }
    tachy_server_stats(srv, &after);
    assert_int_equal(after.connections - before.connections, 1);
    assert_int_equal(after.requests - before.requests, 5);
    tc_close(c);
}

static void session_accessors(void **state) {
    (void)state;
    /* TLS 1.3 (default), SNI, ALPN offered (spdy/3 is not spoken: http/1.1 is chosen). */
    tc *c = tc_open_ex(port, 0, "\x06spdy/3\x08http/1.1");
    assert_non_null(c);
    char *body = tc_get(c, "/");
    char want[256];
    snprintf(want, sizeof want, "secure=1 proto=%s cipher=%s sni=localhost alpn=http/1.1",
             SSL_get_version(c->ssl), SSL_CIPHER_standard_name(SSL_get_current_cipher(c->ssl)));
    assert_non_null(strstr(body, want));
    assert_non_null(strstr(body, "proto=TLSv1.3 cipher=TLS_"));
    const unsigned char *ap;
    unsigned apn;
    SSL_get0_alpn_selected(c->ssl, &ap, &apn);
    assert_int_equal(apn, 8);
    free(body);
    tc_close(c);

    /* h2 offered first: the server speaks HTTP/2 (tachy_options.http2's default), so ALPN
     * chooses it (tests/h2/ speaks HTTP/2 over such connections). */
    c = tc_open_ex(port, 0, "\x02h2\x08http/1.1");
    assert_non_null(c);
    SSL_get0_alpn_selected(c->ssl, &ap, &apn);
    assert_int_equal(apn, 2);
    assert_memory_equal(ap, "h2", 2);
    tc_close(c);

    /* TLS 1.2; ALPN without http/1.1 (or h2) gets no answer and HTTP/1.1 still works. */
    c = tc_open_ex(port, TLS1_2_VERSION, "\x06spdy/3");
    assert_non_null(c);
    body = tc_get(c, "/");
    snprintf(want, sizeof want, "secure=1 proto=TLSv1.2 cipher=%s sni=localhost alpn=-",
             SSL_CIPHER_standard_name(SSL_get_current_cipher(c->ssl)));
    assert_non_null(strstr(body, want));
    assert_non_null(strstr(body, "cipher=TLS_ECDHE_ECDSA_WITH_"));
    free(body);
    tc_close(c);
}

static void min_version_13_refuses_tls12(void **state) {
    (void)state;
    tachy_tls_config *c;
    assert_int_equal(tachy_tls_config_create(&c), 0);
    assert_int_equal(tachy_tls_config_load_pem(c, cert_pem, cert_len, key_pem, key_len, NULL), 0);
    assert_int_equal(tachy_tls_config_set_min_version(c, TACHY_TLS_1_3), 0);
    int p;
    tachy_server *s = start_https(c, NULL, &p);
    tachy_tls_config_free(c);
    assert_null(tc_open_ex(p, TLS1_2_VERSION, NULL));
    tc *t = tc_open(p);
    char *body = tc_get(t, "/");
    assert_non_null(strstr(body, "proto=TLSv1.3"));
    free(body);
    tc_close(t);
    assert_true(wait_no_connections(s, 3000));
    ts_stop(s);
}

/* set_max_version(1.2): a TLS 1.3 client is answered with TLS 1.2 (what an SSLEngine with
 * only "TLSv1.2" enabled does); a maximum below the minimum refuses every handshake. */
static void max_version_12(void **state) {
    (void)state;
    tachy_tls_config *c;
    assert_int_equal(tachy_tls_config_create(&c), 0);
    assert_int_equal(tachy_tls_config_set_max_version(c, 0x0301), TACHY_EINVAL);
    assert_int_equal(tachy_tls_config_set_max_version(NULL, TACHY_TLS_1_2), TACHY_EINVAL);
    assert_int_equal(tachy_tls_config_load_pem(c, cert_pem, cert_len, key_pem, key_len, NULL), 0);
    assert_int_equal(tachy_tls_config_set_max_version(c, TACHY_TLS_1_2), 0);
    int p;
    tachy_server *s = start_https(c, NULL, &p);
    assert_int_equal(tachy_tls_config_set_max_version(c, TACHY_TLS_1_3), TACHY_ESTATE);
    tachy_tls_config_free(c);
    tc *t = tc_open(p);
    char *body = tc_get(t, "/");
    assert_non_null(strstr(body, "proto=TLSv1.2"));
    free(body);
    tc_close(t);
    assert_true(wait_no_connections(s, 3000));
    ts_stop(s);

    assert_int_equal(tachy_tls_config_create(&c), 0);
    assert_int_equal(tachy_tls_config_load_pem(c, cert_pem, cert_len, key_pem, key_len, NULL), 0);
    assert_int_equal(tachy_tls_config_set_min_version(c, TACHY_TLS_1_3), 0);
    assert_int_equal(tachy_tls_config_set_max_version(c, TACHY_TLS_1_2), 0);
    s = start_https(c, NULL, &p);
    tachy_tls_config_free(c);
    assert_null(tc_open_ex(p, 0, NULL));
    assert_true(wait_no_connections(s, 3000));
    ts_stop(s);
}

static void pipelined_one_write(void **state) {
    (void)state;
    tc *c = tc_open(port);
    free(tc_get(c, "/warm")); /* handshake and session tickets are behind us */
    uint64_t w0 = ts_server_writes(srv);
    char reqs[16 * 64] = "";
    for (int i = 0; i < 16; i++) {
        char one[64];
        snprintf(one, sizeof one, "GET /p%02d HTTP/1.1\r\nHost: localhost\r\n\r\n", i);
        strcat(reqs, one);
    }
    tc_sends(c, reqs); /* one record */
    for (int i = 0; i < 16; i++) {
        resp r;
        assert_int_equal(tc_response(c, &r), 0);
        assert_int_equal(r.status, 200);
        char want[16];
        snprintf(want, sizeof want, "path=/p%02d", i);
        assert_non_null(strstr(r.body, want));
        resp_free(&r);
    }
    /* Sixteen responses, one SSL_write, one send (tls/bio.c counts a send before making it,
     * so what the client has read is counted by now). */
    assert_int_equal(ts_server_writes(srv) - w0, 1);

    /* Pipelined requests split over several records, the last one arriving later: the
     * ones decoded inside OpenSSL must not wait for an epoll event that never comes. */
    tc_sends(c, "GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HT");
    tc_sends(c, "TP/1.1\r\nHost: x\r\n\r\nGET /c HTTP/1.1\r\nHost: x\r\n\r\n");
    const char *paths[] = {"path=/a", "path=/b", "path=/c"};
    for (int i = 0; i < 3; i++) {
        resp r;
        assert_int_equal(tc_response(c, &r), 0);
        assert_non_null(strstr(r.body, paths[i]));
        resp_free(&r);
    }
    /* A body read straight into the handler's buffer that ends inside a record holding
     * the next request too. */
    tc_sends(c, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
                "GET /after HTTP/1.1\r\nHost: x\r\n\r\n");
    resp r;
    assert_int_equal(tc_response(c, &r), 0);
    assert_string_equal(r.body, "hello");
    resp_free(&r);
    assert_int_equal(tc_response(c, &r), 0);
    assert_non_null(strstr(r.body, "path=/after"));
    resp_free(&r);
    /* The same, with the handler already waiting for its body: it asks OpenSSL for the 5
     * body bytes only, and the next request stays decrypted inside OpenSSL (SSL_pending),
     * where no epoll event will ever announce it. */
    tc_sends(c, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n");
    ts_sleep_ms(50);
    tc_sends(c, "world"
                "GET /pending HTTP/1.1\r\nHost: x\r\n\r\n");
    assert_int_equal(tc_response(c, &r), 0);
    assert_string_equal(r.body, "world");
    resp_free(&r);
    assert_int_equal(tc_response(c, &r), 0);
    assert_non_null(strstr(r.body, "path=/pending"));
    resp_free(&r);
    tc_close(c);
}

static void chunked_bodies(void **state) {
    (void)state;
    tc *c = tc_open(port);
    tc_sends(c, "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n");
    tc_sends(c, "5\r\nhello\r\n");
    ts_sleep_ms(20);
    tc_sends(c, "1\r\n \r\n6\r\nchunky\r\n");
    ts_sleep_ms(20);
    tc_sends(c, "0\r\n\r\n");
    resp r;
    assert_int_equal(tc_response(c, &r), 0);
    assert_int_equal(r.status, 200);
    assert_true(r.chunked);
    assert_string_equal(r.body, "hello chunky");
    resp_free(&r);
    /* A chunked response of several MiB on the same connection. */
    tc_sends(c, "GET /bigchunked?3000000 HTTP/1.1\r\nHost: x\r\n\r\n");
    assert_int_equal(tc_response(c, &r), 0);
    assert_true(r.chunked);
    assert_int_equal(r.body_len, 3000000);
    check_pattern(&r);
    resp_free(&r);
    tc_close(c);
}

/* GET path?n on c: the response must be a 200 whose body is n bytes of pattern(). */
static void expect_pattern_body(tc *c, const char *path, size_t n) {
    char req[96];
    snprintf(req, sizeof req, "GET %s?%zu HTTP/1.1\r\nHost: x\r\n\r\n", path, n);
    tc_sends(c, req);
    resp r;
    assert_int_equal(tc_response(c, &r), 0);
    assert_int_equal(r.status, 200);
    assert_int_equal(r.body_len, n);
    check_pattern(&r);
    resp_free(&r);
}

static void large_bodies(void **state) {
    (void)state;
    const size_t n = 8 * 1024 * 1024 + 123;
    tc *c = tc_open(port);
    expect_pattern_body(c, "/big", n);
    resp r;

    /* 8 MiB up, fixed length, then chunked in 100 KiB chunks. */
    unsigned char *up = malloc(n);
    unsigned long s = 0;
    for (size_t i = 0; i < n; i++) {
        up[i] = pattern(i * 3);
        s = s * 31 + up[i];
    }
    char head[128], want[64];
    snprintf(head, sizeof head, "POST /sum HTTP/1.1\r\nHost: x\r\nContent-Length: %zu\r\n\r\n", n);
    snprintf(want, sizeof want, "len=%zu sum=%lu", n, s);
    tc_sends(c, head);
    tc_send(c, up, n);
    assert_int_equal(tc_response(c, &r), 0);
    assert_string_equal(r.body, want);
    resp_free(&r);
    tc_sends(c, "POST /sum HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n");
    for (size_t off = 0; off < n; off += 100000) {
        size_t k = MIN((size_t)100000, n - off);
        char sz[32];
        snprintf(sz, sizeof sz, "%zx\r\n", k);
        tc_sends(c, sz);
        tc_send(c, up + off, k);
        tc_sends(c, "\r\n");
    }
    tc_sends(c, "0\r\n\r\n");
    assert_int_equal(tc_response(c, &r), 0);
    assert_string_equal(r.body, want);
    resp_free(&r);
    free(up);
    tc_close(c);
}

/* tachy_exchange_send_file over TLS takes the copying path; the bytes arrive intact and
 * the connection carries on. */
static void send_file_over_tls(void **state) {
    (void)state;
    const size_t n = 3 * 1024 * 1024 + 5;
    tc *c = tc_open(port);
    expect_pattern_body(c, "/file", n);
    char *again = tc_get(c, "/");
    assert_non_null(again);
    free(again);
    tc_close(c);
}

static void handshake_timeout(void **state) {
    (void)state;
    tachy_options o;
    tachy_options_init(&o);
    assert_int_equal(o.tls_handshake_time_ms, 10000); /* below idleInterval (30 s) */
    o.tls_handshake_time_ms = 400;
    int p;
    tachy_server *s = start_https(cfg, &o, &p);

    /* Connects and sends nothing. */
    int fd = ts_connect(p);
    long t0 = ts_now_ms();
    assert_true(ts_wait_eof(fd, 3000));
    long took = ts_now_ms() - t0;
    assert_true(took >= 300 && took < 2500);
    close(fd);

    /* Starts a handshake (a record header and a few bytes of ClientHello) and stalls: the
     * connection is parked, not holding a thread, and closed at the same deadline. */
    fd = ts_connect(p);
    t0 = ts_now_ms();
    ts_send(fd, "\x16\x03\x01\x00\xc8\x01\x00\x00\xc4\x03\x03", 11);
    tc *other = tc_open(p); /* meanwhile others are served */
    char *body = tc_get(other, "/");
    free(body);
    tc_close(other);
    assert_true(ts_wait_eof(fd, 3000));
    took = ts_now_ms() - t0;
    assert_true(took >= 300 && took < 2500);
    close(fd);
    assert_true(wait_no_connections(s, 3000));
    ts_stop(s);
}

/* A TLS 1.2 handshake offering only the given suites; 1 if it completes. */
static int tls12_with(int p, const char *suites) {
    int fd = ts_connect(p);
    SSL *ssl = SSL_new(cctx);
    SSL_set_fd(ssl, fd);
    SSL_set_tlsext_host_name(ssl, "localhost");
    SSL_set_max_proto_version(ssl, TLS1_2_VERSION);
    assert_int_equal(SSL_set_cipher_list(ssl, suites), 1);
    int ok = SSL_connect(ssl) == 1;
    ERR_clear_error();
    SSL_free(ssl);
    close(fd);
    return ok;
}

/* The TLS 1.2 default is AEAD only: a client offering only CBC suites is refused, one
 * offering GCM is served; tachy_tls_config_set_ciphers can still allow CBC. */
static void tls12_default_is_aead_only(void **state) {
    (void)state;
    assert_false(tls12_with(port, "ECDHE-ECDSA-AES128-SHA:ECDHE-ECDSA-AES256-SHA384"));
    assert_true(tls12_with(port, "ECDHE-ECDSA-AES128-GCM-SHA256"));
    assert_true(tls12_with(port, "ECDHE-ECDSA-CHACHA20-POLY1305"));
    tachy_tls_config *c;
    assert_int_equal(tachy_tls_config_create(&c), 0);
    assert_int_equal(tachy_tls_config_load_pem(c, cert_pem, cert_len, key_pem, key_len, NULL), 0);
    assert_int_equal(tachy_tls_config_set_ciphers(c, "ECDHE-ECDSA-AES128-SHA", NULL), 0);
    int p;
    tachy_server *s = start_https(c, NULL, &p);
    tachy_tls_config_free(c);
    assert_true(tls12_with(p, "ECDHE-ECDSA-AES128-SHA"));
    assert_false(tls12_with(p, "ECDHE-ECDSA-AES128-GCM-SHA256"));
    assert_true(wait_no_connections(s, 3000));
    ts_stop(s);
}

static void plaintext_to_tls_port(void **state) {
    (void)state;
    int before = log_count();
    int fd = ts_connect(port);
    long t0 = ts_now_ms();
    ts_send(fd, "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n", -1);
    size_t len = 0;
    int eof = 0;
    char *raw = ts_read_raw(fd, 2000, &len, &eof);
    assert_true(eof);
    assert_true(ts_now_ms() - t0 < 1500);
    assert_null(strstr(raw, "HTTP/1.1 200"));
    free(raw);
    close(fd);
    assert_true(wait_no_connections(srv, CLOSE_WAIT_MS));
    assert_int_equal(log_count() - before, 1); /* one debug line for that connection */
    /* The server goes on serving TLS. */
    tc *c = tc_open(port);
    free(tc_get(c, "/"));
    tc_close(c);
}

static void clients_vanishing(void **state) {
    (void)state;
    int errors0 = atomic_load(&sum_errors);
    /* close_notify in the middle of a request body. */
    tc *c = tc_open(port);
    tc_sends(c, "POST /sum HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n");
    char junk[1000];
    memset(junk, 'x', sizeof junk);
    tc_send(c, junk, sizeof junk);
    ts_sleep_ms(50);
    SSL_shutdown(c->ssl);
    tc_close(c);
    /* Abrupt close (no close_notify) in the middle of a body. */
    c = tc_open(port);
    tc_sends(c, "POST /sum HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n");
    tc_send(c, junk, sizeof junk);
    ts_sleep_ms(50);
    tc_close(c);
    /* Mid-head, then gone. */
    c = tc_open(port);
    tc_sends(c, "GET / HTTP/1.1\r\nHost: x\r\n");
    tc_close(c);
    /* Mid-response: the server's writes fail (no SIGPIPE: this process would die). */
    c = tc_open(port);
    tc_sends(c, "GET /big?50000000 HTTP/1.1\r\nHost: x\r\n\r\n");
    tc_fill(c);
    tc_close(c);
    assert_true(wait_no_connections(srv, CLOSE_WAIT_MS));
    assert_int_equal(atomic_load(&sum_errors) - errors0, 2);
}

/* ---- handshake metrics ------------------------------------------------------------------ */

/* Sends a whole ClientHello (made by an OpenSSL client on memory BIOs) on fd, and nothing
 * more: the server makes its SSL object, answers, and waits for the client's Finished. */
static void send_client_hello(int fd) {
    SSL *ssl = SSL_new(cctx);
    BIO *rb = BIO_new(BIO_s_mem()), *wb = BIO_new(BIO_s_mem());
    SSL_set_bio(ssl, rb, wb);
    SSL_set_tlsext_host_name(ssl, "localhost");
    SSL_set_connect_state(ssl);
    assert_true(SSL_do_handshake(ssl) <= 0); /* wants the server's flight */
    char *data;
    long n = BIO_get_mem_data(wb, &data);
    assert_true(n > 5);
    ts_send(fd, data, n);
    ERR_clear_error();
    SSL_free(ssl);
}

static double tls_sample(tachy_server *s, const char *series) {
    char text[8192];
    assert_true(tachy_metrics_render(s, text, sizeof text) < (long)sizeof text);
    char key[160];
    snprintf(key, sizeof key, "\n%s ", series);
    const char *at = strstr(text, key);
    if (!at)
        fail_msg("no series %s", series);
    return strtod(at + strlen(key), NULL);
}

/* Each way a handshake ends is counted once, under its reason: completed, refused by
 * OpenSSL (plain HTTP; only CBC suites offered), the client gone after its ClientHello, the
 * handshake deadline, and an eviction by a newer handshake (cap 1). A connection that never
 * sent a ClientHello is no handshake. */
static void handshake_metrics(void **state) {
    (void)state;
    tachy_tls_config *c;
    assert_int_equal(tachy_tls_config_create(&c), 0);
    assert_int_equal(tachy_tls_config_load_pem(c, cert_pem, cert_len, key_pem, key_len, NULL), 0);
    assert_int_equal(tachy_tls_config_set_max_handshakes(c, 1), 0);
    tachy_options o;
    tachy_options_init(&o);
    o.tls_handshake_time_ms = 500;
    int p;
    tachy_server *s = start_https(c, &o, &p);
    tachy_tls_config_free(c);
    long wait = ts_under_valgrind() ? 20000 : 3000;

    tc *good = tc_open(p); /* completed */
    free(tc_get(good, "/"));
    tc_close(good);
    int fd = ts_connect(p); /* protocol: not TLS */
    ts_send(fd, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", -1);
    assert_true(ts_wait_eof(fd, wait));
    close(fd);
    assert_false(tls12_with(p, "ECDHE-ECDSA-AES128-SHA")); /* protocol: no shared suite */
    fd = ts_connect(p); /* eof: the client leaves after its ClientHello */
    send_client_hello(fd);
    ts_sleep_ms(100);
    close(fd);
    assert_true(wait_no_connections(s, wait));
    fd = ts_connect(p); /* timeout: the client never finishes */
    send_client_hello(fd);
    assert_true(ts_wait_eof(fd, wait));
    close(fd);
    fd = ts_connect(p); /* evicted: a newer handshake takes the one place */
    send_client_hello(fd);
    ts_sleep_ms(100);
    good = tc_open(p);
    free(tc_get(good, "/"));
    tc_close(good);
    assert_true(ts_wait_eof(fd, wait));
    close(fd);
    fd = ts_connect(p); /* no ClientHello: not a handshake */
    close(fd);
    assert_true(wait_no_connections(s, wait));

    assert_int_equal(tls_sample(s, "tachy_tls_handshakes_total"), 2);
    assert_int_equal(tls_sample(s, "tachy_tls_handshake_failures_total{reason=\"protocol\"}"), 2);
    assert_int_equal(tls_sample(s, "tachy_tls_handshake_failures_total{reason=\"eof\"}"), 1);
    assert_int_equal(tls_sample(s, "tachy_tls_handshake_failures_total{reason=\"timeout\"}"), 1);
    assert_int_equal(tls_sample(s, "tachy_tls_handshake_failures_total{reason=\"evicted\"}"), 1);
    ts_stop(s);
}

/* ---- WebSocket over TLS ------------------------------------------------------------------- */

/* One masked client frame. */
static void ws_send(tc *c, int opcode, const void *data, size_t len) {
    unsigned char *f = malloc(len + 14);
    size_t h = 0;
    f[h++] = (unsigned char)(0x80 | opcode);
    if (len < 126) {
        f[h++] = (unsigned char)(0x80 | len);
    } else if (len < 65536) {
        f[h++] = 0x80 | 126;
        f[h++] = (unsigned char)(len >> 8);
        f[h++] = (unsigned char)len;
    } else {
        f[h++] = 0x80 | 127;
        for (int i = 7; i >= 0; i--)
            f[h++] = (unsigned char)((uint64_t)len >> (8 * i));
    }
    const unsigned char mask[4] = {0x12, 0x34, 0x56, 0x78};
    memcpy(f + h, mask, 4);
    h += 4;
    for (size_t i = 0; i < len; i++)
        f[h + i] = ((const unsigned char *)data)[i] ^ mask[i % 4];
    tc_send(c, f, h + len);
    free(f);
}

/* Reads one server frame; returns its opcode, payload in *out (malloc'ed). */
static int ws_recv(tc *c, char **out, size_t *len) {
    assert_true(tc_need(c, 2));
    unsigned char b0 = (unsigned char)c->buf[0], b1 = (unsigned char)c->buf[1];
    assert_int_equal(b1 & 0x80, 0); /* servers do not mask */
    size_t h = 2, n = b1 & 0x7f;
    if (n == 126) {
        assert_true(tc_need(c, 4));
        n = (size_t)((unsigned char)c->buf[2] << 8 | (unsigned char)c->buf[3]);
        h = 4;
    } else if (n == 127) {
        assert_true(tc_need(c, 10));
        n = 0;
        for (int i = 0; i < 8; i++)
            n = n << 8 | (unsigned char)c->buf[2 + i];
        h = 10;
    }
    assert_true(tc_need(c, h + n));
    *out = malloc(n + 1);
    memcpy(*out, c->buf + h, n);
    (*out)[n] = '\0';
    *len = n;
    tc_drop(c, h + n);
    return b0 & 0x0f;
}

static void ws_upgrade(tc *c, const char *path) {
    char req[512];
    snprintf(req, sizeof req,
             "GET %s HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
             "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
             path);
    tc_sends(c, req);
    char *end;
    for (;;) {
        if (c->buf) {
            c->buf[c->len] = '\0';
            if ((end = strstr(c->buf, "\r\n\r\n")))
                break;
        }
        assert_true(tc_fill(c));
    }
    assert_int_equal(strncmp(c->buf, "HTTP/1.1 101 ", 13), 0);
    assert_non_null(strstr(c->buf, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="));
    tc_drop(c, (size_t)(end - c->buf) + 4);
}

static void websocket_over_tls(void **state) {
    (void)state;
    tc *c = tc_open(port);
    ws_upgrade(c, "/ws");
    char *m;
    size_t n;
    ws_send(c, 1, "hello wss", 9);
    assert_int_equal(ws_recv(c, &m, &n), 1);
    assert_string_equal(m, "hello wss");
    free(m);
    /* A 300 KB binary message: many records both ways. */
    size_t big_len = 300000;
    unsigned char *bigm = malloc(big_len);
    for (size_t i = 0; i < big_len; i++)
        bigm[i] = pattern(i);
    ws_send(c, 2, bigm, big_len);
    assert_int_equal(ws_recv(c, &m, &n), 2);
    assert_int_equal(n, big_len);
    assert_memory_equal(m, bigm, big_len);
    free(m);
    free(bigm);
    /* Close handshake. */
    ws_send(c, 8, "\x03\xe8", 2);
    assert_int_equal(ws_recv(c, &m, &n), 8);
    assert_int_equal(n >= 2 ? ((unsigned char)m[0] << 8 | (unsigned char)m[1]) : 0, 1000);
    free(m);
    tc_close(c);
    assert_true(wait_no_connections(srv, CLOSE_WAIT_MS));
}

/* Another thread sends on the socket while the connection thread reads and echoes: the
 * one SSL object is never used by two threads at once. */
static void *client_pinger(void *arg) {
    tc *c = arg;
    for (int i = 0; i < 100; i++) {
        char msg[32];
        int k = snprintf(msg, sizeof msg, "echo %d", i);
        ws_send(c, 1, msg, (size_t)k);
    }
    return NULL;
}

/* A wss client on /wshold, and the server's handle for it (retained: release it). */
static tc *open_held_ws(tachy_ws **out) {
    pthread_mutex_lock(&held_lock);
    held = NULL;
    pthread_mutex_unlock(&held_lock);
    tc *c = tc_open(port);
    ws_upgrade(c, "/wshold");
    tachy_ws *ws = NULL;
    for (int i = 0; i < 300 && !ws; i++) {
        pthread_mutex_lock(&held_lock);
        ws = held;
        pthread_mutex_unlock(&held_lock);
        if (!ws)
            ts_sleep_ms(10);
    }
    assert_non_null(ws);
    *out = ws;
    return c;
}

static void websocket_cross_thread_sends(void **state) {
    (void)state;
    tachy_ws *ws;
    tc *c = open_held_ws(&ws);
    /* The client's frames go out from a thread of their own while this one sends through
     * the server's handle; the client's SSL object is only written there until joined. */
    pthread_t t;
    pthread_create(&t, NULL, client_pinger, c);
    for (int i = 0; i < 100; i++) {
        char msg[32];
        int k = snprintf(msg, sizeof msg, "push %d", i);
        assert_int_equal(tachy_ws_send_text(ws, msg, (size_t)k), 0);
    }
    pthread_join(t, NULL);
    int echoes = 0, pushes = 0;
    while (echoes + pushes < 200) {
        char *m;
        size_t n;
        assert_int_equal(ws_recv(c, &m, &n), 1);
        if (strncmp(m, "echo ", 5) == 0)
            assert_int_equal(atoi(m + 5), echoes++);
        else if (strncmp(m, "push ", 5) == 0)
            assert_int_equal(atoi(m + 5), pushes++);
        else
            fail_msg("unexpected message %s", m);
        free(m);
    }
    ws_send(c, 8, "\x03\xe8", 2);
    char *m;
    size_t n;
    assert_int_equal(ws_recv(c, &m, &n), 8);
    free(m);
    tc_close(c);
    assert_true(wait_no_connections(srv, CLOSE_WAIT_MS));
    /* The connection is gone: sends on the retained handle fail without touching it. */
    assert_int_equal(tachy_ws_send_text(ws, "late", 4), TACHY_ECLOSED);
    tachy_ws_release(ws);
}

/* tachy_ws_broadcast to a wss connection: the frame is encrypted (the plain fast path
 * writes the socket itself and must not be taken), arrives intact, and is counted. */
static void websocket_broadcast_over_tls(void **state) {
    (void)state;
    tachy_ws *ws;
    tc *c = open_held_ws(&ws);
    tachy_ws *list[2] = {ws, NULL};
    for (int i = 0; i < 20; i++) {
        char msg[32];
        int k = snprintf(msg, sizeof msg, "tick %d", i);
        assert_int_equal(tachy_ws_broadcast(list, 2, TACHY_WS_TEXT, msg, (size_t)k), 1);
    }
    for (int i = 0; i < 20; i++) {
        char *m, want[32];
        size_t n;
        snprintf(want, sizeof want, "tick %d", i);
        assert_int_equal(ws_recv(c, &m, &n), 1);
        assert_string_equal(m, want);
        free(m);
    }
    ws_send(c, 8, "\x03\xe8", 2);
    char *m;
    size_t n;
    assert_int_equal(ws_recv(c, &m, &n), 8);
    free(m);
    tc_close(c);
    assert_true(wait_no_connections(srv, CLOSE_WAIT_MS));
    tachy_ws_release(ws);
}

static void stop_with_open_tls_connections(void **state) {
    (void)state;
    int p;
    tachy_server *s = start_https(cfg, NULL, &p);
    tc *idle = tc_open(p);
    free(tc_get(idle, "/"));
    tc *busy = tc_open(p);
    tc_sends(busy, "POST /sum HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc");
    ts_sleep_ms(50);
    ts_stop(s);
    /* Both see the end of the connection (close_notify or EOF) instead of hanging. */
    assert_int_equal(tc_fill(idle), 0);
    assert_int_equal(tc_fill(busy), 0);
    tc_close(idle);
    tc_close(busy);
}

/* ---- client certificates (need/wantClientAuth) ------------------------------------------- */

/* A certificate for key, signed by issuer/issuer_key (NULL: self-signed); ca: a CA. */
static X509 *make_cert(EVP_PKEY *key, const char *cn, X509 *issuer, EVP_PKEY *issuer_key, int ca,
                       long serial) {
    X509 *x = X509_new();
    X509_set_version(x, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(x), serial);
    X509_gmtime_adj(X509_getm_notBefore(x), -3600);
    X509_gmtime_adj(X509_getm_notAfter(x), 86400);
    X509_set_pubkey(x, key);
    X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN", MBSTRING_ASC,
                               (const unsigned char *)cn, -1, -1, 0);
    X509_set_issuer_name(x, X509_get_subject_name(issuer ? issuer : x));
    X509V3_CTX v3;
    X509V3_set_ctx_nodb(&v3);
    X509V3_set_ctx(&v3, issuer ? issuer : x, x, NULL, NULL, 0);
    const char *ext[][2] = {{"basicConstraints", ca ? "critical,CA:TRUE" : "CA:FALSE"},
                            {"keyUsage", ca ? "critical,keyCertSign,cRLSign" : "digitalSignature"},
                            {"extendedKeyUsage", ca ? NULL : "clientAuth"}};
    for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++) {
        if (!ext[i][1])
            continue;
        X509_EXTENSION *e = X509V3_EXT_conf(NULL, &v3, ext[i][0], ext[i][1]);
        assert_non_null(e);
        X509_add_ext(x, e, -1);
        X509_EXTENSION_free(e);
    }
    assert_true(X509_sign(x, issuer_key ? issuer_key : key, EVP_sha256()) > 0);
    return x;
}

/* Client auth material: root CA -> intermediate CA -> "alice"; an unrelated CA -> "mallory". */
static X509 *ca_root, *ca_mid, *alice, *rogue_ca, *mallory;
static EVP_PKEY *alice_key, *mallory_key;
static SSL_CTX *cctx_alice, *cctx_mallory, *cctx_alice12;

static SSL_CTX *client_ctx(X509 *leaf, EVP_PKEY *key, X509 *extra, int max_version) {
    SSL_CTX *c = SSL_CTX_new(TLS_client_method());
    X509_STORE_add_cert(SSL_CTX_get_cert_store(c), cert);
    SSL_CTX_set_verify(c, SSL_VERIFY_PEER, NULL);
    if (leaf) {
        assert_int_equal(SSL_CTX_use_certificate(c, leaf), 1);
        assert_int_equal(SSL_CTX_use_PrivateKey(c, key), 1);
    }
    if (extra)
        assert_int_equal(SSL_CTX_add1_chain_cert(c, extra), 1);
    if (max_version)
        SSL_CTX_set_max_proto_version(c, max_version);
    return c;
}

static void make_client_material(void) {
    if (ca_root)
        return;
    EVP_PKEY *root_key = EVP_EC_gen("P-256"), *mid_key = EVP_EC_gen("P-256");
    EVP_PKEY *rogue_key = EVP_EC_gen("P-256");
    alice_key = EVP_EC_gen("P-256");
    mallory_key = EVP_EC_gen("P-256");
    ca_root = make_cert(root_key, "Test Client Root", NULL, NULL, 1, 10);
    ca_mid = make_cert(mid_key, "Test Client Intermediate", ca_root, root_key, 1, 11);
    alice = make_cert(alice_key, "alice", ca_mid, mid_key, 0, 12);
    rogue_ca = make_cert(rogue_key, "Test Client Root", NULL, NULL, 1, 10); /* same name */
    mallory = make_cert(mallory_key, "mallory", rogue_ca, rogue_key, 0, 13);
    cctx_alice = client_ctx(alice, alice_key, ca_mid, 0);
    cctx_alice12 = client_ctx(alice, alice_key, ca_mid, TLS1_2_VERSION);
    cctx_mallory = client_ctx(mallory, mallory_key, NULL, 0);
    EVP_PKEY_free(root_key);
    EVP_PKEY_free(mid_key);
    EVP_PKEY_free(rogue_key);
}

static void free_client_material(void) {
    X509 *xs[] = {ca_root, ca_mid, alice, rogue_ca, mallory};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++)
        X509_free(xs[i]);
    EVP_PKEY_free(alice_key);
    EVP_PKEY_free(mallory_key);
    SSL_CTX_free(cctx_alice);
    SSL_CTX_free(cctx_alice12);
    SSL_CTX_free(cctx_mallory);
}

/* /peer: "n=<certificates> <CN of each, comma-separated>" from the DER the server hands out. */
static int peer(tachy_exchange *ex, void *user) {
    (void)user;
    char body[512] = "";
    size_t off = 0;
    int n = 0;
    for (;; n++) {
        int len = tachy_exchange_tls_peer_certificate(ex, (size_t)n, NULL, 0);
        if (len <= 0)
            break;
        unsigned char *der = malloc((size_t)len);
        /* Too small a buffer copies nothing and still says how much is needed. */
        if (tachy_exchange_tls_peer_certificate(ex, (size_t)n, der, (size_t)len - 1) != len ||
            tachy_exchange_tls_peer_certificate(ex, (size_t)n, der, (size_t)len) != len) {
            free(der);
            return reply(ex, 500, "length changed");
        }
        const unsigned char *p = der;
        X509 *x = d2i_X509(NULL, &p, len);
        free(der);
        if (!x)
            return reply(ex, 500, "bad DER");
        char cn[128] = "?";
        X509_NAME_get_text_by_NID(X509_get_subject_name(x), NID_commonName, cn, sizeof cn);
        X509_free(x);
        off += (size_t)snprintf(body + off, sizeof body - off, "%s%s", n ? "," : " ", cn);
    }
    char out[600];
    snprintf(out, sizeof out, "n=%d%s", n, body);
    return reply(ex, 200, out);
}

/* A server that verifies client certificates against the root CA (mode: want/need). */
static tachy_server *start_client_auth(int mode, int *p) {
    make_client_material();
    tachy_tls_config *c;
    assert_int_equal(tachy_tls_config_create(&c), 0);
    assert_int_equal(tachy_tls_config_load_pem(c, cert_pem, cert_len, key_pem, key_len, NULL), 0);
    size_t len;
    char *pem = to_pem(0, ca_root, &len);
    assert_int_equal(tachy_tls_config_add_client_ca_pem(c, pem, len), 0);
    free(pem);
    assert_int_equal(tachy_tls_config_set_client_auth(c, mode), 0);
    tachy_server *s = start_https(c, NULL, p);
    tachy_server_create_context(s, "/peer", peer, NULL, NULL);
    tachy_tls_config_free(c);
    return s;
}

/* GET /peer with a client of ctx: the body of a 200 (caller frees), or NULL when the
 * handshake or the exchange fails (with TLS 1.3 the client learns that its certificate was
 * refused from the alert that follows its Finished, so at its first read). */
static char *peer_get(SSL_CTX *ctx, int p) {
    tc *c = calloc(1, sizeof *c);
    c->fd = ts_connect(p);
    c->ssl = SSL_new(ctx);
    SSL_set_fd(c->ssl, c->fd);
    SSL_set_tlsext_host_name(c->ssl, "localhost");
    char *body = NULL;
    if (SSL_connect(c->ssl) == 1) {
        const char *req = "GET /peer HTTP/1.1\r\nHost: localhost\r\n\r\n";
        size_t n = 0;
        resp r;
        if (SSL_write_ex(c->ssl, req, strlen(req), &n) == 1 && tc_response(c, &r) == 0) {
            if (r.status == 200)
                body = r.body;
            else
                resp_free(&r);
        }
    }
    ERR_clear_error();
    tc_close(c);
    return body;
}

static void assert_peer(SSL_CTX *ctx, int p, const char *want) {
    char *body = peer_get(ctx, p);
    if (!want) {
        if (body)
            fail_msg("served: %s", body);
        return;
    }
    if (!body)
        fail_msg("not served, want %s", want);
    assert_string_equal(body, want);
    free(body);
}

static void client_auth_config_errors(void **state) {
    (void)state;
    tachy_tls_config *c;
    assert_int_equal(tachy_tls_config_create(&c), 0);
    assert_int_equal(tachy_tls_config_add_client_ca_pem(NULL, cert_pem, cert_len), TACHY_EINVAL);
    assert_int_equal(tachy_tls_config_add_client_ca_pem(c, key_pem, key_len), TACHY_EBADCERT);
    assert_int_equal(tachy_tls_config_add_client_ca_file(c, "/nonexistent/ca.pem"), TACHY_ENOFILE);
    assert_int_equal(tachy_tls_config_add_client_ca_file(c, cert_path), 0);
    assert_int_equal(tachy_tls_config_set_client_auth(c, 3), TACHY_EINVAL);
    assert_int_equal(tachy_tls_config_set_client_auth(c, -1), TACHY_EINVAL);
    assert_int_equal(tachy_tls_config_set_client_auth(c, TACHY_TLS_CLIENT_AUTH_WANT), 0);
    assert_int_equal(tachy_tls_config_set_max_handshakes(c, -1), TACHY_EINVAL);
    assert_int_equal(tachy_tls_config_set_max_handshakes(c, 0), 0);
    assert_int_equal(tachy_tls_config_load_pem(c, cert_pem, cert_len, key_pem, key_len, NULL), 0);
    tachy_server *s;
    assert_int_equal(tachy_https_server_create(&s, "127.0.0.1", 0, 0, NULL, c), 0);
    /* Read-only once a server has it. */
    assert_int_equal(tachy_tls_config_add_client_ca_pem(c, cert_pem, cert_len), TACHY_ESTATE);
    assert_int_equal(tachy_tls_config_add_client_ca_file(c, cert_path), TACHY_ESTATE);
    assert_int_equal(tachy_tls_config_set_client_auth(c, TACHY_TLS_CLIENT_AUTH_NEED), TACHY_ESTATE);
    assert_int_equal(tachy_tls_config_set_max_handshakes(c, 5), TACHY_ESTATE);
    tachy_server_destroy(s);
    tachy_tls_config_free(c);
    /* Without client authentication no certificate is asked for, so none is seen even from a
     * client that has one; a plain exchange has none either. */
    int p;
    make_client_material();
    tachy_server *plain = start_https(cfg, NULL, &p);
    tachy_server_create_context(plain, "/peer", peer, NULL, NULL);
    assert_peer(cctx_alice, p, "n=0");
    assert_peer(cctx, p, "n=0");
    ts_stop(plain);
    assert_int_equal(tachy_exchange_tls_peer_certificate(NULL, 0, NULL, 0), 0);
}

static void client_auth_need(void **state) {
    (void)state;
    int p;
    tachy_server *s = start_client_auth(TACHY_TLS_CLIENT_AUTH_NEED, &p);
    int logs = log_count();
    assert_peer(cctx, p, NULL);          /* no certificate: refused (TLS 1.3) */
    SSL_CTX *no_cert12 = client_ctx(NULL, NULL, NULL, TLS1_2_VERSION);
    assert_peer(no_cert12, p, NULL);     /* ... and with TLS 1.2 */
    SSL_CTX_free(no_cert12);
    assert_peer(cctx_mallory, p, NULL);  /* a certificate from another CA (same CA name) */
    /* One debug line each (written as the server closes, maybe after the client saw it). */
    for (long end = ts_now_ms() + CLOSE_WAIT_MS; log_count() - logs < 3 && ts_now_ms() < end;)
        ts_sleep_ms(10);
    assert_true(log_count() - logs >= 3);
    /* A good chain: served, and the handler sees the chain the client sent. */
    assert_peer(cctx_alice, p, "n=2 alice,Test Client Intermediate");
    assert_peer(cctx_alice12, p, "n=2 alice,Test Client Intermediate");
    /* A client that sends its certificate without the intermediate does not verify: the
     * anchor is the root. */
    SSL_CTX *alice_alone = client_ctx(alice, alice_key, NULL, 0);
    assert_peer(alice_alone, p, NULL);
    SSL_CTX_free(alice_alone);
    assert_true(wait_no_connections(s, CLOSE_WAIT_MS));
    ts_stop(s);
}

static void client_auth_want(void **state) {
    (void)state;
    int p;
    tachy_server *s = start_client_auth(TACHY_TLS_CLIENT_AUTH_WANT, &p);
    assert_peer(cctx, p, "n=0");         /* no certificate: served, none seen */
    SSL_CTX *no_cert12 = client_ctx(NULL, NULL, NULL, TLS1_2_VERSION);
    assert_peer(no_cert12, p, "n=0");
    SSL_CTX_free(no_cert12);
    assert_peer(cctx_alice, p, "n=2 alice,Test Client Intermediate");
    assert_peer(cctx_alice12, p, "n=2 alice,Test Client Intermediate");
    assert_peer(cctx_mallory, p, NULL);  /* a certificate that does not verify: refused */
    /* Several requests on one connection see the same chain. */
    tc *c = calloc(1, sizeof *c);
    c->fd = ts_connect(p);
    c->ssl = SSL_new(cctx_alice);
    SSL_set_fd(c->ssl, c->fd);
    assert_int_equal(SSL_connect(c->ssl), 1);
    for (int i = 0; i < 3; i++) {
        char *b = tc_get(c, "/peer");
        assert_string_equal(b, "n=2 alice,Test Client Intermediate");
        free(b);
    }
    /* A session resumed from a ticket (TLS 1.3) is still the client's: its own certificate
     * is kept in the session, its intermediates are not. */
    SSL_SESSION *sess = SSL_get1_session(c->ssl);
    SSL_shutdown(c->ssl); /* else OpenSSL marks the session not resumable */
    tc_close(c);
    assert_non_null(sess);
    c = calloc(1, sizeof *c);
    c->fd = ts_connect(p);
    c->ssl = SSL_new(cctx_alice);
    SSL_set_fd(c->ssl, c->fd);
    SSL_set_session(c->ssl, sess);
    assert_int_equal(SSL_connect(c->ssl), 1);
    char *b = tc_get(c, "/peer");
    assert_int_equal(SSL_session_reused(c->ssl), 1);
    assert_string_equal(b, "n=1 alice");
    free(b);
    SSL_SESSION_free(sess);
    tc_close(c);
    /* An intermediate given as an anchor is one (Java's TrustAnchor): alice alone verifies. */
    tachy_tls_config *mid;
    assert_int_equal(tachy_tls_config_create(&mid), 0);
    assert_int_equal(tachy_tls_config_load_pem(mid, cert_pem, cert_len, key_pem, key_len, NULL), 0);
    size_t len;
    char *pem = to_pem(0, ca_mid, &len);
    assert_int_equal(tachy_tls_config_add_client_ca_pem(mid, pem, len), 0);
    free(pem);
    assert_int_equal(tachy_tls_config_set_client_auth(mid, TACHY_TLS_CLIENT_AUTH_NEED), 0);
    int p2;
    tachy_server *s2 = start_https(mid, NULL, &p2);
    tachy_server_create_context(s2, "/peer", peer, NULL, NULL);
    tachy_tls_config_free(mid);
    SSL_CTX *alice_alone = client_ctx(alice, alice_key, NULL, 0);
    assert_peer(alice_alone, p2, "n=1 alice");
    SSL_CTX_free(alice_alone);
    ts_stop(s2);
    assert_true(wait_no_connections(s, CLOSE_WAIT_MS));
    ts_stop(s);
}

/* The bytes of a whole ClientHello, as a real client sends them first. */
static unsigned char *client_hello(size_t *len) {
    SSL *ssl = SSL_new(cctx);
    BIO *rb = BIO_new(BIO_s_mem()), *wb = BIO_new(BIO_s_mem());
    SSL_set_bio(ssl, rb, wb);
    SSL_set_tlsext_host_name(ssl, "localhost");
    assert_int_equal(SSL_connect(ssl), -1); /* wants the server's answer */
    char *data;
    long n = BIO_get_mem_data(wb, &data);
    assert_true(n > 5);
    unsigned char *out = malloc((size_t)n);
    memcpy(out, data, (size_t)n);
    *len = (size_t)n;
    SSL_free(ssl);
    ERR_clear_error();
    return out;
}

/* 1 if the server closed fd within ms (EOF or reset), 0 if it still holds it. */
static int closed_within(int fd, int ms) {
    size_t len = 0;
    int eof = 0;
    free(ts_read_raw(fd, ms, &len, &eof));
    return eof;
}

/* 1 when the server has sent fd something (its flight for a ClientHello) within ms. */
static int answered_within(int fd, int ms) {
    struct pollfd pf = {fd, POLLIN, 0};
    unsigned char b[1];
    return poll(&pf, 1, ms) == 1 && recv(fd, b, 1, MSG_PEEK | MSG_DONTWAIT) == 1;
}

/* The cap with eviction. Connections that sent nothing or part of a ClientHello hold no TLS
 * state and do not count; a whole ClientHello that finds the cap full evicts the oldest
 * handshake in progress (closed) and takes its place, and so does a real client, which is
 * then served; places and evictions are given back when connections go. */
static void handshake_cap(void **state) {
    (void)state;
    int p;
    tachy_server *s = start_https_capped(2, &p);
    size_t hl;
    unsigned char *hello = client_hello(&hl);
    enum { HALF = 20 };
    int half[HALF];
    for (int i = 0; i < HALF; i++) {
        half[i] = ts_connect(p);
        if (i % 2)
            ts_send(half[i], hello, (long)(hl / 2));
    }
    ts_sleep_ms(100);
    tc *t = tc_open(p); /* the cap is not touched by the half-open ones */
    free(tc_get(t, "/"));
    tc_close(t);
    /* Two stalled handshakes fill the cap, the first one oldest. */
    int stall[2];
    for (int i = 0; i < 2; i++) {
        stall[i] = ts_connect(p);
        ts_send(stall[i], hello, (long)hl);
        assert_true(answered_within(stall[i], 3000)); /* it holds its place */
    }
    /* A third evicts the oldest and takes its place; the other one stays. */
    int third = ts_connect(p);
    ts_send(third, hello, (long)hl);
    assert_true(closed_within(stall[0], 3000));
    assert_true(answered_within(third, 3000));
    assert_false(closed_within(stall[1], 100));
    /* A real client is served while the cap is full: it evicts stall[1], now the oldest. */
    tc *ok = tc_open_ex(p, 0, NULL);
    assert_non_null(ok);
    free(tc_get(ok, "/"));
    tc_close(ok);
    assert_true(closed_within(stall[1], 3000));
    assert_false(closed_within(third, 100)); /* the newest stays */
    for (int i = 0; i < HALF; i++)
        assert_false(closed_within(half[i], 1)); /* the half-open ones are still there */
    /* The real client's place was given back when its handshake ended: a fourth fits
     * without evicting anyone. */
    int fourth = ts_connect(p);
    ts_send(fourth, hello, (long)hl);
    assert_true(answered_within(fourth, 3000));
    assert_false(closed_within(third, 200));
    /* The rest of a half ClientHello completes one made from it: it evicts third. */
    ts_send(half[1], hello + hl / 2, (long)(hl - hl / 2));
    assert_true(answered_within(half[1], 3000)); /* the server's flight */
    assert_true(closed_within(third, 3000));
    assert_false(closed_within(fourth, 100));
    for (int i = 0; i < 2; i++)
        close(stall[i]);
    close(third);
    close(fourth);
    for (int i = 0; i < HALF; i++)
        close(half[i]);
    free(hello);
    assert_true(wait_no_connections(s, CLOSE_WAIT_MS));
    ts_stop(s);
}

/* A TCP connection to 127.0.0.1:p with send/receive timeouts of ms, or -1. Any thread (no
 * cmocka assertion). */
static int raw_connect(int p, int ms) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in sin;
    memset(&sin, 0, sizeof sin);
    sin.sin_family = AF_INET;
    sin.sin_port = htons((uint16_t)p);
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct timeval tv = {ms / 1000, (ms % 1000) * 1000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    if (connect(fd, (struct sockaddr *)&sin, sizeof sin) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* A GET / over a TLS handshake on fd: 1 if the answer was a 200. */
static int real_client_request(int fd) {
    SSL *ssl = SSL_new(cctx);
    int ok = 0;
    SSL_set_fd(ssl, fd);
    SSL_set_tlsext_host_name(ssl, "localhost");
    SSL_set1_host(ssl, "localhost");
    static const char req[] = "GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
    if (SSL_connect(ssl) == 1 && SSL_write(ssl, req, (int)sizeof req - 1) == (int)sizeof req - 1) {
        char buf[4096];
        size_t got = 0;
        int n;
        while (got < sizeof buf - 1 && (n = SSL_read(ssl, buf + got, (int)(sizeof buf - 1 - got))) > 0)
            got += (size_t)n;
        buf[got] = '\0';
        ok = strncmp(buf, "HTTP/1.1 200", 12) == 0;
    }
    ERR_clear_error();
    SSL_free(ssl);
    return ok;
}

/* One request by a real TLS client (verifying the server), every wait bounded by ms:
 * 1 if it got a 200, else 0. Any thread. OpenSSL's socket BIO writes with write(): a
 * SIGPIPE it raises (the server closed first) is blocked in this thread and taken here, so
 * the process keeps the default disposition the other tests rely on. */
static int real_client_served(int p, int ms) {
    sigset_t pipe_set, old_set;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old_set);
    int ok = 0;
    int fd = raw_connect(p, ms);
    if (fd >= 0) {
        ok = real_client_request(fd);
        close(fd);
    }
    sigset_t pending;
    sigpending(&pending);
    if (sigismember(&pending, SIGPIPE)) {
        const struct timespec zero = {0, 0};
        sigtimedwait(&pipe_set, NULL, &zero);
    }
    pthread_sigmask(SIG_SETMASK, &old_set, NULL);
    return ok;
}

/* Opens n stalled handshakes (a whole ClientHello each, then nothing) into fds; 0 for each
 * that could not connect. */
static void open_stalled(int p, const unsigned char *hello, size_t hl, int *fds, int n) {
    for (int i = 0; i < n; i++) {
        fds[i] = raw_connect(p, 2000);
        if (fds[i] >= 0 && send(fds[i], hello, hl, MSG_NOSIGNAL) != (ssize_t)hl) {
            close(fds[i]);
            fds[i] = -1;
        }
    }
}

/* 1 once the server has answered fd's ClientHello or closed fd, within ms. */
static int handled_within(int fd, int ms) {
    struct pollfd pf = {fd, POLLIN, 0};
    return poll(&pf, 1, ms) == 1;
}

/* The lock-out the eviction prevents: far more stalled connections than the cap - silent,
 * half a ClientHello, a whole one - are held open (the handshake deadline is 10 s), and a
 * real client is still served, at once and again and again; the stalled handshakes the
 * server keeps never exceed the cap. (Under valgrind, where a handshake's server side takes
 * ~100 ms, with a smaller cap and longer limits.) */
static void stalled_handshakes_do_not_lock_out(void **state) {
    (void)state;
    enum { MAX_CAP = 32, REAL = 8 };
    int slow = ts_under_valgrind();
    const int CAP = slow ? 8 : MAX_CAP, WHOLE = 3 * CAP, SILENT = CAP, HALFS = CAP;
    const int limit_ms = slow ? 20000 : 3000;
    int p;
    tachy_server *s = start_https_capped(CAP, &p);
    size_t hl;
    unsigned char *hello = client_hello(&hl);
    int silent[MAX_CAP], halfs[MAX_CAP], whole[3 * MAX_CAP];
    for (int i = 0; i < SILENT; i++)
        silent[i] = ts_connect(p);
    for (int i = 0; i < HALFS; i++) {
        halfs[i] = ts_connect(p);
        ts_send(halfs[i], hello, (long)(hl / 2));
    }
    open_stalled(p, hello, hl, whole, WHOLE);
    for (int i = 0; i < WHOLE; i++)
        assert_true(whole[i] >= 0);
    for (int i = 0; i < WHOLE; i++) /* the server has handled them all: the cap is full */
        assert_true(handled_within(whole[i], limit_ms));
    for (int i = 0; i < REAL; i++) {
        long t0 = ts_now_ms();
        assert_true(real_client_served(p, limit_ms));
        assert_true(ts_now_ms() - t0 < limit_ms);
    }
    /* The server keeps at most CAP of the whole ClientHellos; the oldest went first. */
    int open_whole = 0;
    for (int i = 0; i < WHOLE; i++)
        open_whole += !closed_within(whole[i], 20);
    assert_true(open_whole <= CAP);
    assert_true(closed_within(whole[0], 1000));
    for (int i = 0; i < SILENT; i++)
        assert_false(closed_within(silent[i], 1)); /* no TLS state: untouched */
    for (int i = 0; i < SILENT; i++)
        close(silent[i]);
    for (int i = 0; i < HALFS; i++)
        close(halfs[i]);
    for (int i = 0; i < WHOLE; i++)
        close(whole[i]);
    free(hello);
    assert_true(wait_no_connections(s, CLOSE_WAIT_MS));
    ts_stop(s);
}

typedef struct flood_arg {
    int port;
    const unsigned char *hello;
    size_t hl;
    long until;        /* ms: stop then */
    int pace_ms;       /* an attacker's pause after each reopen */
    int held;          /* an attacker's stalled handshakes (<= FLOOD_MAX_HELD) */
    int limit_ms;      /* a real client's limit per request */
    atomic_int *reopened;
    int served, tried; /* real clients */
} flood_arg;

enum { FLOOD_MAX_CAP = 64, FLOOD_MAX_HELD = 32, FLOOD_MAX_REOPEN = 1000 };

/* An attacker: holds a->held stalled handshakes and opens a new one for each the server
 * closes (pausing a->pace_ms after each), until a->until (and at most FLOOD_MAX_REOPEN
 * times). */
static void *flood_thread(void *arg) {
    flood_arg *a = arg;
    int fds[FLOOD_MAX_HELD];
    open_stalled(a->port, a->hello, a->hl, fds, a->held);
    int reopened = 0;
    while (ts_now_ms() < a->until && reopened < FLOOD_MAX_REOPEN) {
        struct pollfd pf[FLOOD_MAX_HELD];
        for (int i = 0; i < a->held; i++)
            pf[i] = (struct pollfd){fds[i], POLLIN, 0};
        if (poll(pf, a->held, 20) < 0 && errno != EINTR)
            break;
        for (int i = 0; i < a->held; i++) {
            if (fds[i] >= 0 && !(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            if (fds[i] >= 0) {
                char b[4096];
                ssize_t n = recv(fds[i], b, sizeof b, MSG_DONTWAIT);
                if (n > 0 || (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)))
                    continue; /* the server's flight, never answered */
                close(fds[i]);
            }
            open_stalled(a->port, a->hello, a->hl, &fds[i], 1);
            reopened++;
            ts_sleep_ms(a->pace_ms);
        }
    }
    for (int i = 0; i < a->held; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    atomic_fetch_add(a->reopened, reopened);
    return NULL;
}

/* A real client: requests one after another until a->until, each bounded to 3 s. */
static void *real_thread(void *arg) {
    flood_arg *a = arg;
    while (ts_now_ms() < a->until && a->tried < 200) {
        a->tried++;
        a->served += real_client_served(a->port, a->limit_ms);
    }
    return NULL;
}

/* Attackers on several threads keep the cap full of stalled handshakes (more than the cap,
 * reopening what the server evicts) while real clients on other threads make requests:
 * the real clients are served (before eviction: none until the stalled ones' deadline; a
 * real client is evicted only when FLOOD_CAP newer ClientHellos come during its handshake,
 * hence the attackers' pace), and afterwards the cap's bookkeeping is intact: FLOOD_CAP
 * stalled handshakes all keep their places, and evictions still work (an evicted count
 * that leaked would refuse newcomers after FLOOD_CAP / 8 + 1). */
static void handshake_evictions_concurrent(void **state) {
    (void)state;
    enum { FLOODERS = 3, REALS = 2 };
    /* Under valgrind a handshake's server side takes ~100 ms: fewer, slower, longer. */
    int slow = ts_under_valgrind();
    const int FLOOD_CAP = slow ? 16 : FLOOD_MAX_CAP, per_attacker = slow ? 8 : FLOOD_MAX_HELD;
    const int limit_ms = slow ? 20000 : 3000;
    int p;
    tachy_server *s = start_https_capped(FLOOD_CAP, &p);
    size_t hl;
    unsigned char *hello = client_hello(&hl);
    atomic_int reopened = 0;
    long until = ts_now_ms() + (slow ? 15000 : 2500);
    int pace = slow ? 300 : 5;
    flood_arg fa[FLOODERS], ra[REALS];
    pthread_t ft[FLOODERS], rt[REALS];
    for (int i = 0; i < FLOODERS; i++) {
        fa[i] = (flood_arg){p, hello, hl, until, pace, per_attacker, limit_ms, &reopened, 0, 0};
        assert_int_equal(pthread_create(&ft[i], NULL, flood_thread, &fa[i]), 0);
    }
    ts_sleep_ms(slow ? 3000 : 300); /* the cap is full before the real clients come */
    for (int i = 0; i < REALS; i++) {
        ra[i] = (flood_arg){p, hello, hl, until, pace, per_attacker, limit_ms, &reopened, 0, 0};
        assert_int_equal(pthread_create(&rt[i], NULL, real_thread, &ra[i]), 0);
    }
    for (int i = 0; i < REALS; i++)
        pthread_join(rt[i], NULL);
    for (int i = 0; i < FLOODERS; i++)
        pthread_join(ft[i], NULL);
    int served = 0, tried = 0;
    for (int i = 0; i < REALS; i++) {
        served += ra[i].served;
        tried += ra[i].tried;
    }
    print_message("real clients served %d/%d while %d stalled handshakes were reopened\n",
                  served, tried, atomic_load(&reopened));
    assert_true(atomic_load(&reopened) > 0); /* the cap was full: evictions happened */
    assert_true(tried > 0);
    assert_true(served * 2 >= tried); /* at least half served (before: none) */
    assert_true(wait_no_connections(s, CLOSE_WAIT_MS));
    /* Bookkeeping intact: FLOOD_CAP stalled handshakes fit without evicting each other... */
    int kept[FLOOD_MAX_CAP];
    for (int i = 0; i < FLOOD_CAP; i++) {
        kept[i] = ts_connect(p);
        ts_send(kept[i], hello, (long)hl);
        assert_true(answered_within(kept[i], limit_ms));
    }
    for (int i = 0; i < FLOOD_CAP; i++)
        assert_false(closed_within(kept[i], 20));
    /* ... and more than FLOOD_CAP / 8 + 1 evictions in a row, each waited for, all work. */
    for (int k = 0; k < FLOOD_CAP / 8 + 3; k++) {
        int i = k % FLOOD_CAP;
        int fd = ts_connect(p);
        ts_send(fd, hello, (long)hl);
        assert_true(answered_within(fd, limit_ms));
        assert_true(closed_within(kept[i], limit_ms)); /* the oldest */
        close(kept[i]);
        kept[i] = fd;
    }
    assert_true(real_client_served(p, limit_ms));
    for (int i = 0; i < FLOOD_CAP; i++)
        close(kept[i]);
    free(hello);
    assert_true(wait_no_connections(s, CLOSE_WAIT_MS));
    ts_stop(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(config_errors),
        cmocka_unit_test(keep_alive),
        cmocka_unit_test(session_accessors),
        cmocka_unit_test(min_version_13_refuses_tls12),
        cmocka_unit_test(max_version_12),
        cmocka_unit_test(pipelined_one_write),
        cmocka_unit_test(chunked_bodies),
        cmocka_unit_test(large_bodies),
        cmocka_unit_test(send_file_over_tls),
        cmocka_unit_test(handshake_timeout),
        cmocka_unit_test(tls12_default_is_aead_only),
        cmocka_unit_test(plaintext_to_tls_port),
        cmocka_unit_test(clients_vanishing),
        cmocka_unit_test(websocket_over_tls),
        cmocka_unit_test(websocket_cross_thread_sends),
        cmocka_unit_test(websocket_broadcast_over_tls),
        cmocka_unit_test(stop_with_open_tls_connections),
        cmocka_unit_test(client_auth_config_errors),
        cmocka_unit_test(client_auth_need),
        cmocka_unit_test(client_auth_want),
        cmocka_unit_test(handshake_cap),
        cmocka_unit_test(proxy_protocol_before_tls),
        cmocka_unit_test(stalled_handshakes_do_not_lock_out),
        cmocka_unit_test(handshake_evictions_concurrent),
        cmocka_unit_test(handshake_metrics),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
