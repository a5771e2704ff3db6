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
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * An {@link HttpExchange} over a C tachy_exchange.
 *
 * <p>The request arrives in one byte[] (the only upcall of the request; the connection
 * thread's reusable array, valid only during the upcall) in the format of jni/wire.h, read
 * with {@link Wire}: method, uri, protocol, the response headers the core set before the
 * handler (HTTP/1.0 Connection), then the remote and local addresses and the request
 * headers. The first part is read at once (the method and protocol as shared constants
 * when they are the usual ones); the second is copied and decoded only when the handler
 * asks for the request headers or an address, and the URI is parsed only when asked for
 * when the request-target is one java.net.URI certainly accepts ({@link #plainTarget}).
 * The response headers leave in one byte[] (the same format) in
 * {@link #sendResponseHeaders}, whose result carries the core's framing decision. Body
 * bytes cross with array-region copies in read/write.
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
    /** The last Date formatted, with its second (one object: the pair is always consistent). */
    private static volatile CachedDate cachedDate = new CachedDate(Long.MIN_VALUE, null);

    private static final class CachedDate {
        final long second;
        final String text;

        CachedDate(long second, String text) {
            this.second = second;
            this.text = text;
        }
    }

    /** JDK 20+ (JDK-8288109): setAttribute(name, null) removes; before, it throws NPE. */
    private static final boolean NULL_ATTRIBUTE_REMOVES = Runtime.version().feature() >= 20;

    private final TachyHttpContext context;
    /** tachy_exchange*, 0 once closed/ended. Guarded by this. */
    private long handle;
    private final String method;
    private final String rawUri;
    /** Parsed on demand for a plain request-target (see {@link #plainTarget}), else at once;
     * null for a request-target java.net.URI refuses (then {@link #rejected}). */
    private volatile URI uri;
    private final boolean rejected;
    private final String protocol;
    /** Copy of the lazily decoded part of the head: addresses, then request headers. */
    private final byte[] lazy;
    private volatile RequestHeaders requestHeaders;
    private final ResponseHeaders responseHeaders = new ResponseHeaders();

    private final RequestBody requestBody = new RequestBody();
    private final ResponseBody responseBody = new ResponseBody();
    private InputStream userIn = requestBody;
    private OutputStream userOut = responseBody;

    private volatile boolean headersSent;
    private volatile int responseCode = -1;
    private volatile boolean closed;
    private volatile HttpPrincipal principal;
    private Map<String, Object> attributes;
    private volatile InetSocketAddress remoteAddress;
    private volatile InetSocketAddress localAddress;
    /** In the server's pending set (the handler returned without closing). Guarded by this. */
    private boolean pending;
    /** Set (under this) once handle is 0 for good: lets the usual paths skip the lock. */
    private volatile boolean ended;
    /** With an executor (lend): the exchange is held (no native call on it blocks) and
     * deferred; its close continues the connection on the closing thread. False when the
     * handler runs on the connection thread, and after a WebSocket upgrade. */
    private volatile boolean lent;
    /** Body bytes written under the hold since the last flush (the handler's thread). */
    private int unflushed;
    /** Held output beyond this is sent (by a thread that may block) before more is taken. */
    private static final int HELD_FLUSH_AT = 64 * 1024;
    /** The array a lent exchange's close lends the bridge for the request heads it
     * dispatches (Native.close): the head of a request from an API client or a benchmark
     * fits (a browser's with cookies may not: it then gets an array of its own). */
    private static final int HEAD_SCRATCH = 512;

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
        this.context = context;
        this.handle = handle;
        int n = Wire.length(head, 0);
        method = method(head, 4, n);
        int p = 4 + n;
        n = Wire.length(head, p);
        TachyHttpContext.Target target = context.target(head, p + 4, p + 4 + n);
        rawUri = target.text;
        p += 4 + n;
        n = Wire.length(head, p);
        protocol = protocol(head, p + 4, n);
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

    private static boolean is(byte[] b, int s, String lit) {
        for (int i = 0; i < lit.length(); i++) {
            if (b[s + i] != lit.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** The method as a shared constant when it is a common one (no String per request). */
    static String method(byte[] b, int s, int n) {
        switch (n) {
            case 3:
                if (is(b, s, "GET")) {
                    return "GET";
                }
                if (is(b, s, "PUT")) {
                    return "PUT";
                }
                break;
            case 4:
                if (is(b, s, "POST")) {
                    return "POST";
                }
                if (is(b, s, "HEAD")) {
                    return "HEAD";
                }
                break;
            case 5:
                if (is(b, s, "PATCH")) {
                    return "PATCH";
                }
                if (is(b, s, "TRACE")) {
                    return "TRACE";
                }
                break;
            case 6:
                if (is(b, s, "DELETE")) {
                    return "DELETE";
                }
                break;
            case 7:
                if (is(b, s, "OPTIONS")) {
                    return "OPTIONS";
                }
                if (is(b, s, "CONNECT")) {
                    return "CONNECT";
                }
                break;
            default:
                break;
        }
        return new String(b, s, n, StandardCharsets.ISO_8859_1);
    }

    static String protocol(byte[] b, int s, int n) {
        if (n == 8 && is(b, s, "HTTP/1.")) {
            if (b[s + 7] == '1') {
                return "HTTP/1.1";
            }
            if (b[s + 7] == '0') {
                return "HTTP/1.0";
            }
        }
        return new String(b, s, n, StandardCharsets.ISO_8859_1);
    }

    /**
     * Bytes of a request-target java.net.URI accepts whatever surrounds them (RFC 2396
     * unreserved and reserved characters but '#', brackets and '%'; '%' is checked apart).
     */
    private static final boolean[] PLAIN = new boolean[128];

    static {
        String ok = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                + "-_.!~*'()" + ":@&=+$," + ";/?";
        for (int i = 0; i < ok.length(); i++) {
            PLAIN[ok.charAt(i)] = true;
        }
    }

    private static boolean hex(byte c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }

    /**
     * Whether b[s, e) is an origin-form target that java.net.URI certainly parses: starts with
     * one '/' (not "//", which URI reads as an authority), then only path and query
     * characters of RFC 2396 (no fragment, no brackets, no non-ASCII) with every '%' followed
     * by two hex digits. Such a target is parsed only when getRequestURI is called; any other
     * is parsed at once, so a target URI refuses is still answered 400 before the handler.
     */
    static boolean plainTarget(byte[] b, int s, int e) {
        if (s >= e || b[s] != '/' || (e - s > 1 && b[s + 1] == '/')) {
            return false;
        }
        for (int i = s + 1; i < e; i++) {
            int c = b[i];
            if (c < 0 || !PLAIN[c]) {
                if (c == '%' && i + 2 < e && hex(b[i + 1]) && hex(b[i + 2])) {
                    i += 2;
                    continue;
                }
                return false;
            }
        }
        return true;
    }

    /** The address whose host is the string at p of the lazy part, its port the number
     * after it. */
    private InetSocketAddress lazyAddress(int p) {
        if (p >= lazy.length) {
            return socketAddress("0.0.0.0", 0);
        }
        return socketAddress(Wire.string(lazy, p), Wire.number(lazy, Wire.next(lazy, p)));
    }

    /** Where the local address starts in the lazy part (after the remote host and port). */
    private int localAddressAt() {
        return lazy.length == 0 ? 0 : Wire.next(lazy, 0) + 4;
    }

    private RequestHeaders decodeRequestHeaders() {
        RequestHeaders h = new RequestHeaders();
        int n = lazy.length;
        int p = n == 0 ? 0 : Wire.next(lazy, localAddressAt()) + 4; // after the two addresses
        while (p < n) {
            String name = Wire.string(lazy, p);
            p = Wire.next(lazy, p);
            h.addParsed(name, Wire.string(lazy, p));
            p = Wire.next(lazy, p);
        }
        h.lock();
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
        int rc;
        synchronized (this) {
            rc = handle == 0 ? Native.ECLOSED
                    : Native.reject(handle, 400, "URISyntaxException thrown");
        }
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

    /* ---- lifetime ------------------------------------------------------------------------ */

    /** Closes the C exchange (idempotent). After this no native call uses the handle. */
    private int finish() {
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

    /* ---- the hand-off to an executor (lend) ------------------------------------------------ */

    /** A native call on the live handle. */
    private interface Call {
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
    private int blocking(Call c) {
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
        private final TachyHttpExchange ex;
        private final Call call;
        private final boolean rehold;

        Unheld(TachyHttpExchange ex, Call call, boolean rehold) {
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
     * bodies at once). Any thread; idempotent.
     */
    static void warmOffload() {
        Offload.warm();
        new Unheld(null, null, false).getClass();
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

    /** The executor refused the task: the JDK closes the connection, answering nothing. */
    synchronized void refused() {
        if (handle != 0) {
            Native.abort(handle);
        }
        invalidate();
    }

    /** Sends what the hold kept back: what the socket takes now on this thread, the rest
     * where it may wait (blocking). */
    private int flushHeld() {
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

    /** The C side is ending this exchange without us (failure, rejection): forget the handle. */
    synchronized void invalidate() {
        handle = 0;
        closed = true;
        ended = true;
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

    /** The C tachy_exchange (for the WebSocket upgrade); IOException once closed. */
    long nativeHandle() throws IOException {
        return live();
    }

    /**
     * The C tachy_exchange for a call that never blocks (reading its TLS session: TachyHttpsServer),
     * leaving a lent exchange held: unlike nativeHandle, which lifts the hold for good. 0 once
     * closed. Any thread.
     */
    synchronized long peekHandle() {
        return handle;
    }

    /** The tachy_exchange* of ex (unwrapping an HTTPS exchange), or 0 when tachy does not
     * serve it: for dev.tachy.httpserver.internal.NativeAccess (the WebSocket upgrade). */
    static long handleOf(HttpExchange ex) throws IOException {
        if (ex instanceof TachyHttpsExchange) {
            ex = ((TachyHttpsExchange) ex).inner();
        }
        return ex instanceof TachyHttpExchange ? ((TachyHttpExchange) ex).nativeHandle() : 0;
    }

    private synchronized long live() throws IOException {
        if (handle == 0) {
            throw new IOException("stream is closed");
        }
        if (lent) {
            // The WebSocket upgrade drives the socket itself: no hold.
            Native.hold(handle, false);
            lent = false;
        }
        return handle;
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
            remoteAddress = a = lazyAddress(0);
        }
        return a;
    }

    @Override
    public InetSocketAddress getLocalAddress() {
        InetSocketAddress a = localAddress;
        if (a == null) {
            localAddress = a = lazyAddress(localAddressAt());
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

    /** The response body has a fixed length (the core framed it with Content-length: N). */
    private volatile boolean fixedLength;

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
        long r;
        synchronized (this) {
            if (handle == 0) {
                throw new IOException("stream is closed");
            }
            r = Native.sendResponseHeaders(handle, rCode, contentLen, hdrs.array(), hdrs.length());
        }
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

    /** The Date header value for the epoch millisecond at (cached per second). */
    static String date(long at) {
        long second = Math.floorDiv(at, 1000L);
        CachedDate c = cachedDate;
        if (c.second != second) {
            c = new CachedDate(second, DATE_FORMAT.format(Instant.ofEpochSecond(second)));
            cachedDate = c;
        }
        return c.text;
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
                long h = handle;
                if (h == 0) {
                    throw new IOException("stream is closed");
                }
                n = Native.read(h, b, off, len);
            }
            if (n == Native.EWOULDBLOCK) {
                n = blocking(h -> Native.read(h, b, off, len));
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
            if (rc == Native.EWOULDBLOCK) {
                rc = blocking(Native::requestBodyClose);
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
            if (len == 0 && headersSent) {
                return; // the JDK's streams: a no-op, even after close or without a body
            }
            check();
            if (noBody) {
                throw new IOException("too many bytes to write to stream");
            }
            if (lent) {
                heldWrite(b, off, len);
                return;
            }
            int rc;
            synchronized (TachyHttpExchange.this) {
                long h = handle;
                if (h == 0) {
                    throw new IOException("stream is closed");
                }
                rc = Native.write(h, b, off, len);
            }
            Native.check(rc);
        }

        /** Under the hold: into the write buffer, sent in HELD_FLUSH_AT pieces (flushHeld). */
        private void heldWrite(byte[] b, int off, int len) throws IOException {
            while (len > 0) {
                int n = Math.min(len, HELD_FLUSH_AT);
                int rc;
                synchronized (TachyHttpExchange.this) {
                    long h = handle;
                    if (h == 0) {
                        throw new IOException("stream is closed");
                    }
                    rc = Native.write(h, b, off, n);
                }
                Native.check(rc);
                off += n;
                len -= n;
                unflushed += n;
                if (unflushed >= HELD_FLUSH_AT && lent) {
                    unflushed = 0;
                    int f = flushHeld();
                    if (f < 0 && f != Native.ECLOSED) {
                        throw Native.ioException(f);
                    }
                }
            }
        }

        @Override
        public void flush() throws IOException {
            if (closed && headersSent && fixedLength) {
                return; // the JDK's FixedLengthOutputStream: flushing a finished body is harmless
            }
            check();
            int rc;
            if (lent) {
                unflushed = 0;
                rc = flushHeld();
            } else {
                synchronized (TachyHttpExchange.this) {
                    if (handle == 0) {
                        return;
                    }
                    rc = Native.flush(handle);
                }
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
