package dev.tachy.httpserver;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;

/**
 * The native side of a {@link TachyHttpExchange}: the C tachy_exchange it runs on and every
 * native call on it, the exchange's lifetime (close, abort, defer, invalidate; the server's
 * pending set and openExchanges count) and the hold - the hand-off of the exchange to an
 * executor ({@link #lend}) and the calls that would block under it ({@link #blocking}, made
 * with the hold off, or on a platform thread through {@link Offload} when the caller is
 * virtual).
 *
 * <p>A superclass rather than a field of the exchange: no second object per request, and one
 * lock (the exchange's) guards the handle. The C exchange is freed by the core once it is
 * closed and the handler has returned, so {@link #handle} is cleared under this lock when the
 * exchange is closed, and every native call checks it under the same lock: a late call from
 * another thread gets an IOException or {@link Native#ECLOSED}, never a dangling pointer.
 *
 * <p>Threads: {@link #lend} is called by the connection thread before it submits the
 * exchange, {@link #handlerReturned} and {@link #afterFailure} by the thread that ran the
 * handler; the native* calls, {@link #finish}, {@link #blocking} and {@link #flushHeld} by
 * whichever thread uses the exchange (the handler's, or one it handed the exchange to);
 * {@link #peekHandle} and {@link #nativeHandle} by any.
 */
abstract class NativeExchange extends HttpExchange {

    /** The array a lent exchange's close lends the bridge for the request heads it
     * dispatches (Native.close): the head of a request from an API client or a benchmark
     * fits (a browser's with cookies may not: it then gets an array of its own). */
    private static final int HEAD_SCRATCH = 512;

    final TachyHttpContext context;
    /** tachy_exchange*, 0 once closed/ended. Guarded by this. */
    private long handle;
    /** Closed by the program (HttpExchange.close, the response body's close) or ended by the
     * core. Only ever set to true; set under this where a race with the core matters. */
    volatile boolean closed;
    /** In the server's pending set (the handler returned without closing). Guarded by this. */
    private boolean pending;
    /** Set (under this) once handle is 0 for good: lets the usual paths skip the lock. */
    private volatile boolean ended;
    /** With an executor (lend): the exchange is held (no native call on it blocks) and
     * deferred; its close continues the connection on the closing thread. False when the
     * handler runs on the connection thread, and after a WebSocket upgrade. */
    volatile boolean lent;
    /** Counted in the server's openExchanges until closed or abandoned (once). */
    boolean counted;

    NativeExchange(TachyHttpContext context, long handle) {
        this.context = context;
        this.handle = handle;
    }

    /* ---- calls on the live handle: IOException ("stream is closed") or ECLOSED once closed */

    /** tachy_exchange_send_response_headers with hdrs[0, len) (jni/wire.h); its result. */
    synchronized long nativeSendResponseHeaders(int code, long contentLen, byte[] hdrs, int len)
            throws IOException {
        if (handle == 0) {
            throw new IOException("stream is closed");
        }
        return Native.sendResponseHeaders(handle, code, contentLen, hdrs, len);
    }

    /** tachy_exchange_reject: the core's own answer (code, reason); ECLOSED once closed. */
    synchronized int nativeReject(int code, String reason) {
        return handle == 0 ? Native.ECLOSED : Native.reject(handle, code, reason);
    }

    /** Request body bytes into b[off, off + len): a count, 0 at the end, or a negative code
     * (EWOULDBLOCK under the hold when none are buffered: read again through blocking). */
    synchronized int nativeRead(byte[] b, int off, int len) throws IOException {
        if (handle == 0) {
            throw new IOException("stream is closed");
        }
        return Native.read(handle, b, off, len);
    }

    /** Request body bytes buffered (never negative; 0 once closed). */
    synchronized int nativeAvailable() {
        return handle == 0 ? 0 : Math.max(0, Native.available(handle));
    }

    /** tachy_exchange_request_body_close: drains the rest of the body (EWOULDBLOCK under the
     * hold when that would wait). */
    synchronized int nativeRequestBodyClose() {
        return handle == 0 ? Native.ECLOSED : Native.requestBodyClose(handle);
    }

