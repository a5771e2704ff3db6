package dev.tachy.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Scenario 4: Expect: 100-continue and 1xx responses. */
class ExpectContinueTest {

    @Test
    void interim100IsSentBeforeTheBodyIsRead() throws Exception {
        try (TestServer s = TestServer.start(TestServer.ECHO); RawClient c = s.raw()) {
            c.send("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n");
            RawClient.Response interim = c.read();
            // The JDK adds "Content-Length: 0"; RFC 9110 8.6 forbids it in a 1xx, and tachy
            // sends the bare status line (no client tells them apart: the HttpClient and
            // HttpURLConnection tests below see the same on both).
            assertEquals(Compat.isTachy() ? "HTTP/1.1 100 Continue\r\n\r\n"
                    : "HTTP/1.1 100 Continue\r\nContent-Length: 0\r\n\r\n", interim.rawHead);
            c.send("hello");
            RawClient.Response fin = c.read();
            assertEquals(200, fin.code);
            assertEquals("hello", fin.text());
        }
    }

    @Test
    void expectIsCaseInsensitive() throws Exception {
        try (TestServer s = TestServer.start(TestServer.ECHO); RawClient c = s.raw()) {
            c.send("PUT / HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nexpect: 100-Continue\r\n\r\n");
            assertEquals(100, c.read().code);
            c.send("ab");
            assertEquals("ab", c.read().text());
        }
    }

    @Test
    void interim100IsSentEvenIfTheHandlerNeverReads() throws Exception {
        try (TestServer s = TestServer.start(ex -> TestServer.respond(ex, 403, "no")); RawClient c = s.raw()) {
            c.send("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\n");
            RawClient.Response first = c.read();
            assertEquals(100, first.code);
            c.send("abc");
            RawClient.Response fin = c.read();
            assertEquals(403, fin.code);
            assertEquals("no", fin.text());
        }
    }

    @Test
    void httpClientExpectContinue() throws Exception {
        try (TestServer s = TestServer.start(TestServer.ECHO)) {
            HttpResponse<String> r = Clients.httpClient().send(
                    Clients.request(s.uri("/")).expectContinue(true)
                            .POST(HttpRequest.BodyPublishers.ofString("continued")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode());
            assertEquals("continued", r.body());
        }
    }

    /**
     * HTTP/1.0 request with Expect: 100-continue. JDK: sends 100 anyway. tachy: ignores the
     * expectation (RFC 9110 §10.1.1: a server that receives 100-continue in an HTTP/1.0 request
     * MUST ignore it). Intended difference.
     */
    @Test
    void http10ExpectContinue() throws Exception {
        try (TestServer s = TestServer.start(TestServer.ECHO); RawClient c = s.raw()) {
            c.send("POST / HTTP/1.0\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\nab");
            RawClient.Response r = c.read();
            if (Compat.isTachy()) {
                assertEquals(200, r.code, r.statusLine);
            } else {
                assertEquals("HTTP/1.1 100 Continue", r.statusLine);
                r = c.read();
                assertEquals(200, r.code);
            }
            assertEquals("ab", r.text());
        }
    }

    @Test
    void noInterimWithoutExpect() throws Exception {
        try (TestServer s = TestServer.start(TestServer.ECHO); RawClient c = s.raw()) {
            RawClient.Response r = c.send("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\n\r\nz").read();
            assertEquals(200, r.code);
            assertEquals("z", r.text());
        }
    }

    /**
     * A handler-sent 1xx is the exchange's only response in the JDK: the exchange is finished by it
     * (no length header), and a later sendResponseHeaders fails.
     */
    @Test
    void handlerSent1xxEndsTheExchange() throws Exception {
        BlockingQueue<String> second = new ArrayBlockingQueue<>(1);
        try (TestServer s = TestServer.start(ex -> {
                    ex.getResponseHeaders().add("Link", "</style.css>; rel=preload");
                    ex.sendResponseHeaders(103, 10);
                    try {
                        ex.sendResponseHeaders(200, -1);
                        second.add("sent");
                    } catch (IOException e) {
                        second.add("IOException");
                    }
                    ex.close();
                });
                RawClient c = s.raw()) {
            RawClient.Response r = c.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n").read();
            assertEquals("HTTP/1.1 103 ", r.statusLine);
            assertNull(r.header("Content-length"), r.rawHead);
            assertEquals("</style.css>; rel=preload", r.header("Link"));
            assertEquals("IOException", second.poll(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void handlerSent101HasNoLengthHeader() throws Exception {
        try (TestServer s = TestServer.start(ex -> {
                    ex.getResponseHeaders().set("Upgrade", "websocket");
                    ex.getResponseHeaders().set("Connection", "Upgrade");
                    ex.sendResponseHeaders(101, -1);
                    ex.close();
                });
                RawClient c = s.raw()) {
            RawClient.Response r = c.send("GET / HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n").read();
            assertTrue(r.statusLine.startsWith("HTTP/1.1 101 "), r.statusLine);
            assertNull(r.header("Content-length"), r.rawHead);
            assertNull(r.header("Transfer-encoding"), r.rawHead);
            assertEquals("websocket", r.header("Upgrade"));
        }
    }
}
