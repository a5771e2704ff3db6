/*
 * tls/ossl.c - loads libssl with dlopen when HTTPS is first configured and resolves the
 * functions of TACHY_OPENSSL_FNS (tls/ossl.h says why libtachy does not link it). Called
 * from any thread, through tachy__ossl_ready (tachy_tls_config_create); the load runs once
 * per process (pthread_once).
 */
#define TACHY__OSSL_LOADER /* the real OpenSSL names, not the #defines of ossl.h */
#include "tls/internal.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

struct tachy__ossl_fns tachy__ossl;

static pthread_once_t ossl_once = PTHREAD_ONCE_INIT;
static int ossl_rc = TACHY_ETLS;
static char ossl_error[512];

static void ossl_load(void) {
#define TACHY__STR2(x) #x
#define TACHY__STR(x) TACHY__STR2(x)
    /* The libssl of the headers this file was compiled with first, then OpenSSL 1.1.1's
     * (RHEL 8, Ubuntu 20.04, Amazon Linux 2): every function in TACHY_OPENSSL_FNS exists
     * in 1.1.1 with the same ABI on LP64 targets (SSL_CTX_set_options' unsigned long of
     * 1.1.1 and uint64_t of 3.x are both 64 bits there). */
    static const char *const names[] = {"libssl.so." TACHY__STR(OPENSSL_SHLIB_VERSION),
                                        "libssl.so.1.1"};
    const char *name = NULL;
    void *h = NULL;
    size_t off = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !h; i++) {
        if (i > 0 && strcmp(names[i], names[0]) == 0)
            continue;
        name = names[i];
        /* RTLD_NODELETE: a pointer resolved here stays valid for the life of the process. */
        h = dlopen(name, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
        if (!h && off < sizeof ossl_error) {
            int n = snprintf(ossl_error + off, sizeof ossl_error - off, "%scannot load %s: %s",
                             off ? "; " : "", name, dlerror());
            off += n > 0 ? (size_t)n : 0;
        }
    }
    if (!h)
        return;
#define X(f)                                                                                       \
    if (!(*(void **)&tachy__ossl.f = dlsym(h, #f))) {                                              \
        snprintf(ossl_error, sizeof ossl_error, "%s has no %s", name, #f);                         \
        return;                                                                                    \
    }
    TACHY_OPENSSL_FNS(X)
#undef X
    ossl_rc = 0;
}

int tachy__ossl_ready(void) {
    pthread_once(&ossl_once, ossl_load);
    if (ossl_rc < 0) {
        static atomic_int told;
        if (!atomic_exchange(&told, 1))
            fprintf(stderr, "tachy: HTTPS unavailable: %s\n", ossl_error);
    }
    return ossl_rc;
}
