package dev.tachy.httpserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpServer;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import org.junit.jupiter.api.Test;

/** HttpServer / HttpContext life cycle and argument checks, as the JDK's. */
class ServerApiTest {
    private static final HttpClient CLIENT = HttpClient.newHttpClient();

    private static HttpResponse<String> get(HttpServer s, String path) throws Exception {
        return CLIENT.send(HttpRequest.newBuilder(URI.create(TestSupport.url(s, path))).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void unboundThenBindThenServe() throws Exception {
        HttpServer s = HttpServer.create();
        assertNull(s.getAddress());
        assertThrows(IllegalStateException.class, s::start, "start before bind");
        s.bind(new InetSocketAddress(TestSupport.LOOPBACK, 0), 0);
        assertThrows(BindException.class, () -> s.bind(new InetSocketAddress(TestSupport.LOOPBACK, 0), 0));
        assertTrue(s.getAddress().getPort() > 0);
        assertEquals("127.0.0.1", s.getAddress().getAddress().getHostAddress());
        s.createContext("/", ex -> TestSupport.respond(ex, 200, "root"));
        s.start();
        try {
            assertThrows(IllegalStateException.class, s::start);
            assertThrows(IllegalStateException.class, () -> s.setExecutor(null));
            assertNotNull(s.getExecutor(), "the JDK returns its default executor after start");
            HttpResponse<String> r = get(s, "/x");
            assertEquals(200, r.statusCode());
            assertEquals("root", r.body());
        } finally {
            s.stop(0);
        }
        assertThrows(IllegalArgumentException.class, () -> s.stop(-1));
        s.stop(0); // harmless
    }

    @Test
    void bindConflictIsBindException() throws Exception {
        HttpServer a = HttpServer.create(new InetSocketAddress(TestSupport.LOOPBACK, 0), 0);
        try {
            assertThrows(BindException.class, () -> HttpServer.create(a.getAddress(), 0));
        } finally {
            a.stop(0);
        }
    }

    @Test
    void contextsLongestPrefixAddRemove() throws Exception {
        HttpServer s = HttpServer.create(new InetSocketAddress(TestSupport.LOOPBACK, 0), 0);
        HttpContext root = s.createContext("/", ex -> TestSupport.respond(ex, 200, "root"));
        HttpContext a = s.createContext("/a", ex -> TestSupport.respond(ex, 200, "a"));
        HttpContext ab = s.createContext("/a/b", ex -> TestSupport.respond(ex, 200, "ab"));
        HttpContext none = s.createContext("/none");
        HttpContext dup = null;
        if (Runtime.version().feature() >= 18) {
            assertThrows(IllegalArgumentException.class, () -> s.createContext("/a", ex -> { }));
        } else { // JDK 17 accepts a duplicate path; the first context keeps serving it
            dup = s.createContext("/a", ex -> TestSupport.respond(ex, 200, "a-dup"));
        }
        assertThrows(IllegalArgumentException.class, () -> s.createContext("a", ex -> { }));
        assertThrows(NullPointerException.class, () -> s.createContext(null));
        assertThrows(NullPointerException.class, () -> s.createContext("/n", null));
        assertEquals("/a/b", ab.getPath());
        assertSame(s, root.getServer());
        assertNull(none.getHandler());
        s.start();
        try {
            assertEquals("ab", get(s, "/a/b/c").body());
            assertEquals("a", get(s, "/abc").body()); // plain string prefix, like the JDK
            assertEquals("root", get(s, "/zzz").body());
            HttpResponse<String> r = get(s, "/none");
            assertEquals(500, r.statusCode());
            none.setHandler(ex -> TestSupport.respond(ex, 200, "late"));
            assertThrows(IllegalArgumentException.class, () -> none.setHandler(ex -> { }));
            assertEquals("late", get(s, "/none").body());
            s.removeContext("/a/b");
            assertEquals("a", get(s, "/a/b/c").body());
            s.removeContext(a);
            if (dup != null) {
                assertEquals("a-dup", get(s, "/a/b/c").body()); // the duplicate took over
                s.removeContext(dup);
            }
            assertEquals("root", get(s, "/a/b/c").body());
            assertThrows(IllegalArgumentException.class, () -> s.removeContext("/a"));
            assertThrows(IllegalArgumentException.class, () -> s.removeContext(a));
            s.removeContext(root);
            assertEquals(404, get(s, "/zzz").statusCode());
            // a removed path can be created again
            s.createContext("/a", ex -> TestSupport.respond(ex, 200, "a2"));
            assertEquals("a2", get(s, "/a").body());
        } finally {
            s.stop(0);
        }
    }

    @Test
    void executorIsReturned() throws Exception {
        HttpServer s = HttpServer.create(new InetSocketAddress(TestSupport.LOOPBACK, 0), 0);
        ExecutorService e = Executors.newFixedThreadPool(2);
        try {
            assertNull(s.getExecutor());
            s.setExecutor(e);
            assertSame(e, s.getExecutor());
        } finally {
            s.stop(0);
            e.shutdown();
        }
    }

    @Test
    void createWithHandlerAndFilters() throws Exception {
        // HttpServer.create(addr, backlog, path, handler, filters...) is Java 18+: reflection.
        java.lang.reflect.Method m;
        try {
            m = HttpServer.class.getMethod("create", InetSocketAddress.class, int.class, String.class,
                    com.sun.net.httpserver.HttpHandler.class, com.sun.net.httpserver.Filter[].class);
        } catch (NoSuchMethodException e) {
            org.junit.jupiter.api.Assumptions.assumeTrue(false, "Java 18+ API");
            return;
        }
        com.sun.net.httpserver.Filter f = com.sun.net.httpserver.Filter.afterHandler("after", ex -> { });
        HttpServer s = (HttpServer) m.invoke(null, new InetSocketAddress(TestSupport.LOOPBACK, 0), 0, "/",
                (com.sun.net.httpserver.HttpHandler) ex -> TestSupport.respond(ex, 200, "made"),
                new com.sun.net.httpserver.Filter[] {f});
        assertEquals(TachyHttpServer.class, s.getClass());
        s.start();
        try {
            assertEquals("made", get(s, "/").body());
        } finally {
            s.stop(0);
        }
    }
}
