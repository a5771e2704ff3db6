/*
 * http/http.h - one HTTP/1.1 connection and its exchanges: the connection struct and the
 * transport seam, the exchange, and the calls between the files of http/. Private to the
 * core; never installed.
 *
 *   parser.c    request head and framing (pure; parser.h)
 *   chunked.c   the chunked decoder (pure; parser.h; lex.h: the character classes both use)
 *   target.c    request-target acceptance, path and query, percent-decoding (pure)
 *   io.c        every socket call, the errno map, the stats counters, the transport seam
 *   conn.c      the loop: read -> parse -> begin -> dispatch -> end -> park; the flush rule
 *   exchange.c  the exchange's state, getters, request body, attributes, upgrade
 *   response.c  the framing decision, the head, body writes, reason phrases, rejects
 *   dispatch.c  context, 100-continue, filters, authenticator, handler, deferred close
 *   headers.c   Headers
 *
 * http/ includes base/, server/ and edge/ (one call: the PROXY header, http/conn.c; the
 * metrics observer, exchange.c and response.c); tls/, ws/ and loop/ include http/. A connection's
 * fields belong to the thread that owns it (loop/loop.h says how ownership moves), except
 * `fd` shutdown and `shut` (stop() and the watchdog shut a socket down under srv->lock; a
 * TLS handshake eviction under its config's hs_lock, tls/handshake.c: each lock keeps the
 * descriptor from being closed and reused meanwhile) and the exchange hand-off fields
 * (under conn->lock).
 */
#ifndef TACHY__SRC_HTTP_HTTP_H
#define TACHY__SRC_HTTP_HTTP_H

#include "base/base.h"
#include "edge/edge.h"
#include "http/parser.h"
#include "server/server.h"

#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

/* ---- headers.c ---------------------------------------------------------------------- */

/* Adds without validation of CR/LF (the parser has validated). name normalised. */
int tachy__headers_add_trusted(tachy_headers *h, const char *name, size_t nlen,
                               const char *value, size_t vlen);
/* Checks name and value for CR, LF, NUL (a response header must never carry them):
 * 0 or TACHY_EBADHEADER. */
int tachy__headers_validate(const tachy_headers *h);
/* Headers.normalize of src[0,n) into dst (dst may be src): the first byte upper-cased if
 * it is a-z, every other A-Z lower-cased, other bytes untouched. Any thread. */
void tachy__headers_normalize_n(char *dst, const char *src, size_t n);
/* tachy_headers_next with the lengths it already knows (the response head is written from
 * it). Owner thread. */
int tachy__headers_next_n(const tachy_headers *h, size_t *cursor, const char **name,
                          size_t *nlen, const char **value, size_t *vlen);

/* ---- the connection and the transport seam ------------------------------------------ */

typedef struct tachy__conn tachy__conn;

/* A connection's socket address: IPv4 or IPv6, the only families a tachy server listens
 * on. 28 bytes instead of sockaddr_storage's 128 (twice per connection slot). */
typedef union tachy__sockaddr {
    struct sockaddr sa;
    struct sockaddr_in in;
    struct sockaddr_in6 in6;
} tachy__sockaddr;

/*
 * The transport seam: how a connection's bytes travel. Plain TCP is c->xp == NULL and is
 * done inline with recv/sendmsg (one predictable branch, no call); any other transport
 * (tls/transport.c's OpenSSL; later a foreign one driven by a Java SSLEngine) fills this table.
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

/* The next response header of a head being sent (response.c's source: the headers object
 * or a caller's field array): 1 with name/value set, 0 at the end. */
typedef int (*tachy__field_next)(void *src, const char **name, size_t *nl, const char **value,
                                 size_t *vl);

