/*
 * @test
 * @summary A server on port 0 answers a POST with its body: passes on every provider.
 * @run main/othervm SelftestEcho
 */

import com.sun.net.httpserver.HttpServer;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URL;
import java.nio.charset.StandardCharsets;

public class SelftestEcho {
    public static void main(String[] args) throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/echo", ex -> {
            byte[] body;
            try (InputStream in = ex.getRequestBody()) {
                body = in.readAllBytes();
            }
            ex.getResponseHeaders().set("Content-Type", "text/plain");
            ex.sendResponseHeaders(200, body.length);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
        try {
            System.out.println("provider: " + server.getClass().getName());
            URL url = new URL("http://127.0.0.1:" + server.getAddress().getPort() + "/echo");
            for (int i = 0; i < 3; i++) {
                HttpURLConnection c = (HttpURLConnection) url.openConnection();
                c.setDoOutput(true);
                c.setRequestMethod("POST");
                byte[] sent = ("message " + i).getBytes(StandardCharsets.UTF_8);
                try (OutputStream out = c.getOutputStream()) {
                    out.write(sent);
                }
                if (c.getResponseCode() != 200)
                    throw new AssertionError("status " + c.getResponseCode());
                String got;
                try (InputStream in = c.getInputStream()) {
                    got = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                }
                if (!got.equals("message " + i))
                    throw new AssertionError("body \"" + got + "\"");
                if (!"text/plain".equals(c.getHeaderField("Content-Type")))
                    throw new AssertionError("Content-Type " + c.getHeaderField("Content-Type"));
            }
        } finally {
            server.stop(0);
        }
    }
}
