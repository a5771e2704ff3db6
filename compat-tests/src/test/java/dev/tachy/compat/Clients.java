package dev.tachy.compat;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** HttpURLConnection and java.net.http.HttpClient, always with timeouts. */
final class Clients {
    private Clients() {}

    static final Duration TIMEOUT = Duration.ofSeconds(10);

    static HttpClient httpClient() {
        return HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(TIMEOUT)
                .build();
    }

    static HttpRequest.Builder request(URI uri) {
        return HttpRequest.newBuilder(uri).timeout(TIMEOUT);
    }

    static HttpResponse<String> get(HttpClient c, URI uri) throws IOException, InterruptedException {
        return c.send(request(uri).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    static HttpURLConnection open(URI uri) throws IOException {
        HttpURLConnection c = (HttpURLConnection) uri.toURL().openConnection();
        c.setConnectTimeout(10_000);
        c.setReadTimeout(10_000);
        c.setUseCaches(false);
        return c;
    }

    /** Body of a successful or error response, or null when there is none. */
    static byte[] body(HttpURLConnection c) throws IOException {
        InputStream in;
        try {
            in = c.getResponseCode() >= 400 ? c.getErrorStream() : c.getInputStream();
        } catch (IOException e) {
            in = c.getErrorStream();
        }
        if (in == null) {
            return null;
        }
        try (InputStream body = in) {
            return body.readAllBytes();
        }
    }
}
