package dev.tachy.compat;

import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executor;

/** An HttpServer bound to 127.0.0.1 port 0, stopped by close(). */
final class TestServer implements AutoCloseable {
    final HttpServer server;
    private boolean stopped;

    private TestServer(HttpServer server) {
        this.server = server;
    }

    static InetSocketAddress loopback0() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    }

    /** Created and bound, not started. */
    static TestServer bound() throws IOException {
        return new TestServer(HttpServer.create(loopback0(), 0));
    }

    /** One context "/" with the given handler, started. */
    static TestServer start(HttpHandler root) throws IOException {
        TestServer t = bound();
        t.server.createContext("/", root);
        t.server.start();
        return t;
    }

    static TestServer start(HttpHandler root, Executor executor) throws IOException {
        TestServer t = bound();
        t.server.createContext("/", root);
        t.server.setExecutor(executor);
        t.server.start();
        return t;
    }

    HttpContext context(String path, HttpHandler h) {
        return server.createContext(path, h);
    }

    TestServer started() {
        server.start();
        return this;
    }

    int port() {
        return server.getAddress().getPort();
    }

    URI uri(String pathAndQuery) {
        return URI.create("http://127.0.0.1:" + port() + pathAndQuery);
    }

    RawClient raw() throws IOException {
        return new RawClient(port());
    }

    @Override
    public void close() {
        if (!stopped) {
            stopped = true;
            server.stop(0);
        }
    }

    // ---- handler helpers ----

    static byte[] readAll(InputStream in) throws IOException {
        return in.readAllBytes();
    }

    /** Sends a fixed-length text body and closes the exchange. */
    static void respond(HttpExchange ex, int code, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        ex.sendResponseHeaders(code, b.length == 0 ? -1 : b.length);
        try (OutputStream os = ex.getResponseBody()) {
            os.write(b);
        }
    }

    /** Reads the request body fully and answers "ok". */
    static final HttpHandler OK = ex -> {
        try (InputStream in = ex.getRequestBody()) {
            in.readAllBytes();
        }
        respond(ex, 200, "ok");
    };

    /** Echoes the request body with a fixed length. */
    static final HttpHandler ECHO = ex -> {
        byte[] b;
        try (InputStream in = ex.getRequestBody()) {
            b = in.readAllBytes();
        }
        ex.sendResponseHeaders(200, b.length == 0 ? -1 : b.length);
        try (OutputStream os = ex.getResponseBody()) {
            os.write(b);
        }
    };
}
