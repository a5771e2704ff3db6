/*
 * wsload - a WebSocket load client for the tachy benchmark (bench/README.md).
 *
 *   wsload echo -p PORT [-u /ws] [-c CONNS] [-s BYTES] [-d SECONDS]
 *   wsload tick -p PORT [-u /tick] [-c CLIENTS] [-d SECONDS] [-w SETUP_SECONDS]
 *   wsload ts   -p PORT [-u /ts] [-c CLIENTS] [-r RAMP_SECONDS] [-m MESSAGES] [-d LIMIT_S]
 *
 * ts:   the crowd benchmark: CLIENTS connections opened evenly over RAMP_SECONDS (default
 *       25,000 over 30 s), each reading MESSAGES (120) text messages from an endpoint that
 *       sends the server's CLOCK_REALTIME in decimal microseconds every 500 ms, then closing.
 *       Latency = |kernel receive timestamp - stamp| (and the user-space one beside it);
 *       errors = refused handshakes + connections lost before their MESSAGES + bad
 *       payloads. Stops at LIMIT_S (default ramp + 0.5 s * MESSAGES + 30 s).
 *
 * echo: CONNS connections each send one masked binary message of BYTES bytes, wait for
 *       the echo, and repeat for SECONDS; reports messages/s and round-trip percentiles.
 * tick: CLIENTS connections upgrade and then only listen for SECONDS. The server
 *       broadcasts "ticks": text or binary messages whose payload starts with the send
 *       time as decimal nanoseconds since the Unix epoch (CLOCK_REALTIME; Java:
 *       Instant.now() -> epochSecond * 1e9 + nano). The latency of a tick at a client is
 *       the kernel's receive timestamp of its bytes (SO_TIMESTAMPNS) minus that send time,
 *       so it is what the server and the loopback induce, not this client's own queueing
 *       while it reads 10,000 sockets on one core. User-space receive times are reported
 *       alongside.
 *
 * Output: human-readable lines and one "WSJSON {...}" line for bench/lib/bench.py.
 * Everything is bounded by -d / -w; only 127.0.0.1 is used (-a to change the address).
 * Build: cc -O2 -o wsload bench/wsload.c  (bench/run.sh does it into bench/build/).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* ---- latency histogram: 1 µs buckets to 1 s, then an overflow bucket ------------------- */
#define HIST_MAX 1000000
typedef struct {
    uint32_t *b;
    uint64_t n, over, sum;
    uint64_t max;
} hist;

static void hist_init(hist *h) {
    memset(h, 0, sizeof *h);
    h->b = calloc(HIST_MAX, sizeof *h->b);
    if (!h->b) {
        perror("calloc");
        exit(1);
    }
}
static void hist_add(hist *h, int64_t us) {
    if (us < 0)
        us = 0;
    if ((uint64_t)us > h->max)
        h->max = (uint64_t)us;
    h->n++;
    h->sum += (uint64_t)us;
    if (us >= HIST_MAX)
        h->over++;
    else
        h->b[us]++;
}
static double hist_pct(const hist *h, double p) {
    if (!h->n)
        return -1;
    uint64_t rank = (uint64_t)(p / 100.0 * (double)h->n + 0.5), acc = 0;
    if (rank < 1)
        rank = 1;
    for (uint64_t i = 0; i < HIST_MAX; i++) {
        acc += h->b[i];
        if (acc >= rank)
            return (double)i;
    }
    return (double)h->max;
}
static void hist_print(const hist *h, const char *what) {
    printf("%s: %llu samples, mean %.0f us, p50 %.0f, p90 %.0f, p99 %.0f, p99.9 %.0f, max %llu us\n",
           what, (unsigned long long)h->n, h->n ? (double)h->sum / (double)h->n : 0.0,
           hist_pct(h, 50), hist_pct(h, 90), hist_pct(h, 99), hist_pct(h, 99.9),
           (unsigned long long)h->max);
    /* log2 buckets */
    uint64_t lo = 0, hi = 1;
    while (lo < HIST_MAX) {
        uint64_t c = 0;
        for (uint64_t i = lo; i < hi && i < HIST_MAX; i++)
            c += h->b[i];
        if (c)
            printf("  %8llu - %8llu us  %10llu  %5.1f%%\n", (unsigned long long)lo,
                   (unsigned long long)hi - 1, (unsigned long long)c, 100.0 * (double)c / (double)h->n);
        lo = hi;
        hi *= 2;
    }
    if (h->over)
        printf("  >= %llu us  %llu\n", (unsigned long long)HIST_MAX, (unsigned long long)h->over);
}

