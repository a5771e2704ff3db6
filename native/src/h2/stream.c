/*
 * h2/stream.c - each HTTP/2 stream an exchange: its request head as nghttp2 delivers it, the
 * job that begins its exchange and runs the context's handler on a pool thread, and the
 * exchange seam (http/http.h, tachy__exchange_ops) - how the exchange's body reads, response
 * head, body writes, flushes and close become HEADERS, DATA, WINDOW_UPDATE and RST_STREAM.
 *
 * The exchange is the same object HTTP/1.1 uses (http/exchange.c, response.c, dispatch.c):
 * the JDK's framing decision and every state check are theirs. What differs is mapped as
 * RFC 9113 8 says: the body's framing is DATA frames and END_STREAM (no chunked coding, no
 * Connection, Keep-Alive, Transfer-Encoding or Upgrade field is ever sent), 100-continue
 * and other 1xx are interim HEADERS, a body cut short or an exchange closed without a
 * response resets its stream (RST_STREAM INTERNAL_ERROR) instead of closing the
 * connection, and a draining server says GOAWAY (session.c) instead of "Connection: close".
 *
 * Flow control: a handler that writes faster than the peer reads waits while more than
 * TACHY__H2_OUT_HIGH bytes of its body are unsent (the stream's and the connection's
 * windows are the peer's to open); a handler that does not read its request body holds
 * back only its stream's window (the connection's is given back as bytes come, session.c).
 * Under tachy_exchange_hold nothing waits: reads answer TACHY_EWOULDBLOCK and output stays
 * buffered until a flush (the Java provider then waits off the virtual thread).
 */
#include "h2/internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- the request head ------------------------------------------------------------------ */

tachy__h2_stream *tachy__h2_stream_new(tachy__h2 *h2, int32_t id) {
    tachy__h2_stream *s = h2->pool;
    if (s) {
        h2->pool = s->next;
        h2->npool--;
    } else {
        s = calloc(1, sizeof *s);
        if (!s)
            return NULL;
        tachy__cond_init(&s->cond); /* (monotonic: wait_room's timed waits) */
    }
    memset(&s->h2, 0, sizeof *s - offsetof(tachy__h2_stream, h2));
    tachy__buf_reset(&s->hbuf);
    tachy__buf_reset(&s->in);
    tachy__buf_reset(&s->out);
    s->h2 = h2;
    s->id = id;
    s->refs = 1; /* nghttp2's, until on_stream_close */
    s->content_length = -1;

    if (tachy__h2_set_stream(h2, id, s) != 0 && id != 1) {
        s->next = h2->pool; /* (back, unused) */
        h2->pool = s;
        h2->npool++;
        return NULL;
    }
    s->all_next = h2->all;
    if (h2->all)
        h2->all->all_prev = s;
    h2->all = s;
    h2->nstreams++;
    return s;
}

/* Appends bytes to hbuf: their offset, or -1. */
static ssize_t keep(tachy__h2_stream *s, const char *p, size_t n) {
    size_t off = s->hbuf.len;
    if (tachy__buf_append(&s->hbuf, p, n) < 0)
        return -1;
    return (ssize_t)off;
}

