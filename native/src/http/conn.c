/*
 * http/conn.c - the HTTP/1.1 codec's step: read, parse, begin, dispatch, end - with
 * keep-alive and pipelining - until the connection must wait, close or be lent.
 *
 * The step reads into rbuf (io.c), parses every request already buffered (parser.c) and
 * runs each exchange in order on this thread (exchange.c, dispatch.c). Responses
 * accumulate in wbuf (response.c) and leave by the flush rule (io.c,
 * tachy__io_response_done). It never moves the connection between states: it returns what
 * it needs (tachy__conn_next) and the loop (loop/states.c) parks, lends, requeues or
 * closes it.
 */
#include "http/http.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

/* The client's HTTP/2 connection preface (RFC 9113 3.4). */
static const char h2_preface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/* Before the first request: does c switch to HTTP/2 (tachy_options.http2)? 1 yes (ALPN
 * chose "h2", or rbuf starts with the preface on a plain connection), 0 no, -1 not known
 * yet (rbuf holds the preface's beginning: wait for more bytes). */
__attribute__((cold, noinline)) static int h2_preface_check(const tachy__conn *c, size_t avail) {
    if (c->alpn_h2)
        return 1;
    if (c->xp || !(c->srv->opt.http2 & TACHY_HTTP2_PRIOR) || avail == 0)
        return 0;
    size_t n = TACHY__MIN(avail, sizeof h2_preface - 1);
    if (memcmp(c->rbuf.data + c->rbuf.off, h2_preface, n) != 0)
        return 0;
    return n == sizeof h2_preface - 1 ? 1 : -1;
}

/* tachy__conn_run's first look at a connection's bytes when it may switch to HTTP/2:
 * H2_SWITCH, H2_WAIT (the preface's beginning: read on, parse nothing), H2_REFUSE
 * (TACHY_HTTP2_ONLY and not the preface) or 0 (HTTP/1.1). Out of line (cold): it runs
 * once per connection, at most. */
enum { H2_SWITCH = 1, H2_WAIT = -1, H2_REFUSE = 2 };
__attribute__((cold, noinline)) static int h2_first_bytes(const tachy__conn *c, size_t avail) {
    int h2 = h2_preface_check(c, avail);
    if (h2 == 0 && avail && (c->srv->opt.http2 & TACHY_HTTP2_ONLY))
        return H2_REFUSE;
    return h2 > 0 ? H2_SWITCH : h2 < 0 ? H2_WAIT : 0;
}

/* A first request line that is no HTTP at all, on a port that takes HTTP/2 with prior
 * knowledge: three words, the third not "HTTP/..." - the shape of a mangled HTTP/2 preface
 * ("PRI * HTTP/2.0" is the real one), which RFC 9113 3.4 says to answer by closing the
 * connection. It is closed unanswered; anything else malformed (one word, a bad target,
 * "HTTP/2.0" as an HTTP/1 version) is an HTTP/1.1 client's and gets its 400 or 505 as
 * the JDK answers it. */
__attribute__((cold, noinline)) static int not_http(const tachy__conn *c, size_t avail) {
    if (c->served || c->xp || !c->srv->h2_ok || !(c->srv->opt.http2 & TACHY_HTTP2_PRIOR))
        return 0;
    const char *p = c->rbuf.data + c->rbuf.off;
    const char *eol = memchr(p, '\n', avail);
    if (!eol)
        return 0; /* (a line cut short is judged by what it is so far: 400) */
    size_t n = (size_t)(eol - p);
    if (n && p[n - 1] == '\r')
        n--;
    const char *sp1 = memchr(p, ' ', n);
    const char *sp2 = sp1 ? memchr(sp1 + 1, ' ', n - (size_t)(sp1 + 1 - p)) : NULL;
    if (!sp1 || !sp2 || sp1 == p || sp2 == sp1 + 1)
        return 0;
    const char *v = sp2 + 1;
    size_t vl = n - (size_t)(v - p);
    return vl > 0 && !memchr(v, ' ', vl) && (vl < 5 || strncasecmp(v, "HTTP/", 5) != 0);
}

/* 1 if s[0,n) lists the token tok (comma-separated, any case, RFC 9110 5.6.1). */
static int has_token(const char *s, size_t n, const char *tok) {
    size_t tl = strlen(tok);
    size_t i = 0;
    while (i < n) {
        while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == ','))
            i++;
        size_t b = i;
        while (i < n && s[i] != ',')
            i++;
        size_t e = i;
        while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t'))
            e--;
        if (e - b == tl && strncasecmp(s + b, tok, tl) == 0)
            return 1;
    }
    return 0;
}

/* An "Upgrade: h2c" request c may switch on (RFC 7540 3.2, tachy_options.http2): a plain
 * connection, "Connection: upgrade", exactly one HTTP2-Settings field, and no body (its
 * answer comes on stream 1 once the connection speaks HTTP/2, and a body would have to be
 * read as HTTP/1.1 first: such a request is served as HTTP/1.1, the upgrade ignored). */
