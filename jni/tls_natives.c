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
 * Threads: config calls on the thread that starts the server; exchangeTls on the thread that
 * owns the exchange (the handler's).
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
        if (g_key_manager != NULL) {
            g_context_impl = (*env)->NewGlobalRef(env, impl);
        }
    }
    (*env)->ExceptionClear(env);
    if (g_context_impl == NULL) {
        g_key_manager = NULL;
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
    }
    g_string = NULL;
    g_context_impl = NULL;
    g_context_spi = NULL;
    g_key_manager = NULL;
}
