package dev.tachy.httpserver;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.sun.net.httpserver.Headers;
import dev.tachy.httpserver.internal.Wire;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * jni/wire.h and {@link Wire} describe one format: header sets written by Java are read and
 * written again by C's decoder and encoder and come back byte for byte, and C's result
 * encoding and constants are Java's (a change on one side only fails here).
 */
class WireTest {

    @BeforeAll
    static void load() {
        NativeLoader.load();
    }

    /** pairs (name, value, name, value, ...) through Java's encoder. */
    private static Wire.Writer encode(String... pairs) {
        Wire.Writer w = new Wire.Writer(16);
        for (String s : pairs) {
            w.string(s);
        }
        return w;
    }

    /** The strings of b[0, len) through Java's decoder. */
    private static List<String> decode(byte[] b, int len) {
        List<String> out = new ArrayList<>();
        for (int p = 0; p < len; p = Wire.next(b, p)) {
            out.add(Wire.string(b, p));
        }
        return out;
    }

    private static void roundTrip(String... pairs) {
        Wire.Writer w = encode(pairs);
        byte[] back = Native.wireEcho(w.array(), w.length());
        assertArrayEquals(Arrays.copyOf(w.array(), w.length()), back, "C re-encoded differently");
        assertEquals(List.of(pairs), decode(back, back.length));
    }

    @Test
    void headerSetsRoundTripThroughC() {
        roundTrip();
        roundTrip("Content-type", "text/plain");
        roundTrip("X-empty", "", "", "empty name", "X-a", "1", "X-a", "2");
        // every byte value: NUL, CR/LF, 0x80-0xFF (ISO-8859-1 chars)
        StringBuilder all = new StringBuilder();
        for (char c = 0; c < 256; c++) {
            all.append(c);
        }
        roundTrip("X-bytes", all.toString(), all.toString(), "v");
        // longer than C's stack buffers and than 64 KiB (lengths above 16 bits)
        char[] big = new char[70_000];
        Arrays.fill(big, 'x');
        String[] many = new String[200];
        for (int i = 0; i < many.length; i += 2) {
            many[i] = "X-" + i;
            many[i + 1] = i == 100 ? new String(big) : Integer.toString(i);
        }
        roundTrip(many);
    }

    @Test
    void headersObjectsAreWrittenAsPairs() {
        Headers h = new Headers();
        h.add("X-one", "1");
        h.add("X-two", "a");
        h.add("X-two", "b");
        h.add("Date", "skipped");
        Wire.Writer w = new Wire.Writer(8).pairs(h, "Date");
        byte[] back = Native.wireEcho(w.array(), w.length());
        List<String> got = decode(back, back.length);
        List<String> expected = new ArrayList<>();
        for (String name : h.keySet()) {
            if (!name.equals("Date")) {
                for (String v : h.get(name)) {
                    expected.add(name);
                    expected.add(v);
                }
            }
        }
        assertEquals(expected, got);
        assertEquals(6, got.size());
    }

    @Test
    void malformedSetsAreRefusedByC() {
        Wire.Writer w = encode("name-without-value");
        assertNull(Native.wireEcho(w.array(), w.length()));
        byte[] truncated = Arrays.copyOf(encode("a", "bcdef").array(), 12);
        assertNull(Native.wireEcho(truncated, truncated.length));
        byte[] huge = {(byte) 0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff, 'a'};
        assertNull(Native.wireEcho(huge, huge.length));
    }

    @Test
    void resultEncodingAndConstantsMatchC() {
        int[] c = Native.wireFramings();
        assertArrayEquals(new int[] {Wire.FRAMING_NOT_SENT, Wire.FRAMING_FIXED,
            Wire.FRAMING_CHUNKED, Wire.FRAMING_UNTIL_CLOSE, Wire.FRAMING_EMPTY,
            Wire.CL_NONE, Wire.CL_GIVEN, Wire.CL_ZERO}, c);
        long[] seconds = {0, 1, 1_764_600_000L, (1L << 40) - 1};
        for (long sec : seconds) {
            for (int f = 0; f <= Wire.FRAMING_EMPTY; f++) {
                for (int cl = 0; cl <= Wire.CL_ZERO; cl++) {
                    long r = Native.wireResult(sec, f, cl);
                    assertEquals(Wire.result(sec, f, cl), r);
                    assertEquals(sec, Wire.second(r));
                    assertEquals(f, Wire.framing(r));
                    assertEquals(cl, Wire.contentLength(r));
                    assertEquals(true, r >= 0, "a result is never mistaken for an error code");
                }
            }
        }
    }

