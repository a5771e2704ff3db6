package dev.tachy.httpserver;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;

/** Child JVM main of PropertiesTest: serves "ok" on 127.0.0.1, prints the port, runs until
 * its stdin closes (at most 60 s). */
public final class ServeProbe {
    private ServeProbe() {}

    public static void main(String[] args) throws Exception {
        HttpServer s = HttpServer.create(new InetSocketAddress(TestSupport.LOOPBACK, 0), 0);
        s.createContext("/", ex -> {
            ex.getRequestBody().readAllBytes();
            TestSupport.respond(ex, 200, "ok");
        });
        s.start();
        System.out.println("port=" + s.getAddress().getPort());
        System.out.flush();
        long end = System.currentTimeMillis() + 60_000;
        while (System.in.read() >= 0 && System.currentTimeMillis() < end) {
            // wait for the parent to close our stdin
        }
        s.stop(0);
    }
}
