/*
 * http/io.c - every socket call of a connection: reads into rbuf, writes of wbuf (with a
 * body beside it, or a file with sendfile), the lingering close, the errno map, the
 * counters of tachy_stats, and the raw streams of an upgraded connection.
 *
 * This is the transport seam: plain TCP is done here inline (c->xp == NULL, one
 * predictable branch); any other transport (tls/, later an SSLEngine or kTLS one) fills a
 * tachy__transport table (http.h) and every call here goes through it. Nothing else in
 * http/, ws/ or loop/ reads or writes a connection's socket. (loop/ accepts, registers
 * and shuts sockets down; it never reads or writes them.)
 *
 * While a request is in progress, reads and writes block, bounded by SO_RCVTIMEO /
 * SO_SNDTIMEO (one syscall per read instead of poll + read); stop() wakes a blocked thread
 * with shutdown(2). After an upgrade the socket's receive timeout is cleared and streams
 * wait with poll() instead (tachy_stream_read / tachy_stream_write).
 */
#include "http/http.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#define READ_CHUNK 16384          /* bytes asked of each recv */
#define HANDSHAKE_READ_CHUNK 1024 /* ... while a transport's handshake is in progress */

static void set_timeout(int fd, int opt, long ms) {
    struct timeval tv = {0, 0};
    if (ms > 0) {
        tv.tv_sec = ms / 1000;
        tv.tv_usec = (ms % 1000) * 1000;
    }
    setsockopt(fd, SOL_SOCKET, opt, &tv, sizeof tv);
}

int tachy__io_errno(int e) {
    switch (e) {
    case EAGAIN:
#if EAGAIN != EWOULDBLOCK
    case EWOULDBLOCK:
#endif
        return TACHY_ETIMEDOUT;
    case EPIPE:
    case ECONNRESET:
        return TACHY_EPEERCLOSED;
    case ENOMEM:
    case ENOBUFS:
        return TACHY_ENOMEM;
    default:
        return TACHY_EIO;
    }
}

int tachy__io_wait(int fd, short events, int timeout_ms) {
    struct pollfd p = {fd, events, 0};
    for (;;) {
        int r = poll(&p, 1, timeout_ms);
        if (r > 0)
            return 0;
        if (r == 0)
            return TACHY_ETIMEDOUT;
        if (errno != EINTR)
            return TACHY_EIO;
    }
}

/* Sends every byte of iov[0..cnt) (modified in place). 0 or TACHY_E*. */
static int send_iov(tachy__conn *c, struct iovec *iov, int cnt) {
    c->rsp_sent = 1;
    if (c->xp)
        return c->xp->writev(c, iov, cnt); /* TLS: one SSL_write per iovec, one send */
    while (cnt > 0) {
        ssize_t n;
        if (cnt == 1) {
            /* The usual case (a response head and a small body share wbuf): send() takes
             * the kernel's short path, without importing a msghdr and an iovec array. */
            n = tachy__send(c->fd, iov->iov_base, iov->iov_len, MSG_NOSIGNAL);
        } else {
            struct msghdr msg;
            memset(&msg, 0, sizeof msg);
            msg.msg_iov = iov;
            msg.msg_iovlen = (size_t)cnt;
            n = sendmsg(c->fd, &msg, MSG_NOSIGNAL);
        }
        atomic_fetch_add_explicit(&c->srv->st_writes, 1, memory_order_relaxed);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return tachy__io_errno(errno);
        }
        size_t left = (size_t)n;
        while (cnt > 0 && left >= iov->iov_len) {
            left -= iov->iov_len;
            iov++;
            cnt--;
        }
        if (cnt > 0) {
            iov->iov_base = (char *)iov->iov_base + left;
            iov->iov_len -= left;
        }
    }
    return 0;
}

int tachy__io_flush(tachy__conn *c) {
    size_t n = tachy__buf_size(&c->wbuf);
    if (n == 0 || c->held)
        return 0; /* held (tachy_exchange_hold): the bytes stay in wbuf */
    struct iovec iov = {c->wbuf.data + c->wbuf.off, n};
    int rc = send_iov(c, &iov, 1);
    tachy__buf_reset(&c->wbuf);
    return rc;
}

