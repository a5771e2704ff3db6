package dev.tachy.httpserver;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * Loads libtachy_jni once, trying in order:
 * <ol>
 *   <li>{@code -Dtachy.native.path=FILE} (or a directory holding libtachy_jni.so);
 *   <li>{@code java.library.path} ({@code System.loadLibrary("tachy_jni")});
 *   <li>the copy inside the jar, {@code META-INF/native/<os>-<arch>/libtachy_jni.so},
 *       extracted to a private temporary file ({@code -Dtachy.native.tmpdir}, else
 *       {@code java.io.tmpdir}) that is unlinked as soon as it is loaded (the mapping stays;
 *       {@code deleteOnExit} covers the case where unlinking fails).
 * </ol>
 * A property that names a missing or unloadable file is an error, not a reason to try the next
 * step: whoever set it wants that library.
 */
final class NativeLoader {
    static final String LIBRARY = "tachy_jni";
    static final String FILE_NAME = "lib" + LIBRARY + ".so";

    private static volatile String source;

    private NativeLoader() {}

    /** How the library was loaded ("tachy.native.path", "java.library.path", "extracted"). */
    static String source() {
        return source;
    }

    static synchronized void load() {
        if (source != null) {
            return;
        }
        String override = System.getProperty("tachy.native.path");
        if (override != null && !override.isEmpty()) {
            File f = new File(override);
            if (f.isDirectory()) {
                f = new File(f, FILE_NAME);
            }
            System.load(f.getAbsolutePath());
            source = "tachy.native.path";
            return;
        }
        UnsatisfiedLinkError fromPath;
        try {
            System.loadLibrary(LIBRARY);
            source = "java.library.path";
            return;
        } catch (UnsatisfiedLinkError e) {
            fromPath = e;
        }
        String resource = "/META-INF/native/" + platform() + "/" + FILE_NAME;
        try (InputStream in = NativeLoader.class.getResourceAsStream(resource)) {
            if (in == null) {
                UnsatisfiedLinkError e = new UnsatisfiedLinkError("tachy: no native library for "
                        + platform() + " (" + resource + " is not in the jar, "
                        + LIBRARY + " is not on java.library.path, tachy.native.path is unset)");
                e.addSuppressed(fromPath);
                throw e;
            }
            Path tmp = extract(in);
            try {
                System.load(tmp.toString());
            } finally {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException ignored) {
                    tmp.toFile().deleteOnExit();
                }
            }
            source = "extracted";
        } catch (IOException e) {
            UnsatisfiedLinkError ule =
                    new UnsatisfiedLinkError("tachy: cannot extract " + resource + ": " + e);
            ule.initCause(e);
            throw ule;
        }
    }

    private static Path extract(InputStream in) throws IOException {
        String dir = System.getProperty("tachy.native.tmpdir");
        Path parent = Paths.get(dir != null && !dir.isEmpty() ? dir : System.getProperty("java.io.tmpdir"));
        // createTempFile gives an unpredictable name and rw------- permissions on POSIX.
        Path tmp = Files.createTempFile(parent, "libtachy_jni-", ".so");
        tmp.toFile().deleteOnExit();
        Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
        return tmp;
    }

    static String platform() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        if (os.startsWith("linux")) {
            os = "linux";
        } else if (os.startsWith("mac")) {
            os = "macos";
        }
        if (arch.equals("amd64") || arch.equals("x86_64")) {
            arch = "x86_64";
        } else if (arch.equals("arm64")) {
            arch = "aarch64";
        }
        return os + "-" + arch;
    }
}
