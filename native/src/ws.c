/*
 * ws.c - WebSocket (RFC 6455) connections: the upgrade, sending (and broadcast), the read
 * loop with its close handshake, limits and timers, permessage-deflate (RFC 7692) on top of
 * deflate.c. The connection-free protocol pieces (UTF-8, frames, negotiation) are in
 * ws_proto.c.
 *
 * Threads: the connection thread runs tachy_ws_serve's read loop and every callback.
 * Senders (any thread) serialise on ws->lock, which guards the stream's write side, the
 * send state and the compressor. The read side (buffers, message state, inflater) belongs
 * to the connection thread alone.
 */
#include "internal.h"
#include "ws_internal.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>

#include <tachy/tachy.h>
#include <tachy/ws.h>

#define SMALL_FRAME 4096      /* frames up to this are written with one copy, one write */
#define READ_MAX (256 * 1024) /* most room reserved ahead of a frame's arriving bytes */
#define READ_STEP 4096        /* minimum read size */
#define KEEP_BUF (64 * 1024)  /* buffers larger than this are freed after use */
#define MAX_HDR_VALUES 16     /* Sec-WebSocket-Extensions / -Protocol header lines read */
#define MIN_SLICE_MS 250      /* shortest periodic wake-up of an idle reader (see below) */

/* ======================================================================================
 * The connection object and sending (any thread).
 * ====================================================================================== */

/* The fields a broadcast touches come first: they share the struct's first two cache
 * lines (the struct is 64-byte aligned), so writing to 10,000 sockets costs two cold lines
 * per socket, not five. */
struct tachy_ws {
    pthread_mutex_t lock;
    /* under lock */
    int fd;               /* the socket, cached at upgrade; valid while stream != NULL */
    int dead;             /* socket failed, aborted or gone: no more writes */
    int close_sent;
    int frag_active;      /* a fragmented message is being sent */
    tachy_stream *stream; /* NULL once the connection is gone */
    tachy__wsbuf backlog; /* unsent rest of broadcast frames: written before anything else */
    int refs;             /* atomic builtins */
    int aborted;
    int send_err; /* first send failure, reported by the reader */
    long long close_sent_at;

    pthread_cond_t cond; /* a fragmented message ended / the socket died */
    tachy_ws_options opt;
    tachy_exchange *ex;
    void *user;
    char *subprotocol;
    char *extensions;
    tachy__ws_pmd pmd;

    /* under lock */
    pthread_t frag_owner;
    int frag_type;
    tachy__utf8 frag_utf8;
    tachy__deflater *deflater; /* created at the first compressed send */
    tachy__wsbuf zbuf;         /* compressed payload scratch */
};

static long long now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Milliseconds left until deadline (-1 = none), clamped to int; 0 when past. */
static int ms_left(long long deadline) {
    if (deadline < 0)
        return -1;
    long long left = deadline - now_ms();
    if (left < 0)
        return 0;
    return left > 0x7fffffff ? 0x7fffffff : (int)left;
}

static long long deadline_after(long ms) {
    return ms < 0 ? -1 : now_ms() + ms;
}

/* Marks the connection dead after a write failure (lock held). */
static void die_locked(tachy_ws *ws, int err) {
    if (!ws->dead) {
        ws->dead = 1;
        if (!ws->send_err)
            ws->send_err = err;
        if (ws->stream)
            tachy_stream_shutdown(ws->stream);
    }
    ws->backlog.len = 0;
    pthread_cond_broadcast(&ws->cond);
}

/* Blocking write of the broadcast backlog (lock held), before any other frame: frames never
 * interleave. 0, or the error that killed the connection. */
static int flush_backlog_locked(tachy_ws *ws, long long deadline) {
    if (ws->backlog.len == 0)
        return 0;
    ssize_t rc = tachy_stream_write(ws->stream, ws->backlog.data, ws->backlog.len, ms_left(deadline));
    if (rc < 0) {
        die_locked(ws, (int)rc);
        return (int)rc;
    }
    ws->backlog.len = 0;
    if (ws->backlog.cap > KEEP_BUF)
        tachy__wsbuf_free(&ws->backlog);
    return 0;
}

/* Writes one frame; lock held. A failure kills the connection (a partial frame cannot
 * be resumed). */
