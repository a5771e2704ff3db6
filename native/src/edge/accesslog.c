/*
 * edge/accesslog.c - the access log (tachy/accesslog.h): lines formatted on the exchange's
 * thread into a bounded ring, written by one thread per server.
 *
 * The ring is a bounded multi-producer queue of fixed 1 KiB slots (Dmitry Vyukov's
 * sequence-numbered design): slot i's sequence number says whose turn it is. A producer
 * reads the head ticket, and if that slot's sequence equals the ticket the slot is free for
 * it: it takes the ticket with one compare-and-swap, formats the line straight into the
 * slot (no copy, no allocation) and publishes it by storing ticket + 1 (release). A
 * sequence below the ticket means the writer has not freed the slot yet: the ring is full,
 * and the line is dropped and counted - a producer never waits. The single consumer (the
 * writer) takes published slots in ticket order and gives each back by storing ticket +
 * capacity, its next lap's turn. A producer preempted between its ticket and its publish
 * holds up only the writer, at that slot, until its next pass.
 *
 * Why not a mutex and a shared buffer: every request would take the lock, and a writer
 * stuck in write(2) on a slow disk would hold requests up; here the request path costs a
 * CAS and the formatting, and a slow disk only fills the ring. Why fixed slots rather than
 * variable-length records: a slot is claimed before its line is formatted, so the line is
 * written once, in place; the price is the 1 KiB cap per line (rarely reached: the quoted
 * fields are cut to fit, marked "...").
 *
 * The writer sleeps on an eventfd with a 100 ms timeout; a producer writes the eventfd only
 * when the writer is asleep and a quarter of the ring is waiting (one syscall per quarter,
 * not per line). tachy_access_log_reopen sets a flag and writes the same eventfd, both
 * async-signal-safe, so a SIGHUP handler may call it; the writer reopens the path between
 * two batches, so every line lands in the old file or the new one.
 */
#include "edge/edge.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <tachy/accesslog.h>
#include <tachy/exchange.h>
#include <tachy/headers.h>
#include <time.h>
#include <unistd.h>

#define SLOT_BYTES 1024
#define MAX_LINES (1 << 20)
#define TICK_MS 100
#define BATCH 256 /* lines taken from the ring at a time */
/* The file's write buffer: lines are copied into it (hot, cheap) and written in 64 KiB
 * writes - about 900 lines a system call, where a writev of the slots themselves would
 * carry one segment per line and 256 lines at most. */
#define WBUF_BYTES (64 * 1024)

typedef struct slot {
    atomic_uint_fast64_t seq;
    uint32_t len; /* the line's bytes, its '\n' included */
    char line[SLOT_BYTES - sizeof(atomic_uint_fast64_t) - sizeof(uint32_t)];
} slot;
_Static_assert(sizeof(slot) == SLOT_BYTES, "a slot is 1 KiB: slots never share a cache line");

struct tachy__alog {
    tachy_server *srv;
    slot *ring;
    uint64_t mask;     /* capacity - 1 */
    uint64_t wake_at;  /* lines waiting that make a producer wake the writer */
    int combined;
    int efd;           /* eventfd: wake the writer (a quarter full, reopen, stop) */
    int fd;            /* the file, or -1 (callback sink); the writer's (reopen_now) */
    char *wbuf;        /* the file's write buffer (WBUF_BYTES), the writer's */
    size_t wlen;
    int file;          /* a file sink (fixed at start: what tachy_access_log_reopen reads) */
    pthread_t thread;
    _Alignas(64) atomic_uint_fast64_t head; /* the next ticket (producers) */
    _Alignas(64) atomic_uint_fast64_t tail; /* the next ticket the writer takes (writer) */
    atomic_uint_fast64_t done; /* tickets below it are in the sink (written, or called) */
    atomic_int sleeping; /* the writer is (about to be) in poll */
    atomic_int reopen;
    atomic_int stop;
};

