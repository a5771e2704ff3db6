/*
 * tachy/tls.h - HTTPS through OpenSSL: HttpsServer, HttpsConfigurator, HttpsExchange.
 *
 * A tachy_tls_config is what an SSLContext plus an HttpsConfigurator are in Java: a
 * certificate chain, its private key and the protocol settings. Give it to a server
 * before start (tachy_server_set_tls, or tachy_https_server_create in one step) and every
 * connection that server accepts speaks TLS; handlers, filters, WebSocket upgrades (wss)
 * and the whole exchange API work unchanged, and tachy_exchange_is_secure returns 1.
 *
 * Defaults: TLS 1.2 and 1.3, OpenSSL's default cipher lists, ALPN "h2" selected when the
 * client offers it and the server speaks HTTP/2 (tachy_options.http2), else "http/1.1" when
 * offered (a client that offers only other protocols gets no ALPN answer and may go on
 * with HTTP/1.1), no renegotiation, no TLS compression, server-side session
 * resumption (tickets). A client that closes without close_notify is treated as a normal
 * end of stream between requests (as browsers do); a body cut short still ends with
 * TACHY_ETRUNCATED because the HTTP framing detects it.
 *
 * Handshake: done by a connection thread once the client's whole first TLS record (its
 * ClientHello) has arrived, without blocking it: until then, and while the client's next
 * flight is awaited, the connection waits in the server's park set like an idle keep-alive
 * connection. No TLS state exists before the ClientHello is complete, so a connection that
 * sends nothing or part of a ClientHello costs a few KB (bench/tls_halfopen.sh), not the
 * ~50 KB of an SSL object in handshake; at most tachy_tls_config_set_max_handshakes (1024
 * by default) handshakes of a config are in progress at once (a new one evicts the oldest,
 * so stalled handshakes cannot lock real clients out). The handshake must be done within
 * tls_handshake_time_ms (tachy_options; 10 s, or idle_interval_ms if lower) of accept;
 * after that the connection is closed. A client that sends plain HTTP to the TLS port is
 * closed at once (one DEBUG log line per connection, with OpenSSL's reason).
 *
 * Client certificates (HttpsParameters.setWantClientAuth / setNeedClientAuth): off by
 * default; tachy_tls_config_add_client_ca_pem / _file give the trust anchors and
 * tachy_tls_config_set_client_auth the mode; tachy_exchange_tls_peer_certificate returns
 * the chain the client sent.
 *
 * Shutdown: when tachy closes a TLS connection it sends close_notify if it can do so
 * without waiting, then closes the socket.
 *
 * Threads: configure a tachy_tls_config on one thread; once handed to a server it is
 * read-only and shared by all connections (one SSL object per connection, one SSL_CTX per
 * config; OpenSSL 3 is thread-safe for this use).
 */
#ifndef TACHY_TLS_H
#define TACHY_TLS_H

#include <stddef.h>
#include <tachy/export.h>
#include <tachy/server.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Certificate, key and protocol settings (Java: SSLContext + HttpsConfigurator). */
typedef struct tachy_tls_config tachy_tls_config;

/* Protocol versions for tachy_tls_config_set_min_version (the TLS wire values). */
enum tachy_tls_version { TACHY_TLS_1_2 = 0x0303, TACHY_TLS_1_3 = 0x0304 };

/* Client authentication (tachy_tls_config_set_client_auth), as SSLParameters has it. */
enum tachy_tls_client_auth {
    TACHY_TLS_CLIENT_AUTH_NONE = 0, /* no certificate asked for (the default) */
    TACHY_TLS_CLIENT_AUTH_WANT = 1, /* asked for; a client without one is served
                                       (setWantClientAuth(true)) */
    TACHY_TLS_CLIENT_AUTH_NEED = 2  /* required: a client without one fails the handshake
                                       (setNeedClientAuth(true)) */
};

/* The default of tachy_tls_config_set_max_handshakes. */
#define TACHY_TLS_DEFAULT_MAX_HANDSHAKES 1024

/*
 * Creates an empty configuration with the defaults above. The caller owns *out and frees
 * it with tachy_tls_config_free. Errors: TACHY_EINVAL, TACHY_ENOMEM, TACHY_ETLS (OpenSSL
 * could not create a context, or libssl could not be loaded: libtachy loads the libssl it
 * was built against (libssl.so.3) at the first call, so plain HTTP servers never load it;
 * the reason is printed once to stderr). Any thread.
 */
TACHY_API int tachy_tls_config_create(tachy_tls_config **out);

/*
 * Drops the caller's reference. Servers that were given the configuration keep their own
 * reference, so it may be freed right after tachy_server_set_tls. NULL is a no-op.
 * Any thread.
 */
