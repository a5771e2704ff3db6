/*
 * ws/reader.c - tachy_ws_serve: the handshake (handshake.c), then the
 * read loop on the connection's thread: frames, fragmented messages, UTF-8 checks, the
 * inflater, the close handshake, limits, ping and idle timers, and every callback.
 *
 * The read side (buffers, message state, inflater) belongs to the connection thread
 * alone; sends from the callbacks go through ws.c like any other sender's. An attached
 * reader reads into its pool thread's buffer, lent for one event (borrow_in, return_in).
 */
#include "ws/ws.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define READ_MAX (256 * 1024) /* most room reserved ahead of a frame's arriving bytes */
#define READ_STEP 4096        /* minimum read size */
#define MIN_SLICE_MS 250      /* shortest periodic wake-up of an idle reader (see below) */
#define LEFTOVER_COPY 4096    /* attached: an incomplete frame's bytes up to this are copied */
                              /* out of the thread's buffer when the socket parks */

/* ======================================================================================
 * The read loop (connection thread).
 * ====================================================================================== */

typedef struct tachy__ws_reader {
    tachy_ws *ws;
    /* Received bytes; frames parsed from in.bytes[start, in.len) (in.off is unused).
     * Attached (nonblock), this is the pool thread's buffer for the length of one
     * tachy__ws_drive (borrow_in / return_in below); between events the socket keeps
     * only the bytes of an incomplete frame, in a buffer of their size, or nothing. */
    tachy__buf in;
    size_t start;
    /* message being received */
    int msg_active;
    int msg_type;
    int msg_compressed;
    uint64_t msg_size; /* (inflated) bytes so far */
    tachy__utf8 utf8;
    tachy__buf msg; /* assembled message / inflated piece */
    tachy__inflater *inflater;
    /* connection state */
    int closing;          /* we sent a close: waiting for the peer's */
    int discard;          /* after a protocol failure: bytes are just drained */
    uint64_t skip;        /* closing: payload bytes of a big frame still to drop */
    size_t pre_done;      /* text payload bytes of the incomplete current frame that */
    tachy__utf8 pre_utf8; /* are already unmasked and validated (fail fast), and the */
                          /* UTF-8 state after them */
    int done;
    int close_received;
    int peer_code;
    char peer_reason[124];
    size_t peer_reason_len;
    int close_called;
    int error_reported;
    long long last_rx;
    long long ping_sent_at; /* 0 = no ping outstanding */
    int nonblock;           /* attached: read what is there, then return to the pool */
    int draining;           /* attached, ended: waiting for the backlog to leave */
} reader;

static void report_error(reader *r, int err, int code, const char *what) {
    tachy_ws *ws = r->ws;
    if (r->error_reported)
        return;
    r->error_reported = 1;
    if (ws->opt.cb.on_error)
        ws->opt.cb.on_error(ws, err, code, what, tachy_ws_user(ws));
}

/* Fails the connection (RFC 6455 7.1.7): close frame with code, then drain. */
static void fail(reader *r, int err, int code, const char *what) {
    tachy_ws *ws = r->ws;
    report_error(r, err, code, what);
    pthread_mutex_lock(&ws->lock);
    if (!ws->dead && !ws->close_sent)
        tachy__ws_send_close_locked(ws, code, what, strlen(what));
    pthread_mutex_unlock(&ws->lock);
    r->closing = 1;
    r->msg_active = 0;
}

static void call_close(reader *r, int code, const char *reason, size_t len) {
    tachy_ws *ws = r->ws;
    if (r->close_called)
        return;
    r->close_called = 1;
    if (ws->opt.cb.on_close)
        ws->opt.cb.on_close(ws, code, reason, len, tachy_ws_user(ws));
}

static void deliver(reader *r, const void *p, size_t n, int last) {
    tachy_ws *ws = r->ws;
    if (ws->opt.cb.on_message)
        ws->opt.cb.on_message(ws, r->msg_type, n ? p : "", n, last, tachy_ws_user(ws));
}

