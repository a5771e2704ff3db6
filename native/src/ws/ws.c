/*
 * ws/ws.c - the WebSocket connection object (tachy_ws) and sending: messages, fragments,
 * pings, pongs, close and abort, with permessage-deflate on top of deflate.c. Any thread.
 *
 * Senders serialise on ws->lock, which guards the stream's write side, the send state and
 * the compressor. Frames go out through the upgraded stream (http/io.c, or the TLS
 * transport); the read side is reader.c's.
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


/* Milliseconds left until deadline (-1 = none), clamped to int; 0 when past. */
int tachy__ws_ms_left(long long deadline) {
    if (deadline < 0)
        return -1;
    long long left = deadline - tachy__now_ms();
    if (left < 0)
        return 0;
    return left > 0x7fffffff ? 0x7fffffff : (int)left;
}

long long tachy__ws_deadline_after(long ms) {
    return ms < 0 ? -1 : tachy__now_ms() + ms;
}

/* Marks the connection dead after a write failure (lock held). */
void tachy__ws_die_locked(tachy_ws *ws, int err) {
    if (!ws->dead) {
        ws->dead = 1;
        if (!ws->send_err)
            ws->send_err = err;
        if (ws->stream)
            tachy_stream_shutdown(ws->stream);
    }
    tachy__buf_free(&ws->backlog);
    pthread_cond_broadcast(&ws->cond);
}

/* Blocking write of the broadcast backlog (lock held), before any other frame: frames never
 * interleave. 0, or the error that killed the connection. */
int tachy__ws_flush_backlog_locked(tachy_ws *ws, long long deadline) {
    if (ws->backlog.len == 0)
        return 0;
    ssize_t rc = tachy_stream_write(ws->stream, ws->backlog.bytes, ws->backlog.len, tachy__ws_ms_left(deadline));
    if (rc < 0) {
        tachy__ws_die_locked(ws, (int)rc);
        return (int)rc;
    }
    tachy__buf_free(&ws->backlog); /* an empty queue keeps no memory */
    return 0;
}

/* ---- attached connections: the send queue ------------------------------------------- */

/* Hands p[0,len) to the socket without waiting: bytes taken (<= len), or < 0 when the
 * socket failed (the connection is then dead). Lock held. */
ssize_t tachy__ws_push_nowait_locked(tachy_ws *ws, const uint8_t *p, size_t len) {
    size_t off = 0;
    while (off < len) {
        ssize_t w = tachy__io_send_nowait(ws->fd, p + off, len - off);
        if (w > 0) {
            off += (size_t)w;
            continue;
        }
        if (w == TACHY_ETIMEDOUT)
            break;
        tachy__ws_die_locked(ws, (int)w);
        return w;
    }
    return (ssize_t)off;
}

int tachy__ws_flush_nowait_locked(tachy_ws *ws) {
    if (ws->backlog.len == 0)
        return 1;
    if (ws->dead || !ws->stream)
        return TACHY_ECLOSED;
    ssize_t w = tachy__ws_push_nowait_locked(ws, ws->backlog.bytes, ws->backlog.len);
    if (w < 0)
        return (int)w;
    ws->backlog.len -= (size_t)w;
    if (ws->backlog.len) {
        memmove(ws->backlog.bytes, ws->backlog.bytes + w, ws->backlog.len);
        return 0;
    }
    tachy__buf_free(&ws->backlog); /* an empty queue keeps no memory (parked sockets) */
    return 1;
}

static void close_timer_fn(tachy_timer *t, void *user) {
    (void)t;
    tachy_ws *ws = user;
    pthread_mutex_lock(&ws->lock);
    if (!ws->dead && ws->stream) /* the peer did not finish the close in time: cut it off */
        tachy_stream_shutdown(ws->stream);
    pthread_mutex_unlock(&ws->lock);
}

void tachy__ws_arm_close_timer_locked(tachy_ws *ws) {
    if (!ws->parked || ws->close_timer || ws->dead || !ws->stream || ws->opt.close_timeout_ms < 0)
        return;
    /* The timer uses ws until tachy__ws_detach cancels it; detach holds the reference. */
    if (tachy__server_timer_schedule(ws->srv, ws->opt.close_timeout_ms, 0, close_timer_fn, ws,
                             &ws->close_timer) < 0)
        ws->close_timer = NULL;
}

/* Retries the backlog every FLUSH_RETRY_MS while it is not empty (any pool thread). This is
 * the fallback: the owner flushes it on each event of the socket, EPOLLOUT included, which
 * is what normally drains it. Slow enough that thousands of stalled sockets cost little
 * (a 5 ms retry melted a server whose 20,000 clients all fell behind). Stops when empty. */
