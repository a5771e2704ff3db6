/*
 * jni/tls_natives.c - the natives of dev.tachy.httpserver.TlsNative: the HTTPS server on
 * tachy's OpenSSL path (tachy/tls.h) for TachyHttpsServer, and the one look into the JDK's
 * SSLContext that finds its key manager.
 *
 * Key material crosses as PEM text (Java encodes PrivateKey.getEncoded(), PKCS#8, and the
 * certificates' DER as PEM): tachy_tls_config_load_pem parses it during the call; the byte
 * arrays are copied into native buffers that are cleansed before they are freed.
 *
 * Key manager: javax.net.ssl.SSLContext keeps its SSLContextSpi in the private field
 * contextSpi, and the JDK's sun.security.ssl.SSLContextImpl keeps the X509ExtendedKeyManager
 * built from the KeyManagerFactory in the private field keyManager. The JDK offers no public
 * way to read either, and jdk.internal packages are not opened to us; JNI field access is not
 * subject to module encapsulation, so this reads the two fields when both exist (field IDs
 * looked up once at load; a JDK without them makes keyManager() return null and tachy falls
 * back to the JDK's HTTPS server). Java accepts the result only when it is one of the JDK's
 * own KeyStore-backed key managers (TachyTls.keyManager).
 *
 * Trust manager (client authentication): likewise SSLContextImpl's private field
 * trustManager, accepted only when it is the JDK's X509TrustManagerImpl built from a
 * KeyStore (its pkixParams field null); see n_trust_manager. The trust anchors then cross
 * as PEM (getAcceptedIssuers()) and the client's chain comes back as DER (peerCertificates).
 *
 * Threads: config calls on the thread that starts the server; exchangeTls and
 * peerCertificates on the thread that owns the exchange (the handler's).
 */
#include "bridge.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <tachy/tls.h>

#define TLS_NATIVE_CLASS "dev/tachy/httpserver/TlsNative"
#define PTR(type, j) ((type *)(intptr_t)(j))

static jclass g_string;           /* global ref: java.lang.String (exchangeTls's array) */
static jfieldID g_context_spi;    /* javax.net.ssl.SSLContext.contextSpi, or NULL */
static jfieldID g_key_manager;    /* sun.security.ssl.SSLContextImpl.keyManager, or NULL */
static jclass g_context_impl;     /* global ref: sun.security.ssl.SSLContextImpl, or NULL */
static jfieldID g_trust_manager;  /* sun.security.ssl.SSLContextImpl.trustManager, or NULL */
static jclass g_tm_impl;          /* global ref: sun.security.ssl.X509TrustManagerImpl, or NULL */
static jfieldID g_tm_pkix;        /* X509TrustManagerImpl.pkixParams, or NULL */
static jclass g_byte_array;       /* global ref: byte[] (peerCertificates' array) */

/* Copies a[0, len) to a malloc'ed buffer; NULL (exception pending or cleared) on failure. */
static char *copy_bytes(JNIEnv *env, jbyteArray a, size_t *len) {
    jsize n = (*env)->GetArrayLength(env, a);
    char *p = malloc(n > 0 ? (size_t)n : 1);
    if (p == NULL) {
        return NULL;
    }
    (*env)->GetByteArrayRegion(env, a, 0, n, (jbyte *)p);
    if ((*env)->ExceptionCheck(env)) {
        free(p);
        return NULL;
    }
    *len = (size_t)n;
    return p;
}

/* Overwrites and frees a buffer that held a private key (not optimised away: volatile). */
static void free_secret(char *p, size_t len) {
    if (p == NULL) {
        return;
    }
    volatile char *v = p;
    for (size_t i = 0; i < len; i++) {
        v[i] = 0;
    }
    free(p);
}

static jlong JNICALL n_config_create(JNIEnv *env, jclass cls) {
    (void)env;
    (void)cls;
    tachy_tls_config *cfg = NULL;
    int rc = tachy_tls_config_create(&cfg);
    return rc < 0 ? (jlong)rc : (jlong)(intptr_t)cfg;
}

static void JNICALL n_config_free(JNIEnv *env, jclass cls, jlong cfg) {
    (void)env;
    (void)cls;
    tachy_tls_config_free(PTR(tachy_tls_config, cfg));
}