/* ---- formatting (the exchange's thread) ------------------------------------------------- */

static const char months[12][4] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                   "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

/* "[05/Dec/2026:04:37:12 +0000]", the local time; made once a second per thread. */
static const char *clf_date(size_t *len) {
    static __thread time_t sec = -1;
    static __thread char text[40];
    static __thread size_t tlen;
    time_t now = time(NULL);
    if (now != sec) {
        struct tm tm;
        localtime_r(&now, &tm);
        long off = tm.tm_gmtoff / 60;
        char sign = off < 0 ? '-' : '+';
        if (off < 0)
            off = -off;
        int n = snprintf(text, sizeof text, "[%02d/%s/%04d:%02d:%02d:%02d %c%02ld%02ld]",
                         tm.tm_mday, months[tm.tm_mon % 12], tm.tm_year + 1900, tm.tm_hour,
                         tm.tm_min, tm.tm_sec, sign, (off / 60) % 100, off % 60);
        tlen = n > 0 && (size_t)n < sizeof text ? (size_t)n : 0;
        sec = now;
    }
    *len = tlen;
    return text;
}

/* Bytes written as \xHH in a quoted field: controls, DEL and above (not ASCII), '"', '\'. */
static const unsigned char escaped[256] = {
    [0 ... 0x1f] = 1, ['"'] = 1, ['\\'] = 1, [0x7f ... 0xff] = 1,
};

static int needs_escape(unsigned char c) { return escaped[c]; }

/* 1 when s[0,n) is there and needs no escape. */
static int plain(const char *s, size_t n) {
    if (!s)
        return 0;
    unsigned char any = 0;
    for (size_t i = 0; i < n; i++)
        any |= escaped[(unsigned char)s[i]];
    return !any;
}

/* The length of s[0,n) escaped. */
static size_t esc_len(const char *s, size_t n) {
    size_t e = n;
    for (size_t i = 0; i < n; i++)
        if (needs_escape((unsigned char)s[i]))
            e += 3;
    return e;
}

/* A bounded writer for a quoted field: bytes go up to lim; a field that does not fit is
 * cut at a whole escape and marked "..." (lim stops 3 bytes short of the field's budget). */
typedef struct wr {
    char *p, *lim;
    int cut;
} wr;

static void esc_put(wr *w, const char *s, size_t n) {
    static const char hex[] = "0123456789ABCDEF";
    for (size_t i = 0; i < n && !w->cut; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!needs_escape(c)) {
            /* A run of plain bytes (the whole field, as a rule): one copy. */
            size_t j = i + 1;
            while (j < n && !needs_escape((unsigned char)s[j]))
                j++;
            size_t run = j - i, room = (size_t)(w->lim - w->p);
            if (run > room) {
                run = room;
                w->cut = 1;
            }
            memcpy(w->p, s + i, run);
            w->p += run;
            i = j - 1;
        } else {
            if (w->lim - w->p < 4) {
                w->cut = 1;
                break;
            }
            w->p[0] = '\\';
            w->p[1] = 'x';
            w->p[2] = hex[c >> 4];
            w->p[3] = hex[c & 15];
            w->p += 4;
        }
    }
}

/* Starts a field of at most budget bytes (>= 3) at p, for a value of want bytes escaped:
 * one that fits needs no room kept for the "...". */
static wr field(char *p, size_t want, size_t budget) {
    wr w = {p, want <= budget ? p + budget : p + budget - 3, 0};
    return w;
}

static char *field_end(wr *w) {
    if (w->cut) {
        memcpy(w->p, "...", 3);
        w->p += 3;
    }
    return w->p;
}

static char *put(char *p, const char *s, size_t n) {
    memcpy(p, s, n);
    return p + n;
}

/* v in decimal (snprintf costs ~700 instructions a call: a third of a line). */
static char *put_u64(char *p, uint64_t v) {
    char tmp[20];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *p++ = tmp[--n];
    return p;
}

