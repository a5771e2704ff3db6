package dev.tachy.httpserver;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpPrincipal;
import dev.tachy.httpserver.internal.Wire;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Arrays;
import java.util.Map;

/**
 * An {@link HttpExchange} over a C tachy_exchange: the class handlers see.
 *
 * <p>The request arrives in one byte[] (the only upcall of the request; the connection
 * thread's reusable array, valid only during the upcall) in the format of jni/wire.h, read
 * with {@link Wire} and {@link RequestHead}: method, uri, protocol, the response headers the
 * core set before the handler (HTTP/1.0 Connection), then the remote and local addresses and
 * the request headers. The first part is read at once (the method and protocol as shared
 * constants when they are the usual ones); the second is copied and decoded only when the
 * handler asks for the request headers or an address, and the URI is parsed only when asked
 * for when the request-target is one java.net.URI certainly accepts
 * ({@link RequestHead#plainTarget}). The response headers leave in one byte[] (the same
 * format) in {@link #sendResponseHeaders}, whose result carries the core's framing decision.
 * Body bytes cross with array-region copies in {@link RequestBody} and {@link ResponseBody}.
 *
 * <p>The handle, the exchange's lifetime and the hold (an exchange handed to an executor)
 * live in {@link NativeExchange}, whose lock (this object's) guards every native call.
 * Threads: constructed by the connection thread in the upcall; the HttpExchange methods are
 * called by the handler's thread or the one it hands the exchange to, one at a time, as the
 * JDK's (close may race with the core ending the exchange: the lock decides).
 */
final class TachyHttpExchange extends NativeExchange {
    /** JDK 20+ (JDK-8288109): setAttribute(name, null) removes; before, it throws NPE. */
    private static final boolean NULL_ATTRIBUTE_REMOVES = Runtime.version().feature() >= 20;

    private final String method;
    private final String rawUri;
    /** Parsed on demand for a plain request-target (see {@link RequestHead#plainTarget}),
     * else at once; null for a request-target java.net.URI refuses (then {@link #rejected}). */
    private volatile URI uri;
    private final boolean rejected;
    private final String protocol;
    /** Copy of the lazily decoded part of the head: addresses, then request headers. */
    private final byte[] lazy;
    private volatile RequestHeaders requestHeaders;
    private final ResponseHeaders responseHeaders = new ResponseHeaders();

    private final RequestBody requestBody = new RequestBody(this);
    private final ResponseBody responseBody = new ResponseBody(this);
    private InputStream userIn = requestBody;
    private OutputStream userOut = responseBody;

    /** Read by the response body (which fails until they are). */
    volatile boolean headersSent;
    private volatile int responseCode = -1;
    private volatile HttpPrincipal principal;
    private Map<String, Object> attributes;
    private volatile InetSocketAddress remoteAddress;
    private volatile InetSocketAddress localAddress;
    /** The response body has a fixed length (the core framed it with Content-length: N). */
    volatile boolean fixedLength;

    private static final VarHandle REQUEST_HEADERS;

