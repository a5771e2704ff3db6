/*
 * tachy/filter.h - Filter, Filter.Chain and Authenticator.
 *
 * Filters and authenticators are reference-counted: create gives the caller one
 * reference (released by destroy), and every context that holds one takes its own.
 * They are immutable after creation, so any thread may use them.
 *
 * Order per request, as in the JDK: the context's filters in the order they were added,
 * then the authenticator (if any; the JDK runs it as a "system filter" after the user's),
 * then the handler.
 */
#ifndef TACHY_FILTER_H
#define TACHY_FILTER_H

#include <tachy/exchange.h>
#include <tachy/export.h>
#include <tachy/server.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The rest of the chain, given to a filter (Filter.Chain). Valid during the call only. */
typedef struct tachy_chain tachy_chain;

/* Filter.doFilter: do work, call tachy_chain_do_filter to continue (or not, to answer
 * the request itself), do more work. Return 0, or < 0 for failure (as a handler does). */
typedef int (*tachy_filter_fn)(tachy_exchange *ex, tachy_chain *chain, void *user);

/* Runs the next filter, or the handler at the end (Chain.doFilter). Returns what it
 * returned. */
TACHY_API int tachy_chain_do_filter(tachy_chain *chain, tachy_exchange *ex);

/* A full filter. description is copied (Filter.description). free_user (may be NULL)
 * is called with user when the last reference goes. */
TACHY_API int tachy_filter_create(tachy_filter **out, const char *description,
                                  tachy_filter_fn fn, void *user, void (*free_user)(void *));

/* Filter.beforeHandler / Filter.afterHandler: fn runs before / after the rest of the
 * chain. A before-filter returning < 0 stops the chain (failure). */
TACHY_API int tachy_filter_create_before(tachy_filter **out, const char *description,
                                         tachy_handler_fn fn, void *user,
                                         void (*free_user)(void *));
TACHY_API int tachy_filter_create_after(tachy_filter **out, const char *description,
                                        tachy_handler_fn fn, void *user,
                                        void (*free_user)(void *));

/* Filter.description (borrowed). */
TACHY_API const char *tachy_filter_description(const tachy_filter *f);

/* Drops the caller's reference. NULL is a no-op. */
TACHY_API void tachy_filter_destroy(tachy_filter *f);

/* ---- authenticators ----------------------------------------------------------------- */

/* Authenticator.Result kinds. */
enum tachy_auth_kind { TACHY_AUTH_SUCCESS = 1, TACHY_AUTH_FAILURE, TACHY_AUTH_RETRY };

typedef struct tachy_auth_result {
    int kind;          /* enum tachy_auth_kind */
    int code;          /* Failure/Retry: the response code (e.g. 401, 403)    */
    char *user;        /* Success: principal user, malloc'ed (tachy frees it) */
    char *realm;       /* Success: principal realm, malloc'ed (tachy frees it) */
} tachy_auth_result;

/* Authenticator.authenticate: fill *res. For Retry set WWW-Authenticate on the response
 * headers yourself. On Failure/Retry tachy sends code with no body and ends the exchange. */
typedef void (*tachy_authenticate_fn)(tachy_exchange *ex, tachy_auth_result *res, void *user);

TACHY_API int tachy_authenticator_create(tachy_authenticator **out, tachy_authenticate_fn fn,
                                         void *user, void (*free_user)(void *));

/* BasicAuthenticator.checkCredentials: return 1 to accept, 0 to refuse. Any thread. */
typedef int (*tachy_basic_check_fn)(const char *username, const char *password, void *user);

/*
 * BasicAuthenticator(realm[, charset]): RFC 7617 Basic. realm must be non-empty.
 * utf8 = 1 decodes credentials as UTF-8 and advertises charset="UTF-8"; 0 decodes them as
 * ISO-8859-1 (converted to UTF-8 before the check). Results exactly as the JDK's: no
 * Authorization -> Retry 401 with WWW-Authenticate: Basic realm="realm"; other scheme or
 * malformed credentials -> Failure 401; refused -> Failure 401 with WWW-Authenticate;
 * accepted -> Success with principal (username, realm).
 */
TACHY_API int tachy_authenticator_create_basic(tachy_authenticator **out, const char *realm,
                                               int utf8, tachy_basic_check_fn check,
                                               void *user, void (*free_user)(void *));

/* Runs the authenticator on ex (as the server does) - for tests and custom chains. */
TACHY_API void tachy_authenticator_authenticate(tachy_authenticator *a, tachy_exchange *ex,
                                                tachy_auth_result *res);

/* Frees the strings inside a result (not the struct). */
TACHY_API void tachy_auth_result_clear(tachy_auth_result *res);

/* Drops the caller's reference. NULL is a no-op. */
TACHY_API void tachy_authenticator_destroy(tachy_authenticator *a);

#ifdef __cplusplus
}
#endif
#endif
