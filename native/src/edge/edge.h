/*
 * edge/edge.h - what sits at the network's edge, in front of HTTP: the PROXY protocol
 * (proxy.c: the codec; listener.c: reading the header off a new connection), the
 * Prometheus metrics (metrics.c, public: tachy/metrics.h) and the access log (accesslog.c,
 * public: tachy/accesslog.h). Private to the core; never installed.
 *
 * edge/ includes base/ and server/; http/ includes edge/ (one call in http/conn.c, at the
 * start of a connection's first read). Nothing here touches a connection struct: the
 * caller hands over the socket, a scratch buffer and the address fields.
 */
#ifndef TACHY__SRC_EDGE_EDGE_H
#define TACHY__SRC_EDGE_EDGE_H

#include "base/base.h"
#include "server/server.h"

#include <netinet/in.h>
#include <sys/socket.h>

/* ---- proxy.c: the PROXY protocol codec (HAProxy's doc/proxy-protocol.txt) ----------- */

#define TACHY__PROXY_INCOMPLETE (-2)
#define TACHY__PROXY_ERROR (-1)

/* Section 2.1: a v1 header is at most 107 bytes, "PROXY" to CRLF included. */
#define TACHY__PROXY_V1_MAX 107
/* Section 2.2: the 12-byte v2 signature, then ver/cmd, family, a 16-bit length. */
#define TACHY__PROXY_V2_SIG "\r\n\r\n\0\r\nQUIT\n"
#define TACHY__PROXY_V2_FIXED 16
/* The longest header a tachy listener accepts (v2's length field allows 16 + 65535): the
 * address block (at most 216 bytes, AF_UNIX) and TLVs up to this total. HAProxy's own TLVs
 * (unique id, ALPN, authority, SSL details) fit in it. */
#define TACHY__PROXY_MAX_HEADER 4096

typedef union tachy__proxy_addr {
    struct sockaddr sa;
    struct sockaddr_in in;
    struct sockaddr_in6 in6;
} tachy__proxy_addr;

/* A parsed header. Every pointer points into the parsed buffer (nothing is copied but the
 * addresses, which are decoded into socket addresses). */
typedef struct tachy__proxy {
    int version;         /* 1 or 2 */
    /* 1: the header carries no client address to use - v2 LOCAL (the balancer's own
     * connection, e.g. a health check), v1 UNKNOWN, v2 family UNSPEC or UNIX: the
     * receiver keeps the socket's own addresses (section 2.1 and 2.2). */
    int local;
    int family;          /* AF_INET, AF_INET6, AF_UNIX or AF_UNSPEC */
    tachy__proxy_addr src, dst; /* AF_INET / AF_INET6 only (else zero) */
    socklen_t addr_len;  /* sizeof src.in or src.in6; 0 for the others */
    const uint8_t *unix_src, *unix_dst; /* AF_UNIX (v2): the two 108-byte path fields */
    const uint8_t *tlv;  /* v2 PROXY: the TLVs after the addresses, each one checked to lie
                            inside the header (none interpreted); NULL when none */
    size_t tlv_len;
    int ntlv;
} tachy__proxy;

/*
 * Parses a PROXY protocol header (v1 text or v2 binary) at buf[0,len): returns the
 * header's length in bytes (> 0) when complete, TACHY__PROXY_INCOMPLETE when more bytes
 * are needed (what is there is already checked: bytes that cannot start or continue a
 * header are an error at once, so a plain HTTP request is refused without waiting), or
 * TACHY__PROXY_ERROR with *reason a static human-readable string. v1: "PROXY" SP then
 * "TCP4" / "TCP6" with two addresses and two ports separated by single spaces, or
 * "UNKNOWN" with anything up to the CRLF, within 107 bytes; addresses as inet_pton reads
 * them (no leading zeros in IPv4), ports 0-65535 without leading zeros. v2: the
 * signature, version 2, command LOCAL or PROXY, one of the family/transport pairs the
 * spec lists (a DGRAM one is refused: tachy serves TCP), a length that holds the
 * family's address block, then TLVs that must tile the rest exactly. Never reads outside
 * buf[0,len); nothing is copied. Pure: any thread.
 */
