/*
 * edge/listener.c - a new connection on a PROXY-protocol listener (tachy_options
 * .proxy_protocol): the trusted-peer check and the header, read before anything else.
 *
 * The header is peeked, not read, until it is whole: the socket keeps every byte that is
 * not the header's, so whatever reads next - the HTTP loop, or a TLS transport waiting for
 * its ClientHello (tls/handshake.c peeks at the record header too) - finds its first byte
 * where it expects it, and nothing is ever copied between buffers. A header split over
 * several segments costs one peek per arrival (the edge-triggered park set reports each),
 * bounded by the connection's first deadline as any first byte is.
 */
#include "edge/edge.h"

#include <errno.h>
#include <sys/socket.h>

static int refuse(tachy_server *srv, const struct sockaddr *peer, socklen_t len, const char *why) {
    if (srv->opt.log) {
        char host[64] = "?";
        int port = 0;
        tachy__addr_format(peer, len, host, sizeof host, &port);
        tachy__log(srv, TACHY_LOG_DEBUG, "PROXY protocol: connection from %s port %d closed: %s",
                   host, port, why);
    }
    atomic_fetch_add_explicit(&srv->st_proxy_refused, 1, memory_order_relaxed);
    return TACHY_EPROTO;
}

int tachy__edge_proxy_read(tachy_server *srv, int fd, tachy__buf *scratch, struct sockaddr *peer,
                           socklen_t *peer_len, socklen_t peer_cap, struct sockaddr *sock_peer,
                           socklen_t *sock_peer_len) {
    /* Before anything is read: a header from anyone but the balancer would let any client
     * claim any address. */
    if (srv->ntrusted && !tachy__cidr_match(srv->trusted, srv->ntrusted, peer))
        return refuse(srv, peer, *peer_len, "not a trusted source (proxy_trusted)");
    if (tachy__buf_reserve(scratch, TACHY__PROXY_MAX_HEADER) < 0)
        return TACHY_ENOMEM;
    char *space = scratch->data + scratch->len;
    ssize_t n;
    do
        n = recv(fd, space, TACHY__PROXY_MAX_HEADER, MSG_PEEK | MSG_DONTWAIT);
    while (n < 0 && errno == EINTR);
    if (n == 0)
        return TACHY_EPEERCLOSED;
    if (n < 0)
        return errno == EAGAIN || errno == EWOULDBLOCK ? 1
               : errno == ECONNRESET                   ? TACHY_EPEERCLOSED
                                                       : TACHY_EIO;
    tachy__proxy h;
    const char *why = NULL;
    int r = tachy__proxy_parse(space, (size_t)n, &h, &why);
    if (r == TACHY__PROXY_INCOMPLETE) {
        if (n >= TACHY__PROXY_MAX_HEADER)
            return refuse(srv, peer, *peer_len, "header longer than 4096 bytes");
        return 1; /* the rest raises the next event */
    }
    if (r < 0)
        return refuse(srv, peer, *peer_len, why);
    /* Take exactly the header: its bytes are all in the receive queue already. */
    for (size_t got = 0; got < (size_t)r;) {
        ssize_t k = recv(fd, space, (size_t)r - got, MSG_DONTWAIT);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return TACHY_EIO;
        got += (size_t)k;
    }
    memcpy(sock_peer, peer, *peer_len);
    *sock_peer_len = *peer_len;
    if (!h.local && h.addr_len <= peer_cap) {
        memcpy(peer, &h.src, h.addr_len);
        *peer_len = h.addr_len;
    }
    return 0;
}
