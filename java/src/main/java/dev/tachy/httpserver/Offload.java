package dev.tachy.httpserver;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntSupplier;

/**
 * Native calls that may block, made for a virtual thread by a platform thread.
 *
 * <p>An exchange handed to an executor is held (tachy_exchange_hold): no native call on it
 * makes a socket call that can wait, so the common path (response bytes into the
 * connection's buffer, body bytes already read) runs on the handler's thread, virtual or
 * not. A call that would wait returns TACHY_EWOULDBLOCK; a platform thread then makes it
 * itself with the hold off. A virtual thread must not: blocked in native code it would pin
 * its carrier. It hands the call to one of these threads and parks (LockSupport unmounts
 * it) until the call has been made.
 *
 * <p>The threads are daemons, started on demand, and end after 30 s without work: a server
 * whose clients are fast never starts one.
 */
final class Offload {
    private Offload() {
    }

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

    private static final AtomicInteger SEQ = new AtomicInteger();

    private static final ThreadPoolExecutor THREADS = new ThreadPoolExecutor(0,
            Integer.MAX_VALUE, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
                Thread t = new Thread(r, "tachy-blocking-" + SEQ.incrementAndGet());
                t.setDaemon(true);
                return t;
            });

    /** One call, made by a pool thread for the parked caller. */
    private static final class Op implements Runnable {
        final IntSupplier call;
        final Thread caller = Thread.currentThread();
        volatile boolean done;
        int result; // written before done
        RuntimeException failure;
        Error error;

        Op(IntSupplier call) {
            this.call = call;
        }

        @Override
        public void run() {
            try {
                result = call.getAsInt();
            } catch (RuntimeException e) {
                failure = e;
            } catch (Error e) {
                error = e;
            } finally {
                done = true;
                LockSupport.unpark(caller);
            }
        }
    }

    /** Loads Op (and initializes this class) on the calling thread: see
     * NativeExchange.warmOffload. Any thread. */
    static void warm() {
        new Op(null).getClass();
    }

    /**
     * Makes call on a platform thread and waits for it, parked. Interrupts do not end the
     * wait (the exchange's state must not be left to a call still running); the interrupt
     * status is kept.
     */
    static int call(IntSupplier call) {
        Op o = new Op(call);
        THREADS.execute(o);
        boolean interrupted = false;
        while (!o.done) {
            LockSupport.park(o);
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
        if (o.error != null) {
            throw o.error;
        }
        return o.result;
    }
}