/*
 * The exchange seam: how an exchange's bytes travel when it is not HTTP/1.1 on its
 * connection. HTTP/1.1 is ex->ops == NULL and is done inline (exchange.c, response.c: the
 * bytes go through c->rbuf and c->wbuf), as plain TCP is for the transport seam; an
 * HTTP/2 stream (h2/stream.c) fills this table. Everything above - the JDK's framing
 * decision, the state checks, filters, authenticators, contexts, the JNI bridge - is the
 * same for both. Each function runs on the thread that has the exchange, and may block
 * unless the exchange is held (tachy_exchange_hold: then TACHY_EWOULDBLOCK, or the bytes
 * stay buffered).
 */
typedef struct tachy__exchange_ops {
    /* Request body bytes: > 0, 0 at its end, or TACHY_E*. */
    ssize_t (*read)(tachy_exchange *ex, void *buf, size_t len);
    /* Body bytes a read returns without waiting. */
    ssize_t (*available)(tachy_exchange *ex);
    /* The request body is closed: what is left of it is discarded as it comes. */
    void (*discard)(tachy_exchange *ex);
    /* The response head: code, the content-length to declare (-1: none), end: no body
     * follows; the handler's headers from next(src) (tachy owns Date and the framing). */
    int (*head)(tachy_exchange *ex, int code, int64_t content_length, int end,
                tachy__field_next next, void *src);
    /* Body bytes (unframed). */
    int (*body)(tachy_exchange *ex, const void *buf, size_t len);
    /* Sends what is buffered: wait = 0 only tries (0 when nothing is left, 1 when bytes
     * are), or TACHY_E*. */
    int (*flush)(tachy_exchange *ex, int wait);
    /* The response is complete (ok) or broken (ok = 0: the peer must not take it for whole). */
    int (*end)(tachy_exchange *ex, int ok);
    /* An interim 1xx response before the final one. */
    int (*interim)(tachy_exchange *ex, int code);
    /* The exchange was closed (tachy_exchange_close / abort) on the calling thread. */
    void (*closed)(tachy_exchange *ex);
    /* tachy_exchange_hold and tachy_exchange_held_bytes. */
    int (*hold)(tachy_exchange *ex, int on);
    int (*held_bytes)(const tachy_exchange *ex);
} tachy__exchange_ops;

struct tachy_exchange {
    tachy__conn *conn;
    const tachy__exchange_ops *ops; /* NULL: HTTP/1.1 on conn, inline; else the codec's */
    tachy_context *ctx;
    /* request */
    tachy__buf strs;          /* method, uri, path, query, protocol (NUL-separated) */
    const char *method, *uri, *path, *query, *protocol;
    size_t path_len;          /* the decoded path's length (NUL bytes in it: opt.path_nul) */
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
    int64_t rsp_bytes;        /* body bytes written (tachy_exchange_response_bytes) */
    int rsp_done;             /* body complete (terminator written / length reached) */
    int rsp_closed;           /* response body stream closed */
    int closed;               /* tachy_exchange_close called */
    int deferred;             /* handler handed the exchange to another thread */
    int handler_failed;       /* ... and failed after it did (dispatch.c -> loop/states.c) */
    unsigned defer_flags;     /* TACHY_DEFER_* given to tachy_exchange_defer_flags */
    int close_harvest;        /* closed with TACHY_CLOSE_HARVEST (set just before the close
                                 takes effect; conn.c passes it on to loop/) */
    int failed;               /* an I/O error or failure: connection must close */
    int64_t t0_ns;            /* CLOCK_MONOTONIC ns when the head was parsed (metrics) */
    int upgraded;
    tachy_stream stream;
    /* attributes and principal */
    tachy__attr *attrs;
    size_t nattrs;
    char *principal_user, *principal_realm;
};

