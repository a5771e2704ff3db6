package dev.tachy.httpserver.websocket;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The server side of one WebSocket connection (RFC 6455), shaped like
 * {@link java.net.http.WebSocket} so that Java users already know it.
 *
 * <p>Sends may be called from any thread and never block on a slow peer (plain TCP): the
 * returned future is complete when the send returns - the message was written to the
 * socket or queued behind what the peer has not read yet - or failed with an
 * {@link java.io.IOException} (output closed, or the queue is full: see
 * {@link WebSocketHandler#maxBacklog}). Over TLS a send may wait up to the send timeout.
 * Receiving follows the JDK's flow control: the listener's methods (except onClose and
 * onError) are invoked only while there is demand ({@link #request}); while there is none
 * the socket is not read at all, so TCP pushes back on the peer. The default
 * {@link Listener#onOpen} requests one.
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
     * Receives events of a WebSocket, as {@link java.net.http.WebSocket.Listener} does.
     * onOpen runs on the handler's thread, the others on the server's pool threads: one at
     * a time per socket, in the order frames arrived, never on a thread per socket. Returned stages are accepted
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
