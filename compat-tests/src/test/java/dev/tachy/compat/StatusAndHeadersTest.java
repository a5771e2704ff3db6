package dev.tachy.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.Headers;
import java.net.HttpURLConnection;
import java.nio.charset.StandardCharsets;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Scenario 3: status lines, Date, header names and values, header counts and sizes. */
class StatusAndHeadersTest {

    @ParameterizedTest(name = "{0} -> [{1}]")
    @CsvSource(delimiter = '|', ignoreLeadingAndTrailingWhitespace = false, value = {
        "200|HTTP/1.1 200 OK",
        "201|HTTP/1.1 201 Created",
        "202|HTTP/1.1 202 Accepted",
        "203|HTTP/1.1 203 Non-Authoritative Information",
        "205|HTTP/1.1 205 Reset Content",
        "206|HTTP/1.1 206 Partial Content",
        "207|'HTTP/1.1 207 '",
        "299|'HTTP/1.1 299 '",
        "300|HTTP/1.1 300 Multiple Choices",
        "301|HTTP/1.1 301 Moved Permanently",
        "302|HTTP/1.1 302 Temporary Redirect",
        "303|HTTP/1.1 303 See Other",
        "305|HTTP/1.1 305 Use Proxy",
        "307|'HTTP/1.1 307 '",
        "400|HTTP/1.1 400 Bad Request",
        "401|HTTP/1.1 401 Unauthorized",
        "402|HTTP/1.1 402 Payment Required",
        "403|HTTP/1.1 403 Forbidden",
        "404|HTTP/1.1 404 Not Found",
        "405|HTTP/1.1 405 Method Not Allowed",
        "406|HTTP/1.1 406 Not Acceptable",
        "407|HTTP/1.1 407 Proxy Authentication Required",
        "408|HTTP/1.1 408 Request Time-Out",
        "409|HTTP/1.1 409 Conflict",
        "410|HTTP/1.1 410 Gone",
        "411|HTTP/1.1 411 Length Required",
        "412|HTTP/1.1 412 Precondition Failed",
        "413|HTTP/1.1 413 Request Entity Too Large",
        "414|HTTP/1.1 414 Request-URI Too Large",
        "415|HTTP/1.1 415 Unsupported Media Type",
        "418|'HTTP/1.1 418 '",
        "429|'HTTP/1.1 429 '",
        "500|HTTP/1.1 500 Internal Server Error",
        "501|HTTP/1.1 501 Not Implemented",
        "502|HTTP/1.1 502 Bad Gateway",
        "503|HTTP/1.1 503 Service Unavailable",
        "504|HTTP/1.1 504 Gateway Timeout",
        "505|HTTP/1.1 505 HTTP Version Not Supported",
        "599|'HTTP/1.1 599 '",
        "999|'HTTP/1.1 999 '",
    })
    void statusLineReasonPhrases(int code, String expectedLine) throws Exception {
        try (TestServer s = TestServer.start(ex -> {
                    ex.sendResponseHeaders(code, 1);
                    ex.getResponseBody().write('.');
                    ex.close();
                });
                RawClient c = s.raw()) {
            RawClient.Response r = c.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n").read();
            assertEquals(expectedLine, r.statusLine, "exact status line incl. trailing space");
            assertEquals(".", r.text());
        }
    }