/* ---- clocks --------------------------------------------------------------------------- */
static int64_t now_ns(clockid_t c) {
    struct timespec ts;
    clock_gettime(c, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* ---- connections ---------------------------------------------------------------------- */
enum { ST_CONNECTING, ST_HANDSHAKE, ST_OPEN, ST_CLOSED, ST_DONE };
typedef struct {
    int fd, state;
    size_t rlen;          /* bytes in rbuf */
    unsigned char *rbuf;  /* read buffer */
    size_t rcap;
    int64_t sent_at;      /* echo: monotonic ns of the outstanding message */
    uint64_t got;         /* messages received */
    int64_t last_kts;     /* kernel receive timestamp (realtime ns) of the last read */
    int64_t started;      /* monotonic ns of the connect() */
} conn;

static const char *g_addr = "127.0.0.1", *g_path = NULL;
static int g_port = 0;
static size_t g_size = 64;
static unsigned char *g_msg; /* echo: the masked frame to send */
static size_t g_msglen;

static void die(const char *m) {
    perror(m);
    exit(1);
}

static void set_nonblock(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

static int g_open_errno; /* errno of the last socket()/connect() that failed */

/*
 * Source ports. Left to the kernel, connect() picks an ephemeral port with
 * __inet_hash_connect, which tries the ports of one parity of ip_local_port_range first
 * (32768-60999 here: 14,116 of them) and then scans them all again, under locks, before it
 * takes one of the other half. Once ~14,100 connections to the one server address are open,
 * every further connect() spends tens of milliseconds of system time in that scan: this one
 * client core stops reading, the server's queues and the measured latency grow to seconds.
 * That was the "collapse at ~19,500" of the first crowd runs. So each socket binds its own
 * port (SO_REUSEADDR, walking the range; a port in use is skipped), which is O(1), unless
 * -K (kernel's choice) is given.
 */
static int g_bind_ports = 1, g_port_lo = 32768, g_port_hi = 60999, g_port_next;

static void ports_init(void) {
    FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r");
    if (f) {
        int lo, hi;
        if (fscanf(f, "%d %d", &lo, &hi) == 2 && lo > 0 && hi > lo && hi < 65536) {
            g_port_lo = lo;
            g_port_hi = hi;
        }
        fclose(f);
    }
    g_port_next = g_port_lo + (int)(getpid() % (g_port_hi - g_port_lo + 1));
}

/* binds fd to the next free source port; 0, or -1 when 256 ports in a row were taken */
static int bind_source_port(int fd, const struct in_addr *src) {
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    for (int tries = 0; tries < 256; tries++) {
        int port = g_port_next++;
        if (g_port_next > g_port_hi)
            g_port_next = g_port_lo;
        struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                                 .sin_addr = *src};
        if (bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0)
            return 0;
        if (errno != EADDRINUSE)
            return -1;
    }
    return -1;
}

static int open_conn(int ep, conn *c, int timestamps) {
    c->fd = socket(AF_INET, SOCK_STREAM, 0);
    if (c->fd < 0) {
        g_open_errno = errno;
        return -1;
    }
    set_nonblock(c->fd);
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (timestamps)
        setsockopt(c->fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)g_port)};
    inet_pton(AF_INET, g_addr, &sa.sin_addr);
    if (g_bind_ports) {
        /* from the server's own address when it is a loopback one, else from any */
        struct in_addr src = {.s_addr = (ntohl(sa.sin_addr.s_addr) >> 24) == 127
                                            ? sa.sin_addr.s_addr
                                            : htonl(INADDR_ANY)};
        /* no free port in the walk: connect() lets the kernel choose (slow past ~14,000) */
        (void)bind_source_port(c->fd, &src);
    }
    int rc = connect(c->fd, (struct sockaddr *)&sa, sizeof sa);
    for (int retry = 0; rc < 0 && errno == EADDRNOTAVAIL && g_bind_ports && retry < 8; retry++) {
        /* SO_REUSEADDR let the bind share a port whose 4-tuple to this server is still
         * taken (e.g. in TIME_WAIT): a new socket on the next port */
        close(c->fd);
        c->fd = socket(AF_INET, SOCK_STREAM, 0);
        if (c->fd < 0) {
            g_open_errno = errno;
            return -1;
        }
        set_nonblock(c->fd);
        setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (timestamps)
            setsockopt(c->fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one);
        struct in_addr src = {.s_addr = (ntohl(sa.sin_addr.s_addr) >> 24) == 127
                                            ? sa.sin_addr.s_addr
                                            : htonl(INADDR_ANY)};
        (void)bind_source_port(c->fd, &src);
        rc = connect(c->fd, (struct sockaddr *)&sa, sizeof sa);
    }
    if (rc < 0 && errno != EINPROGRESS) {
        g_open_errno = errno;
        close(c->fd);
        c->fd = -1;
        return -1;
    }
    c->state = ST_CONNECTING;
    c->started = now_ns(CLOCK_MONOTONIC);
    c->rcap = 4096;
    c->rbuf = malloc(c->rcap);
    struct epoll_event ev = {.events = EPOLLOUT | EPOLLIN, .data.ptr = c};
    epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev);
    return 0;
}

