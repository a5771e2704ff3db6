package dev.tachy.httpserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where the native library cannot be used, HttpServer/HttpsServer come from the JDK with one
 * WARNING; -Dtachy.fallback=false makes it an error. Each case runs a child JVM on a jar
 * built here from target/classes: without its natives, with a corrupt one, on a platform
 * the jar has none for, with native access denied (JDK 24+), and on the module path.
 */
class FallbackTest {
    private static final String WARNING = "the native server is not available on this JVM";
    private static final String JDK_SERVER = "sun.net.httpserver.HttpServerImpl";
    private static final String JDK_HTTPS = "sun.net.httpserver.HttpsServerImpl";

    /** The provider jar, leaving out the entries {@code drop} matches; {@code extra} added. */
    private static Path jar(Path dir, Predicate<String> drop, String extraName, byte[] extra) throws IOException {
        Path jar = dir.resolve("tachy-fallback-test.jar");
        Path root = TestSupport.classesDir();
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
                Stream<Path> files = Files.walk(root)) {
            for (Path p : (Iterable<Path>) files.sorted()::iterator) {
                String name = root.relativize(p).toString().replace(File.separatorChar, '/');
                if (name.isEmpty() || Files.isDirectory(p) || drop.test(name)) {
                    continue;
                }
                out.putNextEntry(new JarEntry(name));
                Files.copy(p, out);
                out.closeEntry();
            }
            if (extraName != null) {
                out.putNextEntry(new JarEntry(extraName));
                out.write(extra);
                out.closeEntry();
            }
        }
        return jar;
    }

    private static Path jarWithoutNatives(Path dir) throws IOException {
        return jar(dir, n -> n.startsWith("META-INF/native/"), null, null);
    }

    /** A child JVM: java [jvmArgs] -cp jar:testClasses FallbackProbe, nothing on java.library.path. */
    private static TestSupport.Result probe(String java, Path jar, Path tmp, String... jvmArgs) throws Exception {
        Path emptyLibPath = Files.createDirectories(tmp.resolve("no-libs"));
        List<String> cmd = TestSupport.cmd(java, "-Djava.library.path=" + emptyLibPath);
        cmd.addAll(List.of(jvmArgs));
        cmd.add("-cp");
        cmd.add(jar + File.pathSeparator + TestSupport.testClassesDir());
        cmd.add(FallbackProbe.class.getName());
        return TestSupport.run(cmd, 60);
    }

    private static int count(String text, String what) {
        int n = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }

    private static void assertFallback(TestSupport.Result r, String reasonPart) {
        assertEquals(0, r.exit, r.toString());
        assertTrue(r.output.contains("body=fallback-ok"), r.toString());
        assertTrue(r.output.contains("provider=" + TachyServerProvider.class.getName()), r.toString());
        assertTrue(r.output.contains("server=" + JDK_SERVER), r.toString());
        assertTrue(r.output.contains("https=" + JDK_HTTPS), r.toString());
        assertTrue(r.output.contains("native=false"), r.toString());
        assertTrue(r.output.contains("metrics=tachy_native 0"), r.toString());
        assertTrue(r.output.contains(reasonPart), r.toString());
        // one warning for the three servers, at WARNING level, naming the way out
        assertEquals(1, count(r.output, WARNING), r.toString());
        assertTrue(r.output.contains("WARNING"), r.toString());
        assertTrue(r.output.contains("-Dtachy.fallback=false"), r.toString());
    }

    @Test
    void aJarWithoutNativesServesWithTheJdkServer(@TempDir Path tmp) throws Exception {
        TestSupport.Result r = probe(TestSupport.javaBin(), jarWithoutNatives(tmp), tmp);
        assertFallback(r, "no native library for " + NativeLoader.platform()
                + " (this jar was built without it");
    }

    @Test
    void aLibraryThatDoesNotLoadFallsBack(@TempDir Path tmp) throws Exception {
        // a forced load failure: the jar's library for this platform is not an ELF file
        String lib = "META-INF/native/" + NativeLoader.platform() + "/" + NativeLoader.FILE_NAME;
        Path jar = jar(tmp, n -> n.startsWith("META-INF/native/"), lib,
                "not a shared object\n".getBytes(StandardCharsets.US_ASCII));
        Path extract = Files.createDirectory(tmp.resolve("extract"));
        TestSupport.Result r = probe(TestSupport.javaBin(), jar, tmp, "-Dtachy.native.tmpdir=" + extract);
        assertFallback(r, "library of the jar does not load here");
        try (Stream<Path> left = Files.list(extract)) {
            assertEquals(0, left.count(), "the extracted file must be deleted after the failed load");
        }
    }

    @Test
    void aPlatformWithoutANativeFallsBack(@TempDir Path tmp) throws Exception {
        // the whole jar, as on macOS or FreeBSD: no directory for that platform
        TestSupport.Result r = probe(TestSupport.javaBin(), TestSupport.providerJar(tmp), tmp,
                "-Dtachy.native.platform=freebsd-riscv64");
        assertFallback(r, "tachy ships natives for linux-x86_64, linux-aarch64, linux-x86_64-musl, linux-aarch64-musl only");
    }

    @Test
    void fallbackFalseMakesItTheError(@TempDir Path tmp) throws Exception {
        TestSupport.Result r = probe(TestSupport.javaBin(), jarWithoutNatives(tmp), tmp, "-Dtachy.fallback=false");
        assertTrue(r.exit != 0, r.toString());
        assertTrue(r.output.contains("java.lang.UnsatisfiedLinkError: tachy: no native library for"), r.toString());
        assertFalse(r.output.contains("body="), r.toString());
        assertEquals(0, count(r.output, WARNING), r.toString());
    }

    @Test
    void withItsNativesTheJarServesWithTachyAndSaysNothing(@TempDir Path tmp) throws Exception {
        TestSupport.Result r = probe(TestSupport.javaBin(), TestSupport.providerJar(tmp), tmp);
        assertEquals(0, r.exit, r.toString());
        assertTrue(r.output.contains("server=" + TachyHttpServer.class.getName()), r.toString());
        assertTrue(r.output.contains("https=" + TachyHttpsServer.class.getName()), r.toString());
        assertTrue(r.output.contains("native=true"), r.toString());
        assertTrue(r.output.contains("metrics=tachy_native 1"), r.toString());
        assertTrue(r.output.contains("reason=null"), r.toString());
        assertEquals(0, count(r.output, WARNING), r.toString());
    }

    /** A java launcher of version 24+ (JEP 472): this JVM, or Temurin 25 when installed; else null. */
    private static String java24() throws Exception {
        String java = TestSupport.java18Bin();
        if (java == null) {
            return null;
        }
        TestSupport.Result v = TestSupport.run(TestSupport.cmd(java, "-version"), 30);
        Matcher m = Pattern.compile("version \"(\\d+)").matcher(v.output);
        return m.find() && Integer.parseInt(m.group(1)) >= 24 ? java : null;
    }

    @Test
    void nativeAccessDeniedFallsBack(@TempDir Path tmp) throws Exception {
        String java = java24();
        assumeTrue(java != null, "no JDK 24+ here");
        Path jar = TestSupport.providerJar(tmp);
        TestSupport.Result r = probe(java, jar, tmp, "--illegal-native-access=deny");
        assertFallback(r, "java.lang.IllegalCallerException");
        // allowed for the class path: tachy, and no JEP 472 warning
        r = probe(java, jar, tmp, "--illegal-native-access=deny", "--enable-native-access=ALL-UNNAMED");
        assertEquals(0, r.exit, r.toString());
        assertTrue(r.output.contains("server=" + TachyHttpServer.class.getName()), r.toString());
        assertFalse(r.output.contains("restricted method"), r.toString());
    }

    @Test
    void onTheModulePathWithNativeAccessForTheModule(@TempDir Path tmp) throws Exception {
        String java = java24();
        assumeTrue(java != null, "no JDK 24+ here");
        Path jar = TestSupport.providerJar(tmp);
        List<String> cmd = new ArrayList<>(List.of(java, "--illegal-native-access=deny",
                "--enable-native-access=dev.tachy.httpserver",
                "-p", jar.toString(), "--add-modules", "dev.tachy.httpserver",
                "-cp", TestSupport.testClassesDir().toString(), "dev.tachy.probe.ModuleProbe"));
        TestSupport.Result r = TestSupport.run(cmd, 60);
        assertEquals(0, r.exit, r.toString());
        assertTrue(r.output.contains("body=module-ok"), r.toString());
        assertTrue(r.output.contains("module=dev.tachy.httpserver"), r.toString());
        assertTrue(r.output.contains("server=" + TachyHttpServer.class.getName()), r.toString());
        assertTrue(r.output.contains("native=true"), r.toString());
        assertFalse(r.output.contains("restricted method"), r.toString());
        // the same module without the grant: the JDK's server (deny), with the warning
        cmd.remove("--enable-native-access=dev.tachy.httpserver");
        r = TestSupport.run(cmd, 60);
        assertEquals(0, r.exit, r.toString());
        assertTrue(r.output.contains("server=" + JDK_SERVER), r.toString());
        assertEquals(1, count(r.output, WARNING), r.toString());
    }

    @Test
    void platformNames() {
        assertEquals("x86_64", NativeLoader.arch("amd64"));
        assertEquals("x86_64", NativeLoader.arch("x86_64"));
        assertEquals("aarch64", NativeLoader.arch("aarch64"));
        assertEquals("aarch64", NativeLoader.arch("arm64"));
        assertEquals("riscv64", NativeLoader.arch("riscv64"));
        assertEquals("linux", NativeLoader.os("Linux"));
        assertEquals("macos", NativeLoader.os("Mac OS X"));
        assertEquals("windows", NativeLoader.os("Windows 11"));
        assertEquals("freebsd", NativeLoader.os("FreeBSD"));
        // this build host is Debian (glibc), whether or not musl is installed next to it
        assertFalse(NativeLoader.isMusl(NativeLoader.arch(System.getProperty("os.arch"))));
        assertTrue(NativeLoader.SHIPPED.contains(NativeLoader.platform()), NativeLoader.platform());
    }

    @Test
    void muslIsWhatTheProcessMaps() throws IOException {
        String glibc = "7f1c0000-7f1c2000 r--p 00000000 08:01 1 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
                + "7f1d0000-7f1d2000 r--p 00000000 08:01 2 /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2\n";
        String alpine = "7f1c0000-7f1c2000 r--p 00000000 08:01 1 /usr/lib/jvm/java-21-openjdk/lib/server/libjvm.so\n"
                + "7f1d0000-7f1d2000 r-xp 00000000 08:01 2 /lib/ld-musl-aarch64.so.1\n";
        String oldGlibc = "7f1c0000-7f1c2000 r-xp 00000000 08:01 1 /lib64/libc-2.17.so\n";
        String none = "7f1c0000-7f1c2000 rw-p 00000000 00:00 0 [heap]\n";
        assertEquals(Boolean.FALSE, NativeLoader.muslFromMaps(new BufferedReader(new StringReader(glibc))));
        assertEquals(Boolean.TRUE, NativeLoader.muslFromMaps(new BufferedReader(new StringReader(alpine))));
        assertEquals(Boolean.TRUE, NativeLoader.muslFromMaps(new BufferedReader(new StringReader(glibc + alpine))));
        assertEquals(Boolean.FALSE, NativeLoader.muslFromMaps(new BufferedReader(new StringReader(oldGlibc))));
        assertEquals(null, NativeLoader.muslFromMaps(new BufferedReader(new StringReader(none))));
    }
}
