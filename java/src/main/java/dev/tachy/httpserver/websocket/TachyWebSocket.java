package dev.tachy.httpserver.websocket;

import java.io.IOException;
import java.lang.ref.Cleaner;
import java.net.ProtocolException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;

/**
 * A {@link WebSocket} over a C tachy_ws. Upcalls (native*) arrive on the connection thread;
 * sends go straight to the C side, which serialises frames per connection.
 */
final class TachyWebSocket implements WebSocket {
    private static final Cleaner CLEANER = Cleaner.create();

    private final WebSocket.Listener listener;
    /** tachy_ws*, set in nativeOpen; a C reference released by the Cleaner. */
    private volatile long ws;
    private final Object demandLock = new Object();
    private long demand;
    private volatile boolean inputClosed;
    private volatile boolean outputClosed;
    private volatile boolean aborted;
    /** Fragmented sends in progress (JDK semantics: last=false starts/continues one). */
    private boolean sendingText, sendingBinary;

    TachyWebSocket(WebSocket.Listener listener) {
        this.listener = listener;
    }

    /* ---- sending ------------------------------------------------------------------------ */

    private CompletableFuture<WebSocket> result(int rc) {
        if (rc >= 0) {
            return CompletableFuture.completedFuture(this);
        }
        if (rc == WsNative.ECLOSED) {
            outputClosed = true;
        }
        String what = rc == WsNative.ECLOSED ? "output closed"
                : rc == WsNative.ETIMEDOUT ? "send timed out: connection failed"
                : rc == WsNative.EINVAL ? "invalid argument" : "send failed (" + rc + ")";
        if (rc == WsNative.EINVAL) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(what));
        }
        return CompletableFuture.failedFuture(new IOException(what));
    }

    private long handle() {
        long h = ws;
        return h;
    }

    @Override
    public CompletableFuture<WebSocket> sendText(CharSequence data, boolean last) {
        byte[] b;
        try {
            CharsetEncoder enc = StandardCharsets.UTF_8.newEncoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT);
            ByteBuffer bb = enc.encode(CharBuffer.wrap(data));
            b = new byte[bb.remaining()];
            bb.get(b);
        } catch (CharacterCodingException e) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("malformed text", e));
        }
        synchronized (this) {
            if (sendingBinary) {
                return CompletableFuture.failedFuture(new IllegalStateException("binary message pending"));
            }
            boolean fragment = sendingText || !last;
            int rc = WsNative.send(handle(), WsNative.TEXT, b, 0, b.length, last, fragment);
            sendingText = !last && rc >= 0;
            return result(rc);
        }
    }

    @Override
    public CompletableFuture<WebSocket> sendBinary(ByteBuffer data, boolean last) {
        byte[] b = new byte[data.remaining()];
        data.get(b);
        synchronized (this) {
            if (sendingText) {
                return CompletableFuture.failedFuture(new IllegalStateException("text message pending"));
            }
            boolean fragment = sendingBinary || !last;
            int rc = WsNative.send(handle(), WsNative.BINARY, b, 0, b.length, last, fragment);
            sendingBinary = !last && rc >= 0;
            return result(rc);
        }
    }

    private CompletableFuture<WebSocket> control(boolean ping, ByteBuffer message) {
        if (message.remaining() > 125) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("more than 125 bytes"));
        }
        byte[] b = new byte[message.remaining()];
        message.get(b);
        return result(WsNative.control(handle(), ping, b, b.length));
    }

    @Override
    public CompletableFuture<WebSocket> sendPing(ByteBuffer message) {
        return control(true, message);
    }

    @Override
    public CompletableFuture<WebSocket> sendPong(ByteBuffer message) {
        return control(false, message);
    }

    @Override
    public CompletableFuture<WebSocket> sendClose(int statusCode, String reason) {
        byte[] r = reason.getBytes(StandardCharsets.UTF_8);
        int rc = WsNative.close(handle(), statusCode, r);
        if (rc >= 0) {
            outputClosed = true;
        }
        return result(rc);
    }

    @Override
    public void request(long n) {
        if (n <= 0) {
            throw new IllegalArgumentException("non-positive request: " + n);
        }
        synchronized (demandLock) {
            demand = demand + n < 0 ? Long.MAX_VALUE : demand + n;
            demandLock.notifyAll();
        }
    }

    @Override
    public String getSubprotocol() {
        return WsNative.subprotocol(handle());
    }

    @Override
    public String getExtensions() {
        return WsNative.extensions(handle());
    }

    @Override
    public boolean isOutputClosed() {
        return outputClosed || !WsNative.isOpen(handle());
    }

    @Override
    public boolean isInputClosed() {
        return inputClosed;
    }

    @Override
    public void abort() {
        aborted = true;
        inputClosed = true;
        outputClosed = true;
        WsNative.abort(handle());
        synchronized (demandLock) {
            demandLock.notifyAll();
        }
    }

    /* ---- upcalls from jni/ws_natives.c (connection thread) ------------------------------ */

    /** Waits for demand (the JDK's flow control); false when aborted meanwhile. */
    private boolean take() {
        synchronized (demandLock) {
            while (demand == 0 && !aborted) {
                try {
                    demandLock.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            if (aborted) {
                return false;
            }
            demand--;
            return true;
        }
    }

    void nativeOpen(long handle) {
        ws = handle;
        CLEANER.register(this, () -> WsNative.release(handle));
        listener.onOpen(this);
    }

    void nativeMessage(int type, byte[] data, boolean last) {
        if (!take()) {
            return;
        }
        if (type == WsNative.TEXT) {
            listener.onText(this, new String(data, StandardCharsets.UTF_8), last);
        } else {
            listener.onBinary(this, ByteBuffer.wrap(data).asReadOnlyBuffer(), last);
        }
    }

    void nativePing(byte[] data) {
        if (take()) {
            listener.onPing(this, ByteBuffer.wrap(data).asReadOnlyBuffer());
        }
    }

    void nativePong(byte[] data) {
        if (take()) {
            listener.onPong(this, ByteBuffer.wrap(data).asReadOnlyBuffer());
        }
    }

    void nativeClose(int code, byte[] reason) {
        inputClosed = true;
        listener.onClose(this, code, new String(reason, StandardCharsets.UTF_8));
    }

    void nativeError(int err, int closeCode, String what) {
        Throwable t;
        if (err == WsNative.EPROTO || err == WsNative.ETOOBIG) {
            t = new ProtocolException(what + (closeCode != 0 ? " (closed with " + closeCode + ")" : ""));
        } else {
            t = new IOException(what + " (" + err + ")");
        }
        listener.onError(this, t);
    }
}
