package dev.tachy.httpserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.spi.HttpServerProvider;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A request-target the JDK refuses gets one 400, byte for byte, whichever side refuses it:
 * the core (its target check runs before the upcall: "/a|b") or Java (java.net.URI refuses a
 * target the core let through: "1a://h/", a scheme starting with a digit). Both are the
 * JDK's own reject bytes, which the test reads from the JDK's server for the same target.
 * Only a Date value would be normalised (none of the three sends one).
 */
class BadRequestBytesTest {

    private static String get(HttpServer s, String target) throws Exception {
        String rsp = TestSupport.raw(s, "GET " + target + " HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", 5000);
        return rsp.replaceAll("(?m)^Date: [^\r]*\r$", "Date: <date>\r");
    }

    @Test
    void coreAndJavaRejectsAreTheSameBytesAsTheJdks() throws Exception {
        AtomicInteger handled = new AtomicInteger();
        HttpServer tachy = TestSupport.server("/", ex -> {
            handled.incrementAndGet();
            TestSupport.respond(ex, 200, "ok");
        });
        assertTrue(tachy instanceof TachyHttpServer, tachy.getClass().getName());
        HttpServer jdk = ((HttpServerProvider) Native.jdkProvider())
                .createHttpServer(new InetSocketAddress(TestSupport.LOOPBACK, 0), 0);
        jdk.createContext("/", ex -> TestSupport.respond(ex, 200, "ok"));
        tachy.start();
        jdk.start();
        try {
            String byCore = get(tachy, "/a|b");
            String byJava = get(tachy, "1a://h/");
            String byJdk = get(jdk, "/a|b");
            String expected = "HTTP/1.1 400 Bad Request\r\nContent-Length: 49\r\n"
                    + "Content-Type: text/html\r\nConnection: close\r\n\r\n"
                    + "<h1>400 Bad Request</h1>URISyntaxException thrown";
            assertEquals(expected, byCore, "the core's 400");
            assertEquals(byCore, byJava, "the 400 decided in Java");
            assertEquals(byCore, byJdk, "the JDK's 400");
            assertEquals(byJdk, get(jdk, "1a://h/"), "the JDK refuses the second target too");
            assertEquals(0, handled.get(), "no handler ran for a refused target");
            // the server still serves afterwards
            String ok = get(tachy, "/fine");
            assertTrue(ok.startsWith("HTTP/1.1 200 OK\r\n"), ok);
            assertFalse(ok.contains("400"), ok);
        } finally {
            tachy.stop(0);
            jdk.stop(0);
        }
    }
}
