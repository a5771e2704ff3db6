/*
 * paced - an open-loop (paced) HTTP/1.1 load generator for the tachy benchmark
 * (bench/paced.sh, bench/README.md "Latency at a fixed rate").
 *
 *   paced -p PORT [-a ADDR] [-c CONNS] [-r RATE] [-d SECONDS] [-w WARMUP_S] [-u PATH]
 *         [-H 'Name: value']... [-t TIMEOUT_S] [-s SPIN_US] [-q] [-S SLOW_FILE [-T SLOW_US]]
 *
 * CONNS keep-alive connections (default 64) share RATE requests per second (default 1000):
 * each connection has its own constant schedule, one request every CONNS / RATE seconds,
 * the connections' phases spread evenly so that the sum is a request every 1 / RATE s.
 * One request at a time per connection (no pipelining): when a response is late, the next
 * request of that connection goes out as soon as it arrives, and its latency is still
 * counted from its *intended* send time - the schedule's, not the moment the client could
 * send - so a server that stalls is charged for every request it delayed (no coordinated
 * omission; the method of wrk2).
 *
 * The schedule runs from the start; the first WARMUP_S seconds (default 0) are not
 * measured; measured are the requests whose intended send time falls in the following
 * SECONDS (default 10). When that window ends, nothing new is sent; responses still on
 * the way are awaited up to TIMEOUT_S (default 2 s) and then counted as timeouts.
 * Intended sends of the window that never went out (their connection was still waiting)
 * are counted as "missed": with them, the achieved rate shows a server (or a client)
 * that cannot keep up.
 *
 * Counted, never hidden: connect / read / write / parse errors, timeouts, non-2xx,
 * connections the server closed (with or without a request on them) and the reconnects
 * that replaced them. A response that says "Connection: close" is counted as a close too.
 *
 * Latency histogram: log-linear buckets as HdrHistogram's (values in ns; 128 linear
 * sub-buckets per power of two, i.e. within 0.8 %); percentiles are each bucket's highest
 * value, as HdrHistogram reports them. A second histogram, "lag", holds how late each
 * request actually left (actual send - intended), inside the latency: a connection whose
 * response came late sends late too. A third, "own lag", holds only the sends of connections
 * that were idle and waiting for their time: late only because the client itself was (its
 * own delay, preempted or busy), which says when the client rather than the server is the
 * limit.
 *
 * Output: "PACED-WINDOW start" and "PACED-WINDOW end" when the measured window starts and
 * ends (flushed at once: a driver reads the server's CPU time then), human-readable lines,
 * then one line
 *   PACED key=value key=value ...
 * for bench/lib/paced.py (latencies in µs; client_cpu_us_per_req = this process's own
 * utime+stime over the measured requests; client_work_us_per_req = the same less the empty
 * spins (-s), so 1e6 / it is the client's ceiling on one core).
 *
 * Lean by design (it must go well past wrk2's ~110-120k req/s on one core here): one
 * pre-built request, one send() per request, one recv() per readiness (level-triggered,
 * EPOLLIN stays armed: no epoll_ctl per request), a batch of events per epoll_pwait2 with
 * a nanosecond timeout and a 1 ns timer slack (but when the next send is due within SPIN_US,
 * default 20, it polls instead: a sleep and its wake-up cost more than that here), a binary heap of the connections' next
 * intended times. Single thread; bench/paced.sh pins it with taskset.
 * Build: cc -O2 -o paced bench/paced.c  (bench/paced.sh does it into bench/build/).
 * Only ADDR (127.0.0.1) is contacted; everything is bounded by -w + -d + -t.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* ---- histogram: HdrHistogram-style log-linear buckets over ns ---------------------------- */
#define SUB_BITS 8                       /* 256 values below 256 ns, then 128 per octave */
#define HALF (1 << (SUB_BITS - 1))       /* 128 */
#define NBUCKETS ((64 - SUB_BITS + 1) * HALF + HALF)
typedef struct {
    uint64_t b[NBUCKETS];
    uint64_t n, max;
    double sum;
} hist;

