package dev.tachy.httpserver;

import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * Helpers of the child-JVM probes (PinningProbe, HarvestProbe, Http2Probe: mains run by a
 * Java 21+ launcher, without JUnit): the check counts and their summary line, the
 * virtual-thread executor (through reflection: the tests compile for Java 17), and the waits
 * every virtual-thread probe makes - for N handlers to be inside their body reads at once,
 * for quick answers while they wait, for the held-back answers at the end. One probe per JVM,
 * on its main thread.
 */
final class ProbeSupport {
    private ProbeSupport() {}

    /** Check counts of this JVM's probe. */
    static int passed;
    static int failed;

    /** Prints "ok" or "FAIL" and what was checked, and counts it. */
    static void check(boolean ok, String what) {
        System.out.println((ok ? "ok   " : "FAIL ") + what);
        if (ok) {
            passed++;
        } else {
            failed++;
        }
    }

    /** Prints "N passed, M failed" and what follows (the tests look for that line), then
     * exits: 0 only if every check passed. */
    static void exit(String after) {
        System.out.println(passed + " passed, " + failed + " failed" + after);
        System.exit(failed == 0 ? 0 : 1);
    }

    static long ms(long t0) {
        return (System.nanoTime() - t0) / 1_000_000;
    }

    /** Executors.newVirtualThreadPerTaskExecutor() (Java 21+). */
    static ExecutorService virtualThreads() throws ReflectiveOperationException {
        return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor")
                .invoke(null);
    }

    /** Waits (20 ms steps) until count reaches want or seconds pass; the count then. */
    static int awaitCount(AtomicInteger count, int want, int seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (count.get() < want && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        return count.get();
    }

    /** A /slow handler: counts itself in waiting, reads the whole body (which the client holds
     * back), then answers "slow BODY", with " PROTOCOL" after it when withProtocol. */
    static HttpHandler heldEcho(AtomicInteger waiting, boolean withProtocol) {
        return ex -> {
            waiting.incrementAndGet();
            byte[] b = ex.getRequestBody().readAllBytes(); // waits for the held-back body
            TestSupport.respond(ex, 200, "slow " + new String(b, StandardCharsets.ISO_8859_1)
                    + (withProtocol ? " " + ex.getProtocol() : ""));
        };
    }

    /** How many of the answers arrive within 60 s each and are ok; a failure is printed with
     * label (and counted as missing). */
    static int answered(List<CompletableFuture<HttpResponse<String>>> answers,
            Predicate<HttpResponse<String>> ok, String label) {
        int n = 0;
        for (CompletableFuture<HttpResponse<String>> f : answers) {
            try {
                if (ok.test(f.get(60, TimeUnit.SECONDS))) {
                    n++;
                }
            } catch (Exception e) {
                System.out.println(label + ": " + e);
            }
        }
        return n;
    }

    /** Quick requests: how many answered right within 5 s, and the slowest. */
    static final class Quick {
        int ok;
        long worstMs;
    }

    /** rounds times, a GET of u on each client in turn, each answered within 5 s with the body
     * want (a failure is printed with label). */
    static Quick quick(List<HttpClient> clients, URI u, String want, int rounds, String label) {
        Quick q = new Quick();
        for (int i = 0; i < rounds; i++) {
            for (HttpClient c : clients) {
                long t0 = System.nanoTime();
                try {
                    HttpResponse<String> r = c.sendAsync(HttpRequest.newBuilder(u).build(),
                            HttpResponse.BodyHandlers.ofString()).get(5, TimeUnit.SECONDS);
                    if (want.equals(r.body())) {
                        q.ok++;
                    }
                } catch (Exception e) {
                    System.out.println(label + ": " + e);
                }
                q.worstMs = Math.max(q.worstMs, ms(t0));
            }
        }
        return q;
    }

    /** Reads one HTTP/1.1 response with a Content-length body; returns head + body as text. */
    static String response(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        int ch;
        while (!head.toString().endsWith("\r\n\r\n")) {
            ch = in.read();
            if (ch < 0) {
                throw new IOException("closed after " + head.length() + " head bytes");
            }
            head.append((char) ch);
        }
        int len = 0;
        for (String line : head.toString().split("\r\n")) {
            if (line.regionMatches(true, 0, "Content-length:", 0, 15)) {
                len = Integer.parseInt(line.substring(15).trim());
            }
        }
        byte[] body = in.readNBytes(len);
        return head + new String(body, StandardCharsets.ISO_8859_1);
    }
}
