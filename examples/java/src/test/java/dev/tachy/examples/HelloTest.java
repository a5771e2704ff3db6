package dev.tachy.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Runs the example as a program (child JVM, the provider jar on the class path) on port 0. */
class HelloTest {

    @Test
    void sameRoutesAsTachyHello() throws Exception {
        routes(false);
    }

    /** -Dtachy.http2=true: the same routes over h2c (the JDK's client asks by Upgrade: h2c). */
    @Test
    void sameRoutesOverHttp2WithTheProperty() throws Exception {
        routes(true);
    }

    private static void routes(boolean http2) throws Exception {
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-Dtachy.verbose=true", "-Dhello.drain=1", "-Dtachy.http2=" + http2,
                "-cp", System.getProperty("java.class.path"),
                Hello.class.getName(), "-p", "0", "-b", "127.0.0.1").redirectErrorStream(true).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            String line;
            String base = null;
            StringBuilder seen = new StringBuilder();
            while ((line = out.readLine()) != null) {
                seen.append(line).append('\n');
                if (line.startsWith("listening on http://127.0.0.1:")) {
                    base = line.substring("listening on ".length());
                    break;
                }
            }
            assertTrue(base != null && base.endsWith("/"), seen.toString());
            assertTrue(seen.toString().contains("served by the native tachy provider"), seen.toString());
            HttpClient c = HttpClient.newHttpClient();
            HttpResponse<String> r = c.send(HttpRequest.newBuilder(URI.create(base)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode());
            assertEquals("Hello, World!", r.body());
            assertEquals("text/plain", r.headers().firstValue("content-type").orElse(null));
            assertEquals(http2 ? HttpClient.Version.HTTP_2 : HttpClient.Version.HTTP_1_1, r.version());
            r = c.send(HttpRequest.newBuilder(URI.create(base)).method("HEAD", HttpRequest.BodyPublishers.noBody()).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode());
            assertEquals("13", r.headers().firstValue("content-length").orElse(null));
            assertEquals("", r.body());
            r = c.send(HttpRequest.newBuilder(URI.create(base + "echo"))
                    .POST(HttpRequest.BodyPublishers.ofString("ping")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals("ping", r.body());
            r = c.send(HttpRequest.newBuilder(URI.create(base + "echo"))
                    .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(
                            "streamed".getBytes(StandardCharsets.US_ASCII)))).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals("streamed", r.body()); // chunked in, chunked out (h2: DATA frames)
            assertEquals(http2 ? HttpClient.Version.HTTP_2 : HttpClient.Version.HTTP_1_1, r.version());
            r = c.send(HttpRequest.newBuilder(URI.create(base + "nothing")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(404, r.statusCode());
            assertEquals(List.of("GET, HEAD"), c.send(HttpRequest.newBuilder(URI.create(base))
                    .DELETE().build(), HttpResponse.BodyHandlers.ofString()).headers().allValues("allow"));
            r = c.send(HttpRequest.newBuilder(URI.create(base + "ip")).build(), HttpResponse.BodyHandlers.ofString());
            assertTrue(r.body().matches("127\\.0\\.0\\.1 \\d+ pid " + p.pid() + "\n"), r.body());
            r = c.send(HttpRequest.newBuilder(URI.create(base + "metrics")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode());
            assertTrue(r.body().contains("\ntachy_native 1\n") && r.body().contains("\ntachy_requests_total "), r.body());
            // SIGTERM: the shutdown hook drains (stop(delay)) and the process exits 0, not 143
            p.destroy();
            assertTrue(p.waitFor(15, TimeUnit.SECONDS), "still running 15 s after SIGTERM");
            assertEquals(0, p.exitValue());
        } finally {
            if (p.isAlive()) {
                p.destroyForcibly();
            }
        }
    }

    /** -Dtachy.proxyProtocol=true: /ip answers the PROXY header's client; no header, no answer. */
    @Test
    void behindABalancerTheClientsAddress() throws Exception {
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-Dhello.drain=1", "-Dtachy.proxyProtocol=true", "-Dtachy.proxyTrusted=127.0.0.1",
                "-cp", System.getProperty("java.class.path"), Hello.class.getName(), "-p", "0")
                .redirectErrorStream(true).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            String line;
            int port = -1;
            while ((line = out.readLine()) != null) {
                if (line.startsWith("listening on http://127.0.0.1:")) {
                    port = Integer.parseInt(line.replaceAll(".*:(\\d+)/$", "$1"));
                    break;
                }
            }
            assertTrue(port > 0, "Hello did not start");
            String got = exchange(port, "PROXY TCP4 192.0.2.9 127.0.0.1 40000 80\r\n"
                    + "GET /ip HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            assertTrue(got.startsWith("HTTP/1.1 200") && got.endsWith("\r\n\r\n192.0.2.9 40000 pid " + p.pid() + "\n"), got);
            got = exchange(port, "GET /ip HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            assertTrue(!got.startsWith("HTTP/"), got);
        } finally {
            p.destroy();
            if (!p.waitFor(15, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
    }

    /** Writes request on a new connection to 127.0.0.1:port; what came back until the close. */
    private static String exchange(int port, String request) throws Exception {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(5000);
            s.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            try {
                s.getInputStream().transferTo(got);
            } catch (IOException e) {
                got.write(("<" + e.getClass().getSimpleName() + ">").getBytes(StandardCharsets.US_ASCII));
            }
            return got.toString(StandardCharsets.US_ASCII);
        }
    }
}
