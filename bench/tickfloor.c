/*
 * tickfloor - the floor for the ws-tick10k profile (bench/README.md): the least a server on
 * one core can do to send one WebSocket text frame to each of N TCP connections.
 *
 *   tickfloor [-p PORT] [-b ADDR] [-t TICK_MS] [-m send|uring] [-B BATCH] [-q]
 *
 * One thread, no locks. It accepts connections on ADDR:PORT (127.0.0.1 only by default),
 * answers the WebSocket handshake of GET /tick (any path; RFC 6455 Sec-WebSocket-Accept),
 * and every TICK_MS (default 500; ticks on a fixed schedule, CLOCK_REALTIME absolute) builds
 * ONE frame "<scheduled epoch-ns> tick <seq>" - the protocol of bench/wsload.c tick - and
 * writes it to every open connection:
 *
 *   -m send   a tight loop of send(fd, frame, len, MSG_DONTWAIT | MSG_NOSIGNAL), one
 *             syscall per connection (default)
 *   -m uring  io_uring (raw syscalls, <linux/io_uring.h>): BATCH (default 256) IORING_OP_SEND
 *             SQEs on registered files per io_uring_enter, completions reaped in bulk;
 *             no SQPOLL (a kernel polling thread would run outside the core the server is
 *             pinned to)
 *
 * The time stamp in the frame is the tick's SCHEDULED time, taken once per tick, so the
 * client's latency (kernel receive time stamp - stamp) includes the timer wake-up and the
 * whole fan-out up to that client. A socket whose buffer is full (EAGAIN) misses the tick
 * (counted); a partial write or an error closes the connection (counted).
 *
 * Each tick's fan-out is timed (CLOCK_MONOTONIC around the loop) and, with -q unset, one
 * line per tick goes to stdout; on SIGINT/SIGTERM a summary line
 *   TICKFLOOR {"mode":..,"ticks":..,"sends":..,"ns_per_send_median":..,...}
 * is printed (bench/lib/bench.py reads it from the log). Out of descriptors (EMFILE), the
 * listening socket leaves the epoll set until the next tick (no busy loop; counted as
 * accept_emfile) and the connections wait in the backlog.
 * Build: cc -O2 -o tickfloor bench/tickfloor.c  (bench/run.sh does it into bench/build/).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/io_uring.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

/* ---- SHA-1 (FIPS 180-4), only for Sec-WebSocket-Accept ---------------------------------- */
static uint32_t rol(uint32_t x, int n) { return x << n | x >> (32 - n); }
static void sha1_block(uint32_t h[5], const uint8_t *p) {
    uint32_t w[80];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 |
               p[4 * i + 3];
    for (int i = 16; i < 80; i++)
        w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    for (int i = 0; i < 80; i++) {
        uint32_t f, k;
        if (i < 20) f = (b & c) | (~b & d), k = 0x5A827999;
        else if (i < 40) f = b ^ c ^ d, k = 0x6ED9EBA1;
        else if (i < 60) f = (b & c) | (b & d) | (c & d), k = 0x8F1BBCDC;
        else f = b ^ c ^ d, k = 0xCA62C1D6;
        uint32_t t = rol(a, 5) + f + e + k + w[i];
        e = d, d = c, c = rol(b, 30), b = a, a = t;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e;
}
static void sha1(const void *data, size_t len, uint8_t out[20]) {
    uint32_t h[5] = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
    const uint8_t *p = data;
    size_t n = len;
    for (; n >= 64; n -= 64, p += 64)
        sha1_block(h, p);
    uint8_t t[128] = {0};
    memcpy(t, p, n);
    t[n] = 0x80;
    size_t tl = n + 9 <= 64 ? 64 : 128;
    uint64_t bits = (uint64_t)len * 8;
    for (int i = 0; i < 8; i++)
        t[tl - 1 - i] = (uint8_t)(bits >> (8 * i));
    for (size_t o = 0; o < tl; o += 64)
        sha1_block(h, t + o);
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 4; j++)
            out[4 * i + j] = (uint8_t)(h[i] >> (24 - 8 * j));
}
static void base64(const uint8_t *in, size_t n, char *out) {
    static const char A[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) |
                     (i + 2 < n ? in[i + 2] : 0);
        out[o++] = A[v >> 18 & 63];
        out[o++] = A[v >> 12 & 63];
        out[o++] = i + 1 < n ? A[v >> 6 & 63] : '=';
        out[o++] = i + 2 < n ? A[v & 63] : '=';
    }
    out[o] = 0;
}

