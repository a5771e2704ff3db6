package dev.tachy.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Malformed requests. Where both providers agree the test asserts one result; where tachy is
 * intentionally stricter (RFC 9110/9112) the test asserts each provider's own result explicitly.
 * See README "Intended differences".
 */
class StrictnessTest {

    /** Handler that records the X-a header it saw and answers 200. */
    static TestServer recorder(BlockingQueue<String> seen) throws Exception {
        return TestServer.start(ex -> {
            seen.add(String.valueOf(ex.getRequestHeaders().getFirst("X-a")) + "|" + ex.getProtocol());
            ex.getRequestBody().readAllBytes();
            TestServer.respond(ex, 200, "accepted");
        });
    }

    static RawClient.Response send(TestServer s, String request) throws Exception {
        try (RawClient c = s.raw()) {
            return c.send(request).read();
        }
    }

    // ---- same result on both providers ----

    @Test
    void contentLengthAndTransferEncodingTogetherIs400() throws Exception {
        BlockingQueue<String> seen = new ArrayBlockingQueue<>(4);
        try (TestServer s = recorder(seen)) {
            RawClient.Response r = send(s, "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n");
            assertEquals(400, r.code);
            assertEquals("close", r.header("Connection"));
            assertTrue(seen.isEmpty());
        }
    }

    @Test
    void duplicateContentLengthIs400() throws Exception {
        BlockingQueue<String> seen = new ArrayBlockingQueue<>(4);
        try (TestServer s = recorder(seen)) {
            RawClient.Response r = send(s, "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc");
            assertEquals(400, r.code, "two Content-Length headers");
            r = send(s, "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3, 3\r\n\r\nabc");
            assertEquals(400, r.code, "Content-Length: 3, 3");
            r = send(s, "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\nContent-Length: 0\r\n\r\n");
            assertEquals(400, r.code, "two Content-Length: 0 headers");
            assertTrue(seen.isEmpty());
        }
    }

    @Test
    void badContentLengthIs400() throws Exception {
        BlockingQueue<String> seen = new ArrayBlockingQueue<>(4);
        try (TestServer s = recorder(seen)) {
            assertEquals(400, send(s, "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: abc\r\n\r\n").code);
            assertEquals(400, send(s, "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n").code);
            assertTrue(seen.isEmpty());
        }
    }

    @Test
    void unsupportedTransferEncodingIs501() throws Exception {
        BlockingQueue<String> seen = new ArrayBlockingQueue<>(4);
        try (TestServer s = recorder(seen)) {
            RawClient.Response r = send(s, "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n");
            assertEquals("HTTP/1.1 501 Not Implemented", r.statusLine);
            assertTrue(seen.isEmpty());
        }
    }

    @Test
    void requestLineWithoutVersionIs400() throws Exception {
        BlockingQueue<String> seen = new ArrayBlockingQueue<>(4);
        try (TestServer s = recorder(seen)) {
            RawClient.Response r = send(s, "GET /\r\nHost: a\r\n\r\n");
            assertEquals("HTTP/1.1 400 Bad Request", r.statusLine);
            assertEquals("close", r.header("Connection"));
            assertEquals(400, send(s, "GARBAGE\r\n\r\n").code);
            assertTrue(seen.isEmpty());
        }
    }

    /** The JDK's own error reply: exact header lines (no Date), HTML body, connection closed. */
    static void assertJdkStyleRejection(RawClient c, int code, String reason) throws Exception {
        RawClient.Response r = c.read();
        assertEquals("HTTP/1.1 " + code + " " + reason, r.statusLine);
        assertEquals(java.util.Set.of("Content-Length: " + r.body.length, "Content-Type: text/html", "Connection: close"),
                new java.util.HashSet<>(java.util.Arrays.asList(r.rawHead.split("\r\n", -1)).subList(1, 4)), r.rawHead);
        assertEquals(6, r.rawHead.split("\r\n", -1).length, r.rawHead);
        assertTrue(r.text().startsWith("<h1>" + code + " " + reason + "</h1>"), r.text());
        assertTrue(c.closedByServer());
    }

