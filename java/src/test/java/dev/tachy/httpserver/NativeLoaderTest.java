package dev.tachy.httpserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.spi.HttpServerProvider;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How the native library is found: override property, java.library.path, the jar. */
class NativeLoaderTest {

    @Test
    void providerIsTachyInThisJvm() throws Exception {
        assertEquals(TachyServerProvider.class, HttpServerProvider.provider().getClass());
        HttpServer s = HttpServer.create();
        try {
            assertEquals(TachyHttpServer.class, s.getClass());
        } finally {
            s.stop(0);
        }
        assertEquals("0.1.0", TachyServerProvider.nativeVersion());
    }

    @Test
    void errorCodesMatchTheCTable() {
        // Native's constants mirror TACHY_ERRNO_MAP: a reordering in C fails here.
        String[][] expected = {
            {"EINVAL", "INVAL"}, {"ENOMEM", "NOMEM"}, {"ESTATE", "STATE"}, {"EBOUND", "BOUND"},
            {"ENOTBOUND", "NOTBOUND"}, {"ESTARTED", "STARTED"}, {"ESTOPPED", "STOPPED"},
            {"EADDRINUSE", "ADDRINUSE"}, {"EADDRNOTAVAIL", "ADDRNOTAVAIL"}, {"EEXISTS", "EXISTS"},
            {"ENOTFOUND", "NOTFOUND"}, {"EHDRSENT", "HDRSENT"}, {"EHDRNOTSENT", "HDRNOTSENT"},
            {"EBADHEADER", "BADHEADER"}, {"ENOBODY", "NOBODY"}, {"ETOOLONG", "TOOLONG"},
            {"ESHORT", "SHORT"}, {"ECLOSED", "CLOSED"}, {"EIO", "IO"}, {"ETIMEDOUT", "TIMEDOUT"},
            {"EPEERCLOSED", "PEERCLOSED"}, {"ETRUNCATED", "TRUNCATED"}, {"EPROTO", "PROTO"},
            {"ETOOBIG", "TOOBIG"}, {"ESYS", "SYS"}, {"EUPGRADED", "UPGRADED"}, {"ENOTSUP", "NOTSUP"},
            {"EWOULDBLOCK", "WOULDBLOCK"},
        };
        for (String[] e : expected) {
            try {
                int code = Native.class.getDeclaredField(e[0]).getInt(null);
                assertEquals(e[1], Native.errName(code), e[0]);
            } catch (ReflectiveOperationException x) {
                throw new AssertionError(x);
            }
        }
    }

    private static TestSupport.Result probe(Path cp, String... jvmArgs) throws Exception {
        List<String> cmd = TestSupport.cmd(TestSupport.javaBin());
        cmd.addAll(List.of(jvmArgs));
        cmd.add("-cp");
        cmd.add(cp + File.pathSeparator + TestSupport.testClassesDir());
        cmd.add(LoaderProbe.class.getName());
        return TestSupport.run(cmd, 60);
    }

    @Test
    void extractsFromTheJarAndLeavesNoFileBehind(@TempDir Path tmp) throws Exception {
        Path jar = TestSupport.providerJar(tmp);
        Path extractDir = Files.createDirectory(tmp.resolve("extract"));
        TestSupport.Result r = probe(jar, "-Dtachy.native.tmpdir=" + extractDir);
        assertEquals(0, r.exit, r.toString());
        assertTrue(r.output.contains("body=probe-ok"), r.toString());
        assertTrue(r.output.contains("provider=" + TachyServerProvider.class.getName()), r.toString());
        assertTrue(r.output.contains("server=" + TachyHttpServer.class.getName()), r.toString());
        assertTrue(r.output.contains("source=extracted"), r.toString());
        try (Stream<Path> left = Files.list(extractDir)) {
            assertEquals(0, left.count(), "the extracted library must be deleted");
        }
    }

    @Test
    void overridePropertyWins(@TempDir Path tmp) throws Exception {
        Path jar = TestSupport.providerJar(tmp);
        Path lib = TestSupport.nativeDir().resolve(NativeLoader.FILE_NAME).toAbsolutePath();
        TestSupport.Result r = probe(jar, "-Dtachy.native.path=" + lib,
                "-Djava.library.path=" + TestSupport.nativeDir().toAbsolutePath());
        assertEquals(0, r.exit, r.toString());
        assertTrue(r.output.contains("source=tachy.native.path"), r.toString());
        // a directory works too
        r = probe(jar, "-Dtachy.native.path=" + TestSupport.nativeDir().toAbsolutePath());
        assertTrue(r.output.contains("source=tachy.native.path"), r.toString());
    }

    @Test
    void javaLibraryPathBeforeTheJar(@TempDir Path tmp) throws Exception {
        Path jar = TestSupport.providerJar(tmp);
        TestSupport.Result r = probe(jar, "-Djava.library.path=" + TestSupport.nativeDir().toAbsolutePath());
        assertEquals(0, r.exit, r.toString());
        assertTrue(r.output.contains("source=java.library.path"), r.toString());
        assertTrue(r.output.contains("body=probe-ok"), r.toString());
    }

    @Test
    void aWrongOverrideIsAnError(@TempDir Path tmp) throws Exception {
        Path jar = TestSupport.providerJar(tmp);
        TestSupport.Result r = probe(jar, "-Dtachy.native.path=" + tmp.resolve("missing.so"));
        assertTrue(r.exit != 0, r.toString());
        assertTrue(r.output.contains("UnsatisfiedLinkError"), r.toString());
    }
}