    /** The JDK writes any code it is given, with the empty reason phrase. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {"99|'HTTP/1.1 99 '", "600|'HTTP/1.1 600 '", "999|'HTTP/1.1 999 '"})
    void codesOutsideTheUsualRangeAreSentAsGiven(int code, String expectedLine) throws Exception {
        BlockingQueue<String> outcome = new ArrayBlockingQueue<>(1);
        try (TestServer s = TestServer.start(ex -> {
                    try {
                        ex.sendResponseHeaders(code, -1);
                        outcome.add("sent");
                    } catch (RuntimeException | java.io.IOException e) {
                        outcome.add(e.toString());
                        ex.sendResponseHeaders(500, -1);
                    }
                    ex.close();
                });
                RawClient c = s.raw()) {
            RawClient.Response r = c.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n").read();
            assertEquals("sent", outcome.poll(10, TimeUnit.SECONDS));
            assertEquals(expectedLine, r.statusLine);
        }
    }

    @Test
    void responseCodeVisibleToTheHandler() throws Exception {
        BlockingQueue<Integer> codes = new ArrayBlockingQueue<>(2);
        try (TestServer s = TestServer.start(ex -> {
                    codes.add(ex.getResponseCode());
                    ex.sendResponseHeaders(207, -1);
                    codes.add(ex.getResponseCode());
                    ex.close();
                });
                RawClient c = s.raw()) {
            c.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n").read();
            assertEquals(-1, codes.poll(10, TimeUnit.SECONDS));
            assertEquals(207, codes.poll(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void dateHeaderIsImfFixdateGmt() throws Exception {
        try (TestServer s = TestServer.start(TestServer.OK); RawClient c = s.raw()) {
            RawClient.Response r = c.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n").read();
            assertTrue(r.names().contains("Date"), r.names().toString());
            String date = r.header("Date");
            assertTrue(date.matches("(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \\d\\d (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \\d{4} \\d\\d:\\d\\d:\\d\\d GMT"), date);
            ZonedDateTime t = ZonedDateTime.parse(date, DateTimeFormatter.RFC_1123_DATE_TIME);
            long skew = Math.abs(Duration.between(t, ZonedDateTime.now()).getSeconds());
            assertTrue(skew < 60, "Date is now: " + date);
            assertEquals(1, r.all("Date").size());
        }
    }

    @Test
    void dateHeaderSetByTheHandlerIsReplaced() throws Exception {
        try (TestServer s = TestServer.start(ex -> {
                    ex.getResponseHeaders().set("Date", "yesterday");
                    ex.sendResponseHeaders(200, -1);
                    ex.close();
                });
                RawClient c = s.raw()) {
            RawClient.Response r = c.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n").read();
            assertEquals(1, r.all("Date").size());
            assertTrue(r.header("Date").endsWith(" GMT"), r.header("Date"));
        }
    }

    @Test
    void requestHeaderNamesAreNormalisedAndMultiValued() throws Exception {
        AtomicReference<Headers> seen = new AtomicReference<>();
        BlockingQueue<String> probes = new ArrayBlockingQueue<>(10);
        try (TestServer s = TestServer.start(ex -> {
                    Headers h = ex.getRequestHeaders();
                    seen.set(h);
                    probes.add(String.valueOf(h.keySet().contains("X-my-header")));
                    probes.add(String.valueOf(h.getFirst("x-MY-HEADER")));
                    probes.add(String.valueOf(h.get("X-multi")));
                    probes.add(String.valueOf(h.get("Accept")));
                    probes.add(String.valueOf(h.containsKey("host")));
                    probes.add(String.valueOf(h.getFirst("X-empty")));
                    try {
                        h.add("X-new", "v");
                        probes.add("modifiable");
                    } catch (UnsupportedOperationException e) {
                        probes.add("unmodifiable");
                    }
                    TestServer.respond(ex, 200, "ok");
                });
                RawClient c = s.raw()) {
            c.send("GET / HTTP/1.1\r\nHost: a\r\nx-MY-header: v1\r\nX-Multi: a\r\nx-multi: b, c\r\n"
                    + "X-MULTI:d\r\nAccept:   text/plain  \r\nX-Empty:\r\n\r\n").read();
            assertEquals("true", probes.poll(10, TimeUnit.SECONDS));
            assertEquals("v1", probes.poll(1, TimeUnit.SECONDS));
            assertEquals("[a, b, c, d]", probes.poll(1, TimeUnit.SECONDS));
            assertEquals("[text/plain]", probes.poll(1, TimeUnit.SECONDS));
            assertEquals("true", probes.poll(1, TimeUnit.SECONDS));
            assertEquals("", probes.poll(1, TimeUnit.SECONDS));
            assertEquals("unmodifiable", probes.poll(1, TimeUnit.SECONDS));
            List<String> keys = new ArrayList<>(seen.get().keySet());
            assertTrue(keys.contains("X-multi"), keys.toString());
            assertTrue(keys.contains("Host"), keys.toString());
            assertTrue(keys.contains("X-empty"), keys.toString());
        }
    }

    @Test
    void responseHeaderNamesAreNormalisedAndMultipleValuesAreSeparateLines() throws Exception {
        try (TestServer s = TestServer.start(ex -> {
                    Headers h = ex.getResponseHeaders();
                    h.add("x-CUSTOM-name", "1");
                    h.add("X-Multi", "a");
                    h.add("x-multi", "b");
                    h.set("content-TYPE", "text/plain; charset=utf-8");
                    h.put("X-list", List.of("p", "q"));
                    h.add("X-Empty", "");
                    TestServer.respond(ex, 200, "h");
                });
                RawClient c = s.raw()) {
            RawClient.Response r = c.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n").read();
            List<String> names = r.names();
            assertTrue(names.contains("X-custom-name"), names.toString());
            assertTrue(names.contains("Content-type"), names.toString());
            assertEquals(List.of("a", "b"), r.all("X-multi"));
            assertEquals(List.of("p", "q"), r.all("X-list"));
            assertEquals("text/plain; charset=utf-8", r.header("Content-type"));
            assertEquals(List.of(""), r.all("X-empty"));
            assertTrue(r.rawHead.contains("\r\nX-Empty:") || r.rawHead.contains("\r\nX-empty:"), r.rawHead);
            // HttpURLConnection sees them too
            HttpURLConnection u = Clients.open(s.uri("/"));
            Map<String, List<String>> fields = u.getHeaderFields();
            assertEquals(List.of("1"), fields.get("X-custom-name"));
            assertEquals(200, u.getResponseCode());
            Clients.body(u);
        }
    }

    @Test
    void crLfInResponseHeadersIsRefused() throws Exception {
        BlockingQueue<String> results = new ArrayBlockingQueue<>(8);
        try (TestServer s = TestServer.start(ex -> {
                    Headers h = ex.getResponseHeaders();
                    String[][] cases = {
                        {"X-a", "v\r\nInjected: yes"},
                        {"X-b", "v\nInjected: yes"},
                        {"X-c", "v\r"},
                        {"X-d\r\nInjected", "v"},
                        {"X-e\n", "v"},
                    };
                    for (String[] kv : cases) {
                        try {
                            h.set(kv[0], kv[1]);
                            results.add("accepted " + kv[0].trim());
                        } catch (IllegalArgumentException e) {
                            results.add("refused");
                        }
                    }
                    try {
                        h.add("X-f", "ok\r\nInjected: yes");
                        results.add("accepted add");
                    } catch (IllegalArgumentException e) {
                        results.add("refused");
                    }
                    try {
                        h.put("X-g", List.of("ok", "bad\nInjected: yes"));
                        results.add("accepted put");
                    } catch (IllegalArgumentException e) {
                        results.add("refused");
                    }
                    TestServer.respond(ex, 200, "safe");
                });
                RawClient c = s.raw()) {
            RawClient.Response r = c.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n").read();
            assertEquals("safe", r.text());
            assertNull(r.header("Injected"), r.rawHead);
            for (int i = 0; i < 7; i++) {
                assertEquals("refused", results.poll(10, TimeUnit.SECONDS), "case " + i);
            }
        }
    }

    /**
     * A CR/LF smuggled in through the mutable value list (bypassing Headers' own checks) is
     * caught by sendResponseHeaders on JDK 25 and by tachy on every JDK; JDK 17 sends it (header
     * injection). The tachy-on-17 result is an intended difference.
     */
    @Test
    void crLfAddedThroughTheValueListIsRefusedAtSend() throws Exception {
        BlockingQueue<String> outcome = new ArrayBlockingQueue<>(1);
        try (TestServer s = TestServer.start(ex -> {
                    ex.getResponseHeaders().set("X-list", "ok");
                    ex.getResponseHeaders().get("X-list").add("bad\r\nInjected: yes");
                    try {
                        ex.sendResponseHeaders(200, -1);
                        outcome.add("sent");
                    } catch (IllegalArgumentException | java.io.IOException e) {
                        outcome.add("refused");
                        throw e;
                    }
                    ex.close();
                });
                RawClient c = s.raw()) {
            c.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
            if (Compat.isTachy() || Compat.javaFeature() >= 25) {
                assertEquals("refused", outcome.poll(10, TimeUnit.SECONDS));
                assertTrue(c.closedByServer(), "nothing is sent, the connection is closed");
            } else if (Compat.javaFeature() == 17) {
                assertEquals("sent", outcome.poll(10, TimeUnit.SECONDS));
                assertEquals("yes", c.read().header("Injected"));
            }
        }
    }

