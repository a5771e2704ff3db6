package dev.tachy.httpserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What the provider decodes on demand (request headers, addresses, the URI) and what it sets on
 * first look (the response headers the JDK adds while sending) reads exactly as if done eagerly:
 * after the body was read, after close, from another thread after the connection moved on to
 * the next request, and through filters.
 */
class LazyExchangeTest {
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

    private Object awaitSeen(String key) throws InterruptedException {
        for (int i = 0; i < 100 && !seen.containsKey(key); i++) {
            Thread.sleep(50);
        }
        return seen.get(key);
    }

    private static Map<String, List<String>> copy(Headers h) {
        return new TreeMap<>(h);
    }

    @Test
    void requestHeadersReadAfterBodyAndAfterClose() throws Exception {
        HttpServer s = start("/", ex -> {
            byte[] body = ex.getRequestBody().readAllBytes();
            seen.put("body", new String(body, StandardCharsets.ISO_8859_1));
            seen.put("afterBody", copy(ex.getRequestHeaders()));
            TestSupport.respond(ex, 200, "ok");
            ex.close();
            Headers h = ex.getRequestHeaders();
            seen.put("afterClose", copy(h));
            seen.put("same", h == ex.getRequestHeaders());
            seen.put("uri", ex.getRequestURI());
            seen.put("remote", ex.getRemoteAddress());
            seen.put("local", ex.getLocalAddress());
            seen.put("method", ex.getRequestMethod());
            seen.put("protocol", ex.getProtocol());
        });
        String rsp = TestSupport.raw(s, "POST /a/b?c=d&e=%2F HTTP/1.1\r\nHost: x\r\nx-ONE: 1\r\n"
                + "X-Two:  two  \r\nx-one: 1b\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello", 5000);
        assertTrue(rsp.startsWith("HTTP/1.1 200 OK\r\n"), rsp);
        assertEquals("hello", awaitSeen("afterClose") != null ? seen.get("body") : null);
        Map<String, List<String>> expected = new TreeMap<>();
        expected.put("Host", List.of("x"));
        expected.put("X-one", List.of("1", "1b"));
        expected.put("X-two", List.of("two"));
        expected.put("Content-length", List.of("5"));
        expected.put("Connection", List.of("close"));
        assertEquals(expected, seen.get("afterBody"));
        assertEquals(expected, seen.get("afterClose"));
        assertEquals(true, seen.get("same"));
        assertEquals(new URI("/a/b?c=d&e=%2F"), seen.get("uri"));
        assertEquals("/a/b", ((URI) seen.get("uri")).getPath());
        assertEquals("127.0.0.1", ((InetSocketAddress) seen.get("remote")).getAddress().getHostAddress());
        assertEquals(s.getAddress().getPort(), ((InetSocketAddress) seen.get("local")).getPort());
        assertEquals("POST", seen.get("method"));
        assertEquals("HTTP/1.1", seen.get("protocol"));
    }

    /** The exchange outlives its request: read from another thread once the connection has
     * served later requests (the native exchange is reused by then). */
    @Test
    void lazyPartsReadLaterFromAnotherThread() throws Exception {
        BlockingQueue<HttpExchange> done = new ArrayBlockingQueue<>(16);
        HttpServer s = start("/", ex -> {
            TestSupport.respond(ex, 200, ex.getRequestMethod());
            done.add(ex); // nothing read yet: everything is decoded later, elsewhere
        });
        StringBuilder pipelined = new StringBuilder();
        for (int i = 0; i < 3; i++) {
            pipelined.append("GET /r").append(i).append("?q=").append(i).append(" HTTP/1.1\r\nHost: h")
                    .append(i).append("\r\nX-Index: ").append(i).append("\r\n\r\n");
        }
        pipelined.append("DELETE /last HTTP/1.1\r\nHost: last\r\nConnection: close\r\n\r\n");
        String rsp = TestSupport.raw(s, pipelined.toString(), 5000);
        assertTrue(rsp.endsWith("DELETE"), rsp);
        for (int i = 0; i < 3; i++) {
            HttpExchange ex = done.poll(5, TimeUnit.SECONDS);
            assertNotNull(ex);
            assertEquals(String.valueOf(i), ex.getRequestHeaders().getFirst("x-index"));
            assertEquals("h" + i, ex.getRequestHeaders().getFirst("Host"));
            assertEquals("/r" + i + "?q=" + i, ex.getRequestURI().toString());
            assertEquals("GET", ex.getRequestMethod());
            assertEquals("127.0.0.1", ex.getRemoteAddress().getAddress().getHostAddress());
            assertEquals(s.getAddress().getPort(), ex.getLocalAddress().getPort());
            assertEquals(200, ex.getResponseCode());
            assertEquals("3", ex.getResponseHeaders().getFirst("Content-length"));
        }
        HttpExchange last = done.poll(5, TimeUnit.SECONDS);
        assertEquals("DELETE", last.getRequestMethod());
        assertNull(last.getRequestHeaders().getFirst("X-Index"));
        assertEquals(List.of("last"), last.getRequestHeaders().get("host"));
    }

