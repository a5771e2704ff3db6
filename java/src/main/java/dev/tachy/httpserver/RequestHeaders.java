package dev.tachy.httpserver;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The request headers: a real {@link com.sun.net.httpserver.Headers}, read-only once the
 * request is parsed, as the JDK's (its request headers are an unmodifiable Headers subclass;
 * every mutator throws UnsupportedOperationException and the views are read-only).
 */
final class RequestHeaders extends HookedHeaders {
    private boolean locked;

    /** Fills the headers; only before lock(). */
    void addParsed(String name, String value) {
        super.add(name, value);
    }

    void lock() {
        locked = true;
    }

    @Override
    void beforeRead() {
    }

    @Override
    void beforeWrite() {
        if (locked) {
            throw new UnsupportedOperationException("unsupported operation");
        }
    }

    @Override
    public List<String> get(Object key) {
        List<String> v = super.get(key);
        return v == null || !locked ? v : Collections.unmodifiableList(v);
    }

    @Override
    public Set<String> keySet() {
        return locked ? Collections.unmodifiableSet(super.keySet()) : super.keySet();
    }

    @Override
    public Collection<List<String>> values() {
        return locked ? Collections.unmodifiableCollection(super.values()) : super.values();
    }

    @Override
    public Set<Map.Entry<String, List<String>>> entrySet() {
        return locked ? Collections.unmodifiableMap(asMap()).entrySet() : super.entrySet();
    }

    private Map<String, List<String>> asMap() {
        LinkedHashMap<String, List<String>> m = new LinkedHashMap<>();
        for (Map.Entry<String, List<String>> e : super.entrySet()) {
            m.put(e.getKey(), Collections.unmodifiableList(e.getValue()));
        }
        return m;
    }
}
