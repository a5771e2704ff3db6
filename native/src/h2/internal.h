/*
 * h2/internal.h - the HTTP/2 session and stream structs and the calls between session.c and
 * stream.c. Private to h2/.
 */
#ifndef TACHY__SRC_H2_INTERNAL_H
#define TACHY__SRC_H2_INTERNAL_H

#include "h2/h2.h"
#include "h2/ng.h"

/* Limits of our own (the options are in server/options.h). */
#define TACHY__H2_STREAM_WINDOW (256 * 1024)     /* SETTINGS_INITIAL_WINDOW_SIZE: a stream's
                                                    unread request body is at most this */
#define TACHY__H2_CONN_WINDOW (16 * 1024 * 1024) /* the connection's receive window */
#define TACHY__H2_OUT_HIGH (64 * 1024)           /* a stream's unsent body bytes beyond which
                                                    its writer waits for the peer's window */
#define TACHY__H2_SEND_CHUNK (64 * 1024)         /* bytes gathered per socket write */
#define TACHY__H2_MAX_CONTINUATIONS 16           /* per header block (CVE-2024-27316) */
#define TACHY__H2_RESETS_PER_SEC 200             /* client RST_STREAMs (CVE-2023-44487) */
#define TACHY__H2_POOL_MAX 128                   /* ended stream structs a connection keeps */
#define TACHY__H2_POOL_IDLE 4                    /* ... once it has no stream left */
#define TACHY__H2_LAST_WORDS_MS 500              /* a GOAWAY after an input error waits this
                                                    long at most for another thread's write */

#define TACHY__H2_MEM_CLASSES 8                  /* h2/mem.c: blocks of 32 B to ... */
#define TACHY__H2_MEM_MAX (32 << 7)              /* ... 4 KiB come from the session's lists */
#define TACHY__H2_MEM_KEEP (64 * 1024)           /* freed bytes a busy session keeps */

/* The allocator of one session (h2/mem.c): free lists by size class. Used by whichever
 * thread uses the session (under mu, or its only owner). */
typedef struct {
    void *free_list[TACHY__H2_MEM_CLASSES];
    size_t kept; /* bytes on the lists */
} tachy__h2_mem;

/* The nghttp2_mem that allocates from m; m must outlive the session. */
nghttp2_mem tachy__h2_mem_of(tachy__h2_mem *m);
/* Frees every block on m's lists (an idle session, and after nghttp2_session_del). */
void tachy__h2_mem_trim(tachy__h2_mem *m);

typedef struct tachy__h2 tachy__h2;
typedef struct tachy__h2_stream tachy__h2_stream;

struct tachy__h2 {
    tachy__conn *c;
    nghttp2_session *ng;
    tachy__h2_mem mem;        /* (mu) ng's allocator (h2/mem.c) */
    /* Guards ng and the fields below marked (mu), and every stream's fields marked so. */
    pthread_mutex_t mu;
    /* TLS only: one SSL call at a time (the owner's reads, a sender's writes). */
    pthread_mutex_t xp_lock;
    int sending;              /* (mu) a thread is sending: it alone uses c->wbuf and writes */
    pthread_cond_t send_cond; /* (mu) sending went back to 0 */
    int dead;                 /* (mu) no more I/O: the peer left, an error, or closing */
    int goaway;               /* (mu) GOAWAY submitted */
    int held;                 /* (mu) the loop got TACHY__CONN_NEXT_HOLD: the last stream's
                                 end requeues c */
    int nstreams;             /* (mu) stream structs not yet released (each may hold a
                                 handler), and pins: the queued flush job - the connection
                                 is not closed while it is > 0 */
    int flush_posted;         /* (mu) flush_job is queued: responses that end meanwhile
                                 leave with it (one write for a batch of streams) */
    tachy__job flush_job;
    tachy__h2_stream *ready;  /* (mu) request heads complete, not yet queued (tail first) */
    tachy__h2_stream *dead_list; /* (mu) streams to free once mu is released */
    tachy__h2_stream *all;    /* (mu) every stream struct with a reference left (all_prev /
                                 all_next): those on dead_list are off it */
    tachy__h2_stream *pool;   /* (mu) structs of ended streams, for the next ones: a
                                 stream's memory is allocated once per connection, not per
                                 request */
    int npool;                /* (mu) */
    int continuations;        /* (mu) CONTINUATION frames of the header block being read */
    int32_t cur_id;           /* (mu) the stream last looked up (0: none) and its user data: */
    tachy__h2_stream *cur;    /* a header block asks for its stream once per field */
    long rst_second;          /* (mu) the second the client's resets are being counted in */
    int rst_count;            /* (mu) ... and how many there were */
    uint32_t fatal;           /* (mu) the error code to end the session with (callbacks) */
    long idle_since;          /* (mu) when the last handler's exchange ended (or the owner
                                 parked it with none running): its idle time counts from it */
    /* (mu) Client stream ids: the highest that opened a stream, and the last few runs of
     * ids it skipped (they can never open one: a HEADERS on them is a PROTOCOL_ERROR, RFC
     * 9113 5.1.1, which nghttp2 cannot tell from trailers on a stream it reset). */
    int32_t max_id;
    int32_t gaps[8][2];
    unsigned ngaps;
};

