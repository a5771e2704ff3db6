package dev.tachy.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Scenario 2: keep-alive, HTTP/1.0, Connection: close, pipelining, draining, handler failures. */
class ConnectionTest {

    static String get(String path) {
        return "GET " + path + " HTTP/1.1\r\nHost: a\r\n\r\n";
    }

    @Test
    void keepAliveReusesTheConnection() throws Exception {
        Set<Integer> remotePorts = ConcurrentHashMap.newKeySet();
        try (TestServer s = TestServer.start(ex -> {
            remotePorts.add(ex.getRemoteAddress().getPort());
            TestServer.respond(ex, 200, ex.getRequestURI().getPath());
        })) {
            try (RawClient c = s.raw()) {
                for (int i = 0; i < 5; i++) {
                    assertEquals("/r" + i, c.send(get("/r" + i)).read().text());
                }
            }
            assertEquals(1, remotePorts.size(), "5 requests, 1 connection");
            remotePorts.clear();
            HttpClient client = Clients.httpClient();
            for (int i = 0; i < 3; i++) {
                assertEquals("/c" + i, Clients.get(client, s.uri("/c" + i)).body());
            }
            assertEquals(1, remotePorts.size(), "HttpClient reused its connection");
        }
    }

    @Test
    void http10KeepAlive() throws Exception {
        try (TestServer s = TestServer.start(ex -> TestServer.respond(ex, 200, "ten")); RawClient c = s.raw()) {
            for (int i = 0; i < 2; i++) {
                RawClient.Response r = c.send("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").read();
                assertEquals("HTTP/1.1 200 OK", r.statusLine);
                assertEquals("keep-alive", r.header("Connection"));
                // default idleInterval is 30 s. JDK 17 also sends max=<maxIdleConnections>, later JDKs do not
                String expected = Compat.javaFeature() < 21 ? "timeout=30, max=200" : "timeout=30";
                assertEquals(expected, r.header("Keep-Alive"), r.rawHead);
                assertEquals("ten", r.text());
            }
            assertTrue(c.stillOpenAfter(300));
        }
    }

    @Test
    void http10WithoutKeepAliveIsClosed() throws Exception {
        try (TestServer s = TestServer.start(ex -> TestServer.respond(ex, 200, "x")); RawClient c = s.raw()) {
            RawClient.Response r = c.send("GET / HTTP/1.0\r\nHost: a\r\n\r\n").read();
            assertEquals("HTTP/1.1 200 OK", r.statusLine);
            assertEquals("close", r.header("Connection"));
            assertNull(r.header("Keep-Alive"));
            assertTrue(c.closedByServer());
        }
    }

    @Test
    void connectionCloseFromTheClient() throws Exception {
        try (TestServer s = TestServer.start(ex -> TestServer.respond(ex, 200, "x")); RawClient c = s.raw()) {
            RawClient.Response r = c.send("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n").read();
            assertEquals(200, r.code);
            assertEquals("x", r.text());
            // the JDK does not echo a Connection header for an HTTP/1.1 client's close
            assertNull(r.header("Connection"), r.rawHead);
            assertTrue(c.closedByServer());
        }
    }

    /**
     * "Connection: keep-alive, close". JDK: only a header whose whole value is "close" counts, so
     * the connection stays open. tachy: "close" anywhere in the token list closes (RFC 9110
     * §7.6.1). Intended difference.
     */
    @Test
    void connectionCloseInATokenList() throws Exception {
        try (TestServer s = TestServer.start(ex -> TestServer.respond(ex, 200, "x")); RawClient c = s.raw()) {
            RawClient.Response r = c.send("GET / HTTP/1.1\r\nHost: a\r\nConnection: keep-alive, close\r\n\r\n").read();
            assertEquals("x", r.text());
            if (Compat.isTachy()) {
                assertTrue(c.closedByServer());
            } else {
                assertTrue(c.stillOpenAfter(500));
            }
        }
    }

    @Test
    void connectionCloseFromTheHandler() throws Exception {
        try (TestServer s = TestServer.start(ex -> {
                    ex.getResponseHeaders().set("Connection", "close");
                    TestServer.respond(ex, 200, "bye");
                });
                RawClient c = s.raw()) {
            RawClient.Response r = c.send(get("/")).read();
            assertEquals("close", r.header("Connection"));
            assertEquals("bye", r.text());
            assertTrue(c.closedByServer());
        }
    }

