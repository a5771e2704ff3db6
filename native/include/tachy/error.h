/*
 * tachy/error.h - error codes.
 *
 * Every fallible function returns 0 (or a byte count) on success and one of the
 * negative TACHY_E* codes below on failure. There is no global error state.
 * The table is an X-macro so that the enum, tachy_strerror() and tachy_err_name()
 * can never disagree.
 */
#ifndef TACHY_ERROR_H
#define TACHY_ERROR_H

#include <tachy/export.h>

#ifdef __cplusplus
extern "C" {
#endif

/* X(NAME, message) - codes are assigned in order: -1, -2, ... Append only. */
#define TACHY_ERRNO_MAP(X)                                                                     \
    X(INVAL, "invalid argument")                                                               \
    X(NOMEM, "out of memory")                                                                  \
    X(STATE, "operation not allowed in the current state")                                     \
    X(BOUND, "server is already bound")                                                        \
    X(NOTBOUND, "server is not bound")                                                         \
    X(STARTED, "server has already been started")                                              \
    X(STOPPED, "server has been stopped")                                                      \
    X(ADDRINUSE, "address already in use")                                                     \
    X(ADDRNOTAVAIL, "cannot resolve or assign the requested address")                          \
    X(EXISTS, "a context with this path already exists")                                       \
    X(NOTFOUND, "no such context")                                                             \
    X(HDRSENT, "response headers have already been sent")                                      \
    X(HDRNOTSENT, "response headers have not been sent yet")                                   \
    X(BADHEADER, "illegal character (CR, LF or NUL) in a header name or value")                 \
    X(NOBODY, "this response has no body")                                                     \
    X(TOOLONG, "write exceeds the declared content length")                                    \
    X(SHORT, "fewer bytes written than the declared content length")                           \
    X(CLOSED, "stream or exchange is closed")                                                  \
    X(IO, "input/output error")                                                                \
    X(TIMEDOUT, "operation timed out")                                                         \
    X(PEERCLOSED, "connection closed by peer")                                                 \
    X(TRUNCATED, "request body ended before its declared length")                              \
    X(PROTO, "protocol error")                                                                 \
    X(TOOBIG, "size limit exceeded")                                                           \
    X(SYS, "system call failed")                                                               \
    X(UPGRADED, "connection has been taken over by an upgrade")                                \
    X(NOTSUP, "operation not supported")                                                   \
    X(TLS, "TLS failure (handshake, record or OpenSSL error)")                                 \
    X(NOFILE, "cannot open the file")                                                          \
    X(BADCERT, "no readable PEM certificate")                                                  \
    X(BADKEY, "no readable private key (or wrong password)")                                   \
    X(KEYMISMATCH, "the private key does not match the certificate")                           \
    X(WOULDBLOCK, "the call would block while the exchange is held (tachy_exchange_hold)")

/* Private index enum: TACHY__EIDX_INVAL == 1, ... */
#define TACHY__ERR_IDX(name, msg) TACHY__EIDX_##name,
enum tachy__err_idx { TACHY__EIDX_NONE = 0, TACHY_ERRNO_MAP(TACHY__ERR_IDX) TACHY__EIDX_END };
#undef TACHY__ERR_IDX

/* Public codes: TACHY_EINVAL == -1, TACHY_ENOMEM == -2, ... */
#define TACHY__ERR_DEF(name, msg) TACHY_E##name = -TACHY__EIDX_##name,
enum tachy_error_code { TACHY_OK = 0, TACHY_ERRNO_MAP(TACHY__ERR_DEF) };
#undef TACHY__ERR_DEF

/*
 * Human-readable message for a code returned by any tachy function.
 * Returns a static string (never NULL); unknown codes give "unknown error".
 * Thread-safe: any thread.
 */
TACHY_API const char *tachy_strerror(int code);

/* The code's name without prefix ("INVAL", "NOMEM", ...), or "UNKNOWN". Any thread. */
TACHY_API const char *tachy_err_name(int code);

#ifdef __cplusplus
}
#endif
#endif
