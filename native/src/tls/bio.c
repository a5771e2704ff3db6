/*
 * tls/bio.c - the BIO under each SSL object: recv/send on the connection's socket, not
 * OpenSSL's socket BIO, so that:
 *   - every send carries MSG_NOSIGNAL: no SIGPIPE, whatever the application's signal setup;
 *   - reads and writes block or not per call (recv/send flags), on the same blocking
 *     socket the plain path uses, bounded by the same SO_RCVTIMEO/SO_SNDTIMEO;
 *   - records produced by one flush are collected and leave in one send (the flush rule:
 *     sixteen pipelined responses are one SSL_write and one syscall, as on plain HTTP);
 *   - the server's read/write counters (tachy_stats) count syscalls as on plain HTTP.
 *
 * Runs inside OpenSSL calls made by transport.c: on the thread that owns the connection,
 * or on a stream reader or writer under the connection's TLS mutex. The method itself is
 * made once per process (pthread_once, from tachy__tls_start).
 */
#include "tls/internal.h"

#include <errno.h>
#include <sys/socket.h>

BIO_METHOD *tachy__tls_bio_method;
pthread_once_t tachy__tls_bio_once = PTHREAD_ONCE_INIT;

/* tls/internal.h */
int tachy__tls_out_flush(tls_conn *t) {
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
        if (tachy__buf_size(&t->out) >= CORK_FLUSH_AT && tachy__tls_out_flush(t) < 0)
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
void tachy__tls_bio_method_init(void) {
    BIO_METHOD *m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "tachy socket");
    if (!m)
        return;
    if (!BIO_meth_set_write(m, bio_write) || !BIO_meth_set_read(m, bio_read) ||
        !BIO_meth_set_ctrl(m, bio_ctrl) || !BIO_meth_set_create(m, bio_create) ||
        !BIO_meth_set_destroy(m, bio_destroy)) {
        BIO_meth_free(m);
        return;
    }
    tachy__tls_bio_method = m;
}
