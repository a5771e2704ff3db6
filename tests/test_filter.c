/*
 * test_filter.c - filter chains, refcounts, authenticator objects, Basic credential
 * decoding and base64.
 *
 * The chain never dereferences the exchange, so a dummy pointer stands in for one. The
 * Basic authenticator's header handling needs a real exchange: the last tests run it on a
 * real server on 127.0.0.1 port 0, with raw requests.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/server.h"
#include "tsupport.h"

/* ---- base64 ------------------------------------------------------------------------- */

/* {plain, base64}: RFC 4648 10's test vectors and the nonce of RFC 6455 1.3. */
static const char *const b64_vectors[][2] = {
    {"", ""},
    {"f", "Zg=="},
    {"fo", "Zm8="},
    {"foo", "Zm9v"},
    {"foob", "Zm9vYg=="},
    {"fooba", "Zm9vYmE="},
    {"foobar", "Zm9vYmFy"},
    {"the sample nonce", "dGhlIHNhbXBsZSBub25jZQ=="},
};

static void base64_encode_rfc4648_vectors(void **state) {
    (void)state;
    char out[64];
    for (size_t i = 0; i < sizeof b64_vectors / sizeof b64_vectors[0]; i++) {
        const char *plain = b64_vectors[i][0], *b64 = b64_vectors[i][1];
        size_t n = tachy__base64_encode((const unsigned char *)plain, strlen(plain), out);
        assert_int_equal(n, strlen(b64));
        assert_string_equal(out, b64);
    }
    const unsigned char bin[] = {0xfb, 0xff, 0xfe, 0x00, 0x3e};
    assert_int_equal(tachy__base64_encode(bin, sizeof bin, out), 8);
    assert_string_equal(out, "+//+AD4=");
}

static void base64_decode_rfc4648_vectors(void **state) {
    (void)state;
    unsigned char out[64];
    for (size_t i = 0; i < sizeof b64_vectors / sizeof b64_vectors[0]; i++) {
        const char *plain = b64_vectors[i][0], *b64 = b64_vectors[i][1];
        ssize_t n = tachy__base64_decode(b64, strlen(b64), out);
        assert_int_equal(n, (ssize_t)strlen(plain));
        assert_memory_equal(out, plain, (size_t)n);
    }
    assert_int_equal(tachy__base64_decode("+//+AD4=", 8, out), 5);
    assert_memory_equal(out, "\xfb\xff\xfe\x00\x3e", 5);
}

static void base64_round_trip_all_bytes(void **state) {
    (void)state;
    unsigned char in[256], back[256];
    char enc[4 * ((256 + 2) / 3) + 1];
    for (int i = 0; i < 256; i++)
        in[i] = (unsigned char)i;
    for (size_t len = 0; len <= 256; len++) {
        size_t n = tachy__base64_encode(in, len, enc);
        assert_int_equal(n, 4 * ((len + 2) / 3));
        assert_int_equal(tachy__base64_decode(enc, n, back), (ssize_t)len);
        assert_memory_equal(back, in, len);
    }
}

static void base64_decode_refuses_malformed(void **state) {
    (void)state;
    static const char *const bad[] = {
        "Zg", /* missing padding (see base/base.h: output sized 3 * (len / 4)) */
        "Zm8",      "Zg=",          "Z",       "Z===",      "====",
        "=",        "Zg==Zg==", /* nothing may follow padding */
        "Zm9v=",    "Zg=a",         "Zm9vYg=", "Zm9v Yg==", " Zm9v",
        "Zm9v\n",   "Zm9v\r\nYg==", "Zm-_", /* URL-safe alphabet is not the basic one */
        "Zm9v*g==", "Zm9v.g==",
    };
    unsigned char out[64];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(tachy__base64_decode(bad[i], strlen(bad[i]), out), -1);
    assert_int_equal(tachy__base64_decode("Zm9v\0Yg=", 8, out), -1);
}

/* java.util.Base64 does not check that the unused bits of the last unit are zero. */
static void base64_decode_ignores_unused_bits_like_java(void **state) {
    (void)state;
    unsigned char out[8];
    assert_int_equal(tachy__base64_decode("Zh==", 4, out), 1);
    assert_int_equal(out[0], 'f');
    assert_int_equal(tachy__base64_decode("Zm9=", 4, out), 2);
    assert_memory_equal(out, "fo", 2);
}

/* ---- Basic credentials ---------------------------------------------------------------- */

