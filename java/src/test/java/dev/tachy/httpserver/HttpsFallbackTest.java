package dev.tachy.httpserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.File;
import java.net.InetSocketAddress;
import java.util.List;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;

/** An SSLContext without key material tachy can reach (SSLContext.getDefault() here): TachyHttpsServer falls back to the JDK's HTTPS server. */
class HttpsFallbackTest {

    @Test
    void withoutAddExportsTheJdkServerIsReachedThroughJni() throws Exception {
        HttpsServer s = HttpsServer.create(new InetSocketAddress(TestSupport.LOOPBACK, 0), 0);
        try {
            assertEquals(TachyHttpsServer.class, s.getClass());
            assertFalse(((TachyHttpsServer) s).isNative());
            HttpsConfigurator cfg = new HttpsConfigurator(SSLContext.getDefault());
            s.setHttpsConfigurator(cfg);
            assertSame(cfg, s.getHttpsConfigurator());
            s.createContext("/", ex -> TestSupport.respond(ex, 200, "tls"));
            s.start();
            assertTrue(s.getAddress().getPort() > 0);
        } finally {
            s.stop(0);
        }
    }

    @Test
    void withAddExportsTheJdkServerIsReachedDirectly() throws Exception {
        List<String> cmd = TestSupport.cmd(TestSupport.javaBin(),
                "--add-exports", "jdk.httpserver/sun.net.httpserver=ALL-UNNAMED",
                "-cp", TestSupport.classesDir() + File.pathSeparator + TestSupport.testClassesDir(),
                HttpsProbe.class.getName());
        TestSupport.Result r = TestSupport.run(cmd, 60);
        assertEquals(0, r.exit, r.toString());
        assertTrue(r.output.contains("class=" + TachyHttpsServer.class.getName()), r.toString());
        assertTrue(r.output.contains("configurator=true"), r.toString());
        assertTrue(r.output.contains("native=false"), r.toString());
    }
}
