package dev.tachy.httpserver.internal;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The JNI wire format, the Java half: jni/wire.h defines it (strings as a 4-byte big-endian
 * length and ISO-8859-1 bytes, numbers as 4 bytes big-endian; the request head C sends, the
 * response headers Java sends, the result of sendResponseHeaders) and this class mirrors it
 * field for field. WireTest round-trips header sets through both and compares the constants.
 * Internal: this package is not exported.
 */
public final class Wire {
    private Wire() {}

    /* ---- the result of Native.sendResponseHeaders (jni/wire.h) ------------------------ */

    /** tachy_response_framing: no response headers sent yet. */
    public static final int FRAMING_NOT_SENT = 0;
    /** Content-length: N, exactly N body bytes. */
    public static final int FRAMING_FIXED = 1;
    /** Transfer-encoding: chunked. */
    public static final int FRAMING_CHUNKED = 2;
    /** HTTP/1.0 streamed body, ending with the connection. */
    public static final int FRAMING_UNTIL_CLOSE = 3;
    /** No body: the response was complete with its head. */
    public static final int FRAMING_EMPTY = 4;

    /** The core wrote no Content-length header. */
    public static final int CL_NONE = 0;
    /** The core wrote "Content-length: len", len as given to sendResponseHeaders. */
    public static final int CL_GIVEN = 1;
    /** The core wrote "Content-length: 0". */
    public static final int CL_ZERO = 2;

    static final int SECOND_BITS = 40;
    static final int FRAMING_SHIFT = 40;
    static final int FRAMING_MASK = 0x7;
    static final int CL_SHIFT = 43;
    static final int CL_MASK = 0x3;

    /** The epoch second the head was sent at (its Date), from a result r >= 0. */
    public static long second(long r) {
        return r & ((1L << SECOND_BITS) - 1);
    }

    /** The framing the core decided (FRAMING_*), from a result r >= 0. */
    public static int framing(long r) {
        return (int) (r >>> FRAMING_SHIFT) & FRAMING_MASK;
    }

    /** The Content-length header the core wrote (CL_*), from a result r >= 0. */
    public static int contentLength(long r) {
        return (int) (r >>> CL_SHIFT) & CL_MASK;
    }

    /** The encoding of a result (the mirror of tachy_wire_result, for the test). */
    public static long result(long second, int framing, int contentLength) {
        if (second < 0 || second >= (1L << SECOND_BITS)) {
            second = 0;
        }
        return second | (long) (framing & FRAMING_MASK) << FRAMING_SHIFT
                | (long) (contentLength & CL_MASK) << CL_SHIFT;
    }

    /* ---- decoding ----------------------------------------------------------------------- */

    /** The number at b[p, p+4). */
    public static int number(byte[] b, int p) {
        return (b[p] & 0xff) << 24 | (b[p + 1] & 0xff) << 16 | (b[p + 2] & 0xff) << 8
                | (b[p + 3] & 0xff);
    }

    /** The length of the string at p; its bytes start at p + 4. */
    public static int length(byte[] b, int p) {
        int n = number(b, p);
        if (n < 0 || n > b.length - p - 4) {
            throw new IllegalArgumentException("malformed wire string at " + p);
        }
        return n;
    }

    /** The position after the string at p. */
    public static int next(byte[] b, int p) {
        return p + 4 + length(b, p);
    }

    /** The string at p. */
    public static String string(byte[] b, int p) {
        return new String(b, p + 4, length(b, p), StandardCharsets.ISO_8859_1);
    }

    /* ---- encoding ----------------------------------------------------------------------- */

    /** A growing byte array that strings and numbers are appended to. */
    public static final class Writer {
        private byte[] buf;
        private int len;

        public Writer(int capacity) {
            buf = new byte[Math.max(16, capacity)];
        }

        /** The array written to; bytes [0, {@link #length()}) hold the data. */
        public byte[] array() {
            return buf;
        }

        public int length() {
            return len;
        }

        private void room(int n) {
            if (len + n > buf.length) {
                buf = Arrays.copyOf(buf, Math.max(len + n, buf.length * 2));
            }
        }

        public Writer number(int v) {
            room(4);
            put32(v);
            return this;
        }

        private void put32(int v) {
            buf[len] = (byte) (v >>> 24);
            buf[len + 1] = (byte) (v >>> 16);
            buf[len + 2] = (byte) (v >>> 8);
            buf[len + 3] = (byte) v;
            len += 4;
        }

        /** s (null: the empty string) as the low 8 bits of every char, as the JDK writes
         * header bytes (one array copy for a Latin-1 string). */
        @SuppressWarnings("deprecation")
        public Writer string(String s) {
            int n = s == null ? 0 : s.length();
            room(4 + n);
            put32(n);
            if (n > 0) {
                s.getBytes(0, n, buf, len);
            }
            len += n;
            return this;
        }

        /** Every (name, value) pair of h, in its order, leaving out the name skip (may be
         * null). A null value list or a null value (put into the map or a value list
         * directly, past Headers' own checks) throws NullPointerException, as the JDK's
         * sendResponseHeaders does, before anything is sent. */
        public Writer pairs(Map<String, List<String>> h, String skip) {
            for (Map.Entry<String, List<String>> e : h.entrySet()) {
                String name = e.getKey();
                List<String> values = e.getValue();
                if (name.equals(skip)) {
                    continue;
                }
                if (values == null) {
                    throw new NullPointerException("null value list for response header " + name);
                }
                int n = values.size();
                if (n == 1) { // the usual case: no iterator
                    string(name).string(nonNull(name, values.get(0)));
                    continue;
                }
                for (String v : values) {
                    string(name).string(nonNull(name, v));
                }
            }
            return this;
        }

        private static String nonNull(String name, String value) {
            if (value == null) {
                throw new NullPointerException("null value for response header " + name);
            }
            return value;
        }
    }
}
