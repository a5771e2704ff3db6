package dev.tachy.httpserver;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsServer;
import com.sun.net.httpserver.spi.HttpServerProvider;
import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * The {@link HttpServerProvider} that makes {@code HttpServer.create()} return a tachy server.
 * Found through {@code META-INF/services} (class path) or {@code provides} (module path), or
 * named by {@code -Dcom.sun.net.httpserver.HttpServerProvider=dev.tachy.httpserver.TachyServerProvider}.
 */
public final class TachyServerProvider extends HttpServerProvider {

    /** Public no-argument constructor, as ServiceLoader and the system property require. */
    public TachyServerProvider() {}

    private static volatile boolean announced;

    /** addr null: an unbound server (bind later), as the JDK. */
    @Override
    public HttpServer createHttpServer(InetSocketAddress addr, int backlog) throws IOException {
        HttpServer s = new TachyHttpServer(addr, backlog);
        announce();
        return s;
    }

    /** -Dtachy.verbose=true: one line on stderr saying that tachy serves (demos, smoke tests). */
    private static void announce() {
        if (!announced && Boolean.getBoolean("tachy.verbose")) {
            announced = true;
            System.err.println("tachy " + Native.version() + ": com.sun.net.httpserver served by "
                    + "the native tachy provider (library " + NativeLoader.source() + ")");
        }
    }

    /**
     * See {@link TachyHttpsServer}: native TLS (OpenSSL) when tachy can reach the key material
     * and the configurator's settings map onto OpenSSL, else the JDK's HTTPS server.
     */
    @Override
    public HttpsServer createHttpsServer(InetSocketAddress addr, int backlog) throws IOException {
        return new TachyHttpsServer(addr, backlog);
    }

    /** The version of the native library in use ("0.1.0"); loads it if needed. */
    public static String nativeVersion() {
        return Native.version();
    }
}
