/*
 * conn.h - the server, context, connection and exchange structures shared by server.c,
 * conn.c and exchange.c. Private to the core; never installed.
 *
 * Locking: srv->lock guards the context list and every context's mutable fields, the
 * connection list, slot table and counters, the thread pool, and the server state. A
 * connection's own fields belong to the thread that owns it (see below), except `fd`
 * shutdown (under srv->lock) and the exchange hand-off fields (under conn->lock).
 */
#ifndef TACHY_CONN_H
#define TACHY_CONN_H

#include "internal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <sys/uio.h>

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

/*
 * The transport seam: how a connection's bytes travel. Plain TCP is c->xp == NULL and is
 * done inline with recv/sendmsg (one predictable branch, no call); any other transport
 * (tls.c's OpenSSL; later a foreign one driven by a Java SSLEngine) fills this table.
 * Connection-mode functions run on the thread that owns the connection and use the
 * socket's SO_RCVTIMEO/SO_SNDTIMEO like the plain path; stream-mode functions (after an
 * upgrade) may run concurrently from a reader and a writer thread.
 */
typedef struct tachy__transport {
    /* Reads up to len bytes. flags: 0 (block, bounded by SO_RCVTIMEO) or MSG_DONTWAIT.
     * Like recv on a socket, a result below len means the socket was drained at that
     * moment (so edge-triggered epoll reports what comes next). > 0 bytes, 0 at EOF,
     * TACHY_ETIMEDOUT (nothing there / timeout) or another TACHY_E*. */
    ssize_t (*read)(tachy__conn *c, void *buf, size_t len, int flags);
    /* Writes every byte of iov[0..cnt) (blocking, bounded by SO_SNDTIMEO). 0 or TACHY_E*. */
    int (*writev)(tachy__conn *c, const struct iovec *iov, int cnt);
    /* Bytes already received and decoded inside the transport, which a read returns
     * without the socket becoming readable again: must be read before parking. */
    int (*pending)(const tachy__conn *c);
    /* 1 once the transport's own handshake is complete. */
    int (*ready)(const tachy__conn *c);
    /* Upgraded streams: waits at most timeout_ms (-1 forever) per wait; shut is the
     * stream's shutdown flag. Same results as tachy_stream_read / tachy_stream_write. */
    ssize_t (*stream_read)(tachy__conn *c, void *buf, size_t len, int timeout_ms,
                           atomic_int *shut);
    ssize_t (*stream_write)(tachy__conn *c, const void *buf, size_t len, int timeout_ms,
                            atomic_int *shut);
    /* Ends the session politely before a lingering close (close_notify), never blocking. */
    void (*shutdown)(tachy__conn *c);
    /* Releases the transport (after shutdown if that was not called); c->xp becomes NULL. */
    void (*free)(tachy__conn *c);
} tachy__transport;

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
    const tachy__header_ref *lazy; /* parsed fields not yet in req_headers (see begin) */
    size_t nlazy;
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
    int64_t rsp_length_header; /* the Content-length value the head carried, -1 for none */
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

/*
 * Connection ownership (pool.c). A connection is either OWNED by exactly one thread, which
 * serves it with blocking semantics, or PARKED in the server's epoll set waiting for its
 * next request. state packs a generation (bits 2..63) with the kind (bits 0..1); epoll
 * events carry (slot, generation), so an event that arrives for a connection that has
 * since been closed and its slot reused is recognised and ignored. Connection structs
 * live in a slot table and are never freed while the server exists.
 */
enum { TACHY__CONN_PARKED = 0, TACHY__CONN_OWNED = 1, TACHY__CONN_PENDING = 2,
       TACHY__CONN_FREE = 3 };