static void handle_data(reader *r, const tachy__ws_frame *f, const uint8_t *payload) {
    tachy_ws *ws = r->ws;
    size_t plen = (size_t)f->payload_len;
    if (f->opcode == TACHY__WS_OP_CONT) {
        if (!r->msg_active) {
            fail(r, TACHY_EPROTO, 1002, "continuation frame without a message");
            return;
        }
    } else {
        if (r->msg_active) {
            fail(r, TACHY_EPROTO, 1002, "new message inside a fragmented one");
            return;
        }
        r->msg_active = 1;
        r->msg_type = f->opcode;
        r->msg_compressed = f->rsv1;
        r->msg_size = 0;
        r->msg.len = 0;
        tachy__utf8_init(&r->utf8);
    }
    int fin = f->fin;
    const uint8_t *chunk = payload;
    size_t clen = plen;
    size_t limit = ws->opt.max_message_size;

    if (r->msg_compressed) {
        if (!r->inflater &&
            tachy__inflater_create(&r->inflater, ws->pmd.client_no_context_takeover) < 0) {
            fail(r, TACHY_ENOMEM, 1011, "out of memory");
            return;
        }
        size_t before;
        if (ws->opt.deliver_fragments) {
            r->msg.len = 0;
            before = 0;
            limit = (size_t)(ws->opt.max_message_size - r->msg_size);
        } else {
            before = r->msg.len;
        }
        int rc = tachy__inflater_feed(r->inflater, payload, plen, fin, &r->msg, limit);
        if (rc == TACHY_ETOOBIG) {
            fail(r, rc, 1009, "message too big");
            return;
        }
        if (rc < 0) {
            fail(r, rc, rc == TACHY_ENOMEM ? 1011 : 1007, "bad compressed data");
            return;
        }
        chunk = r->msg.bytes + before;
        clen = r->msg.len - before;
    } else if (plen > ws->opt.max_message_size - r->msg_size) {
        fail(r, TACHY_ETOOBIG, 1009, "message too big");
        return;
    }
    r->msg_size += clen;

    size_t checked = 0; /* bytes validated while the frame was still arriving */
    if (r->pre_done && !r->msg_compressed) {
        r->utf8 = r->pre_utf8;
        checked = r->pre_done;
    }
    if (r->msg_type == TACHY_WS_TEXT &&
        (tachy__utf8_feed(&r->utf8, chunk + checked, clen - checked) < 0 ||
         (fin && !tachy__utf8_complete(&r->utf8)))) {
        fail(r, TACHY_EPROTO, 1007, "invalid UTF-8 in text message");
        return;
    }

    if (ws->opt.deliver_fragments) {
        deliver(r, chunk, clen, fin);
    } else if (r->msg_compressed) {
        if (fin)
            deliver(r, r->msg.bytes, r->msg.len, 1);
    } else if (fin && r->msg.len == 0) {
        deliver(r, chunk, clen, 1); /* single-frame message: straight from the read buffer */
    } else {
        if (tachy__buf_append(&r->msg, chunk, clen) < 0) {
            fail(r, TACHY_ENOMEM, 1011, "out of memory");
            return;
        }
        if (fin)
            deliver(r, r->msg.bytes, r->msg.len, 1);
    }
    if (fin) {
        r->msg_active = 0;
        r->msg.len = 0;
        if (r->msg.cap > TACHY__WS_KEEP_BUF)
            tachy__buf_free(&r->msg);
    }
}

static void handle_close(reader *r, const uint8_t *payload, size_t plen) {
    tachy_ws *ws = r->ws;
    int code;
    const char *reason;
    size_t rlen;
    int bad = tachy__ws_close_parse(payload, plen, &code, &reason, &rlen);
    if (bad) {
        if (r->closing) { /* already closing: just end */
            r->done = 1;
            return;
        }
        fail(r, TACHY_EPROTO, bad, bad == 1007 ? "close reason not UTF-8" : "bad close code");
        r->done = 1; /* the peer will not answer its own close: end now */
        return;
    }
    r->close_received = 1;
    r->peer_code = code;
    r->peer_reason_len = rlen < sizeof r->peer_reason ? rlen : sizeof r->peer_reason - 1;
    memcpy(r->peer_reason, reason, r->peer_reason_len);
    r->peer_reason[r->peer_reason_len] = '\0';
    /* on_close first: the application may answer with its own code (tachy_ws_close). */
    call_close(r, code, r->peer_reason, r->peer_reason_len);
    pthread_mutex_lock(&ws->lock);
    if (!ws->dead && !ws->close_sent) /* echo the peer's code (RFC 6455 5.5.1) */
        tachy__ws_send_close_locked(ws, code == TACHY_WS_CLOSE_NO_STATUS ? 0 : code, NULL, 0);
    pthread_mutex_unlock(&ws->lock);
    r->done = 1; /* the server closes the TCP connection first (RFC 6455 7.1.1) */
}

static void handle_frame(reader *r, const tachy__ws_frame *f, uint8_t *payload) {
    tachy_ws *ws = r->ws;
    size_t plen = (size_t)f->payload_len;
    if (f->masked) /* the first pre_done bytes were unmasked while arriving */
        tachy__ws_mask(payload + r->pre_done, plen - r->pre_done, f->mask, r->pre_done);
    switch (f->opcode) {
    case TACHY__WS_OP_CLOSE: handle_close(r, payload, plen); return;
    case TACHY__WS_OP_PING:
        if (r->closing)
            return;
        if (ws->opt.auto_pong)
            tachy_ws_pong(ws, payload, plen);
        if (ws->opt.cb.on_ping)
            ws->opt.cb.on_ping(ws, plen ? payload : (const uint8_t *)"", plen, tachy_ws_user(ws));
        return;
    case TACHY__WS_OP_PONG:
        r->ping_sent_at = 0;
        if (r->nonblock)
            __atomic_store_n(&ws->ping_sent_at, 0, __ATOMIC_RELAXED);
        if (!r->closing && ws->opt.cb.on_pong)
            ws->opt.cb.on_pong(ws, plen ? payload : (const uint8_t *)"", plen, tachy_ws_user(ws));
        return;
    default:
        if (r->closing) /* after our close: data is discarded (RFC 6455 1.4) */
            return;
        handle_data(r, f, payload);
    }
}

