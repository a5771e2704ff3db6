/*
 * tls/handshake.c - a connection's TLS from its first run to the end of its handshake:
 * tachy__tls_start (the transport installed, the handshake deadline), the wait for the
 * whole ClientHello before any TLS state exists, the SSL object in accept state, and the
 * cap on handshakes in progress (tachy_tls_config_set_max_handshakes).
 *
 * The handshake itself is driven by SSL_read in accept state (transport.c's tls_read),
 * non-blocking, on the connection's thread; while the client's next flight is awaited,
 * http/conn.c parks the connection with the handshake deadline (hs_deadline), so no thread
 * waits on a silent client. Everything here runs on the thread that owns the connection;
 * the cap's bookkeeping is shared by every connection of a config, under cfg->hs_lock, and
 * an eviction shuts another connection's socket down under that lock (see below).
 */
#include "tls/internal.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

/*
 * Half-open handshakes. An SSL object in accept state costs about 9 KB, and ~46 KB once it
 * has read the first bytes of a ClientHello (OpenSSL's read and write buffers and the
 * zero-filled handshake buffer, held until the handshake ends: SSL_MODE_RELEASE_BUFFERS
 * only helps between records). A client that opens a connection and sends nothing, or half
 * a ClientHello, must not make the server pay that until the handshake deadline. So:
 *   - the SSL object is made only once the whole first TLS record (the ClientHello) is in
 *     the socket's receive queue: the record header is peeked (MSG_PEEK, 5 bytes) and
 *     FIONREAD says whether the rest has arrived; until then the connection waits in the
 *     park set holding no TLS state (the edge-triggered set raises a new event for each
 *     arrival). What is not a TLS handshake record goes to OpenSSL at once, which rejects
 *     it (plain HTTP on the TLS port, as before);
 *   - at most max_handshakes SSL objects of a config are in handshake at once
 *     (tachy_tls_config_set_max_handshakes). A complete ClientHello that finds the cap full
 *     evicts the oldest handshake in progress instead of being refused: that socket is shut
 *     down (its owner, or the pool thread its event wakes, sees EOF and closes it) and the
 *     newcomer takes the place. Stalled handshakes therefore cannot lock real clients out
 *     until their deadline: a client's handshake is evicted only if max_handshakes newer
 *     ClientHellos arrive before it is done (a round trip). Evicted connections keep their
 *     memory until they are freed, so at most max_handshakes / 8 + 1 of them may be pending;
 *     with that many, a newcomer is refused (closed at once) as before.
 * The handshake deadline (tls_handshake_time_ms) bounds how long either waits.
 *
 * Locking: cfg->hs_lock guards the list of handshakes in progress (oldest first), the two
 * counts and every tls_conn's hs field. A connection leaves the list (or the evicted count)
 * in tls_free, which runs before loop/slots.c closes its socket, so a socket found in the
 * list under hs_lock is still open and shutdown(2) on it cannot hit a reused descriptor -
 * the same reasoning as for stop() and the watchdog, which shut sockets down under
 * srv->lock (http/http.h).
 */

static void hs_unlink(tachy_tls_config *cfg, tls_conn *t) {
    if (t->hs_prev)
        t->hs_prev->hs_next = t->hs_next;
    else
        cfg->hs_head = t->hs_next;
    if (t->hs_next)
        t->hs_next->hs_prev = t->hs_prev;
    else
        cfg->hs_tail = t->hs_prev;
    t->hs_prev = t->hs_next = NULL;
    cfg->handshakes--;
}

/* Takes a place for t in cfg's cap, evicting the oldest handshake if the cap is full.
 * 0, 1 (a place, after an eviction) or TACHY_ETLS (refused: evictions pending). */
static int hs_admit(tachy_tls_config *cfg, tls_conn *t) {
    int evicted = 0;
    pthread_mutex_lock(&cfg->hs_lock);
    if (cfg->handshakes >= cfg->max_handshakes) {
        tls_conn *old = cfg->hs_head;
        if (!old || cfg->evicted >= cfg->max_handshakes / 8 + 1) {
            pthread_mutex_unlock(&cfg->hs_lock);
            return TACHY_ETLS;
        }
        hs_unlink(cfg, old);
        old->hs = TLS_HS_EVICTED;
        cfg->evicted++;
        /* Its owner's next (or current) socket call fails, or the shutdown's event hands the
         * parked connection to a pool thread, which sees EOF and closes it. */
        if (atomic_exchange(&old->c->shut, 1) == 0)
            shutdown(old->fd, SHUT_RDWR);
        evicted = 1;
    }
    t->hs = TLS_HS_LISTED;
    t->hs_prev = cfg->hs_tail;
    t->hs_next = NULL;
    if (cfg->hs_tail)
        cfg->hs_tail->hs_next = t;
    else
        cfg->hs_head = t;
    cfg->hs_tail = t;
    cfg->handshakes++;
    pthread_mutex_unlock(&cfg->hs_lock);
    t->counted = 1;
    return evicted;
}