static int send_all(int fd, const void *p, size_t n) {
    const char *s = p;
    while (n) {
        ssize_t w = send(fd, s, n, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN) { /* tiny frames on a fresh socket: should not happen; spin */
                usleep(100);
                continue;
            }
            return -1;
        }
        s += w;
        n -= (size_t)w;
    }
    return 0;
}

static void send_handshake(conn *c) {
    char req[512];
    int n = snprintf(req, sizeof req,
                     "GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
                     g_path, g_addr, g_port);
    if (send_all(c->fd, req, (size_t)n) < 0)
        c->state = ST_CLOSED;
    else
        c->state = ST_HANDSHAKE;
}

/* a masked client frame (mask key 0: payload unchanged, still a valid masked frame) */
static size_t make_frame(unsigned char *out, int opcode, const void *payload, size_t len) {
    size_t h = 0;
    out[h++] = (unsigned char)(0x80 | opcode);
    if (len < 126) {
        out[h++] = (unsigned char)(0x80 | len);
    } else if (len < 65536) {
        out[h++] = 0x80 | 126;
        out[h++] = (unsigned char)(len >> 8);
        out[h++] = (unsigned char)len;
    } else {
        out[h++] = 0x80 | 127;
        for (int i = 7; i >= 0; i--)
            out[h++] = (unsigned char)((uint64_t)len >> (8 * i));
    }
    memset(out + h, 0, 4);
    h += 4;
    if (len)
        memcpy(out + h, payload, len);
    return h + len;
}

static void send_echo(conn *c) {
    c->sent_at = now_ns(CLOCK_MONOTONIC);
    if (send_all(c->fd, g_msg, g_msglen) < 0)
        c->state = ST_CLOSED;
}

/* ---- main loop ------------------------------------------------------------------------ */
typedef struct {
    int tick, ts;
    uint64_t want;              /* ts: messages per connection */
    uint64_t done;              /* ts: connections that got all of theirs */
    hist lat_kernel, lat_user;  /* tick: kernel-stamped and user-space latency; echo: RTT */
    hist upgrade;               /* ts: connect() to the 101, the wait for the server to accept */
    uint64_t msgs, bad, closed, handshakes_failed;
} stats;

