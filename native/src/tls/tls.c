/*
 * tls/tls.c - HTTPS: the OpenSSL transport, tachy_tls_config, and the HttpsExchange accessors.
 * The only file that includes OpenSSL.
 *
 * Each TLS connection has one SSL object over a small BIO of our own (not OpenSSL's socket
 * BIO) so that:
 *   - every send carries MSG_NOSIGNAL: no SIGPIPE, whatever the application's signal setup;
 *   - reads and writes block or not per call (recv/send flags), on the same blocking
 *     socket the plain path uses, bounded by the same SO_RCVTIMEO/SO_SNDTIMEO;
 *   - records produced by one flush are collected and leave in one send (the flush rule:
 *     sixteen pipelined responses are one SSL_write and one syscall, as on plain HTTP);
 *   - the server's read/write counters (tachy_stats) count syscalls as on plain HTTP.
 *
 * Reading rule (the park set is edge-triggered): a read keeps calling SSL_read without
 * waiting until OpenSSL reports that the socket is drained (WANT_READ) or the caller's
 * buffer is full, so "fewer bytes than asked" still means "nothing more to read until the
 * next epoll event" - and whatever sits decrypted inside OpenSSL (SSL_pending) is reported
 * through the transport's pending() and read before the connection is parked.
 *
 * Handshake: SSL_read in accept state drives it, non-blocking, on the connection's thread;
 * while the client's next flight is awaited, http/conn.c parks the connection with the
 * handshake deadline (hs_deadline), so no thread waits on a silent client.
 *
 * Upgraded streams (wss): a WebSocket may be written by any thread while its connection
 * thread reads. One SSL object must not be used by two threads at once, so stream reads
 * and writes take a per-connection mutex around each (non-blocking) SSL call and wait in
 * poll() without it.
 */
#include "tls/tls.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

/*
 * ---- OpenSSL, loaded when HTTPS is first configured ----------------------------------
 *
 * libtachy does not link libssl/libcrypto: merely loading them costs a process about
 * 1.5 MiB of RSS (measured on tachy-hello: the dynamic linker reads libcrypto's symbol
 * tables and relocates its data) and makes them a hard runtime dependency of every plain
 * HTTP server. The first tachy_tls_config_create() dlopen()s the libssl this file was
 * compiled against and resolves the functions below; from then on the names used in this
 * file are those pointers (the #defines after the table). Every OpenSSL function tls.c
 * calls - including those OpenSSL's own macros expand to - must be in TACHY_OPENSSL_FNS: a
 * missing one is an undefined reference when linking, never a silent direct call.
 * OpenSSL's static inline helpers (sk_X509_*...) would call the real symbols, so tls.c
 * does not use them.
 */
#define TACHY_OPENSSL_FNS(X) \
    X(BIO_clear_flags) \
    X(BIO_free) \
    X(BIO_get_data) \
    X(BIO_get_new_index) \
    X(BIO_meth_free) \
    X(BIO_meth_new) \
    X(BIO_meth_set_create) \
    X(BIO_meth_set_ctrl) \
    X(BIO_meth_set_destroy) \
    X(BIO_meth_set_read) \
    X(BIO_meth_set_write) \
    X(BIO_new) \
    X(BIO_new_mem_buf) \
    X(BIO_set_data) \
    X(BIO_set_flags) \
    X(BIO_set_init) \
    X(ERR_clear_error) \
    X(ERR_error_string_n) \
    X(ERR_peek_last_error) \
    X(EVP_PKEY_free) \
    X(OPENSSL_cleanse) \
    X(OPENSSL_sk_num) \
    X(OPENSSL_sk_value) \
    X(PEM_read_bio_PrivateKey) \
    X(PEM_read_bio_X509) \
    X(PEM_read_bio_X509_AUX) \
    X(SSL_CIPHER_get_name) \
    X(SSL_CIPHER_standard_name) \
    X(SSL_CTX_ctrl) \
    X(SSL_CTX_free) \
    X(SSL_CTX_add_client_CA) \
    X(SSL_CTX_new) \
    X(SSL_CTX_set_alpn_select_cb) \
    X(SSL_CTX_set_cipher_list) \
    X(SSL_CTX_set_ciphersuites) \
    X(SSL_CTX_set_options) \
    X(SSL_CTX_set_session_id_context) \
    X(SSL_CTX_set_verify) \
    X(SSL_CTX_use_PrivateKey) \
    X(SSL_CTX_use_certificate) \
    X(SSL_free) \
    X(SSL_get0_alpn_selected) \
    X(SSL_get_current_cipher) \
    X(SSL_get_error) \
    X(SSL_get_peer_cert_chain) \
    X(SSL_get_session) \
    X(SSL_get_servername) \
    X(SSL_get_verify_result) \
    X(SSL_get_version) \
    X(SSL_is_init_finished) \
    X(SSL_new) \
    X(SSL_pending) \
    X(SSL_read_ex) \
    X(SSL_SESSION_get0_peer) \
    X(SSL_select_next_proto) \
    X(SSL_set_accept_state) \
    X(SSL_set_bio) \
    X(SSL_shutdown) \
    X(SSL_write_ex) \
    X(TLS_server_method) \
    X(X509_STORE_add_cert) \
    X(X509_STORE_free) \
    X(X509_STORE_new) \
    X(X509_STORE_set_flags) \
    X(X509_check_private_key) \
    X(X509_cmp) \
    X(X509_free) \
    X(X509_verify_cert_error_string) \
    X(i2d_X509)

static struct {
#define X(f) __typeof__(f) *f;
    TACHY_OPENSSL_FNS(X)
#undef X
} ossl;

static pthread_once_t ossl_once = PTHREAD_ONCE_INIT;
static int ossl_rc = TACHY_ETLS;
static char ossl_error[512];