/* The quoted field of a header value: "-" when absent. */
static char *quoted(char *p, const char *v, size_t vlen, size_t want, size_t budget) {
    *p++ = '"';
    if (!v) {
        *p++ = '-';
    } else {
        wr w = field(p, want, budget);
        esc_put(&w, v, vlen);
        p = field_end(&w);
    }
    *p++ = '"';
    return p;
}

/* One line, its '\n' included, into buf (SLOT line bytes); returns its length. Every field
 * is bounded: the prefix takes at most ~170 bytes, the tail 30, and the quoted fields share
 * the rest. */
static size_t format(const tachy__alog *a, tachy_exchange *ex, int code, char *buf, size_t cap) {
    char *p = buf;
    char host[64];
    if (tachy_exchange_remote_address(ex, host, sizeof host, NULL) < 0)
        strcpy(host, "-");
    p = put(p, host, strlen(host));
    p = put(p, " - ", 3);
    const char *user = tachy_exchange_principal_user(ex);
    if (user && *user) {
        size_t ulen = strlen(user);
        wr w = field(p, esc_len(user, ulen), 64);
        esc_put(&w, user, ulen);
        p = field_end(&w);
    } else {
        *p++ = '-';
    }
    *p++ = ' ';
    size_t dlen;
    const char *date = clf_date(&dlen);
    p = put(p, date, dlen);
    p = put(p, " \"", 2);

    const char *m = tachy_exchange_request_method(ex), *u = tachy_exchange_request_uri(ex),
               *pr = tachy_exchange_protocol(ex);
    size_t ml = m ? strlen(m) : 0, ul = u ? strlen(u) : 0, pl = pr ? strlen(pr) : 0;
    const char *ref = NULL, *ua = NULL;
    size_t refl = 0, ual = 0;
    /* The tail: '" ' status ' ' bytes (20 digits at most) '\n', and the few bytes the
     * 3-byte floor of the combined fields' budgets may add. */
    size_t room = (size_t)(buf + cap - p) - 40;
    /* What the request line needs escaped. The Common format's fast path: when even 4 bytes
     * per byte would fit (nearly always), the exact count is not needed - 0 says "fits". */
    size_t want_rl = 0;
    if (a->combined || 4 * (ml + ul + pl + 2) > room)
        want_rl = esc_len(m ? m : "", ml) + esc_len(u ? u : "", ul) + esc_len(pr ? pr : "", pl) + 2;
    size_t rl_budget = room, ref_budget = 0, ua_budget = 0, want_ref = 1, want_ua = 1;
    if (a->combined) {
        tachy_headers *h = tachy_exchange_request_headers(ex);
        ref = h ? tachy_headers_first(h, "Referer") : NULL;
        ua = h ? tachy_headers_first(h, "User-Agent") : NULL;
        refl = ref ? strlen(ref) : 0;
        ual = ua ? strlen(ua) : 0;
        room -= 6; /* ' "' '" "' '"' around the two */
        want_ref = ref ? esc_len(ref, refl) : 1;
        want_ua = ua ? esc_len(ua, ual) : 1;
        /* Each header gets up to a quarter of the room; the request line what is left;
         * what the request line does not need goes back to the User-Agent, then the
         * Referer. */
        ref_budget = TACHY__MIN(want_ref, room / 4);
        ua_budget = TACHY__MIN(want_ua, room / 4);
        rl_budget = room - ref_budget - ua_budget;
        if (want_rl < rl_budget) {
            size_t spare = rl_budget - want_rl;
            size_t more = TACHY__MIN(spare, want_ua - ua_budget);
            ua_budget += more;
            spare -= more;
            ref_budget += TACHY__MIN(spare, want_ref - ref_budget);
            rl_budget = want_rl;
        }
        if (ref_budget < 3)
            ref_budget = 3;
        if (ua_budget < 3)
            ua_budget = 3;
        if (rl_budget < 3)
            rl_budget = 3;
    }
    if (want_rl == 0 && plain(m, ml) && plain(u, ul) && plain(pr, pl)) {
        /* The usual request line: nothing to escape, room for all of it. */
        p = put(p, m, ml);
        *p++ = ' ';
        p = put(p, u, ul);
        *p++ = ' ';
        p = put(p, pr, pl);
    } else {
        wr w = field(p, want_rl, rl_budget);
        esc_put(&w, m ? m : "", ml);
        esc_put(&w, " ", 1);
        esc_put(&w, u ? u : "", ul);
        esc_put(&w, " ", 1);
        esc_put(&w, pr ? pr : "", pl);
        p = field_end(&w);
    }
    p = put(p, "\" ", 2);
    if (code >= 100 && code <= 999)
        p = put_u64(p, (uint64_t)code);
    else
        *p++ = '-';
    *p++ = ' ';
    int64_t bytes = tachy_exchange_response_bytes(ex);
    if (bytes > 0)
        p = put_u64(p, (uint64_t)bytes);
    else
        *p++ = '-';
    if (a->combined) {
        *p++ = ' ';
        p = quoted(p, ref, refl, want_ref, ref_budget);
        *p++ = ' ';
        p = quoted(p, ua, ual, want_ua, ua_budget);
    }
    *p++ = '\n';
    return (size_t)(p - buf);
}

