package dev.tachy.httpserver;

import javax.net.ssl.SSLContext;

/**
 * The natives of HTTPS on tachy's OpenSSL path (jni/tls_natives.c, registered by
 * {@code JNI_OnLoad}). Handles are C pointers carried as {@code long}; calls return what the
 * C function returned (0 or a negative {@code TACHY_E*} code, see {@link Native}).
 */
final class TlsNative {
    /*
     * No static initializer that loads the library: JNI_OnLoad registers these natives with
     * FindClass, which initialises this class while NativeLoader.load() is still running on
     * the same thread; a load from here would then load a second copy of the library.
     * Callers make sure the library is loaded (a TachyHttpServer exists, or
     * NativeLoader.load() was called).
     */
    private TlsNative() {}

    /** TLS wire versions (enum tachy_tls_version). */
    static final int TLS_1_2 = 0x0303;
    static final int TLS_1_3 = 0x0304;

    /** tachy_tls_config_create: the handle (> 0) or a negative code. */
    static native long configCreate();

    /** tachy_tls_config_free (the server keeps its own reference). */
    static native void configFree(long cfg);

    /** tachy_tls_config_load_pem: chain (leaf first) and an unencrypted key, both PEM text. */
    static native int configLoadPem(long cfg, byte[] chainPem, byte[] keyPem);

    /** tachy_tls_config_set_min_version then _set_max_version (TLS_1_2 / TLS_1_3). */
    static native int configSetVersions(long cfg, int min, int max);

    /** tachy_tls_config_set_ciphers, OpenSSL syntax; null keeps a default. */
    static native int configSetCiphers(long cfg, String tls12, String tls13);

    /** tachy_server_set_tls (before start). */
    static native int serverSetTls(long srv, long cfg);

    /** {protocol, cipher suite (IANA name), SNI host or null, ALPN or null}; null: not TLS. */
    static native String[] exchangeTls(long ex);

    /**
     * The X509ExtendedKeyManager a JDK SSLContext was initialised with, read through JNI from
     * its private fields (no public API exposes it); null when ctx is not the JDK's
     * implementation or has none. See jni/tls_natives.c.
     */
    static native Object keyManager(SSLContext ctx);

    /** Client authentication modes (enum tachy_tls_client_auth). */
    static final int CLIENT_AUTH_WANT = 1;
    static final int CLIENT_AUTH_NEED = 2;

    /** tachy_tls_config_add_client_ca_pem: trust anchors for client certificates, PEM text. */
    static native int configAddClientCa(long cfg, byte[] pem);

    /** tachy_tls_config_set_client_auth (CLIENT_AUTH_*; 0 = none). */
    static native int configSetClientAuth(long cfg, int mode);

    /** The DER of each certificate the client sent, its own first; null when it sent none. */
    static native byte[][] peerCertificates(long ex);

    /**
     * The X509TrustManager a JDK SSLContext was initialised with, read through JNI like
     * {@link #keyManager}, and only when it is the JDK's own KeyStore-backed
     * X509TrustManagerImpl (not built from CertPathTrustManagerParameters); null otherwise.
     */
    static native Object trustManager(SSLContext ctx);
}
