package dev.tachy.httpserver;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.util.function.IntSupplier;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The connection thread's side of an exchange handed to an executor (setExecutor).
 *
 * <p>The connection thread (a native pool thread attached to the JVM) holds the exchange
 * (tachy_exchange_hold: no call on it makes a socket call that can block), submits the
 * handler to the executor and waits in {@link #serve}. The handler's thread calls the
 * natives itself as long as they need no socket call that can wait: response bytes go into
 * the connection's write buffer, body bytes already buffered are read from it. A call that
 * would wait returns TACHY_EWOULDBLOCK; a platform thread then repeats it itself with the
 * hold off, a virtual thread posts it here ({@link #call}) and parks (LockSupport), and the
 * connection thread makes it - it may block: it is not a carrier - and unparks it. A virtual
 * thread therefore never blocks its carrier in native code.
 *
 * <p>The connection thread goes back to the connection when the handler returns (with the
 * exchange closed, or left open for another thread: the C deferred close).
 */
final class Relay {
    /** Thread.isVirtual (Java 21+), or null. */
    private static final MethodHandle IS_VIRTUAL = isVirtualHandle();

    private static MethodHandle isVirtualHandle() {
        try {
            return MethodHandles.publicLookup().findVirtual(Thread.class, "isVirtual",
                    MethodType.methodType(boolean.class));
        } catch (ReflectiveOperationException e) {
            return null; // Java 17..20: no virtual threads
        }
    }

    /** Whether the calling thread is a virtual thread (false before Java 21). */
    static boolean onVirtualThread() {
        if (IS_VIRTUAL == null) {
            return false;
        }
        try {
            return (boolean) IS_VIRTUAL.invokeExact(Thread.currentThread());
        } catch (Throwable t) {
            return false;
        }
    }

    /** A call posted by a virtual thread, made by the connection thread. */
    private static final class Op {
        final IntSupplier call;
        final Thread caller = Thread.currentThread();
        volatile boolean done;
        int result;           // written before done
        RuntimeException failure;

        Op(IntSupplier call) {
            this.call = call;
        }

        void run() {
            try {
                result = call.getAsInt();
            } catch (RuntimeException e) {
                failure = e;
            } finally {
                done = true;
                LockSupport.unpark(caller);
            }
        }
    }

    private static final VarHandle OP;

    static {
        try {
            OP = MethodHandles.lookup().findVarHandle(Relay.class, "op", Op.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The connection thread: it waits in serve. */
    final Thread conn = Thread.currentThread();
    @SuppressWarnings("unused") // through OP
    private volatile Op op;
    private volatile boolean exited;
    private volatile boolean released;
    private volatile boolean done;
    private int result; // written before done

    /** Callers are served one at a time (the exchange is one thread's at a time anyway). A
     * lock, not a monitor: a virtual thread parked holding a monitor pins its carrier on
     * Java 21..23. */
    private final ReentrantLock callers = new ReentrantLock();

    /** The handler returned with r (the C handler's value). The handler's thread. */
    void handlerDone(int r) {
        result = r;
        done = true;
        LockSupport.unpark(conn);
    }

    /**
     * The exchange is closed: the connection thread needs to serve no more calls and may go
     * when it next wakes. It is not woken for this: the handler's return wakes it (one
     * wake-up per exchange; waking it at the close as well cost 0.4 context switches and
     * 0.5 system calls per pipelined request on one core, the handler's thread still being
     * busy). So, as before the relay, the connection's next request waits for the handler
     * to return.
     */
    void release() {
        released = true;
    }

    /** Whether the connection thread still serves calls for this exchange. */
    boolean serving() {
        return !released && !exited;
    }

    /**
     * The connection thread: makes the posted calls until the handler has returned or the
     * exchange was released; returns the C handler's value (0 after a release: the exchange
     * was closed, as the handler's own result would say).
     */
    int serve() {
        boolean interrupted = false;
        int r;
        for (;;) {
            Op o = (Op) OP.getAndSet(this, null);
            if (o != null) {
                o.run();
                continue;
            }
            if (done) {
                r = result;
                break;
            }
            if (released) {
                r = 0;
                break;
            }
            // Interrupts do not end the wait (the connection must see the exchange end); a
            // spurious or interrupt wake-up looks again.
            LockSupport.park(this);
            if (Thread.interrupted()) {
                interrupted = true;
            }
        }
        exited = true;
        // A call posted while we decided to leave: made here, still before the C handler
        // returns (the exchange's memory is valid until then).
        Op late = (Op) OP.getAndSet(this, null);
        if (late != null) {
            late.run();
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return r;
    }

    /**
     * Has the connection thread make call and waits for it (parking: a virtual thread
     * unmounts). When the connection thread has already gone, the caller makes it itself.
     */
    int call(IntSupplier call) {
        callers.lock();
        try {
            Op o = new Op(call);
            OP.setVolatile(this, o);
            LockSupport.unpark(conn);
            if (exited && OP.compareAndSet(this, o, null)) {
                o.run(); // nobody will take it
            }
            boolean interrupted = false;
            while (!o.done) {
                LockSupport.park(this);
                if (Thread.interrupted()) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            if (o.failure != null) {
                throw o.failure;
            }
            return o.result;
        } finally {
            callers.unlock();
        }
    }
}