/* ---- connections ------------------------------------------------------------------------ */
typedef struct {
    int fd;
    int open;   /* handshake done: receives ticks */
    int idx;    /* position in the open list, -1 if not there */
    size_t hlen;
    char hbuf[2048];
} conn;

static conn **byfd;     /* fd -> conn */
static int *openfds;    /* fds of open connections, in fan-out order */
static int nopen;
static int ep;

static void drop(conn *c) {
    if (c->idx >= 0) { /* swap-remove from the fan-out list */
        int last = openfds[--nopen];
        openfds[c->idx] = last;
        byfd[last]->idx = c->idx;
    }
    epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    byfd[c->fd] = NULL;
    free(c);
}

static void handshake(conn *c) {
    char *end = memmem(c->hbuf, c->hlen, "\r\n\r\n", 4);
    if (!end)
        return;
    *end = 0;
    char *k = strcasestr(c->hbuf, "\r\nSec-WebSocket-Key:");
    if (!k) {
        drop(c);
        return;
    }
    k += 20;
    while (*k == ' ')
        k++;
    size_t kl = strcspn(k, "\r\n ");
    char cat[128];
    if (kl > 60) {
        drop(c);
        return;
    }
    memcpy(cat, k, kl);
    memcpy(cat + kl, "258EAFA5-E914-47DA-95CA-C5AB0DC85B11", 36);
    uint8_t dg[20];
    sha1(cat, kl + 36, dg);
    char acc[32];
    base64(dg, 20, acc);
    char rsp[256];
    int n = snprintf(rsp, sizeof rsp,
                     "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     "Sec-WebSocket-Accept: %s\r\n\r\n", acc);
    if (send(c->fd, rsp, (size_t)n, MSG_NOSIGNAL) != n) {
        drop(c);
        return;
    }
    c->open = 1;
    c->idx = nopen;
    openfds[nopen++] = c->fd;
}

static void readable(conn *c) {
    for (;;) {
        if (!c->open) {
            ssize_t n = recv(c->fd, c->hbuf + c->hlen, sizeof c->hbuf - 1 - c->hlen, MSG_DONTWAIT);
            if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR) ||
                (n > 0 && c->hlen + (size_t)n >= sizeof c->hbuf - 1)) {
                drop(c);
                return;
            }
            if (n < 0)
                return;
            c->hlen += (size_t)n;
            handshake(c);
            if (byfd[c->fd] != c || c->open)
                return;
        } else { /* client frames (pongs, close): discarded; EOF closes */
            char junk[4096];
            ssize_t n = recv(c->fd, junk, sizeof junk, MSG_DONTWAIT);
            if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
                drop(c);
                return;
            }
            if (n < 0)
                return;
        }
    }
}

/* ---- io_uring (raw) -------------------------------------------------------------------------- */
typedef struct {
    int fd;
    unsigned *sq_head, *sq_tail, *sq_mask, *sq_array;
    unsigned *cq_head, *cq_tail, *cq_mask;
    struct io_uring_sqe *sqes;
    struct io_uring_cqe *cqes;
    unsigned sq_entries;
} ring;

