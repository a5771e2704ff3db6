package dev.tachy.httpserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.lang.reflect.Method;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JDK's Java 18+ tools on tachy: SimpleFileServer and HttpHandlers in this JVM (when it
 * is 18+; reached by reflection since this module compiles for 17), and the jwebserver
 * launcher ({@code java -cp tachy.jar -m jdk.httpserver}) in a child JVM of version 18+.
 */
class JdkToolsTest {
    private static final HttpClient CLIENT = HttpClient.newHttpClient();

    private static HttpResponse<String> get(String url) throws Exception {
        return CLIENT.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static Path site(Path dir) throws Exception {
        Files.writeString(dir.resolve("index.txt"), "served by the file server\n");
        Files.createDirectories(dir.resolve("sub"));
        Files.writeString(dir.resolve("sub/a.html"), "<p>a</p>");
        return dir;
    }

    @Test
    void simpleFileServerAndHttpHandlersInProcess(@TempDir Path tmp) throws Exception {
        assumeTrue(Runtime.version().feature() >= 18, "Java 18+ API");
        Path dir = site(tmp);
        Class<?> sfs = Class.forName("com.sun.net.httpserver.SimpleFileServer");
        Class<?> level = Class.forName("com.sun.net.httpserver.SimpleFileServer$OutputLevel");
        Object none = level.getField("NONE").get(null);
        Method create = sfs.getMethod("createFileServer", InetSocketAddress.class, Path.class, level);
        HttpServer s = (HttpServer) create.invoke(null, new InetSocketAddress(TestSupport.LOOPBACK, 0), dir, none);
        assertEquals(TachyHttpServer.class, s.getClass());
        Class<?> handlers = Class.forName("com.sun.net.httpserver.HttpHandlers");
        Method of = handlers.getMethod("of", int.class, com.sun.net.httpserver.Headers.class, String.class);
        com.sun.net.httpserver.Headers tea = new com.sun.net.httpserver.Headers();
        tea.add("X-Tea", "yes");
        HttpHandler teapot = (HttpHandler) of.invoke(null, 418, tea, "short and stout");
        s.createContext("/tea", teapot);
        s.start();
        try {
            HttpResponse<String> r = get(TestSupport.url(s, "/index.txt"));
            assertEquals(200, r.statusCode());
            assertEquals("served by the file server\n", r.body());
            r = get(TestSupport.url(s, "/"));
            assertEquals(200, r.statusCode());
            assertTrue(r.body().contains("index.txt") && r.body().contains("sub/"), r.body());
            assertEquals(301, get(TestSupport.url(s, "/sub")).statusCode()); // to "/sub/"
            assertEquals(404, get(TestSupport.url(s, "/missing")).statusCode());
            r = get(TestSupport.url(s, "/tea"));
            assertEquals(418, r.statusCode());
            assertEquals("yes", r.headers().firstValue("x-tea").orElse(null));
            assertEquals("short and stout", r.body());
        } finally {
            s.stop(0);
        }
    }

    @Test
    void jwebserverServesADirectoryOnTachy(@TempDir Path tmp) throws Exception {
        jwebserver(tmp, false);
    }

    /** jwebserver with -Dtachy.http2=true: the same over h2c (this client asks by Upgrade). */
    @Test
    void jwebserverServesHttp2WithTheProperty(@TempDir Path tmp) throws Exception {
        jwebserver(tmp, true);
    }

    private static void jwebserver(Path tmp, boolean http2) throws Exception {
        String java = TestSupport.java18Bin();
        assumeTrue(java != null, "needs a Java 18+ launcher (this JVM or /usr/lib/jvm/temurin-25-jdk-amd64)");
        Path dir = site(Files.createDirectory(tmp.resolve("site")));
        Path jar = TestSupport.providerJar(tmp);
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, TestSupport.LOOPBACK)) {
            port = probe.getLocalPort();
        }
        List<String> cmd = TestSupport.cmd(java, "-Dtachy.verbose=true", "-Dtachy.http2=" + http2, "-cp", jar.toString(),
                "-m", "jdk.httpserver", "-b", "127.0.0.1", "-p", Integer.toString(port), "-d", dir.toString());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(tmp.resolve("jwebserver.log").toFile()).start();
        try {
            String url = "http://127.0.0.1:" + port + "/index.txt";
            HttpResponse<String> r = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (System.nanoTime() < deadline) {
                try {
                    r = get(url);
                    break;
                } catch (java.io.IOException notYet) {
                    Thread.sleep(200);
                }
            }
            String log = Files.readString(tmp.resolve("jwebserver.log"));
            assertTrue(r != null, "jwebserver did not answer: " + log);
            assertEquals(200, r.statusCode(), log);
            assertEquals("served by the file server\n", r.body());
            assertTrue(log.contains("served by the native tachy provider"), log);
            // jwebserver prints "Serving ..." after start() returns and logs each request after
            // answering it: either may still be on its way when the first answer arrives
            for (int i = 0; i < 50 && !(log.contains("GET /index.txt") && log.contains("Serving")); i++) {
                Thread.sleep(100);
                log = Files.readString(tmp.resolve("jwebserver.log"));
            }
            assertTrue(log.contains("Serving " + dir) || log.contains("Serving"), log);
            assertTrue(log.contains("GET /index.txt " + (http2 ? "HTTP/2.0" : "HTTP/1.1")), "jwebserver's request log: " + log);
            assertEquals(http2 ? HttpClient.Version.HTTP_2 : HttpClient.Version.HTTP_1_1, r.version());
            r = get("http://127.0.0.1:" + port + "/sub/");
            assertTrue(r.body().contains("a.html"), r.body());
        } finally {
            p.destroy();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
    }
}