static int bucket_of(uint64_t v) {
    if (v < (1u << SUB_BITS))
        return (int)v;
    int shift = 63 - __builtin_clzll(v) - (SUB_BITS - 1); /* v >> shift in [128, 255] */
    return (shift + 1) * HALF + (int)((v >> shift) - HALF);
}
/* the highest value that lands in bucket i (HdrHistogram's "highest equivalent value") */
static uint64_t bucket_top(int i) {
    if (i < (1 << SUB_BITS))
        return (uint64_t)i;
    int shift = i / HALF - 1;
    uint64_t sub = (uint64_t)(i % HALF + HALF);
    return ((sub + 1) << shift) - 1;
}
static inline void hist_add(hist *h, int64_t ns) {
    uint64_t v = ns < 0 ? 0 : (uint64_t)ns;
    h->b[bucket_of(v)]++;
    h->n++;
    h->sum += (double)v;
    if (v > h->max)
        h->max = v;
}
/* the value at percentile p (0-100) in µs; 0 when empty */
static double hist_pct_us(const hist *h, double p) {
    if (!h->n)
        return 0;
    uint64_t rank = (uint64_t)(p / 100.0 * (double)h->n + 0.5), acc = 0;
    if (rank < 1)
        rank = 1;
    for (int i = 0; i < NBUCKETS; i++) {
        acc += h->b[i];
        if (acc >= rank) {
            uint64_t t = bucket_top(i);
            return (double)(t < h->max ? t : h->max) / 1000.0;
        }
    }
    return (double)h->max / 1000.0;
}
static double hist_mean_us(const hist *h) { return h->n ? h->sum / (double)h->n / 1000.0 : 0; }

/* ---- clock ------------------------------------------------------------------------------- */
static inline int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* ---- connections ------------------------------------------------------------------------- */
typedef struct {
    int fd;
    int connecting;   /* nonblocking connect() not yet completed */
    int inflight;     /* a request was sent; its response is awaited */
    int heap_at;      /* index in the heap, -1 when not in it */
    int until_close;  /* the response has neither length nor chunking: its body ends at close */
    int64_t intended; /* intended send time of the request in flight, or of the next one */
    int64_t sent_at;
    size_t rlen, rcap;
    char *rbuf;
    size_t wdone;     /* bytes of the request already written (a partial send, rare) */
} conn;

static conn *g_conns;
static int g_nconns = 64;
static int g_ep;
static struct sockaddr_in g_sa;
static char *g_req;
static size_t g_reqlen;
static int64_t g_interval;          /* ns between two requests of one connection */
static int64_t g_tw, g_tend;        /* measurement window [g_tw, g_tend) of intended times */
static int g_draining;
static int64_t g_spin_ns = 20000;   /* -s: poll instead of sleeping when the next send is closer */
static uint64_t g_resp_in_wall;     /* responses that arrived while the clock was in the window */
/* Time in the window spent in polls that the spin rule made non-blocking and that found
 * nothing: CPU the client burns only because it chose not to sleep. Subtracted from its CPU to
 * give the work per request, whose inverse is its ceiling (with spinning, the core shows 100 %
 * busy from 1 / SPIN_US requests per second on, whatever the load). */
static int64_t g_spin_wall_ns;

/* g_lag: every send's lateness (actual - intended), which includes a connection held back by
 * its late response; g_olag: only the sends of connections that were idle, waiting for their
 * time - late only because the client itself was (its own delay, nothing of the server's). */
static hist g_lat, g_lag, g_olag;

/* -S FILE: the requests of the window slower than -T µs, kept here and written at the end
 * (bounded), with CLOCK_MONOTONIC times so that they can be laid beside a server-side trace
 * (perf sched record -k CLOCK_MONOTONIC, -Xlog with uptimenanos): where a slow one waited. */
typedef struct {
    int64_t intended, sent, done;
    int ci;
} slow_rec;
static slow_rec *g_slow;
static size_t g_nslow, g_slow_cap = 1 << 20;
static uint64_t g_slow_dropped;
static int64_t g_slow_ns = 1000000;
static struct {
    uint64_t ok, non2xx, err_connect, err_read, err_write, err_parse, timeouts, missed;
    uint64_t closes, closes_inflight, reconnects, sent, responses_total, late_sends;
} S;

