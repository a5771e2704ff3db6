/**
 * tachy: a native implementation of {@code com.sun.net.httpserver}.
 *
 * <p>With this module (or its jar on the class path) present, {@code HttpServer.create()} and
 * {@code HttpsServer.create()} return tachy's servers: the provider is registered here and in
 * {@code META-INF/services/com.sun.net.httpserver.spi.HttpServerProvider}.
 */
module dev.tachy.httpserver {
    requires transitive jdk.httpserver;

    exports dev.tachy.httpserver;
    exports dev.tachy.httpserver.websocket;

    provides com.sun.net.httpserver.spi.HttpServerProvider
            with dev.tachy.httpserver.TachyServerProvider;
}