    @ParameterizedTest
    @ValueSource(strings = {"/a^{}|", "/%zz", "/?q=%zz", "/a b"})
    void invalidUriIs400(String target) throws Exception {
        BlockingQueue<String> seen = new ArrayBlockingQueue<>(4);
        try (TestServer s = recorder(seen); RawClient c = s.raw()) {
            if (target.contains(" ")) {
                // "/a" is the target and "b HTTP/1.1" the version: a version the JDK does not know
                c.send("GET " + target + " HTTP/1.1\r\nHost: a\r\n\r\n");
                RawClient.Response r = c.read();
                assertEquals(Compat.isTachy() ? 400 : 200, r.code, r.statusLine);
                return;
            }
            c.send("GET " + target + " HTTP/1.1\r\nHost: a\r\n\r\n");
            assertJdkStyleRejection(c, 400, "Bad Request");
            assertTrue(seen.isEmpty());
        }
    }

    /**
     * java.net.URI counts '[' and ']' among the reserved characters of a query and a fragment,
     * and refuses them in the path (outside an IPv6 host): the JDK serves the first group and
     * answers its own 400 to the second.
     */
    @ParameterizedTest
    @ValueSource(strings = {"/a?x=[1]", "/a#[x]", "/a?q#f[1]]", "/a?[]", "http://[::1]/a?x=[2]",
            "!/a[1]", "!/a]?x", "!/[?x=1", "!/a?x={1}", "!/a#[x]#"})
    void bracketsInTheQueryAndFragmentOnly(String target) throws Exception {
        BlockingQueue<String> uris = new ArrayBlockingQueue<>(4);
        try (TestServer s = TestServer.start(ex -> {
                    uris.add(ex.getRequestURI().toString());
                    TestServer.respond(ex, 200, "ok");
                });
                RawClient c = s.raw()) {
            boolean bad = target.startsWith("!");
            String t = bad ? target.substring(1) : target;
            c.send("GET " + t + " HTTP/1.1\r\nHost: a\r\n\r\n");
            if (bad) {
                assertJdkStyleRejection(c, 400, "Bad Request");
                assertTrue(uris.isEmpty());
            } else {
                assertEquals(200, c.read().code, t);
                assertEquals(t, uris.poll(10, TimeUnit.SECONDS));
            }
        }
    }

    @Test
    void invalidHeaderNameIs400() throws Exception {
        BlockingQueue<String> seen = new ArrayBlockingQueue<>(4);
        try (TestServer s = recorder(seen)) {
            assertEquals(400, send(s, "GET / HTTP/1.1\r\nHost: a\r\nBad(Name): x\r\n\r\n").code);
            assertEquals(400, send(s, "GET / HTTP/1.1\r\nHost: a\r\nX a: x\r\n\r\n").code);
            assertTrue(seen.isEmpty());
        }
    }

    // ---- intended differences: tachy is stricter ----

    @ParameterizedTest
    @ValueSource(strings = {"HTTP/2.0", "HTTP/0.9", "HTTP/1.2", "HTTP/3.0"})
    void unsupportedHttpVersion(String version) throws Exception {
        BlockingQueue<String> seen = new ArrayBlockingQueue<>(4);
        try (TestServer s = recorder(seen)) {
            RawClient.Response r = send(s, "GET / " + version + "\r\nHost: a\r\n\r\n");
            if (Compat.isTachy()) {
                assertEquals(505, r.code, r.statusLine);
                assertTrue(seen.isEmpty());
            } else {
                // JDK: any version other than HTTP/1.0 is served as HTTP/1.1
                assertEquals(200, r.code);
                assertEquals("null|" + version, seen.poll(10, TimeUnit.SECONDS));
            }
        }
    }

    /** Request lines the JDK accepts (or mis-reads) and tachy refuses with 400 (RFC 9112 §3). */
    @ParameterizedTest
    @ValueSource(strings = {
        "GET / http/1.1",      // HTTP-name is case-sensitive (RFC 9112 §2.3); JDK: 200
        "GET / HTTP/1.1 ",     // trailing space after the version; JDK: 200
        "GET  / HTTP/1.1",     // two spaces; JDK: empty request-target, 404
        "GET / HTTP/3",        // HTTP-version is HTTP/DIGIT.DIGIT; JDK: 200
        "GET / FOO/1.1",       // not HTTP at all; JDK: 200
    })
    void malformedRequestLine(String line) throws Exception {
        BlockingQueue<String> seen = new ArrayBlockingQueue<>(4);
        try (TestServer s = recorder(seen)) {
            RawClient.Response r = send(s, line + "\r\nHost: a\r\n\r\n");
            if (Compat.isTachy()) {
                assertEquals(400, r.code, r.statusLine);
                assertEquals("close", r.header("Connection"));
                assertTrue(seen.isEmpty());
            } else if (line.contains("  ")) {
                assertEquals(404, r.code);
            } else {
                assertEquals(200, r.code);
            }
        }
    }