int tachy__h2_stream_header(tachy__h2_stream *s, const char *name, size_t nl, const char *value,
                            size_t vl) {
    const tachy_options *o = &s->h2->c->srv->opt;
    /* RFC 9113 6.5.2: each field counts its name, its value and 32. Beyond the limits
     * (the same as HTTP/1.1's), the head is answered 431 and nothing more is kept - but
     * the block is still decoded to its end (HPACK's state is the connection's). */
    s->hsize += nl + vl + 32;
    if (s->too_big || s->hsize > (size_t)o->max_req_header_size ||
        s->nh >= (size_t)o->max_req_headers) {
        s->too_big = 1;
        return -1;
    }
    if (nl > 0 && name[0] == ':') {
        ssize_t off = keep(s, value, vl);
        if (off < 0) {
            s->too_big = 1;
            return -1;
        }
        if (nl == 7 && memcmp(name, ":method", 7) == 0) {
            s->method_off = (size_t)off, s->method_len = vl, s->has_method = 1;
        } else if (nl == 5 && memcmp(name, ":path", 5) == 0) {
            s->path_off = (size_t)off, s->path_len = vl, s->has_path = 1;
        } else if (nl == 10 && memcmp(name, ":authority", 10) == 0) {
            s->auth_off = (size_t)off, s->auth_len = vl, s->has_auth = 1;
        }
        return 0; /* :scheme (nghttp2 checked it is there) */
    }
    if (nl == 4 && memcmp(name, "host", 4) == 0)
        s->has_host = 1;
    else if (nl == 6 && memcmp(name, "expect", 6) == 0 && vl == 12 &&
             strncasecmp(value, "100-continue", 12) == 0)
        s->expect_100 = 1;
    else if (nl == 14 && memcmp(name, "content-length", 14) == 0) {
        int64_t v = 0;
        for (size_t i = 0; i < vl && v >= 0; i++)
            v = value[i] >= '0' && value[i] <= '9' && v < INT64_MAX / 10 ? v * 10 + (value[i] - '0') : -1;
        s->content_length = vl ? v : -1; /* (nghttp2 refused a malformed one) */
    }
    if (s->nh == s->hcap) {
        size_t cap = s->hcap ? s->hcap * 2 : 16;
        size_t *n = realloc(s->hoff, cap * 4 * sizeof *n);
        if (!n) {
            s->too_big = 1;
            return -1;
        }
        s->hoff = n;
        s->hcap = cap;
    }
    ssize_t noff = keep(s, name, nl), voff = noff < 0 ? -1 : keep(s, value, vl);
    if (voff < 0) {
        s->too_big = 1;
        return -1;
    }
    size_t *h = &s->hoff[s->nh * 4];
    h[0] = (size_t)noff, h[1] = nl, h[2] = (size_t)voff, h[3] = vl;
    s->nh++;
    return 0;
}

void tachy__h2_stream_ready(tachy__h2_stream *s) {
    s->head_done = 1;
    s->refs++; /* the exchange's: the job has it now */
    s->next = s->h2->ready;
    s->h2->ready = s;
}

/* ---- the job: a stream's exchange on a pool thread ----------------------------------- */

static const tachy__exchange_ops stream_ops;

/* The exchange of s from its request head (the job's thread; nghttp2 adds nothing to the
 * head any more). 0, or the status to answer instead (400, 431, 500). */
static int begin(tachy__h2_stream *s) {
    tachy__conn *c = s->h2->c;
    /* The stream's seam from the start: a 431 or 400 below is answered through it (on this
     * stream), before any tachy__exchange_begin. */
    s->ex.conn = c;
    s->ex.ops = &stream_ops;
    if (s->too_big)
        return 431;
    if (!s->has_method || !s->has_path)
        return 400; /* (CONNECT without :path: not served) */
    /* The Host field of an HTTP/1.1 request, from :authority (RFC 9113 8.3.1). */
    if (!s->has_host && s->has_auth && s->nh < s->hcap) {
        ssize_t noff = keep(s, "host", 4);
        ssize_t voff = noff < 0 ? -1 : keep(s, s->hbuf.data + s->auth_off, s->auth_len);
        if (voff < 0)
            return 500;
        size_t *h = &s->hoff[s->nh * 4];
        h[0] = (size_t)noff, h[1] = 4, h[2] = (size_t)voff, h[3] = s->auth_len;
        s->nh++;
    }
    if (s->nh > s->refs_cap) {
        tachy__header_ref *r = realloc(s->refs_arr, s->nh * sizeof *r);
        if (!r)
            return 500;
        s->refs_arr = r;
        s->refs_cap = s->nh;
    }
    for (size_t i = 0; i < s->nh; i++) {
        const size_t *h = &s->hoff[i * 4];
        s->refs_arr[i].name = (tachy__str){s->hbuf.data + h[0], h[1]};
        s->refs_arr[i].value = (tachy__str){s->hbuf.data + h[2], h[3]};
    }
    tachy__request req;
    memset(&req, 0, sizeof req);
    req.method = (tachy__str){s->hbuf.data + s->method_off, s->method_len};
    req.target = (tachy__str){s->hbuf.data + s->path_off, s->path_len};
    req.version = (tachy__str){"HTTP/2.0", 8};
    req.minor_version = 1;
    req.headers = s->refs_arr;
    req.num_headers = s->nh;
    tachy__framing fr;
    memset(&fr, 0, sizeof fr);
    pthread_mutex_lock(&s->h2->mu);
    int eof = s->in_eof && tachy__buf_size(&s->in) == 0;
    pthread_mutex_unlock(&s->h2->mu);
    fr.content_length = s->content_length;
    /* No length and more DATA to come: the JDK's chunked request (length -1). */
    fr.chunked = s->content_length < 0 && !eof;
    fr.expect_continue = s->expect_100 && !eof;
    int rc = tachy__exchange_begin(&s->ex, c, &req, &fr);
    s->begun = 1; /* (its memory is the exchange's either way) */
    s->ex.ops = &stream_ops; /* (kept across begin, which may fail half-way) */
    if (rc == TACHY_EPROTO || rc == TACHY_EINVAL)
        return 400;
    if (rc < 0)
        return 500;
    atomic_fetch_add_explicit(&c->srv->st_requests, 1, memory_order_relaxed);
    return 0;
}

