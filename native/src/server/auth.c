/*
 * server/auth.c - Authenticator and BasicAuthenticator (RFC 7617) as objects: the
 * credentials' decoding (base64, then UTF-8 or ISO-8859-1 as the JDK decodes them) and
 * their check, the challenge, and the Result kinds (success, failure, retry). Running one on
 * an exchange (reading Authorization, sending WWW-Authenticate) is http/authenticate.c's.
 *
 * Authenticators are immutable after creation and reference-counted with C11 atomics, so
 * contexts on any thread can share them.
 */
#include "server/server.h"

#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* ---- Basic credentials ---------------------------------------------------------------- */

/* Appends U+FFFD, which is what Java's new String(bytes, UTF_8) substitutes for each
 * malformed sequence. */
static size_t put_replacement(char *out) {
    out[0] = (char)0xEF;
    out[1] = (char)0xBF;
    out[2] = (char)0xBD;
    return 3;
}

/* Decodes UTF-8 with replacement, as Java's String constructor does: each maximal
 * ill-formed subpart (Unicode 3.9, "U+FFFD substitution of maximal subparts") becomes one
 * U+FFFD. out needs 3 * n + 1 bytes. Returns the output length; out is NUL-terminated. */
static size_t utf8_sanitize(const unsigned char *in, size_t n, char *out) {
    size_t i = 0, o = 0;
    while (i < n) {
        unsigned char c = in[i];
        size_t need, k;
        unsigned char lo = 0x80, hi = 0xBF;

        if (c < 0x80) {
            out[o++] = (char)c;
            i++;
            continue;
        }
        if (c >= 0xC2 && c <= 0xDF) {
            need = 1;
        } else if (c >= 0xE0 && c <= 0xEF) {
            need = 2;
            if (c == 0xE0)
                lo = 0xA0; /* no overlongs */
            else if (c == 0xED)
                hi = 0x9F; /* no surrogates */
        } else if (c >= 0xF0 && c <= 0xF4) {
            need = 3;
            if (c == 0xF0)
                lo = 0x90;
            else if (c == 0xF4)
                hi = 0x8F; /* <= U+10FFFF */
        } else {
            o += put_replacement(out + o);
            i++;
            continue;
        }
        for (k = 1; k <= need; k++) {
            if (i + k >= n || in[i + k] < lo || in[i + k] > hi)
                break;
            lo = 0x80; /* only the second byte has a special range */
            hi = 0xBF;
        }
        if (k <= need) {
            o += put_replacement(out + o);
            i += k; /* the lead and the valid continuations so far */
            continue;
        }
        memcpy(out + o, in + i, need + 1);
        o += need + 1;
        i += need + 1;
    }
    out[o] = '\0';
    return o;
}

/* ISO-8859-1 -> UTF-8: every byte is the code point of the same value. out needs 2n+1. */
static size_t latin1_to_utf8(const unsigned char *in, size_t n, char *out) {
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (in[i] < 0x80) {
            out[o++] = (char)in[i];
        } else {
            out[o++] = (char)(0xC0 | in[i] >> 6);
            out[o++] = (char)(0x80 | (in[i] & 0x3F));
        }
    }
    out[o] = '\0';
    return o;
}

/* Converts in[0,n) in the given charset to a malloc'ed UTF-8 string, or NULL (ENOMEM). */
static char *charset_to_utf8(const unsigned char *in, size_t n, int utf8) {
    char *s = malloc(3 * n + 1); /* n is bounded by the header size, no overflow */
    if (s == NULL)
        return NULL;
    if (utf8)
        utf8_sanitize(in, n, s);
    else
        latin1_to_utf8(in, n, s);
    return s;
}

/* Result of basic_decode beyond 0 / -1: the credentials contain NUL, which a C string
 * cannot carry (truncating "admin\0x" to "admin" would be a bypass). */
#define BASIC_HAS_NUL (-2)
#define BASIC_NOMEM (-3)

/*
 * The BasicAuthenticator decoding: Java's Base64.getDecoder() (unpadded final units
 * accepted, as Java does), then the charset, then the split at the first ':'.
 */
