import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import dev.tachy.httpserver.websocket.WebSocket;
import dev.tachy.httpserver.websocket.WebSocketHandler;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPOutputStream;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

/**
 * The Java twin of tachy-arena (examples/httparena/tachy-arena.c): the same HttpArena
 * endpoints on the plain JDK API - HttpServer.create(), HttpsServer, and tachy's WebSocket
 * API - so it runs on the tachy provider (the jar on the class path) and, but for /ws, on
 * the JDK's own.
 *
 *   java -cp tachy-httpserver.jar:. TachyArena [--port P] [--tls-port Q --cert C --key K]
 *        [--data DIR] [--bind ADDR]
 *
 * Same flags, defaults and "listening on ..." lines as the C program. Differences: static
 * files are read from disk on every request (no cache, so a change shows at once), and
 * /delay completes the exchange from a ScheduledExecutorService (the handler returns
 * without closing it, which the JDK allows).
 */
public final class TachyArena {
    /** One dataset item: its compact JSON without the closing brace, and the two numbers. */
    record Item(String json, boolean integral, long priceI, long qtyI, double priceD, double qtyD) {}

    static List<Item> items = new ArrayList<>();
    static Path staticDir;
    static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "arena-timer");
        t.setDaemon(true);
        return t;
    });

    public static void main(String[] args) throws Exception {
        // The JDK keeps 200 idle keep-alive connections by default and closes the rest; the
        // arena holds thousands open (the C program raises the same limit).
        if (System.getProperty("sun.net.httpserver.maxIdleConnections") == null) {
            System.setProperty("sun.net.httpserver.maxIdleConnections", "1000000");
        }
        int port = 8080, tlsPort = 8081;
        String data = null, cert = null, key = null, bind = "0.0.0.0";
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--port" -> port = Integer.parseInt(args[i + 1]);
                case "--tls-port" -> tlsPort = Integer.parseInt(args[i + 1]);
                case "--cert" -> cert = args[i + 1];
                case "--key" -> key = args[i + 1];
                case "--data" -> data = args[i + 1];
                case "--bind" -> bind = args[i + 1];
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (data == null) {
            data = Files.exists(Path.of("/data/dataset.json")) ? "/data" : "examples/httparena/data";
        }
        if (cert == null && Files.exists(Path.of("/certs/server.crt"))) {
            cert = "/certs/server.crt";
            key = "/certs/server.key";
        }
        loadDataset(Files.readString(Path.of(data, "dataset.json")));
        staticDir = Path.of(data, "static");

        HttpServer http = HttpServer.create(new InetSocketAddress(bind, port), 4096);
        routes(http);
        http.setExecutor(null);
        http.start();
        System.out.println("dataset: " + items.size() + " items; static: " + staticDir);
        System.out.println("listening on http://" + bind + ":" + http.getAddress().getPort() + "/");
        HttpsServer https = null;
        if (cert != null) {
            https = HttpsServer.create(new InetSocketAddress(bind, tlsPort), 4096);
            SSLContext ctx = sslContext(Path.of(cert), Path.of(key));
            https.setHttpsConfigurator(new HttpsConfigurator(ctx) {
                @Override
                public void configure(HttpsParameters p) {
                    SSLParameters sp = ctx.getDefaultSSLParameters();
                    sp.setProtocols(new String[] {"TLSv1.3", "TLSv1.2"});
                    sp.setCipherSuites(new String[] {"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384",
                        "TLS_CHACHA20_POLY1305_SHA256", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
                        "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
                        "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"});
                    sp.setApplicationProtocols(new String[] {"http/1.1"});
                    p.setSSLParameters(sp);
                }
            });
            routes(https);
            https.start();
            System.out.println("listening on https://" + bind + ":" + https.getAddress().getPort() + "/");
        }
        System.out.flush();
        // SIGINT / SIGTERM: stop both servers and exit with status 0, as the C program does
        // (halt: a JVM ended by a signal would otherwise report 128 + the signal).
        final HttpsServer tls = https;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            http.stop(0);
            if (tls != null) {
                tls.stop(0);
            }
            Runtime.getRuntime().halt(0);
        }));
    }

    static void routes(HttpServer s) {
        s.createContext("/baseline11", TachyArena::baseline);
        s.createContext("/pipeline", ex -> send(ex, 200, "text/plain", null, bytes("ok")));
        s.createContext("/json/", TachyArena::json);
        s.createContext("/upload", TachyArena::upload);
        s.createContext("/echo", ex -> send(ex, 200, "application/octet-stream", null,
                ex.getRequestBody().readAllBytes()));
        s.createContext("/static/", TachyArena::serveStatic);
        s.createContext("/delay/", TachyArena::delay);
        s.createContext("/ws", new WebSocketHandler(ex -> new WebSocket.Listener() {
            @Override
            public CompletionStage<?> onText(WebSocket ws, CharSequence text, boolean last) {
                ws.sendText(text, last);
                ws.request(1);
                return null;
            }

            @Override
            public CompletionStage<?> onBinary(WebSocket ws, ByteBuffer data, boolean last) {
                ws.sendBinary(data, last);
                ws.request(1);
                return null;
            }
        }));
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static void send(HttpExchange ex, int code, String type, String encoding, byte[] body) throws IOException {
        Headers h = ex.getResponseHeaders();
        h.set("Content-Type", type);
        if (encoding != null) {
            h.set("Content-Encoding", encoding);
        }
        if (encoding != null || type.equals("application/json")) {
            h.set("Vary", "Accept-Encoding");
        }
        ex.sendResponseHeaders(code, body.length == 0 ? -1 : body.length);
        try (OutputStream os = ex.getResponseBody()) {
            os.write(body);
        }
    }

    static long queryLong(String q, String name, long def) {
        if (q == null) {
            return def;
        }
        for (String kv : q.split("&")) {
            if (kv.startsWith(name + "=")) {
                try {
                    return Long.parseLong(kv.substring(name.length() + 1));
                } catch (NumberFormatException e) {
                    return def;
                }
            }
        }
        return def;
    }

    static void baseline(HttpExchange ex) throws IOException {
        if (!ex.getRequestURI().getPath().equals("/baseline11")) {
            send(ex, 404, "text/plain", null, bytes("not found"));
            return;
        }
        String q = ex.getRequestURI().getRawQuery();
        long sum = queryLong(q, "a", 0) + queryLong(q, "b", 0);
        if (ex.getRequestMethod().equals("POST")) {
            String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8).trim();
            try {
                sum += body.isEmpty() ? 0 : Long.parseLong(body);
            } catch (NumberFormatException e) {
                send(ex, 400, "text/plain", null, bytes("bad body"));
                return;
            }
        }
        send(ex, 200, "text/plain", null, bytes(Long.toString(sum)));
    }

    /** RFC 9110 12.5.3: coding listed with q > 0, or not listed and "*" with q > 0. */
    static boolean accepts(HttpExchange ex, String coding) {
        List<String> values = ex.getRequestHeaders().get("Accept-Encoding");
        if (values == null) {
            return false;
        }
        double named = -1, star = -1;
        for (String v : values) {
            for (String tok : v.split(",")) {
                String[] parts = tok.trim().split(";");
                double q = 1;
                for (int i = 1; i < parts.length; i++) {
                    String p = parts[i].trim();
                    if (p.startsWith("q=") || p.startsWith("Q=")) {
                        try {
                            q = Double.parseDouble(p.substring(2));
                        } catch (NumberFormatException e) {
                            q = 0;
                        }
                    }
                }
                String name = parts[0].trim().toLowerCase(Locale.ROOT);
                if (name.equals(coding)) {
                    named = q;
                } else if (name.equals("*")) {
                    star = q;
                }
            }
        }
        return named >= 0 ? named > 0 : star > 0;
    }

    static void json(HttpExchange ex) throws IOException {
        String tail = ex.getRequestURI().getPath().substring(6);
        int count;
        try {
            count = Integer.parseInt(tail);
        } catch (NumberFormatException e) {
            send(ex, 404, "text/plain", null, bytes("not found"));
            return;
        }
        long m = queryLong(ex.getRequestURI().getRawQuery(), "m", 1);
        int n = Math.max(0, Math.min(count, items.size()));
        StringBuilder sb = new StringBuilder(n * 200 + 32).append("{\"items\":[");
        for (int i = 0; i < n; i++) {
            Item it = items.get(i);
            if (i > 0) {
                sb.append(',');
            }
            sb.append(it.json()).append(",\"total\":");
            if (it.integral()) {
                sb.append(it.priceI() * it.qtyI() * m);
            } else {
                sb.append(it.priceD() * it.qtyD() * (double) m); // Double.toString: shortest repr
            }
            sb.append('}');
        }
        sb.append("],\"count\":").append(n).append('}');
        byte[] body = bytes(sb.toString());
        if (accepts(ex, "gzip")) {
            ByteArrayOutputStream out = new ByteArrayOutputStream(body.length / 4 + 64);
            try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
                gz.write(body);
            }
            send(ex, 200, "application/json", "gzip", out.toByteArray());
        } else {
            send(ex, 200, "application/json", null, body);
        }
    }

    static void upload(HttpExchange ex) throws IOException {
        long total = 0;
        byte[] buf = new byte[65536];
        try (InputStream in = ex.getRequestBody()) {
            for (int r; (r = in.read(buf)) > 0; ) {
                total += r;
            }
        }
        send(ex, 200, "text/plain", null, bytes(Long.toString(total)));
    }

    static String staticType(String name) {
        int dot = name.lastIndexOf('.');
        String ext = dot < 0 ? "" : name.substring(dot).toLowerCase(Locale.ROOT);
        return switch (ext) {
            case ".css" -> "text/css";
            case ".js" -> "application/javascript";
            case ".json" -> "application/json";
            case ".html", ".htm" -> "text/html";
            case ".svg" -> "image/svg+xml";
            case ".webp" -> "image/webp";
            case ".woff2" -> "font/woff2";
            case ".woff" -> "font/woff";
            case ".png" -> "image/png";
            case ".txt" -> "text/plain";
            default -> "application/octet-stream";
        };
    }

    static void serveStatic(HttpExchange ex) throws IOException {
        String method = ex.getRequestMethod();
        if (!method.equals("GET") && !method.equals("HEAD")) {
            send(ex, 405, "text/plain", null, bytes("method not allowed"));
            return;
        }
        String name = ex.getRequestURI().getPath().substring(8);
        if (name.isEmpty() || name.startsWith(".") || name.contains("/") || name.indexOf('\0') >= 0) {
            send(ex, 404, "text/plain", null, bytes("not found"));
            return;
        }
        String[][] variants = {{"br", ".br"}, {"gzip", ".gz"}, {null, ""}};
        for (String[] v : variants) {
            if (v[0] != null && !accepts(ex, v[0])) {
                continue;
            }
            Path p = staticDir.resolve(name + v[1]);
            if (!Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
                continue;
            }
            byte[] body;
            try {
                body = Files.readAllBytes(p);
            } catch (IOException e) {
                continue;
            }
            Headers h = ex.getResponseHeaders();
            h.set("Content-Type", staticType(name));
            h.set("Vary", "Accept-Encoding");
            if (v[0] != null) {
                h.set("Content-Encoding", v[0]);
            }
            if (method.equals("HEAD")) {
                h.set("Content-Length", Integer.toString(body.length));
                ex.sendResponseHeaders(200, -1);
                ex.close();
                return;
            }
            ex.sendResponseHeaders(200, body.length == 0 ? -1 : body.length);
            try (OutputStream os = ex.getResponseBody()) {
                os.write(body);
            }
            return;
        }
        send(ex, 404, "text/plain", null, bytes("not found"));
    }

    static void delay(HttpExchange ex) throws IOException {
        long ms;
        try {
            ms = Long.parseLong(ex.getRequestURI().getPath().substring(7));
        } catch (NumberFormatException e) {
            ms = -1;
        }
        if (ms < 0 || ms > 60000) {
            send(ex, 400, "text/plain", null, bytes("delay must be 0..60000 ms"));
            return;
        }
        final long wait = ms;
        if (wait == 0) {
            send(ex, 200, "text/plain", null, bytes("0"));
            return;
        }
        TIMER.schedule(() -> {
            try {
                send(ex, 200, "text/plain", null, bytes(Long.toString(wait)));
            } catch (IOException e) {
                ex.close();
            }
        }, wait, TimeUnit.MILLISECONDS);
    }

    // ---- dataset: the array's objects kept as compact text, price and quantity parsed ----

    static int pos;

    static void loadDataset(String s) {
        pos = 0;
        skipWs(s);
        expect(s, '[');
        skipWs(s);
        while (s.charAt(pos) != ']') {
            StringBuilder obj = new StringBuilder();
            int start = pos;
            copyValue(s, obj);
            String compact = obj.toString();
            Number price = member(compact, "price"), qty = member(compact, "quantity");
            if (price == null || qty == null) {
                throw new IllegalArgumentException("dataset item at " + start + " has no price/quantity");
            }
            boolean integral = price instanceof Long && qty instanceof Long;
            items.add(new Item(compact.substring(0, compact.length() - 1), integral, price.longValue(),
                    qty.longValue(), price.doubleValue(), qty.doubleValue()));
            skipWs(s);
            if (s.charAt(pos) == ',') {
                pos++;
                skipWs(s);
            }
        }
    }

    static void skipWs(String s) {
        while (pos < s.length() && Character.isWhitespace(s.charAt(pos))) {
            pos++;
        }
    }

    static void expect(String s, char c) {
        if (s.charAt(pos) != c) {
            throw new IllegalArgumentException("expected " + c + " at " + pos);
        }
        pos++;
    }

    static void copyValue(String s, StringBuilder out) {
        skipWs(s);
        char c = s.charAt(pos);
        if (c == '"') {
            int st = pos++;
            while (s.charAt(pos) != '"') {
                pos += s.charAt(pos) == '\\' ? 2 : 1;
            }
            pos++;
            out.append(s, st, pos);
        } else if (c == '{' || c == '[') {
            char close = c == '{' ? '}' : ']';
            out.append(c);
            pos++;
            skipWs(s);
            boolean first = true;
            while (s.charAt(pos) != close) {
                if (!first) {
                    expect(s, ',');
                    out.append(',');
                }
                first = false;
                if (close == '}') {
                    copyValue(s, out);
                    skipWs(s);
                    expect(s, ':');
                    out.append(':');
                }
                copyValue(s, out);
                skipWs(s);
            }
            pos++;
            out.append(close);
        } else {
            int st = pos;
            while (pos < s.length() && "-+.eE0123456789truefalsn".indexOf(s.charAt(pos)) >= 0) {
                pos++;
            }
            out.append(s, st, pos);
        }
    }

    /** A top-level numeric member of a compact object, as Long or Double; null if absent. */
    static Number member(String obj, String name) {
        int depth = 0;
        boolean inStr = false;
        String key = "\"" + name + "\":";
        for (int i = 0; i < obj.length(); i++) {
            char c = obj.charAt(i);
            if (inStr) {
                if (c == '\\') {
                    i++;
                } else if (c == '"') {
                    inStr = false;
                }
                continue;
            }
            if (c == '{' || c == '[') {
                depth++;
            } else if (c == '}' || c == ']') {
                depth--;
            } else if (c == '"') {
                if (depth == 1 && obj.startsWith(key, i)) {
                    int st = i + key.length(), e = st;
                    while (e < obj.length() && "-+.eE0123456789".indexOf(obj.charAt(e)) >= 0) {
                        e++;
                    }
                    String num = obj.substring(st, e);
                    if (num.isEmpty()) {
                        return null;
                    }
                    return num.matches("-?\\d+") ? (Number) Long.parseLong(num) : Double.parseDouble(num);
                }
                inStr = true;
            }
        }
        return null;
    }

    // ---- TLS from PEM files ----

    static SSLContext sslContext(Path certPath, Path keyPath) throws Exception {
        CertificateFactory cf = CertificateFactory.getInstance("X.509");
        List<Certificate> chain = new ArrayList<>();
        try (InputStream in = Files.newInputStream(certPath)) {
            chain.addAll(cf.generateCertificates(in));
        }
        String pem = Files.readString(keyPath);
        String b64 = pem.replaceAll("-----(BEGIN|END) PRIVATE KEY-----", "").replaceAll("\\s", "");
        byte[] der = Base64.getDecoder().decode(b64);
        PrivateKey pk;
        try {
            pk = KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(der));
        } catch (Exception e) {
            pk = KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(der));
        }
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        char[] pw = "arena".toCharArray();
        ks.setKeyEntry("server", pk, pw, chain.toArray(new Certificate[0]));
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, pw);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(kmf.getKeyManagers(), null, null);
        return ctx;
    }
}