static jint JNICALL n_config_load_pem(JNIEnv *env, jclass cls, jlong cfg, jbyteArray chain,
                                      jbyteArray key) {
    (void)cls;
    if (chain == NULL || key == NULL) {
        return TACHY_EINVAL;
    }
    size_t chain_len = 0, key_len = 0;
    char *c = copy_bytes(env, chain, &chain_len);
    char *k = c != NULL ? copy_bytes(env, key, &key_len) : NULL;
    int rc = TACHY_ENOMEM;
    if (c != NULL && k != NULL) {
        rc = tachy_tls_config_load_pem(PTR(tachy_tls_config, cfg), c, chain_len, k, key_len,
                                       NULL);
    }
    free(c);
    free_secret(k, key_len);
    return rc;
}

static jint JNICALL n_config_set_versions(JNIEnv *env, jclass cls, jlong cfg, jint min,
                                          jint max) {
    (void)env;
    (void)cls;
    int rc = tachy_tls_config_set_min_version(PTR(tachy_tls_config, cfg), min);
    return rc < 0 ? rc : tachy_tls_config_set_max_version(PTR(tachy_tls_config, cfg), max);
}

/* NULL string -> NULL (keep the default); the UTF chars are released before returning. */
static jint JNICALL n_config_set_ciphers(JNIEnv *env, jclass cls, jlong cfg, jstring tls12,
                                         jstring tls13) {
    (void)cls;
    const char *a = tls12 != NULL ? (*env)->GetStringUTFChars(env, tls12, NULL) : NULL;
    if (tls12 != NULL && a == NULL) {
        return TACHY_ENOMEM; /* OutOfMemoryError pending */
    }
    const char *b = tls13 != NULL ? (*env)->GetStringUTFChars(env, tls13, NULL) : NULL;
    int rc = TACHY_ENOMEM;
    if (tls13 == NULL || b != NULL) {
        rc = tachy_tls_config_set_ciphers(PTR(tachy_tls_config, cfg), a, b);
    }
    if (a != NULL) {
        (*env)->ReleaseStringUTFChars(env, tls12, a);
    }
    if (b != NULL) {
        (*env)->ReleaseStringUTFChars(env, tls13, b);
    }
    return rc;
}

static jint JNICALL n_server_set_tls(JNIEnv *env, jclass cls, jlong srv, jlong cfg) {
    (void)env;
    (void)cls;
    return tachy_server_set_tls(PTR(tachy_server, srv), PTR(tachy_tls_config, cfg));
}

/* {protocol, cipher suite, SNI host name or null, ALPN or null}, or null on plain HTTP. */
static jobjectArray JNICALL n_exchange_tls(JNIEnv *env, jclass cls, jlong exh) {
    (void)cls;
    const tachy_exchange *ex = PTR(const tachy_exchange, exh);
    const char *f[4] = {tachy_exchange_tls_protocol(ex), tachy_exchange_tls_cipher_suite(ex),
                        tachy_exchange_tls_server_name(ex), tachy_exchange_tls_alpn(ex)};
    if (f[0] == NULL) {
        return NULL;
    }
    jobjectArray a = (*env)->NewObjectArray(env, 4, g_string, NULL);
    if (a == NULL) {
        return NULL; /* OutOfMemoryError pending */
    }
    for (jsize i = 0; i < 4; i++) {
        if (f[i] == NULL) {
            continue;
        }
        /* OpenSSL's names and an SNI host name (OpenSSL accepts only printable ASCII there
         * for host_name) are ASCII: valid modified UTF-8. */
        jstring s = (*env)->NewStringUTF(env, f[i]);
        if (s == NULL) {
            return NULL;
        }
        (*env)->SetObjectArrayElement(env, a, i, s);
        (*env)->DeleteLocalRef(env, s);
        if ((*env)->ExceptionCheck(env)) {
            return NULL;
        }
    }
    return a;
}

static jint JNICALL n_config_add_client_ca(JNIEnv *env, jclass cls, jlong cfg, jbyteArray pem) {
    (void)cls;
    if (pem == NULL) {
        return TACHY_EINVAL;
    }
    size_t len = 0;
    char *p = copy_bytes(env, pem, &len);
    if (p == NULL) {
        return TACHY_ENOMEM;
    }
    int rc = tachy_tls_config_add_client_ca_pem(PTR(tachy_tls_config, cfg), p, len);
    free(p);
    return rc;
}

static jint JNICALL n_config_set_client_auth(JNIEnv *env, jclass cls, jlong cfg, jint mode) {
    (void)env;
    (void)cls;
    return tachy_tls_config_set_client_auth(PTR(tachy_tls_config, cfg), mode);
}

