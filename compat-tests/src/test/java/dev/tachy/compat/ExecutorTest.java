package dev.tachy.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** Scenario 8: default, custom and rejecting executors (virtual threads: src/test/java21). */
class ExecutorTest {

    /** An executor under test, with every thread its factory made (to tell whether a
     * handler ran on one of them). */
    private static final class Pool {
        final String name;
        final Set<Thread> threads = ConcurrentHashMap.newKeySet();
        final ExecutorService exec;

        Pool(String name, java.util.function.Function<ThreadFactory, ExecutorService> make,
                ThreadFactory base) {
            this.name = name;
            this.exec = make.apply(r -> {
                Thread t = base.newThread(r);
                threads.add(t);
                return t;
            });
        }
    }

    private static Thread daemon(Runnable r) {
        Thread t = new Thread(r);
        t.setDaemon(true);
        return t;
    }

    /**
     * newFixedThreadPool(4), newCachedThreadPool() and, on Java 21+, a virtual thread per
     * task (through reflection: this source set compiles for Java 17).
     */
    private static List<Supplier<Pool>> pools() {
        List<Supplier<Pool>> l = new ArrayList<>();
        l.add(() -> new Pool("fixed(4)", f -> Executors.newFixedThreadPool(4, f), ExecutorTest::daemon));
        l.add(() -> new Pool("cached", Executors::newCachedThreadPool, ExecutorTest::daemon));
        try {
            java.lang.reflect.Method perTask = Executors.class.getMethod("newThreadPerTaskExecutor",
                    ThreadFactory.class);
            Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
            ThreadFactory virtual = (ThreadFactory) builder.getClass().getMethod("factory").invoke(builder);
            l.add(() -> new Pool("virtual", f -> {
                try {
                    return (ExecutorService) perTask.invoke(null, f);
                } catch (ReflectiveOperationException e) {
                    throw new AssertionError(e);
                }
            }, virtual));
        } catch (ReflectiveOperationException e) {
            // Java 17..20: no virtual threads
        }
        return l;
    }

    @Test
    void defaultExecutorServesSequentialRequests() throws Exception {
        try (TestServer t = TestServer.bound()) {
            assertNull(t.server.getExecutor(), "no executor set");
            t.context("/", TestServer.OK);
            t.started();
            HttpClient c = Clients.httpClient();
            for (int i = 0; i < 20; i++) {
                assertEquals("ok", Clients.get(c, t.uri("/")).body());
            }
        }
    }

