/*
 * h2/session.c - an HTTP/2 connection: the switch from HTTP/1.1 (the preface, ALPN "h2",
 * "Upgrade: h2c"), the read step the loop runs, sending, GOAWAY and closing, and the limits
 * nghttp2 1.52 does not apply itself (CONTINUATION floods, Rapid Reset, header list size).
 *
 * nghttp2 parses and frames (HPACK, flow-control windows, stream states, SETTINGS, PING,
 * the flood limits of CVE-2019-9512 to 9518); its callbacks below run under h2->mu, on the
 * thread feeding it (the connection's owner) or sending (any thread).
 */
#include "h2/internal.h"

#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

int tachy__h2_available(void) {
    return tachy__ng_ready();
}

/* ---- nghttp2's callbacks (mu held) ------------------------------------------------------- */

tachy__h2_stream *tachy__h2_stream_of(tachy__h2 *h2, int32_t id) {
    if (id == h2->cur_id && id != 0)
        return h2->cur;
    tachy__h2_stream *s = NG(nghttp2_session_get_stream_user_data)(h2->ng, id);
    h2->cur_id = id;
    h2->cur = s;
    return s;
}

int tachy__h2_set_stream(tachy__h2 *h2, int32_t id, tachy__h2_stream *s) {
    if (id == h2->cur_id)
        h2->cur_id = 0; /* (looked up again) */
    return NG(nghttp2_session_set_stream_user_data)(h2->ng, id, s);
}

static int on_begin_frame(nghttp2_session *ng, const nghttp2_frame_hd *hd, void *user) {
    (void)ng;
    tachy__h2 *h2 = user;
    if (hd->type == NGHTTP2_HEADERS) {
        h2->continuations = 0;
        int32_t id = hd->stream_id;
        if (id > h2->max_id && (id & 1)) {
            int32_t next = h2->max_id ? h2->max_id + 2 : 1; /* the lowest id still unused */
            if (id > next) { /* ids skipped: never usable again */
                int32_t *g = h2->gaps[h2->ngaps++ % 8];
                g[0] = next;
                g[1] = id - 2;
            }
            h2->max_id = id;
        } else if (id < h2->max_id && (id & 1)) {
            for (unsigned i = 0; i < 8 && i < h2->ngaps; i++)
                if (id >= h2->gaps[i][0] && id <= h2->gaps[i][1]) {
                    h2->fatal = NGHTTP2_PROTOCOL_ERROR;
                    return NGHTTP2_ERR_CALLBACK_FAILURE;
                }
        }
    } else if (hd->type == NGHTTP2_CONTINUATION) {
        /* A header block in endless CONTINUATION frames costs HPACK work for each, while no
         * stream ever begins (CVE-2024-27316; nghttp2 bounds it from 1.61 on): a few are
         * plenty for any real head. */
        if (++h2->continuations > TACHY__H2_MAX_CONTINUATIONS) {
            h2->fatal = NGHTTP2_ENHANCE_YOUR_CALM;
            return NGHTTP2_ERR_CALLBACK_FAILURE;
        }
    } else if (hd->type == NGHTTP2_RST_STREAM) {
        /* Rapid Reset (CVE-2023-44487): streams opened and reset at once cost no handler
         * (a reset stream's job is dropped), but a client that resets hundreds a second is
         * attacking: GOAWAY. (nghttp2 counts this itself from 1.57 on.) */
        long sec = tachy__now_ms() / 1000;
        if (sec != h2->rst_second) {
            h2->rst_second = sec;
            h2->rst_count = 0;
        }
        if (++h2->rst_count > TACHY__H2_RESETS_PER_SEC) {
            h2->fatal = NGHTTP2_ENHANCE_YOUR_CALM;
            return NGHTTP2_ERR_CALLBACK_FAILURE;
        }
    }
    return 0;
}