/* The DER of each certificate the client sent (its own first), or null when it sent none. */
static jobjectArray JNICALL n_peer_certificates(JNIEnv *env, jclass cls, jlong exh) {
    (void)cls;
    const tachy_exchange *ex = PTR(const tachy_exchange, exh);
    jsize n = 0;
    while (n < 64 && tachy_exchange_tls_peer_certificate(ex, (size_t)n, NULL, 0) > 0) {
        n++;
    }
    if (n == 0) {
        return NULL;
    }
    jobjectArray a = (*env)->NewObjectArray(env, n, g_byte_array, NULL);
    if (a == NULL) {
        return NULL; /* OutOfMemoryError pending */
    }
    for (jsize i = 0; i < n; i++) {
        int len = tachy_exchange_tls_peer_certificate(ex, (size_t)i, NULL, 0);
        unsigned char *der = len > 0 ? malloc((size_t)len) : NULL;
        if (der == NULL ||
            tachy_exchange_tls_peer_certificate(ex, (size_t)i, der, (size_t)len) != len) {
            free(der);
            return NULL;
        }
        jbyteArray b = (*env)->NewByteArray(env, len);
        if (b != NULL) {
            (*env)->SetByteArrayRegion(env, b, 0, len, (const jbyte *)der);
        }
        free(der);
        if (b == NULL) {
            return NULL;
        }
        (*env)->SetObjectArrayElement(env, a, i, b);
        (*env)->DeleteLocalRef(env, b);
        if ((*env)->ExceptionCheck(env)) {
            return NULL;
        }
    }
    return a;
}

/*
 * The trust manager of a JDK SSLContext when it is the JDK's own KeyStore-backed one (the
 * trust manager of a TrustManagerFactory "PKIX" or "SunX509" over a KeyStore, or the
 * default): its trust decisions are then exactly "a chain to one of getAcceptedIssuers()"
 * (plus checks OpenSSL makes too). null otherwise: another class (a custom trust manager,
 * or the JDK's wrapper around a plain X509TrustManager), or an X509TrustManagerImpl built
 * from CertPathTrustManagerParameters (pkixParams set: revocation, custom checkers or
 * stores, which a CA list cannot express), or a JDK without these fields.
 */
static jobject JNICALL n_trust_manager(JNIEnv *env, jclass cls, jobject ctx) {
    (void)cls;
    if (ctx == NULL || g_context_spi == NULL || g_trust_manager == NULL || g_tm_pkix == NULL) {
        return NULL;
    }
    jobject spi = (*env)->GetObjectField(env, ctx, g_context_spi);
    if (spi == NULL || !(*env)->IsInstanceOf(env, spi, g_context_impl)) {
        return NULL;
    }
    jobject tm = (*env)->GetObjectField(env, spi, g_trust_manager);
    (*env)->DeleteLocalRef(env, spi);
    if (tm == NULL) {
        return NULL;
    }
    jclass tmc = (*env)->GetObjectClass(env, tm);
    jboolean jdk = (*env)->IsSameObject(env, tmc, g_tm_impl);
    (*env)->DeleteLocalRef(env, tmc);
    if (!jdk) {
        (*env)->DeleteLocalRef(env, tm);
        return NULL;
    }
    jobject pkix = (*env)->GetObjectField(env, tm, g_tm_pkix);
    if (pkix != NULL) {
        (*env)->DeleteLocalRef(env, pkix);
        (*env)->DeleteLocalRef(env, tm);
        return NULL;
    }
    return tm;
}

/* The key manager of a JDK SSLContext (see the file comment), or null. */
static jobject JNICALL n_key_manager(JNIEnv *env, jclass cls, jobject ctx) {
    (void)cls;
    if (ctx == NULL || g_context_spi == NULL || g_key_manager == NULL) {
        return NULL;
    }
    jobject spi = (*env)->GetObjectField(env, ctx, g_context_spi);
    if (spi == NULL || !(*env)->IsInstanceOf(env, spi, g_context_impl)) {
        return NULL;
    }
    jobject km = (*env)->GetObjectField(env, spi, g_key_manager);
    (*env)->DeleteLocalRef(env, spi);
    return km;
}

