package dev.tachy.httpserver.websocket;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The server side of one WebSocket connection (RFC 6455), shaped like
 * {@link java.net.http.WebSocket} so that Java users already know it.
 *
 * <p>Sends may be called from any thread; each completes before it returns (the returned
 * future is already complete, or failed with an {@link java.io.IOException}). A send that
 * cannot finish within the send timeout fails the connection (see {@link WebSocketHandler}).
 * Receiving follows the JDK's flow control: the listener's methods are invoked only while
 * there is demand ({@link #request}); the default {@link Listener#onOpen} requests one.
 */
public interface WebSocket {

    /** The status code of a normal closure. */
    int NORMAL_CLOSURE = 1000;

    /** Sends text (whole message when last and no fragment is pending). */
    CompletableFuture<WebSocket> sendText(CharSequence data, boolean last);

    /** Sends binary data (whole message when last and no fragment is pending). */
    CompletableFuture<WebSocket> sendBinary(ByteBuffer data, boolean last);

    /** Sends a ping with at most 125 bytes of application data. */
    CompletableFuture<WebSocket> sendPing(ByteBuffer message);

    /** Sends an unsolicited pong with at most 125 bytes of application data. */
    CompletableFuture<WebSocket> sendPong(ByteBuffer message);

    /** Starts the close handshake; no more data can be sent afterwards. */
    CompletableFuture<WebSocket> sendClose(int statusCode, String reason);

    /** Allows n more invocations of the listener's receiving methods. */
    void request(long n);

    /** The selected subprotocol, or "" when none. */
    String getSubprotocol();

    /** The negotiated Sec-WebSocket-Extensions value, or "" when none. */
    String getExtensions();

    /** True once no more data can be sent (close sent, or the connection is gone). */
    boolean isOutputClosed();

    /** True once the connection no longer receives (close received, or it is gone). */
    boolean isInputClosed();

    /** Closes the connection at once, without a close handshake. */
    void abort();

    /**
     * Receives events of a WebSocket, as {@link java.net.http.WebSocket.Listener} does. All
     * methods run on the connection's thread, one at a time. Returned stages are accepted
     * for compatibility; data passed in is never reused, so they need not complete.
     */
    interface Listener {
        default void onOpen(WebSocket webSocket) {
            webSocket.request(1);
        }

        default CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            webSocket.request(1);
            return null;
        }

        default CompletionStage<?> onBinary(WebSocket webSocket, ByteBuffer data, boolean last) {
            webSocket.request(1);
            return null;
        }

        /** A ping arrived; the pong has already been sent. */
        default CompletionStage<?> onPing(WebSocket webSocket, ByteBuffer message) {
            webSocket.request(1);
            return null;
        }

        default CompletionStage<?> onPong(WebSocket webSocket, ByteBuffer message) {
            webSocket.request(1);
            return null;
        }

        /**
         * The peer closed (or the connection ended: 1006). Unless this method sends a close
         * itself, the peer's code is echoed when it returns.
         */
        default CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
            return null;
        }

        default void onError(WebSocket webSocket, Throwable error) {}
    }
}
