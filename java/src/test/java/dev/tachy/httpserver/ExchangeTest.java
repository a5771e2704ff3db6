package dev.tachy.httpserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.BasicAuthenticator;
import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** HttpExchange behaviour that the provider itself implements in Java. */
class ExchangeTest {
    private static final HttpClient CLIENT = HttpClient.newHttpClient();
    private final List<HttpServer> servers = new ArrayList<>();
    private final Map<String, Object> seen = new ConcurrentHashMap<>();

    @AfterEach
    void stop() {
        servers.forEach(s -> s.stop(0));
    }

    private HttpServer start(String path, com.sun.net.httpserver.HttpHandler h) throws IOException {
        HttpServer s = TestSupport.server(path, h);
        s.start();
        servers.add(s);
        return s;
    }

    /** A value the handler records after its response has left (the client may be faster). */
    private Object awaitSeen(String key) throws InterruptedException {
        for (int i = 0; i < 100 && !seen.containsKey(key); i++) {
            Thread.sleep(50);
        }
        return seen.get(key);
    }

    private static HttpResponse<String> send(HttpRequest.Builder b) throws Exception {
        return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpRequest.Builder req(HttpServer s, String path) {
        return HttpRequest.newBuilder(URI.create(TestSupport.url(s, path)));
    }

    @Test
    void requestLineHeadersAddressesAndBody() throws Exception {
        HttpServer s = start("/", ex -> {
            seen.put("method", ex.getRequestMethod());
            seen.put("uri", ex.getRequestURI());
            seen.put("protocol", ex.getProtocol());
            seen.put("headersClass", ex.getRequestHeaders().getClass());
            seen.put("x", ex.getRequestHeaders().get("x-multi"));
            try {
                ex.getRequestHeaders().add("X-New", "v");
                seen.put("modifiable", "yes");
            } catch (UnsupportedOperationException e) {
                seen.put("modifiable", "no"); // as the JDK: request headers are read-only
            }
            seen.put("remote", ex.getRemoteAddress());
            seen.put("local", ex.getLocalAddress());
            seen.put("context", ex.getHttpContext());
            InputStream in = ex.getRequestBody();
            int first = in.read();
            byte[] rest = in.readAllBytes();
            seen.put("body", (char) first + new String(rest, StandardCharsets.UTF_8));
            seen.put("eof", in.read());
            TestSupport.respond(ex, 200, "ok");
        });
        HttpResponse<String> r = send(req(s, "/p%20q/r?a=1&b=%2F")
                .header("X-Multi", "one").header("x-multi", "two")
                .POST(HttpRequest.BodyPublishers.ofString("hello body")));
        assertEquals(200, r.statusCode());
        assertEquals("POST", seen.get("method"));
        URI u = (URI) seen.get("uri");
        assertEquals("/p%20q/r?a=1&b=%2F", u.toString());
        assertEquals("/p q/r", u.getPath());
        assertEquals("HTTP/1.1", seen.get("protocol"));
        assertTrue(Headers.class.isAssignableFrom((Class<?>) seen.get("headersClass")));
        assertEquals(List.of("one", "two"), seen.get("x"));
        assertEquals("no", seen.get("modifiable"));
        assertEquals("hello body", seen.get("body"));
        assertEquals(-1, seen.get("eof"));
        assertEquals("127.0.0.1", ((java.net.InetSocketAddress) seen.get("remote")).getAddress().getHostAddress());
        assertEquals(s.getAddress().getPort(), ((java.net.InetSocketAddress) seen.get("local")).getPort());
        assertTrue(seen.get("context") instanceof HttpContext);
    }

    @Test
    void responseFramingAndHeadersAsTheJdk() throws Exception {
        HttpServer s = start("/", ex -> {
            OutputStream early = ex.getResponseBody();
            try {
                early.write(1);
                seen.put("early", "no exception");
            } catch (IOException e) {
                seen.put("early", e.getMessage());
            }
            String q = ex.getRequestURI().getQuery();
            ex.getResponseHeaders().add("X-Test", "v1");
            if ("chunked".equals(q)) {
                ex.sendResponseHeaders(200, 0);
                seen.put("te", String.valueOf(ex.getResponseHeaders().getFirst("Transfer-encoding")));
                for (int i = 0; i < 5; i++) {
                    early.write(("part" + i).getBytes(StandardCharsets.US_ASCII));
                    early.flush();
                }
                early.close();
            } else if ("nobody".equals(q)) {
                ex.sendResponseHeaders(204, -1);
                try {
                    ex.getResponseBody().write(1);
                    seen.put("after204", "no exception");
                } catch (IOException e) {
                    seen.put("after204", "IOException");
                }
            } else {
                ex.sendResponseHeaders(201, 3);
                seen.put("date", String.valueOf(ex.getResponseHeaders().getFirst("Date")));
                seen.put("cl", String.valueOf(ex.getResponseHeaders().getFirst("Content-length")));
                seen.put("code", ex.getResponseCode());
                try {
                    ex.sendResponseHeaders(200, 3);
                } catch (IOException e) {
                    seen.put("twice", e.getMessage());
                }
                early.write("abcd".getBytes(StandardCharsets.US_ASCII), 0, 3);
                try {
                    early.write('x');
                } catch (IOException e) {
                    seen.put("toomany", e.getMessage());
                }
                ex.close();
            }
        });
        HttpResponse<String> r = send(req(s, "/fixed"));
        assertEquals(201, r.statusCode());
        assertEquals("abc", r.body());
        assertEquals("v1", r.headers().firstValue("x-test").orElse(null));
        assertEquals("response headers not sent yet", seen.get("early"));
        assertEquals("3", seen.get("cl"));
        assertTrue(((String) seen.get("date")).endsWith("GMT"), (String) seen.get("date"));
        assertEquals(201, seen.get("code"));
        assertEquals("headers already sent", seen.get("twice"));
        assertNotNull(awaitSeen("toomany"));

        r = send(req(s, "/?chunked"));
        assertEquals("part0part1part2part3part4", r.body());
        assertEquals("chunked", seen.get("te"));

        r = send(req(s, "/?nobody"));
        assertEquals(204, r.statusCode());
        assertEquals("IOException", awaitSeen("after204")); // recorded after the response left

        r = send(req(s, "/").method("HEAD", HttpRequest.BodyPublishers.noBody()));
        assertEquals(201, r.statusCode());
        assertEquals("", r.body());
    }

    @Test
    void filtersSetStreamsAttributesAndOrder() throws Exception {
        List<String> order = new CopyOnWriteArrayList<>();
        HttpServer s = start("/", ex -> {
            order.add("handler");
            ex.setAttribute("k", "v");
            seen.put("attr", ex.getAttribute("k"));
            seen.put("ctxattr", String.valueOf(ex.getHttpContext().getAttributes().get("k")));
            ex.sendResponseHeaders(200, 0);
            try (OutputStream out = ex.getResponseBody()) {
                out.write("lower".getBytes(StandardCharsets.US_ASCII));
            }
        });
        HttpContext root = s.createContext("/up", ex -> {
            order.add("handler");
            ex.sendResponseHeaders(200, 0);
            try (OutputStream out = ex.getResponseBody()) {
                out.write("lower".getBytes(StandardCharsets.US_ASCII));
            }
        });
        root.getFilters().add(new Filter() {
            @Override
            public void doFilter(HttpExchange ex, Chain chain) throws IOException {
                order.add("f1");
                ex.setStreams(null, new FilterOutputStream(ex.getResponseBody()) {
                    @Override
                    public void write(int b) throws IOException {
                        out.write(Character.toUpperCase((char) b));
                    }

                    @Override
                    public void write(byte[] b, int off, int len) throws IOException {
                        for (int i = 0; i < len; i++) {
                            write(b[off + i]);
                        }
                    }
                });
                chain.doFilter(ex);
                order.add("f1-after");
            }

            @Override
            public String description() {
                return "upper";
            }
        });
        root.getFilters().add(Filter.beforeHandler("f2", ex -> order.add("f2")));
        HttpResponse<String> r = send(req(s, "/up"));
        assertEquals("LOWER", r.body());
        for (int i = 0; i < 100 && order.size() < 4; i++) {
            Thread.sleep(50); // f1-after runs once the response has left
        }
        assertEquals(List.of("f1", "f2", "handler", "f1-after"), order);
        // the list is live
        root.getFilters().clear();
        order.clear();
        assertEquals("lower", send(req(s, "/up")).body());
        assertEquals(List.of("handler"), order);
        // exchange attributes are the context's, as in the JDK
        send(req(s, "/"));
        assertEquals("v", seen.get("attr"));
        assertEquals("v", seen.get("ctxattr"));
    }

    @Test
    void basicAuthenticatorRetryFailureSuccess() throws Exception {
        HttpServer s = start("/", ex -> {
            seen.put("principal", ex.getPrincipal() == null ? "null" : ex.getPrincipal().getUsername()
                    + "@" + ex.getPrincipal().getRealm());
            TestSupport.respond(ex, 200, "secret");
        });
        HttpContext ctx = s.createContext("/auth", ex -> {
            seen.put("principal", ex.getPrincipal().getName());
            TestSupport.respond(ex, 200, "secret");
        });
        assertNull(ctx.setAuthenticator(new BasicAuthenticator("realm") {
            @Override
            public boolean checkCredentials(String user, String pwd) {
                return user.equals("alice") && pwd.equals("pw");
            }
        }));
        HttpResponse<String> r = send(req(s, "/auth"));
        assertEquals(401, r.statusCode());
        // Java 17+ BasicAuthenticator(realm) advertises charset="UTF-8" after the realm
        assertTrue(r.headers().firstValue("WWW-Authenticate").orElse("").startsWith("Basic realm=\"realm\""),
                r.headers().toString());
        String bad = Base64.getEncoder().encodeToString("alice:nope".getBytes(StandardCharsets.UTF_8));
        r = send(req(s, "/auth").header("Authorization", "Basic " + bad));
        assertEquals(401, r.statusCode());
        String good = Base64.getEncoder().encodeToString("alice:pw".getBytes(StandardCharsets.UTF_8));
        r = send(req(s, "/auth").header("Authorization", "Basic " + good)
                .POST(HttpRequest.BodyPublishers.ofString("body")));
        assertEquals(200, r.statusCode());
        assertEquals("secret", r.body());
        assertEquals("realm:alice", seen.get("principal"));
        // other contexts are not protected
        assertEquals(200, send(req(s, "/")).statusCode());
        assertEquals("null", seen.get("principal"));
    }

    @Test
    void closeWithoutHeadersClosesTheConnection() throws Exception {
        HttpServer s = start("/", HttpExchange::close);
        String got = TestSupport.raw(s, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", 5000);
        assertEquals("", got);
    }

    @Test
    void keepAliveAndPipelining() throws Exception {
        HttpServer s = start("/", ex -> TestSupport.respond(ex, 200, ex.getRequestURI().getPath()));
        String got = TestSupport.raw(s, "GET /1 HTTP/1.1\r\nHost: x\r\n\r\nGET /2 HTTP/1.1\r\nHost: x\r\n\r\n"
                + "GET /3 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 5000);
        assertTrue(got.indexOf("/1") < got.indexOf("/2") && got.indexOf("/2") < got.indexOf("/3"), got);
        assertFalse(got.contains("<timeout>"), got);
    }

    @Test
    void http10GetsConnectionClose() throws Exception {
        HttpServer s = start("/", ex -> {
            seen.put("conn", String.valueOf(ex.getResponseHeaders().getFirst("Connection")));
            TestSupport.respond(ex, 200, "ten");
        });
        String got = TestSupport.raw(s, "GET / HTTP/1.0\r\n\r\n", 5000);
        assertTrue(got.startsWith("HTTP/1.1 200"), got);
        assertTrue(got.endsWith("ten"), got);
        assertEquals("close", seen.get("conn"));
    }

    @Test
    void largeBodiesBothWays() throws Exception {
        HttpServer s = start("/", ex -> {
            byte[] in = ex.getRequestBody().readAllBytes();
            ex.sendResponseHeaders(200, in.length);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(in);
            }
        });
        byte[] big = new byte[3 * 1024 * 1024 + 7];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) (i * 31 + (i >> 9));
        }
        HttpResponse<byte[]> r = CLIENT.send(req(s, "/").POST(HttpRequest.BodyPublishers.ofByteArray(big)).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(200, r.statusCode());
        assertTrue(java.util.Arrays.equals(big, r.body()));
    }
}
