#!/usr/bin/env python3
"""bench/lib/observe_cost.py - what observing an exchange costs (issue 26's target: metrics
and the access log together at most 5 % more server CPU per keep-alive request than
neither). bench/observe.sh runs it; bench/README.md "What observing costs" has the method.

Three tachy-hello variants, each its own process, loaded in turn within every round
(alternating, BENCHMARKS.md) with `wrk -t1 -c64` keep-alive GET / (server pinned to core 0,
wrk to core 1):
  neither   a build with -DTACHY_BENCH_NO_OBSERVER=ON (no duration or status counters, no
            access log: the observer is compiled out)
  metrics   the normal build (the counters the request path bumps; /metrics scraped once a
            round)
  both      the normal build with --access-log FILE (truncated between rounds)
Server CPU per request = (utime + stime) / wrk's completed requests; the median over rounds
and the same-round ratio against `neither`.

--callgrind: instead, each variant under valgrind's callgrind serving exactly N1 and then
N2 keep-alive requests from one connection; (Ir(N2) - Ir(N1)) / (N2 - N1) is the
instructions per request with every fixed cost (start, stop, the log thread's ticks)
cancelled out. Noise-free, but instructions are not cycles (an atomic add is one).
"""
import argparse
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchutil import cpu_split, free_port, med, stop_group, wait_port  # noqa: E402


def variants(a, work):
    log = os.path.join(work, "access.log")
    vs = [("neither", [a.baseline], None),
          ("metrics", [a.hello], None),
          ("both", [a.hello, "--access-log", log], log)]
    return [v for v in vs if v[0] in a.only.split(",")]


def start(cmd, port, pin):
    full = (["taskset", "-c", pin] if pin else []) + cmd + ["-p", str(port)]
    p = subprocess.Popen(full, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)
    if not wait_port(port, p, 20):
        raise SystemExit(f"observe_cost: {' '.join(full)} did not start")
    return p


def wrk(port, seconds):
    out = subprocess.run(["taskset", "-c", "1", "wrk", "-t1", "-c64", f"-d{seconds}s",
                          f"http://127.0.0.1:{port}/"], capture_output=True, text=True).stdout
    m = re.search(r"(\d+) requests in", out)
    bad = re.search(r"Non-2xx|Socket errors", out)
    return (int(m.group(1)) if m else 0), bool(bad)


def scrape(port):
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        while s.recv(65536):
            pass


def cpu_rounds(a):
    work = tempfile.mkdtemp(prefix="tachy-observe-")
    vs = variants(a, work)
    procs = []
    try:
        for name, cmd, _ in vs:
            port = free_port()
            procs.append((name, start(cmd, port, "0"), port))
        for _, _, port in procs:  # warm-up
            wrk(port, 1)
        per = {name: [] for name, _, _ in vs}
        rps = {name: [] for name, _, _ in vs}
        user = {name: [] for name, _, _ in vs}
        for r in range(a.rounds):
            order = procs if r % 2 == 0 else procs[::-1]
            for name, p, port in order:
                for _, _, logf in vs:
                    if logf and os.path.exists(logf):
                        os.truncate(logf, 0)
                u0, s0 = cpu_split(p.pid)
                n, bad = wrk(port, a.seconds)
                u1, s1 = cpu_split(p.pid)
                if name != "neither":
                    scrape(port)
                us = (u1 + s1 - u0 - s0) * 1e6 / os.sysconf("SC_CLK_TCK") / max(n, 1)
                user[name].append((u1 - u0) * 1e6 / os.sysconf("SC_CLK_TCK") / max(n, 1))
                per[name].append(us)
                rps[name].append(n / a.seconds)
                print(f"round {r + 1} {name:8s} {n:8d} requests {n / a.seconds:9.0f} req/s "
                      f"{us:6.3f} us CPU/request{'  ERRORS' if bad else ''}", flush=True)
        print()
        base = per["neither"]
        for name, _, _ in vs:
            ratios = [x / b for x, b in zip(per[name], base)]
            print(f"{name:8s} median {med(per[name]):6.3f} us/request "
                  f"({min(per[name]):.3f}-{max(per[name]):.3f}), {med(rps[name]):9.0f} req/s; "
                  f"same-round ratio to neither: median {statistics.median(ratios):.3f} "
                  f"({min(ratios):.3f}-{max(ratios):.3f}); user CPU {med(user[name]):.3f} us")
    finally:
        for _, p, _ in procs:
            stop_group(p, 10)
        subprocess.run(["rm", "-rf", work])


def client(port, n):
    req = b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"
    with socket.create_connection(("127.0.0.1", port)) as s:
        buf = b""
        for _ in range(n):
            s.sendall(req)
            while True:
                i = buf.find(b"\r\n\r\n")
                if i >= 0:
                    m = re.search(rb"Content-Length: (\d+)", buf[:i], re.I)
                    need = i + 4 + int(m.group(1))
                    if len(buf) >= need:
                        buf = buf[need:]
                        break
                chunk = s.recv(65536)
                if not chunk:
                    raise SystemExit("observe_cost: server closed")
                buf += chunk


def callgrind_ir(cmd, n, work, tag):
    port = free_port()
    out = os.path.join(work, f"cg.{tag}.{n}")
    p = subprocess.Popen(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"] + cmd +
                         ["-p", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)
    if not wait_port(port, p, 60):
        raise SystemExit("observe_cost: callgrind server did not start")
    client(port, n)
    time.sleep(0.5)
    stop_group(p, 60)
    with open(out) as f:
        for line in f:
            if line.startswith("totals:") or line.startswith("summary:"):
                return int(line.split()[1])
    raise SystemExit(f"observe_cost: no totals in {out}")


def callgrind(a):
    work = tempfile.mkdtemp(prefix="tachy-observe-cg-")
    try:
        res = {}
        for name, cmd, _ in variants(a, work):
            i1 = callgrind_ir(cmd, a.n1, work, name)
            i2 = callgrind_ir(cmd, a.n2, work, name)
            res[name] = (i2 - i1) / (a.n2 - a.n1)
            print(f"{name:8s} {res[name]:8.0f} instructions/request "
                  f"(Ir {i1} at {a.n1}, {i2} at {a.n2})", flush=True)
        for name in res:
            print(f"{name:8s} / neither = {res[name] / res['neither']:.4f}")
    finally:
        subprocess.run(["rm", "-rf", work])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hello", required=True, help="tachy-hello, the normal build")
    ap.add_argument("--baseline", required=True,
                    help="tachy-hello built with -DTACHY_BENCH_NO_OBSERVER=ON")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--seconds", type=int, default=4)
    ap.add_argument("--only", default="neither,metrics,both",
                    help="the variants to run (neither must be one)")
    ap.add_argument("--callgrind", action="store_true")
    ap.add_argument("--n1", type=int, default=2000)
    ap.add_argument("--n2", type=int, default=12000)
    a = ap.parse_args()
    if a.callgrind:
        callgrind(a)
    else:
        cpu_rounds(a)


if __name__ == "__main__":
    main()
