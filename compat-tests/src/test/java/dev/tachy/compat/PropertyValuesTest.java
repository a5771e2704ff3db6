package dev.tachy.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 15 item 7: zero, negative and out-of-range values of the sun.net.httpserver.* /
 * jdk.httpserver.* properties mean what JDK 25's ServerConfig and ServerImpl make of them
 * (the default, unlimited, or none). Each child JVM reads its properties once, as the JDK does.
 */
class PropertyValuesTest {

    static String headers(int n) {
        StringBuilder b = new StringBuilder("GET /ok HTTP/1.1\r\nHost: a\r\n");
        for (int i = 0; i < n; i++) {
            b.append("X-h").append(i).append(": v\r\n");
        }
        return b.append("\r\n").toString();
    }

    /** A keep-alive request; returns whether the server closed the connection after it. */
    static boolean closedAfterOneExchange(ChildServer.Handle h) throws Exception {
        try (RawClient c = h.raw()) {
            assertEquals("ok", c.send("GET /ok HTTP/1.1\r\nHost: a\r\n\r\n").read().text());
            return !c.stillOpenAfter(1500);
        }
    }

    /**
     * Negative values: maxIdleConnections=-1 keeps no idle connection (each closes after its
     * exchange); idleInterval=-5 is the default 30 s (HTTP/1.0 "Keep-Alive: timeout=30");
     * maxReqHeaders=-1 the default 200; maxReqHeaderSize=-1 unlimited; maxConnections=-3
     * unlimited; maxReqTime=-2 / maxRspTime=-2 none.
     */
    @Test
    void negativeValues() throws Exception {
        try (ChildServer.Handle h = ChildServer.start(props(
                "sun.net.httpserver.maxIdleConnections", "-1",
                "sun.net.httpserver.idleInterval", "-5",
                "sun.net.httpserver.maxReqHeaders", "-1",
                "sun.net.httpserver.maxReqHeaderSize", "-1",
                "jdk.httpserver.maxConnections", "-3",
                "sun.net.httpserver.maxReqTime", "-2",
                "sun.net.httpserver.maxRspTime", "-2"))) {
            assertTrue(closedAfterOneExchange(h), "maxIdleConnections=-1: no connection is kept idle");
            common(h);
        }
    }

    /** Zero: the same meanings as the negative values above (maxIdleConnections=0 keeps none). */
    @Test
    void zeroValues() throws Exception {
        try (ChildServer.Handle h = ChildServer.start(props(
                "sun.net.httpserver.maxIdleConnections", "0",
                "sun.net.httpserver.idleInterval", "0",
                "sun.net.httpserver.maxReqHeaders", "0",
                "sun.net.httpserver.maxReqHeaderSize", "0",
                "jdk.httpserver.maxConnections", "0",
                "sun.net.httpserver.maxReqTime", "0",
                "sun.net.httpserver.maxRspTime", "0"))) {
            assertTrue(closedAfterOneExchange(h), "maxIdleConnections=0: no connection is kept idle");
            common(h);
        }
    }

    /**
     * JDK 17 (17.0.15) reads maxReqHeaders <= 0 as a limit of zero and closes every request;
     * JDK 25 reads it as the default. tachy follows JDK 25 on every version, so on the JDK 17
     * run that property is left out (and its checks below still see the default).
     */
    static Map<String, String> props(String... kv) {
        Map<String, String> m = new java.util.HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            if (kv[i].endsWith(".maxReqHeaders") && !Compat.isTachy() && Compat.javaFeature() < 25) {
                continue;
            }
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    static void common(ChildServer.Handle h) throws Exception {
        try (RawClient c = h.raw()) {
            RawClient.Response r = c.send("GET /ok HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").read();
            String ka = r.header("Keep-Alive");
            assertTrue(ka != null && ka.startsWith("timeout=30"), "idleInterval is the default 30 s: " + ka);
        }
        try (RawClient c = h.raw()) {
            assertEquals("ok", c.send(headers(199)).read().text(), "maxReqHeaders is the default 200");
        }
        try (RawClient c = h.raw()) {
            c.send(headers(201));
            assertTrue(LimitsTest.refusedOrClosed(c), "maxReqHeaders is the default 200: 202 refused");
        }
        try (RawClient c = h.raw()) {
            // over the default 380 KiB: accepted when the size is unlimited
            String big = "GET /ok HTTP/1.1\r\nHost: a\r\nX-big: " + "v".repeat(400 * 1024) + "\r\n\r\n";
            assertEquals("ok", c.send(big).read().text(), "maxReqHeaderSize unlimited");
        }
        // maxConnections unlimited: 20 connections open at once are all served
        RawClient[] many = new RawClient[20];
        try {
            for (int i = 0; i < many.length; i++) {
                many[i] = h.raw();
            }
            for (RawClient c : many) {
                assertEquals("ok", c.send("GET /ok HTTP/1.1\r\nHost: a\r\n\r\n").read().text(), "maxConnections unlimited");
            }
        } finally {
            for (RawClient c : many) {
                if (c != null) {
                    c.close();
                }
            }
        }
        // maxReqTime none: a request head sent over 2.5 s is served; maxRspTime none: a handler
        // taking 2.5 s too
        try (RawClient c = h.raw()) {
            c.send("GET /ok HTTP/1.1\r\n");
            Thread.sleep(2500);
            assertEquals("ok", c.send("Host: a\r\n\r\n").read().text(), "maxReqTime: none");
        }
        try (RawClient c = h.raw()) {
            assertEquals("slept", c.send("GET /sleep?2500 HTTP/1.1\r\nHost: a\r\n\r\n").read().text(), "maxRspTime: none");
        }
    }

    /**
     * Integer properties read with Integer.getInteger: a value outside the int range is the
     * default (maxReqHeaders 200, maxIdleConnections 200), not a clamped limit.
     */
    @Test
    void intPropertiesOutsideTheIntRangeAreTheDefault() throws Exception {
        try (ChildServer.Handle h = ChildServer.start(Map.of(
                "sun.net.httpserver.maxReqHeaders", "4294967297",
                "sun.net.httpserver.maxIdleConnections", "4294967296"))) {
            assertTrue(!closedAfterOneExchange(h), "maxIdleConnections is the default 200: kept");
            try (RawClient c = h.raw()) {
                c.send(headers(250));
                assertTrue(LimitsTest.refusedOrClosed(c), "maxReqHeaders is the default 200");
            }
        }
    }

    /**
     * drainAmount=0 (or negative): nothing is drained, so a body the handler did not read
     * closes the connection after the exchange.
     */
    @Test
    void drainAmountZero() throws Exception {
        try (ChildServer.Handle h = ChildServer.start(Map.of("sun.net.httpserver.drainAmount", "-1"))) {
            try (RawClient c = h.raw()) {
                assertEquals("noread", c.send("POST /noread HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\n"
                        + "x".repeat(10)).read().text());
                assertTrue(c.closedByServer(), "unread body, drainAmount=-1: closed");
            }
            try (RawClient c = h.raw()) {
                assertEquals("ok", c.send("POST /ok HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\n"
                        + "x".repeat(10)).read().text());
                assertEquals("ok", c.send("GET /ok HTTP/1.1\r\nHost: a\r\n\r\n").read().text(), "body read: reused");
            }
        }
    }
}