#define FLUSH_RETRY_MS 100

static void flush_timer_fn(tachy_timer *t, void *user) {
    tachy_ws *ws = user;
    tachy_server *srv = ws->srv; /* ws may be gone once its lock is released */
    tachy_timer *stop = NULL;
    pthread_mutex_lock(&ws->lock);
    if (ws->flush_timer == t) {
        if (ws->dead || !ws->stream || tachy__ws_flush_nowait_locked(ws) != 0) {
            stop = t; /* empty (or dead): this timer is done */
            ws->flush_timer = NULL;
        }
    }
    pthread_mutex_unlock(&ws->lock);
    if (stop)
        tachy__server_timer_cancel(srv, stop); /* from its own callback: returns at once */
}

/* A backlog is left (attach mode, lock held): make sure someone retries it. */
static void arm_flush_locked(tachy_ws *ws) {
    if (!ws->parked || ws->flush_timer || ws->backlog.len == 0 || ws->dead || !ws->stream)
        return;
    if (tachy__server_timer_schedule(ws->srv, FLUSH_RETRY_MS, FLUSH_RETRY_MS, flush_timer_fn, ws,
                             &ws->flush_timer) < 0)
        ws->flush_timer = NULL;
}

/* The queue would exceed max_backlog (lock held). */
static int overflow_locked(tachy_ws *ws) {
    if (ws->opt.backlog_policy == TACHY_WS_BACKLOG_CLOSE && !ws->close_sent) {
        static const char why[] = "send queue full";
        uint8_t frame[2 + 2 + sizeof why];
        size_t h = tachy__ws_frame_header(frame, 1, 0, TACHY__WS_OP_CLOSE, 2 + sizeof why - 1, NULL);
        frame[h] = (uint8_t)(TACHY_WS_CLOSE_POLICY_VIOLATION >> 8);
        frame[h + 1] = (uint8_t)(TACHY_WS_CLOSE_POLICY_VIOLATION & 0xff);
        memcpy(frame + h + 2, why, sizeof why - 1);
        ws->close_sent = 1;
        ws->close_sent_at = tachy__now_ms();
        if (!ws->send_err)
            ws->send_err = TACHY_ETOOBIG;
        ws->fail_what = why;
        if (tachy__buf_append(&ws->backlog, frame, h + 2 + sizeof why - 1) < 0) {
            tachy__ws_die_locked(ws, TACHY_ENOMEM);
        } else {
            tachy__ws_arm_close_timer_locked(ws);
            arm_flush_locked(ws);
        }
        pthread_cond_broadcast(&ws->cond);
    }
    return TACHY_ETOOBIG;
}

int tachy__ws_queue_locked(tachy_ws *ws, const uint8_t *hdr, size_t hlen, const void *payload,
                           size_t plen) {
    if (ws->dead || !ws->stream)
        return TACHY_ECLOSED;
    int fl = tachy__ws_flush_nowait_locked(ws);
    if (fl < 0)
        return fl;
    size_t total = hlen + plen;
    if (fl == 0) { /* bytes are waiting: this frame goes behind them, if it fits */
        if (ws->backlog.len + total > ws->opt.max_backlog)
            return overflow_locked(ws);
        if (tachy__buf_reserve(&ws->backlog, total) < 0)
            return TACHY_ENOMEM;
        tachy__buf_append(&ws->backlog, hdr, hlen);
        if (plen)
            tachy__buf_append(&ws->backlog, payload, plen);
        arm_flush_locked(ws);
        return 0;
    }
    uint8_t small[TACHY__WS_SMALL_FRAME];
    const uint8_t *p1 = hdr;
    size_t n1 = hlen;
    const uint8_t *p2 = payload;
    size_t n2 = plen;
    if (total <= sizeof small) { /* one send for a small frame */
        memcpy(small, hdr, hlen);
        if (plen)
            memcpy(small + hlen, payload, plen);
        p1 = small;
        n1 = total;
        n2 = 0;
    }
    ssize_t w = tachy__ws_push_nowait_locked(ws, p1, n1);
    if (w < 0)
        return (int)w;
    size_t rest1 = n1 - (size_t)w;
    size_t w2 = 0;
    if (rest1 == 0 && n2) {
        ssize_t x = tachy__ws_push_nowait_locked(ws, p2, n2);
        if (x < 0)
            return (int)x;
        w2 = (size_t)x;
    }
    if (rest1 == 0 && w2 == n2)
        return 0;
    /* The socket took part of the frame: the rest must follow before anything else. */
    if (tachy__buf_reserve(&ws->backlog, rest1 + n2 - w2) < 0) {
        tachy__ws_die_locked(ws, TACHY_ENOMEM); /* part of the frame is on the wire */
        return TACHY_ENOMEM;
    }
    if (rest1)
        tachy__buf_append(&ws->backlog, p1 + w, rest1);
    if (n2 - w2)
        tachy__buf_append(&ws->backlog, p2 + w2, n2 - w2);
    arm_flush_locked(ws);
    return 0;
}

