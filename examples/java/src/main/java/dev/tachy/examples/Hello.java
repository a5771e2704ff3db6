package dev.tachy.examples;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.tachy.httpserver.TachyMetrics;
import dev.tachy.httpserver.websocket.WebSocket;
import dev.tachy.httpserver.websocket.WebSocketHandler;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletionStage;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The Java twin of tachy-hello (examples/hello.c), same routes and the same first line:
 *
 * <pre>
 *   Hello [-p PORT] [-b ADDR]          (defaults: 8080, 127.0.0.1)
 *
 *   GET  /      -> 200 text/plain "Hello, World!"
 *   HEAD /      -> the same headers, no body
 *   POST /echo  -> the request body back (fixed length when the request declared one,
 *                  chunked otherwise)
 *   GET  /ws    -> WebSocket echo, text and binary (only when running on tachy)
 *   GET  /ts    -> WebSocket: every 500 ms, starting 500 ms after the upgrade, the wall
 *                  clock in microseconds since the epoch as a decimal text message
 *                  (only when running on tachy; the latency benchmark's endpoint)
 *   GET  /ip    -> 200 text/plain "&lt;client address&gt; &lt;port&gt; pid &lt;pid&gt;\n":
 *                  getRemoteAddress() - behind a balancer with -Dtachy.proxyProtocol=true,
 *                  the client's own address from the PROXY header - and this process's id
 *                  (tachy-hello says "via &lt;socket peer&gt;" there; the pid tells two
 *                  -Dtachy.reuseport=true processes on one port apart)
 *   GET  /metrics -> Prometheus text (dev.tachy.httpserver.TachyMetrics; with the jar but
 *                  without tachy's native library, the JDK fallback's "tachy_native 0")
 * </pre>
 *
 * <p>Behind a load balancer (docs/load-balancing.md) it takes the provider's properties:
 * {@code -Dtachy.proxyProtocol=true} (every connection starts with a PROXY v1/v2 header,
 * HAProxy's send-proxy-v2), {@code -Dtachy.proxyTrusted=127.0.0.1,10.0.0.0/8} (the peers
 * that header may come from) and {@code -Dtachy.reuseport=true} (several processes on one
 * port) - the twins of tachy-hello's --proxy-protocol, --proxy-trusted and --reuseport.
 * With {@code -Dtachy.http2=true} it serves h2c beside HTTP/1.1 on its port, as tachy-hello
 * does by default (docs/java-provider.md, "HTTP/2"; /ws stays HTTP/1.1).
 *
 * It uses nothing but com.sun.net.httpserver: with tachy-httpserver.jar on the class path
 * it runs on tachy, without it on the JDK's built-in server. It prints
 * "listening on http://ADDR:PORT/" once the server accepts connections. On SIGINT/SIGTERM
 * a shutdown hook calls HttpServer.stop(delay), delay from -Dhello.drain=SECONDS (default
 * 10): on tachy that is a graceful drain (in-flight exchanges finish with "Connection:
 * close", idle connections are closed, WebSockets get 1001; docs/load-balancing.md), then
 * the process exits 0 (not the JVM's 143 for SIGTERM: a balancer's rolling restart reads
 * it as a clean stop).
 */
public final class Hello {
    private static final byte[] HELLO = "Hello, World!".getBytes(StandardCharsets.US_ASCII);

    private static final String USAGE = "usage: [java -D...] Hello [-p PORT] [-b ADDR]\n"
            + "  -Dtachy.proxyProtocol=true      every connection starts with a PROXY v1/v2 header\n"
            + "  -Dtachy.proxyTrusted=NETS       networks the header may come from (\"127.0.0.1, 10.0.0.0/8\")\n"
            + "  -Dtachy.reuseport=true          bind with SO_REUSEPORT (several processes, one port)\n"
            + "  -Dtachy.http2=true              also h2c (prior knowledge and Upgrade: h2c) on the port\n"
            + "  -Dhello.drain=SECONDS           SIGTERM/SIGINT: drain for at most this long, exit 0 (10)";

    private Hello() {}

    public static void main(String[] args) throws Exception {
        int port = 8080;
        String addr = "127.0.0.1";
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "-p":
                    port = Integer.parseInt(args[++i]);
                    break;
                case "-b":
                    addr = args[++i];
                    break;
                case "-h":
                    System.err.println(USAGE);
                    return;
                default:
                    System.err.println(USAGE);
                    System.exit(2);
            }
        }
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getByName(addr), port), 0);
        server.createContext("/", Hello::hello);
        server.createContext("/echo", Hello::echo);
        server.createContext("/ip", Hello::ip);
        try {
            server.createContext("/ws", WsEcho.handler());
            server.createContext("/ts", WsClock.handler());
            TachyMetrics.mount(server);
        } catch (NoClassDefFoundError e) {
            // tachy-httpserver.jar is not on the class path: no /ws, /ts, /metrics on the JDK's server
        }
        server.start();
        InetSocketAddress a = server.getAddress();
        String host = a.getAddress().getHostAddress();
        System.out.println(host.indexOf(':') >= 0
                ? "listening on http://[" + host + "]:" + a.getPort() + "/"
                : "listening on http://" + host + ":" + a.getPort() + "/");
        System.out.flush();
        int drain = Integer.getInteger("hello.drain", 10);
        CountDownLatch done = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            long t0 = System.nanoTime();
            server.stop(drain);
            System.err.println("Hello: drained in " + (System.nanoTime() - t0) / 1_000_000 + " ms");
            done.countDown();
            // A stop asked for by a signal is a clean exit: 0, not 128 + the signal.
            Runtime.getRuntime().halt(0);
        }, "hello-shutdown"));
        done.await();
    }

    /** GET /ws: every message back as it came (loaded only when tachy is present). */
    private static final class WsEcho implements WebSocket.Listener {
        static WebSocketHandler handler() {
            return new WebSocketHandler(ex -> new WsEcho());
        }

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence text, boolean last) {
            ws.sendText(text, last);
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onBinary(WebSocket ws, ByteBuffer data, boolean last) {
            ws.sendBinary(data, last);
            ws.request(1);
            return null;
        }
    }

    /**
     * GET /ts: the twin of tachy-hello's /ts. One shared scheduler thread for every
     * connection (no thread per socket: the sockets themselves are parked by tachy); a send
     * never waits for a slow client (it is queued per socket, bounded), so one tick cannot
     * hold up the others.
     */
    private static final class WsClock implements WebSocket.Listener {
        private static final ScheduledExecutorService TICKS = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "ts-ticks");
            t.setDaemon(true);
            return t;
        });
        private volatile ScheduledFuture<?> tick;

        static WebSocketHandler handler() {
            return new WebSocketHandler(ex -> new WsClock()).deflate(false);
        }

        @Override
        public void onOpen(WebSocket ws) {
            ws.request(Long.MAX_VALUE); // the client's messages (if any) are read and dropped
            tick = TICKS.scheduleAtFixedRate(() -> {
                Instant now = Instant.now();
                long us = now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
                ws.sendText(Long.toString(us), true);
            }, 500, 500, TimeUnit.MILLISECONDS);
        }

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence text, boolean last) {
            return null;
        }

        @Override
        public CompletionStage<?> onBinary(WebSocket ws, ByteBuffer data, boolean last) {
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket ws, int statusCode, String reason) {
            cancel();
            return null;
        }

        @Override
        public void onError(WebSocket ws, Throwable error) {
            cancel();
        }

        private void cancel() {
            ScheduledFuture<?> t = tick;
            if (t != null) {
                t.cancel(false);
            }
        }
    }

    private static void hello(HttpExchange ex) throws IOException {
        String m = ex.getRequestMethod();
        if (!m.equals("GET") && !m.equals("HEAD")) {
            ex.getResponseHeaders().set("Allow", "GET, HEAD");
            ex.sendResponseHeaders(405, -1);
            ex.close();
            return;
        }
        if (!ex.getRequestURI().getPath().equals("/")) {
            ex.sendResponseHeaders(404, -1);
            ex.close();
            return;
        }
        ex.getResponseHeaders().set("Content-Type", "text/plain");
        if (m.equals("HEAD")) {
            // As tachy-hello: the GET headers (Content-length 13), no body.
            ex.getResponseHeaders().set("Content-length", Integer.toString(HELLO.length));
            ex.sendResponseHeaders(200, -1);
            ex.close();
            return;
        }
        ex.sendResponseHeaders(200, HELLO.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(HELLO);
        }
    }

    private static final long PID = ProcessHandle.current().pid();

    private static void ip(HttpExchange ex) throws IOException {
        InetSocketAddress a = ex.getRemoteAddress();
        byte[] b = (a.getAddress().getHostAddress() + " " + a.getPort() + " pid " + PID + "\n")
                .getBytes(StandardCharsets.US_ASCII);
        ex.getResponseHeaders().set("Content-Type", "text/plain");
        ex.sendResponseHeaders(200, b.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(b);
        }
    }

    private static void echo(HttpExchange ex) throws IOException {
        if (!ex.getRequestMethod().equals("POST")) {
            ex.getResponseHeaders().set("Allow", "POST");
            ex.sendResponseHeaders(405, -1);
            ex.close();
            return;
        }
        String ct = ex.getRequestHeaders().getFirst("Content-Type");
        ex.getResponseHeaders().set("Content-Type", ct != null ? ct : "application/octet-stream");
        String cl = ex.getRequestHeaders().getFirst("Content-Length");
        long len = cl != null ? Long.parseLong(cl.trim()) : -2; // -2: chunked request
        ex.sendResponseHeaders(200, len > 0 ? len : len == 0 ? -1 : 0);
        try (InputStream in = ex.getRequestBody(); OutputStream out = ex.getResponseBody()) {
            in.transferTo(out);
        }
    }
}
