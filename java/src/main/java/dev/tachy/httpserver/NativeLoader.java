package dev.tachy.httpserver;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Locale;

/**
 * Loads libtachy_jni once, trying in order:
 * <ol>
 *   <li>{@code -Dtachy.native.path=FILE} (or a directory holding libtachy_jni.so);
 *   <li>{@code java.library.path} ({@code System.loadLibrary("tachy_jni")});
 *   <li>the copy inside the jar, {@code META-INF/native/<platform>/libtachy_jni.so}, where
 *       platform is one of {@link #SHIPPED} (see {@link #platform()}), extracted to a private
 *       temporary file ({@code -Dtachy.native.tmpdir}, else {@code java.io.tmpdir}) that is
 *       unlinked as soon as it is loaded (the mapping stays; {@code deleteOnExit} covers the
 *       case where unlinking fails).
 * </ol>
 * A property that names a missing or unloadable file ends the search: whoever set it wants
 * that library, not another one.
 *
 * <p>The outcome is decided once per class loader: after a failure, every later
 * {@link #load()} throws the same error again (nothing is retried), and {@link #available()}
 * answers false. {@link TachyServerProvider} uses that to fall back to the JDK's server.
 */
final class NativeLoader {
    static final String LIBRARY = "tachy_jni";
    static final String FILE_NAME = "lib" + LIBRARY + ".so";
    /** The platforms whose library the jar carries (java/pom.xml, scripts/cross.sh). */
    static final List<String> SHIPPED =
            List.of("linux-x86_64", "linux-aarch64", "linux-x86_64-musl", "linux-aarch64-musl");

    private static volatile String source;
    /** The error of the one failed attempt (an Error or a RuntimeException). Guarded by the class. */
    private static Throwable failure;
    /** True while this class's lock holder is inside System.load (see load()). */
    private static boolean loading;

    private NativeLoader() {}

    /** How the library was loaded ("tachy.native.path", "java.library.path", "extracted"), or null. */
    static String source() {
        return source;
    }

    /**
     * Loads the library (once); throws what the load threw: {@link UnsatisfiedLinkError}
     * (no library for this platform, a library that does not link here), or, on a JDK that
     * denies native access to this code (JEP 472), {@link IllegalCallerException}.
     */
    static synchronized void load() {
        if (source != null) {
            return;
        }
        if (loading) {
            // Re-entered on this thread: JNI_OnLoad's FindClass initialises Native, whose
            // static initialiser calls load(). The library is being loaded right now.
            return;
        }
        if (failure instanceof Error) {
            throw (Error) failure;
        }
        if (failure instanceof RuntimeException) {
            throw (RuntimeException) failure;
        }
        loading = true;
        try {
            source = loadOnce();
        } catch (Error | RuntimeException e) {
            failure = e;
            throw e;
        } finally {
            loading = false;
        }
    }

    /** Whether the library is loaded, loading it if that was not tried yet. Never throws. */
    static boolean available() {
        try {
            load();
            return true;
        } catch (Error | RuntimeException e) {
            return false;
        }
    }

    /** Why the library could not be loaded, or null (loaded, or not tried yet). */
    static synchronized Throwable failure() {
        return failure;
    }