/* Writes one frame; lock held. A failure kills the connection (a partial frame cannot
 * be resumed). */
int tachy__ws_write_frame_locked(tachy_ws *ws, int fin, int rsv1, int opcode, const void *payload,
                              size_t len) {
    if (ws->dead || !ws->stream)
        return TACHY_ECLOSED;
    if (ws->parked && ws->fd >= 0) {
        uint8_t hdr[TACHY__WS_MAX_HEADER];
        size_t hlen = tachy__ws_frame_header(hdr, fin, rsv1, opcode, len, NULL);
        return tachy__ws_queue_locked(ws, hdr, hlen, payload, len);
    }
    long long deadline = tachy__ws_deadline_after(ws->opt.send_timeout_ms);
    int brc = tachy__ws_flush_backlog_locked(ws, deadline);
    if (brc < 0)
        return brc;
    uint8_t small[TACHY__WS_SMALL_FRAME];
    size_t hlen = tachy__ws_frame_header(small, fin, rsv1, opcode, len, NULL);
    ssize_t rc;
    if (hlen + len <= sizeof small) {
        if (len)
            memcpy(small + hlen, payload, len);
        rc = tachy_stream_write(ws->stream, small, hlen + len, tachy__ws_ms_left(deadline));
    } else {
        rc = tachy_stream_write(ws->stream, small, hlen, tachy__ws_ms_left(deadline));
        if (rc >= 0)
            rc = tachy_stream_write(ws->stream, payload, len, tachy__ws_ms_left(deadline));
    }
    if (rc < 0) {
        tachy__ws_die_locked(ws, (int)rc);
        return (int)rc;
    }
    return 0;
}

/* Writes a whole pre-encoded frame through the stream (lock held), blocking within
 * send_timeout_ms: how a broadcast reaches a TLS connection. A failure kills it. */
int tachy__ws_write_encoded_locked(tachy_ws *ws, const uint8_t *frame, size_t len) {
    if (ws->dead || !ws->stream)
        return TACHY_ECLOSED;
    ssize_t rc = tachy_stream_write(ws->stream, frame, len,
                                    tachy__ws_ms_left(tachy__ws_deadline_after(ws->opt.send_timeout_ms)));
    if (rc < 0) {
        tachy__ws_die_locked(ws, (int)rc);
        return (int)rc;
    }
    return 0;
}

/*
 * Takes the lock for a data frame: waits while another thread is in the middle of a
 * fragmented message (at most send_timeout_ms). On success returns 0 with the lock held.
 */
/* Whether the calling thread owns ws's unfinished fragmented message (lock held): the
 * thread that began it - or, for one begun by a callback of an attached socket, whichever
 * pool thread drives the socket's callbacks now (one at a time, in order: the message
 * belongs to the callbacks, and the next frame's may run on another thread). */
static int frag_mine_locked(tachy_ws *ws) {
    if (pthread_equal(ws->frag_owner, pthread_self()))
        return 1;
    if (ws->frag_by_driver && tachy__ws_in_driver(ws)) {
        ws->frag_owner = pthread_self();
        return 1;
    }
    return 0;
}

int tachy__ws_lock_for_data(tachy_ws *ws, int continuing) {
    pthread_mutex_lock(&ws->lock);
    long long deadline = -2;
    while (ws->frag_active && !frag_mine_locked(ws) && !ws->dead && !ws->close_sent) {
        if (deadline == -2)
            deadline = tachy__ws_deadline_after(ws->opt.send_timeout_ms);
        if (deadline < 0) {
            pthread_cond_wait(&ws->cond, &ws->lock);
            continue;
        }
        long long left = deadline - tachy__now_ms();
        if (left <= 0) {
            pthread_mutex_unlock(&ws->lock);
            return TACHY_ETIMEDOUT;
        }
        tachy__cond_wait_ms(&ws->cond, &ws->lock, (long)left);
    }
    if (ws->dead || ws->close_sent || !ws->stream) {
        pthread_mutex_unlock(&ws->lock);
        return TACHY_ECLOSED;
    }
    if (!continuing && ws->frag_active) { /* this thread owns an unfinished message */
        pthread_mutex_unlock(&ws->lock);
        return TACHY_ESTATE;
    }
    return 0;
}