static const JNINativeMethod k_tls_methods[] = {
    {"configCreate", "()J", (void *)n_config_create},
    {"configFree", "(J)V", (void *)n_config_free},
    {"configLoadPem", "(J[B[B)I", (void *)n_config_load_pem},
    {"configSetVersions", "(JII)I", (void *)n_config_set_versions},
    {"configSetCiphers", "(JLjava/lang/String;Ljava/lang/String;)I",
     (void *)n_config_set_ciphers},
    {"serverSetTls", "(JJ)I", (void *)n_server_set_tls},
    {"exchangeTls", "(J)[Ljava/lang/String;", (void *)n_exchange_tls},
    {"keyManager", "(Ljavax/net/ssl/SSLContext;)Ljava/lang/Object;", (void *)n_key_manager},
    {"configAddClientCa", "(J[B)I", (void *)n_config_add_client_ca},
    {"configSetClientAuth", "(JI)I", (void *)n_config_set_client_auth},
    {"peerCertificates", "(J)[[B", (void *)n_peer_certificates},
    {"trustManager", "(Ljavax/net/ssl/SSLContext;)Ljava/lang/Object;", (void *)n_trust_manager},
};

/* Looks up the JDK's private fields; leaves them NULL (and no exception) if they are gone. */
static void find_key_manager_fields(JNIEnv *env) {
    jclass ctx = (*env)->FindClass(env, "javax/net/ssl/SSLContext");
    if (ctx != NULL) {
        g_context_spi = (*env)->GetFieldID(env, ctx, "contextSpi", "Ljavax/net/ssl/SSLContextSpi;");
    }
    (*env)->ExceptionClear(env);
    jclass impl = (*env)->FindClass(env, "sun/security/ssl/SSLContextImpl");
    if (impl != NULL) {
        g_key_manager =
            (*env)->GetFieldID(env, impl, "keyManager", "Ljavax/net/ssl/X509ExtendedKeyManager;");
        (*env)->ExceptionClear(env);
        g_trust_manager =
            (*env)->GetFieldID(env, impl, "trustManager", "Ljavax/net/ssl/X509TrustManager;");
        (*env)->ExceptionClear(env);
        if (g_key_manager != NULL || g_trust_manager != NULL) {
            g_context_impl = (*env)->NewGlobalRef(env, impl);
        }
    }
    (*env)->ExceptionClear(env);
    if (g_context_impl == NULL) {
        g_key_manager = NULL;
        g_trust_manager = NULL;
    }
    jclass tm = (*env)->FindClass(env, "sun/security/ssl/X509TrustManagerImpl");
    if (tm != NULL) {
        g_tm_pkix = (*env)->GetFieldID(env, tm, "pkixParams",
                                       "Ljava/security/cert/PKIXBuilderParameters;");
        if (g_tm_pkix != NULL) {
            g_tm_impl = (*env)->NewGlobalRef(env, tm);
        }
    }
    (*env)->ExceptionClear(env);
    if (g_tm_impl == NULL) {
        g_tm_pkix = NULL;
    }
}

int tachy_jni__register_tls_natives(JNIEnv *env) {
    jclass cls = (*env)->FindClass(env, TLS_NATIVE_CLASS);
    if (cls == NULL) {
        return JNI_ERR;
    }
    jclass str = (*env)->FindClass(env, "java/lang/String");
    if (str == NULL || (g_string = (*env)->NewGlobalRef(env, str)) == NULL) {
        return JNI_ERR;
    }
    jclass bytes = (*env)->FindClass(env, "[B");
    if (bytes == NULL || (g_byte_array = (*env)->NewGlobalRef(env, bytes)) == NULL) {
        return JNI_ERR;
    }
    find_key_manager_fields(env);
    return (*env)->RegisterNatives(env, cls, k_tls_methods,
                                   (jint)(sizeof k_tls_methods / sizeof k_tls_methods[0]));
}

void tachy_jni__unload_tls_natives(JNIEnv *env) {
    if (env != NULL) {
        if (g_string != NULL) {
            (*env)->DeleteGlobalRef(env, g_string);
        }
        if (g_context_impl != NULL) {
            (*env)->DeleteGlobalRef(env, g_context_impl);
        }
        if (g_tm_impl != NULL) {
            (*env)->DeleteGlobalRef(env, g_tm_impl);
        }
        if (g_byte_array != NULL) {
            (*env)->DeleteGlobalRef(env, g_byte_array);
        }
    }
    g_string = NULL;
    g_context_impl = NULL;
    g_tm_impl = NULL;
    g_tm_pkix = NULL;
    g_trust_manager = NULL;
    g_byte_array = NULL;
    g_context_spi = NULL;
    g_key_manager = NULL;
}
