package dev.tachy.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Scenario 7: create/bind/start/stop. */
class LifecycleTest {

    static long millisOf(Runnable r) {
        long t0 = System.nanoTime();
        r.run();
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    }

    @Test
    void createUnboundThenBindAndStart() throws Exception {
        HttpServer s = HttpServer.create();
        try {
            assertNull(s.getAddress(), "unbound server has no address");
            assertThrows(IllegalStateException.class, s::start, "start before bind");
            s.bind(TestServer.loopback0(), 0);
            InetSocketAddress a = s.getAddress();
            assertEquals(InetAddress.getLoopbackAddress(), a.getAddress());
            assertTrue(a.getPort() > 0, "port 0 resolved to the real port");
            s.createContext("/", TestServer.OK);
            s.start();
            assertEquals(200, Clients.get(Clients.httpClient(), TestServerUri.of(a, "/")).statusCode());
        } finally {
            s.stop(0);
        }
    }

    @Test
    void createWithNullAddressIsUnbound() throws Exception {
        HttpServer s = HttpServer.create(null, 0);
        try {
            assertNull(s.getAddress());
            s.bind(TestServer.loopback0(), 10);
            assertNotNull(s.getAddress());
        } finally {
            s.stop(0);
        }
    }

    @Test
    void bindingTwiceFails() throws Exception {
        try (TestServer t = TestServer.bound()) {
            assertThrows(BindException.class, () -> t.server.bind(TestServer.loopback0(), 0));
            assertThrows(NullPointerException.class, () -> HttpServer.create().bind(null, 0));
        }
    }

    @Test
    void bindingAPortInUseFails() throws Exception {
        try (TestServer t = TestServer.start(TestServer.OK)) {
            InetSocketAddress taken = new InetSocketAddress(InetAddress.getLoopbackAddress(), t.port());
            assertThrows(BindException.class, () -> HttpServer.create(taken, 0));
            HttpServer other = HttpServer.create();
            try {
                assertThrows(BindException.class, () -> other.bind(taken, 0));
            } finally {
                other.stop(0);
            }
        }
    }

    @Test
    void startingTwiceFails() throws Exception {
        try (TestServer t = TestServer.start(TestServer.OK)) {
            assertThrows(IllegalStateException.class, t.server::start);
            assertThrows(IllegalStateException.class, () -> t.server.setExecutor(r -> { }));
        }
    }

    @Test
    void negativeStopDelayFails() throws Exception {
        try (TestServer t = TestServer.start(TestServer.OK)) {
            assertThrows(IllegalArgumentException.class, () -> t.server.stop(-1));
        }
    }

    /**
     * Idle server: JDK 25 returns from stop(delay) at once; JDK 17 always waits the whole delay
     * when no exchange is active (fixed in later JDKs).
     */
    @Test
    void stopWhenIdle() throws Exception {
        TestServer t = TestServer.start(TestServer.OK);
        assertEquals(200, Clients.get(Clients.httpClient(), t.uri("/")).statusCode());
        long ms = millisOf(() -> t.server.stop(2));
        if (Compat.javaFeature() >= 21) {
            assertTrue(ms < 1500, "idle stop(2) returns at once, took " + ms + " ms");
        } else {
            assertTrue(ms >= 1900 && ms < 4000, "JDK 17: idle stop(2) waits the delay, took " + ms + " ms");
        }
    }

