package dev.tachy.httpserver;

import com.sun.net.httpserver.HttpExchange;
import java.net.InetSocketAddress;
import java.security.Principal;
import java.security.SecureRandom;
import java.io.ByteArrayInputStream;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
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
 * peer's address). With client authentication (want/need) and a client that sent a
 * certificate, getPeerCertificates returns the chain it sent (its own first, decoded from the
 * DER OpenSSL verified, on first use) and getPeerPrincipal its subject; otherwise both throw
 * SSLPeerUnverifiedException("peer not authenticated"), as the JDK's session does. A session
 * resumed from a ticket knows the client's own certificate only, not its intermediates.
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
    private final byte[][] peerDer; /* the client's chain as DER, or null: none */
    private volatile X509Certificate[] peer;
    private final HttpExchange exchange; /* the peer's address, decoded when asked for */
    private final int packetBufferSize;
    private final int applicationBufferSize;
    private final long created = System.currentTimeMillis();
    private final Map<String, Object> values = new ConcurrentHashMap<>();
    private volatile byte[] id;
    private volatile boolean valid = true;
    private volatile String peerHost;

    TachySslSession(String[] tls, X509Certificate[] local, byte[][] peerDer, HttpExchange exchange,
            int packetBufferSize, int applicationBufferSize) {
        this.peerDer = peerDer;
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
        return peerChain().clone();
    }

    /** The client's chain, decoded once; SSLPeerUnverifiedException when it sent none. */
    private X509Certificate[] peerChain() throws SSLPeerUnverifiedException {
        X509Certificate[] p = peer;
        if (p != null) {
            return p;
        }
        if (peerDer == null || peerDer.length == 0) {
            throw new SSLPeerUnverifiedException("peer not authenticated");
        }
        try {
            CertificateFactory cf = CertificateFactory.getInstance("X.509");
            p = new X509Certificate[peerDer.length];
            for (int i = 0; i < p.length; i++) {
                p[i] = (X509Certificate) cf.generateCertificate(new ByteArrayInputStream(peerDer[i]));
            }
        } catch (CertificateException e) {
            SSLPeerUnverifiedException x = new SSLPeerUnverifiedException("peer certificate unreadable");
            x.initCause(e);
            throw x;
        }
        peer = p;
        return p;
    }

    @Override
    public Certificate[] getLocalCertificates() {
        return local == null ? null : local.clone();
    }

    @Override
    public Principal getPeerPrincipal() throws SSLPeerUnverifiedException {
        return peerChain()[0].getSubjectX500Principal();
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