    @Test
    void requestHeadersStayReadOnly() throws Exception {
        HttpServer s = start("/", ex -> {
            Headers h = ex.getRequestHeaders();
            seen.put("add", throwsUoe(() -> h.add("A", "b")));
            seen.put("set", throwsUoe(() -> h.set("A", "b")));
            seen.put("put", throwsUoe(() -> h.put("A", List.of("b"))));
            seen.put("remove", throwsUoe(() -> h.remove("Host")));
            seen.put("listAdd", throwsUoe(() -> h.get("Host").add("x")));
            seen.put("clear", throwsUoe(h::clear));
            TestSupport.respond(ex, 200, "ok");
        });
        TestSupport.raw(s, "GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", 5000);
        awaitSeen("clear");
        for (String k : List.of("add", "set", "put", "remove", "listAdd", "clear")) {
            assertEquals(true, seen.get(k), k);
        }
    }

    private static boolean throwsUoe(Runnable r) {
        try {
            r.run();
            return false;
        } catch (UnsupportedOperationException e) {
            return true;
        }
    }

    /** Date and the framing header appear in the response headers once sent, as the JDK puts
     * them there, whichever method looks first. */
    @Test
    void responseHeadersSetBySendingAreSeen() throws Exception {
        HttpServer s = start("/", ex -> {
            String q = ex.getRequestURI().getQuery();
            Headers h = ex.getResponseHeaders();
            h.set("X-Mine", "1");
            switch (q) {
                case "fixed":
                    ex.sendResponseHeaders(200, 2);
                    seen.put("fixed", copy(h));
                    ex.getResponseBody().write("ok".getBytes(StandardCharsets.US_ASCII));
                    break;
                case "chunked":
                    ex.sendResponseHeaders(200, 0);
                    seen.put("chunked.size", h.size());
                    seen.put("chunked.te", h.getFirst("Transfer-Encoding"));
                    seen.put("chunked.cl", h.containsKey("Content-length"));
                    ex.getResponseBody().write("ok".getBytes(StandardCharsets.US_ASCII));
                    break;
                case "none":
                    ex.sendResponseHeaders(200, -1);
                    seen.put("none.keys", new ArrayList<>(new TreeMap<>(h).keySet()));
                    seen.put("none.cl", h.get("content-length"));
                    break;
                case "304":
                    ex.sendResponseHeaders(304, -1);
                    seen.put("304.cl", String.valueOf(h.getFirst("Content-length")));
                    break;
                case "modify":
                    ex.sendResponseHeaders(200, 2);
                    h.set("Date", "mine"); // replaces the JDK's, as with the JDK
                    h.add("X-After", "late");
                    seen.put("modify", copy(h));
                    ex.getResponseBody().write("ok".getBytes(StandardCharsets.US_ASCII));
                    break;
                case "string":
                    ex.sendResponseHeaders(200, 2);
                    seen.put("string", h.toString());
                    Headers other = new Headers();
                    other.putAll(h);
                    seen.put("equal", h.equals(other) && other.equals(h));
                    seen.put("hash", h.hashCode() == other.hashCode());
                    ex.getResponseBody().write("ok".getBytes(StandardCharsets.US_ASCII));
                    break;
                default:
                    ex.sendResponseHeaders(400, -1);
            }
            ex.close();
        });
        for (String q : List.of("fixed", "chunked", "none", "304", "modify", "string")) {
            String rsp = TestSupport.raw(s, "GET /?" + q + " HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", 5000);
            assertTrue(rsp.contains("X-mine: 1\r\n"), rsp);
            assertFalse(rsp.contains("X-after"), rsp);
        }
        @SuppressWarnings("unchecked")
        Map<String, List<String>> fixed = (Map<String, List<String>>) awaitSeen("fixed");
        assertEquals(List.of("Content-length", "Date", "X-mine"), new ArrayList<>(fixed.keySet()));
        assertEquals(List.of("2"), fixed.get("Content-length"));
        assertTrue(fixed.get("Date").get(0).endsWith(" GMT"), fixed.toString());
        assertEquals(3, awaitSeen("chunked.size"));
        assertEquals("chunked", seen.get("chunked.te"));
        assertEquals(false, seen.get("chunked.cl"));
        assertEquals(List.of("Content-length", "Date", "X-mine"), awaitSeen("none.keys"));
        assertEquals(List.of("0"), seen.get("none.cl"));
        assertEquals("null", awaitSeen("304.cl"));
        @SuppressWarnings("unchecked")
        Map<String, List<String>> modify = (Map<String, List<String>>) awaitSeen("modify");
        assertEquals(List.of("mine"), modify.get("Date"));
        assertEquals(List.of("late"), modify.get("X-after"));
        assertEquals(List.of("2"), modify.get("Content-length"));
        String str = (String) awaitSeen("string");
        if (Runtime.version().feature() >= 18) {
            assertTrue(str.startsWith("Headers { {") && str.contains("Content-length=[2]"), str);
        } else {
            assertTrue(str.startsWith("com.sun.net.httpserver.Headers@"), str);
        }
        assertEquals(true, seen.get("equal"));
        assertEquals(true, seen.get("hash"));
    }