__attribute__((cold, noinline)) static int h2c_upgrade(const tachy__conn *c, const tachy__request *req, const tachy__framing *fr) {
    if (!fr->upgrade || c->xp || !(c->srv->opt.http2 & TACHY_HTTP2_UPGRADE) || fr->chunked ||
        fr->content_length > 0)
        return 0;
    int h2c = 0, settings = 0;
    for (size_t i = 0; i < req->num_headers; i++) {
        const tachy__header_ref *h = &req->headers[i];
        if (h->name.len == 7 && strncasecmp(h->name.base, "upgrade", 7) == 0)
            h2c |= has_token(h->value.base, h->value.len, "h2c");
        else if (h->name.len == 14 && strncasecmp(h->name.base, "http2-settings", 14) == 0)
            settings++;
    }
    return h2c && settings == 1;
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

tachy__conn_next tachy__conn_run(tachy__conn *c, int closer, int *idle_out, long *deadline_out) {
    tachy_server *srv = c->srv;
    const tachy_options *o = &srv->opt;
    int graceful = 0;
    /* We were handed c because the kernel reported it readable (or it was pending). */
    int must_read = 1;
    if (closer && c->xp)
        return TACHY__CONN_NEXT_POOL; /* TLS writes and reads may wait: a pool thread's job */
    if (c->resume) {
        /* The deferred exchange was closed (loop/states.c): end it as dispatch would have. */
        int lent = c->resume == TACHY__RESUME_LENT;
        c->resume = 0;
        c->held = 0;
        atomic_store(&c->in_handler, 0);
        int rc = c->ex.failed || c->close_after ? -1 : 0;
        if (!exchange_over(c, rc))
            goto close;
        /* Lent: bytes that came meanwhile marked c PENDING - here parking sees that; a pool
         * thread gets c through the ready list, which does not keep it, so it reads.
         * Carrying on, this thread is where it was before the handler ran. */
        must_read = lent ? !closer : c->carry_read;
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
    /* Behind a balancer (tachy_options.proxy_protocol) a PROXY header comes before the
     * first HTTP or TLS byte: edge/listener.c checks the peer, reads the header and makes
     * c->peer the client's (c->lb keeps the balancer's). Until the header is whole, c
     * waits in the park set with its first deadline; a bad one closes it unanswered. */
    if (__builtin_expect(o->proxy_protocol && c->lb_len == 0, 0)) {
        int pr = tachy__edge_proxy_read(srv, c->fd, &c->rbuf, &c->peer.sa, &c->peer_len,
                                        sizeof c->peer, &c->lb.sa, &c->lb_len);
        if (pr < 0)
            goto close;
        if (pr > 0) {
            *idle_out = 0;
            *deadline_out = atomic_load(&c->deadline);
            return TACHY__CONN_NEXT_PARK;
        }
    }
    tachy__limits lim = {(size_t)o->max_request_line, (size_t)o->max_req_headers,
                         (size_t)o->max_req_header_size, o->jdk_header_rules};
    for (;;) {
        size_t avail = tachy__buf_size(&c->rbuf);
        int r = TACHY__PARSE_INCOMPLETE;
        tachy__request req;
        tachy__parse_error perr; /* set where a parse begins: most turns parse nothing */
        if (__builtin_expect(c->served == 0 && c->srv->h2_ok, 0)) {
            /* HTTP/2 (h2/): the loop switches codecs; nothing of rbuf is consumed. */
            int h2 = h2_first_bytes(c, avail);
            if (h2 == H2_SWITCH)
                return closer ? TACHY__CONN_NEXT_POOL : TACHY__CONN_NEXT_H2;
            if (h2 == H2_REFUSE) {
                /* HTTP/2 alone (tachy_options.http2): an HTTP/1.1 client is refused. */
                if (closer)
                    return TACHY__CONN_NEXT_POOL;
                tachy__response_reject(c, 505, "HTTP/2 only");
                graceful = 1;
                goto close;
            }
            if (h2 == H2_WAIT)
                goto unparsed; /* the preface's beginning: parse nothing, read the rest */
        }
        if (avail) {
            perr = (tachy__parse_error){400, "Bad request"};
            req.headers = c->refs;
            req.num_headers = c->refs_cap;
            r = tachy__parse_request_conn(c->rbuf.data + c->rbuf.off, avail, &req, &lim, &perr);
        }
    unparsed:
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
            if (perr.status != TACHY__PARSE_CLOSE && !not_http(c, avail))
                tachy__response_reject(c, perr.status, perr.reason); /* else closed unanswered */
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
        if (__builtin_expect(fr.upgrade && c->srv->h2_ok, 0) && h2c_upgrade(c, &req, &fr))
            return closer ? TACHY__CONN_NEXT_POOL : TACHY__CONN_NEXT_H2; /* h2/ answers 101 */
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
        tachy__exchange_deadlines(&c->ex);
        rc = tachy__exchange_dispatch_conn(&c->ex);
        if (rc == TACHY__DISPATCH_DEFERRED) {
            c->carry_read = must_read;
            return TACHY__CONN_NEXT_LEND; /* the loop lends c to the exchange */
        }
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
    if (graceful && tachy__io_linger_begin(c) == 0)
        return TACHY__CONN_NEXT_LINGER; /* the pool waits for the peer's EOF, not a thread */
    return TACHY__CONN_NEXT_CLOSE;
}