struct tachy__h2_stream {
    /* Kept when the struct is reused for another stream of its connection (h2->pool): the
     * exchange's reusable memory (tachy__exchange_end keeps it), the condition variable and
     * the buffers' and arrays' capacity. */
    tachy_exchange ex;        /* the stream's exchange (ex.ops = the stream seam) */
    pthread_cond_t cond;      /* (mu) body bytes came, output drained, the stream closed */
    tachy__buf hbuf;          /* header bytes: pseudo-header values, then name/value pairs
                                 (after the exchange began: scratch for the response head) */
    tachy__buf in;            /* (mu) request body bytes not yet read by the handler */
    tachy__buf out;           /* (mu) response body bytes not yet in DATA frames */
    size_t *hoff;             /* per header: name offset, name length, value offset, length */
    size_t hcap;
    tachy__header_ref *refs_arr; /* the exchange's field references (ex.lazy) */
    size_t refs_cap;
    nghttp2_nv *nv;           /* the response head's fields (st_head) */
    size_t nv_cap;
    /* Everything from h2 on is reset for each stream. */
    tachy__h2 *h2;
    int32_t id;
    int refs;                 /* (mu) nghttp2's (until its stream closes) + the exchange's
                                 (from the complete head until the job or closer ends) */
    tachy__job job;
    tachy__h2_stream *next;   /* (mu) h2->ready, h2->dead_list or h2->pool */
    tachy__h2_stream *all_prev, *all_next; /* (mu) h2->all */
    /* the request head, filled by nghttp2's callbacks (the owner of c), read by the job */
    size_t method_off, method_len, path_off, path_len, auth_off, auth_len;
    int has_method, has_path, has_auth, has_host, expect_100;
    size_t nh;
    size_t hsize;             /* header list size as RFC 9113 6.5.2 counts it */
    int too_big;              /* over max_req_header_size / max_req_headers: answered 431 */
    int64_t content_length;   /* -1: none */
    int trailers;             /* a second header block (trailers) is being read: ignored */
    int head_done;            /* (mu) the request head is complete */
    int begun;                /* the exchange was begun (tachy__exchange_begin) */
    int in_eof;               /* (mu) END_STREAM came */
    int discard;              /* (mu) the body was closed: bytes are dropped as they come */
    int out_eof;              /* (mu) the body is complete */
    int out_deferred;         /* (mu) the data source said DEFERRED: resume it on more */
    int ng_closed;            /* (mu) nghttp2 closed the stream (both ends, or a reset) */
    uint32_t close_code;      /* (mu) its error code */
    int held;                 /* tachy_exchange_hold (the exchange's thread) */
    int lent;                 /* (mu) deferred: the exchange's close releases it */
};

