package dev.tachy.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpHandler;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Scenario 5: context path matching, removeContext, 404, handler-less contexts, attributes. */
class ContextTest {

    static HttpHandler named(String name) {
        return ex -> TestServer.respond(ex, 200, name + " " + ex.getHttpContext().getPath());
    }

    static String fetch(TestServer s, String path) throws Exception {
        try (RawClient c = s.raw()) {
            RawClient.Response r = c.send("GET " + path + " HTTP/1.1\r\nHost: a\r\n\r\n").read();
            return r.code == 200 ? r.text() : String.valueOf(r.code);
        }
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "/, root /",
        "/index.html, root /",
        "/a, a /a",
        "/a/, a /a",
        "/ab, a /a",          // plain string prefix, not a path segment
        "/a/b, ab /a/b",
        "/a/b/, ab /a/b",
        "/a/bc, ab /a/b",
        "/a/b/c/d, ab /a/b",
        "/b/, bslash /b/",
        "/b/x, bslash /b/",
        "/b, root /",         // '/b/' does not match '/b'
        "/c%2Fd, root /",    // decoded path '/c/d' does not match '/c/d/' ... but prefix '/' does
        "/A, root /",        // case-sensitive
    })
    void longestPrefixMatch(String path, String expected) throws Exception {
        try (TestServer s = TestServer.bound()) {
            s.context("/", named("root"));
            s.context("/a", named("a"));
            s.context("/a/b", named("ab"));
            s.context("/b/", named("bslash"));
            s.context("/c/d/", named("cd"));
            s.started();
            assertEquals(expected, fetch(s, path));
        }
    }

    @Test
    void noContextIs404WithConnectionClose() throws Exception {
        try (TestServer s = TestServer.bound()) {
            s.context("/only", TestServer.OK);
            s.started();
            try (RawClient c = s.raw()) {
                RawClient.Response r = c.send("GET /other HTTP/1.1\r\nHost: a\r\n\r\n").read();
                assertEquals("HTTP/1.1 404 Not Found", r.statusLine);
                assertEquals("close", r.header("Connection"));
                assertEquals("text/html", r.header("Content-Type"));
                assertEquals("<h1>404 Not Found</h1>No context found for request", r.text());
                assertTrue(c.closedByServer());
                // byte-exact head of the JDK's error reply (no Date header)
                assertEquals(java.util.Set.of("Content-Length: 50", "Content-Type: text/html", "Connection: close"),
                        new java.util.HashSet<>(java.util.Arrays.asList(r.rawHead.split("\r\n", -1)).subList(1, 4)), r.rawHead);
                assertTrue(r.rawHead.startsWith("HTTP/1.1 404 Not Found\r\n") && r.rawHead.endsWith("\r\n\r\n")
                        && r.rawHead.split("\r\n", -1).length == 6, r.rawHead);
            }
        }
    }

    /**
     * Targets whose URI has an empty path ("//host-like", "?query") match no context, not even
     * "/": the JDK matches contexts against URI.getPath().
     */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"//double", "//double/x", "?q"})
    void targetWithAnEmptyUriPathMatchesNoContext(String target) throws Exception {
        try (TestServer s = TestServer.start(named("root")); RawClient c = s.raw()) {
            RawClient.Response r = c.send("GET " + target + " HTTP/1.1\r\nHost: a\r\n\r\n").read();
            String path = java.net.URI.create(target).getPath();
            if (path.isEmpty()) {
                assertEquals("HTTP/1.1 404 Not Found", r.statusLine, target);
                assertEquals("<h1>404 Not Found</h1>No context found for request", r.text());
            } else {
                assertEquals("root /", r.text(), target + " has path " + path);
            }
        }
    }

    @Test
    void contextWithoutHandlerIs500() throws Exception {
        try (TestServer s = TestServer.bound()) {
            HttpContext ctx = s.server.createContext("/nohandler");
            assertNull(ctx.getHandler());
            s.started();
            try (RawClient c = s.raw()) {
                RawClient.Response r = c.send("GET /nohandler/x HTTP/1.1\r\nHost: a\r\n\r\n").read();
                assertEquals("HTTP/1.1 500 Internal Server Error", r.statusLine);
                assertEquals("<h1>500 Internal Server Error</h1>No handler for context", r.text());
                assertEquals("close", r.header("Connection"));
                assertTrue(c.closedByServer());
            }
            ctx.setHandler(named("late"));
            assertEquals("late /nohandler", fetch(s, "/nohandler/x"));
        }
    }

    @Test
    void setHandlerTwiceFails() throws Exception {
        try (TestServer s = TestServer.bound()) {
            HttpContext ctx = s.server.createContext("/h");
            ctx.setHandler(TestServer.OK);
            assertThrows(IllegalArgumentException.class, () -> ctx.setHandler(TestServer.ECHO));
            assertSame(TestServer.OK, ctx.getHandler());
            assertThrows(NullPointerException.class, () -> s.server.createContext("/h2").setHandler(null));
        }
    }

    @Test
    void removeContextByPathAndByObject() throws Exception {
        try (TestServer s = TestServer.bound()) {
            HttpContext a = s.context("/a", named("a"));
            s.context("/b", named("b"));
            s.started();
            assertEquals("a /a", fetch(s, "/a"));
            s.server.removeContext(a);
            assertEquals("404", fetch(s, "/a"));
            s.server.removeContext("/b");
            assertEquals("404", fetch(s, "/b"));
            assertThrows(IllegalArgumentException.class, () -> s.server.removeContext("/b"));
            assertThrows(IllegalArgumentException.class, () -> s.server.removeContext("/never"));
            assertThrows(NullPointerException.class, () -> s.server.removeContext((String) null));
            // removing "/a" does not remove the longer "/a/x" nor the reverse
            s.context("/a", named("a2"));
            s.context("/a/x", named("ax"));
            s.server.removeContext("/a/x");
            assertEquals("a2 /a", fetch(s, "/a/x"));
        }
    }

    @Test
    void createContextArguments() throws Exception {
        try (TestServer s = TestServer.bound()) {
            s.context("/dup", TestServer.OK);
            // a second context with the same path: JDK 25 refuses it, JDK 17 accepts it
            if (Compat.javaFeature() >= 25) {
                assertThrows(IllegalArgumentException.class, () -> s.server.createContext("/dup", TestServer.OK));
            } else if (Compat.javaFeature() == 17) {
                assertEquals("/dup", s.server.createContext("/dup", TestServer.ECHO).getPath());
            }
            assertThrows(IllegalArgumentException.class, () -> s.server.createContext("nodash", TestServer.OK));
            assertThrows(IllegalArgumentException.class, () -> s.server.createContext("", TestServer.OK));
            assertThrows(NullPointerException.class, () -> s.server.createContext(null, TestServer.OK));
            assertThrows(NullPointerException.class, () -> s.server.createContext("/nullhandler", null));
            HttpContext ctx = s.context("/p", TestServer.OK);
            assertEquals("/p", ctx.getPath());
            assertSame(s.server, ctx.getServer());
            assertSame(TestServer.OK, ctx.getHandler());
            assertTrue(ctx.getFilters().isEmpty());
            assertNull(ctx.getAuthenticator());
        }
    }

    @Test
    void exchangeSeesItsContext() throws Exception {
        BlockingQueue<Object> seen = new ArrayBlockingQueue<>(2);
        try (TestServer s = TestServer.bound()) {
            HttpContext ctx = s.context("/ctx", ex -> {
                seen.add(ex.getHttpContext());
                TestServer.respond(ex, 200, "ok");
            });
            s.started();
            fetch(s, "/ctx/more");
            assertSame(ctx, seen.poll(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void contextAttributesAreVisibleToExchanges() throws Exception {
        BlockingQueue<String> seen = new ArrayBlockingQueue<>(8);
        try (TestServer s = TestServer.bound()) {
            HttpContext ctx = s.context("/attr", ex -> {
                seen.add(String.valueOf(ex.getHttpContext().getAttributes().get("config")));
                seen.add(String.valueOf(ex.getAttribute("config")));
                seen.add(String.valueOf(ex.getAttribute("fromPrevious")));
                ex.setAttribute("fromPrevious", "set-by-" + ex.getRequestURI().getQuery());
                TestServer.respond(ex, 200, "ok");
            });
            ctx.getAttributes().put("config", "value");
            s.started();
            fetch(s, "/attr?first");
            assertEquals("value", seen.poll(10, TimeUnit.SECONDS));
            // JDK: exchange attributes are stored in the context's attribute map
            assertEquals("value", seen.poll(1, TimeUnit.SECONDS));
            assertEquals("null", seen.poll(1, TimeUnit.SECONDS));
            assertEquals("set-by-first", ctx.getAttributes().get("fromPrevious"));
            fetch(s, "/attr?second");
            seen.poll(10, TimeUnit.SECONDS);
            seen.poll(1, TimeUnit.SECONDS);
            assertEquals("set-by-first", seen.poll(1, TimeUnit.SECONDS));
        }
    }

    @Test
    void exchangeAttributeRemovalAndNullName() throws Exception {
        BlockingQueue<String> seen = new ArrayBlockingQueue<>(8);
        try (TestServer s = TestServer.start(ex -> {
            ex.setAttribute("k", "v");
            seen.add(String.valueOf(ex.getAttribute("k")));
            try {
                ex.setAttribute("k", null);
                seen.add(String.valueOf(ex.getAttribute("k")));
            } catch (NullPointerException e) {
                seen.add("NPE");
            }
            try {
                ex.getAttribute(null);
                seen.add("accepted");
            } catch (NullPointerException e) {
                seen.add("NPE");
            }
            TestServer.respond(ex, 200, "ok");
        })) {
            fetch(s, "/");
            assertEquals("v", seen.poll(10, TimeUnit.SECONDS));
            // a null value removes the attribute in later JDKs (20 and up, believed); JDK 17 throws NPE
            assertEquals(Compat.javaFeature() >= 20 ? "null" : "NPE", seen.poll(1, TimeUnit.SECONDS));
            assertEquals("NPE", seen.poll(1, TimeUnit.SECONDS));
        }
    }
}
