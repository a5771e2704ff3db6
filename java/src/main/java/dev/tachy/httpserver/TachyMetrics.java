package dev.tachy.httpserver;

import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A tachy server's counters as Prometheus text, for a scraper: the C core's
 * {@code tachy_metrics_render} (native/include/tachy/metrics.h; the series are listed in
 * docs/load-balancing.md), served by an ordinary {@link HttpHandler}.
 *
 * <pre>
 *   HttpServer server = HttpServer.create(new InetSocketAddress(8080), 0);
 *   TachyMetrics.mount(server);                      // GET /metrics
 *   server.start();
 * </pre>
 *
 * or without a code change, {@code -Dtachy.metrics=/metrics}: every server this provider
 * creates mounts the handler at that path when it starts (unless the application has a
 * context of its own there; then a WARNING says it was not mounted).
 *
 * <p>The text is Prometheus's exposition format 0.0.4 ({@code Content-Type: text/plain;
 * version=0.0.4; charset=utf-8}), which OpenMetrics scrapers read too: first a gauge
 * {@code tachy_native} (1: tachy's native server serves), then the C core's series as
 * {@code tachy-hello}'s {@code /metrics} serves them. GET and HEAD; any other method gets 405
 * with {@code Allow: GET, HEAD}. A scrape reads relaxed atomic counters (no lock on the
 * request path) and the gauges under the server's lock, and counts itself as a request.
 *
 * <p><b>On the JDK fallback</b> (no native library on this platform, see
 * {@link TachyServerProvider}) there are no tachy counters to read. Nothing throws - the
 * fallback never breaks the application: the handler serves a valid text whose only sample
 * is {@code tachy_native 0}, after a comment with the fallback's reason, so a scrape
 * succeeds and an alert on {@code tachy_native == 0} finds the JVMs that fell back; the
 * first such use logs one WARNING. The same holds for an {@code HttpsServer} whose TLS the
 * JDK's server took over at start ({@link TachyHttpsServer#fallbackReason()}).
 * {@code -Dtachy.metrics} is not applied to the JDK's servers (the property is read by
 * tachy's own {@code start()}): a fallback JVM has no {@code /metrics} context from it.
 *
 * <p>Threads: every method may be called from any thread.
 */
public final class TachyMetrics {
    /** The property naming the path to mount the handler at on start ({@code /metrics}). */
    public static final String PROPERTY = "tachy.metrics";
    /** Where {@link #mount(HttpServer)} mounts the handler. */
    public static final String DEFAULT_PATH = "/metrics";
    /** The response's Content-Type: Prometheus text format 0.0.4. */
    public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private static final byte[] NATIVE_HEAD = ("# HELP tachy_native 1: tachy's native server serves; "
            + "0: the JDK's own server serves (the provider's fallback).\n"
            + "# TYPE tachy_native gauge\n"
            + "tachy_native 1\n").getBytes(StandardCharsets.US_ASCII);
    private static final AtomicBoolean warned = new AtomicBoolean();
    private static final HttpHandler HANDLER = TachyMetrics::serve;

    private TachyMetrics() {}

    /**
     * The handler: it answers with the metrics of the server its context belongs to, so the
     * one instance can be mounted on any number of servers, behind filters and an
     * authenticator like any handler.
     */
    public static HttpHandler handler() {
        return HANDLER;
    }

    /** {@code server.createContext("/metrics", handler())}. */
    public static HttpContext mount(HttpServer server) {
        return mount(server, DEFAULT_PATH);
    }

    /**
     * {@code server.createContext(path, handler())}: throws what createContext throws (an
     * {@link IllegalArgumentException} when the path is taken, on JDK 18 and later).
     */
    public static HttpContext mount(HttpServer server, String path) {
        return server.createContext(path, HANDLER);
    }

    /**
     * The text the handler serves for server, now. On the JDK fallback: the
     * {@code tachy_native 0} text described above.
     *
     * @throws IllegalStateException when server is a tachy server that has been stopped
     */
    public static String render(HttpServer server) {
        return new String(text(server), StandardCharsets.US_ASCII);
    }

    private static byte[] text(HttpServer server) {
        TachyHttpServer t = null;
        String why;
        if (server instanceof TachyHttpServer) {
            t = (TachyHttpServer) server;
            why = null;
        } else if (server instanceof TachyHttpsServer) {
            TachyHttpsServer s = (TachyHttpsServer) server;
            why = s.fallbackReason();
            if (why == null || s.isNative()) {
                t = s.tachy();
            } else {
                why = "the JDK's HTTPS server serves this HttpsServer: " + why;
            }
        } else {
            String reason = TachyServerProvider.fallbackReason();
            why = reason != null ? "the JDK's own server serves: " + reason
                    : "not a tachy server: " + server.getClass().getName();
        }
        if (t == null) {
            return fallback(why);
        }
        byte[] c = t.metrics();
        if (c == null) {
            throw new IllegalStateException("server has been stopped");
        }
        byte[] all = new byte[NATIVE_HEAD.length + c.length];
        System.arraycopy(NATIVE_HEAD, 0, all, 0, NATIVE_HEAD.length);
        System.arraycopy(c, 0, all, NATIVE_HEAD.length, c.length);
        return all;
    }

    private static byte[] fallback(String why) {
        if (warned.compareAndSet(false, true)) {
            System.getLogger("dev.tachy.httpserver").log(Level.WARNING,
                    "tachy: /metrics has no tachy counters to serve ({0}); it serves tachy_native 0", why);
        }
        String line = why.replaceAll("[\\r\\n]+", " ");
        return ("# tachy metrics: " + line + "\n"
                + "# HELP tachy_native 1: tachy's native server serves; "
                + "0: the JDK's own server serves (the provider's fallback).\n"
                + "# TYPE tachy_native gauge\n"
                + "tachy_native 0\n").getBytes(StandardCharsets.UTF_8);
    }

    private static void serve(HttpExchange ex) throws IOException {
        try (ex) {
            String m = ex.getRequestMethod();
            boolean head = m.equals("HEAD");
            if (!head && !m.equals("GET")) {
                ex.getResponseHeaders().set("Allow", "GET, HEAD");
                ex.sendResponseHeaders(405, -1);
                return;
            }
            byte[] body;
            try {
                body = text(ex.getHttpContext().getServer());
            } catch (IllegalStateException stopped) {
                ex.sendResponseHeaders(503, -1);
                return;
            }
            ex.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
            if (head) {
                ex.getResponseHeaders().set("Content-length", Integer.toString(body.length));
                ex.sendResponseHeaders(200, -1);
                return;
            }
            ex.sendResponseHeaders(200, body.length);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(body);
            }
        }
    }

    /**
     * -Dtachy.metrics=PATH on a tachy server's start (TachyHttpServer, TachyHttpsServer):
     * mounts the handler at PATH unless tachy already has a context there. tachy: the
     * server whose contexts are looked at; owner: the one handed to the application.
     */
    static void mountConfigured(TachyHttpServer tachy, HttpServer owner) {
        String path;
        try {
            path = System.getProperty(PROPERTY);
        } catch (SecurityException e) {
            return;
        }
        if (path == null || path.isBlank()) {
            return;
        }
        path = path.trim();
        if (tachy.hasContext(path)) {
            TachyHttpServer.LOGGER.log(Level.WARNING, "tachy: -D" + PROPERTY + "=" + path
                    + ": the application has a context there; the metrics are not mounted");
            return;
        }
        try {
            mount(owner, path);
        } catch (IllegalArgumentException e) {
            TachyHttpServer.LOGGER.log(Level.WARNING, "tachy: -D" + PROPERTY + "=" + path
                    + ": cannot mount the metrics there: " + e.getMessage());
        }
    }
}