static int send_message(tachy_ws *ws, int type, const void *data, size_t len) {
    if (!ws || (len && !data) || (type != TACHY_WS_TEXT && type != TACHY_WS_BINARY))
        return TACHY_EINVAL;
    if (type == TACHY_WS_TEXT && !tachy__utf8_valid(data, len))
        return TACHY_EINVAL;
    int rc = tachy__ws_lock_for_data(ws, 0);
    if (rc < 0)
        return rc;
    if (ws->pmd.enabled && len >= ws->opt.deflate_threshold) {
        if (!ws->deflater)
            rc = tachy__deflater_create(&ws->deflater, ws->pmd.server_max_window_bits,
                                        ws->opt.deflate_mem_level, ws->opt.deflate_level,
                                        ws->pmd.server_no_context_takeover);
        ws->zbuf.len = 0;
        if (rc == 0)
            rc = tachy__deflater_compress(ws->deflater, data, len, &ws->zbuf);
        if (rc == 0)
            rc = tachy__ws_write_frame_locked(ws, 1, 1, type, ws->zbuf.bytes, ws->zbuf.len);
        else
            tachy__ws_die_locked(ws, rc); /* the compression context is lost: fail the connection */
        if (ws->parked || ws->zbuf.cap > TACHY__WS_KEEP_BUF)
            tachy__buf_free(&ws->zbuf); /* attached: not kept while parked */
    } else {
        rc = tachy__ws_write_frame_locked(ws, 1, 0, type, data, len);
    }
    pthread_mutex_unlock(&ws->lock);
    return rc;
}

int tachy_ws_send_text(tachy_ws *ws, const char *text, size_t len) {
    return send_message(ws, TACHY_WS_TEXT, text, len);
}

int tachy_ws_send_binary(tachy_ws *ws, const void *data, size_t len) {
    return send_message(ws, TACHY_WS_BINARY, data, len);
}

int tachy_ws_send_fragment(tachy_ws *ws, int type, const void *data, size_t len, int last) {
    if (!ws || (len && !data) || (type != TACHY_WS_TEXT && type != TACHY_WS_BINARY))
        return TACHY_EINVAL;
    int rc = tachy__ws_lock_for_data(ws, 1);
    if (rc < 0)
        return rc;
    int continuing = ws->frag_active; /* and owned by this thread (tachy__ws_lock_for_data) */
    if (continuing && type != ws->frag_type) {
        pthread_mutex_unlock(&ws->lock);
        return TACHY_EINVAL;
    }
    if (type == TACHY_WS_TEXT) {
        tachy__utf8 u;
        if (continuing)
            u = ws->frag_utf8;
        else
            tachy__utf8_init(&u);
        if (tachy__utf8_feed(&u, data, len) < 0 || (last && !tachy__utf8_complete(&u))) {
            pthread_mutex_unlock(&ws->lock);
            return TACHY_EINVAL;
        }
        ws->frag_utf8 = u;
    }
    rc = tachy__ws_write_frame_locked(ws, last, 0, continuing ? TACHY__WS_OP_CONT : type, data, len);
    if (rc == 0 && !last) {
        if (!continuing)
            ws->frag_by_driver = tachy__ws_in_driver(ws);
        ws->frag_active = 1;
        ws->frag_owner = pthread_self();
        ws->frag_type = type;
    } else {
        ws->frag_active = 0;
        pthread_cond_broadcast(&ws->cond);
    }
    pthread_mutex_unlock(&ws->lock);
    return rc;
}

static int send_control(tachy_ws *ws, int opcode, const void *data, size_t len) {
    if (!ws || len > 125 || (len && !data))
        return TACHY_EINVAL;
    pthread_mutex_lock(&ws->lock);
    int rc = ws->close_sent ? TACHY_ECLOSED : tachy__ws_write_frame_locked(ws, 1, 0, opcode, data, len);
    pthread_mutex_unlock(&ws->lock);
    return rc;
}

int tachy_ws_ping(tachy_ws *ws, const void *data, size_t len) {
    return send_control(ws, TACHY__WS_OP_PING, data, len);
}

int tachy_ws_pong(tachy_ws *ws, const void *data, size_t len) {
    return send_control(ws, TACHY__WS_OP_PONG, data, len);
}

