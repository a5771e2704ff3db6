/*
 * http/authenticate.c - Authenticator.authenticate on an exchange: the request's
 * Authorization value goes to the authenticator (server/auth.c), a Basic authenticator's
 * challenge to the response headers. The objects and the credentials' rules are
 * server/auth.c's; this file is the part that touches the exchange.
 */
#include "http/http.h"

#include <string.h>

/* BasicAuthenticator.setAuthHeader: Headers.set, so a second call replaces. */
static void set_challenge(const tachy_authenticator *a, tachy_exchange *ex) {
    tachy_headers *h = tachy_exchange_response_headers(ex);
    const char *challenge = tachy__authenticator_challenge(a);
    if (h != NULL && challenge != NULL)
        (void)tachy_headers_set(h, "WWW-Authenticate", challenge);
}

/*
 * Authenticator.authenticate: *res is cleared first. A custom callback that leaves no
 * valid kind gets Failure 500 (fail closed); out of memory also gives Failure 500.
 * Exchange's thread.
 */
void tachy_authenticator_authenticate(tachy_authenticator *a, tachy_exchange *ex,
                                      tachy_auth_result *res) {
    if (res == NULL)
        return;
    memset(res, 0, sizeof *res);
    if (a == NULL) {
        res->kind = TACHY_AUTH_FAILURE;
        res->code = 500;
        return;
    }
    if (tachy__authenticator_challenge(a) == NULL) {
        tachy__authenticator_call(a, ex, res);
        return;
    }
    tachy_headers *req = tachy_exchange_request_headers(ex);
    const char *auth = req == NULL ? NULL : tachy_headers_first(req, "Authorization");
    if (tachy__basic_authenticate(a, auth, res))
        set_challenge(a, ex);
}
