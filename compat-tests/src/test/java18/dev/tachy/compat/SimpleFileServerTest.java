package dev.tachy.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.SimpleFileServer;
import com.sun.net.httpserver.SimpleFileServer.OutputLevel;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Scenario 10 (Java 18+): SimpleFileServer served through the provider under test. */
class SimpleFileServerTest {

    @TempDir
    static Path tmp;

    static Path root;
    static HttpServer server;

    @BeforeAll
    static void serve() throws Exception {
        root = Files.createDirectories(tmp.resolve("root"));
        Files.writeString(tmp.resolve("secret.txt"), "outside the root");
        Files.writeString(root.resolve("a.txt"), "alpha text");
        Files.writeString(root.resolve("b.html"), "<p>b</p>");
        Files.writeString(root.resolve("c.json"), "{}");
        Files.write(root.resolve("d.unknownext"), new byte[] {1, 2, 3});
        Files.writeString(root.resolve(".hidden"), "hidden");
        Path sub = Files.createDirectories(root.resolve("sub"));
        Files.writeString(sub.resolve("index.html"), "<h1>sub index</h1>");
        Files.createDirectories(root.resolve("empty"));
        server = SimpleFileServer.createFileServer(TestServer.loopback0(), root, OutputLevel.NONE);
        server.start();
    }

    @AfterAll
    static void stop() {
        server.stop(0);
    }

    static RawClient.Response request(String method, String path) throws Exception {
        try (RawClient c = new RawClient(server.getAddress().getPort())) {
            return c.send(method + " " + path + " HTTP/1.1\r\nHost: a\r\n\r\n").read(method.equals("HEAD"));
        }
    }

    @Test
    void serverComesFromTheProviderUnderTest() {
        String impl = server.getClass().getName();
        assertEquals(Compat.isTachy(), impl.startsWith("dev.tachy."), impl);
    }

    @Test
    void directoryListing() throws Exception {
        RawClient.Response r = request("GET", "/");
        assertEquals(200, r.code);
        assertEquals("text/html; charset=UTF-8", r.header("Content-type"));
        assertNotNull(r.header("Last-modified"));
        String html = r.text();
        assertTrue(html.contains("a.txt"), html);
        assertTrue(html.contains("sub/"), html);
        assertFalse(html.contains(".hidden"), html);
        assertFalse(html.contains("secret"), html);
    }

    @Test
    void filesWithMimeTypes() throws Exception {
        RawClient.Response a = request("GET", "/a.txt");
        assertEquals(200, a.code);
        assertEquals("alpha text", a.text());
        assertEquals("text/plain", a.header("Content-type"));
        assertEquals("10", a.header("Content-length"));
        assertTrue(a.header("Last-modified").endsWith(" GMT"), a.header("Last-modified"));
        assertEquals("text/html", request("GET", "/b.html").header("Content-type"));
        assertEquals("application/json", request("GET", "/c.json").header("Content-type"));
        assertEquals("application/octet-stream", request("GET", "/d.unknownext").header("Content-type"));
    }

    @Test
    void headOfAFileHasItsLengthAndNoBody() throws Exception {
        try (RawClient c = new RawClient(server.getAddress().getPort())) {
            RawClient.Response r = c.send("HEAD /a.txt HTTP/1.1\r\nHost: a\r\n\r\n").read(true);
            assertEquals(200, r.code);
            assertEquals("10", r.header("Content-length"));
            assertEquals(1, r.all("Content-length").size());
            // nothing else was sent: the next response starts right away
            assertEquals("alpha text", c.send("GET /a.txt HTTP/1.1\r\nHost: a\r\n\r\n").read().text());
        }
    }

    @Test
    void notFound() throws Exception {
        RawClient.Response r = request("GET", "/missing.txt");
        assertEquals(404, r.code);
        assertEquals("text/html; charset=UTF-8", r.header("Content-type"));
        assertTrue(r.text().contains("File not found"), r.text());
        assertEquals(404, request("GET", "/.hidden").code);
    }

    @Test
    void pathTraversalIsRefused() throws Exception {
        assertEquals(404, request("GET", "/../secret.txt").code);
        assertEquals(404, request("GET", "/sub/../../secret.txt").code);
        assertEquals(404, request("GET", "/%2e%2e/secret.txt").code);
        assertEquals(404, request("GET", "/..%2fsecret.txt").code);
    }

