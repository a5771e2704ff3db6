package dev.tachy.httpserver;

import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An {@link HttpServer} whose sockets, threads and HTTP/1.1 protocol are tachy's C core
 * (native/src); this class holds the Java-visible state (contexts, executor) and runs handlers.
 *
 * <p>Threads: every connection is served by one native thread, attached to the JVM once as a
 * daemon thread named after it. Without an executor the handler runs on that thread. With one
 * (setExecutor), the connection thread holds the exchange's socket, lends it the connection,
 * submits it and goes back to serving other connections: the exchange's close continues the
 * connection on the closing thread (the next pipelined request is submitted from there), and
 * calls that would block a virtual thread in native code are made on a platform thread
 * ({@link Offload}); a rejected submission closes that connection and the server keeps
 * serving.
 */
public final class TachyHttpServer extends HttpServer {

    /** The JDK's logger name: handler failures and the core's diagnostics go here. */
    static final Logger LOGGER = System.getLogger("com.sun.net.httpserver");

    /** What getExecutor returns after start when none was set (the JDK's DefaultExecutor). */
    private static final Executor DIRECT = new Executor() {
        @Override
        public void execute(Runnable task) {
            task.run();
        }

        @Override
        public String toString() {
            return "tachy direct executor (the connection's own thread)";
        }
    };

    private final HttpServer owner;
    private final Object lock = new Object();
    /** tachy_server*, 0 once destroyed. Guarded by lock. */
    private long handle;
    private boolean bound;
    private boolean started;
    private boolean stopped;
    private InetSocketAddress address;
    private volatile Executor executor;
    private final Map<String, List<TachyHttpContext>> contexts = new HashMap<>();
    /** Non-daemon thread alive from start() to stop(): keeps the JVM running, as the JDK's
     * "HTTP-Dispatcher" thread does (connection threads are daemon threads). */
    private Thread keepAlive;
    private final CountDownLatch stopLatch = new CountDownLatch(1);
    /** Exchanges a handler returned from without closing them (closed later, elsewhere);
     * what stop() counts as exchanges in progress. */
    final Set<NativeExchange> pending = ConcurrentHashMap.newKeySet();
    /** Exchanges created and not yet closed (what the JDK's stop counts as in progress). */
    final AtomicInteger openExchanges = new AtomicInteger();
    /**
     * Filter chains running on connection threads (no executor), counted until the last
     * filter returns: stop waits for them, as the JDK's stop joins the dispatcher thread
     * they run on (issue 15 item 10). A LongAdder: one uncontended cell per thread.
     */
    private final java.util.concurrent.atomic.LongAdder inHandlers = new java.util.concurrent.atomic.LongAdder();
    /**
     * Whether exchanges start in the order they were submitted (see {@link #oldest}): set for
     * a ForkJoinPool executor (setExecutor) and once a lent exchange closes on a virtual
     * thread (their scheduler is a ForkJoinPool). Set once, read without ordering: a task
     * submitted before it carries its exchange itself.
     */
    volatile boolean inOrder;
    /** The exchanges submitted in order that no task has taken yet, oldest first. */
    private final ConcurrentLinkedQueue<Task> submitted = new ConcurrentLinkedQueue<>();
    /**
     * What is submitted to the executor in order: a task that runs the oldest submitted
     * exchange, not necessarily the one submitted with it. A ForkJoinPool worker takes
     * tasks from one queue for as long as it has some, and each thread that submits has a
     * queue of its own (a pool thread's submission queue, a carrier's local queue), so with
     * several busy submitters some exchanges waited 0.1-0.9 s at 1,024 connections while
     * others went round many times. One task per exchange is kept (each takes one), so the
     * executor's count of tasks, its rejections and its threads are as before.
     */
    private final Runnable oldest = () -> {
        Task t = submitted.poll();
        if (t != null) {
            t.run();
        }
    };

    TachyHttpServer(InetSocketAddress addr, int backlog) throws IOException {
        this(null, addr, backlog, ServerConfig.options());
    }