int tachy__proxy_parse(const char *buf, size_t len, tachy__proxy *out, const char **reason);

/* ---- listener.c: a PROXY-protocol listener's new connection ------------------------- */

/*
 * The first thing read from a connection on a listener with tachy_options.proxy_protocol:
 * checks the socket's peer against the trusted networks (srv->trusted: none set = any
 * peer), then peeks at the socket (MSG_PEEK, nothing leaves it until the header is whole,
 * so a TLS transport installed already finds its ClientHello untouched), parses, and
 * takes exactly the header's bytes off the socket. On success the socket's peer (*peer)
 * is saved into *sock_peer and *peer becomes the client's address from the header (left
 * as it is for a LOCAL / UNKNOWN / UNSPEC / UNIX header). scratch is the connection's
 * read buffer, used as peek space only (it is empty and stays empty).
 * Returns 0 (done: read HTTP or TLS next), 1 (incomplete: wait for more bytes, then call
 * again), or TACHY_EPROTO (untrusted peer, not a PROXY header, too long: close without a
 * response - it is not HTTP), TACHY_EPEERCLOSED (EOF), TACHY_ENOMEM or TACHY_EIO.
 * The connection's owner thread.
 */
int tachy__edge_proxy_read(tachy_server *srv, int fd, tachy__buf *scratch, struct sockaddr *peer,
                           socklen_t *peer_len, socklen_t peer_cap, struct sockaddr *sock_peer,
                           socklen_t *sock_peer_len);

/* ---- metrics.c: the counters behind tachy_metrics_handler --------------------------- */

/* CLOCK_MONOTONIC in nanoseconds (a vDSO read). Any thread. */
#ifndef TACHY_BENCH_NO_OBSERVER
int64_t tachy__edge_now_ns(void);
#else
/* The benchmark's baseline build (cmake -DTACHY_BENCH_NO_OBSERVER=ON, bench/README.md "What
 * observing costs"): no exchange gets a start time, so http/exchange.c never calls the
 * observer - no duration, no status counters, no access log. Never shipped. */
static inline int64_t tachy__edge_now_ns(void) { return 0; }
#endif
/* The observer of an exchange's end (http/exchange.c, before the exchange is reset): counts
 * its status class (code < 100: ended with no response) and its duration since t0_ns
 * (relaxed atomics), and hands it to the access log when the server has one (accesslog.c:
 * what the line needs is read through the exchange's public getters, so any protocol's
 * exchange can be observed). The exchange's thread. */
void tachy__edge_exchange_done(tachy_server *srv, tachy_exchange *ex, int code, int64_t t0_ns);
/* tachy answered a request itself with code (http/response.c). Any thread. */
void tachy__edge_rejected(tachy_server *srv, int code);
/* A TLS handshake ended (tls/): failed < 0 completed, else its TACHY__TLS_FAIL_* reason.
 * Any thread. */
void tachy__edge_tls_handshake(tachy_server *srv, int failed);

/* ---- accesslog.c: the access log (tachy/accesslog.h) --------------------------------- */

typedef struct tachy__alog tachy__alog;
/* Opens the sink and starts the writer thread when tachy_options names one (else nothing,
 * 0): srv->alog. 0, TACHY_ENOFILE (the file cannot be opened), TACHY_ENOMEM, TACHY_ESYS.
 * tachy_server_start, under srv->lock, before any pool thread exists. */
int tachy__alog_start(tachy_server *srv);
/* Waits (at most timeout_ms) until the writer has written every line queued before the
 * call; the writer goes on (a handler that outlives the stop still logs) until the server
 * is freed. A no-op without an access log. The end of tachy_server_stop. */
void tachy__alog_flush(tachy_server *srv, long timeout_ms);
/* Formats the exchange's line into the ring, or counts it dropped when the ring is full;
 * never blocks. The exchange's thread. */
void tachy__alog_line(tachy__alog *a, tachy_exchange *ex, int code);

#endif
