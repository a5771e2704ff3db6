package dev.tachy.httpserver.websocket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Java API on parked sockets (tachy_ws_attach): no thread per open WebSocket, the JDK's
 * request(n) flow control with back-pressure on the peer, and send futures that complete at
 * once and fail when the per-socket queue is full. Clients are raw blocking sockets (no
 * thread of their own either), so the JVM's thread count measures the server.
 */
@Timeout(120)
class WsParkedTest {
    private HttpServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    private int start(WebSocketHandler h) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/ws", h);
        server.start();
        return server.getAddress().getPort();
    }

    /* ---- a raw client ------------------------------------------------------------------ */

    static Socket open(int port) throws IOException {
        Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
        s.setSoTimeout(20000);
        String req = "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                + "Sec-WebSocket-Version: 13\r\n\r\n";
        s.getOutputStream().write(req.getBytes(StandardCharsets.US_ASCII));
        return s;
    }

    /** Reads the 101's head. */
    static void expect101(Socket s) throws IOException {
        InputStream in = s.getInputStream();
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int c = in.read();
            if (c < 0) {
                throw new IOException("EOF in the 101: " + head);
            }
            head.append((char) c);
        }
        assertTrue(head.toString().startsWith("HTTP/1.1 101"), head.toString());
    }

    /** A masked client frame. */
    static byte[] frame(int op, byte[] p) {
        int hl = p.length < 126 ? 6 : 8;
        byte[] f = new byte[hl + p.length];
        f[0] = (byte) (0x80 | op);
        if (p.length < 126) {
            f[1] = (byte) (0x80 | p.length);
        } else {
            f[1] = (byte) (0x80 | 126);
            f[2] = (byte) (p.length >> 8);
            f[3] = (byte) p.length;
        }
        byte[] key = {5, 6, 7, 8};
        System.arraycopy(key, 0, f, hl - 4, 4);
        for (int i = 0; i < p.length; i++) {
            f[hl + i] = (byte) (p[i] ^ key[i & 3]);
        }
        return f;
    }

    /** One server frame's payload (opcode in op[0]). */
    static byte[] readFrame(Socket s, int[] op) throws IOException {
        DataInputStream in = new DataInputStream(s.getInputStream());
        int b0 = in.readUnsignedByte();
        int n = in.readUnsignedByte() & 0x7f;
        if (n == 126) {
            n = in.readUnsignedShort();
        } else if (n == 127) {
            n = (int) in.readLong();
        }
        byte[] p = new byte[n];
        in.readFully(p);
        op[0] = b0 & 0x0f;
        return p;
    }

    /** The process's threads, Java and native (Linux: /proc/self/status). */
    static int threads() throws IOException {
        for (String line : Files.readAllLines(Paths.get("/proc/self/status"))) {
            if (line.startsWith("Threads:")) {
                return Integer.parseInt(line.substring(8).trim());
            }
        }
        throw new IOException("no Threads: line");
    }

    /* ---- tests ----------------------------------------------------------------------- */

    static final class Echo implements WebSocket.Listener {
        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            ws.sendText(data, last);
            ws.request(1);
            return null;
        }
    }

    @Test
    void twoThousandOpenSocketsHoldNoThreads() throws Exception {
        int port = start(new WebSocketHandler(ex -> new Echo()));
        int n = 2000;
        // warm up: the pool's first threads
        try (Socket s = open(port)) {
            expect101(s);
        }
        Thread.sleep(200);
        int before = threads();
        List<Socket> socks = new ArrayList<>();
        int maxDuring = before;
        try {
            for (int i = 0; i < n; i++) {
                socks.add(open(port));
            }
            for (Socket s : socks) {
                expect101(s);
            }
            // every socket is live: one echo each, callbacks on pool threads
            byte[] hi = frame(1, "hi".getBytes(StandardCharsets.US_ASCII));
            for (Socket s : socks) {
                s.getOutputStream().write(hi);
            }
            int[] op = new int[1];
            for (Socket s : socks) {
                assertEquals("hi", new String(readFrame(s, op), StandardCharsets.US_ASCII));
                assertEquals(1, op[0]);
            }
            maxDuring = Math.max(maxDuring, threads());
            Thread.sleep(500);
            int after = threads();
            System.err.println("WsParkedTest: " + n + " open WebSockets: process threads " + before
                    + " before, " + after + " with them open (peak seen " + maxDuring + ")");
            // Thread per socket would be +2000; the pool may grow by a few for the burst.
            assertTrue(after - before < 40, "threads " + before + " -> " + after);
        } finally {
            for (Socket s : socks) {
                s.close();
            }
        }
    }

    @Test
    void attachesFromAnExecutorThread() throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/ws", new WebSocketHandler(ex -> new Echo()));
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2);
        server.setExecutor(pool);
        server.start();
        int port = server.getAddress().getPort();
        List<Socket> socks = new ArrayList<>();
        try {
            for (int i = 0; i < 20; i++) {
                socks.add(open(port));
            }
            int[] op = new int[1];
            for (Socket s : socks) {
                expect101(s);
            }
            for (int round = 0; round < 5; round++) {
                for (Socket s : socks) {
                    s.getOutputStream().write(frame(1, ("m" + round).getBytes(StandardCharsets.US_ASCII)));
                }
                for (Socket s : socks) {
                    assertEquals("m" + round, new String(readFrame(s, op), StandardCharsets.US_ASCII));
                }
            }
        } finally {
            for (Socket s : socks) {
                s.close();
            }
            server.stop(0);
            server = null;
            pool.shutdown();
        }
    }

    /** Counts messages; asks for nothing by itself. */
    static final class Counting implements WebSocket.Listener {
        final AtomicReference<WebSocket> ws = new AtomicReference<>();
        final AtomicInteger got = new AtomicInteger();
        final AtomicInteger outOfOrder = new AtomicInteger();

        @Override
        public void onOpen(WebSocket w) {
            ws.set(w); // no request: nothing may be delivered
        }

        @Override
        public CompletionStage<?> onBinary(WebSocket w, ByteBuffer data, boolean last) {
            int seq = data.getInt(0);
            if (seq != got.getAndIncrement()) {
                outOfOrder.incrementAndGet();
            }
            return null;
        }
    }

    private static WebSocket await(AtomicReference<WebSocket> ref) throws InterruptedException {
        for (int i = 0; i < 1000 && ref.get() == null; i++) {
            Thread.sleep(5);
        }
        return ref.get();
    }

    private static void awaitCount(AtomicInteger c, int want) throws InterruptedException {
        for (int i = 0; i < 2000 && c.get() < want; i++) {
            Thread.sleep(5);
        }
    }

    @Test
    void requestNDeliversNoMoreThanRequestedAndPushesBackOnThePeer() throws Exception {
        Counting l = new Counting();
        int port = start(new WebSocketHandler(ex -> l).deflate(false));
        try (Socket s = open(port)) {
            expect101(s);
            WebSocket ws = await(l.ws);
            assertNotNull(ws);
            OutputStream out = s.getOutputStream();
            for (int i = 0; i < 10; i++) {
                out.write(frame(2, ByteBuffer.allocate(16).putInt(0, i).array()));
            }
            Thread.sleep(200);
            assertEquals(0, l.got.get()); // nothing requested
            ws.request(3);
            awaitCount(l.got, 3);
            Thread.sleep(200);
            assertEquals(3, l.got.get()); // exactly what was requested

            // The peer keeps writing while nothing more is requested: it is stopped by TCP.
            AtomicLong written = new AtomicLong();
            Thread writer = new Thread(() -> {
                try {
                    for (int i = 10; written.get() < (64L << 20); i++) {
                        byte[] f = frame(2, ByteBuffer.allocate(16 * 1024).putInt(0, i).array());
                        out.write(f);
                        written.addAndGet(f.length);
                    }
                } catch (IOException e) {
                    // the socket closed at the end of the test
                }
            }, "ws-test-writer");
            writer.setDaemon(true);
            writer.start();
            long last = -1;
            for (int i = 0; i < 100; i++) { // until the writer makes no progress for 300 ms
                Thread.sleep(300);
                long w = written.get();
                if (w == last) {
                    break;
                }
                last = w;
            }
            assertTrue(writer.isAlive(), "the writer finished: the server kept reading");
            assertTrue(written.get() < (64L << 20));
            assertEquals(3, l.got.get());
            System.err.println("WsParkedTest: the peer was stopped after " + written.get() + " bytes");

            ws.request(Long.MAX_VALUE); // from the test thread: a pool thread delivers the rest
            for (int i = 0; i < 100 && writer.isAlive() && l.got.get() < 10; i++) {
                Thread.sleep(20);
            }
            awaitCount(l.got, 10);
            assertTrue(l.got.get() >= 10, "got " + l.got.get());
            assertEquals(0, l.outOfOrder.get());
        }
    }

    @Test
    void sendFuturesCompleteAtOnceAndFailWhenTheQueueIsFull() throws Exception {
        AtomicReference<WebSocket> ref = new AtomicReference<>();
        WebSocketHandler h = new WebSocketHandler(ex -> new WebSocket.Listener() {
            @Override
            public void onOpen(WebSocket w) {
                ref.set(w);
            }
        }).maxBacklog(64 * 1024).deflate(false);
        int port = start(h);
        try (Socket s = new Socket()) {
            s.setReceiveBufferSize(4096);
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            s.setSoTimeout(20000);
            s.getOutputStream().write(("GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                    + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                    + "Sec-WebSocket-Version: 13\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            expect101(s);
            WebSocket ws = await(ref);
            assertNotNull(ws);
            // The client reads nothing: sends queue until the 64 KiB bound.
            CompletableFuture<WebSocket> first = ws.sendBinary(ByteBuffer.allocate(16 * 1024), true);
            assertTrue(first.isDone());
            assertEquals(ws, first.get(1, TimeUnit.SECONDS));
            CompletableFuture<WebSocket> failed = null;
            int ok = 1;
            for (int i = 0; i < 10000 && failed == null; i++) {
                CompletableFuture<WebSocket> f = ws.sendBinary(ByteBuffer.allocate(16 * 1024), true);
                assertTrue(f.isDone(), "a send waited for the peer");
                if (f.isCompletedExceptionally()) {
                    failed = f;
                } else {
                    ok++;
                }
            }
            assertNotNull(failed, "no send failed although the peer never reads");
            try {
                failed.get();
            } catch (ExecutionException e) {
                assertTrue(e.getCause() instanceof IOException, e.getCause().toString());
                assertTrue(e.getCause().getMessage().contains("queue full"), e.getCause().getMessage());
            }
            assertFalse(ws.isOutputClosed()); // FAIL policy: the connection stays
            System.err.println("WsParkedTest: " + ok + " sends of 16 KiB completed before the queue was full");
            // The peer reads again: the queue drains and sends succeed.
            int[] op = new int[1];
            for (int i = 0; i < ok; i++) {
                readFrame(s, op);
                assertEquals(2, op[0]);
            }
            assertFalse(ws.sendText("after", true).isCompletedExceptionally());
            byte[] p = readFrame(s, op);
            assertEquals("after", new String(p, StandardCharsets.UTF_8));
        }
    }

    @Test
    void theClosePolicyClosesWith1008() throws Exception {
        AtomicReference<WebSocket> ref = new AtomicReference<>();
        WebSocketHandler h = new WebSocketHandler(ex -> new WebSocket.Listener() {
            @Override
            public void onOpen(WebSocket w) {
                ref.set(w);
            }
        }).maxBacklog(32 * 1024).backlogPolicy(WebSocketHandler.BacklogPolicy.CLOSE).deflate(false);
        int port = start(h);
        try (Socket s = new Socket()) {
            s.setReceiveBufferSize(4096);
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            s.setSoTimeout(20000);
            s.getOutputStream().write(("GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                    + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                    + "Sec-WebSocket-Version: 13\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            expect101(s);
            WebSocket ws = await(ref);
            boolean failed = false;
            for (int i = 0; i < 10000 && !failed; i++) {
                failed = ws.sendBinary(ByteBuffer.allocate(16 * 1024), true).isCompletedExceptionally();
            }
            assertTrue(failed);
            assertTrue(ws.sendText("x", true).isCompletedExceptionally()); // closed now
            int[] op = new int[1];
            byte[] p;
            do {
                p = readFrame(s, op);
            } while (op[0] != 8);
            assertEquals(1008, ((p[0] & 0xff) << 8) | (p[1] & 0xff));
        }
    }
}
