"""tests/lb/lbtest.py - what the HAProxy tests (haproxy_rolling.py, haproxy_accesslog.py)
share: their pass/fail tally, the backends they start and stop, HAProxy itself, and a
request sent from another source address (127.0.0.2) through it. The sockets' helpers
(free_port, wait_port) are tests/support/netutil.py's, imported here for them.
"""
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "support"))
from netutil import free_port, recv_all, wait_port  # noqa: E402,F401 (re-exported)


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
