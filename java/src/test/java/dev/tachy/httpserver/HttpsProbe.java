package dev.tachy.httpserver;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.net.InetSocketAddress;
import javax.net.ssl.SSLContext;

/** Child JVM main of HttpsFallbackTest: creates, configures, starts and stops an HttpsServer. */
public final class HttpsProbe {
    private HttpsProbe() {}

    public static void main(String[] args) throws Exception {
        HttpsServer s = HttpsServer.create(new InetSocketAddress(TestSupport.LOOPBACK, 0), 0);
        System.out.println("class=" + s.getClass().getName());
        HttpsConfigurator cfg = new HttpsConfigurator(SSLContext.getDefault());
        s.setHttpsConfigurator(cfg);
        System.out.println("configurator=" + (s.getHttpsConfigurator() == cfg));
        s.createContext("/", ex -> TestSupport.respond(ex, 200, "tls"));
        s.start();
        System.out.println("port=" + s.getAddress().getPort());
        s.stop(0);
        System.out.println("native=" + ((TachyHttpsServer) s).isNative());
    }
}
