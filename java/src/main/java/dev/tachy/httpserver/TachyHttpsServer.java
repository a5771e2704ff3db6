package dev.tachy.httpserver;

import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import com.sun.net.httpserver.spi.HttpServerProvider;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.Executor;

/**
 * The HTTPS server - for now a skeleton around the JDK's: tachy's native TLS (OpenSSL in
 * native/src/tls.c, and the SSLEngine transport for any SSLContext) is not wired in yet, so
 * every call is delegated to the JDK's own HTTPS server from
 * sun.net.httpserver.DefaultHttpServerProvider. jdk.httpserver does not export that package:
 * the provider is reached through reflection when the JVM runs with
 * {@code --add-exports jdk.httpserver/sun.net.httpserver=ALL-UNNAMED}, and otherwise through
 * JNI (which module access rules do not cover). So HTTPS works, with the JDK's implementation
 * and performance; {@link #isNative()} says which one serves. HTTP servers are not affected.
 */
public final class TachyHttpsServer extends HttpsServer {
    static final String FALLBACK = "sun.net.httpserver.DefaultHttpServerProvider";

    private final HttpsServer delegate;

    TachyHttpsServer(InetSocketAddress addr, int backlog) throws IOException {
        this.delegate = jdkProvider().createHttpsServer(addr, backlog);
    }

    private static HttpServerProvider jdkProvider() {
        try {
            Class<?> c = Class.forName(FALLBACK, true, HttpsServer.class.getClassLoader());
            return (HttpServerProvider) c.getConstructor().newInstance();
        } catch (ReflectiveOperationException | RuntimeException | LinkageError notExported) {
            try {
                return (HttpServerProvider) Native.jdkProvider();
            } catch (RuntimeException | LinkageError e) {
                UnsupportedOperationException u = new UnsupportedOperationException(
                        "tachy: HTTPS is not implemented natively yet and the JDK's HTTPS server ("
                        + FALLBACK + ") cannot be reached");
                u.initCause(e);
                u.addSuppressed(notExported);
                throw u;
            }
        }
    }

    /** True when HTTPS is served by tachy itself (not yet: always false). */
    public boolean isNative() {
        return false;
    }

    @Override
    public void setHttpsConfigurator(HttpsConfigurator config) {
        delegate.setHttpsConfigurator(config);
    }

    @Override
    public HttpsConfigurator getHttpsConfigurator() {
        return delegate.getHttpsConfigurator();
    }

    @Override
    public void bind(InetSocketAddress addr, int backlog) throws IOException {
        delegate.bind(addr, backlog);
    }

    @Override
    public void start() {
        delegate.start();
    }

    @Override
    public void setExecutor(Executor executor) {
        delegate.setExecutor(executor);
    }

    @Override
    public Executor getExecutor() {
        return delegate.getExecutor();
    }

    @Override
    public void stop(int delay) {
        delegate.stop(delay);
    }

    @Override
    public HttpContext createContext(String path, HttpHandler handler) {
        return delegate.createContext(path, handler);
    }

    @Override
    public HttpContext createContext(String path) {
        return delegate.createContext(path);
    }

    @Override
    public void removeContext(String path) {
        delegate.removeContext(path);
    }

    @Override
    public void removeContext(HttpContext context) {
        delegate.removeContext(context);
    }

    @Override
    public InetSocketAddress getAddress() {
        return delegate.getAddress();
    }

    @Override
    public String toString() {
        return "TachyHttpsServer[JDK fallback " + delegate + "]";
    }
}