static void ossl_load(void) {
#define TACHY__STR2(x) #x
#define TACHY__STR(x) TACHY__STR2(x)
    /* The libssl of the headers this file was compiled with first, then OpenSSL 1.1.1's
     * (RHEL 8, Ubuntu 20.04, Amazon Linux 2): every function in TACHY_OPENSSL_FNS exists
     * in 1.1.1 with the same ABI on LP64 targets (SSL_CTX_set_options' unsigned long of
     * 1.1.1 and uint64_t of 3.x are both 64 bits there). */
    static const char *const names[] = {"libssl.so." TACHY__STR(OPENSSL_SHLIB_VERSION),
                                        "libssl.so.1.1"};
    const char *name = NULL;
    void *h = NULL;
    size_t off = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !h; i++) {
        if (i > 0 && strcmp(names[i], names[0]) == 0)
            continue;
        name = names[i];
        /* RTLD_NODELETE: a pointer resolved here stays valid for the life of the process. */
        h = dlopen(name, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
        if (!h && off < sizeof ossl_error) {
            int n = snprintf(ossl_error + off, sizeof ossl_error - off, "%scannot load %s: %s",
                             off ? "; " : "", name, dlerror());
            off += n > 0 ? (size_t)n : 0;
        }
    }
    if (!h)
        return;
#define X(f)                                                                                       \
    if (!(*(void **)&ossl.f = dlsym(h, #f))) {                                                     \
        snprintf(ossl_error, sizeof ossl_error, "%s has no %s", name, #f);                          \
        return;                                                                                    \
    }
    TACHY_OPENSSL_FNS(X)
#undef X
    ossl_rc = 0;
}

/* 0 once OpenSSL is usable, else TACHY_ETLS (the reason is logged once, to stderr: there
 * is no server yet to log through). Any thread. */
static int ossl_ready(void) {
    pthread_once(&ossl_once, ossl_load);
    if (ossl_rc < 0) {
        static atomic_int told;
        if (!atomic_exchange(&told, 1))
            fprintf(stderr, "tachy: HTTPS unavailable: %s\n", ossl_error);
    }
    return ossl_rc;
}

#define BIO_clear_flags (ossl.BIO_clear_flags)
#define BIO_free (ossl.BIO_free)
#define BIO_get_data (ossl.BIO_get_data)
#define BIO_get_new_index (ossl.BIO_get_new_index)
#define BIO_meth_free (ossl.BIO_meth_free)
#define BIO_meth_new (ossl.BIO_meth_new)
#define BIO_meth_set_create (ossl.BIO_meth_set_create)
#define BIO_meth_set_ctrl (ossl.BIO_meth_set_ctrl)
#define BIO_meth_set_destroy (ossl.BIO_meth_set_destroy)
#define BIO_meth_set_read (ossl.BIO_meth_set_read)
#define BIO_meth_set_write (ossl.BIO_meth_set_write)
#define BIO_new (ossl.BIO_new)
#define BIO_new_mem_buf (ossl.BIO_new_mem_buf)
#define BIO_set_data (ossl.BIO_set_data)
#define BIO_set_flags (ossl.BIO_set_flags)
#define BIO_set_init (ossl.BIO_set_init)
#define ERR_clear_error (ossl.ERR_clear_error)
#define ERR_error_string_n (ossl.ERR_error_string_n)
#define ERR_peek_last_error (ossl.ERR_peek_last_error)
#define EVP_PKEY_free (ossl.EVP_PKEY_free)
#define OPENSSL_cleanse (ossl.OPENSSL_cleanse)
#define OPENSSL_sk_num (ossl.OPENSSL_sk_num)
#define OPENSSL_sk_value (ossl.OPENSSL_sk_value)
#define PEM_read_bio_PrivateKey (ossl.PEM_read_bio_PrivateKey)
#define PEM_read_bio_X509 (ossl.PEM_read_bio_X509)
#define PEM_read_bio_X509_AUX (ossl.PEM_read_bio_X509_AUX)
#define SSL_CIPHER_get_name (ossl.SSL_CIPHER_get_name)
#define SSL_CIPHER_standard_name (ossl.SSL_CIPHER_standard_name)
#define SSL_CTX_ctrl (ossl.SSL_CTX_ctrl)
#define SSL_CTX_free (ossl.SSL_CTX_free)
#define SSL_CTX_add_client_CA (ossl.SSL_CTX_add_client_CA)
#define SSL_CTX_new (ossl.SSL_CTX_new)
#define SSL_CTX_set_alpn_select_cb (ossl.SSL_CTX_set_alpn_select_cb)
#define SSL_CTX_set_cipher_list (ossl.SSL_CTX_set_cipher_list)
#define SSL_CTX_set_ciphersuites (ossl.SSL_CTX_set_ciphersuites)
#define SSL_CTX_set_options (ossl.SSL_CTX_set_options)
#define SSL_CTX_set_session_id_context (ossl.SSL_CTX_set_session_id_context)
#define SSL_CTX_set_verify (ossl.SSL_CTX_set_verify)
#define SSL_CTX_use_PrivateKey (ossl.SSL_CTX_use_PrivateKey)
#define SSL_CTX_use_certificate (ossl.SSL_CTX_use_certificate)
#define SSL_free (ossl.SSL_free)
#define SSL_get0_alpn_selected (ossl.SSL_get0_alpn_selected)
#define SSL_get_current_cipher (ossl.SSL_get_current_cipher)
#define SSL_get_error (ossl.SSL_get_error)
#define SSL_get_peer_cert_chain (ossl.SSL_get_peer_cert_chain)
#define SSL_get_session (ossl.SSL_get_session)
#define SSL_get_servername (ossl.SSL_get_servername)
#define SSL_get_verify_result (ossl.SSL_get_verify_result)
#define SSL_get_version (ossl.SSL_get_version)
#define SSL_is_init_finished (ossl.SSL_is_init_finished)
#define SSL_new (ossl.SSL_new)
#define SSL_pending (ossl.SSL_pending)
#define SSL_read_ex (ossl.SSL_read_ex)
#define SSL_SESSION_get0_peer (ossl.SSL_SESSION_get0_peer)
#define SSL_select_next_proto (ossl.SSL_select_next_proto)
#define SSL_set_accept_state (ossl.SSL_set_accept_state)
#define SSL_set_bio (ossl.SSL_set_bio)
#define SSL_shutdown (ossl.SSL_shutdown)
#define SSL_write_ex (ossl.SSL_write_ex)
#define TLS_server_method (ossl.TLS_server_method)
#define X509_STORE_add_cert (ossl.X509_STORE_add_cert)
#define X509_STORE_free (ossl.X509_STORE_free)
#define X509_STORE_new (ossl.X509_STORE_new)
#define X509_STORE_set_flags (ossl.X509_STORE_set_flags)
#define X509_check_private_key (ossl.X509_check_private_key)
#define X509_cmp (ossl.X509_cmp)
#define X509_free (ossl.X509_free)
#define X509_verify_cert_error_string (ossl.X509_verify_cert_error_string)
#define i2d_X509 (ossl.i2d_X509)

#define CORK_FLUSH_AT (64 * 1024) /* collected records leave once this much is waiting */
#define CORK_KEEP (32 * 1024)     /* a larger collection buffer is freed after the flush */
#define MAX_PEM_FILE (16 * 1024 * 1024)

struct tachy_tls_config {
    SSL_CTX *ctx;
    atomic_int refs;
    atomic_int frozen; /* given to a server: read-only */
    int loaded;        /* certificate and key in place */
    X509_STORE *client_cas; /* trust anchors for client certificates (NULL: none added) */
    int client_auth;   /* TACHY_TLS_CLIENT_AUTH_* */
    int max_handshakes; /* SSL objects in handshake at once (0: no cap) */
    atomic_int handshakes; /* SSL objects of this config whose handshake is in progress */
};

typedef struct tls_conn {
    SSL *ssl;
    tachy__conn *c;
    int fd;
    int io_flags;      /* recv/send flags for the BIO: 0 or MSG_DONTWAIT */
    int cork;          /* BIO writes are collected in out */
    int sys_errno;     /* errno of the last failed send/recv in the BIO */
    int fatal;         /* an SSL or I/O error: no close_notify */
    int notified;      /* close_notify sent */
    int logged;        /* the one debug line per connection was written */
    int counted;       /* counted in cfg->handshakes (SSL object made, handshake not done) */
    tachy__buf out;    /* collected records (cork) */
    pthread_mutex_t lock; /* stream mode: one SSL call at a time */
} tls_conn;

static inline tls_conn *TLS(const tachy__conn *c) { return (tls_conn *)c->xp_data; }

/* ---- the BIO: recv/send on the connection's socket --------------------------------- */

static BIO_METHOD *bio_method;
static pthread_once_t bio_once = PTHREAD_ONCE_INIT;

/* Sends everything collected (blocking, bounded by SO_SNDTIMEO). 0 or -1 with sys_errno. */
static int out_flush(tls_conn *t) {
    tachy__buf *o = &t->out;
    while (tachy__buf_size(o) > 0) {
        /* Counted before the call: whatever a client has received is already counted. */
        atomic_fetch_add_explicit(&t->c->srv->st_writes, 1, memory_order_relaxed);
        ssize_t n = send(t->fd, o->data + o->off, tachy__buf_size(o), MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            t->sys_errno = errno;
            tachy__buf_reset(o);
            return -1;
        }
        tachy__buf_consume(o, (size_t)n);
    }
    tachy__buf_reset(o);
    return 0;
}

static int bio_write(BIO *b, const char *data, int len) {
    tls_conn *t = BIO_get_data(b);
    BIO_clear_retry_flags(b);
    if (len <= 0)
        return 0;
    if (t->cork) {
        if (tachy__buf_append(&t->out, data, (size_t)len) < 0) {
            t->sys_errno = ENOMEM;
            return -1;
        }
        if (tachy__buf_size(&t->out) >= CORK_FLUSH_AT && out_flush(t) < 0)
            return -1;
        return len;
    }
    for (;;) {
        atomic_fetch_add_explicit(&t->c->srv->st_writes, 1, memory_order_relaxed);
        ssize_t n = send(t->fd, data, (size_t)len, MSG_NOSIGNAL | t->io_flags);
        if (n >= 0)
            return (int)n;
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            BIO_set_retry_write(b);
        else
            t->sys_errno = errno;
        return -1;
    }
}

static int bio_read(BIO *b, char *buf, int len) {
    tls_conn *t = BIO_get_data(b);
    BIO_clear_retry_flags(b);
    if (len <= 0)
        return 0;
    for (;;) {
        ssize_t n = recv(t->fd, buf, (size_t)len, t->io_flags);
        if (n > 0) {
            atomic_fetch_add_explicit(&t->c->srv->st_reads, 1, memory_order_relaxed);
            return (int)n;
        }
        if (n == 0)
            return 0;
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            BIO_set_retry_read(b);
        else
            t->sys_errno = errno;
        return -1;
    }
}

static long bio_ctrl(BIO *b, int cmd, long num, void *ptr) {
    (void)num;
    tls_conn *t = BIO_get_data(b);
    switch (cmd) {
    case BIO_CTRL_FLUSH:
        return 1; /* writes are flushed by tls_writev (or not collected at all) */
    case BIO_C_GET_FD:
        if (ptr)
            *(int *)ptr = t ? t->fd : -1;
        return t ? t->fd : -1;
    default:
        return 0;
    }
}

static int bio_create(BIO *b) {
    BIO_set_init(b, 1);
    return 1;
}

static int bio_destroy(BIO *b) {
    (void)b;
    return 1; /* the tls_conn owns nothing of the BIO's */
}

/* Created once per process and kept (an index from BIO_get_new_index is a scarce global). */
static void bio_method_init(void) {
    BIO_METHOD *m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "tachy socket");
    if (!m)
        return;
    if (!BIO_meth_set_write(m, bio_write) || !BIO_meth_set_read(m, bio_read) ||
        !BIO_meth_set_ctrl(m, bio_ctrl) || !BIO_meth_set_create(m, bio_create) ||
        !BIO_meth_set_destroy(m, bio_destroy)) {
        BIO_meth_free(m);
        return;
    }
    bio_method = m;
}

/* ---- errors -------------------------------------------------------------------------- */

/* Logs OpenSSL's reason once per connection (DEBUG) and empties the thread's error queue. */
static void log_once(tls_conn *t, const char *what) {
    unsigned long e = ERR_peek_last_error();
    if (!t->logged && t->c->srv->opt.log) {
        char msg[256];
        if (e)
            ERR_error_string_n(e, msg, sizeof msg);
        else
            snprintf(msg, sizeof msg, "%s", t->sys_errno ? strerror(t->sys_errno) : "EOF");
        /* A client certificate that did not verify: say why (expired, unknown CA...). */
        long v = t->ssl ? SSL_get_verify_result(t->ssl) : X509_V_OK;
        tachy__log(t->c->srv, TACHY_LOG_DEBUG, "TLS %s: %s%s%s", what, msg,
                   v != X509_V_OK ? ": client certificate: " : "",
                   v != X509_V_OK ? X509_verify_cert_error_string(v) : "");
    }
    t->logged = 1;
    ERR_clear_error();
}


/* Maps SSL_get_error's answer (not WANT_*, which callers handle) to a result: 0 for a clean
 * end of stream, else a TACHY_E* code; the connection cannot be used for TLS any more. */
static int fail_code(tls_conn *t, int err) {
    switch (err) {
    case SSL_ERROR_ZERO_RETURN:
        ERR_clear_error();
        return 0;
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE:
        return TACHY_ETIMEDOUT;
    case SSL_ERROR_SYSCALL:
        t->fatal = 1;
        if (!t->sys_errno) {
            ERR_clear_error();
            return 0; /* EOF in the middle of a record: the peer went away */
        }
        if (!SSL_is_init_finished(t->ssl))
            log_once(t, "handshake failed");
        ERR_clear_error();
        return tachy__io_errno(t->sys_errno);
    default:
        t->fatal = 1;
        if (!SSL_is_init_finished(t->ssl)) {
            log_once(t, "handshake failed");
            return TACHY_ETLS;
        }
        log_once(t, "error");
        return TACHY_EIO;
    }
}


/* How long a non-blocking connection-mode call may wait for socket buffer space: until
 * the handshake deadline while handshaking, else the send timeout the socket has. */
static int write_wait_ms(tachy__conn *c) {
    if (!TLS(c)->ssl || !SSL_is_init_finished(TLS(c)->ssl)) {
        long left = c->hs_deadline - tachy__now_ms();
        return left > 0 ? (int)TACHY__MIN(left, INT_MAX) : 0;
    }
    long ms = c->srv->opt.max_rsp_time_ms > 0 ? c->srv->opt.max_rsp_time_ms
                                              : c->srv->opt.idle_interval_ms;
    return (int)TACHY__MIN(ms, INT_MAX);
}

/* ---- the transport --------------------------------------------------------------------- */

/*
 * Half-open handshakes. An SSL object in accept state costs about 9 KB, and ~46 KB once it
 * has read the first bytes of a ClientHello (OpenSSL's read and write buffers and the
 * zero-filled handshake buffer, held until the handshake ends: SSL_MODE_RELEASE_BUFFERS
 * only helps between records). A client that opens a connection and sends nothing, or half
 * a ClientHello, must not make the server pay that until the handshake deadline. So:
 *   - the SSL object is made only once the whole first TLS record (the ClientHello) is in
 *     the socket's receive queue: the record header is peeked (MSG_PEEK, 5 bytes) and
 *     FIONREAD says whether the rest has arrived; until then the connection waits in the
 *     park set holding no TLS state (the edge-triggered set raises a new event for each
 *     arrival). What is not a TLS handshake record goes to OpenSSL at once, which rejects
 *     it (plain HTTP on the TLS port, as before);
 *   - at most max_handshakes SSL objects of a config are in handshake at once
 *     (tachy_tls_config_set_max_handshakes): a complete ClientHello beyond that closes the
 *     connection at once, as jdk.httpserver.maxConnections closes one beyond its limit.
 * The handshake deadline (tls_handshake_time_ms) bounds how long either waits.
 */

/* Makes t's SSL object (the first ClientHello record has arrived). 0 or TACHY_E*. */
static int tls_new_ssl(tls_conn *t) {
    tachy_tls_config *cfg = t->c->srv->tls;
    if (cfg->max_handshakes > 0 &&
        atomic_fetch_add(&cfg->handshakes, 1) >= cfg->max_handshakes) {
        atomic_fetch_sub(&cfg->handshakes, 1);
        if (t->c->srv->opt.log)
            tachy__log(t->c->srv, TACHY_LOG_DEBUG,
                       "TLS handshake refused: %d handshakes in progress (the cap)",
                       cfg->max_handshakes);
        t->logged = 1;
        return TACHY_ETLS;
    }
    t->counted = cfg->max_handshakes > 0;
    t->ssl = SSL_new(cfg->ctx);
    BIO *bio = t->ssl ? BIO_new(bio_method) : NULL;
    if (!bio) {
        SSL_free(t->ssl);
        t->ssl = NULL;
        ERR_clear_error();
        return TACHY_ENOMEM; /* t->counted is given back by tls_free */
    }
    BIO_set_data(bio, t);
    SSL_set_bio(t->ssl, bio, bio);
    SSL_set_accept_state(t->ssl);
    return 0;
}

/* The handshake is over (done, or the connection fails): give back t's place in the cap. */
static void hs_uncount(tls_conn *t) {
    if (t->counted) {
        t->counted = 0;
        atomic_fetch_sub(&t->c->srv->tls->handshakes, 1);
    }
}

/* 1 when the first TLS record is complete in the socket's receive queue (or what came is no
 * TLS handshake record, for OpenSSL to reject), TACHY_ETIMEDOUT while it is incomplete, 0 at
 * EOF, else TACHY_E*. Never consumes a byte. */
static int hello_arrived(tls_conn *t) {
    unsigned char h[5];
    ssize_t n;
    do
        n = recv(t->fd, h, sizeof h, MSG_PEEK | MSG_DONTWAIT);
    while (n < 0 && errno == EINTR);
    if (n == 0)
        return 0;
    if (n < 0)
        return errno == EAGAIN || errno == EWOULDBLOCK ? TACHY_ETIMEDOUT : tachy__io_errno(errno);
    if (h[0] != 22 /* handshake */ || (n >= 2 && h[1] != 3))
        return 1;
    if (n < (ssize_t)sizeof h)
        return TACHY_ETIMEDOUT;
    int body = h[3] << 8 | h[4];
    if (body > 16384 + 2048)
        return 1; /* over the record limit (RFC 8446 5.2): OpenSSL sends the alert */
    int avail = 0;
    if (ioctl(t->fd, FIONREAD, &avail) < 0)
        return 1;
    return avail >= (int)sizeof h + body ? 1 : TACHY_ETIMEDOUT;
}

static ssize_t tls_read(tachy__conn *c, void *buf, size_t len, int flags) {
    tls_conn *t = TLS(c);
    size_t got = 0;
    if (__builtin_expect(t->ssl == NULL, 0)) {
        int rc = hello_arrived(t);
        if (rc == 1)
            rc = tls_new_ssl(t);
        if (rc != 0 || !t->ssl)
            return rc; /* TACHY_ETIMEDOUT: park until more arrives; 0: EOF */
    }
    t->cork = 0;
    t->io_flags = flags & MSG_DONTWAIT;
    while (got < len) {
        size_t n = 0;
        t->sys_errno = 0;
        ERR_clear_error();
        int r = SSL_read_ex(t->ssl, (char *)buf + got, len - got, &n);
        if (r > 0) {
            got += n;
            t->io_flags = MSG_DONTWAIT; /* take what else is there, without waiting */
            continue;
        }
        int e = SSL_get_error(t->ssl, r);
        if (got > 0) {
            ERR_clear_error();
            break; /* drained (or an error, which the next read reports again) */
        }
        if (e == SSL_ERROR_WANT_WRITE && t->io_flags == MSG_DONTWAIT) {
            /* A handshake flight does not fit the socket buffer: wait for room. */
            int rc = tachy__io_wait(c->fd, POLLOUT, write_wait_ms(c));
            if (rc < 0)
                return rc;
            continue;
        }
        if (t->counted && SSL_is_init_finished(t->ssl))
            hs_uncount(t);
        return fail_code(t, e);
    }
    if (t->counted && SSL_is_init_finished(t->ssl))
        hs_uncount(t);
    return (ssize_t)got;
}

static int tls_writev(tachy__conn *c, const struct iovec *iov, int cnt) {
    tls_conn *t = TLS(c);
    if (!t->ssl) { /* no ClientHello yet: nothing can have been produced to send */
        for (int i = 0; i < cnt; i++)
            if (iov[i].iov_len)
                return TACHY_EIO;
        return 0;
    }
    if (t->fatal)
        return TACHY_EIO;
    int rc = 0;
    t->io_flags = 0;
    t->cork = 1;
    t->sys_errno = 0;
    for (int i = 0; i < cnt && rc == 0; i++) {
        const char *p = iov[i].iov_base;
        size_t left = iov[i].iov_len;
        while (left > 0) {
            size_t n = 0;
            ERR_clear_error();
            int r = SSL_write_ex(t->ssl, p, left, &n);
            if (r <= 0) {
                int e = SSL_get_error(t->ssl, r);
                rc = t->sys_errno ? tachy__io_errno(t->sys_errno) : fail_code(t, e);
                if (rc == 0)
                    rc = TACHY_EPEERCLOSED;
                break;
            }
            p += n;
            left -= n;
        }
    }
    if (rc == 0 && out_flush(t) < 0)
        rc = tachy__io_errno(t->sys_errno);
    t->cork = 0;
    if (rc < 0) {
        t->fatal = 1; /* a record may be half sent: the session cannot go on */
        tachy__buf_reset(&t->out);
        ERR_clear_error();
    }
    if (t->out.cap > CORK_KEEP)
        tachy__buf_free(&t->out);
    return rc;
}

static int tls_pending(const tachy__conn *c) {
    return TLS(c)->ssl && SSL_pending(TLS(c)->ssl) > 0;
}

static int tls_ready(const tachy__conn *c) {
    return TLS(c)->ssl && SSL_is_init_finished(TLS(c)->ssl);
}

static ssize_t tls_stream_read(tachy__conn *c, void *buf, size_t len, int timeout_ms,
                               atomic_int *shut) {
    tls_conn *t = TLS(c);
    for (;;) {
        if (atomic_load(shut))
            return TACHY_ECLOSED;
        size_t n = 0;
        pthread_mutex_lock(&t->lock);
        t->cork = 0;
        t->io_flags = MSG_DONTWAIT;
        t->sys_errno = 0;
        ERR_clear_error();
        int r = SSL_read_ex(t->ssl, buf, len, &n);
        int e = r > 0 ? SSL_ERROR_NONE : SSL_get_error(t->ssl, r);
        int rc = 0;
        if (e != SSL_ERROR_NONE && e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE)
            rc = fail_code(t, e);
        pthread_mutex_unlock(&t->lock);
        if (r > 0)
            return (ssize_t)n;
        if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
            rc = tachy__io_wait(c->fd, e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, timeout_ms);
            if (rc < 0)
                return rc;
            continue;
        }
        return rc;
    }
}

static ssize_t tls_stream_write(tachy__conn *c, const void *buf, size_t len, int timeout_ms,
                                atomic_int *shut) {
    tls_conn *t = TLS(c);
    const char *p = buf;
    size_t left = len;
    while (left > 0) {
        if (atomic_load(shut))
            return TACHY_ECLOSED;
        size_t n = 0;
        pthread_mutex_lock(&t->lock);
        int rc = 0, e = SSL_ERROR_NONE;
        if (t->fatal) {
            rc = TACHY_EIO;
        } else {
            t->cork = 0;
            t->io_flags = MSG_DONTWAIT;
            t->sys_errno = 0;
            ERR_clear_error();
            int r = SSL_write_ex(t->ssl, p, left, &n);
            if (r <= 0) {
                e = SSL_get_error(t->ssl, r);
                if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) {
                    rc = t->sys_errno ? tachy__io_errno(t->sys_errno) : fail_code(t, e);
                    if (rc == 0)
                        rc = TACHY_EPEERCLOSED;
                    t->fatal = 1;
                }
            }
        }
        pthread_mutex_unlock(&t->lock);
        if (rc < 0)
            return rc;
        if (e == SSL_ERROR_NONE) {
            p += n;
            left -= n;
            continue;
        }
        rc = tachy__io_wait(c->fd, e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, timeout_ms);
        if (rc < 0) {
            /* A record may be half written: the stream cannot continue (ws.c fails it). */
            pthread_mutex_lock(&t->lock);
            t->fatal = 1;
            pthread_mutex_unlock(&t->lock);
            return rc;
        }
    }
    return (ssize_t)len;
}