    static {
        try {
            REQUEST_HEADERS = MethodHandles.lookup()
                    .findVarHandle(TachyHttpExchange.class, "requestHeaders", RequestHeaders.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** head[0, len): the request head (layout above); read here, never kept. */
    TachyHttpExchange(TachyHttpContext context, long handle, byte[] head, int len) {
        super(context, handle);
        int n = Wire.length(head, 0);
        method = RequestHead.method(head, 4, n);
        int p = 4 + n;
        n = Wire.length(head, p);
        TachyHttpContext.Target target = context.target(head, p + 4, p + 4 + n);
        rawUri = target.text;
        p += 4 + n;
        n = Wire.length(head, p);
        protocol = RequestHead.protocol(head, p + 4, n);
        p += 4 + n;
        int pairs = Wire.number(head, p);
        p += 4;
        for (int i = 0; i < pairs; i++) { // what the core put in the response already
            String name = Wire.string(head, p);
            p = Wire.next(head, p);
            responseHeaders.add(name, Wire.string(head, p));
            p = Wire.next(head, p);
        }
        if (p > len) {
            throw new IllegalArgumentException("malformed request head");
        }
        lazy = p < len ? Arrays.copyOfRange(head, p, len) : new byte[0];
        if (target.plain) {
            rejected = false;
        } else {
            URI u;
            try {
                u = new URI(rawUri);
            } catch (URISyntaxException x) {
                u = null;
            }
            uri = u;
            rejected = u == null;
        }
    }

    private RequestHeaders decodeRequestHeaders() {
        RequestHeaders h = RequestHead.headers(lazy);
        RequestHeaders won = (RequestHeaders) REQUEST_HEADERS.compareAndExchange(this, null, h);
        return won == null ? h : won;
    }

    /**
     * The JDK refuses (400) a request-target that java.net.URI does not accept. The core
     * refuses before the upcall every target its check (tachy__target_acceptable,
     * native/src/http/target.c) knows URI refuses;
     * a target it lets through that URI still refuses (a scheme starting with a digit,
     * "1a://h/") is found here, and {@link #rejectBadRequest} has the core send
     * its own 400 for it, so both answers are the same bytes.
     */
    boolean rejected() {
        return rejected;
    }

    /**
     * Answers as the JDK's ServerImpl.reject does, with the bytes the core sends when it
     * refuses a target itself (tachy_exchange_reject): the two 400s are the same. Returns
     * the C handler's result.
     */
    int rejectBadRequest() {
        int rc = nativeReject(400, "URISyntaxException thrown");
        if (rc < 0) {
            refused(); // nothing sent: the connection closes
            return -1;
        }
        headersSent = true;
        responseCode = 400;
        responseBody.noBody = true;
        close();
        return 0;
    }

    /** The tachy_exchange* of ex (unwrapping an HTTPS exchange), or 0 when tachy does not
     * serve it: for dev.tachy.httpserver.internal.NativeAccess (the WebSocket upgrade). */
    static long handleOf(HttpExchange ex) throws IOException {
        if (ex instanceof TachyHttpsExchange) {
            ex = ((TachyHttpsExchange) ex).inner();
        }
        return ex instanceof TachyHttpExchange ? ((TachyHttpExchange) ex).nativeHandle() : 0;
    }

    void setPrincipal(HttpPrincipal p) {
        principal = p;
    }

    /* ---- HttpExchange ---------------------------------------------------------------------- */

    @Override
    public Headers getRequestHeaders() {
        RequestHeaders h = requestHeaders;
        return h != null ? h : decodeRequestHeaders();
    }

    @Override
    public Headers getResponseHeaders() {
        return responseHeaders;
    }

    @Override
    public URI getRequestURI() {
        URI u = uri;
        if (u == null && !rejected) {
            try {
                uri = u = new URI(rawUri);
            } catch (URISyntaxException e) { // plainTarget said it parses: cannot happen
                throw new IllegalStateException("request-target " + rawUri, e);
            }
        }
        return u;
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
            remoteAddress = a = RequestHead.address(lazy, 0);
        }
        return a;
    }

    @Override
    public InetSocketAddress getLocalAddress() {
        InetSocketAddress a = localAddress;
        if (a == null) {
            localAddress = a = RequestHead.address(lazy, RequestHead.localAddressAt(lazy));
        }
        return a;
    }

    /** Exchange attributes: per exchange or the context's map, as ServerConfig says. */
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

    /** Made on first use: most exchanges never touch their attributes. A handler and the
     * thread it hands the exchange to may race here; as in the JDK, attributes are not meant
     * to be set concurrently before either has used them. */
    private Map<String, Object> attributes() {
        Map<String, Object> a = attributes;
        if (a == null) {
            attributes = a = ServerConfig.PER_EXCHANGE_ATTRIBUTES
                    ? new java.util.concurrent.ConcurrentHashMap<>()
                    : context.getAttributes();
        }
        return a;
    }

    /**
     * The JDK's framing (see HttpExchange.sendResponseHeaders) is decided by the C core, which
     * writes the status line, Date and the framing header, and reports its decision in the
     * result (jni/wire.h). Here the Headers object mirrors it the way the JDK updates it
     * (Date, Content-length or Transfer-encoding set after sending) and, for a response
     * without body, the exchange is closed as the JDK does.
     */
    @Override
    public void sendResponseHeaders(int rCode, long contentLen) throws IOException {
        if (headersSent) {
            throw new IOException("headers already sent");
        }
        // Every header but Date (the core writes Date, and replaces the framing header it
        // writes itself, as the JDK's set() does).
        Wire.Writer hdrs = new Wire.Writer(256).pairs(responseHeaders, "Date");
        long r = nativeSendResponseHeaders(rCode, contentLen, hdrs.array(), hdrs.length());
        if (r < 0) {
            int rc = (int) r;
            if (rc == Native.EBADHEADER) {
                throw new IllegalArgumentException("illegal character in a response header");
            }
            if (rc == Native.EINVAL) {
                throw new IllegalArgumentException("invalid response code " + rCode);
            }
            throw Native.ioException(rc);
        }
        int framing = Wire.framing(r);
        int cl = Wire.contentLength(r);
        long contentLength = cl == Wire.CL_GIVEN ? contentLen : cl == Wire.CL_ZERO ? 0 : -1;
        fixedLength = framing == Wire.FRAMING_FIXED;
        responseCode = rCode;
        headersSent = true;
        // Date, Content-length / Transfer-encoding: set as the JDK sets them, on first look.
        responseHeaders.sent(Wire.second(r) * 1000, contentLength,
                framing == Wire.FRAMING_CHUNKED);
        if (lent && framing != Wire.FRAMING_FIXED && framing != Wire.FRAMING_EMPTY) {
            // A streamed body: the client sees the headers now (the core flushes them
            // itself when not held): at once if the socket takes them, else where it may wait.
            flushHeld();
        }
        if (framing == Wire.FRAMING_EMPTY) {
            responseBody.noBody = true;
            close();
        }
    }

    /**
     * As the JDK's ExchangeImpl.close: without response headers the connection is closed;
     * otherwise the request body is closed (drained) and the response stream - the one
     * getResponseBody returns, so a filter's wrapper is flushed - is closed, which ends the
     * exchange.
     */
    @Override
    public void close() {
        if (closed) {
            return; // closed is only ever set to true: the locked check below decides races
        }
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
}
