package dev.tachy.httpserver;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/** Helpers shared by the tests: servers on 127.0.0.1:0, raw sockets, child JVMs, TLS keys. */
final class TestSupport {
    static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    private TestSupport() {}

    static HttpServer server(String path, HttpHandler h) throws IOException {
        HttpServer s = HttpServer.create(new InetSocketAddress(LOOPBACK, 0), 0);
        s.createContext(path, h);
        return s;
    }

    static String url(HttpServer s, String path) {
        return "http://127.0.0.1:" + s.getAddress().getPort() + path;
    }

    static void respond(HttpExchange ex, int code, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        ex.sendResponseHeaders(code, b.length == 0 ? -1 : b.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(b);
        }
    }

    /** A handler that counts entered down, then answers "late PROTOCOL" 700 ms later: a
     * request still in flight when the test stops the server. */
    static HttpHandler lateAnswer(CountDownLatch entered) {
        return ex -> {
            entered.countDown();
            try {
                Thread.sleep(700);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            respond(ex, 200, "late " + ex.getProtocol());
        };
    }

    /** Sends raw bytes, reads until the server closes or timeoutMs passes; the bytes read. */
    static String raw(HttpServer s, String request, int timeoutMs) throws IOException {
        try (Socket sock = new Socket(LOOPBACK, s.getAddress().getPort())) {
            sock.setSoTimeout(timeoutMs);
            sock.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            sock.getOutputStream().flush();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            InputStream in = sock.getInputStream();
            byte[] buf = new byte[4096];
            try {
                int n;
                while ((n = in.read(buf)) > 0) {
                    got.write(buf, 0, n);
                }
            } catch (SocketTimeoutException e) {
                got.write("<timeout>".getBytes(StandardCharsets.ISO_8859_1));
            } catch (IOException e) {
                got.write(("<" + e.getClass().getSimpleName() + ">").getBytes(StandardCharsets.ISO_8859_1));
            }
            return got.toString(StandardCharsets.ISO_8859_1);
        }
    }

    /* ---- child JVMs ---------------------------------------------------------------------- */

    static Path classesDir() {
        return Paths.get(System.getProperty("tachy.test.classes", "target/classes"));
    }

    static Path testClassesDir() {
        return Paths.get(System.getProperty("tachy.test.testClasses", "target/test-classes"));
    }

    static Path nativeDir() {
        return Paths.get(System.getProperty("tachy.test.native.dir", "../build-jni/jni"));
    }

    /** A jar made from target/classes: the same layout as the packaged one. */
    static Path providerJar(Path dir) throws IOException {
        Path jar = dir.resolve("tachy-httpserver-test.jar");
        Path root = classesDir();
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
                Stream<Path> files = Files.walk(root)) {
            for (Path p : (Iterable<Path>) files.sorted()::iterator) {
                String name = root.relativize(p).toString().replace(File.separatorChar, '/');
                if (name.isEmpty()) {
                    continue;
                }
                if (Files.isDirectory(p)) {
                    out.putNextEntry(new JarEntry(name + "/"));
                } else {
                    out.putNextEntry(new JarEntry(name));
                    Files.copy(p, out);
                }
                out.closeEntry();
            }
        }
        return jar;
    }

    /** The running JVM's java launcher. */
    static String javaBin() {
        return Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** A java launcher of version 18 or later (see javaBinAtLeast); or null. */
    static String java18Bin() {
        return javaBinAtLeast(18);
    }

    /** A java launcher of version 21 or later (virtual threads; see javaBinAtLeast); or null. */
    static String java21Bin() {
        return javaBinAtLeast(21);
    }

    /** A java launcher of version feature or later: this one, or -Dtachy.test.javaFEATURE
     * (tachy.test.java18, tachy.test.java21), or Temurin 25 if installed; or null. */
    private static String javaBinAtLeast(int feature) {
        if (Runtime.version().feature() >= feature) {
            return javaBin();
        }
        String override = System.getProperty("tachy.test.java" + feature);
        if (override != null && Files.isExecutable(Paths.get(override))) {
            return override;
        }
        Path t25 = Paths.get("/usr/lib/jvm/temurin-25-jdk-amd64/bin/java");
        return Files.isExecutable(t25) ? t25.toString() : null;
    }

    static final class Result {
        final int exit;
        final String output;

        Result(int exit, String output) {
            this.exit = exit;
            this.output = output;
        }

        @Override
        public String toString() {
            return "exit " + exit + ":\n" + output;
        }
    }

    /** Runs a command (stderr merged) with a time limit; kills it when the limit passes. */
    static Result run(List<String> cmd, long timeoutSeconds) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        Process p = pb.start();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Thread pump = new Thread(() -> {
            try {
                p.getInputStream().transferTo(out);
            } catch (IOException ignored) {
                // process ended
            }
        });
        pump.start();
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
        pump.join(5000);
        return new Result(p.isAlive() ? -1 : p.exitValue(), out.toString(StandardCharsets.UTF_8));
    }

    static List<String> cmd(String... parts) {
        return new ArrayList<>(List.of(parts));
    }

    /* ---- TLS ----------------------------------------------------------------------------- */

    /** The password of every key store and key the tests make. */
    static final char[] PASS = "changeit".toCharArray();

    /**
     * A PKCS12 key store made by keytool in dir (NAME.p12; its output in NAME.log): one key
     * pair of algorithm alg (extra: its size or curve) under the alias name, for CN=localhost
     * and 127.0.0.1, valid 3 days.
     */
    static KeyStore keyStore(Path dir, String name, String alg, String... extra) throws Exception {
        Path ks = dir.resolve(name + ".p12");
        Path log = dir.resolve(name + ".log");
        List<String> cmd = cmd(javaBin().replaceAll("java$", "keytool"),
                "-genkeypair", "-alias", name, "-keyalg", alg);
        cmd.addAll(List.of(extra));
        cmd.addAll(List.of("-dname", "CN=localhost", "-ext", "san=ip:127.0.0.1,dns:localhost",
                "-validity", "3", "-storetype", "PKCS12", "-keystore", ks.toString(),
                "-storepass", "changeit", "-keypass", "changeit"));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IOException("keytool failed: " + Files.readString(log));
        }
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(ks)) {
            store.load(in, PASS);
        }
        return store;
    }

    /** A server's SSLContext (the JDK's provider) with the keys of ks. */
    static SSLContext serverContext(KeyStore ks, String kmfAlgorithm) throws Exception {
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(kmfAlgorithm);
        kmf.init(ks, PASS);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(kmf.getKeyManagers(), null, null);
        return ctx;
    }

    /** A client's SSLContext that trusts the certificates of trusted. */
    static SSLContext trusting(KeyStore trusted) throws Exception {
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trusted);
        SSLContext c = SSLContext.getInstance("TLS");
        c.init(null, tmf.getTrustManagers(), null);
        return c;
    }
}