/* close_notify, once, only on a healthy session and without waiting. */
static void tls_shutdown(tachy__conn *c) {
    tls_conn *t = TLS(c);
    if (!t->ssl || t->notified || t->fatal || atomic_load(&c->shut) ||
        !SSL_is_init_finished(t->ssl))
        return;
    t->notified = 1;
    t->cork = 0;
    t->io_flags = MSG_DONTWAIT;
    ERR_clear_error();
    SSL_shutdown(t->ssl);
    ERR_clear_error();
}

static void tls_free(tachy__conn *c) {
    tls_conn *t = TLS(c);
    tls_shutdown(c);
    hs_uncount(t);
    SSL_free(t->ssl); /* frees the BIO too; NULL before the ClientHello */
    ERR_clear_error();
    tachy__buf_free(&t->out);
    pthread_mutex_destroy(&t->lock);
    free(t);
    c->xp = NULL;
    c->xp_data = NULL;
}

static const tachy__transport tls_transport = {
    tls_read,        tls_writev,       tls_pending,  tls_ready, tls_stream_read,
    tls_stream_write, tls_shutdown,    tls_free,
};

int tachy__tls_start(tachy__conn *c) {
    pthread_once(&bio_once, bio_method_init);
    if (!bio_method)
        return TACHY_ETLS;
    tls_conn *t = calloc(1, sizeof *t);
    if (!t)
        return TACHY_ENOMEM;
    t->c = c;
    t->fd = c->fd;
    /* No SSL object yet: tls_read makes it when the ClientHello has arrived (see above). */
    pthread_mutex_init(&t->lock, NULL);
    c->xp_data = t;
    c->xp = &tls_transport;
    /* The handshake must be done within tls_handshake_time_ms of accept (pool/accept.c set
     * the connection's first deadline to accept time + that, or + idleInterval if lower), so
     * a half-open handshake is closed long before a request deadline. */
    long first = atomic_load_explicit(&c->deadline, memory_order_relaxed);
    long hs = tachy__now_ms() + c->srv->opt.tls_handshake_time_ms;
    if (first <= 0 || hs < first) /* not set by the accept path: count from now */
        first = hs;
    c->hs_deadline = first;
    return 0;
}

