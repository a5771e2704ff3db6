package dev.tachy.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.spi.HttpServerProvider;
import org.junit.jupiter.api.Test;

/** The suite really runs against the provider that the surefire execution selected. */
class ProviderTest {

    @Test
    void selectedProviderIsInUse() throws Exception {
        String expected = System.getProperty("compat.expected.provider");
        assertNotNull(expected, "run through maven: compat.expected.provider is not set");
        assertEquals(expected, HttpServerProvider.provider().getClass().getName());
        HttpServer s = HttpServer.create();
        try {
            // HttpServer.create() goes through the same provider
            String impl = s.getClass().getName();
            if (expected.startsWith("sun.")) {
                assertEquals("sun.net.httpserver.HttpServerImpl", impl);
            } else {
                assertEquals(true, impl.startsWith("dev.tachy."), impl);
            }
        } finally {
            s.stop(0);
        }
    }
}