static void expect_basic(const char *raw, size_t rawlen, int utf8, const char *user,
                         const char *pass) {
    char b64[256], *u = (char *)1, *p = (char *)1;
    size_t n = tachy__base64_encode((const unsigned char *)raw, rawlen, b64);
    assert_int_equal(tachy__basic_decode(b64, n, utf8, &u, &p), 0);
    assert_string_equal(u, user);
    assert_string_equal(p, pass);
    free(u);
    free(p);
}

static void expect_basic_bad(const char *b64, int utf8) {
    char *u = (char *)1, *p = (char *)1;
    assert_int_equal(tachy__basic_decode(b64, strlen(b64), utf8, &u, &p), -1);
    assert_null(u);
    assert_null(p);
}

static void basic_decode_credentials(void **state) {
    (void)state;
    char *u, *p;
    /* RFC 7617 2's example */
    assert_int_equal(tachy__basic_decode("QWxhZGRpbjpvcGVuIHNlc2FtZQ==", 28, 0, &u, &p), 0);
    assert_string_equal(u, "Aladdin");
    assert_string_equal(p, "open sesame");
    free(u);
    free(p);
    expect_basic("user:pass", 9, 1, "user", "pass");
    expect_basic(":pw", 3, 1, "", "pw");     /* empty user name */
    expect_basic("user:", 5, 0, "user", ""); /* empty password */
    expect_basic("a:b:c", 5, 1, "a", "b:c"); /* split at the first colon */
    expect_basic("sp ace:p w", 10, 1, "sp ace", "p w");
}

/* Java's Base64.getDecoder() accepts a final unit without padding, so the JDK's
 * BasicAuthenticator does too: "user:pa" is "dXNlcjpwYQ==" padded. */
static void basic_decode_accepts_unpadded_like_the_jdk(void **state) {
    (void)state;
    char *u, *p;
    assert_int_equal(tachy__basic_decode("dXNlcjpwYQ", 10, 1, &u, &p), 0);
    assert_string_equal(u, "user");
    assert_string_equal(p, "pa");
    free(u);
    free(p);
    assert_int_equal(tachy__basic_decode("dXNlcjpwYXM", 11, 1, &u, &p), 0);
    assert_string_equal(p, "pas");
    free(u);
    free(p);
}

static void basic_decode_refuses_malformed(void **state) {
    (void)state;
    expect_basic_bad("dXNlcg==", 1);      /* "user": no colon */
    expect_basic_bad("", 1);              /* nothing at all */
    expect_basic_bad("dXNlcjpwYXNz=", 1); /* bad padding */
    expect_basic_bad("dXNlcjpw YXNz", 1); /* space inside */
    expect_basic_bad(" dXNlcjpwYXNz", 1); /* "Basic  xxx": the JDK keeps the 2nd space */
    expect_basic_bad("dXNlcjpwYXNz\t", 1);
    expect_basic_bad("d", 1); /* dangling single character */
    expect_basic_bad("!!!!", 0);
    char b64[32];
    size_t n = tachy__base64_encode((const unsigned char *)"adm\0in:pw", 9, b64);
    char *u = NULL, *p = NULL;
    /* a NUL cannot be passed whole to the C check callback: refused, never truncated */
    assert_int_equal(tachy__basic_decode(b64, n, 1, &u, &p), -1);
    n = tachy__base64_encode((const unsigned char *)"admin:p\0w", 9, b64);
    assert_int_equal(tachy__basic_decode(b64, n, 0, &u, &p), -1);
    assert_int_equal(tachy__basic_decode(NULL, 0, 1, &u, &p), -1);
}

