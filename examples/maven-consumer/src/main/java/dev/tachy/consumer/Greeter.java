package dev.tachy.consumer;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/** The application: plain com.sun.net.httpserver code, no tachy import. */
public final class Greeter {
    private Greeter() {}

    /** A started server on addr answering "hello" at /hello. */
    public static HttpServer start(InetSocketAddress addr) throws IOException {
        HttpServer s = HttpServer.create(addr, 0);
        s.createContext("/hello", ex -> {
            byte[] b = "hello".getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", "text/plain");
            ex.sendResponseHeaders(200, b.length);
            try (OutputStream o = ex.getResponseBody()) {
                o.write(b);
            }
        });
        s.start();
        return s;
    }

    public static void main(String[] args) throws IOException {
        HttpServer s = start(new InetSocketAddress(args.length > 0 ? Integer.parseInt(args[0]) : 8080));
        System.out.println("serving /hello on port " + s.getAddress().getPort() + " with " + s.getClass().getName());
    }
}
