// The Java twin of tachy-hello used by bench/run.sh for every Java provider.
//
// The provider is chosen the standard way (class path + the
// com.sun.net.httpserver.HttpServerProvider system property), so the very same
// program runs on the JDK built-in server, robaho/httpserver and tachy.
//
// usage: java BenchServer PORT EXECUTOR [STATIC_DIR]
//   EXECUTOR  none = no executor (JDK: the dispatcher thread; tachy: the connection thread)
//             vt   = Executors.newVirtualThreadPerTaskExecutor()
//             fixed = Executors.newFixedThreadPool(4) (the classic executor, the same pool
//                    for every provider)
//   routes    GET/HEAD /       -> 200 "Hello, World!" text/plain
//             POST /echo       -> 200, the request body echoed back
//             GET /static/NAME -> the file STATIC_DIR/NAME streamed from disk (a plain handler:
//                                 robaho 1.0.29 hangs on the JDK's SimpleFileServer handler)
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Executors;

public final class BenchServer {
    private static final byte[] HELLO = "Hello, World!".getBytes(StandardCharsets.US_ASCII);

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        String mode = args.length > 1 ? args[1] : "none";
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 4096);
        server.createContext("/", BenchServer::hello);
        server.createContext("/echo", BenchServer::echo);
        if (args.length > 2) {
            Path dir = Path.of(args[2]).toAbsolutePath().normalize();
            server.createContext("/static/", ex -> file(ex, dir));
        }
        if (!mode.equals("none") && !mode.equals("vt") && !mode.equals("fixed")) {
            throw new IllegalArgumentException("executor must be none, vt or fixed: " + mode);
        }
        // none: the default (Jetty's setExecutor refuses null). Jetty 12.1's JettyHttpServer
        // starts its Server inside setExecutor, before start() binds the connector, which is
        // then never started: on Jetty the executor is set after start (which restarts it).
        boolean jetty = server.getClass().getName().startsWith("org.eclipse.jetty");
        java.util.concurrent.Executor exec = mode.equals("vt")
                ? Executors.newVirtualThreadPerTaskExecutor()
                : mode.equals("fixed") ? Executors.newFixedThreadPool(4) : null;
        if (exec != null && !jetty) {
            server.setExecutor(exec);
        }
        server.start();
        if (exec != null && jetty) {
            server.setExecutor(exec);
        }
        System.out.println("listening on http://127.0.0.1:" + port + "/ provider="
                + server.getClass().getName() + " executor=" + mode);
        System.out.flush();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> server.stop(0)));
        Thread.currentThread().join();
    }

    private static void hello(HttpExchange ex) throws IOException {
        try (ex) {
            String m = ex.getRequestMethod();
            ex.getResponseHeaders().set("Content-Type", "text/plain");
            if (m.equals("HEAD")) {
                ex.sendResponseHeaders(200, -1);
                return;
            }
            if (!m.equals("GET")) {
                ex.sendResponseHeaders(405, -1);
                return;
            }
            ex.sendResponseHeaders(200, HELLO.length);
            try (OutputStream os = ex.getResponseBody()) {
                os.write(HELLO);
            }
        }
    }

    private static void echo(HttpExchange ex) throws IOException {
        try (ex) {
            if (!ex.getRequestMethod().equals("POST")) {
                ex.sendResponseHeaders(405, -1);
                return;
            }
            byte[] body;
            try (InputStream in = ex.getRequestBody()) {
                body = in.readAllBytes();
            }
            String ct = ex.getRequestHeaders().getFirst("Content-Type");
            ex.getResponseHeaders().set("Content-Type", ct != null ? ct : "application/octet-stream");
            ex.sendResponseHeaders(200, body.length == 0 ? -1 : body.length);
            try (OutputStream os = ex.getResponseBody()) {
                os.write(body);
            }
        }
    }

    private static void file(HttpExchange ex, Path dir) throws IOException {
        try (ex) {
            String name = ex.getRequestURI().getPath().substring("/static/".length());
            Path p = dir.resolve(name).normalize();
            if (!p.startsWith(dir) || !Files.isRegularFile(p)) {
                ex.sendResponseHeaders(404, -1);
                return;
            }
            ex.getResponseHeaders().set("Content-Type", "application/octet-stream");
            boolean head = ex.getRequestMethod().equals("HEAD");
            ex.sendResponseHeaders(200, head ? -1 : Files.size(p));
            if (!head) {
                try (InputStream in = Files.newInputStream(p); OutputStream os = ex.getResponseBody()) {
                    in.transferTo(os);
                }
            }
        }
    }
}
