package dev.tachy.httpserver;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.sun.net.httpserver.HttpServer;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Hundreds of parallel clients, bounded in count and time: every request gets its own
 * answer, none is lost. Runs with the handler on the connection thread and with an executor.
 */
class ConcurrencyTest {
    private static final int HTTPCLIENT_REQUESTS = 400;
    private static final int HUC_THREADS = 200;
    private static final int HUC_REQUESTS_PER_THREAD = 4;

    private static HttpServer start(boolean withExecutor, AtomicInteger handled, ExecutorService[] pool) throws Exception {
        HttpServer s = TestSupport.server("/", ex -> {
            handled.incrementAndGet();
            byte[] in = ex.getRequestBody().readAllBytes();
            String q = ex.getRequestURI().getRawQuery();
            byte[] out = ("echo " + q + " " + in.length).getBytes(StandardCharsets.US_ASCII);
            ex.sendResponseHeaders(200, out.length);
            try (OutputStream o = ex.getResponseBody()) {
                o.write(out);
            }
        });
        if (withExecutor) {
            pool[0] = Executors.newFixedThreadPool(16);
            s.setExecutor(pool[0]);
        }
        s.start();
        return s;
    }

    @ParameterizedTest(name = "executor={0}")
    @ValueSource(booleans = {false, true})
    void manyHttpClientRequestsInParallel(boolean withExecutor) throws Exception {
        AtomicInteger handled = new AtomicInteger();
        ExecutorService[] pool = new ExecutorService[1];
        HttpServer s = start(withExecutor, handled, pool);
        ExecutorService clientPool = Executors.newFixedThreadPool(8);
        HttpClient client = HttpClient.newBuilder().executor(clientPool)
                .version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
        try {
            List<CompletableFuture<HttpResponse<String>>> all = new ArrayList<>();
            for (int i = 0; i < HTTPCLIENT_REQUESTS; i++) {
                HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(TestSupport.url(s, "/?i=" + i)))
                        .timeout(Duration.ofSeconds(60));
                if (i % 3 == 0) {
                    b.POST(HttpRequest.BodyPublishers.ofString("x".repeat(i)));
                }
                all.add(client.sendAsync(b.build(), HttpResponse.BodyHandlers.ofString()));
            }
            for (int i = 0; i < HTTPCLIENT_REQUESTS; i++) {
                HttpResponse<String> r = all.get(i).get(90, TimeUnit.SECONDS);
                assertEquals(200, r.statusCode());
                assertEquals("echo i=" + i + " " + (i % 3 == 0 ? i : 0), r.body());
            }
            assertEquals(HTTPCLIENT_REQUESTS, handled.get());
        } finally {
            s.stop(0);
            clientPool.shutdownNow();
            if (pool[0] != null) {
                pool[0].shutdownNow();
            }
        }
    }

    @ParameterizedTest(name = "executor={0}")
    @ValueSource(booleans = {false, true})
    void manyHttpUrlConnectionClientsInParallel(boolean withExecutor) throws Exception {
        AtomicInteger handled = new AtomicInteger();
        ExecutorService[] pool = new ExecutorService[1];
        HttpServer s = start(withExecutor, handled, pool);
        ExecutorService clients = Executors.newFixedThreadPool(HUC_THREADS);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < HUC_THREADS; t++) {
                final int thread = t;
                results.add(clients.submit(() -> {
                    int ok = 0;
                    for (int k = 0; k < HUC_REQUESTS_PER_THREAD; k++) {
                        String id = thread + "-" + k;
                        HttpURLConnection c = (HttpURLConnection) new URL(TestSupport.url(s, "/?" + id)).openConnection();
                        c.setConnectTimeout(10000);
                        c.setReadTimeout(60000);
                        byte[] body = new byte[k * 100];
                        if (k % 2 == 1) {
                            c.setDoOutput(true);
                            c.setRequestMethod("POST");
                            if (k == 3) {
                                c.setChunkedStreamingMode(64);
                            }
                            try (OutputStream o = c.getOutputStream()) {
                                o.write(body);
                            }
                        }
                        assertEquals(200, c.getResponseCode());
                        try (InputStream in = c.getInputStream()) {
                            String got = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
                            assertEquals("echo " + id + " " + (k % 2 == 1 ? body.length : 0), got);
                        }
                        ok++;
                    }
                    return ok;
                }));
            }
            int total = 0;
            for (Future<Integer> f : results) {
                total += f.get(120, TimeUnit.SECONDS);
            }
            assertEquals(HUC_THREADS * HUC_REQUESTS_PER_THREAD, total);
            assertEquals(total, handled.get());
        } finally {
            s.stop(0);
            clients.shutdownNow();
            if (pool[0] != null) {
                pool[0].shutdownNow();
            }
        }
    }
}