/* session.c */
/* Sends what the session has to say. wait = 0: never blocks (plain TCP: what the socket
 * takes now; the rest, and anything over TLS, is left to a flush job). With flush_posted
 * and force 0, nothing is done: the flush job will. force 2: even on a dead connection
 * (its last GOAWAY), once a thread sending meanwhile has written (waited for at most
 * TACHY__H2_LAST_WORDS_MS, then nothing is sent). 0 or TACHY_E* (the connection is then
 * dead). Any thread; mu not held. */
int tachy__h2_send(tachy__h2 *h2, int wait, int force);
/* Queues the flush job (it sends what the session has), unless it is queued already. It
 * counts as a stream: the connection outlives it. wake: bring a thread for it now (else
 * the calling pool thread takes it after the jobs it queued). mu held. */
void tachy__h2_post_flush_locked(tachy__h2 *h2, int wake);
/* nghttp2's user data of stream id (its stream struct, or NULL), the last one looked up
 * kept at hand. mu held. */
tachy__h2_stream *tachy__h2_stream_of(tachy__h2 *h2, int32_t id);
/* Sets nghttp2's user data of stream id (every change goes through here, so that the
 * lookup's cache stays true). nghttp2's result. mu held. */
int tachy__h2_set_stream(tachy__h2 *h2, int32_t id, tachy__h2_stream *s);
/* Takes h2->dead_list (the streams whose last reference went): the caller frees them with
 * tachy__h2_release once mu is released. mu held. */
tachy__h2_stream *tachy__h2_take_dead_locked(tachy__h2 *h2);
/* Frees the streams on h2->dead_list (tachy__h2_release). mu not held. */
void tachy__h2_reap(tachy__h2 *h2);
/* Drops one reference of s; at zero s goes on h2->dead_list. mu held. */
void tachy__h2_stream_unref(tachy__h2_stream *s);
/* The connection is dead (the peer left, an error, closing): marks it, lets go of
 * nghttp2's reference on every stream it still has open (the session will say nothing
 * more about them) and wakes every stream's waiter. mu held. */
void tachy__h2_kill_locked(tachy__h2 *h2);

/* stream.c */
/* A new stream for id (nghttp2's reference taken), or NULL. mu held. */
tachy__h2_stream *tachy__h2_stream_new(tachy__h2 *h2, int32_t id);
/* One header field of the request head (name lower-case, as nghttp2 checked it). 0, or -1
 * when the head is too big (s->too_big is set; the rest is counted, not kept). */
int tachy__h2_stream_header(tachy__h2_stream *s, const char *name, size_t nl, const char *value,
                            size_t vl);
/* The stream's request head is complete: queues its job (the exchange's reference). mu
 * held; the jobs are posted by tachy__h2_dispatch. */
void tachy__h2_stream_ready(tachy__h2_stream *s);
/* Posts the jobs of h2->ready (streams reset meanwhile are dropped) and, if any, one flush
 * job after them. mu not held. */
void tachy__h2_dispatch(tachy__h2 *h2);
/* The data source of a stream's response body (nghttp2_data_source_read_callback). */
ssize_t tachy__h2_stream_read_body(nghttp2_session *ng, int32_t id, uint8_t *buf, size_t len,
                                   uint32_t *flags, nghttp2_data_source *src, void *user);
/* The streams of list (taken off h2->dead_list: refs reached 0) end - their exchanges
 * end, their structs go to h2->pool or are freed - and `pins` pins are let go (h2->nstreams++
 * under mu: the flush job). Each counts in nstreams until then, so h2 outlives the call's
 * use of it; when that leaves no stream and the loop holds c for them, c is requeued: h2
 * may be gone after it. One lock for the batch (two when some are freed, not pooled);
 * nothing when list is NULL and pins 0. mu not held. */
void tachy__h2_release(tachy__h2 *h2, tachy__h2_stream *list, int pins);
/* Frees the structs of h2->pool (the connection is closing). */
void tachy__h2_pool_free(tachy__h2 *h2);
/* Takes the pool's structs beyond TACHY__H2_POOL_IDLE off it (the connection goes idle):
 * the list for tachy__h2_pool_release, which frees them once mu is released. mu held. */
tachy__h2_stream *tachy__h2_pool_trim_locked(tachy__h2 *h2);
void tachy__h2_pool_release(tachy__h2_stream *list);

#endif
