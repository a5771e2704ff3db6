// Real-client test: the JDK's java.net.http.WebSocket against an echo endpoint.
//   java WsClient.java ws://127.0.0.1:PORT/ws      (single-file source launch, JDK 11+)
// Prints one line per check and "N passed, N failed".
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

public class WsClient {
    static int passed, failed;

    static void check(String name, boolean ok, Object detail) {
        if (ok) passed++; else failed++;
        System.out.println((ok ? "PASS" : "FAIL") + " jdk-websocket: " + name + (ok ? "" : " " + detail));
    }

    /** Collects whole messages (the JDK delivers parts with a last flag). */
    static final class Collector implements WebSocket.Listener {
        final BlockingQueue<Object> messages = new LinkedBlockingQueue<>();
        final CompletableFuture<Integer> closed = new CompletableFuture<>();
        final StringBuilder text = new StringBuilder();
        java.io.ByteArrayOutputStream bin = new java.io.ByteArrayOutputStream();

        @Override public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            text.append(data);
            if (last) { messages.add(text.toString()); text.setLength(0); }
            ws.request(1);
            return null;
        }
        @Override public CompletionStage<?> onBinary(WebSocket ws, ByteBuffer data, boolean last) {
            byte[] b = new byte[data.remaining()];
            data.get(b);
            bin.write(b, 0, b.length);
            if (last) { messages.add(bin.toByteArray()); bin = new java.io.ByteArrayOutputStream(); }
            ws.request(1);
            return null;
        }
        @Override public CompletionStage<?> onPong(WebSocket ws, ByteBuffer data) {
            byte[] b = new byte[data.remaining()];
            data.get(b);
            messages.add("PONG:" + new String(b));
            ws.request(1);
            return null;
        }
        @Override public CompletionStage<?> onClose(WebSocket ws, int code, String reason) {
            closed.complete(code);
            return null;
        }
        @Override public void onError(WebSocket ws, Throwable error) {
            closed.completeExceptionally(error);
        }
        Object next() throws InterruptedException {
            Object o = messages.poll(10, TimeUnit.SECONDS);
            return o == null ? "<timeout>" : o;
        }
    }

    public static void main(String[] args) throws Exception {
        URI uri = URI.create(args.length > 0 ? args[0] : "ws://127.0.0.1:8080/ws");
        try {
            run(uri);
        } catch (Exception e) {
            check("no exception", false, e);
        }
        System.out.println(passed + " passed, " + failed + " failed");
        System.exit(failed == 0 ? 0 : 1);
    }

    static void run(URI uri) throws Exception {
        HttpClient client = HttpClient.newHttpClient();
        Collector c = new Collector();
        WebSocket ws = client.newWebSocketBuilder().subprotocols("chat")
                .buildAsync(uri, c).get(10, TimeUnit.SECONDS);
        check("handshake (no subprotocol selected by the echo server)", ws.getSubprotocol().isEmpty(),
              ws.getSubprotocol());
        ws.sendText("Hello, tachy", true).get(10, TimeUnit.SECONDS);
        check("text echo", "Hello, tachy".equals(c.next()), "");
        ws.sendText("κόσμε \uD83D\uDE00", true).get(10, TimeUnit.SECONDS);
        check("UTF-8 text echo (incl. a surrogate pair)", "κόσμε \uD83D\uDE00".equals(c.next()), "");
        byte[] blob = new byte[300000];
        new Random(42).nextBytes(blob);
        ws.sendBinary(ByteBuffer.wrap(blob), true).get(10, TimeUnit.SECONDS);
        Object got = c.next();
        check("binary echo (300 kB)", got instanceof byte[] && Arrays.equals((byte[]) got, blob), "");
        ws.sendText("frag", false).get(10, TimeUnit.SECONDS);
        ws.sendText("mented", true).get(10, TimeUnit.SECONDS);
        check("fragmented text echo", "fragmented".equals(c.next()), "");
        String big = "x".repeat(2_000_000);
        ws.sendText(big, true).get(10, TimeUnit.SECONDS);
        check("2 MB text echo", big.equals(c.next()), "");
        ws.sendPing(ByteBuffer.wrap("ping".getBytes())).get(10, TimeUnit.SECONDS);
        check("ping answered by pong", "PONG:ping".equals(c.next()), "");
        ws.sendClose(WebSocket.NORMAL_CLOSURE, "done").get(10, TimeUnit.SECONDS);
        int code = c.closed.get(10, TimeUnit.SECONDS);
        check("close handshake 1000", code == 1000, code);
    }
}
