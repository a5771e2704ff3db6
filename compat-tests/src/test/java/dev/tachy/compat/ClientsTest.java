package dev.tachy.compat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Scenario 11: the JDK's own clients against the provider. */
class ClientsTest {

    static TestServer methodEcho() throws Exception {
        return TestServer.start(ex -> {
            byte[] in = ex.getRequestBody().readAllBytes();
            String q = ex.getRequestURI().getQuery();
            byte[] out = (ex.getRequestMethod() + " " + in.length).getBytes(StandardCharsets.US_ASCII);
            ex.getResponseHeaders().set("X-method", ex.getRequestMethod());
            if ("chunked".equals(q)) {
                ex.sendResponseHeaders(200, 0);
            } else if ("head-length".equals(q)) {
                ex.getResponseHeaders().set("Content-length", String.valueOf(out.length));
                ex.sendResponseHeaders(200, ex.getRequestMethod().equals("HEAD") ? -1 : out.length);
            } else {
                ex.sendResponseHeaders(200, out.length);
            }
            try (OutputStream os = ex.getResponseBody()) {
                if (!ex.getRequestMethod().equals("HEAD")) {
                    os.write(out);
                }
            }
        });
    }

    @Test
    void httpUrlConnectionMethodsAndBodies() throws Exception {
        try (TestServer s = methodEcho()) {
            for (String m : new String[] {"GET", "POST", "PUT", "DELETE", "OPTIONS"}) {
                HttpURLConnection u = Clients.open(s.uri("/"));
                u.setRequestMethod(m);
                if (m.equals("POST") || m.equals("PUT")) {
                    u.setDoOutput(true);
                    u.setFixedLengthStreamingMode(3);
                    try (OutputStream os = u.getOutputStream()) {
                        os.write("abc".getBytes(StandardCharsets.US_ASCII));
                    }
                }
                assertEquals(200, u.getResponseCode(), m);
                String expected = m + " " + (m.equals("POST") || m.equals("PUT") ? 3 : 0);
                assertEquals(expected, new String(Clients.body(u), StandardCharsets.US_ASCII));
                assertEquals(m, u.getHeaderField("X-method"));
            }
            HttpURLConnection chunked = Clients.open(s.uri("/?chunked"));
            assertEquals("chunked", chunked.getHeaderField("Transfer-encoding"));
            assertEquals("GET 0", new String(Clients.body(chunked), StandardCharsets.US_ASCII));
        }
    }

    @Test
    void headWithBothClients() throws Exception {
        try (TestServer s = methodEcho()) {
            HttpURLConnection u = Clients.open(s.uri("/?head-length"));
            u.setRequestMethod("HEAD");
            assertEquals(200, u.getResponseCode());
            assertEquals("HEAD", u.getHeaderField("X-method"));
            assertEquals(6, u.getContentLengthLong());
            HttpResponse<String> r = Clients.httpClient().send(
                    Clients.request(s.uri("/?head-length")).method("HEAD", HttpRequest.BodyPublishers.noBody()).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode());
            assertEquals("", r.body());
            assertEquals("6", r.headers().firstValue("content-length").orElse(null));
            // HEAD then GET on the same client connection
            assertEquals("GET 0", Clients.get(Clients.httpClient(), s.uri("/")).body());
        }
    }

    @Test
    void httpUrlConnectionErrorStreams() throws Exception {
        try (TestServer s = TestServer.bound()) {
            s.context("/exists", ex -> TestServer.respond(ex, 418, "teapot"));
            s.started();
            HttpURLConnection u = Clients.open(s.uri("/exists"));
            assertEquals(418, u.getResponseCode());
            assertEquals("teapot", new String(Clients.body(u), StandardCharsets.US_ASCII));
            HttpURLConnection missing = Clients.open(s.uri("/missing"));
            assertEquals(404, missing.getResponseCode());
            assertEquals("Not Found", missing.getResponseMessage());
            assertEquals("<h1>404 Not Found</h1>No context found for request",
                    new String(Clients.body(missing), StandardCharsets.US_ASCII));
        }
    }

    @Test
    void httpUrlConnectionKeepAlive() throws Exception {
        Set<Integer> ports = ConcurrentHashMap.newKeySet();
        try (TestServer s = TestServer.start(ex -> {
            ports.add(ex.getRemoteAddress().getPort());
            TestServer.respond(ex, 200, "ka");
        })) {
            for (int i = 0; i < 5; i++) {
                HttpURLConnection u = Clients.open(s.uri("/"));
                assertEquals("ka", new String(Clients.body(u), StandardCharsets.US_ASCII));
            }
            assertEquals(1, ports.size(), "HttpURLConnection reused one kept-alive connection");
        }
    }

    @Test
    void httpClientConcurrentAsync() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try (TestServer s = TestServer.start(TestServer.ECHO, pool)) {
            HttpClient c = Clients.httpClient();
            List<CompletableFuture<HttpResponse<byte[]>>> fs = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                byte[] body = ("request-" + i).repeat(i + 1).getBytes(StandardCharsets.US_ASCII);
                fs.add(c.sendAsync(Clients.request(s.uri("/")).POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
                        HttpResponse.BodyHandlers.ofByteArray()));
            }
            for (int i = 0; i < fs.size(); i++) {
                byte[] expected = ("request-" + i).repeat(i + 1).getBytes(StandardCharsets.US_ASCII);
                assertArrayEquals(expected, fs.get(i).get(30, TimeUnit.SECONDS).body());
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void httpClientSeesHttp11() throws Exception {
        try (TestServer s = TestServer.start(TestServer.OK)) {
            HttpResponse<String> r = Clients.get(Clients.httpClient(), s.uri("/"));
            assertEquals(HttpClient.Version.HTTP_1_1, r.version());
            assertNull(r.headers().firstValue("transfer-encoding").orElse(null));
            assertTrue(r.headers().firstValue("date").isPresent());
        }
    }
}
