package dev.tachy.compat;

import com.sun.net.httpserver.spi.HttpServerProvider;
import org.junit.jupiter.api.Assumptions;

/** Facts about the running provider and JDK, for the few tests whose expected result depends on them. */
final class Compat {
    private Compat() {}

    static String providerName() {
        return HttpServerProvider.provider().getClass().getName();
    }

    static boolean isTachy() {
        return providerName().startsWith("dev.tachy.");
    }

    static boolean isJdk() {
        return providerName().equals("sun.net.httpserver.DefaultHttpServerProvider");
    }

    /** Feature release of the running JDK (17, 25, ...). */
    static int javaFeature() {
        return Runtime.version().feature();
    }

    /**
     * Skips the rest of the test on tachy (JUnit assumption: reported as skipped, with why),
     * where tachy does not match the JDK yet for a reason outside the provider; the JDK run
     * still asserts the JDK's behaviour. why names the missing piece, e.g.
     * {@code "issue 15 item 6: needs the core's jdk_header_limits option"}.
     */
    static void knownGap(String why) {
        Assumptions.assumeFalse(isTachy(), () -> "known gap on tachy: " + why);
    }
}
