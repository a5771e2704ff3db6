package dev.tachy.httpserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A virtual thread never pins its carrier in a blocking native call: 2,000 handlers on a
 * virtual-thread executor wait for request bodies that have not arrived, on two carriers
 * (parallelism=2, maxPoolSize=2), and other connections are still answered at once
 * (PinningProbe, in a forked Java 21+ JVM: this JVM if it is one, else Temurin 25). And the
 * closers' harvest happens on virtual threads and never on a platform pool (HarvestProbe).
 */
class VirtualThreadPinningTest {

    @Test
    void slowClientsOnTwoCarriersDoNotStallOtherConnections() throws Exception {
        String java = TestSupport.java21Bin();
        assumeTrue(java != null, "needs a Java 21+ launcher (virtual threads)");
        List<String> cmd = TestSupport.cmd(java,
                "-Djdk.virtualThreadScheduler.parallelism=2",
                "-Djdk.virtualThreadScheduler.maxPoolSize=2",
                "-cp", TestSupport.classesDir() + File.pathSeparator + TestSupport.testClassesDir(),
                PinningProbe.class.getName(), "2000");
        TestSupport.Result r = TestSupport.run(cmd, 150);
        System.out.println(r.output);
        assertTrue(r.output.contains("4 passed, 0 failed"),
                r.output);
        assertEquals(0, r.exit, r.output);
    }

    /** Closers harvest on virtual threads, never on a platform pool (HarvestProbe). */
    @Test
    void closersHarvestOnVirtualThreadsOnly() throws Exception {
        String java = TestSupport.java21Bin();
        assumeTrue(java != null, "needs a Java 21+ launcher (virtual threads)");
        List<String> cmd = TestSupport.cmd(java,
                "-cp", TestSupport.classesDir() + File.pathSeparator + TestSupport.testClassesDir(),
                HarvestProbe.class.getName());
        TestSupport.Result r = TestSupport.run(cmd, 120);
        System.out.println(r.output);
        assertTrue(r.output.contains("4 passed, 0 failed"), r.output);
        assertEquals(0, r.exit, r.output);
    }
}
