"""tests/lb/lbtest.py - what the HAProxy tests (haproxy_rolling.py, haproxy_accesslog.py)
share: their pass/fail tally, the backends they start and stop, HAProxy itself, and a
request sent from another source address (127.0.0.2) through it. The sockets' helpers
(free_port, wait_port) are tests/support/netutil.py's, imported here for them.
"""
import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "support"))
from netutil import free_port, recv_all, wait_port  # noqa: E402,F401 (re-exported)


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def arg_parser():
    """The options every HAProxy test takes: --hello (tachy-hello: $TACHY_HELLO, else
    build/release's) and --keep DIR (the configuration and logs are kept there)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--hello", default=os.environ.get("TACHY_HELLO") or
                    os.path.join(ROOT, "build/release/examples/tachy-hello"))
    ap.add_argument("--keep", help="keep the config and logs in this directory")
    return ap


def missing_tool(tools):
    """Whether one of tools is not on PATH (then its "skipped" line is printed: the test
    exits 77, CTest's skip code)."""
    for tool in tools:
        if not shutil.which(tool):
            print(f"skipped: {tool} is not installed (scripts/deps.sh test)")
            return True
    return False


def work_dir(keep, prefix):
    """keep (created if needed), else a new temporary directory named prefix..."""
    work = keep or tempfile.mkdtemp(prefix=prefix)
    os.makedirs(work, exist_ok=True)
    return work


class Tally:
    """Checks counted as they are printed; finish() prints the runner's summary line."""

    def __init__(self):
        self.passed = self.failed = 0

    def check(self, ok, what):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        print(("ok    " if ok else "FAIL  ") + what, flush=True)

    def add(self, passed, failed):
        """Counts a child run's own results (its summary line, parsed)."""
        self.passed += passed
        self.failed += failed

    def finish(self):
        """Prints "N passed, M failed"; the exit status (1 when any failed)."""
        print(f"{self.passed} passed, {self.failed} failed")
        return 1 if self.failed else 0


class Backend:
    """One backend process: cmd with "PORT" replaced by port, its stderr appended to log."""

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


def haproxy_proxies(fe, ports, timing):
    """The frontend and backend sections of an HAProxy configuration: the frontend on
    127.0.0.1:fe, round-robin over servers t1, t2 ... on 127.0.0.1:ports, each sent PROXY
    protocol v2 (send-proxy-v2) and health-checked with GET / (200 expected) that sends the
    header too (check-send-proxy); timing: the checks' default-server line ("inter 300ms
    fall 2 rise 1"). The caller writes the global and defaults sections before it."""
    servers = "".join(f"    server t{i + 1} 127.0.0.1:{p} send-proxy-v2 check check-send-proxy\n"
                      for i, p in enumerate(ports))
    return (f"frontend web\n    bind 127.0.0.1:{fe}\n    default_backend tachy\n\n"
            f"backend tachy\n    balance roundrobin\n    option httpchk GET /\n"
            f"    http-check expect status 200\n    default-server {timing}\n" + servers)


def start_haproxy(cfg, work):
    """HAProxy in the foreground (-db) on the configuration file cfg, its log in
    work/haproxy.log: the process (wait for its frontend with wait_port)."""
    return subprocess.Popen(["haproxy", "-db", "-f", cfg], stdout=subprocess.DEVNULL,
                            stderr=open(os.path.join(work, "haproxy.log"), "w"))


def kill_all(procs):
    """SIGKILL to each process (subprocess.Popen, or None) still running, and reaps it: what
    a test leaves behind when it ends early."""
    for p in procs:
        if p is not None and p.poll() is None:
            p.kill()
            p.wait()


def curl_from(port, path):
    """GET path through 127.0.0.1:port with curl, from source address 127.0.0.2 (the client
    HAProxy's PROXY header must name): the body, stripped ("" when it failed)."""
    r = subprocess.run(["curl", "-s", "-m", "5", "--interface", "127.0.0.2",
                        f"http://127.0.0.1:{port}{path}"], capture_output=True, text=True)
    return r.stdout.strip()
