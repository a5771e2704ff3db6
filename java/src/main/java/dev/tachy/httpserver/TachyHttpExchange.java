package dev.tachy.httpserver;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpPrincipal;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * An {@link HttpExchange} over a C tachy_exchange.
 *
 * <p>The request arrives in one byte[] (the only upcall of the request): NUL-terminated
 * ISO-8859-1 fields {@code method, uri, protocol, remote host, remote port, local host,
 * local port, N}, N request header {@code name, value} pairs, then the response headers the
 * core set before the handler (HTTP/1.0 Connection) as pairs until the end (jni/bridge.c,
 * head_build). The
 * response headers leave in one byte[] in {@link #sendResponseHeaders}. Body bytes cross with
 * array-region copies in read/write.
 *
 * <p>The C exchange is freed by the core once it is closed and the handler has returned, so
 * {@link #handle} is cleared under this object's lock when the exchange is closed, and every
 * native call checks it under the same lock: a late call from another thread gets an
 * IOException, never a dangling pointer.
 */
final class TachyHttpExchange extends HttpExchange {

    private static final DateTimeFormatter DATE_FORMAT =
            DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss zzz", Locale.US)
                    .withZone(ZoneId.of("GMT"));
    private static volatile long cachedDateSecond;
    private static volatile String cachedDate;

    /** JDK 20+ (JDK-8288109): setAttribute(name, null) removes; before, it throws NPE. */
    private static final boolean NULL_ATTRIBUTE_REMOVES = Runtime.version().feature() >= 20;

    private final TachyHttpContext context;
    /** tachy_exchange*, 0 once closed/ended. Guarded by this. */
    private long handle;
    private final String method;
    private final String rawUri;
    private URI uri;
    private final String protocol;
    private final String remoteHost;
    private final int remotePort;
    private final String localHost;
    private final int localPort;
    private final RequestHeaders requestHeaders = new RequestHeaders();
    private final Headers responseHeaders = new Headers();

    private final RequestBody requestBody = new RequestBody();
    private final ResponseBody responseBody = new ResponseBody();
    private InputStream userIn = requestBody;
    private OutputStream userOut = responseBody;

    private volatile boolean headersSent;
    private volatile int responseCode = -1;
    private volatile boolean closed;
    private volatile HttpPrincipal principal;
    private Map<String, Object> attributes;
    private InetSocketAddress remoteAddress;
    private InetSocketAddress localAddress;

    TachyHttpExchange(TachyHttpContext context, long handle, byte[] head) {
        this.context = context;
        this.handle = handle;
        int[] pos = {0};
        method = field(head, pos);
        rawUri = field(head, pos);
        protocol = field(head, pos);
        remoteHost = field(head, pos);
        remotePort = Integer.parseInt(field(head, pos));
        localHost = field(head, pos);
        localPort = Integer.parseInt(field(head, pos));
        int pairs = Integer.parseInt(field(head, pos));
        for (int i = 0; i < pairs; i++) {
            String name = field(head, pos);
            requestHeaders.addParsed(name, field(head, pos));
        }
        requestHeaders.lock();
        while (pos[0] < head.length) { // what the core put in the response already
            String name = field(head, pos);
            responseHeaders.add(name, field(head, pos));
        }
        try {
            uri = new URI(rawUri);
        } catch (URISyntaxException e) {
            uri = null;
        }
    }

    private static String field(byte[] b, int[] pos) {
        int start = pos[0];
        int end = start;
        while (end < b.length && b[end] != 0) {
            end++;
        }
        pos[0] = end + 1;
        return new String(b, start, end - start, StandardCharsets.ISO_8859_1);
    }

    /** The JDK refuses (400) a request-target that java.net.URI does not accept. */
    boolean rejected() {
        return uri == null;
    }

    /** Answers as the JDK's ServerImpl.reject does; returns the C handler's result. */
    int rejectBadRequest() {
        byte[] body = "<h1>400 Bad Request</h1>URISyntaxException thrown"
                .getBytes(StandardCharsets.ISO_8859_1);
        try {
            responseHeaders.set("Content-type", "text/html");
            responseHeaders.set("Connection", "close");
            sendResponseHeaders(400, body.length);
            responseBody.write(body, 0, body.length);
            close();
            return 0;
        } catch (IOException e) {
            invalidate();
            return -1;
        }
    }

    /* ---- lifetime ------------------------------------------------------------------------ */

    /** Closes the C exchange (idempotent). After this no native call uses the handle. */
    private int finish() {
        int rc = 0;
        synchronized (this) {
            if (handle != 0) {
                // tachy_exchange_close drains the request body, then ends the response body
                // and returns what ending it returned (TACHY_ESHORT for a short fixed body).
                rc = Native.close(handle);
                handle = 0;
            }
            uncount();
        }
        context.tachyServer().pending.remove(this);
        return rc;
    }

    /** The C side is ending this exchange without us (failure, rejection): forget the handle. */
    synchronized void invalidate() {
        handle = 0;
        closed = true;
        uncount();
    }

    /** Counted in the server's openExchanges until closed or abandoned (once). */
    boolean counted;

    private void uncount() {
        if (counted) {
            counted = false;
            context.tachyServer().openExchanges.decrementAndGet();
        }
    }

    /** Called when the handler returned normally: an exchange still open is tracked until
     * closed (by another thread); stop() counts it as in progress. */
    void handlerReturned() {
        synchronized (this) {
            if (handle != 0) {
                // The connection thread now waits for close() from whichever thread has it.
                if (Native.defer(handle) < 0) {
                    handle = 0; // already closed by the core: nothing to wait for
                    closed = true;
                    return;
                }
                context.tachyServer().pending.add(this);
            }
        }
    }

    /** Called when the handler threw: 0 keeps the connection if the exchange had been
     * closed cleanly (the response is complete, as the JDK's writefinished), else -1. */
    int afterFailure() {
        synchronized (this) {
            if (handle == 0 && closed) {
                return 0;
            }
            handle = 0; // the core abandons the exchange and closes the connection
            closed = true;
            return -1;
        }
    }

    /** The C tachy_exchange (for the WebSocket upgrade); IOException once closed. */
    long nativeHandle() throws IOException {
        return live();
    }

    private synchronized long live() throws IOException {
        if (handle == 0) {
            throw new IOException("stream is closed");
        }
        return handle;
    }

    void setPrincipal(HttpPrincipal p) {
        principal = p;
    }

    /* ---- HttpExchange ---------------------------------------------------------------------- */

    @Override
    public Headers getRequestHeaders() {
        return requestHeaders;
    }

    @Override
    public Headers getResponseHeaders() {
        return responseHeaders;
    }

    @Override
    public URI getRequestURI() {
        return uri;
    }

    @Override
    public String getRequestMethod() {
        return method;
    }

    @Override
    public HttpContext getHttpContext() {
        return context;
    }

    @Override
    public InputStream getRequestBody() {
        return userIn;
    }

    @Override
    public OutputStream getResponseBody() {
        return userOut;
    }

    @Override
    public void setStreams(InputStream i, OutputStream o) {
        if (i != null) {
            userIn = i;
        }
        if (o != null) {
            userOut = o;
        }
    }

    @Override
    public int getResponseCode() {
        return responseCode;
    }

    @Override
    public String getProtocol() {
        return protocol;
    }

    @Override
    public HttpPrincipal getPrincipal() {
        return principal;
    }

    @Override
    public InetSocketAddress getRemoteAddress() {
        InetSocketAddress a = remoteAddress;
        if (a == null) {
            remoteAddress = a = socketAddress(remoteHost, remotePort);
        }
        return a;
    }

    @Override
    public InetSocketAddress getLocalAddress() {
        InetSocketAddress a = localAddress;
        if (a == null) {
            localAddress = a = socketAddress(localHost, localPort);
        }
        return a;
    }

    private static InetSocketAddress socketAddress(String numericHost, int port) {
        try {
            // A numeric host: no name service lookup happens.
            return new InetSocketAddress(InetAddress.getByName(numericHost), port);
        } catch (UnknownHostException e) {
            return InetSocketAddress.createUnresolved(numericHost, port);
        }
    }

    /** As the JDK: exchange attributes are the context's attribute map. */
    @Override
    public Object getAttribute(String name) {
        if (name == null) {
            throw new NullPointerException("null name parameter");
        }
        return attributes().get(name);
    }

    @Override
    public void setAttribute(String name, Object value) {
        if (name == null) {
            throw new NullPointerException("null name parameter");
        }
        if (value != null || !NULL_ATTRIBUTE_REMOVES) {
            attributes().put(name, value); // JDK < 20: NullPointerException for null
        } else {
            attributes().remove(name);
        }
    }

    private Map<String, Object> attributes() {
        Map<String, Object> a = attributes;
        if (a == null) {
            attributes = a = context.getAttributes();
        }
        return a;
    }

    /**
     * The JDK's framing (see HttpExchange.sendResponseHeaders): the C core writes the status
     * line, Date and the framing headers; here the Headers object is updated the way the JDK
     * updates it (Date, Content-length or Transfer-encoding set after sending) and, for a
     * response without body, the exchange is closed as the JDK does.
     */
    /** The response body has a fixed length (sendResponseHeaders with len > 0). */
    private volatile boolean fixedLength;

    @Override
    public void sendResponseHeaders(int rCode, long contentLen) throws IOException {
        if (headersSent) {
            throw new IOException("headers already sent");
        }
        boolean head = "HEAD".equals(method);
        boolean informational = (rCode >= 100 && rCode < 200) || rCode == 204 || rCode == 304;
        long len = informational ? -1 : contentLen;
        boolean noContent;
        String contentLength = null;
        boolean chunked = false;
        if (head || rCode == 304) {
            noContent = true;
        } else if (len == 0) {
            noContent = false;
            chunked = !"HTTP/1.0".equalsIgnoreCase(protocol);
        } else {
            noContent = len == -1;
            if (!informational) {
                contentLength = noContent ? "0" : Long.toString(len);
            }
        }
        fixedLength = !noContent && !chunked && len > 0;
        byte[] hdrs = serialise(contentLength != null, chunked);
        int rc;
        synchronized (this) {
            long h = live();
            rc = Native.sendResponseHeaders(h, rCode, contentLen, hdrs, hdrs.length);
        }
        if (rc < 0) {
            if (rc == Native.EBADHEADER) {
                throw new IllegalArgumentException("illegal character in a response header");
            }
            if (rc == Native.EINVAL) {
                throw new IllegalArgumentException("invalid response code " + rCode);
            }
            throw Native.ioException(rc);
        }
        responseCode = rCode;
        headersSent = true;
        responseHeaders.set("Date", date());
        if (contentLength != null) {
            responseHeaders.set("Content-length", contentLength);
        }
        if (chunked) {
            responseHeaders.set("Transfer-encoding", "chunked");
        }
        if (noContent) {
            responseBody.noBody = true;
            close();
        }
    }

    /**
     * The response headers as 4-byte big-endian length + ISO-8859-1 bytes, name then value,
     * for every pair (jni/natives.c, headers_load). Date is left out (the core writes it),
     * and so are the framing headers the JDK overwrites in this response.
     */
    private byte[] serialise(boolean skipContentLength, boolean skipTransferEncoding) {
        int size = 0;
        for (Map.Entry<String, List<String>> e : responseHeaders.entrySet()) {
            List<String> values = e.getValue();
            if (values == null) {
                continue;
            }
            for (String v : values) {
                size += 8 + e.getKey().length() + (v == null ? 0 : v.length());
            }
        }
        byte[] out = new byte[size];
        int p = 0;
        for (Map.Entry<String, List<String>> e : responseHeaders.entrySet()) {
            String name = e.getKey();
            if (name.equalsIgnoreCase("Date")
                    || (skipContentLength && name.equalsIgnoreCase("Content-length"))
                    || (skipTransferEncoding && name.equalsIgnoreCase("Transfer-encoding"))) {
                continue;
            }
            List<String> values = e.getValue();
            if (values == null) {
                continue;
            }
            for (String v : values) {
                p = put(out, p, name);
                p = put(out, p, v == null ? "" : v);
            }
        }
        return p == out.length ? out : java.util.Arrays.copyOf(out, p);
    }

    private static int put(byte[] out, int p, String s) {
        int n = s.length();
        out[p] = (byte) (n >>> 24);
        out[p + 1] = (byte) (n >>> 16);
        out[p + 2] = (byte) (n >>> 8);
        out[p + 3] = (byte) n;
        p += 4;
        for (int i = 0; i < n; i++) {
            out[p++] = (byte) s.charAt(i); // the JDK down-casts chars the same way
        }
        return p;
    }

    private static String date() {
        long now = System.currentTimeMillis() / 1000;
        String d = cachedDate;
        if (d == null || now != cachedDateSecond) {
            d = DATE_FORMAT.format(Instant.ofEpochSecond(now));
            cachedDate = d;
            cachedDateSecond = now;
        }
        return d;
    }

    /**
     * As the JDK's ExchangeImpl.close: without response headers the connection is closed;
     * otherwise the request body is closed (drained) and the response stream - the one
     * getResponseBody returns, so a filter's wrapper is flushed - is closed, which ends the
     * exchange.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        try {
            if (!headersSent) {
                return;
            }
            if (userOut != responseBody) {
                // a filter's stream: close the request body first as the JDK does, then let
                // the wrapper flush into the original stream and close it
                if (!requestBody.closed) {
                    requestBody.close();
                }
                userOut.close();
            }
            // otherwise the native close below does both, in the same order, in one call
            requestBody.closed = true;
            responseBody.closed = true;
        } catch (IOException e) {
            // the C close below ends the connection when the response is incomplete
        } finally {
            finish();
        }
    }

    @Override
    public String toString() {
        return "TachyHttpExchange[" + method + " " + rawUri + "]";
    }

    /* ---- streams ------------------------------------------------------------------------------ */

    /** getRequestBody(): decoded body bytes from the core (fixed length or chunked). */
    private final class RequestBody extends InputStream {
        volatile boolean closed;
        private byte[] one;

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
            int n;
            synchronized (TachyHttpExchange.this) {
                n = Native.read(live(), b, off, len);
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
            synchronized (TachyHttpExchange.this) {
                if (handle == 0) {
                    return 0;
                }
                return Math.max(0, Native.available(handle));
            }
        }

        @Override
        public void close() throws IOException {
            if (closed) {
                return;
            }
            closed = true;
            int rc;
            synchronized (TachyHttpExchange.this) {
                if (handle == 0) {
                    return;
                }
                rc = Native.requestBodyClose(handle);
            }
            if (rc < 0 && rc != Native.ECLOSED) {
                throw Native.ioException(rc);
            }
        }
    }

    /** getResponseBody(): fails until headers are sent (the JDK's placeholder stream). */
    private final class ResponseBody extends OutputStream {
        volatile boolean closed;
        volatile boolean noBody;
        private byte[] one;

        private void check() throws IOException {
            if (!headersSent) {
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
            check();
            if (len == 0) {
                return;
            }
            if (noBody) {
                throw new IOException("too many bytes to write to stream");
            }
            int rc;
            synchronized (TachyHttpExchange.this) {
                rc = Native.write(live(), b, off, len);
            }
            Native.check(rc);
        }

        @Override
        public void flush() throws IOException {
            if (closed && headersSent && fixedLength) {
                return; // the JDK's FixedLengthOutputStream: flushing a finished body is harmless
            }
            check();
            int rc;
            synchronized (TachyHttpExchange.this) {
                if (handle == 0) {
                    return;
                }
                rc = Native.flush(handle);
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
            if (!headersSent) {
                throw new IOException("response headers not sent yet");
            }
            closed = true;
            TachyHttpExchange.this.closed = true;
            int rc = finish(); // one native call: request body drained, response ended
            if (rc < 0 && rc != Native.ENOBODY && rc != Native.ECLOSED) {
                throw Native.ioException(rc);
            }
        }
    }
}