static int on_begin_headers(nghttp2_session *ng, const nghttp2_frame *f, void *user) {
    (void)ng;
    tachy__h2 *h2 = user;
    if (f->hd.type != NGHTTP2_HEADERS)
        return 0;
    tachy__h2_stream *s = tachy__h2_stream_of(h2, f->hd.stream_id);
    if (s) {
        s->trailers = 1; /* a second block: trailers (RFC 9113 8.1), not kept */
        return 0;
    }
    s = tachy__h2_stream_new(h2, f->hd.stream_id);
    if (!s)
        return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE; /* out of memory: this stream is reset */
    return 0;
}

static int on_header(nghttp2_session *ng, const nghttp2_frame *f, const uint8_t *name, size_t nl,
                     const uint8_t *value, size_t vl, uint8_t flags, void *user) {
    (void)ng;
    (void)flags;
    tachy__h2 *h2 = user;
    tachy__h2_stream *s = tachy__h2_stream_of(h2, f->hd.stream_id);
    if (!s || s->trailers)
        return 0;
    tachy__h2_stream_header(s, (const char *)name, nl, (const char *)value, vl);
    return 0;
}

static int on_frame_recv(nghttp2_session *ng, const nghttp2_frame *f, void *user) {
    (void)ng;
    tachy__h2 *h2 = user;
    if (f->hd.type != NGHTTP2_HEADERS && f->hd.type != NGHTTP2_DATA)
        return 0;
    tachy__h2_stream *s = tachy__h2_stream_of(h2, f->hd.stream_id);
    if (!s)
        return 0;
    if (f->hd.type == NGHTTP2_HEADERS && !s->head_done && !s->trailers) {
        if (f->hd.flags & NGHTTP2_FLAG_END_STREAM)
            s->in_eof = 1;
        tachy__h2_stream_ready(s);
        return 0;
    }
    if (f->hd.flags & NGHTTP2_FLAG_END_STREAM) {
        s->in_eof = 1;
        pthread_cond_broadcast(&s->cond);
    }
    return 0;
}

static int on_data(nghttp2_session *ng, uint8_t flags, int32_t id, const uint8_t *data, size_t len,
                   void *user) {
    (void)flags;
    tachy__h2 *h2 = user;
    /* The connection's window is given back at once: a stream whose handler does not read
     * holds back only its own window (RFC 9113 5.2), never the others'. */
    NG(nghttp2_session_consume_connection)(ng, len);
    tachy__h2_stream *s = tachy__h2_stream_of(h2, id);
    if (!s || s->discard || !s->head_done) {
        NG(nghttp2_session_consume_stream)(ng, id, len);
        return 0;
    }
    if (tachy__buf_append(&s->in, data, len) < 0)
        return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE; /* out of memory: the stream is reset */
    pthread_cond_broadcast(&s->cond);
    return 0;
}

static int on_stream_close(nghttp2_session *ng, int32_t id, uint32_t code, void *user) {
    (void)ng;
    tachy__h2 *h2 = user;
    tachy__h2_stream *s = tachy__h2_stream_of(h2, id);
    if (!s)
        return 0;
    tachy__h2_set_stream(h2, id, NULL);
    s->ng_closed = 1;
    s->close_code = code;
    pthread_cond_broadcast(&s->cond);
    tachy__h2_stream_unref(s); /* nghttp2's reference */
    return 0;
}

static nghttp2_session_callbacks *g_cbs;
static pthread_once_t cbs_once = PTHREAD_ONCE_INIT;

static void cbs_make(void) {
    if (NG(nghttp2_session_callbacks_new)(&g_cbs) != 0)
        return;
    NG(nghttp2_session_callbacks_set_on_begin_frame_callback)(g_cbs, on_begin_frame);
    NG(nghttp2_session_callbacks_set_on_begin_headers_callback)(g_cbs, on_begin_headers);
    NG(nghttp2_session_callbacks_set_on_header_callback)(g_cbs, on_header);
    NG(nghttp2_session_callbacks_set_on_frame_recv_callback)(g_cbs, on_frame_recv);
    NG(nghttp2_session_callbacks_set_on_data_chunk_recv_callback)(g_cbs, on_data);
    NG(nghttp2_session_callbacks_set_on_stream_close_callback)(g_cbs, on_stream_close);
}

