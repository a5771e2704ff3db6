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
 * returns normally). The handler's thread stays with the connection until it closes.
 * Slow-client policy: a send that cannot complete within the send timeout (5 s by default)
 * fails and the connection is closed; later sends fail at once.
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
        opts[WsNative.OPT_MAX_MESSAGE] = 16 << 20;
        opts[WsNative.OPT_DEFLATE] = 1;
        opts[WsNative.OPT_DEFLATE_THRESHOLD] = 256;
        opts[WsNative.OPT_SEND_TIMEOUT_MS] = 5000;
        opts[WsNative.OPT_CLOSE_TIMEOUT_MS] = 3000;
        opts[WsNative.OPT_IDLE_TIMEOUT_MS] = -1;
        opts[WsNative.OPT_PING_INTERVAL_MS] = -1;
        opts[WsNative.OPT_PING_TIMEOUT_MS] = 10000;
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

    /** Server pings after this much silence; no pong within timeout fails the connection. */
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
            rc = WsNative.serve(h, ws, opts.clone(), subprotocols);
        } finally {
            exchange.close(); // the WebSocket is over (or was refused): end the exchange
        }
        if (rc < 0 && rc != WsNative.EPROTO) {
            throw new IOException("WebSocket upgrade failed (" + rc + ")");
        }
    }
}
