package dev.tachy.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
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
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-Dtachy.verbose=true", "-cp", System.getProperty("java.class.path"),
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
            assertEquals("streamed", r.body()); // chunked in, chunked out
            r = c.send(HttpRequest.newBuilder(URI.create(base + "nothing")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(404, r.statusCode());
            assertEquals(List.of("GET, HEAD"), c.send(HttpRequest.newBuilder(URI.create(base))
                    .DELETE().build(), HttpResponse.BodyHandlers.ofString()).headers().allValues("allow"));
        } finally {
            p.destroy();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
    }
}
