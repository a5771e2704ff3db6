package dev.tachy.httpserver;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyManagementException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.X509KeyManager;
import javax.net.ssl.X509TrustManager;

/**
 * Key material for tachy's native HTTPS (OpenSSL) path.
 *
 * <p>A {@link com.sun.net.httpserver.HttpsServer} made by the tachy provider serves TLS with
 * OpenSSL when tachy can obtain the private key and certificate chain behind the
 * {@link SSLContext} of its {@link HttpsConfigurator}. The JDK has no public API that returns
 * the key manager of an SSLContext, so tachy finds it in one of two ways:
 * <ol>
 * <li>the SSLContext was made by {@link #sslContext(KeyStore, char[])} or
 *     {@link #fromPem(String, String)}, which remember their key manager; or
 * <li>it is the JDK's own SSLContext ({@code SSLContext.getInstance("TLS")} and friends)
 *     initialised with the key managers of a {@link KeyManagerFactory} over a KeyStore (the
 *     usual way, "SunX509" or "PKIX"): the key manager is read through JNI from the context's
 *     private fields (JNI is not subject to module encapsulation: no {@code --add-opens}) and
 *     used only if it is one of the JDK's two KeyStore-backed implementations. Set the system
 *     property {@code tachy.https.jdkKeyManager=false} to turn this off.
 * </ol>
 * Any other SSLContext (a custom key manager, a provider other than SunJSSE, keys that cannot
 * be exported such as PKCS#11), or a configuration OpenSSL cannot reproduce (TLS 1.0/1.1, SNI
 * matchers, ALPN other than http/1.1, client authentication with trust decisions a CA list
 * cannot express: see below) is served by the JDK's own HTTPS server instead;
 * {@link TachyHttpsServer#isNative()} and {@link TachyHttpsServer#fallbackReason()} tell which
 * path serves and why.
 *
 * <p><b>Client authentication</b> ({@code HttpsParameters.setNeedClientAuth/setWantClientAuth},
 * or the same in {@code SSLParameters}) is done by OpenSSL when the context's trust manager is
 * the JDK's own KeyStore-backed one: a {@code TrustManagerFactory} ("PKIX" or "SunX509")
 * initialised with a {@code KeyStore} (or null: the default cacerts), read through JNI as the
 * key manager is. Its decisions are then "the client's chain leads to one of
 * {@code getAcceptedIssuers()}", which OpenSSL reproduces: those certificates become its trust
 * anchors (roots or not, as Java's TrustAnchors are) and the subjects listed in the
 * CertificateRequest. Anything else falls back to the JDK's server with a WARNING: a custom
 * {@code X509TrustManager} (its decisions are code, not a CA list), a
 * {@code CertPathTrustManagerParameters} factory (revocation checking, custom checkers or
 * CertStores), {@code -Dcom.sun.net.ssl.checkRevocation=true}, or a JDK whose private fields
 * differ. What OpenSSL checks differently: its own security level instead of
 * {@code jdk.certpath.disabledAlgorithms}, and no revocation checking (which the JDK does not
 * do by default either).
 *
 * <p>The key is handed to C as PKCS#8 PEM ({@link PrivateKey#getEncoded()}) and the chain as
 * the certificates' DER in PEM; the native copies are wiped after OpenSSL has parsed them.
 */
public final class TachyTls {
    private TachyTls() {}

    /** SSLContexts made here, with their key manager (weak: contexts are not kept alive). */
    private static final Map<SSLContext, X509KeyManager> KNOWN =
            Collections.synchronizedMap(new WeakHashMap<>());

    /** The JDK's KeyStore-backed key managers (KeyManagerFactory "SunX509" and "PKIX"). */
    private static final Set<String> JDK_KEY_MANAGERS = Set.of(
            "sun.security.ssl.SunX509KeyManagerImpl", "sun.security.ssl.X509KeyManagerImpl");

    /** Key types offered to OpenSSL, one certificate per type (OpenSSL picks per client). */
    private static final String[] KEY_TYPES = {"EC", "RSA", "EdDSA", "RSASSA-PSS"};

