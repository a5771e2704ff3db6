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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Scenario 8: default, custom and rejecting executors (virtual threads: src/test/java21). */
class ExecutorTest {

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
}
