package dev.tachy.httpserver;

import dev.tachy.httpserver.internal.Wire;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.BindException;

/**
 * Every native method of the provider, and the two upcalls the native side makes.
 *
 * <p>Natives are registered by {@code JNI_OnLoad} (jni/natives.c) with RegisterNatives; there
 * are no {@code Java_...} exports. Handles are C pointers carried as {@code long}. Calls return
 * what the C function returned: a byte count or 0 on success, a negative {@code TACHY_E*} code
 * on failure, which {@link #check} and {@link #ioException} turn into exceptions.
 *
 * <p>Thread rules are those of the C API (native/include/tachy/*.h): server and context calls
 * from any thread; an exchange from the one thread that currently owns it
 * ({@link NativeExchange} serialises its calls).
 */
final class Native {
    static {
        NativeLoader.load();
    }

    private Native() {}

    /* ---- error codes: the order of TACHY_ERRNO_MAP in tachy/error.h (append only) ------ */
    static final int EINVAL = -1;
    static final int ENOMEM = -2;
    static final int ESTATE = -3;
    static final int EBOUND = -4;
    static final int ENOTBOUND = -5;
    static final int ESTARTED = -6;
    static final int ESTOPPED = -7;
    static final int EADDRINUSE = -8;
    static final int EADDRNOTAVAIL = -9;
    static final int EEXISTS = -10;
    static final int ENOTFOUND = -11;
    static final int EHDRSENT = -12;
    static final int EHDRNOTSENT = -13;
    static final int EBADHEADER = -14;
    static final int ENOBODY = -15;
    static final int ETOOLONG = -16;
    static final int ESHORT = -17;
    static final int ECLOSED = -18;
    static final int EIO = -19;
    static final int ETIMEDOUT = -20;
    static final int EPEERCLOSED = -21;
    static final int ETRUNCATED = -22;
    static final int EPROTO = -23;
    static final int ETOOBIG = -24;
    static final int ESYS = -25;
    static final int EUPGRADED = -26;
    static final int ENOTSUP = -27;
    /** TACHY_EWOULDBLOCK (-33): the exchange is held and the call would block. */
    static final int EWOULDBLOCK = -33;

    /* ---- indexes into the long[] given to serverCreate: jni/wire.h's TACHY_WIRE_OPTIONS
     * table, in its order (WireTest.optionIndexTablesMatchC fails when the two differ) ------ */
    static final int OPT_MAX_REQ_HEADERS = 0;
    static final int OPT_MAX_REQ_HEADER_SIZE = 1;
    static final int OPT_MAX_REQ_TIME_MS = 2;
    static final int OPT_MAX_RSP_TIME_MS = 3;
    static final int OPT_IDLE_INTERVAL_MS = 4;
    static final int OPT_MAX_IDLE_CONNECTIONS = 5;
    static final int OPT_MAX_CONNECTIONS = 6;
    static final int OPT_DRAIN_AMOUNT = 7;
    static final int OPT_NODELAY = 8;
    static final int OPT_THREAD_STACK_SIZE = 9;
    static final int OPT_THREAD_KEEPALIVE_MS = 10;
    static final int OPT_LOG_LEVEL = 11; /* lowest tachy_log_level forwarded to Java; 0 = none */
    static final int OPT_HTTP10_KEEPALIVE_MAX = 12;
    static final int OPT_JDK_HEADER_RULES = 13; /* tachy_options.jdk_header_rules (ServerConfig) */
    static final int OPT_CONTEXT_MATCH = 14; /* tachy_options.context_match (CONTEXT_MATCH_*) */
    static final int OPT_PROXY_PROTOCOL = 15; /* tachy_options.proxy_protocol (tachy.proxyProtocol) */
    static final int OPT_REUSEPORT = 16; /* tachy_options.reuseport (tachy.reuseport) */
    static final int OPT_ACCESS_LOG_FORMAT = 17; /* tachy_options.access_log_format: 0 common, 1 combined */
    static final int OPT_ACCESS_LOG_LINES = 18; /* tachy_options.access_log_lines (the ring) */
    static final int OPT_ACCESS_LOG_LOGGER = 19; /* 1: access-log lines to System.Logger (accessLog) */
    static final int OPT_HTTP2 = 20; /* tachy_options.http2 (HTTP2_*; tachy.http2, TachyServer) */
    static final int OPT_H2_MAX_STREAMS = 21; /* tachy_options.h2_max_streams (tachy.h2MaxStreams) */
    static final int OPT_COUNT = 22;
    /** tachy_options.http2: TACHY_HTTP2_ALL (h2 by ALPN, h2c by prior knowledge and by
     * Upgrade: h2c); 0 = HTTP/1.1 only, the provider's default. */
    static final int HTTP2_ALL = 7;
    /** tachy_options.context_match: TACHY_CONTEXT_MATCH_PATH_PREFIX / _STRING_PREFIX. */
    static final int CONTEXT_MATCH_PATH_PREFIX = 0;
    static final int CONTEXT_MATCH_STRING_PREFIX = 1;
    /** Value meaning "keep the C default" in the options array. */
    static final long OPT_DEFAULT = Long.MIN_VALUE;