    /**
     * A TLS SSLContext serving the key entries of ks (KeyManagerFactory of the default
     * algorithm, default trust), which tachy's HttpsServer serves natively. Usable with any
     * provider, including the JDK's.
     */
    public static SSLContext sslContext(KeyStore ks, char[] password) throws GeneralSecurityException {
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, password);
        X509KeyManager km = null;
        for (KeyManager k : kmf.getKeyManagers()) {
            if (k instanceof X509KeyManager) {
                km = (X509KeyManager) k;
                break;
            }
        }
        if (km == null) {
            throw new KeyManagementException("no X509KeyManager for the KeyStore");
        }
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(new KeyManager[] {km}, null, null);
        KNOWN.put(ctx, km);
        return ctx;
    }

    /**
     * A TLS SSLContext from PEM text: certificateChainPem holds the server certificate first,
     * then intermediates ("BEGIN CERTIFICATE" blocks); privateKeyPem an unencrypted PKCS#8 key
     * ("BEGIN PRIVATE KEY": RSA, EC, EdDSA or RSASSA-PSS). Convert a traditional
     * "BEGIN RSA/EC PRIVATE KEY" with {@code openssl pkcs8 -topk8 -nocrypt}.
     */
    public static SSLContext fromPem(String certificateChainPem, String privateKeyPem)
            throws GeneralSecurityException {
        CertificateFactory cf = CertificateFactory.getInstance("X.509");
        Collection<? extends Certificate> certs = cf.generateCertificates(
                new ByteArrayInputStream(certificateChainPem.getBytes(StandardCharsets.US_ASCII)));
        if (certs.isEmpty()) {
            throw new GeneralSecurityException("no certificate in the PEM text");
        }
        PrivateKey key = parsePkcs8(privateKeyPem, (X509Certificate) certs.iterator().next());
        char[] pass = new char[0];
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try {
            ks.load(null, null);
        } catch (IOException e) {
            throw new GeneralSecurityException(e);
        }
        ks.setKeyEntry("tachy", key, pass, certs.toArray(new Certificate[0]));
        return sslContext(ks, pass);
    }

    /** {@link #fromPem(String, String)} from two files (they may be the same file). */
    public static SSLContext fromPem(Path certificateChain, Path privateKey)
            throws IOException, GeneralSecurityException {
        return fromPem(Files.readString(certificateChain, StandardCharsets.US_ASCII),
                Files.readString(privateKey, StandardCharsets.US_ASCII));
    }

    /** True when tachy can obtain the key material behind ctx (see the class comment). */
    public static boolean keyMaterialAvailable(SSLContext ctx) {
        X509KeyManager km = keyManager(ctx);
        return km != null && !keyMaterial(km).isEmpty();
    }

    private static PrivateKey parsePkcs8(String pem, X509Certificate leaf) throws GeneralSecurityException {
        String begin = "-----BEGIN PRIVATE KEY-----";
        int b = pem.indexOf(begin);
        int e = pem.indexOf("-----END PRIVATE KEY-----");
        if (b < 0 || e < b) {
            throw new GeneralSecurityException(pem.contains("ENCRYPTED PRIVATE KEY")
                    ? "encrypted PEM keys are not supported: decrypt to PKCS#8 first"
                    : "no \"BEGIN PRIVATE KEY\" (PKCS#8) block; convert with openssl pkcs8 -topk8 -nocrypt");
        }
        byte[] der = Base64.getMimeDecoder().decode(pem.substring(b + begin.length(), e));
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
        String want = leaf.getPublicKey().getAlgorithm();
        List<String> algs = new ArrayList<>(List.of(want));
        for (String a : new String[] {"RSA", "EC", "EdDSA", "RSASSA-PSS", "Ed25519", "Ed448"}) {
            if (!algs.contains(a)) {
                algs.add(a);
            }
        }
        GeneralSecurityException last = null;
        try {
            for (String a : algs) {
                try {
                    return KeyFactory.getInstance(a).generatePrivate(spec);
                } catch (GeneralSecurityException x) {
                    last = x;
                }
            }
        } finally {
            Arrays.fill(der, (byte) 0);
        }
        throw new GeneralSecurityException("unreadable PKCS#8 private key", last);
    }

    /* ---- for TachyHttpsServer ---------------------------------------------------------- */

    /** The key manager behind ctx that tachy may use, or null. */
    static X509KeyManager keyManager(SSLContext ctx) {
        X509KeyManager km = KNOWN.get(ctx);
        if (km != null || !Boolean.parseBoolean(System.getProperty("tachy.https.jdkKeyManager", "true"))) {
            return km;
        }
        Object o;
        try {
            NativeLoader.load(); // TlsNative does not load it (see there)
            o = TlsNative.keyManager(ctx);
        } catch (RuntimeException | LinkageError e) {
            return null;
        }
        if (o instanceof X509KeyManager && JDK_KEY_MANAGERS.contains(o.getClass().getName())) {
            return (X509KeyManager) o;
        }
        return null;
    }

    /**
     * Why the client certificates of ctx cannot be verified natively, or null when they can
     * (the trust manager is the JDK's KeyStore-backed one; see the class comment).
     */
    static String clientAuthUnmappable(SSLContext ctx) {
        if (Boolean.getBoolean("com.sun.net.ssl.checkRevocation")) {
            return "client authentication with revocation checking (com.sun.net.ssl.checkRevocation)"
                    + " is not done natively";
        }
        if (trustManager(ctx) == null) {
            return "client authentication: the SSLContext's trust manager is not the JDK's KeyStore-backed"
                    + " one (a custom X509TrustManager or CertPathTrustManagerParameters decide in code,"
                    + " which a CA list cannot express)";
        }
        return null;
    }

    /** The JDK's KeyStore-backed trust manager behind ctx, or null (see clientAuthUnmappable). */
    static X509TrustManager trustManager(SSLContext ctx) {
        Object o;
        try {
            NativeLoader.load();
            o = TlsNative.trustManager(ctx);
        } catch (RuntimeException | LinkageError e) {
            return null;
        }
        return o instanceof X509TrustManager ? (X509TrustManager) o : null;
    }

    /** One private key with its chain. */
    static final class KeyMaterial {
        final PrivateKey key;
        final X509Certificate[] chain;

        KeyMaterial(PrivateKey key, X509Certificate[] chain) {
            this.key = key;
            this.chain = chain;
        }
    }

    /** One entry per key type the key manager would serve (server certificate first). */
    static List<KeyMaterial> keyMaterial(X509KeyManager km) {
        List<KeyMaterial> out = new ArrayList<>();
        Set<String> aliases = new LinkedHashSet<>();
        for (String type : KEY_TYPES) {
            String alias;
            try {
                alias = km.chooseServerAlias(type, null, null);
            } catch (RuntimeException e) {
                continue;
            }
            if (alias == null || !aliases.add(alias)) {
                continue;
            }
            PrivateKey key = km.getPrivateKey(alias);
            X509Certificate[] chain = km.getCertificateChain(alias);
            if (key == null || chain == null || chain.length == 0
                    || !"PKCS#8".equals(key.getFormat()) || key.getEncoded() == null) {
                continue; // not exportable (hardware token): the JDK must serve it
            }
            out.add(new KeyMaterial(key, chain));
        }
        return out;
    }

    /** The effective server settings an HttpsConfigurator gives an SSLEngine of its context. */
    static final class Settings {
        String[] protocols;
        String[] cipherSuites;
        boolean needClientAuth;
        boolean wantClientAuth;
        SSLParameters parameters;
        int packetBufferSize;
        int applicationBufferSize;
    }

    /**
     * What the JDK's server does to each connection's SSLEngine (SSLStreams.configureEngine),
     * with one correction: configure() is called with fresh HttpsParameters, and if it called
     * setSSLParameters those parameters alone are applied; otherwise the legacy setters are
     * (cipher suites and protocols, each ignored if the engine refuses them, as the JDK does).
     * JDK 17 applies the legacy needClientAuth and then wantClientAuth, so a configure() that
     * calls only {@code setNeedClientAuth(true)} gets no client authentication at all (the
     * second call resets the first); JDK 25 honours it. tachy applies wantClientAuth first,
     * so need wins and a client without a certificate is refused, on every version.
     */
    static Settings settings(HttpsConfigurator cfg, InetSocketAddress client) {
        SSLEngine engine = engine(cfg, client);
        Settings s = new Settings();
        s.protocols = engine.getEnabledProtocols();
        s.cipherSuites = engine.getEnabledCipherSuites();
        s.needClientAuth = engine.getNeedClientAuth();
        s.wantClientAuth = engine.getWantClientAuth();
        s.parameters = engine.getSSLParameters();
        s.packetBufferSize = engine.getSession().getPacketBufferSize();
        s.applicationBufferSize = engine.getSession().getApplicationBufferSize();
        return s;
    }

    /** A server-mode engine of cfg's context configured as {@link #settings} describes. */
    static SSLEngine engine(HttpsConfigurator cfg, InetSocketAddress client) {
        SSLEngine engine = cfg.getSSLContext().createSSLEngine();
        engine.setUseClientMode(false);
        Params p = new Params(cfg, client);
        cfg.configure(p);
        if (p.params != null) {
            engine.setSSLParameters(p.params);
        } else {
            if (p.getCipherSuites() != null) {
                try {
                    engine.setEnabledCipherSuites(p.getCipherSuites());
                } catch (IllegalArgumentException e) {
                    // the JDK ignores it too
                }
            }
            engine.setWantClientAuth(p.getWantClientAuth());
            if (p.getNeedClientAuth()) {
                engine.setNeedClientAuth(true); // after want: see the method comment
            }
            if (p.getProtocols() != null) {
                try {
                    engine.setEnabledProtocols(p.getProtocols());
                } catch (IllegalArgumentException e) {
                    // the JDK ignores it too
                }
            }
        }
        return engine;
    }

    /**
     * The configurator given to the JDK's HTTPS server when it serves instead of tachy's
     * native path: for every connection it calls user.configure (with the connection's
     * address and user as the configurator) and hands the JDK's server the SSLParameters of
     * {@link #engine}, so the JDK applies exactly what tachy's native path would, including a
     * legacy {@code setNeedClientAuth(true)}.
     */
    static HttpsConfigurator enforcing(HttpsConfigurator user) {
        return new HttpsConfigurator(user.getSSLContext()) {
            @Override
            public void configure(HttpsParameters params) {
                params.setSSLParameters(engine(user, params.getClientAddress()).getSSLParameters());
            }
        };
    }

    /** The address given to configure() at start: the wildcard address, port 0 ("any"). */
    static InetSocketAddress anyClient() {
        try {
            return new InetSocketAddress(InetAddress.getByAddress(new byte[4]), 0);
        } catch (IOException e) {
            return new InetSocketAddress(0);
        }
    }

    private static final class Params extends HttpsParameters {
        private final HttpsConfigurator cfg;
        private final InetSocketAddress client;
        SSLParameters params;

        Params(HttpsConfigurator cfg, InetSocketAddress client) {
            this.cfg = cfg;
            this.client = client;
        }

        @Override
        public HttpsConfigurator getHttpsConfigurator() {
            return cfg;
        }

        @Override
        public InetSocketAddress getClientAddress() {
            return client;
        }

        @Override
        public void setSSLParameters(SSLParameters params) {
            this.params = params;
        }
    }

    /**
     * A Java/IANA cipher suite name in OpenSSL's syntax, or null when OpenSSL has no such
     * suite (or it is a signalling value). TLS 1.3 names are the same in both.
     */
    static String opensslCipher(String iana) {
        if (iana.startsWith("TLS_AES_") || iana.startsWith("TLS_CHACHA20_")) {
            return iana;
        }
        int w = iana.indexOf("_WITH_");
        if (!iana.startsWith("TLS_") || w < 0) {
            return null;
        }
        String kx;
        switch (iana.substring(4, w)) {
            case "ECDHE_ECDSA": kx = "ECDHE-ECDSA-"; break;
            case "ECDHE_RSA": kx = "ECDHE-RSA-"; break;
            case "DHE_RSA": kx = "DHE-RSA-"; break;
            case "DHE_DSS": kx = "DHE-DSS-"; break;
            case "RSA": kx = ""; break;
            default: return null; // static ECDH, anonymous, PSK...: not offered
        }
        String enc;
        switch (iana.substring(w + 6)) {
            case "AES_128_GCM_SHA256": enc = "AES128-GCM-SHA256"; break;
            case "AES_256_GCM_SHA384": enc = "AES256-GCM-SHA384"; break;
            case "CHACHA20_POLY1305_SHA256": enc = "CHACHA20-POLY1305"; break;
            case "AES_128_CBC_SHA": enc = "AES128-SHA"; break;
            case "AES_256_CBC_SHA": enc = "AES256-SHA"; break;
            case "AES_128_CBC_SHA256": enc = "AES128-SHA256"; break;
            case "AES_256_CBC_SHA256": enc = "AES256-SHA256"; break;
            case "AES_256_CBC_SHA384": enc = "AES256-SHA384"; break;
            default: return null;
        }
        return kx + enc;
    }

    static boolean isTls13Suite(String iana) {
        return iana.startsWith("TLS_AES_") || iana.startsWith("TLS_CHACHA20_");
    }

    /** The PEM text of a certificate chain (DER in base64). */
    static byte[] chainPem(X509Certificate[] chain) throws GeneralSecurityException {
        StringBuilder b = new StringBuilder();
        Base64.Encoder enc = Base64.getMimeEncoder(64, new byte[] {'\n'});
        for (X509Certificate c : chain) {
            b.append("-----BEGIN CERTIFICATE-----\n").append(enc.encodeToString(c.getEncoded()))
                    .append("\n-----END CERTIFICATE-----\n");
        }
        return b.toString().getBytes(StandardCharsets.US_ASCII);
    }

    /** The PEM text of a PKCS#8 key; the caller wipes it after use. */
    static byte[] keyPem(PrivateKey key) {
        byte[] der = key.getEncoded();
        byte[] body = Base64.getMimeEncoder(64, new byte[] {'\n'}).encode(der);
        Arrays.fill(der, (byte) 0);
        byte[] head = "-----BEGIN PRIVATE KEY-----\n".getBytes(StandardCharsets.US_ASCII);
        byte[] tail = "\n-----END PRIVATE KEY-----\n".getBytes(StandardCharsets.US_ASCII);
        byte[] out = new byte[head.length + body.length + tail.length];
        System.arraycopy(head, 0, out, 0, head.length);
        System.arraycopy(body, 0, out, head.length, body.length);
        System.arraycopy(tail, 0, out, head.length + body.length, tail.length);
        Arrays.fill(body, (byte) 0);
        return out;
    }
}
