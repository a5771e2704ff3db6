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


/* ---- networks (CIDR) ------------------------------------------------------------------- */

/* One network "address[/bits]" from s[0,n) into *out. 0 or -1. */
static int cidr_one(const char *s, size_t n, tachy__cidr *out) {
    char tmp[INET6_ADDRSTRLEN + 4];
    if (n == 0 || n >= sizeof tmp)
        return -1;
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    char *slash = memchr(tmp, '/', n);
    long bits = -1;
    if (slash) {
        *slash = '\0';
        const char *d = slash + 1;
        if (!*d || strlen(d) > 3 || (d[0] == '0' && d[1]))
            return -1;
        bits = 0;
        for (; *d; d++) {
            if (*d < '0' || *d > '9')
                return -1;
            bits = bits * 10 + (*d - '0');
        }
    }
    memset(out, 0, sizeof *out);
    if (inet_pton(AF_INET, tmp, out->addr) == 1) {
        out->family = AF_INET;
        if (bits > 32)
            return -1;
        out->bits = bits < 0 ? 32 : (int)bits;
    } else if (inet_pton(AF_INET6, tmp, out->addr) == 1) {
        out->family = AF_INET6;
        if (bits > 128)
            return -1;
        out->bits = bits < 0 ? 128 : (int)bits;
    } else {
        return -1;
    }
    /* Host bits set ("10.0.0.1/8") are cleared: the network is meant. */
    int len = out->family == AF_INET ? 4 : 16;
    for (int i = 0; i < len; i++) {
        int keep = out->bits - 8 * i;
        if (keep <= 0)
            out->addr[i] = 0;
        else if (keep < 8)
            out->addr[i] &= (uint8_t)(0xff << (8 - keep));
    }
    return 0;
}

int tachy__cidr_parse(const char *s, tachy__cidr *out, size_t cap) {
    size_t n = 0;
    if (!s)
        return 0;
    for (;;) {
        while (*s == ' ' || *s == ',' || *s == '\t')
            s++;
        if (!*s)
            return (int)n;
        size_t len = strcspn(s, " ,\t");
        if (n == cap)
            return TACHY_ETOOBIG;
        if (cidr_one(s, len, &out[n]) < 0)
            return TACHY_EINVAL;
        n++;
        s += len;
    }
}

static int prefix_match(const uint8_t *a, const uint8_t *net, int bits) {
    int full = bits / 8, rest = bits % 8;
    if (memcmp(a, net, (size_t)full) != 0)
        return 0;
    return rest == 0 || ((a[full] ^ net[full]) & (0xff << (8 - rest)) & 0xff) == 0;
}

int tachy__cidr_match(const tachy__cidr *nets, size_t n, const struct sockaddr *sa) {
    const uint8_t *v4 = NULL, *v6 = NULL;
    if (sa->sa_family == AF_INET) {
        v4 = (const uint8_t *)&((const struct sockaddr_in *)sa)->sin_addr;
    } else if (sa->sa_family == AF_INET6) {
        const struct in6_addr *a6 = &((const struct sockaddr_in6 *)sa)->sin6_addr;
        v6 = a6->s6_addr;
        if (IN6_IS_ADDR_V4MAPPED(a6)) /* a dual-stack listener's IPv4 peer */
            v4 = v6 + 12;
    }
    for (size_t i = 0; i < n; i++) {
        const uint8_t *a = nets[i].family == AF_INET ? v4 : v6;
        if (a && prefix_match(a, nets[i].addr, nets[i].bits))
            return 1;
    }
    return 0;
}