static void basic_decode_charsets(void **state) {
    (void)state;
    /* ISO-8859-1 bytes are converted to UTF-8 */
    expect_basic("J\xfcrgen:p\xe4ss\xff", 12, 0, "J\xc3\xbcrgen", "p\xc3\xa4ss\xc3\xbf");
    /* UTF-8 credentials pass through unchanged */
    expect_basic("J\xc3\xbcrgen:\xf0\x9f\x98\x80\xe2\x82\xac", 15, 1, "J\xc3\xbcrgen",
                 "\xf0\x9f\x98\x80\xe2\x82\xac");
    /* The same UTF-8 bytes read as ISO-8859-1 are two characters each */
    expect_basic("\xc3\xbc:x", 4, 0, "\xc3\x83\xc2\xbc", "x");
    /* Malformed UTF-8 becomes U+FFFD, one per maximal ill-formed subpart, as Java's
     * new String(bytes, UTF_8) does */
    expect_basic("J\xfcrgen:x", 8, 1, "J\xef\xbf\xbdrgen", "x");
    expect_basic("\xe2\x82:x", 4, 1, "\xef\xbf\xbd", "x"); /* truncated */
    expect_basic("\xed\xa0\x80:x", 5, 1, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", "x");
    expect_basic("\xc0\xaf:x", 4, 1, "\xef\xbf\xbd\xef\xbf\xbd", "x"); /* overlong */
    expect_basic("\xf4\x90\x80\x80:x", 6, 1, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd",
                 "x");                                           /* > U+10FFFF */
    expect_basic("a\xf0\x9f\x98:x", 6, 1, "a\xef\xbf\xbd", "x"); /* cut 4-byte */
}

/* ---- filters and the chain ------------------------------------------------------------ */

static char trace[256];

static void note(const char *s) { strncat(trace, s, sizeof trace - strlen(trace) - 1); }

typedef struct fake {
    const char *name;
    int rc; /* what the hook returns */
    int call_chain;
} fake;

static tachy_exchange *const DUMMY_EX = (tachy_exchange *)(uintptr_t)0x1000;

static int full_fn(tachy_exchange *ex, tachy_chain *chain, void *user) {
    fake *f = user;
    int rc = 0;
    assert_ptr_equal(ex, DUMMY_EX);
    note(f->name);
    note(">");
    if (f->call_chain)
        rc = tachy_chain_do_filter(chain, ex);
    note("<");
    note(f->name);
    note(" ");
    return rc < 0 ? rc : f->rc;
}

static int hook_fn(tachy_exchange *ex, void *user) {
    fake *f = user;
    assert_ptr_equal(ex, DUMMY_EX);
    note(f->name);
    note(" ");
    return f->rc;
}

static int handler_rc;

static int handler_fn(tachy_exchange *ex, void *user) {
    assert_ptr_equal(ex, DUMMY_EX);
    assert_ptr_equal(user, &handler_rc);
    note("H ");
    return handler_rc;
}

static int reset_trace(void **state) {
    (void)state;
    trace[0] = '\0';
    handler_rc = 0;
    return 0;
}

/* Builds a chain from kinds (one letter per filter: f = full filter running full_fn, b = a
 * before-hook, a = an after-hook, both hook_fn) with fakes[i] as filter i's user, runs it
 * before the handler and checks its result and the trace it leaves; then destroys it. */
static void expect_chain(const char *kinds, fake *fakes, int want_rc, const char *want_trace) {
    tachy_filter *fs[8];
    size_t n = strlen(kinds);
    assert_true(n <= sizeof fs / sizeof *fs);
    for (size_t i = 0; i < n; i++) {
        int rc = kinds[i] == 'f'   ? tachy_filter_create(&fs[i], "full", full_fn, &fakes[i], NULL)
                 : kinds[i] == 'b' ? tachy_filter_create_before(&fs[i], "before", hook_fn,
                                                                &fakes[i], NULL)
                                   : tachy_filter_create_after(&fs[i], "after", hook_fn,
                                                               &fakes[i], NULL);
        assert_int_equal(rc, 0);
    }
    trace[0] = '\0';
    assert_int_equal(tachy__chain_run(fs, n, handler_fn, &handler_rc, DUMMY_EX), want_rc);
    assert_string_equal(trace, want_trace);
    for (size_t i = 0; i < n; i++)
        tachy_filter_destroy(fs[i]);
}

static void chain_runs_filters_in_order_then_handler(void **state) {
    (void)state;
    fake f[] = {{"F1", 0, 1}, {"B", 0, 0}, {"A", 0, 0}, {"F2", 0, 1}};
    expect_chain("fbaf", f, 0, "F1>B F2>H <F2 A <F1 ");
}

static void empty_chain_runs_the_handler(void **state) {
    (void)state;
    handler_rc = 7;
    assert_int_equal(tachy__chain_run(NULL, 0, handler_fn, &handler_rc, DUMMY_EX), 7);
    assert_string_equal(trace, "H ");
    assert_int_equal(tachy__chain_run(NULL, 0, NULL, NULL, DUMMY_EX), TACHY_EINVAL);
    assert_int_equal(tachy_chain_do_filter(NULL, DUMMY_EX), TACHY_EINVAL);
}

static void failing_before_filter_stops_the_chain(void **state) {
    (void)state;
    /* neither the rest nor the handler nor the after-hook (Java: the exception skips it) */
    fake f[] = {{"A", 0, 0}, {"B", -5, 0}, {"F", 0, 1}};
    expect_chain("abf", f, -5, "B ");
}

static void handler_failure_skips_after_hooks(void **state) {
    (void)state;
    fake f[] = {{"F", 0, 1}, {"A", 0, 0}};
    handler_rc = TACHY_EIO;
    expect_chain("fa", f, TACHY_EIO, "F>H <F ");
    /* an after-hook's own failure is the chain's result */
    handler_rc = 0;
    f[1].rc = -9;
    expect_chain("fa", f, -9, "F>H A <F ");
}

static void filter_may_answer_without_continuing(void **state) {
    (void)state;
    fake f[] = {{"S", 0, 0}, {"B", 0, 0}};
    expect_chain("fb", f, 0, "S><S ");
}

static int twice_fn(tachy_exchange *ex, tachy_chain *chain, void *user) {
    (void)user;
    int rc = tachy_chain_do_filter(chain, ex);
    return rc < 0 ? rc : tachy_chain_do_filter(chain, ex);
}

/* Filter.Chain shares one iterator: a second doFilter continues from where it is, so
 * past the end it runs the handler again (as the JDK does). */
static void chain_cursor_is_shared_like_the_jdk(void **state) {
    (void)state;
    fake b = {"B", 0, 0};
    tachy_filter *fs[2];
    assert_int_equal(tachy_filter_create(&fs[0], "twice", twice_fn, NULL, NULL), 0);
    assert_int_equal(tachy_filter_create_before(&fs[1], "before", hook_fn, &b, NULL), 0);
    assert_int_equal(tachy__chain_run(fs, 2, handler_fn, &handler_rc, DUMMY_EX), 0);
    assert_string_equal(trace, "B H H ");
    for (int i = 0; i < 2; i++)
        tachy_filter_destroy(fs[i]);
}

static int freed;

static void count_free(void *p) {
    assert_ptr_equal(p, &freed);
    freed++;
}

static void filter_create_errors_and_description(void **state) {
    (void)state;
    tachy_filter *f = NULL;
    char desc[] = "my filter";
    assert_int_equal(tachy_filter_create(NULL, "d", full_fn, NULL, NULL), TACHY_EINVAL);
    assert_int_equal(tachy_filter_create(&f, "d", NULL, NULL, NULL), TACHY_EINVAL);
    assert_int_equal(tachy_filter_create_before(&f, "d", NULL, NULL, NULL), TACHY_EINVAL);
    assert_int_equal(tachy_filter_create_after(&f, "d", NULL, NULL, NULL), TACHY_EINVAL);
    assert_null(f);
    assert_int_equal(tachy_filter_create(&f, desc, full_fn, NULL, NULL), 0);
    desc[0] = 'X'; /* copied */
    assert_string_equal(tachy_filter_description(f), "my filter");
    tachy_filter_destroy(f);
    assert_int_equal(tachy_filter_create_before(&f, NULL, hook_fn, NULL, NULL), 0);
    assert_string_equal(tachy_filter_description(f), "");
    tachy_filter_destroy(f);
    assert_null(tachy_filter_description(NULL));
    tachy_filter_destroy(NULL);
}

static void filter_refcount_frees_once(void **state) {
    (void)state;
    tachy_filter *f;
    freed = 0;
    assert_int_equal(tachy_filter_create(&f, "rc", full_fn, &freed, count_free), 0);
    tachy__filter_ref(f);
    tachy__filter_ref(f);
    tachy_filter_destroy(f);
    tachy_filter_destroy(f);
    assert_int_equal(freed, 0);
    tachy_filter_destroy(f);
    assert_int_equal(freed, 1);
    tachy__filter_ref(NULL);
}

static void *ref_unref(void *arg) {
    for (int i = 0; i < 20000; i++) {
        tachy__filter_ref(arg);
        tachy_filter_destroy(arg);
    }
    return NULL;
}

static void filter_refcount_is_thread_safe(void **state) {
    (void)state;
    tachy_filter *f;
    pthread_t th[4];
    freed = 0;
    assert_int_equal(tachy_filter_create(&f, "mt", full_fn, &freed, count_free), 0);
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&th[i], NULL, ref_unref, f), 0);
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_join(th[i], NULL), 0);
    assert_int_equal(freed, 0);
    tachy_filter_destroy(f);
    assert_int_equal(freed, 1);
}

