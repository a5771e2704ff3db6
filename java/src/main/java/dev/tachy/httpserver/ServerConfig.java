package dev.tachy.httpserver;

/**
 * The JDK's server properties, read once (as the JDK's ServerConfig does), turned into the
 * long[] that Native.serverCreate copies into tachy_options. Names and units are the JDK's:
 * times in seconds, converted to the milliseconds tachy_options uses. Unset properties keep
 * the C defaults (Native.OPT_DEFAULT).
 *
 * <p>tachy's own: {@code tachy.threadStackSize} (bytes, default 1 MiB: connection threads run
 * Java handlers, so they get the JVM's usual stack rather than the C default) and
 * {@code tachy.threadKeepAlive} (ms an idle pooled connection thread waits for work), and
 * {@code tachy.strictHeaders}: {@code true} gives the C server's strict request-header rules
 * (431 over maxReqHeaders lines or maxReqHeaderSize bytes, 400 for an obs-fold) instead of the
 * JDK's (distinct names and the JDK's byte count, closed without a response, obs-fold
 * unfolded); see tachy_options.jdk_header_rules in native/include/tachy/server.h.
 * Behind a load balancer, read at each server's creation: {@code tachy.proxyProtocol},
 * {@code tachy.proxyTrusted} and {@code tachy.reuseport} (docs/load-balancing.md); and
 * {@code tachy.http2} and {@code tachy.h2MaxStreams} (HTTP/2, off by default; see
 * {@link #http2Options}).
 *
 * <p>The access log (docs/java-provider.md, tachy/accesslog.h), read when each server is
 * created: {@code tachy.accessLog} a file path (lines appended, written by a native thread off
 * the request path), or {@code System.Logger} (each line logged at INFO to the logger
 * {@code dev.tachy.httpserver.access}); unset, none. {@code tachy.accessLogFormat}
 * {@code common} (the default) or {@code combined}; {@code tachy.accessLogLines} the lines its
 * ring holds before it drops (4096).
 */
final class ServerConfig {
    private static final long DEFAULT_JAVA_THREAD_STACK = 1024 * 1024;
    /** sun.net.httpserver.ServerConfig's default maxIdleConnections (tachy's C default: no cap). */
    static final int JDK_MAX_IDLE_CONNECTIONS = 200;

    /**
     * jdk.httpserver.attributes (JDK-7105350): exchange attributes are per exchange on JDK 26
     * and later unless the property is "context" (JDK 26 reads it once, as here); before 26
     * they are the context's map, as those JDKs' servers keep them, unless it is "exchange"
     * (tachy's opt-in to the newer behaviour on older JDKs). Any other value: the running
     * JDK's default.
     */
    static final boolean PER_EXCHANGE_ATTRIBUTES =
            perExchangeAttributes(Runtime.version().feature(), property("jdk.httpserver.attributes"));

    static boolean perExchangeAttributes(int feature, String value) {
        if ("context".equals(value)) {
            return false;
        }
        return feature >= 26 || "exchange".equals(value);
    }

    /**
     * sun.net.httpserver.pathMatcher (JDK-8272758): "pathPrefix" or "stringPrefix" on every
     * JDK (on JDKs before 27, whose servers match by string prefix, "pathPrefix" is tachy's
     * opt-in to JDK 27's rule); unset, the running JDK's rule (path prefix from 27 on); any
     * other value is logged as JDK 27 logs it and the running JDK's rule applies. JDK 27
     * reads the property at every request; tachy reads it when a server is created.
     */
    static int contextMatch(int feature, String value) {
        int dflt = feature >= 27 ? Native.CONTEXT_MATCH_PATH_PREFIX : Native.CONTEXT_MATCH_STRING_PREFIX;
        if (value == null) {
            return dflt;
        }
        switch (value) {
            case "pathPrefix":
                return Native.CONTEXT_MATCH_PATH_PREFIX;
            case "stringPrefix":
                return Native.CONTEXT_MATCH_STRING_PREFIX;
            default:
                System.getLogger("sun.net.httpserver.ContextList").log(System.Logger.Level.WARNING,
                        "System property \"{0}\" contains an invalid value: \"{1}\". Falling back to the default: \"{2}\"",
                        "sun.net.httpserver.pathMatcher", value,
                        dflt == Native.CONTEXT_MATCH_PATH_PREFIX ? "pathPrefix" : "stringPrefix");
                return dflt;
        }
    }

