package dev.tachy.httpserver;

import java.io.IOException;
import java.io.InputStream;
import java.util.Objects;

/**
 * What {@link TachyHttpExchange#getRequestBody} returns: the request body's bytes as the core
 * decodes them (fixed length or chunked), copied into the caller's array by Native.read.
 *
 * <p>The native calls are the exchange's ({@link NativeExchange#nativeRead}: under its lock,
 * on its live handle); a read or close that would wait under the hold (a lent exchange) is
 * made again through {@link NativeExchange#blocking}. Called by the handler's thread, or the
 * one it handed the exchange to: one at a time, as any InputStream.
 */
final class RequestBody extends InputStream {
    private final NativeExchange x;
    /** Closed by the program, or by the exchange's close (which drains the body itself). */
    volatile boolean closed;
    private byte[] one;

    RequestBody(NativeExchange x) {
        this.x = x;
    }

    @Override
    public int read() throws IOException {
        if (one == null) {
            one = new byte[1];
        }
        int n = read(one, 0, 1);
        return n <= 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        Objects.checkFromIndexSize(off, len, b.length);
        if (closed) {
            throw new IOException("Stream is closed");
        }
        if (len == 0) {
            return 0;
        }
        int n = x.nativeRead(b, off, len);
        if (n == Native.EWOULDBLOCK) {
            n = x.blocking(h -> Native.read(h, b, off, len));
        }
        if (n == 0) {
            return -1;
        }
        return Native.check(n);
    }

    @Override
    public int available() throws IOException {
        if (closed) {
            throw new IOException("Stream is closed");
        }
        return x.nativeAvailable();
    }

    /** Drains what is left of the body (the JDK's LeftOverInputStream.close). */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        int rc = x.nativeRequestBodyClose();
        if (rc == Native.EWOULDBLOCK) {
            rc = x.blocking(Native::requestBodyClose);
        }
        if (rc < 0 && rc != Native.ECLOSED) {
            throw Native.ioException(rc);
        }
    }
}
