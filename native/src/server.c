/*
 * server.c - HttpServer and HttpContext: bind, accept, the connection thread pool,
 * contexts and the JDK's path matching, stop(delay).
 *
 * Threads, connections and the park set are pool.c's; this file is the public face.
 *
 * Lifetime: the server struct is reference-counted: the user holds one reference (dropped
 * by tachy_server_destroy) and every live pool thread holds one, so a thread that is
 * still finishing a handler after stop() returned never touches freed memory.
 */
#include "conn.h"

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
    opt->max_req_headers = 200;
    opt->max_req_header_size = 393216;
    opt->max_request_line = 16384;
    opt->max_req_time_ms = -1;
    opt->max_rsp_time_ms = -1;
    opt->idle_interval_ms = 30000;
    opt->max_idle_connections = 200;
    opt->max_connections = -1;
    opt->drain_amount = 65536;
    opt->nodelay = 1;
    opt->thread_stack_size = 256 * 1024;
    opt->thread_keepalive_ms = 10000;
    opt->max_chunk_ext = 4096;
    opt->http10_keepalive_max = 0;
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
    if (srv->opt.max_req_headers <= 0)
        srv->opt.max_req_headers = 200;
    if (srv->opt.max_req_header_size <= 0)
        srv->opt.max_req_header_size = 393216;
    if (srv->opt.max_request_line <= 0)
        srv->opt.max_request_line = 16384;
    if (srv->opt.idle_interval_ms <= 0)
        srv->opt.idle_interval_ms = 30000;
    if (srv->opt.drain_amount < 0)
        srv->opt.drain_amount = 0;
    if (srv->opt.thread_stack_size && srv->opt.thread_stack_size < 64 * 1024)
        srv->opt.thread_stack_size = 64 * 1024;
    if (srv->opt.thread_keepalive_ms < 0)
        srv->opt.thread_keepalive_ms = 0;
    if (srv->opt.max_chunk_ext == 0)
        srv->opt.max_chunk_ext = 4096;
    pthread_mutex_init(&srv->lock, NULL);
    pthread_cond_init(&srv->cond, NULL);
    atomic_init(&srv->refs, 1);
    srv->fd = -1;
    srv->epfd = srv->wakefd = -1;
    atomic_init(&srv->state, TACHY__SRV_CREATED);
    *out = srv;
    return 0;
}

/* Resolves host (NULL/"" = wildcard) into a socket address. */
static int resolve(const char *host, int port, struct sockaddr_storage *ss, socklen_t *len) {
    memset(ss, 0, sizeof *ss);
    if (!host || !*host) {
        /* The JDK binds the wildcard address; prefer IPv6 dual-stack like Java does, but fall
         * back to IPv4 where IPv6 is unavailable (checked at bind). */
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
        tachy_server_destroy(*out);
        *out = NULL;
    }
    return rc;
}

void tachy__server_release(tachy_server *srv) {
    if (atomic_fetch_sub(&srv->refs, 1) != 1)
        return;
    for (size_t i = 0; i < srv->ncontexts; i++) {
        srv->contexts[i]->removed = 1;
        tachy__context_release(srv->contexts[i]);
    }
    free(srv->contexts);
    tachy__tls_config_release(srv->tls);
    tachy__pool_free(srv);
    pthread_mutex_destroy(&srv->lock);
    pthread_cond_destroy(&srv->cond);
    free(srv);
}

TACHY_API void tachy_server_destroy(tachy_server *srv) {
    if (!srv)
        return;
    tachy_server_stop(srv, 0);
    tachy__server_release(srv);
}

