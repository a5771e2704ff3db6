package dev.tachy.httpserver;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.spi.HttpServerProvider;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URL;
import java.nio.charset.StandardCharsets;

/** Main class of the child JVMs in NativeLoaderTest: reports how tachy got loaded. */
public final class LoaderProbe {
    private LoaderProbe() {}

    public static void main(String[] args) throws Exception {
        HttpServer s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        s.createContext("/", ex -> TestSupport.respond(ex, 200, "probe-ok"));
        s.start();
        try (InputStream in = new URL(TestSupport.url(s, "/")).openStream()) {
            System.out.println("body=" + new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } finally {
            s.stop(0);
        }
        System.out.println("provider=" + HttpServerProvider.provider().getClass().getName());
        System.out.println("server=" + s.getClass().getName());
        System.out.println("source=" + NativeLoader.source());
        System.out.println("version=" + Native.version());
    }
}
