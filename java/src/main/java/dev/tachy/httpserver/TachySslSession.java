package dev.tachy.httpserver;

import com.sun.net.httpserver.HttpExchange;
import java.net.InetSocketAddress;
import java.security.Principal;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SNIServerName;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSessionBindingEvent;
import javax.net.ssl.SSLSessionBindingListener;
import javax.net.ssl.SSLSessionContext;

/**
 * HttpsExchange.getSSLSession() on tachy's OpenSSL path: what OpenSSL negotiated (protocol,
 * cipher suite by its standard name, SNI host) plus what Java knows (the server's chain, the
 * peer's address). As with the JDK's server (no client authentication), the peer is not
 * authenticated: getPeerCertificates/getPeerPrincipal throw SSLPeerUnverifiedException.
 *
 * <p>Differences from the JDK's session object: one object per exchange (the JDK shares one
 * per TLS session), a random id, no session context (null), and the signature algorithm
 * lists are empty.
 */
final class TachySslSession extends ExtendedSSLSession {
    private static final SecureRandom RANDOM = new SecureRandom();

    private final String protocol;
    private final String cipherSuite;
    private final String serverName;
    private final X509Certificate[] local;
    private final HttpExchange exchange; /* the peer's address, decoded when asked for */
    private final int packetBufferSize;
    private final int applicationBufferSize;
    private final long created = System.currentTimeMillis();
    private final Map<String, Object> values = new ConcurrentHashMap<>();
    private volatile byte[] id;
    private volatile boolean valid = true;
    private volatile String peerHost;

    TachySslSession(String[] tls, X509Certificate[] local, HttpExchange exchange,
            int packetBufferSize, int applicationBufferSize) {
        this.protocol = tls[0];
        this.cipherSuite = tls[1];
        this.serverName = tls[2];
        this.local = local;
        this.exchange = exchange;
        this.packetBufferSize = packetBufferSize;
        this.applicationBufferSize = applicationBufferSize;
    }

    @Override
    public byte[] getId() {
        byte[] b = id;
        if (b == null) {
            b = new byte[32];
            RANDOM.nextBytes(b);
            id = b;
        }
        return b.clone();
    }

    @Override
    public SSLSessionContext getSessionContext() {
        return null;
    }

    @Override
    public long getCreationTime() {
        return created;
    }

    @Override
    public long getLastAccessedTime() {
        return created;
    }

    @Override
    public void invalidate() {
        valid = false;
    }

    @Override
    public boolean isValid() {
        return valid;
    }

    @Override
    public void putValue(String name, Object value) {
        if (name == null || value == null) {
            throw new IllegalArgumentException("arguments can not be null");
        }
        Object old = values.put(name, value);
        if (old instanceof SSLSessionBindingListener) {
            ((SSLSessionBindingListener) old).valueUnbound(new SSLSessionBindingEvent(this, name));
        }
        if (value instanceof SSLSessionBindingListener) {
            ((SSLSessionBindingListener) value).valueBound(new SSLSessionBindingEvent(this, name));
        }
    }

    @Override
    public Object getValue(String name) {
        if (name == null) {
            throw new IllegalArgumentException("argument can not be null");
        }
        return values.get(name);
    }

    @Override
    public void removeValue(String name) {
        if (name == null) {
            throw new IllegalArgumentException("argument can not be null");
        }
        Object old = values.remove(name);
        if (old instanceof SSLSessionBindingListener) {
            ((SSLSessionBindingListener) old).valueUnbound(new SSLSessionBindingEvent(this, name));
        }
    }

    @Override
    public String[] getValueNames() {
        return values.keySet().toArray(new String[0]);
    }

    @Override
    public Certificate[] getPeerCertificates() throws SSLPeerUnverifiedException {
        throw new SSLPeerUnverifiedException("peer not authenticated");
    }

    @Override
    public Certificate[] getLocalCertificates() {
        return local == null ? null : local.clone();
    }

    @Override
    public Principal getPeerPrincipal() throws SSLPeerUnverifiedException {
        throw new SSLPeerUnverifiedException("peer not authenticated");
    }

    @Override
    public Principal getLocalPrincipal() {
        return local == null || local.length == 0 ? null : local[0].getSubjectX500Principal();
    }

    @Override
    public String getCipherSuite() {
        return cipherSuite;
    }

    @Override
    public String getProtocol() {
        return protocol;
    }

    /** As the JDK's server: the peer's host name (reverse lookup, done on first use). */
    @Override
    public String getPeerHost() {
        String h = peerHost;
        InetSocketAddress peer = exchange.getRemoteAddress();
        if (h == null && peer != null) {
            h = peer.getHostName();
            peerHost = h;
        }
        return h;
    }

    @Override
    public int getPeerPort() {
        InetSocketAddress peer = exchange.getRemoteAddress();
        return peer == null ? -1 : peer.getPort();
    }

    @Override
    public int getPacketBufferSize() {
        return packetBufferSize;
    }

    @Override
    public int getApplicationBufferSize() {
        return applicationBufferSize;
    }

    @Override
    public String[] getLocalSupportedSignatureAlgorithms() {
        return new String[0];
    }

    @Override
    public String[] getPeerSupportedSignatureAlgorithms() {
        return new String[0];
    }

    @Override
    public List<SNIServerName> getRequestedServerNames() {
        if (serverName == null) {
            return List.of();
        }
        try {
            return List.of(new SNIHostName(serverName));
        } catch (IllegalArgumentException e) {
            return List.of();
        }
    }

    @Override
    public String toString() {
        return "TachySslSession[" + protocol + ", " + cipherSuite + "]";
    }
}
