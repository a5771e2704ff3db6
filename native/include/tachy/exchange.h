/*
 * tachy/exchange.h - one request/response exchange: HttpExchange.
 *
 * An exchange is created by the connection thread for every request and passed to the
 * context's filters and handler. It belongs to one thread at a time: the connection
 * thread, or another thread the handler hands it to (the connection thread then waits
 * for the exchange to be closed). Every string and headers object returned is borrowed
 * and valid until the exchange is closed and its handler has returned.
 *
 * Response framing follows HttpExchange.sendResponseHeaders(code, len) exactly:
 *   len > 0  fixed length: Content-length: len, exactly len bytes must be written;
 *   len == 0 chunked (Transfer-encoding: chunked; HTTP/1.0 clients: body until close);
 *   len == -1 no body (Content-length: 0).
 * HEAD requests, 1xx, 204 and 304 never carry a body whatever len says (the JDK logs a
 * warning and forces the length). tachy writes Date, and Content-length or
 * Transfer-encoding when the framing needs one, replacing any the handler set (as the JDK
 * does); unlike the JDK it does not add them to the response headers object, which keeps
 * the hot path free of map updates.
 */
#ifndef TACHY_EXCHANGE_H
#define TACHY_EXCHANGE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <tachy/export.h>
#include <tachy/headers.h>
#include <tachy/server.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- request ------------------------------------------------------------------------ */

/* Request method as sent ("GET", "POST", any token). */
TACHY_API const char *tachy_exchange_request_method(const tachy_exchange *ex);

/* The raw request-target as sent ("/a%20b?x=1") - HttpExchange.getRequestURI's source. */
TACHY_API const char *tachy_exchange_request_uri(const tachy_exchange *ex);

/* The percent-decoded path (URI.getPath: "/a b"), used for context matching. */
TACHY_API const char *tachy_exchange_request_path(const tachy_exchange *ex);

/* The raw query without '?' (URI.getRawQuery), or NULL when there is none. */
TACHY_API const char *tachy_exchange_request_query(const tachy_exchange *ex);

/* The request's protocol as sent ("HTTP/1.1") - HttpExchange.getProtocol. */
TACHY_API const char *tachy_exchange_protocol(const tachy_exchange *ex);

/* Request headers (HttpExchange.getRequestHeaders). Borrowed; may be modified. */
TACHY_API tachy_headers *tachy_exchange_request_headers(tachy_exchange *ex);

/* Called by tachy_exchange_request_fields for each field; the strings are valid during the
 * call only and are not NUL-terminated. */
typedef void (*tachy_field_fn)(void *user, const char *name, size_t name_len, const char *value,
                               size_t value_len);

/*
 * Visits the request's header fields without building the headers object (a bridge that
 * copies every request's fields elsewhere, like the JNI provider, saves that work): fn gets
 * each name as Headers.normalize makes it, and its value, in arrival order (the values of
 * one name keep their order; unlike tachy_exchange_request_headers, different names are
 * not grouped). Once the headers object exists (tachy_exchange_request_headers was called,
 * by a filter say) its pairs are visited instead, so changes made to it are seen. Returns
 * the number of fields visited, or TACHY_EINVAL / TACHY_ENOMEM (a name too long for the
 * stack and no memory for it; the fields before it were visited). The exchange's thread.
 */
TACHY_API ssize_t tachy_exchange_request_fields(tachy_exchange *ex, tachy_field_fn fn, void *user);

/* Declared request body length: >= 0 for Content-Length (0 when there is no body),
 * -1 for a chunked body. */
TACHY_API int64_t tachy_exchange_request_content_length(const tachy_exchange *ex);

/*
 * Reads request body bytes (HttpExchange.getRequestBody().read). Fixed-length and chunked
 * bodies are decoded; "Expect: 100-continue" was already answered before the handler ran.
 * Returns the number of bytes read (> 0), 0 at the end of the body, or TACHY_ETRUNCATED
 * (client closed early), TACHY_ETIMEDOUT, TACHY_EPROTO (bad chunk framing),
 * TACHY_ECLOSED (body stream closed). Blocks until at least one byte or the end. After
 * TACHY_ETRUNCATED or TACHY_EPROTO the handler may still send a response (the JDK's does);
 * the connection closes after it. Other errors fail the exchange; the connection closes.
 */
TACHY_API ssize_t tachy_exchange_read(tachy_exchange *ex, void *buf, size_t len);