/*
 * Fail fast on text (RFC 6455 8.1): while an uncompressed text frame is still arriving,
 * unmask and validate what is there, so invalid UTF-8 is refused before the rest of a big
 * frame arrives. handle_frame/handle_data then skip the pre_done bytes.
 */
static void prevalidate(reader *r, const tachy__ws_frame *f, size_t avail) {
    int text = !f->rsv1 && ((f->opcode == TACHY__WS_OP_TEXT && !r->msg_active) ||
                            (f->opcode == TACHY__WS_OP_CONT && r->msg_active &&
                             r->msg_type == TACHY_WS_TEXT && !r->msg_compressed));
    size_t have = avail - f->header_len; /* < payload_len: the frame is incomplete */
    if (!text || !f->masked || have <= r->pre_done)
        return;
    if (r->pre_done == 0) {
        if (f->opcode == TACHY__WS_OP_TEXT)
            tachy__utf8_init(&r->pre_utf8);
        else
            r->pre_utf8 = r->utf8;
    }
    uint8_t *p = r->in.bytes + r->start + f->header_len;
    tachy__ws_mask(p + r->pre_done, have - r->pre_done, f->mask, r->pre_done);
    if (tachy__utf8_feed(&r->pre_utf8, p + r->pre_done, have - r->pre_done) < 0) {
        r->pre_done = 0;
        fail(r, TACHY_EPROTO, 1007, "invalid UTF-8 in text message");
        return;
    }
    r->pre_done = have;
}

/*
 * Timers: close wait, ping, idle. Returns the read timeout to use (-1 = none).
 * A close sent by another thread cannot wake the reader blocked in read, so while close
 * timeouts are on, the reader looks at the close state every max(close_timeout_ms, 250) ms:
 * a peer that never answers such a close is cut off within about twice close_timeout_ms,
 * and an idle socket costs one wake-up per period, not one per second.
 */
static int check_timers(reader *r) {
    tachy_ws *ws = r->ws;
    long long now = tachy__now_ms();
    long long next = LLONG_MAX;
    if (ws->opt.close_timeout_ms >= 0)
        next = now +
               (ws->opt.close_timeout_ms > MIN_SLICE_MS ? ws->opt.close_timeout_ms : MIN_SLICE_MS);
    if (!r->closing) {
        pthread_mutex_lock(&ws->lock);
        int cs = ws->close_sent;
        pthread_mutex_unlock(&ws->lock);
        if (cs)
            r->closing = 1; /* another thread called tachy_ws_close */
    }
    if (r->closing) {
        pthread_mutex_lock(&ws->lock);
        long long at = ws->close_sent_at;
        pthread_mutex_unlock(&ws->lock);
        long long end = ws->opt.close_timeout_ms < 0 ? -1 : at + ws->opt.close_timeout_ms;
        if (end >= 0 && now >= end) {
            r->done = 1;
            return 0;
        }
        if (end >= 0 && end < next)
            next = end;
        return next == LLONG_MAX ? -1 : (int)TACHY__MIN(next - now, 0x7fffffffLL);
    }
    if (ws->opt.idle_timeout_ms >= 0) {
        long long end = r->last_rx + ws->opt.idle_timeout_ms;
        if (now >= end) {
            tachy_ws_close(ws, TACHY_WS_CLOSE_GOING_AWAY, "idle timeout");
            r->closing = 1;
            return 0;
        }
        if (end < next)
            next = end;
    }
    if (ws->opt.ping_interval_ms > 0) {
        if (r->ping_sent_at) {
            long long end = r->ping_sent_at +
                            (ws->opt.ping_timeout_ms < 0 ? 0x7fffffffLL : ws->opt.ping_timeout_ms);
            if (now >= end) {
                report_error(r, TACHY_ETIMEDOUT, 0, "no pong within the ping timeout");
                tachy_ws_abort(ws);
                r->done = 1;
                return 0;
            }
            if (end < next)
                next = end;
        } else {
            long long due = r->last_rx + ws->opt.ping_interval_ms;
            if (now >= due) {
                uint8_t stamp[8];
                for (int i = 0; i < 8; i++)
                    stamp[i] = (uint8_t)((unsigned long long)now >> (56 - 8 * i));
                tachy_ws_ping(ws, stamp, sizeof stamp);
                r->ping_sent_at = now;
                due = now + (ws->opt.ping_timeout_ms < 0 ? MIN_SLICE_MS : ws->opt.ping_timeout_ms);
            }
            if (due < next)
                next = due;
        }
    }
    if (next == LLONG_MAX)
        return -1;
    return next > now ? (int)TACHY__MIN(next - now, 0x7fffffffLL) : 0;
}