/* tls/internal.h */
int tachy__tls_new_ssl(tls_conn *t) {
    tachy_tls_config *cfg = t->c->srv->tls;
    if (cfg->max_handshakes > 0) {
        int rc = hs_admit(cfg, t);
        if (rc < 0) {
            if (t->c->srv->opt.log)
                tachy__log(t->c->srv, TACHY_LOG_DEBUG,
                           "TLS handshake refused: %d handshakes in progress (the cap) and "
                           "%d evicted ones not yet closed",
                           cfg->max_handshakes, cfg->max_handshakes / 8 + 1);
            t->logged = 1;
            return rc;
        }
        if (rc == 1 && t->c->srv->opt.log)
            tachy__log(t->c->srv, TACHY_LOG_DEBUG,
                       "TLS handshake cap (%d) full: the oldest handshake in progress evicted",
                       cfg->max_handshakes);
    }
    t->ssl = SSL_new(cfg->ctx);
    BIO *bio = t->ssl ? BIO_new(tachy__tls_bio_method) : NULL;
    if (!bio) {
        SSL_free(t->ssl);
        t->ssl = NULL;
        ERR_clear_error();
        return TACHY_ENOMEM; /* t->counted is given back by tls_free */
    }
    BIO_set_data(bio, t);
    SSL_set_bio(t->ssl, bio, bio);
    SSL_set_accept_state(t->ssl);
    return 0;
}

/* tls/internal.h */
void tachy__tls_hs_uncount(tls_conn *t, int at_free) {
    if (!t->counted)
        return;
    tachy_tls_config *cfg = t->c->srv->tls;
    pthread_mutex_lock(&cfg->hs_lock);
    if (t->hs == TLS_HS_LISTED) {
        hs_unlink(cfg, t);
        t->hs = TLS_HS_NONE;
    } else if (t->hs == TLS_HS_EVICTED && at_free) {
        cfg->evicted--;
        t->hs = TLS_HS_NONE;
    }
    int kept = t->hs != TLS_HS_NONE; /* evicted: counted until freed */
    pthread_mutex_unlock(&cfg->hs_lock);
    t->counted = kept;
}

/* tls/internal.h */
void tachy__tls_hs_report(tls_conn *t, int at_free) {
    if (t->hs_reported || !t->ssl)
        return; /* no ClientHello, no handshake to count */
    if (SSL_is_init_finished(t->ssl)) {
        t->hs_reported = 1;
        tachy__edge_tls_handshake(t->c->srv, -1);
        return;
    }
    if (!at_free)
        return;
    t->hs_reported = 1;
    int reason = t->hs_fail ? t->hs_fail - 1 : TACHY__TLS_FAIL_TIMEOUT;
    if (t->counted) { /* evicted: its socket was shut down, which it saw as EOF */
        pthread_mutex_lock(&t->c->srv->tls->hs_lock);
        if (t->hs == TLS_HS_EVICTED)
            reason = TACHY__TLS_FAIL_EVICTED;
        pthread_mutex_unlock(&t->c->srv->tls->hs_lock);
    }
    tachy__edge_tls_handshake(t->c->srv, reason);
}

/* tls/internal.h */
int tachy__tls_hello_arrived(tls_conn *t) {
    unsigned char h[5];
    ssize_t n;
    do
        n = recv(t->fd, h, sizeof h, MSG_PEEK | MSG_DONTWAIT);
    while (n < 0 && errno == EINTR);
    if (n == 0)
        return 0;
    if (n < 0)
        return errno == EAGAIN || errno == EWOULDBLOCK ? TACHY_ETIMEDOUT : tachy__io_errno(errno);
    if (h[0] != 22 /* handshake */ || (n >= 2 && h[1] != 3))
        return 1;
    if (n < (ssize_t)sizeof h)
        return TACHY_ETIMEDOUT;
    int body = h[3] << 8 | h[4];
    if (body > 16384 + 2048)
        return 1; /* over the record limit (RFC 8446 5.2): OpenSSL sends the alert */
    int avail = 0;
    if (ioctl(t->fd, FIONREAD, &avail) < 0)
        return 1;
    return avail >= (int)sizeof h + body ? 1 : TACHY_ETIMEDOUT;
}

int tachy__tls_start(tachy__conn *c) {
    pthread_once(&tachy__tls_bio_once, tachy__tls_bio_method_init);
    if (!tachy__tls_bio_method)
        return TACHY_ETLS;
    tls_conn *t = calloc(1, sizeof *t);
    if (!t)
        return TACHY_ENOMEM;
    t->c = c;
    t->fd = c->fd;
    /* No SSL object yet: tls_read makes it when the ClientHello has arrived (see above). */
    pthread_mutex_init(&t->lock, NULL);
    c->xp_data = t;
    c->xp = &tachy__tls_transport;
    /* The handshake must be done within tls_handshake_time_ms of accept (loop/accept.c set
     * the connection's first deadline to accept time + that, or + idleInterval if lower), so
     * a half-open handshake is closed long before a request deadline. */
    long first = atomic_load_explicit(&c->deadline, memory_order_relaxed);
    long hs = tachy__now_ms() + c->srv->opt.tls_handshake_time_ms;
    if (first <= 0 || hs < first) /* not set by the accept path: count from now */
        first = hs;
    c->hs_deadline = first;
    return 0;
}