    @Test
    void directoryWithoutSlashRedirects() throws Exception {
        RawClient.Response r = request("GET", "/sub");
        assertEquals(301, r.code);
        assertEquals("/sub/", r.header("Location"));
        RawClient.Response idx = request("GET", "/sub/");
        assertEquals(200, idx.code);
        assertEquals("<h1>sub index</h1>", idx.text());
    }

    @Test
    void otherMethodsAre405() throws Exception {
        RawClient.Response r = request("DELETE", "/a.txt");
        assertEquals(405, r.code);
        assertEquals("HEAD, GET", r.header("Allow"));
        assertEquals(405, request("POST", "/a.txt").code);
    }

    @Test
    void httpClientReadsAFile() throws Exception {
        var r = Clients.get(Clients.httpClient(),
                java.net.URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/a.txt"));
        assertEquals("alpha text", r.body());
    }

    @Test
    void fileHandlerAndOutputFilterOnOwnServer() throws Exception {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        PrintStream ps = new PrintStream(log, true, StandardCharsets.UTF_8);
        try (TestServer s = TestServer.bound()) {
            var ctx = s.context("/files/", SimpleFileServer.createFileHandler(root));
            ctx.getFilters().add(SimpleFileServer.createOutputFilter(ps, OutputLevel.VERBOSE));
            s.started();
            try (RawClient c = s.raw()) {
                RawClient.Response r = c.send("GET /files/a.txt HTTP/1.1\r\nHost: a\r\n\r\n").read();
                assertEquals("alpha text", r.text());
            }
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            // the filter prints its summary line, then the VERBOSE lines: wait for both (they
            // are printed after the response has left, on the handler's thread)
            while (!(log.toString(StandardCharsets.UTF_8).contains("GET /files/a.txt")
                    && log.toString(StandardCharsets.UTF_8).contains("Resource requested: "))
                    && System.nanoTime() < end) {
                Thread.sleep(10);
            }
            String out = log.toString(StandardCharsets.UTF_8);
            assertTrue(out.contains("GET /files/a.txt HTTP/1.1\" 200"), out);
            assertTrue(out.contains("Resource requested: "), out);
        }
    }

    /**
     * Issue 27 item 4: a target with an encoded NUL reaches the file handler (which answers
     * 404: it cannot resolve the path) and the VERBOSE output filter logs the exchange, on
     * the JDK and on tachy (which refused it with 400 itself before).
     */
    @Test
    void encodedNulReachesTheFileHandlerAndTheOutputFilter() throws Exception {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        PrintStream ps = new PrintStream(log, true, StandardCharsets.UTF_8);
        try (TestServer s = TestServer.bound()) {
            var ctx = s.context("/", SimpleFileServer.createFileHandler(root));
            ctx.getFilters().add(SimpleFileServer.createOutputFilter(ps, OutputLevel.VERBOSE));
            s.started();
            try (RawClient c = s.raw()) {
                RawClient.Response r = c.send("GET /aFile%00.txt HTTP/1.1\r\nHost: a\r\n\r\n").read();
                assertEquals(404, r.code, r.statusLine);
            }
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!log.toString(StandardCharsets.UTF_8).contains("could not resolve request URI path")
                    && System.nanoTime() < end) {
                Thread.sleep(10);
            }
            String out = log.toString(StandardCharsets.UTF_8);
            assertTrue(out.contains("GET /aFile%00.txt HTTP/1.1\" 404"), out);
            assertTrue(out.contains("Resource requested: could not resolve request URI path"), out);
            assertTrue(out.contains("> Host: a"), out);
        }
    }

    @Test
    void argumentChecks() {
        assertThrows(IllegalArgumentException.class, () -> SimpleFileServer.createFileHandler(Path.of("relative")));
        assertThrows(IllegalArgumentException.class,
                () -> SimpleFileServer.createFileHandler(root.resolve("a.txt")));
        assertThrows(NullPointerException.class, () -> SimpleFileServer.createOutputFilter(null, OutputLevel.INFO));
        assertThrows(IllegalArgumentException.class,
                () -> SimpleFileServer.createOutputFilter(System.out, OutputLevel.NONE));
    }
}
