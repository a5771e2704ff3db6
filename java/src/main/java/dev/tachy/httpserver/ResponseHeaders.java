package dev.tachy.httpserver;

import com.sun.net.httpserver.Headers;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;

/**
 * The response headers: a real {@link Headers} that takes the headers the JDK sets while
 * sending the response (Date, and Content-length or Transfer-encoding) lazily.
 *
 * <p>The JDK's sendResponseHeaders puts them into the handler's Headers object; most handlers
 * never look at the response headers again, so the values are recorded by {@link #sent} and
 * put into the map (with the ordinary {@code set}, so with the JDK's normalisation and
 * ordering) by the first call of any method, before it does anything else. Every public
 * method of Headers and of Map that reads or writes the map is overridden to do that; the
 * Map default methods (getOrDefault, forEach, compute, ...) go through these. What a caller
 * observes is the state the JDK's object would have.
 *
 * <p>Not synchronised, as Headers: one thread at a time (handing the exchange to another thread
 * gives the happens-before that covers the pending values too).
 */
final class ResponseHeaders extends Headers {

    /** Headers.toString exists from JDK 18; before, Object's names the class. */
    private static final boolean OWN_TO_STRING = hasOwnToString();

    private static boolean hasOwnToString() {
        try {
            Headers.class.getDeclaredMethod("toString");
            return true;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }

    /** Whether Date and the framing header are still to be put in. */
    private boolean pending;
    /** Epoch millisecond at which the response headers were sent. */
    private long sentAt;
    /** The Content-length value the JDK sets, or -1 for none. */
    private long contentLengthValue = -1;
    private boolean chunked;

    /** Records what sendResponseHeaders sets (len >= 0: Content-length, chunked: TE). */
    void sent(long now, long len, boolean chunkedBody) {
        pending = true;
        sentAt = now;
        contentLengthValue = len;
        chunked = chunkedBody;
    }

    /** Puts the pending headers in, in the JDK's order (Date, then the framing header). */
    private void settle() {
        if (pending) {
            pending = false; // first: super.set calls put, which comes back here
            super.set("Date", TachyHttpExchange.date(sentAt));
            if (contentLengthValue >= 0) {
                super.set("Content-length", Long.toString(contentLengthValue));
            }
            if (chunked) {
                super.set("Transfer-encoding", "chunked");
            }
        }
    }

    @Override
    public int size() {
        settle();
        return super.size();
    }

    @Override
    public boolean isEmpty() {
        settle();
        return super.isEmpty();
    }

    @Override
    public boolean containsKey(Object key) {
        settle();
        return super.containsKey(key);
    }

    @Override
    public boolean containsValue(Object value) {
        settle();
        return super.containsValue(value);
    }

    @Override
    public List<String> get(Object key) {
        settle();
        return super.get(key);
    }

    @Override
    public String getFirst(String key) {
        settle();
        return super.getFirst(key);
    }

    @Override
    public List<String> put(String key, List<String> value) {
        settle();
        return super.put(key, value);
    }

    @Override
    public void add(String key, String value) {
        settle();
        super.add(key, value);
    }

    @Override
    public void set(String key, String value) {
        settle();
        super.set(key, value);
    }

    @Override
    public List<String> remove(Object key) {
        settle();
        return super.remove(key);
    }

    @Override
    public void putAll(Map<? extends String, ? extends List<String>> t) {
        settle();
        super.putAll(t);
    }

    @Override
    public void clear() {
        settle();
        super.clear();
    }

    @Override
    public Set<String> keySet() {
        settle();
        return super.keySet();
    }

    @Override
    public Collection<List<String>> values() {
        settle();
        return super.values();
    }

    @Override
    public Set<Map.Entry<String, List<String>>> entrySet() {
        settle();
        return super.entrySet();
    }

    @Override
    public void replaceAll(BiFunction<? super String, ? super List<String>, ? extends List<String>> function) {
        settle();
        super.replaceAll(function);
    }

    @Override
    public boolean equals(Object o) {
        settle();
        if (o instanceof ResponseHeaders) {
            ((ResponseHeaders) o).settle();
        }
        return super.equals(o);
    }

    @Override
    public int hashCode() {
        settle();
        return super.hashCode();
    }

    @Override
    public String toString() {
        settle();
        // JDK 17: Object.toString of the JDK's plain Headers object.
        return OWN_TO_STRING ? super.toString()
                : "com.sun.net.httpserver.Headers@" + Integer.toHexString(hashCode());
    }
}
