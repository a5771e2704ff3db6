#!/usr/bin/env python3
"""HTTP/2 side-by-side benchmark driver (bench/h2.sh starts it; see bench/README.md).

Servers (each started once, on 127.0.0.1, pinned to core 0): h2o (Debian, num-threads 1),
nginx (1 worker, `listen ... http2` on the plain port), tachy-hello (one process on the plain
port, one with -c/-k on the TLS port; skipped, with the reason, while it does not answer
HTTP/2). Every server answers GET / with the same 13-byte "Hello, World!" text/plain.

Profiles: h2load (one thread, core 1) -c16 -m32 and -c64 -m100, over h2c (prior knowledge)
and over TLS (ALPN h2). Rounds alternate the servers (A B C A B C ...); each figure is the
median over the rounds, min-max beside it. Per run: req/s (h2load), server CPU per request
(utime + stime of the serving process from /proc/PID/stat over the run / requests done),
p50 and p99 of the per-request times in h2load's --log-file, failed/errored counts.
"""
import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "support"))
from netutil import free_port, wait_port  # noqa: E402
TICK = os.sysconf("SC_CLK_TCK")
PROFILES = {
    "h2c-c16m32": ("h2c", 16, 32),
    "h2c-c64m100": ("h2c", 64, 100),
    "tls-c16m32": ("tls", 16, 32),
    "tls-c64m100": ("tls", 64, 100),
}


def say(*a):
    print(time.strftime("%H:%M:%S", time.gmtime()), "h2.sh:", *a, flush=True)


def cpu_ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime, stime (fields 14, 15)


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def children(pid):
    try:
        out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
        return [int(x) for x in out.split()]
    except OSError:
        return []


class Server:
    """One server under test: its processes, the pid that serves each transport."""

    def __init__(self, name):
        self.name = name
        self.procs = []
        self.serving = {}   # transport -> pid whose CPU counts
        self.ports = {}     # transport -> port
        self.skip = None

    def stop(self):
        for p in self.procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in self.procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()


def popen(cmd, log):
    return subprocess.Popen(["taskset", "-c", "0"] + cmd, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)


def lib_conf(name, plain, tls, cert, key, d):
    """tests/h2/lib.sh's configuration for the reference server (one source of truth)."""
    out = subprocess.run(["bash", "-c", f'source "{ROOT}/tests/h2/lib.sh" && '
                          f'h2_ref_conf {name} {plain} {tls} "{cert}" "{key}" "{d}"'],
                         capture_output=True, text=True, check=True)
    return out.stdout.split()


def speaks_h2(url, prior):
    args = ["curl", "-sS", "-k", "--max-time", "5", "-o", "/dev/null", "-w", "%{http_version}",
            "--http2-prior-knowledge" if prior else "--http2", url]
    r = subprocess.run(args, capture_output=True, text=True)
    v = r.stdout.strip()
    if v == "2":
        return True, v
    return False, (f"answered HTTP/{v}" if v not in ("", "0") else
                   f"no HTTP response, curl exit {r.returncode}: {r.stderr.strip()[:80]}")


