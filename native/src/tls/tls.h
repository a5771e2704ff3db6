/*
 * tls/tls.h - HTTPS: the OpenSSL transport of a connection, what the rest of the core calls
 * in tls/. Private to the core; never installed. tls/ is the only folder that includes
 * OpenSSL's headers, and it maps libssl with dlopen on the first tachy_tls_config_create
 * (tls/ossl.c). tls/internal.h lists the folder's files.
 *
 * tls/ includes http/ (the connection and its transport seam) and server/; loop/ includes
 * tls/ to set a new connection's transport up.
 */
#ifndef TACHY__SRC_TLS_TLS_H
#define TACHY__SRC_TLS_TLS_H

#include "http/http.h"

/* Sets up TLS on c (srv->tls set) on its first ownership: an SSL object in accept state
 * over the connection's socket, installed as c's transport; the handshake then runs in
 * the connection's reads, without blocking, until c->hs_deadline. Owner thread. 0 or
 * TACHY_E*. (tls/handshake.c) */
int tachy__tls_start(tachy__conn *c);

#endif
