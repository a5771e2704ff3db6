package dev.tachy.compat;

import com.sun.net.httpserver.spi.HttpServerProvider;

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
}
