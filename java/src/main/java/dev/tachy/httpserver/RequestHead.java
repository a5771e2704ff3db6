package dev.tachy.httpserver;

import dev.tachy.httpserver.internal.Wire;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;

/**
 * Reads the request head the core hands up (jni/wire.h, with {@link Wire}): the request
 * line's method and protocol (as shared constants when they are the usual ones), the test
 * {@link #plainTarget} that lets the URI be parsed on demand, and the lazily decoded part
 * that {@link TachyHttpExchange} keeps a copy of: the remote and local addresses, then the
 * request headers.
 *
 * <p>Static and stateless. The request line is read on the connection thread during the
 * upcall ({@link TachyHttpExchange}'s constructor, {@link TachyHttpContext#target}); the lazy
 * part on whichever thread asks the exchange for an address or the headers.
 */
final class RequestHead {
    private RequestHead() {}

    private static boolean is(byte[] b, int s, String lit) {
        for (int i = 0; i < lit.length(); i++) {
            if (b[s + i] != lit.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** The method as a shared constant when it is a common one (no String per request). */
    static String method(byte[] b, int s, int n) {
        switch (n) {
            case 3:
                if (is(b, s, "GET")) {
                    return "GET";
                }
                if (is(b, s, "PUT")) {
                    return "PUT";
                }
                break;
            case 4:
                if (is(b, s, "POST")) {
                    return "POST";
                }
                if (is(b, s, "HEAD")) {
                    return "HEAD";
                }
                break;
            case 5:
                if (is(b, s, "PATCH")) {
                    return "PATCH";
                }
                if (is(b, s, "TRACE")) {
                    return "TRACE";
                }
                break;
            case 6:
                if (is(b, s, "DELETE")) {
                    return "DELETE";
                }
                break;
            case 7:
                if (is(b, s, "OPTIONS")) {
                    return "OPTIONS";
                }
                if (is(b, s, "CONNECT")) {
                    return "CONNECT";
                }
                break;
            default:
                break;
        }
        return new String(b, s, n, StandardCharsets.ISO_8859_1);
    }

    /** The protocol as a shared constant for HTTP/1.1 and HTTP/1.0. */
    static String protocol(byte[] b, int s, int n) {
        if (n == 8 && is(b, s, "HTTP/1.")) {
            if (b[s + 7] == '1') {
                return "HTTP/1.1";
            }
            if (b[s + 7] == '0') {
                return "HTTP/1.0";
            }
        }
        return new String(b, s, n, StandardCharsets.ISO_8859_1);
    }

    /**
     * Bytes of a request-target java.net.URI accepts whatever surrounds them (RFC 2396
     * unreserved and reserved characters but '#', brackets and '%'; '%' is checked apart).
     */
    private static final boolean[] PLAIN = new boolean[128];

    static {
        String ok = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                + "-_.!~*'()" + ":@&=+$," + ";/?";
        for (int i = 0; i < ok.length(); i++) {
            PLAIN[ok.charAt(i)] = true;
        }
    }

    private static boolean hex(byte c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }

    /**
     * Whether b[s, e) is an origin-form target that java.net.URI certainly parses: starts with
     * one '/' (not "//", which URI reads as an authority), then only path and query
     * characters of RFC 2396 (no fragment, no brackets, no non-ASCII) with every '%' followed
     * by two hex digits. Such a target is parsed only when getRequestURI is called; any other
     * is parsed at once, so a target URI refuses is still answered 400 before the handler.
     */
    static boolean plainTarget(byte[] b, int s, int e) {
        if (s >= e || b[s] != '/' || (e - s > 1 && b[s + 1] == '/')) {
            return false;
        }
        for (int i = s + 1; i < e; i++) {
            int c = b[i];
            if (c < 0 || !PLAIN[c]) {
                if (c == '%' && i + 2 < e && hex(b[i + 1]) && hex(b[i + 2])) {
                    i += 2;
                    continue;
                }
                return false;
            }
        }
        return true;
    }

    /* ---- the lazy part: remote host, port, local host, port, then header pairs ---------- */

    /** The address whose host is the string at p of the lazy part, its port the number
     * after it (0.0.0.0:0 when the part is empty). */
    static InetSocketAddress address(byte[] lazy, int p) {
        if (p >= lazy.length) {
            return socketAddress("0.0.0.0", 0);
        }
        return socketAddress(Wire.string(lazy, p), Wire.number(lazy, Wire.next(lazy, p)));
    }

    /** Where the local address starts in the lazy part (after the remote host and port). */
    static int localAddressAt(byte[] lazy) {
        return lazy.length == 0 ? 0 : Wire.next(lazy, 0) + 4;
    }

    /** The request headers of the lazy part, decoded and locked (read-only, as the JDK's). */
    static RequestHeaders headers(byte[] lazy) {
        RequestHeaders h = new RequestHeaders();
        int n = lazy.length;
        int p = n == 0 ? 0 : Wire.next(lazy, localAddressAt(lazy)) + 4; // after the two addresses
        while (p < n) {
            String name = Wire.string(lazy, p);
            p = Wire.next(lazy, p);
            h.addParsed(name, Wire.string(lazy, p));
            p = Wire.next(lazy, p);
        }
        h.lock();
        return h;
    }

    private static InetSocketAddress socketAddress(String numericHost, int port) {
        try {
            // A numeric host: no name service lookup happens.
            return new InetSocketAddress(InetAddress.getByName(numericHost), port);
        } catch (UnknownHostException e) {
            return InetSocketAddress.createUnresolved(numericHost, port);
        }
    }
}