/* ---- authenticator objects ------------------------------------------------------------ */

static int check_never(const char *u, const char *p, void *user) {
    (void)u;
    (void)p;
    (void)user;
    return 0;
}

static void basic_authenticator_realm_rules(void **state) {
    (void)state;
    tachy_authenticator *a = NULL;
    /* the JDK's BasicAuthenticator(realm): non-empty quoted-string content */
    static const char *const bad[] = {
        "", "a\"b", "trailing\\", "a\r\nb", "a\nb", "tab\there", "del\x7f", "\xc4\x80",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(tachy_authenticator_create_basic(&a, bad[i], 1, check_never, NULL, NULL),
                         TACHY_EINVAL);
    assert_int_equal(tachy_authenticator_create_basic(&a, NULL, 1, check_never, NULL, NULL),
                     TACHY_EINVAL);
    assert_int_equal(tachy_authenticator_create_basic(&a, "r", 1, NULL, NULL, NULL), TACHY_EINVAL);
    assert_int_equal(tachy_authenticator_create_basic(NULL, "r", 1, check_never, NULL, NULL),
                     TACHY_EINVAL);
    assert_null(a);
    static const char *const good[] = {
        "r", "my realm", "quoted \\\"pair\\\"", "back\\\\slash", "\\\ttab", "caf\xc3\xa9",
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        assert_int_equal(
            tachy_authenticator_create_basic(&a, good[i], i % 2, check_never, NULL, NULL), 0);
        tachy_authenticator_destroy(a);
    }
}

static void basic_authenticator_refcount(void **state) {
    (void)state;
    tachy_authenticator *a;
    freed = 0;
    assert_int_equal(
        tachy_authenticator_create_basic(&a, "realm", 0, check_never, &freed, count_free), 0);
    tachy__authenticator_ref(a);
    tachy_authenticator_destroy(a);
    assert_int_equal(freed, 0);
    tachy_authenticator_destroy(a);
    assert_int_equal(freed, 1);
    tachy_authenticator_destroy(NULL);
    tachy__authenticator_ref(NULL);
}

static int custom_kind;

static void custom_auth(tachy_exchange *ex, tachy_auth_result *res, void *user) {
    assert_ptr_equal(ex, DUMMY_EX);
    assert_ptr_equal(user, &custom_kind);
    assert_int_equal(res->kind, 0); /* cleared before the call */
    assert_null(res->user);
    res->kind = custom_kind;
    res->code = custom_kind == TACHY_AUTH_SUCCESS ? 0 : 403;
    res->user = strdup("bob");
    res->realm = strdup("r");
}

static void custom_authenticator(void **state) {
    (void)state;
    tachy_authenticator *a;
    tachy_auth_result res;
    freed = 0;
    assert_int_equal(tachy_authenticator_create(&a, NULL, NULL, NULL), TACHY_EINVAL);
    assert_int_equal(tachy_authenticator_create(NULL, custom_auth, NULL, NULL), TACHY_EINVAL);
    assert_int_equal(tachy_authenticator_create(&a, custom_auth, &custom_kind, NULL), 0);

    custom_kind = TACHY_AUTH_SUCCESS;
    tachy_authenticator_authenticate(a, DUMMY_EX, &res);
    assert_int_equal(res.kind, TACHY_AUTH_SUCCESS);
    assert_string_equal(res.user, "bob");
    assert_string_equal(res.realm, "r");
    tachy_auth_result_clear(&res);
    assert_null(res.user);
    assert_null(res.realm);
    assert_int_equal(res.kind, TACHY_AUTH_SUCCESS);

    custom_kind = TACHY_AUTH_FAILURE;
    tachy_authenticator_authenticate(a, DUMMY_EX, &res);
    assert_int_equal(res.kind, TACHY_AUTH_FAILURE);
    assert_int_equal(res.code, 403);
    tachy_auth_result_clear(&res);

    /* a callback that sets no valid kind fails closed */
    custom_kind = 0;
    tachy_authenticator_authenticate(a, DUMMY_EX, &res);
    assert_int_equal(res.kind, TACHY_AUTH_FAILURE);
    assert_int_equal(res.code, 500);
    assert_null(res.user);
    assert_null(res.realm);
    tachy_authenticator_destroy(a);

    /* no authenticator: fail closed as well */
    tachy_authenticator_authenticate(NULL, DUMMY_EX, &res);
    assert_int_equal(res.kind, TACHY_AUTH_FAILURE);
    assert_int_equal(res.code, 500);
    tachy_authenticator_authenticate(NULL, DUMMY_EX, NULL);
    tachy_auth_result_clear(NULL);
}

/* ---- BasicAuthenticator on a real server ------------------------------------------------ */

static int check_user_pass(const char *u, const char *p, void *user) {
    (void)user;
    return (strcmp(u, "user") == 0 && strcmp(p, "pass") == 0) ||
           (strcmp(u, "J\xc3\xbcrgen") == 0 && strcmp(p, "pw") == 0);
}

/* Answers 200 with "user@realm" of the principal, or "-" when there is none. */
static int principal_handler(tachy_exchange *ex, void *user) {
    (void)user;
    char body[128];
    const char *u = tachy_exchange_principal_user(ex), *r = tachy_exchange_principal_realm(ex);
    int n = snprintf(body, sizeof body, "%s@%s", u ? u : "-", r ? r : "-");
    if (tachy_exchange_send_response_headers(ex, 200, n) < 0 ||
        tachy_exchange_write(ex, body, (size_t)n) < 0)
        return -1;
    return tachy_exchange_close(ex);
}

static int mark_filter(tachy_exchange *ex, void *user) {
    return tachy_headers_add(tachy_exchange_response_headers(ex), "X-filter", user);
}

typedef struct basic_server {
    tachy_server *srv;
    int port;
} basic_server;

static int basic_server_up(void **state) {
    static basic_server bs;
    tachy_context *ctx_utf8, *ctx_latin1;
    tachy_authenticator *a;
    tachy_filter *f;
    bs.srv = ts_server(NULL);
    assert_int_equal(
        tachy_server_create_context(bs.srv, "/utf8", principal_handler, NULL, &ctx_utf8), 0);
    assert_int_equal(
        tachy_server_create_context(bs.srv, "/latin1", principal_handler, NULL, &ctx_latin1), 0);
    assert_int_equal(tachy_authenticator_create_basic(&a, "tachy", 1, check_user_pass, NULL, NULL),
                     0);
    assert_int_equal(tachy_context_set_authenticator(ctx_utf8, a), 0);
    tachy_authenticator_destroy(a); /* the context holds its own reference */
    assert_int_equal(
        tachy_authenticator_create_basic(&a, "old \\\"realm\\\"", 0, check_user_pass, NULL, NULL),
        0);
    assert_int_equal(tachy_context_set_authenticator(ctx_latin1, a), 0);
    tachy_authenticator_destroy(a);
    assert_int_equal(tachy_filter_create_before(&f, "mark", mark_filter, "ran", NULL), 0);
    assert_int_equal(tachy_context_add_filter(ctx_utf8, f), 0);
    tachy_filter_destroy(f);
    bs.port = ts_start(bs.srv);
    *state = &bs;
    return 0;
}

static int basic_server_down(void **state) {
    basic_server *bs = *state;
    ts_stop(bs->srv);
    return 0;
}

/* Sends one GET with an optional Authorization value and reads the response. */
static void basic_get(const basic_server *bs, const char *path, const char *authz, ts_response *r) {
    char req[512];
    int fd = ts_connect(bs->port);
    snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\n%s%s%sConnection: close\r\n\r\n", path,
             authz ? "Authorization: " : "", authz ? authz : "", authz ? "\r\n" : "");
    ts_send(fd, req, -1);
    assert_int_equal(ts_read_response(fd, r, 0), 0);
    ts_close(fd);
}