/* The exchange's reference: dropped when the job, or the deferred exchange's closer, is
 * done with it. mu not held. */
static void exchange_done(tachy__h2_stream *s) {
    tachy__h2 *h2 = s->h2;
    pthread_mutex_lock(&h2->mu);
    tachy__h2_stream_unref(s);
    h2->idle_since = tachy__now_ms(); /* (tachy__h2_recheck) */
    /* The dead streams are ours to free (s among them unless nghttp2 still has it): they
     * count in nstreams until then, so the connection outlives the release. With none, h2
     * is not touched again: its owner may close it at once. */
    tachy__h2_stream *dead = tachy__h2_take_dead_locked(h2);
    pthread_mutex_unlock(&h2->mu);
    tachy__h2_release(h2, dead, 0);
}

static void stream_job(tachy__job *job) {
    tachy__h2_stream *s = (tachy__h2_stream *)((char *)job - offsetof(tachy__h2_stream, job));
    tachy__h2 *h2 = s->h2;
    tachy_server *srv = h2->c->srv;
    pthread_mutex_lock(&h2->mu);
    /* Reset before its turn (Rapid Reset), the connection gone, the server stopping: no
     * handler runs for it. */
    int skip = s->ng_closed || h2->dead || atomic_load(&srv->state) != TACHY__SRV_STARTED;
    pthread_mutex_unlock(&h2->mu);
    if (skip) {
        exchange_done(s);
        return;
    }
    int status = begin(s);
    tachy_exchange *ex = &s->ex;
    if (status) {
        static const char *const why[] = {"Bad request", "Request header fields too large",
                                          "Internal error"};
        tachy__exchange_reject_own(ex, status, why[status == 400 ? 0 : status == 431 ? 1 : 2]);
    } else if (tachy__exchange_dispatch(ex) == TACHY__DISPATCH_DEFERRED) {
        /* The handler handed the exchange on: whoever closes it lets go of the stream,
         * unless it was closed already (the order is settled under mu, as the loop's lend
         * settles it for HTTP/1.1 under c->lock). */
        pthread_mutex_lock(&h2->mu);
        if (ex->handler_failed)
            tachy__exchange_fail(ex, 0);
        int lent = !ex->closed;
        s->lent = lent;
        pthread_mutex_unlock(&h2->mu);
        if (lent)
            return;
    }
    if (!ex->closed)
        tachy_exchange_close(ex); /* a reject, a failed handler: the stream ends here */
    exchange_done(s);
}

