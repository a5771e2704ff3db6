/*
 * conn.c - one connection: the read loop, keep-alive, pipelining, the flush rule and the
 * error responses tachy sends on its own.
 *
 * The loop reads into rbuf, parses every request already buffered and runs each exchange
 * in order on this thread. Responses accumulate in wbuf. The flush rule that makes
 * pipelining cheap: a complete response is sent only when no further request bytes are
 * buffered (or, if the last read filled its buffer, readable right now); otherwise it
 * leaves together with the next response. Invariant: the thread never blocks reading
 * while output is pending, so no client ever waits on a response sitting in wbuf.
 *
 * Between requests the connection is parked (pool.c) instead of blocking its thread in
 * recv. While a request is in progress, reads and writes block, bounded by
 * SO_RCVTIMEO/SO_SNDTIMEO (one syscall per read instead of poll + read); stop() wakes a
 * blocked thread with shutdown(2).
 */
#include "conn.h"

#include <errno.h>
#include <poll.h>
#include <sys/sendfile.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define READ_CHUNK 16384          /* bytes asked of each recv */

static void set_timeout(int fd, int opt, long ms) {
    struct timeval tv = {0, 0};
    if (ms > 0) {
        tv.tv_sec = ms / 1000;
        tv.tv_usec = (ms % 1000) * 1000;
    }
    setsockopt(fd, SOL_SOCKET, opt, &tv, sizeof tv);
}

int tachy__errno_code(int e) {
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

int tachy__wait_fd(int fd, short events, int timeout_ms) {
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
            return tachy__errno_code(errno);
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

int tachy__conn_flush(tachy__conn *c) {
    size_t n = tachy__buf_size(&c->wbuf);
    if (n == 0)
        return 0;
    struct iovec iov = {c->wbuf.data + c->wbuf.off, n};
    int rc = send_iov(c, &iov, 1);
    tachy__buf_reset(&c->wbuf);
    return rc;
}

int tachy__conn_send_file(tachy__conn *c, int fd, int64_t *off, int64_t len) {
    if (c->xp)
        return TACHY_ENOTSUP; /* TLS encrypts in user space: the caller copies */
    /* What is buffered (the response head) leaves with MSG_MORE, so it shares segments with
     * the file's first bytes instead of going out alone. */
    while (tachy__buf_size(&c->wbuf) > 0) {
        ssize_t n = tachy__send(c->fd, c->wbuf.data + c->wbuf.off, tachy__buf_size(&c->wbuf),
                                MSG_NOSIGNAL | MSG_MORE);
        atomic_fetch_add_explicit(&c->srv->st_writes, 1, memory_order_relaxed);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return tachy__errno_code(errno);
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
            return tachy__errno_code(errno);
        }
        if (n == 0)
            return TACHY_ESHORT; /* the file ended early (it shrank) */
        first = 0;
        *off += n;
        len -= n;
    }
    return 0;
}

int tachy__conn_send2(tachy__conn *c, const void *data, size_t len) {
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
static ssize_t read_into_rbuf(tachy__conn *c, int flags) {
    if (rbuf_room(c, READ_CHUNK) < 0)
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
        return tachy__errno_code(errno);
    }
}

ssize_t tachy__conn_fill(tachy__conn *c) {
    int rc = tachy__conn_flush(c);
    if (rc < 0)
        return rc;
    return read_into_rbuf(c, 0);
}

int tachy__conn_response_done(tachy__conn *c) {
    if (tachy__buf_size(&c->rbuf) > 0)
        return 0; /* a pipelined request is waiting: its response joins this one */
    if (c->last_read_full && !atomic_load(&c->shut)) {
        /* The last read may have left bytes in the socket: look without blocking. */
        if (read_into_rbuf(c, MSG_DONTWAIT) > 0)
            return 0;
        c->last_read_full = 0;
    }
    return tachy__conn_flush(c);
}

/* Reason phrases for the responses tachy invents itself (the JDK's wording). */
static const char *reject_reason(int code) {
    switch (code) {
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 408: return "Request Time-Out";
    case 413: return "Request Entity Too Large";
    case 414: return "Request-URI Too Large";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 505: return "HTTP Version Not Supported";
    default: return "Error";
    }
}

/*
 * Sends an error response in exactly the JDK's format (ServerImpl.reject):
 *   HTTP/1.1 404 Not Found / Content-Length / Content-Type: text/html / Connection: close
 *   <h1>404 Not Found</h1>No context found for request
 * and marks the connection for closing. Pending pipelined responses go out first.
 */
void tachy__conn_reject(tachy__conn *c, int code, const char *msg) {
    const char *r = reject_reason(code);
    char body[512];
    int blen = snprintf(body, sizeof body, "<h1>%d %s</h1>%s", code, r, msg ? msg : "");
    if (blen < 0)
        blen = 0;
    if ((size_t)blen >= sizeof body)
        blen = sizeof body - 1;
    char head[256];
    int hlen = snprintf(head, sizeof head,
                        "HTTP/1.1 %d %s\r\nContent-Length: %d\r\nContent-Type: text/html\r\n"
                        "Connection: close\r\n\r\n",
                        code, r, blen);
    if (hlen > 0 && (size_t)hlen < sizeof head) {
        tachy__buf_append(&c->wbuf, head, (size_t)hlen);
        tachy__buf_append(&c->wbuf, body, (size_t)blen);
    }
    tachy__conn_flush(c);
    c->close_after = 1;
}

/*
 * Closes gracefully: after an error the client may still be sending (a body we did not
 * read); closing with unread data makes the kernel send RST, which can destroy the
 * response before the client reads it. So half-close and discard input briefly first.
 */
static void lingering_close(tachy__conn *c) {
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
        ssize_t n = recv(c->fd, sink, sizeof sink, 0);
        if (n <= 0)
            break;
        total += (size_t)n;
    }
}

