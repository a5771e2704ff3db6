package dev.tachy.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Scenario 9: timeouts and limits set by system properties. The JDK reads them once per JVM, so
 * each test starts a child JVM (ChildServer) with the properties, running the same provider.
 */
class LimitsTest {

    static long now() {
        return System.nanoTime();
    }

    static long msSince(long t0) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    }

    /** Waits (bounded by the socket timeout) for the server to close; returns ms waited. */
    static long msUntilClosed(RawClient c, int timeoutMs, String what) throws IOException {
        c.timeout(timeoutMs);
        long t0 = now();
        try {
            assertTrue(c.closedByServer(), what + ": server sent bytes instead of closing");
        } catch (AssertionError e) {
            throw new AssertionError(what + ": " + e.getMessage(), e);
        }
        return msSince(t0);
    }

    @Test
    void idleInterval() throws Exception {
        try (ChildServer.Handle h = ChildServer.start(Map.of(
                "sun.net.httpserver.idleInterval", "1",
                "sun.net.httpserver.clockTick", "200"))) {
            try (RawClient c = h.raw()) {
                RawClient.Response r = c.send("GET /ok HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").read();
                String expected = Compat.javaFeature() < 21 ? "timeout=1, max=200" : "timeout=1";
                assertEquals(expected, r.header("Keep-Alive"));
                long ms = msUntilClosed(c, 8000, "idleInterval=1, idle keep-alive connection");
                assertTrue(ms >= 500 && ms < 6000, "idle connection closed after " + ms + " ms");
            }
            // a connection that never sends a byte is idle too
            try (RawClient c = h.raw()) {
                long ms = msUntilClosed(c, 8000, "idleInterval=1, new connection that sends nothing");
                assertTrue(ms >= 500 && ms < 6000, "silent new connection closed after " + ms + " ms");
            }
            // an active connection is not idle: requests every 300 ms for 2 s keep it open
            try (RawClient c = h.raw()) {
                for (int i = 0; i < 7; i++) {
                    assertEquals("ok", c.send("GET /ok HTTP/1.1\r\nHost: a\r\n\r\n").read().text());
                    Thread.sleep(300);
                }
            }
        }
    }

    @Test
    void maxReqTime() throws Exception {
        try (ChildServer.Handle h = ChildServer.start(Map.of("sun.net.httpserver.maxReqTime", "1"))) {
            // headers that never end
            try (RawClient c = h.raw()) {
                c.send("GET /ok HTTP/1.1\r\nHost: a\r\n");
                long ms = msUntilClosed(c, 8000, "maxReqTime=1, header block never ends");
                assertTrue(ms >= 500 && ms < 5000, "slow request closed after " + ms + " ms");
            }
            // a body that never ends
            try (RawClient c = h.raw()) {
                c.send("POST /ok HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nab");
                long ms = msUntilClosed(c, 8000, "maxReqTime=1, body stalls after 2 of 10 bytes");
                assertTrue(ms >= 500 && ms < 5000, "slow body closed after " + ms + " ms");
            }
            // a normal request is served, and an idle keep-alive connection is not a slow request
            try (RawClient c = h.raw()) {
                assertEquals("ok", c.send("GET /ok HTTP/1.1\r\nHost: a\r\n\r\n").read().text());
                assertTrue(c.stillOpenAfter(2500));
                assertEquals("ok", c.send("GET /ok HTTP/1.1\r\nHost: a\r\n\r\n").read().text());
            }
        }
    }

    @Test
    void maxRspTime() throws Exception {
        try (ChildServer.Handle h = ChildServer.start(Map.of("sun.net.httpserver.maxRspTime", "1"))) {
            try (RawClient c = h.raw()) {
                c.send("GET /slowrsp HTTP/1.1\r\nHost: a\r\n\r\n");
                long t0 = now();
                String line = c.readLine(null);
                assertEquals("HTTP/1.1 200 OK", line);
                c.timeout(8000);
                String rest;
                try {
                    rest = c.readAllText(); // ends when the server closes
                } catch (SocketTimeoutException e) {
                    throw new AssertionError("maxRspTime=1: expected the server to cut the stalled response; "
                            + "connection still open after 8 s", e);
                }
                long ms = msSince(t0);
                assertTrue(ms < 6000, "slow response cut after " + ms + " ms");
                assertFalse(rest.contains("\r\n0\r\n\r\n"), "response was not completed: " + rest);
            }
            // a quick response is unaffected
            try (RawClient c = h.raw()) {
                assertEquals("slept", c.send("GET /sleep?200 HTTP/1.1\r\nHost: a\r\n\r\n").read().text());
            }
        }
    }

    @Test
    void maxConnections() throws Exception {
        try (ChildServer.Handle h = ChildServer.start(Map.of("jdk.httpserver.maxConnections", "2"))) {
            RawClient a = h.raw();
            RawClient b = h.raw();
            try {
                assertEquals("ok", a.send("GET /ok HTTP/1.1\r\nHost: a\r\n\r\n").read().text());
                assertEquals("ok", b.send("GET /ok HTTP/1.1\r\nHost: a\r\n\r\n").read().text());
                try (RawClient third = h.raw()) {
                    third.send("GET /ok HTTP/1.1\r\nHost: a\r\n\r\n");
                    assertTrue(third.closedByServer(), "a third connection is closed unanswered");
                }
                // both first connections still work
                assertEquals("ok", a.send("GET /ok HTTP/1.1\r\nHost: a\r\n\r\n").read().text());
            } finally {
                a.close();
            }
            // once one closes, a new connection is accepted (bounded retry: the server notices the close)
            boolean served = false;
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!served && System.nanoTime() < end) {
                try (RawClient c = h.raw()) {
                    c.send("GET /ok HTTP/1.1\r\nHost: a\r\n\r\n");
                    served = "ok".equals(c.read().text());
                } catch (IOException closed) {
                    Thread.sleep(100);
                }
            }
            b.close();
            assertTrue(served, "a slot freed by a closed connection is reused");
        }
    }

    @Test
    void maxIdleConnections() throws Exception {
        try (ChildServer.Handle h = ChildServer.start(Map.of("sun.net.httpserver.maxIdleConnections", "1"))) {
            try (RawClient a = h.raw(); RawClient b = h.raw()) {
                assertEquals("ok", a.send("GET /ok HTTP/1.1\r\nHost: a\r\n\r\n").read().text());
                Thread.sleep(300); // a becomes idle
                assertEquals("ok", b.send("GET /ok HTTP/1.1\r\nHost: a\r\n\r\n").read().text());
                assertTrue(b.closedByServer(), "the second idle connection is closed");
                assertEquals("ok", a.send("GET /ok HTTP/1.1\r\nHost: a\r\n\r\n").read().text());
            }
        }
    }

    @Test
    void drainAmount() throws Exception {
        try (ChildServer.Handle h = ChildServer.start(Map.of("sun.net.httpserver.drainAmount", "1000"))) {
            try (RawClient c = h.raw()) {
                RawClient.Response r = c.send("POST /noread HTTP/1.1\r\nHost: a\r\nContent-Length: 500\r\n\r\n"
                        + "x".repeat(500)).read();
                assertEquals("noread", r.text());
                assertEquals("ok", c.send("GET /ok HTTP/1.1\r\nHost: a\r\n\r\n").read().text(), "under drainAmount: reused");
            }
            try (RawClient c = h.raw()) {
                RawClient.Response r = c.send("POST /noread HTTP/1.1\r\nHost: a\r\nContent-Length: 5000\r\n\r\n"
                        + "x".repeat(5000)).read();
                assertEquals("noread", r.text());
                assertTrue(c.closedByServer(), "over drainAmount: closed");
            }
        }
    }

    static String headers(int n, int valueLength) {
        StringBuilder b = new StringBuilder("GET /ok HTTP/1.1\r\n");
        for (int i = 0; i < n; i++) {
            b.append("X-h").append(i).append(": ").append("v".repeat(valueLength)).append("\r\n");
        }
        return b.append("\r\n").toString();
    }

    /**
     * Over the limit the JDK closes the connection without a response, and so does tachy's
     * provider (the core's jdk_header_rules; the C server answers 431).
     */
    static void assertRefusedHeaders(RawClient c) throws IOException {
        assertTrue(c.closedByServer(), "closed without a response");
    }

    /** Refused for its headers: closed without a response. */
    static boolean refusedOrClosed(RawClient c) throws IOException {
        try {
            return c.closedByServer();
        } catch (java.io.EOFException | java.net.SocketException e) {
            return true;
        }
    }

    @Test
    void maxReqHeaders() throws Exception {
        try (ChildServer.Handle h = ChildServer.start(Map.of("sun.net.httpserver.maxReqHeaders", "5"))) {
            try (RawClient c = h.raw()) {
                assertEquals("ok", c.send(headers(5, 3)).read().text());
            }
            try (RawClient c = h.raw()) {
                c.send(headers(6, 3));
                assertRefusedHeaders(c);
            }
        }
    }

    @Test
    void maxReqHeaderSize() throws Exception {
        try (ChildServer.Handle h = ChildServer.start(Map.of("sun.net.httpserver.maxReqHeaderSize", "2000"))) {
            try (RawClient c = h.raw()) {
                assertEquals("ok", c.send(headers(2, 500)).read().text());
            }
            try (RawClient c = h.raw()) {
                c.send(headers(1, 3000));
                assertRefusedHeaders(c);
            }
            try (RawClient c = h.raw()) {
                c.send(headers(40, 60)); // many small ones add up (each counts 32 bytes of overhead too)
                assertRefusedHeaders(c);
            }
        }
    }

    @Test
    void defaultMaxReqHeadersIs200() throws Exception {
        try (TestServer s = TestServer.start(TestServer.OK)) {
            try (RawClient c = s.raw()) {
                // 199 + Host = 200 headers
                String req = headers(199, 1).replace("GET /ok HTTP/1.1\r\n", "GET /ok HTTP/1.1\r\nHost: a\r\n");
                assertEquals("ok", c.send(req).read().text());
            }
            try (RawClient c = s.raw()) {
                c.send(headers(201, 1));
                assertRefusedHeaders(c);
            }
        }
    }

    /** Default settings: no request timeout, 30 s idle interval. A slow but steady client is served. */
    @Test
    void slowButSteadyClientIsServedWithDefaults() throws Exception {
        try (TestServer s = TestServer.start(TestServer.ECHO); RawClient c = s.raw()) {
            String req = "POST / HTTP/1.1\r\nHost: a\r\nX-Slow: yes\r\nContent-Length: 5\r\n\r\nhello";
            for (int i = 0; i < req.length(); i += 3) {
                c.send(req.substring(i, Math.min(req.length(), i + 3)));
                Thread.sleep(120); // about 2.7 s in all
            }
            assertEquals("hello", c.read().text());
            // an idle keep-alive connection survives a few seconds (default idleInterval is 30 s)
            assertTrue(c.stillOpenAfter(3000));
            assertEquals("again", c.send("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nagain").read().text());
        }
    }

    @Test
    void nodelayIsAccepted() throws Exception {
        try (ChildServer.Handle h = ChildServer.start(Map.of("sun.net.httpserver.nodelay", "true"))) {
            try (RawClient c = h.raw()) {
                for (int i = 0; i < 3; i++) {
                    assertEquals("ok", c.send("GET /ok HTTP/1.1\r\nHost: a\r\n\r\n").read().text());
                }
            }
        }
    }

    @Test
    void childUsesTheSameProvider() throws Exception {
        try (ChildServer.Handle h = ChildServer.start(Map.of())) {
            try (RawClient c = h.raw()) {
                assertEquals("ok", c.send("GET /ok HTTP/1.1\r\nHost: a\r\n\r\n").read().text());
            }
        } catch (SocketTimeoutException e) {
            throw new AssertionError("child server does not answer", e);
        }
    }
}