/* ---- heap of connections by next intended send time --------------------------------------- */
static int *g_heap, g_hn;
static void heap_swap(int i, int j) {
    int a = g_heap[i], b = g_heap[j];
    g_heap[i] = b;
    g_heap[j] = a;
    g_conns[b].heap_at = i;
    g_conns[a].heap_at = j;
}
static void heap_up(int i) {
    while (i > 0) {
        int p = (i - 1) / 2;
        if (g_conns[g_heap[p]].intended <= g_conns[g_heap[i]].intended)
            break;
        heap_swap(i, p);
        i = p;
    }
}
static void heap_down(int i) {
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        if (l < g_hn && g_conns[g_heap[l]].intended < g_conns[g_heap[m]].intended)
            m = l;
        if (r < g_hn && g_conns[g_heap[r]].intended < g_conns[g_heap[m]].intended)
            m = r;
        if (m == i)
            return;
        heap_swap(i, m);
        i = m;
    }
}
static void heap_push(int ci) {
    g_heap[g_hn] = ci;
    g_conns[ci].heap_at = g_hn;
    heap_up(g_hn++);
}
static int heap_pop(void) {
    int ci = g_heap[0];
    g_conns[ci].heap_at = -1;
    if (--g_hn > 0) {
        g_heap[0] = g_heap[g_hn];
        g_conns[g_heap[0]].heap_at = 0;
        heap_down(0);
    }
    return ci;
}

static int in_window(int64_t t) { return t >= g_tw && t < g_tend; }

/* ---- connect / close ------------------------------------------------------------------------ */
static void conn_open(int ci) {
    conn *c = &g_conns[ci];
    c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (c->fd < 0) {
        perror("socket");
        exit(1);
    }
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    c->connecting = 1;
    c->rlen = 0;
    c->until_close = 0;
    if (connect(c->fd, (struct sockaddr *)&g_sa, sizeof g_sa) == 0)
        c->connecting = 0;
    else if (errno != EINPROGRESS) {
        S.err_connect++;
        c->connecting = 0;
        close(c->fd);
        c->fd = -1;
        return;
    }
    struct epoll_event ev = {.events = EPOLLIN | (c->connecting ? EPOLLOUT : 0), .data.u32 = ci};
    if (epoll_ctl(g_ep, EPOLL_CTL_ADD, c->fd, &ev) < 0) {
        perror("epoll_ctl");
        exit(1);
    }
}

/* The next request of c is due at c->intended: into the heap (sent when due). */
static void schedule(int ci) {
    conn *c = &g_conns[ci];
    if (c->heap_at < 0 && c->intended < g_tend && !g_draining)
        heap_push(ci);
}

/* The server closed c (or c failed): count it, drop the request on it, reconnect. */
static void conn_lost(int ci, int by_server) {
    conn *c = &g_conns[ci];
    if (c->fd >= 0) {
        close(c->fd); /* also removes it from the epoll set */
        c->fd = -1;
    }
    if (by_server)
        S.closes++;
    if (c->inflight) {
        c->inflight = 0;
        if (by_server)
            S.closes_inflight++;
        if (in_window(c->intended))
            S.err_read++;
        c->intended += g_interval;
    }
    if (g_draining)
        return;
    S.reconnects++;
    conn_open(ci); /* on failure, conn_send tries again when the next request is due */
    schedule(ci);  /* a connection waiting for its next send stays in the heap as it was */
}

/* ---- send ------------------------------------------------------------------------------------ */
static void conn_send(int ci, int64_t now) {
    conn *c = &g_conns[ci];
    if (c->fd < 0) {
        conn_open(ci);
        if (c->fd < 0) { /* counted by conn_open; this request is lost, the next retries */
            c->intended += g_interval;
            schedule(ci);
            return;
        }
    }
    if (c->connecting)
        return; /* sent from the EPOLLOUT that completes the connect */
    ssize_t n = send(c->fd, g_req, g_reqlen, MSG_NOSIGNAL);
    if (n < 0 && errno != EAGAIN) {
        S.err_write++;
        conn_lost(ci, 0);
        return;
    }
    c->wdone = n < 0 ? 0 : (size_t)n;
    if (c->wdone < g_reqlen) { /* rare: finish from EPOLLOUT */
        struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT, .data.u32 = ci};
        epoll_ctl(g_ep, EPOLL_CTL_MOD, c->fd, &ev);
    }
    c->inflight = 1;
    c->sent_at = now;
    S.sent++;
    if (in_window(c->intended))
        hist_add(&g_lag, now - c->intended);
}