    private static final long[] OPTIONS = read();

    private ServerConfig() {}

    /** A fresh copy for one server, with the logger's current level and the context
     * matching of sun.net.httpserver.pathMatcher as it is now. */
    static long[] options() {
        return options(null, 0);
    }

    /**
     * As {@link #options()}, with {@link TachyServer.Builder}'s choices: http2 null = the
     * tachy.http2 property, h2MaxStreams <= 0 = the tachy.h2MaxStreams property (else C's 256).
     */
    static long[] options(Boolean http2, int h2MaxStreams) {
        long[] o = OPTIONS.clone();
        o[Native.OPT_LOG_LEVEL] = Native.lowestLogLevel();
        o[Native.OPT_CONTEXT_MATCH] =
                contextMatch(Runtime.version().feature(), property("sun.net.httpserver.pathMatcher"));
        String log = property("tachy.accessLog");
        if (log != null && !log.isEmpty()) {
            o[Native.OPT_ACCESS_LOG_LOGGER] = ACCESS_LOG_TO_LOGGER.equals(log) ? 1 : 0;
            o[Native.OPT_ACCESS_LOG_FORMAT] = "combined".equals(property("tachy.accessLogFormat")) ? 1 : 0;
            Integer lines = integer("tachy.accessLogLines");
            if (lines != null && lines > 0) {
                o[Native.OPT_ACCESS_LOG_LINES] = lines;
            }
        }
        balancerOptions(o);
        http2Options(o, http2, h2MaxStreams);
        return o;
    }

    /** The value of tachy.accessLog that routes the lines to System.Logger. */
    static final String ACCESS_LOG_TO_LOGGER = "System.Logger";

    /** tachy.accessLog as a file path, or null (unset, empty, or System.Logger). */
    static String accessLogPath() {
        String log = property("tachy.accessLog");
        return log == null || log.isEmpty() || ACCESS_LOG_TO_LOGGER.equals(log) ? null : log;
    }

    /**
     * HTTP/2 (docs/java-provider.md, "HTTP/2"), read at every server's creation:
     * tachy.http2=true opens all three ways (tachy_options.http2 = TACHY_HTTP2_ALL: h2 by ALPN
     * on HTTPS, h2c by prior knowledge and by Upgrade: h2c on plain servers). Off (0) by
     * default, unlike the C server's default: on HTTP/2 getProtocol() says "HTTP/2.0" and
     * the wire differs (no Connection header, GOAWAY on stop), which a program written for
     * the JDK's HTTP/1.1 server may not expect. tachy.h2MaxStreams: the streams a client may
     * have open on one connection (SETTINGS_MAX_CONCURRENT_STREAMS; unset or <= 0: 100).
     */
    private static void http2Options(long[] o, Boolean http2, int h2MaxStreams) {
        boolean on = http2 != null ? http2 : Boolean.parseBoolean(property("tachy.http2"));
        o[Native.OPT_HTTP2] = on ? Native.HTTP2_ALL : 0;
        int streams = h2MaxStreams;
        if (streams <= 0) {
            Integer i = integer("tachy.h2MaxStreams");
            streams = i == null ? 0 : i;
        }
        if (streams > 0) {
            o[Native.OPT_H2_MAX_STREAMS] = streams;
        }
    }

    /**
     * Behind a load balancer (docs/load-balancing.md), read at every server's creation:
     * tachy.proxyProtocol=true (tachy_options.proxy_protocol: every connection starts with a
     * PROXY v1/v2 header) and tachy.reuseport=true (tachy_options.reuseport: bind with
     * SO_REUSEPORT) into o.
     */
    private static void balancerOptions(long[] o) {
        o[Native.OPT_PROXY_PROTOCOL] = Boolean.parseBoolean(property("tachy.proxyProtocol")) ? 1 : 0;
        o[Native.OPT_REUSEPORT] = Boolean.parseBoolean(property("tachy.reuseport")) ? 1 : 0;
    }

    /**
     * tachy.proxyTrusted (tachy_options.proxy_trusted): the networks a PROXY header may come
     * from, "127.0.0.1, 10.0.0.0/8"; null (unset or blank): any peer. Read at every server's
     * creation; only used with tachy.proxyProtocol=true.
     */
    static String proxyTrusted() {
        String v = property("tachy.proxyTrusted");
        return v == null || v.isBlank() ? null : v.trim();
    }