/* The read loop. Blocking (tachy_ws_serve): until the connection ends, returning 0.
 * Non-blocking (attached): until nothing more can be read now (1: park) or the end (0). */
static int run(reader *r) {
    tachy_ws *ws = r->ws;
    tachy__ws_parse_rules rules = {1, ws->pmd.enabled, ws->opt.max_frame_size, 0};
    tachy__ws_parse_rules lenient = {0, 1, 0, 1};
    /* Every pass consumes a frame, reads from the socket (bounded by timeouts), or ends. */
    while (!r->done) {
        /* Attached and reading suspended: no frame is parsed and the socket is not read
         * (TCP pushes back on the peer), unless a close was sent: then the handshake is
         * finished (data after our close is discarded anyway, RFC 6455 1.4). */
        if (r->nonblock && !r->closing && __atomic_load_n(&ws->read_paused, __ATOMIC_ACQUIRE)) {
            pthread_mutex_lock(&ws->lock);
            int cs = ws->close_sent, paused = ws->read_paused;
            pthread_mutex_unlock(&ws->lock);
            if (cs)
                r->closing = 1;
            else if (paused)
                return 1; /* parked until tachy_ws_resume_reading kicks it */
        }
        size_t avail = r->in.len - r->start;
        tachy__ws_frame f = {0};
        ssize_t n = 0;
        if (!r->discard && avail > 0)
            n = tachy__ws_frame_parse(r->in.bytes + r->start, avail, r->closing ? &lenient : &rules,
                                      &f);
        if (n < 0) {
            if (r->closing)
                r->discard = 1; /* even the frame boundaries are lost: only wait for EOF */
            else                /* then skip frames leniently, looking for the peer's close */
                fail(r, f.close_code == 1009 ? TACHY_ETOOBIG : TACHY_EPROTO, f.close_code, f.error);
            continue;
        }
        if (n > 0) {
            handle_frame(r, &f, r->in.bytes + r->start + f.header_len);
            r->pre_done = 0;
            r->start += (size_t)n;
            if (r->start == r->in.len) {
                r->start = r->in.len = 0;
                if (r->in.cap > TACHY__WS_KEEP_BUF)
                    tachy__buf_free(&r->in);
            }
            continue;
        }
        /* Need more bytes. */
        if (f.header_len && !r->closing && !r->discard)
            prevalidate(r, &f, avail);
        if (r->discard) {
            r->start = r->in.len = 0;
        } else if (r->closing && f.header_len && f.payload_len > TACHY__WS_KEEP_BUF) {
            /* A big frame after our close: drop its bytes as they come, keeping the
             * frame boundaries to find the peer's close. */
            r->skip = f.header_len + f.payload_len - avail;
            r->start = r->in.len = avail = 0;
            memset(&f, 0, sizeof f);
        }
        /* Room for the rest of the frame, but grown as its bytes arrive (at most
         * READ_MAX ahead), so announcing a big frame does not reserve memory by itself. */
        size_t need = READ_STEP;
        if (f.header_len && !r->discard) {
            uint64_t rest = f.header_len + f.payload_len - avail;
            if (rest > need)
                need = rest > READ_MAX ? READ_MAX : (size_t)rest;
        }
        if (r->start > 0) { /* move the partial frame to the front */
            memmove(r->in.bytes, r->in.bytes + r->start, avail);
            r->in.len = avail;
            r->start = 0;
        }
        if (tachy__buf_reserve(&r->in, need) < 0) {
            fail(r, TACHY_ENOMEM, 1011, "out of memory");
            break;
        }
        int timeout = 0;
        if (!r->nonblock) {
            timeout = check_timers(r);
            if (r->done)
                break;
        } else if (!r->closing) {
            pthread_mutex_lock(&ws->lock);
            r->closing = ws->close_sent; /* a close from any thread: its timer bounds the wait */
            pthread_mutex_unlock(&ws->lock);
        }
        pthread_mutex_lock(&ws->lock);
        tachy_stream *s = ws->dead ? NULL : ws->stream;
        pthread_mutex_unlock(&ws->lock);
        if (!s)
            break;
        ssize_t got = tachy_stream_read(s, r->in.bytes + r->in.len, r->in.cap - r->in.len, timeout);
        if (got > 0) {
            r->last_rx = tachy__now_ms();
            if (r->nonblock)
                __atomic_store_n(&ws->last_rx, r->last_rx, __ATOMIC_RELAXED);
            if (r->skip) {
                size_t k = (uint64_t)got < r->skip ? (size_t)got : (size_t)r->skip;
                memmove(r->in.bytes + r->in.len, r->in.bytes + r->in.len + k, (size_t)got - k);
                got -= (ssize_t)k;
                r->skip -= k;
            }
            r->in.len += (size_t)got;
        } else if (got == TACHY_ETIMEDOUT) {
            if (r->nonblock)
                return 1; /* drained: the next bytes raise an event */
            continue;     /* timers run at the top of the next wait */
        } else {
            pthread_mutex_lock(&ws->lock);
            int aborted = ws->aborted, send_err = ws->send_err;
            const char *what = ws->fail_what;
            pthread_mutex_unlock(&ws->lock);
            if (send_err) /* a sender (or a timer) failed and shut the socket down */
                report_error(r, send_err, send_err == TACHY_ETOOBIG ? 1008 : 0,
                             what ? what : "send failed");
            else if (got < 0 && !r->closing && !aborted)
                report_error(r, (int)got, 0, "connection error");
            break; /* EOF, shut down, or I/O error */
        }
    }
    r->done = 1;
    return 0;
}