TACHY_API int tachy_server_address(const tachy_server *srv, char *host, size_t cap, int *port) {
    if (!srv)
        return TACHY_EINVAL;
    if (!srv->bound)
        return TACHY_ENOTBOUND;
    const struct sockaddr *sa = (const struct sockaddr *)&srv->addr;
    if (host && cap) {
        if (getnameinfo(sa, srv->addr_len, host, (socklen_t)cap, NULL, 0, NI_NUMERICHOST) != 0)
            return TACHY_EINVAL;
    }
    if (port)
        *port = sa->sa_family == AF_INET6
                    ? ntohs(((const struct sockaddr_in6 *)sa)->sin6_port)
                    : ntohs(((const struct sockaddr_in *)sa)->sin_port);
    return 0;
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

TACHY_API int tachy_server_connection_count(const tachy_server *srv) {
    if (!srv)
        return TACHY_EINVAL;
    pthread_mutex_lock((pthread_mutex_t *)&srv->lock);
    int n = srv->nconns;
    pthread_mutex_unlock((pthread_mutex_t *)&srv->lock);
    return n;
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

/* ---- start and stop ------------------------------------------------------------------ */

TACHY_API int tachy_server_start(tachy_server *srv) {
    if (!srv)
        return TACHY_EINVAL;
    pthread_mutex_lock(&srv->lock);
    int rc = 0;
    int st = atomic_load(&srv->state);
    if (st == TACHY__SRV_STARTED)
        rc = TACHY_ESTARTED;
    else if (st != TACHY__SRV_CREATED)
        rc = TACHY_ESTOPPED;
    else if (!srv->bound)
        rc = TACHY_ENOTBOUND;
    if (rc == 0)
        rc = tachy__pool_start(srv);
    if (rc == 0) {
        atomic_store(&srv->state, TACHY__SRV_STARTED);
        rc = tachy__pool_listen(srv);
        if (rc < 0) {
            /* The watchdog is running: stop it the normal way. */
            atomic_store(&srv->state, TACHY__SRV_STOPPING);
            tachy__pool_unlisten(srv);
            tachy__pool_stop(srv, 0);
            close(srv->fd);
            srv->fd = -1;
            atomic_store(&srv->state, TACHY__SRV_STOPPED);
        }
    }
    pthread_mutex_unlock(&srv->lock);
    return rc;
}

TACHY_API int tachy_server_stop(tachy_server *srv, int delay_seconds) {
    if (!srv || delay_seconds < 0)
        return TACHY_EINVAL;
    pthread_mutex_lock(&srv->lock);
    int st = atomic_load(&srv->state);
    if (st == TACHY__SRV_STOPPED || st == TACHY__SRV_STOPPING) {
        /* Second stop: wait for the first to finish, then succeed. */
        while (atomic_load(&srv->state) == TACHY__SRV_STOPPING)
            pthread_cond_wait(&srv->cond, &srv->lock);
        pthread_mutex_unlock(&srv->lock);
        return 0;
    }
    atomic_store(&srv->state, TACHY__SRV_STOPPING);
    /* 1. Stop accepting at once (new connections are refused from here on). */
    tachy__pool_unlisten(srv);
    /* 2-4. Idle connections now, active ones within delay_seconds, then threads. */
    tachy__pool_stop(srv, delay_seconds);
    if (srv->fd >= 0) {
        close(srv->fd);
        srv->fd = -1;
    }
    atomic_store(&srv->state, TACHY__SRV_STOPPED);
    pthread_cond_broadcast(&srv->cond);
    pthread_mutex_unlock(&srv->lock);
    return 0;
}

/* ---- contexts ----------------------------------------------------------------------- */

static void attrs_free(tachy__attr *attrs, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (attrs[i].free_fn && attrs[i].value)
            attrs[i].free_fn(attrs[i].value);
        free(attrs[i].name);
    }
    free(attrs);
}

void tachy__context_release(tachy_context *ctx) {
    if (atomic_fetch_sub(&ctx->refs, 1) != 1)
        return;
    for (size_t i = 0; i < ctx->nfilters; i++)
        tachy_filter_destroy(ctx->filters[i]);
    free(ctx->filters);
    tachy_authenticator_destroy(ctx->auth);
    attrs_free(ctx->attrs, ctx->nattrs);
    free(ctx->path);
    free(ctx);
}

TACHY_API int tachy_server_create_context(tachy_server *srv, const char *path,
                                          tachy_handler_fn handler, void *user,
                                          tachy_context **out) {
    if (out)
        *out = NULL;
    if (!srv || !path || path[0] != '/')
        return TACHY_EINVAL;
    tachy_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return TACHY_ENOMEM;
    ctx->path = strdup(path);
    if (!ctx->path) {
        free(ctx);
        return TACHY_ENOMEM;
    }
    ctx->path_len = strlen(path);
    ctx->srv = srv;
    ctx->handler = handler;
    ctx->user = user;
    atomic_init(&ctx->refs, 1);
    pthread_mutex_lock(&srv->lock);
    int rc = 0;
    for (size_t i = 0; i < srv->ncontexts; i++) {
        if (strcmp(srv->contexts[i]->path, path) == 0) {
            rc = TACHY_EEXISTS;
            break;
        }
    }
    if (rc == 0 && srv->ncontexts == srv->contexts_cap) {
        size_t cap = srv->contexts_cap ? srv->contexts_cap * 2 : 8;
        tachy_context **n = realloc(srv->contexts, cap * sizeof *n);
        if (!n)
            rc = TACHY_ENOMEM;
        else {
            srv->contexts = n;
            srv->contexts_cap = cap;
        }
    }
    if (rc == 0)
        srv->contexts[srv->ncontexts++] = ctx;
    pthread_mutex_unlock(&srv->lock);
    if (rc < 0) {
        free(ctx->path);
        free(ctx);
        return rc;
    }
    if (out)
        *out = ctx;
    return 0;
}

static int remove_at(tachy_server *srv, size_t i) {
    tachy_context *ctx = srv->contexts[i];
    memmove(&srv->contexts[i], &srv->contexts[i + 1],
            (srv->ncontexts - i - 1) * sizeof srv->contexts[0]);
    srv->ncontexts--;
    ctx->removed = 1;
    pthread_mutex_unlock(&srv->lock);
    tachy__context_release(ctx);
    return 0;
}

TACHY_API int tachy_server_remove_context(tachy_server *srv, const char *path) {
    if (!srv || !path)
        return TACHY_EINVAL;
    pthread_mutex_lock(&srv->lock);
    for (size_t i = 0; i < srv->ncontexts; i++)
        if (strcmp(srv->contexts[i]->path, path) == 0)
            return remove_at(srv, i); /* unlocks */
    pthread_mutex_unlock(&srv->lock);
    return TACHY_ENOTFOUND;
}

TACHY_API int tachy_server_remove_context_handle(tachy_server *srv, tachy_context *ctx) {
    if (!srv || !ctx)
        return TACHY_EINVAL;
    pthread_mutex_lock(&srv->lock);
    for (size_t i = 0; i < srv->ncontexts; i++)
        if (srv->contexts[i] == ctx)
            return remove_at(srv, i); /* unlocks */
    pthread_mutex_unlock(&srv->lock);
    return TACHY_ENOTFOUND;
}

/* The JDK's ContextList.findContext: the longest context path that is a plain string
 * prefix of the decoded request path ("/foo" serves "/foobar" too). */
tachy_context *tachy__server_find_context_locked(tachy_server *srv, const char *path) {
    tachy_context *best = NULL;
    size_t plen = strlen(path);
    for (size_t i = 0; i < srv->ncontexts; i++) {
        tachy_context *c = srv->contexts[i];
        if (c->path_len <= plen && memcmp(c->path, path, c->path_len) == 0 &&
            (!best || c->path_len > best->path_len))
            best = c;
    }
    return best;
}

TACHY_API tachy_context *tachy_server_find_context(tachy_server *srv, const char *path) {
    if (!srv || !path)
        return NULL;
    pthread_mutex_lock(&srv->lock);
    tachy_context *c = tachy__server_find_context_locked(srv, path);
    pthread_mutex_unlock(&srv->lock);
    return c;
}


TACHY_API const char *tachy_context_path(const tachy_context *ctx) {
    return ctx ? ctx->path : NULL;
}

TACHY_API tachy_server *tachy_context_server(const tachy_context *ctx) {
    return ctx ? ctx->srv : NULL;
}

TACHY_API int tachy_context_set_handler(tachy_context *ctx, tachy_handler_fn handler,
                                        void *user) {
    if (!ctx)
        return TACHY_EINVAL;
    pthread_mutex_lock(&ctx->srv->lock);
    ctx->handler = handler;
    ctx->user = user;
    pthread_mutex_unlock(&ctx->srv->lock);
    return 0;
}

TACHY_API tachy_handler_fn tachy_context_handler(const tachy_context *ctx, void **user) {
    if (!ctx)
        return NULL;
    pthread_mutex_lock(&ctx->srv->lock);
    tachy_handler_fn h = ctx->handler;
    if (user)
        *user = ctx->user;
    pthread_mutex_unlock(&ctx->srv->lock);
    return h;
}

TACHY_API int tachy_context_set_attribute(tachy_context *ctx, const char *name, void *value,
                                          void (*free_fn)(void *)) {
    if (!ctx || !name)
        return TACHY_EINVAL;
    pthread_mutex_lock(&ctx->srv->lock);
    void *old = NULL;
    void (*old_free)(void *) = NULL;
    int rc = 0;
    size_t i;
    for (i = 0; i < ctx->nattrs; i++)
        if (strcmp(ctx->attrs[i].name, name) == 0)
            break;
    if (i < ctx->nattrs) {
        old = ctx->attrs[i].value;
        old_free = ctx->attrs[i].free_fn;
        if (value) {
            ctx->attrs[i].value = value;
            ctx->attrs[i].free_fn = free_fn;
        } else {
            free(ctx->attrs[i].name);
            ctx->attrs[i] = ctx->attrs[--ctx->nattrs];
        }
    } else if (value) {
        tachy__attr *n = realloc(ctx->attrs, (ctx->nattrs + 1) * sizeof *n);
        char *dup = strdup(name);
        if (!n || !dup) {
            free(dup);
            if (n)
                ctx->attrs = n;
            rc = TACHY_ENOMEM;
        } else {
            ctx->attrs = n;
            ctx->attrs[ctx->nattrs++] = (tachy__attr){dup, value, free_fn};
        }
    }
    pthread_mutex_unlock(&ctx->srv->lock);
    if (old && old_free && old != value)
        old_free(old);
    return rc;
}

TACHY_API void *tachy_context_attribute(const tachy_context *ctx, const char *name) {
    if (!ctx || !name)
        return NULL;
    void *v = NULL;
    pthread_mutex_lock(&ctx->srv->lock);
    for (size_t i = 0; i < ctx->nattrs; i++)
        if (strcmp(ctx->attrs[i].name, name) == 0)
            v = ctx->attrs[i].value;
    pthread_mutex_unlock(&ctx->srv->lock);
    return v;
}

TACHY_API int tachy_context_add_filter(tachy_context *ctx, tachy_filter *filter) {
    if (!ctx || !filter)
        return TACHY_EINVAL;
    pthread_mutex_lock(&ctx->srv->lock);
    int rc = 0;
    if (ctx->nfilters == ctx->filters_cap) {
        size_t cap = ctx->filters_cap ? ctx->filters_cap * 2 : 4;
        tachy_filter **n = realloc(ctx->filters, cap * sizeof *n);
        if (!n)
            rc = TACHY_ENOMEM;
        else {
            ctx->filters = n;
            ctx->filters_cap = cap;
        }
    }
    if (rc == 0) {
        tachy__filter_ref(filter);
        ctx->filters[ctx->nfilters++] = filter;
    }
    pthread_mutex_unlock(&ctx->srv->lock);
    return rc;
}

TACHY_API int tachy_context_remove_filter(tachy_context *ctx, tachy_filter *filter) {
    if (!ctx || !filter)
        return TACHY_EINVAL;
    pthread_mutex_lock(&ctx->srv->lock);
    for (size_t i = 0; i < ctx->nfilters; i++) {
        if (ctx->filters[i] == filter) {
            memmove(&ctx->filters[i], &ctx->filters[i + 1],
                    (ctx->nfilters - i - 1) * sizeof ctx->filters[0]);
            ctx->nfilters--;
            pthread_mutex_unlock(&ctx->srv->lock);
            tachy_filter_destroy(filter);
            return 0;
        }
    }
    pthread_mutex_unlock(&ctx->srv->lock);
    return TACHY_ENOTFOUND;
}

TACHY_API size_t tachy_context_filter_count(const tachy_context *ctx) {
    if (!ctx)
        return 0;
    pthread_mutex_lock(&ctx->srv->lock);
    size_t n = ctx->nfilters;
    pthread_mutex_unlock(&ctx->srv->lock);
    return n;
}

TACHY_API int tachy_context_set_authenticator(tachy_context *ctx, tachy_authenticator *auth) {
    if (!ctx)
        return TACHY_EINVAL;
    if (auth)
        tachy__authenticator_ref(auth);
    pthread_mutex_lock(&ctx->srv->lock);
    tachy_authenticator *old = ctx->auth;
    ctx->auth = auth;
    pthread_mutex_unlock(&ctx->srv->lock);
    tachy_authenticator_destroy(old);
    return 0;
}