/* ---- configuration ----------------------------------------------------------------------- */

#define TACHY__TLS12_DEFAULT_CIPHERS                                                         \
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"                             \
    "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"                             \
    "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:"                             \
    "DHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-GCM-SHA384:DHE-RSA-CHACHA20-POLY1305"

/* ALPN: "http/1.1" when offered; otherwise no answer (the client may still speak it). */
static int alpn_select(SSL *ssl, const unsigned char **out, unsigned char *outlen,
                       const unsigned char *in, unsigned int inlen, void *arg) {
    (void)ssl;
    (void)arg;
    static const unsigned char h11[] = "\x08http/1.1";
    unsigned char *sel = NULL;
    if (SSL_select_next_proto(&sel, outlen, h11, sizeof h11 - 1, in, inlen) ==
        OPENSSL_NPN_NEGOTIATED) {
        *out = sel;
        return SSL_TLSEXT_ERR_OK;
    }
    return SSL_TLSEXT_ERR_NOACK;
}

TACHY_API int tachy_tls_config_create(tachy_tls_config **out) {
    if (!out)
        return TACHY_EINVAL;
    *out = NULL;
    if (ossl_ready() < 0)
        return TACHY_ETLS;
    tachy_tls_config *cfg = calloc(1, sizeof *cfg);
    if (!cfg)
        return TACHY_ENOMEM;
    cfg->ctx = SSL_CTX_new(TLS_server_method());
    if (!cfg->ctx) {
        ERR_clear_error();
        free(cfg);
        return TACHY_ETLS;
    }
    SSL_CTX_set_min_proto_version(cfg->ctx, TLS1_2_VERSION);
    /* TLS 1.2: AEAD suites with forward secrecy only (Mozilla's "intermediate" profile; no
     * CBC, so no LUCKY13-style padding oracles). tachy_tls_config_set_ciphers changes it. */
    if (SSL_CTX_set_cipher_list(cfg->ctx, TACHY__TLS12_DEFAULT_CIPHERS) != 1) {
        ERR_clear_error();
        SSL_CTX_free(cfg->ctx);
        free(cfg);
        return TACHY_ETLS;
    }
    /* No renegotiation (a DoS lever, and it would let a write need a read); no compression
     * (CRIME); a missing close_notify is an ordinary end of stream for HTTP (RFC 9112 9.8:
     * the framing detects truncated messages). */
    SSL_CTX_set_options(cfg->ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION |
                                      SSL_OP_IGNORE_UNEXPECTED_EOF |
                                      SSL_OP_CIPHER_SERVER_PREFERENCE);
    /* Buffers released while a connection is idle: parked connections stay small. */
    SSL_CTX_set_mode(cfg->ctx, SSL_MODE_RELEASE_BUFFERS | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_CTX_set_session_id_context(cfg->ctx, (const unsigned char *)"tachy", 5);
    SSL_CTX_set_alpn_select_cb(cfg->ctx, alpn_select, NULL);
    atomic_init(&cfg->refs, 1);
    atomic_init(&cfg->frozen, 0);
    atomic_init(&cfg->handshakes, 0);
    cfg->max_handshakes = TACHY_TLS_DEFAULT_MAX_HANDSHAKES;
    *out = cfg;
    return 0;
}

/* Drops one reference to cfg (the user's or a server's); the last frees it. */
static void tls_config_release(tachy_tls_config *cfg) {
    if (!cfg || atomic_fetch_sub(&cfg->refs, 1) != 1)
        return;
    SSL_CTX_free(cfg->ctx);
    X509_STORE_free(cfg->client_cas);
    free(cfg);
}

TACHY_API void tachy_tls_config_free(tachy_tls_config *cfg) { tls_config_release(cfg); }

/* Parses a PEM chain and key and installs them if they belong together. */
static int load_pem(tachy_tls_config *cfg, const void *cert, size_t cert_len, const void *key,
                    size_t key_len, const char *password) {
    if (cert_len > INT_MAX || key_len > INT_MAX)
        return TACHY_EINVAL;
    int rc = 0;
    X509 *leaf = NULL;
    X509 **chain = NULL; /* intermediates, in file order */
    size_t nchain = 0, chain_cap = 0;
    EVP_PKEY *pkey = NULL;
    BIO *cb = BIO_new_mem_buf(cert, (int)cert_len);
    BIO *kb = BIO_new_mem_buf(key, (int)key_len);
    if (!cb || !kb) {
        rc = TACHY_ENOMEM;
        goto out;
    }
    leaf = PEM_read_bio_X509_AUX(cb, NULL, NULL, (void *)"");
    if (!leaf) {
        rc = TACHY_EBADCERT;
        goto out;
    }
    for (;;) {
        X509 *x = PEM_read_bio_X509(cb, NULL, NULL, (void *)"");
        if (!x)
            break; /* end of the file (or trailing non-certificate text) */
        if (nchain == chain_cap) {
            size_t cap = chain_cap ? chain_cap * 2 : 4;
            X509 **grown = realloc(chain, cap * sizeof *grown);
            if (!grown) {
                X509_free(x);
                rc = TACHY_ENOMEM;
                goto out;
            }
            chain = grown;
            chain_cap = cap;
        }
        chain[nchain++] = x;
    }
    /* A NULL callback with a password makes OpenSSL use it; "" for none keeps OpenSSL from
     * prompting on the terminal for an encrypted key. */
    pkey = PEM_read_bio_PrivateKey(kb, NULL, NULL, (void *)(password ? password : ""));
    if (!pkey) {
        rc = TACHY_EBADKEY;
        goto out;
    }
    if (!X509_check_private_key(leaf, pkey)) {
        rc = TACHY_EKEYMISMATCH;
        goto out;
    }
    if (SSL_CTX_use_certificate(cfg->ctx, leaf) != 1 ||
        SSL_CTX_use_PrivateKey(cfg->ctx, pkey) != 1) {
        rc = TACHY_EBADCERT; /* e.g. a key too weak for OpenSSL's security level */
        goto out;
    }
    SSL_CTX_clear_chain_certs(cfg->ctx);
    for (size_t i = 0; i < nchain; i++) {
        if (SSL_CTX_add1_chain_cert(cfg->ctx, chain[i]) != 1) {
            rc = TACHY_ENOMEM;
            goto out;
        }
    }
    cfg->loaded = 1;
out:
    ERR_clear_error();
    BIO_free(cb);
    BIO_free(kb);
    X509_free(leaf);
    for (size_t i = 0; i < nchain; i++)
        X509_free(chain[i]);
    free(chain);
    EVP_PKEY_free(pkey);
    return rc;
}

TACHY_API int tachy_tls_config_load_pem(tachy_tls_config *cfg, const void *cert_chain_pem,
                                        size_t cert_len, const void *key_pem, size_t key_len,
                                        const char *key_password) {
    if (!cfg || !cert_chain_pem || !key_pem)
        return TACHY_EINVAL;
    if (atomic_load(&cfg->frozen))
        return TACHY_ESTATE;
    return load_pem(cfg, cert_chain_pem, cert_len, key_pem, key_len, key_password);
}

/* Reads a whole (small) file into a malloc'ed buffer. 0, TACHY_ENOFILE or TACHY_ENOMEM. */
static int slurp(const char *path, char **data, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return TACHY_ENOFILE;
    size_t cap = 8192, n = 0;
    char *buf = malloc(cap);
    int rc = 0;
    while (buf) {
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (n < cap) {
            if (ferror(f))
                rc = TACHY_ENOFILE; /* a directory, unreadable */
            break;
        }
        if (cap >= MAX_PEM_FILE) {
            rc = TACHY_EBADCERT;
            break;
        }
        char *g = realloc(buf, cap * 2);
        if (!g) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = g;
        cap *= 2;
    }
    fclose(f);
    if (!buf)
        return TACHY_ENOMEM;
    if (rc < 0) {
        free(buf);
        return rc;
    }
    *data = buf;
    *len = n;
    return 0;
}

TACHY_API int tachy_tls_config_load_pem_files(tachy_tls_config *cfg, const char *cert_chain_path,
                                              const char *key_path, const char *key_password) {
    if (!cfg || !cert_chain_path || !key_path)
        return TACHY_EINVAL;
    if (atomic_load(&cfg->frozen))
        return TACHY_ESTATE;
    char *cert = NULL, *key = NULL;
    size_t cert_len = 0, key_len = 0;
    int rc = slurp(cert_chain_path, &cert, &cert_len);
    if (rc == 0)
        rc = slurp(key_path, &key, &key_len);
    if (rc == 0)
        rc = load_pem(cfg, cert, cert_len, key, key_len, key_password);
    if (key) {
        OPENSSL_cleanse(key, key_len); /* do not leave the key in freed heap memory */
        free(key);
    }
    free(cert);
    return rc;
}

TACHY_API int tachy_tls_config_set_min_version(tachy_tls_config *cfg, int version) {
    if (!cfg || (version != TACHY_TLS_1_2 && version != TACHY_TLS_1_3))
        return TACHY_EINVAL;
    if (atomic_load(&cfg->frozen))
        return TACHY_ESTATE;
    int v = version == TACHY_TLS_1_3 ? TLS1_3_VERSION : TLS1_2_VERSION;
    return SSL_CTX_set_min_proto_version(cfg->ctx, v) == 1 ? 0 : TACHY_ETLS;
}

TACHY_API int tachy_tls_config_set_max_version(tachy_tls_config *cfg, int version) {
    if (!cfg || (version != TACHY_TLS_1_2 && version != TACHY_TLS_1_3))
        return TACHY_EINVAL;
    if (atomic_load(&cfg->frozen))
        return TACHY_ESTATE;
    int v = version == TACHY_TLS_1_2 ? TLS1_2_VERSION : TLS1_3_VERSION;
    return SSL_CTX_set_max_proto_version(cfg->ctx, v) == 1 ? 0 : TACHY_ETLS;
}

TACHY_API int tachy_tls_config_set_ciphers(tachy_tls_config *cfg, const char *tls12_ciphers,
                                           const char *tls13_suites) {
    if (!cfg)
        return TACHY_EINVAL;
    if (atomic_load(&cfg->frozen))
        return TACHY_ESTATE;
    int rc = 0;
    if (tls12_ciphers && SSL_CTX_set_cipher_list(cfg->ctx, tls12_ciphers) != 1)
        rc = TACHY_EINVAL;
    if (rc == 0 && tls13_suites && SSL_CTX_set_ciphersuites(cfg->ctx, tls13_suites) != 1)
        rc = TACHY_EINVAL;
    ERR_clear_error();
    return rc;
}

TACHY_API int tachy_tls_config_set_max_handshakes(tachy_tls_config *cfg, int max) {
    if (!cfg || max < 0)
        return TACHY_EINVAL;
    if (atomic_load(&cfg->frozen))
        return TACHY_ESTATE;
    cfg->max_handshakes = max;
    return 0;
}

/* ---- client authentication ------------------------------------------------------------------ */

/* Adds every certificate of pem[0, len) to the client trust anchors and its subject to the
 * CA list of the CertificateRequest. All or nothing: on failure nothing was added. */
static int add_client_cas(tachy_tls_config *cfg, const void *pem, size_t len) {
    if (len > INT_MAX)
        return TACHY_EINVAL;
    BIO *b = BIO_new_mem_buf(pem, (int)len);
    if (!b)
        return TACHY_ENOMEM;
    X509 **certs = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    for (;;) {
        X509 *x = PEM_read_bio_X509(b, NULL, NULL, (void *)"");
        if (!x)
            break;
        if (n == cap) {
            size_t c2 = cap ? cap * 2 : 8;
            X509 **g = realloc(certs, c2 * sizeof *g);
            if (!g) {
                X509_free(x);
                rc = TACHY_ENOMEM;
                goto out;
            }
            certs = g;
            cap = c2;
        }
        certs[n++] = x;
    }
    if (n == 0) {
        rc = TACHY_EBADCERT;
        goto out;
    }
    if (!cfg->client_cas) {
        X509_STORE *st = X509_STORE_new();
        /* Any certificate given is a trust anchor, a root or not, as a Java TrustAnchor is
         * (PKIX, RFC 5280 6.1): OpenSSL otherwise insists on reaching a self-signed root. */
        if (!st || X509_STORE_set_flags(st, X509_V_FLAG_PARTIAL_CHAIN) != 1 ||
            SSL_CTX_set1_verify_cert_store(cfg->ctx, st) != 1) {
            X509_STORE_free(st);
            rc = TACHY_ENOMEM;
            goto out;
        }
        cfg->client_cas = st; /* the SSL_CTX holds a reference of its own */
    }
    for (size_t i = 0; i < n; i++) {
        /* X509_STORE_add_cert fails for a duplicate in OpenSSL 1.1.1 (not in 3.x): harmless. */
        X509_STORE_add_cert(cfg->client_cas, certs[i]);
        if (SSL_CTX_add_client_CA(cfg->ctx, certs[i]) != 1) {
            rc = TACHY_ENOMEM;
            goto out;
        }
    }
out:
    ERR_clear_error();
    BIO_free(b);
    for (size_t i = 0; i < n; i++)
        X509_free(certs[i]);
    free(certs);
    return rc;
}

TACHY_API int tachy_tls_config_add_client_ca_pem(tachy_tls_config *cfg, const void *pem,
                                                 size_t len) {
    if (!cfg || !pem)
        return TACHY_EINVAL;
    if (atomic_load(&cfg->frozen))
        return TACHY_ESTATE;
    return add_client_cas(cfg, pem, len);
}

TACHY_API int tachy_tls_config_add_client_ca_file(tachy_tls_config *cfg, const char *path) {
    if (!cfg || !path)
        return TACHY_EINVAL;
    if (atomic_load(&cfg->frozen))
        return TACHY_ESTATE;
    char *pem = NULL;
    size_t len = 0;
    int rc = slurp(path, &pem, &len);
    if (rc == 0)
        rc = add_client_cas(cfg, pem, len);
    free(pem);
    return rc;
}

TACHY_API int tachy_tls_config_set_client_auth(tachy_tls_config *cfg, int mode) {
    if (!cfg)
        return TACHY_EINVAL;
    int v;
    switch (mode) {
    case TACHY_TLS_CLIENT_AUTH_NONE: v = SSL_VERIFY_NONE; break;
    case TACHY_TLS_CLIENT_AUTH_WANT: v = SSL_VERIFY_PEER; break;
    case TACHY_TLS_CLIENT_AUTH_NEED: v = SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT; break;
    default: return TACHY_EINVAL;
    }
    if (atomic_load(&cfg->frozen))
        return TACHY_ESTATE;
    /* No callback: a certificate that does not verify ends the handshake with an alert in
     * both modes, as the JDK's server does (its trust manager throws for want and need). */
    SSL_CTX_set_verify(cfg->ctx, v, NULL);
    cfg->client_auth = mode;
    return 0;
}

/* ---- the server --------------------------------------------------------------------------- */

TACHY_API int tachy_server_set_tls(tachy_server *srv, tachy_tls_config *cfg) {
    if (!srv)
        return TACHY_EINVAL;
    if (cfg && !cfg->loaded)
        return TACHY_ESTATE;
    pthread_mutex_lock(&srv->lock);
    int st = atomic_load(&srv->state);
    if (st != TACHY__SRV_CREATED) {
        pthread_mutex_unlock(&srv->lock);
        return st == TACHY__SRV_STARTED ? TACHY_ESTARTED : TACHY_ESTOPPED;
    }
    if (cfg) {
        atomic_fetch_add(&cfg->refs, 1);
        atomic_store(&cfg->frozen, 1);
    }
    tachy_tls_config *old = srv->tls;
    srv->tls = cfg;
    pthread_mutex_unlock(&srv->lock);
    tls_config_release(old);
    return 0;
}

TACHY_API int tachy_https_server_create(tachy_server **out, const char *host, int port,
                                        int backlog, const tachy_options *opt,
                                        tachy_tls_config *cfg) {
    if (!out || !cfg)
        return TACHY_EINVAL;
    int rc = tachy_server_create(out, host, port, backlog, opt);
    if (rc < 0)
        return rc;
    rc = tachy_server_set_tls(*out, cfg);
    if (rc < 0) {
        tachy_server_destroy(*out);
        *out = NULL;
    }
    return rc;
}

TACHY_API tachy_tls_config *tachy_server_tls(const tachy_server *srv) {
    return srv ? srv->tls : NULL;
}

/* ---- HttpsExchange.getSSLSession() --------------------------------------------------------- */

static SSL *exchange_ssl(const tachy_exchange *ex) {
    if (!ex || !ex->conn || ex->conn->xp != &tls_transport)
        return NULL;
    return TLS(ex->conn)->ssl;
}

TACHY_API const char *tachy_exchange_tls_protocol(const tachy_exchange *ex) {
    SSL *ssl = exchange_ssl(ex);
    return ssl ? SSL_get_version(ssl) : NULL;
}

TACHY_API const char *tachy_exchange_tls_cipher_suite(const tachy_exchange *ex) {
    SSL *ssl = exchange_ssl(ex);
    const SSL_CIPHER *c = ssl ? SSL_get_current_cipher(ssl) : NULL;
    if (!c)
        return NULL;
    const char *std = SSL_CIPHER_standard_name(c);
    return std ? std : SSL_CIPHER_get_name(c);
}

TACHY_API const char *tachy_exchange_tls_server_name(const tachy_exchange *ex) {
    SSL *ssl = exchange_ssl(ex);
    return ssl ? SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name) : NULL;
}