/* Sends a close frame (lock held). code 0: no payload. */
int tachy__ws_send_close_locked(tachy_ws *ws, int code, const char *reason, size_t rlen) {
    if (ws->close_sent)
        return TACHY_ECLOSED;
    uint8_t payload[125];
    size_t n = 0;
    if (code) {
        payload[0] = (uint8_t)(code >> 8);
        payload[1] = (uint8_t)code;
        if (rlen > 123)
            rlen = 123;
        if (rlen)
            memcpy(payload + 2, reason, rlen);
        n = 2 + rlen;
    }
    ws->close_sent = 1;
    ws->close_sent_at = tachy__now_ms();
    pthread_cond_broadcast(&ws->cond);
    /* A close frame is never refused for the queue's bound: it is the last frame. */
    size_t bound = ws->opt.max_backlog;
    ws->opt.max_backlog = SIZE_MAX;
    int rc = tachy__ws_write_frame_locked(ws, 1, 0, TACHY__WS_OP_CLOSE, payload, n);
    ws->opt.max_backlog = bound;
    tachy__ws_arm_close_timer_locked(ws);
    return rc;
}

int tachy_ws_close(tachy_ws *ws, int code, const char *reason) {
    if (!ws)
        return TACHY_EINVAL;
    size_t rlen = reason ? strlen(reason) : 0;
    if ((code != 0 && !tachy__ws_close_code_valid(code)) || (code == 0 && rlen) || rlen > 123 ||
        !tachy__utf8_valid(reason ? reason : "", rlen))
        return TACHY_EINVAL;
    pthread_mutex_lock(&ws->lock);
    int rc = ws->dead || !ws->stream ? TACHY_ECLOSED : tachy__ws_send_close_locked(ws, code, reason, rlen);
    pthread_mutex_unlock(&ws->lock);
    return rc;
}

void tachy_ws_abort(tachy_ws *ws) {
    if (!ws)
        return;
    pthread_mutex_lock(&ws->lock);
    if (!ws->dead) {
        ws->aborted = 1;
        ws->dead = 1;
        if (ws->stream)
            tachy_stream_shutdown(ws->stream);
        pthread_cond_broadcast(&ws->cond);
    }
    pthread_mutex_unlock(&ws->lock);
}

void tachy_ws_retain(tachy_ws *ws) {
    if (ws)
        __atomic_add_fetch(&ws->refs, 1, __ATOMIC_RELAXED);
}

void tachy_ws_release(tachy_ws *ws) {
    if (!ws || __atomic_sub_fetch(&ws->refs, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    tachy__deflater_destroy(ws->deflater);
    tachy__buf_free(&ws->zbuf);
    tachy__buf_free(&ws->backlog);
    free(ws->subprotocol);
    free(ws->extensions);
    pthread_cond_destroy(&ws->cond);
    pthread_mutex_destroy(&ws->lock);
    free(ws);
}

int tachy_ws_is_open(tachy_ws *ws) {
    if (!ws)
        return 0;
    pthread_mutex_lock(&ws->lock);
    int open = !ws->dead && !ws->close_sent && ws->stream;
    pthread_mutex_unlock(&ws->lock);
    return open;
}

const char *tachy_ws_subprotocol(const tachy_ws *ws) {
    return ws ? ws->subprotocol : NULL;
}
const char *tachy_ws_extensions(const tachy_ws *ws) {
    return ws ? ws->extensions : NULL;
}
void tachy_ws_set_user(tachy_ws *ws, void *user) {
    if (ws)
        __atomic_store_n(&ws->user, user, __ATOMIC_RELEASE);
}
void *tachy_ws_user(const tachy_ws *ws) {
    return ws ? __atomic_load_n(&ws->user, __ATOMIC_ACQUIRE) : NULL;
}
tachy_exchange *tachy_ws_exchange(const tachy_ws *ws) {
    return ws ? ws->ex : NULL;
}

void tachy_ws_options_init(tachy_ws_options *opt) {
    if (!opt)
        return;
    memset(opt, 0, sizeof *opt);
    opt->max_frame_size = 16u << 20;
    opt->max_message_size = 16u << 20;
    opt->auto_pong = 1;
    opt->deflate = 1;
    opt->server_max_window_bits = 15;
    opt->deflate_level = 1;
    opt->deflate_mem_level = 8;
    opt->deflate_threshold = 256;
    opt->send_timeout_ms = 5000;
    opt->close_timeout_ms = 3000;
    opt->idle_timeout_ms = -1;
    opt->ping_interval_ms = 30000; /* the liveness policy: see tachy/ws.h */
    opt->ping_timeout_ms = 15000;
    opt->max_backlog = 1u << 20;
    opt->backlog_policy = TACHY_WS_BACKLOG_FAIL;
}