    @Test
    void veryLongRequestTarget() throws Exception {
        BlockingQueue<String> seen = new ArrayBlockingQueue<>(4);
        try (TestServer s = recorder(seen)) {
            assertEquals(200, send(s, "GET /" + "u".repeat(8000) + " HTTP/1.1\r\nHost: a\r\n\r\n").code, "8 KB target");
            RawClient.Response r = send(s, "GET /" + "u".repeat(70_000) + " HTTP/1.1\r\nHost: a\r\n\r\n");
            if (Compat.isTachy()) {
                // request-line size limit (RFC 9112 §3: 414 for a target longer than the server accepts)
                assertEquals(414, r.code, r.statusLine);
                assertEquals("close", r.header("Connection"));
            } else {
                assertEquals(200, r.code);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"a\u0000b", "a\u0001b", "a\u007fb"})
    void controlCharacterInHeaderValue(String value) throws Exception {
        BlockingQueue<String> seen = new ArrayBlockingQueue<>(4);
        try (TestServer s = recorder(seen)) {
            RawClient.Response r = send(s, "GET / HTTP/1.1\r\nHost: a\r\nX-a: " + value + "\r\n\r\n");
            if (Compat.isTachy()) {
                // RFC 9110 §5.5: CTLs are not allowed in field values; NUL must be rejected
                assertEquals(400, r.code, r.statusLine);
                assertTrue(seen.isEmpty());
            } else {
                assertEquals(200, r.code);
                assertEquals(value + "|HTTP/1.1", seen.poll(10, TimeUnit.SECONDS));
            }
        }
    }

    @Test
    void percentEncodedNulInPath() throws Exception {
        // Issue 27 item 4: the JDK passes these to the handler (java.net.URI accepts "%00",
        // getPath() decodes it to U+0000); so does the Java provider (the C server refuses
        // them unless tachy_options.path_nul). Found by a differential probe of both
        // providers: no other target the JDK hands to its handlers is refused by tachy.
        String[] targets = {"/a%00b", "/%00/x", "http://h/a%00", "//h/a%00", "/a%00#f"};
        for (String t : targets) {
            BlockingQueue<String> seen = new ArrayBlockingQueue<>(4);
            try (TestServer s = TestServer.start(ex -> {
                        seen.add(ex.getRequestURI().getRawPath() + "|" + ex.getRequestURI().getPath());
                        TestServer.respond(ex, 200, "ok");
                    })) {
                RawClient.Response r = send(s, "GET " + t + " HTTP/1.1\r\nHost: a\r\n\r\n");
                assertEquals(200, r.code, t + ": " + r.statusLine);
                String got = seen.poll(10, TimeUnit.SECONDS);
                assertTrue(got != null && got.contains("%00") && got.indexOf('\0') > got.indexOf('|'), t + ": " + got);
            }
        }
    }

    @Test
    void contentLengthWithPlusSign() throws Exception {
        BlockingQueue<String> seen = new ArrayBlockingQueue<>(4);
        try (TestServer s = recorder(seen)) {
            RawClient.Response r = send(s, "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: +3\r\n\r\nabc");
            if (Compat.isTachy()) {
                // Content-Length = 1*DIGIT (RFC 9110 §8.6)
                assertEquals(400, r.code, r.statusLine);
                assertTrue(seen.isEmpty());
            } else {
                // JDK: Long.parseLong accepts the sign
                assertEquals(200, r.code);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"Transfer-Encoding: chunked, chunked", "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked"})
    void chunkedAppliedTwice(String te) throws Exception {
        BlockingQueue<String> seen = new ArrayBlockingQueue<>(4);
        try (TestServer s = recorder(seen)) {
            RawClient.Response r = send(s, "POST / HTTP/1.1\r\nHost: a\r\n" + te + "\r\n\r\n"
                    + "3\r\nabc\r\n0\r\n\r\n");
            // both refuse and close; JDK: 501 (any value but "chunked"), tachy: 400 (RFC 9112 §6.1)
            assertEquals(Compat.isTachy() ? 400 : 501, r.code, r.statusLine);
            assertEquals("close", r.header("Connection"));
            assertTrue(seen.isEmpty());
        }
    }

    @Test
    void transferEncodingInHttp10Request() throws Exception {
        BlockingQueue<String> seen = new ArrayBlockingQueue<>(4);
        try (TestServer s = recorder(seen)) {
            RawClient.Response r = send(s, "POST / HTTP/1.0\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "3\r\nabc\r\n0\r\n\r\n");
            if (Compat.isTachy()) {
                // RFC 9112 §6.1: Transfer-Encoding in an HTTP/1.0 message means faulty framing
                assertEquals(400, r.code, r.statusLine);
                assertEquals("close", r.header("Connection"));
                assertTrue(seen.isEmpty());
            } else {
                // JDK: decodes the chunked body and keeps the connection
                assertEquals(200, r.code);
                assertEquals("keep-alive", r.header("Connection"));
            }
        }
    }

    /** tachy is more lenient than the JDK here, as RFC 9112 allows or requires. */
    @Test
    void chunkedTrailers() throws Exception {
        BlockingQueue<String> seen = new ArrayBlockingQueue<>(4);
        try (TestServer s = recorder(seen); RawClient c = s.raw()) {
            c.send("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nX-Trailer: t\r\n\r\n");
            if (Compat.isTachy()) {
                // RFC 9112 §7.1.2: a recipient must be able to parse (and may discard) trailer fields
                assertEquals("accepted", c.read().text());
            } else {
                // JDK: the body read fails on the trailer line; the connection is closed unanswered
                assertTrue(c.closedByServer());
            }
        }
    }

    @Test
    void bareLfLineEndings() throws Exception {
        BlockingQueue<String> seen = new ArrayBlockingQueue<>(4);
        try (TestServer s = recorder(seen); RawClient c = s.raw()) {
            c.send("GET / HTTP/1.1\nHost: a\nX-a: lf\n\n");
            if (Compat.isTachy()) {
                // RFC 9112 §2.2: a recipient MAY recognise a bare LF as a line terminator
                assertEquals("accepted", c.read().text());
                assertEquals("lf|HTTP/1.1", seen.poll(10, TimeUnit.SECONDS));
            } else {
                // JDK: the request line only ends at CRLF: it keeps waiting and never answers
                assertTrue(c.stillOpenAfter(1000));
                assertTrue(seen.isEmpty());
            }
        }
    }

    @Test
    void connectAuthorityForm() throws Exception {
        BlockingQueue<String> seen = new ArrayBlockingQueue<>(4);
        try (TestServer s = recorder(seen); RawClient c = s.raw()) {
            c.send("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n");
            if (Compat.isTachy()) {
                // no context matches a request-target without a path
                RawClient.Response r = c.read();
                assertEquals(404, r.code, r.statusLine);
            } else {
                // JDK: the opaque URI has no path; the exchange fails and the connection is closed
                assertTrue(c.closedByServer());
            }
            assertTrue(seen.isEmpty());
        }
    }

    @Test
    void obsFoldInRequestHeader() throws Exception {
        BlockingQueue<String> seen = new ArrayBlockingQueue<>(4);
        try (TestServer s = recorder(seen)) {
            RawClient.Response r = send(s, "GET / HTTP/1.1\r\nHost: a\r\nX-a: first\r\n  second\r\n\r\n");
            // both: the continuation is joined to the value, CRLF and its first SP one SP
            // (RFC 9112 5.2; the C server answers 400, tachy.strictHeaders=true too)
            assertEquals(200, r.code);
            assertEquals("first  second|HTTP/1.1", seen.poll(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void bareCrInRequestHeader() throws Exception {
        BlockingQueue<String> seen = new ArrayBlockingQueue<>(4);
        try (TestServer s = recorder(seen)) {
            RawClient.Response r = send(s, "GET / HTTP/1.1\r\nHost: a\r\nX-a: one\rtwo\r\n\r\n");
            if (Compat.isTachy()) {
                assertEquals(400, r.code, r.statusLine);
                assertTrue(seen.isEmpty());
            } else {
                assertEquals(JDK_BARE_CR_STATUS, r.code, r.toString());
            }
        }
    }

    /** What the JDK answers to a bare CR inside a header line (the CR ends the line). */
    static final int JDK_BARE_CR_STATUS = 400;
}