/* ---- streams' shared bookkeeping ------------------------------------------------------ */

void tachy__h2_stream_unref(tachy__h2_stream *s) {
    tachy__h2 *h2 = s->h2;
    if (--s->refs > 0)
        return;
    /* Off h2->all now, under mu: tachy__h2_release destroys s's condition without mu,
     * and tachy__h2_kill_locked must not wake it meanwhile. */
    if (s->all_prev)
        s->all_prev->all_next = s->all_next;
    else
        h2->all = s->all_next;
    if (s->all_next)
        s->all_next->all_prev = s->all_prev;
    s->all_prev = s->all_next = NULL;
    s->next = h2->dead_list;
    h2->dead_list = s;
}

void tachy__h2_kill_locked(tachy__h2 *h2) {
    h2->dead = 1;
    tachy__h2_stream *s = h2->all;
    while (s) {
        tachy__h2_stream *next = s->all_next; /* (s may leave the list for dead_list, never
                                                  freed here) */
        pthread_cond_broadcast(&s->cond);
        if (!s->ng_closed) {
            s->ng_closed = 1;
            s->close_code = NGHTTP2_CANCEL;
            tachy__h2_set_stream(h2, s->id, NULL);
            tachy__h2_stream_unref(s); /* nghttp2's */
        }
        s = next;
    }
}

tachy__h2_stream *tachy__h2_take_dead_locked(tachy__h2 *h2) {
    tachy__h2_stream *list = h2->dead_list;
    h2->dead_list = NULL;
    return list;
}

void tachy__h2_reap(tachy__h2 *h2) {
    pthread_mutex_lock(&h2->mu);
    tachy__h2_stream *list = tachy__h2_take_dead_locked(h2);
    pthread_mutex_unlock(&h2->mu);
    tachy__h2_release(h2, list, 0); /* nstreams down, and a requeue at zero when held */
}

/* ---- sending ------------------------------------------------------------------------- */

static void flush_job(tachy__job *job) {
    tachy__h2 *h2 = (tachy__h2 *)((char *)job - offsetof(tachy__h2, flush_job));
    pthread_mutex_lock(&h2->mu);
    h2->flush_posted = 0;
    pthread_mutex_unlock(&h2->mu);
    tachy__h2_send(h2, 1, 1); /* (it frees the streams that ended meanwhile) */
    tachy__h2_release(h2, NULL, 1); /* the job held the connection (tachy__h2_post_flush_locked) */
}

void tachy__h2_post_flush_locked(tachy__h2 *h2, int wake) {
    if (h2->flush_posted)
        return;
    h2->flush_posted = 1;
    h2->nstreams++;
    h2->flush_job.run = flush_job;
    h2->flush_job.next = NULL;
    h2->c->srv->loop_post(h2->c->srv, &h2->flush_job, wake);
}

/* Writes c->wbuf: blocking, or only what the socket takes now (1: bytes are left). TLS: one
 * SSL call at a time with the reader. */
static int write_out(tachy__h2 *h2, int wait) {
    tachy__conn *c = h2->c;
    if (!wait)
        return tachy__io_flush_end_nowait(c); /* (TLS: 1, nothing sent: SSL_write may wait) */
    if (!c->xp)
        return tachy__io_flush(c);
    pthread_mutex_lock(&h2->xp_lock);
    int rc = tachy__io_flush(c);
    pthread_mutex_unlock(&h2->xp_lock);
    return rc;
}