    @Test
    void stopWaitsForAnActiveExchangeUpToItsEnd() throws Exception {
        CountDownLatch inHandler = new CountDownLatch(1);
        TestServer t = TestServer.start(ex -> {
            inHandler.countDown();
            try {
                Thread.sleep(800);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            TestServer.respond(ex, 200, "finished");
        });
        CompletableFuture<HttpResponse<String>> resp = Clients.httpClient().sendAsync(
                Clients.request(t.uri("/")).build(), HttpResponse.BodyHandlers.ofString());
        assertTrue(inHandler.await(10, TimeUnit.SECONDS));
        long ms = millisOf(() -> t.server.stop(10));
        assertTrue(ms >= 400, "stop waited for the exchange, took " + ms + " ms");
        assertTrue(ms < 5000, "stop returned when the exchange ended, took " + ms + " ms");
        assertEquals("finished", resp.get(10, TimeUnit.SECONDS).body());
    }

    /**
     * With an executor, stop(delay) returns after at most about delay seconds even if a handler is
     * stuck. (With the default executor the JDK runs handlers on its dispatcher thread and stop()
     * also joins that thread, so a stuck handler blocks stop beyond the delay: not asserted.)
     */
    @Test
    void stopWaitsAtMostTheDelay() throws Exception {
        CountDownLatch inHandler = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newCachedThreadPool();
        TestServer t = TestServer.start(ex -> {
            inHandler.countDown();
            try {
                release.await(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            try {
                TestServer.respond(ex, 200, "late");
            } catch (IOException expected) {
                // the connection was closed by stop
            }
        }, pool);
        try (RawClient c = t.raw()) {
            c.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
            assertTrue(inHandler.await(10, TimeUnit.SECONDS));
            long ms = millisOf(() -> t.server.stop(1));
            assertTrue(ms >= 900 && ms < 3500, "stop(1) with a stuck handler took " + ms + " ms");
            // stop closed the connection
            assertTrue(c.closedByServer());
        } finally {
            release.countDown();
            pool.shutdown();
        }
    }

    @Test
    void repeatedStopAndStopBeforeStart() throws Exception {
        TestServer t = TestServer.start(TestServer.OK);
        t.server.stop(0);
        long ms = millisOf(() -> t.server.stop(0));
        assertTrue(ms < 2000, "second stop took " + ms + " ms");
        HttpServer unstarted = HttpServer.create(TestServer.loopback0(), 0);
        ms = millisOf(() -> unstarted.stop(0));
        assertTrue(ms < 2000, "stop before start took " + ms + " ms");
        assertThrows(IllegalStateException.class, unstarted::start, "no start after stop");
        assertThrows(IllegalStateException.class, t.server::start, "no restart after stop");
    }

    @Test
    void stopAfterAFailingHandlerDoesNotHang() throws Exception {
        TestServer t = TestServer.start(ex -> {
            throw new RuntimeException("fails");
        });
        for (int i = 0; i < 3; i++) {
            try (RawClient c = t.raw()) {
                c.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
                assertTrue(c.closedByServer());
            }
        }
        long ms = millisOf(() -> t.server.stop(1));
        assertTrue(ms < 3500, "stop(1) after failing handlers took " + ms + " ms");
    }

    @Test
    void stoppedServerRefusesConnections() throws Exception {
        TestServer t = TestServer.start(TestServer.OK);
        int port = t.port();
        t.close();
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 2000);
            s.setSoTimeout(5000);
            s.getOutputStream().write("GET / HTTP/1.1\r\nHost: a\r\n\r\n".getBytes());
            int b = s.getInputStream().read();
            assertEquals(-1, b, "a stopped server must not answer");
        } catch (IOException refused) {
            // expected: connection refused or reset
        }
    }

    @Test
    void stopClosesIdleKeepAliveConnections() throws Exception {
        TestServer t = TestServer.start(TestServer.OK);
        try (RawClient c = t.raw()) {
            assertEquals(200, c.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n").read().code);
            t.server.stop(0);
            assertTrue(c.closedByServer());
        }
    }

    @Test
    void serverIsReusableAcrossManyCreateStopCycles() throws Exception {
        for (int i = 0; i < 5; i++) {
            try (TestServer t = TestServer.start(TestServer.OK); RawClient c = t.raw()) {
                assertEquals("ok", c.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n").read().text());
            }
        }
    }

    /** A program whose main() starts a server and returns keeps running: the server's threads are not daemons. */
    @Test
    void serverKeepsTheJvmAliveAfterMainReturns() throws Exception {
        try (ChildServer.Handle h = ChildServer.start(java.util.Map.of(), "return")) {
            Thread.sleep(1000);
            assertTrue(h.process.isAlive(), "JVM exited although a started server was running");
            try (RawClient c = h.raw()) {
                assertEquals("return", c.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n").read().text());
            }
        }
    }

    /** After stop() no thread of the server keeps the JVM alive. */
    @Test
    void jvmExitsAfterStop() throws Exception {
        try (ChildServer.Handle h = ChildServer.start(java.util.Map.of(), "stop-after-one")) {
            try (RawClient c = h.raw()) {
                assertEquals("stop-after-one", c.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n").read().text());
            }
            assertTrue(h.process.waitFor(15, TimeUnit.SECONDS), "JVM still running 15 s after HttpServer.stop");
            assertEquals(0, h.process.exitValue());
        }
    }

    @Test
    void handlerThreadHasAContextClassLoader() throws Exception {
        java.util.concurrent.BlockingQueue<String> seen = new java.util.concurrent.ArrayBlockingQueue<>(2);
        try (TestServer t = TestServer.start(ex -> {
            ClassLoader tccl = Thread.currentThread().getContextClassLoader();
            String r;
            try {
                r = tccl == null ? "null" : String.valueOf(Class.forName(LifecycleTest.class.getName(), false, tccl) == LifecycleTest.class);
            } catch (ClassNotFoundException e) {
                r = "ClassNotFoundException";
            }
            seen.add(r);
            TestServer.respond(ex, 200, "ok");
        })) {
            try (RawClient c = t.raw()) {
                c.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n").read();
            }
            assertEquals("true", seen.poll(10, TimeUnit.SECONDS), "the handler thread's context class loader sees the application classes");
        }
    }

    /** stop() while clients keep sending: stop returns in time, every client call ends, nothing crashes. */
    @Test
    void stopUnderLoad() throws Exception {
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(4);
        TestServer t = TestServer.start(ex -> {
            byte[] in = ex.getRequestBody().readAllBytes();
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            TestServer.respond(ex, 200, "n=" + in.length);
        }, pool);
        java.util.concurrent.ExecutorService clients = java.util.concurrent.Executors.newFixedThreadPool(8);
        java.util.concurrent.atomic.AtomicInteger ok = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger failed = new java.util.concurrent.atomic.AtomicInteger();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
        java.util.List<java.util.concurrent.Future<?>> fs = new java.util.ArrayList<>();
        for (int i = 0; i < 8; i++) {
            fs.add(clients.submit(() -> {
                while (System.nanoTime() < end) {
                    try (RawClient c = t.raw()) {
                        c.timeout(5000);
                        for (int j = 0; j < 5; j++) {
                            c.send("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc").read();
                            ok.incrementAndGet();
                        }
                    } catch (IOException | AssertionError e) {
                        failed.incrementAndGet();
                    }
                }
                return null;
            }));
        }
        Thread.sleep(1000);
        long ms = millisOf(() -> t.server.stop(1));
        assertTrue(ms < 4000, "stop(1) under load took " + ms + " ms");
        for (java.util.concurrent.Future<?> f : fs) {
            f.get(30, TimeUnit.SECONDS); // every client loop ends
        }
        clients.shutdownNow();
        pool.shutdownNow();
        assertTrue(ok.get() > 0, "requests were served before stop");
        assertTrue(failed.get() > 0, "requests after stop fail");
    }

    /** URI helper for servers not wrapped in TestServer. */
    static final class TestServerUri {
        static java.net.URI of(InetSocketAddress a, String path) {
            return java.net.URI.create("http://127.0.0.1:" + a.getPort() + path);
        }
    }

    /**
     * Issue 15 item 4: without an executor the JDK runs handlers on its dispatcher thread, which
     * is not a daemon thread; with one, on the executor's thread.
     */
    @Test
    void handlerThreadIsNotADaemonWithoutAnExecutor() throws Exception {
        java.util.concurrent.BlockingQueue<Boolean> daemon = new java.util.concurrent.ArrayBlockingQueue<>(2);
        try (TestServer t = TestServer.start(ex -> {
            daemon.add(Thread.currentThread().isDaemon());
            TestServer.respond(ex, 200, "ok");
        })) {
            try (RawClient c = t.raw()) {
                c.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n").read();
            }
            assertEquals(Boolean.FALSE, daemon.poll(10, TimeUnit.SECONDS), "no executor: a non-daemon handler thread");
        }
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
            Thread th = new Thread(r, "compat-daemon-executor");
            th.setDaemon(true);
            return th;
        });
        try (TestServer t = TestServer.start(ex -> {
            daemon.add(Thread.currentThread().isDaemon());
            TestServer.respond(ex, 200, "ok");
        }, pool)) {
            try (RawClient c = t.raw()) {
                c.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n").read();
            }
            assertEquals(Boolean.TRUE, daemon.poll(10, TimeUnit.SECONDS), "the executor's (daemon) thread");
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Issue 15 item 10: without an executor, stop(0) returns only after the exchange in progress
     * has finished its filters, including the part after chain.doFilter (the JDK's stop joins
     * the dispatcher thread they run on). Here the response has reached the client while a
     * filter is still busy after the handler; stop(0) called then returns after the filter.
     */
    @Test
    void stopReturnsAfterTheFiltersThatRunAfterTheHandler() throws Exception {
        java.util.concurrent.atomic.AtomicBoolean filterDone = new java.util.concurrent.atomic.AtomicBoolean();
        CountDownLatch inFilter = new CountDownLatch(1);
        TestServer t = TestServer.bound();
        t.context("/", TestServer.OK).getFilters().add(new com.sun.net.httpserver.Filter() {
            @Override
            public void doFilter(com.sun.net.httpserver.HttpExchange ex, Chain chain) throws IOException {
                chain.doFilter(ex);
                inFilter.countDown();
                try {
                    Thread.sleep(700);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                filterDone.set(true);
            }

            @Override
            public String description() {
                return "slow after the handler";
            }
        });
        t.started();
        try (RawClient c = t.raw()) {
            assertEquals("ok", c.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n").read().text());
            assertTrue(inFilter.await(10, TimeUnit.SECONDS));
            long t0 = System.nanoTime();
            t.close(); // stop(0)
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertTrue(filterDone.get(), "stop(0) returned " + ms + " ms after the call, before the filter ended");
            assertTrue(ms < 5000, "stop(0) took " + ms + " ms");
        }
    }
}
