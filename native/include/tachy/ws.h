/*
 * tachy/ws.h - WebSocket (RFC 6455) with permessage-deflate (RFC 7692).
 *
 * Two ways to serve one: tachy_ws_serve (below) keeps the handler's thread for the whole
 * connection and returns when it has closed - the original contract, unchanged;
 * tachy_ws_attach returns after the handshake and the connection then lives on the pool's
 * threads without one of its own (for crowds of sockets). What follows describes
 * tachy_ws_serve; tachy_ws_attach says where it differs.
 *
 * A WebSocket starts as an ordinary exchange: a handler calls tachy_ws_serve(ex, &opt),
 * which validates the upgrade request, answers 101 (or refuses with 400/405/426), and
 * then runs the connection's read loop until the WebSocket is closed. The callbacks in
 * the options run on that connection thread, one at a time, in the order frames arrive;
 * while a callback runs nothing more is read (that is the flow control: a slow callback
 * pushes back on the client through TCP).
 *
 * Sending is safe from ANY thread: every tachy_ws has a mutex that serialises frames, so
 * a broadcaster thread may write to thousands of sockets while their connection threads
 * read. A tachy_ws handle used outside its callbacks must be kept alive with
 * tachy_ws_retain()/tachy_ws_release(); after the connection has ended, sends on a
 * retained handle fail with TACHY_ECLOSED and touch no socket.
 *
 * Slow-client policy: a send waits at most opt.send_timeout_ms (default 5000 ms) for the
 * socket to take the whole frame. If it cannot, the send fails with TACHY_ETIMEDOUT and
 * the connection is failed at once (a half-written frame cannot be continued): the socket
 * is shut down, the read loop ends, on_error(TACHY_ETIMEDOUT) and on_close(1006) run on
 * the connection thread, and every later send fails fast with TACHY_ECLOSED.
 * tachy_ws_broadcast applies the same limit without letting one slow client hold up the
 * others: see there.
 *
 * Messages: by default a message is delivered whole (on_message with last = 1) after
 * all its fragments arrived and were inflated; opt.deliver_fragments = 1 delivers every
 * frame's payload as it comes (last = 1 on the final one). Text is validated as UTF-8
 * incrementally (RFC 6455 8.1), failing fast with 1007.
 *
 * Errors are negative TACHY_E* codes (tachy/error.h).
 */
#ifndef TACHY_WS_H
#define TACHY_WS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <tachy/exchange.h>
#include <tachy/export.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One upgraded WebSocket connection. Reference-counted; see tachy_ws_retain. */
typedef struct tachy_ws tachy_ws;

/* Message types passed to on_message and the send functions (the RFC 6455 opcodes). */
enum tachy_ws_type { TACHY_WS_TEXT = 1, TACHY_WS_BINARY = 2 };

/* Close codes (RFC 6455 7.4.1). 1005 and 1006 are never sent, only reported. */
enum tachy_ws_close_code {
    TACHY_WS_CLOSE_NORMAL = 1000,
    TACHY_WS_CLOSE_GOING_AWAY = 1001,
    TACHY_WS_CLOSE_PROTOCOL_ERROR = 1002,
    TACHY_WS_CLOSE_UNSUPPORTED_DATA = 1003,
    TACHY_WS_CLOSE_NO_STATUS = 1005, /* reported: the peer's close frame had no code */
    TACHY_WS_CLOSE_ABNORMAL = 1006,  /* reported: no close frame was received */
    TACHY_WS_CLOSE_INVALID_PAYLOAD = 1007,
    TACHY_WS_CLOSE_POLICY_VIOLATION = 1008,
    TACHY_WS_CLOSE_TOO_BIG = 1009,
    TACHY_WS_CLOSE_MANDATORY_EXTENSION = 1010,
    TACHY_WS_CLOSE_INTERNAL_ERROR = 1011
};

/*
 * Callbacks. All run on the connection thread, never concurrently for one connection.
 * user is the connection's user pointer: opt.user at first, changeable per connection
 * with tachy_ws_set_user (typically in on_open). Data pointers are borrowed for the
 * duration of the call only. Any callback may call the send functions, tachy_ws_close
 * and tachy_ws_abort. Any callback may be NULL.
 */
