package dev.tachy.httpserver;

import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import com.sun.net.httpserver.spi.HttpServerProvider;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SNIMatcher;
import javax.net.ssl.X509KeyManager;
import javax.net.ssl.X509TrustManager;

/**
 * The HTTPS server. Until {@link #start()} it is a tachy server (contexts, executor, bind all
 * go to a {@link TachyHttpServer} whose owner is this object). At start the configurator's
 * SSLContext decides which implementation serves:
 *
 * <ul>
 * <li><b>Native (OpenSSL)</b> when tachy can obtain the key material (see {@link TachyTls}:
 *     contexts made by TachyTls, or the JDK's SSLContext over a KeyManagerFactory/KeyStore)
 *     and the configurator's settings map onto OpenSSL. {@link HttpsConfigurator#configure}
 *     is called once, here, with a client address of 0.0.0.0:0 (the JDK calls it for every
 *     connection with the peer's address; the native TLS configuration is fixed for the life
 *     of the server). On the SSLEngine it configures, exactly as the JDK's server does
 *     (setSSLParameters, or the legacy setters), tachy reads the effective settings and maps
 *     them: enabled protocols (TLSv1.2, TLSv1.3) to a minimum and maximum version; enabled
 *     cipher suites, in order, to OpenSSL names (suites OpenSSL does not have are left out,
 *     never added); ALPN is answered "http/1.1" when the client offers it. Handlers receive an
 *     {@link com.sun.net.httpserver.HttpsExchange} whose getSSLSession() reports what OpenSSL
 *     negotiated ({@link TachySslSession}). need/wantClientAuth map to OpenSSL's verify modes
 *     (want: SSL_VERIFY_PEER; need: also SSL_VERIFY_FAIL_IF_NO_PEER_CERT) with the trust
 *     manager's getAcceptedIssuers() as the CA store, and getPeerCertificates() returns the
 *     chain the client sent. Because configure() is called once, what it decides holds for
 *     every connection: a configure() that chooses per client address (need for some, not
 *     for others) gets the decision it made for 0.0.0.0:0 everywhere; such a configurator
 *     needs the JDK's server (there is no way to detect it).
 * <li><b>The JDK's HTTPS server</b> (sun.net.httpserver, reached by reflection or, without
 *     {@code --add-exports}, through JNI) when tachy cannot: no configurator, key material it
 *     cannot reach, need/wantClientAuth with a trust manager whose decisions are not a CA list
 *     (a custom X509TrustManager, CertPathTrustManagerParameters, revocation checking: see
 *     {@link TachyTls}; logged as a WARNING), protocols other than TLSv1.2/1.3, SNI matchers, ALPN lists without http/1.1, a
 *     configure() that throws. tachy's socket is closed, the JDK's server binds the same
 *     address, and the contexts are carried over (their live filter lists, handler, the
 *     authenticator and attributes as they are at start); from then on every call goes to
 *     the JDK's server. Its configurator is {@link TachyTls#enforcing}: for every
 *     connection it calls the user's configure() and hands the JDK the resulting
 *     SSLParameters, so a legacy {@code setNeedClientAuth(true)} is honoured (JDK 17's own
 *     legacy path resets it with the following setWantClientAuth(false); JDK 25's does not).
 *     {@link #isNative()} / {@link #fallbackReason()} say which serves.
 * </ul>
 *
 * <p>The DESIGN's third transport (OpenSSL replaced by a Java SSLEngine driven from C, for any
 * SSLContext) is not implemented; the JDK's server is that fallback.
 */
public final class TachyHttpsServer extends HttpsServer {
    static final String FALLBACK = "sun.net.httpserver.DefaultHttpServerProvider";

    private final Object lock = new Object();
    private final TachyHttpServer tachy;
    private final int backlog;
    private volatile HttpsConfigurator configurator;
    /** The JDK's server once it serves instead (set in start, then never changed). */
    private volatile HttpsServer jdk;
    private volatile boolean nativeTls;
    private volatile String fallbackReason;
    private boolean started;
    /** tachy contexts in creation order (carried over if the JDK's server takes over). */
    private final List<TachyHttpContext> contexts = new ArrayList<>();
    /** tachy context -> the JDK context that replaced it. Guarded by lock. */
    private final Map<HttpContext, HttpContext> replaced = new IdentityHashMap<>();
    /* Native path: what every TachySslSession shares. */
    private volatile X509Certificate[] localChain;
    private volatile int packetBufferSize;
    private volatile int applicationBufferSize;
    /** Client authentication is on (want or need): exchanges read the client's chain. */
    private volatile boolean clientAuth;
    /** The fallback reason is one a WARNING is logged for (client authentication). */
    private boolean warnFallback;

