/*
 * h2/ng.c - loads libnghttp2 with dlopen at the first HTTP/2 connection (h2/ng.h says why it
 * is not linked) and resolves TACHY_NGHTTP2_FNS. Any thread; the load runs once per process.
 */
#define TACHY__NG_LOADER
#include "h2/ng.h"

#include "tachy/error.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

struct tachy__ng_fns tachy__ng;

static pthread_once_t ng_once = PTHREAD_ONCE_INIT;
static int ng_rc = TACHY_ENOTSUP;
static char ng_error[256];

static void ng_load(void) {
    /* RTLD_NODELETE: a pointer resolved here stays valid for the life of the process. */
    void *h = dlopen("libnghttp2.so.14", RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!h) {
        snprintf(ng_error, sizeof ng_error, "cannot load libnghttp2.so.14: %s", dlerror());
        return;
    }
#define X(req, ret, name, params)                                                                 \
    if (!(*(void **)&tachy__ng.name = dlsym(h, #name)) && (req)) {                                \
        snprintf(ng_error, sizeof ng_error, "libnghttp2.so.14 has no %s", #name);                 \
        return;                                                                                   \
    }
    TACHY_NGHTTP2_FNS(X)
#undef X
    ng_rc = 0;
}

int tachy__ng_ready(void) {
    pthread_once(&ng_once, ng_load);
    if (ng_rc < 0) {
        static atomic_int told;
        if (!atomic_exchange(&told, 1))
            fprintf(stderr, "tachy: HTTP/2 unavailable, serving HTTP/1.1 only: %s\n", ng_error);
    }
    return ng_rc;
}

const char *tachy__ng_version(void) {
    if (ng_rc < 0)
        return NULL;
    nghttp2_info *i = tachy__ng.nghttp2_version(0);
    return i ? i->version_str : NULL;
}