typedef struct tachy_ws_callbacks {
    /* After the 101 went out, before the first frame is read. */
    void (*on_open)(tachy_ws *ws, void *user);
    /* A message (or, with deliver_fragments, a piece of one). type is TACHY_WS_TEXT or
     * TACHY_WS_BINARY; text is valid UTF-8 (a piece may end inside a character when
     * deliver_fragments is on). data is never NULL (len may be 0). */
    void (*on_message)(tachy_ws *ws, int type, const void *data, size_t len, int last, void *user);
    /* A ping arrived (len <= 125). The pong has already been sent when auto_pong is on. */
    void (*on_ping)(tachy_ws *ws, const void *data, size_t len, void *user);
    /* A pong arrived (solicited or not). */
    void (*on_pong)(tachy_ws *ws, const void *data, size_t len, void *user);
    /* Called exactly once when the connection ends, if on_open was called. code is the
     * peer's close code (1005 when its close frame had none) or 1006 when no close frame
     * arrived (I/O error, timeout, protocol failure, abort). reason is UTF-8, not
     * NUL-terminated. If the peer closed first and this callback has not sent a close
     * itself (tachy_ws_close), tachy echoes the peer's code when it returns. */
    void (*on_close)(tachy_ws *ws, int code, const char *reason, size_t reason_len, void *user);
    /* A failure, before on_close: err is a TACHY_E* code (TACHY_EPROTO for a protocol
     * violation, TACHY_ETOOBIG, TACHY_ETIMEDOUT, TACHY_EIO, ...), close_code the close
     * code tachy sent because of it (0 if none), what a static human-readable string. */
    void (*on_error)(tachy_ws *ws, int err, int close_code, const char *what, void *user);
} tachy_ws_callbacks;

/*
 * Options. Always initialise with tachy_ws_options_init() and then change fields: new
 * fields may be added at the end. Times in milliseconds; -1 means "no limit" where said.
 * Strings and arrays are borrowed for the duration of tachy_ws_serve.
 */
typedef struct tachy_ws_options {
    tachy_ws_callbacks cb;
    void *user; /* initial per-connection user pointer */

    size_t max_frame_size;   /* largest frame payload accepted (16 MiB) -> 1009 */
    size_t max_message_size; /* largest (inflated) message accepted (16 MiB) -> 1009 */
    int deliver_fragments;   /* 0: whole messages (default); 1: every frame */
    int auto_pong;           /* answer pings automatically (1) */

    /* Subprotocols the server speaks, in its order of preference: the first one the
     * client also offers is selected (Sec-WebSocket-Protocol). NULL/0 = none. */
    const char *const *subprotocols;
    size_t num_subprotocols;

    /* permessage-deflate (RFC 7692). */
    int deflate;                    /* accept a client's offer (1) */
    int server_no_context_takeover; /* always ask for it (0; granted when client asks) */
    int client_no_context_takeover; /* ask the client not to keep context (0) */
    int server_max_window_bits;     /* 9..15 (15): our compressor's window; 8 is taken as 9 */
    int deflate_level;              /* zlib level 0..9 (1: fast) */
    int deflate_mem_level;          /* zlib memLevel 1..9 (8); lower saves memory per socket */
    size_t deflate_threshold;       /* messages shorter than this go uncompressed (256) */

    long send_timeout_ms;  /* slow-client policy, see above (5000); -1 = forever */
    long close_timeout_ms; /* wait for the peer's close reply / EOF (3000); a close */
                           /* sent from another thread: within about twice this */
    long idle_timeout_ms;  /* no bytes from the peer for this long -> close 1001 (-1) */
    long ping_interval_ms; /* server pings when the peer was quiet this long (30000); */
                           /* -1 or 0 = never */
    long ping_timeout_ms;  /* no pong within this -> connection failed (15000) */

    /* Attached connections (tachy_ws_attach) on plain TCP: the per-socket send queue. */
    size_t max_backlog;    /* bytes queued for a slow peer (1 MiB); see backlog_policy */
    int backlog_policy;    /* TACHY_WS_BACKLOG_FAIL (default) or TACHY_WS_BACKLOG_CLOSE */
} tachy_ws_options;

