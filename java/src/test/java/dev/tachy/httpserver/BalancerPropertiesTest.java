package dev.tachy.httpserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * -Dtachy.proxyProtocol, -Dtachy.proxyTrusted and -Dtachy.reuseport (read at each server's
 * creation) reach tachy_options: getRemoteAddress() is the PROXY header's client, a peer
 * outside the trusted networks or a connection without a header is closed unanswered, and
 * two servers share a port. docs/load-balancing.md; tests/lb/haproxy_rolling.py runs the
 * Java demo behind a real HAProxy.
 */
class BalancerPropertiesTest {
    private static final String GET = "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";

    private static HttpServer remoteAddressServer() throws Exception {
        return TestSupport.server("/", ex -> {
            InetSocketAddress a = ex.getRemoteAddress();
            TestSupport.respond(ex, 200, a.getAddress().getHostAddress() + " " + a.getPort());
        });
    }

    private static void withProperties(String proxy, String trusted, String reuseport, Body body) throws Exception {
        set("tachy.proxyProtocol", proxy);
        set("tachy.proxyTrusted", trusted);
        set("tachy.reuseport", reuseport);
        try {
            body.run();
        } finally {
            System.clearProperty("tachy.proxyProtocol");
            System.clearProperty("tachy.proxyTrusted");
            System.clearProperty("tachy.reuseport");
        }
    }

    private interface Body {
        void run() throws Exception;
    }

    private static void set(String name, String value) {
        if (value == null) {
            System.clearProperty(name);
        } else {
            System.setProperty(name, value);
        }
    }

    /** Closed without a byte: a FIN, or a reset (the request was left unread). */
    private static void assertClosedUnanswered(String got) {
        assertTrue(got.isEmpty() || got.equals("<SocketException>"), got);
    }

    @Test
    void proxyProtocolGivesTheClientsAddress() throws Exception {
        withProperties("true", "127.0.0.1", null, () -> {
            HttpServer s = remoteAddressServer();
            s.start();
            try {
                String v1 = TestSupport.raw(s, "PROXY TCP4 192.0.2.7 127.0.0.1 5555 80\r\n" + GET, 5000);
                assertTrue(v1.startsWith("HTTP/1.1 200"), v1);
                assertTrue(v1.endsWith("\r\n\r\n192.0.2.7 5555"), v1);
                String v1six = TestSupport.raw(s, "PROXY TCP6 2001:db8::1 ::1 4444 80\r\n" + GET, 5000);
                assertTrue(v1six.endsWith("\r\n\r\n2001:db8:0:0:0:0:0:1 4444"), v1six);
                // no header: not through the balancer, closed without a byte
                assertClosedUnanswered(TestSupport.raw(s, GET, 5000));
            } finally {
                s.stop(0);
            }
        });
    }

    @Test
    void anUntrustedPeerIsClosed() throws Exception {
        withProperties("true", "10.0.0.0/8", null, () -> {
            HttpServer s = remoteAddressServer();
            s.start();
            try {
                String r = TestSupport.raw(s, "PROXY TCP4 192.0.2.7 127.0.0.1 5555 80\r\n" + GET, 5000);
                assertClosedUnanswered(r); // 127.0.0.1 is not in 10.0.0.0/8
            } finally {
                s.stop(0);
            }
        });
        withProperties("true", "10.0.0.0/99", null, () -> {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, BalancerPropertiesTest::remoteAddressServer);
            assertTrue(e.getMessage().contains("tachy.proxyTrusted=10.0.0.0/99"), e.getMessage());
        });
    }

    @Test
    void offAHeaderIsNotHttp() throws Exception {
        HttpServer s = remoteAddressServer();
        s.start();
        try {
            String r = TestSupport.raw(s, "PROXY TCP4 192.0.2.7 127.0.0.1 5555 80\r\n" + GET, 5000);
            assertTrue(r.startsWith("HTTP/1.1 400"), r);
            r = TestSupport.raw(s, GET, 5000);
            assertTrue(r.startsWith("HTTP/1.1 200") && r.contains("\r\n\r\n127.0.0.1 "), r);
        } finally {
            s.stop(0);
        }
    }

    @Test
    void reuseportServersShareAPort() throws Exception {
        HttpServer first = remoteAddressServer();
        int port = first.getAddress().getPort();
        try {
            // without the property the port is taken
            assertThrows(BindException.class,
                    () -> HttpServer.create(new InetSocketAddress(TestSupport.LOOPBACK, port), 0));
        } finally {
            first.stop(0);
        }
        withProperties(null, null, "true", () -> {
            HttpServer a = remoteAddressServer();
            int p = a.getAddress().getPort();
            HttpServer b = HttpServer.create(new InetSocketAddress(TestSupport.LOOPBACK, p), 0);
            b.createContext("/", ex -> TestSupport.respond(ex, 200, "b"));
            a.start();
            b.start();
            try {
                Set<String> seen = new HashSet<>();
                for (int i = 0; i < 64 && seen.size() < 2; i++) {
                    String r = TestSupport.raw(a, GET, 5000);
                    seen.add(r.endsWith("\r\n\r\nb") ? "b" : "a");
                }
                assertEquals(Set.of("a", "b"), seen, "the kernel spreads connections over both");
            } finally {
                a.stop(0);
                b.stop(0);
            }
        });
    }
}
