package dev.tachy.httpserver;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.lang.reflect.Method;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Child JVM main of VirtualThreadPinningTest.closersHarvestOnVirtualThreadsOnly (Java 21+).
 *
 * <p>A tachy server whose executor counts the {@code execute} calls made from its own
 * threads. 32 keep-alive connections in two groups of 16 that take turns each send one
 * request at a time (nothing pipelined). A task submitted from an executor's thread for a
 * connection other than the one that thread served last is a harvest: the close of one
 * connection's exchange serving another ready connection (docs/architecture.md, "Closers
 * harvest"). (A closer may also find its own connection's next request already there - on
 * a busy machine a closer can be held up until the other group's round is over - and
 * dispatch it: that continues its own connection and is not counted.) With virtual threads
 * some tasks come from harvests (the bridge closes with TACHY_CLOSE_HARVEST there); with
 * newFixedThreadPool(4) none do, in 200 rounds. Every answer is checked.
 * Prints one line per check and "N passed, M failed"; exits 0 only if all passed.
 */
public final class HarvestProbe {
    private HarvestProbe() {}

    /** Runs rounds on one server with exec; returns {rounds, calls from exec's threads}. */
    private static int[] load(ExecutorService exec, Set<Thread> mine, int minRounds, int maxRounds,
            boolean untilHarvest) throws Exception {
        AtomicInteger fromOwn = new AtomicInteger();
        // The path each thread's handler served last, and, while a task runs, the path its
        // submitter had served last (null: submitted by a thread not exec's).
        ThreadLocal<String> served = new ThreadLocal<>();
        ThreadLocal<String> submitterServed = new ThreadLocal<>();
        Executor counting = r -> {
            String by = mine.contains(Thread.currentThread()) ? served.get() : null;
            exec.execute(() -> {
                submitterServed.set(by);
                try {
                    r.run();
                } finally {
                    submitterServed.remove();
                }
            });
        };
        HttpServer s = HttpServer.create(new InetSocketAddress(TestSupport.LOOPBACK, 0), 0);
        s.createContext("/", ex -> {
            String path = ex.getRequestURI().getPath();
            String by = submitterServed.get();
            if (by != null && !by.equals(path)) {
                fromOwn.incrementAndGet(); // submitted by a closer that served another connection
            }
            served.set(path);
            TestSupport.respond(ex, 200, path);
        });
        s.setExecutor(counting);
        s.start();
        int port = s.getAddress().getPort();
        Socket[] c = new Socket[32];
        int rounds = 0;
        int wrong = 0;
        try {
            for (int i = 0; i < c.length; i++) {
                c[i] = new Socket(TestSupport.LOOPBACK, port);
                c[i].setSoTimeout(10_000);
                c[i].setTcpNoDelay(true);
            }
            long end = System.nanoTime() + 10_000_000_000L;
            while (rounds < maxRounds && System.nanoTime() < end
                    && (rounds < minRounds || !untilHarvest || fromOwn.get() == 0)) {
                // Two groups in turn: a connection's next request comes a whole round of the
                // other group after its answer, when its closer has long parked it (a request
                // that came before that would be dispatched by its own closer: no harvest).
                for (int i = rounds % 2; i < c.length; i += 2) {
                    c[i].getOutputStream().write(("GET /h" + i + " HTTP/1.1\r\nHost: x\r\n\r\n")
                            .getBytes(StandardCharsets.ISO_8859_1));
                }
                for (int i = rounds % 2; i < c.length; i += 2) {
                    if (!ProbeSupport.response(c[i].getInputStream()).endsWith("\r\n\r\n/h" + i)) {
                        wrong++;
                    }
                }
                rounds++;
            }
        } catch (IOException e) {
            System.out.println("client: " + e);
            wrong++;
        } finally {
            for (Socket x : c) {
                if (x != null) {
                    x.close();
                }
            }
            s.stop(0);
            exec.shutdown();
        }
        return new int[] {rounds, fromOwn.get(), wrong};
    }

    public static void main(String[] args) throws Exception {
        Set<Thread> vts = ConcurrentHashMap.newKeySet();
        Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
        java.util.concurrent.ThreadFactory vf =
                (java.util.concurrent.ThreadFactory) Class.forName("java.lang.Thread$Builder").getMethod("factory")
                        .invoke(builder);
        Method perTask = Executors.class.getMethod("newThreadPerTaskExecutor",
                java.util.concurrent.ThreadFactory.class);
        ExecutorService vt = (ExecutorService) perTask.invoke(null, (java.util.concurrent.ThreadFactory) r -> {
            Thread t = vf.newThread(r);
            vts.add(t);
            return t;
        });
        int[] v = load(vt, vts, 20, 100_000, true);
        ProbeSupport.check(v[2] == 0, "virtual threads: every answer right (" + v[0] + " rounds x 16)");
        ProbeSupport.check(v[1] > 0, "virtual threads: " + v[1] + " tasks submitted by closers' harvests in "
                + v[0] + " rounds");

        Set<Thread> pool = ConcurrentHashMap.newKeySet();
        ExecutorService fixed = Executors.newFixedThreadPool(4, r -> {
            Thread t = new Thread(r);
            t.setDaemon(true);
            pool.add(t);
            return t;
        });
        int[] f = load(fixed, pool, 200, 200, false);
        ProbeSupport.check(f[2] == 0, "fixed pool: every answer right (" + f[0] + " rounds x 16)");
        ProbeSupport.check(f[1] == 0, "fixed pool: no harvest on platform threads (" + f[1] + " tasks submitted "
                + "by the pool's threads in " + f[0] + " rounds)");
        ProbeSupport.exit("");
    }
}
