/*
 * tls/config.c - tachy_tls_config, the C side of Java's SSLContext + HttpsConfigurator: the
 * SSL_CTX and its defaults (versions, TLS 1.2 suites, options, ALPN), certificate chain and
 * key (PEM, from memory or files), client authentication (trust anchors, want/need), the
 * handshake cap's setting; and giving a config to a server (tachy_server_set_tls,
 * tachy_https_server_create).
 *
 * Called by the application on any thread, one call at a time per config, before the config
 * is given to a server (afterwards it is frozen: setters fail with TACHY_ESTATE); the
 * reference count lets a server keep it after the user's tachy_tls_config_free.
 */
#include "tls/internal.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PEM_FILE (16 * 1024 * 1024)

/* ---- configuration ----------------------------------------------------------------------- */

#define TACHY__TLS12_DEFAULT_CIPHERS                                                         \
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"                             \
    "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"                             \
    "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:"                             \
    "DHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-GCM-SHA384:DHE-RSA-CHACHA20-POLY1305"

/* ALPN (RFC 7301): "h2" when offered and the server speaks HTTP/2 over TLS
 * (tachy_options.http2, srv->h2_ok: libnghttp2 loaded), else "http/1.1" when offered;
 * otherwise no answer (the client may still speak HTTP/1.1). Choosing "h2" marks the
 * connection (c->alpn_h2): its first run switches it to HTTP/2 (http/conn.c). Runs in the
 * handshake, on the connection's owner. */
static int alpn_select(SSL *ssl, const unsigned char **out, unsigned char *outlen,
                       const unsigned char *in, unsigned int inlen, void *arg) {
    (void)arg;
    static const unsigned char h2[] = "\x02h2", h11[] = "\x08http/1.1";
    unsigned char *sel = NULL;
    BIO *bio = SSL_get_rbio(ssl);
    tls_conn *t = bio ? BIO_get_data(bio) : NULL;
    tachy__conn *c = t ? t->c : NULL;
    if (c && c->srv->h2_ok && (c->srv->opt.http2 & TACHY_HTTP2_TLS) &&
        SSL_select_next_proto(&sel, outlen, h2, sizeof h2 - 1, in, inlen) ==
            OPENSSL_NPN_NEGOTIATED) {
        *out = sel;
        c->alpn_h2 = 1;
        return SSL_TLSEXT_ERR_OK;
    }
    if (SSL_select_next_proto(&sel, outlen, h11, sizeof h11 - 1, in, inlen) ==
        OPENSSL_NPN_NEGOTIATED) {
        *out = sel;
        return SSL_TLSEXT_ERR_OK;
    }
    return SSL_TLSEXT_ERR_NOACK;
}