/*
 * The default liveness policy: a peer that sent nothing for ping_interval_ms (30 s) gets a
 * ping (8 bytes: the monotonic ms); if no pong (or any pong) arrives within
 * ping_timeout_ms (15 s) the connection is failed: on_error(TACHY_ETIMEDOUT, 0, "no pong
 * within the ping timeout") and on_close(1006), no close frame (a peer that does not
 * answer pings would not answer a close either). Any bytes from the peer count as a sign
 * of life and push the ping back. Why these numbers: 30 s stays under the 60 s idle
 * timeouts of the usual proxies and load balancers (nginx's proxy_read_timeout, cloud
 * load balancers), so a quiet healthy connection is never cut by a middlebox, and a dead
 * peer (a laptop lid closed, a cable pulled: no FIN ever comes) is found within 45 s
 * instead of living until TCP keepalive's two hours; the cost is one 10-byte frame per 30 s
 * per quiet socket. idle_timeout_ms stays off (-1): a quiet peer that answers pings is
 * healthy, and closing it is the application's choice. Set ping_interval_ms = -1 for the
 * old behaviour (no pings).
 *
 * With tachy_ws_attach these checks run on the server's timers: one one-shot timer per
 * socket, due when the ping (or the pong deadline, or the idle close) is next due and moved
 * on when the socket turned out not to be quiet - at most one timer run per interval per
 * socket, no thread and no periodic wake-up per socket. While reading is suspended
 * (tachy_ws_suspend_reading) nothing is checked: the peer is not read, so its silence
 * proves nothing; the interval starts again at the resume.
 *
 * What a send on an attached connection does when the peer does not read and the queue
 * would exceed max_backlog (a frame is always taken whole when the queue is empty, so
 * one message larger than the bound still goes out):
 *   TACHY_WS_BACKLOG_FAIL   the send fails with TACHY_ETOOBIG, nothing of it is queued,
 *                           the connection stays open (later sends may succeed once the
 *                           peer has read). uWebSockets' "dropped".
 *   TACHY_WS_BACKLOG_CLOSE  the send fails with TACHY_ETOOBIG and the connection is
 *                           closed: a close frame 1008 "send queue full" is queued behind
 *                           what is there (past the bound), nothing more is accepted
 *                           (TACHY_ECLOSED), and the socket is cut off if the peer has not
 *                           taken it within close_timeout_ms. on_error(TACHY_ETOOBIG, 1008)
 *                           and on_close follow on a pool thread.
 */
enum { TACHY_WS_BACKLOG_FAIL = 0, TACHY_WS_BACKLOG_CLOSE = 1 };

/* Fills opt with the defaults above. Any thread. */
TACHY_API void tachy_ws_options_init(tachy_ws_options *opt);

/*
 * Performs the WebSocket handshake on ex and serves the connection until it closes.
 * Call from a handler (the connection thread), before anything was sent on ex.
 *
 * Validation (RFC 6455 4.2.1): method GET (else 405 with Allow: GET), HTTP/1.1 or later
 * and a Host header (else 400), Upgrade containing the token "websocket" and Connection
 * containing "upgrade" (else 400), Sec-WebSocket-Version 13 (else 426 with
 * Sec-WebSocket-Version: 13), exactly one Sec-WebSocket-Key decoding to 16 bytes (else
 * 400). Then subprotocol selection, permessage-deflate negotiation (the first acceptable
 * offer: server_no_context_takeover, client_no_context_takeover, server_max_window_bits,
 * client_max_window_bits; an offer with unknown or invalid parameters, or asking for an
 * 8-bit server window that zlib cannot honour, is declined), the 101 with
 * Sec-WebSocket-Accept, tachy_exchange_upgrade, on_open, the read loop, on_close.
 * Response headers the handler set before the call (cookies, ...) go out with the 101.
 *
 * Returns 0 once an upgraded connection has ended (whatever the close code; the exchange
 * is then closed), TACHY_EPROTO when the request was refused (the 4xx response has been
 * sent and the exchange closed: the handler should just return 0), or another negative
 * code when the 101 could not be sent (TACHY_ENOMEM, TACHY_EHDRSENT, TACHY_EIO...). The
 * exchange's getters stay valid until the handler returns; the core closes the connection
 * when the handler returns.
 */