struct tachy__conn {
    /* identity and synchronisation: kept when the slot is reused */
    tachy_server *srv;
    atomic_uint_fast64_t state; /* the ownership word: (generation << 2) | kind, loop/loop.h */
    uint32_t slot;            /* index in the pool's slot table */
    pthread_mutex_t lock;     /* deferred-close hand-off: ex.closed and lent */
    pthread_cond_t cond;
    /* An event said the peer shut down its side: read to EOF before parking (that edge
     * will not come again). Set by tachy__loop_claim, which may run late for a socket
     * already closed (it checks the generation first, then sets this): it lives outside
     * the reset below, cleared atomically, and a stale mark costs one read that finds
     * nothing. */
    atomic_int peer_hup;
    /* everything from fd on is reset for each new socket */
    int fd;
    const tachy__transport *xp; /* NULL: plain socket (the fast path); see tachy__transport */
    void *xp_data;            /* the transport's per-connection state */
    long hs_deadline;         /* ms: the transport's handshake must be done by then */
    tachy__sockaddr peer, local; /* local: read when first asked (exchange.c) */
    socklen_t peer_len, local_len;
    /* tachy_options.proxy_protocol: the socket's own peer (the balancer), saved when the
     * PROXY header made peer the client's (edge/listener.c); lb_len 0 until then. */
    tachy__sockaddr lb;
    socklen_t lb_len;
    int backlog_drain;        /* accepted by stop()'s SO_REUSEPORT backlog drain (written
                                 by loop/accept.c only, read under srv->lock) */
    tachy__buf rbuf, wbuf;
    int last_read_full;       /* the last recv filled all the space it was given */
    int rsp_sent;             /* bytes went out since the current response's head was built
                                 (its head alone, a flush): with Nagle on, its last piece
                                 is pushed (tachy__io_flush_end) */
    char peer_host[48], local_host[48]; /* numeric hosts, formatted once per connection */
    int peer_port, local_port;
    int addr_cached;          /* bit 1: peer, bit 2: local */
    int parked_idle;          /* parked between requests (counted in srv->nidle) */
    int drain_idle;           /* parked_idle when a drain claimed it (loop/states.c) */
    atomic_int in_handler;    /* running user code: stop() does not wait for it */
    int close_after;          /* close after the current exchange */
    int held;                 /* output held: no socket call writes (tachy_exchange_hold) */
    int lent;                 /* a deferred exchange has the connection: no pool thread
                                 serves it until the exchange's close resumes it (under
                                 lock; see loop/states.c) */
    int resume;               /* TACHY__RESUME_*: the deferred exchange was closed, the next
                                 run ends it first (loop/states.c sets it) */
    int carry_read;           /* the run's must_read when it returned TACHY__CONN_NEXT_LEND */
    int resume_close;         /* ... and then closes the connection (a closer gave up) */
    atomic_int shut;          /* socket shut down: by stop(), the watchdog (maxReqTime...)
                                 or a TLS handshake eviction (tls/handshake.c) */
    int started;              /* per-connection setup done */
    int lingering;            /* closing: input is discarded until EOF or the deadline */
    size_t linger_bytes;      /* ... this many so far (capped: TACHY__LINGER_BYTES) */
    long linger_until;        /* ms: ... until then (the watchdog closes it) */
    int served;               /* requests served on this connection */
    long head_started;        /* ms: first byte of the current request head */
    atomic_long deadline;     /* ms: a parked connection times out then */
    atomic_long io_deadline;  /* ms: maxReqTime / maxRspTime for the exchange in progress
                                 (0 = none); the watchdog shuts the socket down after it */
    tachy__conn *prev, *next; /* the pool's list of open connections */
    tachy__conn *next_free;   /* the pool's free list */
    tachy__conn *next_ready;  /* the pool's list of resumed connections (loop/workers.c; */
    int in_resumed;           /* both under its ready_lock) */
    tachy__header_ref *refs;  /* parser output */
    size_t refs_cap;
    size_t host_ok_len;       /* the last Host value found valid on this connection (a */
    char host_ok[48];         /* client sends the same one each time: checked once) */
    tachy_exchange ex;        /* reused for every request on this connection (HTTP/1.1) */
    /* HTTP/2 (h2/): the session, once the connection has switched (TACHY__CONN_NEXT_H2);
     * then its streams are exchanges of their own and ex is unused. alpn_h2: the TLS
     * handshake chose "h2" (tls/ sets it). */
    struct tachy__h2 *h2;
    int alpn_h2;
};

