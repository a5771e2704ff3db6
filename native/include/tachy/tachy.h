/*
 * tachy/tachy.h - everything a C user of libtachy includes.
 *
 * tachy is a native implementation of the JDK's com.sun.net.httpserver API. Each Java
 * type has an opaque C handle: HttpServer -> tachy_server, HttpContext -> tachy_context,
 * HttpExchange -> tachy_exchange, Headers -> tachy_headers, Filter -> tachy_filter,
 * Authenticator -> tachy_authenticator, HttpsServer's SSLContext/HttpsConfigurator ->
 * tachy_tls_config. Functions are named tachy_<object>_<verb> after
 * the Java methods and return 0 (or a count) on success, a negative TACHY_E* code on
 * failure (see tachy/error.h).
 */
#ifndef TACHY_H
#define TACHY_H

#define TACHY_VERSION_MAJOR 0
#define TACHY_VERSION_MINOR 1
#define TACHY_VERSION_PATCH 0
#define TACHY_VERSION_STRING "0.1.0"

#include <tachy/accesslog.h>
#include <tachy/error.h>
#include <tachy/exchange.h>
#include <tachy/filter.h>
#include <tachy/headers.h>
#include <tachy/metrics.h>
#include <tachy/server.h>
#include <tachy/timer.h>
#include <tachy/tls.h>
#include <tachy/ws.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version string ("0.1.0"). Any thread. */
TACHY_API const char *tachy_version(void);

#ifdef __cplusplus
}
#endif
#endif
