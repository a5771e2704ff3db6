// The /ts endpoint of the WebSocket crowd benchmark (bench/wscrowd.sh) on robaho/httpserver's
// own WebSocket support (robaho.net.httpserver.websockets), virtual threads.
//
// usage: java -cp httpserver-VERSION.jar:CLASSES
//             -Dcom.sun.net.httpserver.HttpServerProvider=robaho.net.httpserver.DefaultHttpServerProvider
//             WsRobahoTs PORT
//   GET /ts (WebSocket) -> every 500 ms, starting 500 ms after the upgrade, the wall clock in
//                          microseconds since the epoch as a decimal text message
//
// robaho's model: the handler's thread (here a virtual thread, one per connection, which is
// what this server is measured with) reads the socket until it closes. The time stamps come
// from one ScheduledExecutorService (one platform thread per core), not from a thread per
// socket; a send writes to the socket from that scheduler thread (robaho's send is a
// blocking write under the socket's lock).
// Prints "listening on http://127.0.0.1:PORT/ provider=..." once it accepts connections.
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Instant;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import robaho.net.httpserver.websockets.CloseCode;
import robaho.net.httpserver.websockets.WebSocket;
import robaho.net.httpserver.websockets.WebSocketFrame;
import robaho.net.httpserver.websockets.WebSocketHandler;

public final class WsRobahoTs {
    /* robaho logs every WebSocket open and close at INFO: 2 lines per client otherwise */
    private static final Logger QUIET = Logger.getLogger("robaho.net.httpserver.websockets");

    static final ScheduledExecutorService TIMERS =
            Executors.newScheduledThreadPool(Runtime.getRuntime().availableProcessors(), r -> {
                Thread t = new Thread(r, "ts-timer");
                t.setDaemon(true);
                return t;
            });

    static long micros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }

    static final class Ts extends WebSocket {
        private volatile ScheduledFuture<?> tick;

        Ts(HttpExchange ex) {
            super(ex);
        }

        @Override
        protected void onOpen() {
            tick = TIMERS.scheduleAtFixedRate(this::fire, 500, 500, TimeUnit.MILLISECONDS);
        }

        private void fire() {
            try {
                send(Long.toString(micros()));
            } catch (IOException | RuntimeException e) {
                stop();
            }
        }

        private void stop() {
            ScheduledFuture<?> t = tick;
            if (t != null) {
                t.cancel(false);
            }
        }

        @Override
        protected void onClose(CloseCode code, String reason, boolean remote) {
            stop();
        }

        @Override
        protected void onMessage(WebSocketFrame message) {
        }

        @Override
        protected void onPong(WebSocketFrame pong) {
        }
    }

    public static void main(String[] args) throws Exception {
        QUIET.setLevel(Level.WARNING);
        int port = Integer.parseInt(args[0]);
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 4096);
        server.createContext("/ts", new WebSocketHandler() {
            @Override
            protected WebSocket openWebSocket(HttpExchange ex) {
                return new Ts(ex);
            }
        });
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.start();
        System.out.println("listening on http://127.0.0.1:" + port + "/ provider="
                + server.getClass().getName() + " executor=vt");
        System.out.flush();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> server.stop(0)));
        Thread.currentThread().join();
    }
}
