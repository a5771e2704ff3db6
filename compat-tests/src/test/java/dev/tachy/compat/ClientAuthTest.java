package dev.tachy.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsExchange;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 15 item 2: client certificates. HttpsParameters.setNeedClientAuth(true) (or the same in
 * the SSLParameters given to setSSLParameters) makes the server refuse a client that presents no
 * certificate, and a client that presents one sees it in getSSLSession().getPeerCertificates();
 * setWantClientAuth(true) asks for one but serves a client without. The JDK calls
 * HttpsConfigurator.configure for every connection; whatever the provider does, every
 * connection must get what configure asked for.
 *
 * <p>The client is a plain SSLSocket that writes one request and reads until the server closes:
 * with TLS 1.3 the server's refusal arrives after the client's handshake has completed, as an
 * alert on the first read, so "refused" means: no HTTP response, and the read fails or ends.
 */
class ClientAuthTest {

    @TempDir
    static Path tmp;

    static final char[] PASS = "changeit".toCharArray();
    /** Server key; trusts the client certificate. */
    static SSLContext serverContext;
    /** No client certificate; trusts the server. */
    static SSLContext anonymousClient;
    /** Presents the client certificate (CN=compat-client); trusts the server. */
    static SSLContext certifiedClient;
    /** Presents a certificate the server does not trust. */
    static SSLContext untrustedClient;
    /** Presents that untrusted certificate even when the server's CA list does not name its
     * issuer (a JDK client would otherwise send none). */
    static SSLContext pushyUntrustedClient;
    static KeyStore keyPairStore;
    static KeyStore strangerStore;

    @BeforeAll
    static void keys() throws Exception {
        KeyStore server = keyPair("server", "CN=localhost");
        KeyStore client = keyPair("client", "CN=compat-client");
        KeyStore stranger = keyPair("stranger", "CN=stranger");
        keyPairStore = client;
        strangerStore = stranger;
        serverContext = context(server, client);
        anonymousClient = context(null, server);
        certifiedClient = context(client, server);
        untrustedClient = context(stranger, server);
        pushyUntrustedClient = pushy(stranger, server);
    }

    /** A client context whose key manager offers its one key whatever issuers are asked for. */
    static SSLContext pushy(KeyStore keys, KeyStore trust) throws Exception {
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(keys, PASS);
        javax.net.ssl.X509KeyManager km = (javax.net.ssl.X509KeyManager) kmf.getKeyManagers()[0];
        String alias = keys.aliases().nextElement();
        javax.net.ssl.X509ExtendedKeyManager any = new javax.net.ssl.X509ExtendedKeyManager() {
            @Override
            public String[] getClientAliases(String keyType, java.security.Principal[] issuers) {
                return new String[] {alias};
            }

            @Override
            public String chooseClientAlias(String[] keyType, java.security.Principal[] issuers,
                    java.net.Socket socket) {
                return alias;
            }

            @Override
            public String chooseEngineClientAlias(String[] keyType, java.security.Principal[] issuers,
                    javax.net.ssl.SSLEngine engine) {
                return alias;
            }

            @Override
            public String[] getServerAliases(String keyType, java.security.Principal[] issuers) {
                return null;
            }

            @Override
            public String chooseServerAlias(String keyType, java.security.Principal[] issuers,
                    java.net.Socket socket) {
                return null;
            }

            @Override
            public X509Certificate[] getCertificateChain(String a) {
                return km.getCertificateChain(a);
            }

            @Override
            public java.security.PrivateKey getPrivateKey(String a) {
                return km.getPrivateKey(a);
            }
        };
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext c = SSLContext.getInstance("TLS");
        c.init(new javax.net.ssl.KeyManager[] {any}, tmf.getTrustManagers(), null);
        return c;
    }

    /** On tachy: whether OpenSSL serves s (true) or the JDK's server does (false). */
    static void assertNative(HttpsServer s, boolean natively) throws Exception {
        if (!Compat.isTachy()) {
            return;
        }
        Object n = s.getClass().getMethod("isNative").invoke(s);
        Object why = s.getClass().getMethod("fallbackReason").invoke(s);
        assertEquals(natively, n, "served natively by tachy; fallback reason: " + why);
    }