TACHY_API const char *tachy_exchange_tls_alpn(const tachy_exchange *ex) {
    SSL *ssl = exchange_ssl(ex);
    if (!ssl)
        return NULL;
    const unsigned char *p = NULL;
    unsigned int n = 0;
    SSL_get0_alpn_selected(ssl, &p, &n);
    /* The selected protocol is always our static "http/1.1" (alpn_select). */
    return n == 8 && memcmp(p, "http/1.1", 8) == 0 ? "http/1.1" : NULL;
}

TACHY_API int tachy_exchange_tls_peer_certificate(const tachy_exchange *ex, size_t i, void *buf,
                                                  size_t cap) {
    SSL *ssl = exchange_ssl(ex);
    SSL_SESSION *sess = ssl ? SSL_get_session(ssl) : NULL;
    X509 *leaf = sess ? SSL_SESSION_get0_peer(sess) : NULL;
    if (!leaf)
        return 0;
    X509 *x = leaf;
    if (i > 0) {
        /* On a server the chain OpenSSL keeps excludes the client's own certificate; skip it
         * should it be there. A resumed session keeps only the client's certificate. */
        const OPENSSL_STACK *sk = (const OPENSSL_STACK *)SSL_get_peer_cert_chain(ssl);
        int n = sk ? OPENSSL_sk_num(sk) : 0;
        size_t k = i - 1 + (n > 0 && X509_cmp(OPENSSL_sk_value(sk, 0), leaf) == 0);
        x = k < (size_t)(n > 0 ? n : 0) ? OPENSSL_sk_value(sk, (int)k) : NULL;
        if (!x)
            return 0;
    }
    int len = i2d_X509(x, NULL);
    if (len <= 0) {
        ERR_clear_error();
        return TACHY_ENOMEM;
    }
    if (buf && (size_t)len <= cap) {
        unsigned char *p = buf;
        i2d_X509(x, &p);
    }
    return len;
}