int tachy__h2_send(tachy__h2 *h2, int wait, int force) {
    tachy__conn *c = h2->c;
    pthread_mutex_lock(&h2->mu);
    /* The last words wait for the sender before them - for a while: a peer that reads
     * nothing may hold that sender's write for ever (the caller's shutdown ends it). */
    long until = force == 2 ? tachy__now_ms() + TACHY__H2_LAST_WORDS_MS : 0;
    while (force == 2 && h2->sending && tachy__now_ms() < until)
        tachy__cond_wait_ms(&h2->send_cond, &h2->mu, until - tachy__now_ms());
    if (h2->sending || (h2->dead && force < 2) || (h2->flush_posted && !force)) {
        /* Another thread sends (it takes what we submitted: it asks nghttp2 again after each
         * write, under mu), or the flush job will. */
        tachy__h2_stream *dead = tachy__h2_take_dead_locked(h2);
        pthread_mutex_unlock(&h2->mu);
        tachy__h2_release(h2, dead, 0);
        return 0;
    }
    h2->sending = 1;
    int rc = 0;
    for (;;) {
        while (tachy__buf_size(&c->wbuf) < TACHY__H2_SEND_CHUNK) {
            const uint8_t *p;
            ssize_t n = NG(nghttp2_session_mem_send)(h2->ng, &p);
            if (n < 0) {
                rc = TACHY_EPROTO;
                break;
            }
            if (n == 0)
                break;
            if (tachy__buf_append(&c->wbuf, p, (size_t)n) < 0) {
                rc = TACHY_ENOMEM;
                break;
            }
        }
        if (rc < 0 || tachy__buf_size(&c->wbuf) == 0)
            break;
        pthread_mutex_unlock(&h2->mu);
        rc = write_out(h2, wait);
        pthread_mutex_lock(&h2->mu);
        if (rc == 1) {
            tachy__h2_post_flush_locked(h2, 1); /* the socket is full (or TLS): a pool thread waits */
            rc = 0;
            break;
        }
        if (rc < 0)
            break;
    }
    h2->sending = 0;
    pthread_cond_broadcast(&h2->send_cond);
    if (rc < 0 && !h2->dead)
        tachy__h2_kill_locked(h2);
    tachy__h2_stream *dead = tachy__h2_take_dead_locked(h2); /* closed by nghttp2 meanwhile */
    pthread_mutex_unlock(&h2->mu);
    tachy__h2_release(h2, dead, 0);
    return rc;
}

/* ---- the switch ------------------------------------------------------------------------ */

/* RFC 4648 5 (base64url, no padding) as HTTP2-Settings carries it: the decoded length, or
 * -1 on a bad character. out holds at least len * 3 / 4 + 3 bytes. */
static ssize_t base64url_decode(const char *in, size_t len, uint8_t *out) {
    uint32_t acc = 0;
    int bits = 0;
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        char ch = in[i];
        int v;
        if (ch >= 'A' && ch <= 'Z')
            v = ch - 'A';
        else if (ch >= 'a' && ch <= 'z')
            v = ch - 'a' + 26;
        else if (ch >= '0' && ch <= '9')
            v = ch - '0' + 52;
        else if (ch == '-' || ch == '+')
            v = 62;
        else if (ch == '_' || ch == '/')
            v = 63;
        else if (ch == '=')
            break;
        else
            return -1;
        acc = acc << 6 | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[n++] = (uint8_t)(acc >> bits);
        }
    }
    return (ssize_t)n;
}

/* "Upgrade: h2c" (http/conn.c checked it): parses the request again from rbuf, answers 101,
 * and makes it stream 1 (half-closed: it had no body, RFC 7540 3.2). 0 or TACHY_E*. */
