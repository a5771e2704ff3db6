package dev.tachy.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.spi.HttpServerProvider;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

class GreeterTest {

    @Test
    void httpServerCreateReturnsTachy() throws Exception {
        // tachy is on the runtime class path only: found through META-INF/services
        assertEquals("dev.tachy.httpserver.TachyServerProvider", HttpServerProvider.provider().getClass().getName());
        HttpServer s = HttpServer.create();
        try {
            assertEquals("dev.tachy.httpserver.TachyHttpServer", s.getClass().getName());
        } finally {
            s.stop(0);
        }
    }

    @Test
    void theApplicationServesThroughTachy() throws Exception {
        HttpServer s = Greeter.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        try {
            assertEquals("dev.tachy.httpserver.TachyHttpServer", s.getClass().getName());
            HttpClient c = HttpClient.newHttpClient();
            HttpResponse<String> r = c.send(HttpRequest.newBuilder(URI.create(
                    "http://127.0.0.1:" + s.getAddress().getPort() + "/hello")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode());
            assertEquals("hello", r.body());
            assertEquals("text/plain", r.headers().firstValue("Content-Type").orElse(""));
        } finally {
            s.stop(0);
        }
    }
}