/* ---- io.c: every socket call ------------------------------------------------------------ */

/*
 * recv() and send() on the request path, without glibc's cancellation wrappers: in a
 * multi-threaded process each cancellable call enables and disables asynchronous
 * cancellation around the system call (two atomic read-modify-writes, a few percent of a
 * keep-alive request's CPU in perf). tachy never cancels threads, and a JNI-attached
 * thread must not be cancelled anyway. Same results and errno as recv()/send().
 */
#if defined(__SANITIZE_THREAD__)
/* ThreadSanitizer learns from its send/recv interceptors that data passed through a socket
 * orders the threads on both ends; raw system calls would hide that from it. */
static inline ssize_t tachy__recv(int fd, void *buf, size_t len, int flags) {
    return recv(fd, buf, len, flags);
}
static inline ssize_t tachy__send(int fd, const void *buf, size_t len, int flags) {
    return send(fd, buf, len, flags);
}
#else
static inline ssize_t tachy__recv(int fd, void *buf, size_t len, int flags) {
    return syscall(SYS_recvfrom, fd, buf, len, flags, NULL, NULL);
}
static inline ssize_t tachy__send(int fd, const void *buf, size_t len, int flags) {
    return syscall(SYS_sendto, fd, buf, len, flags, NULL, 0);
}
#endif

/* A socket call's errno as a TACHY_E* code: EAGAIN (a socket timeout) TACHY_ETIMEDOUT,
 * EPIPE/ECONNRESET TACHY_EPEERCLOSED, ENOMEM/ENOBUFS TACHY_ENOMEM, else TACHY_EIO. */
int tachy__io_errno(int e);
/* Waits until fd is ready for events (POLLIN/POLLOUT), at most timeout_ms (< 0: no
 * limit): 0, TACHY_ETIMEDOUT or TACHY_EIO. */
int tachy__io_wait(int fd, short events, int timeout_ms);
/* One read into rbuf (flags: 0 = blocking, bounded by SO_RCVTIMEO, or MSG_DONTWAIT).
 * Bytes (> 0), 0 at EOF, or TACHY_E* (TACHY_ETIMEDOUT: nothing there / the timeout).
 * Sets c->last_read_full. Owner thread. */
ssize_t tachy__io_read(tachy__conn *c, int flags);
/* Flushes pending output, then one blocking read into rbuf. Bytes (> 0), 0 on EOF, or
 * TACHY_E*. Owner thread. */
ssize_t tachy__io_fill(tachy__conn *c);
/* Flushes pending output, then one blocking read of body bytes straight into buf (no copy
 * through rbuf). Bytes, 0 at EOF, or TACHY_E*. Owner thread. This and tachy__io_fill ask
 * the pool for another thread (tachy__server_blocking) before they wait, so a slow body
 * never holds up other connections. */
ssize_t tachy__io_read_body(tachy__conn *c, void *buf, size_t len);
/* The flush rule (io.c): called when a response is complete. Flushes unless more
 * pipelined request bytes are already buffered (or readable right now). 0 or TACHY_E*.
 * Owner thread. */
int tachy__io_response_done(tachy__conn *c);
/* Sends everything in wbuf. 0 or a TACHY_E* code. Owner thread. */
int tachy__io_flush(tachy__conn *c);
/* Sends everything in wbuf as the end of a response: when TCP_NODELAY is off and part of
 * this response already went out, Nagle would hold this last small piece until the client
 * acknowledges the earlier one (~40 ms of delayed ACK), so TCP_NODELAY is set around the
 * send and cleared after it. Otherwise tachy__io_flush. Owner thread. */
int tachy__io_flush_end(tachy__conn *c);
/* tachy__io_flush_end without waiting: sends what the socket takes now. 0 when wbuf is
 * empty after it, 1 when bytes are left (the socket is full, or the transport is not plain
 * TCP: nothing is sent then), or TACHY_E*. Owner thread. */