static int ring_init(ring *r, unsigned entries, int maxfds) {
    struct io_uring_params p;
    memset(&p, 0, sizeof p);
    p.flags = IORING_SETUP_CQSIZE;
    p.cq_entries = entries * 2;
#ifdef IORING_SETUP_SINGLE_ISSUER
    p.flags |= IORING_SETUP_SINGLE_ISSUER;
#endif
#ifdef IORING_SETUP_COOP_TASKRUN
    p.flags |= IORING_SETUP_COOP_TASKRUN;
#endif
    r->fd = (int)syscall(__NR_io_uring_setup, entries, &p);
    if (r->fd < 0)
        return -1;
    size_t sq_sz = p.sq_off.array + p.sq_entries * sizeof(unsigned);
    size_t cq_sz = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
    uint8_t *sq = mmap(NULL, sq_sz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
                       IORING_OFF_SQ_RING);
    uint8_t *cq = mmap(NULL, cq_sz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
                       IORING_OFF_CQ_RING);
    r->sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQES);
    if (sq == MAP_FAILED || cq == MAP_FAILED || r->sqes == MAP_FAILED)
        return -1;
    r->sq_head = (unsigned *)(sq + p.sq_off.head);
    r->sq_tail = (unsigned *)(sq + p.sq_off.tail);
    r->sq_mask = (unsigned *)(sq + p.sq_off.ring_mask);
    r->sq_array = (unsigned *)(sq + p.sq_off.array);
    r->cq_head = (unsigned *)(cq + p.cq_off.head);
    r->cq_tail = (unsigned *)(cq + p.cq_off.tail);
    r->cq_mask = (unsigned *)(cq + p.cq_off.ring_mask);
    r->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
    r->sq_entries = p.sq_entries;
    /* a sparse file table indexed by fd: IOSQE_FIXED_FILE saves the fget/fput per send */
    int *tab = malloc((size_t)maxfds * sizeof *tab);
    for (int i = 0; i < maxfds; i++)
        tab[i] = -1;
    int rc = (int)syscall(__NR_io_uring_register, r->fd, IORING_REGISTER_FILES, tab, maxfds);
    free(tab);
    return rc;
}

static void ring_set_file(ring *r, int fd, int value) {
    struct io_uring_files_update up;
    memset(&up, 0, sizeof up);
    up.offset = (unsigned)fd;
    up.fds = (uint64_t)(uintptr_t)&value;
    syscall(__NR_io_uring_register, r->fd, IORING_REGISTER_FILES_UPDATE, &up, 1);
}

/* Sends frame to fds[0,n) in batches; returns the number of failed sends (closed later). */
static long ring_fanout(ring *r, const int *fds, int n, const void *frame, size_t len, int batch,
                        int *bad, int *nbad, long *eagain) {
    long fails = 0;
    int i = 0;
    while (i < n) {
        int k = n - i < batch ? n - i : batch;
        unsigned tail = *r->sq_tail;
        for (int j = 0; j < k; j++) {
            unsigned idx = tail & *r->sq_mask;
            struct io_uring_sqe *s = &r->sqes[idx];
            memset(s, 0, sizeof *s);
            s->opcode = IORING_OP_SEND;
            s->fd = fds[i + j];
            s->flags = IOSQE_FIXED_FILE;
            s->addr = (uint64_t)(uintptr_t)frame;
            s->len = (unsigned)len;
            s->msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL;
            s->user_data = (uint64_t)fds[i + j];
            r->sq_array[idx] = idx;
            tail++;
        }
        __atomic_store_n(r->sq_tail, tail, __ATOMIC_RELEASE);
        int got = (int)syscall(__NR_io_uring_enter, r->fd, k, k, IORING_ENTER_GETEVENTS, NULL, 0);
        if (got < 0) {
            perror("io_uring_enter");
            exit(1);
        }
        unsigned head = *r->cq_head;
        unsigned ctail = __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE);
        for (; head != ctail; head++) {
            struct io_uring_cqe *c = &r->cqes[head & *r->cq_mask];
            if (c->res != (int)len) {
                if (c->res == -EAGAIN)
                    (*eagain)++;
                else {
                    fails++;
                    bad[(*nbad)++] = (int)c->user_data;
                }
            }
        }
        __atomic_store_n(r->cq_head, head, __ATOMIC_RELEASE);
        i += k;
    }
    return fails;
}