    TachyHttpsServer(InetSocketAddress addr, int backlog) throws IOException {
        this(addr, backlog, ServerConfig.options());
    }

    /** options: ServerConfig.options' array for the tachy server under this one. */
    TachyHttpsServer(InetSocketAddress addr, int backlog, long[] options) throws IOException {
        this.backlog = backlog;
        this.tachy = new TachyHttpServer(this, addr, backlog, options);
    }

    /** The tachy server under this one (TachyMetrics reads its counters). */
    TachyHttpServer tachy() {
        return tachy;
    }

    /** True when TLS is served by tachy's OpenSSL path (known once started). */
    public boolean isNative() {
        return nativeTls;
    }

    /** Why the JDK's HTTPS server serves instead of tachy's native path; null otherwise. */
    public String fallbackReason() {
        return fallbackReason;
    }

    @Override
    public void setHttpsConfigurator(HttpsConfigurator config) {
        if (config == null) {
            throw new NullPointerException("null HttpsConfigurator");
        }
        synchronized (lock) {
            if (started) {
                throw new IllegalStateException("server already started");
            }
            configurator = config;
        }
    }

    @Override
    public HttpsConfigurator getHttpsConfigurator() {
        return configurator;
    }

    @Override
    public void bind(InetSocketAddress addr, int backlog) throws IOException {
        HttpsServer j = jdk;
        if (j != null) {
            j.bind(addr, backlog);
        } else {
            tachy.bind(addr, backlog);
        }
    }

    @Override
    public void start() {
        synchronized (lock) {
            if (started || tachy.getAddress() == null) {
                throw new IllegalStateException("server in wrong state");
            }
            // -Dtachy.metrics=PATH, before the contexts may be carried over to the JDK's server
            TachyMetrics.mountConfigured(tachy, this);
            HttpsConfigurator cfg = configurator;
            String why = null;
            if (cfg == null) {
                why = "no HttpsConfigurator";
            } else {
                long[] h = {0};
                why = prepare(cfg, h);
                if (why == null) {
                    try {
                        int rc = tachy.setTls(h[0]);
                        if (rc < 0) {
                            why = "tachy_server_set_tls: " + Native.strerror(rc);
                        }
                    } finally {
                        TlsNative.configFree(h[0]); // the server holds its own reference
                    }
                }
            }
            if (why == null) {
                tachy.start();
                started = true;
                nativeTls = true;
                return;
            }
            fallbackReason = why;
            TachyHttpServer.LOGGER.log(warnFallback ? Level.WARNING : Level.DEBUG,
                    "tachy: HTTPS served by the JDK''s server: {0}", why);
            fallBack();
            started = true;
        }
    }