static int write_frame_locked(tachy_ws *ws, int fin, int rsv1, int opcode, const void *payload,
                              size_t len) {
    if (ws->dead || !ws->stream)
        return TACHY_ECLOSED;
    long long deadline = deadline_after(ws->opt.send_timeout_ms);
    int brc = flush_backlog_locked(ws, deadline);
    if (brc < 0)
        return brc;
    uint8_t small[SMALL_FRAME];
    size_t hlen = tachy__ws_frame_header(small, fin, rsv1, opcode, len, NULL);
    ssize_t rc;
    if (hlen + len <= sizeof small) {
        if (len)
            memcpy(small + hlen, payload, len);
        rc = tachy_stream_write(ws->stream, small, hlen + len, ms_left(deadline));
    } else {
        rc = tachy_stream_write(ws->stream, small, hlen, ms_left(deadline));
        if (rc >= 0)
            rc = tachy_stream_write(ws->stream, payload, len, ms_left(deadline));
    }
    if (rc < 0) {
        die_locked(ws, (int)rc);
        return (int)rc;
    }
    return 0;
}

/* Writes a whole pre-encoded frame through the stream (lock held), blocking within
 * send_timeout_ms: how a broadcast reaches a TLS connection. A failure kills it. */
static int write_encoded_locked(tachy_ws *ws, const uint8_t *frame, size_t len) {
    if (ws->dead || !ws->stream)
        return TACHY_ECLOSED;
    ssize_t rc = tachy_stream_write(ws->stream, frame, len,
                                    ms_left(deadline_after(ws->opt.send_timeout_ms)));
    if (rc < 0) {
        die_locked(ws, (int)rc);
        return (int)rc;
    }
    return 0;
}

/*
 * Takes the lock for a data frame: waits while another thread is in the middle of a
 * fragmented message (at most send_timeout_ms). On success returns 0 with the lock held.
 */