    /** A filter sees the request headers before and after the chain, and the response headers
     * the JDK set while the handler sent them. */
    @Test
    void filtersSeeLazyHeaders() throws Exception {
        HttpServer s = start("/", ex -> {
            ex.getResponseHeaders().add("X-Handler", "h");
            TestSupport.respond(ex, 200, "body");
        });
        HttpContext ctx = s.createContext("/f", ex -> {
            seen.put("handler.host", ex.getRequestHeaders().getFirst("Host"));
            TestSupport.respond(ex, 200, "body");
        });
        ctx.getFilters().add(new Filter() {
            @Override
            public void doFilter(HttpExchange ex, Chain chain) throws IOException {
                ex.getResponseHeaders().add("X-Filter", "before");
                chain.doFilter(ex);
                seen.put("filter.cl", String.valueOf(ex.getResponseHeaders().getFirst("Content-Length")));
                seen.put("filter.date", ex.getResponseHeaders().containsKey("date"));
                seen.put("filter.host", ex.getRequestHeaders().getFirst("Host"));
            }

            @Override
            public String description() {
                return "test";
            }
        });
        String rsp = TestSupport.raw(s, "GET /f HTTP/1.1\r\nHost: filtered\r\nConnection: close\r\n\r\n", 5000);
        assertTrue(rsp.contains("X-filter: before\r\n") && rsp.endsWith("body"), rsp);
        assertEquals("4", awaitSeen("filter.cl"));
        assertEquals(true, seen.get("filter.date"));
        assertEquals("filtered", seen.get("filter.host"));
        assertEquals("filtered", seen.get("handler.host"));
    }

    /** HTTP/1.0 keep-alive: the core's Connection header is in the response headers before
     * the handler sends anything, as with the JDK. */
    @Test
    void http10PresetResponseHeaders() throws Exception {
        HttpServer s = start("/", ex -> {
            seen.put("preset", copy(ex.getResponseHeaders()));
            seen.put("protocol", ex.getProtocol());
            TestSupport.respond(ex, 200, "ok");
        });
        String rsp = TestSupport.raw(s, "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", 1000);
        assertTrue(rsp.startsWith("HTTP/1.1 200 OK\r\n"), rsp);
        @SuppressWarnings("unchecked")
        Map<String, List<String>> preset = (Map<String, List<String>>) awaitSeen("preset");
        assertEquals(List.of("keep-alive"), preset.get("Connection"));
        assertEquals("HTTP/1.0", seen.get("protocol"));
    }

    @Test
    void methodsAndProtocolsAreExact() throws Exception {
        HttpServer s = start("/", ex -> {
            seen.put(ex.getRequestURI().getPath(), ex.getRequestMethod());
            TestSupport.respond(ex, 200, "ok");
        });
        for (String m : List.of("GET", "HEAD", "POST", "PUT", "PATCH", "TRACE", "DELETE", "OPTIONS",
                "GETS", "GE", "get", "PROPFIND", "M-SEARCH")) {
            TestSupport.raw(s, m + " /" + m + " HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n"
                    + "Connection: close\r\n\r\n", 5000);
            assertEquals(m, awaitSeen("/" + m), m);
        }
    }