    /**
     * Builds the native TLS configuration for cfg into h[0] (the caller frees it); returns
     * null, or why it cannot be done natively (h[0] is then 0).
     */
    private String prepare(HttpsConfigurator cfg, long[] h) {
        SSLContext ctx = cfg.getSSLContext();
        X509KeyManager km = TachyTls.keyManager(ctx);
        if (km == null) {
            return "the key material of SSLContext " + ctx.getProtocol() + "/" + ctx.getProvider().getName()
                    + " is not reachable (make it with dev.tachy.httpserver.TachyTls, or init the JDK's"
                    + " SSLContext with a KeyManagerFactory over a KeyStore)";
        }
        List<TachyTls.KeyMaterial> keys = TachyTls.keyMaterial(km);
        if (keys.isEmpty()) {
            return "the SSLContext's key manager has no exportable server key";
        }
        TachyTls.Settings s;
        try {
            s = TachyTls.settings(cfg, TachyTls.anyClient());
        } catch (RuntimeException e) {
            return "HttpsConfigurator.configure failed at start: " + e;
        }
        int clientAuthMode = s.needClientAuth ? TlsNative.CLIENT_AUTH_NEED
                : s.wantClientAuth ? TlsNative.CLIENT_AUTH_WANT : 0;
        X509Certificate[] anchors = null;
        if (clientAuthMode != 0) {
            String no = TachyTls.clientAuthUnmappable(ctx);
            X509TrustManager tm = no == null ? TachyTls.trustManager(ctx) : null;
            if (no == null && tm == null) {
                no = "client authentication: the trust manager is not reachable";
            }
            if (no != null) {
                warnFallback = true;
                return no;
            }
            anchors = tm.getAcceptedIssuers();
        }
        java.util.Collection<SNIMatcher> sni = s.parameters.getSNIMatchers();
        if (sni != null && !sni.isEmpty()) {
            return "SNI matchers are not implemented natively";
        }
        String[] alpn = s.parameters.getApplicationProtocols();
        if (alpn != null && alpn.length > 0 && !Arrays.asList(alpn).contains("http/1.1")) {
            return "ALPN " + Arrays.toString(alpn) + " without http/1.1";
        }
        int min = Integer.MAX_VALUE;
        int max = 0;
        for (String p : s.protocols) {
            int v;
            switch (p) {
                case "TLSv1.2": v = TlsNative.TLS_1_2; break;
                case "TLSv1.3": v = TlsNative.TLS_1_3; break;
                case "SSLv2Hello": continue;
                default: return "protocol " + p + " is not served natively (TLSv1.2 and TLSv1.3 are)";
            }
            min = Math.min(min, v);
            max = Math.max(max, v);
        }
        StringBuilder tls12 = new StringBuilder();
        StringBuilder tls13 = new StringBuilder();
        for (String suite : s.cipherSuites) {
            String o = TachyTls.opensslCipher(suite);
            if (o != null) {
                StringBuilder b = TachyTls.isTls13Suite(suite) ? tls13 : tls12;
                b.append(b.length() > 0 ? ":" : "").append(o);
            }
        }
        if (tls13.length() == 0) {
            max = Math.min(max, TlsNative.TLS_1_2);
        }
        if (tls12.length() == 0) {
            min = Math.max(min, TlsNative.TLS_1_3);
        }
        if (max == 0 || min > max) {
            return "no enabled protocol and cipher suite that OpenSSL has: " + Arrays.toString(s.protocols)
                    + " " + Arrays.toString(s.cipherSuites);
        }
        long cfgHandle = TlsNative.configCreate();
        if (cfgHandle < 0) {
            return "OpenSSL is not available: " + Native.strerror((int) cfgHandle);
        }
        String why = null;
        try {
            for (TachyTls.KeyMaterial k : keys) {
                byte[] key = TachyTls.keyPem(k.key);
                int rc;
                try {
                    rc = TlsNative.configLoadPem(cfgHandle, TachyTls.chainPem(k.chain), key);
                } finally {
                    Arrays.fill(key, (byte) 0);
                }
                if (rc < 0) {
                    return why = "OpenSSL refused the " + k.key.getAlgorithm() + " key: " + Native.strerror(rc);
                }
            }
            if (clientAuthMode != 0) {
                int rc = anchors.length > 0 ? TlsNative.configAddClientCa(cfgHandle, TachyTls.chainPem(anchors)) : 0;
                if (rc == 0) {
                    rc = TlsNative.configSetClientAuth(cfgHandle, clientAuthMode);
                }
                if (rc < 0) {
                    warnFallback = true;
                    return why = "OpenSSL refused the trust anchors for client authentication: "
                            + Native.strerror(rc);
                }
            }
            int rc = TlsNative.configSetVersions(cfgHandle, min, max);
            if (rc == 0) {
                rc = TlsNative.configSetCiphers(cfgHandle,
                        tls12.length() > 0 ? tls12.toString() : null, tls13.length() > 0 ? tls13.toString() : null);
            }
            if (rc < 0) {
                return why = "OpenSSL refused the protocol or cipher settings: " + Native.strerror(rc);
            }
            localChain = keys.get(0).chain;
            packetBufferSize = s.packetBufferSize;
            applicationBufferSize = s.applicationBufferSize;
            clientAuth = clientAuthMode != 0;
            h[0] = cfgHandle;
            return null;
        } catch (GeneralSecurityException e) {
            return why = "certificate encoding failed: " + e;
        } finally {
            if (why != null) {
                TlsNative.configFree(cfgHandle);
            }
        }
    }

    /** The exchange handlers see (TachyHttpContext.invoke): an HttpsExchange over x. */
    HttpExchange exchange(TachyHttpExchange x) {
        String[] tls = null;
        byte[][] peer = null;
        // Not nativeHandle(): that lifts a lent exchange's hold (the WebSocket upgrade's need),
        // after which a virtual thread's body read blocked in native code, pinning its carrier
        // (HTTPS with virtual threads: only as many handlers as carriers could wait for their
        // bodies; Http2Probe's TLS check). Reading the session never blocks. The handle stays
        // valid while the handler has not returned (x is not closed before the chain runs).
        synchronized (x) {
            long h = x.peekHandle();
            if (h != 0) {
                tls = TlsNative.exchangeTls(h);
                if (clientAuth) {
                    peer = TlsNative.peerCertificates(h); // DER, decoded when asked for
                }
            }
        }
        if (tls == null) {
            tls = new String[] {"NONE", "SSL_NULL_WITH_NULL_NULL", null, null};
        }
        return new TachyHttpsExchange(x, new TachySslSession(tls, localChain, peer, x,
                packetBufferSize, applicationBufferSize));
    }

    /* ---- the JDK's server as the fallback ----------------------------------------------- */

