/*
 * http/dispatch.c - from a parsed request to its handler: the context (the longest match by
 * path or string prefix, tachy_options.context_match; snapshotted with its filters under one
 * lock), 100-continue, the user's filters, the authenticator (the JDK's AuthFilter, after the
 * user's filters), the handler, and lending the connection to a deferred exchange.
 */
#include "http/http.h"

#include <stdlib.h>
#include <string.h>

/* ---- dispatch ----------------------------------------------------------------------- */

/* The authenticator as the last link before the handler (the JDK's AuthFilter). */
struct auth_link {
    tachy_authenticator *auth;
    tachy_handler_fn handler;
    void *user;
};

static int auth_then_handler(tachy_exchange *ex, void *arg) {
    struct auth_link *l = arg;
    tachy_auth_result res;
    memset(&res, 0, sizeof res);
    tachy_authenticator_authenticate(l->auth, ex, &res);
    int rc = 0;
    if (res.kind == TACHY_AUTH_SUCCESS) {
        tachy_exchange_set_principal(ex, res.user, res.realm);
        rc = l->handler(ex, l->user);
    } else {
        /* Failure and Retry: consume the input, answer the code with no body. */
        tachy_exchange_request_body_close(ex);
        tachy_exchange_send_response_headers(ex, res.code > 0 ? res.code : 401, -1);
    }
    tachy_auth_result_clear(&res);
    return rc;
}

/* The dispatch behind both entry points, always inlined so that each is a copy of its own;
 * h1: the exchange is its connection's HTTP/1.1 one (c->ex, ex->ops == NULL), a constant
 * that takes the seam's branches out of that copy. */
static inline __attribute__((always_inline)) int dispatch(tachy_exchange *ex, const int h1) {
    const tachy__exchange_ops *ops = h1 ? NULL : ex->ops;
    tachy__conn *c = ex->conn;
    tachy_server *srv = c->srv;
    /* One lock for the lookup and for a snapshot of the context's chain (with references),
     * so the context may change concurrently without affecting this request. */
    tachy_filter *local[8];
    tachy_filter **filters = local;
    tachy_handler_fn handler = NULL;
    void *user = NULL;
    size_t nf = 0;
    tachy_authenticator *auth = NULL;
    pthread_mutex_lock(&srv->lock);
    tachy_context *ctx = tachy__server_find_context_locked(srv, ex->path, ex->path_len);
    if (ctx) {
        atomic_fetch_add(&ctx->refs, 1);
        handler = ctx->handler;
        user = ctx->user;
        nf = ctx->nfilters;
        if (nf > 8)
            filters = malloc(nf * sizeof *filters);
        if (filters)
            for (size_t i = 0; i < nf; i++) {
                filters[i] = ctx->filters[i];
                tachy__filter_ref(filters[i]);
            }
        auth = ctx->auth;
        if (auth)
            tachy__authenticator_ref(auth);
    }
    pthread_mutex_unlock(&srv->lock);
    if (!ctx) {
        tachy__exchange_reject_own(ex, 404, "No context found for request");
        return -1;
    }
    ex->ctx = ctx;
    if (!filters) {
        tachy_authenticator_destroy(auth);
        tachy__exchange_reject_own(ex, 500, "Out of memory");
        return -1;
    }
    int rc = 0;
    if (!handler) {
        tachy__exchange_reject_own(ex, 500, "No handler for context");
        rc = -1;
        goto out;
    }
    if (ex->framing.expect_continue && ops) {
        if (ops->interim(ex, 100) < 0) { /* a stream's interim HEADERS */
            rc = -1;
            goto out;
        }
    } else if (ex->framing.expect_continue) {
        /* Answered before the handler runs, as the JDK does, but as a bare status line:
         * the JDK adds "Content-Length: 0", which RFC 9110 8.6 forbids in a 1xx response
         * (no client was found that tells the two apart: compat ExpectContinueTest). */
        tachy__buf_append_str(&c->wbuf, "HTTP/1.1 100 Continue\r\n\r\n");
        if (tachy__io_flush(c) < 0) {
            rc = -1;
            goto out;
        }
    }
    if (!ops) /* (a connection of HTTP/2 streams is never waited for by stop) */
        atomic_store(&c->in_handler, 1);
    if (auth) {
        /* The JDK runs the user's filters first, then the authenticator (a "system
         * filter"), then the handler. */
        struct auth_link link = {auth, handler, user};
        rc = tachy__chain_run(filters, nf, auth_then_handler, &link, ex);
    } else {
        rc = tachy__chain_run(filters, nf, handler, user, ex);
    }
    /* A hold (tachy_exchange_hold) ends when the handler returns: what it left in wbuf
     * leaves by the flush rule. (A deferred exchange's ended at tachy_exchange_defer, unless
     * its closer continues the connection: then it lasts until the close.) */
    if (ops) {
        if (!ex->deferred)
            ops->hold(ex, 0);
    } else if (c->held && !ex->deferred) {
        c->held = 0;
    }
    int failed = rc < 0;
    if (failed) {
        tachy__log(srv, TACHY_LOG_DEBUG, "handler for %s failed (%d): closing the connection",
                   ex->path, rc);
        if (!ex->deferred) {
            /* Like the JDK: no response is invented; what the handler already produced and
             * earlier pipelined responses still go out, then the connection closes (a
             * stream is reset when its exchange ends). */
            if (!ops)
                tachy__io_flush(c);
            tachy__exchange_fail(ex, 0);
        }
    }
    if (ex->deferred) {
        /* The loop lends the exchange the connection unless it is closed already (its
         * close may be running on another thread right now: loop/states.c orders the two
         * under c->lock). in_handler stays set until the exchange ends. */
        ex->handler_failed = failed;
        rc = TACHY__DISPATCH_DEFERRED;
        goto out;
    } else if (!failed && !ex->closed) {
        tachy_exchange_close(ex);
    }
    if (ex->failed)
        rc = -1;
    if (!ops)
        atomic_store(&c->in_handler, 0);
out:
    for (size_t i = 0; i < nf; i++)
        tachy_filter_destroy(filters[i]);
    if (filters != local)
        free(filters);
    tachy_authenticator_destroy(auth);
    if (rc == TACHY__DISPATCH_DEFERRED)
        return rc;
    return rc < 0 || (!ops && c->close_after) ? -1 : 0;
}

int tachy__exchange_dispatch(tachy_exchange *ex) {
    return dispatch(ex, 0);
}

TACHY__NO_ICF int tachy__exchange_dispatch_conn(tachy_exchange *ex) {
    return dispatch(ex, 1);
}