static int upgrade(tachy__h2 *h2) {
    tachy__conn *c = h2->c;
    const tachy_options *o = &c->srv->opt;
    tachy__limits lim = {(size_t)o->max_request_line, (size_t)o->max_req_headers,
                         (size_t)o->max_req_header_size, o->jdk_header_rules};
    tachy__request req;
    tachy__parse_error perr;
    req.headers = c->refs;
    req.num_headers = c->refs_cap;
    int r = tachy__parse_request(c->rbuf.data + c->rbuf.off, tachy__buf_size(&c->rbuf), &req,
                                 &lim, &perr);
    if (r <= 0)
        return TACHY_EPROTO;
    if (lim.jdk_rules && req.unfold)
        tachy__parse_unfold(c->rbuf.data + c->rbuf.off, &req);
    const tachy__str *settings = NULL;
    for (size_t i = 0; i < req.num_headers; i++)
        if (req.headers[i].name.len == 14 &&
            strncasecmp(req.headers[i].name.base, "http2-settings", 14) == 0)
            settings = &req.headers[i].value;
    if (!settings)
        return TACHY_EPROTO;
    uint8_t payload[512];
    if (settings->len > sizeof payload * 4 / 3)
        return TACHY_EPROTO;
    ssize_t plen = base64url_decode(settings->base, settings->len, payload);
    if (plen < 0)
        return TACHY_EPROTO;
    int is_head = req.method.len == 4 && memcmp(req.method.base, "HEAD", 4) == 0;
    pthread_mutex_lock(&h2->mu);
    tachy__h2_stream *s = tachy__h2_stream_new(h2, 1);
    int rc = s ? 0 : TACHY_ENOMEM;
    if (rc == 0 && NG(nghttp2_session_upgrade2)(h2->ng, payload, (size_t)plen, is_head, s) != 0)
        rc = TACHY_EPROTO;
    /* (a server session ignores upgrade2's stream user data: stream 1 exists now, so it is
     * set here - or the stream's callbacks and its data source would not find s) */
    if (rc == 0 && tachy__h2_set_stream(h2, 1, s) != 0)
        rc = TACHY_EPROTO;
    if (rc == 0) {
        /* The request's head, as its own HEADERS would have carried it. The fields that
         * belonged to the HTTP/1.1 hop (RFC 9113 8.2.2) stay behind. */
        tachy__h2_stream_header(s, ":method", 7, req.method.base, req.method.len);
        tachy__h2_stream_header(s, ":path", 5, req.target.base, req.target.len);
        for (size_t i = 0; i < req.num_headers; i++) {
            const tachy__header_ref *h = &req.headers[i];
            char lower[64];
            if (h->name.len > sizeof lower)
                continue;
            for (size_t k = 0; k < h->name.len; k++) {
                char ch = h->name.base[k];
                lower[k] = ch >= 'A' && ch <= 'Z' ? (char)(ch + 32) : ch;
            }
            size_t nl = h->name.len;
            if ((nl == 10 && memcmp(lower, "connection", 10) == 0) ||
                (nl == 7 && memcmp(lower, "upgrade", 7) == 0) ||
                (nl == 14 && memcmp(lower, "http2-settings", 14) == 0) ||
                (nl == 10 && memcmp(lower, "keep-alive", 10) == 0))
                continue;
            tachy__h2_stream_header(s, lower, nl, h->value.base, h->value.len);
        }
        s->in_eof = 1;
        tachy__h2_stream_ready(s);
        h2->max_id = 1; /* (the client's next stream is 3) */
    } else if (s) {
        tachy__h2_set_stream(h2, 1, NULL);
        tachy__h2_stream_unref(s);
    }
    pthread_mutex_unlock(&h2->mu);
    tachy__h2_reap(h2);
    if (rc < 0)
        return rc;
    tachy__buf_consume(&c->rbuf, (size_t)r);
    tachy__buf_append_str(&c->wbuf, "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\n"
                                    "Upgrade: h2c\r\n\r\n");
    return tachy__io_flush(c);
}