int tachy__io_flush_end(tachy__conn *c) {
    if (!c->rsp_sent || c->srv->opt.nodelay || tachy__buf_size(&c->wbuf) == 0)
        return tachy__io_flush(c);
    int on = 1, off = 0;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    int rc = tachy__io_flush(c);
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &off, sizeof off);
    return rc;
}

int tachy__io_flush_end_nowait(tachy__conn *c) {
    size_t n = tachy__buf_size(&c->wbuf);
    if (n == 0)
        return 0;
    if (c->xp)
        return 1; /* TLS: SSL_write may wait */
    int nagle = c->rsp_sent && !c->srv->opt.nodelay;
    int on = 1, off = 0;
    if (nagle)
        setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    c->rsp_sent = 1;
    int rc = 0;
    while (tachy__buf_size(&c->wbuf) > 0) {
        ssize_t w = tachy__send(c->fd, c->wbuf.data + c->wbuf.off, tachy__buf_size(&c->wbuf),
                                MSG_NOSIGNAL | MSG_DONTWAIT);
        atomic_fetch_add_explicit(&c->srv->st_writes, 1, memory_order_relaxed);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            rc = errno == EAGAIN || errno == EWOULDBLOCK ? 1 : tachy__io_errno(errno);
            break;
        }
        tachy__buf_consume(&c->wbuf, (size_t)w);
    }
    if (nagle)
        setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &off, sizeof off);
    if (rc == 0)
        tachy__buf_reset(&c->wbuf);
    return rc;
}

int tachy__io_send_file(tachy__conn *c, int fd, int64_t *off, int64_t len) {
    if (c->xp || c->held)
        return TACHY_ENOTSUP; /* TLS encrypts in user space, held output stays in wbuf:
                                 the caller copies */
    /* What is buffered (the response head) leaves with MSG_MORE, so it shares segments with
     * the file's first bytes instead of going out alone. */
    while (tachy__buf_size(&c->wbuf) > 0) {
        ssize_t n = tachy__send(c->fd, c->wbuf.data + c->wbuf.off, tachy__buf_size(&c->wbuf),
                                MSG_NOSIGNAL | MSG_MORE);
        atomic_fetch_add_explicit(&c->srv->st_writes, 1, memory_order_relaxed);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return tachy__io_errno(errno);
        }
        tachy__buf_consume(&c->wbuf, (size_t)n);
    }
    int first = 1;
    while (len > 0) {
        off_t o = (off_t)*off;
        size_t want = len > (int64_t)(1 << 30) ? (size_t)1 << 30 : (size_t)len;
        ssize_t n = sendfile(c->fd, fd, &o, want);
        atomic_fetch_add_explicit(&c->srv->st_writes, 1, memory_order_relaxed);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (first && (errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP))
                return TACHY_ENOTSUP; /* not a file sendfile can read: the caller copies */
            return tachy__io_errno(errno);
        }
        if (n == 0)
            return TACHY_ESHORT; /* the file ended early (it shrank) */
        first = 0;
        *off += n;
        len -= n;
    }
    return 0;
}

int tachy__io_send2(tachy__conn *c, const void *data, size_t len) {
    if (c->held)
        return tachy__buf_append(&c->wbuf, data, len) < 0 ? TACHY_ENOMEM : 0;
    struct iovec iov[2];
    int cnt = 0;
    size_t n = tachy__buf_size(&c->wbuf);
    if (n)
        iov[cnt++] = (struct iovec){c->wbuf.data + c->wbuf.off, n};
    if (len)
        iov[cnt++] = (struct iovec){(void *)data, len};
    int rc = send_iov(c, iov, cnt);
    tachy__buf_reset(&c->wbuf);
    return rc;
}

/* Makes room in rbuf for a read; compacts first so the buffer does not creep. */
static int rbuf_room(tachy__conn *c, size_t want) {
    tachy__buf *b = &c->rbuf;
    if (b->off > 0 && b->cap - b->len < want)
        tachy__buf_compact(b);
    return tachy__buf_reserve(b, want);
}