    /** owner: the server handed to users (an HttpsServer wrapping this one), or null = this;
     * options: ServerConfig.options' array for it. */
    TachyHttpServer(HttpServer owner, InetSocketAddress addr, int backlog, long[] options) throws IOException {
        this.owner = owner == null ? this : owner;
        String trusted = ServerConfig.proxyTrusted();
        long h = Native.serverCreateTrusting(options, trusted, ServerConfig.accessLogPath());
        if (h == Native.EINVAL && trusted != null) {
            throw new IllegalArgumentException("tachy: -Dtachy.proxyTrusted=" + trusted
                    + ": not a list of addresses or networks (e.g. 127.0.0.1, 10.0.0.0/8, fd00::/8;"
                    + " at most 64)");
        }
        if (h < 0) {
            throw Native.ioException((int) h);
        }
        handle = h;
        if (addr != null) {
            try {
                bind(addr, backlog);
            } catch (IOException | RuntimeException e) {
                destroy();
                throw e;
            }
        }
    }

    HttpServer owner() {
        return owner;
    }

    private long handle() {
        if (handle == 0) {
            throw new IllegalStateException("server has been stopped");
        }
        return handle;
    }

    @Override
    public void bind(InetSocketAddress addr, int backlog) throws IOException {
        synchronized (lock) {
            if (bound) {
                throw new BindException("HttpServer already bound");
            }
            if (addr == null) {
                throw new NullPointerException("null address");
            }
            if (addr.isUnresolved()) {
                throw new SocketException("Unresolved address");
            }
            String host = addr.getAddress().isAnyLocalAddress() ? null : addr.getAddress().getHostAddress();
            int rc = Native.serverBind(handle(), host, addr.getPort(), backlog);
            if (rc < 0) {
                if (rc == Native.EADDRINUSE) {
                    throw new BindException("Address already in use");
                }
                if (rc == Native.EADDRNOTAVAIL) {
                    throw new BindException("Cannot assign requested address");
                }
                throw Native.ioException(rc);
            }
            bound = true;
            String h = Native.serverHost(handle);
            int port = Native.serverPort(handle);
            try {
                address = new InetSocketAddress(InetAddress.getByName(h), port);
            } catch (IOException e) {
                address = new InetSocketAddress(addr.getAddress(), port);
            }
        }
    }

    /** TachyHttpsServer: tachy_server_set_tls (TlsNative) on this server before start. */
    int setTls(long tlsConfig) {
        synchronized (lock) {
            return TlsNative.serverSetTls(handle(), tlsConfig);
        }
    }

    /** The C core's Prometheus text for this server (TachyMetrics), or null once stopped. */
    byte[] metrics() {
        synchronized (lock) {
            // Under the lock: destroy() cannot free the native server while it renders.
            return handle == 0 ? null : Native.metricsRender(handle);
        }
    }

    /** Whether a context has this exact path (TachyMetrics.mountConfigured). */
    boolean hasContext(String path) {
        synchronized (lock) {
            return contexts.containsKey(path);
        }
    }

    @Override
    public void start() {
        synchronized (lock) {
            if (!bound || started || stopped) {
                throw new IllegalStateException("server in wrong state");
            }
            if (owner == this) {
                // -Dtachy.metrics=PATH (TachyHttpsServer does it in its own start)
                TachyMetrics.mountConfigured(this, this);
            }
            if (executor != null) {
                // Offload's classes loaded here, not first by many virtual threads at once
                // (a virtual thread waiting for another's class load pins its carrier).
                NativeExchange.warmOffload();
            }
            // No executor: handlers run on the connection threads, which are then non-daemon
            // threads like the JDK's dispatcher (issue 15 item 4).
            int rc = Native.serverStart(handle(), executor != null);
            if (rc < 0) {
                throw new IllegalStateException("server in wrong state: " + Native.strerror(rc));
            }
            started = true;
            keepAlive = new Thread(null, this::awaitStop, "tachy-server-" + address.getPort(), 64 * 1024, false);
            keepAlive.setDaemon(false);
            keepAlive.start();
        }
    }

