/*
 * tachy/tls.h - HTTPS through OpenSSL: HttpsServer, HttpsConfigurator, HttpsExchange.
 *
 * A tachy_tls_config is what an SSLContext plus an HttpsConfigurator are in Java: a
 * certificate chain, its private key and the protocol settings. Give it to a server
 * before start (tachy_server_set_tls, or tachy_https_server_create in one step) and every
 * connection that server accepts speaks TLS; handlers, filters, WebSocket upgrades (wss)
 * and the whole exchange API work unchanged, and tachy_exchange_is_secure returns 1.
 *
 * Defaults: TLS 1.2 and 1.3, OpenSSL's default cipher lists, ALPN "http/1.1" selected when
 * the client offers it (a client that offers only other protocols gets no ALPN answer and
 * may go on with HTTP/1.1), no renegotiation, no TLS compression, server-side session
 * resumption (tickets). A client that closes without close_notify is treated as a normal
 * end of stream between requests (as browsers do); a body cut short still ends with
 * TACHY_ETRUNCATED because the HTTP framing detects it.
 *
 * Handshake: done by a connection thread when the first bytes of the connection arrive,
 * without blocking it: while the client's next flight is awaited the connection waits in
 * the server's park set like an idle keep-alive connection. The whole handshake and the
 * first request head must arrive within the first-request limit - max_req_time_ms when
 * set, else idle_interval_ms (30 s by default) - counted from accept; after that the
 * connection is closed. A client that sends plain HTTP to the TLS port is closed at once
 * (one DEBUG log line per connection, with OpenSSL's reason).
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

/* The ALPN protocol selected ("http/1.1"), or NULL if none was negotiated. */
TACHY_API const char *tachy_exchange_tls_alpn(const tachy_exchange *ex);

#ifdef __cplusplus
}
#endif
#endif