/* ======================================================================================
 * tachy_ws_serve: the handshake (handshake.c), then the loop.
 * ====================================================================================== */

/* After the read loop: on_error / on_close as owed, then the socket is forgotten so that
 * every later send fails without touching it. Frees the reader's buffers, not r. */
static void finish(reader *r) {
    tachy_ws *ws = r->ws;
    pthread_mutex_lock(&ws->lock);
    int send_err = ws->send_err;
    const char *what = ws->fail_what;
    pthread_mutex_unlock(&ws->lock);
    /* A send failure the peer's close made moot is not reported - except the queue's
     * overflow under TACHY_WS_BACKLOG_CLOSE, which is why the connection closed. */
    if (send_err && (!r->close_received || send_err == TACHY_ETOOBIG))
        report_error(r, send_err, send_err == TACHY_ETOOBIG ? 1008 : 0, what ? what : "send failed");
    if (r->close_received)
        call_close(r, r->peer_code, r->peer_reason, r->peer_reason_len);
    else
        call_close(r, TACHY_WS_CLOSE_ABNORMAL, "", 0);

    pthread_mutex_lock(&ws->lock);
    ws->dead = 1;
    ws->stream = NULL;
    ws->frag_active = 0;
    tachy__buf_free(&ws->backlog);
    tachy_server *srv = ws->srv; /* for the cancels below, after the lock */
    tachy_timer *timers[3] = {ws->close_timer, ws->tick_timer, ws->flush_timer};
    ws->close_timer = ws->tick_timer = ws->flush_timer = NULL;
    pthread_cond_broadcast(&ws->cond);
    pthread_mutex_unlock(&ws->lock);
    /* Outside the lock: cancel waits for a running callback, which takes it. */
    for (int i = 0; i < 3; i++)
        if (timers[i])
            tachy__server_timer_cancel(srv, timers[i]);

    tachy__inflater_destroy(r->inflater);
    r->inflater = NULL;
    tachy__buf_free(&r->in);
    tachy__buf_free(&r->msg);
}

int tachy_ws_serve(tachy_exchange *ex, const tachy_ws_options *opt) {
    tachy_ws_options defaults;
    if (!opt) {
        tachy_ws_options_init(&defaults);
        opt = &defaults;
    }
    tachy_ws *ws;
    int rc = tachy__ws_handshake(ex, opt, 1, &ws);
    if (rc < 0)
        return rc;
    reader r;
    memset(&r, 0, sizeof r);
    r.ws = ws;
    r.last_rx = tachy__now_ms();
    if (ws->opt.cb.on_open)
        ws->opt.cb.on_open(ws, tachy_ws_user(ws));
    run(&r);
    finish(&r);
    tachy_ws_release(ws);
    /* The exchange is over: close it, so that a front end that would otherwise wait for
     * the close (the JNI bridge defers unclosed exchanges, as the JDK does) lets the core
     * close the connection. Its getters stay valid until the handler returns. */
    tachy_exchange_close(ex);
    return 0;
}

/* ======================================================================================
 * tachy_ws_attach: no thread per socket (loop/wspark.c drives it).
 * ====================================================================================== */

/* WebSockets attached and not yet taken by the pool (tachy__ws_take_attached), keyed by
 * their connection: the attach may run on another thread than the connection's (a Java
 * executor thread, a deferred exchange), and the pool takes it on the connection's thread
 * once the handler is done. n_registered lets connections without one skip the lock. */
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static tachy_ws *registered;
static int n_registered; /* atomic builtins */

/* Marks the thread in tachy__ws_drive (see tachy_ws.driver). */
static __thread char drive_mark;

