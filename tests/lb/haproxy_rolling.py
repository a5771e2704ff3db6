#!/usr/bin/env python3
"""tests/lb/haproxy_rolling.py - tachy behind a real HAProxy (issue 26).

HAProxy (the Debian package, 2.6) on 127.0.0.1 balances round-robin over two backends
started by this script - `tachy-hello --proxy-protocol` (or, with --java JAR:CLASSES, the
Java demo) - with PROXY protocol v2 (`send-proxy-v2`) and HTTP health checks that send
the header too (`check check-send-proxy`). Checks:
  1. a request from source address 127.0.0.2 (curl --interface) reaches the backend as
     127.0.0.2 (GET /ip answers the client's address, the PROXY header's);
  2. wrk runs through HAProxy for --seconds while each backend in turn gets SIGTERM (it
     drains: tachy_server_drain), exits 0 and is started again: wrk must report zero
     non-2xx responses and zero socket errors.
Prints each check and "N passed, M failed"; exits 1 on a failure, 77 when HAProxy, wrk or
curl is missing (CTest's skip code). Everything listens on 127.0.0.1; about --seconds + 3 s.

  tests/lb/haproxy_rolling.py [--hello PATH] [--seconds 12] [--keep DIR]
                              [--backend-args '--drain 0'] [--java 'java -cp ... Hello']
"""
import argparse
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

HAPROXY_CFG = """\
global
    maxconn 4096
    log stderr format short local0 info
    stats socket {sock} level user

defaults
    mode http
    log global
    option httplog
    option dontlog-normal
    timeout connect 2s
    timeout client  30s
    timeout server  30s
    retries 3
    option redispatch
    # a backend that closes an idle kept-alive connection as it drains may race a request
    # HAProxy has just sent on it: nothing came back, so it is safe to send again
    retry-on conn-failure empty-response response-timeout

frontend web
    bind 127.0.0.1:{fe}
    default_backend tachy

backend tachy
    balance roundrobin
    option httpchk GET /
    http-check expect status 200
    default-server inter 500ms fall 2 rise 2
    server t1 127.0.0.1:{p1} send-proxy-v2 check check-send-proxy
    server t2 127.0.0.1:{p2} send-proxy-v2 check check-send-proxy
"""

passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
    print(("ok    " if ok else "FAIL  ") + what, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, timeout=10.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.05)
    return False


class Backend:
    def __init__(self, cmd, port, log):
        self.cmd = [c.replace("PORT", str(port)) for c in cmd]
        self.port = port
        self.log = log
        self.proc = None

    def start(self):
        self.proc = subprocess.Popen(self.cmd, stdout=subprocess.PIPE, stderr=open(self.log, "a"),
                                     text=True)
        line = self.proc.stdout.readline()  # "listening on http://..." once it accepts
        return line.startswith("listening on")

    def stop(self):
        """SIGTERM: the backend drains and exits; returns (exit code, seconds)."""
        t0 = time.monotonic()
        self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = self.proc.wait()
        return rc, time.monotonic() - t0


def haproxy_errors(path):
    """HAProxy's error and retry counters that are not 0 (its stats socket, "show stat")."""
    try:
        with socket.socket(socket.AF_UNIX) as u:
            u.connect(path)
            u.sendall(b"show stat\n")
            data = b""
            while True:
                b = u.recv(65536)
                if not b:
                    break
                data += b
    except OSError as e:
        return f"(stats socket: {e})"
    lines = data.decode().splitlines()
    cols = lines[0].lstrip("# ").split(",")
    out = []
    for line in lines[1:]:
        v = dict(zip(cols, line.split(",")))
        if not v.get("pxname"):
            continue
        bad = [f"{k}={v[k]}" for k in ("ereq", "econ", "eresp", "wretr", "wredis", "cli_abrt",
                                      "srv_abrt", "hrsp_5xx") if v.get(k) not in ("", "0", None)]
        if bad:
            out.append(f"{v['pxname']}/{v['svname']}: " + " ".join(bad))
    return "; ".join(out) or "no errors, retries or aborts counted"