/* ---- the producer side --------------------------------------------------------------- */

void tachy__alog_line(tachy__alog *a, tachy_exchange *ex, int code) {
    uint64_t pos = atomic_load_explicit(&a->head, memory_order_relaxed);
    slot *s;
    for (;;) {
        s = &a->ring[pos & a->mask];
        uint64_t seq = atomic_load_explicit(&s->seq, memory_order_acquire);
        int64_t diff = (int64_t)(seq - pos);
        if (diff == 0) {
            if (atomic_compare_exchange_weak_explicit(&a->head, &pos, pos + 1,
                                                      memory_order_relaxed, memory_order_relaxed))
                break;
        } else if (diff < 0) {
            /* The writer has not freed this slot: the ring is full. */
            atomic_fetch_add_explicit(&a->srv->st_alog_dropped, 1, memory_order_relaxed);
            return;
        } else {
            pos = atomic_load_explicit(&a->head, memory_order_relaxed);
        }
    }
    s->len = (uint32_t)format(a, ex, code, s->line, sizeof s->line);
    atomic_store_explicit(&s->seq, pos + 1, memory_order_release);
    /* Wake a sleeping writer once a quarter of the ring waits (else its tick takes them). */
    uint64_t waiting = pos + 1 - atomic_load_explicit(&a->tail, memory_order_relaxed);
    if (waiting >= a->wake_at && atomic_load_explicit(&a->sleeping, memory_order_relaxed) &&
        atomic_exchange(&a->sleeping, 0)) {
        uint64_t one = 1;
        ssize_t r = write(a->efd, &one, sizeof one);
        (void)r; /* a full counter (never: the writer reads it) still wakes the writer */
    }
}

/* ---- the writer ---------------------------------------------------------------------- */

static int open_path(const char *path) {
    return open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
}

/* Writes the buffered lines (all of them, across partial writes); on an error they are
 * counted as dropped. Writer thread. */
static void flush_file(tachy__alog *a) {
    size_t off = 0;
    while (off < a->wlen) {
        ssize_t w = a->fd >= 0 ? write(a->fd, a->wbuf + off, a->wlen - off) : -1;
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            uint64_t lost = 0;
            for (size_t i = off; i < a->wlen; i++)
                lost += a->wbuf[i] == '\n';
            atomic_fetch_add_explicit(&a->srv->st_alog_dropped, lost, memory_order_relaxed);
            break;
        }
        off += (size_t)w;
    }
    a->wlen = 0;
}

/* Takes every published line (in batches) to the sink; a file's lines are written before
 * it returns. Writer thread. */
