/*
 * base/addr.c - socket addresses as the JDK shows them: the numeric host and the port
 * (InetSocketAddress.getHostString / getPort). No socket is touched. Any thread.
 */
#include "base/base.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>

int tachy__addr_format(const struct sockaddr *sa, unsigned len, char *host, size_t cap,
                       int *port) {
    if (host && cap &&
        getnameinfo(sa, len, host, (socklen_t)cap, NULL, 0, NI_NUMERICHOST) != 0)
        return TACHY_EINVAL;
    if (port)
        *port = sa->sa_family == AF_INET6 ? ntohs(((const struct sockaddr_in6 *)sa)->sin6_port)
                                          : ntohs(((const struct sockaddr_in *)sa)->sin_port);
    return 0;
}

