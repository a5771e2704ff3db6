package dev.tachy.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpHandlers;
import com.sun.net.httpserver.Request;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Scenario 10 (Java 18+): HttpHandlers.of / handleOrElse, Request.with, Filter.adaptRequest. */
class HttpHandlersAndRequestTest {

    static RawClient.Response send(TestServer s, String method, String path, String... headers) throws Exception {
        try (RawClient c = s.raw()) {
            StringBuilder b = new StringBuilder(method + " " + path + " HTTP/1.1\r\nHost: a\r\n");
            for (String h : headers) {
                b.append(h).append("\r\n");
            }
            return c.send(b.append("\r\n").toString()).read(method.equals("HEAD"));
        }
    }

    @Test
    void ofSendsCodeHeadersAndBody() throws Exception {
        HttpHandler h = HttpHandlers.of(201, Headers.of("X-a", "1", "X-a", "2", "content-type", "text/plain"), "made");
        try (TestServer s = TestServer.start(h)) {
            RawClient.Response r = send(s, "GET", "/");
            assertEquals("HTTP/1.1 201 Created", r.statusLine);
            assertEquals(List.of("1", "2"), r.all("X-a"));
            assertEquals("text/plain", r.header("Content-type"));
            assertEquals("4", r.header("Content-length"));
            assertEquals("made", r.text());

            RawClient.Response head = send(s, "HEAD", "/");
            assertEquals(201, head.code);
            assertEquals("4", head.header("Content-length"));
        }
    }

    @Test
    void ofWithEmptyBody() throws Exception {
        try (TestServer s = TestServer.start(HttpHandlers.of(204, Headers.of(), ""))) {
            RawClient.Response r = send(s, "GET", "/");
            assertEquals(204, r.code);
            assertNull(r.header("Transfer-encoding"));
        }
        try (TestServer s = TestServer.start(HttpHandlers.of(200, Headers.of(), ""))) {
            RawClient.Response r = send(s, "GET", "/");
            assertEquals("0", r.header("Content-length"));
            assertEquals(0, r.body.length);
        }
        assertThrows(IllegalArgumentException.class, () -> HttpHandlers.of(99, Headers.of(), ""));
        assertThrows(NullPointerException.class, () -> HttpHandlers.of(200, null, ""));
    }

    @Test
    void handleOrElse() throws Exception {
        HttpHandler get = HttpHandlers.of(200, Headers.of(), "get");
        HttpHandler other = HttpHandlers.of(405, Headers.of("Allow", "GET"), "");
        try (TestServer s = TestServer.start(HttpHandlers.handleOrElse(r -> r.getRequestMethod().equals("GET"), get, other))) {
            assertEquals("get", send(s, "GET", "/").text());
            RawClient.Response r = send(s, "PUT", "/");
            assertEquals(405, r.code);
            assertEquals("GET", r.header("Allow"));
        }
    }

    @Test
    void requestWithAddsAHeaderThroughAdaptRequest() throws Exception {
        BlockingQueue<String> seen = new ArrayBlockingQueue<>(8);
        try (TestServer s = TestServer.bound()) {
            HttpContext ctx = s.context("/", ex -> {
                seen.add(String.valueOf(ex.getRequestHeaders().get("X-added")));
                seen.add(String.valueOf(ex.getRequestHeaders().get("X-present")));
                seen.add(ex.getRequestMethod() + " " + ex.getRequestURI());
                TestServer.respond(ex, 200, "ok");
            });
            ctx.getFilters().add(Filter.adaptRequest("add headers",
                    r -> r.with("X-Added", List.of("v1", "v2")).with("X-Present", List.of("replaced?"))));
            s.started();
            assertEquals(200, send(s, "GET", "/p?q=1", "X-Present: original").code);
            assertEquals("[v1, v2]", seen.poll(10, TimeUnit.SECONDS));
            assertEquals("[original]", seen.poll(1, TimeUnit.SECONDS), "with() does not replace an existing header");
            assertEquals("GET /p?q=1", seen.poll(1, TimeUnit.SECONDS));
        }
    }

    @Test
    void handleOrElsePredicateSeesRequest() throws Exception {
        BlockingQueue<String> seen = new ArrayBlockingQueue<>(4);
        HttpHandler h = HttpHandlers.handleOrElse(r -> {
            Request req = r;
            seen.add(req.getRequestURI().getPath() + " " + req.getRequestHeaders().getFirst("X-probe"));
            return true;
        }, HttpHandlers.of(200, Headers.of(), "y"), HttpHandlers.of(500, Headers.of(), "n"));
        try (TestServer s = TestServer.start(h)) {
            assertEquals("y", send(s, "GET", "/path", "x-probe: 7").text());
            assertEquals("/path 7", seen.poll(10, TimeUnit.SECONDS));
        }
    }
}
