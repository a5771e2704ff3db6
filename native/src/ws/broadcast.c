/*
 * ws/broadcast.c - one message to many sockets (tachy_ws_broadcast): the frame is built (and
 * compressed) once, then written to every socket without letting a slow one hold the
 * others; large broadcasts are sharded over threads. The policy is in tachy/ws.h.
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

/* ---- broadcast ---------------------------------------------------------------------------
 * Pass 1 is one try-lock and one non-blocking send per socket (http/io.c). Pass 2 (only for what pass 1
 * left) serves the skipped sockets with the blocking rules and then waits for all sockets
 * with a backlog at once. See tachy/ws.h for the policy. */

/* Non-blocking write of the backlog (lock held): 1 when it is empty, 0 when bytes remain,
 * < 0 when the socket failed (the connection is then dead). */
static int try_flush_locked(tachy_ws *ws) {
    while (ws->backlog.len > 0) {
        ssize_t w = tachy__io_send_nowait(ws->fd, ws->backlog.bytes, ws->backlog.len);
        if (w > 0) {
            ws->backlog.len -= (size_t)w;
            if (ws->backlog.len)
                memmove(ws->backlog.bytes, ws->backlog.bytes + w, ws->backlog.len);
            continue;
        }
        if (w == TACHY_ETIMEDOUT)
            return 0;
        int err = (int)w;
        tachy__ws_die_locked(ws, err);
        return err;
    }
    tachy__buf_free(&ws->backlog); /* an empty queue keeps no memory */
    return 1;
}

/* Writes frame[0,len) without waiting (lock held, no backlog): 1 written whole, 0 the rest
 * went to the backlog, < 0 the connection failed. */
static int send_nowait_locked(tachy_ws *ws, const uint8_t *frame, size_t len) {
    ssize_t off = tachy__ws_push_nowait_locked(ws, frame, len);
    if (off < 0)
        return (int)off;
    if ((size_t)off == len)
        return 1;
    if (tachy__buf_append(&ws->backlog, frame + off, len - (size_t)off) < 0) {
        tachy__ws_die_locked(ws, TACHY_ENOMEM); /* part of the frame is on the wire: cannot go on */
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
    int rc = tachy__ws_lock_for_data(ws, 0);
    if (rc < 0) {
        if (rc == TACHY_ECLOSED)
            j->st.closed++;
        else
            j->st.busy++; /* ESTATE (ours) or ETIMEDOUT (another thread's fragments) */
        return;
    }
    int done;
    if (ws->parked && ws->fd >= 0) { /* attached: written or queued, never waited for */
        uint8_t none[1];
        done = tachy__ws_queue_locked(ws, none, 0, j->frame, j->len);
        pthread_mutex_unlock(&ws->lock);
        if (done == 0) {
            j->st.sent++;
            j->st.deferred++;
        } else if (done == TACHY_ETOOBIG) {
            j->st.busy++;
        } else {
            j->st.failed++;
        }
        return;
    }
    if (ws->fd < 0) { /* TLS: through the stream (it encrypts), blocking rules */
        done = tachy__ws_write_encoded_locked(ws, j->frame, j->len);
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
            done = tachy__buf_append(&ws->backlog, j->frame, j->len) < 0 ? TACHY_ENOMEM : 0;
        else if (done > 0)
            done = send_nowait_locked(ws, j->frame, j->len);
        if (done == TACHY_ENOMEM && !ws->dead)
            tachy__ws_die_locked(ws, TACHY_ENOMEM);
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
        long long now = tachy__now_ms(), next = -1;
        for (size_t i = 0; i < nw;) { /* deadlines: fail what did not go out in time */
            tachy_ws *ws = w[i].ws;
            if (w[i].deadline >= 0 && now >= w[i].deadline) {
                pthread_mutex_lock(&ws->lock);
                int r = ws->dead || !ws->stream ? TACHY_ECLOSED : try_flush_locked(ws);
                if (r == 0)
                    tachy__ws_die_locked(ws, TACHY_ETIMEDOUT);
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
        int r = tachy__io_poll(pfd, nw, left < 0 ? -1 : (int)TACHY__MIN(left, 0x7fffffffLL));
        if (r < 0)
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
        } else if (ws->parked && ws->fd >= 0 && !ws->frag_active) {
            /* Attached: written or queued, never waited for (the pool flushes the queue). */
            uint8_t none[1];
            r = tachy__ws_queue_locked(ws, none, 0, j->frame, j->len);
            pthread_mutex_unlock(&ws->lock);
            if (r == 0)
                j->st.sent++;
            else if (r == TACHY_ETOOBIG)
                j->st.busy++;
            else
                j->st.failed++;
            continue;
        } else if (ws->frag_active || ws->backlog.len > 0) {
            pthread_mutex_unlock(&ws->lock);
            r = 2;
        } else if (ws->fd < 0) { /* TLS: encrypted through the stream, blocking rules */
            r = tachy__ws_write_encoded_locked(ws, j->frame, j->len);
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
                    tachy__ws_die_locked(ws, TACHY_ENOMEM);
                    pthread_mutex_unlock(&ws->lock);
                    j->st.failed++;
                }
                free(skip);
                free(w);
                return;
            }
            start = tachy__now_ms();
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
                tachy__ws_die_locked(w[k].ws, TACHY_ENOMEM);
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
    uint8_t small[TACHY__WS_SMALL_FRAME];
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