/* parse complete frames in c->rbuf; returns -1 when the connection must close */
static int on_frames(conn *c, stats *st, int64_t user_rt_ns) {
    size_t off = 0;
    while (c->rlen - off >= 2) {
        unsigned char *p = c->rbuf + off;
        int op = p[0] & 0x0f, masked = p[1] & 0x80;
        uint64_t len = p[1] & 0x7f;
        size_t h = 2;
        if (len == 126) {
            if (c->rlen - off < 4)
                break;
            len = ((uint64_t)p[2] << 8) | p[3];
            h = 4;
        } else if (len == 127) {
            if (c->rlen - off < 10)
                break;
            len = 0;
            for (int i = 0; i < 8; i++)
                len = (len << 8) | p[2 + i];
            h = 10;
        }
        if (masked)
            h += 4;
        if (c->rlen - off < h + len)
            break;
        const unsigned char *pl = p + h;
        if (op == 0x8) { /* close */
            st->closed++;
            return -1;
        } else if (op == 0x9) { /* ping -> pong */
            unsigned char fr[256];
            if (len <= 125) {
                size_t n = make_frame(fr, 0xA, pl, (size_t)len);
                send_all(c->fd, fr, n);
            }
        } else if (op == 0x1 || op == 0x2 || op == 0x0) {
            c->got++;
            st->msgs++;
            if (st->ts) {
                int64_t us = 0;
                size_t i = 0;
                while (i < len && i < 20 && pl[i] >= '0' && pl[i] <= '9')
                    us = us * 10 + (pl[i++] - '0');
                if (i == 0 || i != len) {
                    st->bad++;
                } else {
                    if (c->last_kts) {
                        int64_t d = c->last_kts / 1000 - us;
                        hist_add(&st->lat_kernel, d < 0 ? -d : d);
                    }
                    int64_t d = user_rt_ns / 1000 - us;
                    hist_add(&st->lat_user, d < 0 ? -d : d);
                }
                if (c->got >= st->want) { /* all of this user's messages: leave */
                    st->done++;
                    return 1;
                }
            } else if (st->tick) {
                int64_t sent = 0;
                size_t i = 0;
                while (i < len && i < 20 && pl[i] >= '0' && pl[i] <= '9')
                    sent = sent * 10 + (pl[i++] - '0');
                if (i == 0) {
                    st->bad++;
                } else {
                    if (c->last_kts)
                        hist_add(&st->lat_kernel, (c->last_kts - sent) / 1000);
                    hist_add(&st->lat_user, (user_rt_ns - sent) / 1000);
                }
            } else {
                hist_add(&st->lat_kernel, (now_ns(CLOCK_MONOTONIC) - c->sent_at) / 1000);
                if (len != g_size)
                    st->bad++;
            }
        }
        off += h + (size_t)len;
        if (!st->tick && !st->ts && (op == 0x1 || op == 0x2))
            send_echo(c);
    }
    if (off) {
        memmove(c->rbuf, c->rbuf + off, c->rlen - off);
        c->rlen -= off;
    }
    return 0;
}

