/*
 * tls/session.c - what HttpsExchange.getSSLSession() shows of a connection's TLS session:
 * protocol, cipher suite, server name (SNI), ALPN, the client's certificate chain. (The
 * session cache and tickets are OpenSSL's defaults for a server SSL_CTX; config.c sets the
 * session id context.) Called by a handler with its exchange, on the thread that runs it.
 */
#include "tls/internal.h"

#include <string.h>

/* ---- HttpsExchange.getSSLSession() --------------------------------------------------------- */

static SSL *exchange_ssl(const tachy_exchange *ex) {
    if (!ex || !ex->conn || ex->conn->xp != &tachy__tls_transport)
        return NULL;
    return TLS(ex->conn)->ssl;
}

TACHY_API const char *tachy_exchange_tls_protocol(const tachy_exchange *ex) {
    SSL *ssl = exchange_ssl(ex);
    return ssl ? SSL_get_version(ssl) : NULL;
}

TACHY_API const char *tachy_exchange_tls_cipher_suite(const tachy_exchange *ex) {
    SSL *ssl = exchange_ssl(ex);
    const SSL_CIPHER *c = ssl ? SSL_get_current_cipher(ssl) : NULL;
    if (!c)
        return NULL;
    const char *std = SSL_CIPHER_standard_name(c);
    return std ? std : SSL_CIPHER_get_name(c);
}

TACHY_API const char *tachy_exchange_tls_server_name(const tachy_exchange *ex) {
    SSL *ssl = exchange_ssl(ex);
    return ssl ? SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name) : NULL;
}

TACHY_API const char *tachy_exchange_tls_alpn(const tachy_exchange *ex) {
    SSL *ssl = exchange_ssl(ex);
    if (!ssl)
        return NULL;
    const unsigned char *p = NULL;
    unsigned int n = 0;
    SSL_get0_alpn_selected(ssl, &p, &n);
    /* The selected protocol is one of our static "h2" / "http/1.1" (alpn_select). */
    if (n == 2 && memcmp(p, "h2", 2) == 0)
        return "h2";
    return n == 8 && memcmp(p, "http/1.1", 8) == 0 ? "http/1.1" : NULL;
}

TACHY_API int tachy_exchange_tls_peer_certificate(const tachy_exchange *ex, size_t i, void *buf,
                                                  size_t cap) {
    SSL *ssl = exchange_ssl(ex);
    SSL_SESSION *sess = ssl ? SSL_get_session(ssl) : NULL;
    X509 *leaf = sess ? SSL_SESSION_get0_peer(sess) : NULL;
    if (!leaf)
        return 0;
    X509 *x = leaf;
    if (i > 0) {
        /* On a server the chain OpenSSL keeps excludes the client's own certificate; skip it
         * should it be there. A resumed session keeps only the client's certificate. */
        const OPENSSL_STACK *sk = (const OPENSSL_STACK *)SSL_get_peer_cert_chain(ssl);
        int n = sk ? OPENSSL_sk_num(sk) : 0;
        size_t k = i - 1 + (n > 0 && X509_cmp(OPENSSL_sk_value(sk, 0), leaf) == 0);
        x = k < (size_t)(n > 0 ? n : 0) ? OPENSSL_sk_value(sk, (int)k) : NULL;
        if (!x)
            return 0;
    }
    int len = i2d_X509(x, NULL);
    if (len <= 0) {
        ERR_clear_error();
        return TACHY_ENOMEM;
    }
    if (buf && (size_t)len <= cap) {
        unsigned char *p = buf;
        i2d_X509(x, &p);
    }
    return len;
}
