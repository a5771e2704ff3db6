package dev.tachy.compat;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** A raw HTTP/1.x client over a plain socket, for byte-exact checks. Every read has a timeout. */
final class RawClient implements AutoCloseable {
    static final int DEFAULT_TIMEOUT_MS = 10_000;

    final Socket socket;
    final InputStream in;
    final OutputStream out;

    RawClient(int port) throws IOException {
        socket = new Socket();
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5_000);
        socket.setSoTimeout(DEFAULT_TIMEOUT_MS);
        socket.setTcpNoDelay(true);
        in = new BufferedInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    RawClient timeout(int ms) throws SocketException {
        socket.setSoTimeout(ms);
        return this;
    }

    RawClient send(String s) throws IOException {
        return send(s.getBytes(StandardCharsets.ISO_8859_1));
    }

    RawClient send(byte[] b) throws IOException {
        out.write(b);
        out.flush();
        return this;
    }

    /** Reads one response to a non-HEAD request. */
    Response read() throws IOException {
        return read(false);
    }

    /** Reads one response; headOnly means the request was HEAD (no body follows whatever the headers say). */
    Response read(boolean headOnly) throws IOException {
        Response r = new Response();
        ByteArrayOutputStream rawHead = new ByteArrayOutputStream();
        String status = readLine(rawHead);
        if (status == null) {
            throw new EOFException("connection closed before a status line");
        }
        r.statusLine = status;
        String[] parts = status.split(" ", 3);
        r.version = parts[0];
        r.code = Integer.parseInt(parts[1]);
        r.reason = parts.length > 2 ? parts[2] : null;
        String line;
        while ((line = readLine(rawHead)) != null && !line.isEmpty()) {
            int colon = line.indexOf(':');
            if (colon < 0) {
                r.headers.add(new String[] {line, ""}); // e.g. an obs-fold continuation line
            } else {
                r.headers.add(new String[] {line.substring(0, colon), line.substring(colon + 1).trim()});
            }
        }
        if (line == null) {
            throw new EOFException("connection closed inside the header block");
        }
        r.rawHead = rawHead.toString(StandardCharsets.ISO_8859_1);
        if (headOnly || (r.code >= 100 && r.code < 200) || r.code == 204 || r.code == 304) {
            r.body = new byte[0];
            return r;
        }
        String te = r.header("Transfer-encoding");
        String cl = r.header("Content-length");
        if (te != null && te.equalsIgnoreCase("chunked")) {
            r.chunked = true;
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            while (true) {
                String size = readLine(null);
                if (size == null) {
                    throw new EOFException("connection closed inside a chunked body");
                }
                int semi = size.indexOf(';');
                int n = Integer.parseInt((semi >= 0 ? size.substring(0, semi) : size).trim(), 16);
                r.chunkSizes.add(n);
                if (n == 0) {
                    String t;
                    while ((t = readLine(null)) != null && !t.isEmpty()) {
                        r.trailers.add(t);
                    }
                    break;
                }
                body.write(readExactly(n));
                String crlf = readLine(null);
                if (crlf == null || !crlf.isEmpty()) {
                    throw new IOException("bad chunk terminator: " + crlf);
                }
            }
            r.body = body.toByteArray();
        } else if (cl != null) {
            r.body = readExactly(Integer.parseInt(cl.trim()));
        } else {
            r.body = readToEof();
            r.readToEof = true;
        }
        return r;
    }

    byte[] readExactly(int n) throws IOException {
        byte[] b = in.readNBytes(n);
        if (b.length != n) {
            throw new EOFException("expected " + n + " bytes, got " + b.length);
        }
        return b;
    }

    byte[] readToEof() throws IOException {
        ByteArrayOutputStream bo = new ByteArrayOutputStream();
        byte[] buf = new byte[8192];
        int n;
        try {
            while ((n = in.read(buf)) >= 0) {
                bo.write(buf, 0, n);
            }
        } catch (SocketException reset) {
            // a reset after the data counts as the end
        }
        return bo.toByteArray();
    }

    /** A line without its CRLF (a bare LF also ends it); null at EOF before any byte. */
    String readLine(ByteArrayOutputStream copy) throws IOException {
        ByteArrayOutputStream bo = new ByteArrayOutputStream();
        int c;
        boolean any = false;
        while ((c = in.read()) >= 0) {
            any = true;
            if (copy != null) {
                copy.write(c);
            }
            if (c == '\n') {
                byte[] b = bo.toByteArray();
                int len = b.length > 0 && b[b.length - 1] == '\r' ? b.length - 1 : b.length;
                return new String(b, 0, len, StandardCharsets.ISO_8859_1);
            }
            bo.write(c);
        }
        return any ? bo.toString(StandardCharsets.ISO_8859_1) : null;
    }

    /**
     * True when the server closed the connection (EOF or reset) within the socket timeout,
     * with no further bytes; false when bytes arrived; AssertionError if nothing happened
     * within the socket timeout.
     */
    boolean closedByServer() throws IOException {
        try {
            return in.read() < 0;
        } catch (SocketTimeoutException e) {
            throw new AssertionError("expected the server to close the connection; it stayed open and silent for "
                    + socket.getSoTimeout() + " ms", e);
        } catch (SocketException reset) {
            return true;
        }
    }

    /** All bytes until EOF (or reset), as ISO-8859-1 text. */
    String readAllText() throws IOException {
        return new String(readToEof(), StandardCharsets.ISO_8859_1);
    }

    /** Whether the server is still reading: true if no EOF arrives within ms. */
    boolean stillOpenAfter(int ms) throws IOException {
        int old = socket.getSoTimeout();
        socket.setSoTimeout(ms);
        try {
            int c = in.read();
            if (c < 0) {
                return false;
            }
            throw new IOException("unexpected byte from server: " + c);
        } catch (SocketTimeoutException e) {
            return true;
        } catch (SocketException reset) {
            return false;
        } finally {
            socket.setSoTimeout(old);
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    static final class Response {
        String statusLine;
        String version;
        int code;
        String reason;
        String rawHead;
        final List<String[]> headers = new ArrayList<>();
        byte[] body;
        boolean chunked;
        boolean readToEof;
        final List<Integer> chunkSizes = new ArrayList<>();
        final List<String> trailers = new ArrayList<>();

        /** First value of a header, name compared case-insensitively. */
        String header(String name) {
            for (String[] h : headers) {
                if (h[0].equalsIgnoreCase(name)) {
                    return h[1];
                }
            }
            return null;
        }

        List<String> all(String name) {
            List<String> l = new ArrayList<>();
            for (String[] h : headers) {
                if (h[0].equalsIgnoreCase(name)) {
                    l.add(h[1]);
                }
            }
            return l;
        }

        /** Header names exactly as sent. */
        List<String> names() {
            List<String> l = new ArrayList<>();
            for (String[] h : headers) {
                l.add(h[0]);
            }
            return l;
        }

        boolean has(String name) {
            return header(name) != null;
        }

        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        @Override
        public String toString() {
            return rawHead + (body == null ? "" : "[" + body.length + " body bytes]");
        }
    }

    static String lower(String s) {
        return s.toLowerCase(Locale.ROOT);
    }
}