    @Test
    void pipelinedHttp11() throws Exception {
        try (TestServer s = TestServer.start(ex -> {
                    byte[] in = ex.getRequestBody().readAllBytes();
                    TestServer.respond(ex, 200, ex.getRequestURI().getPath() + ":" + new String(in, StandardCharsets.US_ASCII));
                });
                RawClient c = s.raw()) {
            c.send(get("/1") + "POST /2 HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc"
                    + "POST /3 HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nxy\r\n0\r\n\r\n"
                    + get("/4"));
            assertEquals("/1:", c.read().text());
            assertEquals("/2:abc", c.read().text());
            assertEquals("/3:xy", c.read().text());
            assertEquals("/4:", c.read().text());
        }
    }

    @Test
    void manyPipelinedRequestsInOneWrite() throws Exception {
        try (TestServer s = TestServer.start(ex -> {
                    byte[] in = ex.getRequestBody().readAllBytes();
                    TestServer.respond(ex, 200, ex.getRequestURI().getPath() + "=" + in.length);
                });
                RawClient c = s.raw()) {
            StringBuilder all = new StringBuilder();
            for (int i = 0; i < 100; i++) {
                if (i % 3 == 0) {
                    all.append("POST /p").append(i).append(" HTTP/1.1\r\nHost: a\r\nContent-Length: ").append(i)
                            .append("\r\n\r\n").append("b".repeat(i));
                } else {
                    all.append(get("/p" + i));
                }
            }
            c.send(all.toString());
            for (int i = 0; i < 100; i++) {
                assertEquals("/p" + i + "=" + (i % 3 == 0 ? i : 0), c.read().text());
            }
            assertTrue(c.stillOpenAfter(200));
        }
    }

    @Test
    void pipelinedHttp10KeepAlive() throws Exception {
        try (TestServer s = TestServer.start(ex -> TestServer.respond(ex, 200, ex.getRequestURI().getPath()));
                RawClient c = s.raw()) {
            c.send("GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"
                    + "GET /b HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"
                    + "GET /c HTTP/1.0\r\n\r\n");
            RawClient.Response a = c.read();
            RawClient.Response b = c.read();
            RawClient.Response cc = c.read();
            assertEquals("/a", a.text());
            assertEquals("/b", b.text());
            assertEquals("/c", cc.text());
            assertEquals("close", cc.header("Connection"));
            assertTrue(c.closedByServer());
        }
    }