TACHY_API void tachy_tls_config_free(tachy_tls_config *cfg);

/*
 * Loads the certificate chain and its private key from PEM files (the HttpsServer's key
 * material). cert_chain_path holds the server certificate first, then any intermediate
 * certificates; key_path the private key (PKCS#8, traditional RSA/EC; encrypted keys need
 * key_password, else NULL). Both may name the same file. Replaces what was loaded before.
 * Nothing changes on failure. Errors: TACHY_EINVAL (NULL argument), TACHY_ENOFILE (a file
 * cannot be opened), TACHY_EBADCERT (no PEM certificate in it), TACHY_EBADKEY (no
 * readable private key, or a wrong password), TACHY_EKEYMISMATCH (the key does not belong
 * to the certificate), TACHY_ESTATE (already given to a server: read-only), TACHY_ENOMEM.
 * The files are read during the call only. Configuring thread only.
 */
TACHY_API int tachy_tls_config_load_pem_files(tachy_tls_config *cfg, const char *cert_chain_path,
                                              const char *key_path, const char *key_password);

/*
 * The same from PEM text in memory: cert_chain_pem[0, cert_len) and key_pem[0, key_len)
 * (NUL terminators not needed; both are copied/parsed during the call, the caller keeps
 * its buffers). Errors as above except TACHY_ENOFILE. Configuring thread only.
 */
TACHY_API int tachy_tls_config_load_pem(tachy_tls_config *cfg, const void *cert_chain_pem,
                                        size_t cert_len, const void *key_pem, size_t key_len,
                                        const char *key_password);

/* Lowest protocol version accepted: TACHY_TLS_1_2 (default) or TACHY_TLS_1_3, else
 * TACHY_EINVAL. TACHY_ESTATE once given to a server. Configuring thread only. */
TACHY_API int tachy_tls_config_set_min_version(tachy_tls_config *cfg, int version);

/* Highest protocol version accepted: TACHY_TLS_1_3 (default) or TACHY_TLS_1_2 (what an
 * SSLEngine whose enabled protocols are only "TLSv1.2" does), else TACHY_EINVAL. A maximum
 * below the minimum makes every handshake fail. TACHY_ESTATE once given to a server.
 * Configuring thread only. */
TACHY_API int tachy_tls_config_set_max_version(tachy_tls_config *cfg, int version);

/*
 * Cipher selection in OpenSSL's syntax: tls12_ciphers for TLS 1.2 and below
 * ("ECDHE+AESGCM:ECDHE+CHACHA20"), tls13_suites for TLS 1.3
 * ("TLS_AES_128_GCM_SHA256:TLS_CHACHA20_POLY1305_SHA256"). Either may be NULL to keep the
 * default. The TLS 1.2 default is AEAD with forward secrecy only (Mozilla's "intermediate"
 * profile: ECDHE-ECDSA/RSA and DHE-RSA with AES-GCM or ChaCha20-Poly1305; no CBC suite);
 * TLS 1.3's is OpenSSL's (all AEAD). TACHY_EINVAL when OpenSSL accepts none of the names; TACHY_ESTATE once given to
 * a server. Configuring thread only.
 */
TACHY_API int tachy_tls_config_set_ciphers(tachy_tls_config *cfg, const char *tls12_ciphers,
                                           const char *tls13_suites);

/*
 * At most max TLS handshakes of connections using cfg are in progress at once (0: no cap;
 * default TACHY_TLS_DEFAULT_MAX_HANDSHAKES). A handshake counts from its complete
 * ClientHello (connections that have sent less hold no TLS state and do not count) until
 * it is done or the connection closes. A ClientHello that finds the cap full evicts the
 * oldest handshake in progress (its connection is closed) and takes its place, so clients
 * that stall their handshakes cannot lock real clients out until the handshake deadline;
 * at most max / 8 + 1 evicted connections may be waiting to be freed, and with that many
 * a newcomer is closed at once instead (one DEBUG log line each, evicted or refused).
 * Shared by every server given cfg.
 * TACHY_EINVAL for max < 0, TACHY_ESTATE once given to a server. Configuring thread only.
 */
TACHY_API int tachy_tls_config_set_max_handshakes(tachy_tls_config *cfg, int max);

/*
 * Client certificates: the trust anchors (Java: the TrustManagerFactory's KeyStore, or
 * X509TrustManager.getAcceptedIssuers()). Adds every "BEGIN CERTIFICATE" block of
 * pem[0, len) (copied during the call; the caller keeps its buffer); each becomes a trust
 * anchor whether it is a root or an intermediate, as a Java TrustAnchor is (a client chain
 * verifies when it leads to any of them), and its subject is listed in the
 * CertificateRequest, as the JDK lists getAcceptedIssuers(). Calls add to what is there.
 * All or nothing per call. Errors: TACHY_EINVAL, TACHY_EBADCERT (no certificate in the
 * text), TACHY_ENOMEM, TACHY_ESTATE (given to a server already). Configuring thread only.
 */