static int basic_decode(const char *b64, size_t len, int utf8, char **user, char **pass) {
    unsigned char *raw;
    ssize_t n;
    unsigned char *colon;
    int rc = 0;

    *user = *pass = NULL;
    if (b64 == NULL || len > (size_t)SSIZE_MAX / 4)
        return -1;
    raw = malloc(3 * (len / 4) + 3);
    if (raw == NULL)
        return BASIC_NOMEM;
    n = tachy__base64_decode_java(b64, len, raw, 1);
    if (n < 0) {
        rc = -1;
    } else if ((colon = memchr(raw, ':', (size_t)n)) == NULL) {
        rc = -1;
    } else if (memchr(raw, '\0', (size_t)n) != NULL) {
        rc = BASIC_HAS_NUL;
    } else {
        size_t ulen = (size_t)(colon - raw);
        *user = charset_to_utf8(raw, ulen, utf8);
        *pass = charset_to_utf8(colon + 1, (size_t)n - ulen - 1, utf8);
        if (*user == NULL || *pass == NULL) {
            free(*user);
            free(*pass);
            *user = *pass = NULL;
            rc = BASIC_NOMEM;
        }
    }
    /* The decoded bytes hold a password: do not leave them in freed memory. */
    memset(raw, 0, 3 * (len / 4) + 3);
    free(raw);
    return rc;
}

/* server.h contract: 0 with malloc'ed UTF-8 *user / *pass, or -1 for anything else. */
int tachy__basic_decode(const char *b64, size_t len, int utf8, char **user, char **pass) {
    int rc;
    if (user == NULL || pass == NULL)
        return -1;
    rc = basic_decode(b64, len, utf8, user, pass);
    return rc < 0 ? -1 : 0;
}

/* ---- authenticators ----------------------------------------------------------------- */

struct tachy_authenticator {
    atomic_size_t refs;
    tachy_authenticate_fn fn;   /* custom; NULL for Basic */
    tachy_basic_check_fn check; /* Basic */
    void *user;
    void (*free_user)(void *);
    int utf8;
    char *realm;     /* Basic: as given */
    char *challenge; /* Basic: the WWW-Authenticate value, built once */
};

/* Custom Authenticator. Caller owns one reference; on failure it keeps user. Any thread. */
int tachy_authenticator_create(tachy_authenticator **out, tachy_authenticate_fn fn, void *user,
                               void (*free_user)(void *)) {
    tachy_authenticator *a;
    if (out == NULL || fn == NULL)
        return TACHY_EINVAL;
    a = calloc(1, sizeof *a);
    if (a == NULL)
        return TACHY_ENOMEM;
    atomic_init(&a->refs, 1);
    a->fn = fn;
    a->user = user;
    a->free_user = free_user;
    *out = a;
    return 0;
}

/*
 * The JDK's check on the realm (sun.net.httpserver.Utils.isQuotedStringContent): the
 * realm goes inside a quoted-string, so it must be qdtext or quoted-pairs (RFC 9110
 * 5.6.4): no '"' or '\\' except as "\x", no CTLs but HTAB after '\\', no DEL, and no
 * character above U+00FF (a UTF-8 lead byte >= 0xC4).
 */
static int realm_valid(const char *realm) {
    const unsigned char *p = (const unsigned char *)realm;
    if (*p == '\0')
        return 0;
    for (; *p != '\0'; p++) {
        unsigned char c = *p;
        if (c >= 0xC4)
            return 0;
        if (c == '\\') {
            c = *++p;
            if (c == '\0' || (c < 0x20 && c != '\t') || c == 0x7F || c >= 0xC4)
                return 0;
        } else if (c < 0x20 || c == '"' || c == 0x7F) {
            return 0;
        }
    }
    return 1;
}

/* BasicAuthenticator(realm, charset). Caller owns one reference. Any thread. */
int tachy_authenticator_create_basic(tachy_authenticator **out, const char *realm, int utf8,
                                     tachy_basic_check_fn check, void *user,
                                     void (*free_user)(void *)) {
    static const char prefix[] = "Basic realm=\"";
    static const char charset[] = ", charset=\"UTF-8\"";
    tachy_authenticator *a;
    size_t rlen, clen;

    if (out == NULL || realm == NULL || check == NULL || !realm_valid(realm))
        return TACHY_EINVAL;
    rlen = strlen(realm);
    a = calloc(1, sizeof *a);
    if (a == NULL)
        return TACHY_ENOMEM;
    clen = sizeof prefix - 1 + rlen + 1 + (utf8 ? sizeof charset - 1 : 0);
    a->realm = malloc(rlen + 1);
    a->challenge = malloc(clen + 1);
    if (a->realm == NULL || a->challenge == NULL) {
        free(a->realm);
        free(a->challenge);
        free(a);
        return TACHY_ENOMEM;
    }
    memcpy(a->realm, realm, rlen + 1);
    memcpy(a->challenge, prefix, sizeof prefix - 1);
    memcpy(a->challenge + sizeof prefix - 1, realm, rlen);
    a->challenge[sizeof prefix - 1 + rlen] = '"';
    if (utf8)
        memcpy(a->challenge + sizeof prefix + rlen, charset, sizeof charset - 1);
    a->challenge[clen] = '\0';
    atomic_init(&a->refs, 1);
    a->check = check;
    a->user = user;
    a->free_user = free_user;
    a->utf8 = utf8 != 0;
    *out = a;
    return 0;
}