    /** Targets parsed on demand are ones java.net.URI accepts, and parses the same way. */
    @Test
    void plainTargetsAreValidUris() {
        Random r = new Random(42);
        String alphabet = "/?#%aZ09-_.!~*'():@&=+$,;[]{}|\\^`\"<> \u00e9\u0080";
        int plain = 0;
        for (int i = 0; i < 200_000; i++) {
            StringBuilder sb = new StringBuilder(r.nextInt(3) == 0 ? "" : "/");
            int n = r.nextInt(12);
            for (int j = 0; j < n; j++) {
                char c = alphabet.charAt(r.nextInt(alphabet.length()));
                sb.append(c);
                if (c == '%' && r.nextBoolean()) {
                    sb.append("0123456789abcdefABCDEFg".charAt(r.nextInt(23)));
                    sb.append("0123456789abcdefABCDEFg".charAt(r.nextInt(23)));
                }
            }
            String t = sb.toString();
            byte[] b = t.getBytes(StandardCharsets.ISO_8859_1);
            if (RequestHead.plainTarget(b, 0, b.length)) {
                plain++;
                URI u;
                try {
                    u = new URI(t);
                } catch (URISyntaxException e) {
                    throw new AssertionError("plain but refused by java.net.URI: " + t, e);
                }
                assertEquals(t, u.toString());
                assertNull(u.getScheme(), t);
                assertNull(u.getRawAuthority(), t);
            }
        }
        assertTrue(plain > 10_000, "too few plain targets generated: " + plain);
        assertFalse(RequestHead.plainTarget(b("//host/x"), 0, 8));
        assertFalse(RequestHead.plainTarget(b("/a%2"), 0, 4));
        assertFalse(RequestHead.plainTarget(b("*"), 0, 1));
        assertTrue(RequestHead.plainTarget(b("/"), 0, 1));
        assertTrue(RequestHead.plainTarget(b("/a%2Fb?x=1&y=/?"), 0, 15));
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** A target that is not plain is still parsed before the handler: the JDK's 400. */
    @Test
    void nonPlainTargetsStillCheckedUpFront() throws Exception {
        HttpServer s = start("/", ex -> {
            seen.put("uri", ex.getRequestURI());
            TestSupport.respond(ex, 200, "ok");
        });
        String rsp = TestSupport.raw(s, "GET //host/x?y HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", 5000);
        assertTrue(rsp.startsWith("HTTP/1.1 200"), rsp);
        URI u = (URI) awaitSeen("uri");
        assertEquals("host", u.getHost());
        assertEquals("/x", u.getPath());
        seen.clear();
        rsp = TestSupport.raw(s, "GET /caf\u00e9 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", 5000);
        assertTrue(rsp.startsWith("HTTP/1.1 200"), rsp);
        assertEquals("/caf\u00e9", ((URI) awaitSeen("uri")).getPath());
    }

    @Test
    void sameHeadersObjectEveryTime() throws Exception {
        HttpServer s = start("/", ex -> {
            seen.put("req", ex.getRequestHeaders() == ex.getRequestHeaders());
            seen.put("rsp", ex.getResponseHeaders() == ex.getResponseHeaders());
            seen.put("uri", ex.getRequestURI() == ex.getRequestURI());
            TestSupport.respond(ex, 200, "ok");
        });
        TestSupport.raw(s, "GET /x HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", 5000);
        assertEquals(true, awaitSeen("uri"));
        assertEquals(true, seen.get("req"));
        assertEquals(true, seen.get("rsp"));
    }

    /** The per-context cache of the last request-target: repeated and alternating targets. */
    @Test
    void repeatedAndAlternatingTargets() throws Exception {
        List<String> got = new java.util.concurrent.CopyOnWriteArrayList<>();
        HttpServer s = start("/", ex -> {
            got.add(ex.getRequestURI().toString() + "|" + ex.getRequestURI().getPath());
            TestSupport.respond(ex, 200, "ok");
        });
        List<String> targets = List.of("/a", "/a", "/b?x=1", "/b?x=1", "/a", "/a%20b", "/a%20b", "/", "/",
                "//h/p", "//h/p", "/é", "/é", "/a");
        StringBuilder pipelined = new StringBuilder();
        for (String t : targets) {
            pipelined.append("GET ").append(t).append(" HTTP/1.1\r\nHost: a\r\n\r\n");
        }
        pipelined.append("GET /end HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
        TestSupport.raw(s, pipelined.toString(), 5000);
        List<String> expected = new ArrayList<>();
        for (String t : targets) {
            URI u = new URI(t);
            expected.add(u + "|" + u.getPath());
        }
        expected.add("/end|/end");
        assertEquals(expected, got);
    }

    /** The Date the response headers get is the second the response was sent in. */
    @Test
    void dateIsTheSendingSecond() throws Exception {
        HttpServer s = start("/", ex -> {
            ex.sendResponseHeaders(200, 2);
            ex.getResponseBody().write("ok".getBytes(StandardCharsets.US_ASCII));
            ex.close();
            seen.put("date", ex.getResponseHeaders().getFirst("Date"));
        });
        String rsp = TestSupport.raw(s, "GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", 5000);
        String wire = rsp.split("\r\nDate: ", 2)[1].split("\r\n", 2)[0];
        java.time.format.DateTimeFormatter f = java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME;
        long a = java.time.ZonedDateTime.parse(wire, f).toEpochSecond();
        long b = java.time.ZonedDateTime.parse((String) awaitSeen("date"), f).toEpochSecond();
        assertTrue(Math.abs(a - b) <= 1, wire + " vs " + seen.get("date"));
    }
}