    /** Response body bytes b[off, off + len) to the core, framed as the headers said. */
    synchronized int nativeWrite(byte[] b, int off, int len) throws IOException {
        if (handle == 0) {
            throw new IOException("stream is closed");
        }
        return Native.write(handle, b, off, len);
    }

    /** tachy_exchange_flush, which may wait for the socket: not under the hold (flushHeld). */
    synchronized int nativeFlush() {
        return handle == 0 ? Native.ECLOSED : Native.flush(handle);
    }

    /* ---- lifetime ------------------------------------------------------------------------ */

    /** Closes the C exchange (idempotent). After this no native call uses the handle. */
    int finish() {
        int rc = 0;
        synchronized (this) {
            if (handle != 0) {
                // tachy_exchange_close drains the request body, then ends the response body
                // and returns what ending it returned (TACHY_ESHORT for a short fixed body).
                // A virtual thread closing a lent exchange harvests: its carrier serves other
                // ready connections too (TACHY_CLOSE_HARVEST, docs/architecture.md).
                // A lent exchange's close continues the connection here and may dispatch the
                // next requests: they come up in this array rather than a new one each.
                rc = lent ? Native.close(handle, closerIsVirtual(), new byte[HEAD_SCRATCH], HEAD_SCRATCH)
                        : Native.close(handle, false, null, 0);
                if (rc != Native.EWOULDBLOCK) {
                    handle = 0;
                }
            }
            if (rc != Native.EWOULDBLOCK) {
                ended = true;
                uncount();
            }
        }
        if (rc == Native.EWOULDBLOCK) {
            // Held, and the drain would wait for body bytes: made where it may block.
            rc = blocking(h -> Native.close(h, false, null, 0), false);
            synchronized (this) {
                handle = 0;
                ended = true;
                uncount();
            }
        }
        if (pending) {
            context.tachyServer().pending.remove(this);
        }
        return rc;
    }

    /** On a virtual thread: from now on the server submits exchanges in order
     * (TachyHttpServer.inOrder). */
    private boolean closerIsVirtual() {
        if (!Offload.onVirtualThread()) {
            return false;
        }
        TachyHttpServer srv = context.tachyServer();
        if (!srv.inOrder) {
            srv.inOrder = true;
        }
        return true;
    }

    /** The executor refused the task: the JDK closes the connection, answering nothing. */
    synchronized void refused() {
        if (handle != 0) {
            Native.abort(handle);
        }
        invalidate();
    }

    /** The C side is ending this exchange without us (failure, rejection): forget the handle. */
    synchronized void invalidate() {
        handle = 0;
        closed = true;
        ended = true;
        uncount();
    }

    private void uncount() {
        if (counted) {
            counted = false;
            context.tachyServer().openExchanges.decrementAndGet();
        }
    }

    /** Called when the handler returned normally: an exchange still open is tracked until
     * closed (by another thread); stop() counts it as in progress. */
    void handlerReturned() {
        if (ended) {
            return; // closed already (the usual case): handle is 0 for good
        }
        synchronized (this) {
            if (handle != 0) {
                // Lent: deferred already (and held: whichever thread closes it is told to
                // wait elsewhere rather than blocking). Else another thread closes it, and a
                // pool thread continues the connection then.
                if (!lent && Native.defer(handle) < 0) {
                    handle = 0; // already closed by the core: nothing to wait for
                    closed = true;
                    return;
                }
                pending = true;
                context.tachyServer().pending.add(this);
            }
        }
    }

    /** Called when the handler threw: 0 keeps the connection if the exchange had been
     * closed cleanly (the response is complete, as the JDK's writefinished), else -1 after
     * ending the exchange as failed (the connection closes once what was written is out). */
    int afterFailure() {
        synchronized (this) {
            if (handle == 0 && closed) {
                return 0;
            }
            if (handle != 0) {
                Native.abort(handle);
            }
            handle = 0;
            closed = true;
            ended = true;
            uncount();
            return -1;
        }
    }

