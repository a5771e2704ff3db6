package dev.tachy.compat;

import com.sun.net.httpserver.HttpServer;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * A server in a child JVM, for the JDK's system properties that are read once per JVM
 * (sun.net.httpserver.*, jdk.httpserver.*). The child uses the same provider as the test JVM.
 *
 * <p>Contexts: /ok (reads the body, answers "ok"), /noread (answers without reading),
 * /sleep?ms (sleeps, then answers), /chunked (a chunked "abc"), /slowrsp (chunked "a", then stalls 8 s, then "b"),
 * /echo, /attr (answers the attribute "who", then sets it to the query). It prints "PORT n", and exits when its stdin closes or after 120 s.
 */
public final class ChildServer {

    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "wait-stdin";
        if (!mode.equals("wait-stdin")) {
            lifecycleMode(mode);
            return;
        }
        ExecutorService pool = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "child-handler");
            t.setDaemon(true);
            return t;
        });
        HttpServer s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        s.setExecutor(pool);
        s.createContext("/ok", TestServer.OK);
        s.createContext("/echo", TestServer.ECHO);
        s.createContext("/noread", ex -> TestServer.respond(ex, 200, "noread"));
        // answers the exchange attribute "who" as it finds it (or "none"), then sets it to
        // the query: what the next exchange finds says whether attributes are shared
        s.createContext("/attr", ex -> {
            Object who = ex.getAttribute("who");
            ex.setAttribute("who", ex.getRequestURI().getQuery());
            TestServer.respond(ex, 200, who == null ? "none" : who.toString());
        });
        s.createContext("/sleep", ex -> {
            try {
                Thread.sleep(Long.parseLong(ex.getRequestURI().getQuery()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            TestServer.respond(ex, 200, "slept");
        });
        s.createContext("/chunked", ex -> {
            ex.getRequestBody().readAllBytes();
            ex.sendResponseHeaders(200, 0);
            try (OutputStream os = ex.getResponseBody()) {
                os.write("abc".getBytes(StandardCharsets.US_ASCII));
            }
        });
        s.createContext("/slowrsp", ex -> {
            ex.sendResponseHeaders(200, 0);
            try (OutputStream os = ex.getResponseBody()) {
                os.write('a');
                os.flush();
                Thread.sleep(8000);
                os.write('b');
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        s.start();
        System.out.println("PORT " + s.getAddress().getPort() + " "
                + com.sun.net.httpserver.spi.HttpServerProvider.provider().getClass().getName());
        System.out.flush();
        Thread watchdog = new Thread(() -> {
            try {
                Thread.sleep(120_000);
            } catch (InterruptedException ignored) {
                // exit below
            }
            System.exit(3);
        });
        watchdog.setDaemon(true);
        watchdog.start();
        InputStream stdin = System.in;
        while (stdin.read() >= 0) {
            // wait for the parent to close stdin
        }
        s.stop(0);
        System.exit(0);
    }

    /**
     * "return": start a server with the default executor and return from main; the JVM must stay
     * alive because the server's threads are not daemons. "stop-after-one": the same, but the
     * first request stops the server (from another thread), after which the JVM must exit by
     * itself. A daemon watchdog ends the JVM after 60 s either way.
     */
    static void lifecycleMode(String mode) throws Exception {
        Thread watchdog = new Thread(() -> {
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException ignored) {
                // exit below
            }
            System.exit(4);
        });
        watchdog.setDaemon(true);
        watchdog.start();
        HttpServer s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        s.createContext("/", ex -> {
            TestServer.respond(ex, 200, mode);
            if (mode.equals("stop-after-one")) {
                Thread stopper = new Thread(() -> s.stop(0));
                stopper.setDaemon(true);
                stopper.start();
            }
        });
        s.start();
        System.out.println("PORT " + s.getAddress().getPort() + " "
                + com.sun.net.httpserver.spi.HttpServerProvider.provider().getClass().getName());
        System.out.flush();
        // main returns here
    }

    /** The parent's handle on a running child. */
    static final class Handle implements AutoCloseable {
        final Process process;
        final int port;

        private Handle(Process process, int port) {
            this.process = process;
            this.port = port;
        }

        RawClient raw() throws IOException {
            return new RawClient(port);
        }

        @Override
        public void close() throws Exception {
            try {
                process.getOutputStream().close();
            } catch (IOException ignored) {
                // already gone
            }
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
            }
        }
    }

    /** Starts a child JVM with the given system properties and the current provider. */
    static Handle start(Map<String, String> props) throws Exception {
        return start(props, "wait-stdin");
    }

    static Handle start(Map<String, String> props, String mode) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
        cmd.add("-Xmx128m");
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        String provider = System.getProperty("com.sun.net.httpserver.HttpServerProvider");
        if (provider != null) {
            cmd.add("-Dcom.sun.net.httpserver.HttpServerProvider=" + provider);
        }
        for (String k : System.getProperties().stringPropertyNames()) {
            if (k.startsWith("tachy.") || k.startsWith("dev.tachy.")) {
                cmd.add("-D" + k + "=" + System.getProperty(k));
            }
        }
        for (Map.Entry<String, String> e : props.entrySet()) {
            cmd.add("-D" + e.getKey() + "=" + e.getValue());
        }
        cmd.add(ChildServer.class.getName());
        cmd.add(mode);
        ProcessBuilder pb = new ProcessBuilder(cmd);
        File log = new File("target", "child-server.log");
        pb.redirectError(ProcessBuilder.Redirect.appendTo(log));
        Process p = pb.start();
        ExecutorService one = Executors.newSingleThreadExecutor();
        try {
            Future<String> line = one.submit(() -> new BufferedReader(
                    new InputStreamReader(p.getInputStream(), StandardCharsets.US_ASCII)).readLine());
            String first = line.get(30, TimeUnit.SECONDS);
            if (first == null || !first.startsWith("PORT ")) {
                p.destroyForcibly();
                throw new IOException("child server did not start: " + first + " (see " + log + ")");
            }
            String[] parts = first.split(" ");
            String expected = com.sun.net.httpserver.spi.HttpServerProvider.provider().getClass().getName();
            if (!expected.equals(parts[2])) {
                p.destroyForcibly();
                throw new IOException("child runs provider " + parts[2] + ", parent " + expected);
            }
            return new Handle(p, Integer.parseInt(parts[1]));
        } catch (Exception e) {
            p.destroyForcibly();
            throw e;
        } finally {
            one.shutdownNow();
        }
    }
}