    private static String property(String name) {
        try {
            return System.getProperty(name);
        } catch (SecurityException e) {
            return null;
        }
    }

    /*
     * Each property as JDK 25's sun.net.httpserver.ServerConfig (and ServerImpl) reads it:
     * Integer.getInteger for the int ones (a value outside the int range, or not a number,
     * is the default), Long.getLong for the others, and what a zero or negative value means:
     *   maxReqHeaders       <= 0: the default (200)
     *   maxReqHeaderSize    <= 0: unlimited
     *   maxReqTime/RspTime  <= 0 (or seconds*1000 overflowing): none
     *   idleInterval        seconds*1000 <= 0 (overflow included): the default (30 s)
     *   maxIdleConnections  <= 0: no connection is kept idle (each closes after its exchange);
     *                       unset: the JDK's 200 (set here: the C default is no cap)
     *   maxConnections      <= 0: unlimited
     *   drainAmount         <= 0: nothing is drained (a body not read to its end closes)
     *   nodelay             Boolean.getBoolean; unset keeps tachy's default (TCP_NODELAY
     *                       on; the JDK's is off), see java/README.md
     * clockTick and timerMillis (the JDK's sweep periods) have no equivalent: tachy's
     * deadlines are per connection.
     */
    private static long[] read() {
        long[] o = new long[Native.OPT_COUNT];
        java.util.Arrays.fill(o, Native.OPT_DEFAULT);
        Integer i;
        Long v;
        if ((i = integer("sun.net.httpserver.maxReqHeaders")) != null && i > 0) {
            o[Native.OPT_MAX_REQ_HEADERS] = i;
        }
        // unset: the JDK's default, 380 KiB (the C default, 384 KiB, counts differently)
        i = integer("sun.net.httpserver.maxReqHeaderSize");
        o[Native.OPT_MAX_REQ_HEADER_SIZE] = i == null ? 380 * 1024 : i <= 0 ? Integer.MAX_VALUE : i;
        if ((v = number("sun.net.httpserver.maxReqTime")) != null) {
            o[Native.OPT_MAX_REQ_TIME_MS] = jdkTimeMillis(v);
        }
        if ((v = number("sun.net.httpserver.maxRspTime")) != null) {
            o[Native.OPT_MAX_RSP_TIME_MS] = jdkTimeMillis(v);
        }
        if ((v = number("sun.net.httpserver.idleInterval")) != null && v * 1000 > 0) {
            o[Native.OPT_IDLE_INTERVAL_MS] = v * 1000; // wraps as the JDK's does; <= 0 is the default
        }
        // C: -1 = no limit (tachy's C default), 0 = keep none; the JDK keeps none for any value
        // <= 0, and 200 when the property is unset: the provider sets that 200 itself
        i = integer("sun.net.httpserver.maxIdleConnections");
        o[Native.OPT_MAX_IDLE_CONNECTIONS] = i == null ? JDK_MAX_IDLE_CONNECTIONS : Math.max(0, i);
        if ((i = integer("jdk.httpserver.maxConnections")) != null) {
            o[Native.OPT_MAX_CONNECTIONS] = i <= 0 ? -1 : i;
        }
        if ((v = number("sun.net.httpserver.drainAmount")) != null) {
            o[Native.OPT_DRAIN_AMOUNT] = Math.max(0, v);
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
        // The JDK's header counting and refusals unless tachy.strictHeaders=true
        o[Native.OPT_JDK_HEADER_RULES] = Boolean.getBoolean("tachy.strictHeaders") ? 0 : 1;
        // The JDK up to 20 answers HTTP/1.0 keep-alive with "Keep-Alive: timeout=N, max=M".
        o[Native.OPT_HTTP10_KEEPALIVE_MAX] = Runtime.version().feature() <= 20 ? 1 : 0;
        return o;
    }

    /** ServerImpl.getTimeMillis: seconds to ms; <= 0, or an overflowing product, is -1 (none). */
    private static long jdkTimeMillis(long seconds) {
        if (seconds <= 0) {
            return -1;
        }
        long ms = seconds * 1000;
        return ms > 0 ? ms : -1;
    }

    /** Integer.getInteger semantics: unset, unparsable or outside the int range = null. */
    private static Integer integer(String name) {
        try {
            return Integer.getInteger(name);
        } catch (SecurityException e) {
            return null;
        }
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