    /**
     * Without an executor the JDK runs every handler on its single dispatcher thread, so handlers
     * of different connections never overlap; tachy runs each connection's handlers on that
     * connection's thread, so they do. Intended difference (docs/architecture.md, "Threads").
     */
    @Test
    void defaultExecutorConcurrency() throws Exception {
        CountDownLatch both = new CountDownLatch(2);
        try (TestServer t = TestServer.start(ex -> {
            both.countDown();
            boolean together;
            try {
                together = both.await(1500, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                together = false;
            }
            TestServer.respond(ex, 200, together ? "together" : "alone");
        })) {
            HttpClient c = Clients.httpClient();
            CompletableFuture<HttpResponse<String>> a = c.sendAsync(Clients.request(t.uri("/a")).build(), HttpResponse.BodyHandlers.ofString());
            CompletableFuture<HttpResponse<String>> b = c.sendAsync(Clients.request(t.uri("/b")).build(), HttpResponse.BodyHandlers.ofString());
            String ra = a.get(20, TimeUnit.SECONDS).body();
            String rb = b.get(20, TimeUnit.SECONDS).body();
            if (Compat.isTachy()) {
                assertEquals("together together", ra + " " + rb);
            } else {
                // the first handler waited alone; the second ran after it, when the latch was open
                assertEquals(java.util.Set.of("alone", "together"), java.util.Set.of(ra, rb));
            }
        }
    }

    @Test
    void directExecutor() throws Exception {
        try (TestServer t = TestServer.start(TestServer.ECHO, Runnable::run); RawClient c = t.raw()) {
            for (int i = 0; i < 3; i++) {
                assertEquals("abc", c.send("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc").read().text());
            }
        }
    }

    /**
     * A handler may return at once and finish the exchange later on another thread (async style):
     * the exchange stays open until it is closed.
     */
    @Test
    void exchangeCompletedLaterOnAnotherThread() throws Exception {
        java.util.concurrent.ScheduledExecutorService later = Executors.newSingleThreadScheduledExecutor();
        try (TestServer t = TestServer.start(ex -> later.schedule(() -> {
            try {
                byte[] in = ex.getRequestBody().readAllBytes();
                TestServer.respond(ex, 200, "later:" + new String(in, java.nio.charset.StandardCharsets.US_ASCII));
            } catch (java.io.IOException e) {
                ex.close();
            }
        }, 300, TimeUnit.MILLISECONDS)); RawClient c = t.raw()) {
            for (int i = 0; i < 2; i++) {
                RawClient.Response r = c.send("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nhi").read();
                assertEquals("later:hi", r.text());
            }
            assertEquals("later:", Clients.get(Clients.httpClient(), t.uri("/")).body());
        } finally {
            later.shutdownNow();
        }
    }

    @Test
    void customExecutorRunsTheHandlers() throws Exception {
        AtomicInteger n = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(4, r -> {
            Thread th = new Thread(r, "compat-exec-" + n.incrementAndGet());
            th.setDaemon(true);
            return th;
        });
        Set<String> threads = ConcurrentHashMap.newKeySet();
        try (TestServer t = TestServer.bound()) {
            t.server.setExecutor(pool);
            assertSame(pool, t.server.getExecutor());
            t.context("/", ex -> {
                threads.add(Thread.currentThread().getName());
                TestServer.respond(ex, 200, "pooled");
            });
            t.started();
            assertEquals("pooled", Clients.get(Clients.httpClient(), t.uri("/")).body());
            assertTrue(threads.stream().allMatch(s -> s.startsWith("compat-exec-")), threads.toString());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void concurrentRequestsRunInParallelOnAPool() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        CountDownLatch all = new CountDownLatch(4);
        try (TestServer t = TestServer.start(ex -> {
            all.countDown();
            boolean together;
            try {
                together = all.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                together = false;
            }
            TestServer.respond(ex, 200, String.valueOf(together));
        }, pool)) {
            HttpClient c = Clients.httpClient();
            List<CompletableFuture<HttpResponse<String>>> fs = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                fs.add(c.sendAsync(Clients.request(t.uri("/" + i)).build(), HttpResponse.BodyHandlers.ofString()));
            }
            for (CompletableFuture<HttpResponse<String>> f : fs) {
                assertEquals("true", f.get(20, TimeUnit.SECONDS).body(), "4 handlers ran at the same time");
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void rejectingExecutorClosesTheConnectionAndTheServerLives() throws Exception {
        AtomicBoolean reject = new AtomicBoolean(true);
        ExecutorService pool = Executors.newCachedThreadPool();
        try (TestServer t = TestServer.start(TestServer.OK, task -> {
            if (reject.get()) {
                throw new RejectedExecutionException("full");
            }
            pool.execute(task);
        })) {
            try (RawClient c = t.raw()) {
                c.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
                assertTrue(c.closedByServer(), "rejected: connection closed");
            }
            reject.set(false);
            try (RawClient c = t.raw()) {
                assertEquals("ok", c.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n").read().text());
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** Thread.currentThread() in the handler is one of the executor's; getExecutor() is the
     * user's executor before and after start. */
    @Test
    void handlersRunOnTheExecutorsOwnThreads() throws Exception {
        for (Supplier<Pool> make : pools()) {
            Pool p = make.get();
            Set<Thread> seen = ConcurrentHashMap.newKeySet();
            try (TestServer t = TestServer.bound()) {
                t.server.setExecutor(p.exec);
                t.context("/", ex -> {
                    seen.add(Thread.currentThread());
                    TestServer.respond(ex, 200, "on " + p.name);
                });
                t.started();
                assertSame(p.exec, t.server.getExecutor(), p.name);
                HttpClient c = Clients.httpClient();
                for (int i = 0; i < 10; i++) {
                    assertEquals("on " + p.name, Clients.get(c, t.uri("/" + i)).body());
                }
                try (RawClient r = t.raw()) {
                    assertEquals("on " + p.name, r.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n").read().text());
                }
            } finally {
                p.exec.shutdownNow();
            }
            assertTrue(!seen.isEmpty() && p.threads.containsAll(seen), p.name + ": " + seen);
        }
    }

    /** stop(delay) waits for a handler that is still running on the executor, and its
     * response reaches the client. */
    @Test
    void stopWaitsForARunningHandler() throws Exception {
        for (Supplier<Pool> make : pools()) {
            Pool p = make.get();
            CountDownLatch entered = new CountDownLatch(1);
            TestServer t = TestServer.start(ex -> {
                entered.countDown();
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                TestServer.respond(ex, 200, "finished");
            }, p.exec);
            try (RawClient r = t.raw()) {
                r.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
                assertTrue(entered.await(10, TimeUnit.SECONDS), p.name);
                AtomicReference<String> got = new AtomicReference<>();
                Thread reader = new Thread(() -> {
                    try {
                        got.set(r.read().text());
                    } catch (Exception e) {
                        got.set(e.toString());
                    }
                });
                reader.start();
                long t0 = System.nanoTime();
                t.server.stop(3);
                long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
                reader.join(10_000);
                assertEquals("finished", got.get(), p.name);
                // it waited for the handler (1 s from its start), and not beyond the delay
                assertTrue(ms >= 500 && ms < 5000, p.name + ": stop(3) returned after " + ms + " ms");
            } finally {
                t.close();
                p.exec.shutdownNow();
            }
        }
    }

    /**
     * stop(1) called by a handler running on the executor, its own exchange still open: stop
     * waits the delay for it (it cannot end meanwhile), then closes the connections and
     * returns - no deadlock, and the server accepts nothing after. The same with an executor
     * that runs tasks at once (the handler then runs on the JDK's dispatcher thread, on
     * tachy's connection thread), but for the accepting.
     */
    @Test
    void stopCalledByAHandlerOnTheExecutorWaitsTheDelayAndStops() throws Exception {
        List<Supplier<Pool>> all = new ArrayList<>(pools());
        all.add(() -> new Pool("direct", f -> null, ExecutorTest::daemon));
        for (Supplier<Pool> make : all) {
            Pool p = make.get();
            AtomicReference<TestServer> self = new AtomicReference<>();
            AtomicLong stopMs = new AtomicLong(-1);
            CountDownLatch stopped = new CountDownLatch(1);
            java.util.concurrent.Executor exec = p.exec != null ? p.exec : Runnable::run;
            TestServer t = TestServer.start(ex -> {
                long t0 = System.nanoTime();
                self.get().server.stop(1);
                stopMs.set(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
                stopped.countDown();
                try {
                    TestServer.respond(ex, 200, "after stop");
                } catch (java.io.IOException expected) {
                    // stop closed the connection
                }
            }, exec);
            self.set(t);
            int port = t.port();
            try (RawClient r = t.raw()) {
                r.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
                assertTrue(stopped.await(10, TimeUnit.SECONDS), p.name + ": stop() returned in the handler");
                long ms = stopMs.get();
                assertTrue(ms >= 800 && ms < 3500, p.name + ": stop(1) in a handler took " + ms + " ms");
                if (p.exec == null) {
                    // The JDK's dispatcher thread is the one in the handler: its listening
                    // channel is closed for good only once that thread selects again.
                    continue;
                }
                boolean refused;
                try (java.net.Socket probe = new java.net.Socket(java.net.InetAddress.getLoopbackAddress(), port)) {
                    refused = false;
                } catch (java.io.IOException e) {
                    refused = true;
                }
                assertTrue(refused, p.name + ": the stopped server still accepts connections");
            } finally {
                t.close();
                if (p.exec != null) {
                    p.exec.shutdownNow();
                }
            }
        }
    }

    /** A handler that throws on the executor before responding: the connection closes with
     * no response, and the server keeps serving. */
    @Test
    void aHandlerThatThrowsOnTheExecutorClosesItsConnection() throws Exception {
        for (Supplier<Pool> make : pools()) {
            Pool p = make.get();
            try (TestServer t = TestServer.start(ex -> {
                if (ex.getRequestURI().getPath().equals("/throw")) {
                    throw new IllegalStateException("handler failed");
                }
                TestServer.respond(ex, 200, "fine");
            }, p.exec)) {
                try (RawClient r = t.raw()) {
                    r.send("GET /throw HTTP/1.1\r\nHost: a\r\n\r\n");
                    assertTrue(r.closedByServer(), p.name);
                }
                try (RawClient r = t.raw()) {
                    assertEquals("fine", r.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n").read().text(), p.name);
                }
            } finally {
                p.exec.shutdownNow();
            }
        }
    }

    /** Sixteen pipelined requests whose handlers take different times: the responses come
     * back in request order. */
    @Test
    void pipelinedResponsesKeepTheirOrderOnAnExecutor() throws Exception {
        for (Supplier<Pool> make : pools()) {
            Pool p = make.get();
            try (TestServer t = TestServer.start(ex -> {
                int i = Integer.parseInt(ex.getRequestURI().getPath().substring(1));
                try {
                    Thread.sleep((15 - i) * 3L);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                TestServer.respond(ex, 200, "r" + i);
            }, p.exec); RawClient r = t.raw()) {
                StringBuilder all = new StringBuilder();
                for (int i = 0; i < 16; i++) {
                    all.append("GET /").append(i).append(" HTTP/1.1\r\nHost: a\r\n\r\n");
                }
                r.send(all.toString());
                for (int i = 0; i < 16; i++) {
                    assertEquals("r" + i, r.read().text(), p.name);
                }
            } finally {
                p.exec.shutdownNow();
            }
        }
    }

    /** Every exchange is one task of the executor, pipelined ones too (a counting executor
     * sees one execute per request), and each runs on the executor's own threads. */
    @Test
    void eachPipelinedExchangeIsOneTask() throws Exception {
        for (Supplier<Pool> make : pools()) {
            Pool p = make.get();
            AtomicInteger tasks = new AtomicInteger();
            AtomicInteger foreign = new AtomicInteger();
            java.util.concurrent.Executor counting = r -> {
                tasks.incrementAndGet();
                p.exec.execute(r);
            };
            try (TestServer t = TestServer.start(ex -> {
                if (!p.threads.contains(Thread.currentThread())) {
                    foreign.incrementAndGet();
                }
                TestServer.respond(ex, 200, ex.getRequestURI().getPath());
            }, counting); RawClient r = t.raw()) {
                StringBuilder all = new StringBuilder();
                for (int i = 0; i < 12; i++) {
                    all.append("GET /p").append(i).append(" HTTP/1.1\r\nHost: a\r\n\r\n");
                }
                r.send(all.toString());
                for (int i = 0; i < 12; i++) {
                    assertEquals("/p" + i, r.read().text(), p.name);
                }
                assertEquals(12, tasks.get(), p.name + ": one task per exchange");
                assertEquals(0, foreign.get(), p.name + ": handlers on the executor's threads");
            } finally {
                p.exec.shutdownNow();
            }
        }
    }

    /** Who calls {@code execute}: the JDK's dispatcher thread for every exchange; on tachy
     * the connection thread for the first of a pipelined run and, for each one after it,
     * the executor's thread that closes the one before (docs/architecture.md, "Closers
     * harvest": a close continues the connection). Pinned per provider (compat-tests/README,
     * intended differences). */
    @Test
    void whichThreadSubmitsPipelinedExchanges() throws Exception {
        for (Supplier<Pool> make : pools()) {
            Pool p = make.get();
            AtomicInteger fromExecutor = new AtomicInteger();
            AtomicInteger calls = new AtomicInteger();
            java.util.concurrent.Executor watching = r -> {
                calls.incrementAndGet();
                if (p.threads.contains(Thread.currentThread())) {
                    fromExecutor.incrementAndGet();
                }
                p.exec.execute(r);
            };
            // The handler waits a little: on tachy a close that came before the connection
            // thread had lent the connection (it is still returning from execute) leaves the
            // next request to that thread, not the closer.
            try (TestServer t = TestServer.start(ex -> {
                try {
                    Thread.sleep(30);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                TestServer.respond(ex, 200, ex.getRequestURI().getPath());
            }, watching); RawClient r = t.raw()) {
                r.send("GET /a HTTP/1.1\r\nHost: a\r\n\r\nGET /b HTTP/1.1\r\nHost: a\r\n\r\n"
                        + "GET /c HTTP/1.1\r\nHost: a\r\n\r\nGET /d HTTP/1.1\r\nHost: a\r\n\r\n");
                for (String path : new String[] {"/a", "/b", "/c", "/d"}) {
                    assertEquals(path, r.read().text(), p.name);
                }
                assertEquals(4, calls.get(), p.name);
                assertEquals(Compat.isTachy() ? 3 : 0, fromExecutor.get(), p.name);
            } finally {
                p.exec.shutdownNow();
            }
        }
    }

    /** A handler that waits seconds for the rest of its body loses nothing, and other
     * connections are served meanwhile. */
    @Test
    void aHandlerWaitingSecondsForItsBodyLosesNothing() throws Exception {
        for (Supplier<Pool> make : pools()) {
            Pool p = make.get();
            try (TestServer t = TestServer.start(ex -> {
                byte[] b = TestServer.readAll(ex.getRequestBody());
                TestServer.respond(ex, 200, "got " + new String(b, java.nio.charset.StandardCharsets.ISO_8859_1));
            }, p.exec); RawClient slow = t.raw()) {
                slow.send("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nhello");
                long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1500);
                HttpClient c = Clients.httpClient();
                int served = 0;
                while (System.nanoTime() < end) {
                    assertEquals("got ", Clients.get(c, t.uri("/other")).body(), p.name);
                    served++;
                }
                assertTrue(served > 0, p.name);
                slow.send("world");
                assertEquals("got helloworld", slow.read().text(), p.name);
            } finally {
                p.exec.shutdownNow();
            }
        }
    }
}
