package dev.tachy.httpserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/** Native threads seen from Java, handler failures, and both executor modes. */
class ThreadsAndExecutorsTest {
    private static final HttpClient CLIENT = HttpClient.newHttpClient();
    /** Held strongly so that the level set below sticks. */
    private static final Logger JUL = Logger.getLogger("com.sun.net.httpserver");

    private static HttpResponse<String> get(HttpServer s, String path) throws Exception {
        return CLIENT.send(HttpRequest.newBuilder(URI.create(TestSupport.url(s, path))).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static long tachyThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("tachy-conn-")).count();
    }

    @Test
    void handlersRunOnAttachedNonDaemonConnectionThreadsThatDetach() throws Exception {
        Map<String, Object> seen = new ConcurrentHashMap<>();
        HttpServer s = TestSupport.server("/", ex -> {
            Thread t = Thread.currentThread();
            seen.put("name", t.getName());
            seen.put("daemon", t.isDaemon());
            seen.put("listed", Thread.getAllStackTraces().containsKey(t));
            TestSupport.respond(ex, 200, "ok");
        });
        s.start();
        try {
            assertEquals("ok", get(s, "/").body());
            assertTrue(((String) seen.get("name")).startsWith("tachy-conn-"), (String) seen.get("name"));
            // no executor: the handler runs on a non-daemon thread, as on the JDK's dispatcher
            assertEquals(false, seen.get("daemon"));
            assertEquals(true, seen.get("listed"));
            assertTrue(tachyThreads() >= 1);
        } finally {
            s.stop(0);
        }
        // tachy.threadKeepAlive=300 ms (surefire): idle pooled threads exit and detach.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (tachyThreads() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertEquals(0, tachyThreads(), "connection threads must be detached when they exit");
    }