def main():
    ap = argparse.ArgumentParser()
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    ap.add_argument("--hello", default=os.environ.get("TACHY_HELLO") or
                    os.path.join(root, "build/release/examples/tachy-hello"))
    ap.add_argument("--java", help="run the Java demo instead: a java command line prefix "
                    "ending before the arguments, e.g. 'java -cp JAR:CLASSES dev.tachy.examples.Hello'")
    ap.add_argument("--seconds", type=int, default=12)
    ap.add_argument("--backend-args", default="",
                    help="more tachy-hello arguments, e.g. '--drain 0' (stop without draining)")
    ap.add_argument("--keep", help="keep the config and logs in this directory")
    a = ap.parse_args()
    for tool in ("haproxy", "wrk", "curl"):
        if not shutil.which(tool):
            print(f"skipped: {tool} is not installed (scripts/deps.sh test)")
            return 77
    work = a.keep or tempfile.mkdtemp(prefix="tachy-haproxy-")
    os.makedirs(work, exist_ok=True)
    fe, p1, p2 = free_port(), free_port(), free_port()
    if a.java:
        cmd = a.java.split() + ["-p", "PORT"]
    else:
        cmd = [a.hello, "-p", "PORT", "--proxy-protocol", "--proxy-trusted", "127.0.0.1"]
        cmd += a.backend_args.split()
    backends = [Backend(cmd, p, os.path.join(work, f"backend{i + 1}.log"))
                for i, p in enumerate((p1, p2))]
    cfg = os.path.join(work, "haproxy.cfg")
    with open(cfg, "w") as f:
        f.write(HAPROXY_CFG.format(fe=fe, p1=p1, p2=p2, sock=os.path.join(work, "haproxy.sock")))
    procs = []
    try:
        for b in backends:
            check(b.start(), f"backend on port {b.port} started")
        hap = subprocess.Popen(["haproxy", "-db", "-f", cfg], stdout=subprocess.DEVNULL,
                               stderr=open(os.path.join(work, "haproxy.log"), "w"))
        procs.append(hap)
        check(wait_port(fe), f"HAProxy listens on {fe}")
        time.sleep(1.2)  # both backends' first health checks (inter 500ms, rise 2)
        # 1. The client's address crosses the balancer (both backends: round-robin).
        seen = []
        for _ in range(4):
            r = subprocess.run(["curl", "-s", "-m", "5", "--interface", "127.0.0.2",
                                f"http://127.0.0.1:{fe}/ip"], capture_output=True, text=True)
            seen.append(r.stdout.strip())
        check(all(s.startswith("127.0.0.2 ") for s in seen),
              "a request from 127.0.0.2 is seen as 127.0.0.2: " + " | ".join(seen))
        # 2. Rolling restart under wrk.
        wrk = subprocess.Popen(["wrk", "-t2", "-c32", f"-d{a.seconds}s",
                                f"http://127.0.0.1:{fe}/"], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
        procs.append(wrk)
        slot = a.seconds / 4.0
        for i, b in enumerate(backends):
            time.sleep(slot)
            rc, took = b.stop()
            check(rc == 0, f"backend {i + 1}: SIGTERM -> exit {rc} after {took * 1000:.0f} ms")
            check(b.start(), f"backend {i + 1} started again")
            time.sleep(slot)
        out, _ = wrk.communicate(timeout=a.seconds + 30)
        with open(os.path.join(work, "wrk.txt"), "w") as f:
            f.write(out)
        m = re.search(r"(\d+) requests in", out)
        requests = int(m.group(1)) if m else 0
        non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
        sock = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
        print("wrk: " + " ".join(l.strip() for l in out.splitlines()
                                  if "requests in" in l or "Socket errors" in l or
                                  "Non-2xx" in l or "Requests/sec" in l), flush=True)
        print("haproxy: " + haproxy_errors(os.path.join(work, "haproxy.sock")), flush=True)
        check(requests > 1000, f"wrk ran: {requests} requests")
        check(non2xx is None, "no non-2xx response" + (f" ({non2xx.group(1)})" if non2xx else ""))
        check(sock is None, "no socket error" + (f" ({sock.group(0)})" if sock else ""))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        for b in backends:
            if b.proc and b.proc.poll() is None:
                b.proc.kill()
                b.proc.wait()
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