int tachy__h2_start(tachy__conn *c) {
    tachy_server *srv = c->srv;
    if (tachy__ng_ready() < 0)
        return TACHY_ENOTSUP;
    pthread_once(&cbs_once, cbs_make);
    if (!g_cbs)
        return TACHY_ENOMEM;
    tachy__h2 *h2 = calloc(1, sizeof *h2);
    if (!h2)
        return TACHY_ENOMEM;
    h2->c = c;
    pthread_mutex_init(&h2->mu, NULL);
    pthread_mutex_init(&h2->xp_lock, NULL);
    tachy__cond_init(&h2->send_cond); /* (monotonic: timed waits) */
    nghttp2_option *opt = NULL;
    if (NG(nghttp2_option_new)(&opt) != 0) {
        free(h2);
        return TACHY_ENOMEM;
    }
    /* Windows are given back as handlers read (on_data, stream.c), not as bytes arrive. */
    NG(nghttp2_option_set_no_auto_window_update)(opt, 1);
    if (NG(nghttp2_option_set_max_settings))
        NG(nghttp2_option_set_max_settings)(opt, 32);
    nghttp2_mem mem = tachy__h2_mem_of(&h2->mem); /* (nghttp2 keeps a copy) */
    int rc = NG(nghttp2_session_server_new3)(&h2->ng, g_cbs, h2, opt, &mem);
    NG(nghttp2_option_del)(opt);
    if (rc != 0) {
        tachy__h2_mem_trim(&h2->mem);
        free(h2);
        return TACHY_ENOMEM;
    }
    c->h2 = h2;
    /* Frames are small and interleaved: never let Nagle hold one back. */
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    const tachy_options *o = &srv->opt;
    nghttp2_settings_entry iv[] = {
        {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, (uint32_t)o->h2_max_streams},
        {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, TACHY__H2_STREAM_WINDOW},
        {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, (uint32_t)o->max_req_header_size},
    };
    int prior = tachy__buf_size(&c->rbuf) >= 3 && memcmp(c->rbuf.data + c->rbuf.off, "PRI", 3) == 0;
    if (!prior && !c->alpn_h2) {
        rc = upgrade(h2);
        if (rc < 0)
            return rc; /* c->h2 is freed with c */
    }
    pthread_mutex_lock(&h2->mu);
    rc = NG(nghttp2_submit_settings)(h2->ng, NGHTTP2_FLAG_NONE, iv, sizeof iv / sizeof iv[0]);
    if (rc == 0)
        rc = NG(nghttp2_submit_window_update)(h2->ng, NGHTTP2_FLAG_NONE, 0,
                                              TACHY__H2_CONN_WINDOW - 65535);
    pthread_mutex_unlock(&h2->mu);
    return rc == 0 ? 0 : TACHY_ENOMEM;
}

/* ---- the read step ------------------------------------------------------------------- */

/* Busy while a handler has a stream (its exchange has not ended) or a flush job is queued.
 * A stream whose handler is done but whose request never ends (no END_STREAM: nghttp2
 * keeps it open) does not count: it must not keep the connection from its idle timeout.
 * mu held. */
static int busy_locked(tachy__h2 *h2) {
    if (h2->flush_posted)
        return 1;
    for (tachy__h2_stream *s = h2->all; s; s = s->all_next)
        if (s->refs > (s->ng_closed ? 0 : 1)) /* more than nghttp2's reference */
            return 1;
    return 0;
}

/* Ends the session with code (GOAWAY) after a fatal error in the input. mu held. */
static void fail_locked(tachy__h2 *h2, uint32_t code) {
    if (!h2->goaway) {
        NG(nghttp2_session_terminate_session)(h2->ng, code);
        h2->goaway = 1;
    }
}

/* Says GOAWAY (NO_ERROR, the last stream begun) once: no new streams. mu held. */
static void goaway_locked(tachy__h2 *h2) {
    if (h2->goaway)
        return;
    h2->goaway = 1;
    NG(nghttp2_submit_goaway)(h2->ng, NGHTTP2_FLAG_NONE,
                              NG(nghttp2_session_get_last_proc_stream_id)(h2->ng),
                              NGHTTP2_NO_ERROR, NULL, 0);
}

/* Reads once (TLS: under xp_lock). */
static ssize_t read_some(tachy__h2 *h2) {
    tachy__conn *c = h2->c;
    if (!c->xp)
        return tachy__io_read(c, MSG_DONTWAIT);
    pthread_mutex_lock(&h2->xp_lock);
    ssize_t n = tachy__io_read(c, MSG_DONTWAIT);
    pthread_mutex_unlock(&h2->xp_lock);
    return n;
}