TACHY_API int tachy_ws_serve(tachy_exchange *ex, const tachy_ws_options *opt);

/*
 * tachy_ws_serve without a thread per socket: the same handshake and refusals, then
 * on_open on the calling thread, and the call returns 0 at once - the handler returns and
 * the connection holds no thread. It is parked in the server's epoll set like an idle HTTP
 * connection; when bytes arrive, a pool thread reads the frames and runs the callbacks:
 * one callback at a time per socket, in the order the frames came. A callback may block
 * (it keeps its pool thread; the pool brings in another as it does for handlers), but
 * while it runs nothing more is read from that socket.
 *
 * Sends (any thread) never wait for a slow peer on plain TCP: a frame goes to the socket
 * as far as it takes it, the rest is queued per socket and written by a pool thread when
 * the socket becomes writable; the send returns 0 once the frame is written or queued.
 * The queue is bounded by opt.max_backlog with opt.backlog_policy (see there);
 * send_timeout_ms does not apply. On TLS (wss) a send encrypts and writes through the
 * stream with tachy_ws_serve's blocking rules (send_timeout_ms). Broadcasts queue the same
 * way and never wait for an attached plain socket.
 *
 * Close timeout, idle timeout and pings run on the server's timers (tachy/timer.h), not
 * on a thread: a socket without idle_timeout_ms/ping_interval_ms costs no CPU while idle.
 * on_close runs on a pool thread, or on the thread in tachy_server_stop for connections
 * open when the server stops (they get a close frame 1001 first).
 *
 * Call from the thread that has the exchange - the handler's, or the thread it handed
 * the exchange to (tachy_exchange_defer, a Java executor) - at most once, then close the
 * exchange (a deferred one) and return from the handler; on_open runs on that thread. The
 * pool adopts the socket once the handler has returned and the exchange is closed. ex and
 * tachy_ws_exchange are valid until then (in on_open, not in later callbacks).
 * Returns 0 (attached), TACHY_EPROTO (refused: 4xx sent, exchange closed) or another
 * negative code (nothing attached).
 */
TACHY_API int tachy_ws_attach(tachy_exchange *ex, const tachy_ws_options *opt);

/*
 * Flow control on the read side of an attached connection (the JDK's request(n) is built
 * on it). Both: any thread, on a handle the caller holds (a callback's, or retained);
 * TACHY_ESTATE for a connection served by tachy_ws_serve (its thread reads), TACHY_EINVAL
 * for NULL, else 0. Idempotent.
 *
 * tachy_ws_suspend_reading: no frame is parsed and nothing is read from the socket from
 * the next frame on - called inside a callback, the next callback for this socket
 * (on_message, on_ping, on_pong) waits for the resume; called from another thread while a
 * callback runs, that callback completes and at most nothing more follows it. Frames
 * already received stay buffered, undelivered; the kernel's receive buffer fills and TCP
 * flow control stops the peer (its sends block, or queue on its side). Automatic pongs
 * wait too (the ping is not read). Sends keep working, and the connection's end is still
 * reported: on_error/on_close follow when it fails, when a close is sent from this side
 * (reading then resumes by itself to finish the close handshake: data after our close is
 * discarded, RFC 6455 1.4), or when the server stops. A peer's close or FIN is not seen
 * while suspended. The ping/idle checks are off while suspended (see the liveness policy).
 *
 * tachy_ws_resume_reading: frames are delivered again, buffered ones first, in order. From
 * inside one of the socket's callbacks it takes effect when the callback returns; from any
 * other thread the parked socket is handed to a pool thread (an epoll event is raised for
 * it), which delivers them there: callbacks never run on the resuming thread.
 */
TACHY_API int tachy_ws_suspend_reading(tachy_ws *ws);
TACHY_API int tachy_ws_resume_reading(tachy_ws *ws);

