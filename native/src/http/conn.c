/*
 * http/conn.c - one connection's loop: read, parse, begin, dispatch, end, park - with
 * keep-alive, pipelining and the flush rule.
 *
 * The loop reads into rbuf (io.c), parses every request already buffered (parser.c) and
 * runs each exchange in order on this thread (exchange.c, dispatch.c). Responses
 * accumulate in wbuf (response.c). The flush rule that makes pipelining cheap: a complete
 * response is sent only when no further request bytes are buffered (or, if the last read
 * filled its buffer, readable right now); otherwise it leaves together with the next
 * response. Invariant: the thread never blocks reading while output is pending, so no
 * client ever waits on a response sitting in wbuf.
 *
 * Between requests the connection is parked instead of blocking its thread in recv:
 * tachy__conn_run returns to the pool (loop/workers.c) saying so, and the pool parks it.
 */
#include "http/http.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

int tachy__conn_response_done(tachy__conn *c) {
    if (tachy__buf_size(&c->rbuf) > 0)
        return 0; /* a pipelined request is waiting: its response joins this one */
    if (c->last_read_full && !atomic_load(&c->shut)) {
        /* The last read may have left bytes in the socket: look without blocking. */
        if (tachy__io_read(c, MSG_DONTWAIT) > 0)
            return 0;
        c->last_read_full = 0;
    }
    return tachy__io_flush_end(c);
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

void tachy__conn_shed_http(tachy__conn *c) {
    /* What only HTTP needs: the read and write buffers (rbuf's bytes were taken, wbuf was
     * flushed), the exchange's headers and strings, the parser's field references. The
     * transport stays (TLS streams need it), and so does the struct (the pool's slot). */
    tachy__exchange_free(&c->ex);
    tachy__buf_free(&c->rbuf);
    tachy__buf_free(&c->wbuf);
    free(c->refs);
    c->refs = NULL;
    c->refs_cap = 0;
}


/* a[0,n) == b[0,n); values of 8 to 16 bytes (a host:port) with two overlapping 8-byte
 * compares instead of a call. */
static int same_bytes(const char *a, const char *b, size_t n) {
    if (n >= 8 && n <= 16) {
        uint64_t a0, a1, b0, b1;
        memcpy(&a0, a, 8);
        memcpy(&a1, a + n - 8, 8);
        memcpy(&b0, b, 8);
        memcpy(&b1, b + n - 8, 8);
        return ((a0 ^ b0) | (a1 ^ b1)) == 0;
    }
    return memcmp(a, b, n) == 0;
}

/* RFC 9112 3.2 (check_host): tachy__check_host, skipped when the request's one Host value
 * is the one last found valid on this connection. 0 or TACHY__PARSE_ERROR with *perr. */
static int check_host(tachy__conn *c, const tachy__request *req, const tachy__framing *fr,
                      tachy__parse_error *perr) {
    const tachy__str *v = fr->hosts == 1 ? &req->headers[fr->host_index].value : NULL;
    if (v && v->len == c->host_ok_len && same_bytes(v->base, c->host_ok, v->len))
        return 0;
    if (tachy__check_host(req, fr, perr) < 0)
        return TACHY__PARSE_ERROR;
    if (v && v->len <= sizeof c->host_ok) {
        memcpy(c->host_ok, v->base, v->len);
        c->host_ok_len = v->len;
    }
    return 0;
}

/* After an exchange (rc: dispatch's 0 or -1): counts it and ends it; 1 if the connection
 * may serve another request, else 0. */
static int exchange_over(tachy__conn *c, int rc) {
    c->served++;
    int keep = rc == 0 && !c->close_after && !atomic_load(&c->shut);
    tachy__exchange_end(&c->ex);
    if (keep && tachy__buf_size(&c->rbuf) > 0)
        c->head_started = tachy__now_ms();
    return keep;
}

void tachy__conn_lent_closed(tachy__conn *c) {
    tachy_server *srv = c->srv;
    c->resume = 1;
    int here = (c->ex.defer_flags & TACHY_DEFER_CLOSER_CONTINUES) != 0;
    if (here)
        atomic_fetch_sub(&srv->lent_closers, 1); /* counted in dispatch.c */
    srv->loop_resume(c, here, here && c->ex.close_harvest);
    tachy__server_release(srv); /* the lend's reference (dispatch.c) */
}

tachy__conn_next tachy__conn_run(tachy__conn *c, int closer, int *idle_out, long *deadline_out) {
    tachy_server *srv = c->srv;
    const tachy_options *o = &srv->opt;
    int graceful = 0;
    /* We were handed c because the kernel reported it readable (or it was pending). */
    int must_read = 1;
    if (closer && c->xp)
        return TACHY__CONN_NEXT_POOL; /* TLS writes and reads may wait: a pool thread's job */
    if (c->resume) {
        /* The lent exchange was closed: end it as dispatch would have. */
        c->resume = 0;
        c->held = 0;
        atomic_store(&c->in_handler, 0);
        int rc = c->ex.failed || c->close_after ? -1 : 0;
        if (!exchange_over(c, rc))
            goto close;
        /* Bytes that came meanwhile marked c PENDING: here parking sees that; a pool
         * thread gets c through the ready list, which does not keep it, so it reads. */
        must_read = !closer;
    }
    if (c->resume_close)
        goto close;
    if (!c->started) {
        c->started = 1;
        c->refs_cap = (size_t)o->max_req_headers;
        c->refs = malloc(c->refs_cap * sizeof *c->refs);
        if (!c->refs)
            goto close;
        /* HTTPS: loop/ set up the transport before the first run; the handshake runs in
         * the reads below, without blocking (tls/). */
    }
    tachy__limits lim = {(size_t)o->max_request_line, (size_t)o->max_req_headers,
                         (size_t)o->max_req_header_size, o->jdk_header_rules};
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
             * raised an event, which makes the pool hand c back to us. So read only when
             * told to or when the last read filled its buffer. */
            if (must_read || c->last_read_full) {
                must_read = 0;
                ssize_t n = tachy__io_read(c, MSG_DONTWAIT);
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
            if (closer) {
                int fr = tachy__io_flush_end_nowait(c);
                if (fr < 0)
                    goto close;
                if (fr > 0)
                    return TACHY__CONN_NEXT_POOL; /* the socket is full: a pool thread waits */
            } else if (tachy__io_flush_end(c) < 0) {
                goto close;
            }
            long deadline;
            int idle = avail == 0;
            if (c->xp && !c->xp->ready(c)) {
                /* Mid-handshake: the client's next flight is awaited in the park set, not
                 * counted as idle, until the handshake deadline (tls/handshake.c). */
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
            /* The pool parks c; if an event arrived while we owned it, it runs us again. */
            *idle_out = idle;
            *deadline_out = deadline;
            return TACHY__CONN_NEXT_PARK;
        }
        if (r < 0) {
            if (r == TACHY__PARSE_MORE_HEADERS) {
                /* JDK header rules: more lines than max_req_headers may be fine (parser.c) */
                tachy__header_ref *more = realloc(c->refs, 2 * c->refs_cap * sizeof *more);
                if (!more)
                    goto close;
                c->refs = more;
                c->refs_cap *= 2;
                continue;
            }
            if (closer)
                return TACHY__CONN_NEXT_POOL; /* the pool thread parses it again, rejects */
            if (perr.status != TACHY__PARSE_CLOSE) /* else closed without a response */
                tachy__response_reject(c, perr.status, perr.reason);
            graceful = 1;
            goto close;
        }
        if (lim.jdk_rules && req.unfold)
            tachy__parse_unfold(c->rbuf.data + c->rbuf.off, &req);
        tachy__framing fr;
        if (tachy__parse_framing(&req, &fr, &perr) < 0 ||
            (o->check_host && check_host(c, &req, &fr, &perr) < 0)) {
            if (closer)
                return TACHY__CONN_NEXT_POOL;
            tachy__response_reject(c, perr.status, perr.reason);
            graceful = 1;
            goto close;
        }
        if (closer && fr.expect_continue)
            return TACHY__CONN_NEXT_POOL; /* the interim 100 is a blocking write */
        int rc = tachy__exchange_begin(&c->ex, c, &req, &fr);
        if (rc < 0 && closer) {
            tachy__exchange_end(&c->ex); /* as if never begun: the pool thread rejects it */
            return TACHY__CONN_NEXT_POOL;
        }
        atomic_fetch_add_explicit(&srv->st_requests, 1, memory_order_relaxed);
        tachy__buf_consume(&c->rbuf, (size_t)r);
        if (rc < 0) {
            if (rc == TACHY_EPROTO)
                tachy__response_reject(c, 400, "URISyntaxException thrown"); /* the JDK's words */
            else if (rc == TACHY_EINVAL)
                tachy__response_reject(c, 400, "Bad request URI");
            else
                tachy__response_reject(c, 500, "Out of memory");
            graceful = 1;
            goto close;
        }
        rc = tachy__exchange_dispatch(&c->ex);
        if (rc == TACHY__DISPATCH_LENT)
            return TACHY__CONN_NEXT_LENT; /* the exchange has c now */
        if (!exchange_over(c, rc))
            goto close;
    }
close:
    if (closer) {
        /* Flushing and a lingering close may wait: a pool thread closes it. */
        c->resume_close = 1;
        return TACHY__CONN_NEXT_POOL;
    }
    if (!atomic_load(&c->shut))
        tachy__io_flush(c);
    if (graceful)
        tachy__io_linger_close(c);
    return TACHY__CONN_NEXT_CLOSE;
}