    /* ---- the hand-off to an executor (lend) ------------------------------------------------ */

    /** A native call on the live handle. */
    interface Call {
        int on(long h);
    }

    /**
     * The connection thread, before submitting the exchange to the executor: holds the
     * socket and defers the exchange so that its close (on the executor's thread)
     * continues the connection there. False if the exchange is already closed.
     */
    synchronized boolean lend() {
        if (handle == 0) {
            return false;
        }
        if (Native.lend(handle) < 0) {
            return false;
        }
        lent = true;
        return true;
    }

    /**
     * Makes a call that would block under the hold (it returned EWOULDBLOCK, or it sends):
     * here with the hold off for its duration, or, on a virtual thread, on a platform thread
     * (Offload) while this one parks.
     */
    int blocking(Call c) {
        return blocking(c, true);
    }

    /** rehold false: c ends the exchange, so the hold is not put back (the connection has
     * moved on: the handle may already be the next request's). */
    private int blocking(Call c, boolean rehold) {
        if (!lent || !Offload.onVirtualThread()) {
            return unheld(c, rehold);
        }
        return Offload.call(new Unheld(this, c, rehold));
    }

    /** blocking's call for Offload: a named class, so that warmOffload can load it. */
    private static final class Unheld implements java.util.function.IntSupplier {
        private final NativeExchange ex;
        private final Call call;
        private final boolean rehold;

        Unheld(NativeExchange ex, Call call, boolean rehold) {
            this.ex = ex;
            this.call = call;
            this.rehold = rehold;
        }

        @Override
        public int getAsInt() {
            return ex.unheld(call, rehold);
        }
    }

    /**
     * Loads and links the classes a virtual thread's first Offload.call needs, on the calling
     * (platform) thread: on JDK 21-25 a virtual thread that waits while another loads a class
     * pins its carrier (JFR jdk.VirtualThreadPinned in BuiltinClassLoader.loadClassOrNull
     * under Offload.call, seen with 200 HTTP/2 streams whose handlers all waited for their
     * bodies at once). Call too: the first blocking call of a virtual thread links its
     * lambda, which loads Call if nothing has (the same event, under RequestBody.read, in 1 of
     * 4 Http2Probe runs). Any thread; idempotent.
     */
    static void warmOffload() {
        Offload.warm();
        new Unheld(null, null, false).getClass();
        Call.class.getName(); // the class literal loads it
    }

    private synchronized int unheld(Call c, boolean rehold) {
        long h = handle;
        if (h == 0) {
            return Native.ECLOSED;
        }
        Native.hold(h, false);
        boolean ok = false;
        try {
            int rc = c.on(h);
            ok = true;
            return rc;
        } finally {
            if (lent && (rehold || !ok)) {
                Native.hold(h, true);
            }
        }
    }

    /** Sends what the hold kept back: what the socket takes now on this thread, the rest
     * where it may wait (blocking). */
    int flushHeld() {
        int rc;
        synchronized (this) {
            long h = handle;
            if (h == 0) {
                return Native.ECLOSED;
            }
            rc = Native.tryFlush(h);
        }
        return rc == 1 ? blocking(Native::flush) : rc;
    }

    /* ---- the handle for others --------------------------------------------------------- */

    /** The C tachy_exchange (for the WebSocket upgrade), with the hold lifted for good (the
     * upgrade drives the socket itself); IOException once closed. */
    synchronized long nativeHandle() throws IOException {
        if (handle == 0) {
            throw new IOException("stream is closed");
        }
        if (lent) {
            Native.hold(handle, false);
            lent = false;
        }
        return handle;
    }

    /**
     * The C tachy_exchange for a call that never blocks (reading its TLS session: TachyHttpsServer),
     * leaving a lent exchange held: unlike nativeHandle, which lifts the hold for good. 0 once
     * closed. Any thread.
     */
    synchronized long peekHandle() {
        return handle;
    }
}