/* Body bytes that can be read without blocking (InputStream.available). >= 0 or error. */
TACHY_API ssize_t tachy_exchange_available(tachy_exchange *ex);

/* Closes the request body stream (InputStream.close): the unread rest is drained, up to
 * drain_amount bytes; beyond that the connection will close after this exchange. */
TACHY_API int tachy_exchange_request_body_close(tachy_exchange *ex);

/* ---- response ----------------------------------------------------------------------- */

/* Response headers (HttpExchange.getResponseHeaders). Borrowed; modify before sending. */
TACHY_API tachy_headers *tachy_exchange_response_headers(tachy_exchange *ex);

/*
 * HttpExchange.sendResponseHeaders(code, len): see the framing rules above. code must be
 * 0..999 (TACHY_EINVAL); like the JDK, unusual codes are sent as given ("HTTP/1.1 99 "). TACHY_EHDRSENT if already sent. TACHY_EBADHEADER if a response
 * header contains CR/LF (nothing is written). The status line and headers are buffered
 * and leave with the body (or at the next flush). After a no-body response (len -1,
 * HEAD, 1xx, 204, 304) the response is complete.
 */
TACHY_API int tachy_exchange_send_response_headers(tachy_exchange *ex, int code, int64_t len);

/* One header field given by pointer and length (not NUL-terminated). */
typedef struct tachy_field {
    const char *name;
    size_t name_len;
    const char *value;
    size_t value_len;
} tachy_field;

/*
 * tachy_exchange_send_response_headers with the response headers given as n fields, in
 * the order to send them, instead of the headers object (which is neither read nor
 * changed): for a bridge that keeps the headers elsewhere (the JNI provider keeps Java's).
 * Names must be in Headers.normalize form ("Content-type"): the JDK's rules that replace
 * Date, Content-length and Transfer-encoding and honour "Connection: close" compare them
 * exactly. TACHY_EINVAL for an empty name (nothing sent), TACHY_EBADHEADER for CR, LF or
 * NUL in a name or value (nothing sent); otherwise as tachy_exchange_send_response_headers.
 * The fields are copied before it returns. The exchange's thread.
 */
TACHY_API int tachy_exchange_send_response_fields(tachy_exchange *ex, int code, int64_t len,
                                                  const tachy_field *fields, size_t n);

/* The code passed to tachy_exchange_send_response_headers, or -1 before it
 * (getResponseCode). */
TACHY_API int tachy_exchange_response_code(const tachy_exchange *ex);

/* The response body's bytes written so far (tachy_exchange_write, tachy_exchange_send_file;
 * before chunked framing; the body of an error response tachy sent itself), as the access
 * log's last field. 0 before any; TACHY_EINVAL for NULL. The exchange's thread. */
TACHY_API int64_t tachy_exchange_response_bytes(const tachy_exchange *ex);

/* How the response is framed: the decision tachy_exchange_send_response_headers made
 * (rules above). */
typedef enum tachy_response_framing {
    TACHY_RESPONSE_NOT_SENT = 0,    /* no response headers sent yet */
    TACHY_RESPONSE_FIXED = 1,       /* Content-length: N; exactly N body bytes follow */
    TACHY_RESPONSE_CHUNKED = 2,     /* Transfer-encoding: chunked */
    TACHY_RESPONSE_UNTIL_CLOSE = 3, /* HTTP/1.0 streamed body: it ends when the connection does */
    TACHY_RESPONSE_EMPTY = 4        /* no body: the response was complete with its head */
} tachy_response_framing;

/*
 * The framing of the response sent by tachy_exchange_send_response_headers or _fields (a
 * tachy_response_framing; TACHY_EINVAL for a NULL ex), for a bridge that mirrors it in its
 * own headers object instead of deciding it again (the JNI provider sets Content-length or
 * Transfer-encoding in Java's Headers as the JDK does). *content_length (if not NULL)
 * receives the value of the Content-length header tachy wrote, or -1 when it wrote none
 * (chunked, until close, HEAD, 1xx, 204, 304, a reject). The exchange's thread, while the
 * exchange is valid.
 */
TACHY_API int tachy_exchange_response_framing(const tachy_exchange *ex, int64_t *content_length);

