package dev.tachy.httpserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * TachyMetrics: the C core's Prometheus text through a Java handler, mounted with one call
 * or with -Dtachy.metrics, scraped with java.net.http.HttpClient. (FallbackProbe checks the
 * JDK fallback's "tachy_native 0" text.)
 */
class MetricsTest {
    private static final HttpClient CLIENT = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
    /** A sample line: name{labels} value. */
    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\\{[^}]*\\})?) (\\S+)$");

    private static HttpResponse<String> get(String url) throws Exception {
        return CLIENT.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** Every sample of a scrape; each other line must be a # comment (HELP, TYPE or text). */
    private static Map<String, Double> parse(String text) {
        Map<String, Double> m = new HashMap<>();
        for (String line : text.split("\n")) {
            if (line.startsWith("#")) {
                continue;
            }
            Matcher s = SAMPLE.matcher(line);
            assertTrue(s.matches(), "not a sample line: " + line);
            m.put(s.group(1), Double.parseDouble(s.group(2)));
        }
        return m;
    }

    @Test
    void requestCounterGrowsByExactlyTheRequestsSent() throws Exception {
        HttpServer s = TestSupport.server("/", ex -> TestSupport.respond(ex, 200, "hi"));
        TachyMetrics.mount(s);
        s.start();
        try {
            HttpResponse<String> r = get(TestSupport.url(s, "/metrics"));
            assertEquals(200, r.statusCode());
            assertEquals(TachyMetrics.CONTENT_TYPE, r.headers().firstValue("Content-Type").orElse(null));
            Map<String, Double> before = parse(r.body());
            assertEquals(1.0, before.get("tachy_native"), r.body());
            // the first scrape counted itself
            assertEquals(1.0, before.get("tachy_requests_total"), r.body());
            int n = 50;
            for (int i = 0; i < n; i++) {
                assertEquals(200, get(TestSupport.url(s, "/")).statusCode());
            }
            r = get(TestSupport.url(s, "/metrics"));
            Map<String, Double> after = parse(r.body());
            // the n requests and the second scrape itself
            assertEquals(n + 1, after.get("tachy_requests_total") - before.get("tachy_requests_total"), r.body());
            // the first scrape and the n requests have ended with a 2xx; the second is still running
            assertEquals(n + 1, after.get("tachy_responses_total{code=\"2xx\"}")
                    - before.get("tachy_responses_total{code=\"2xx\"}"), r.body());
            assertTrue(after.get("tachy_connections_open") >= 1, r.body());
            assertTrue(after.get("tachy_pool_threads{state=\"busy\"}") >= 1, r.body());
            // the same text without a request
            assertTrue(TachyMetrics.render(s).contains("tachy_requests_total " + (n + 2) + "\n"),
                    TachyMetrics.render(s));
        } finally {
            s.stop(0);
        }
        assertThrows(IllegalStateException.class, () -> TachyMetrics.render(s));
    }

    @Test
    void headAndOtherMethods() throws Exception {
        HttpServer s = TestSupport.server("/", ex -> TestSupport.respond(ex, 200, "hi"));
        TachyMetrics.mount(s, "/stats");
        s.start();
        try {
            HttpResponse<String> r = CLIENT.send(HttpRequest.newBuilder(URI.create(TestSupport.url(s, "/stats")))
                    .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode());
            assertEquals("", r.body());
            assertTrue(Long.parseLong(r.headers().firstValue("Content-Length").orElse("0")) > 500, r.headers().toString());
            r = CLIENT.send(HttpRequest.newBuilder(URI.create(TestSupport.url(s, "/stats")))
                    .POST(HttpRequest.BodyPublishers.ofString("x")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(405, r.statusCode());
            assertEquals("GET, HEAD", r.headers().firstValue("Allow").orElse(null));
            // only where it was mounted: "/" answers /metrics
            assertEquals("hi", get(TestSupport.url(s, "/metrics")).body());
        } finally {
            s.stop(0);
        }
    }

    @Test
    void thePropertyMountsItAtStart() throws Exception {
        System.setProperty(TachyMetrics.PROPERTY, "/m");
        try {
            HttpServer s = TestSupport.server("/", ex -> TestSupport.respond(ex, 200, "hi"));
            s.start();
            try {
                HttpResponse<String> r = get(TestSupport.url(s, "/m"));
                assertEquals(200, r.statusCode());
                assertEquals(1.0, parse(r.body()).get("tachy_requests_total"), r.body());
            } finally {
                s.stop(0);
            }
            // an application's own context at the path is kept (and a WARNING logged)
            HttpServer own = TestSupport.server("/m", ex -> TestSupport.respond(ex, 200, "mine"));
            own.start();
            try {
                assertEquals("mine", get(TestSupport.url(own, "/m")).body());
            } finally {
                own.stop(0);
            }
        } finally {
            System.clearProperty(TachyMetrics.PROPERTY);
        }
        HttpServer none = TestSupport.server("/x", ex -> TestSupport.respond(ex, 200, "x"));
        none.start();
        try {
            assertEquals(404, get(TestSupport.url(none, "/m")).statusCode(), "unset: nothing mounted");
        } finally {
            none.stop(0);
        }
    }
}
