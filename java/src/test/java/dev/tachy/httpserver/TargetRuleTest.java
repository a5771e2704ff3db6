package dev.tachy.httpserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.spi.HttpServerProvider;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The request-target acceptance rule, from the table the C suite reads too
 * (tests/request-targets.tsv; tests/test_target.c checks its column c against the C
 * server). Here every row goes to the JDK's own server (column jdk must be what the running
 * JDK answers: the table is the JDK's truth, not a guess) and to the Java provider, which
 * must answer as the JDK does. {@link RequestHead#plainTarget}, the provider's fast
 * path, must call plain only targets that the JDK accepts.
 */
class TargetRuleTest {

    /**
     * Targets the provider does not yet answer as the JDK does (it answers as the C server,
     * column c): none since the provider passes an encoded NUL on (tachy_options.path_nul).
     * A target added here must be fixed later: a gap that closed fails this test, so the
     * list stays true.
     */
    static final Set<String> KNOWN_GAPS = Set.of();

    record Row(String raw, String target, int c, int jdk) {}

    static List<Row> table() throws IOException {
        Path p = Path.of(System.getProperty("tachy.test.root", ".."), "tests", "request-targets.tsv");
        List<Row> rows = new ArrayList<>();
        for (String line : Files.readAllLines(p, StandardCharsets.UTF_8)) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.trim().split("\\s+");
            assertEquals(3, f.length, "malformed row: " + line);
            rows.add(new Row(f[0], unescape(f[0]), Integer.parseInt(f[1]), Integer.parseInt(f[2])));
        }
        assertTrue(rows.size() >= 30, "the table was read: " + rows.size() + " rows");
        return rows;
    }

    /** \xHH is the byte 0xHH (as an ISO-8859-1 char), the table's only escape. */
    static String unescape(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (ch == '\\') {
                assertEquals('x', s.charAt(i + 1), "bad escape in " + s);
                b.append((char) Integer.parseInt(s.substring(i + 2, i + 4), 16));
                i += 3;
            } else {
                b.append(ch);
            }
        }
        return b.toString();
    }

    private static int status(HttpServer s, String target) throws IOException {
        String rsp = TestSupport.raw(s, "GET " + target + " HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", 5000);
        if (!rsp.startsWith("HTTP/1.1 ") || rsp.length() < 12) {
            return -1;
        }
        return Integer.parseInt(rsp.substring(9, 12));
    }

    @Test
    void theJdkAndTheProviderAnswerAsTheTableSays() throws Exception {
        List<Row> rows = table();
        HttpServer tachy = TestSupport.server("/", ex -> TestSupport.respond(ex, 200, ""));
        assertTrue(tachy instanceof TachyHttpServer, tachy.getClass().getName());
        HttpServer jdk = ((HttpServerProvider) Native.jdkProvider())
                .createHttpServer(new InetSocketAddress(TestSupport.LOOPBACK, 0), 0);
        jdk.createContext("/", ex -> TestSupport.respond(ex, 200, ""));
        tachy.start();
        jdk.start();
        List<String> wrong = new ArrayList<>();
        try {
            for (Row r : rows) {
                int byJdk = status(jdk, r.target);
                if (byJdk != r.jdk) {
                    wrong.add(r.raw + ": the JDK (" + Runtime.version().feature() + ") answers "
                            + byJdk + ", the table's column jdk says " + r.jdk);
                }
                int byTachy = status(tachy, r.target);
                boolean gap = KNOWN_GAPS.contains(r.raw);
                int expected = gap ? r.c : r.jdk;
                if (byTachy != expected) {
                    wrong.add(r.raw + ": the provider answers " + byTachy + ", expected " + expected
                            + (gap ? " (a known gap: the C server's answer)" : " (the JDK's)")
                            + (gap && byTachy == r.jdk ? "; the gap is closed: remove it from KNOWN_GAPS" : ""));
                }
            }
        } finally {
            tachy.stop(0);
            jdk.stop(0);
        }
        assertEquals(List.of(), wrong);
    }

    @Test
    void plainTargetsAreAcceptedByTheJdk() throws Exception {
        int plain = 0;
        for (Row r : table()) {
            byte[] b = r.target.getBytes(StandardCharsets.ISO_8859_1);
            if (RequestHead.plainTarget(b, 0, b.length)) {
                plain++;
                // plain means java.net.URI accepts it (the C server may still refuse it
                // before the upcall, as it does %00: then plainTarget is never asked)
                assertEquals(200, r.jdk, r.raw + " is plain: the JDK must accept it");
            }
        }
        assertTrue(plain >= 5, "plain rows: " + plain);
    }
}
