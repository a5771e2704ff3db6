/*
 * tls/transport.c - the transport of an HTTPS connection (the table http/io.c calls
 * through c->xp): read, writev, pending, ready, the stream read/write of an upgraded
 * connection, shutdown (close_notify) and free; and how OpenSSL's errors become TACHY_E*.
 *
 * Connection-mode calls run on the thread that owns the connection. Reading rule (the park
 * set is edge-triggered): a read keeps calling SSL_read without waiting until OpenSSL
 * reports that the socket is drained (WANT_READ) or the caller's buffer is full, so "fewer
 * bytes than asked" still means "nothing more to read until the next epoll event" - and
 * whatever sits decrypted inside OpenSSL (SSL_pending) is reported through the transport's
 * pending() and read before the connection is parked. Until the handshake is done the same
 * read drives it (handshake.c makes the SSL object first).
 *
 * Upgraded streams (wss): a WebSocket may be written by any thread while its connection
 * thread reads. One SSL object must not be used by two threads at once, so stream reads
 * and writes take a per-connection mutex around each (non-blocking) SSL call and wait in
 * poll() without it.
 */
#include "tls/internal.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

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
        if (!t->hs_fail && !SSL_is_init_finished(t->ssl))
            t->hs_fail = 1 + TACHY__TLS_FAIL_EOF; /* the peer closed or reset it */
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
            if (!t->hs_fail)
                t->hs_fail = 1 + TACHY__TLS_FAIL_PROTOCOL;
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

static ssize_t tls_read(tachy__conn *c, void *buf, size_t len, int flags) {
    tls_conn *t = TLS(c);
    size_t got = 0;
    if (__builtin_expect(t->ssl == NULL, 0)) {
        int rc = tachy__tls_hello_arrived(t);
        if (rc == 1)
            rc = tachy__tls_new_ssl(t);
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
        if (__builtin_expect(!t->hs_reported, 0))
            tachy__tls_hs_report(t, 0); /* the read that finished the handshake */
        if (t->counted && SSL_is_init_finished(t->ssl))
            tachy__tls_hs_uncount(t, 0);
        return fail_code(t, e);
    }
    if (__builtin_expect(!t->hs_reported, 0))
        tachy__tls_hs_report(t, 0);
    if (t->counted && SSL_is_init_finished(t->ssl))
        tachy__tls_hs_uncount(t, 0);
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
    if (rc == 0 && tachy__tls_out_flush(t) < 0)
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
    tachy__tls_hs_report(t, 1); /* a handshake that never finished: why (before uncount) */
    tachy__tls_hs_uncount(t, 1); /* before the socket is closed: see handshake.c */
    SSL_free(t->ssl); /* frees the BIO too; NULL before the ClientHello */
    ERR_clear_error();
    tachy__buf_free(&t->out);
    pthread_mutex_destroy(&t->lock);
    free(t);
    c->xp = NULL;
    c->xp_data = NULL;
}

const tachy__transport tachy__tls_transport = {
    tls_read,        tls_writev,       tls_pending,  tls_ready, tls_stream_read,
    tls_stream_write, tls_shutdown,    tls_free,
};
