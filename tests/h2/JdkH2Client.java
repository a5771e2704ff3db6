import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * The JDK's own HTTP/2 client against a server: java.net.http.HttpClient with
 * Version.HTTP_2 (its default), as issue 25 asks.
 *
 * <pre>java -Djdk.internal.httpclient.disableHostnameVerification=true \
 *      tests/h2/JdkH2Client.java BASE-URL [ECHO-PATH]</pre>
 *
 * BASE-URL is http://HOST:PORT (the JDK reaches h2c by {@code Upgrade: h2c} on its first
 * request, it has no prior knowledge) or https://HOST:PORT (ALPN h2; the certificate is not
 * verified). ECHO-PATH (default /echo; "-" for none) answers POST with the body. Checks:
 * GET / over HTTP/2, a 1 MiB POST echo, 200 concurrent GETs on one client (one connection).
 * Prints PASS/FAIL lines and "N passed, M failed"; exit status 1 when anything failed.
 */
public final class JdkH2Client {
    private static int passed, failed;

    private static void check(String name, boolean ok, String detail) {
        if (ok) {
            passed++;
            System.out.println("  PASS " + name);
        } else {
            failed++;
            System.out.println("  FAIL " + name + ": " + detail);
        }
    }

    public static void main(String[] args) throws Exception {
        String base = args[0];
        String echo = args.length > 1 ? args[1] : "/echo";
        TrustManager[] trustAll = {new X509TrustManager() {
            public void checkClientTrusted(X509Certificate[] c, String a) {}
            public void checkServerTrusted(X509Certificate[] c, String a) {}
            public X509Certificate[] getAcceptedIssuers() { return new X509Certificate[0]; }
        }};
        SSLContext ssl = SSLContext.getInstance("TLS");
        ssl.init(null, trustAll, new SecureRandom());
        // the host name is not checked either: run with
        // -Djdk.internal.httpclient.disableHostnameVerification=true (sslParameters would
        // also replace the client's ALPN list, and the JDK would then speak HTTP/1.1)
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2)
                .sslContext(ssl).connectTimeout(Duration.ofSeconds(5)).build();
        String label = base.startsWith("https") ? "TLS" : "h2c Upgrade";
        try {
            HttpResponse<String> r = client.send(
                    HttpRequest.newBuilder(URI.create(base + "/")).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString());
            check("JDK HttpClient GET / over " + label + ": 200, HTTP_2",
                    r.statusCode() == 200 && r.version() == HttpClient.Version.HTTP_2 && !r.body().isEmpty(),
                    r.statusCode() + " " + r.version());
        } catch (Exception e) {
            check("JDK HttpClient GET / over " + label, false, e.toString());
        }
        if (!echo.equals("-")) {
            try {
                byte[] body = new byte[1 << 20];
                new SecureRandom().nextBytes(body);
                HttpResponse<byte[]> r = client.send(
                        HttpRequest.newBuilder(URI.create(base + echo)).timeout(Duration.ofSeconds(20))
                                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
                        HttpResponse.BodyHandlers.ofByteArray());
                check("JDK HttpClient POST 1 MiB echo over " + label,
                        r.statusCode() == 200 && r.version() == HttpClient.Version.HTTP_2
                                && Arrays.equals(body, r.body()),
                        r.statusCode() + " " + r.version() + ", " + r.body().length + " bytes");
            } catch (Exception e) {
                check("JDK HttpClient POST 1 MiB echo over " + label, false, e.toString());
            }
        }
        try {
            List<CompletableFuture<HttpResponse<String>>> all = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                all.add(client.sendAsync(
                        HttpRequest.newBuilder(URI.create(base + "/")).timeout(Duration.ofSeconds(20)).build(),
                        HttpResponse.BodyHandlers.ofString()));
            }
            int ok = 0;
            String bad = "";
            for (CompletableFuture<HttpResponse<String>> f : all) {
                HttpResponse<String> r = f.join();
                if (r.statusCode() == 200 && r.version() == HttpClient.Version.HTTP_2) {
                    ok++;
                } else {
                    bad = r.statusCode() + " " + r.version();
                }
            }
            check("JDK HttpClient 200 concurrent GETs over " + label, ok == 200, ok + " of 200 ok; " + bad);
        } catch (Exception e) {
            check("JDK HttpClient 200 concurrent GETs over " + label, false, e.toString());
        }
        System.out.println(passed + " passed, " + failed + " failed");
        System.exit(failed == 0 ? 0 : 1);
    }
}
