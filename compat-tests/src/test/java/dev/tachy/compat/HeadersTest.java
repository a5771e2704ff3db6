package dev.tachy.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.sun.net.httpserver.Headers;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The Map API of the Headers objects that the provider hands to a handler (a provider may
 * return its own Headers subclass): every method is exercised inside a handler on the
 * response headers, and the wire result is checked.
 */
class HeadersTest {

    @Test
    void responseHeadersMapApi() throws Exception {
        BlockingQueue<String> results = new ArrayBlockingQueue<>(64);
        try (TestServer s = TestServer.start(ex -> {
                    Headers h = ex.getResponseHeaders();
                    List<String> r = new ArrayList<>();
                    r.add("empty=" + h.isEmpty() + "," + h.size());
                    h.add("x-a", "1");
                    h.add("X-A", "2");
                    h.set("x-b", "b");
                    h.put("x-c", new ArrayList<>(List.of("c1", "c2")));
                    r.add("size=" + h.size());
                    r.add("get=" + h.get("X-a") + "," + h.getFirst("x-A") + "," + h.getFirst("nope"));
                    r.add("contains=" + h.containsKey("x-b") + "," + h.containsKey("X-B") + "," + h.containsKey(42)
                            + "," + h.containsValue(List.of("b")));
                    r.add("remove=" + h.remove("x-B") + "," + h.containsKey("X-b"));
                    Map<String, List<String>> more = new TreeMap<>();
                    // already-normalised keys: JDK 17's putAll does not normalise, later JDKs do
                    more.put("X-d", List.of("d"));
                    more.put("X-e", List.of("e"));
                    h.putAll(more);
                    r.add("keys=" + new TreeMap<>(h).keySet());
                    r.add("values=" + h.values().stream().mapToInt(List::size).sum());
                    r.add("entries=" + h.entrySet().size());
                    h.replaceAll((k, v) -> k.equals("X-e") ? List.of("E") : v);
                    r.add("replaced=" + h.getFirst("x-e"));
                    Headers copy = new Headers();
                    copy.putAll(h);
                    r.add("equals=" + copy.equals(h) + "," + (copy.hashCode() == h.hashCode()));
                    Headers other = new Headers();
                    other.putAll(h);
                    other.clear();
                    r.add("cleared=" + other.isEmpty());
                    // JDK 18+ lists the entries; JDK 17 has Object.toString
                    r.add("toString=" + (Compat.javaFeature() >= 18 ? h.toString().contains("X-a") : h.toString() != null));
                    results.addAll(r);
                    TestServer.respond(ex, 200, "ok");
                });
                RawClient c = s.raw()) {
            RawClient.Response resp = c.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n").read();
            assertEquals("empty=true,0", results.poll(10, TimeUnit.SECONDS));
            assertEquals("size=3", results.poll(1, TimeUnit.SECONDS));
            assertEquals("get=[1, 2],1,null", results.poll(1, TimeUnit.SECONDS));
            assertEquals("contains=true,true,false,true", results.poll(1, TimeUnit.SECONDS));
            assertEquals("remove=[b],false", results.poll(1, TimeUnit.SECONDS));
            assertEquals("keys=[X-a, X-c, X-d, X-e]", results.poll(1, TimeUnit.SECONDS));
            assertEquals("values=6", results.poll(1, TimeUnit.SECONDS));
            assertEquals("entries=4", results.poll(1, TimeUnit.SECONDS));
            assertEquals("replaced=E", results.poll(1, TimeUnit.SECONDS));
            assertEquals("equals=true,true", results.poll(1, TimeUnit.SECONDS));
            assertEquals("cleared=true", results.poll(1, TimeUnit.SECONDS));
            assertEquals("toString=true", results.poll(1, TimeUnit.SECONDS));
            assertEquals(List.of("1", "2"), resp.all("X-a"));
            assertEquals(List.of("c1", "c2"), resp.all("X-c"));
            assertEquals("E", resp.header("X-e"));
            assertEquals(List.of(), resp.all("X-b"));
        }
    }

    @Test
    void requestHeadersReadApi() throws Exception {
        BlockingQueue<String> results = new ArrayBlockingQueue<>(16);
        try (TestServer s = TestServer.start(ex -> {
                    Headers h = ex.getRequestHeaders();
                    results.add(h.size() + " " + new TreeMap<>(h).keySet());
                    results.add(String.valueOf(h.entrySet().size()));
                    results.add(String.valueOf(h.containsValue(List.of("v1", "v2"))));
                    TestServer.respond(ex, 200, "ok");
                });
                RawClient c = s.raw()) {
            c.send("GET / HTTP/1.1\r\nhost: a\r\nX-Two: v1\r\nx-two: v2\r\n\r\n").read();
            assertEquals("2 [Host, X-two]", results.poll(10, TimeUnit.SECONDS));
            assertEquals("2", results.poll(1, TimeUnit.SECONDS));
            assertEquals("true", results.poll(1, TimeUnit.SECONDS));
        }
    }
}
