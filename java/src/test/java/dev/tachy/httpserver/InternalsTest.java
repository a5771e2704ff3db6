package dev.tachy.httpserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.tachy.httpserver.internal.NativeAccess;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The provider's internals are not API: not exported, and no raw pointer for strangers. */
class InternalsTest {

    @Test
    void onlyTheApiPackagesAreExported() throws Exception {
        ModuleDescriptor d;
        try (InputStream in = Files.newInputStream(TestSupport.classesDir().resolve("module-info.class"))) {
            d = ModuleDescriptor.read(in);
        }
        Set<String> exported = new TreeSet<>();
        for (ModuleDescriptor.Exports e : d.exports()) {
            exported.add(e.source());
        }
        assertEquals(Set.of("dev.tachy.httpserver", "dev.tachy.httpserver.websocket"), exported);
        assertTrue(d.opens().isEmpty(), d.opens().toString());
    }

    @Test
    void nativeHandleIsRefusedToOtherCallers() throws Exception {
        BlockingQueue<Object> got = new ArrayBlockingQueue<>(1);
        HttpServer s = TestSupport.server("/", ex -> {
            Object r;
            try {
                r = NativeAccess.exchangeHandle(ex);
            } catch (Throwable t) {
                r = t;
            }
            got.add(r);
            TestSupport.respond(ex, 200, "ok");
        });
        s.start();
        try {
            String rsp = TestSupport.raw(s, "GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", 5000);
            assertTrue(rsp.startsWith("HTTP/1.1 200"), rsp);
            Object r = got.poll(5, TimeUnit.SECONDS);
            assertTrue(r instanceof IllegalCallerException, String.valueOf(r));
        } finally {
            s.stop(0);
        }
        assertThrows(IllegalCallerException.class, () -> NativeAccess.exchangeHandle(null));
    }
}