    private static String loadOnce() {
        String override = System.getProperty("tachy.native.path");
        if (override != null && !override.isEmpty()) {
            File f = new File(override);
            if (f.isDirectory()) {
                f = new File(f, FILE_NAME);
            }
            System.load(f.getAbsolutePath());
            return "tachy.native.path";
        }
        UnsatisfiedLinkError fromPath;
        try {
            System.loadLibrary(LIBRARY);
            return "java.library.path";
        } catch (UnsatisfiedLinkError e) {
            fromPath = e;
        }
        String platform = platform();
        String resource = "/META-INF/native/" + platform + "/" + FILE_NAME;
        try (InputStream in = NativeLoader.class.getResourceAsStream(resource)) {
            if (in == null) {
                String why = SHIPPED.contains(platform)
                        ? "this jar was built without it"
                        : "tachy ships natives for " + String.join(", ", SHIPPED) + " only";
                UnsatisfiedLinkError e = new UnsatisfiedLinkError("tachy: no native library for "
                        + platform + " (" + why + ": " + resource + " is not in the jar; "
                        + LIBRARY + " is not on java.library.path; tachy.native.path is unset)");
                e.addSuppressed(fromPath);
                throw e;
            }
            Path tmp = extract(in);
            try {
                System.load(tmp.toString());
            } catch (UnsatisfiedLinkError e) {
                // e.g. an older glibc than the library needs: say which library it was
                UnsatisfiedLinkError ule = new UnsatisfiedLinkError("tachy: the " + platform
                        + " library of the jar does not load here: " + e.getMessage());
                ule.initCause(e);
                throw ule;
            } finally {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException ignored) {
                    tmp.toFile().deleteOnExit();
                }
            }
            return "extracted";
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

    /**
     * The jar directory for this JVM: {@code <os>-<arch>}, plus {@code -musl} on a Linux whose
     * C library is musl (linux-x86_64, linux-aarch64-musl, ...; macos-aarch64 and the like are
     * not shipped). {@code -Dtachy.native.platform=NAME} overrides the detection.
     */
    static String platform() {
        String forced = System.getProperty("tachy.native.platform");
        if (forced != null && !forced.isEmpty()) {
            return forced;
        }
        String os = os(System.getProperty("os.name", ""));
        String arch = arch(System.getProperty("os.arch", ""));
        String p = os + "-" + arch;
        return os.equals("linux") && isMusl(arch) ? p + "-musl" : p;
    }

    static String os(String osName) {
        String os = osName.toLowerCase(Locale.ROOT);
        if (os.startsWith("linux")) {
            return "linux";
        } else if (os.startsWith("mac") || os.startsWith("darwin")) {
            return "macos";
        } else if (os.startsWith("windows")) {
            return "windows";
        }
        return os.replaceAll("[^a-z0-9]", "");
    }

    /** os.arch as the JDKs spell it (amd64 on Linux, x86_64 on macOS, arm64 on some) -> ours. */
    static String arch(String osArch) {
        String arch = osArch.toLowerCase(Locale.ROOT);
        switch (arch) {
            case "amd64":
            case "x86_64":
            case "x86-64":
            case "x64":
                return "x86_64";
            case "aarch64":
            case "arm64":
                return "aarch64";
            default:
                return arch.replaceAll("[^a-z0-9_]", "");
        }
    }

    /**
     * Whether this process runs on musl. First what is mapped into this very process
     * ({@code /proc/self/maps}: musl's loader is {@code ld-musl-<arch>.so.1}, Alpine's libc
     * may also appear as {@code libc.musl-<arch>.so.1}; glibc's is {@code libc.so.6} or
     * {@code libc-2.x.so}). Without /proc: musl's loader exists and glibc's does not (a glibc
     * system may have musl installed next to it, so the loader alone proves nothing).
     */
    static boolean isMusl(String arch) {
        Path maps = Paths.get("/proc/self/maps");
        if (Files.isReadable(maps)) {
            try (BufferedReader r = Files.newBufferedReader(maps, StandardCharsets.ISO_8859_1)) {
                Boolean musl = muslFromMaps(r);
                if (musl != null) {
                    return musl;
                }
            } catch (IOException | RuntimeException ignored) {
                // fall through to the file check
            }
        }
        boolean muslLoader = Files.exists(Paths.get("/lib/ld-musl-" + arch + ".so.1"));
        boolean glibcLoader = Files.exists(Paths.get("/lib64/ld-linux-x86-64.so.2"))
                || Files.exists(Paths.get("/lib/ld-linux-aarch64.so.1"))
                || Files.exists(Paths.get("/lib/ld-linux-x86-64.so.2"));
        return muslLoader && !glibcLoader;
    }

    /** TRUE/FALSE when the maps lines show musl's or glibc's C library; null when neither. */
    static Boolean muslFromMaps(BufferedReader maps) throws IOException {
        String line;
        Boolean glibc = null;
        while ((line = maps.readLine()) != null) {
            int slash = line.lastIndexOf('/');
            if (slash < 0) {
                continue;
            }
            String file = line.substring(slash + 1);
            if (file.startsWith("ld-musl-") || file.startsWith("libc.musl-")) {
                return Boolean.TRUE;
            }
            if (file.equals("libc.so.6") || (file.startsWith("libc-2.") && file.endsWith(".so"))
                    || file.startsWith("ld-linux")) {
                glibc = Boolean.FALSE;
            }
        }
        return glibc;
    }
}
