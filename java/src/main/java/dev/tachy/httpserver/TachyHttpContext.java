package dev.tachy.httpserver;

import com.sun.net.httpserver.Authenticator;
import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpPrincipal;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An {@link HttpContext} on tachy. The C context (tachy_context) does the path matching; its C
 * handler is the JNI dispatcher, which comes back here through {@link #lookup} with the id
 * the context was registered under. Filters, the authenticator and the handler are Java
 * objects and run in Java, in the JDK's order: the user filters, then the authenticator (the
 * JDK's AuthFilter is the first of its internal filters, which run after the user's), then the
 * handler.
 */
public final class TachyHttpContext extends HttpContext {

    /* ---- id registry: the C handler's user pointer is an index into this table ---------- */

    private static final Object REGISTRY_LOCK = new Object();
    private static volatile TachyHttpContext[] registry = new TachyHttpContext[16];

    static TachyHttpContext lookup(int id) {
        TachyHttpContext[] r = registry;
        return id >= 0 && id < r.length ? r[id] : null;
    }

    private static int register(TachyHttpContext ctx) {
        synchronized (REGISTRY_LOCK) {
            TachyHttpContext[] r = registry;
            for (int i = 0; i < r.length; i++) {
                if (r[i] == null) {
                    r[i] = ctx; // a volatile re-publish follows below
                    registry = r;
                    return i;
                }
            }
            TachyHttpContext[] bigger = Arrays.copyOf(r, r.length * 2);
            bigger[r.length] = ctx;
            registry = bigger;
            return r.length;
        }
    }

    private static void unregister(int id) {
        synchronized (REGISTRY_LOCK) {
            TachyHttpContext[] r = registry;
            if (id >= 0 && id < r.length) {
                r[id] = null;
                registry = r;
            }
        }
    }

    /* ---- the context ------------------------------------------------------------------ */

    private final TachyHttpServer server;
    private final String path;
    private final int id;
    private final Map<String, Object> attributes = new ConcurrentHashMap<>();
    private final List<Filter> filters = new CopyOnWriteArrayList<>();
    private volatile HttpHandler handler;
    private volatile Authenticator authenticator;
    /** The tachy_context, 0 once removed. Guarded by the server's lock. */
    long nativeHandle;
    /** The last request-target decoded for this context (see {@link #target}). */
    private volatile Target lastTarget;

    /** A request-target's bytes, its String and whether it is plain (immutable). */
    static final class Target {
        final byte[] bytes;
        final String text;
        final boolean plain;

        Target(byte[] bytes, String text, boolean plain) {
            this.bytes = bytes;
            this.text = text;
            this.plain = plain;
        }
    }

    /**
     * The request-target b[s, e) decoded: the one cached here when it is the same as the last
     * one (requests to one context often repeat their target), else a new one that replaces it.
     */
    Target target(byte[] b, int s, int e) {
        Target t = lastTarget;
        if (t != null && Arrays.equals(t.bytes, 0, t.bytes.length, b, s, e)) {
            return t;
        }
        t = new Target(Arrays.copyOfRange(b, s, e),
                new String(b, s, e - s, StandardCharsets.ISO_8859_1),
                RequestHead.plainTarget(b, s, e));
        lastTarget = t;
        return t;
    }

    TachyHttpContext(TachyHttpServer server, String path, HttpHandler handler) {
        if (path == null || path.isEmpty() || path.charAt(0) != '/') {
            throw new IllegalArgumentException("Illegal value for path or protocol");
        }
        this.server = server;
        this.path = path;
        this.handler = handler;
        this.id = register(this);
    }

    int id() {
        return id;
    }

    /** Called by the server once the C context is gone: no more dispatches will find it. */
    void released() {
        unregister(id);
    }

    TachyHttpServer tachyServer() {
        return server;
    }

    @Override
    public HttpHandler getHandler() {
        return handler;
    }

    @Override
    public void setHandler(HttpHandler h) {
        if (h == null) {
            throw new NullPointerException("Null handler parameter");
        }
        synchronized (this) {
            if (handler != null) {
                throw new IllegalArgumentException("handler already set");
            }
            handler = h;
        }
        server.handlerSet(this);
    }

    @Override
    public String getPath() {
        return path;
    }

    @Override
    public HttpServer getServer() {
        return server.owner();
    }

    @Override
    public Map<String, Object> getAttributes() {
        return attributes;
    }

    /** The live list: changes affect the next request at once (a copy-on-write list). */
    @Override
    public List<Filter> getFilters() {
        return filters;
    }

    @Override
    public Authenticator setAuthenticator(Authenticator auth) {
        Authenticator old = authenticator;
        authenticator = auth;
        return old;
    }

    @Override
    public Authenticator getAuthenticator() {
        return authenticator;
    }

    /* ---- per request ---------------------------------------------------------------------- */

    /** Runs the user filters, the authenticator and the handler on x (on the calling thread). */
    void invoke(TachyHttpExchange x) throws IOException {
        HttpHandler h = handler;
        if (h == null) {
            // The C context has no handler until setHandler, so this is only a race with it.
            throw new IOException("No handler for context");
        }
        Authenticator a = authenticator;
        HttpHandler last = a == null ? h : new AuthStep(a, x, h);
        HttpServer owner = server.owner(); // HTTPS: handlers get an HttpsExchange over x
        HttpExchange ux = owner instanceof TachyHttpsServer ? ((TachyHttpsServer) owner).exchange(x) : x;
        if (filters.isEmpty()) {
            last.handle(ux);
        } else {
            new Filter.Chain(filters, last).doFilter(ux);
        }
    }

    /** The JDK's AuthFilter, as the last step before the handler. */
    private static final class AuthStep implements HttpHandler {
        private final Authenticator authenticator;
        private final TachyHttpExchange exchange;
        private final HttpHandler handler;

        AuthStep(Authenticator authenticator, TachyHttpExchange exchange, HttpHandler handler) {
            this.authenticator = authenticator;
            this.exchange = exchange;
            this.handler = handler;
        }

        @Override
        public void handle(HttpExchange t) throws IOException {
            Authenticator.Result r = authenticator.authenticate(t);
            if (r instanceof Authenticator.Success) {
                HttpPrincipal p = ((Authenticator.Success) r).getPrincipal();
                exchange.setPrincipal(p);
                handler.handle(t);
            } else if (r instanceof Authenticator.Retry) {
                consumeInput(t);
                t.sendResponseHeaders(((Authenticator.Retry) r).getResponseCode(), -1);
            } else if (r instanceof Authenticator.Failure) {
                consumeInput(t);
                t.sendResponseHeaders(((Authenticator.Failure) r).getResponseCode(), -1);
            }
        }

        private static void consumeInput(HttpExchange t) throws IOException {
            InputStream in = t.getRequestBody();
            byte[] b = new byte[4096];
            while (in.read(b) != -1) {
                // discard
            }
            in.close();
        }
    }

    @Override
    public String toString() {
        return "TachyHttpContext[" + path + "]";
    }
}
