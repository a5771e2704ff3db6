package dev.tachy.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsServer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Java 18+ API: HttpServer.create(addr, backlog, path, handler, filters...), Headers.of, new Headers(Map). */
class ServerCreate18Test {

    @Test
    void createWithContextAndFilters() throws Exception {
        HttpServer s = HttpServer.create(TestServer.loopback0(), 0, "/app",
                ex -> TestServer.respond(ex, 200, "app " + ex.getResponseHeaders().getFirst("X-f")),
                Filter.beforeHandler("f", ex -> ex.getResponseHeaders().set("X-f", "filtered")));
        try {
            s.start();
            try (RawClient c = new RawClient(s.getAddress().getPort())) {
                RawClient.Response r = c.send("GET /app/x HTTP/1.1\r\nHost: a\r\n\r\n").read();
                assertEquals("app filtered", r.text());
                assertEquals("filtered", r.header("X-f"));
                assertEquals(404, c.send("GET /other HTTP/1.1\r\nHost: a\r\n\r\n").read().code);
            }
        } finally {
            s.stop(0);
        }
        assertThrows(NullPointerException.class, () -> HttpServer.create(TestServer.loopback0(), 0, "/x", null));
    }

    @Test
    void httpsServerCreateWithContext() throws Exception {
        HttpsServer s = HttpsServer.create(TestServer.loopback0(), 0, "/", TestServer.OK);
        try {
            assertTrue(s.getAddress().getPort() > 0);
            assertEquals(null, s.getHttpsConfigurator());
        } finally {
            s.stop(0);
        }
    }

    @Test
    void headersFactoriesNormaliseNames() {
        Headers h = Headers.of("content-TYPE", "a", "x-y", "1", "X-Y", "2");
        assertEquals(List.of("a"), h.get("Content-type"));
        assertEquals(List.of("1", "2"), h.get("X-y"));
        assertThrows(UnsupportedOperationException.class, () -> h.add("A", "b"));
        Headers copy = new Headers(Map.of("abc", List.of("v")));
        assertEquals("v", copy.getFirst("Abc"));
        assertTrue(copy.keySet().contains("Abc"));
        assertThrows(IllegalArgumentException.class, () -> Headers.of("bad\r\n", "v"));
    }
}
