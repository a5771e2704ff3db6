package dev.tachy.httpserver;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * tachy's own per-server options, for a program that wants them in code rather than as
 * system properties. The servers it creates are the ones {@code HttpServer.create()} and
 * {@code HttpsServer.create()} return (tachy's, or the JDK's where the native library cannot
 * be used: see {@link TachyServerProvider}); only their creation differs.
 *
 * <pre>{@code
 * HttpServer server = TachyServer.builder().http2(true)
 *         .createHttpServer(new InetSocketAddress(8080), 0);
 * }</pre>
 *
 * <p><b>HTTP/2</b> ({@link Builder#http2}): off by default, as with the property
 * {@code -Dtachy.http2=true} that turns it on for every server. On, a plain server speaks
 * h2c (by prior knowledge and by {@code Upgrade: h2c}) and an HTTPS server on tachy's native
 * TLS offers h2 by ALPN; HTTP/1.1 keeps working beside it. Each stream is an
 * {@code HttpExchange} whose {@code getProtocol()} is {@code "HTTP/2.0"}. The JDK's servers
 * (the fallback, and the JDK's HTTPS server where tachy's TLS cannot serve) speak HTTP/1.1
 * only. See docs/java-provider.md, "HTTP/2".
 *
 * <p>Threads: a builder is not thread-safe; the servers it creates are as any other.
 */
public final class TachyServer {

    private TachyServer() {}

    /** A builder with every option at its property-given default. */
    public static Builder builder() {
        return new Builder();
    }

    /** The options of the servers it creates; each create call reads the properties anew. */
    public static final class Builder {
        private Boolean http2;
        private int h2MaxStreams;

        private Builder() {}

        /**
         * HTTP/2 on (h2 by ALPN, h2c by prior knowledge and by Upgrade: h2c) or off (HTTP/1.1
         * only), whatever {@code tachy.http2} says. Not called: the property decides (off
         * when unset).
         */
        public Builder http2(boolean on) {
            this.http2 = on;
            return this;
        }

        /**
         * The streams a client may have open at once on one HTTP/2 connection
         * (SETTINGS_MAX_CONCURRENT_STREAMS); each may hold a handler. {@code <= 0}: the
         * {@code tachy.h2MaxStreams} property, else 100.
         */
        public Builder h2MaxStreams(int streams) {
            this.h2MaxStreams = streams;
            return this;
        }

        /** As {@code HttpServer.create(addr, backlog)} (addr null: unbound), with these options. */
        public HttpServer createHttpServer(InetSocketAddress addr, int backlog) throws IOException {
            if (!TachyServerProvider.useNative()) {
                return TachyServerProvider.jdkProvider().createHttpServer(addr, backlog);
            }
            HttpServer s = new TachyHttpServer(null, addr, backlog, ServerConfig.options(http2, h2MaxStreams));
            TachyServerProvider.announce();
            return s;
        }

        /** As {@code HttpsServer.create(addr, backlog)} (addr null: unbound), with these options. */
        public HttpsServer createHttpsServer(InetSocketAddress addr, int backlog) throws IOException {
            if (!TachyServerProvider.useNative()) {
                return TachyServerProvider.jdkProvider().createHttpsServer(addr, backlog);
            }
            return new TachyHttpsServer(addr, backlog, ServerConfig.options(http2, h2MaxStreams));
        }
    }
}
