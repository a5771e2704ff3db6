/*
 * server/server.c - HttpServer as an object: options (one defaults table,
 * server/options.h), create, bind, the address, counters and the last release.
 * Starting, serving, stopping and destroying are the running server's: loop/lifecycle.c.
 *
 * Lifetime: the server struct is reference-counted: the user holds one reference (dropped
 * by tachy_server_destroy) and every live pool thread holds one, so a thread that is
 * still finishing a handler after stop() returned never touches freed memory.
 */
#include "server/server.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- options and logging ------------------------------------------------------------ */

TACHY_API void tachy_options_init(tachy_options *opt) {
    if (!opt)
        return;
    memset(opt, 0, sizeof *opt);
#define TACHY__OPT_INIT(field, def, fix) opt->field = (def);
    TACHY__OPTIONS(TACHY__OPT_INIT)
#undef TACHY__OPT_INIT
}

/* What server/options.h's fix column says an out-of-range value becomes. */
#define TACHY__FIX_KEEP(v, def) (v)
#define TACHY__FIX_POSITIVE(v, def) ((v) <= 0 ? (def) : (v))
#define TACHY__FIX_NONNEG(v, def) ((v) < 0 ? 0 : (v))
#define TACHY__FIX_NONZERO(v, def) ((v) == 0 ? (def) : (v))
#define TACHY__FIX_MINSTACK(v, def) ((v) && (v) < TACHY__OPT_MIN_STACK ? TACHY__OPT_MIN_STACK : (v))
#define TACHY__FIX_CHOICE2(v, def) ((v) == 0 || (v) == 1 ? (v) : (def))

static void options_fix(tachy_options *o) {
#define TACHY__OPT_FIX(field, def, fix) o->field = TACHY__FIX_##fix(o->field, def);
    TACHY__OPTIONS(TACHY__OPT_FIX)
#undef TACHY__OPT_FIX
}

void tachy__log(const tachy_server *srv, int level, const char *fmt, ...) {
    if (!srv || !srv->opt.log)
        return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    srv->opt.log(srv->opt.log_user, level, msg);
}

/* ---- create, bind, destroy ---------------------------------------------------------- */

TACHY_API int tachy_server_create_unbound(tachy_server **out, const tachy_options *opt) {
    if (!out)
        return TACHY_EINVAL;
    *out = NULL;
    tachy_server *srv = calloc(1, sizeof *srv);
    if (!srv)
        return TACHY_ENOMEM;
    if (opt)
        srv->opt = *opt;
    else
        tachy_options_init(&srv->opt);
    options_fix(&srv->opt);
    srv->opt.proxy_trusted = NULL; /* the caller's string is not kept: see below */
    if (opt && opt->proxy_trusted) {
        tachy__cidr nets[TACHY__MAX_TRUSTED];
        int n = tachy__cidr_parse(opt->proxy_trusted, nets, TACHY__MAX_TRUSTED);
        if (n < 0) {
            free(srv);
            return TACHY_EINVAL; /* malformed, or more than TACHY__MAX_TRUSTED */
        }
        if (n > 0) { /* none (only blanks): any peer, as NULL */
            srv->trusted = malloc((size_t)n * sizeof *nets);
            char *copy = strdup(opt->proxy_trusted);
            if (!srv->trusted || !copy) {
                free(srv->trusted);
                free(copy);
                free(srv);
                return TACHY_ENOMEM;
            }
            memcpy(srv->trusted, nets, (size_t)n * sizeof *nets);
            srv->ntrusted = (size_t)n;
            srv->opt.proxy_trusted = copy;
        }
    }
    srv->opt.access_log = NULL; /* the caller's string is not kept either */
    if (opt && opt->access_log && *opt->access_log) {
        char *copy = strdup(opt->access_log);
        if (!copy) {
            free(srv->trusted);
            free((char *)srv->opt.proxy_trusted);
            free(srv);
            return TACHY_ENOMEM;
        }
        srv->opt.access_log = copy;
    }
    pthread_mutex_init(&srv->lock, NULL);
    tachy__cond_init(&srv->cond);
    atomic_init(&srv->refs, 1);
    srv->fd = -1;
    atomic_init(&srv->state, TACHY__SRV_CREATED);
    *out = srv;
    return 0;
}

/* Resolves host (NULL/"" = wildcard) into a socket address. */
static int resolve(const char *host, int port, struct sockaddr_storage *ss, socklen_t *len) {
    memset(ss, 0, sizeof *ss);
    if (!host || !*host) {
        /* The wildcard: IPv4's 0.0.0.0. (Java binds "::" dual-stack where IPv6 exists;
         * tachy does not: a server that must take IPv6 clients binds "::" explicitly.) */
        struct sockaddr_in *sin = (struct sockaddr_in *)ss;
        sin->sin_family = AF_INET;
        sin->sin_port = htons((uint16_t)port);
        sin->sin_addr.s_addr = htonl(INADDR_ANY);
        *len = sizeof *sin;
        return 0;
    }
    /* Literal addresses need no resolver (and no NSS modules loaded into the process). */
    struct sockaddr_in *sin4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
    if (inet_pton(AF_INET, host, &sin4->sin_addr) == 1) {
        sin4->sin_family = AF_INET;
        sin4->sin_port = htons((uint16_t)port);
        *len = sizeof *sin4;
        return 0;
    }
    if (inet_pton(AF_INET6, host, &sin6->sin6_addr) == 1) {
        sin6->sin6_family = AF_INET6;
        sin6->sin6_port = htons((uint16_t)port);
        *len = sizeof *sin6;
        return 0;
    }
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    char portstr[16];
    snprintf(portstr, sizeof portstr, "%d", port);
    if (getaddrinfo(host, portstr, &hints, &res) != 0 || !res)
        return TACHY_EADDRNOTAVAIL;
    memcpy(ss, res->ai_addr, res->ai_addrlen);
    *len = res->ai_addrlen;
    freeaddrinfo(res);
    return 0;
}