/*
 * The read buffer of the pool thread, lent to the socket it drives for one event: a parked
 * WebSocket owns no read buffer of TACHY__WS_THREAD_BUF bytes, only what an incomplete
 * frame left (see return_in). Empty (data NULL) while lent, so a drive nested on the same
 * thread would simply make another. Freed by tachy__ws_thread_end.
 */
static __thread tachy__buf thread_in;

/* Before run() on an attached socket: r->in becomes the thread's buffer, holding the
 * socket's leftover bytes (moved to its front). A socket that keeps a buffer at least as
 * large (a big frame in progress, see return_in) reads into its own. Out of memory: the
 * socket's own buffer is used and grown as in blocking mode. */
static void borrow_in(reader *r) {
    if (r->in.cap >= TACHY__WS_THREAD_BUF)
        return;
    tachy__buf *t = &thread_in;
    if (!t->bytes) {
        t->bytes = malloc(TACHY__WS_THREAD_BUF);
        if (!t->bytes)
            return;
        t->cap = TACHY__WS_THREAD_BUF;
    }
    size_t avail = r->in.len - r->start; /* < TACHY__WS_THREAD_BUF: it fitted r->in */
    if (avail)
        memcpy(t->bytes, r->in.bytes + r->start, avail);
    free(r->in.bytes);
    r->in = *t;
    r->in.off = 0;
    r->in.len = avail;
    r->start = 0;
    *t = (tachy__buf){0};
}

/* After run() on an attached socket: nothing left, r->in goes back to the thread (or is
 * freed: the thread has one again, or it is not TACHY__WS_THREAD_BUF bytes); the bytes of an
 * incomplete frame up to LEFTOVER_COPY are copied into a buffer of their size; more than
 * that (a big frame arriving) and the socket keeps the buffer until the frame is complete,
 * so it is not copied back and forth on every event. Out of memory: kept as it is. */
static void return_in(reader *r) {
    size_t avail = r->in.len - r->start;
    uint8_t *small = NULL;
    if (avail > LEFTOVER_COPY || (avail && !(small = malloc(avail))))
        return;
    if (avail)
        memcpy(small, r->in.bytes + r->start, avail);
    if (!thread_in.bytes && r->in.cap == TACHY__WS_THREAD_BUF) {
        thread_in = r->in;
        thread_in.off = thread_in.len = 0;
    } else {
        free(r->in.bytes);
    }
    r->in = (tachy__buf){0};
    r->in.bytes = small;
    r->in.len = r->in.cap = avail;
    r->start = 0;
}

void tachy__ws_thread_end(void) {
    tachy__buf_free(&thread_in);
}

/* Idle and ping checks on the timers: one one-shot timer per socket, scheduled for the
 * earliest moment something can be due (the ping after ping_interval_ms of silence, the
 * pong deadline, the idle close) and moved on from there when it finds the socket was
 * not quiet after all. So a socket costs at most one timer run per interval, and none
 * in between whatever its traffic. Runs on any pool thread, concurrently with the owner's
 * callbacks: it only sends and shuts down, under the lock; the owner reports. */
static void tick_fn(tachy_timer *t, void *user);

/* When the tick must next look (lock held): ms from now, or -1 for nothing to watch. */
static long tick_due_locked(tachy_ws *ws, long long now) {
    long long rx = __atomic_load_n(&ws->last_rx, __ATOMIC_RELAXED);
    long long due = LLONG_MAX;
    if (ws->opt.idle_timeout_ms >= 0)
        due = rx + ws->opt.idle_timeout_ms;
    if (ws->opt.ping_interval_ms > 0) {
        long long ps = __atomic_load_n(&ws->ping_sent_at, __ATOMIC_RELAXED);
        if (ps && ws->opt.ping_timeout_ms >= 0)
            due = TACHY__MIN(due, ps + ws->opt.ping_timeout_ms);
        else if (!ps)
            due = TACHY__MIN(due, rx + ws->opt.ping_interval_ms);
        else /* a ping without a timeout: look again after an interval */
            due = TACHY__MIN(due, now + ws->opt.ping_interval_ms);
    }
    if (due == LLONG_MAX)
        return -1;
    return due > now ? (long)TACHY__MIN(due - now, 0x7fffffffLL) : 0;
}

/* Replaces the tick timer by one due in ms (lock held). *old gets the previous handle for
 * the caller to cancel after unlocking (tachy_timer_cancel must not run under the lock). */
static void tick_arm_locked(tachy_ws *ws, long ms, tachy_timer **old) {
    *old = ws->tick_timer;
    ws->tick_timer = NULL;
    if (ms < 0 || ws->dead || !ws->stream || ws->close_sent)
        return;
    if (tachy__server_timer_schedule(ws->srv, ms, 0, tick_fn, ws, &ws->tick_timer) < 0)
        ws->tick_timer = NULL;
}

