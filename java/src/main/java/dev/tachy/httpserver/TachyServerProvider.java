package dev.tachy.httpserver;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsServer;
import com.sun.net.httpserver.spi.HttpServerProvider;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The {@link HttpServerProvider} that makes {@code HttpServer.create()} return a tachy server.
 * Found through {@code META-INF/services} (class path) or {@code provides} (module path), or
 * named by {@code -Dcom.sun.net.httpserver.HttpServerProvider=dev.tachy.httpserver.TachyServerProvider}.
 *
 * <p><b>Where tachy's native library cannot be used</b> - a platform the jar has no library
 * for (macOS, Windows, FreeBSD, another architecture), a C library too old for it (glibc
 * before 2.17), any other load failure, or native access denied by the JDK (JEP 472,
 * {@code --illegal-native-access=deny}) - this provider creates the JDK's own servers
 * ({@code sun.net.httpserver.DefaultHttpServerProvider}) for both {@link HttpServer} and
 * {@link HttpsServer}, and logs one {@link Level#WARNING} through {@link System.Logger}
 * (logger {@code dev.tachy.httpserver}) saying why and how to get tachy. Applications keep
 * working; what they lose is tachy's speed and the tachy-only APIs (the WebSocket API of
 * {@code dev.tachy.httpserver.websocket} and {@link TachyTls} need the native library).
 * {@code -Dtachy.fallback=false} turns the fallback off: creating a server then throws the
 * load error ({@link UnsatisfiedLinkError}, or {@link IllegalCallerException}).
 * {@link #isNative()} and {@link #fallbackReason()} tell which is in use.
 */
public final class TachyServerProvider extends HttpServerProvider {

    /** Public no-argument constructor, as ServiceLoader and the system property require. */
    public TachyServerProvider() {}

    private static final String JDK_PROVIDER = "sun.net.httpserver.DefaultHttpServerProvider";
    private static final AtomicBoolean warned = new AtomicBoolean();
    private static volatile boolean announced;
    private static volatile HttpServerProvider jdk;

    /** addr null: an unbound server (bind later), as the JDK. */
    @Override
    public HttpServer createHttpServer(InetSocketAddress addr, int backlog) throws IOException {
        if (!useNative()) {
            return jdkProvider().createHttpServer(addr, backlog);
        }
        HttpServer s = new TachyHttpServer(addr, backlog);
        announce();
        return s;
    }

    /** See {@link TachyHttpsServer}: native OpenSSL where it can, else the JDK's HTTPS server. */
    @Override
    public HttpsServer createHttpsServer(InetSocketAddress addr, int backlog) throws IOException {
        if (!useNative()) {
            return jdkProvider().createHttpsServer(addr, backlog);
        }
        return new TachyHttpsServer(addr, backlog);
    }

    /** The version of the native library in use ("0.1.0"); loads it if needed. */
    public static String nativeVersion() {
        return Native.version();
    }

    /**
     * Whether this JVM's servers are tachy's (the native library loads here); false when
     * {@code HttpServer.create()} returns the JDK's server instead. Loads the library if
     * that was not tried yet; never throws.
     */
    public static boolean isNative() {
        return NativeLoader.available();
    }

    /** Why the JDK's server serves instead of tachy's (the load error's message), or null. */
    public static String fallbackReason() {
        if (NativeLoader.available()) {
            return null;
        }
        Throwable t = NativeLoader.failure();
        return t == null ? null : t.getClass().getName() + ": " + t.getMessage();
    }

    /**
     * True when the native library is loaded (loading it on the first call). False when it
     * cannot be and the fallback is allowed: the first such call logs the warning. With
     * -Dtachy.fallback=false, throws the load error instead.
     */
    static boolean useNative() {
        if (NativeLoader.available()) {
            return true;
        }
        if ("false".equalsIgnoreCase(System.getProperty("tachy.fallback", "").trim())) {
            NativeLoader.load(); // throws the recorded error
        }
        if (warned.compareAndSet(false, true)) {
            System.getLogger("dev.tachy.httpserver").log(Level.WARNING,
                    "tachy: the native server is not available on this JVM ({0}); "
                    + "com.sun.net.httpserver is served by the JDK''s own implementation instead. "
                    + "tachy runs on Linux x86_64 and aarch64 with glibc 2.17+ or musl, with native "
                    + "access allowed (--enable-native-access=ALL-UNNAMED, or =dev.tachy.httpserver "
                    + "on the module path). -Dtachy.fallback=false makes this an error.",
                    fallbackReason());
        }
        return false;
    }

    /**
     * The JDK's own provider. sun.net.httpserver is not exported, so: its public constructor
     * when the package is exported to this module ({@code --add-exports
     * jdk.httpserver/sun.net.httpserver=...}); otherwise the instance is allocated through
     * {@code sun.misc.Unsafe.allocateInstance} (jdk.unsupported, open to everyone). That skips
     * only the constructors, which do nothing: DefaultHttpServerProvider has no state and
     * HttpServerProvider's constructor only checks a SecurityManager permission. Its methods
     * are then called through the public HttpServerProvider type.
     */
    static HttpServerProvider jdkProvider() throws IOException {
        HttpServerProvider p = jdk;
        if (p != null) {
            return p;
        }
        synchronized (TachyServerProvider.class) {
            if (jdk != null) {
                return jdk;
            }
            Class<?> c;
            try {
                c = Class.forName(JDK_PROVIDER, true, HttpServer.class.getClassLoader());
            } catch (ClassNotFoundException | LinkageError e) {
                throw new IOException("tachy: the JDK has no " + JDK_PROVIDER + " to fall back to", e);
            }
            Exception constructed = null;
            if (HttpServer.class.getModule().isExported("sun.net.httpserver", TachyServerProvider.class.getModule())) {
                try {
                    p = (HttpServerProvider) c.getConstructor().newInstance();
                } catch (ReflectiveOperationException | RuntimeException e) {
                    constructed = e;
                }
            }
            if (p == null) {
                try {
                    Class<?> u = Class.forName("sun.misc.Unsafe");
                    Field f = u.getDeclaredField("theUnsafe");
                    f.setAccessible(true);
                    Method allocate = u.getMethod("allocateInstance", Class.class);
                    p = (HttpServerProvider) allocate.invoke(f.get(null), c);
                } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                    IOException io = new IOException("tachy: cannot create the JDK's " + JDK_PROVIDER
                            + " (run with --add-exports jdk.httpserver/sun.net.httpserver=ALL-UNNAMED)", e);
                    if (constructed != null) {
                        io.addSuppressed(constructed);
                    }
                    throw io;
                }
            }
            jdk = p;
            return p;
        }
    }

    /** -Dtachy.verbose=true: one line on stderr saying that tachy serves (demos, smoke tests). */
    static void announce() {
        if (!announced && Boolean.getBoolean("tachy.verbose")) {
            announced = true;
            System.err.println("tachy " + Native.version() + ": com.sun.net.httpserver served by "
                    + "the native tachy provider (library " + NativeLoader.source() + ")");
        }
    }
}