static void basic_no_credentials_is_retry_with_challenge(void **state) {
    basic_server *bs = *state;
    ts_response r;
    char v[128];
    basic_get(bs, "/utf8", NULL, &r);
    assert_int_equal(r.status, 401);
    assert_non_null(ts_header(&r, "WWW-Authenticate", v, sizeof v));
    assert_string_equal(v, "Basic realm=\"tachy\", charset=\"UTF-8\"");
    /* The JDK's order: the user's filters ran before the authenticator refused. */
    assert_non_null(ts_header(&r, "X-filter", v, sizeof v));
    ts_response_free(&r);
    basic_get(bs, "/latin1", NULL, &r);
    assert_int_equal(r.status, 401);
    assert_non_null(ts_header(&r, "WWW-Authenticate", v, sizeof v));
    assert_string_equal(v, "Basic realm=\"old \\\"realm\\\"\"");
    ts_response_free(&r);
}

static void basic_other_scheme_or_garbage_is_failure(void **state) {
    basic_server *bs = *state;
    static const char *const bad[] = {
        "Bearer dXNlcjpwYXNz", "Basic",          "Basicdxx",
        "Basic !!!!",          "Basic dXNlcg==", "Basic  dXNlcjpwYXNz",
    };
    ts_response r;
    char v[128];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        basic_get(bs, "/utf8", bad[i], &r);
        assert_int_equal(r.status, 401);
        assert_null(ts_header(&r, "WWW-Authenticate", v, sizeof v));
        ts_response_free(&r);
    }
}

