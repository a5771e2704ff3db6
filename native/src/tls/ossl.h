/*
 * tls/ossl.h - OpenSSL as tls/ sees it: the table of libssl functions that ossl.c resolves
 * with dlsym, and the #defines that make every OpenSSL name used in tls/ one of those
 * pointers. Every .c file of tls/ includes it (through tls/internal.h) instead of calling
 * libssl directly. Private to tls/.
 */
#ifndef TACHY__SRC_TLS_OSSL_H
#define TACHY__SRC_TLS_OSSL_H

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

/*
 * ---- OpenSSL, loaded when HTTPS is first configured ----------------------------------
 *
 * libtachy does not link libssl/libcrypto: merely loading them costs a process about
 * 1.5 MiB of RSS (measured on tachy-hello: the dynamic linker reads libcrypto's symbol
 * tables and relocates its data) and makes them a hard runtime dependency of every plain
 * HTTP server. The first tachy_tls_config_create() dlopen()s the libssl this file was
 * compiled against and resolves the functions below; from then on the names used in the
 * files of tls/ are those pointers (the #defines after the table). Every OpenSSL function tls/
 * calls - including those OpenSSL's own macros expand to - must be in TACHY_OPENSSL_FNS: a
 * missing one is an undefined reference when linking, never a silent direct call.
 * OpenSSL's static inline helpers (sk_X509_*...) would call the real symbols, so tls/
 * does not use them.
 */
#define TACHY_OPENSSL_FNS(X) \
    X(BIO_clear_flags) \
    X(BIO_free) \
    X(BIO_get_data) \
    X(BIO_get_new_index) \
    X(BIO_meth_free) \
    X(BIO_meth_new) \
    X(BIO_meth_set_create) \
    X(BIO_meth_set_ctrl) \
    X(BIO_meth_set_destroy) \
    X(BIO_meth_set_read) \
    X(BIO_meth_set_write) \
    X(BIO_new) \
    X(BIO_new_mem_buf) \
    X(BIO_set_data) \
    X(BIO_set_flags) \
    X(BIO_set_init) \
    X(ERR_clear_error) \
    X(ERR_error_string_n) \
    X(ERR_peek_last_error) \
    X(EVP_PKEY_free) \
    X(OPENSSL_cleanse) \
    X(OPENSSL_sk_num) \
    X(OPENSSL_sk_value) \
    X(PEM_read_bio_PrivateKey) \
    X(PEM_read_bio_X509) \
    X(PEM_read_bio_X509_AUX) \
    X(SSL_CIPHER_get_name) \
    X(SSL_CIPHER_standard_name) \
    X(SSL_CTX_ctrl) \
    X(SSL_CTX_free) \
    X(SSL_CTX_add_client_CA) \
    X(SSL_CTX_new) \
    X(SSL_CTX_set_alpn_select_cb) \
    X(SSL_CTX_set_cipher_list) \
    X(SSL_CTX_set_ciphersuites) \
    X(SSL_CTX_set_options) \
    X(SSL_CTX_set_session_id_context) \
    X(SSL_CTX_set_verify) \
    X(SSL_CTX_use_PrivateKey) \
    X(SSL_CTX_use_certificate) \
    X(SSL_free) \
    X(SSL_get0_alpn_selected) \
    X(SSL_get_current_cipher) \
    X(SSL_get_error) \
    X(SSL_get_peer_cert_chain) \
    X(SSL_get_rbio) \
    X(SSL_get_session) \
    X(SSL_get_servername) \
    X(SSL_get_verify_result) \
    X(SSL_get_version) \
    X(SSL_is_init_finished) \
    X(SSL_new) \
    X(SSL_pending) \
    X(SSL_read_ex) \
    X(SSL_SESSION_get0_peer) \
    X(SSL_select_next_proto) \
    X(SSL_set_accept_state) \
    X(SSL_set_bio) \
    X(SSL_shutdown) \
    X(SSL_write_ex) \
    X(TLS_server_method) \
    X(X509_STORE_add_cert) \
    X(X509_STORE_free) \
    X(X509_STORE_new) \
    X(X509_STORE_set_flags) \
    X(X509_check_private_key) \
    X(X509_cmp) \
    X(X509_free) \
    X(X509_verify_cert_error_string) \
    X(i2d_X509)

extern struct tachy__ossl_fns {
#define X(f) __typeof__(f) *f;
    TACHY_OPENSSL_FNS(X)
#undef X
} tachy__ossl;

/* 0 once OpenSSL is usable, else TACHY_ETLS (the reason is logged once, to stderr: there
 * is no server yet to log through). Any thread. (ossl.c) */
int tachy__ossl_ready(void);

