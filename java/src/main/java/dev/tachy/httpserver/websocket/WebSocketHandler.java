package dev.tachy.httpserver.websocket;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import dev.tachy.httpserver.internal.NativeAccess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Function;

/**
 * An {@link HttpHandler} that upgrades requests to WebSocket (RFC 6455, permessage-deflate
 * per RFC 7692) on a tachy server and serves them with a {@link WebSocket.Listener}:
 *
 * <pre>{@code
 * server.createContext("/ws", new WebSocketHandler(ex -> new WebSocket.Listener() {
 *     public CompletionStage<?> onText(WebSocket ws, CharSequence text, boolean last) {
 *         ws.sendText(text, last);
 *         ws.request(1);
 *         return null;
 *     }
 * }));
 * }</pre>
 *
 * <p>Bad upgrade requests are answered 400/405/426 by the native side (the handler then
 * returns normally). After the 101 and {@link WebSocket.Listener#onOpen} (on the handler's
 * thread) the handler returns: an open WebSocket holds no thread. Its socket waits in the
 * server's epoll set, and the listener's other methods run on the server's pool threads
 * when frames arrive, one at a time per socket, in order (a listener may block; the pool
 * grows as it does for slow handlers, but a blocked listener holds a pool thread). Timers
 * in the application (a shared {@link java.util.concurrent.ScheduledExecutorService}) may
 * send from their own threads.
 *
 * <p>Slow-client policy (plain TCP): a send never waits for the peer. What the socket does
 * not take is queued per socket up to {@link #maxBacklog} bytes (1 MiB); a send that would
 * exceed it completes exceptionally with an IOException, and with
 * {@link BacklogPolicy#CLOSE} the connection is also closed with 1008. Over TLS a send
 * encrypts and writes through the stream and may wait up to the send timeout (5 s), after
 * which the connection is failed.
 *
 * <p>Liveness: a peer that sent nothing for 30 s is pinged; no pong within 15 s fails the
 * connection (onError, onClose 1006). See {@link #ping}.
 *
 * <p>Only tachy's provider can upgrade: on another provider the handler answers 501.
 */
public final class WebSocketHandler implements HttpHandler {
    private final Function<HttpExchange, WebSocket.Listener> listeners;
    private final long[] opts = new long[WsNative.OPT_COUNT];
    private volatile String[] subprotocols = new String[0];

    /** listeners gives the listener for each upgraded exchange (called before the 101). */
    public WebSocketHandler(Function<HttpExchange, WebSocket.Listener> listeners) {
        this.listeners = Objects.requireNonNull(listeners);
        // Every default is C's (tachy_ws_options_init in native/src/ws/ws.c): an option the
        // user does not set travels as OPT_DEFAULT and the native side keeps C's value.
        java.util.Arrays.fill(opts, WsNative.OPT_DEFAULT);
    }

    /** What a send does when the socket's queue would exceed {@link #maxBacklog}. */
    public enum BacklogPolicy {
        /** The send's future fails (IOException); nothing of it is queued; the connection stays. */
        FAIL,
        /** The send's future fails and the connection is closed with 1008 "send queue full". */
        CLOSE
    }

    /**
     * Bytes queued per socket for a peer that does not read (default 1 MiB). A message is
     * always taken whole when the queue is empty, so one larger message still goes out.
     */
    public WebSocketHandler maxBacklog(long bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("maxBacklog must be positive: " + bytes);
        }
        opts[WsNative.OPT_MAX_BACKLOG] = bytes;
        return this;
    }

    /** The overflow policy (default {@link BacklogPolicy#FAIL}). */
    public WebSocketHandler backlogPolicy(BacklogPolicy p) {
        opts[WsNative.OPT_BACKLOG_POLICY] = p == BacklogPolicy.CLOSE ? 1 : 0;
        return this;
    }

    /** Subprotocols in the server's order of preference. */
    public WebSocketHandler subprotocols(String... names) {
        subprotocols = names.clone();
        return this;
    }

    /** Largest message (and frame) accepted; bigger ones close with 1009. */
    public WebSocketHandler maxMessageSize(long bytes) {
        opts[WsNative.OPT_MAX_MESSAGE] = bytes;
        return this;
    }

    /** Accept permessage-deflate offers (default true). */
    public WebSocketHandler deflate(boolean on) {
        opts[WsNative.OPT_DEFLATE] = on ? 1 : 0;
        return this;
    }

    public WebSocketHandler sendTimeout(Duration d) {
        opts[WsNative.OPT_SEND_TIMEOUT_MS] = d.toMillis();
        return this;
    }

    public WebSocketHandler idleTimeout(Duration d) {
        opts[WsNative.OPT_IDLE_TIMEOUT_MS] = d.toMillis();
        return this;
    }

    /**
     * Server pings after this much silence from the peer (default 30 s: under the 60 s idle
     * timeouts of common proxies); no pong within timeout (default 15 s) fails the
     * connection. A zero or negative interval turns pinging off.
     */
    public WebSocketHandler ping(Duration interval, Duration timeout) {
        opts[WsNative.OPT_PING_INTERVAL_MS] = interval.toMillis();
        opts[WsNative.OPT_PING_TIMEOUT_MS] = timeout.toMillis();
        return this;
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        long h = NativeAccess.exchangeHandle(exchange);
        if (h == 0) {
            byte[] body = "WebSocket needs the tachy provider\n".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(501, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
            return;
        }
        TachyWebSocket ws = new TachyWebSocket(listeners.apply(exchange));
        int rc;
        try {
            rc = WsNative.attach(h, ws, opts.clone(), subprotocols);
        } finally {
            // Attached (the pool adopts the socket once the handler returns) or refused:
            // either way the exchange is over.
            exchange.close();
        }
        if (rc < 0 && rc != WsNative.EPROTO) {
            throw new IOException("WebSocket upgrade failed (" + rc + ")");
        }
    }
}
