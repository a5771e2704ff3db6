package dev.tachy.httpserver;

import com.sun.net.httpserver.Headers;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;

/**
 * A real {@link Headers} whose every public method of Headers and of Map that reads or writes
 * the map first calls a hook: {@link #beforeRead} or {@link #beforeWrite}. The Map default
 * methods (getOrDefault, forEach, putIfAbsent, compute, ...) go through these. The two kinds of
 * headers an exchange hands out are such objects: {@link RequestHeaders} refuses writes once
 * the request is parsed, {@link ResponseHeaders} puts in the headers sendResponseHeaders set
 * lazily, before any access.
 */
abstract class HookedHeaders extends Headers {

    /** Runs first in every method that only reads the map or hands out a view of it. */
    abstract void beforeRead();

    /** Runs first in every method that writes the map. */
    abstract void beforeWrite();

    @Override
    public int size() {
        beforeRead();
        return super.size();
    }

    @Override
    public boolean isEmpty() {
        beforeRead();
        return super.isEmpty();
    }

    @Override
    public boolean containsKey(Object key) {
        beforeRead();
        return super.containsKey(key);
    }

    @Override
    public boolean containsValue(Object value) {
        beforeRead();
        return super.containsValue(value);
    }

    @Override
    public List<String> get(Object key) {
        beforeRead();
        return super.get(key);
    }

    @Override
    public String getFirst(String key) {
        beforeRead();
        return super.getFirst(key);
    }

    @Override
    public Set<String> keySet() {
        beforeRead();
        return super.keySet();
    }

    @Override
    public Collection<List<String>> values() {
        beforeRead();
        return super.values();
    }

    @Override
    public Set<Map.Entry<String, List<String>>> entrySet() {
        beforeRead();
        return super.entrySet();
    }

    @Override
    public List<String> put(String key, List<String> value) {
        beforeWrite();
        return super.put(key, value);
    }

    @Override
    public void add(String key, String value) {
        beforeWrite();
        super.add(key, value);
    }

    @Override
    public void set(String key, String value) {
        beforeWrite();
        super.set(key, value);
    }

    @Override
    public List<String> remove(Object key) {
        beforeWrite();
        return super.remove(key);
    }

    @Override
    public void putAll(Map<? extends String, ? extends List<String>> t) {
        beforeWrite();
        super.putAll(t);
    }

    @Override
    public void clear() {
        beforeWrite();
        super.clear();
    }

    @Override
    public List<String> replace(String key, List<String> value) {
        beforeWrite();
        return super.replace(key, value);
    }

    @Override
    public boolean replace(String key, List<String> oldValue, List<String> newValue) {
        beforeWrite();
        return super.replace(key, oldValue, newValue);
    }

    @Override
    public void replaceAll(BiFunction<? super String, ? super List<String>, ? extends List<String>> function) {
        beforeWrite();
        super.replaceAll(function);
    }

    @Override
    public boolean equals(Object o) {
        beforeRead();
        if (o instanceof HookedHeaders) {
            ((HookedHeaders) o).beforeRead();
        }
        return super.equals(o);
    }

    @Override
    public int hashCode() {
        beforeRead();
        return super.hashCode();
    }
}