TACHY_API int tachy_tls_config_create(tachy_tls_config **out) {
    if (!out)
        return TACHY_EINVAL;
    *out = NULL;
    if (tachy__ossl_ready() < 0)
        return TACHY_ETLS;
    tachy_tls_config *cfg = calloc(1, sizeof *cfg);
    if (!cfg)
        return TACHY_ENOMEM;
    cfg->ctx = SSL_CTX_new(TLS_server_method());
    if (!cfg->ctx) {
        ERR_clear_error();
        free(cfg);
        return TACHY_ETLS;
    }
    SSL_CTX_set_min_proto_version(cfg->ctx, TLS1_2_VERSION);
    /* TLS 1.2: AEAD suites with forward secrecy only (Mozilla's "intermediate" profile; no
     * CBC, so no LUCKY13-style padding oracles). tachy_tls_config_set_ciphers changes it. */
    if (SSL_CTX_set_cipher_list(cfg->ctx, TACHY__TLS12_DEFAULT_CIPHERS) != 1) {
        ERR_clear_error();
        SSL_CTX_free(cfg->ctx);
        free(cfg);
        return TACHY_ETLS;
    }
    /* No renegotiation (a DoS lever, and it would let a write need a read); no compression
     * (CRIME); a missing close_notify is an ordinary end of stream for HTTP (RFC 9112 9.8:
     * the framing detects truncated messages). */
    SSL_CTX_set_options(cfg->ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION |
                                      SSL_OP_IGNORE_UNEXPECTED_EOF |
                                      SSL_OP_CIPHER_SERVER_PREFERENCE);
    /* Buffers released while a connection is idle: parked connections stay small. */
    SSL_CTX_set_mode(cfg->ctx, SSL_MODE_RELEASE_BUFFERS | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_CTX_set_session_id_context(cfg->ctx, (const unsigned char *)"tachy", 5);
    SSL_CTX_set_alpn_select_cb(cfg->ctx, alpn_select, NULL);
    atomic_init(&cfg->refs, 1);
    atomic_init(&cfg->frozen, 0);
    pthread_mutex_init(&cfg->hs_lock, NULL);
    cfg->max_handshakes = TACHY_TLS_DEFAULT_MAX_HANDSHAKES;
    *out = cfg;
    return 0;
}

/* Drops one reference to cfg (the user's or a server's); the last frees it. */
static void tls_config_release(tachy_tls_config *cfg) {
    if (!cfg || atomic_fetch_sub(&cfg->refs, 1) != 1)
        return;
    SSL_CTX_free(cfg->ctx);
    X509_STORE_free(cfg->client_cas);
    pthread_mutex_destroy(&cfg->hs_lock);
    free(cfg);
}

TACHY_API void tachy_tls_config_free(tachy_tls_config *cfg) { tls_config_release(cfg); }

/* Parses a PEM chain and key and installs them if they belong together. */
static int load_pem(tachy_tls_config *cfg, const void *cert, size_t cert_len, const void *key,
                    size_t key_len, const char *password) {
    if (cert_len > INT_MAX || key_len > INT_MAX)
        return TACHY_EINVAL;
    int rc = 0;
    X509 *leaf = NULL;
    X509 **chain = NULL; /* intermediates, in file order */
    size_t nchain = 0, chain_cap = 0;
    EVP_PKEY *pkey = NULL;
    BIO *cb = BIO_new_mem_buf(cert, (int)cert_len);
    BIO *kb = BIO_new_mem_buf(key, (int)key_len);
    if (!cb || !kb) {
        rc = TACHY_ENOMEM;
        goto out;
    }
    leaf = PEM_read_bio_X509_AUX(cb, NULL, NULL, (void *)"");
    if (!leaf) {
        rc = TACHY_EBADCERT;
        goto out;
    }
    for (;;) {
        X509 *x = PEM_read_bio_X509(cb, NULL, NULL, (void *)"");
        if (!x)
            break; /* end of the file (or trailing non-certificate text) */
        if (nchain == chain_cap) {
            size_t cap = chain_cap ? chain_cap * 2 : 4;
            X509 **grown = realloc(chain, cap * sizeof *grown);
            if (!grown) {
                X509_free(x);
                rc = TACHY_ENOMEM;
                goto out;
            }
            chain = grown;
            chain_cap = cap;
        }
        chain[nchain++] = x;
    }
    /* A NULL callback with a password makes OpenSSL use it; "" for none keeps OpenSSL from
     * prompting on the terminal for an encrypted key. */
    pkey = PEM_read_bio_PrivateKey(kb, NULL, NULL, (void *)(password ? password : ""));
    if (!pkey) {
        rc = TACHY_EBADKEY;
        goto out;
    }
    if (!X509_check_private_key(leaf, pkey)) {
        rc = TACHY_EKEYMISMATCH;
        goto out;
    }
    if (SSL_CTX_use_certificate(cfg->ctx, leaf) != 1 ||
        SSL_CTX_use_PrivateKey(cfg->ctx, pkey) != 1) {
        rc = TACHY_EBADCERT; /* e.g. a key too weak for OpenSSL's security level */
        goto out;
    }
    SSL_CTX_clear_chain_certs(cfg->ctx);
    for (size_t i = 0; i < nchain; i++) {
        if (SSL_CTX_add1_chain_cert(cfg->ctx, chain[i]) != 1) {
            rc = TACHY_ENOMEM;
            goto out;
        }
    }
    cfg->loaded = 1;
out:
    ERR_clear_error();
    BIO_free(cb);
    BIO_free(kb);
    X509_free(leaf);
    for (size_t i = 0; i < nchain; i++)
        X509_free(chain[i]);
    free(chain);
    EVP_PKEY_free(pkey);
    return rc;
}

TACHY_API int tachy_tls_config_load_pem(tachy_tls_config *cfg, const void *cert_chain_pem,
                                        size_t cert_len, const void *key_pem, size_t key_len,
                                        const char *key_password) {
    if (!cfg || !cert_chain_pem || !key_pem)
        return TACHY_EINVAL;
    if (atomic_load(&cfg->frozen))
        return TACHY_ESTATE;
    return load_pem(cfg, cert_chain_pem, cert_len, key_pem, key_len, key_password);
}

/* Reads a whole (small) file into a malloc'ed buffer. 0, TACHY_ENOFILE or TACHY_ENOMEM. */
static int slurp(const char *path, char **data, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return TACHY_ENOFILE;
    size_t cap = 8192, n = 0;
    char *buf = malloc(cap);
    int rc = 0;
    while (buf) {
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (n < cap) {
            if (ferror(f))
                rc = TACHY_ENOFILE; /* a directory, unreadable */
            break;
        }
        if (cap >= MAX_PEM_FILE) {
            rc = TACHY_EBADCERT;
            break;
        }
        char *g = realloc(buf, cap * 2);
        if (!g) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = g;
        cap *= 2;
    }
    fclose(f);
    if (!buf)
        return TACHY_ENOMEM;
    if (rc < 0) {
        free(buf);
        return rc;
    }
    *data = buf;
    *len = n;
    return 0;
}

TACHY_API int tachy_tls_config_load_pem_files(tachy_tls_config *cfg, const char *cert_chain_path,
                                              const char *key_path, const char *key_password) {
    if (!cfg || !cert_chain_path || !key_path)
        return TACHY_EINVAL;
    if (atomic_load(&cfg->frozen))
        return TACHY_ESTATE;
    char *cert = NULL, *key = NULL;
    size_t cert_len = 0, key_len = 0;
    int rc = slurp(cert_chain_path, &cert, &cert_len);
    if (rc == 0)
        rc = slurp(key_path, &key, &key_len);
    if (rc == 0)
        rc = load_pem(cfg, cert, cert_len, key, key_len, key_password);
    if (key) {
        OPENSSL_cleanse(key, key_len); /* do not leave the key in freed heap memory */
        free(key);
    }
    free(cert);
    return rc;
}

TACHY_API int tachy_tls_config_set_min_version(tachy_tls_config *cfg, int version) {
    if (!cfg || (version != TACHY_TLS_1_2 && version != TACHY_TLS_1_3))
        return TACHY_EINVAL;
    if (atomic_load(&cfg->frozen))
        return TACHY_ESTATE;
    int v = version == TACHY_TLS_1_3 ? TLS1_3_VERSION : TLS1_2_VERSION;
    return SSL_CTX_set_min_proto_version(cfg->ctx, v) == 1 ? 0 : TACHY_ETLS;
}

TACHY_API int tachy_tls_config_set_max_version(tachy_tls_config *cfg, int version) {
    if (!cfg || (version != TACHY_TLS_1_2 && version != TACHY_TLS_1_3))
        return TACHY_EINVAL;
    if (atomic_load(&cfg->frozen))
        return TACHY_ESTATE;
    int v = version == TACHY_TLS_1_2 ? TLS1_2_VERSION : TLS1_3_VERSION;
    return SSL_CTX_set_max_proto_version(cfg->ctx, v) == 1 ? 0 : TACHY_ETLS;
}

TACHY_API int tachy_tls_config_set_ciphers(tachy_tls_config *cfg, const char *tls12_ciphers,
                                           const char *tls13_suites) {
    if (!cfg)
        return TACHY_EINVAL;
    if (atomic_load(&cfg->frozen))
        return TACHY_ESTATE;
    int rc = 0;
    if (tls12_ciphers && SSL_CTX_set_cipher_list(cfg->ctx, tls12_ciphers) != 1)
        rc = TACHY_EINVAL;
    if (rc == 0 && tls13_suites && SSL_CTX_set_ciphersuites(cfg->ctx, tls13_suites) != 1)
        rc = TACHY_EINVAL;
    ERR_clear_error();
    return rc;
}

TACHY_API int tachy_tls_config_set_max_handshakes(tachy_tls_config *cfg, int max) {
    if (!cfg || max < 0)
        return TACHY_EINVAL;
    if (atomic_load(&cfg->frozen))
        return TACHY_ESTATE;
    cfg->max_handshakes = max;
    return 0;
}

/* ---- client authentication ------------------------------------------------------------------ */

/* Adds every certificate of pem[0, len) to the client trust anchors and its subject to the
 * CA list of the CertificateRequest. All or nothing: on failure nothing was added. */
static int add_client_cas(tachy_tls_config *cfg, const void *pem, size_t len) {
    if (len > INT_MAX)
        return TACHY_EINVAL;
    BIO *b = BIO_new_mem_buf(pem, (int)len);
    if (!b)
        return TACHY_ENOMEM;
    X509 **certs = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    for (;;) {
        X509 *x = PEM_read_bio_X509(b, NULL, NULL, (void *)"");
        if (!x)
            break;
        if (n == cap) {
            size_t c2 = cap ? cap * 2 : 8;
            X509 **g = realloc(certs, c2 * sizeof *g);
            if (!g) {
                X509_free(x);
                rc = TACHY_ENOMEM;
                goto out;
            }
            certs = g;
            cap = c2;
        }
        certs[n++] = x;
    }
    if (n == 0) {
        rc = TACHY_EBADCERT;
        goto out;
    }
    if (!cfg->client_cas) {
        X509_STORE *st = X509_STORE_new();
        /* Any certificate given is a trust anchor, a root or not, as a Java TrustAnchor is
         * (PKIX, RFC 5280 6.1): OpenSSL otherwise insists on reaching a self-signed root. */
        if (!st || X509_STORE_set_flags(st, X509_V_FLAG_PARTIAL_CHAIN) != 1 ||
            SSL_CTX_set1_verify_cert_store(cfg->ctx, st) != 1) {
            X509_STORE_free(st);
            rc = TACHY_ENOMEM;
            goto out;
        }
        cfg->client_cas = st; /* the SSL_CTX holds a reference of its own */
    }
    for (size_t i = 0; i < n; i++) {
        /* X509_STORE_add_cert fails for a duplicate in OpenSSL 1.1.1 (not in 3.x): harmless. */
        X509_STORE_add_cert(cfg->client_cas, certs[i]);
        if (SSL_CTX_add_client_CA(cfg->ctx, certs[i]) != 1) {
            rc = TACHY_ENOMEM;
            goto out;
        }
    }
out:
    ERR_clear_error();
    BIO_free(b);
    for (size_t i = 0; i < n; i++)
        X509_free(certs[i]);
    free(certs);
    return rc;
}

TACHY_API int tachy_tls_config_add_client_ca_pem(tachy_tls_config *cfg, const void *pem,
                                                 size_t len) {
    if (!cfg || !pem)
        return TACHY_EINVAL;
    if (atomic_load(&cfg->frozen))
        return TACHY_ESTATE;
    return add_client_cas(cfg, pem, len);
}

TACHY_API int tachy_tls_config_add_client_ca_file(tachy_tls_config *cfg, const char *path) {
    if (!cfg || !path)
        return TACHY_EINVAL;
    if (atomic_load(&cfg->frozen))
        return TACHY_ESTATE;
    char *pem = NULL;
    size_t len = 0;
    int rc = slurp(path, &pem, &len);
    if (rc == 0)
        rc = add_client_cas(cfg, pem, len);
    free(pem);
    return rc;
}

TACHY_API int tachy_tls_config_set_client_auth(tachy_tls_config *cfg, int mode) {
    if (!cfg)
        return TACHY_EINVAL;
    int v;
    switch (mode) {
    case TACHY_TLS_CLIENT_AUTH_NONE: v = SSL_VERIFY_NONE; break;
    case TACHY_TLS_CLIENT_AUTH_WANT: v = SSL_VERIFY_PEER; break;
    case TACHY_TLS_CLIENT_AUTH_NEED: v = SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT; break;
    default: return TACHY_EINVAL;
    }
    if (atomic_load(&cfg->frozen))
        return TACHY_ESTATE;
    /* No callback: a certificate that does not verify ends the handshake with an alert in
     * both modes, as the JDK's server does (its trust manager throws for want and need). */
    SSL_CTX_set_verify(cfg->ctx, v, NULL);
    cfg->client_auth = mode;
    return 0;
}

/* ---- the server --------------------------------------------------------------------------- */

TACHY_API int tachy_server_set_tls(tachy_server *srv, tachy_tls_config *cfg) {
    if (!srv)
        return TACHY_EINVAL;
    if (cfg && !cfg->loaded)
        return TACHY_ESTATE;
    pthread_mutex_lock(&srv->lock);
    int st = atomic_load(&srv->state);
    if (st != TACHY__SRV_CREATED) {
        pthread_mutex_unlock(&srv->lock);
        return st == TACHY__SRV_STARTED ? TACHY_ESTARTED : TACHY_ESTOPPED;
    }
    if (cfg) {
        atomic_fetch_add(&cfg->refs, 1);
        atomic_store(&cfg->frozen, 1);
    }
    tachy_tls_config *old = srv->tls;
    srv->tls = cfg;
    srv->tls_release = tachy_tls_config_free; /* server.c drops its reference with it */
    pthread_mutex_unlock(&srv->lock);
    tls_config_release(old);
    return 0;
}

TACHY_API int tachy_https_server_create(tachy_server **out, const char *host, int port,
                                        int backlog, const tachy_options *opt,
                                        tachy_tls_config *cfg) {
    if (!out || !cfg)
        return TACHY_EINVAL;
    int rc = tachy_server_create(out, host, port, backlog, opt);
    if (rc < 0)
        return rc;
    rc = tachy_server_set_tls(*out, cfg);
    if (rc < 0) {
        tachy__server_discard(*out); /* never started: no stop needed */
        *out = NULL;
    }
    return rc;
}

TACHY_API tachy_tls_config *tachy_server_tls(const tachy_server *srv) {
    return srv ? srv->tls : NULL;
}
