package dev.tachy.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.Authenticator;
import com.sun.net.httpserver.BasicAuthenticator;
import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpPrincipal;
import java.io.ByteArrayInputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.PasswordAuthentication;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Scenario 6: filters, Filter.Chain, setStreams, BasicAuthenticator and custom Authenticators. */
class FilterAuthTest {

    static Filter recording(String name, List<String> log) {
        return new Filter() {
            @Override
            public void doFilter(HttpExchange ex, Chain chain) throws IOException {
                log.add(name + ">");
                chain.doFilter(ex);
                log.add("<" + name);
            }

            @Override
            public String description() {
                return name;
            }
        };
    }

    /** Post-chain filter code runs after the client has the response: wait for it (bounded). */
    static void awaitSize(List<String> log, int n) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (log.size() < n && System.nanoTime() < end) {
            Thread.sleep(5);
        }
    }

    static RawClient.Response get(TestServer s, String path, String... headers) throws IOException {
        try (RawClient c = s.raw()) {
            StringBuilder b = new StringBuilder("GET " + path + " HTTP/1.1\r\nHost: a\r\n");
            for (String h : headers) {
                b.append(h).append("\r\n");
            }
            return c.send(b.append("\r\n").toString()).read();
        }
    }

    @Test
    void filtersRunInOrderAroundTheHandler() throws Exception {
        List<String> log = Collections.synchronizedList(new ArrayList<>());
        try (TestServer s = TestServer.bound()) {
            HttpContext ctx = s.context("/", ex -> {
                log.add("handler");
                TestServer.respond(ex, 200, "ok");
            });
            ctx.getFilters().add(recording("f1", log));
            ctx.getFilters().add(recording("f2", log));
            ctx.getFilters().add(Filter.beforeHandler("before", ex -> log.add("before")));
            ctx.getFilters().add(Filter.afterHandler("after", ex -> log.add("after:" + ex.getResponseCode())));
            assertEquals(List.of("f1", "f2", "before", "after"),
                    ctx.getFilters().stream().map(Filter::description).collect(java.util.stream.Collectors.toList()));
            s.started();
            assertEquals("ok", get(s, "/").text());
            awaitSize(log, 7);
            assertEquals(List.of("f1>", "f2>", "before", "handler", "after:200", "<f2", "<f1"), log);
            // filters added or removed after start apply to the next exchange
            log.clear();
            ctx.getFilters().remove(0);
            assertEquals("ok", get(s, "/").text());
            awaitSize(log, 5);
            assertEquals(List.of("f2>", "before", "handler", "after:200", "<f2"), log);
        }
    }

    @Test
    void beforeHandlerCanSetResponseHeaders() throws Exception {
        try (TestServer s = TestServer.bound()) {
            HttpContext ctx = s.context("/", TestServer.OK);
            ctx.getFilters().add(Filter.beforeHandler("hdr", ex -> ex.getResponseHeaders().add("X-Filter", "before")));
            s.started();
            assertEquals("before", get(s, "/").header("X-filter"));
        }
        assertThrows(NullPointerException.class, () -> Filter.beforeHandler(null, ex -> { }));
        assertThrows(NullPointerException.class, () -> Filter.afterHandler("x", null));
    }

    @Test
    void filterCanAnswerWithoutCallingTheChain() throws Exception {
        List<String> log = Collections.synchronizedList(new ArrayList<>());
        try (TestServer s = TestServer.bound()) {
            HttpContext ctx = s.context("/", ex -> {
                log.add("handler");
                TestServer.respond(ex, 200, "ok");
            });
            ctx.getFilters().add(new Filter() {
                @Override
                public void doFilter(HttpExchange ex, Chain chain) throws IOException {
                    if (ex.getRequestURI().getPath().startsWith("/blocked")) {
                        TestServer.respond(ex, 403, "blocked by filter");
                    } else {
                        chain.doFilter(ex);
                    }
                }

                @Override
                public String description() {
                    return "gate";
                }
            });
            s.started();
            RawClient.Response r = get(s, "/blocked");
            assertEquals(403, r.code);
            assertEquals("blocked by filter", r.text());
            assertTrue(log.isEmpty());
            assertEquals("ok", get(s, "/open").text());
        }
    }

    @Test
    void filterOrAuthenticatorThrowingClosesTheConnection() throws Exception {
        try (TestServer s = TestServer.bound()) {
            HttpContext f = s.context("/filter", TestServer.OK);
            f.getFilters().add(Filter.beforeHandler("boom", ex -> {
                throw new IllegalStateException("filter fails");
            }));
            HttpContext a = s.context("/auth", TestServer.OK);
            a.setAuthenticator(new Authenticator() {
                @Override
                public Result authenticate(HttpExchange ex) {
                    throw new IllegalStateException("authenticator fails");
                }
            });
            s.context("/ok", TestServer.OK);
            s.started();
            for (String path : new String[] {"/filter", "/auth"}) {
                try (RawClient c = s.raw()) {
                    c.send("GET " + path + " HTTP/1.1\r\nHost: a\r\n\r\n");
                    assertTrue(c.closedByServer(), path + ": closed without a response");
                }
            }
            assertEquals("ok", get(s, "/ok").text());
        }
    }

    @Test
    void chainCanBeBuiltByHand() throws Exception {
        List<String> log = Collections.synchronizedList(new ArrayList<>());
        try (TestServer s = TestServer.start(ex -> {
            Filter.Chain chain = new Filter.Chain(List.of(recording("manual", log)), e -> {
                log.add("inner");
                TestServer.respond(e, 200, "manual");
            });
            chain.doFilter(ex);
        })) {
            assertEquals("manual", get(s, "/").text());
            awaitSize(log, 3);
            assertEquals(List.of("manual>", "inner", "<manual"), log);
        }
    }

    static final class UpperCase extends FilterOutputStream {
        UpperCase(OutputStream out) {
            super(out);
        }

        @Override
        public void write(int b) throws IOException {
            out.write(Character.toUpperCase((char) b));
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            for (int i = 0; i < len; i++) {
                write(b[off + i]);
            }
        }
    }

    @Test
    void setStreamsTransformsRequestAndResponseBodies() throws Exception {
        try (TestServer s = TestServer.bound()) {
            HttpContext ctx = s.context("/", TestServer.ECHO);
            ctx.getFilters().add(new Filter() {
                @Override
                public void doFilter(HttpExchange ex, Chain chain) throws IOException {
                    byte[] original = ex.getRequestBody().readAllBytes();
                    String replaced = "[" + new String(original, StandardCharsets.US_ASCII) + "]";
                    ex.setStreams(new ByteArrayInputStream(replaced.getBytes(StandardCharsets.US_ASCII)),
                            new UpperCase(ex.getResponseBody()));
                    chain.doFilter(ex);
                }

                @Override
                public String description() {
                    return "transform";
                }
            });
            s.started();
            try (RawClient c = s.raw()) {
                RawClient.Response r = c.send("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello").read();
                assertEquals("[HELLO]", r.text());
                assertEquals("7", r.header("Content-length"));
                // still in sync for the next request
                r = c.send("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nab").read();
                assertEquals("[AB]", r.text());
            }
        }
    }

    @Test
    void setStreamsWithOnlyTheOutput() throws Exception {
        try (TestServer s = TestServer.bound()) {
            HttpContext ctx = s.context("/", ex -> TestServer.respond(ex, 200, "shout"));
            ctx.getFilters().add(Filter.beforeHandler("upper", ex -> ex.setStreams(null, new UpperCase(ex.getResponseBody()))));
            s.started();
            assertEquals("SHOUT", get(s, "/").text());
        }
    }

    static String basic(String user, String pass, Charset cs) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + pass).getBytes(cs));
    }

    static BasicAuthenticator auth(String realm, Charset cs, String user, String pass) {
        return new BasicAuthenticator(realm, cs) {
            @Override
            public boolean checkCredentials(String u, String p) {
                return user.equals(u) && pass.equals(p);
            }
        };
    }

    static TestServer authServer(Authenticator a, BlockingQueue<Object> principals) throws IOException {
        TestServer s = TestServer.bound();
        HttpContext ctx = s.context("/", ex -> {
            principals.add(ex.getPrincipal() == null ? "none" : ex.getPrincipal());
            TestServer.respond(ex, 200, "secret");
        });
        assertNull(ctx.setAuthenticator(a));
        assertSame(a, ctx.getAuthenticator());
        return s.started();
    }

    @Test
    void basicAuthChallengeSuccessAndFailure() throws Exception {
        BlockingQueue<Object> principals = new ArrayBlockingQueue<>(4);
        BasicAuthenticator a = auth("my realm", StandardCharsets.ISO_8859_1, "alice", "pw");
        assertEquals("my realm", a.getRealm());
        try (TestServer s = authServer(a, principals)) {
            RawClient.Response r = get(s, "/");
            assertEquals("HTTP/1.1 401 Unauthorized", r.statusLine);
            assertEquals("Basic realm=\"my realm\"", r.header("WWW-Authenticate"));
            assertEquals("0", r.header("Content-length"));

            r = get(s, "/", "Authorization: " + basic("alice", "pw", StandardCharsets.ISO_8859_1));
            assertEquals(200, r.code);
            assertEquals("secret", r.text());
            HttpPrincipal p = (HttpPrincipal) principals.poll(10, TimeUnit.SECONDS);
            assertEquals("alice", p.getUsername());
            assertEquals("my realm", p.getRealm());
            assertEquals("my realm:alice", p.getName());
            assertEquals(new HttpPrincipal("alice", "my realm"), p);

            r = get(s, "/", "Authorization: " + basic("alice", "wrong", StandardCharsets.ISO_8859_1));
            assertEquals(401, r.code);
            assertEquals("Basic realm=\"my realm\"", r.header("WWW-Authenticate"));

            // the scheme name: case-insensitive on JDK 25, exact "Basic" on JDK 17 (401, no new challenge)
            r = get(s, "/", "Authorization: " + basic("alice", "pw", StandardCharsets.ISO_8859_1).replace("Basic", "bAsIc"));
            if (Compat.javaFeature() >= 25) {
                assertEquals(200, r.code);
                principals.poll(10, TimeUnit.SECONDS);
            } else if (Compat.javaFeature() == 17) {
                assertEquals(401, r.code);
                assertNull(r.header("WWW-Authenticate"), r.rawHead);
            }

            // another scheme: 401 without a new challenge
            r = get(s, "/", "Authorization: Bearer abc");
            assertEquals(401, r.code);
            assertNull(r.header("WWW-Authenticate"), r.rawHead);
            assertTrue(principals.isEmpty());
        }
    }

    @Test
    void basicAuthWithClients() throws Exception {
        BlockingQueue<Object> principals = new ArrayBlockingQueue<>(8);
        try (TestServer s = authServer(auth("r", StandardCharsets.UTF_8, "bob", "s3cret"), principals)) {
            HttpClient client = HttpClient.newBuilder()
                    .version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Clients.TIMEOUT)
                    .authenticator(new java.net.Authenticator() {
                        @Override
                        protected PasswordAuthentication getPasswordAuthentication() {
                            return new PasswordAuthentication("bob", "s3cret".toCharArray());
                        }
                    })
                    .build();
            HttpResponse<String> r = Clients.get(client, s.uri("/"));
            assertEquals(200, r.statusCode());
            assertEquals("secret", r.body());

            HttpURLConnection u = Clients.open(s.uri("/"));
            assertEquals(401, u.getResponseCode());
            assertEquals("Basic realm=\"r\", charset=\"UTF-8\"", u.getHeaderField("WWW-Authenticate"));
            Clients.body(u);
            u = Clients.open(s.uri("/"));
            u.setRequestProperty("Authorization", basic("bob", "s3cret", StandardCharsets.UTF_8));
            assertEquals(200, u.getResponseCode());
            assertEquals("secret", new String(Clients.body(u), StandardCharsets.UTF_8));
        }
    }

    @Test
    void basicAuthCharsets() throws Exception {
        String user = "j\u00fcrgen";
        String pass = "p\u00e4ss\u00f6";
        BlockingQueue<Object> principals = new ArrayBlockingQueue<>(8);
        try (TestServer utf8 = authServer(auth("u", StandardCharsets.UTF_8, user, pass), principals);
                TestServer latin1 = authServer(auth("l", StandardCharsets.ISO_8859_1, user, pass), principals)) {
            assertEquals("Basic realm=\"u\", charset=\"UTF-8\"", get(utf8, "/").header("WWW-Authenticate"));
            assertEquals("Basic realm=\"l\"", get(latin1, "/").header("WWW-Authenticate"));
            assertEquals(200, get(utf8, "/", "Authorization: " + basic(user, pass, StandardCharsets.UTF_8)).code);
            assertEquals(401, get(utf8, "/", "Authorization: " + basic(user, pass, StandardCharsets.ISO_8859_1)).code);
            assertEquals(200, get(latin1, "/", "Authorization: " + basic(user, pass, StandardCharsets.ISO_8859_1)).code);
            assertEquals(401, get(latin1, "/", "Authorization: " + basic(user, pass, StandardCharsets.UTF_8)).code);
            HttpPrincipal p = (HttpPrincipal) principals.poll(10, TimeUnit.SECONDS);
            assertEquals(user, p.getUsername());
        }
    }

    /**
     * Malformed Base64 or a missing ':' makes BasicAuthenticator throw (IllegalArgumentException,
     * StringIndexOutOfBoundsException); the JDK handles it like any handler exception: the connection
     * is closed without a response. (The issue text says 401; the JDK does not do that.)
     */
    @Test
    void basicAuthMalformedCredentialsCloseTheConnection() throws Exception {
        BlockingQueue<Object> principals = new ArrayBlockingQueue<>(4);
        try (TestServer s = authServer(auth("r", StandardCharsets.UTF_8, "a", "b"), principals)) {
            for (String bad : new String[] {"Basic !!!notbase64***", "Basic " + Base64.getEncoder().encodeToString("nocolon".getBytes(StandardCharsets.US_ASCII))}) {
                try (RawClient c = s.raw()) {
                    c.send("GET / HTTP/1.1\r\nHost: a\r\nAuthorization: " + bad + "\r\n\r\n");
                    assertTrue(c.closedByServer(), bad);
                }
            }
            assertTrue(principals.isEmpty());
            assertEquals(200, get(s, "/", "Authorization: " + basic("a", "b", StandardCharsets.UTF_8)).code);
        }
    }

    @Test
    void basicAuthenticatorRealmValidation() {
        assertThrows(IllegalArgumentException.class, () -> auth("", StandardCharsets.UTF_8, "a", "b"));
        assertThrows(NullPointerException.class, () -> auth(null, StandardCharsets.UTF_8, "a", "b"));
        assertThrows(NullPointerException.class, () -> auth("r", null, "a", "b"));
        // an escaped quote is accepted by both JDKs
        assertEquals("a\\\"b", auth("a\\\"b", StandardCharsets.UTF_8, "a", "b").getRealm());
        // an unescaped quote: JDK 25 refuses it, JDK 17 accepts it as is
        if (Compat.javaFeature() >= 25) {
            assertThrows(IllegalArgumentException.class, () -> auth("a\"b", StandardCharsets.UTF_8, "a", "b"));
        } else if (Compat.javaFeature() == 17) {
            assertEquals("a\"b", auth("a\"b", StandardCharsets.UTF_8, "a", "b").getRealm());
        }
    }

    @Test
    void basicAuthRealmIsQuotedVerbatim() throws Exception {
        BlockingQueue<Object> principals = new ArrayBlockingQueue<>(4);
        try (TestServer s = authServer(auth("a\\\"b c", StandardCharsets.ISO_8859_1, "x", "y"), principals)) {
            assertEquals("Basic realm=\"a\\\"b c\"", get(s, "/").header("WWW-Authenticate"));
        }
    }

    @Test
    void customAuthenticatorResults() throws Exception {
        BlockingQueue<Object> principals = new ArrayBlockingQueue<>(4);
        Authenticator custom = new Authenticator() {
            @Override
            public Result authenticate(HttpExchange ex) {
                String t = ex.getRequestHeaders().getFirst("X-Token");
                if (t == null) {
                    ex.getResponseHeaders().set("WWW-Authenticate", "Token");
                    return new Retry(401);
                }
                if (t.equals("good")) {
                    return new Success(new HttpPrincipal("tok", "custom"));
                }
                if (t.equals("teapot")) {
                    return new Retry(418);
                }
                return new Failure(403);
            }
        };
        assertEquals(401, new Authenticator.Retry(401).getResponseCode());
        assertEquals(403, new Authenticator.Failure(403).getResponseCode());
        HttpPrincipal hp = new HttpPrincipal("u", "r");
        assertSame(hp, new Authenticator.Success(hp).getPrincipal());
        try (TestServer s = authServer(custom, principals)) {
            RawClient.Response r = get(s, "/");
            assertEquals(401, r.code);
            assertEquals("Token", r.header("WWW-Authenticate"));
            assertEquals("0", r.header("Content-length"));
            r = get(s, "/", "X-Token: bad");
            assertEquals("HTTP/1.1 403 Forbidden", r.statusLine);
            assertEquals("0", r.header("Content-length"));
            r = get(s, "/", "X-Token: teapot");
            assertEquals("HTTP/1.1 418 ", r.statusLine);
            assertTrue(principals.isEmpty());
            r = get(s, "/", "X-Token: good");
            assertEquals("secret", r.text());
            assertEquals(new HttpPrincipal("tok", "custom"), principals.poll(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void authenticationFailureDrainsTheBodyAndKeepsTheConnection() throws Exception {
        BlockingQueue<Object> principals = new ArrayBlockingQueue<>(4);
        try (TestServer s = authServer(auth("r", StandardCharsets.UTF_8, "a", "b"), principals); RawClient c = s.raw()) {
            RawClient.Response r = c.send("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\n\r\nbody").read();
            assertEquals(401, r.code);
            r = c.send("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\nAuthorization: "
                    + basic("a", "b", StandardCharsets.UTF_8) + "\r\n\r\nbody").read();
            assertEquals(200, r.code);
        }
    }

    @Test
    void userFiltersRunBeforeTheAuthenticator() throws Exception {
        List<String> log = Collections.synchronizedList(new ArrayList<>());
        try (TestServer s = TestServer.bound()) {
            HttpContext ctx = s.context("/", ex -> {
                log.add("handler:" + ex.getPrincipal().getUsername());
                TestServer.respond(ex, 200, "ok");
            });
            ctx.setAuthenticator(auth("r", StandardCharsets.UTF_8, "a", "b"));
            ctx.getFilters().add(new Filter() {
                @Override
                public void doFilter(HttpExchange ex, Chain chain) throws IOException {
                    log.add("filter-before:" + ex.getPrincipal());
                    chain.doFilter(ex);
                    log.add("filter-after:" + (ex.getPrincipal() == null ? null : ex.getPrincipal().getUsername()));
                }

                @Override
                public String description() {
                    return "observer";
                }
            });
            s.started();
            assertEquals(401, get(s, "/").code);
            awaitSize(log, 2);
            assertEquals(List.of("filter-before:null", "filter-after:null"), log);
            log.clear();
            assertEquals(200, get(s, "/", "Authorization: " + basic("a", "b", StandardCharsets.UTF_8)).code);
            awaitSize(log, 3);
            assertEquals(List.of("filter-before:null", "handler:a", "filter-after:a"), log);
            assertFalse(log.isEmpty());
        }
    }
}
