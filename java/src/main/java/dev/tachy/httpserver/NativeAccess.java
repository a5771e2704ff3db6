package dev.tachy.httpserver;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;

/**
 * Internal: hands the C exchange of a tachy {@link HttpExchange} to the WebSocket upgrade
 * in {@code dev.tachy.httpserver.websocket}. Not part of the API.
 */
public final class NativeAccess {
    private NativeAccess() {}

    /** The tachy_exchange* of ex, or 0 when ex is not served by tachy. */
    public static long exchangeHandle(HttpExchange ex) throws IOException {
        if (ex instanceof TachyHttpsExchange) {
            ex = ((TachyHttpsExchange) ex).inner();
        }
        return ex instanceof TachyHttpExchange ? ((TachyHttpExchange) ex).nativeHandle() : 0;
    }

    /** Loads libtachy_jni (which registers every native) if it is not loaded yet. */
    public static void load() {
        NativeLoader.load();
    }
}