def start(name, a, raw, cert, key):
    s = Server(name)
    log = open(os.path.join(raw, f"server-{name}.log"), "w")
    plain, tls = free_port(), free_port()
    if name in ("h2o", "nginx"):
        exe = "h2o" if name == "h2o" else "nginx"
        if not shutil.which(exe) and not os.path.exists(f"/usr/sbin/{exe}"):
            s.skip = f"{exe} not installed"
            return s
        cmd = lib_conf(name, plain, tls, cert, key, os.path.join(a.workdir, name))
        p = popen(cmd, log)
        s.procs.append(p)
        if not (wait_port(plain, p, 15) and wait_port(tls, p, 15)):
            s.skip = f"did not start (raw/server-{name}.log)"
            return s
        pid = p.pid
        if name == "nginx":  # the worker serves; the master only waits
            time.sleep(0.3)
            kids = children(p.pid)
            pid = kids[0] if kids else p.pid
        s.serving = {"h2c": pid, "tls": pid}
    else:  # tachy-hello: one process per transport
        if not a.tachy_hello:
            s.skip = "no tachy-hello (build failed or not given)"
            return s
        p1 = popen([a.tachy_hello, "-p", str(plain), "-i", "100000"], log)
        p2 = popen([a.tachy_hello, "-p", str(tls), "-i", "100000", "-c", cert, "-k", key], log)
        s.procs += [p1, p2]
        if not (wait_port(plain, p1, 15) and wait_port(tls, p2, 15)):
            s.skip = f"did not start (raw/server-{name}.log)"
            return s
        s.serving = {"h2c": p1.pid, "tls": p2.pid}
    s.ports = {"h2c": plain, "tls": tls}
    ok1, v1 = speaks_h2(f"http://127.0.0.1:{plain}/", True)
    ok2, v2 = speaks_h2(f"https://127.0.0.1:{tls}/", False)
    if not ok1:
        s.skip = f"no h2c by prior knowledge (curl --http2-prior-knowledge: {v1})"
    elif not ok2:
        s.skip = f"no h2 over TLS (curl --http2: {v2})"
    return s