    /**
     * A folded value ("a\r\n b") passes the JDK's Headers check and the JDK sends it as an
     * obs-fold line; tachy refuses CR/LF in response header values altogether (intended
     * difference, see README): the handler gets an exception and no folded line is sent.
     */
    @Test
    void foldedResponseHeaderValue() throws Exception {
        BlockingQueue<String> outcome = new ArrayBlockingQueue<>(2);
        try (TestServer s = TestServer.start(ex -> {
                    ex.getResponseHeaders().add("X-f", "a\r\n b");
                    try {
                        ex.sendResponseHeaders(200, -1);
                        outcome.add("sent");
                    } catch (RuntimeException | java.io.IOException e) {
                        outcome.add("refused");
                        throw e;
                    }
                    ex.close();
                });
                RawClient c = s.raw()) {
            c.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
            if (Compat.isTachy()) {
                String all = c.timeout(5000).readAllText();
                assertEquals("refused", outcome.poll(10, TimeUnit.SECONDS));
                assertTrue(!all.contains("\r\n b\r\n"), all);
            } else {
                RawClient.Response r = c.read();
                assertEquals("sent", outcome.poll(10, TimeUnit.SECONDS));
                assertTrue(r.rawHead.contains("X-f: a\r\n b\r\n"), r.rawHead);
            }
        }
    }