/* One recv into rbuf (flags: 0 or MSG_DONTWAIT). Returns bytes (> 0), 0 at EOF, or
 * TACHY_E* (TACHY_ETIMEDOUT for EAGAIN: the receive timeout, or nothing there). */
ssize_t tachy__io_read(tachy__conn *c, int flags) {
    /* A transport still in its handshake gets a small buffer (no request bytes come before
     * it is done): a half-open TLS handshake does not hold a 16 KiB one (tls/handshake.c). */
    size_t want = READ_CHUNK;
    if (c->xp && c->rbuf.cap < READ_CHUNK && !c->xp->ready(c))
        want = HANDSHAKE_READ_CHUNK;
    if (rbuf_room(c, want) < 0)
        return TACHY_ENOMEM;
    size_t space = c->rbuf.cap - c->rbuf.len;
    if (c->xp) {
        ssize_t n = c->xp->read(c, c->rbuf.data + c->rbuf.len, space, flags);
        if (n > 0) {
            c->rbuf.len += (size_t)n;
            /* Bytes decoded inside the transport count as "more may be there". */
            c->last_read_full = (size_t)n == space || c->xp->pending(c);
        }
        return n;
    }
    for (;;) {
        ssize_t n = tachy__recv(c->fd, c->rbuf.data + c->rbuf.len, space, flags);
        if (n > 0) {
            atomic_fetch_add_explicit(&c->srv->st_reads, 1, memory_order_relaxed);
            c->rbuf.len += (size_t)n;
            c->last_read_full = (size_t)n == space;
            return n;
        }
        if (n == 0)
            return 0;
        if (errno == EINTR)
            continue;
        return tachy__io_errno(errno);
    }
}

/*
 * Before a body read blocks: the bytes asked for are not there, so this thread is about to
 * wait for as long as the peer takes (a slow or stalled body). The pool is asked for a
 * replacement thread now - one atomic load when a thread already waits for events - so
 * no other connection waits for the watchdog to notice. Reads whose bytes are there never
 * get here: each read is first tried without waiting (the same one syscall when the bytes
 * have arrived).
 */
static void before_blocking(tachy__conn *c) {
    tachy__server_blocking(c->srv);
}

ssize_t tachy__io_fill(tachy__conn *c) {
    int rc = tachy__io_flush(c);
    if (rc < 0)
        return rc;
    ssize_t n = tachy__io_read(c, MSG_DONTWAIT);
    if (n != TACHY_ETIMEDOUT)
        return n;
    before_blocking(c);
    return tachy__io_read(c, 0);
}

/* Blocking recv for body bytes straight into the caller's buffer (no copy through rbuf);
 * pending output is flushed first so no response waits while we block. */
ssize_t tachy__io_read_body(tachy__conn *c, void *buf, size_t len) {
    int rc = tachy__io_flush(c);
    if (rc < 0)
        return rc;
    if (c->xp) {
        ssize_t n = c->xp->read(c, buf, len, MSG_DONTWAIT);
        if (n == TACHY_ETIMEDOUT) {
            before_blocking(c);
            n = c->xp->read(c, buf, len, 0);
        }
        if (n > 0 && c->xp->pending(c))
            c->last_read_full = 1; /* the next request may already be decoded: look again */
        return n;
    }
    int flags = MSG_DONTWAIT;
    for (;;) {
        ssize_t n = tachy__recv(c->fd, buf, len, flags);
        if (n >= 0) {
            if (n > 0)
                atomic_fetch_add_explicit(&c->srv->st_reads, 1, memory_order_relaxed);
            return n;
        }
        if (errno == EINTR)
            continue;
        if (flags && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            before_blocking(c);
            flags = 0; /* now wait, bounded by SO_RCVTIMEO */
            continue;
        }
        return tachy__io_errno(errno);
    }
}


/*
 * Closes gracefully: after an error the client may still be sending (a body we did not
 * read); closing with unread data makes the kernel send RST, which can destroy the
 * response before the client reads it. So half-close and discard input briefly first.
 */
