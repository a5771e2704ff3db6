// VtFloor - the floor under the virtual-thread executor rows of bench/run.sh (bench/README.md,
// "Executors"): the CPU the executor itself costs per task, with no server and no socket.
//
//   java bench/VtFloor.java [CHAINS] [TASKS]        (JDK 21+; defaults 64 and 2,000,000)
//
// CHAINS chains of tasks run on Executors.newVirtualThreadPerTaskExecutor(); each task
// submits the next one of its chain and returns, the way a lent connection's exchanges follow
// each other (the closing thread dispatches the next pipelined request, whose task is a new
// virtual thread). It counts the process's CPU time (all threads) over TASKS tasks and prints
//   VTFLOOR chains=64 tasks=2000000 round=N us_per_task=0.2xx
// for three rounds (the first includes JIT warm-up). Run it pinned like a server
// (taskset -c 0: one carrier, as in the benchmark) to compare with the servers' CPU per
// request: whatever a server spends above its no-executor figure plus this floor is its own.
import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

public final class VtFloor {
    private static final ExecutorService EXECUTOR = Executors.newVirtualThreadPerTaskExecutor();
    private static final AtomicLong LEFT = new AtomicLong();
    private static volatile CountDownLatch done;

    private static void step() {
        long left = LEFT.decrementAndGet();
        if (left == 0) {
            done.countDown();
        }
        if (left > 0) {
            EXECUTOR.execute(VtFloor::step);
        }
    }

    private static long cpuNanos() {
        return ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    public static void main(String[] args) throws Exception {
        int chains = args.length > 0 ? Integer.parseInt(args[0]) : 64;
        long tasks = args.length > 1 ? Long.parseLong(args[1]) : 2_000_000;
        if (chains < 1 || tasks < chains) {
            throw new IllegalArgumentException("usage: VtFloor [CHAINS >= 1] [TASKS >= CHAINS]");
        }
        for (int round = 1; round <= 3; round++) {
            LEFT.set(tasks);
            done = new CountDownLatch(1);
            long c0 = cpuNanos();
            for (int i = 0; i < chains; i++) {
                EXECUTOR.execute(VtFloor::step);
            }
            if (!done.await(120, java.util.concurrent.TimeUnit.SECONDS)) {
                throw new IllegalStateException("VtFloor: round " + round + " did not finish in 120 s");
            }
            long c1 = cpuNanos();
            System.out.printf("VTFLOOR chains=%d tasks=%d round=%d us_per_task=%.3f%n",
                    chains, tasks, round, (c1 - c0) / 1e3 / tasks);
            Thread.sleep(200); // let the last chains' threads end before the next round
        }
        System.exit(0);
    }
}