static void drain(tachy__alog *a) {
    tachy_server *srv = a->srv;
    for (;;) {
        uint64_t pos = atomic_load_explicit(&a->tail, memory_order_relaxed);
        int n = 0;
        for (; n < BATCH; n++) {
            slot *s = &a->ring[(pos + (uint64_t)n) & a->mask];
            if (atomic_load_explicit(&s->seq, memory_order_acquire) != pos + (uint64_t)n + 1)
                break;
            if (srv->opt.access_log_fn) {
                s->line[s->len - 1] = '\0';
                srv->opt.access_log_fn(srv->opt.access_log_user, s->line, s->len - 1);
            } else {
                if (a->wlen + s->len > WBUF_BYTES)
                    flush_file(a);
                memcpy(a->wbuf + a->wlen, s->line, s->len);
                a->wlen += s->len;
            }
        }
        if (n == 0) {
            if (a->wlen)
                flush_file(a);
            /* Every line taken is in the sink now (what tachy__alog_flush waits for). */
            atomic_store_explicit(&a->done, pos, memory_order_release);
            return;
        }
        for (int i = 0; i < n; i++)
            atomic_store_explicit(&a->ring[(pos + (uint64_t)i) & a->mask].seq,
                                  pos + (uint64_t)i + a->mask + 1, memory_order_release);
        atomic_store_explicit(&a->tail, pos + (uint64_t)n, memory_order_relaxed);
    }
}

static void reopen_now(tachy__alog *a) {
    if (a->fd < 0 || !a->srv->opt.access_log)
        return;
    int fd = open_path(a->srv->opt.access_log);
    if (fd < 0) {
        tachy__log(a->srv, TACHY_LOG_WARNING, "access log: cannot reopen %s: %s (kept the old file)",
                   a->srv->opt.access_log, strerror(errno));
        return;
    }
    close(a->fd);
    a->fd = fd;
}

static int ready(tachy__alog *a) {
    uint64_t pos = atomic_load_explicit(&a->tail, memory_order_relaxed);
    return atomic_load_explicit(&a->ring[pos & a->mask].seq, memory_order_acquire) == pos + 1;
}

static void *writer_main(void *arg) {
    tachy__alog *a = arg;
    tachy_server *srv = a->srv;
    /* Signals go to the application's threads, not this one. */
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    pthread_setname_np(pthread_self(), "tachy-accesslog");
    if (srv->opt.on_thread_start)
        srv->opt.on_thread_start(srv->opt.thread_hook_user, "tachy-accesslog");
    for (;;) {
        drain(a);
        /* Between two batches: every line queued before the reopen is in the old file. */
        if (atomic_exchange(&a->reopen, 0))
            reopen_now(a);
        if (atomic_load(&a->stop)) {
            drain(a);
            break;
        }
        atomic_store(&a->sleeping, 1);
        if (ready(a) || atomic_load(&a->reopen) || atomic_load(&a->stop)) {
            atomic_store(&a->sleeping, 0);
            continue;
        }
        struct pollfd pfd = {a->efd, POLLIN, 0};
        if (poll(&pfd, 1, TICK_MS) > 0) {
            uint64_t v;
            ssize_t r = read(a->efd, &v, sizeof v);
            (void)r;
        }
        atomic_store(&a->sleeping, 0);
    }
    if (srv->opt.on_thread_stop)
        srv->opt.on_thread_stop(srv->opt.thread_hook_user);
    return NULL;
}

/* ---- lifecycle ------------------------------------------------------------------------ */

static void alog_destroy(tachy__alog *a) {
    if (a->efd >= 0)
        close(a->efd);
    if (a->fd >= 0)
        close(a->fd);
    free(a->ring);
    free(a->wbuf);
    free(a);
}

/* srv->alog_free: the last reference to the server is going, so no thread can queue a
 * line any more: the writer takes what is left (a handler that outlived tachy_server_stop
 * logs too, on the writer thread like every line) and exits. */
