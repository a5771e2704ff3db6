package dev.tachy.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue 15, the extra item: what a client observes after the request body cannot be read to
 * its end (a malformed chunk, a body cut short by the client's half-close), when the handler
 * catches the failed read and answers anyway, and when it lets the IOException escape.
 * Each case is written as "handler: read|failed; client: <what it saw>" and must be the same
 * on both providers.
 */
class BodyReadFailureTest {

    static String observe(String request, boolean halfClose, boolean handlerCatches) throws Exception {
        BlockingQueue<String> seen = new ArrayBlockingQueue<>(4);
        try (TestServer s = TestServer.start(ex -> {
            String what;
            try (InputStream in = ex.getRequestBody()) {
                in.readAllBytes();
                what = "read";
            } catch (IOException e) {
                what = "failed";
                if (!handlerCatches) {
                    seen.add(what);
                    throw e;
                }
            }
            seen.add(what);
            TestServer.respond(ex, 200, what);
        }); RawClient c = s.raw()) {
            c.send(request);
            if (halfClose) {
                c.socket.shutdownOutput();
            }
            String client;
            try {
                RawClient.Response r = c.read();
                client = r.code + " " + r.text() + (c.closedByServer() ? ", then closed" : ", kept open");
            } catch (java.io.EOFException | java.net.SocketException e) {
                client = "closed without a response";
            }
            String handler = seen.poll(10, TimeUnit.SECONDS);
            return "handler: " + handler + "; client: " + client;
        }
    }

    static final String HEAD_CHUNKED = "POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n";

    @Test
    void badChunkSize() throws Exception {
        String req = HEAD_CHUNKED + "3\r\nabc\r\nzz\r\n\r\n";
        assertEquals("?", observe(req, false, true), "caught");
        assertEquals("?", observe(req, false, false), "thrown");
    }

    @Test
    void badChunkTerminator() throws Exception {
        String req = HEAD_CHUNKED + "3\r\nabcX\r\n0\r\n\r\n";
        assertEquals("?", observe(req, false, true), "caught");
    }

    @Test
    void fixedLengthBodyCutShort() throws Exception {
        String req = "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabcde";
        assertEquals("?", observe(req, true, true), "caught");
        assertEquals("?", observe(req, true, false), "thrown");
    }

    @Test
    void chunkedBodyCutShort() throws Exception {
        String req = HEAD_CHUNKED + "5\r\nab";
        assertEquals("?", observe(req, true, true), "caught");
    }
}