    private void awaitStop() {
        boolean interrupted = false;
        while (true) {
            try {
                stopLatch.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void setExecutor(Executor executor) {
        synchronized (lock) {
            if (started) {
                throw new IllegalStateException("server already started");
            }
            this.executor = executor;
            inOrder = executor instanceof ForkJoinPool;
        }
    }

    @Override
    public Executor getExecutor() {
        Executor e = executor;
        if (e == null) {
            synchronized (lock) {
                if (started) {
                    return DIRECT;
                }
            }
        }
        return e;
    }

    /**
     * The server whose handler the current platform thread is running (stop() from a
     * handler on a connection thread must not wait for that thread). Not set on virtual
     * threads: they are never connection threads, and a first thread-local on a new virtual
     * thread costs a map per exchange.
     */
    private static final ThreadLocal<TachyHttpServer> IN_HANDLER = new ThreadLocal<>();

    /**
     * Stops accepting, lets running exchanges finish for at most delay seconds, closes every
     * connection, then frees the native server. A second call waits for the first.
     */
    @Override
    public void stop(int delay) {
        if (delay < 0) {
            throw new IllegalArgumentException("negative delay parameter");
        }
        if (Offload.onVirtualThread()) {
            // The native stop waits (up to the delay for the exchanges in progress, this
            // thread's own if it is a handler's): on a platform thread, this one parked
            // rather than pinning its carrier. A virtual thread is no connection thread, so
            // the stop need not wait for it.
            Offload.call(() -> {
                stopNow(delay, 0);
                return 0;
            });
            return;
        }
        if (IN_HANDLER.get() == this) {
            // Called by one of this server's handlers: the native stop waits for every
            // connection thread, this one included, so it runs on its own thread. As with the
            // JDK (whose stop waits the delay for the caller's own exchange), the caller
            // returns after at most delay seconds.
            // The calling handler is itself a running chain (without an executor): the stop
            // thread does not wait for it (the JDK's stop does not join its own thread).
            int self = executor == null ? 1 : 0;
            Thread t = new Thread(() -> stopNow(delay, self), "tachy-stop");
            t.setDaemon(false);
            t.start();
            try {
                t.join(TimeUnit.SECONDS.toMillis(delay));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return;
        }
        stopNow(delay, 0);
    }

    /** callerChains: chains of the calling handler, not waited for (0 or 1). */
    private void stopNow(int delay, int callerChains) {
        long h;
        boolean wasStarted;
        boolean first;
        synchronized (lock) {
            first = !stopped;
            stopped = true;
            wasStarted = started;
            h = handle;
        }
        if (!first || h == 0) {
            if (wasStarted) {
                awaitStop(); // another thread is stopping it: return when it is done
            }
            return;
        }
        long t0 = System.nanoTime();
        boolean idle = openExchanges.get() == 0;
        // Outside the lock: this waits for the connection threads, which may need it.
        Native.serverStop(h, delay);
        if (wasStarted && idle && IDLE_STOP_WAITS) {
            sleepUntil(t0 + TimeUnit.SECONDS.toNanos(delay));
        }
        // Without an executor the JDK's stop joins its dispatcher thread, so it returns after
        // the exchange in progress has run its last filter (SimpleFileServer's output filter
        // logs there). The native stop does not wait for threads inside handlers; wait here
        // for the chains still running, bounded (a handler that ignores its closed socket
        // must not hang stop for ever).
        awaitHandlers(callerChains, TimeUnit.SECONDS.toNanos(HANDLER_WAIT_SECONDS));
        // Exchanges a handler left open (pending) stay valid: their connection threads still
        // wait for the close, holding the native server, and fail fast on the shut socket.
        destroy();
        stopLatch.countDown();
    }

    /** How long stop waits for filter chains still running after the native stop. */
    private static final long HANDLER_WAIT_SECONDS = 30;

    private void awaitHandlers(int allowed, long maxNanos) {
        long deadline = System.nanoTime() + maxNanos;
        boolean interrupted = false;
        while (inHandlers.sum() > allowed) {
            if (System.nanoTime() - deadline >= 0) {
                LOGGER.log(Level.WARNING, "tachy: stop: a handler still runs after "
                        + HANDLER_WAIT_SECONDS + " s; not waiting for it");
                break;
            }
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                interrupted = true;
                break;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * JDK 17..20 stop(delay) ends its wait early only when its dispatcher, handling the end of
     * an exchange, finds none left: with no exchange open it always waits the whole delay.
     * JDK 21+ returns at once when idle.
     */
    private static final boolean IDLE_STOP_WAITS = Runtime.version().feature() < 21;

    private static void sleepUntil(long deadline) {
        boolean interrupted = false;
        long left;
        while ((left = deadline - System.nanoTime()) > 0) {
            try {
                TimeUnit.NANOSECONDS.sleep(left);
            } catch (InterruptedException e) {
                interrupted = true;
                break; // as the JDK: an interrupt ends the wait
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void destroy() {
        List<TachyHttpContext> all;
        long h;
        synchronized (lock) {
            h = handle;
            handle = 0;
            all = new ArrayList<>();
            contexts.values().forEach(all::addAll);
            for (TachyHttpContext c : all) {
                c.nativeHandle = 0;
            }
        }
        if (h != 0) {
            Native.serverDestroy(h);
        }
        for (TachyHttpContext c : all) {
            c.released();
        }
    }

    @Override
    public HttpContext createContext(String path, HttpHandler handler) {
        if (handler == null || path == null) {
            throw new NullPointerException("null handler, or path parameter");
        }
        return addContext(path, handler);
    }

    @Override
    public HttpContext createContext(String path) {
        if (path == null) {
            throw new NullPointerException("null path parameter");
        }
        return addContext(path, null);
    }

    /**
     * JDK 17 accepts a second context with an existing path (the first one keeps serving
     * until removed); JDK 18+ refuses it (JDK-8269692). The C core has one context per path,
     * so a duplicate waits in Java behind the one that owns the C context.
     */
    private static final boolean DUPLICATE_PATHS = Runtime.version().feature() < 18;

    private TachyHttpContext addContext(String path, HttpHandler handler) {
        synchronized (lock) {
            List<TachyHttpContext> same = contexts.get(path);
            if (same != null && !DUPLICATE_PATHS) {
                throw new IllegalArgumentException("cannot add context to list");
            }
            TachyHttpContext ctx = new TachyHttpContext(this, path, handler);
            if (same == null) {
                try {
                    attachNative(ctx);
                } catch (RuntimeException e) {
                    ctx.released();
                    throw e;
                }
                same = new ArrayList<>(1);
                contexts.put(path, same);
            }
            same.add(ctx);
            return ctx;
        }
    }

    /** Creates the C context of ctx (lock held). */
    private void attachNative(TachyHttpContext ctx) {
        if (handle == 0) {
            return;
        }
        // No handler yet: the C context answers 500 "No handler for context" itself.
        long c = Native.contextCreate(handle, ctx.getPath(), ctx.getHandler() != null ? ctx.id() : -1);
        if (c < 0) {
            if (c == Native.EEXISTS) {
                throw new IllegalArgumentException("cannot add context to list");
            }
            if (c == Native.EINVAL) {
                throw new IllegalArgumentException("Illegal value for path or protocol");
            }
            throw new UncheckedIOException(Native.ioException((int) c));
        }
        ctx.nativeHandle = c;
    }

    /** TachyHttpContext.setHandler on a context created without one. */
    void handlerSet(TachyHttpContext ctx) {
        synchronized (lock) {
            if (ctx.nativeHandle != 0) {
                Native.contextSetHandler(ctx.nativeHandle, ctx.id());
            }
        }
    }

    @Override
    public void removeContext(String path) {
        if (path == null) {
            throw new NullPointerException("null path parameter");
        }
        TachyHttpContext ctx;
        synchronized (lock) {
            List<TachyHttpContext> same = contexts.get(path);
            if (same == null) {
                throw new IllegalArgumentException("cannot remove element from list");
            }
            ctx = same.get(0);
        }
        remove(ctx);
    }

    @Override
    public void removeContext(HttpContext context) {
        if (!(context instanceof TachyHttpContext)
                || ((TachyHttpContext) context).tachyServer() != this) {
            throw new IllegalArgumentException("wrong HttpContext type");
        }
        remove((TachyHttpContext) context);
    }

    private void remove(TachyHttpContext ctx) {
        synchronized (lock) {
            List<TachyHttpContext> same = contexts.get(ctx.getPath());
            if (same == null || !same.remove(ctx)) {
                throw new IllegalArgumentException("no such context in list");
            }
            if (ctx.nativeHandle != 0 && handle != 0) {
                Native.contextRemove(handle, ctx.nativeHandle);
            }
            ctx.nativeHandle = 0;
            if (same.isEmpty()) {
                contexts.remove(ctx.getPath());
            } else if (same.get(0).nativeHandle == 0) {
                attachNative(same.get(0)); // a JDK 17 duplicate takes over the path
            }
        }
        // A request already dispatched to it still finds it until this point; later ones 404.
        ctx.released();
    }

    @Override
    public InetSocketAddress getAddress() {
        synchronized (lock) {
            return address;
        }
    }

    /** Open connections (tests). */
    int connectionCount() {
        synchronized (lock) {
            return handle == 0 ? 0 : Native.serverConnectionCount(handle);
        }
    }

    @Override
    public String toString() {
        return "TachyHttpServer[" + getAddress() + "]";
    }

    /* ---- dispatch: one upcall per request ------------------------------------------------- */

    private static final ClassLoader APP_LOADER = ClassLoader.getSystemClassLoader();

    /** Native.dispatch: runs on the connection's (attached) native thread, or on an
     * executor's thread that closed the exchange before this one (lent connections). */
    static int dispatch(int contextId, long ex, byte[] head, int len) {
        TachyHttpContext ctx = TachyHttpContext.lookup(contextId);
        if (ctx == null) {
            return -1; // removed while this request was being routed to it
        }
        TachyHttpExchange x;
        try {
            x = new TachyHttpExchange(ctx, ex, head, len);
        } catch (RuntimeException e) {
            LOGGER.log(Level.TRACE, "tachy: malformed request", e);
            return -1;
        }
        if (x.rejected() && ctx.tachyServer().executor == null) {
            return x.rejectBadRequest(); // with an executor, its task answers (run)
        }
        TachyHttpServer srv = ctx.tachyServer();
        Thread self = Thread.currentThread();
        if (self.getContextClassLoader() == null) {
            // A thread attached from native code starts without one; the JDK's handler
            // threads have the application class loader (ServiceLoader, JNDI, ... rely on it).
            self.setContextClassLoader(APP_LOADER);
        }
        srv.openExchanges.incrementAndGet();
        x.counted = true;
        return srv.run(ctx, x);
    }

    private int run(TachyHttpContext ctx, TachyHttpExchange x) {
        Executor e = executor;
        if (e == null) {
            inHandlers.increment();
            try {
                return invoke(ctx, x);
            } finally {
                inHandlers.decrement();
            }
        }
        if (!x.lend()) {
            return -1; // closed under us (cannot happen before the handler ran)
        }
        Task t = new Task(ctx, x);
        boolean ordered = inOrder;
        if (ordered) {
            submitted.offer(t);
        }
        try {
            e.execute(ordered ? oldest : t);
        } catch (RuntimeException r) { // RejectedExecutionException, or a broken executor
            // The JDK closes the connection when its executor refuses the exchange. In order,
            // this exchange may have been taken by another submitter's task already: then the
            // oldest left over has no task, and is the one refused.
            Task refused = !ordered || submitted.remove(t) ? t : submitted.poll();
            LOGGER.log(Level.TRACE, "ServerImpl.Dispatcher: executor rejected the exchange", r);
            if (refused != null) {
                refused.x.refused();
            }
        }
        // The connection thread goes back to the pool: the exchange has the connection until
        // its close, which continues it on the closing thread (tachy_exchange_defer_flags).
        return 0;
    }

    /** Runs the chain on a platform thread, marked as this server's handler (IN_HANDLER). */
    int invoke(TachyHttpContext ctx, TachyHttpExchange x) {
        TachyHttpServer outer = IN_HANDLER.get();
        IN_HANDLER.set(this);
        try {
            return chain(ctx, x);
        } finally {
            // set(null) rather than remove(): the connection thread keeps its entry (cheaper
            // than removing and re-inserting it for every request), and null holds nothing.
            IN_HANDLER.set(outer);
        }
    }

    /** Runs the chain; maps the outcome to the C handler's return value. */
    private static int chain(TachyHttpContext ctx, TachyHttpExchange x) {
        try {
            ctx.invoke(x);
        } catch (Exception t) {
            // The JDK logs at TRACE ("ServerImpl.Exchange") and closes the connection unless
            // the response was already complete.
            LOGGER.log(Level.TRACE, "ServerImpl.Exchange", t);
            return x.afterFailure();
        } catch (Throwable t) {
            LOGGER.log(Level.ERROR, "ServerImpl.Exchange", t);
            return x.afterFailure();
        }
        x.handlerReturned();
        return 0;
    }

    /**
     * The exchange handed to an executor: the handler runs on the executor's thread; no
     * thread waits for it. A handler that throws ends the exchange as the JDK's does
     * (invoke: closed when incomplete).
     */
    private final class Task implements Runnable {
        private final TachyHttpContext ctx;
        final TachyHttpExchange x;

        Task(TachyHttpContext ctx, TachyHttpExchange x) {
            this.ctx = ctx;
            this.x = x;
        }

        @Override
        public void run() {
            if (x.rejected()) {
                x.rejectBadRequest(); // not on the dispatching thread: it must not block
            } else if (Offload.onVirtualThread()) {
                chain(ctx, x); // no IN_HANDLER mark (see there)
            } else {
                invoke(ctx, x); // a platform thread, perhaps a connection thread (Runnable::run)
            }
        }
    }
}
