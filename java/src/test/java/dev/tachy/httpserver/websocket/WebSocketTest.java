package dev.tachy.httpserver.websocket;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The tachy WebSocket API against the JDK's own client, java.net.http.WebSocket. */
@Timeout(60)
class WebSocketTest {
    private HttpServer server;
    private final AtomicReference<WebSocket> serverSide = new AtomicReference<>();
    private final CountDownLatch opened = new CountDownLatch(1);
    private final CountDownLatch closed = new CountDownLatch(1);
    private final AtomicInteger closeCode = new AtomicInteger();

    /** Echoes whole messages; remembers its WebSocket for sends from the test thread. */
    private final class Echo implements WebSocket.Listener {
        private final StringBuilder text = new StringBuilder();

        @Override
        public void onOpen(WebSocket ws) {
            serverSide.set(ws);
            opened.countDown();
            ws.request(1);
        }

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            text.append(data);
            if (last) {
                ws.sendText(text.toString(), true);
                text.setLength(0);
            }
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onBinary(WebSocket ws, ByteBuffer data, boolean last) {
            ws.sendBinary(data, last);
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket ws, int statusCode, String reason) {
            closeCode.set(statusCode);
            closed.countDown();
            return null;
        }
    }

    @BeforeEach
    void start() throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/ws", new WebSocketHandler(ex -> new Echo()).subprotocols("v2", "chat"));
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private URI uri() {
        return URI.create("ws://127.0.0.1:" + server.getAddress().getPort() + "/ws");
    }

    /** Client side: collects whole messages. */
    static final class Client implements java.net.http.WebSocket.Listener {
        final BlockingQueue<Object> got = new LinkedBlockingQueue<>();
        final CompletableFuture<Integer> closedWith = new CompletableFuture<>();
        private final StringBuilder text = new StringBuilder();
        private ByteArrayOutputStream bin = new ByteArrayOutputStream();

        @Override
        public CompletionStage<?> onText(java.net.http.WebSocket ws, CharSequence d, boolean last) {
            text.append(d);
            if (last) {
                got.add(text.toString());
                text.setLength(0);
            }
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onBinary(java.net.http.WebSocket ws, ByteBuffer d, boolean last) {
            byte[] b = new byte[d.remaining()];
            d.get(b);
            bin.write(b, 0, b.length);
            if (last) {
                got.add(bin.toByteArray());
                bin = new ByteArrayOutputStream();
            }
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onPong(java.net.http.WebSocket ws, ByteBuffer d) {
            got.add("pong:" + StandardCharsets.UTF_8.decode(d));
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(java.net.http.WebSocket ws, int code, String reason) {
            closedWith.complete(code);
            return null;
        }

        Object next() throws InterruptedException {
            Object o = got.poll(10, TimeUnit.SECONDS);
            return o == null ? "<timeout>" : o;
        }
    }

    private java.net.http.WebSocket connect(Client c) throws Exception {
        return HttpClient.newHttpClient().newWebSocketBuilder().subprotocols("chat", "v2")
                .buildAsync(uri(), c).get(10, TimeUnit.SECONDS);
    }

    @Test
    void echoesTextBinaryAndFragments() throws Exception {
        Client c = new Client();
        java.net.http.WebSocket ws = connect(c);
        assertEquals("v2", ws.getSubprotocol()); // the server's preference
        ws.sendText("Hello, tachy", true).get(10, TimeUnit.SECONDS);
        assertEquals("Hello, tachy", c.next());
        ws.sendText("κόσμε \uD83D\uDE00", true).get(10, TimeUnit.SECONDS);
        assertEquals("κόσμε \uD83D\uDE00", c.next());
        byte[] blob = new byte[200_000];
        new Random(1).nextBytes(blob);
        ws.sendBinary(ByteBuffer.wrap(blob), true).get(10, TimeUnit.SECONDS);
        assertArrayEquals(blob, (byte[]) c.next());
        ws.sendText("frag", false).get(10, TimeUnit.SECONDS);
        ws.sendText("ment", true).get(10, TimeUnit.SECONDS);
        assertEquals("fragment", c.next());
        ws.sendPing(ByteBuffer.wrap("p".getBytes(StandardCharsets.UTF_8))).get(10, TimeUnit.SECONDS);
        assertEquals("pong:p", c.next());
        ws.sendClose(1000, "bye").get(10, TimeUnit.SECONDS);
        assertEquals(1000, c.closedWith.get(10, TimeUnit.SECONDS));
        assertTrue(closed.await(10, TimeUnit.SECONDS));
        assertEquals(1000, closeCode.get());
    }

    @Test
    void sendsFromAnotherThreadAndClosesFromTheServer() throws Exception {
        Client c = new Client();
        connect(c);
        assertTrue(opened.await(10, TimeUnit.SECONDS));
        WebSocket s = serverSide.get();
        s.sendText("tick", true).get(10, TimeUnit.SECONDS);
        assertEquals("tick", c.next());
        s.sendBinary(ByteBuffer.wrap(new byte[] {1, 2, 3}), true).get(10, TimeUnit.SECONDS);
        assertArrayEquals(new byte[] {1, 2, 3}, (byte[]) c.next());
        s.sendClose(4000, "server says bye").get(10, TimeUnit.SECONDS);
        assertTrue(s.isOutputClosed());
        assertEquals(4000, c.closedWith.get(10, TimeUnit.SECONDS));
        assertTrue(closed.await(10, TimeUnit.SECONDS));
        // Late sends fail cleanly, never crash.
        CompletableFuture<WebSocket> late = s.sendText("late", true);
        assertTrue(late.isCompletedExceptionally());
    }

    @Test
    void refusesABadUpgradeWith426() throws Exception {
        try (Socket sock = new Socket(InetAddress.getLoopbackAddress(), server.getAddress().getPort())) {
            sock.setSoTimeout(10_000);
            OutputStream out = sock.getOutputStream();
            out.write(("GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 8\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            InputStream in = sock.getInputStream();
            byte[] buf = new byte[12];
            int n = 0;
            while (n < buf.length) {
                int r = in.read(buf, n, buf.length - n);
                if (r < 0) {
                    break;
                }
                n += r;
            }
            assertEquals("HTTP/1.1 426", new String(buf, 0, n, StandardCharsets.US_ASCII));
        }
    }
}