    /* ---- library ------------------------------------------------------------------------ */
    static native String version();

    static native String strerror(int code);

    static native String errName(int code);

    /** A new sun.net.httpserver.DefaultHttpServerProvider (the JDK's own), made through JNI
     * because jdk.httpserver does not export its package: the HTTPS fallback. */
    static native Object jdkProvider();

    /* ---- server ------------------------------------------------------------------------- */
    /** tachy_server_create_unbound: the handle (> 0) or a negative code. */
    static native long serverCreate(long[] options);

    /** serverCreate with tachy_options.proxy_trusted = trusted (null: any peer; a malformed
     * list is TACHY_EINVAL) and accessLog, the access log's file path (null: none, or
     * System.Logger: options). */
    static native long serverCreateTrusting(long[] options, String trusted, String accessLog);

    /** tachy_metrics_render for srv: the Prometheus text, ASCII. Any thread while srv lives. */
    static native byte[] metricsRender(long srv);

    static native int serverBind(long srv, String host, int port, int backlog);

    /**
     * tachy_server_start. daemon: whether the pool threads attach as daemon Java threads
     * (false when handlers run on them, as on the JDK's non-daemon dispatcher thread).
     */
    static native int serverStart(long srv, boolean daemon);

    static native int serverStop(long srv, int delaySeconds);

    static native void serverDestroy(long srv);

    /** Numeric host of the bound address, or null when not bound. */
    static native String serverHost(long srv);

    static native int serverPort(long srv);

    static native int serverConnectionCount(long srv);

    /* ---- context ------------------------------------------------------------------------ */
    /**
     * Creates a C context whose handler calls {@link #dispatch} with id (id < 0: no handler
     * yet, the core answers 500 "No handler for context"); the handle or a negative code.
     */
    static native long contextCreate(long srv, String path, int id);

    static native int contextRemove(long srv, long ctx);

    /** tachy_context_set_handler with the dispatcher (for a context created without one). */
    static native int contextSetHandler(long ctx, int id);

    /* ---- exchange ----------------------------------------------------------------------- */
    /** Reads into b[off, off+len): count (> 0), 0 at the end of the body, or a code. */
    static native int read(long ex, byte[] b, int off, int len);

    static native int available(long ex);

    /** Writes all of b[off, off+len): len or a code. */
    static native int write(long ex, byte[] b, int off, int len);

    static native int flush(long ex);

    /**
     * Sends the response headers, those in hdrs[0, hdrsLen) (pairs in the format of
     * jni/wire.h, {@link Wire}) instead of the C headers object. Returns a negative code, or
     * the core's decision as {@link Wire} reads it: the wall-clock second (epoch) they were
     * sent at (the time of the Date header the JDK records in the response headers), the
     * framing, and the Content-length header written.
     */
    static native long sendResponseHeaders(long ex, int code, long len, byte[] hdrs, int hdrsLen);

    /** tachy_exchange_reject: the core's reject response (the JDK's ServerImpl.reject
     * bytes) for a request the core accepted and Java refuses; 0 or a code. */
    static native int reject(long ex, int code, String message);

    /* ---- wire-format checks (WireTest; jni/natives.c) ---------------------------------- */

    /** b[0, len) decoded as pairs by jni/wire.h and encoded again; null if C refuses it. */
    static native byte[] wireEcho(byte[] b, int len);

    /** tachy_wire_result(second, framing, contentLength). */
    static native long wireResult(long second, int framing, int contentLength);

    /** C's tachy_response_framing values, then TACHY_WIRE_CL_NONE, _GIVEN, _ZERO. */
    static native int[] wireFramings();

    /** The names of the option index tables in index order (without OPT_): the server's
     * (jni/wire.h TACHY_WIRE_OPTIONS, Native.OPT_*), or with ws the WebSocket's (jni/bridge.h
     * TACHY_JNI_WS_OPTIONS, WsNative.OPT_*). For WireTest. */
    static native String[] wireOptionNames(boolean ws);

