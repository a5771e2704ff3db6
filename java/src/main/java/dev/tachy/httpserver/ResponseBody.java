package dev.tachy.httpserver;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Objects;

/**
 * What {@link TachyHttpExchange#getResponseBody} returns: fails until the response headers
 * are sent (the JDK's placeholder stream), then hands body bytes to the core (Native.write),
 * which frames them as sendResponseHeaders decided; its close ends the exchange.
 *
 * <p>The native calls are the exchange's ({@link NativeExchange#nativeWrite}: under its lock,
 * on its live handle). Under the hold (a lent exchange) writes only fill the core's write
 * buffer, and what it keeps is sent by {@link NativeExchange#flushHeld} every
 * {@link #HELD_FLUSH_AT} bytes and on flush. Called by the handler's thread, or the one it
 * handed the exchange to: one at a time, as any OutputStream.
 */
final class ResponseBody extends OutputStream {
    /** Held output beyond this is sent (by a thread that may block) before more is taken. */
    private static final int HELD_FLUSH_AT = 64 * 1024;

    private final TachyHttpExchange x;
    volatile boolean closed;
    /** The response has no body (HEAD, 204, 304, length -1): any byte is too many. */
    volatile boolean noBody;
    /** Body bytes written under the hold since the last flush. */
    private int unflushed;
    private byte[] one;

    ResponseBody(TachyHttpExchange x) {
        this.x = x;
    }

    private void check() throws IOException {
        if (!x.headersSent) {
            throw new IOException("response headers not sent yet");
        }
        if (closed) {
            throw new IOException("stream closed");
        }
    }

    @Override
    public void write(int b) throws IOException {
        if (one == null) {
            one = new byte[1];
        }
        one[0] = (byte) b;
        write(one, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        Objects.checkFromIndexSize(off, len, b.length);
        if (len == 0 && x.headersSent) {
            return; // the JDK's streams: a no-op, even after close or without a body
        }
        check();
        if (noBody) {
            throw new IOException("too many bytes to write to stream");
        }
        if (x.lent) {
            heldWrite(b, off, len);
            return;
        }
        Native.check(x.nativeWrite(b, off, len));
    }

    /** Under the hold: into the write buffer, sent in HELD_FLUSH_AT pieces (flushHeld). */
    private void heldWrite(byte[] b, int off, int len) throws IOException {
        while (len > 0) {
            int n = Math.min(len, HELD_FLUSH_AT);
            Native.check(x.nativeWrite(b, off, n));
            off += n;
            len -= n;
            unflushed += n;
            if (unflushed >= HELD_FLUSH_AT && x.lent) {
                unflushed = 0;
                int f = x.flushHeld();
                if (f < 0 && f != Native.ECLOSED) {
                    throw Native.ioException(f);
                }
            }
        }
    }

    @Override
    public void flush() throws IOException {
        if (closed && x.headersSent && x.fixedLength) {
            return; // the JDK's FixedLengthOutputStream: flushing a finished body is harmless
        }
        check();
        int rc;
        if (x.lent) {
            unflushed = 0;
            rc = x.flushHeld();
        } else {
            rc = x.nativeFlush();
        }
        if (rc < 0 && rc != Native.ENOBODY && rc != Native.ECLOSED) {
            throw Native.ioException(rc);
        }
    }

    /** Ends the response and with it the exchange (the JDK finishes the exchange here). */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        if (!x.headersSent) {
            throw new IOException("response headers not sent yet");
        }
        closed = true;
        x.closed = true;
        int rc = x.finish(); // one native call: request body drained, response ended
        if (rc < 0 && rc != Native.ENOBODY && rc != Native.ECLOSED) {
            throw Native.ioException(rc);
        }
    }
}
