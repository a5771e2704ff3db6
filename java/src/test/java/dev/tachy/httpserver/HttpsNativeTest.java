package dev.tachy.httpserver;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsExchange;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * HttpsServer on tachy's OpenSSL path: key material from the JDK's SSLContext (KeyStore made
 * by keytool at test time) and from TachyTls, HttpsConfigurator mapping, getSSLSession, and
 * the JDK fallback for what OpenSSL cannot do (client authentication, custom key managers).
 */
class HttpsNativeTest {
    static final char[] PASS = TestSupport.PASS;

    @TempDir
    static Path tmp;

    static KeyStore ecStore;
    static KeyStore rsaStore;

    @BeforeAll
    static void keys() throws Exception {
        ecStore = TestSupport.keyStore(tmp, "ec", "EC", "-groupname", "secp256r1");
        rsaStore = TestSupport.keyStore(tmp, "rsa", "RSA", "-keysize", "2048");
    }

    static HttpClient client(KeyStore trusted) throws Exception {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .sslContext(TestSupport.trusting(trusted))
                .connectTimeout(Duration.ofSeconds(20)).build();
    }

    static URI uri(HttpsServer s, String path) {
        return URI.create("https://127.0.0.1:" + s.getAddress().getPort() + path);
    }

    static HttpResponse<String> get(HttpClient c, URI u) throws Exception {
        return c.send(HttpRequest.newBuilder(u).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** Echo handler: "<https?> <peer port> <body length>", and the session it saw. */
    static HttpHandler echo(AtomicReference<SSLSession> session) {
        return ex -> {
            byte[] in = ex.getRequestBody().readAllBytes();
            String kind = "plain";
            if (ex instanceof HttpsExchange) {
                kind = "https";
                session.set(((HttpsExchange) ex).getSSLSession());
            }
            TestSupport.respond(ex, 200, kind + " " + ex.getRemoteAddress().getPort() + " " + in.length);
        };
    }

    static HttpsServer server(HttpsConfigurator cfg, HttpHandler h) throws IOException {
        HttpsServer s = HttpsServer.create(new InetSocketAddress(TestSupport.LOOPBACK, 0), 0);
        s.setHttpsConfigurator(cfg);
        s.createContext("/", h);
        s.start();
        return s;
    }

    @Test
    void jdkKeyStoreContextIsServedNatively() throws Exception {
        for (String kmf : new String[] {"PKIX", "SunX509"}) {
            SSLContext ctx = TestSupport.serverContext(ecStore, kmf);
            assertTrue(TachyTls.keyMaterialAvailable(ctx), kmf);
            AtomicReference<SSLSession> seen = new AtomicReference<>();
            HttpsServer s = server(new HttpsConfigurator(ctx), echo(seen));
            try {
                assertTrue(((TachyHttpsServer) s).isNative(), () -> ((TachyHttpsServer) s).fallbackReason());
                assertNull(((TachyHttpsServer) s).fallbackReason());
                HttpClient c = client(ecStore);
                HttpResponse<String> r1 = get(c, uri(s, "/a"));
                assertEquals(200, r1.statusCode());
                assertTrue(r1.body().startsWith("https "), r1.body());
                // keep-alive: the second request comes from the same client port
                HttpResponse<String> r2 = get(c, uri(s, "/b"));
                assertEquals(r1.body(), r2.body());
                assertEquals("TLSv1.3", r2.sslSession().orElseThrow().getProtocol());
                // a POST body (multi-MiB, several TLS records)
                byte[] big = new byte[3 * 1024 * 1024 + 17];
                HttpResponse<String> p = c.send(HttpRequest.newBuilder(uri(s, "/post"))
                        .POST(HttpRequest.BodyPublishers.ofByteArray(big)).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertTrue(p.body().endsWith(" " + big.length), p.body());

                SSLSession ss = seen.get();
                assertEquals("TLSv1.3", ss.getProtocol());
                assertEquals(r2.sslSession().orElseThrow().getCipherSuite(), ss.getCipherSuite());
                assertTrue(ss.getCipherSuite().startsWith("TLS_"), ss.getCipherSuite());
                Certificate[] local = ss.getLocalCertificates();
                assertArrayEquals(ecStore.getCertificateChain("ec"), local);
                assertEquals(((X509Certificate) local[0]).getSubjectX500Principal(), ss.getLocalPrincipal());
                assertThrows(SSLPeerUnverifiedException.class, ss::getPeerCertificates);
                assertThrows(SSLPeerUnverifiedException.class, ss::getPeerPrincipal);
                assertTrue(ss.getPeerPort() > 0);
                assertNotNull(ss.getPeerHost());
                assertTrue(ss.getPacketBufferSize() > 16384, "" + ss.getPacketBufferSize());
                assertTrue(ss.getApplicationBufferSize() >= 16384, "" + ss.getApplicationBufferSize());
                assertEquals(32, ss.getId().length);
                assertTrue(ss.isValid());
                ss.putValue("k", "v");
                assertEquals("v", ss.getValue("k"));
                assertArrayEquals(new String[] {"k"}, ss.getValueNames());
            } finally {
                s.stop(0);
            }
        }
    }

    @Test
    void tachyTlsKeyStoreAndPem() throws Exception {
        SSLContext fromStore = TachyTls.sslContext(rsaStore, PASS);
        PrivateKey key = (PrivateKey) rsaStore.getKey("rsa", PASS);
        Certificate[] chain = rsaStore.getCertificateChain("rsa");
        Base64.Encoder b64 = Base64.getMimeEncoder(64, new byte[] {'\n'});
        String certPem = "-----BEGIN CERTIFICATE-----\n" + b64.encodeToString(chain[0].getEncoded())
                + "\n-----END CERTIFICATE-----\n";
        String keyPem = "-----BEGIN PRIVATE KEY-----\n" + b64.encodeToString(key.getEncoded())
                + "\n-----END PRIVATE KEY-----\n";
        Path cf = tmp.resolve("cert.pem");
        Path kf = tmp.resolve("key.pem");
        Files.writeString(cf, certPem);
        Files.writeString(kf, keyPem);
        for (SSLContext ctx : new SSLContext[] {fromStore, TachyTls.fromPem(certPem, keyPem), TachyTls.fromPem(cf, kf)}) {
            AtomicReference<SSLSession> seen = new AtomicReference<>();
            HttpsServer s = server(new HttpsConfigurator(ctx), echo(seen));
            try {
                assertTrue(((TachyHttpsServer) s).isNative(), () -> ((TachyHttpsServer) s).fallbackReason());
                HttpResponse<String> r = get(client(rsaStore), uri(s, "/"));
                assertTrue(r.body().startsWith("https "), r.body());
                assertEquals(((X509Certificate) chain[0]).getSubjectX500Principal(), seen.get().getLocalPrincipal());
            } finally {
                s.stop(0);
            }
        }
        assertThrows(java.security.GeneralSecurityException.class,
                () -> TachyTls.fromPem(certPem, "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n"));
    }

    /** setSSLParameters with TLSv1.2 and one suite: what the client negotiates. */
    @Test
    void configuratorProtocolsAndSuitesAreMapped() throws Exception {
        SSLContext ctx = TestSupport.serverContext(ecStore, "PKIX");
        AtomicReference<InetSocketAddress> client = new AtomicReference<>();
        HttpsConfigurator cfg = new HttpsConfigurator(ctx) {
            @Override
            public void configure(HttpsParameters params) {
                client.set(params.getClientAddress());
                SSLParameters p = getSSLContext().getDefaultSSLParameters();
                p.setProtocols(new String[] {"TLSv1.2"});
                p.setCipherSuites(new String[] {"TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"});
                params.setSSLParameters(p);
            }
        };
        AtomicReference<SSLSession> seen = new AtomicReference<>();
        HttpsServer s = server(cfg, echo(seen));
        try {
            assertTrue(((TachyHttpsServer) s).isNative(), () -> ((TachyHttpsServer) s).fallbackReason());
            assertNotNull(client.get(), "configure saw a client address");
            HttpResponse<String> r = get(client(ecStore), uri(s, "/"));
            assertEquals(200, r.statusCode());
            assertEquals("TLSv1.2", seen.get().getProtocol());
            assertEquals("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", seen.get().getCipherSuite());
            assertEquals("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", r.sslSession().orElseThrow().getCipherSuite());
        } finally {
            s.stop(0);
        }
    }

    /** Legacy setters (no setSSLParameters): TLSv1.3 only. */
    @Test
    void legacyProtocolSetter() throws Exception {
        HttpsConfigurator cfg = new HttpsConfigurator(TestSupport.serverContext(ecStore, "PKIX")) {
            @Override
            @SuppressWarnings("deprecation")
            public void configure(HttpsParameters params) {
                params.setProtocols(new String[] {"TLSv1.3"});
            }
        };
        AtomicReference<SSLSession> seen = new AtomicReference<>();
        HttpsServer s = server(cfg, echo(seen));
        try {
            assertTrue(((TachyHttpsServer) s).isNative(), () -> ((TachyHttpsServer) s).fallbackReason());
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(ecStore);
            SSLContext c12 = SSLContext.getInstance("TLSv1.2");
            c12.init(null, tmf.getTrustManagers(), null);
            HttpClient only12 = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).sslContext(c12)
                    .sslParameters(new SSLParameters(null, new String[] {"TLSv1.2"})).build();
            assertThrows(IOException.class, () -> get(only12, uri(s, "/")));
            get(client(ecStore), uri(s, "/"));
            assertEquals("TLSv1.3", seen.get().getProtocol());
        } finally {
            s.stop(0);
        }
    }

    /** needClientAuth with the JDK's own trust manager is done natively (OpenSSL verifies
     * against its accepted issuers); a client without a certificate is refused. */
    @Test
    void needClientAuthIsNative() throws Exception {
        HttpsConfigurator cfg = new HttpsConfigurator(TestSupport.serverContext(ecStore, "PKIX")) {
            @Override
            public void configure(HttpsParameters params) {
                SSLParameters p = getSSLContext().getDefaultSSLParameters();
                p.setNeedClientAuth(true);
                params.setSSLParameters(p);
            }
        };
        HttpsServer s = server(cfg, ex -> TestSupport.respond(ex, 200, "x"));
        try {
            assertTrue(((TachyHttpsServer) s).isNative(), ((TachyHttpsServer) s).fallbackReason());
            // a client without a certificate is refused, as by the JDK
            assertThrows(IOException.class, () -> get(client(ecStore), uri(s, "/")));
        } finally {
            s.stop(0);
        }
    }

    /** A key manager tachy cannot see into: the JDK serves, with filters and handler. */
    @Test
    void customKeyManagerFallsBackWithContextsCarriedOver() throws Exception {
        KeyManagerFactory kmf = KeyManagerFactory.getInstance("PKIX");
        kmf.init(ecStore, PASS);
        X509ExtendedKeyManager real = (X509ExtendedKeyManager) kmf.getKeyManagers()[0];
        X509ExtendedKeyManager custom = new X509ExtendedKeyManager() {
            public String[] getClientAliases(String t, Principal[] i) { return real.getClientAliases(t, i); }
            public String chooseClientAlias(String[] t, Principal[] i, Socket s) { return null; }
            public String[] getServerAliases(String t, Principal[] i) { return real.getServerAliases(t, i); }
            public String chooseServerAlias(String t, Principal[] i, Socket s) { return real.chooseServerAlias(t, i, s); }
            public X509Certificate[] getCertificateChain(String a) { return real.getCertificateChain(a); }
            public PrivateKey getPrivateKey(String a) { return real.getPrivateKey(a); }
            @Override
            public String chooseEngineServerAlias(String t, Principal[] i, SSLEngine e) {
                return real.chooseEngineServerAlias(t, i, e);
            }
        };
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(new KeyManager[] {custom}, null, null);
        assertFalse(TachyTls.keyMaterialAvailable(ctx));
        HttpsServer s = HttpsServer.create(new InetSocketAddress(TestSupport.LOOPBACK, 0), 0);
        try {
            s.setHttpsConfigurator(new HttpsConfigurator(ctx));
            var c = s.createContext("/", ex -> TestSupport.respond(ex, 200,
                    (ex instanceof HttpsExchange) + " " + ex.getResponseHeaders().getFirst("X-Filter")));
            c.getFilters().add(new com.sun.net.httpserver.Filter() {
                @Override
                public void doFilter(HttpExchange ex, Chain chain) throws IOException {
                    ex.getResponseHeaders().set("X-Filter", "ran");
                    chain.doFilter(ex);
                }

                @Override
                public String description() {
                    return "test";
                }
            });
            int port = s.getAddress().getPort();
            s.start();
            assertFalse(((TachyHttpsServer) s).isNative());
            assertEquals(port, s.getAddress().getPort());
            HttpResponse<String> r = get(client(ecStore), uri(s, "/"));
            assertEquals("true ran", r.body());
            assertThrows(IllegalStateException.class, () -> s.setHttpsConfigurator(new HttpsConfigurator(ctx)));
        } finally {
            s.stop(0);
        }
    }

    /** Plain HTTP to the HTTPS port gets no HTTP response, just the end of the connection. */
    @Test
    void plaintextClientToHttpsPort() throws Exception {
        HttpsServer s = server(new HttpsConfigurator(TestSupport.serverContext(ecStore, "PKIX")),
                ex -> TestSupport.respond(ex, 200, "x"));
        try {
            assertTrue(((TachyHttpsServer) s).isNative());
            try (Socket sock = new Socket(TestSupport.LOOPBACK, s.getAddress().getPort())) {
                sock.setSoTimeout(10_000);
                sock.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                ByteArrayOutputStream got = new ByteArrayOutputStream();
                try {
                    sock.getInputStream().transferTo(got);
                } catch (IOException reset) {
                    // a reset is a close too
                }
                assertFalse(got.toString(StandardCharsets.ISO_8859_1).contains("HTTP/1."), got.toString(StandardCharsets.ISO_8859_1));
            }
            // and the server still serves TLS clients
            assertEquals(200, get(client(ecStore), uri(s, "/")).statusCode());
        } finally {
            s.stop(0);
        }
    }

    @Test
    void withoutConfiguratorTheJdkServes() throws Exception {
        HttpsServer s = HttpsServer.create(new InetSocketAddress(TestSupport.LOOPBACK, 0), 0);
        try {
            s.createContext("/", ex -> TestSupport.respond(ex, 200, "x"));
            s.start();
            assertFalse(((TachyHttpsServer) s).isNative());
            assertEquals("no HttpsConfigurator", ((TachyHttpsServer) s).fallbackReason());
        } finally {
            s.stop(0);
        }
    }

    @Test
    void cipherNames() {
        assertEquals("ECDHE-ECDSA-AES256-GCM-SHA384", TachyTls.opensslCipher("TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"));
        assertEquals("ECDHE-RSA-CHACHA20-POLY1305", TachyTls.opensslCipher("TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256"));
        assertEquals("DHE-RSA-AES128-SHA256", TachyTls.opensslCipher("TLS_DHE_RSA_WITH_AES_128_CBC_SHA256"));
        assertEquals("AES256-SHA", TachyTls.opensslCipher("TLS_RSA_WITH_AES_256_CBC_SHA"));
        assertEquals("TLS_AES_128_GCM_SHA256", TachyTls.opensslCipher("TLS_AES_128_GCM_SHA256"));
        assertNull(TachyTls.opensslCipher("TLS_EMPTY_RENEGOTIATION_INFO_SCSV"));
        assertNull(TachyTls.opensslCipher("TLS_ECDH_ECDSA_WITH_AES_128_GCM_SHA256"));
    }
}
