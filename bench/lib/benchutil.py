"""What both bench drivers (bench.py for bench/run.sh, arena_bench.py for bench/arena.sh)
measure and manage alike: /proc readings of a server, its port coming up, its process group
going down, a load run sampled against it, the log line and the median. Its port coming up
(wait_port) and a free port (free_port) are tests/support/netutil.py's, re-exported here."""
import os
import signal
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "tests", "support"))
from netutil import free_port, wait_port  # noqa: E402,F401 (re-exported for the drivers)

CLK_TCK = os.sysconf("SC_CLK_TCK")


def log(*a):
    print(time.strftime("%H:%M:%S"), *a, flush=True)


def children(pid):
    """The direct children of pid (of any of its threads); [] when it is gone."""
    out = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for t in tasks:
        try:
            with open(f"/proc/{pid}/task/{t}/children") as f:
                out += [int(x) for x in f.read().split()]
        except OSError:
            pass
    return out


def proc_tree(pid):
    """pid and all its descendants."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += children(p)
    return out


def _stat_ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        s = f.read()
    rest = s[s.rindex(")") + 2:].split()
    return int(rest[11]), int(rest[12])  # fields 14 utime, 15 stime (clock ticks, all threads)


def cpu_split(pid, tree=False):
    """(utime, stime) clock ticks of pid, all its threads. tree=True: summed over pid and its
    descendants (nginx's worker, h2o's helpers), a process that is gone counting 0; otherwise
    a gone pid raises OSError."""
    if not tree:
        return _stat_ticks(pid)
    u = s = 0
    for p in proc_tree(pid):
        try:
            du, ds = _stat_ticks(p)
        except (OSError, ValueError, IndexError):
            continue
        u, s = u + du, s + ds
    return u, s


def _vmrss(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def rss_kb(pid, tree=False):
    """VmRSS of pid in kB, None when it cannot be read. tree=True: the sum over pid and its
    descendants (0 when none can be read)."""
    if not tree:
        return _vmrss(pid)
    return sum(r for r in map(_vmrss, proc_tree(pid)) if r)


def threads(pid):
    """Thread count of pid, None when it is gone."""
    try:
        return len(os.listdir(f"/proc/{pid}/task"))
    except OSError:
        return None


def sampled_load(pid, cmd, duration, env=None, tree=False):
    """Runs the load command cmd against the server pid (killed after duration + 30 s),
    sampling the server's RSS and thread count every 0.2 s and reading its CPU ticks before
    and after (tree: RSS and CPU of pid and its descendants, see cpu_split). Returns rss0,
    threads0, rss peak, threads peak, user0, sys0, user1, sys1, the command's output and
    the start time."""
    rss0, thr0 = rss_kb(pid, tree), threads(pid)
    u0, s0 = cpu_split(pid, tree)
    t0 = time.time()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, text=True)
    peak, thr_peak = rss0 or 0, thr0 or 0
    while p.poll() is None:
        r, t = rss_kb(pid, tree), threads(pid)
        if r:
            peak = max(peak, r)
        if t:
            thr_peak = max(thr_peak, t)
        if time.time() - t0 > duration + 30:
            p.kill()
            break
        time.sleep(0.2)
    out = p.communicate()[0]
    u1, s1 = cpu_split(pid, tree)
    return rss0, thr0, peak, thr_peak, u0, s0, u1, s1, out, t0


def stop_group(p, wait):
    """SIGTERM to p's process group (p was started with start_new_session=True), SIGKILL when
    it has not exited after wait seconds; reaps p."""
    if p.poll() is not None:
        return
    try:
        os.killpg(p.pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    try:
        p.wait(timeout=wait)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait(timeout=wait)


def med(xs):
    """Median of the values that are not None; None when there are none."""
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None