    static KeyStore keyPair(String name, String dname) throws Exception {
        File ks = tmp.resolve(name + ".p12").toFile();
        Process p = new ProcessBuilder(
                System.getProperty("java.home") + File.separator + "bin" + File.separator + "keytool",
                "-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname", "secp256r1",
                "-dname", dname, "-ext", "san=ip:127.0.0.1,dns:localhost", "-validity", "3",
                "-storetype", "PKCS12", "-keystore", ks.getPath(), "-storepass", "changeit", "-keypass", "changeit")
                .redirectErrorStream(true)
                .redirectOutput(tmp.resolve(name + "-keytool.log").toFile())
                .start();
        assertTrue(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS), "keytool finished");
        assertEquals(0, p.exitValue(), () -> {
            try {
                return Files.readString(tmp.resolve(name + "-keytool.log"));
            } catch (IOException e) {
                return e.toString();
            }
        });
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = new FileInputStream(ks)) {
            store.load(in, PASS);
        }
        return store;
    }

    /** An SSLContext with the key entries of keys (or none) trusting the certificates of trust. */
    static SSLContext context(KeyStore keys, KeyStore trust) throws Exception {
        javax.net.ssl.KeyManager[] km = null;
        if (keys != null) {
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(keys, PASS);
            km = kmf.getKeyManagers();
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext c = SSLContext.getInstance("TLS");
        c.init(km, tmf.getTrustManagers(), null);
        return c;
    }

    /** Answers "peer CN=..." with the client's certificate subject, or "peer none"; the
     * principal must agree with the chain, and be unverified exactly when the chain is. */
    static void peerHandler(com.sun.net.httpserver.HttpExchange ex) throws IOException {
        String who;
        javax.net.ssl.SSLSession session = ((HttpsExchange) ex).getSSLSession();
        try {
            Certificate[] chain = session.getPeerCertificates();
            who = ((X509Certificate) chain[0]).getSubjectX500Principal().getName();
            if (!session.getPeerPrincipal().getName().equals(who)) {
                who = "principal " + session.getPeerPrincipal() + " differs from " + who;
            } else if (chain.length != 1) {
                who = "a chain of " + chain.length; // self-signed: the client sends one
            }
        } catch (SSLPeerUnverifiedException e) {
            who = "none";
            try {
                who = "principal without certificates: " + session.getPeerPrincipal();
            } catch (SSLPeerUnverifiedException expected) {
                // as the chain: not authenticated
            }
        }
        ex.getRequestBody().readAllBytes();
        TestServer.respond(ex, 200, "peer " + who);
    }

    /** A started HTTPS server whose configurator applies how to every connection's parameters. */
    static HttpsServer server(Consumer<HttpsParameters> how, AtomicInteger calls) throws IOException {
        return server(serverContext, how, calls);
    }

    static HttpsServer server(SSLContext ctx, Consumer<HttpsParameters> how, AtomicInteger calls)
            throws IOException {
        HttpsServer s = HttpsServer.create(TestServer.loopback0(), 0);
        s.setHttpsConfigurator(new HttpsConfigurator(ctx) {
            @Override
            public void configure(HttpsParameters params) {
                calls.incrementAndGet();
                how.accept(params);
            }
        });
        s.createContext("/", ClientAuthTest::peerHandler);
        s.start();
        return s;
    }

    /**
     * One GET over a new TLS connection: the response text ("HTTP/1.1 200 ...") up to the
     * server's close, or "refused: ..." when the handshake or the read failed before any
     * response byte.
     */
    static String get(HttpsServer s, SSLContext client) throws IOException {
        try (SSLSocket sock = (SSLSocket) client.getSocketFactory().createSocket(
                "127.0.0.1", s.getAddress().getPort())) {
            sock.setSoTimeout(10_000);
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            try {
                sock.startHandshake();
                OutputStream out = sock.getOutputStream();
                out.write("GET /who HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
                out.flush();
                InputStream in = sock.getInputStream();
                byte[] buf = new byte[4096];
                for (int n; (n = in.read(buf)) > 0; ) {
                    got.write(buf, 0, n);
                }
            } catch (java.net.SocketTimeoutException e) {
                throw e; // neither an answer nor a refusal: the test fails
            } catch (IOException e) {
                if (got.size() == 0) {
                    return "refused: " + e;
                }
            } finally {
                // No resumption on a later connection: a JDK server shares its session cache
                // through the SSLContext (serverContext serves every test here), and a session
                // resumed from a client-auth test would carry that test's peer certificate into
                // another server's exchange.
                sock.getSession().invalidate();
            }
            if (got.size() == 0) {
                return "refused: closed without a response";
            }
            return got.toString(StandardCharsets.ISO_8859_1);
        }
    }

    static void assertRefused(String r, String what) {
        assertTrue(r.startsWith("refused: "), what + ": expected the server to refuse, got " + r);
    }

    static void assertPeer(String r, String peer, String what) {
        assertTrue(r.startsWith("HTTP/1.1 200"), what + ": " + r);
        assertTrue(r.endsWith("\r\n\r\npeer " + peer), what + ": " + r);
    }

    /**
     * JDK 17 applies the legacy setters as setNeedClientAuth(need) then setWantClientAuth(want)
     * on the engine, and the second call resets the first: a configure() that calls only
     * setNeedClientAuth(true) gets no client authentication on JDK 17 (every client is served,
     * none is asked for a certificate). JDK 25 honours it, and so does tachy on every version
     * (it applies want first, so need wins): a server that asks for client certificates must
     * not serve clients without one. Releases between 17 and 25 are not asserted.
     */
    @Test
    void needClientAuthThroughTheLegacySetter() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        HttpsServer s = server(p -> p.setNeedClientAuth(true), calls);
        try {
            if (!Compat.isTachy() && Compat.javaFeature() < 25) {
                if (Compat.javaFeature() == 17) {
                    assertPeer(get(s, anonymousClient), "none", "JDK 17: legacy needClientAuth alone is reset");
                    assertPeer(get(s, certifiedClient), "none", "JDK 17: no certificate is asked for");
                }
                return;
            }
            assertNative(s, true);
            assertRefused(get(s, anonymousClient), "needClientAuth, no client certificate");
            assertRefused(get(s, anonymousClient), "needClientAuth, second connection without a certificate");
            assertRefused(get(s, untrustedClient), "needClientAuth, untrusted client certificate");
            assertRefused(get(s, pushyUntrustedClient), "needClientAuth, untrusted certificate sent anyway");
            assertPeer(get(s, certifiedClient), "CN=compat-client", "needClientAuth, trusted certificate");
            assertPeer(get(s, certifiedClient), "CN=compat-client", "needClientAuth, second trusted connection");
            assertTrue(calls.get() >= 1, "configure was called");
        } finally {
            s.stop(0);
        }
    }

    @Test
    void needClientAuthThroughSslParameters() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        HttpsServer s = server(p -> {
            SSLParameters sp = p.getHttpsConfigurator().getSSLContext().getDefaultSSLParameters();
            sp.setNeedClientAuth(true);
            p.setSSLParameters(sp);
        }, calls);
        try {
            assertNative(s, true);
            assertRefused(get(s, anonymousClient), "SSLParameters.needClientAuth, no client certificate");
            assertPeer(get(s, certifiedClient), "CN=compat-client", "SSLParameters.needClientAuth, trusted certificate");
            assertRefused(get(s, anonymousClient), "SSLParameters.needClientAuth, no certificate after one with");
        } finally {
            s.stop(0);
        }
    }

    @Test
    void wantClientAuthServesClientsWithAndWithoutACertificate() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        HttpsServer s = server(p -> p.setWantClientAuth(true), calls);
        try {
            assertNative(s, true);
            assertPeer(get(s, anonymousClient), "none", "wantClientAuth, no client certificate");
            assertPeer(get(s, certifiedClient), "CN=compat-client", "wantClientAuth, trusted certificate");
            // an untrusted certificate is dropped, not refused: served as without one
            assertPeer(get(s, untrustedClient), "none", "wantClientAuth, untrusted client certificate");
            // sent anyway, it does not verify: the handshake fails, as with need
            assertRefused(get(s, pushyUntrustedClient), "wantClientAuth, untrusted certificate sent anyway");
            assertPeer(get(s, anonymousClient), "none", "wantClientAuth, no certificate after a refusal");
        } finally {
            s.stop(0);
        }
    }

    @Test
    void noClientAuthIgnoresAClientCertificate() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        HttpsServer s = server(p -> p.setSSLParameters(p.getHttpsConfigurator().getSSLContext()
                .getDefaultSSLParameters()), calls);
        try {
            assertPeer(get(s, anonymousClient), "none", "no client auth, no certificate");
            assertPeer(get(s, certifiedClient), "none", "no client auth: the certificate is not asked for");
        } finally {
            s.stop(0);
        }
    }

    /**
     * The legacy setters are ignored once setSSLParameters was called (the JDK applies the
     * SSLParameters alone): needClientAuth set that way, then parameters without it, serves
     * anyone.
     */
    @Test
    void sslParametersWinOverTheLegacySetters() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        HttpsServer s = server(p -> {
            p.setNeedClientAuth(true);
            p.setSSLParameters(p.getHttpsConfigurator().getSSLContext().getDefaultSSLParameters());
        }, calls);
        try {
            assertPeer(get(s, anonymousClient), "none", "setNeedClientAuth then setSSLParameters without it");
        } finally {
            s.stop(0);
        }
    }

    /** want through SSLParameters on TLS 1.2 as well as 1.3 (the default). */
    @Test
    void wantClientAuthOverTls12() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        HttpsServer s = server(p -> {
            SSLParameters sp = p.getHttpsConfigurator().getSSLContext().getDefaultSSLParameters();
            sp.setWantClientAuth(true);
            sp.setProtocols(new String[] {"TLSv1.2"});
            p.setSSLParameters(sp);
        }, calls);
        try {
            assertNative(s, true);
            assertPeer(get(s, anonymousClient), "none", "TLS 1.2 want, no certificate");
            assertPeer(get(s, certifiedClient), "CN=compat-client", "TLS 1.2 want, trusted certificate");
            assertRefused(get(s, pushyUntrustedClient), "TLS 1.2 want, untrusted certificate");
        } finally {
            s.stop(0);
        }
    }

    /**
     * A custom X509TrustManager decides in code, which OpenSSL cannot reproduce from a CA list:
     * tachy hands the server to the JDK's (with a WARNING), and need is enforced either way.
     */
    @Test
    void customTrustManagerIsEnforcedByTheFallback() throws Exception {
        KeyStore server = keyPair("server2", "CN=localhost");
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(server, PASS);
        AtomicInteger checked = new AtomicInteger();
        javax.net.ssl.X509TrustManager onlyCompatClient = new javax.net.ssl.X509TrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType)
                    throws java.security.cert.CertificateException {
                checked.incrementAndGet();
                if (!chain[0].getSubjectX500Principal().getName().equals("CN=compat-client")) {
                    throw new java.security.cert.CertificateException("not compat-client");
                }
            }

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType)
                    throws java.security.cert.CertificateException {
                throw new java.security.cert.CertificateException("server side only");
            }

            @Override
            public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
            }
        };
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(kmf.getKeyManagers(), new javax.net.ssl.TrustManager[] {onlyCompatClient}, null);
        SSLContext trustsServer2 = context(null, server);
        SSLContext client2 = pushy(keyPairStore, server);
        SSLContext stranger2 = pushy(strangerStore, server);
        AtomicInteger calls = new AtomicInteger();
        HttpsServer s = server(ctx, p -> p.setNeedClientAuth(true), calls);
        try {
            if (!Compat.isTachy() && Compat.javaFeature() < 25) {
                return; // JDK 17's legacy setter quirk (see needClientAuthThroughTheLegacySetter)
            }
            assertNative(s, false);
            assertRefused(get(s, trustsServer2), "custom trust manager, no certificate");
            assertRefused(get(s, stranger2), "custom trust manager refuses the stranger");
            assertPeer(get(s, client2), "CN=compat-client", "custom trust manager accepts compat-client");
            assertTrue(checked.get() >= 2, "the trust manager decided");
        } finally {
            s.stop(0);
        }
    }
}