struct tachy__conn {
    /* identity and synchronisation: kept when the slot is reused */
    tachy_server *srv;
    atomic_uint_fast64_t state; /* (generation << 2) | TACHY__CONN_* */
    uint32_t slot;            /* index in the server's slot table */
    pthread_mutex_t lock;     /* deferred-close hand-off */
    pthread_cond_t cond;
    /* everything from fd on is reset for each new socket */
    int fd;
    const tachy__transport *xp; /* NULL: plain socket (the fast path); see tachy__transport */
    void *xp_data;            /* the transport's per-connection state */
    long hs_deadline;         /* ms: the transport's handshake must be done by then */
    struct sockaddr_storage peer, local;
    socklen_t peer_len, local_len;
    tachy__buf rbuf, wbuf;
    int last_read_full;       /* the last recv filled all the space it was given */
    atomic_int peer_hup;      /* an event said the peer shut down its side: read to EOF
                                 before parking (that edge will not come again) */
    char peer_host[48], local_host[48]; /* numeric hosts, formatted once per connection */
    int peer_port, local_port;
    int addr_cached;          /* bit 1: peer, bit 2: local */
    int parked_idle;          /* parked between requests (counted in srv->nidle) */
    atomic_int in_handler;    /* running user code: stop() does not wait for it */
    int close_after;          /* close after the current exchange */
    atomic_int shut;          /* socket shut down by stop() */
    int started;              /* per-connection setup done */
    int served;               /* requests served on this connection */
    long head_started;        /* ms: first byte of the current request head */
    atomic_long deadline;     /* ms: a parked connection times out then */
    atomic_long io_deadline;  /* ms: maxReqTime / maxRspTime for the exchange in progress
                                 (0 = none); the watchdog shuts the socket down after it */
    tachy__conn *prev, *next; /* srv->conns list (open connections) */
    tachy__conn *next_free;   /* srv->free_conns list */
    tachy__header_ref *refs;  /* parser output */
    size_t refs_cap;
    tachy_exchange ex;        /* reused for every request on this connection */
};

/* A pool thread's record: joined once it has exited, so no thread outlives stop() unseen. */
typedef struct tachy__thread {
    tachy_server *srv;
    pthread_t tid;
    int done;                 /* exited (under srv->lock) */
    int detached;             /* left running in a handler past stop(): not joined */
    struct tachy__thread *next;
} tachy__thread;

#define TACHY__SLOT_CHUNK 256    /* connections per slot-table chunk */
#define TACHY__SLOT_CHUNKS 16384 /* chunks: up to 4M connections */

struct tachy_server {
    tachy_options opt;
    tachy_tls_config *tls;    /* HTTPS when set (before start; one reference held) */
    pthread_mutex_t lock;
    pthread_cond_t cond;      /* connection/thread counts changed */
    atomic_int refs;          /* 1 for the user + 1 per live pool thread */
    atomic_int state;
    int fd;                   /* listening socket or -1 */
    struct sockaddr_storage addr;
    socklen_t addr_len;
    int bound;
    int destroyed;
    pthread_t watchdog;
    int watchdog_started;
    atomic_int accept_retry;  /* accept() failed for lack of resources: watchdog retries */
    tachy_context **contexts;
    size_t ncontexts, contexts_cap;
    /* connections (pool.c) */
    int epfd;                 /* the park set: parked connections, edge-triggered */
    int wakefd;               /* eventfd in epfd: made readable to wake every waiter */
    tachy__conn **slots;      /* TACHY__SLOT_CHUNKS chunk pointers (allocated at start, a
                                 zero-page mapping: untouched until connections come) */
    uint32_t nslots;
    tachy__conn *free_conns;
    tachy__conn *conns;       /* open connections */
    int nconns;
    atomic_int nidle;         /* parked between requests */
    /* threads (pool.c) */
    int nthreads;             /* live pool threads (under lock) */
    tachy__thread *threads;   /* records of pool threads not yet joined */
    int nspare;               /* threads parked on spare_cond */
    int max_waiters;          /* threads allowed in epoll_wait at once (= usable CPUs) */
    atomic_int nwaiting;      /* threads in (or entering) epoll_wait */
    atomic_uint_fast64_t progress; /* bumped whenever a thread takes an event */
    /* Events taken from epoll in a batch and not yet claimed: any thread may take them,
     * so a thread that blocks in a handler never holds other connections' events. */
    pthread_mutex_t ready_lock;
    uint64_t *ready;          /* ring of event tokens */
    uint32_t ready_head, ready_count, ready_cap;
    pthread_cond_t spare_cond;
    pthread_cond_t wd_cond;
    /* tachy_stats counters */
    atomic_uint_fast64_t st_connections, st_requests, st_reads, st_writes;
};