/* ---- response parsing -------------------------------------------------------------------------- */
/* Case-insensitive prefix test of a header line. */
static int hname(const char *p, const char *end, const char *name, size_t len) {
    return (size_t)(end - p) > len && p[len] == ':' && strncasecmp(p, name, len) == 0;
}
static const char *hval(const char *p, size_t len) {
    p += len + 1;
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* Chunked body starting at p: returns the bytes it takes, 0 when incomplete, -1 on garbage. */
static long chunked_len(const char *p, const char *end) {
    const char *q = p;
    for (;;) {
        const char *nl = memmem(q, (size_t)(end - q), "\r\n", 2);
        if (!nl)
            return 0;
        char *e;
        long sz = strtol(q, &e, 16);
        if (e == q || sz < 0)
            return -1;
        q = nl + 2;
        if (sz == 0) { /* trailers, then an empty line */
            for (;;) {
                const char *t = memmem(q, (size_t)(end - q), "\r\n", 2);
                if (!t)
                    return 0;
                if (t == q)
                    return (long)(t + 2 - p);
                q = t + 2;
            }
        }
        if (end - q < sz + 2)
            return 0;
        q += sz + 2;
    }
}

/*
 * One complete response at the start of c->rbuf? Returns its length (and *status, *close),
 * 0 when more bytes are needed, -1 when it is not HTTP. The buffer is NUL-terminated.
 */
static long parse_response(conn *c, int *status, int *close_after) {
    const char *b = c->rbuf, *end = b + c->rlen;
    const char *he = memmem(b, c->rlen, "\r\n\r\n", 4);
    if (!he)
        return c->rlen > 65536 ? -1 : 0;
    if (c->rlen < 12 || memcmp(b, "HTTP/1.", 7) != 0)
        return -1;
    *status = atoi(b + 9);
    *close_after = b[7] == '0'; /* HTTP/1.0 without keep-alive: see below */
    long clen = -1;
    int chunked = 0;
    for (const char *p = memchr(b, '\n', (size_t)(he - b)) + 1; p < he + 2;) {
        const char *nl = memchr(p, '\n', (size_t)(he + 2 - p));
        if (!nl)
            break;
        switch (*p | 0x20) {
        case 'c':
            if (hname(p, nl, "content-length", 14))
                clen = strtol(hval(p, 14), NULL, 10);
            else if (hname(p, nl, "connection", 10)) {
                const char *v = hval(p, 10);
                if (strncasecmp(v, "close", 5) == 0)
                    *close_after = 1;
                else if (strncasecmp(v, "keep-alive", 10) == 0)
                    *close_after = 0;
            }
            break;
        case 't':
            if (hname(p, nl, "transfer-encoding", 17))
                chunked = memmem(p, (size_t)(nl - p), "chunked", 7) != NULL;
            break;
        }
        p = nl + 1;
    }
    const char *body = he + 4;
    if (*status / 100 == 1 || *status == 204 || *status == 304)
        return (long)(body - b); /* no body (a 1xx is skipped by the caller) */
    if (chunked) {
        long n = chunked_len(body, end);
        return n <= 0 ? n : (long)(body - b) + n;
    }
    if (clen >= 0)
        return end - body >= clen ? (long)(body - b) + clen : 0;
    c->until_close = 1; /* RFC 9112 6.3 rule 8: the body ends when the server closes */
    *close_after = 1;
    return 0;
}

static void response_done(int ci, int status, int64_t now) {
    conn *c = &g_conns[ci];
    c->inflight = 0;
    S.responses_total++;
    if (now >= g_tw && now < g_tend)
        g_resp_in_wall++;
    if (in_window(c->intended)) {
        if (status / 100 == 2)
            S.ok++;
        else
            S.non2xx++;
        hist_add(&g_lat, now - c->intended);
        if (g_slow && now - c->intended >= g_slow_ns) {
            if (g_nslow < g_slow_cap)
                g_slow[g_nslow++] = (slow_rec){c->intended, c->sent_at, now, ci};
            else
                g_slow_dropped++;
        }
    }
    c->intended += g_interval;
}

/* EPOLLIN on c: one recv, then every complete response in the buffer. */
static void conn_read(int ci) {
    conn *c = &g_conns[ci];
    if (c->rcap - c->rlen < 2048) {
        c->rcap *= 2;
        c->rbuf = realloc(c->rbuf, c->rcap);
        if (!c->rbuf) {
            perror("realloc");
            exit(1);
        }
    }
    ssize_t n = recv(c->fd, c->rbuf + c->rlen, c->rcap - c->rlen - 1, 0);
    if (n < 0 && errno == EAGAIN)
        return;
    int64_t now = now_ns();
    if (n <= 0) {
        if (c->until_close && c->inflight) { /* a body delimited by the close: complete */
            int st = atoi(c->rbuf + 9);
            response_done(ci, st, now);
            c->until_close = 0;
        } else if (n < 0 && !c->inflight) {
            /* a reset on an idle connection is the server closing it */
        } else if (n < 0 && c->inflight) {
            /* counted by conn_lost as a read error */
        }
        conn_lost(ci, 1);
        return;
    }
    c->rlen += (size_t)n;
    c->rbuf[c->rlen] = 0;
    if (c->until_close)
        return;
    for (;;) {
        int status = 0, close_after = 0;
        long len = parse_response(c, &status, &close_after);
        if (len == 0)
            return;
        if (len < 0 || !c->inflight) { /* garbage, or bytes nobody asked for */
            S.err_parse++;
            c->rlen = 0;
            conn_lost(ci, 0);
            return;
        }
        memmove(c->rbuf, c->rbuf + len, c->rlen - (size_t)len);
        c->rlen -= (size_t)len;
        if (status / 100 == 1)
            continue; /* an interim response: the final one follows */
        response_done(ci, status, now);
        if (close_after) {
            conn_lost(ci, 1);
            return;
        }
        if (c->intended <= now && c->intended < g_tend && !g_draining) {
            S.late_sends++;
            conn_send(ci, now); /* behind its schedule: the next request goes now */
        } else {
            schedule(ci);
        }
        return;
    }
}

/* EPOLLOUT on c: a connect completed, or the rest of a partial request. */
static void conn_writable(int ci, int64_t now) {
    conn *c = &g_conns[ci];
    if (c->connecting) {
        int err = 0;
        socklen_t l = sizeof err;
        getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &l);
        if (err) {
            S.err_connect++;
            close(c->fd);
            c->fd = -1;
            c->connecting = 0;
            if (c->heap_at < 0 && c->intended != INT64_MAX) {
                c->intended += g_interval; /* this one is lost; the next retries */
                schedule(ci);
            }
            return;
        }
        c->connecting = 0;
        struct epoll_event ev = {.events = EPOLLIN, .data.u32 = ci};
        epoll_ctl(g_ep, EPOLL_CTL_MOD, c->fd, &ev);
        if (c->heap_at < 0 && !c->inflight && c->intended <= now && c->intended < g_tend &&
            !g_draining)
            conn_send(ci, now);
        return;
    }
    if (c->inflight && c->wdone < g_reqlen) {
        ssize_t n = send(c->fd, g_req + c->wdone, g_reqlen - c->wdone, MSG_NOSIGNAL);
        if (n < 0 && errno != EAGAIN) {
            S.err_write++;
            conn_lost(ci, 0);
            return;
        }
        if (n > 0)
            c->wdone += (size_t)n;
    }
    if (c->wdone >= g_reqlen) {
        struct epoll_event ev = {.events = EPOLLIN, .data.u32 = ci};
        epoll_ctl(g_ep, EPOLL_CTL_MOD, c->fd, &ev);
    }
}

