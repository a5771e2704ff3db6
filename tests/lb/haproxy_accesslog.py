#!/usr/bin/env python3
"""tests/lb/haproxy_accesslog.py - tachy-hello's access log behind a real HAProxy (issue 26).

One `tachy-hello --proxy-protocol --access-log FILE` behind HAProxy (the Debian package,
2.6) on 127.0.0.1 with `send-proxy-v2` and health checks that send the header too.
Checks:
  1. requests sent from source address 127.0.0.2 (curl --interface) through HAProxy are
     logged with 127.0.0.2 - the PROXY header's client, not the balancer - as Common Log
     Format lines with their request line, status and body bytes;
  2. logrotate's way: the file is renamed, tachy-hello gets SIGHUP, and the next request's
     line is in a new file by the old name while the old lines stay in the renamed one;
  3. SIGTERM: tachy-hello drains and exits 0, and every request sent has its line.
Prints each check and "N passed, M failed"; exits 1 on a failure, 77 when HAProxy or curl
is missing (CTest's skip code). Everything listens on 127.0.0.1; about 2 s.

  tests/lb/haproxy_accesslog.py [--hello PATH] [--keep DIR]
"""
import os
import re
import shutil
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lbtest import (Backend, Tally, arg_parser, curl_from, free_port,  # noqa: E402
                    haproxy_proxies, kill_all, missing_tool, start_haproxy, wait_port,
                    work_dir)

HAPROXY_CFG = """\
global
    maxconn 256

defaults
    mode http
    timeout connect 2s
    timeout client  10s
    timeout server  10s

"""

# host ident authuser [date] "request" status bytes
CLF = re.compile(r'^(\S+) (\S+) (\S+) \[(\d\d/\w{3}/\d{4}:\d\d:\d\d:\d\d [+-]\d{4})\] '
                 r'"([^"]*)" (\d{3}|-) (\d+|-)$')

T = Tally()
check = T.check


def lines_of(path):
    """The file's parsed lines for GET /ip (health checks, GET /, are logged too)."""
    out = []
    try:
        with open(path) as f:
            for line in f:
                m = CLF.match(line.rstrip("\n"))
                check_line = m is not None
                if not check_line:
                    check(False, f"a Common Log Format line: {line!r}")
                    continue
                if m.group(5).startswith("GET /ip"):
                    out.append(m)
    except FileNotFoundError:
        pass
    return out


def main():
    a = arg_parser().parse_args()
    if missing_tool(("haproxy", "curl")):
        return 77
    work = work_dir(a.keep, "tachy-accesslog-")
    log = os.path.join(work, "access.log")
    fe, p1 = free_port(), free_port()
    b = Backend([a.hello, "-p", "PORT", "--proxy-protocol", "--proxy-trusted", "127.0.0.1",
                 "--access-log", log], p1, os.path.join(work, "backend.log"))
    cfg = os.path.join(work, "haproxy.cfg")
    with open(cfg, "w") as f:
        f.write(HAPROXY_CFG + haproxy_proxies(fe, [p1], "inter 300ms fall 2 rise 1"))
    hap = None
    try:
        check(b.start(), f"tachy-hello --access-log on port {p1} started")
        hap = start_haproxy(cfg, work)
        check(wait_port(fe), f"HAProxy listens on {fe}")
        time.sleep(0.5)  # the first health check (inter 300ms, rise 1)
        answers = [curl_from(fe, f"/ip?a{i}") for i in range(3)]
        check(all(s.startswith("127.0.0.2 ") for s in answers),
              "GET /ip from 127.0.0.2 answered as 127.0.0.2: " + " | ".join(answers))
        # 2. Rotation: rename, SIGHUP, one more request.
        time.sleep(0.1)  # each line is queued at its exchange's end, just after its response
        rotated = log + ".1"
        os.rename(log, rotated)
        b.proc.send_signal(signal.SIGHUP)
        for _ in range(100):  # the writer reopens at once, on its own thread
            if os.path.exists(log):
                break
            time.sleep(0.01)
        check(os.path.exists(log), "SIGHUP: a new file by the old name")
        after = curl_from(fe, "/ip?b0")
        check(after.startswith("127.0.0.2 "), "a request after the rotation: " + after)
        # 3. SIGTERM: drained, exit 0, every line written.
        rc, took = b.stop()
        check(rc == 0, f"SIGTERM -> exit {rc} after {took * 1000:.0f} ms")
        old, new = lines_of(rotated), lines_of(log)
        check([m.group(5) for m in old] == [f"GET /ip?a{i} HTTP/1.1" for i in range(3)],
              "the renamed file holds the three requests before the rotation: " +
              " | ".join(m.group(0) for m in old))
        check([m.group(5) for m in new] == ["GET /ip?b0 HTTP/1.1"],
              "the new file holds the one after: " + " | ".join(m.group(0) for m in new))
        ms = old + new
        check(len(ms) == 4 and all(m.group(1) == "127.0.0.2" for m in ms),
              "every line's client is 127.0.0.2 (the PROXY header's), not HAProxy's 127.0.0.1")
        check(all(m.group(6) == "200" and m.group(7) != "-" and
                  int(m.group(7)) == len(ans) + 1 for m, ans in zip(ms, answers + [after])),
              "status 200 and the body's bytes on each line")
    finally:
        kill_all([hap, b.proc])
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)
    return T.finish()


if __name__ == "__main__":
    sys.exit(main())