/* server.c */
void tachy__server_release(tachy_server *srv);
void tachy__context_release(tachy_context *ctx);
/* The context serving path (the JDK's longest-prefix rule), or NULL. srv->lock held. */
tachy_context *tachy__server_find_context_locked(tachy_server *srv, const char *path);

/* pool.c */
/* Creates the park set and the watchdog; called by tachy_server_start with the lock held. */
int tachy__pool_start(tachy_server *srv);
/* Puts the listening socket in the park set (pool threads accept from it) and starts the
 * first pool thread. Lock held, state already STARTED. */
int tachy__pool_listen(tachy_server *srv);
/* Stops accepting: the listening socket leaves the park set and is shut down (closed by
 * the caller once the pool threads are gone). Lock held. */
void tachy__pool_unlisten(tachy_server *srv);
/* stop(delay) steps 2-4: closes parked connections, waits at most delay_seconds for the
 * others, closes everything, wakes and waits for every pool thread. Lock held. */
void tachy__pool_stop(tachy_server *srv, int delay_seconds);
/* Frees the slot table and closes the park set (destroy). */
void tachy__pool_free(tachy_server *srv);
/*
 * Parks c (owned by the caller) in the park set until its next request, with a deadline
 * (ms, monotonic) after which the watchdog closes it. Returns 1 if parked (the caller no
 * longer owns c), 0 if an event arrived meanwhile and the caller still owns it (read
 * again), -1 if it must be closed instead (stopping, or too many idle connections).
 */
int tachy__pool_park(tachy__conn *c, int idle, long deadline);
/* The calling pool thread is about to be busy for a long time (an upgraded connection,
 * a deferred exchange): if nobody waits for events, bring in a thread now rather than at
 * the watchdog's next tick. */
void tachy__pool_long_task(tachy_server *srv);
/* Closes c (owned by the caller): socket, buffers; returns its slot to the pool. */
void tachy__pool_close(tachy__conn *c);
/* Monotonic milliseconds. */
long tachy__now_ms(void);

/* conn.c */
/* Serves c (owned by the calling thread) until it would wait for a request: then parks
 * it, or closes it. Runs on a pool thread. */
void tachy__conn_run(tachy__conn *c);
/* Releases a closed connection's memory except the struct itself (pool.c reuses it). */
void tachy__conn_cleanup(tachy__conn *c);
/* Sends everything in wbuf. 0 or a TACHY_E* code. */
int tachy__conn_flush(tachy__conn *c);
/* A socket call's errno as a TACHY_E* code: EAGAIN (a socket timeout) TACHY_ETIMEDOUT,
 * EPIPE/ECONNRESET TACHY_EPEERCLOSED, ENOMEM/ENOBUFS TACHY_ENOMEM, else TACHY_EIO. */
int tachy__errno_code(int e);
/* Waits until fd is ready for events (POLLIN/POLLOUT), at most timeout_ms (< 0: no
 * limit): 0, TACHY_ETIMEDOUT or TACHY_EIO. */
int tachy__wait_fd(int fd, short events, int timeout_ms);
/* Sends what wbuf holds, then len bytes of file fd from *off (advanced by what was sent)
 * with sendfile(2). TACHY_ENOTSUP, with nothing of the file sent, when the transport
 * encrypts (TLS) or fd is not something sendfile reads: the caller copies instead.
 * TACHY_ESHORT if the file ends first. Owner thread. */
int tachy__conn_send_file(tachy__conn *c, int fd, int64_t *off, int64_t len);
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

/* Write buffer size beyond which a response body is flushed while it is being written. */
#define TACHY__WBUF_FLUSH_AT (64 * 1024)

/* tls.c - the OpenSSL transport */
/* Sets up TLS on c (srv->tls set), on its first ownership. 0 or TACHY_E*. */
int tachy__tls_start(tachy__conn *c);
/* Drops the server's reference to its configuration (server destruction). */
void tachy__tls_config_release(tachy_tls_config *cfg);

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