void tachy__h2_dispatch(tachy__h2 *h2) {
    tachy_server *srv = h2->c->srv;
    pthread_mutex_lock(&h2->mu);
    tachy__h2_stream *list = NULL;
    while (h2->ready) { /* (the list is newest first: reverse it) */
        tachy__h2_stream *s = h2->ready;
        h2->ready = s->next;
        s->next = list;
        list = s;
    }
    tachy__job *jobs = NULL, **tail = &jobs;
    while (list) {
        tachy__h2_stream *s = list;
        list = s->next;
        s->next = NULL;
        if (s->ng_closed || h2->dead) {
            tachy__h2_stream_unref(s); /* reset in the same read: no handler for it */
            continue;
        }
        s->job.run = stream_job;
        s->job.next = NULL;
        *tail = &s->job;
        tail = &s->job.next;
    }
    if (jobs) {
        srv->loop_post(srv, jobs, 0); /* this thread takes them once c is parked */
        /* Their responses leave together, after the last of them (the flush rule). */
        tachy__h2_post_flush_locked(h2, 0);
    }
    pthread_mutex_unlock(&h2->mu);
    tachy__h2_reap(h2);
}

/* ---- the exchange seam -------------------------------------------------------------- */

static tachy__h2_stream *S(const tachy_exchange *ex) {
    return (tachy__h2_stream *)ex; /* ex is the stream's first member */
}

/* Output for the peer: sent now unless a flush job will send it (the batch's). May wait
 * unless the exchange is held. */
static int kick(tachy__h2_stream *s) {
    return tachy__h2_send(s->h2, !s->held, 0);
}

static ssize_t st_read(tachy_exchange *ex, void *buf, size_t len) {
    tachy__h2_stream *s = S(ex);
    tachy__h2 *h2 = s->h2;
    pthread_mutex_lock(&h2->mu);
    int told = 0;
    while (tachy__buf_size(&s->in) == 0 && !s->in_eof && !s->ng_closed && !h2->dead) {
        if (s->held) {
            pthread_mutex_unlock(&h2->mu);
            return TACHY_EWOULDBLOCK;
        }
        if (!told) {
            /* This thread waits for the peer: another takes the loop's work meanwhile. */
            pthread_mutex_unlock(&h2->mu);
            tachy__server_blocking(h2->c->srv);
            tachy__h2_send(h2, 1, 1); /* what was written before (a batch's) leaves now */
            pthread_mutex_lock(&h2->mu);
            told = 1;
            continue;
        }
        pthread_cond_wait(&s->cond, &h2->mu);
    }
    size_t have = tachy__buf_size(&s->in);
    ssize_t n;
    if (have > 0) {
        n = (ssize_t)TACHY__MIN(have, len);
        memcpy(buf, s->in.data + s->in.off, (size_t)n);
        tachy__buf_consume(&s->in, (size_t)n);
        if (!s->ng_closed) /* the window it took is the peer's again */
            NG(nghttp2_session_consume_stream)(h2->ng, s->id, (size_t)n);
    } else if (s->in_eof) {
        n = 0;
    } else {
        n = s->close_code == 0 && !h2->dead ? TACHY_ETRUNCATED : TACHY_EPEERCLOSED;
    }
    pthread_mutex_unlock(&h2->mu);
    if (n > 0)
        kick(s); /* a WINDOW_UPDATE, if nghttp2 decided one is due */
    return n;
}

static ssize_t st_available(tachy_exchange *ex) {
    tachy__h2_stream *s = S(ex);
    pthread_mutex_lock(&s->h2->mu);
    ssize_t n = (ssize_t)tachy__buf_size(&s->in);
    pthread_mutex_unlock(&s->h2->mu);
    return n;
}

static void st_discard(tachy_exchange *ex) {
    tachy__h2_stream *s = S(ex);
    pthread_mutex_lock(&s->h2->mu);
    s->discard = 1;
    size_t n = tachy__buf_size(&s->in);
    if (n && !s->ng_closed)
        NG(nghttp2_session_consume_stream)(s->h2->ng, s->id, n);
    tachy__buf_reset(&s->in);
    pthread_mutex_unlock(&s->h2->mu);
}

/* Field names of an HTTP/1.1 connection that HTTP/2 forbids (RFC 9113 8.2.2): never sent. */
static int connection_specific(const char *n, size_t l) {
    return (l == 10 && strncasecmp(n, "connection", 10) == 0) ||
           (l == 10 && strncasecmp(n, "keep-alive", 10) == 0) ||
           (l == 16 && strncasecmp(n, "proxy-connection", 16) == 0) ||
           (l == 17 && strncasecmp(n, "transfer-encoding", 17) == 0) ||
           (l == 7 && strncasecmp(n, "upgrade", 7) == 0);
}

