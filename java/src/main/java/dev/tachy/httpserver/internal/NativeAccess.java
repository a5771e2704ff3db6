package dev.tachy.httpserver.internal;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Internal: hands the C exchange (a raw tachy_exchange*) of a tachy {@link HttpExchange} to
 * the WebSocket upgrade in {@code dev.tachy.httpserver.websocket}, and to nothing else.
 *
 * <p>This package is not exported by the module, so modular code cannot see it. On the class
 * path every public class is reachable, so {@link #exchangeHandle} also checks its caller:
 * only {@code dev.tachy.httpserver.websocket.WebSocketHandler} of this jar (the same class
 * loader) gets a pointer; any other caller gets an {@link IllegalCallerException}.
 */
public final class NativeAccess {
    private NativeAccess() {}

    private static final StackWalker WALKER =
            StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);
    private static final String ALLOWED = "dev.tachy.httpserver.websocket.WebSocketHandler";
    /** TachyHttpExchange.handleOf(HttpExchange): package-private in dev.tachy.httpserver,
     * reached through a private lookup (the same module: always permitted). */
    private static final MethodHandle HANDLE_OF;

    static {
        try {
            Class<?> c = Class.forName("dev.tachy.httpserver.TachyHttpExchange", false,
                    NativeAccess.class.getClassLoader());
            HANDLE_OF = MethodHandles.privateLookupIn(c, MethodHandles.lookup()).findStatic(c,
                    "handleOf", MethodType.methodType(long.class, HttpExchange.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * The tachy_exchange* of ex, or 0 when ex is not served by tachy; IOException once the
     * exchange is closed. Only for {@code WebSocketHandler} (see above).
     */
    public static long exchangeHandle(HttpExchange ex) throws IOException {
        Class<?> caller = WALKER.getCallerClass();
        if (!caller.getName().equals(ALLOWED)
                || caller.getClassLoader() != NativeAccess.class.getClassLoader()
                || caller.getModule() != NativeAccess.class.getModule()) {
            throw new IllegalCallerException(caller.getName() + " may not take a native handle");
        }
        try {
            return (long) HANDLE_OF.invokeExact(ex);
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
