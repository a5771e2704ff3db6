package dev.tachy.httpserver;

import com.sun.net.httpserver.Headers;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * The response headers: a real {@link Headers} that takes the headers the JDK sets while
 * sending the response (Date, and Content-length or Transfer-encoding) lazily.
 *
 * <p>The JDK's sendResponseHeaders puts them into the handler's Headers object; most handlers
 * never look at the response headers again, so the values are recorded by {@link #sent} and
 * put into the map (with the ordinary {@code set}, so with the JDK's normalisation and
 * ordering) by the first call of any method, before it does anything else: both hooks of
 * {@link HookedHeaders} settle them. What a caller observes is the state the JDK's object
 * would have.
 *
 * <p>Not synchronised, as Headers: one thread at a time (handing the exchange to another thread
 * gives the happens-before that covers the pending values too). {@link #date} is for any
 * thread.
 */
final class ResponseHeaders extends HookedHeaders {

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

    private static final DateTimeFormatter DATE_FORMAT =
            DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss zzz", Locale.US)
                    .withZone(ZoneId.of("GMT"));
    /** The last Date formatted, with its second (one object: the pair is always consistent). */
    private static volatile CachedDate cachedDate = new CachedDate(Long.MIN_VALUE, null);

    private static final class CachedDate {
        final long second;
        final String text;

        CachedDate(long second, String text) {
            this.second = second;
            this.text = text;
        }
    }

    /** The Date header value for the epoch millisecond at (cached per second). */
    static String date(long at) {
        long second = Math.floorDiv(at, 1000L);
        CachedDate c = cachedDate;
        if (c.second != second) {
            c = new CachedDate(second, DATE_FORMAT.format(Instant.ofEpochSecond(second)));
            cachedDate = c;
        }
        return c.text;
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
            pending = false; // first: super.set calls the hooks, which come back here
            super.set("Date", date(sentAt));
            if (contentLengthValue >= 0) {
                super.set("Content-length", Long.toString(contentLengthValue));
            }
            if (chunked) {
                super.set("Transfer-encoding", "chunked");
            }
        }
    }

    @Override
    void beforeRead() {
        settle();
    }

    @Override
    void beforeWrite() {
        settle();
    }

    @Override
    public String toString() {
        settle();
        // JDK 17: Object.toString of the JDK's plain Headers object.
        return OWN_TO_STRING ? super.toString()
                : "com.sun.net.httpserver.Headers@" + Integer.toHexString(hashCode());
    }
}