int tachy__io_flush_end_nowait(tachy__conn *c);
/* Sends buffered bytes followed by data (one writev); 0 or TACHY_E*. Owner thread. */
int tachy__io_send2(tachy__conn *c, const void *data, size_t len);
/* Sends what wbuf holds, then len bytes of file fd from *off (advanced by what was sent)
 * with sendfile(2). TACHY_ENOTSUP, with nothing of the file sent, when the transport
 * encrypts (TLS) or fd is not something sendfile reads: the caller copies instead.
 * TACHY_ESHORT if the file ends first. Owner thread. */
int tachy__io_send_file(tachy__conn *c, int fd, int64_t *off, int64_t len);
/* A lingering close, after an error response: the kernel must not answer the client's
 * unread bytes with an RST that destroys the response, so input is discarded for a while
 * (<= TACHY__LINGER_BYTES, <= TACHY__LINGER_MS) after the transport's close_notify and a
 * half-close. The waiting happens in the park set, not on a thread (loop/workers.c):
 * tachy__io_linger_begin shuts the sending side down (0; -1 when the socket is shut
 * already: close at once), tachy__io_linger_drain discards what is there without waiting
 * (1: more may come, park it; 0: EOF, an error or the byte cap - close). Owner thread. */
#define TACHY__LINGER_MS 500
#define TACHY__LINGER_BYTES (256 * 1024)
int tachy__io_linger_begin(tachy__conn *c);
int tachy__io_linger_drain(tachy__conn *c);
/* The connection becomes a raw stream (after a 101): reads wait with poll(), not with the
 * socket's receive timeout. Owner thread. */
void tachy__io_stream_mode(tachy__conn *c);

/* One non-blocking send on a plain upgraded stream's socket (a broadcast's fan-out, which
 * must not wait for one slow peer): bytes sent (> 0), TACHY_ETIMEDOUT when the socket's
 * buffer is full, or TACHY_EPEERCLOSED / TACHY_EIO. Any thread (the caller serialises the
 * stream's writers). */
ssize_t tachy__io_send_nowait(int fd, const void *buf, size_t len);
/* poll(2) over n sockets: how many are ready, 0 on timeout or EINTR, TACHY_EIO. */
struct pollfd;
int tachy__io_poll(struct pollfd *pfd, size_t n, int timeout_ms);

/* Write buffer size beyond which a response body is flushed while it is being written. */
#define TACHY__WBUF_FLUSH_AT (64 * 1024)

/* ---- conn.c: the loop ------------------------------------------------------------------ */

/* What the loop wants done with the connection when it returns. */
typedef enum tachy__conn_next {
    TACHY__CONN_NEXT_PARK,  /* wait in the park set for the next bytes, until deadline */
    TACHY__CONN_NEXT_CLOSE, /* close it (already flushed) */
    TACHY__CONN_NEXT_LINGER, /* a lingering close (tachy__io_linger_begin done): park it
                               until its peer's EOF or the linger deadline, discarding
                               input (tachy__io_linger_drain), then close it */
    TACHY__CONN_NEXT_LEND,  /* the handler returned with its exchange deferred: the loop
                               lends it the connection unless it is closed already
                               (loop/states.c); its close resumes it */
    TACHY__CONN_NEXT_POOL,  /* (closer runs only) the next step may block: a pool thread
                               must continue it */
    TACHY__CONN_NEXT_H2,    /* switch to HTTP/2 (h2/): rbuf holds the client's preface
                               (prior knowledge, or ALPN "h2") or an "Upgrade: h2c"
                               request, not consumed */
    TACHY__CONN_NEXT_HOLD   /* (HTTP/2) closing, but exchanges of its streams still run:
                               nobody owns the connection until the last one ends, which
                               requeues it (srv->loop_requeue) */
} tachy__conn_next;