static void on_readable(conn *c, stats *st) {
    for (;;) {
        if (c->rcap - c->rlen < 2048) {
            c->rcap *= 2;
            c->rbuf = realloc(c->rbuf, c->rcap);
        }
        struct iovec iov = {c->rbuf + c->rlen, c->rcap - c->rlen};
        char cbuf[CMSG_SPACE(sizeof(struct timespec)) * 2];
        struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
                            .msg_controllen = sizeof cbuf};
        ssize_t n = recvmsg(c->fd, &mh, 0);
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            return;
        if (n <= 0) {
            c->state = ST_CLOSED;
            st->closed++;
            return;
        }
        int64_t urt = now_ns(CLOCK_REALTIME);
        c->last_kts = 0;
        for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
            if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_TIMESTAMPNS) {
                struct timespec ts;
                memcpy(&ts, CMSG_DATA(cm), sizeof ts);
                c->last_kts = (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
            }
        }
        c->rlen += (size_t)n;
        /* Epoll is level-triggered here: a read that did not fill the buffer has most likely
         * drained the socket, and anything left is reported again. One recvmsg per message
         * instead of two (the second would only say EAGAIN): at 20,000 clients x 2 messages/s
         * this client's one core is the budget. */
        int drained = (size_t)n < iov.iov_len;
        if (c->state == ST_HANDSHAKE) {
            unsigned char *e = memmem(c->rbuf, c->rlen, "\r\n\r\n", 4);
            if (!e) {
                if (drained)
                    return;
                continue;
            }
            if (c->rlen < 12 || memcmp(c->rbuf + 9, "101", 3) != 0) {
                st->handshakes_failed++;
                c->state = ST_CLOSED;
                return;
            }
            size_t hl = (size_t)(e + 4 - c->rbuf);
            memmove(c->rbuf, c->rbuf + hl, c->rlen - hl);
            c->rlen -= hl;
            c->state = ST_OPEN;
            if (st->ts)
                hist_add(&st->upgrade, (now_ns(CLOCK_MONOTONIC) - c->started) / 1000);
            if (!st->tick && !st->ts)
                send_echo(c);
        }
        if (c->state == ST_OPEN) {
            int fr = on_frames(c, st, urt);
            if (fr != 0) {
                c->state = fr > 0 ? ST_DONE : ST_CLOSED;
                if (fr > 0) {
                    close(c->fd);
                    c->fd = -1;
                }
                return;
            }
        }
        if (drained)
            return;
    }
}

/* ts: opens the clients on the ramp, serves every socket until each has its messages. */
static void ts_event(int ep, conn *c, uint32_t events, stats *st) {
    if (c->state == ST_CONNECTING && (events & (EPOLLOUT | EPOLLERR | EPOLLHUP))) {
        int err = 0;
        socklen_t l = sizeof err;
        getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &l);
        if (err) {
            c->state = ST_CLOSED;
            st->handshakes_failed++;
            return;
        }
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
        epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
        send_handshake(c);
    } else if (c->state == ST_HANDSHAKE || c->state == ST_OPEN) {
        on_readable(c, st);
    }
}