    /**
     * The option index tables: every static int OPT_* of cls but OPT_COUNT, by index, as the
     * name without OPT_. Two constants with one index, or a gap, fail.
     */
    private static List<String> javaOptions(Class<?> cls) throws ReflectiveOperationException {
        TreeMap<Integer, String> byIndex = new TreeMap<>();
        int count = -1;
        for (Field f : cls.getDeclaredFields()) {
            if (!Modifier.isStatic(f.getModifiers()) || f.getType() != int.class
                    || !f.getName().startsWith("OPT_")) {
                continue;
            }
            f.setAccessible(true);
            int i = f.getInt(null);
            if (f.getName().equals("OPT_COUNT")) {
                count = i;
                continue;
            }
            String was = byIndex.put(i, f.getName().substring(4));
            assertNull(was, cls.getSimpleName() + ": two options at index " + i);
        }
        assertEquals(count, byIndex.size(), cls.getSimpleName() + ".OPT_COUNT");
        if (!byIndex.isEmpty()) {
            assertEquals(count - 1, byIndex.lastKey(), cls.getSimpleName() + ": a gap in OPT_*");
        }
        return new ArrayList<>(byIndex.values());
    }

    /** Native.OPT_* and WsNative.OPT_* are jni/wire.h's TACHY_WIRE_OPTIONS and jni/bridge.h's
     * TACHY_JNI_WS_OPTIONS, name for name and index for index: an option added, removed or
     * moved on one side only fails here. */
    @Test
    void optionIndexTablesMatchC() throws Exception {
        assertEquals(Arrays.asList(Native.wireOptionNames(false)), javaOptions(Native.class),
                "Native.OPT_* against jni/wire.h TACHY_WIRE_OPTIONS");
        Class<?> ws = Class.forName("dev.tachy.httpserver.websocket.WsNative");
        assertEquals(Arrays.asList(Native.wireOptionNames(true)), javaOptions(ws),
                "WsNative.OPT_* against jni/bridge.h TACHY_JNI_WS_OPTIONS");
        Field d = ws.getDeclaredField("OPT_DEFAULT");
        d.setAccessible(true);
        assertEquals(Native.OPT_DEFAULT, d.getLong(null), "one 'keep C's default' value");
        assertEquals(Long.MIN_VALUE, Native.OPT_DEFAULT, "jni/bridge.h TACHY_JNI_OPT_DEFAULT");
    }

    /** Every index of Native.OPT_* reaches the tachy_options field of its name: distinct
     * values in, the same values back at the same indexes; OPT_DEFAULT keeps C's defaults. */
    @Test
    void optionsReachTheirFields() {
        long[] in = new long[Native.OPT_COUNT];
        for (int i = 0; i < in.length; i++) {
            in[i] = i == Native.OPT_CONTEXT_MATCH ? 1 : i == Native.OPT_JDK_HEADER_RULES ? 0 : 1000 + i;
        }
        assertArrayEquals(in, Native.wireOptionsEcho(in));
        long[] defaults = new long[Native.OPT_COUNT];
        Arrays.fill(defaults, Native.OPT_DEFAULT);
        long[] back = Native.wireOptionsEcho(defaults);
        assertEquals(0, back[Native.OPT_JDK_HEADER_RULES], "C's default (the provider's 1 is ServerConfig's)");
        assertEquals(Native.CONTEXT_MATCH_PATH_PREFIX, back[Native.OPT_CONTEXT_MATCH]);
        assertEquals(200, back[Native.OPT_MAX_REQ_HEADERS]);
        assertEquals(0, back[Native.OPT_ACCESS_LOG_FORMAT], "TACHY_ACCESS_LOG_COMMON");
        assertEquals(4096, back[Native.OPT_ACCESS_LOG_LINES]);
        assertEquals(0, back[Native.OPT_ACCESS_LOG_LOGGER], "no access log to System.Logger");
    }
}
