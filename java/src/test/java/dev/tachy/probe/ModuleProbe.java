package dev.tachy.probe;

import com.sun.net.httpserver.HttpServer;
import dev.tachy.httpserver.TachyServerProvider;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URL;
import java.nio.charset.StandardCharsets;

/**
 * Main class (class path, unnamed module) of FallbackTest's module-path runs: tachy is the
 * named module dev.tachy.httpserver there, so this uses its public API only. Its own package:
 * dev.tachy.httpserver belongs to the module, a class path class in it would not be found.
 */
public final class ModuleProbe {
    private ModuleProbe() {}

    public static void main(String[] args) throws Exception {
        HttpServer s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        s.createContext("/", ex -> {
            byte[] b = "module-ok".getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, b.length);
            try (OutputStream o = ex.getResponseBody()) {
                o.write(b);
            }
        });
        s.start();
        String url = "http://" + s.getAddress().getAddress().getHostAddress() + ":" + s.getAddress().getPort() + "/";
        try (InputStream in = new URL(url).openStream()) {
            System.out.println("body=" + new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } finally {
            s.stop(0);
        }
        System.out.println("server=" + s.getClass().getName());
        System.out.println("module=" + TachyServerProvider.class.getModule().getName());
        System.out.println("native=" + TachyServerProvider.isNative());
        System.out.println("reason=" + TachyServerProvider.fallbackReason());
    }
}