static void tick_fn(tachy_timer *t, void *user) {
    tachy_ws *ws = user;
    tachy_server *srv = ws->srv; /* ws may be gone once its lock is released */
    long long now = tachy__now_ms();
    tachy_timer *old = NULL;
    pthread_mutex_lock(&ws->lock);
    if (ws->tick_timer != t) { /* replaced or taken by finish(): whoever took it cancels */
        pthread_mutex_unlock(&ws->lock);
        return;
    }
    if (ws->dead || !ws->stream || ws->close_sent) {
        ws->tick_timer = NULL;
        pthread_mutex_unlock(&ws->lock);
        tachy__server_timer_cancel(srv, t); /* from its own callback: returns at once */
        return;
    }
    long long rx = __atomic_load_n(&ws->last_rx, __ATOMIC_RELAXED);
    if (ws->read_paused) {
        /* The application stopped reading: the peer's bytes (and pongs) are not looked
         * at, so silence proves nothing; paused time counts as heard from. */
        __atomic_store_n(&ws->last_rx, now, __ATOMIC_RELAXED);
        __atomic_store_n(&ws->ping_sent_at, 0, __ATOMIC_RELAXED);
    } else if (ws->opt.idle_timeout_ms >= 0 && now - rx >= ws->opt.idle_timeout_ms) {
        tachy__ws_send_close_locked(ws, TACHY_WS_CLOSE_GOING_AWAY, "idle timeout", 12);
    } else if (ws->opt.ping_interval_ms > 0) {
        long long ps = __atomic_load_n(&ws->ping_sent_at, __ATOMIC_RELAXED);
        if (ps && ws->opt.ping_timeout_ms >= 0 && now - ps >= ws->opt.ping_timeout_ms) {
            ws->fail_what = "no pong within the ping timeout";
            tachy__ws_die_locked(ws, TACHY_ETIMEDOUT);
        } else if (!ps && now - rx >= ws->opt.ping_interval_ms) {
            uint8_t stamp[8];
            for (int i = 0; i < 8; i++)
                stamp[i] = (uint8_t)((unsigned long long)now >> (56 - 8 * i));
            __atomic_store_n(&ws->ping_sent_at, now, __ATOMIC_RELAXED);
            tachy__ws_write_frame_locked(ws, 1, 0, TACHY__WS_OP_PING, stamp, sizeof stamp);
        }
    }
    tick_arm_locked(ws, tick_due_locked(ws, now), &old);
    pthread_mutex_unlock(&ws->lock);
    if (old)
        tachy__server_timer_cancel(srv, old); /* t itself: from its own callback, returns at once */
}

int tachy_ws_suspend_reading(tachy_ws *ws) {
    if (!ws)
        return TACHY_EINVAL;
    if (!ws->parked)
        return TACHY_ESTATE;
    pthread_mutex_lock(&ws->lock);
    __atomic_store_n(&ws->read_paused, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&ws->lock);
    return 0;
}

int tachy_ws_resume_reading(tachy_ws *ws) {
    if (!ws)
        return TACHY_EINVAL;
    if (!ws->parked)
        return TACHY_ESTATE;
    pthread_mutex_lock(&ws->lock);
    if (ws->read_paused) {
        __atomic_store_n(&ws->read_paused, 0, __ATOMIC_RELEASE);
        /* Silence counts from here (see tick_fn); the tick timer keeps its due time. */
        __atomic_store_n(&ws->last_rx, tachy__now_ms(), __ATOMIC_RELAXED);
        __atomic_store_n(&ws->ping_sent_at, 0, __ATOMIC_RELAXED);
        /* Inside the owner's callback the owner's loop sees the flag; elsewhere the
         * parked socket needs an event to be driven again. */
        if (!ws->dead && ws->stream && ws->kick &&
            __atomic_load_n(&ws->driver, __ATOMIC_ACQUIRE) != &drive_mark)
            ws->kick(ws);
    }
    pthread_mutex_unlock(&ws->lock);
    return 0;
}

