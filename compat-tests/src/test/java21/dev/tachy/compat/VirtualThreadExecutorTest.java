package dev.tachy.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Scenario 8 (Java 21+, compiled only there): handlers on virtual threads. */
class VirtualThreadExecutorTest {

    @Test
    void handlersRunOnVirtualThreads() throws Exception {
        try (ExecutorService vt = Executors.newVirtualThreadPerTaskExecutor();
                TestServer s = TestServer.start(ex -> {
                    String body = Thread.currentThread().isVirtual() + " " + ex.getRequestURI().getPath();
                    try {
                        Thread.sleep(50);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    TestServer.respond(ex, 200, body);
                }, vt)) {
            var client = Clients.httpClient();
            List<CompletableFuture<HttpResponse<String>>> fs = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                fs.add(client.sendAsync(Clients.request(s.uri("/" + i)).build(), HttpResponse.BodyHandlers.ofString()));
            }
            for (int i = 0; i < fs.size(); i++) {
                assertEquals("true /" + i, fs.get(i).get(30, TimeUnit.SECONDS).body());
            }
            try (RawClient c = s.raw()) {
                assertTrue(c.send("GET /raw HTTP/1.1\r\nHost: a\r\n\r\n").read().text().startsWith("true"));
            }
        }
    }
}