/*
 * Answers the request as the JDK's ServerImpl.reject does, with the bytes tachy's own
 * rejects send (a bad request line, a target it refuses):
 *   HTTP/1.1 <code> <reason>, Content-Length, Content-Type: text/html, Connection: close,
 *   body "<h1><code> <reason></h1><msg>" (no Date header, as in the JDK's reply),
 * then the connection closes after the response. For a bridge whose own checks refuse a
 * request the core accepted (the JNI provider: a target java.net.URI refuses). msg is
 * copied (it may be NULL: no message). Only before response headers: TACHY_EHDRSENT after,
 * TACHY_ECLOSED once closed, TACHY_EINVAL for a code outside 100..999. The response is
 * complete; the exchange must still be closed (tachy_exchange_close). The exchange's thread.
 */
TACHY_API int tachy_exchange_reject(tachy_exchange *ex, int code, const char *msg);

/*
 * Writes response body bytes (getResponseBody().write). Returns len, or TACHY_EHDRNOTSENT,
 * TACHY_ETOOLONG (more than the fixed length; nothing written), TACHY_ENOBODY (response
 * has no body), TACHY_ECLOSED, TACHY_EIO / TACHY_EPEERCLOSED / TACHY_ETIMEDOUT. Bytes
 * are buffered; they leave when the buffer fills, on flush, or when the response ends
 * (coalesced with the responses to pipelined requests).
 */
TACHY_API ssize_t tachy_exchange_write(tachy_exchange *ex, const void *buf, size_t len);

/*
 * Writes len bytes of the open file fd, from offset, as response body bytes: the framing
 * and errors of tachy_exchange_write (TACHY_ETOOLONG beyond a fixed length, nothing
 * written; in chunked mode the range is one chunk), plus TACHY_EINVAL for a negative fd,
 * offset or len and TACHY_ESHORT if the file holds fewer bytes (the body is then truncated
 * and the connection closes, as after any failed write). On a plain connection the kernel
 * copies the file to the socket itself (sendfile(2)), the buffered response head leaving
 * in the same segments; on TLS, or for a descriptor sendfile cannot read, tachy reads it
 * in 64 KiB pieces. fd's own file position is neither used nor moved (pread semantics);
 * the caller keeps fd and may close it on return. Returns 0 when all len bytes are out
 * or buffered. The exchange's thread only.
 */
TACHY_API int tachy_exchange_send_file(tachy_exchange *ex, int fd, int64_t offset, int64_t len);

/* Sends what is buffered now (OutputStream.flush); chunked bodies emit a chunk. */
TACHY_API int tachy_exchange_flush(tachy_exchange *ex);

/* tachy_exchange_flush without waiting, also under a hold (tachy_exchange_hold): sends
 * what the socket takes at once. 0 when the write buffer is empty after it, 1 when bytes
 * remain (the socket is full, or the transport encrypts: nothing is sent then; flush where
 * blocking is allowed), or TACHY_E*. The exchange's thread. */
TACHY_API int tachy_exchange_try_flush(tachy_exchange *ex);

/* Ends the response body (getResponseBody().close): writes the final chunk; a fixed
 * length body that is short gives TACHY_ESHORT and the connection will close. */
TACHY_API int tachy_exchange_response_body_close(tachy_exchange *ex);

/*
 * HttpExchange.close(): drains/closes the request body, then ends the response body.
 * If headers were never sent the connection is closed without a response (as the JDK
 * does). Idempotent. After close every other call fails with TACHY_ECLOSED, but
 * getters stay valid until the handler has returned.
 */
TACHY_API int tachy_exchange_close(tachy_exchange *ex);

/* tachy_exchange_close_flags: the closing thread also harvests. For an exchange deferred
 * with TACHY_DEFER_CLOSER_CONTINUES (else ignored): once its own connection waits for
 * bytes, the closing thread serves up to 8 other connections whose requests are ready,
 * the same way (read what is there, dispatch, park), and pool threads step back while
 * closers do so; their handlers run on this thread, inside this call, and must only hand
 * off again. Worth it where handing off is cheaper than waking a pool thread: on a
 * virtual thread's carrier the executor's execute() queues on that carrier, so under load
 * the executor's threads feed themselves and no thread is woken per request. A pool of
 * platform threads gains nothing (each execute() wakes a worker anyway): close those
 * with tachy_exchange_close. */
#define TACHY_CLOSE_HARVEST 1u

/* tachy_exchange_close with flags (0 or TACHY_CLOSE_HARVEST). TACHY_EINVAL for an
 * unknown flag. */
TACHY_API int tachy_exchange_close_flags(tachy_exchange *ex, unsigned flags);