/*
 * Serves c (owned by the caller) until it would wait for bytes: returns
 * TACHY__CONN_NEXT_PARK with *idle (no request begun: counted as idle) and *deadline (ms,
 * monotonic: the watchdog closes it then), TACHY__CONN_NEXT_CLOSE, _LINGER, _LEND or
 * (closer only) _POOL. It never moves c between states itself: the caller (the loop,
 * loop/states.c) parks, lends, requeues or closes it; if an event arrived meanwhile it
 * calls this again. With c->resume set it first ends the deferred exchange that was
 * closed.
 *
 * closer = 0: a pool thread, which may block (in handlers, in socket calls).
 * closer = 1: the thread that closed a lent exchange deferred with
 * TACHY_DEFER_CLOSER_CONTINUES (an executor's thread, perhaps a virtual thread's carrier),
 * or that thread serving another ready connection after it (loop/workers.c, the harvest):
 * it makes no call that can block. It ends the exchange, dispatches further pipelined
 * requests already buffered (their handlers only hand off), writes what the socket takes
 * and parks the connection; at the first step that could block (TLS, a reject, a close,
 * 100-continue, a full socket) it stops, returning TACHY__CONN_NEXT_POOL with c in a state
 * a pool thread's run continues from.
 */
tachy__conn_next tachy__conn_run(tachy__conn *c, int closer, int *idle, long *deadline);
/* Releases a closed connection's memory except the struct itself (loop/ reuses it). */
void tachy__conn_cleanup(tachy__conn *c);
/* The connection has become a parked WebSocket (tachy_ws_attach; ws/reader.c calls this
 * when the pool adopts it) and will never run the HTTP loop again: frees what only HTTP
 * needs - rbuf and wbuf, the exchange's headers and strings (the exchange is over and
 * tachy_ws_exchange is NULL from then on), the parser's field references - so that a
 * parked socket costs little more than its slot. rbuf must be empty (the caller takes
 * its bytes first: frames that came right behind the upgrade request); unsent bytes in
 * wbuf are dropped. The transport and the struct stay; tachy__conn_cleanup still runs at
 * the close. Owner thread. */
void tachy__conn_shed_http(tachy__conn *c);

/* ---- target.c: the request-target ------------------------------------------------------ */

/* 1 if java.net.URI(String) accepts t[0,n) (so the JDK would serve it), else 0. Pure. */
int tachy__target_acceptable(const char *t, size_t n);

/* Where the path and the query of a request-target are (offsets into the target). */
typedef struct tachy__target {
    size_t path_off, path_len; /* raw (still percent-encoded) path; "" for "//host" */
    int has_query;             /* a '?' follows the path */
    size_t query_off, query_len; /* raw query, up to a '#' */
} tachy__target;

/* Splits t[0,n): skips "scheme://authority" of an absolute-form target (RFC 9112 3.2.2)
 * and the authority of "//host/x" (as java.net.URI reads it), stops at '?' or '#'. Pure. */
void tachy__target_split(const char *t, size_t n, tachy__target *out);

/* Percent-decodes a path into out (NUL-terminated, at most cap bytes incl. NUL). Invalid
 * escapes are kept literally (tachy__target_acceptable has refused them already). Returns
 * the decoded length or -1 if it does not fit. Pure. */
ssize_t tachy__percent_decode(const char *in, size_t len, char *out, size_t cap);

/* ---- exchange.c ------------------------------------------------------------------------ */

/* Prepares c->ex for a parsed request. 0, TACHY_EPROTO (a target java.net.URI refuses),
 * TACHY_EINVAL (a decoded NUL in the path) or TACHY_ENOMEM. Owner thread. */
int tachy__exchange_begin(tachy_exchange *ex, tachy__conn *c, const tachy__request *req,
                          const tachy__framing *fr);
