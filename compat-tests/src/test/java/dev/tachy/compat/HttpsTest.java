package dev.tachy.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsExchange;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import java.io.File;
import java.io.FileInputStream;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** HttpsServer, HttpsConfigurator, HttpsParameters, HttpsExchange with any SSLContext. */
class HttpsTest {

    @TempDir
    static Path tmp;

    static SSLContext serverContext;
    static SSLContext clientContext;
    static HttpsServer server;
    static HttpsConfigurator configurator;
    static final BlockingQueue<String> configured = new ArrayBlockingQueue<>(64);
    static final char[] PASS = "changeit".toCharArray();

    @BeforeAll
    static void setUp() throws Exception {
        File ks = tmp.resolve("server.p12").toFile();
        Process p = new ProcessBuilder(
                System.getProperty("java.home") + File.separator + "bin" + File.separator + "keytool",
                "-genkeypair", "-alias", "compat", "-keyalg", "EC", "-groupname", "secp256r1",
                "-dname", "CN=localhost", "-ext", "san=ip:127.0.0.1,dns:localhost", "-validity", "3",
                "-storetype", "PKCS12", "-keystore", ks.getPath(), "-storepass", "changeit", "-keypass", "changeit")
                .redirectErrorStream(true)
                .redirectOutput(tmp.resolve("keytool.log").toFile())
                .start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "keytool finished");
        assertEquals(0, p.exitValue(), () -> {
            try {
                return Files.readString(tmp.resolve("keytool.log"));
            } catch (Exception e) {
                return e.toString();
            }
        });
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = new FileInputStream(ks)) {
            store.load(in, PASS);
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(store, PASS);
        serverContext = SSLContext.getInstance("TLS");
        serverContext.init(kmf.getKeyManagers(), null, null);
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(store);
        clientContext = SSLContext.getInstance("TLS");
        clientContext.init(null, tmf.getTrustManagers(), null);

        server = HttpsServer.create(TestServer.loopback0(), 0);
        configurator = new HttpsConfigurator(serverContext) {
            @Override
            public void configure(HttpsParameters params) {
                configured.add(String.valueOf(params.getClientAddress() != null) + " " + (params.getHttpsConfigurator() == this));
                params.setSSLParameters(getSSLContext().getDefaultSSLParameters());
            }
        };
        server.setHttpsConfigurator(configurator);
        server.createContext("/", ex -> {
            String info;
            if (ex instanceof HttpsExchange) {
                HttpsExchange hx = (HttpsExchange) ex;
                info = "https " + hx.getSSLSession().getProtocol().startsWith("TLS") + " " + ex.getProtocol();
            } else {
                info = "not https";
            }
            byte[] in = ex.getRequestBody().readAllBytes();
            TestServer.respond(ex, 200, info + " " + in.length);
        });
        server.start();
    }

    @AfterAll
    static void tearDown() {
        if (server != null) {
            server.stop(0);
        }
    }

    static URI uri(String path) {
        return URI.create("https://127.0.0.1:" + server.getAddress().getPort() + path);
    }

    @Test
    void unboundHttpsServer() throws Exception {
        HttpsServer s = HttpsServer.create();
        try {
            assertEquals(null, s.getAddress());
            assertEquals(null, s.getHttpsConfigurator());
        } finally {
            s.stop(0);
        }
    }

    @Test
    void configuratorIsKept() {
        assertSame(configurator, server.getHttpsConfigurator());
        assertSame(serverContext, configurator.getSSLContext());
    }

    @Test
    void httpClientOverTls() throws Exception {
        HttpClient c = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .sslContext(clientContext)
                .connectTimeout(Clients.TIMEOUT)
                .build();
        HttpResponse<String> r = Clients.get(c, uri("/"));
        assertEquals("https true HTTP/1.1 0", r.body());
        byte[] big = new byte[3 * 1024 * 1024];
        HttpResponse<String> post = c.send(Clients.request(uri("/")).POST(HttpRequest.BodyPublishers.ofByteArray(big)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals("https true HTTP/1.1 " + big.length, post.body());
        String conf = configured.poll(10, TimeUnit.SECONDS);
        assertNotNull(conf, "HttpsConfigurator.configure was called");
        assertEquals("true true", conf);
    }

    @Test
    void httpsUrlConnection() throws Exception {
        HttpsURLConnection u = (HttpsURLConnection) uri("/x").toURL().openConnection();
        u.setSSLSocketFactory(clientContext.getSocketFactory());
        u.setConnectTimeout(10_000);
        u.setReadTimeout(10_000);
        assertEquals(200, u.getResponseCode());
        try (InputStream in = u.getInputStream()) {
            assertEquals("https true HTTP/1.1 0", new String(in.readAllBytes()));
        }
        assertEquals(List.of("21"), u.getHeaderFields().get("Content-length"));
    }
}
