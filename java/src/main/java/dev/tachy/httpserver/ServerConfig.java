package dev.tachy.httpserver;

/**
 * The JDK's server properties, read once (as the JDK's ServerConfig does), turned into the
 * long[] that Native.serverCreate copies into tachy_options. Names and units are the JDK's:
 * times in seconds, converted to the milliseconds tachy_options uses. Unset properties keep
 * the C defaults (Native.OPT_DEFAULT).
 *
 * <p>tachy's own: {@code tachy.threadStackSize} (bytes, default 1 MiB: connection threads run
 * Java handlers, so they get the JVM's usual stack rather than the C default) and
 * {@code tachy.threadKeepAlive} (ms an idle pooled connection thread waits for work).
 */
final class ServerConfig {
    private static final long DEFAULT_JAVA_THREAD_STACK = 1024 * 1024;
    private static final long[] OPTIONS = read();

    private ServerConfig() {}

    /** A fresh copy for one server, with the logger's current level. */
    static long[] options() {
        long[] o = OPTIONS.clone();
        o[Native.OPT_LOG_LEVEL] = Native.lowestLogLevel();
        return o;
    }

    private static long[] read() {
        long[] o = new long[Native.OPT_COUNT];
        java.util.Arrays.fill(o, Native.OPT_DEFAULT);
        Long v;
        if ((v = number("sun.net.httpserver.maxReqHeaders")) != null && v > 0) {
            o[Native.OPT_MAX_REQ_HEADERS] = Math.min(v, Integer.MAX_VALUE);
        }
        if ((v = number("sun.net.httpserver.maxReqHeaderSize")) != null) {
            o[Native.OPT_MAX_REQ_HEADER_SIZE] = v <= 0 ? Integer.MAX_VALUE : Math.min(v, Integer.MAX_VALUE);
        }
        if ((v = number("sun.net.httpserver.maxReqTime")) != null) {
            o[Native.OPT_MAX_REQ_TIME_MS] = v <= 0 ? -1 : secondsToMillis(v);
        }
        if ((v = number("sun.net.httpserver.maxRspTime")) != null) {
            o[Native.OPT_MAX_RSP_TIME_MS] = v <= 0 ? -1 : secondsToMillis(v);
        }
        if ((v = number("sun.net.httpserver.idleInterval")) != null && v > 0) {
            o[Native.OPT_IDLE_INTERVAL_MS] = secondsToMillis(v);
        }
        if ((v = number("sun.net.httpserver.maxIdleConnections")) != null) {
            o[Native.OPT_MAX_IDLE_CONNECTIONS] = clampInt(v);
        }
        if ((v = number("jdk.httpserver.maxConnections")) != null) {
            o[Native.OPT_MAX_CONNECTIONS] = clampInt(v);
        }
        if ((v = number("sun.net.httpserver.drainAmount")) != null) {
            o[Native.OPT_DRAIN_AMOUNT] = v;
        }
        String nodelay = System.getProperty("sun.net.httpserver.nodelay");
        if (nodelay != null) {
            o[Native.OPT_NODELAY] = Boolean.parseBoolean(nodelay) ? 1 : 0;
        }
        v = number("tachy.threadStackSize");
        o[Native.OPT_THREAD_STACK_SIZE] = v != null && v > 0 ? v : DEFAULT_JAVA_THREAD_STACK;
        if ((v = number("tachy.threadKeepAlive")) != null && v >= 0) {
            o[Native.OPT_THREAD_KEEPALIVE_MS] = v;
        }
        // The JDK up to 20 answers HTTP/1.0 keep-alive with "Keep-Alive: timeout=N, max=M".
        o[Native.OPT_HTTP10_KEEPALIVE_MAX] = Runtime.version().feature() <= 20 ? 1 : 0;
        return o;
    }

    private static long secondsToMillis(long s) {
        return s > Long.MAX_VALUE / 1000 ? Long.MAX_VALUE : s * 1000;
    }

    private static long clampInt(long v) {
        return Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, v));
    }

    /** Long.getLong semantics: unset or unparsable = null. */
    private static Long number(String name) {
        try {
            return Long.getLong(name);
        } catch (SecurityException e) {
            return null;
        }
    }
}
