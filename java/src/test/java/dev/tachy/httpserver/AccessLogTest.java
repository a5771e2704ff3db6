package dev.tachy.httpserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The access log through the provider: -Dtachy.accessLog=FILE appends Common Log Format lines
 * (written by the native log thread), =System.Logger hands each line to the logger
 * dev.tachy.httpserver.access (here java.util.logging's, which System.Logger uses), with
 * tachy.accessLogFormat=combined adding Referer and User-Agent. The properties are read
 * when a server is created. */
class AccessLogTest {
    private static final HttpClient CLIENT = HttpClient.newHttpClient();
    private static final Pattern CLF = Pattern.compile(
            "^(\\S+) - - \\[[^\\]]+\\] \"([^\"]*)\" (\\d{3}) (\\d+|-)( \"([^\"]*)\" \"([^\"]*)\")?$");

    private static void get(HttpServer s, String path) throws Exception {
        HttpResponse<String> r = CLIENT.send(HttpRequest.newBuilder(URI.create(TestSupport.url(s, path)))
                .header("User-Agent", "tachy-test").build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode());
    }

    @Test
    void toAFile() throws Exception {
        Path file = Files.createTempFile("tachy-access", ".log");
        System.setProperty("tachy.accessLog", file.toString());
        HttpServer s;
        try {
            s = TestSupport.server("/", ex -> TestSupport.respond(ex, 200, "hello"));
        } finally {
            System.clearProperty("tachy.accessLog");
        }
        s.start();
        get(s, "/a?x=1");
        get(s, "/b");
        s.stop(1);
        List<String> lines = Files.readAllLines(file);
        Files.delete(file);
        assertEquals(2, lines.size(), lines.toString());
        Matcher m = CLF.matcher(lines.get(0));
        assertTrue(m.matches(), lines.get(0));
        assertEquals("127.0.0.1", m.group(1));
        assertEquals("GET /a?x=1 HTTP/1.1", m.group(2));
        assertEquals("200", m.group(3));
        assertEquals("5", m.group(4));
        assertEquals(null, m.group(5), "common, not combined");
    }

    @Test
    void toSystemLogger() throws Exception {
        Logger jul = Logger.getLogger("dev.tachy.httpserver.access");
        List<LogRecord> got = new ArrayList<>();
        Handler h = new Handler() {
            @Override
            public synchronized void publish(LogRecord r) {
                got.add(r);
                notifyAll();
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        jul.addHandler(h);
        System.setProperty("tachy.accessLog", "System.Logger");
        System.setProperty("tachy.accessLogFormat", "combined");
        HttpServer s;
        try {
            s = TestSupport.server("/", ex -> TestSupport.respond(ex, 200, "hi"));
        } finally {
            System.clearProperty("tachy.accessLog");
            System.clearProperty("tachy.accessLogFormat");
        }
        try {
            s.start();
            get(s, "/c");
            synchronized (h) { // the writer thread logs within its 100 ms tick
                long end = System.nanoTime() + 5_000_000_000L;
                while (got.isEmpty() && System.nanoTime() < end) {
                    h.wait(100);
                }
            }
            s.stop(0);
        } finally {
            jul.removeHandler(h);
        }
        synchronized (h) {
            assertEquals(1, got.size());
            LogRecord r = got.get(0);
            assertEquals(java.util.logging.Level.INFO, r.getLevel());
            Matcher m = CLF.matcher(r.getMessage());
            assertTrue(m.matches(), r.getMessage());
            assertEquals("GET /c HTTP/1.1", m.group(2));
            assertEquals("2", m.group(4));
            assertEquals("-", m.group(6));
            assertEquals("tachy-test", m.group(7));
            assertTrue(r.getLongThreadID() != Thread.currentThread().getId(), "the log's own thread");
        }
    }
}