/* ---- sending: any thread ------------------------------------------------------------- */

/*
 * Sends a whole message. Text must be valid UTF-8 (TACHY_EINVAL otherwise, nothing sent).
 * Compressed when permessage-deflate was negotiated and len >= deflate_threshold. The
 * bytes are copied or written before the call returns. Returns 0, or TACHY_ECLOSED (a
 * close was sent or the connection is gone), TACHY_ETIMEDOUT (see the slow-client policy;
 * the connection is failed), TACHY_EIO / TACHY_EPEERCLOSED, TACHY_ENOMEM, TACHY_EINVAL.
 * While another thread is in the middle of a fragmented message, waits for it to finish
 * (at most send_timeout_ms, then TACHY_ETIMEDOUT without failing the connection); the
 * thread that has an unfinished fragmented message itself gets TACHY_ESTATE.
 */
TACHY_API int tachy_ws_send_text(tachy_ws *ws, const char *text, size_t len);
TACHY_API int tachy_ws_send_binary(tachy_ws *ws, const void *data, size_t len);

/*
 * Sends one fragment of a message (Java's sendText(data, last)). The first call starts a
 * message of the given type, later calls continue it (type must stay the same), last = 1
 * ends it. A fragmented message belongs to the thread that started it: other threads'
 * data sends wait until its last fragment (control frames may interleave, RFC 6455 5.4).
 * Fragmented messages are never compressed. Text fragments may split a character; the
 * whole must be UTF-8 (checked incrementally: TACHY_EINVAL, nothing of that fragment sent).
 */
TACHY_API int tachy_ws_send_fragment(tachy_ws *ws, int type, const void *data, size_t len,
                                     int last);

/* Sends a ping / an unsolicited pong. len <= 125 (TACHY_EINVAL). Same errors as above. */
TACHY_API int tachy_ws_ping(tachy_ws *ws, const void *data, size_t len);
TACHY_API int tachy_ws_pong(tachy_ws *ws, const void *data, size_t len);

/*
 * Starts the close handshake (Java's sendClose): sends a close frame with code and reason
 * (reason may be NULL; UTF-8, at most 123 bytes). code must be 1000..1003, 1007..1014 or
 * 3000..4999 (TACHY_EINVAL), or 0 to send a close frame without a code. After it no data
 * can be sent (TACHY_ECLOSED); the read loop discards data, waits up to close_timeout_ms
 * for the peer's close, then the connection is closed. Second call: TACHY_ECLOSED.
 */
TACHY_API int tachy_ws_close(tachy_ws *ws, int code, const char *reason);

/* Fails the connection at once without a close frame (Java's abort). Any thread;
 * idempotent. The read loop ends with on_close(1006). */
TACHY_API void tachy_ws_abort(tachy_ws *ws);

/*
 * Sends the same whole message to n sockets (a tick, a chat line, a price update). The
 * frame is encoded once (uncompressed, which every peer must accept) and written in two
 * passes, so that no socket can hold up delivery to the others:
 *
 *  1. One non-blocking send(MSG_DONTWAIT) per socket, in array order, and nothing else:
 *     no clock read, no poll, no waiting for a lock. A socket whose lock another thread
 *     holds at that instant (its reader sending a pong, another sender), that is in the
 *     middle of another thread's fragmented message, or that still has bytes of an earlier
 *     broadcast to finish, is left for pass 2 untouched. A socket that takes only part of
 *     the frame, or none of it (its buffer is full), keeps the rest in a per-socket backlog
 *     that is always written before anything else on that socket, so frames never
 *     interleave.
 *  2. Only when pass 1 left something: the skipped sockets are served with the ordinary
 *     blocking rules, then the sockets with a backlog are waited for TOGETHER (one poll()),
 *     each for at most its send_timeout_ms from the start of this pass. A socket that has
 *     not taken the whole frame by then is failed exactly like a timed-out send
 *     (TACHY_ETIMEDOUT: socket shut down, on_error and on_close(1006) on its connection
 *     thread). With send_timeout_ms = -1 the wait is unbounded.
 *
 * So a broadcast to n healthy sockets costs n send() calls; slow sockets cost nothing until
 * every other socket has the frame, then at most one send timeout per call, and a stuck
 * client is dropped once instead of stalling every later broadcast. When the call returns,
 * every counted socket has been handed the whole frame (the kernel holds it) and every
 * other live socket is untouched or failed; no bytes of this message remain queued in tachy.
 *
 * TLS (wss) connections are the exception: tachy encrypts in user space, so their frame is
 * written through the stream in pass 1 with the blocking rules of tachy_ws_send_* (a
 * stalled TLS client can hold the call up to its send_timeout_ms).
 *
 * NULL entries and sockets already closed or closing are skipped. The caller must hold a
 * reference to every handle (tachy_ws_retain, or the connection's own inside a callback)
 * for the duration of the call; it may be called from any thread, also concurrently with
 * other broadcasts and sends on the same sockets. data is copied before the first send.
 *
 * When the thread's CPU affinity allows more than one CPU and n is large (4,096 sockets or
 * more), pass 1 and 2 run on up to 4 threads over slices of the array (joined before the
 * call returns); on one allowed CPU everything runs on the calling thread.
 *
 * Returns the number of sockets the whole frame was written to, or TACHY_EINVAL (bad type,
 * text not UTF-8, wss NULL with n > 0) / TACHY_ENOMEM (nothing sent).
 */