#define NV(n, nl, v, vl) ((nghttp2_nv){(uint8_t *)(n), (uint8_t *)(v), (nl), (vl), NGHTTP2_NV_FLAG_NONE})

static int st_head(tachy_exchange *ex, int code, int64_t content_length, int end,
                   tachy__field_next next, void *src) {
    tachy__h2_stream *s = S(ex);
    tachy__h2 *h2 = s->h2;
    char status[4] = {(char)('0' + code / 100 % 10), (char)('0' + code / 10 % 10),
                      (char)('0' + code % 10), 0};
    char date[TACHY__DATE_LEN + 1];
    tachy__date_now_h2(date);
    char cl[24];
    size_t cll = 0;
    if (content_length >= 0)
        cll = tachy__format_u64(cl, (uint64_t)content_length);
    /* The fields: names lower-cased (RFC 9113 8.2.1) into hbuf (the request head's bytes,
     * which the exchange copied when it began: free to reuse), values as they are. nghttp2
     * copies the values but not the names (NO_COPY_NAME: no copy, and no lower-casing of
     * its own): they are literals or hbuf's, which nothing writes again before the struct
     * serves another stream - after nghttp2 closed this one, when it packs none of its
     * frames any more. A name is an offset into hbuf until hbuf stops growing. */
    tachy__buf *names = &s->hbuf;
    tachy__buf_reset(names);
    size_t n = 0;
    int rc = 0;
#define NV_ADD(nm, nl, v, vl)                                                                    \
    do {                                                                                       \
        if (n == s->nv_cap) {                                                                  \
            size_t cap = s->nv_cap ? s->nv_cap * 2 : 16;                                       \
            nghttp2_nv *g = realloc(s->nv, cap * sizeof *g);                                   \
            if (!g) {                                                                          \
                rc = TACHY_ENOMEM;                                                             \
                break;                                                                         \
            }                                                                                  \
            s->nv = g;                                                                         \
            s->nv_cap = cap;                                                                   \
        }                                                                                      \
        s->nv[n++] = (nghttp2_nv){(uint8_t *)(nm), (uint8_t *)(v), (nl), (vl),                 \
                                  NGHTTP2_NV_FLAG_NO_COPY_NAME};                               \
    } while (0)
    NV_ADD(":status", 7, status, 3);
    NV_ADD("date", 4, date, TACHY__DATE_LEN);
    size_t first = n; /* the handler's fields start here (names as offsets) */
    size_t nl, vl;
    const char *name, *value;
    while (rc == 0 && next(src, &name, &nl, &value, &vl)) {
        if ((nl == 4 && strncasecmp(name, "date", 4) == 0) ||
            (nl == 14 && strncasecmp(name, "content-length", 14) == 0 &&
             (content_length >= 0 || !end)) ||
            connection_specific(name, nl))
            continue; /* tachy's own, or the hop's */
        size_t off = names->len;
        if (tachy__buf_append(names, name, nl) < 0) {
            rc = TACHY_ENOMEM;
            break;
        }
        for (size_t i = 0; i < nl; i++) {
            char ch = names->data[off + i];
            if (ch >= 'A' && ch <= 'Z')
                names->data[off + i] = (char)(ch + 32);
        }
        NV_ADD((uintptr_t)off, nl, value, vl);
    }
    if (rc == 0 && content_length >= 0)
        NV_ADD("content-length", 14, cl, cll);
#undef NV_ADD
    size_t last = content_length >= 0 ? n - 1 : n;
    for (size_t i = first; rc == 0 && i < last; i++)
        s->nv[i].name = (uint8_t *)names->data + (uintptr_t)s->nv[i].name;
    if (rc == 0) {
        pthread_mutex_lock(&h2->mu);
        if (s->ng_closed || h2->dead) {
            rc = TACHY_EPEERCLOSED; /* the client reset the stream, or left */
        } else {
            nghttp2_data_provider prd = {{.ptr = s}, tachy__h2_stream_read_body};
            if (NG(nghttp2_submit_response)(h2->ng, s->id, s->nv, n, end ? NULL : &prd) != 0)
                rc = TACHY_EPROTO;
        }
        pthread_mutex_unlock(&h2->mu);
    }
    if (rc < 0)
        return rc;
    /* A response without a body is complete; a streamed one shows its head now (as the
     * JDK flushes it); a fixed one leaves with its body. */
    if (end || ex->rsp_mode == TACHY__RSP_CHUNKED || content_length < 0)
        return kick(s);
    return 0;
}