    @Test
    void unreadBodySmallerThanDrainAmountIsDrained() throws Exception {
        try (TestServer s = TestServer.start(ex -> TestServer.respond(ex, 200, "no-read")); RawClient c = s.raw()) {
            String body = "z".repeat(10_000);
            RawClient.Response r = c.send("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10000\r\n\r\n" + body).read();
            assertEquals("no-read", r.text());
            // the body was skipped: the next request on the same connection works
            assertEquals("no-read", c.send(get("/")).read().text());
            String chunked = "2710\r\n" + body + "\r\n0\r\n\r\n";
            r = c.send("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked).read();
            assertEquals("no-read", r.text());
            assertEquals("no-read", c.send(get("/")).read().text());
        }
    }

    @Test
    void unreadBodyLargerThanDrainAmountClosesTheConnection() throws Exception {
        try (TestServer s = TestServer.start(ex -> TestServer.respond(ex, 200, "no-read")); RawClient c = s.raw()) {
            // promise 1 MiB, send 128 KiB (more than the default drainAmount of 64 KiB), then wait
            c.send("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1048576\r\n\r\n");
            c.send(new byte[128 * 1024]);
            RawClient.Response r = c.read();
            assertEquals("no-read", r.text());
            assertTrue(c.closedByServer(), "connection is closed instead of draining 1 MiB");
        }
    }

    @Test
    void handlerThrowingBeforeRespondingClosesTheConnectionWithoutAResponse() throws Exception {
        try (TestServer s = TestServer.start(ex -> {
                    throw new IllegalStateException("boom");
                });
                RawClient c = s.raw()) {
            c.send(get("/"));
            assertTrue(c.closedByServer(), "no response, connection closed (no 500)");
        }
    }

    @Test
    void handlerThrowingAnErrorClosesTheConnectionAndTheServerLives() throws Exception {
        try (TestServer s = TestServer.start(ex -> {
            if (ex.getRequestURI().getPath().equals("/error")) {
                throw new AssertionError("an Error, not an Exception");
            }
            TestServer.respond(ex, 200, "alive");
        })) {
            for (int i = 0; i < 3; i++) {
                try (RawClient c = s.raw()) {
                    c.send(get("/error"));
                    assertTrue(c.closedByServer());
                }
            }
            assertEquals("alive", Clients.get(Clients.httpClient(), s.uri("/ok")).body());
        }
    }

    static int depth(int n) {
        long[] pad = {n, n + 1, n + 2, n + 3};
        return n == 0 ? 0 : 1 + depth(n - 1) + (int) (pad[0] - pad[0]);
    }

    /** Handlers get a Java-sized stack (the JDK runs them on ordinary Java threads). */
    @Test
    void handlerHasAnOrdinaryThreadStack() throws Exception {
        try (TestServer s = TestServer.start(ex -> {
            String r;
            try {
                r = String.valueOf(depth(Integer.parseInt(ex.getRequestURI().getQuery())));
            } catch (StackOverflowError e) {
                r = "StackOverflowError";
            }
            TestServer.respond(ex, 200, r);
        }); RawClient c = s.raw()) {
            for (int n : new int[] {1_000, 4_000, 8_000}) {
                assertEquals(String.valueOf(n), c.send(get("/?" + n)).read().text(), "recursion depth " + n);
            }
        }
    }

    @Test
    void handlerThrowingIOExceptionClosesTheConnection() throws Exception {
        try (TestServer s = TestServer.start(ex -> {
                    throw new IOException("boom");
                });
                RawClient c = s.raw()) {
            c.send(get("/"));
            assertTrue(c.closedByServer());
        }
        try (TestServer s = TestServer.start(ex -> {
            if (ex.getRequestURI().getPath().equals("/throw")) {
                throw new IOException("boom");
            }
            TestServer.respond(ex, 200, "alive");
        })) {
            try (RawClient c = s.raw()) {
                c.send(get("/throw"));
                assertTrue(c.closedByServer());
            }
            assertEquals("alive", Clients.get(Clients.httpClient(), s.uri("/ok")).body());
        }
    }

    @Test
    void handlerThrowingAfterTheResponseIsWrittenButNotClosedIsNotReused() throws Exception {
        try (TestServer s = TestServer.start(ex -> {
                    ex.sendResponseHeaders(200, 4);
                    OutputStream os = ex.getResponseBody();
                    os.write("full".getBytes(StandardCharsets.US_ASCII));
                    os.flush();
                    throw new RuntimeException("after the body");
                });
                RawClient c = s.raw()) {
            RawClient.Response r = c.send(get("/")).read();
            assertEquals("full", r.text());
            assertTrue(c.closedByServer(), "connection not reused after a handler exception");
        }
    }

    enum CloseOrder {
        RESPONSE_BODY_ONLY,
        EXCHANGE_ONLY,
        REQUEST_THEN_RESPONSE,
        RESPONSE_THEN_REQUEST,
        RESPONSE_THEN_EXCHANGE,
        EXCHANGE_THEN_RESPONSE,
        REQUEST_RESPONSE_EXCHANGE_TWICE
    }

    static void finish(HttpExchange ex, CloseOrder order) throws IOException {
        byte[] b = "done".getBytes(StandardCharsets.US_ASCII);
        ex.sendResponseHeaders(200, b.length);
        OutputStream os = ex.getResponseBody();
        InputStream is = ex.getRequestBody();
        os.write(b);
        switch (order) {
            case RESPONSE_BODY_ONLY:
                os.close();
                break;
            case EXCHANGE_ONLY:
                ex.close();
                break;
            case REQUEST_THEN_RESPONSE:
                is.close();
                os.close();
                break;
            case RESPONSE_THEN_REQUEST:
                os.close();
                is.close();
                break;
            case RESPONSE_THEN_EXCHANGE:
                os.close();
                ex.close();
                break;
            case EXCHANGE_THEN_RESPONSE:
                ex.close();
                os.close();
                break;
            case REQUEST_RESPONSE_EXCHANGE_TWICE:
                is.close();
                os.close();
                ex.close();
                ex.close();
                os.close();
                is.close();
                break;
            default:
                throw new AssertionError(order);
        }
    }

    @ParameterizedTest
    @EnumSource(CloseOrder.class)
    void closingStreamsAndExchangeInAnyOrderCompletesTheExchange(CloseOrder order) throws Exception {
        try (TestServer s = TestServer.start(ex -> finish(ex, order)); RawClient c = s.raw()) {
            for (int i = 0; i < 3; i++) {
                RawClient.Response r = c.send("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello").read();
                assertEquals("done", r.text(), order.name());
            }
        }
    }

    /**
     * A wrapping writer closed after the exchange flushes the closed stream. The JDK ignores that
     * for a fixed-length body and throws IOException for a chunked one (17 and 25).
     */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(longs = {4, 0})
    void flushAfterTheExchangeIsClosed(long length) throws Exception {
        BlockingQueue<String> outcome = new ArrayBlockingQueue<>(2);
        try (TestServer s = TestServer.start(ex -> {
                    ex.sendResponseHeaders(200, length);
                    OutputStream os = ex.getResponseBody();
                    os.write("done".getBytes(StandardCharsets.US_ASCII));
                    ex.close();
                    try {
                        os.flush();
                        outcome.add("flushed");
                    } catch (IOException e) {
                        outcome.add("IOException");
                    }
                });
                RawClient c = s.raw()) {
            assertEquals("done", c.send(get("/")).read().text());
            assertEquals("done", c.send(get("/")).read().text());
            assertEquals(length == 0 ? "IOException" : "flushed", outcome.poll(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void getResponseBodyBeforeSendResponseHeaders() throws Exception {
        BlockingQueue<String> early = new ArrayBlockingQueue<>(1);
        try (TestServer s = TestServer.start(ex -> {
                    OutputStream os = ex.getResponseBody();
                    try {
                        os.write('x');
                        early.add("written");
                    } catch (IOException e) {
                        early.add("IOException");
                    }
                    ex.sendResponseHeaders(200, 2);
                    os.write("ok".getBytes(StandardCharsets.US_ASCII));
                    os.close();
                });
                RawClient c = s.raw()) {
            RawClient.Response r = c.send(get("/")).read();
            assertEquals("ok", r.text());
            assertEquals("IOException", early.poll(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void sendResponseHeadersTwiceFails() throws Exception {
        BlockingQueue<String> second = new ArrayBlockingQueue<>(1);
        try (TestServer s = TestServer.start(ex -> {
                    ex.sendResponseHeaders(200, -1);
                    try {
                        ex.sendResponseHeaders(500, -1);
                        second.add("sent");
                    } catch (IOException e) {
                        second.add("IOException");
                    }
                    ex.close();
                });
                RawClient c = s.raw()) {
            assertEquals(200, c.send(get("/")).read().code);
            assertEquals("IOException", second.poll(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void manyConcurrentKeepAliveConnections() throws Exception {
        java.util.concurrent.ExecutorService clients = java.util.concurrent.Executors.newFixedThreadPool(16);
        try (TestServer s = TestServer.start(ex -> TestServer.respond(ex, 200, ex.getRequestURI().getPath()))) {
            java.util.List<java.util.concurrent.Future<Integer>> fs = new java.util.ArrayList<>();
            for (int i = 0; i < 64; i++) {
                int id = i;
                fs.add(clients.submit(() -> {
                    int ok = 0;
                    try (RawClient c = s.raw()) {
                        for (int j = 0; j < 5; j++) {
                            String path = "/c" + id + "r" + j;
                            if (c.send(get(path)).read().text().equals(path)) {
                                ok++;
                            }
                        }
                    }
                    return ok;
                }));
            }
            int total = 0;
            for (java.util.concurrent.Future<Integer> f : fs) {
                total += f.get(60, TimeUnit.SECONDS);
            }
            assertEquals(64 * 5, total);
        } finally {
            clients.shutdownNow();
        }
    }

    @Test
    void clientClosingAnIdleConnectionIsHarmless() throws Exception {
        try (TestServer s = TestServer.start(TestServer.OK)) {
            for (int i = 0; i < 5; i++) {
                try (RawClient c = s.raw()) {
                    c.send(get("/"));
                    if (i % 2 == 0) {
                        c.read();
                    }
                }
            }
            HttpResponse<String> r = Clients.get(Clients.httpClient(), s.uri("/"));
            assertEquals("ok", r.body());
        }
    }

    @Test
    void serverClosedConnectionIsSeenAsEofByTheRawClient() throws Exception {
        try (TestServer s = TestServer.start(ex -> {
                    throw new RuntimeException("x");
                });
                RawClient c = s.raw()) {
            c.send(get("/"));
            assertThrows(EOFException.class, c::read);
        }
    }
}