static int run_ts(int ep, conn *cs, int nconn, double ramp, double limit, stats *st) {
    struct epoll_event evs[512];
    int64_t t0 = now_ns(CLOCK_MONOTONIC), end = t0 + (int64_t)(limit * 1e9);
    int opened = 0, connect_failed = 0, peak_open = 0;
    int64_t next_report = t0 + 5000000000LL;
    while (now_ns(CLOCK_MONOTONIC) < end) {
        int64_t now = now_ns(CLOCK_MONOTONIC);
        int due = ramp <= 0 ? nconn : (int)((double)(now - t0) / (ramp * 1e9) * nconn) + 1;
        if (due > nconn)
            due = nconn;
        while (opened < due) {
            if (open_conn(ep, &cs[opened], 1) < 0) {
                cs[opened].state = ST_CLOSED;
                connect_failed++;
            }
            opened++;
        }
        /* Every client ends exactly once: done, closed (by the server or an error), refused
         * or not connected. */
        long live = (long)opened - connect_failed - (long)st->done - (long)st->closed -
                    (long)st->handshakes_failed;
        if (opened == nconn && live <= 0)
            break;
        int n = epoll_wait(ep, evs, 512, 2);
        for (int i = 0; i < n; i++)
            ts_event(ep, evs[i].data.ptr, evs[i].events, st);
        int open_now = opened - (int)st->done - (int)st->closed;
        if (open_now > peak_open)
            peak_open = open_now;
        if (now_ns(CLOCK_MONOTONIC) >= next_report) { /* progress, on stderr */
            int k[ST_DONE + 1] = {0};
            for (int i = 0; i < opened; i++)
                k[cs[i].state]++;
            fprintf(stderr, "wsload ts: %5.1f s: opened %d (connect failed %d%s%s), connecting %d, "
                            "awaiting 101 %d, open %d, done %d, closed/refused %d, messages %llu\n",
                    (double)(now_ns(CLOCK_MONOTONIC) - t0) / 1e9, opened, connect_failed,
                    connect_failed ? ": " : "", connect_failed ? strerror(g_open_errno) : "",
                    k[ST_CONNECTING], k[ST_HANDSHAKE], k[ST_OPEN], k[ST_DONE], k[ST_CLOSED],
                    (unsigned long long)st->msgs);
            next_report += 5000000000LL;
        }
    }
    double secs = (double)(now_ns(CLOCK_MONOTONIC) - t0) / 1e9;
    uint64_t lost = 0;
    int k[ST_DONE + 1] = {0}, short_open = 0;
    for (int i = 0; i < nconn; i++) {
        if (cs[i].state != ST_DONE)
            lost++;
        if (i < opened)
            k[cs[i].state]++;
        if (cs[i].state == ST_OPEN && cs[i].got > 0)
            short_open++;
        if (cs[i].fd >= 0)
            close(cs[i].fd);
        free(cs[i].rbuf);
    }
    uint64_t errors = lost + st->bad;
    printf("wsload ts: %d clients over %.1f s, %llu messages each: %llu done, %llu failed "
           "(handshakes refused %llu, connects failed %d), %llu messages, bad payloads %llu, "
           "%.1f s, ~%d open at the peak\n",
           nconn, ramp, (unsigned long long)st->want, (unsigned long long)st->done,
           (unsigned long long)lost, (unsigned long long)st->handshakes_failed, connect_failed,
           (unsigned long long)st->msgs, (unsigned long long)st->bad, secs, peak_open);
    if (lost)
        printf("wsload ts: not done: %d never opened, %d socket()/connect() failed%s%s, %d TCP "
               "connect pending, %d without a 101 (the server did not answer the upgrade), %d open "
               "but short of %llu messages (%d of them got some), %d closed or refused\n",
               nconn - opened, connect_failed, connect_failed ? " - " : "",
               connect_failed ? strerror(g_open_errno) : "", k[ST_CONNECTING], k[ST_HANDSHAKE],
               k[ST_OPEN], (unsigned long long)st->want, short_open, k[ST_CLOSED] - connect_failed);
    printf("wsload ts: upgrade wait (connect() to the 101): p50 %.0f us, p99 %.0f us, max %llu us\n",
           hist_pct(&st->upgrade, 50), hist_pct(&st->upgrade, 99),
           (unsigned long long)st->upgrade.max);
    hist_print(&st->lat_kernel, "ts latency, |kernel receive timestamp - server stamp|");
    hist_print(&st->lat_user, "ts latency, |client user-space receive - server stamp|");
    printf("WSJSON {\"mode\":\"ts\",\"connections\":%d,\"done\":%llu,\"errors\":%llu,"
           "\"messages\":%llu,\"seconds\":%.3f,\"p50_us\":%.0f,\"p90_us\":%.0f,\"p99_us\":%.0f,"
           "\"p999_us\":%.0f,\"max_us\":%llu,\"user_p50_us\":%.0f,\"user_p99_us\":%.0f,"
           "\"user_p999_us\":%.0f,\"user_max_us\":%llu,\"upgrade_p99_us\":%.0f,"
           "\"upgrade_max_us\":%llu,\"user_p90_us\":%.0f}\n",
           nconn, (unsigned long long)st->done, (unsigned long long)errors,
           (unsigned long long)st->msgs, secs, hist_pct(&st->lat_kernel, 50),
           hist_pct(&st->lat_kernel, 90), hist_pct(&st->lat_kernel, 99),
           hist_pct(&st->lat_kernel, 99.9), (unsigned long long)st->lat_kernel.max,
           hist_pct(&st->lat_user, 50), hist_pct(&st->lat_user, 99),
           hist_pct(&st->lat_user, 99.9), (unsigned long long)st->lat_user.max,
           hist_pct(&st->upgrade, 99), (unsigned long long)st->upgrade.max,
           hist_pct(&st->lat_user, 90));
    return errors ? 1 : 0;
}