static void basic_wrong_password_is_failure_with_challenge(void **state) {
    basic_server *bs = *state;
    ts_response r;
    char v[128];
    basic_get(bs, "/utf8", "Basic dXNlcjp3cm9uZw==", &r); /* user:wrong */
    assert_int_equal(r.status, 401);
    assert_non_null(ts_header(&r, "WWW-Authenticate", v, sizeof v));
    assert_string_equal(v, "Basic realm=\"tachy\", charset=\"UTF-8\"");
    ts_response_free(&r);
}

static void basic_good_credentials_set_the_principal(void **state) {
    basic_server *bs = *state;
    ts_response r;
    char v[128];
    basic_get(bs, "/utf8", "Basic dXNlcjpwYXNz", &r); /* user:pass */
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body, "user@tachy");
    assert_non_null(ts_header(&r, "X-filter", v, sizeof v)); /* the filters ran */
    assert_string_equal(v, "ran");
    ts_response_free(&r);
    basic_get(bs, "/utf8", "bAsIc dXNlcjpwYXNz", &r); /* the scheme ignores case */
    assert_int_equal(r.status, 200);
    ts_response_free(&r);
    /* ISO-8859-1 "J\xfcrgen:pw", converted to UTF-8 before the check */
    basic_get(bs, "/latin1", "Basic SvxyZ2VuOnB3", &r);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body, "J\xc3\xbcrgen@old \\\"realm\\\"");
    ts_response_free(&r);
    /* the same bytes are not UTF-8: U+FFFD, refused */
    basic_get(bs, "/utf8", "Basic SvxyZ2VuOnB3", &r);
    assert_int_equal(r.status, 401);
    ts_response_free(&r);
}