TACHY_API int tachy_server_bind(tachy_server *srv, const char *host, int port, int backlog) {
    if (!srv || port < 0 || port > 65535)
        return TACHY_EINVAL;
    pthread_mutex_lock(&srv->lock);
    int rc = 0;
    if (srv->bound) {
        rc = TACHY_EBOUND;
        goto out;
    }
    if (atomic_load(&srv->state) != TACHY__SRV_CREATED) {
        rc = TACHY_ESTOPPED;
        goto out;
    }
    struct sockaddr_storage ss;
    socklen_t len;
    rc = resolve(host, port, &ss, &len);
    if (rc < 0)
        goto out;
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        rc = TACHY_ESYS;
        goto out;
    }
    int one = 1;
    /* SO_REUSEADDR as the JDK's ServerSocketChannel does on Linux: a restarted server can
     * bind while old connections sit in TIME_WAIT. */
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    /* tachy_options.reuseport: several listening sockets on one port, each with its own
     * accept queue (the kernel hashes new connections over them). */
    if (srv->opt.reuseport && setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) < 0) {
        rc = TACHY_ESYS;
        close(fd);
        goto out;
    }
    if (bind(fd, (struct sockaddr *)&ss, len) < 0) {
        rc = errno == EADDRINUSE ? TACHY_EADDRINUSE
             : (errno == EADDRNOTAVAIL || errno == EAFNOSUPPORT) ? TACHY_EADDRNOTAVAIL
                                                                  : TACHY_ESYS;
        close(fd);
        goto out;
    }
    if (listen(fd, backlog > 0 ? backlog : SOMAXCONN) < 0) {
        rc = TACHY_ESYS;
        close(fd);
        goto out;
    }
    srv->addr_len = sizeof srv->addr;
    getsockname(fd, (struct sockaddr *)&srv->addr, &srv->addr_len);
    srv->fd = fd;
    srv->bound = 1;
out:
    pthread_mutex_unlock(&srv->lock);
    return rc;
}

TACHY_API int tachy_server_create(tachy_server **out, const char *host, int port, int backlog,
                                  const tachy_options *opt) {
    int rc = tachy_server_create_unbound(out, opt);
    if (rc < 0)
        return rc;
    rc = tachy_server_bind(*out, host, port, backlog);
    if (rc < 0) {
        tachy__server_discard(*out);
        *out = NULL;
    }
    return rc;
}

void tachy__server_discard(tachy_server *srv) {
    if (srv->fd >= 0) {
        close(srv->fd);
        srv->fd = -1;
    }
    tachy__server_release(srv);
}

void tachy__server_release(tachy_server *srv) {
    if (atomic_fetch_sub(&srv->refs, 1) != 1)
        return;
    for (size_t i = 0; i < srv->ncontexts; i++) {
        srv->contexts[i]->removed = 1;
        tachy__context_release(srv->contexts[i]);
    }
    free(srv->contexts);
    free(srv->trusted);
    free((char *)srv->opt.proxy_trusted);
    if (srv->alog_free)
        srv->alog_free(srv); /* the access log's last lines, its file and ring (edge/) */
    free((char *)srv->opt.access_log);
    if (srv->tls && srv->tls_release)
        srv->tls_release(srv->tls); /* the server's reference (tls/ set the hook) */
    if (srv->loop_free)
        srv->loop_free(srv);
    pthread_mutex_destroy(&srv->lock);
    pthread_cond_destroy(&srv->cond);
    free(srv);
}

TACHY_API int tachy_server_address(const tachy_server *srv, char *host, size_t cap, int *port) {
    if (!srv)
        return TACHY_EINVAL;
    if (!srv->bound)
        return TACHY_ENOTBOUND;
    return tachy__addr_format((const struct sockaddr *)&srv->addr, srv->addr_len, host, cap, port);
}

TACHY_API int tachy_server_port(const tachy_server *srv) {
    int port = 0;
    int rc = tachy_server_address(srv, NULL, 0, &port);
    return rc < 0 ? rc : port;
}

TACHY_API int tachy_server_fd(const tachy_server *srv) { return srv ? srv->fd : -1; }

TACHY_API const tachy_options *tachy_server_options(const tachy_server *srv) {
    return srv ? &srv->opt : NULL;
}

TACHY_API int tachy_server_stats(const tachy_server *srv, tachy_stats *out) {
    if (!srv || !out)
        return TACHY_EINVAL;
    tachy_server *s = (tachy_server *)srv;
    out->connections = atomic_load_explicit(&s->st_connections, memory_order_relaxed);
    out->requests = atomic_load_explicit(&s->st_requests, memory_order_relaxed);
    out->reads = atomic_load_explicit(&s->st_reads, memory_order_relaxed);
    out->writes = atomic_load_explicit(&s->st_writes, memory_order_relaxed);
    return 0;
}

