package dev.tachy.httpserver;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpPrincipal;
import com.sun.net.httpserver.HttpsExchange;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import javax.net.ssl.SSLSession;

/**
 * The HttpsExchange handlers of a native TachyHttpsServer receive: every call goes to the
 * TachyHttpExchange it wraps (as the JDK's HttpsExchangeImpl wraps its ExchangeImpl), plus
 * getSSLSession(). The TLS fields are read from the C exchange when the wrapper is made, on
 * the connection's thread, so the session stays readable after the exchange is closed.
 */
final class TachyHttpsExchange extends HttpsExchange {
    private final TachyHttpExchange x;
    private final SSLSession session;

    TachyHttpsExchange(TachyHttpExchange x, SSLSession session) {
        this.x = x;
        this.session = session;
    }

    /** The wrapped exchange (TachyHttpExchange.handleOf: the WebSocket upgrade). */
    TachyHttpExchange inner() {
        return x;
    }

    @Override
    public SSLSession getSSLSession() {
        return session;
    }

    @Override
    public Headers getRequestHeaders() {
        return x.getRequestHeaders();
    }

    @Override
    public Headers getResponseHeaders() {
        return x.getResponseHeaders();
    }

    @Override
    public URI getRequestURI() {
        return x.getRequestURI();
    }

    @Override
    public String getRequestMethod() {
        return x.getRequestMethod();
    }

    @Override
    public HttpContext getHttpContext() {
        return x.getHttpContext();
    }

    @Override
    public void close() {
        x.close();
    }

    @Override
    public InputStream getRequestBody() {
        return x.getRequestBody();
    }

    @Override
    public OutputStream getResponseBody() {
        return x.getResponseBody();
    }

    @Override
    public void sendResponseHeaders(int rCode, long responseLength) throws IOException {
        x.sendResponseHeaders(rCode, responseLength);
    }

    @Override
    public InetSocketAddress getRemoteAddress() {
        return x.getRemoteAddress();
    }

    @Override
    public int getResponseCode() {
        return x.getResponseCode();
    }

    @Override
    public InetSocketAddress getLocalAddress() {
        return x.getLocalAddress();
    }

    @Override
    public String getProtocol() {
        return x.getProtocol();
    }

    @Override
    public Object getAttribute(String name) {
        return x.getAttribute(name);
    }

    @Override
    public void setAttribute(String name, Object value) {
        x.setAttribute(name, value);
    }

    @Override
    public void setStreams(InputStream i, OutputStream o) {
        x.setStreams(i, o);
    }

    @Override
    public HttpPrincipal getPrincipal() {
        return x.getPrincipal();
    }

    @Override
    public String toString() {
        return x.toString();
    }
}