    @Test
    void aThrowingHandlerIsLoggedAndClosesTheConnectionWithoutResponse() throws Exception {
        List<LogRecord> records = new CopyOnWriteArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord r) {
                records.add(r);
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        Level old = JUL.getLevel();
        JUL.setLevel(Level.ALL);
        JUL.addHandler(capture);
        HttpServer s = TestSupport.server("/", ex -> {
            if (ex.getRequestURI().getPath().equals("/boom")) {
                throw new IllegalStateException("boom from handler");
            }
            if (ex.getRequestURI().getPath().equals("/late")) {
                TestSupport.respond(ex, 200, "complete");
                throw new IllegalStateException("after the response");
            }
            TestSupport.respond(ex, 200, "fine");
        });
        s.start();
        try {
            String got = TestSupport.raw(s, "GET /boom HTTP/1.1\r\nHost: x\r\n\r\n", 5000);
            assertEquals("", got, "no response is invented");
            assertTrue(records.stream().anyMatch(r -> r.getThrown() != null
                    && "boom from handler".equals(r.getThrown().getMessage())), records.toString());
            // the server keeps serving
            assertEquals("fine", get(s, "/").body());
            // a complete response still reaches the client
            got = TestSupport.raw(s, "GET /late HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 5000);
            assertTrue(got.startsWith("HTTP/1.1 200") && got.endsWith("complete"), got);
        } finally {
            s.stop(0);
            JUL.removeHandler(capture);
            JUL.setLevel(old);
        }
    }

    @Test
    void withAnExecutorTheConnectionThreadHandsOffAndWaits() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4, r -> {
            Thread t = new Thread(r, "app-pool");
            t.setDaemon(true);
            return t;
        });
        Map<String, Object> seen = new ConcurrentHashMap<>();
        HttpServer s = TestSupport.server("/", ex -> {
            seen.put("name", Thread.currentThread().getName());
            TestSupport.respond(ex, 200, "pooled");
        });
        s.setExecutor(pool);
        s.start();
        try {
            for (int i = 0; i < 5; i++) {
                assertEquals("pooled", get(s, "/").body());
            }
            assertEquals("app-pool", seen.get("name"));
        } finally {
            s.stop(0);
            pool.shutdownNow();
        }
    }

    /** Rejects every other task (the first, the third, ...); runs the others on a new thread. */
    private static void everyOther(AtomicInteger calls, Runnable task) {
        if (calls.incrementAndGet() % 2 == 1) {
            throw new RejectedExecutionException("full");
        }
        new Thread(task, "one-shot").start();
    }

    /** Rejected, accepted, rejected: each rejected exchange's connection closes unanswered. */
    private static void assertRejectedExchangesCloseTheirConnection(Executor everyOther) throws Exception {
        HttpServer s = TestSupport.server("/", ex -> TestSupport.respond(ex, 200, "accepted"));
        s.setExecutor(everyOther);
        s.start();
        try {
            assertEquals("", TestSupport.raw(s, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", 5000));
            String got = TestSupport.raw(s, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 5000);
            assertTrue(got.endsWith("accepted"), got);
            assertEquals("", TestSupport.raw(s, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", 5000));
        } finally {
            s.stop(0);
        }
    }

    @Test
    void aRejectedExchangeClosesItsConnectionAndTheServerKeepsServing() throws Exception {
        AtomicInteger n = new AtomicInteger();
        assertRejectedExchangesCloseTheirConnection(task -> everyOther(n, task));
    }

    /**
     * A ForkJoinPool that holds what it is given until {@code hold} tasks are there, then
     * runs them newest first on one thread (a worker draining one busy queue while an older
     * task waits in another looks like this from outside).
     */
    private static final class HoldingPool extends ForkJoinPool {
        final List<Runnable> held = new CopyOnWriteArrayList<>();
        final int hold;

        HoldingPool(int hold) {
            super(1);
            this.hold = hold;
        }

        @Override
        public void execute(Runnable task) {
            held.add(task);
            if (held.size() == hold) {
                new Thread(() -> {
                    for (int i = held.size() - 1; i >= 0; i--) {
                        held.get(i).run();
                    }
                }, "newest-first").start();
            }
        }
    }

    /**
     * A lent exchange's close dispatches the next pipelined request on the closing thread,
     * whose head comes up in the array that close lent the bridge (Native.close's scratch)
     * when it fits and in one of its own when not. 40 pipelined requests in one write, heads
     * of 100 bytes to 3 KB in turn (either side of the lent array's 512 bytes): every handler
     * sees its own URI and headers and the answers come back in order - on a platform pool
     * (the closer is an executor thread), on an executor that runs tasks at once (a close
     * inside the dispatch of the next: nested), and on virtual threads (Java 21+).
     */
    @Test
    void pipelinedHeadsOfEverySizeReachTheirHandlersOnEveryExecutor() throws Exception {
        List<Executor> executors = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        executors.add(pool);
        executors.add(Runnable::run);
        ExecutorService vt = null;
        try {
            vt = (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
            executors.add(vt);
        } catch (NoSuchMethodException e) {
            // Java 17: no virtual threads
        }
        try {
            for (Executor e : executors) {
                assertPipelinedHeadsArriveWhole(e);
            }
        } finally {
            pool.shutdownNow();
            if (vt != null) {
                vt.shutdownNow();
            }
        }
    }

    private static void assertPipelinedHeadsArriveWhole(Executor executor) throws Exception {
        HttpServer s = TestSupport.server("/", ex -> {
            String pad = ex.getRequestHeaders().getFirst("X-Pad");
            TestSupport.respond(ex, 200, ex.getRequestURI().getPath() + " "
                    + ex.getRequestHeaders().getFirst("X-N") + " " + (pad == null ? 0 : pad.length()));
        });
        s.setExecutor(executor);
        s.start();
        int n = 40;
        int[] pads = {0, 300, 450, 3000, 20};
        StringBuilder req = new StringBuilder();
        StringBuilder want = new StringBuilder();
        for (int i = 0; i < n; i++) {
            int pad = pads[i % pads.length];
            req.append("GET /r").append(i).append(" HTTP/1.1\r\nHost: x\r\nX-N: ").append(i).append("\r\n");
            if (pad > 0) {
                req.append("X-Pad: ").append(String.valueOf((char) ('a' + i % 26)).repeat(pad)).append("\r\n");
            }
            if (i == n - 1) {
                req.append("Connection: close\r\n");
            }
            req.append("\r\n");
            want.append("/r").append(i).append(' ').append(i).append(' ').append(pad).append('|');
        }
        try {
            String got = TestSupport.raw(s, req.toString(), 10_000);
            StringBuilder bodies = new StringBuilder();
            for (String part : got.split("HTTP/1.1 ")) {
                if (part.isEmpty()) {
                    continue;
                }
                assertTrue(part.startsWith("200 "), executor + ": " + part);
                bodies.append(part, part.indexOf("\r\n\r\n") + 4, part.length()).append('|');
            }
            assertEquals(want.toString(), bodies.toString(), "on " + executor);
        } finally {
            s.stop(0);
        }
    }

    @Test
    void onAForkJoinPoolExchangesStartInTheOrderTheyWereSubmitted() throws Exception {
        int n = 4;
        HoldingPool pool = new HoldingPool(n);
        List<String> ran = new CopyOnWriteArrayList<>();
        HttpServer s = TestSupport.server("/", ex -> {
            String path = ex.getRequestURI().getPath();
            ran.add(path);
            TestSupport.respond(ex, 200, path);
        });
        s.setExecutor(pool);
        s.start();
        List<Socket> socks = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) { // one request per connection, submitted one after the other
                Socket sock = new Socket(TestSupport.LOOPBACK, s.getAddress().getPort());
                sock.setSoTimeout(10_000);
                socks.add(sock);
                sock.getOutputStream().write(("GET /" + i + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                        .getBytes(StandardCharsets.ISO_8859_1));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (pool.held.size() <= i && System.nanoTime() < deadline) {
                    Thread.sleep(2);
                }
                assertEquals(i + 1, pool.held.size(), "tasks submitted after request " + i);
            }
            for (int i = 0; i < n; i++) { // each connection gets its own response
                String got = new String(socks.get(i).getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
                assertTrue(got.startsWith("HTTP/1.1 200") && got.endsWith("\r\n\r\n/" + i), got);
            }
            // The tasks ran newest first, the exchanges oldest first.
            assertEquals(List.of("/0", "/1", "/2", "/3"), ran);
        } finally {
            for (Socket sock : socks) {
                sock.close();
            }
            s.stop(0);
            pool.shutdownNow();
        }
    }

    @Test
    void onAForkJoinPoolARejectedExchangeClosesItsConnectionToo() throws Exception {
        AtomicInteger n = new AtomicInteger();
        ForkJoinPool pool = new ForkJoinPool(1) { // in order: the provider submits its oldest-first task
            @Override
            public void execute(Runnable task) {
                everyOther(n, task);
            }
        };
        try {
            assertRejectedExchangesCloseTheirConnection(pool);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void anExchangeMayBeFinishedByAnotherThreadAfterTheHandlerReturned() throws Exception {
        ExecutorService later = Executors.newSingleThreadExecutor();
        HttpServer s = TestSupport.server("/", ex -> later.submit(() -> {
            try {
                Thread.sleep(100);
                TestSupport.respond(ex, 200, "async " + ex.getRequestURI().getPath());
            } catch (Exception e) {
                fail(e);
            }
        }));
        s.start();
        try {
            // twice on one keep-alive connection: the connection waited for the close
            String got = TestSupport.raw(s, "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "GET /b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 10000);
            assertTrue(got.contains("async /a") && got.endsWith("async /b"), got);
            assertFalse(got.contains("<timeout>"), got);
        } finally {
            s.stop(0);
            later.shutdownNow();
        }
    }

    @Test
    void streamsAfterCloseFailWithoutTouchingFreedMemory() throws Exception {
        Map<String, Object> seen = new ConcurrentHashMap<>();
        HttpServer s = TestSupport.server("/", ex -> {
            TestSupport.respond(ex, 200, "done");
            OutputStream out = ex.getResponseBody();
            try {
                out.write("more".getBytes(StandardCharsets.US_ASCII));
                seen.put("write", "no exception");
            } catch (IOException e) {
                seen.put("write", "IOException");
            }
            try {
                ex.getRequestBody().read();
                seen.put("read", "no exception");
            } catch (IOException e) {
                seen.put("read", "IOException");
            }
            ex.close(); // idempotent
        });
        s.start();
        try {
            assertEquals("done", get(s, "/").body());
            for (int i = 0; i < 100 && !seen.containsKey("read"); i++) {
                Thread.sleep(50); // recorded after the response left
            }
            assertEquals("IOException", seen.get("write"));
            assertEquals("IOException", seen.get("read"));
        } finally {
            s.stop(0);
        }
    }

    @Test
    void stopFromInsideAHandlerDoesNotDeadlock() throws Exception {
        java.util.concurrent.CountDownLatch stopped = new java.util.concurrent.CountDownLatch(1);
        HttpServer[] self = new HttpServer[1];
        HttpServer s = TestSupport.server("/", ex -> {
            TestSupport.respond(ex, 200, "bye");
            self[0].stop(0);
            stopped.countDown();
        });
        self[0] = s;
        s.start();
        String got = TestSupport.raw(s, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 5000);
        assertTrue(got.endsWith("bye"), got);
        assertTrue(stopped.await(10, TimeUnit.SECONDS), "stop() returned inside the handler");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            try (java.net.Socket probe = new java.net.Socket(TestSupport.LOOPBACK, s.getAddress().getPort())) {
                Thread.sleep(100); // still accepting: the asynchronous stop has not finished yet
            } catch (IOException refused) {
                return; // stopped
            }
        }
        fail("the server did not stop");
    }

    @Test
    void stopEndsAnExchangeThatIsNeverClosed() throws Exception {
        HttpServer s = TestSupport.server("/", ex -> {
            ex.sendResponseHeaders(200, 10);
            ex.getResponseBody().write('x'); // and never closed
        });
        s.start();
        try (java.net.Socket c = new java.net.Socket(TestSupport.LOOPBACK, s.getAddress().getPort())) {
            c.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            Thread.sleep(300);
            long t0 = System.nanoTime();
            s.stop(1);
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertTrue(ms < 5000, "stop(1) took " + ms + " ms");
        }
    }

    @Test
    void virtualThreadExecutorOnJava21() throws Exception {
        java.lang.reflect.Method m;
        try {
            m = Executors.class.getMethod("newVirtualThreadPerTaskExecutor");
        } catch (NoSuchMethodException e) {
            org.junit.jupiter.api.Assumptions.assumeTrue(false, "Java 21+");
            return;
        }
        ExecutorService vt = (ExecutorService) m.invoke(null);
        java.lang.reflect.Method isVirtual = Thread.class.getMethod("isVirtual");
        Map<String, Object> seen = new ConcurrentHashMap<>();
        HttpServer s = TestSupport.server("/", ex -> {
            try {
                seen.put("virtual", isVirtual.invoke(Thread.currentThread()));
            } catch (ReflectiveOperationException e) {
                throw new IOException(e);
            }
            byte[] body = ex.getRequestBody().readAllBytes();
            TestSupport.respond(ex, 200, "vt " + body.length);
        });
        s.setExecutor(vt);
        s.start();
        try {
            for (int i = 0; i < 20; i++) {
                HttpResponse<String> r = CLIENT.send(HttpRequest.newBuilder(URI.create(TestSupport.url(s, "/")))
                        .POST(HttpRequest.BodyPublishers.ofString("x".repeat(i * 1000))).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertEquals("vt " + i * 1000, r.body());
            }
            assertEquals(true, seen.get("virtual"));
        } finally {
            s.stop(0);
            vt.shutdown();
        }
    }

    private static long recurse(int n, long acc) {
        return n == 0 ? acc : recurse(n - 1, acc + n) + 1;
    }

    @Test
    void connectionThreadsHaveAJavaSizedStack() throws Exception {
        // tachy.threadStackSize defaults to 1 MiB for the provider (the C default is 256 KiB):
        // handlers are Java code and get the JVM's usual stack depth.
        HttpServer s = TestSupport.server("/", ex -> {
            String r;
            try {
                r = Long.toString(recurse(5000, 0));
            } catch (StackOverflowError e) {
                r = "overflow";
            }
            TestSupport.respond(ex, 200, r);
        });
        s.start();
        try {
            assertEquals(Long.toString(5000L * 5001 / 2 + 5000), get(s, "/").body());
        } finally {
            s.stop(0);
        }
    }
}