#define T(f) cmocka_unit_test_setup(f, reset_trace)

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(base64_encode_rfc4648_vectors),
        cmocka_unit_test(base64_decode_rfc4648_vectors),
        cmocka_unit_test(base64_round_trip_all_bytes),
        cmocka_unit_test(base64_decode_refuses_malformed),
        cmocka_unit_test(base64_decode_ignores_unused_bits_like_java),
        cmocka_unit_test(basic_decode_credentials),
        cmocka_unit_test(basic_decode_accepts_unpadded_like_the_jdk),
        cmocka_unit_test(basic_decode_refuses_malformed),
        cmocka_unit_test(basic_decode_charsets),
        T(chain_runs_filters_in_order_then_handler),
        T(empty_chain_runs_the_handler),
        T(failing_before_filter_stops_the_chain),
        T(handler_failure_skips_after_hooks),
        T(filter_may_answer_without_continuing),
        T(chain_cursor_is_shared_like_the_jdk),
        cmocka_unit_test(filter_create_errors_and_description),
        cmocka_unit_test(filter_refcount_frees_once),
        cmocka_unit_test(filter_refcount_is_thread_safe),
        cmocka_unit_test(basic_authenticator_realm_rules),
        cmocka_unit_test(basic_authenticator_refcount),
        cmocka_unit_test(custom_authenticator),
    };
    const struct CMUnitTest server_tests[] = {
        cmocka_unit_test(basic_no_credentials_is_retry_with_challenge),
        cmocka_unit_test(basic_other_scheme_or_garbage_is_failure),
        cmocka_unit_test(basic_wrong_password_is_failure_with_challenge),
        cmocka_unit_test(basic_good_credentials_set_the_principal),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    failed += cmocka_run_group_tests_name("basic_on_a_server", server_tests, basic_server_up,
                                          basic_server_down);
    return failed;
}