    /** Header text is ISO-8859-1 both ways: each request byte is one char; each response char is sent as its low byte. */
    @Test
    void nonAsciiHeaderBytes() throws Exception {
        BlockingQueue<String> seen = new ArrayBlockingQueue<>(4);
        try (TestServer s = TestServer.start(ex -> {
                    seen.add(ex.getRequestHeaders().getFirst("X-latin1"));
                    seen.add(ex.getRequestHeaders().getFirst("X-utf8"));
                    seen.add(ex.getRequestURI().getPath());
                    ex.getResponseHeaders().set("X-out", "\u00e9");
                    try {
                        ex.getResponseHeaders().set("X-wide", "\u4e2d");
                        seen.add("wide accepted");
                    } catch (IllegalArgumentException e) {
                        seen.add("wide refused");
                    }
                    TestServer.respond(ex, 200, "ok");
                });
                RawClient c = s.raw()) {
            java.io.ByteArrayOutputStream req = new java.io.ByteArrayOutputStream();
            req.write("GET /caf".getBytes(StandardCharsets.US_ASCII));
            req.write(0xE9);
            req.write(" HTTP/1.1\r\nHost: a\r\nX-latin1: ".getBytes(StandardCharsets.US_ASCII));
            req.write(0xE9);
            req.write("\r\nX-utf8: ".getBytes(StandardCharsets.US_ASCII));
            req.write(new byte[] {(byte) 0xC3, (byte) 0xA9});
            req.write("\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            RawClient.Response r = c.send(req.toByteArray()).read();
            assertEquals("\u00e9", seen.poll(10, TimeUnit.SECONDS));
            assertEquals("\u00c3\u00a9", seen.poll(1, TimeUnit.SECONDS));
            assertEquals("/caf\u00e9", seen.poll(1, TimeUnit.SECONDS));
            assertEquals("\u00e9", r.header("X-out")); // U+00E9 is sent as the byte 0xE9
            // a char above U+00FF: JDK 17 sends its low byte (U+4E2D -> '-'), JDK 25's Headers refuses it
            if (Compat.javaFeature() >= 25) {
                assertEquals("wide refused", seen.poll(1, TimeUnit.SECONDS));
            } else if (Compat.javaFeature() == 17) {
                assertEquals("wide accepted", seen.poll(1, TimeUnit.SECONDS));
                assertEquals("-", r.header("X-wide"));
            }
        }
    }

    @Test
    void manyRequestHeaders() throws Exception {
        BlockingQueue<Integer> count = new ArrayBlockingQueue<>(1);
        try (TestServer s = TestServer.start(ex -> {
                    int n = 0;
                    for (String k : ex.getRequestHeaders().keySet()) {
                        if (k.startsWith("X-h")) {
                            n++;
                        }
                    }
                    count.add(n);
                    TestServer.respond(ex, 200, "ok");
                });
                RawClient c = s.raw()) {
            StringBuilder req = new StringBuilder("GET / HTTP/1.1\r\nHost: a\r\n");
            for (int i = 0; i < 150; i++) {
                req.append("X-h").append(i).append(": value-").append(i).append("\r\n");
            }
            req.append("\r\n");
            assertEquals(200, c.send(req.toString()).read().code);
            assertEquals(150, count.poll(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void largeRequestHeaders() throws Exception {
        BlockingQueue<Integer> len = new ArrayBlockingQueue<>(1);
        String big = "v".repeat(32 * 1024);
        try (TestServer s = TestServer.start(ex -> {
                    len.add(ex.getRequestHeaders().getFirst("X-big").length());
                    TestServer.respond(ex, 200, "ok");
                });
                RawClient c = s.raw()) {
            assertEquals(200, c.send("GET / HTTP/1.1\r\nHost: a\r\nX-Big: " + big + "\r\n\r\n").read().code);
            assertEquals(big.length(), len.poll(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void requestUriMethodAndProtocolAsSent() throws Exception {
        BlockingQueue<String> seen = new ArrayBlockingQueue<>(8);
        try (TestServer s = TestServer.start(ex -> {
                    seen.add(ex.getRequestMethod());
                    seen.add(ex.getRequestURI().toString());
                    seen.add(String.valueOf(ex.getRequestURI().getRawQuery()));
                    seen.add(ex.getRequestURI().getPath());
                    seen.add(ex.getProtocol());
                    TestServer.respond(ex, 200, "ok");
                });
                RawClient c = s.raw()) {
            c.send("PATCH /a%20b/c?x=1&y=%41 HTTP/1.1\r\nHost: a\r\n\r\n").read();
            assertEquals("PATCH", seen.poll(10, TimeUnit.SECONDS));
            assertEquals("/a%20b/c?x=1&y=%41", seen.poll(1, TimeUnit.SECONDS));
            assertEquals("x=1&y=%41", seen.poll(1, TimeUnit.SECONDS));
            assertEquals("/a b/c", seen.poll(1, TimeUnit.SECONDS));
            assertEquals("HTTP/1.1", seen.poll(1, TimeUnit.SECONDS));
            c.send("GET http://example.com/abs?q HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").read();
            assertEquals("GET", seen.poll(10, TimeUnit.SECONDS));
            assertEquals("http://example.com/abs?q", seen.poll(1, TimeUnit.SECONDS));
            assertEquals("q", seen.poll(1, TimeUnit.SECONDS));
            assertEquals("/abs", seen.poll(1, TimeUnit.SECONDS));
            assertEquals("HTTP/1.0", seen.poll(1, TimeUnit.SECONDS));
        }
    }

    @Test
    void localAndRemoteAddresses() throws Exception {
        BlockingQueue<String> seen = new ArrayBlockingQueue<>(4);
        try (TestServer s = TestServer.start(ex -> {
                    seen.add(ex.getLocalAddress().getAddress().getHostAddress() + ":" + ex.getLocalAddress().getPort());
                    seen.add(ex.getRemoteAddress().getAddress().getHostAddress() + ":" + ex.getRemoteAddress().getPort());
                    TestServer.respond(ex, 200, "ok");
                });
                RawClient c = s.raw()) {
            c.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n").read();
            assertEquals("127.0.0.1:" + s.port(), seen.poll(10, TimeUnit.SECONDS));
            assertEquals("127.0.0.1:" + c.socket.getLocalPort(), seen.poll(1, TimeUnit.SECONDS));
        }
    }

    @Test
    void httpClientSeesHeaders() throws Exception {
        try (TestServer s = TestServer.start(ex -> {
            ex.getResponseHeaders().add("X-One", "1");
            ex.getResponseHeaders().add("X-Two", "a");
            ex.getResponseHeaders().add("X-Two", "b");
            TestServer.respond(ex, 200, ex.getRequestHeaders().getFirst("X-In"));
        })) {
            HttpResponse<String> r = Clients.httpClient().send(
                    Clients.request(s.uri("/")).header("x-in", "hello").build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals("hello", r.body());
            assertEquals("1", r.headers().firstValue("x-one").orElse(null));
            assertEquals(List.of("a", "b"), r.headers().allValues("X-Two"));
            assertNotNull(r.headers().firstValue("date").orElse(null));
            assertEquals("5", r.headers().firstValue("content-length").orElse(null));
        }
    }

    /**
     * Issue 15 item 1: Headers refuses a null value (NullPointerException from set/add/put), but
     * one put into a value list directly reaches sendResponseHeaders, which throws
     * NullPointerException on the JDK (17 and 25) before writing anything; the handler then
     * closes the exchange and the connection ("Connection: close" asked for) closes without a
     * response.
     */
    @ParameterizedTest
    @CsvSource({"added", "replaced", "set", "add", "nullList"})
    void nullResponseHeaderValueFailsSendResponseHeaders(String how) throws Exception {
        BlockingQueue<String> outcome = new ArrayBlockingQueue<>(2);
        try (TestServer s = TestServer.start(ex -> {
                    Headers h = ex.getResponseHeaders();
                    try {
                        switch (how) {
                            case "added": h.set("X-null", "a"); h.get("X-null").add(null); break;
                            case "replaced": h.set("X-null", "a"); h.get("X-null").set(0, null); break;
                            case "set": h.set("X-null", null); break;
                            case "nullList": // issue 27 item 1: the list itself, past Headers' checks
                                h.set("X-null", "a");
                                for (Map.Entry<String, List<String>> e : h.entrySet()) {
                                    if (e.getKey().equals("X-null")) {
                                        e.setValue(null);
                                    }
                                }
                                break;
                            default: h.add("X-null", null); break;
                        }
                    } catch (NullPointerException e) {
                        outcome.add("Headers refused");
                        ex.close();
                        return;
                    }
                    try {
                        ex.sendResponseHeaders(200, -1);
                        outcome.add("sent");
                    } catch (RuntimeException | java.io.IOException e) {
                        outcome.add(e.getClass().getSimpleName());
                    }
                    ex.close();
                });
                RawClient c = s.raw()) {
            c.send("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
            String expected = how.equals("set") || how.equals("add") ? "Headers refused" : "NullPointerException";
            assertEquals(expected, outcome.poll(10, TimeUnit.SECONDS));
            assertTrue(c.closedByServer(), "nothing is sent, the connection is closed");
        }
    }
}