/* Feeds what rbuf holds to nghttp2. 0, or -1 when the session must end. */
static int feed(tachy__h2 *h2) {
    tachy__conn *c = h2->c;
    size_t n = tachy__buf_size(&c->rbuf);
    if (n == 0)
        return 0;
    pthread_mutex_lock(&h2->mu);
    ssize_t r = NG(nghttp2_session_mem_recv)(h2->ng, (const uint8_t *)c->rbuf.data + c->rbuf.off, n);
    int rc = 0;
    if (r < 0) {
        /* A broken preface, a flood nghttp2 counted, a limit of ours (h2->fatal): the
         * session ends with GOAWAY (nghttp2 has queued it for its own errors). */
        if (r == NGHTTP2_ERR_BAD_CLIENT_MAGIC)
            h2->goaway = 1; /* not HTTP/2 at all: nothing to say */
        else if (r == NGHTTP2_ERR_TOO_MANY_CONTINUATIONS || r == NGHTTP2_ERR_FLOODED)
            fail_locked(h2, NGHTTP2_ENHANCE_YOUR_CALM); /* nghttp2's own flood limits */
        else
            fail_locked(h2, h2->fatal ? h2->fatal : NGHTTP2_PROTOCOL_ERROR);
        rc = -1;
    }
    pthread_mutex_unlock(&h2->mu);
    tachy__buf_reset(&c->rbuf);
    return rc;
}

/* The connection is dead: TACHY__CONN_NEXT_CLOSE when no stream is left, else
 * TACHY__CONN_NEXT_HOLD - handlers still have stream exchanges, and the connection waits
 * for them, held by nobody: the last one's end requeues it (tachy__h2_release). Its
 * socket is shut down first, so that their writes fail at once; setting held is the last
 * thing done with c (from then on the last stream may requeue it). */
static tachy__conn_next hold_or_close(tachy__h2 *h2) {
    tachy__conn *c = h2->c;
    pthread_mutex_lock(&h2->mu);
    int held = h2->nstreams > 0;
    if (held) {
        if (atomic_exchange(&c->shut, 1) == 0)
            shutdown(c->fd, SHUT_RDWR);
        atomic_fetch_add(&c->srv->refs, 1); /* released with the requeue */
        h2->held = 1;
    }
    pthread_mutex_unlock(&h2->mu);
    return held ? TACHY__CONN_NEXT_HOLD : TACHY__CONN_NEXT_CLOSE;
}

tachy__conn_next tachy__h2_run(tachy__conn *c, int *idle, long *deadline) {
    tachy__h2 *h2 = c->h2;
    tachy_server *srv = c->srv;
    int broken = 0;
    /* What rbuf holds (the preface and what came with it, after a switch) first. */
    if (feed(h2) < 0)
        broken = 1;
    while (!broken) {
        ssize_t n = read_some(h2);
        if (n > 0) {
            if (feed(h2) < 0)
                broken = 1;
            if (c->last_read_full)
                continue;
            if (c->xp && c->xp->pending(c))
                continue;
        } else if (n != TACHY_ETIMEDOUT) {
            broken = 1; /* EOF or an error: the peer is gone */
            break;
        }
        /* The peer's FIN may sit behind what we read: read until EOF then. */
        if (atomic_load_explicit(&c->peer_hup, memory_order_relaxed) &&
            atomic_exchange(&c->peer_hup, 0))
            continue;
        break;
    }
    tachy__h2_reap(h2);
    pthread_mutex_lock(&h2->mu);
    if (!broken && atomic_load_explicit(&srv->draining, memory_order_relaxed))
        goaway_locked(h2); /* tachy_server_drain: the streams begun finish */
    /* nghttp2 ended the session itself (a connection error in the input: its GOAWAY is
     * queued): the streams of this read get no handler. */
    int ending = !NG(nghttp2_session_want_read)(h2->ng);
    if (ending)
        tachy__h2_kill_locked(h2);
    pthread_mutex_unlock(&h2->mu);
    /* SETTINGS and PING acks, WINDOW_UPDATEs, GOAWAY: now, before any response of the
     * streams read (those leave together, with the flush job after their jobs). */
    if (!ending && !broken)
        tachy__h2_send(h2, 1, 1);
    else
        /* its GOAWAY, though the connection is dead: after the write of a thread sending
         * meanwhile (force 1 would leave it to that thread, which the socket's shutdown
         * below can beat) */
        tachy__h2_send(h2, 1, 2);
    tachy__h2_dispatch(h2); /* each ready stream's job, then one flush job */
    pthread_mutex_lock(&h2->mu);
    int done = broken || h2->dead ||
               (!NG(nghttp2_session_want_read)(h2->ng) && !NG(nghttp2_session_want_write)(h2->ng));
    if (done)
        tachy__h2_kill_locked(h2);
    pthread_mutex_unlock(&h2->mu);
    if (done) {
        tachy__h2_reap(h2); /* the streams only nghttp2 held */
        tachy__conn_next next = hold_or_close(h2);
        /* Closed with bytes of the peer's still unread (what it sent after its GOAWAY, or
         * with ours in flight), the kernel would answer with a reset that can destroy our
         * last frames: a lingering close, as HTTP/1.1's after an error (the loop waits in
         * the park set for the peer's EOF). */
        if (next == TACHY__CONN_NEXT_CLOSE && tachy__io_linger_begin(c) == 0)
            return TACHY__CONN_NEXT_LINGER;
        return next;
    }
    pthread_mutex_lock(&h2->mu);
    int busy = busy_locked(h2);
    tachy__h2_stream *trim = NULL;
    if (!busy) {
        h2->idle_since = tachy__now_ms();
        trim = tachy__h2_pool_trim_locked(h2); /* an idle connection keeps little */
        tachy__h2_mem_trim(&h2->mem);
    }
    pthread_mutex_unlock(&h2->mu);
    tachy__h2_pool_release(trim);
    *idle = !busy;
    /* An idle connection times out after idleInterval (GOAWAY, then closed: the watchdog,
     * tachy__h2_closing). A busy one is looked at again then (tachy__h2_recheck): its
     * handlers may end while it stays parked. */
    *deadline = tachy__now_ms() + srv->opt.idle_interval_ms;
    return TACHY__CONN_NEXT_PARK;
}