TACHY_API ssize_t tachy_ws_broadcast(tachy_ws *const *wss, size_t n, int type, const void *data,
                                     size_t len);

/* What a broadcast did with each socket; the four first counts add up to n. */
typedef struct tachy_ws_broadcast_stats {
    size_t sent;     /* the whole frame was written (the return value) */
    size_t closed;   /* skipped: NULL entry, or closed / closing / failed before the call */
    size_t failed;   /* the write failed or did not finish within send_timeout_ms: the */
                     /* connection has been failed (slow-client policy above) */
    size_t busy;     /* not sent, connection left open: this thread has an unfinished */
                     /* fragmented message there, or another thread's did not end within */
                     /* send_timeout_ms */
    size_t deferred; /* of sent: finished in pass 2 (full buffer, lock held, fragmented */
                     /* message in progress) */
} tachy_ws_broadcast_stats;

/* tachy_ws_broadcast that also fills *stats (may be NULL; zeroed first). Same rules. */
TACHY_API ssize_t tachy_ws_broadcast_ex(tachy_ws *const *wss, size_t n, int type,
                                        const void *data, size_t len,
                                        tachy_ws_broadcast_stats *stats);

/* ---- lifetime and state: any thread -------------------------------------------------- */

/* Takes a reference: ws stays a valid handle (not a live connection) until the matching
 * tachy_ws_release. Inside callbacks the connection's own reference suffices. */
TACHY_API void tachy_ws_retain(tachy_ws *ws);
/* Drops a reference taken with tachy_ws_retain; the last one frees ws. NULL: no-op. */
TACHY_API void tachy_ws_release(tachy_ws *ws);

/* 1 while data can still be sent (open, no close sent, connection alive), else 0. */
TACHY_API int tachy_ws_is_open(tachy_ws *ws);

/* The selected subprotocol, or NULL. The negotiated Sec-WebSocket-Extensions response
 * value, or NULL. Both borrowed, valid as long as the handle. */
TACHY_API const char *tachy_ws_subprotocol(const tachy_ws *ws);
TACHY_API const char *tachy_ws_extensions(const tachy_ws *ws);

/* The per-connection user pointer handed to callbacks. Setting it is meant for on_open
 * (the connection thread); reading it is safe anywhere after that. */
TACHY_API void tachy_ws_set_user(tachy_ws *ws, void *user);
TACHY_API void *tachy_ws_user(const tachy_ws *ws);

/* The exchange that was upgraded: its request getters (URI, headers, addresses,
 * attributes) stay valid while tachy_ws_serve runs (with tachy_ws_attach: during on_open;
 * NULL afterwards). Connection thread only. */
TACHY_API tachy_exchange *tachy_ws_exchange(const tachy_ws *ws);

#ifdef __cplusplus
}
#endif
#endif