static int lock_for_data(tachy_ws *ws, int continuing) {
    pthread_mutex_lock(&ws->lock);
    long long deadline = -2;
    while (ws->frag_active && !pthread_equal(ws->frag_owner, pthread_self()) && !ws->dead &&
           !ws->close_sent) {
        if (deadline == -2)
            deadline = deadline_after(ws->opt.send_timeout_ms);
        if (deadline < 0) {
            pthread_cond_wait(&ws->cond, &ws->lock);
            continue;
        }
        long long left = deadline - now_ms();
        if (left <= 0) {
            pthread_mutex_unlock(&ws->lock);
            return TACHY_ETIMEDOUT;
        }
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        ts.tv_sec += left / 1000;
        ts.tv_nsec += (left % 1000) * 1000000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&ws->cond, &ws->lock, &ts);
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
    int rc = lock_for_data(ws, 0);
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
            rc = write_frame_locked(ws, 1, 1, type, ws->zbuf.data, ws->zbuf.len);
        else
            die_locked(ws, rc); /* the compression context is lost: fail the connection */
        if (ws->zbuf.cap > KEEP_BUF)
            tachy__wsbuf_free(&ws->zbuf);
    } else {
        rc = write_frame_locked(ws, 1, 0, type, data, len);
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
    int rc = lock_for_data(ws, 1);
    if (rc < 0)
        return rc;
    int continuing = ws->frag_active; /* and owned by this thread (lock_for_data) */
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
    rc = write_frame_locked(ws, last, 0, continuing ? TACHY__WS_OP_CONT : type, data, len);
    if (rc == 0 && !last) {
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
    int rc = ws->close_sent ? TACHY_ECLOSED : write_frame_locked(ws, 1, 0, opcode, data, len);
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
static int send_close_locked(tachy_ws *ws, int code, const char *reason, size_t rlen) {
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
    ws->close_sent_at = now_ms();
    pthread_cond_broadcast(&ws->cond);
    return write_frame_locked(ws, 1, 0, TACHY__WS_OP_CLOSE, payload, n);
}

int tachy_ws_close(tachy_ws *ws, int code, const char *reason) {
    if (!ws)
        return TACHY_EINVAL;
    size_t rlen = reason ? strlen(reason) : 0;
    if ((code != 0 && !tachy__ws_close_code_valid(code)) || (code == 0 && rlen) || rlen > 123 ||
        !tachy__utf8_valid(reason ? reason : "", rlen))
        return TACHY_EINVAL;
    pthread_mutex_lock(&ws->lock);
    int rc = ws->dead || !ws->stream ? TACHY_ECLOSED : send_close_locked(ws, code, reason, rlen);
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

/* ---- broadcast ---------------------------------------------------------------------------
 * Pass 1 is one try-lock and one non-blocking send() per socket. Pass 2 (only for what pass 1
 * left) serves the skipped sockets with the blocking rules and then waits for all sockets
 * with a backlog at once. See tachy/ws.h for the policy. */

/* Non-blocking write of the backlog (lock held): 1 when it is empty, 0 when bytes remain,
 * < 0 when the socket failed (the connection is then dead). */
static int try_flush_locked(tachy_ws *ws) {
    while (ws->backlog.len > 0) {
        ssize_t w = send(ws->fd, ws->backlog.data, ws->backlog.len, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (w > 0) {
            ws->backlog.len -= (size_t)w;
            if (ws->backlog.len)
                memmove(ws->backlog.data, ws->backlog.data + w, ws->backlog.len);
            continue;
        }
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        int err = w < 0 && (errno == EPIPE || errno == ECONNRESET) ? TACHY_EPEERCLOSED : TACHY_EIO;
        die_locked(ws, err);
        return err;
    }
    if (ws->backlog.cap > KEEP_BUF)
        tachy__wsbuf_free(&ws->backlog);
    return 1;
}

/* Writes frame[0,len) without waiting (lock held, no backlog): 1 written whole, 0 the rest
 * went to the backlog, < 0 the connection failed. */
static int send_nowait_locked(tachy_ws *ws, const uint8_t *frame, size_t len) {
    size_t off = 0;
    while (off < len) {
        ssize_t w = send(ws->fd, frame + off, len - off, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (w > 0) {
            off += (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        int err = w < 0 && (errno == EPIPE || errno == ECONNRESET) ? TACHY_EPEERCLOSED : TACHY_EIO;
        die_locked(ws, err);
        return err;
    }
    if (off == len)
        return 1;
    if (tachy__wsbuf_append(&ws->backlog, frame + off, len - off) < 0) {
        die_locked(ws, TACHY_ENOMEM); /* part of the frame is on the wire: cannot go on */
        return TACHY_ENOMEM;
    }
    return 0;
}

typedef struct bc_wait {
    tachy_ws *ws;
    long long deadline; /* -1: none */
} bc_wait;

typedef struct bc_job {
    tachy_ws *const *wss;
    size_t n;
    const uint8_t *frame;
    size_t len;
    tachy_ws_broadcast_stats st;
    int rc; /* TACHY_ENOMEM when pass 2 could not get memory */
} bc_job;

/* Pass 2 for one socket left by pass 1: blocking lock (and wait for another thread's
 * fragmented message), then a non-blocking attempt; a backlog left is added to *w. */
static void bc_serve_skipped(bc_job *j, tachy_ws *ws, bc_wait *w, size_t *nw, long long start) {
    int rc = lock_for_data(ws, 0);
    if (rc < 0) {
        if (rc == TACHY_ECLOSED)
            j->st.closed++;
        else
            j->st.busy++; /* ESTATE (ours) or ETIMEDOUT (another thread's fragments) */
        return;
    }
    int done;
    if (ws->fd < 0) { /* TLS: through the stream (it encrypts), blocking rules */
        done = write_encoded_locked(ws, j->frame, j->len);
        pthread_mutex_unlock(&ws->lock);
        if (done == 0) {
            j->st.sent++;
            j->st.deferred++;
        } else {
            j->st.failed++;
        }
        return;
    }
    if (ws->backlog.len > 0) {
        done = try_flush_locked(ws);
        if (done == 0)
            done = tachy__wsbuf_append(&ws->backlog, j->frame, j->len) < 0 ? TACHY_ENOMEM : 0;
        else if (done > 0)
            done = send_nowait_locked(ws, j->frame, j->len);
        if (done == TACHY_ENOMEM && !ws->dead)
            die_locked(ws, TACHY_ENOMEM);
    } else {
        done = send_nowait_locked(ws, j->frame, j->len);
    }
    long to = ws->opt.send_timeout_ms;
    pthread_mutex_unlock(&ws->lock);
    if (done > 0) {
        j->st.sent++;
        j->st.deferred++;
    } else if (done < 0) {
        j->st.failed++;
    } else {
        w[*nw].ws = ws;
        w[*nw].deadline = to < 0 ? -1 : start + to;
        (*nw)++;
    }
}

/* Pass 2: waits for the sockets in w[0,nw) to take their backlog, all at once. */
static void bc_wait_all(bc_job *j, bc_wait *w, size_t nw, struct pollfd *pfd) {
    while (nw > 0) {
        long long now = now_ms(), next = -1;
        for (size_t i = 0; i < nw;) { /* deadlines: fail what did not go out in time */
            tachy_ws *ws = w[i].ws;
            if (w[i].deadline >= 0 && now >= w[i].deadline) {
                pthread_mutex_lock(&ws->lock);
                int r = ws->dead || !ws->stream ? TACHY_ECLOSED : try_flush_locked(ws);
                if (r == 0)
                    die_locked(ws, TACHY_ETIMEDOUT);
                pthread_mutex_unlock(&ws->lock);
                if (r > 0) {
                    j->st.sent++;
                    j->st.deferred++;
                } else {
                    j->st.failed++;
                }
                w[i] = w[--nw];
                continue;
            }
            if (w[i].deadline >= 0 && (next < 0 || w[i].deadline < next))
                next = w[i].deadline;
            i++;
        }
        if (nw == 0)
            break;
        for (size_t i = 0; i < nw; i++) {
            /* ws->fd is constant for the handle's life; if the connection ended and the
             * number was reused, the poll is merely spurious: state is checked under lock */
            pfd[i].fd = w[i].ws->fd;
            pfd[i].events = POLLOUT;
            pfd[i].revents = 0;
        }
        long long left = next < 0 ? -1 : next - now;
        int r = poll(pfd, (nfds_t)nw, left < 0 ? -1 : (int)TACHY__MIN(left, 0x7fffffffLL));
        if (r < 0 && errno != EINTR)
            r = (int)nw; /* cannot wait: look at every socket, the deadlines still apply */
        if (r <= 0)
            continue;
        for (size_t i = nw; i-- > 0;) {
            if (!pfd[i].revents)
                continue;
            tachy_ws *ws = w[i].ws;
            pthread_mutex_lock(&ws->lock);
            int rr = ws->dead || !ws->stream ? TACHY_ECLOSED : try_flush_locked(ws);
            pthread_mutex_unlock(&ws->lock);
            if (rr == 0)
                continue;
            if (rr > 0) {
                j->st.sent++;
                j->st.deferred++;
            } else {
                j->st.failed++;
            }
            w[i] = w[--nw];
            pfd[i] = pfd[nw];
        }
    }
}

static void bc_run(bc_job *j) {
    tachy_ws *const *wss = j->wss;
    size_t n = j->n, nskip = 0, nw = 0;
    /* Left for pass 2 (allocated on the first one): skip[] = indexes of sockets not written
     * to yet; w[] = sockets holding the rest of this frame in their backlog. */
    size_t *skip = NULL;
    bc_wait *w = NULL;
    long long start = -1;
    for (size_t i = 0; i < n; i++) {
        tachy_ws *ws = wss[i];
        if (!ws) {
            j->st.closed++;
            continue;
        }
        int r = 0;
        if (pthread_mutex_trylock(&ws->lock) != 0) {
            r = 2; /* the reader or a sender holds it right now: no convoy */
        } else if (ws->dead || ws->close_sent || !ws->stream) {
            pthread_mutex_unlock(&ws->lock);
            j->st.closed++;
            continue;
        } else if (ws->frag_active || ws->backlog.len > 0) {
            pthread_mutex_unlock(&ws->lock);
            r = 2;
        } else if (ws->fd < 0) { /* TLS: encrypted through the stream, blocking rules */
            r = write_encoded_locked(ws, j->frame, j->len);
            pthread_mutex_unlock(&ws->lock);
            if (r == 0)
                j->st.sent++;
            else
                j->st.failed++;
            continue;
        } else {
            r = send_nowait_locked(ws, j->frame, j->len);
            pthread_mutex_unlock(&ws->lock);
            if (r > 0) {
                j->st.sent++;
                continue;
            }
            if (r < 0) {
                j->st.failed++;
                continue;
            }
        }
        if (!skip) {
            skip = malloc((n - i) * sizeof *skip);
            w = malloc((n - i) * sizeof *w);
            if (!skip || !w) { /* rare: stop here; what has a backlog is failed below */
                j->rc = TACHY_ENOMEM;
                j->st.busy += n - i - (r == 0);
                if (r == 0) {
                    pthread_mutex_lock(&ws->lock);
                    die_locked(ws, TACHY_ENOMEM);
                    pthread_mutex_unlock(&ws->lock);
                    j->st.failed++;
                }
                free(skip);
                free(w);
                return;
            }
            start = now_ms();
        }
        if (r == 2) {
            skip[nskip++] = i;
        } else { /* r == 0: part of the frame (or none) went out, the rest waits */
            long to = ws->opt.send_timeout_ms;
            w[nw].ws = ws;
            w[nw].deadline = to < 0 ? -1 : start + to;
            nw++;
        }
    }
    if (!skip)
        return;
    /* Pass 2. */
    struct pollfd *pfd = malloc((nskip + nw) * sizeof *pfd);
    if (!pfd) {
        j->rc = TACHY_ENOMEM;
        j->st.busy += nskip;
        for (size_t k = 0; k < nw; k++) { /* half-written frames cannot wait: fail them */
            pthread_mutex_lock(&w[k].ws->lock);
            if (w[k].ws->backlog.len > 0)
                die_locked(w[k].ws, TACHY_ENOMEM);
            pthread_mutex_unlock(&w[k].ws->lock);
            j->st.failed++;
        }
        free(skip);
        free(w);
        return;
    }
    for (size_t k = 0; k < nskip; k++)
        bc_serve_skipped(j, wss[skip[k]], w, &nw, start);
    bc_wait_all(j, w, nw, pfd);
    free(w);
    free(pfd);
    free(skip);
}

static void *bc_thread(void *arg) {
    bc_run(arg);
    return NULL;
}

#define BC_MAX_THREADS 4
static size_t bc_shard_min = 4096; /* tachy__ws_set_broadcast_shard_min (tests) */

void tachy__ws_set_broadcast_shard_min(size_t n) {
    __atomic_store_n(&bc_shard_min, n ? n : 4096, __ATOMIC_RELAXED);
}

/* How many threads to shard n sockets over: 1 unless this thread may run on more than one
 * CPU (sched_getaffinity) and n is large. */
static int bc_threads(size_t n) {
    size_t min = __atomic_load_n(&bc_shard_min, __ATOMIC_RELAXED);
    if (n < min || n < 2)
        return 1;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return 1;
    int cpus = CPU_COUNT(&set);
    int t = cpus < BC_MAX_THREADS ? cpus : BC_MAX_THREADS;
    if ((size_t)t > n)
        t = (int)n;
    return t < 1 ? 1 : t;
}

ssize_t tachy_ws_broadcast_ex(tachy_ws *const *wss, size_t n, int type, const void *data,
                              size_t len, tachy_ws_broadcast_stats *stats) {
    if (stats)
        memset(stats, 0, sizeof *stats);
    if ((n && !wss) || (len && !data) || (type != TACHY_WS_TEXT && type != TACHY_WS_BINARY))
        return TACHY_EINVAL;
    if (type == TACHY_WS_TEXT && !tachy__utf8_valid(data, len))
        return TACHY_EINVAL;
    uint8_t small[SMALL_FRAME];
    uint8_t *frame = TACHY__WS_MAX_HEADER + len <= sizeof small ? small
                                                                : malloc(TACHY__WS_MAX_HEADER + len);
    if (!frame)
        return TACHY_ENOMEM;
    size_t hlen = tachy__ws_frame_header(frame, 1, 0, type, len, NULL);
    if (len)
        memcpy(frame + hlen, data, len);

    bc_job jobs[BC_MAX_THREADS];
    pthread_t tids[BC_MAX_THREADS];
    int started[BC_MAX_THREADS] = {0};
    int nt = bc_threads(n);
    size_t per = n / (size_t)nt, off = 0;
    for (int t = 0; t < nt; t++) {
        memset(&jobs[t], 0, sizeof jobs[t]);
        jobs[t].wss = wss + off;
        jobs[t].n = t == nt - 1 ? n - off : per;
        jobs[t].frame = frame;
        jobs[t].len = hlen + len;
        off += jobs[t].n;
    }
    /* slices 1.. on helper threads (a slice whose thread cannot start runs here) */
    for (int t = 1; t < nt; t++)
        started[t] = pthread_create(&tids[t], NULL, bc_thread, &jobs[t]) == 0;
    bc_run(&jobs[0]);
    tachy_ws_broadcast_stats sum = {0, 0, 0, 0, 0};
    int rc = 0;
    for (int t = 0; t < nt; t++) {
        if (t > 0) {
            if (started[t])
                pthread_join(tids[t], NULL);
            else
                bc_run(&jobs[t]);
        }
        sum.sent += jobs[t].st.sent;
        sum.closed += jobs[t].st.closed;
        sum.failed += jobs[t].st.failed;
        sum.busy += jobs[t].st.busy;
        sum.deferred += jobs[t].st.deferred;
        if (jobs[t].rc < 0)
            rc = jobs[t].rc;
    }
    if (frame != small)
        free(frame);
    if (stats)
        *stats = sum;
    if (rc < 0 && sum.sent == 0)
        return rc;
    return (ssize_t)sum.sent;
}

ssize_t tachy_ws_broadcast(tachy_ws *const *wss, size_t n, int type, const void *data, size_t len) {
    return tachy_ws_broadcast_ex(wss, n, type, data, len, NULL);
}

void tachy_ws_retain(tachy_ws *ws) {
    if (ws)
        __atomic_add_fetch(&ws->refs, 1, __ATOMIC_RELAXED);
}

void tachy_ws_release(tachy_ws *ws) {
    if (!ws || __atomic_sub_fetch(&ws->refs, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    tachy__deflater_destroy(ws->deflater);
    tachy__wsbuf_free(&ws->zbuf);
    tachy__wsbuf_free(&ws->backlog);
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
    opt->ping_interval_ms = -1;
    opt->ping_timeout_ms = 10000;
}

/* ======================================================================================
 * The read loop (connection thread).
 * ====================================================================================== */

typedef struct reader {
    tachy_ws *ws;
    tachy__wsbuf in; /* received bytes; frames parsed from in.data[start, in.len) */
    size_t start;
    /* message being received */
    int msg_active;
    int msg_type;
    int msg_compressed;
    uint64_t msg_size; /* (inflated) bytes so far */
    tachy__utf8 utf8;
    tachy__wsbuf msg; /* assembled message / inflated piece */
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
        send_close_locked(ws, code, what, strlen(what));
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
        chunk = r->msg.data + before;
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
            deliver(r, r->msg.data, r->msg.len, 1);
    } else if (fin && r->msg.len == 0) {
        deliver(r, chunk, clen, 1); /* single-frame message: straight from the read buffer */
    } else {
        if (tachy__wsbuf_append(&r->msg, chunk, clen) < 0) {
            fail(r, TACHY_ENOMEM, 1011, "out of memory");
            return;
        }
        if (fin)
            deliver(r, r->msg.data, r->msg.len, 1);
    }
    if (fin) {
        r->msg_active = 0;
        r->msg.len = 0;
        if (r->msg.cap > KEEP_BUF)
            tachy__wsbuf_free(&r->msg);
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
        send_close_locked(ws, code == TACHY_WS_CLOSE_NO_STATUS ? 0 : code, NULL, 0);
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
            send_control(ws, TACHY__WS_OP_PONG, payload, plen);
        if (ws->opt.cb.on_ping)
            ws->opt.cb.on_ping(ws, plen ? payload : (const uint8_t *)"", plen, tachy_ws_user(ws));
        return;
    case TACHY__WS_OP_PONG:
        r->ping_sent_at = 0;
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
    uint8_t *p = r->in.data + r->start + f->header_len;
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
    long long now = now_ms();
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

static void run(reader *r) {
    tachy_ws *ws = r->ws;
    tachy__ws_parse_rules rules = {1, ws->pmd.enabled, ws->opt.max_frame_size, 0};
    tachy__ws_parse_rules lenient = {0, 1, 0, 1};
    r->last_rx = now_ms();
    /* Every pass consumes a frame, reads from the socket (bounded by timeouts), or ends. */
    while (!r->done) {
        size_t avail = r->in.len - r->start;
        tachy__ws_frame f = {0};
        ssize_t n = 0;
        if (!r->discard && avail > 0)
            n = tachy__ws_frame_parse(r->in.data + r->start, avail, r->closing ? &lenient : &rules,
                                      &f);
        if (n < 0) {
            if (r->closing)
                r->discard = 1; /* even the frame boundaries are lost: only wait for EOF */
            else                /* then skip frames leniently, looking for the peer's close */
                fail(r, f.close_code == 1009 ? TACHY_ETOOBIG : TACHY_EPROTO, f.close_code, f.error);
            continue;
        }
        if (n > 0) {
            handle_frame(r, &f, r->in.data + r->start + f.header_len);
            r->pre_done = 0;
            r->start += (size_t)n;
            if (r->start == r->in.len) {
                r->start = r->in.len = 0;
                if (r->in.cap > KEEP_BUF)
                    tachy__wsbuf_free(&r->in);
            }
            continue;
        }
        /* Need more bytes. */
        if (f.header_len && !r->closing && !r->discard)
            prevalidate(r, &f, avail);
        if (r->discard) {
            r->start = r->in.len = 0;
        } else if (r->closing && f.header_len && f.payload_len > KEEP_BUF) {
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
            memmove(r->in.data, r->in.data + r->start, avail);
            r->in.len = avail;
            r->start = 0;
        }
        if (tachy__wsbuf_reserve(&r->in, need) < 0) {
            fail(r, TACHY_ENOMEM, 1011, "out of memory");
            break;
        }
        int timeout = check_timers(r);
        if (r->done)
            break;
        pthread_mutex_lock(&ws->lock);
        tachy_stream *s = ws->dead ? NULL : ws->stream;
        pthread_mutex_unlock(&ws->lock);
        if (!s)
            break;
        ssize_t got = tachy_stream_read(s, r->in.data + r->in.len, r->in.cap - r->in.len, timeout);
        if (got > 0) {
            r->last_rx = now_ms();
            if (r->skip) {
                size_t k = (uint64_t)got < r->skip ? (size_t)got : (size_t)r->skip;
                memmove(r->in.data + r->in.len, r->in.data + r->in.len + k, (size_t)got - k);
                got -= (ssize_t)k;
                r->skip -= k;
            }
            r->in.len += (size_t)got;
        } else if (got == TACHY_ETIMEDOUT) {
            continue; /* timers run at the top of the next wait */
        } else {
            pthread_mutex_lock(&ws->lock);
            int aborted = ws->aborted, send_err = ws->send_err;
            pthread_mutex_unlock(&ws->lock);
            if (send_err) /* a sender failed and shut the socket down */
                report_error(r, send_err, 0, "send failed");
            else if (got < 0 && !r->closing && !aborted)
                report_error(r, (int)got, 0, "connection error");
            break; /* EOF, shut down, or I/O error */
        }
    }
}

/* ======================================================================================
 * tachy_ws_serve: handshake, then the loop.
 * ====================================================================================== */

static int refuse(tachy_exchange *ex, int status, const char *why) {
    tachy_headers *rh = tachy_exchange_response_headers(ex);
    if (status == 405)
        tachy_headers_set(rh, "Allow", "GET");
    if (status == 426) {
        tachy_headers_set(rh, "Sec-WebSocket-Version", "13");
        tachy_headers_set(rh, "Upgrade", "websocket");
    }
    tachy_headers_set(rh, "Content-Type", "text/plain; charset=utf-8");
    size_t len = strlen(why);
    int rc = tachy_exchange_send_response_headers(ex, status, (int64_t)len);
    if (rc == 0)
        tachy_exchange_write(ex, why, len);
    tachy_exchange_close(ex);
    return TACHY_EPROTO;
}

/* "HTTP/x.y" with x.y >= 1.1. */
static int http11_or_later(const char *proto) {
    int major, minor;
    if (!proto || sscanf(proto, "HTTP/%d.%d", &major, &minor) != 2)
        return 0;
    return major > 1 || (major == 1 && minor >= 1);
}

static int any_value_has(const tachy_headers *h, const char *name, const char *token) {
    const char *vals[MAX_HDR_VALUES];
    size_t n = tachy_headers_values(h, name, vals, MAX_HDR_VALUES);
    if (n > MAX_HDR_VALUES)
        n = MAX_HDR_VALUES;
    for (size_t i = 0; i < n; i++)
        if (tachy__ws_has_token(vals[i], token))
            return 1;
    return 0;
}

static char *dup_str(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

int tachy_ws_serve(tachy_exchange *ex, const tachy_ws_options *opt) {
    if (!ex)
        return TACHY_EINVAL;
    tachy_ws_options defaults;
    if (!opt) {
        tachy_ws_options_init(&defaults);
        opt = &defaults;
    }
    if (tachy_exchange_response_code(ex) != -1)
        return TACHY_EHDRSENT;

    /* RFC 6455 4.2.1 */
    const char *method = tachy_exchange_request_method(ex);
    if (!method || strcmp(method, "GET") != 0)
        return refuse(ex, 405, "WebSocket upgrade requires GET\n");
    if (!http11_or_later(tachy_exchange_protocol(ex)))
        return refuse(ex, 400, "WebSocket upgrade requires HTTP/1.1\n");
    tachy_headers *h = tachy_exchange_request_headers(ex);
    if (!tachy_headers_first(h, "Host"))
        return refuse(ex, 400, "Missing Host header\n");
    if (!any_value_has(h, "Upgrade", "websocket"))
        return refuse(ex, 400, "Missing Upgrade: websocket\n");
    if (!any_value_has(h, "Connection", "upgrade"))
        return refuse(ex, 400, "Missing Connection: Upgrade\n");
    const char *vals[MAX_HDR_VALUES];
    size_t nv = tachy_headers_values(h, "Sec-WebSocket-Version", vals, MAX_HDR_VALUES);
    if (nv != 1 || strcmp(vals[0], "13") != 0)
        return refuse(ex, 426, "Unsupported WebSocket version: 13 is required\n");
    nv = tachy_headers_values(h, "Sec-WebSocket-Key", vals, MAX_HDR_VALUES);
    unsigned char raw[20];
    if (nv != 1 || strlen(vals[0]) != 24 || tachy__base64_decode(vals[0], 24, raw) != 16)
        return refuse(ex, 400, "Bad Sec-WebSocket-Key\n");
    char accept[29];
    tachy__ws_accept_key(vals[0], 24, accept);

    /* 64-byte aligned: the broadcast fields share the first cache lines (see the struct) */
    tachy_ws *ws = aligned_alloc(64, (sizeof *ws + 63) / 64 * 64);
    if (!ws)
        return TACHY_ENOMEM;
    memset(ws, 0, sizeof *ws);
    ws->fd = -1;
    pthread_mutex_init(&ws->lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&ws->cond, &ca);
    pthread_condattr_destroy(&ca);
    ws->refs = 1;
    ws->opt = *opt;
    ws->ex = ex;
    ws->user = opt->user;
    if (ws->opt.deflate_mem_level < 1 || ws->opt.deflate_mem_level > 9)
        ws->opt.deflate_mem_level = 8;
    if (ws->opt.deflate_level < 0 || ws->opt.deflate_level > 9)
        ws->opt.deflate_level = 1;
    if (ws->opt.max_message_size == 0)
        ws->opt.max_message_size = SIZE_MAX;

    tachy_headers *rh = tachy_exchange_response_headers(ex);
    int rc = 0;
    nv = tachy_headers_values(h, "Sec-WebSocket-Protocol", vals, MAX_HDR_VALUES);
    int sel = tachy__ws_select_subprotocol(vals, nv < MAX_HDR_VALUES ? nv : MAX_HDR_VALUES,
                                           opt->subprotocols, opt->num_subprotocols);
    if (sel >= 0) {
        ws->subprotocol = dup_str(opt->subprotocols[sel]);
        if (!ws->subprotocol)
            rc = TACHY_ENOMEM;
        else
            rc = tachy_headers_set(rh, "Sec-WebSocket-Protocol", ws->subprotocol);
    }
    tachy__ws_pmd cfg = {opt->deflate, opt->server_no_context_takeover,
                         opt->client_no_context_takeover, opt->server_max_window_bits, 15};
    char ext[160];
    nv = tachy_headers_values(h, "Sec-WebSocket-Extensions", vals, MAX_HDR_VALUES);
    if (rc == 0 && tachy__ws_pmd_negotiate(vals, nv < MAX_HDR_VALUES ? nv : MAX_HDR_VALUES, &cfg,
                                           &ws->pmd, ext, sizeof ext)) {
        ws->extensions = dup_str(ext);
        if (!ws->extensions)
            rc = TACHY_ENOMEM;
        else
            rc = tachy_headers_set(rh, "Sec-WebSocket-Extensions", ext);
    }
    if (rc == 0)
        rc = tachy_headers_set(rh, "Upgrade", "websocket");
    if (rc == 0)
        rc = tachy_headers_set(rh, "Connection", "Upgrade");
    if (rc == 0)
        rc = tachy_headers_set(rh, "Sec-WebSocket-Accept", accept);
    if (rc == 0)
        rc = tachy_exchange_send_response_headers(ex, 101, -1);
    tachy_stream *stream = NULL;
    if (rc == 0)
        rc = tachy_exchange_upgrade(ex, &stream);
    if (rc < 0) {
        tachy_ws_release(ws);
        return rc;
    }
    /* The broadcast's fast path writes the socket itself. A TLS stream must go through
     * tachy_stream_write (it encrypts), so it gets no descriptor here: -1 sends its
     * broadcasts through the stream with the blocking rules. */
    ws->fd = tachy_exchange_is_secure(ex) ? -1 : tachy_stream_fd(stream);
    ws->stream = stream; /* no other thread has the handle before on_open */

    reader r;
    memset(&r, 0, sizeof r);
    r.ws = ws;
    if (ws->opt.cb.on_open)
        ws->opt.cb.on_open(ws, tachy_ws_user(ws));
    run(&r);

    pthread_mutex_lock(&ws->lock);
    int send_err = ws->send_err;
    pthread_mutex_unlock(&ws->lock);
    if (send_err && !r.close_received)
        report_error(&r, send_err, 0, "send failed");
    if (r.close_received)
        call_close(&r, r.peer_code, r.peer_reason, r.peer_reason_len);
    else
        call_close(&r, TACHY_WS_CLOSE_ABNORMAL, "", 0);

    /* The stream dies with the handler: make every later send fail without touching it. */
    pthread_mutex_lock(&ws->lock);
    ws->dead = 1;
    ws->stream = NULL;
    ws->frag_active = 0;
    pthread_cond_broadcast(&ws->cond);
    pthread_mutex_unlock(&ws->lock);

    tachy__inflater_destroy(r.inflater);
    tachy__wsbuf_free(&r.in);
    tachy__wsbuf_free(&r.msg);
    tachy_ws_release(ws);
    /* The exchange is over: close it, so that a front end that would otherwise wait for
     * the close (the JNI bridge defers unclosed exchanges, as the JDK does) lets the core
     * close the connection. Its getters stay valid until the handler returns. */
    tachy_exchange_close(ex);
    return 0;
}
