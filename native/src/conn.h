/*
 * conn.h - the server, context, connection and exchange structures shared by server.c,
 * conn.c and exchange.c. Private to the core; never installed.
 *
 * Locking: srv->lock guards the context list and every context's mutable fields, the
 * connection list and counters, the thread pool, and the server state. A connection's
 * own fields belong to its thread, except `fd` shutdown (under srv->lock) and the
 * exchange hand-off fields (under conn->lock).
 */
#ifndef TACHY_CONN_H
#define TACHY_CONN_H

#include "internal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>

/* Server states. */
enum { TACHY__SRV_CREATED, TACHY__SRV_STARTED, TACHY__SRV_STOPPING, TACHY__SRV_STOPPED };

typedef struct tachy__attr {
    char *name;
    void *value;
    void (*free_fn)(void *);
} tachy__attr;

struct tachy_context {
    tachy_server *srv;
    char *path;
    size_t path_len;
    int removed;        /* removed from the server; freed when refs drop to 0 */
    atomic_int refs;    /* 1 for the server's list + 1 per exchange using it */
    /* mutable, under srv->lock: */
    tachy_handler_fn handler;
    void *user;
    tachy_filter **filters;
    size_t nfilters, filters_cap;
    tachy_authenticator *auth;
    tachy__attr *attrs;
    size_t nattrs;
};

typedef struct tachy__conn tachy__conn;

/* What a request is allowed to do with the connection after its response. */
enum { TACHY__RSP_NONE, TACHY__RSP_FIXED, TACHY__RSP_CHUNKED, TACHY__RSP_UNTIL_CLOSE,
       TACHY__RSP_EMPTY };

struct tachy_stream {
    tachy__conn *conn;
    atomic_int shut;
};

struct tachy_exchange {
    tachy__conn *conn;
    tachy_context *ctx;
    /* request */
    tachy__buf strs;          /* method, uri, path, query, protocol (NUL-separated) */
    const char *method, *uri, *path, *query, *protocol;
    int http10;
    int is_head;
    tachy_headers *req_headers;
    tachy__framing framing;
    int64_t body_left;        /* fixed-length body bytes not yet read */
    tachy__chunked chunked;
    tachy__buf pending;       /* decoded chunk data not yet handed to the reader */
    int body_eof;             /* whole request body consumed */
    int body_closed;          /* request body stream closed */
    int body_error;           /* sticky read error */
    /* response */
    tachy_headers *rsp_headers;
    int rsp_code;
    int rsp_mode;             /* TACHY__RSP_* */
    int64_t rsp_left;         /* fixed-length bytes still to write */
    int rsp_done;             /* body complete (terminator written / length reached) */
    int rsp_closed;           /* response body stream closed */
    int closed;               /* tachy_exchange_close called */
    int deferred;             /* handler handed the exchange to another thread */
    int failed;               /* an I/O error or failure: connection must close */
    int upgraded;
    tachy_stream stream;
    /* attributes and principal */
    tachy__attr *attrs;
    size_t nattrs;
    char *principal_user, *principal_realm;
};

struct tachy__conn {
    tachy_server *srv;
    int fd;
    struct sockaddr_storage peer, local;
    socklen_t peer_len, local_len;
    tachy__buf rbuf, wbuf;
    int last_read_full;       /* the last recv filled all the space it was given */
    int idle;                 /* waiting for a request (counted in srv->nidle) */
    int in_handler;           /* running user code (counted in srv->nin_handler) */
    int close_after;          /* close after the current exchange */
    int shut;                 /* socket shut down by stop() */
    int served;               /* requests served on this connection */
    tachy__conn *prev, *next; /* srv->conns list */
    tachy__header_ref *refs;  /* parser output */
    size_t refs_cap;
    tachy_exchange ex;        /* reused for every request on this connection */
    /* deferred-close hand-off */
    pthread_mutex_t lock;
    pthread_cond_t cond;
};

/* A pooled connection thread. */
typedef struct tachy__worker {
    tachy_server *srv;
    tachy__conn *conn;        /* work handed over by the acceptor */
    pthread_cond_t cond;
    struct tachy__worker *next; /* srv->idle_workers stack */
} tachy__worker;

struct tachy_server {
    tachy_options opt;
    pthread_mutex_t lock;
    pthread_cond_t cond;      /* connection/thread counts changed */
    atomic_int refs;          /* 1 for the user + 1 per live pool thread */
    int state;
    int fd;                   /* listening socket or -1 */
    struct sockaddr_storage addr;
    socklen_t addr_len;
    int bound;
    pthread_t acceptor;
    int acceptor_started;
    tachy_context **contexts;
    size_t ncontexts, contexts_cap;
    tachy__conn *conns;
    int nconns, nidle, nin_handler;
    int nthreads;             /* live pool threads */
    tachy__worker *idle_workers;
    int destroyed;
    /* tachy_stats counters */
    atomic_uint_fast64_t st_connections, st_requests, st_reads, st_writes;
};

/* server.c */
void tachy__server_release(tachy_server *srv);
void tachy__context_release(tachy_context *ctx);
/* Finds the context for path and takes a reference, or NULL. Under srv->lock inside. */
tachy_context *tachy__server_acquire_context(tachy_server *srv, const char *path);
/* Marks the connection idle/busy for maxIdleConnections accounting. Returns 0, or -1 if the
 * connection must close (server stopping, or - with enforce_max, i.e. after a response, as
 * the JDK counts it - too many idle connections already). */
int tachy__server_conn_idle(tachy_server *srv, tachy__conn *c, int idle, int enforce_max);
void tachy__server_conn_in_handler(tachy_server *srv, tachy__conn *c, int in);

/* conn.c */
/* Serves one connection until it closes; frees it. Runs on a pool thread. */
void tachy__conn_serve(tachy__conn *c);
/* Sends everything in wbuf. 0 or a TACHY_E* code. */
int tachy__conn_flush(tachy__conn *c);
/* Sends buffered bytes followed by data (writev); 0 or TACHY_E*. */
int tachy__conn_send2(tachy__conn *c, const void *data, size_t len);
/* Reads more bytes into rbuf (blocking, with the connection's timeout); flushes pending
 * output first. Returns bytes read (> 0), 0 on EOF, or TACHY_E*. */
ssize_t tachy__conn_fill(tachy__conn *c);
/* The flush rule: called when a response is complete. Flushes unless more pipelined
 * request bytes are already buffered. */
int tachy__conn_response_done(tachy__conn *c);

/* Sends the JDK-format error response (code, static msg) and marks the connection for
 * closing. */
void tachy__conn_reject(tachy__conn *c, int code, const char *msg);
/* Unlinks a finished connection from the server and closes its socket. */
void tachy__server_conn_closed(tachy_server *srv, tachy__conn *c);

/* Write buffer size beyond which a response body is flushed while it is being written. */
#define TACHY__WBUF_FLUSH_AT (64 * 1024)

/* exchange.c */
/* Prepares c->ex for a parsed request. 0 or TACHY_E*. */
int tachy__exchange_begin(tachy_exchange *ex, tachy__conn *c, const tachy__request *req,
                          const tachy__framing *fr);
/* Cleans up after an exchange, keeping reusable memory. */
void tachy__exchange_end(tachy_exchange *ex);
void tachy__exchange_free(tachy_exchange *ex);
/* Finds the context, answers 100-continue, runs authenticator + filters + handler and
 * closes the exchange (or waits for a deferred close). Returns 0 if the connection may
 * serve another request, -1 if it must close. */
int tachy__exchange_dispatch(tachy_exchange *ex);

#endif
