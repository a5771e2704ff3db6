/*
 * server/filter.c - Filter and Filter.Chain.
 *
 * Filters are immutable after creation and reference-counted with
 * C11 atomics, so contexts on any thread can share them and a context can drop its
 * reference while a connection thread still runs the chain with its own.
 *
 * The chain mirrors Filter.Chain: one shared cursor over the filter list; each
 * doFilter runs the next filter, or the handler once the filters are exhausted. A chain
 * lives on the stack of tachy__chain_run and never touches the exchange itself.
 */
#include "server/server.h"

#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* ---- filters ------------------------------------------------------------------------ */

enum filter_kind { FILTER_FULL, FILTER_BEFORE, FILTER_AFTER };

struct tachy_filter {
    atomic_size_t refs;
    enum filter_kind kind;
    tachy_filter_fn full;  /* FILTER_FULL */
    tachy_handler_fn hook; /* FILTER_BEFORE / FILTER_AFTER */
    void *user;
    void (*free_user)(void *);
    char description[]; /* copied at creation */
};

/* One allocation holds the filter and its description. On failure the caller keeps
 * ownership of user (free_user is not called). */
static int filter_new(tachy_filter **out, const char *description, enum filter_kind kind,
                      tachy_filter_fn full, tachy_handler_fn hook, void *user,
                      void (*free_user)(void *)) {
    size_t dlen;
    tachy_filter *f;

    if (out == NULL || (full == NULL && hook == NULL))
        return TACHY_EINVAL;
    if (description == NULL)
        description = "";
    dlen = strlen(description);
    f = malloc(sizeof *f + dlen + 1);
    if (f == NULL)
        return TACHY_ENOMEM;
    atomic_init(&f->refs, 1);
    f->kind = kind;
    f->full = full;
    f->hook = hook;
    f->user = user;
    f->free_user = free_user;
    memcpy(f->description, description, dlen + 1);
    *out = f;
    return 0;
}

/* Filter with full control over the chain. Caller owns one reference. Any thread. */
int tachy_filter_create(tachy_filter **out, const char *description, tachy_filter_fn fn, void *user,
                        void (*free_user)(void *)) {
    if (fn == NULL)
        return TACHY_EINVAL;
    return filter_new(out, description, FILTER_FULL, fn, NULL, user, free_user);
}

/* Filter.beforeHandler. Caller owns one reference. Any thread. */
int tachy_filter_create_before(tachy_filter **out, const char *description, tachy_handler_fn fn,
                               void *user, void (*free_user)(void *)) {
    if (fn == NULL)
        return TACHY_EINVAL;
    return filter_new(out, description, FILTER_BEFORE, NULL, fn, user, free_user);
}

/* Filter.afterHandler. Caller owns one reference. Any thread. */
int tachy_filter_create_after(tachy_filter **out, const char *description, tachy_handler_fn fn,
                              void *user, void (*free_user)(void *)) {
    if (fn == NULL)
        return TACHY_EINVAL;
    return filter_new(out, description, FILTER_AFTER, NULL, fn, user, free_user);
}

/* Borrowed; lives as long as the filter. Any thread. */
const char *tachy_filter_description(const tachy_filter *f) {
    return f == NULL ? NULL : f->description;
}

/* Takes another reference (a context adding the filter). Any thread. */
void tachy__filter_ref(tachy_filter *f) {
    if (f != NULL)
        atomic_fetch_add_explicit(&f->refs, 1, memory_order_relaxed);
}

/* Drops one reference; the last one calls free_user and frees. acq_rel so that every
 * use by other threads happens-before the free. Any thread. */
void tachy_filter_destroy(tachy_filter *f) {
    if (f == NULL)
        return;
    if (atomic_fetch_sub_explicit(&f->refs, 1, memory_order_acq_rel) != 1)
        return;
    if (f->free_user != NULL)
        f->free_user(f->user);
    free(f);
}

/* Filter.Chain.doFilter: the next filter, or the handler. Before/after filters are the
 * JDK's beforeHandler/afterHandler: a failing before-hook stops the chain, and the
 * after-hook only runs when the rest of the chain succeeded (in Java an exception from
 * chain.doFilter skips it). Runs on the exchange's thread. */
int tachy_chain_do_filter(tachy_chain *chain, tachy_exchange *ex) {
    tachy_filter *f;
    int rc;

    if (chain == NULL)
        return TACHY_EINVAL;
    if (chain->next >= chain->n) {
        if (chain->handler == NULL)
            return TACHY_EINVAL; /* server.c answers 500 before building such a chain */
        return chain->handler(ex, chain->handler_user);
    }
    f = chain->filters[chain->next++];
    switch (f->kind) {
    case FILTER_FULL:
        return f->full(ex, chain, f->user);
    case FILTER_BEFORE:
        rc = f->hook(ex, f->user);
        return rc < 0 ? rc : tachy_chain_do_filter(chain, ex);
    case FILTER_AFTER:
        rc = tachy_chain_do_filter(chain, ex);
        return rc < 0 ? rc : f->hook(ex, f->user);
    }
    return TACHY_EINVAL;
}