/* ---- main --------------------------------------------------------------------------------- */
static volatile sig_atomic_t stop;
static void on_signal(int s) { (void)s; stop = 1; }

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int64_t ns(clockid_t c) {
    struct timespec ts;
    clock_gettime(c, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv) {
    int port = 8090, opt, batch = 256, quiet = 0;
    long tick_ms = 500;
    const char *addr = "127.0.0.1", *mode = "send";
    while ((opt = getopt(argc, argv, "p:b:t:m:B:qh")) != -1) {
        switch (opt) {
        case 'p': port = atoi(optarg); break;
        case 'b': addr = optarg; break;
        case 't': tick_ms = atol(optarg) > 0 ? atol(optarg) : 500; break;
        case 'm': mode = optarg; break;
        case 'B': batch = atoi(optarg) > 0 ? atoi(optarg) : 256; break;
        case 'q': quiet = 1; break;
        default:
            fprintf(stderr, "usage: tickfloor [-p PORT] [-b ADDR] [-t TICK_MS] [-m send|uring] "
                            "[-B BATCH] [-q]\n");
            return opt == 'h' ? 0 : 2;
        }
    }
    int uring = strcmp(mode, "uring") == 0;
    if (!uring && strcmp(mode, "send") != 0) {
        fprintf(stderr, "tickfloor: -m send|uring\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
    int maxfds = (int)(rl.rlim_cur > 1000000 ? 1000000 : rl.rlim_cur);
    byfd = calloc((size_t)maxfds, sizeof *byfd);
    openfds = calloc((size_t)maxfds, sizeof *openfds);
    int *bad = calloc((size_t)maxfds, sizeof *bad);

    int ls = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0), one = 1;
    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1 || bind(ls, (void *)&sa, sizeof sa) < 0 ||
        listen(ls, 4096) < 0) {
        perror("tickfloor: listen");
        return 1;
    }
    ring r;
    memset(&r, 0, sizeof r);
    if (uring && ring_init(&r, 4096, maxfds) < 0) {
        perror("tickfloor: io_uring");
        return 1;
    }
    if (batch > (int)(uring ? r.sq_entries : 1u << 30))
        batch = (int)r.sq_entries;
    ep = epoll_create1(0);
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = ls};
    epoll_ctl(ep, EPOLL_CTL_ADD, ls, &ev);
    int tfd = timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK);
    int64_t next = (ns(CLOCK_REALTIME) / 1000000 + tick_ms) * 1000000; /* ms-aligned schedule */
    struct itimerspec its = {{0, 0}, {next / 1000000000, next % 1000000000}};
    timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL);
    ev.data.fd = tfd;
    epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &ev);
    printf("listening on http://%s:%d/ (tickfloor, mode %s%s)\n", addr, port, mode,
           uring ? "" : ": one send() per connection");
    fflush(stdout);

    unsigned long seq = 0;
    int accept_paused = 0, accept_paused_ever = 0;
    long accept_full = 0; /* accept() calls that failed for lack of descriptors */
    long total_sends = 0, total_eagain = 0, total_fail = 0, late_ticks = 0;
    size_t pcap = 1024, np = 0;
    double *per_send = malloc(pcap * sizeof *per_send), *fan_ms = malloc(pcap * sizeof *fan_ms);
    struct epoll_event evs[256];
    while (!stop) {
        int n = epoll_wait(ep, evs, 256, 200);
        for (int i = 0; i < n; i++) {
            int fd = evs[i].data.fd;
            if (fd == ls) {
                for (;;) {
                    int c = accept4(ls, NULL, NULL, SOCK_NONBLOCK);
                    if (c < 0 && (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
                                  errno == ENOMEM)) {
                        /* Out of descriptors: the listening socket is level-triggered and
                         * would report the waiting connections at once, forever (a busy
                         * loop). Take it out of the epoll set until the next tick; the
                         * connections wait in the backlog meanwhile. */
                        if (!accept_paused_ever)
                            fprintf(stderr, "tickfloor: accept: %s (descriptor limit %d): "
                                            "retrying at every tick\n", strerror(errno), maxfds);
                        accept_paused_ever = 1;
                        accept_paused = 1;
                        accept_full++;
                        epoll_ctl(ep, EPOLL_CTL_DEL, ls, NULL);
                        break;
                    }
                    if (c < 0)
                        break;
                    if (c >= maxfds) {
                        close(c);
                        continue;
                    }
                    setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                    conn *cn = calloc(1, sizeof *cn);
                    cn->fd = c;
                    cn->idx = -1;
                    byfd[c] = cn;
                    struct epoll_event e2 = {.events = EPOLLIN, .data.fd = c};
                    epoll_ctl(ep, EPOLL_CTL_ADD, c, &e2);
                    if (uring)
                        ring_set_file(&r, c, c);
                }
            } else if (fd == tfd) {
                uint64_t exp;
                if (read(tfd, &exp, sizeof exp) != sizeof exp)
                    continue;
                if (accept_paused) {
                    struct epoll_event el = {.events = EPOLLIN, .data.fd = ls};
                    epoll_ctl(ep, EPOLL_CTL_ADD, ls, &el);
                    accept_paused = 0;
                }
                int64_t sched = next;
                /* the next slot in the future (a fan-out longer than the period skips ticks) */
                int64_t now = ns(CLOCK_REALTIME);
                if (exp > 1)
                    late_ticks += (long)exp - 1;
                while (next <= now)
                    next += tick_ms * 1000000;
                its.it_value.tv_sec = next / 1000000000;
                its.it_value.tv_nsec = next % 1000000000;
                timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL);
                if (nopen == 0)
                    continue;
                /* one frame per tick: "<scheduled epoch-ns> tick <seq>" */
                uint8_t frame[80];
                int len = snprintf((char *)frame + 2, sizeof frame - 2, "%lld tick %lu",
                                   (long long)sched, ++seq);
                frame[0] = 0x81;
                frame[1] = (uint8_t)len;
                size_t flen = (size_t)len + 2;
                int nb = 0;
                long eagain = 0;
                int64_t t0 = ns(CLOCK_MONOTONIC);
                int cnt = nopen;
                if (uring) {
                    total_fail += ring_fanout(&r, openfds, nopen, frame, flen, batch, bad, &nb, &eagain);
                } else {
                    for (int j = 0; j < nopen; j++) {
                        ssize_t w = send(openfds[j], frame, flen, MSG_DONTWAIT | MSG_NOSIGNAL);
                        if (w == (ssize_t)flen)
                            continue;
                        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
                            eagain++;
                        else
                            bad[nb++] = openfds[j];
                    }
                    total_fail += nb;
                }
                int64_t t1 = ns(CLOCK_MONOTONIC);
                for (int j = 0; j < nb; j++)
                    if (byfd[bad[j]])
                        drop(byfd[bad[j]]);
                total_sends += cnt;
                total_eagain += eagain;
                if (np == pcap) {
                    pcap *= 2;
                    per_send = realloc(per_send, pcap * sizeof *per_send);
                    fan_ms = realloc(fan_ms, pcap * sizeof *fan_ms);
                }
                per_send[np] = (double)(t1 - t0) / cnt;
                fan_ms[np++] = (double)(t1 - t0) / 1e6;
                if (!quiet) {
                    printf("tick %lu: %d sockets in %.2f ms = %.0f ns/send (timer late %.0f us), "
                           "EAGAIN %ld, failed %d\n",
                           seq, cnt, (double)(t1 - t0) / 1e6, (double)(t1 - t0) / cnt,
                           (double)(t0 - sched) / 1e3 > 0 ? (double)(t0 - sched) / 1e3 : 0, eagain, nb);
                    fflush(stdout);
                }
            } else if (byfd[fd]) {
                readable(byfd[fd]);
            }
        }
    }
    double med = 0, mn = 0, mx = 0, fmed = 0;
    if (np) {
        qsort(per_send, np, sizeof *per_send, cmp_d);
        qsort(fan_ms, np, sizeof *fan_ms, cmp_d);
        med = per_send[np / 2], mn = per_send[0], mx = per_send[np - 1], fmed = fan_ms[np / 2];
    }
    printf("TICKFLOOR {\"mode\":\"%s\",\"batch\":%d,\"ticks\":%zu,\"sends\":%ld,\"eagain\":%ld,"
           "\"failed\":%ld,\"skipped_ticks\":%ld,\"ns_per_send_median\":%.0f,\"ns_per_send_min\":%.0f,"
           "\"ns_per_send_max\":%.0f,\"fanout_ms_median\":%.2f,\"accept_emfile\":%ld}\n",
           mode, uring ? batch : 1, np, total_sends, total_eagain, total_fail, late_ticks, med, mn, mx,
           fmed, accept_full);
    fflush(stdout);
    return 0;
}