/* ossl.c resolves the table by name and must see the real names. */
#ifndef TACHY__OSSL_LOADER
#define BIO_clear_flags (tachy__ossl.BIO_clear_flags)
#define BIO_free (tachy__ossl.BIO_free)
#define BIO_get_data (tachy__ossl.BIO_get_data)
#define BIO_get_new_index (tachy__ossl.BIO_get_new_index)
#define BIO_meth_free (tachy__ossl.BIO_meth_free)
#define BIO_meth_new (tachy__ossl.BIO_meth_new)
#define BIO_meth_set_create (tachy__ossl.BIO_meth_set_create)
#define BIO_meth_set_ctrl (tachy__ossl.BIO_meth_set_ctrl)
#define BIO_meth_set_destroy (tachy__ossl.BIO_meth_set_destroy)
#define BIO_meth_set_read (tachy__ossl.BIO_meth_set_read)
#define BIO_meth_set_write (tachy__ossl.BIO_meth_set_write)
#define BIO_new (tachy__ossl.BIO_new)
#define BIO_new_mem_buf (tachy__ossl.BIO_new_mem_buf)
#define BIO_set_data (tachy__ossl.BIO_set_data)
#define BIO_set_flags (tachy__ossl.BIO_set_flags)
#define BIO_set_init (tachy__ossl.BIO_set_init)
#define ERR_clear_error (tachy__ossl.ERR_clear_error)
#define ERR_error_string_n (tachy__ossl.ERR_error_string_n)
#define ERR_peek_last_error (tachy__ossl.ERR_peek_last_error)
#define EVP_PKEY_free (tachy__ossl.EVP_PKEY_free)
#define OPENSSL_cleanse (tachy__ossl.OPENSSL_cleanse)
#define OPENSSL_sk_num (tachy__ossl.OPENSSL_sk_num)
#define OPENSSL_sk_value (tachy__ossl.OPENSSL_sk_value)
#define PEM_read_bio_PrivateKey (tachy__ossl.PEM_read_bio_PrivateKey)
#define PEM_read_bio_X509 (tachy__ossl.PEM_read_bio_X509)
#define PEM_read_bio_X509_AUX (tachy__ossl.PEM_read_bio_X509_AUX)
#define SSL_CIPHER_get_name (tachy__ossl.SSL_CIPHER_get_name)
#define SSL_CIPHER_standard_name (tachy__ossl.SSL_CIPHER_standard_name)
#define SSL_CTX_ctrl (tachy__ossl.SSL_CTX_ctrl)
#define SSL_CTX_free (tachy__ossl.SSL_CTX_free)
#define SSL_CTX_add_client_CA (tachy__ossl.SSL_CTX_add_client_CA)
#define SSL_CTX_new (tachy__ossl.SSL_CTX_new)
#define SSL_CTX_set_alpn_select_cb (tachy__ossl.SSL_CTX_set_alpn_select_cb)
#define SSL_CTX_set_cipher_list (tachy__ossl.SSL_CTX_set_cipher_list)
#define SSL_CTX_set_ciphersuites (tachy__ossl.SSL_CTX_set_ciphersuites)
#define SSL_CTX_set_options (tachy__ossl.SSL_CTX_set_options)
#define SSL_CTX_set_session_id_context (tachy__ossl.SSL_CTX_set_session_id_context)
#define SSL_CTX_set_verify (tachy__ossl.SSL_CTX_set_verify)
#define SSL_CTX_use_PrivateKey (tachy__ossl.SSL_CTX_use_PrivateKey)
#define SSL_CTX_use_certificate (tachy__ossl.SSL_CTX_use_certificate)
#define SSL_free (tachy__ossl.SSL_free)
#define SSL_get0_alpn_selected (tachy__ossl.SSL_get0_alpn_selected)
#define SSL_get_rbio (tachy__ossl.SSL_get_rbio)
#define SSL_get_current_cipher (tachy__ossl.SSL_get_current_cipher)
#define SSL_get_error (tachy__ossl.SSL_get_error)
#define SSL_get_peer_cert_chain (tachy__ossl.SSL_get_peer_cert_chain)
#define SSL_get_session (tachy__ossl.SSL_get_session)
#define SSL_get_servername (tachy__ossl.SSL_get_servername)
#define SSL_get_verify_result (tachy__ossl.SSL_get_verify_result)
#define SSL_get_version (tachy__ossl.SSL_get_version)
#define SSL_is_init_finished (tachy__ossl.SSL_is_init_finished)
#define SSL_new (tachy__ossl.SSL_new)
#define SSL_pending (tachy__ossl.SSL_pending)
#define SSL_read_ex (tachy__ossl.SSL_read_ex)
#define SSL_SESSION_get0_peer (tachy__ossl.SSL_SESSION_get0_peer)
#define SSL_select_next_proto (tachy__ossl.SSL_select_next_proto)
#define SSL_set_accept_state (tachy__ossl.SSL_set_accept_state)
#define SSL_set_bio (tachy__ossl.SSL_set_bio)
#define SSL_shutdown (tachy__ossl.SSL_shutdown)
#define SSL_write_ex (tachy__ossl.SSL_write_ex)
#define TLS_server_method (tachy__ossl.TLS_server_method)
#define X509_STORE_add_cert (tachy__ossl.X509_STORE_add_cert)
#define X509_STORE_free (tachy__ossl.X509_STORE_free)
#define X509_STORE_new (tachy__ossl.X509_STORE_new)
#define X509_STORE_set_flags (tachy__ossl.X509_STORE_set_flags)
#define X509_check_private_key (tachy__ossl.X509_check_private_key)
#define X509_cmp (tachy__ossl.X509_cmp)
#define X509_free (tachy__ossl.X509_free)
#define X509_verify_cert_error_string (tachy__ossl.X509_verify_cert_error_string)
#define i2d_X509 (tachy__ossl.i2d_X509)
#endif

#endif