long tachy__h2_recheck(tachy__conn *c, int *idle) {
    tachy__h2 *h2 = c->h2;
    long now = tachy__now_ms(), idle_ms = c->srv->opt.idle_interval_ms;
    pthread_mutex_lock(&h2->mu);
    int busy = !h2->dead && busy_locked(h2);
    long dl = busy ? now + idle_ms : h2->idle_since + idle_ms;
    pthread_mutex_unlock(&h2->mu);
    *idle = !busy;
    return dl > now ? dl : 0;
}

/* ---- the end ----------------------------------------------------------------------------- */

int tachy__h2_closing(tachy__conn *c) {
    tachy__h2 *h2 = c->h2;
    pthread_mutex_lock(&h2->mu);
    int was_dead = h2->dead;
    if (!was_dead)
        goaway_locked(h2);
    pthread_mutex_unlock(&h2->mu);
    if (!was_dead)
        tachy__h2_send(h2, 0, 1); /* the GOAWAY, if the socket takes it now */
    pthread_mutex_lock(&h2->mu);
    tachy__h2_kill_locked(h2);
    pthread_mutex_unlock(&h2->mu);
    tachy__h2_reap(h2); /* the streams only nghttp2 held */
    return hold_or_close(h2) == TACHY__CONN_NEXT_HOLD;
}

int tachy__h2_drain(tachy__conn *c) {
    tachy__h2 *h2 = c->h2;
    pthread_mutex_lock(&h2->mu);
    goaway_locked(h2);
    int none = h2->nstreams == 0;
    pthread_mutex_unlock(&h2->mu);
    tachy__h2_send(h2, 1, 1);
    return none;
}

void tachy__h2_free(tachy__conn *c) {
    tachy__h2 *h2 = c->h2;
    if (!h2)
        return;
    tachy__h2_reap(h2);
    NG(nghttp2_session_del)(h2->ng);
    tachy__h2_reap(h2); /* (deleting the session closes no stream through callbacks) */
    tachy__h2_mem_trim(&h2->mem);
    tachy__h2_pool_free(h2);
    pthread_mutex_destroy(&h2->mu);
    pthread_mutex_destroy(&h2->xp_lock);
    pthread_cond_destroy(&h2->send_cond);
    free(h2);
    c->h2 = NULL;
}
