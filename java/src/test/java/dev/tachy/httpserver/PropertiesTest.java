package dev.tachy.httpserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The JDK's sun.net.httpserver.* properties reach the native core (child JVMs: they are
 * read once per JVM). */
class PropertiesTest {

    private interface Check {
        void run(int port) throws Exception;
    }

    private static void withServer(List<String> props, Check check) throws Exception {
        List<String> cmd = TestSupport.cmd(TestSupport.javaBin());
        cmd.addAll(props);
        cmd.add("-cp");
        cmd.add(TestSupport.classesDir() + File.pathSeparator + TestSupport.testClassesDir());
        cmd.add(ServeProbe.class.getName());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            String line;
            int port = -1;
            while ((line = out.readLine()) != null) {
                if (line.startsWith("port=")) {
                    port = Integer.parseInt(line.substring(5));
                    break;
                }
            }
            assertTrue(port > 0, "child server did not start");
            check.run(port);
        } finally {
            p.getOutputStream().close();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
    }

    /** Milliseconds until the server closes the connection (or -1 after limitMs). */
    private static long msUntilClosed(Socket s, int limitMs) throws IOException {
        long t0 = System.nanoTime();
        s.setSoTimeout(limitMs);
        InputStream in = s.getInputStream();
        byte[] buf = new byte[1024];
        try {
            while (in.read(buf) >= 0) {
                // a response may come first; wait for the close
            }
        } catch (SocketTimeoutException e) {
            return -1;
        } catch (IOException reset) {
            // closed
        }
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    }

    @Test
    void maxReqTimeClosesASlowRequest() throws Exception {
        withServer(List.of("-Dsun.net.httpserver.maxReqTime=1"), port -> {
            try (Socket s = new Socket(TestSupport.LOOPBACK, port)) {
                s.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
                long ms = msUntilClosed(s, 8000);
                assertTrue(ms >= 500 && ms < 5000, "closed after " + ms + " ms");
            }
        });
    }

    @Test
    void idleIntervalClosesAnIdleConnection() throws Exception {
        withServer(List.of("-Dsun.net.httpserver.idleInterval=1"), port -> {
            try (Socket s = new Socket(TestSupport.LOOPBACK, port)) {
                s.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                long ms = msUntilClosed(s, 10000);
                assertTrue(ms >= 500 && ms < 8000, "idle connection closed after " + ms + " ms");
            }
        });
    }

    @Test
    void maxReqHeadersIsEnforced() throws Exception {
        withServer(List.of("-Dsun.net.httpserver.maxReqHeaders=3"), port -> {
            try (Socket s = new Socket(TestSupport.LOOPBACK, port)) {
                s.getOutputStream().write(("GET / HTTP/1.1\r\nHost: x\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n"
                        + "Connection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                s.setSoTimeout(5000);
                String got = new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
                assertTrue(got.isEmpty() || !got.startsWith("HTTP/1.1 200"), got);
            }
            try (Socket s = new Socket(TestSupport.LOOPBACK, port)) {
                s.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
                s.setSoTimeout(5000);
                String got = new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
                assertEquals("HTTP/1.1 200 OK", got.substring(0, got.indexOf('\r')));
            }
        });
    }

    /**
     * n connections each get one response, then stay idle: how many has the server kept open?
     * (A connection over maxIdleConnections is closed right after its response.)
     */
    private static int idleKeptOf(int port, int n) throws Exception {
        List<SocketChannel> chans = new ArrayList<>();
        try {
            byte[] req = "GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
            for (int i = 0; i < n; i++) {
                SocketChannel c = SocketChannel.open(new InetSocketAddress(TestSupport.LOOPBACK, port));
                chans.add(c);
                c.write(ByteBuffer.wrap(req));
                ByteBuffer in = ByteBuffer.allocate(4096);
                String got = "";
                while (!got.endsWith("\r\n\r\nok")) {
                    assertTrue(c.read(in) > 0, "response " + i + " incomplete: " + got);
                    got = new String(in.array(), 0, in.position(), StandardCharsets.ISO_8859_1);
                }
            }
            Thread.sleep(300);
            int open = 0;
            for (SocketChannel c : chans) {
                c.configureBlocking(false);
                try {
                    open += c.read(ByteBuffer.allocate(16)) == 0 ? 1 : 0; // -1: closed by the server
                } catch (IOException reset) {
                    // closed
                }
            }
            return open;
        } finally {
            for (SocketChannel c : chans) {
                c.close();
            }
        }
    }

    @Test
    void maxIdleConnectionsIsTheJdks200WhenUnset() throws Exception {
        // tachy's C default keeps every idle connection; the provider keeps the JDK's 200
        withServer(List.of(), port -> assertEquals(200, idleKeptOf(port, 230)));
    }

    @Test
    void maxIdleConnectionsPropertyIsTheCap() throws Exception {
        withServer(List.of("-Dsun.net.httpserver.maxIdleConnections=215"),
                port -> assertEquals(215, idleKeptOf(port, 230)));
    }
}