static void alog_free(tachy_server *srv) {
    tachy__alog *a = srv->alog;
    if (!a)
        return;
    atomic_store(&a->stop, 1);
    uint64_t one = 1;
    ssize_t r = write(a->efd, &one, sizeof one);
    (void)r;
    pthread_join(a->thread, NULL);
    alog_destroy(a);
    srv->alog = NULL;
}

int tachy__alog_start(tachy_server *srv) {
    if (srv->alog || (!srv->opt.access_log && !srv->opt.access_log_fn))
        return 0;
    tachy__alog *a = calloc(1, sizeof *a);
    if (!a)
        return TACHY_ENOMEM;
    a->srv = srv;
    a->fd = a->efd = -1;
    a->combined = srv->opt.access_log_format == TACHY_ACCESS_LOG_COMBINED;
    uint64_t cap = 1;
    uint64_t want = (uint64_t)TACHY__MIN(srv->opt.access_log_lines, MAX_LINES);
    while (cap < want)
        cap <<= 1;
    a->mask = cap - 1;
    a->wake_at = cap / 4 ? cap / 4 : 1;
    a->ring = aligned_alloc(64, cap * sizeof(slot));
    a->wbuf = srv->opt.access_log_fn ? NULL : malloc(WBUF_BYTES);
    int rc = a->ring && (srv->opt.access_log_fn || a->wbuf) ? 0 : TACHY_ENOMEM;
    if (rc == 0) {
        for (uint64_t i = 0; i < cap; i++)
            atomic_init(&a->ring[i].seq, i);
        a->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (a->efd < 0)
            rc = errno == EMFILE || errno == ENFILE || errno == ENOMEM ? TACHY_ENOMEM : TACHY_ESYS;
    }
    if (rc == 0 && !srv->opt.access_log_fn) {
        a->file = 1;
        a->fd = open_path(srv->opt.access_log);
        if (a->fd < 0) {
            rc = TACHY_ENOFILE;
            tachy__log(srv, TACHY_LOG_ERROR, "access log: cannot open %s: %s",
                       srv->opt.access_log, strerror(errno));
        }
    }
    if (rc == 0 && pthread_create(&a->thread, NULL, writer_main, a) != 0)
        rc = TACHY_ESYS;
    if (rc < 0) {
        alog_destroy(a);
        return rc;
    }
    srv->alog = a;
    srv->alog_free = alog_free;
    return 0;
}

void tachy__alog_flush(tachy_server *srv, long timeout_ms) {
    tachy__alog *a = srv->alog;
    if (!a)
        return;
    uint64_t target = atomic_load(&a->head);
    uint64_t one = 1;
    ssize_t r = write(a->efd, &one, sizeof one);
    (void)r;
    /* A line ticketed but not yet published (its thread is still formatting it, or was not
     * waited for by the stop) holds the tail back: bounded by timeout_ms. */
    long t0 = tachy__now_ms();
    while (atomic_load_explicit(&a->done, memory_order_acquire) < target &&
           tachy__now_ms() - t0 < timeout_ms) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
}

/* ---- public ---------------------------------------------------------------------------- */

TACHY_API int tachy_access_log_reopen(tachy_server *srv) {
    if (!srv)
        return TACHY_EINVAL;
    tachy__alog *a = srv->alog;
    if (!a || !a->file)
        return 0;
    int saved = errno; /* a signal handler must leave errno as it found it */
    atomic_store(&a->reopen, 1);
    uint64_t one = 1;
    ssize_t r = write(a->efd, &one, sizeof one);
    (void)r;
    errno = saved;
    return 0;
}

TACHY_API uint64_t tachy_access_log_dropped(const tachy_server *srv) {
    return srv ? atomic_load_explicit(&((tachy_server *)srv)->st_alog_dropped,
                                      memory_order_relaxed)
               : 0;
}