/* HTTP/1.1's request deadlines, once its exchange has begun (conn.c): maxReqTime for the
 * body still to come, or maxRspTime from now when there is none. They are the
 * connection's (the watchdog shuts its socket down): one exchange at a time, so an HTTP/2
 * stream has none. Owner thread. */
void tachy__exchange_deadlines(tachy_exchange *ex);
/* tachy_exchange_upgrade; keeps_thread 0 when the caller will not hold the thread for the
 * stream's life (tachy_ws_attach), so no extra pool thread is brought in for it. */
int tachy__exchange_upgrade(tachy_exchange *ex, tachy_stream **out, int keeps_thread);
/* Cleans up after an exchange, keeping reusable memory. */
void tachy__exchange_end(tachy_exchange *ex);
void tachy__exchange_free(tachy_exchange *ex);

/* Marks the exchange as broken (an HTTP/1.1 connection closes after it; an HTTP/2 stream
 * is reset when it ends) and returns rc. */
static inline int tachy__exchange_fail(tachy_exchange *ex, int rc) {
    ex->failed = 1;
    if (!ex->ops)
        ex->conn->close_after = 1;
    return rc;
}
/* The connection closes after this exchange: HTTP/1.1 only (an HTTP/2 stream's exchange
 * never closes its connection). */
static inline void tachy__exchange_close_after(tachy_exchange *ex) {
    if (!ex->ops)
        ex->conn->close_after = 1;
}
/* tachy__response_reject for an exchange: on HTTP/1.1 the connection's reject (which
 * closes it); on a stream the same status and body on that stream alone. */
void tachy__exchange_reject_own(tachy_exchange *ex, int code, const char *msg);
/* The JDK's error body for code and msg into buf ("<h1>404 Not Found</h1>msg"): its
 * length. Pure. */
size_t tachy__reject_body(char *buf, size_t cap, int code, const char *msg);

/* ---- response.c ------------------------------------------------------------------------ */

/* The reason phrase of code and its length: the JDK's table (sun.net.httpserver.Code);
 * "" for a code it has none for, which gives the JDK's "HTTP/1.1 207 " with a trailing
 * space. Pure. */
const char *tachy__reason_phrase(int code, size_t *len);

/* Sends the JDK-format error response (ServerImpl.reject: code, static msg in the body)
 * after any pending pipelined responses, and marks the connection for closing. */
void tachy__response_reject(tachy__conn *c, int code, const char *msg);

/* ---- dispatch.c ------------------------------------------------------------------------ */

/* What tachy__exchange_dispatch returns when the handler returned with the exchange
 * deferred (ex->handler_failed says whether it failed after deferring): the loop lends the
 * exchange the connection unless it is closed already (TACHY__CONN_NEXT_LEND). */
#define TACHY__DISPATCH_DEFERRED 1

/* c->resume: how the next run of c begins. LENT: the lent exchange was closed on another
 * thread, which now owns c; CARRY_ON: the deferred exchange was closed before its handler
 * returned, and the dispatching thread carries on. Either way the run ends the exchange
 * first (tachy__conn_run). */
#define TACHY__RESUME_LENT 1
#define TACHY__RESUME_CARRY_ON 2

/* Finds the context, answers 100-continue, runs filters + authenticator + handler and
 * closes the exchange. Returns 0 if the connection may serve another request, -1 if it
 * must close, TACHY__DISPATCH_DEFERRED if the handler deferred the exchange. Owner
 * thread. */
int tachy__exchange_dispatch(tachy_exchange *ex);
/* The same, for http/conn.c's request loop alone (c->ex, HTTP/1.1: ex->ops is NULL). An
 * entry point with one caller is one that link-time optimisation inlines into it (GCC
 * inlines a function called once); tachy__exchange_dispatch has h2/'s streams too and is
 * too big to inline into both. Measured by callgrind (tachy-hello, keep-alive GET): its
 * call and the seam's branches cost HTTP/1.1 ~30 instructions per request. */
TACHY__NO_ICF int tachy__exchange_dispatch_conn(tachy_exchange *ex);

#endif
