package dev.tachy.httpserver.websocket;

/**
 * The natives of the WebSocket support (jni/ws_natives.c), registered by JNI_OnLoad. No
 * static initializer on purpose: JNI_OnLoad looks this class up while the library loads.
 * Users reach it only through a served exchange, so the library is loaded by then.
 */
final class WsNative {
    private WsNative() {}

    static final int TEXT = 1;
    static final int BINARY = 2;
    static final int ECLOSED = -18;
    static final int ETIMEDOUT = -20;
    static final int EPROTO = -23;
    static final int ETOOBIG = -24;
    static final int EINVAL = -1;

    /* indexes into attach's long[]: jni/bridge.h TACHY_JNI_WS_OPTIONS, name for name
     * (WireTest fails when the two differ) */
    static final int OPT_MAX_MESSAGE = 0;
    static final int OPT_DEFLATE = 1;
    static final int OPT_DEFLATE_THRESHOLD = 2;
    static final int OPT_SEND_TIMEOUT_MS = 3;
    static final int OPT_CLOSE_TIMEOUT_MS = 4;
    static final int OPT_IDLE_TIMEOUT_MS = 5;
    static final int OPT_PING_INTERVAL_MS = 6;
    static final int OPT_PING_TIMEOUT_MS = 7;
    static final int OPT_MAX_BACKLOG = 8;
    static final int OPT_BACKLOG_POLICY = 9;
    static final int OPT_COUNT = 10;
    /** An option left at this value takes tachy_ws_options_init's default (ws/ws.c, the
     * one source of the WebSocket defaults). */
    static final long OPT_DEFAULT = Long.MIN_VALUE;

    /**
     * tachy_ws_attach: the handshake and onOpen on the calling thread, then returns; later
     * upcalls into conn run on the server's pool threads. Reading starts suspended.
     */
    static native int attach(long exchange, TachyWebSocket conn, long[] opts, String[] subprotocols);

    /** tachy_ws_suspend_reading / tachy_ws_resume_reading (request(n)). */
    static native int suspend(long ws);

    static native int resume(long ws);

    static native int send(long ws, int type, byte[] data, int off, int len, boolean last,
                           boolean fragment);

    static native int control(long ws, boolean ping, byte[] data, int len);

    static native int close(long ws, int code, byte[] reason);

    static native void abort(long ws);

    static native void release(long ws);

    static native boolean isOpen(long ws);

    static native String subprotocol(long ws);

    static native String extensions(long ws);
}