/*
 * Keeps the exchange open after the handler returns: another thread will finish it with
 * tachy_exchange_close (the JDK allows completing an exchange asynchronously). No thread
 * waits for that close: when the handler returns, its pool thread goes back to serving
 * other connections, and the exchange has the connection (its socket, its buffered
 * pipelined requests) until it is closed. The close then continues the connection on a
 * pool thread: what the response left in the write buffer leaves by the flush rule, the
 * next request is read and dispatched. A connection whose exchange is never closed stays
 * open (stop() shuts its socket down after its delay; its close still frees it then).
 * Call from the handler's thread, before it returns. After the handler returned, the
 * exchange belongs to the thread that closes it. 0, TACHY_EINVAL, or TACHY_ECLOSED if it
 * is closed already. Same as tachy_exchange_defer_flags(ex, 0).
 */
TACHY_API int tachy_exchange_defer(tachy_exchange *ex);

/* tachy_exchange_defer_flags: the thread that closes the exchange continues the
 * connection itself as far as that needs no call that can block: it ends the exchange,
 * writes what the socket takes at once, parks the connection, and dispatches the next
 * pipelined request already buffered (closed with TACHY_CLOSE_HARVEST, other ready
 * connections too) - so the next request's filters, authenticator and handler may run on
 * the closing thread, inside tachy_exchange_close, and must then only hand the exchange
 * off again (defer it with this flag) without blocking. Whatever could block (TLS,
 * 100-continue, a full socket, an error answer, the close of a connection, a WebSocket)
 * is left to a pool thread. The hold (tachy_exchange_hold) stays on after the handler
 * returns, so the closing thread is told TACHY_EWOULDBLOCK rather than blocked. For
 * bridges whose handlers run on an executor that never blocks in native code (the JNI
 * provider with an executor): a request costs no thread switch beyond the hand-off to
 * the executor. */
#define TACHY_DEFER_CLOSER_CONTINUES 1u

/* tachy_exchange_defer with flags (0 or TACHY_DEFER_CLOSER_CONTINUES). TACHY_EINVAL for
 * an unknown flag. */
TACHY_API int tachy_exchange_defer_flags(tachy_exchange *ex, unsigned flags);

/*
 * Ends the exchange as failed (a handler that threw after the exchange was deferred):
 * what the response already put in the write buffer and earlier pipelined responses still
 * go out, then the connection closes, as after a handler that returns an error. For a
 * deferred exchange, from the thread that has it; a no-op on a closed exchange. 0 or
 * TACHY_EINVAL.
 */
TACHY_API int tachy_exchange_abort(tachy_exchange *ex);

/*
 * Holds the exchange's socket: while on, no call on it makes a socket call that can block.
 * Response bytes (head, body, a file's bytes, copied) stay in the connection's write
 * buffer, however many; tachy_exchange_read returns TACHY_EWOULDBLOCK instead of waiting
 * when no body bytes are buffered, and tachy_exchange_request_body_close and
 * tachy_exchange_close (after response headers) return TACHY_EWOULDBLOCK, doing nothing,
 * while the request body has not been read to its end (their drain would wait). Those
 * calls can then be made again with the hold off, or on a thread that may block.
 *
 * For a bridge whose handlers run on threads that must not block in native code (Java's
 * virtual threads): the connection thread holds the exchange, hands it over, and does the
 * calls that would block itself (with the hold off, then on again) when asked. The hold
 * ends by itself when the handler returns (the flush rule then sends what is buffered),
 * or at tachy_exchange_defer (not with TACHY_DEFER_CLOSER_CONTINUES: it then lasts until
 * the close).
 * Releasing a hold tells the pool the thread may now block (if no pool thread waits for
 * events, one is brought in at once rather than at the watchdog's next tick).
 * Call it from the exchange's thread, like every exchange call; on != 0 holds, 0 releases.
 * TACHY_EINVAL for NULL.
 */
TACHY_API int tachy_exchange_hold(tachy_exchange *ex, int on);

/* The bytes in the connection's write buffer (what a hold has kept back, with any earlier
 * pipelined responses): the bridge asks for a flush on a thread that may block once this
 * grows. The exchange's thread. */
TACHY_API int tachy_exchange_held_bytes(const tachy_exchange *ex);

/* ---- everything else ---------------------------------------------------------------- */

/* The context serving this exchange (HttpExchange.getHttpContext). Borrowed. */
TACHY_API tachy_context *tachy_exchange_context(const tachy_exchange *ex);

