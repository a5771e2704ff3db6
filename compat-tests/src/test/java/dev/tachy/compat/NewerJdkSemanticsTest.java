package dev.tachy.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 27: two behaviours the JDK's own server changed after 25, each with a system property
 * that chooses between the old and the new one, tested in a child JVM per property set.
 * <ul>
 * <li>JDK 26 (JDK-7105350): exchange attributes are per exchange unless
 * {@code jdk.httpserver.attributes=context}; up to 25 they are the context's map.</li>
 * <li>JDK 27 (JDK-8272758): contexts match by path prefix ({@code /ok} serves {@code /ok},
 * {@code /ok/}, {@code /ok/x}, not {@code /okay}) unless
 * {@code sun.net.httpserver.pathMatcher=stringPrefix}; up to 26 by string prefix.</li>
 * </ul>
 * Each provider follows the JDK it runs on. tachy also honours the properties on older JDKs
 * ({@code attributes=exchange} and {@code pathMatcher=pathPrefix} turn the newer behaviour
 * on), which the JDK's own server there ignores: those cases assert each provider's result.
 */
class NewerJdkSemanticsTest {

    private static final int FEATURE = Compat.javaFeature();

    /** The status of GET path on the child. */
    private static int status(ChildServer.Handle h, String path) throws Exception {
        try (RawClient c = h.raw()) {
            return c.send("GET " + path + " HTTP/1.1\r\nHost: a\r\n\r\n").read().code;
        }
    }

    /** Context /ok (and no "/" context) under the child's properties: /okay's status says
     * which rule matched; /ok, /ok/ and /ok/x match under both. */
    private static void expectMatching(Map<String, String> props, boolean pathPrefix) throws Exception {
        try (ChildServer.Handle h = ChildServer.start(props)) {
            assertEquals(200, status(h, "/ok"));
            assertEquals(200, status(h, "/ok/"));
            assertEquals(200, status(h, "/ok/x"));
            assertEquals(pathPrefix ? 404 : 200, status(h, "/okay"), "/okay under " + props);
        }
    }

    @Test
    void contextMatchingFollowsTheRunningJdk() throws Exception {
        expectMatching(Map.of(), FEATURE >= 27);
    }

    @Test
    void pathMatcherStringPrefix() throws Exception {
        expectMatching(Map.of("sun.net.httpserver.pathMatcher", "stringPrefix"), false);
    }

    @Test
    void pathMatcherPathPrefix() throws Exception {
        // JDK 27+ and tachy on any JDK; the JDK's server before 27 has no such property
        expectMatching(Map.of("sun.net.httpserver.pathMatcher", "pathPrefix"), FEATURE >= 27 || Compat.isTachy());
    }

    @Test
    void pathMatcherUnknownValueIsTheRunningJdksDefault() throws Exception {
        // JDK 27 logs a WARNING and uses pathPrefix; tachy does the same, and on older JDKs
        // falls back to their rule (string prefix)
        expectMatching(Map.of("sun.net.httpserver.pathMatcher", "noSuchMatcher"), FEATURE >= 27);
    }

    /** Two requests to /attr: whether the second sees the first one's attribute. */
    private static void expectAttributes(Map<String, String> props, boolean perExchange) throws Exception {
        try (ChildServer.Handle h = ChildServer.start(props);
                RawClient c = h.raw()) {
            assertEquals("none", c.send("GET /attr?alice HTTP/1.1\r\nHost: a\r\n\r\n").read().text());
            assertEquals(perExchange ? "none" : "alice",
                    c.send("GET /attr?bob HTTP/1.1\r\nHost: a\r\n\r\n").read().text(), "under " + props);
        }
    }

    @Test
    void exchangeAttributesFollowTheRunningJdk() throws Exception {
        expectAttributes(Map.of(), FEATURE >= 26);
    }

    @Test
    void attributesContextSharesTheContextsMap() throws Exception {
        expectAttributes(Map.of("jdk.httpserver.attributes", "context"), false);
    }

    @Test
    void attributesExchangeIsPerExchange() throws Exception {
        // JDK 26+ (any value but "context") and tachy on any JDK; the JDK's server before 26
        // has no such property
        expectAttributes(Map.of("jdk.httpserver.attributes", "exchange"), FEATURE >= 26 || Compat.isTachy());
    }
}