static int epoll_wait_ns(int ep, struct epoll_event *evs, int n, int64_t timeout_ns) {
#ifdef SYS_epoll_pwait2
    static int have = 1;
    if (have) {
        struct timespec ts = {.tv_sec = timeout_ns / 1000000000, .tv_nsec = timeout_ns % 1000000000};
        long r = syscall(SYS_epoll_pwait2, ep, evs, n, &ts, NULL, 0);
        if (r >= 0 || errno != ENOSYS)
            return (int)r;
        have = 0;
    }
#endif
    return epoll_wait(ep, evs, n, (int)((timeout_ns + 999999) / 1000000));
}

static double cpu_s(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static void usage(void) {
    fprintf(stderr, "usage: paced -p PORT [-a ADDR] [-c CONNS] [-r RATE] [-d SECONDS] [-w WARMUP_S]\n"
                    "             [-u PATH] [-H 'Name: value']... [-t TIMEOUT_S] [-s SPIN_US] [-q]\n"
                    "             [-S SLOW_FILE [-T SLOW_US]]\n");
    exit(2);
}

int main(int argc, char **argv) {
    const char *addr = "127.0.0.1", *path = "/";
    int port = 0, quiet = 0;
    double rate = 1000, dur = 10, warm = 0, tmo = 2;
    char extra[4096] = "";
    const char *slow_path = NULL;
    int o;
    while ((o = getopt(argc, argv, "a:p:c:r:d:w:u:H:t:s:qS:T:")) != -1) {
        switch (o) {
        case 'a': addr = optarg; break;
        case 'p': port = atoi(optarg); break;
        case 'c': g_nconns = atoi(optarg); break;
        case 'r': rate = atof(optarg); break;
        case 'd': dur = atof(optarg); break;
        case 'w': warm = atof(optarg); break;
        case 'u': path = optarg; break;
        case 't': tmo = atof(optarg); break;
        case 's': g_spin_ns = (int64_t)(atof(optarg) * 1000); break;
        case 'q': quiet = 1; break;
        case 'S': slow_path = optarg; break;
        case 'T': g_slow_ns = (int64_t)(atof(optarg) * 1000); break;
        case 'H':
            if (strlen(extra) + strlen(optarg) + 3 >= sizeof extra)
                usage();
            strcat(extra, optarg);
            strcat(extra, "\r\n");
            break;
        default: usage();
        }
    }
    if (port <= 0 || g_nconns <= 0 || rate <= 0 || dur <= 0 || warm < 0 || tmo < 0)
        usage();
    signal(SIGPIPE, SIG_IGN);
    prctl(PR_SET_TIMERSLACK, 1UL); /* sleep to the ns asked, not the default 50 µs later */
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    g_sa.sin_family = AF_INET;
    g_sa.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, addr, &g_sa.sin_addr) != 1)
        usage();
    /* the one request every connection sends, built once */
    g_reqlen = (size_t)asprintf(&g_req, "GET %s HTTP/1.1\r\nHost: %s:%d\r\n%s\r\n", path, addr,
                                port, extra);
    g_interval = (int64_t)((double)g_nconns / rate * 1e9);
    if (g_interval < 1)
        g_interval = 1;

    if (slow_path && !(g_slow = malloc(g_slow_cap * sizeof *g_slow)))
        return perror("malloc"), 1;
    g_ep = epoll_create1(EPOLL_CLOEXEC);
    g_conns = calloc((size_t)g_nconns, sizeof *g_conns);
    g_heap = calloc((size_t)g_nconns, sizeof *g_heap);
    if (g_ep < 0 || !g_conns || !g_heap)
        return perror("setup"), 1;
    /* connect everything first, so that the schedule starts with open connections */
    int64_t t_conn = now_ns();
    for (int i = 0; i < g_nconns; i++) {
        conn *c = &g_conns[i];
        c->heap_at = -1;
        c->rcap = 4096;
        c->rbuf = malloc(c->rcap);
        c->intended = INT64_MAX;
        conn_open(i);
    }
    enum { MAXEV = 1024 };
    static struct epoll_event evs[MAXEV];
    int pending = g_nconns;
    while (pending > 0 && now_ns() - t_conn < 10000000000LL) {
        int n = epoll_wait_ns(g_ep, evs, MAXEV, 100000000);
        for (int i = 0; i < n; i++) {
            conn *c = &g_conns[evs[i].data.u32];
            if (c->connecting && (evs[i].events & (EPOLLOUT | EPOLLERR | EPOLLHUP))) {
                conn_writable((int)evs[i].data.u32, 0);
                pending--;
            }
        }
    }
    int open_at_start = 0;
    for (int i = 0; i < g_nconns; i++)
        open_at_start += g_conns[i].fd >= 0 && !g_conns[i].connecting;
    if (open_at_start == 0) {
        fprintf(stderr, "paced: no connection to %s:%d could be opened\n", addr, port);
        printf("PACED error=connect rate=%.0f conns=%d\n", rate, g_nconns);
        return 1;
    }
    uint64_t connect_errors_at_start = S.err_connect;
    S.err_connect = 0;

    int64_t t0 = now_ns() + 1000000; /* 1 ms from now */
    g_tw = t0 + (int64_t)(warm * 1e9);
    g_tend = g_tw + (int64_t)(dur * 1e9);
    for (int i = 0; i < g_nconns; i++) {
        g_conns[i].intended = t0 + (int64_t)((double)g_interval * i / g_nconns);
        schedule(i);
    }
    double cpu_w = -1;
    int64_t t_drain_end = 0;
    for (;;) {
        int64_t now = now_ns();
        if (cpu_w < 0 && now >= g_tw) {
            cpu_w = cpu_s();
            printf("PACED-WINDOW start\n"); /* bench/lib/paced.py reads the server's CPU here */
            fflush(stdout);
        }
        while (g_hn > 0 && g_conns[g_heap[0]].intended <= now) {
            int ci = heap_pop();
            if (in_window(g_conns[ci].intended))
                hist_add(&g_olag, now - g_conns[ci].intended);
            conn_send(ci, now);
        }
        if (!g_draining && now >= g_tend && g_hn == 0) {
            g_draining = 1;
            t_drain_end = now + (int64_t)(tmo * 1e9);
            printf("PACED-WINDOW end\n"); /* ... and here */
            fflush(stdout);
        }
        if (!g_draining && now >= g_tend) {
            /* whatever is still in the heap is due later than g_tend: never sent */
            while (g_hn > 0)
                heap_pop();
            continue;
        }
        int64_t timeout;
        if (g_draining) {
            int busy = 0;
            for (int i = 0; i < g_nconns && !busy; i++)
                busy = g_conns[i].inflight;
            if (!busy || now >= t_drain_end)
                break;
            timeout = t_drain_end - now;
            if (timeout > 50000000)
                timeout = 50000000;
        } else {
            int64_t next = g_hn > 0 ? g_conns[g_heap[0]].intended : now + 100000000;
            if (next > g_tend)
                next = g_tend;
            timeout = next - now;
            if (timeout < g_spin_ns) /* closer than a sleep and its wake-up cost: just poll */
                timeout = 0;
        }
        int n = epoll_wait_ns(g_ep, evs, MAXEV, timeout);
        if (n == 0 && timeout == 0 && cpu_w >= 0 && !g_draining)
            g_spin_wall_ns += now_ns() - now; /* an empty spin: idle, not work */
        if (n < 0 && errno != EINTR) {
            perror("epoll_wait");
            return 1;
        }
        for (int i = 0; i < n; i++) {
            int ci = (int)evs[i].data.u32;
            conn *c = &g_conns[ci];
            if (c->fd < 0)
                continue;
            if (evs[i].events & EPOLLOUT)
                conn_writable(ci, now_ns());
            if (c->fd >= 0 && !c->connecting && (evs[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP)))
                conn_read(ci);
        }
    }
    double cpu_used = cpu_s() - (cpu_w < 0 ? cpu_s() : cpu_w);
    /* what did not come back in time, and what was due but never sent */
    for (int i = 0; i < g_nconns; i++) {
        conn *c = &g_conns[i];
        if (c->inflight) {
            if (in_window(c->intended))
                S.timeouts++;
            c->intended += g_interval;
        }
        for (int64_t t = c->intended; t < g_tend; t += g_interval)
            if (t >= g_tw)
                S.missed++;
    }
    if (slow_path) {
        FILE *f = fopen(slow_path, "w");
        if (!f)
            return perror(slow_path), 1;
        fprintf(f, "# requests slower than %.0f us (%llu not kept); CLOCK_MONOTONIC ns: "
                   "conn intended sent done latency_us server_us(done-sent)\n",
                (double)g_slow_ns / 1000, (unsigned long long)g_slow_dropped);
        for (size_t i = 0; i < g_nslow; i++) {
            const slow_rec *r = &g_slow[i];
            fprintf(f, "%d %lld %lld %lld %.1f %.1f\n", r->ci, (long long)r->intended,
                    (long long)r->sent, (long long)r->done, (double)(r->done - r->intended) / 1000,
                    (double)(r->done - r->sent) / 1000);
        }
        fclose(f);
    }
    double win = (double)(g_tend - g_tw) / 1e9;
    uint64_t asked = 0; /* intended send times in the window, counted from the schedule */
    for (int i = 0; i < g_nconns; i++) {
        int64_t ph = t0 + (int64_t)((double)g_interval * i / g_nconns);
        int64_t k0 = ph >= g_tw ? 0 : (g_tw - ph + g_interval - 1) / g_interval;
        int64_t k1 = ph >= g_tend ? 0 : (g_tend - ph + g_interval - 1) / g_interval;
        asked += (uint64_t)(k1 > k0 ? k1 - k0 : 0);
    }
    uint64_t done = S.ok + S.non2xx;
    uint64_t errors = S.err_connect + S.err_read + S.err_write + S.err_parse + S.timeouts;
    double achieved = (double)done / win;
    double cpu_per = done ? cpu_used * 1e6 / (double)done : 0;
    double spin_s = (double)g_spin_wall_ns / 1e9;
    if (spin_s > cpu_used)
        spin_s = cpu_used; /* wall time of a spin can include a preemption: not our CPU */
    double work_per = done ? (cpu_used - spin_s) * 1e6 / (double)done : 0;
    if (!quiet) {
        printf("paced: %s:%d%s, %d connections (%d open at start, %llu connect errors), "
               "%.0f req/s asked (one per %.3f ms per connection), %.1f s measured after %.1f s\n",
               addr, port, path, g_nconns, open_at_start,
               (unsigned long long)connect_errors_at_start, rate, (double)g_interval / 1e6, win,
               warm);
        printf("  requests: %llu answered of %llu asked (%.1f req/s achieved, %.2f %%), "
               "%llu non-2xx, %llu missed (due, never sent); %.1f responses/s in the window\n",
               (unsigned long long)done, (unsigned long long)asked, achieved,
               asked ? 100.0 * (double)done / (double)asked : 0, (unsigned long long)S.non2xx,
               (unsigned long long)S.missed, (double)g_resp_in_wall / win);
        printf("  latency from the intended send time: mean %.0f us, p50 %.0f, p90 %.0f, p99 %.0f, "
               "p99.9 %.0f, p99.99 %.0f, max %.0f us\n",
               hist_mean_us(&g_lat), hist_pct_us(&g_lat, 50), hist_pct_us(&g_lat, 90),
               hist_pct_us(&g_lat, 99), hist_pct_us(&g_lat, 99.9), hist_pct_us(&g_lat, 99.99),
               (double)g_lat.max / 1000);
        printf("  send lag (inside the latency): mean %.1f us, p50 %.1f, p99 %.1f, max %.0f us; "
               "%llu sends behind schedule (their response came late); the client's own delay "
               "(sends of idle connections): p99 %.1f, max %.0f us\n",
               hist_mean_us(&g_lag), hist_pct_us(&g_lag, 50), hist_pct_us(&g_lag, 99),
               (double)g_lag.max / 1000, (unsigned long long)S.late_sends,
               hist_pct_us(&g_olag, 99), (double)g_olag.max / 1000);
        printf("  errors: %llu (connect %llu, read %llu, write %llu, parse %llu, timeout %llu); "
               "server closes %llu (%llu with a request on them), reconnects %llu\n",
               (unsigned long long)errors, (unsigned long long)S.err_connect,
               (unsigned long long)S.err_read, (unsigned long long)S.err_write,
               (unsigned long long)S.err_parse, (unsigned long long)S.timeouts,
               (unsigned long long)S.closes, (unsigned long long)S.closes_inflight,
               (unsigned long long)S.reconnects);
        printf("  client CPU: %.3f s over the window, %.2f us per request (%.0f %% of one core); "
               "%.3f s of it empty spins, so %.2f us of work per request (%.0f %% of one core: "
               "ceiling ~%.0f req/s)\n",
               cpu_used, cpu_per, 100 * cpu_used / win, spin_s, work_per,
               100 * (cpu_used - spin_s) / win, work_per > 0 ? 1e6 / work_per : 0);
    }
    printf("PACED rate=%.0f achieved=%.1f conns=%d open=%d seconds=%.2f asked=%llu requests=%llu "
           "ok=%llu non2xx=%llu errors=%llu connect_errors=%llu read_errors=%llu write_errors=%llu "
           "parse_errors=%llu timeouts=%llu missed=%llu closes=%llu closes_inflight=%llu "
           "reconnects=%llu mean_us=%.1f p50_us=%.1f p90_us=%.1f p99_us=%.1f p999_us=%.1f "
           "p9999_us=%.1f max_us=%.1f lag_p50_us=%.1f lag_p99_us=%.1f lag_max_us=%.1f "
           "late_sends=%llu client_cpu_s=%.3f client_cpu_us_per_req=%.3f resp_per_s=%.1f "
           "client_spin_s=%.3f client_work_us_per_req=%.3f own_lag_p99_us=%.1f own_lag_max_us=%.1f\n",
           rate, achieved, g_nconns, open_at_start, win, (unsigned long long)asked,
           (unsigned long long)done, (unsigned long long)S.ok, (unsigned long long)S.non2xx,
           (unsigned long long)errors, (unsigned long long)(S.err_connect + connect_errors_at_start),
           (unsigned long long)S.err_read, (unsigned long long)S.err_write,
           (unsigned long long)S.err_parse, (unsigned long long)S.timeouts,
           (unsigned long long)S.missed, (unsigned long long)S.closes,
           (unsigned long long)S.closes_inflight, (unsigned long long)S.reconnects,
           hist_mean_us(&g_lat), hist_pct_us(&g_lat, 50), hist_pct_us(&g_lat, 90),
           hist_pct_us(&g_lat, 99), hist_pct_us(&g_lat, 99.9), hist_pct_us(&g_lat, 99.99),
           (double)g_lat.max / 1000, hist_pct_us(&g_lag, 50), hist_pct_us(&g_lag, 99),
           (double)g_lag.max / 1000, (unsigned long long)S.late_sends, cpu_used, cpu_per,
           (double)g_resp_in_wall / win, spin_s, work_per, hist_pct_us(&g_olag, 99),
           (double)g_olag.max / 1000);
    return 0;
}
