// The /ts endpoint of the WebSocket crowd benchmark (bench/wscrowd.sh) on Jetty 12's
// WebSocket server (org.eclipse.jetty.websocket:jetty-websocket-jetty-server, core Jetty, no
// servlets), with Jetty's default QueuedThreadPool.
//
// usage: java -cp JETTY_JARS:CLASSES WsJettyTs PORT
//   GET /ts (WebSocket) -> every 500 ms, starting 500 ms after the upgrade, the wall clock in
//                          microseconds since the epoch as a decimal text message
//
// Jetty is asynchronous: no thread per socket. The time stamps come from one
// ScheduledExecutorService (one platform thread per core); Session.sendText with a callback
// queues the frame and never blocks the scheduler thread. Session idle timeout 10 minutes
// (the clients only read).
// Prints "listening on http://127.0.0.1:PORT/ provider=..." once it accepts connections.
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ContextHandler;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;
import org.eclipse.jetty.websocket.server.WebSocketUpgradeHandler;

public final class WsJettyTs {
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

    public static final class Ts implements Session.Listener.AutoDemanding {
        private volatile Session session;
        private volatile ScheduledFuture<?> tick;
        private final Callback onSent = Callback.from(() -> { }, x -> stop());

        @Override
        public void onWebSocketOpen(Session s) {
            session = s;
            tick = TIMERS.scheduleAtFixedRate(this::fire, 500, 500, TimeUnit.MILLISECONDS);
        }

        private void fire() {
            Session s = session;
            if (s == null || !s.isOpen()) {
                stop();
                return;
            }
            s.sendText(Long.toString(micros()), onSent);
        }

        private void stop() {
            ScheduledFuture<?> t = tick;
            if (t != null) {
                t.cancel(false);
            }
        }

        @Override
        public void onWebSocketClose(int code, String reason, Callback done) {
            stop();
            done.succeed();
        }

        @Override
        public void onWebSocketError(Throwable cause) {
            stop();
        }
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(port);
        connector.setAcceptQueueSize(4096);
        server.addConnector(connector);
        ContextHandler context = new ContextHandler("/");
        WebSocketUpgradeHandler ws = WebSocketUpgradeHandler.from(server, context, container -> {
            container.setIdleTimeout(Duration.ofMinutes(10));
            container.addMapping("/ts", (req, rsp, cb) -> new Ts());
        });
        context.setHandler(ws);
        server.setHandler(context);
        server.start();
        System.out.println("listening on http://127.0.0.1:" + port + "/ provider="
                + server.getClass().getName() + " jetty=" + Server.getVersion());
        System.out.flush();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                server.stop();
            } catch (Exception e) {
                // stopping anyway
            }
        }));
        server.join();
    }
}