    /** Hands the address, configurator, executor and contexts to the JDK's server and starts
     * it (lock held). */
    private void fallBack() {
        InetSocketAddress addr = tachy.getAddress();
        Executor executor = tachy.getExecutor();
        tachy.stop(0); // frees the port for the JDK's server
        HttpsServer j;
        try {
            j = jdkProvider().createHttpsServer(addr, backlog);
        } catch (IOException e) {
            IllegalStateException x = new IllegalStateException(
                    "tachy: the JDK's HTTPS server could not bind " + addr + " (" + fallbackReason + ")", e);
            throw x;
        }
        if (configurator != null) {
            j.setHttpsConfigurator(TachyTls.enforcing(configurator));
        }
        j.setExecutor(executor);
        for (TachyHttpContext c : contexts) {
            replaced.put(c, carryOver(j, c));
        }
        jdk = j;
        j.start();
    }

    private static HttpContext carryOver(HttpsServer j, TachyHttpContext c) {
        HttpContext jc = j.createContext(c.getPath(), ex -> {
            HttpHandler h = c.getHandler();
            if (h == null) {
                throw new IOException("No handler for context");
            }
            h.handle(ex);
        });
        jc.getFilters().add(new Filter() {
            @Override
            public void doFilter(HttpExchange ex, Chain chain) throws IOException {
                List<Filter> f = c.getFilters();
                if (f.isEmpty()) {
                    chain.doFilter(ex);
                } else {
                    new Chain(f, chain::doFilter).doFilter(ex);
                }
            }

            @Override
            public String description() {
                return "tachy: the filters of " + c;
            }
        });
        if (c.getAuthenticator() != null) {
            jc.setAuthenticator(c.getAuthenticator());
        }
        jc.getAttributes().putAll(c.getAttributes());
        return jc;
    }

    private static HttpServerProvider jdkProvider() {
        try {
            Class<?> c = Class.forName(FALLBACK, true, HttpsServer.class.getClassLoader());
            return (HttpServerProvider) c.getConstructor().newInstance();
        } catch (ReflectiveOperationException | RuntimeException | LinkageError notExported) {
            try {
                return (HttpServerProvider) Native.jdkProvider();
            } catch (RuntimeException | LinkageError e) {
                UnsupportedOperationException u = new UnsupportedOperationException(
                        "tachy: this SSLContext needs the JDK's HTTPS server (" + FALLBACK
                        + "), which cannot be reached");
                u.initCause(e);
                u.addSuppressed(notExported);
                throw u;
            }
        }
    }

    /* ---- HttpServer ------------------------------------------------------------------------ */

    @Override
    public void setExecutor(Executor executor) {
        HttpsServer j = jdk;
        if (j != null) {
            j.setExecutor(executor);
        } else {
            tachy.setExecutor(executor);
        }
    }

    @Override
    public Executor getExecutor() {
        HttpsServer j = jdk;
        return j != null ? j.getExecutor() : tachy.getExecutor();
    }

    @Override
    public void stop(int delay) {
        HttpsServer j = jdk;
        if (j != null) {
            j.stop(delay);
        } else {
            tachy.stop(delay);
        }
    }

    @Override
    public HttpContext createContext(String path, HttpHandler handler) {
        synchronized (lock) {
            if (jdk != null) {
                return jdk.createContext(path, handler);
            }
            HttpContext c = tachy.createContext(path, handler);
            contexts.add((TachyHttpContext) c);
            return c;
        }
    }

    @Override
    public HttpContext createContext(String path) {
        synchronized (lock) {
            if (jdk != null) {
                return jdk.createContext(path);
            }
            HttpContext c = tachy.createContext(path);
            contexts.add((TachyHttpContext) c);
            return c;
        }
    }

    @Override
    public void removeContext(String path) {
        synchronized (lock) {
            if (jdk != null) {
                jdk.removeContext(path);
                return;
            }
            tachy.removeContext(path);
            for (int i = 0; i < contexts.size(); i++) {
                if (contexts.get(i).getPath().equals(path)) {
                    contexts.remove(i);
                    break;
                }
            }
        }
    }

    @Override
    public void removeContext(HttpContext context) {
        synchronized (lock) {
            if (jdk != null) {
                HttpContext jc = replaced.remove(context);
                jdk.removeContext(jc != null ? jc : context);
                return;
            }
            tachy.removeContext(context);
            contexts.remove(context);
        }
    }

    @Override
    public InetSocketAddress getAddress() {
        HttpsServer j = jdk;
        return j != null ? j.getAddress() : tachy.getAddress();
    }

    @Override
    public String toString() {
        HttpsServer j = jdk;
        return j != null ? "TachyHttpsServer[JDK fallback " + j + "]"
                : "TachyHttpsServer[" + (nativeTls ? "OpenSSL " : "") + getAddress() + "]";
    }
}
