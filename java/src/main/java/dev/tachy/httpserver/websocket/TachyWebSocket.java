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
 * A {@link WebSocket} over an attached C tachy_ws (tachy_ws_attach): no thread of its own.
 * Upcalls (native*) arrive on the server's pool threads, one at a time per socket, in order
 * (nativeOpen on the handler's thread). Sends go straight to the C side, which writes what
 * the socket takes and queues the rest per socket (bounded: maxBacklog), so they never wait
 * for the peer.
 *
 * <p>Flow control (the JDK's request(n)): {@code demand} counts receive-method invocations
 * still allowed. The C side starts suspended (it reads nothing until asked); request(n)
 * resumes it when demand goes up from 0, and the upcall that takes the last unit suspends it
 * before the listener runs, so no message is delivered beyond what was requested and the
 * socket is not read meanwhile (TCP pushes back on the peer). Both changes happen under
 * demandLock, so suspend and resume reach C in the order of the demand changes.
 */
final class TachyWebSocket implements WebSocket {
    private static final Cleaner CLEANER = Cleaner.create();

    private final WebSocket.Listener listener;
    /** tachy_ws*, set in nativeOpen; a C reference released by the Cleaner. */
    private volatile long ws;
    private final Object demandLock = new Object();
    /** Receive-method invocations allowed (guarded by demandLock). */
    private long demand;
    /** The C side is suspended (guarded by demandLock); true from the start. */
    private boolean suspended = true;
    private volatile boolean inputClosed;
    private volatile boolean outputClosed;
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
                : rc == WsNative.ETOOBIG ? "send queue full (maxBacklog): message not sent"
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
            if (suspended) {
                suspended = false;
                WsNative.resume(handle()); // from a callback: continues there; else a pool thread
            }
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
        inputClosed = true;
        outputClosed = true;
        WsNative.abort(handle());
    }

    /* ---- upcalls from jni/ws_natives.c (pool threads, one at a time) -------------------- */

    /**
     * Takes one unit of demand for a receive method; the last one suspends reading first. C
     * delivers nothing while suspended, so demand is never 0 here (false if it were).
     */
    private boolean take() {
        synchronized (demandLock) {
            if (demand == 0) {
                return false;
            }
            if (demand != Long.MAX_VALUE) {
                demand--;
            }
            if (demand == 0 && !suspended) {
                suspended = true;
                WsNative.suspend(ws);
            }
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
