package dev.tachy.httpserver;

import com.sun.net.httpserver.Headers;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;

/**
 * The request headers: a real {@link Headers}, read-only once the request is parsed, as the
 * JDK's (its request headers are an unmodifiable Headers subclass; every mutator throws
 * UnsupportedOperationException and the views are read-only).
 */
final class RequestHeaders extends Headers {
    private boolean locked;

    /** Fills the headers; only before lock(). */
    void addParsed(String name, String value) {
        super.add(name, value);
    }

    void lock() {
        locked = true;
    }

    private void check() {
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
    public List<String> put(String key, List<String> value) {
        check();
        return super.put(key, value);
    }

    @Override
    public void add(String key, String value) {
        check();
        super.add(key, value);
    }

    @Override
    public void set(String key, String value) {
        check();
        super.set(key, value);
    }

    @Override
    public List<String> remove(Object key) {
        check();
        return super.remove(key);
    }

    @Override
    public void putAll(Map<? extends String, ? extends List<String>> t) {
        check();
        super.putAll(t);
    }

    @Override
    public void clear() {
        check();
        super.clear();
    }

    @Override
    public List<String> replace(String key, List<String> value) {
        check();
        return super.replace(key, value);
    }

    @Override
    public boolean replace(String key, List<String> oldValue, List<String> newValue) {
        check();
        return super.replace(key, oldValue, newValue);
    }

    @Override
    public void replaceAll(BiFunction<? super String, ? super List<String>, ? extends List<String>> function) {
        check();
        super.replaceAll(function);
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
        return locked ? Collections.unmodifiableMap(this.asMap()).entrySet() : super.entrySet();
    }

    private Map<String, List<String>> asMap() {
        java.util.LinkedHashMap<String, List<String>> m = new java.util.LinkedHashMap<>();
        for (Map.Entry<String, List<String>> e : super.entrySet()) {
            m.put(e.getKey(), Collections.unmodifiableList(e.getValue()));
        }
        return m;
    }

    @Override
    public boolean equals(Object o) {
        return super.equals(o);
    }

    @Override
    public int hashCode() {
        return super.hashCode();
    }
}