def h2load(s, transport, c, m, secs, raw, tag, warmup=False):
    scheme = "http" if transport == "h2c" else "https"
    url = f"{scheme}://127.0.0.1:{s.ports[transport]}/"
    logf = os.path.join(raw, f"{tag}.reqlog")
    cmd = ["taskset", "-c", "1", "h2load", "-t1", f"-c{c}", f"-m{m}", "-D", str(secs), url]
    if not warmup:
        cmd[5:5] = ["--log-file", logf]
    pid = s.serving[transport]
    t0, r0 = cpu_ticks(pid), rss_kb(pid)
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=secs + 60).stdout
    t1, r1 = cpu_ticks(pid), rss_kb(pid)
    if warmup:
        return None
    with open(os.path.join(raw, f"{tag}.txt"), "w") as f:
        f.write(" ".join(cmd) + "\n" + out)
    res = {"cmd": " ".join(cmd)}
    m_ = re.search(r"finished in ([\d.]+)s, ([\d.]+) req/s", out)
    res["rps"] = float(m_.group(2)) if m_ else 0.0
    m_ = re.search(r"requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, "
                   r"(\d+) failed, (\d+) errored, (\d+) timeout", out)
    if m_:
        res.update(done=int(m_.group(3)), ok=int(m_.group(4)), failed=int(m_.group(5)),
                   errored=int(m_.group(6)), timeout=int(m_.group(7)))
    else:
        res.update(done=0, ok=0, failed=0, errored=0, timeout=0)
    m_ = re.search(r"Application protocol: (\S+)", out)
    res["proto"] = m_.group(1) if m_ else "?"
    res["cpu_us"] = (t1 - t0) / TICK * 1e6 / res["ok"] if res["ok"] else None
    res["rss_kb"] = max(r0, r1)
    # per-request times: "start-time<TAB>status<TAB>duration-us" per line
    lat = []
    try:
        with open(logf) as f:
            for line in f:
                p = line.split("\t")
                if len(p) >= 3:
                    lat.append(int(p[2]))
        os.unlink(logf)
    except OSError:
        pass
    if lat:
        lat.sort()
        res["p50_ms"] = lat[len(lat) // 2] / 1000
        res["p99_ms"] = lat[min(len(lat) - 1, int(len(lat) * 0.99))] / 1000
    return res


def med(xs):
    xs = [x for x in xs if x is not None]
    return (statistics.median(xs), min(xs), max(xs)) if xs else None


def fmt(t, unit="", nd=2):
    if not t:
        return "-"
    m, lo, hi = t
    return f"{m:.{nd}f}{unit} ({lo:.{nd}f}-{hi:.{nd}f})"


def render(results, a, skips, out):
    lines = [f"# HTTP/2 benchmark {a.stamp}", "",
             f"Command: `{a.command}`; {a.rounds} rounds x {a.duration} s per server and profile, "
             f"servers alternating; server on core 0, h2load -t1 on core 1. Median (min-max).", ""]
    for name, why in skips.items():
        lines.append(f"- **{name}** not measured: {why}")
    if skips:
        lines.append("")
    for prof in a.profiles:
        lines += [f"## {prof}", "",
                  "| server | req/s | CPU µs/req | ×h2o | ×nginx | p50 ms | p99 ms | failed+errored |",
                  "|---|---|---|---|---|---|---|---|"]
        rows = results.get(prof, {})
        for name, runs in rows.items():
            cpu = med([r["cpu_us"] for r in runs])
            ratio = {}
            for ref in ("h2o", "nginx"):
                refruns = rows.get(ref)
                if refruns and ref != name:
                    rs = [r["cpu_us"] / q["cpu_us"] for r, q in zip(runs, refruns)
                          if r["cpu_us"] and q["cpu_us"]]
                    ratio[ref] = med(rs)
            bad = sum(r["failed"] + r["errored"] + r["timeout"] for r in runs)
            lines.append(f"| {name} | {fmt(med([r['rps'] for r in runs]), '', 0)} | {fmt(cpu)} | "
                         f"{fmt(ratio.get('h2o'), 'x')} | {fmt(ratio.get('nginx'), 'x')} | "
                         f"{fmt(med([r.get('p50_ms') for r in runs]))} | "
                         f"{fmt(med([r.get('p99_ms') for r in runs]))} | {bad} |")
        lines.append("")
    lines.append(f"Raw outputs: `{os.path.relpath(out, ROOT)}/raw/` (h2load output per run, server logs, results.json)")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--outdir", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--cert", required=True)
    ap.add_argument("--key", required=True)
    ap.add_argument("--tachy-hello", default="")
    ap.add_argument("--servers", default="h2o,nginx,tachy-c")
    ap.add_argument("--profiles", default=",".join(PROFILES))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--duration", type=int, default=4)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--command", default="bench/h2.sh")
    ap.add_argument("--stamp", default="")
    a = ap.parse_args()
    a.profiles = [p for p in a.profiles.split(",") if p]
    for p in a.profiles:
        if p not in PROFILES:
            sys.exit(f"h2bench: unknown profile {p} (known: {', '.join(PROFILES)})")
    raw = os.path.join(a.outdir, "raw")
    os.makedirs(raw, exist_ok=True)
    servers, skips = [], {}

    def on_term(*_):
        for s in servers:
            s.stop()
        sys.exit(130)
    signal.signal(signal.SIGTERM, on_term)
    try:
        for name in a.servers.split(","):
            s = start(name, a, raw, a.cert, a.key)
            servers.append(s)
            if s.skip:
                skips[name] = s.skip
                say(f"{name}: skipped: {s.skip}")
            else:
                say(f"{name}: h2c :{s.ports['h2c']} (pid {s.serving['h2c']}), "
                    f"TLS :{s.ports['tls']} (pid {s.serving['tls']})")
        live = [s for s in servers if not s.skip]
        results = {}
        for prof in a.profiles:
            transport, c, m = PROFILES[prof]
            for s in live:  # an unmeasured warm-up per server and profile
                h2load(s, transport, c, m, a.warmup, raw, f"warm-{prof}-{s.name}", warmup=True)
            for rnd in range(1, a.rounds + 1):
                for s in live:
                    tag = f"{prof}-{s.name}-r{rnd}"
                    r = h2load(s, transport, c, m, a.duration, raw, tag)
                    results.setdefault(prof, {}).setdefault(s.name, []).append(r)
                    say(f"{tag}: {r['rps']:.0f} req/s, "
                        f"{r['cpu_us'] or 0:.2f} us/req CPU, p99 {r.get('p99_ms', 0):.2f} ms, "
                        f"{r['failed']} failed {r['errored']} errored, {r['proto']}")
        with open(os.path.join(raw, "results.json"), "w") as f:
            json.dump({"results": results, "skips": skips, "args": vars(a)}, f, indent=1)
        table = render(results, a, skips, a.outdir)
        with open(os.path.join(a.outdir, "table.md"), "w") as f:
            f.write(table)
        print(table)
    finally:
        for s in servers:
            s.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
