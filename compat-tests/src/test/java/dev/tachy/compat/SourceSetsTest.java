package dev.tachy.compat;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;

/**
 * Java 18+ tests live in src/test/java18 and Java 21+ tests in src/test/java21; Maven compiles
 * them only on a JDK that has their API. On an older JDK these checks show up as skipped; on a
 * newer one they prove the extra tests were compiled and so run.
 */
class SourceSetsTest {

    @Test
    void java18TestsArePresent() {
        assumeTrue(Compat.javaFeature() >= 18, "Java 18+ API tests (SimpleFileServer, HttpHandlers, Request) skipped on " + Runtime.version());
        assertDoesNotThrow(() -> Class.forName("dev.tachy.compat.SimpleFileServerTest"));
        assertDoesNotThrow(() -> Class.forName("dev.tachy.compat.HttpHandlersAndRequestTest"));
        assertDoesNotThrow(() -> Class.forName("dev.tachy.compat.ServerCreate18Test"));
    }

    @Test
    void java21TestsArePresent() {
        assumeTrue(Compat.javaFeature() >= 21, "virtual-thread executor test skipped on " + Runtime.version());
        assertDoesNotThrow(() -> Class.forName("dev.tachy.compat.VirtualThreadExecutorTest"));
    }
}