static void usage(void) {
    fprintf(stderr, "usage: wsload echo|tick|ts -p PORT [-a ADDR] [-u PATH] [-c CONNS] [-s BYTES] "
                    "[-d SECONDS] [-w SETUP_SECONDS] [-r RAMP_SECONDS] [-m MESSAGES] [-K]\n");
    exit(2);
}

int main(int argc, char **argv) {
    if (argc < 2)
        usage();
    stats st;
    memset(&st, 0, sizeof st);
    st.tick = strcmp(argv[1], "tick") == 0;
    st.ts = strcmp(argv[1], "ts") == 0;
    if (!st.tick && !st.ts && strcmp(argv[1], "echo") != 0)
        usage();
    int nconn = st.ts ? 25000 : st.tick ? 10000 : 64, opt;
    double dur = 10, setup = 30, ramp = 30;
    int dur_set = 0;
    st.want = 120;
    optind = 2;
    while ((opt = getopt(argc, argv, "p:a:u:c:s:d:w:r:m:K")) != -1) {
        switch (opt) {
        case 'p': g_port = atoi(optarg); break;
        case 'a': g_addr = optarg; break;
        case 'u': g_path = optarg; break;
        case 'c': nconn = atoi(optarg); break;
        case 's': g_size = (size_t)atol(optarg); break;
        case 'd': dur = atof(optarg); dur_set = 1; break;
        case 'r': ramp = atof(optarg); break;
        case 'm': st.want = (uint64_t)atol(optarg); break;
        case 'w': setup = atof(optarg); break;
        case 'K': g_bind_ports = 0; break;
        default: usage();
        }
    }
    if (!g_port || nconn < 1)
        usage();
    if (!g_path)
        g_path = st.ts ? "/ts" : st.tick ? "/tick" : "/ws";
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)nconn + 64) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    ports_init();
    hist_init(&st.lat_kernel);
    hist_init(&st.lat_user);
    hist_init(&st.upgrade);
    if (!st.tick) {
        unsigned char *payload = malloc(g_size ? g_size : 1);
        for (size_t i = 0; i < g_size; i++)
            payload[i] = (unsigned char)('a' + i % 26);
        g_msg = malloc(g_size + 16);
        g_msglen = make_frame(g_msg, 0x2, payload, g_size);
        free(payload);
    }
    int ep = epoll_create1(0);
    if (ep < 0)
        die("epoll_create1");
    conn *cs = calloc((size_t)nconn, sizeof *cs);
    if (st.ts)
        return run_ts(ep, cs, nconn, ramp, dur_set ? dur : ramp + 0.5 * (double)st.want + 30, &st);
    int64_t t_start = now_ns(CLOCK_MONOTONIC);
    int opened = 0, open_ok = 0;
    struct epoll_event evs[512];
    /* setup: connect in waves of 512 so the listen backlog is not the bottleneck */
    int64_t setup_deadline = t_start + (int64_t)(setup * 1e9);
    while (now_ns(CLOCK_MONOTONIC) < setup_deadline) {
        int pending = 0;
        for (int i = 0; i < opened; i++)
            if (cs[i].state == ST_CONNECTING || cs[i].state == ST_HANDSHAKE)
                pending++;
        while (opened < nconn && pending < 512) {
            if (open_conn(ep, &cs[opened], st.tick) < 0)
                cs[opened].state = ST_CLOSED;
            else
                pending++;
            opened++;
        }
        if (opened == nconn && pending == 0)
            break;
        int n = epoll_wait(ep, evs, 512, 100);
        for (int i = 0; i < n; i++) {
            conn *c = evs[i].data.ptr;
            if (c->state == ST_CONNECTING && (evs[i].events & (EPOLLOUT | EPOLLERR | EPOLLHUP))) {
                int err = 0;
                socklen_t l = sizeof err;
                getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &l);
                if (err) {
                    c->state = ST_CLOSED;
                    continue;
                }
                struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
                epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
                send_handshake(c); /* echo starts after the 101 */
            } else if (evs[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP)) {
                on_readable(c, &st);
            }
        }
    }
    for (int i = 0; i < opened; i++)
        if (cs[i].state == ST_OPEN)
            open_ok++;
    int64_t t_open = now_ns(CLOCK_MONOTONIC);
    printf("wsload %s: %d/%d connections upgraded in %.2f s (handshakes refused %llu)\n",
           argv[1], open_ok, nconn, (double)(t_open - t_start) / 1e9,
           (unsigned long long)st.handshakes_failed);
    fflush(stdout);
    /* measure: discard whatever arrived during setup */
    st.msgs = 0;
    free(st.lat_kernel.b);
    free(st.lat_user.b);
    hist_init(&st.lat_kernel);
    hist_init(&st.lat_user);
    int64_t t_end = t_open + (int64_t)(dur * 1e9);
    int64_t t0 = now_ns(CLOCK_MONOTONIC);
    while (now_ns(CLOCK_MONOTONIC) < t_end) {
        int n = epoll_wait(ep, evs, 512, 100);
        for (int i = 0; i < n; i++) {
            conn *c = evs[i].data.ptr;
            if (c->state != ST_CLOSED)
                on_readable(c, &st);
        }
    }
    double secs = (double)(now_ns(CLOCK_MONOTONIC) - t0) / 1e9;
    /* The measurement ends here, before 10,000 closes make the server tear down its
     * connections: bench.py reads the server's CPU time at this line. */
    printf("wsload %s: measurement done\n", argv[1]);
    fflush(stdout);
    usleep(300000);
    uint64_t minmsgs = UINT64_MAX;
    int alive = 0;
    for (int i = 0; i < opened; i++) {
        if (cs[i].state == ST_OPEN) {
            alive++;
            if (cs[i].got < minmsgs)
                minmsgs = cs[i].got;
        }
        if (cs[i].fd >= 0)
            close(cs[i].fd);
        free(cs[i].rbuf);
    }
    if (minmsgs == UINT64_MAX)
        minmsgs = 0;
    printf("wsload %s: %llu messages in %.2f s = %.0f msg/s, %d connections open at the end, "
           "bad payloads %llu\n",
           argv[1], (unsigned long long)st.msgs, secs, (double)st.msgs / secs, alive,
           (unsigned long long)st.bad);
    if (st.tick) {
        hist_print(&st.lat_kernel, "tick latency, kernel receive timestamp - server send time");
        hist_print(&st.lat_user, "tick latency, client user-space receive - server send time");
    } else {
        hist_print(&st.lat_kernel, "echo round trip");
    }
    printf("WSJSON {\"mode\":\"%s\",\"connections\":%d,\"upgraded\":%d,\"alive\":%d,\"messages\":%llu,"
           "\"seconds\":%.3f,\"msg_s\":%.1f,\"min_msgs_per_conn\":%llu,\"bad\":%llu,"
           "\"p50_us\":%.0f,\"p99_us\":%.0f,\"p999_us\":%.0f,\"max_us\":%llu,"
           "\"user_p50_us\":%.0f,\"user_p99_us\":%.0f,\"p90_us\":%.0f}\n",
           argv[1], nconn, open_ok, alive, (unsigned long long)st.msgs, secs,
           (double)st.msgs / secs, (unsigned long long)minmsgs, (unsigned long long)st.bad,
           hist_pct(&st.lat_kernel, 50), hist_pct(&st.lat_kernel, 99),
           hist_pct(&st.lat_kernel, 99.9), (unsigned long long)st.lat_kernel.max,
           hist_pct(&st.lat_user, 50), hist_pct(&st.lat_user, 99), hist_pct(&st.lat_kernel, 90));
    return 0;
}