TACHY_API int tachy_tls_config_add_client_ca_pem(tachy_tls_config *cfg, const void *pem,
                                                 size_t len);

/* The same from a PEM file, read during the call. TACHY_ENOFILE if it cannot be opened,
 * else as above. Configuring thread only. */
TACHY_API int tachy_tls_config_add_client_ca_file(tachy_tls_config *cfg, const char *path);

/*
 * Whether the server asks clients for a certificate: TACHY_TLS_CLIENT_AUTH_NONE (default),
 * _WANT or _NEED (else TACHY_EINVAL). In both _WANT and _NEED a certificate that does not
 * verify against the anchors added above (unknown issuer, expired, not for client use)
 * fails the handshake, as with the JDK's server; with _NEED so does a client that sends
 * none, and with _WANT such a client is served without one. No anchors means no
 * certificate verifies. The client's certificate is checked by OpenSSL (its security level
 * and purpose "TLS client"), not by Java's PKIX validator: no revocation checking.
 * TACHY_ESTATE once given to a server. Configuring thread only.
 */
TACHY_API int tachy_tls_config_set_client_auth(tachy_tls_config *cfg, int mode);

/*
 * Makes srv an HTTPS server (HttpsServer.setHttpsConfigurator): every connection accepted
 * from now on speaks TLS with cfg. Call before tachy_server_start (TACHY_ESTARTED /
 * TACHY_ESTOPPED afterwards). The server takes its own reference to cfg, which becomes
 * read-only; the caller still frees its own with tachy_tls_config_free. cfg NULL makes the
 * server plain HTTP again. TACHY_ESTATE if cfg has no certificate and key loaded. Any
 * thread (not concurrently with start).
 */
TACHY_API int tachy_server_set_tls(tachy_server *srv, tachy_tls_config *cfg);

/* HttpsServer.create(addr, backlog): tachy_server_create followed by
 * tachy_server_set_tls. On failure *out is NULL and nothing needs freeing (cfg stays the
 * caller's). Errors of both. Any thread. */
TACHY_API int tachy_https_server_create(tachy_server **out, const char *host, int port,
                                        int backlog, const tachy_options *opt,
                                        tachy_tls_config *cfg);

/* The configuration a server was given, or NULL for plain HTTP (borrowed: valid while
 * the server lives). Any thread. */
TACHY_API tachy_tls_config *tachy_server_tls(const tachy_server *srv);

/* ---- HttpsExchange.getSSLSession() --------------------------------------------------- */
/* All return static or connection-owned strings, borrowed until the exchange ends, and
 * NULL on a plain HTTP connection (see also tachy_exchange_is_secure). Exchange's thread. */

/* The negotiated protocol as SSLSession.getProtocol names it: "TLSv1.3", "TLSv1.2". */
TACHY_API const char *tachy_exchange_tls_protocol(const tachy_exchange *ex);

/* The cipher suite's standard (IANA) name as SSLSession.getCipherSuite returns it:
 * "TLS_AES_256_GCM_SHA384", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256". */
TACHY_API const char *tachy_exchange_tls_cipher_suite(const tachy_exchange *ex);

/* The host name the client asked for with SNI, or NULL if it sent none. */
TACHY_API const char *tachy_exchange_tls_server_name(const tachy_exchange *ex);

/* The ALPN protocol selected ("h2" or "http/1.1"), or NULL if none was negotiated. */
TACHY_API const char *tachy_exchange_tls_alpn(const tachy_exchange *ex);

/*
 * SSLSession.getPeerCertificates(): certificate i of the chain the client sent (0 = the
 * client's own, then the intermediates in the client's order), DER-encoded. Returns its
 * length in bytes and copies it to buf[0, len) when len <= cap (buf may be NULL with cap 0
 * to ask for the length); 0 when there is no certificate i (no client certificate: the
 * client sent none, client authentication is off, or a plain HTTP connection);
 * TACHY_ENOMEM. A session resumed from a ticket keeps the client's own certificate only
 * (index 0). The certificate verified during the handshake (see
 * tachy_tls_config_set_client_auth). Exchange's thread.
 */
TACHY_API int tachy_exchange_tls_peer_certificate(const tachy_exchange *ex, size_t i, void *buf,
                                                  size_t cap);

#ifdef __cplusplus
}
#endif
#endif
