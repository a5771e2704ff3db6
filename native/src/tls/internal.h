/*
 * tls/internal.h - what the files of tls/ share: the config and per-connection structs,
 * and the calls between them. Private to tls/ (nothing outside it includes this).
 *
 *   ossl.c       libssl loaded with dlopen; ossl.h: the function table and its #defines
 *   bio.c        the BIO: recv/send on the connection's socket, the cork (collected records)
 *   handshake.c  setting a connection's TLS up, the ClientHello wait, the handshake cap
 *   transport.c  the connection's transport: read, writev, streams, shutdown, free
 *   config.c     tachy_tls_config (SSL_CTX, certificates, client auth, options), the server
 *   session.c    the HttpsExchange accessors (getSSLSession(): protocol, suite, peer...)
 */
#ifndef TACHY__SRC_TLS_INTERNAL_H
#define TACHY__SRC_TLS_INTERNAL_H

#include "tls/tls.h"
#include "tls/ossl.h"

#include <pthread.h>
#include <stdatomic.h>

#define CORK_FLUSH_AT (64 * 1024) /* collected records leave once this much is waiting */
#define CORK_KEEP (32 * 1024)     /* a larger collection buffer is freed after the flush */

typedef struct tls_conn tls_conn;

struct tachy_tls_config {
    SSL_CTX *ctx;
    atomic_int refs;
    atomic_int frozen; /* given to a server: read-only */
    int loaded;        /* certificate and key in place */
    X509_STORE *client_cas; /* trust anchors for client certificates (NULL: none added) */
    int client_auth;   /* TACHY_TLS_CLIENT_AUTH_* */
    int max_handshakes; /* SSL objects in handshake at once (0: no cap) */
    /* The handshake cap's bookkeeping (handshake.c), under hs_lock. Shared by every
     * server given this config. */
    pthread_mutex_t hs_lock;
    tls_conn *hs_head, *hs_tail; /* handshakes in progress, oldest first */
    int handshakes;    /* in that list */
    int evicted;       /* evicted from it (socket shut down), not yet freed */
};

/* tls_conn.hs: where a connection is in its config's handshake bookkeeping (hs_lock). */
enum { TLS_HS_NONE, TLS_HS_LISTED, TLS_HS_EVICTED };

struct tls_conn {
    SSL *ssl;
    tachy__conn *c;
    int fd;
    int io_flags;      /* recv/send flags for the BIO: 0 or MSG_DONTWAIT */
    int cork;          /* BIO writes are collected in out */
    int sys_errno;     /* errno of the last failed send/recv in the BIO */
    int fatal;         /* an SSL or I/O error: no close_notify */
    int notified;      /* close_notify sent */
    int logged;        /* the one debug line per connection was written */
    int hs_reported;   /* the handshake's end went to the metrics (edge/metrics.c) */
    int hs_fail;       /* 1 + TACHY__TLS_FAIL_* once the handshake has failed, else 0 */
    int counted;       /* owner's view: t has a place in the handshake bookkeeping (listed
                          or evicted) that tachy__tls_hs_uncount has not given back yet */
    int hs;            /* TLS_HS_*, under cfg->hs_lock */
    tls_conn *hs_prev, *hs_next; /* cfg's list of handshakes in progress (hs_lock) */
    tachy__buf out;    /* collected records (cork) */
    pthread_mutex_t lock; /* stream mode: one SSL call at a time */
};

static inline tls_conn *TLS(const tachy__conn *c) { return (tls_conn *)c->xp_data; }

/* ---- bio.c ------------------------------------------------------------------------------ */

/* The BIO method (made once per process by tachy__tls_bio_method_init, through
 * tachy__tls_bio_once; NULL if that failed). */
extern BIO_METHOD *tachy__tls_bio_method;
extern pthread_once_t tachy__tls_bio_once;
void tachy__tls_bio_method_init(void);
/* Sends everything collected (blocking, bounded by SO_SNDTIMEO). 0 or -1 with sys_errno.
 * Owner thread (or a stream call under t->lock). */
int tachy__tls_out_flush(tls_conn *t);

/* ---- handshake.c ---------------------------------------------------------------------- */

/* The handshake's end for the metrics, once per connection that made an SSL object: done
 * (at the read that finished it) or failed (at tls_free: the reason fail_code noted, else
 * evicted or closed unfinished). Owner thread. */
void tachy__tls_hs_report(tls_conn *t, int at_free);

/* 1 when the first TLS record is complete in the socket's receive queue (or what came is no
 * TLS handshake record, for OpenSSL to reject), TACHY_ETIMEDOUT while it is incomplete, 0 at
 * EOF, else TACHY_E*. Never consumes a byte. Owner thread. */
int tachy__tls_hello_arrived(tls_conn *t);
/* Makes t's SSL object (the first ClientHello record has arrived), taking a place in the
 * handshake cap (evicting the oldest handshake if it is full). 0 or TACHY_E*. Owner
 * thread; takes cfg->hs_lock. */
int tachy__tls_new_ssl(tls_conn *t);
/* Gives back t's place in the cap: at_free 0 when its handshake is done (an evicted
 * connection keeps its count until it is freed), 1 when t is freed (always). Owner thread;
 * takes cfg->hs_lock when t has a place. */
void tachy__tls_hs_uncount(tls_conn *t, int at_free);

/* ---- transport.c ---------------------------------------------------------------------- */

/* The transport table of a TLS connection (c->xp == &tachy__tls_transport). */
extern const tachy__transport tachy__tls_transport;

#endif