ssize_t tachy__h2_stream_read_body(nghttp2_session *ng, int32_t id, uint8_t *buf, size_t len,
                                   uint32_t *flags, nghttp2_data_source *src, void *user) {
    (void)ng;
    (void)src;
    /* The stream by its user data, not src->ptr: a dead connection (tachy__h2_kill_locked)
     * lets go of streams nghttp2 still has queued DATA for, and they may be freed before a
     * sender that was writing meanwhile asks nghttp2 for more. Their user data is NULL from
     * then on: nothing more is sent for them. */
    tachy__h2_stream *s = tachy__h2_stream_of(user, id);
    if (!s)
        return NGHTTP2_ERR_DEFERRED;
    size_t have = tachy__buf_size(&s->out);
    size_t n = TACHY__MIN(have, len);
    if (n) {
        memcpy(buf, s->out.data + s->out.off, n);
        tachy__buf_consume(&s->out, n);
        if (tachy__buf_size(&s->out) < TACHY__H2_OUT_HIGH)
            pthread_cond_broadcast(&s->cond); /* a writer waiting for room */
    }
    if (tachy__buf_size(&s->out) == 0) {
        if (s->out_eof) {
            *flags |= NGHTTP2_DATA_FLAG_EOF;
        } else if (n == 0) {
            s->out_deferred = 1;
            return NGHTTP2_ERR_DEFERRED;
        }
    }
    return (ssize_t)n;
}

/* Wakes nghttp2's data source of s after more body (mu held). */
static void resume(tachy__h2_stream *s) {
    if (s->out_deferred && !s->ng_closed) {
        s->out_deferred = 0;
        NG(nghttp2_session_resume_data)(s->h2->ng, s->id);
    }
}

/* Waits (mu held) while more than `high` bytes of s's body are unsent and the stream and
 * connection live. With maxRspTime set, a wait in which none of them leaves for that long
 * gives up (TACHY_ETIMEDOUT), as an HTTP/1.1 write under SO_SNDTIMEO does: a client that
 * keeps its window at 0 does not hold the handler's thread for ever. 0 or TACHY_ETIMEDOUT. */
static int wait_room(tachy__h2_stream *s, size_t high) {
    tachy__h2 *h2 = s->h2;
    long limit = h2->c->srv->opt.max_rsp_time_ms;
    size_t seen = tachy__buf_size(&s->out);
    long deadline = limit > 0 ? tachy__now_ms() + limit : 0;
    while (tachy__buf_size(&s->out) > high && !s->ng_closed && !h2->dead) {
        long left = -1;
        if (limit > 0) {
            long now = tachy__now_ms();
            if (tachy__buf_size(&s->out) < seen) { /* bytes left: a new period */
                seen = tachy__buf_size(&s->out);
                deadline = now + limit;
            }
            left = deadline - now;
            if (left <= 0)
                return TACHY_ETIMEDOUT;
        }
        tachy__cond_wait_ms(&s->cond, &h2->mu, left);
    }
    return 0;
}