    /** opts through serverCreate's mapping onto tachy_options, read back in index order
     * (defaults where OPT_DEFAULT). For WireTest. */
    static native long[] wireOptionsEcho(long[] opts);

    /** tachy_exchange_close_flags: harvest (TACHY_CLOSE_HARVEST) when the caller is a
     * virtual thread closing a lent exchange - its carrier then serves other ready
     * connections too, and their tasks queue on that carrier. scratch (may be null; its
     * length in scratchLen, trusted): the upcall array of the requests this close
     * dispatches when it continues the connection on the calling thread (jni/bridge.h,
     * tachy_jni_borrowed); null or too small: a new array per request. */
    static native int close(long ex, boolean harvest, byte[] scratch, int scratchLen);

    /** tachy_exchange_hold on, then tachy_exchange_defer_flags(TACHY_DEFER_CLOSER_CONTINUES):
     * the exchange goes to the executor. 0, or a code (the hold is then off again). */
    static native int lend(long ex);

    /** tachy_exchange_hold: while held no call on ex makes a blocking socket call (reads and
     * drains that would wait return EWOULDBLOCK, output stays buffered). */
    static native int hold(long ex, boolean on);

    /** tachy_exchange_held_bytes: bytes waiting in the connection's write buffer. */
    static native int heldBytes(long ex);

    /**
     * tachy_exchange_defer: the handler returned without closing; another thread closes the
     * exchange and a pool thread continues the connection after the close. (An exchange
     * handed to an executor is deferred by {@link #lend} instead.)
     */
    static native int defer(long ex);

    /** tachy_exchange_abort: ends a (deferred) exchange as failed; the connection closes. */
    static native int abort(long ex);

    /** tachy_exchange_try_flush: sends what the socket takes now, never waiting; 1 when
     * bytes remain (flush where blocking is allowed). */
    static native int tryFlush(long ex);

    static native int requestBodyClose(long ex);

    static native int responseBodyClose(long ex);

    /* ---- upcalls (called from C; method IDs cached in JNI_OnLoad) ----------------------- */

    /**
     * The C handler of every context: one call per request. head[0, len) holds the request
     * (the calling thread's reusable array: read during the call, never kept) in the format
     * of jni/wire.h ({@link Wire}). Returns 0, or -1 to have the connection closed without a
     * response (what the JDK does when a handler throws).
     */
    static int dispatch(int contextId, long ex, byte[] head, int len) {
        return TachyHttpServer.dispatch(contextId, ex, head, len);
    }

    /** tachy_options.log: the core's diagnostics, into the JDK's logger. */
    static void log(int level, String message) {
        TachyHttpServer.LOGGER.log(toLevel(level), message);
    }

    /** The access log's logger (-Dtachy.accessLog=System.Logger). */
    static final System.Logger ACCESS_LOGGER = System.getLogger("dev.tachy.httpserver.access");

    /** tachy_options.access_log_fn: one access-log line, on the log's writer thread. */
    static void accessLog(String line) {
        ACCESS_LOGGER.log(Level.INFO, line);
    }

    static Level toLevel(int tachyLevel) {
        switch (tachyLevel) {
            case 1: return Level.DEBUG;
            case 2: return Level.INFO;
            case 3: return Level.WARNING;
            default: return Level.ERROR;
        }
    }

    /** The lowest tachy_log_level whose messages the logger would publish (0 = none). */
    static long lowestLogLevel() {
        for (int l = 1; l <= 4; l++) {
            if (TachyHttpServer.LOGGER.isLoggable(toLevel(l))) {
                return l;
            }
        }
        return 0;
    }

    /* ---- error helpers ------------------------------------------------------------------ */

    static String message(int code) {
        return "tachy: " + strerror(code);
    }

    /** An IOException for an I/O-path error code; messages mirror the JDK's where it has one. */
    static IOException ioException(int code) {
        switch (code) {
            case EADDRINUSE:
                return new BindException("Address already in use");
            case EHDRSENT:
                return new IOException("headers already sent");
            case EHDRNOTSENT:
                return new IOException("response headers not sent yet");
            case ETOOLONG:
                return new IOException("too many bytes to write to stream");
            case ESHORT:
                return new IOException("insufficient bytes written to stream");
            case ECLOSED:
                return new IOException("stream is closed");
            case ETRUNCATED:
                return new IOException("connection closed before all data received");
            default:
                return new IOException(message(code));
        }
    }

    /** Throws ioException(code) when code is negative, else returns it. */
    static int check(int code) throws IOException {
        if (code < 0) {
            throw ioException(code);
        }
        return code;
    }
}