void tachy__conn_cleanup(tachy__conn *c) {
    if (c->xp)
        c->xp->free(c);
    tachy__exchange_free(&c->ex);
    tachy__buf_free(&c->rbuf);
    tachy__buf_free(&c->wbuf);
    free(c->refs);
    c->refs = NULL;
}

/* Reads without blocking into rbuf. Returns bytes (> 0), 0 at EOF, TACHY_ETIMEDOUT when
 * nothing is there (EAGAIN), or another TACHY_E*. */
static ssize_t read_nowait(tachy__conn *c) { return read_into_rbuf(c, MSG_DONTWAIT); }

void tachy__conn_run(tachy__conn *c) {
    tachy_server *srv = c->srv;
    const tachy_options *o = &srv->opt;
    int graceful = 0;
    if (!c->started) {
        c->started = 1;
        c->refs_cap = (size_t)o->max_req_headers;
        c->refs = malloc(c->refs_cap * sizeof *c->refs);
        if (!c->refs)
            goto close;
        /* HTTPS: the handshake runs in the reads below, without blocking (tls.c). */
        if (srv->tls && tachy__tls_start(c) < 0)
            goto close;
    }
    tachy__limits lim = {(size_t)o->max_request_line, (size_t)o->max_req_headers,
                         (size_t)o->max_req_header_size};
    /* We were handed c because the kernel reported it readable (or it was pending). */
    int must_read = 1;
    for (;;) {
        size_t avail = tachy__buf_size(&c->rbuf);
        int r = TACHY__PARSE_INCOMPLETE;
        tachy__request req;
        tachy__parse_error perr = {400, "Bad request"};
        if (avail) {
            req.headers = c->refs;
            req.num_headers = c->refs_cap;
            r = tachy__parse_request(c->rbuf.data + c->rbuf.off, avail, &req, &lim, &perr);
        }
        if (r == TACHY__PARSE_INCOMPLETE) {
            /* A short read drained the socket at that moment; anything that arrived since
             * raised an event, which makes tachy__pool_park hand c back to us. So read
             * only when told to or when the last read filled its buffer. */
            if (must_read || c->last_read_full) {
                must_read = 0;
                ssize_t n = read_nowait(c);
                if (n > 0) {
                    if (avail == 0)
                        c->head_started = tachy__now_ms();
                    continue;
                }
                if (n != TACHY_ETIMEDOUT)
                    goto close; /* EOF or error */
                c->last_read_full = 0;
            }
            /* Bytes a transport has already decoded raise no epoll event: read them now,
             * or a pipelined request would wait there forever. */
            if (c->xp && c->xp->pending(c)) {
                must_read = 1;
                continue;
            }
            /* The peer has shut down its side and its FIN may sit behind what we read:
             * no edge will report it again, so read until EOF instead of parking. */
            if (atomic_load_explicit(&c->peer_hup, memory_order_relaxed) &&
                atomic_exchange(&c->peer_hup, 0)) {
                must_read = 1;
                continue;
            }
            /* Would block: pending output goes out first, then c waits in the park set. */
            if (tachy__conn_flush(c) < 0)
                goto close;
            long deadline;
            int idle = avail == 0;
            if (c->xp && !c->xp->ready(c)) {
                /* Mid-handshake: the client's next flight is awaited in the park set, not
                 * counted as idle, until the handshake deadline (tls.c). */
                deadline = c->hs_deadline;
                idle = 0;
                if (deadline <= tachy__now_ms())
                    goto close;
            } else if (avail == 0) {
                deadline = tachy__now_ms() + o->idle_interval_ms;
            } else {
                /* A partial head must complete within maxReqTime (or, when unset,
                 * idleInterval) of its first byte: slow clients are cut off. */
                long limit = o->max_req_time_ms > 0 ? o->max_req_time_ms : o->idle_interval_ms;
                deadline = c->head_started + limit;
                if (deadline <= tachy__now_ms())
                    goto close;
            }
            int pr = tachy__pool_park(c, idle, deadline);
            if (pr > 0)
                return; /* parked: no longer ours */
            if (pr < 0)
                goto close;
            must_read = 1; /* an event arrived while we owned it */
            continue;
        }
        if (r == TACHY__PARSE_ERROR) {
            tachy__conn_reject(c, perr.status, perr.reason);
            graceful = 1;
            goto close;
        }
        tachy__framing fr;
        if (tachy__parse_framing(&req, &fr, &perr) < 0) {
            tachy__conn_reject(c, perr.status, perr.reason);
            graceful = 1;
            goto close;
        }
        atomic_fetch_add_explicit(&srv->st_requests, 1, memory_order_relaxed);
        int rc = tachy__exchange_begin(&c->ex, c, &req, &fr);
        tachy__buf_consume(&c->rbuf, (size_t)r);
        if (rc < 0) {
            if (rc == TACHY_EPROTO)
                tachy__conn_reject(c, 400, "URISyntaxException thrown"); /* the JDK's words */
            else if (rc == TACHY_EINVAL)
                tachy__conn_reject(c, 400, "Bad request URI");
            else
                tachy__conn_reject(c, 500, "Out of memory");
            graceful = 1;
            goto close;
        }
        rc = tachy__exchange_dispatch(&c->ex);
        c->served++;
        int keep = rc == 0 && !c->close_after && !atomic_load(&c->shut);
        tachy__exchange_end(&c->ex);
        if (!keep)
            goto close;
        if (tachy__buf_size(&c->rbuf) > 0)
            c->head_started = tachy__now_ms();
    }
close:
    if (!atomic_load(&c->shut))
        tachy__conn_flush(c);
    if (graceful)
        lingering_close(c);
    tachy__pool_close(c);
}