int tachy_ws_attach(tachy_exchange *ex, const tachy_ws_options *opt) {
    if (!ex)
        return TACHY_EINVAL;
    tachy_ws_options defaults;
    if (!opt) {
        tachy_ws_options_init(&defaults);
        opt = &defaults;
    }
    reader *r = calloc(1, sizeof *r);
    if (!r)
        return TACHY_ENOMEM;
    tachy_ws *ws;
    int rc = tachy__ws_handshake(ex, opt, 0, &ws);
    if (rc < 0) {
        free(r);
        return rc;
    }
    /* The exchange (and its stream) is reset when the handler returns: keep our own. */
    ws->own_stream.conn = ws->stream->conn;
    atomic_init(&ws->own_stream.shut, 0);
    ws->conn = ws->stream->conn;
    ws->srv = ws->conn->srv;
    ws->parked = 1;
    r->ws = ws;
    r->nonblock = 1;
    r->last_rx = tachy__now_ms();
    ws->last_rx = r->last_rx;
    ws->rd = r;
    pthread_mutex_lock(&ws->lock);
    ws->stream = &ws->own_stream;
    pthread_mutex_unlock(&ws->lock);
    tachy_timer *none = NULL;
    pthread_mutex_lock(&ws->lock);
    tick_arm_locked(ws, tick_due_locked(ws, r->last_rx), &none); /* none: there was none */
    pthread_mutex_unlock(&ws->lock);
    pthread_mutex_lock(&reg_lock);
    ws->reg_next = registered;
    registered = ws;
    __atomic_add_fetch(&n_registered, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&reg_lock);
    if (ws->opt.cb.on_open)
        ws->opt.cb.on_open(ws, tachy_ws_user(ws));
    /* The handler returns now; the core closes the exchange and the pool takes over the
     * connection (tachy__ws_take_attached) instead of closing it. */
    return 0;
}

tachy_ws *tachy__ws_take_attached(tachy__conn *c) {
    if (__atomic_load_n(&n_registered, __ATOMIC_ACQUIRE) == 0)
        return NULL;
    tachy_ws *ws = NULL;
    pthread_mutex_lock(&reg_lock);
    for (tachy_ws **pp = &registered; *pp; pp = &(*pp)->reg_next) {
        if ((*pp)->conn == c) {
            ws = *pp;
            *pp = ws->reg_next;
            ws->reg_next = NULL;
            __atomic_sub_fetch(&n_registered, 1, __ATOMIC_RELEASE);
            break;
        }
    }
    pthread_mutex_unlock(&reg_lock);
    if (!ws)
        return NULL;
    ws->ex = NULL; /* reset with the exchange */
    /* Frames sent right behind the upgrade request are in the HTTP read buffer: they
     * become the reader's first bytes (the first drive reads them), then the memory only
     * HTTP needs is given back - a parked socket keeps none of it. */
    reader *r = ws->rd;
    size_t have = tachy__buf_size(&c->rbuf);
    if (have && !r->in.bytes) {
        r->in.bytes = malloc(have);
        if (r->in.bytes) {
            memcpy(r->in.bytes, c->rbuf.data + c->rbuf.off, have);
            r->in.len = r->in.cap = have;
            tachy__buf_reset(&c->rbuf);
        }
    }
    /* (Out of memory: the bytes stay in rbuf, which the stream reads first; it is kept.) */
    if (tachy__buf_size(&c->rbuf) == 0)
        tachy__conn_shed_http(c);
    return ws;
}

int tachy__ws_in_driver(const tachy_ws *ws) {
    return __atomic_load_n(&ws->driver, __ATOMIC_ACQUIRE) == &drive_mark;
}

int tachy__ws_drive(tachy_ws *ws) {
    reader *r = ws->rd;
    __atomic_store_n(&ws->driver, &drive_mark, __ATOMIC_RELEASE);
    pthread_mutex_lock(&ws->lock);
    if (ws->backlog.len && !ws->dead && ws->stream)
        tachy__ws_flush_nowait_locked(ws);
    pthread_mutex_unlock(&ws->lock);
    if (!r->draining) {
        borrow_in(r);
        int more = run(r);
        return_in(r);
        /* Nothing half-assembled: the message buffer is not kept while parked. */
        if (!r->msg_active || ws->opt.deliver_fragments)
            tachy__buf_free(&r->msg);
        __atomic_store_n(&ws->driver, NULL, __ATOMIC_RELEASE);
        if (more == 1) {
            /* A resume from another thread between run's check and here kicked the
             * socket: the event marks the connection pending, so the park fails and the
             * loop drives it again. */
            return 1;
        }
        r->draining = 1;
    }
    __atomic_store_n(&ws->driver, NULL, __ATOMIC_RELEASE);
    /* Ended: what is queued (our close frame last) leaves before the socket closes, as
     * long as the peer takes it within the close timeout. */
    pthread_mutex_lock(&ws->lock);
    int waiting = !ws->dead && ws->stream && ws->backlog.len > 0;
    if (waiting)
        tachy__ws_arm_close_timer_locked(ws);
    pthread_mutex_unlock(&ws->lock);
    return waiting;
}

void tachy__ws_detach(tachy_ws *ws) {
    reader *r = ws->rd;
    if (!r->done && !r->close_called) {
        /* Closed under it (stop(), a deadline): say so to a live peer. */
        pthread_mutex_lock(&ws->lock);
        if (!ws->dead && ws->stream && !ws->close_sent)
            tachy__ws_send_close_locked(ws, TACHY_WS_CLOSE_GOING_AWAY, "server closing", 14);
        pthread_mutex_unlock(&ws->lock);
    }
    finish(r);
    ws->rd = NULL;
    free(r);
    tachy_ws_release(ws);
}
