package dev.tachy.httpserver;

import static dev.tachy.httpserver.ProbeSupport.awaitCount;
import static dev.tachy.httpserver.ProbeSupport.check;
import static dev.tachy.httpserver.ProbeSupport.exit;
import static dev.tachy.httpserver.ProbeSupport.ms;
import static dev.tachy.httpserver.ProbeSupport.response;
import static dev.tachy.httpserver.ProbeSupport.virtualThreads;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Child JVM main of VirtualThreadPinningTest (Java 21+, started with
 * -Djdk.virtualThreadScheduler.parallelism=2 and maxPoolSize=2: two carriers, none added).
 *
 * <p>A tachy server with a virtual-thread executor; args[0] slow clients each send a POST
 * head with a 1-byte body and hold the byte back, so each handler waits in the body read.
 * While they all wait, fresh and keep-alive clients on /fast must be answered within 5 s
 * each; then every slow client gets its byte and must receive its echo (nothing lost).
 * Prints one line per check and "N passed, M failed"; exits 0 only if all passed.
 */
public final class PinningProbe {
    private PinningProbe() {}

    public static void main(String[] args) throws Exception {
        int slow = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
        long start = System.nanoTime();
        ExecutorService vt = virtualThreads();
        AtomicInteger waiting = new AtomicInteger();
        HttpServer s = HttpServer.create(new InetSocketAddress(TestSupport.LOOPBACK, 0), 4096);
        check(s instanceof TachyHttpServer, "the provider is tachy's (" + s.getClass().getName() + ")");
        s.createContext("/slow", ProbeSupport.heldEcho(waiting, false));
        s.createContext("/fast", ex -> TestSupport.respond(ex, 200, "fast"));
        s.setExecutor(vt);
        s.start();
        int port = s.getAddress().getPort();
        List<Socket> clients = new ArrayList<>();
        try {
            for (int i = 0; i < slow; i++) {
                Socket c = new Socket(TestSupport.LOOPBACK, port);
                c.setSoTimeout(30_000);
                c.getOutputStream().write(("POST /slow HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\n")
                        .getBytes(StandardCharsets.ISO_8859_1));
                clients.add(c);
            }
            int w = awaitCount(waiting, slow, 60);
            check(w == slow, slow + " slow handlers wait in their body read at once ("
                    + w + " after " + ms(start) + " ms)");

            // Fresh connections and one keep-alive connection while every slow handler waits.
            long worst = 0;
            int fastOk = 0;
            try (Socket ka = new Socket(TestSupport.LOOPBACK, port)) {
                ka.setSoTimeout(5_000);
                for (int i = 0; i < 20; i++) {
                    long t0 = System.nanoTime();
                    boolean ok;
                    if (i % 2 == 0) {
                        try (Socket c = new Socket(TestSupport.LOOPBACK, port)) {
                            c.setSoTimeout(5_000);
                            ok = get(c).endsWith("fast");
                        }
                    } else {
                        ok = get(ka).endsWith("fast");
                    }
                    worst = Math.max(worst, ms(t0));
                    if (ok) {
                        fastOk++;
                    }
                }
            } catch (IOException e) {
                System.out.println("fast client: " + e);
            }
            check(fastOk == 20, "20 fast requests answered while the slow ones wait (" + fastOk
                    + " answered, slowest " + worst + " ms)");

            // Release the slow ones: every one gets its response.
            for (Socket c : clients) {
                c.getOutputStream().write('x');
            }
            int echoed = 0;
            for (Socket c : clients) {
                try {
                    if (response(c.getInputStream()).endsWith("slow x")) {
                        echoed++;
                    }
                } catch (IOException e) {
                    // counted as missing
                }
            }
            check(echoed == slow, "every slow client got its response (" + echoed + " of " + slow + ")");
        } finally {
            for (Socket c : clients) {
                c.close();
            }
            s.stop(0);
            vt.shutdown();
        }
        exit(" (" + ms(start) + " ms)");
    }

    private static String get(Socket c) throws IOException {
        OutputStream o = c.getOutputStream();
        o.write("GET /fast HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
        o.flush();
        return response(c.getInputStream());
    }
}
