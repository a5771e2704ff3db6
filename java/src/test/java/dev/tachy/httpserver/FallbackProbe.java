package dev.tachy.httpserver;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsServer;
import com.sun.net.httpserver.spi.HttpServerProvider;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URL;
import java.nio.charset.StandardCharsets;

/**
 * Main class of the child JVMs in FallbackTest: serves one request through whatever
 * HttpServer.create() returns, scrapes its TachyMetrics, creates an HttpsServer and a second HttpServer (the warning
 * must still be logged once), and reports what it got.
 */
public final class FallbackProbe {
    private FallbackProbe() {}

    public static void main(String[] args) throws Exception {
        InetSocketAddress any = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        HttpServer s = HttpServer.create(any, 0);
        s.createContext("/", ex -> TestSupport.respond(ex, 200, "fallback-ok"));
        TachyMetrics.mount(s); // never throws, fallback or not
        s.start();
        try (InputStream in = new URL(TestSupport.url(s, "/")).openStream()) {
            System.out.println("body=" + new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
        try (InputStream in = new URL(TestSupport.url(s, "/metrics")).openStream()) {
            // the first sample line: tachy_native 1 on tachy, 0 on the JDK's server
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (!line.startsWith("#")) {
                    System.out.println("metrics=" + line);
                    break;
                }
            }
        } finally {
            s.stop(0);
        }
        HttpsServer https = HttpsServer.create(any, 0);
        https.stop(0);
        HttpServer second = HttpServer.create(any, 0);
        second.stop(0);
        System.out.println("provider=" + HttpServerProvider.provider().getClass().getName());
        System.out.println("server=" + s.getClass().getName());
        System.out.println("https=" + https.getClass().getName());
        System.out.println("native=" + TachyServerProvider.isNative());
        System.out.println("reason=" + TachyServerProvider.fallbackReason());
        System.out.println("platform=" + NativeLoader.platform());
    }
}