/* Addresses (getRemoteAddress / getLocalAddress): numeric host and port. The remote
 * address is the client's: on a server with tachy_options.proxy_protocol, the source the
 * balancer's PROXY header names (the socket's own peer for a LOCAL or UNKNOWN header). The
 * local address is always the socket's. The exchange's thread. */
TACHY_API int tachy_exchange_remote_address(const tachy_exchange *ex, char *host, size_t cap,
                                            int *port);
/* The socket's own peer, numeric host and port: with tachy_options.proxy_protocol the
 * balancer that sent the PROXY header, else the same as tachy_exchange_remote_address.
 * TACHY_EINVAL when host does not fit in cap bytes. The exchange's thread. */
TACHY_API int tachy_exchange_peer_address(const tachy_exchange *ex, char *host, size_t cap,
                                          int *port);
TACHY_API int tachy_exchange_local_address(const tachy_exchange *ex, char *host, size_t cap,
                                           int *port);
TACHY_API const struct sockaddr *tachy_exchange_remote_sockaddr(const tachy_exchange *ex,
                                                                socklen_t *len);
TACHY_API const struct sockaddr *tachy_exchange_local_sockaddr(const tachy_exchange *ex,
                                                               socklen_t *len);

/* Per-exchange attributes (getAttribute/setAttribute). name copied, value stored as is
 * (borrowed - the caller manages its memory); NULL removes. */
TACHY_API int tachy_exchange_set_attribute(tachy_exchange *ex, const char *name, void *value);
TACHY_API void *tachy_exchange_attribute(const tachy_exchange *ex, const char *name);

/* The authenticated principal (getPrincipal): user and realm, or NULL if none. */
TACHY_API const char *tachy_exchange_principal_user(const tachy_exchange *ex);
TACHY_API const char *tachy_exchange_principal_realm(const tachy_exchange *ex);
/* Sets the principal (what an authenticator's Success does). Strings are copied. */
TACHY_API int tachy_exchange_set_principal(tachy_exchange *ex, const char *user,
                                           const char *realm);

/* 1 when the connection is TLS (HttpsExchange), else 0. The session's details are in
 * tachy/tls.h (tachy_exchange_tls_protocol, ..._cipher_suite). */
TACHY_API int tachy_exchange_is_secure(const tachy_exchange *ex);

/* ---- protocol upgrade (WebSocket and friends) --------------------------------------- */

/* A raw byte stream over the connection after an upgrade. Owned by the connection. */
typedef struct tachy_stream tachy_stream;

/*
 * Takes over the connection's byte streams after a 101 response. Call after
 * tachy_exchange_send_response_headers(ex, 101, -1); the 101 is flushed, and *out gets a
 * stream whose reads return first any bytes the client sent after the request, then the
 * socket's. The stream is valid until the handler returns; then the connection closes.
 * TACHY_ESTATE if the response is not a 101 or a body is pending.
 */
TACHY_API int tachy_exchange_upgrade(tachy_exchange *ex, tachy_stream **out);

/* Reads up to len bytes; waits at most timeout_ms (-1 = forever). Returns > 0 bytes,
 * 0 at EOF, TACHY_ETIMEDOUT, TACHY_EIO, TACHY_ECLOSED (stream shut down). Reader thread
 * only (one reader at a time). */
TACHY_API ssize_t tachy_stream_read(tachy_stream *s, void *buf, size_t len, int timeout_ms);

/* Writes all len bytes or fails; each wait for socket buffer space lasts at most
 * timeout_ms (-1 = forever), so a client that stops reading cannot block a sender. Not
 * synchronised: callers that write from several threads serialise themselves (ws.c does).
 * Returns len or TACHY_ETIMEDOUT / TACHY_EIO / TACHY_EPEERCLOSED / TACHY_ECLOSED. */
TACHY_API ssize_t tachy_stream_write(tachy_stream *s, const void *buf, size_t len,
                                     int timeout_ms);

/* Shuts the stream down in both directions: a blocked reader returns, later calls fail
 * with TACHY_ECLOSED. Any thread; idempotent. */
TACHY_API void tachy_stream_shutdown(tachy_stream *s);

/* The underlying socket (for poll() by advanced users; do not close it). On a TLS
 * connection it carries encrypted records, and decrypted bytes may wait inside tachy
 * while the socket is not readable: use tachy_stream_read's timeout instead of poll. */
TACHY_API int tachy_stream_fd(const tachy_stream *s);

#ifdef __cplusplus
}
#endif
#endif