void tachy__io_linger_close(tachy__conn *c) {
    if (atomic_load(&c->shut))
        return;
    if (c->xp)
        c->xp->shutdown(c); /* TLS: close_notify before the half-close */
    shutdown(c->fd, SHUT_WR);
    set_timeout(c->fd, SO_RCVTIMEO, 100);
    char sink[4096];
    size_t total = 0;
    long deadline = tachy__now_ms() + 500;
    while (total < 256 * 1024 && tachy__now_ms() < deadline) {
        ssize_t n = tachy__recv(c->fd, sink, sizeof sink, 0);
        if (n <= 0)
            break;
        total += (size_t)n;
    }
}

/* ---- upgraded streams ------------------------------------------------------------ */

void tachy__io_stream_mode(tachy__conn *c) {
    /* Blocking with timeouts is done with poll() on the stream; clear SO_RCVTIMEO. */
    set_timeout(c->fd, SO_RCVTIMEO, 0);
}

TACHY_API ssize_t tachy_stream_read(tachy_stream *s, void *buf, size_t len, int timeout_ms) {
    if (!s || (!buf && len))
        return TACHY_EINVAL;
    if (atomic_load(&s->shut))
        return TACHY_ECLOSED;
    tachy__conn *c = s->conn;
    size_t have = tachy__buf_size(&c->rbuf);
    if (have > 0) {
        size_t n = TACHY__MIN(have, len);
        memcpy(buf, c->rbuf.data + c->rbuf.off, n);
        tachy__buf_consume(&c->rbuf, n);
        return (ssize_t)n;
    }
    if (c->xp) {
        ssize_t n = c->xp->stream_read(c, buf, len, timeout_ms, &s->shut);
        return atomic_load(&s->shut) ? TACHY_ECLOSED : n;
    }
    for (;;) {
        ssize_t n = tachy__recv(c->fd, buf, len, MSG_DONTWAIT);
        if (n >= 0)
            return atomic_load(&s->shut) ? TACHY_ECLOSED : n;
        if (errno == EINTR)
            continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK)
            return errno == ECONNRESET ? TACHY_EPEERCLOSED : TACHY_EIO;
        int rc = tachy__io_wait(c->fd, POLLIN, timeout_ms);
        if (rc < 0)
            return rc;
    }
}

TACHY_API ssize_t tachy_stream_write(tachy_stream *s, const void *buf, size_t len,
                                     int timeout_ms) {
    if (!s || (!buf && len))
        return TACHY_EINVAL;
    if (s->conn->xp)
        return s->conn->xp->stream_write(s->conn, buf, len, timeout_ms, &s->shut);
    const char *p = buf;
    size_t left = len;
    while (left > 0) {
        if (atomic_load(&s->shut))
            return TACHY_ECLOSED;
        ssize_t n = tachy__send(s->conn->fd, p, left, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            p += n;
            left -= (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
            return errno == EPIPE || errno == ECONNRESET ? TACHY_EPEERCLOSED : TACHY_EIO;
        int rc = tachy__io_wait(s->conn->fd, POLLOUT, timeout_ms);
        if (rc < 0)
            return rc;
    }
    return (ssize_t)len;
}

TACHY_API void tachy_stream_shutdown(tachy_stream *s) {
    if (!s)
        return;
    if (atomic_exchange(&s->shut, 1) == 0)
        shutdown(s->conn->fd, SHUT_RDWR);
}

TACHY_API int tachy_stream_fd(const tachy_stream *s) { return s ? s->conn->fd : -1; }

/* ---- broadcast fan-out ----------------------------------------------------------------- */

ssize_t tachy__io_send_nowait(int fd, const void *buf, size_t len) {
    for (;;) {
        ssize_t n = tachy__send(fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n > 0)
            return n;
        if (n == 0)
            return TACHY_ETIMEDOUT; /* nothing taken (len 0 is not asked for) */
        if (errno == EINTR)
            continue;
        return tachy__io_errno(errno);
    }
}

int tachy__io_poll(struct pollfd *pfd, size_t n, int timeout_ms) {
    int r = poll(pfd, (nfds_t)n, timeout_ms);
    if (r >= 0)
        return r;
    return errno == EINTR ? 0 : TACHY_EIO;
}