static int st_body(tachy_exchange *ex, const void *buf, size_t len) {
    tachy__h2_stream *s = S(ex);
    tachy__h2 *h2 = s->h2;
    pthread_mutex_lock(&h2->mu);
    if (s->ng_closed || h2->dead) {
        pthread_mutex_unlock(&h2->mu);
        return TACHY_EPEERCLOSED;
    }
    if (tachy__buf_append(&s->out, buf, len) < 0) {
        pthread_mutex_unlock(&h2->mu);
        return TACHY_ENOMEM;
    }
    resume(s);
    size_t pending = tachy__buf_size(&s->out);
    pthread_mutex_unlock(&h2->mu);
    if (pending < TACHY__H2_OUT_HIGH || s->held)
        return 0; /* it leaves with the response's end (or a flush) */
    /* Much is buffered: send what the windows allow, and wait while the peer has not made
     * room (its WINDOW_UPDATEs come through the connection's reads). */
    int rc = tachy__h2_send(h2, 1, 1);
    pthread_mutex_lock(&h2->mu);
    if (tachy__buf_size(&s->out) >= TACHY__H2_OUT_HIGH && !s->ng_closed && !h2->dead) {
        pthread_mutex_unlock(&h2->mu);
        tachy__server_blocking(h2->c->srv);
        pthread_mutex_lock(&h2->mu);
        if (rc == 0)
            rc = wait_room(s, TACHY__H2_OUT_HIGH - 1);
    }
    if (s->ng_closed || h2->dead)
        rc = TACHY_EPEERCLOSED;
    pthread_mutex_unlock(&h2->mu);
    return rc;
}

static int st_flush(tachy_exchange *ex, int wait) {
    tachy__h2_stream *s = S(ex);
    tachy__h2 *h2 = s->h2;
    if (!wait) {
        int rc = tachy__h2_send(h2, 0, 1);
        if (rc < 0)
            return rc;
        pthread_mutex_lock(&h2->mu);
        int left = tachy__buf_size(&s->out) > 0 || h2->flush_posted;
        pthread_mutex_unlock(&h2->mu);
        return left;
    }
    int rc = tachy__h2_send(h2, 1, 1);
    pthread_mutex_lock(&h2->mu);
    if (rc == 0)
        rc = wait_room(s, 0);
    if (rc == 0 && tachy__buf_size(&s->out) > 0)
        rc = TACHY_EPEERCLOSED;
    pthread_mutex_unlock(&h2->mu);
    return rc;
}

static int st_end(tachy_exchange *ex, int ok) {
    tachy__h2_stream *s = S(ex);
    tachy__h2 *h2 = s->h2;
    pthread_mutex_lock(&h2->mu);
    if (!s->ng_closed && !h2->dead) {
        if (ok) {
            s->out_eof = 1;
            resume(s);
        } else {
            NG(nghttp2_submit_rst_stream)(h2->ng, NGHTTP2_FLAG_NONE, s->id,
                                         NGHTTP2_INTERNAL_ERROR);
        }
    }
    pthread_mutex_unlock(&h2->mu);
    return kick(s);
}

static int st_interim(tachy_exchange *ex, int code) {
    tachy__h2_stream *s = S(ex);
    tachy__h2 *h2 = s->h2;
    if (code == 101)
        return TACHY_ENOTSUP; /* no upgrade on a stream (RFC 9113 8.6) */
    char status[4] = {(char)('0' + code / 100 % 10), (char)('0' + code / 10 % 10),
                      (char)('0' + code % 10), 0};
    nghttp2_nv nv = NV(":status", 7, status, 3);
    int rc = 0;
    pthread_mutex_lock(&h2->mu);
    if (s->ng_closed || h2->dead)
        rc = TACHY_EPEERCLOSED;
    else if (NG(nghttp2_submit_headers)(h2->ng, NGHTTP2_FLAG_NONE, s->id, NULL, &nv, 1, NULL) < 0)
        rc = TACHY_EPROTO;
    pthread_mutex_unlock(&h2->mu);
    return rc < 0 ? rc : tachy__h2_send(h2, !s->held, 1);
}

static void st_closed(tachy_exchange *ex) {
    tachy__h2_stream *s = S(ex);
    tachy__h2 *h2 = s->h2;
    pthread_mutex_lock(&h2->mu);
    ex->closed = 1;
    int release = s->lent;
    s->lent = 0;
    int reset = 0;
    if ((ex->failed || !ex->rsp_done) && !s->ng_closed && !h2->dead) {
        /* No (whole) response: the stream is reset, its connection serves on. */
        NG(nghttp2_submit_rst_stream)(h2->ng, NGHTTP2_FLAG_NONE, s->id, NGHTTP2_INTERNAL_ERROR);
        reset = 1;
    }
    pthread_mutex_unlock(&h2->mu);
    if (reset)
        tachy__h2_send(h2, 0, 1);
    if (release)
        exchange_done(s); /* a deferred exchange: its closer lets go of the stream */
}