static void set_result(tachy_auth_result *res, int kind, int code) {
    res->kind = kind;
    res->code = code;
}

/* ASCII case-insensitive comparison (the JDK's equalsIgnoreCase for the scheme; header
 * bytes are ISO-8859-1 there, and no Latin-1 letter folds onto "basic"). */
static int ascii_iequal(const char *a, const char *b, size_t n) {
    for (size_t i = 0; i < n; i++) {
        unsigned char x = (unsigned char)a[i], y = (unsigned char)b[i];
        if (x >= 'A' && x <= 'Z')
            x = (unsigned char)(x + 32);
        if (y >= 'A' && y <= 'Z')
            y = (unsigned char)(y + 32);
        if (x != y)
            return 0;
    }
    return 1;
}

/*
 * BasicAuthenticator.authenticate on the request's Authorization value (auth; NULL: none):
 * everything but the exchange, which http/authenticate.c reads and answers. Where the JDK
 * throws (bad base64, no ':'), which closes the connection there, tachy answers Failure
 * 401 instead. Credentials with a NUL byte are refused like wrong credentials (the check
 * callback could not see them whole).
 */
int tachy__basic_authenticate(const tachy_authenticator *a, const char *auth,
                              tachy_auth_result *res) {
    const char *sp;
    char *user, *pass;
    int rc, ok;

    if (auth == NULL) {
        set_result(res, TACHY_AUTH_RETRY, 401);
        return 1;
    }
    sp = strchr(auth, ' ');
    if (sp == NULL || sp - auth != 5 || !ascii_iequal(auth, "Basic", 5)) {
        set_result(res, TACHY_AUTH_FAILURE, 401);
        return 0;
    }
    rc = basic_decode(sp + 1, strlen(sp + 1), a->utf8, &user, &pass);
    if (rc == BASIC_NOMEM) {
        set_result(res, TACHY_AUTH_FAILURE, 500);
        return 0;
    }
    if (rc == -1) {
        set_result(res, TACHY_AUTH_FAILURE, 401);
        return 0;
    }
    ok = rc == 0 && a->check(user, pass, a->user);
    if (pass != NULL) {
        memset(pass, 0, strlen(pass));
        free(pass);
    }
    if (!ok) {
        free(user);
        set_result(res, TACHY_AUTH_FAILURE, 401);
        return 1;
    }
    res->realm = strdup(a->realm);
    if (res->realm == NULL) {
        free(user);
        set_result(res, TACHY_AUTH_FAILURE, 500);
        return 0;
    }
    res->user = user;
    set_result(res, TACHY_AUTH_SUCCESS, 0);
    return 0;
}

/* Runs a custom authenticator's callback (a->fn) on ex; a callback that leaves no valid
 * kind gets Failure 500 (fail closed). */
void tachy__authenticator_call(const tachy_authenticator *a, tachy_exchange *ex,
                               tachy_auth_result *res) {
    a->fn(ex, res, a->user);
    if (res->kind != TACHY_AUTH_SUCCESS && res->kind != TACHY_AUTH_FAILURE &&
        res->kind != TACHY_AUTH_RETRY) {
        tachy_auth_result_clear(res);
        set_result(res, TACHY_AUTH_FAILURE, 500);
    }
}

/* The challenge a Basic authenticator sends (WWW-Authenticate), NULL for a custom one. */
const char *tachy__authenticator_challenge(const tachy_authenticator *a) {
    return a->fn == NULL ? a->challenge : NULL;
}

/* Frees user and realm and sets them to NULL; kind and code are kept. */
void tachy_auth_result_clear(tachy_auth_result *res) {
    if (res == NULL)
        return;
    free(res->user);
    free(res->realm);
    res->user = NULL;
    res->realm = NULL;
}

void tachy__authenticator_ref(tachy_authenticator *a) {
    if (a != NULL)
        atomic_fetch_add_explicit(&a->refs, 1, memory_order_relaxed);
}

/* Drops one reference; the last calls free_user and frees. Any thread. */
void tachy_authenticator_destroy(tachy_authenticator *a) {
    if (a == NULL)
        return;
    if (atomic_fetch_sub_explicit(&a->refs, 1, memory_order_acq_rel) != 1)
        return;
    if (a->free_user != NULL)
        a->free_user(a->user);
    free(a->realm);
    free(a->challenge);
    free(a);
}
