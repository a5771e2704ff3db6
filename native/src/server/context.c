/*
 * server/context.c - HttpContext: creating and removing contexts, the JDK's path matching,
 * a context's handler, filters, authenticator and attributes.
 *
 * Contexts are reference-counted: the server's list holds one reference and every
 * exchange that runs in a context holds one, so removing a context while a request runs in
 * it frees it only when that request is done.
 */
#include "server/server.h"

#include <stdlib.h>
#include <string.h>

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

TACHY_API tachy_context *tachy_server_find_context(tachy_server *srv, const char *path) {
    if (!srv || !path)
        return NULL;
    pthread_mutex_lock(&srv->lock);
    tachy_context *c = tachy__server_find_context_locked(srv, path, strlen(path));
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