static int st_hold(tachy_exchange *ex, int on) {
    tachy__h2_stream *s = S(ex);
    if (s->held && !on)
        tachy__server_blocking(s->h2->c->srv); /* the thread may wait from now on */
    s->held = on != 0;
    return 0;
}

static int st_held_bytes(const tachy_exchange *ex) {
    tachy__h2_stream *s = S(ex);
    pthread_mutex_lock(&s->h2->mu);
    size_t n = tachy__buf_size(&s->out);
    pthread_mutex_unlock(&s->h2->mu);
    return n > INT32_MAX ? INT32_MAX : (int)n;
}

static const tachy__exchange_ops stream_ops = {
    st_read, st_available, st_discard, st_head,  st_body,      st_flush,
    st_end,  st_interim,   st_closed,  st_hold, st_held_bytes,
};

/* ---- the end of a stream ------------------------------------------------------------------ */

static void stream_release_memory(tachy__h2_stream *s) {
    tachy__exchange_free(&s->ex);
    tachy__buf_free(&s->hbuf);
    tachy__buf_free(&s->in);
    tachy__buf_free(&s->out);
    free(s->hoff);
    free(s->refs_arr);
    free(s->nv);
    pthread_cond_destroy(&s->cond);
    free(s);
}

void tachy__h2_release(tachy__h2 *h2, tachy__h2_stream *list, int pins) {
    if (!list && !pins)
        return;
    /* Metrics and the access log (a begun exchange), the context; the memory is kept, and
     * a head refused before its exchange began is reset all the same. */
    int n = 0;
    for (tachy__h2_stream *s = list; s; s = s->next, n++)
        tachy__exchange_end(&s->ex);
    tachy__h2_stream *gone = NULL;
    int ngone = 0;
    pthread_mutex_lock(&h2->mu); /* (the streams left h2->all in tachy__h2_stream_unref) */
    while (list) {
        tachy__h2_stream *s = list;
        list = s->next;
        if (!h2->dead && h2->npool < TACHY__H2_POOL_MAX && s->out.cap <= 256 * 1024 &&
            s->in.cap <= 256 * 1024) {
            s->next = h2->pool;
            h2->pool = s;
            h2->npool++;
        } else {
            s->next = gone;
            gone = s;
            ngone++;
        }
    }
    /* Structs to free still count until they are: freeing one touches the connection. */
    h2->nstreams -= n - ngone + pins;
    int requeue = h2->nstreams == 0 && h2->held;
    pthread_mutex_unlock(&h2->mu);
    if (gone) {
        tachy__h2_pool_release(gone);
        pthread_mutex_lock(&h2->mu);
        h2->nstreams -= ngone;
        requeue = h2->nstreams == 0 && h2->held;
        pthread_mutex_unlock(&h2->mu);
    }
    if (requeue) {
        /* The connection was held for its streams' exchanges (session.c): it is ours to
         * give back to the loop, which closes it. */
        tachy_server *srv = h2->c->srv;
        srv->loop_requeue(h2->c);
        tachy__server_release(srv);
    }
}

void tachy__h2_pool_free(tachy__h2 *h2) {
    while (h2->pool) {
        tachy__h2_stream *s = h2->pool;
        h2->pool = s->next;
        stream_release_memory(s);
    }
    h2->npool = 0;
}

tachy__h2_stream *tachy__h2_pool_trim_locked(tachy__h2 *h2) {
    tachy__h2_stream *list = NULL;
    while (h2->npool > TACHY__H2_POOL_IDLE) {
        tachy__h2_stream *s = h2->pool;
        h2->pool = s->next;
        h2->npool--;
        s->next = list;
        list = s;
    }
    return list;
}

void tachy__h2_pool_release(tachy__h2_stream *list) {
    while (list) {
        tachy__h2_stream *s = list;
        list = s->next;
        stream_release_memory(s);
    }
}
