#!/usr/bin/env python3
"""tachy side-by-side benchmark driver (called by bench/run.sh; see bench/README.md).

Method (../shared/BENCHMARKS.md): server pinned to core 0, load generator to core 1;
all servers started once, warmed up, then measured in alternating rounds
(A B C ... A B C ...) per profile; server CPU per request from /proc/PID/stat
(utime+stime, all threads) over the completed requests; req/s, p50, p99, errors,
non-2xx, RSS idle (just before the load) and under load (max sampled during it).
Medians over rounds with min-max; ratios to nginx / the JDK / robaho are medians of
the per-round ratios (same round, so machine noise largely cancels).

Everything is bounded: each load has a fixed duration and a subprocess timeout, and
every server started here is stopped on exit (its own process group, by id).
"""
import argparse, datetime, json, os, shutil, signal, socket, subprocess, sys, time

from benchutil import CLK_TCK, children, cpu_split, log, med, rss_kb, sampled_load, stop_group, threads, wait_port

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)
SERVER_CORE = os.environ.get("BENCH_SERVER_CORE", "0")
LOAD_CORE = os.environ.get("BENCH_LOAD_CORE", "1")

# --------------------------------------------------------------------------- profiles
# kind: wrk = one wrk run; idle = hold N idle keep-alive connections, then wrk load;
# ws = placeholder for the WebSocket helper.
PROFILES = {
    "ka64":     dict(title="keep-alive, 64 connections, GET /", kind="wrk", conns=64,
                     script="keepalive.lua", path="/"),
    "ka1024":   dict(title="keep-alive, 1,024 connections, GET /", kind="wrk", conns=1024,
                     script="keepalive.lua", path="/"),
    "pipe16":   dict(title="pipelined x16 in batches, 64 connections, GET / (wrk: 16 requests per write, the "
                           "next batch after all 16 answers — the method of shared/BENCHMARKS.md, where Nagle "
                           "stalls show; no latency: wrk's percentiles are wrong with pipelining)",
                     kind="wrk", conns=64, script="pipeline.lua", path="/", latency=False),
    "pipe16h":  dict(title="pipelined x16 streaming, 64 connections, GET / (h2load --h1 -m 16: 16 requests "
                           "always in flight; exact per-request latency)",
                     kind="h2load", conns=64, depth=16, path="/", script="pipeline.lua"),
    "close":    dict(title="short-lived: Connection: close, 64 concurrent, GET /", kind="wrk",
                     conns=64, script="close.lua", path="/"),
    "post64k":  dict(title="POST /echo 64 KiB body echoed, 64 connections", kind="wrk", conns=64,
                     script="post64k.lua", path="/echo", need="echo"),
    "static1m": dict(title="1 MiB static file, 16 connections", kind="wrk", conns=16,
                     script="static.lua", path="/static/1m.bin", need="static"),
    "idle4096": dict(title="4,096 idle keep-alive connections held + keep-alive load on 64 more",
                     kind="idle", conns=64, idle=4096, script="keepalive.lua", path="/"),
    "ws-echo":  dict(title="WebSocket echo, 64 connections, 64-byte binary messages (bench/wsload.c)",
                     kind="ws", ws="echo", conns=64, size=64),
    "ws-tick10k": dict(title="WebSocket broadcast tick to 10,000 clients (bench/wsload.c; latency = "
                       "kernel receive timestamp − server send time)", kind="ws", ws="tick", conns=10000),
}
QUICK_PROFILES = ["ka64", "pipe16"]
FULL_PROFILES = ["ka64", "ka1024", "pipe16", "pipe16h", "close", "post64k", "static1m", "ws-echo", "ws-tick10k",
                 "idle4096"]  # idle4096 last: it leaves servers with more threads and memory

ANCHOR_NGINX, ANCHOR_JDK, ANCHOR_ROBAHO = "nginx", "jdk-vt", "robaho-vt"
ORDER = ["nginx", "h2o", "tachy-c", "tachy-c-fs", "jdk-none", "jdk-vt", "robaho-vt", "robaho-fixed", "jetty-none",
         "jetty-vt", "tachy-java-none", "tachy-java-vt", "tachy-java-fixed", "tick-floor", "tick-floor-uring"]
# ws-tick10k pseudo-servers: bench/tickfloor.c, the least one core can do (not a server)
FLOOR_SERVERS = ("tick-floor", "tick-floor-uring")

RUNNING = []  # Popen objects of servers we started (own process groups)


# --------------------------------------------------------------------------- /proc
def cpu_ticks(pid):
    u, s = cpu_split(pid)
    return u + s


# --------------------------------------------------------------------------- HTTP checks
def http_request(port, raw, timeout=5.0):
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        s.sendall(raw)
        buf = b""
        while True:
            d = s.recv(1 << 20)
            if not d:
                break
            buf += d
    finally:
        s.close()
    head, _, body = buf.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/") else 0
    return status, head.decode("latin-1"), body


# --------------------------------------------------------------------------- servers
class Server:
    def __init__(self, name, label, cmd, port, kind, expect=None, skip=(), only=None,
                 env=None, notes=None, cwd=None):
        self.name, self.label, self.cmd, self.port, self.kind = name, label, cmd, port, kind
        self.expect = expect          # substring the server prints (provider class) or None
        self.skip = set(skip)         # profiles this server does not serve
        self.only = set(only) if only else None
        self.env, self.cwd = env, cwd
        self.notes = list(notes or [])
        self.ws = {}                  # WebSocket endpoints: {"echo": path, "tick": path}
        self.proc = None
        self.pid = None               # the PID measured (nginx: the worker)
        self.startup_rss = None
        self.ok = False
        self.logfile = None

    def serves(self, profile):
        if self.only is not None and profile not in self.only:
            return False
        ws = PROFILES.get(profile, {}).get("ws")
        if ws and ws not in self.ws:
            return False
        return profile not in self.skip

    def start(self, rawdir):
        self.logfile = os.path.join(rawdir, f"server-{self.name}.log")
        lf = open(self.logfile, "w")
        cmd = ["taskset", "-c", SERVER_CORE] + self.cmd
        lf.write("# " + " ".join(cmd) + "\n"); lf.flush()
        env = dict(os.environ); env.update(self.env or {})
        self.proc = subprocess.Popen(cmd, stdout=lf, stderr=subprocess.STDOUT, env=env,
                                     cwd=self.cwd, start_new_session=True)
        RUNNING.append(self.proc)
        if self.kind not in ("nginx", "h2o"):
            # startup RSS before any connection: wait for the "listening on" line instead of
            # probing the port (a probe would already start a connection thread)
            t0 = time.time()
            while time.time() - t0 < 40 and self.proc.poll() is None:
                with open(self.logfile) as f:
                    if "listening on" in f.read():
                        time.sleep(0.5)
                        self.startup_rss = rss_kb(self.proc.pid)
                        break
                time.sleep(0.05)
        if not wait_port(self.port, self.proc, 40):
            self.notes.append("did not start (see raw/" + os.path.basename(self.logfile) + ")")
            self.stop()
            return False
        self.pid = self.proc.pid
        if self.kind == "nginx":
            time.sleep(0.3)
            kids = children(self.proc.pid)
            if len(kids) != 1:
                self.notes.append(f"expected one nginx worker, found {kids}")
                self.stop(); return False
            self.pid = kids[0]
        if self.expect:
            t0 = time.time()
            while time.time() - t0 < 10:
                with open(self.logfile) as f:
                    txt = f.read()
                if "listening on" in txt:
                    break
                time.sleep(0.1)
            if self.expect not in txt:
                self.notes.append(f"wrong provider: log lacks '{self.expect}'")
                self.stop(); return False
        if self.startup_rss is None:
            time.sleep(0.5)
            self.startup_rss = rss_kb(self.pid)
        self.ok = True
        return True

    def stop(self):
        p = self.proc
        if p is None:
            return
        stop_group(p, 5)
        if p in RUNNING:
            RUNNING.remove(p)
        self.proc = None


def stop_all(*_):
    for p in list(RUNNING):
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    RUNNING.clear()


def check_routes(srv, static_bytes):
    """Sanity-check the routes; returns the set of profiles this server cannot serve."""
    bad = set()
    if srv.only is None:
        st, head, body = http_request(srv.port, b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        if st != 200 or body != b"Hello, World!":
            srv.notes.append(f"GET / answered {st} {body[:40]!r}")
            return None
    if "echo" not in srv.skip and srv.serves("post64k"):
        payload = b"e" * 1000
        try:
            st, head, body = http_request(
                srv.port, b"POST /echo HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                b"Content-Type: application/octet-stream\r\nContent-Length: 1000\r\n\r\n" + payload)
        except OSError as e:
            st, body = 0, repr(e).encode()
        if st != 200 or body != payload:
            srv.notes.append(f"POST /echo not served ({st}); post64k skipped")
            bad.add("post64k")
    try:
        st, head, body = http_request(
            srv.port, b"GET /static/1m.bin HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    except OSError as e:
        st, body = 0, b""
    if st != 200 or body != static_bytes:
        if srv.serves("static1m"):
            srv.notes.append(f"GET /static/1m.bin not served ({st}, {len(body)} bytes); static1m skipped")
        bad.add("static1m")
    return bad


# --------------------------------------------------------------------------- load
def run_wrk(srv, prof, duration, rawfile, conns=None):
    conns = conns or prof["conns"]
    url = f"http://127.0.0.1:{srv.port}{prof['path']}"
    cmd = ["taskset", "-c", LOAD_CORE, "wrk", "-t1", f"-c{conns}", f"-d{max(1, int(round(duration)))}s",
           "--timeout", "5s", "--latency", "-s", os.path.join(BENCH, "lua", prof["script"]), url]
    env = dict(os.environ, BENCH_LUA_DIR=os.path.join(BENCH, "lua"))
    pid = srv.pid
    rss0, thr0, peak, thr_peak, u0, s0, u1, s1, out, t0 = sampled_load(pid, cmd, duration, env)
    c0, c1 = u0 + s0, u1 + s1
    wall = time.time() - t0
    with open(rawfile, "w") as f:
        f.write("# " + " ".join(cmd) + "\n" + out)
        f.write(f"\n# server pid {pid}: cpu ticks {c0} -> {c1} (user {u1 - u0}, system {s1 - s0}; CLK_TCK {CLK_TCK}), "
                f"rss idle {rss0} kB, rss peak {peak} kB, threads {thr0} -> peak {thr_peak}, wall {wall:.2f}s\n")
    j = None
    for line in out.splitlines():
        if line.startswith("BENCHJSON "):
            j = json.loads(line[len("BENCHJSON "):])
    if j is None or j["requests"] == 0:
        return dict(failed=True, raw=os.path.basename(rawfile), error=out.strip()[-300:])
    req = j["requests"]; dur = j["duration_us"] / 1e6
    if prof.get("latency") is False:
        j["p50_us"] = j["p99_us"] = j["mean_us"] = j["max_us"] = None
    for k in ("p50_us", "p99_us"):
        if j[k] is not None and j[k] == 0 and j["mean_us"] > 0:
            # wrk 4.1 sometimes returns an empty percentile walk (seen with 40 ms pipelined
            # batches); keep mean/max, report the percentile as unknown
            j[k] = None
    cpu_s = (c1 - c0) / CLK_TCK
    return dict(requests=req, duration_s=dur, req_s=req / dur, p50_us=j["p50_us"], p99_us=j["p99_us"],
                mean_us=j["mean_us"], max_us=j["max_us"],
                cpu_ticks=c1 - c0, cpu_us_per_req=cpu_s * 1e6 / req, server_cpu_util=cpu_s / dur,
                cpu_sys_share=(s1 - s0) / (c1 - c0) if c1 > c0 else None,
                errors=j["connect"] + j["read"] + j["write"] + j["timeout"], non2xx=j["status"],
                err_detail={k: j[k] for k in ("connect", "read", "write", "timeout")},
                rss_idle_kb=rss0, rss_load_kb=peak, threads_idle=thr0, threads_peak=thr_peak,
                mbytes=j["bytes"] / 1e6, raw=os.path.basename(rawfile))


def run_h2load(srv, prof, duration, rawfile):
    """Pipelined load with h2load --h1 -m DEPTH: exact counts, and per-request latencies from
    its --log-file (wrk's percentiles are wrong with pipelining: its coordinated-omission
    correction assumes one request per round trip)."""
    url = f"http://127.0.0.1:{srv.port}{prof['path']}"
    logf = rawfile + ".reqlog"
    cmd = ["taskset", "-c", LOAD_CORE, "h2load", "--h1", "-t1", f"-c{prof['conns']}", f"-m{prof['depth']}",
           f"-D{max(1, int(round(duration)))}", "--warm-up-time=0", f"--log-file={logf}", url]
    pid = srv.pid
    rss0, thr0, peak, thr_peak, u0, s0, u1, s1, out, t0 = sampled_load(pid, cmd, duration)
    c0, c1 = u0 + s0, u1 + s1
    out = "\n".join(l for l in out.splitlines() if not l.startswith("progress:"))
    lat = []
    try:
        with open(logf) as f:
            for line in f:
                parts = line.split("\t")
                if len(parts) >= 3 and parts[2].strip().isdigit():
                    lat.append(int(parts[2]))
        os.remove(logf)
    except OSError:
        pass
    lat.sort()
    pct = lambda q: lat[min(len(lat) - 1, int(q / 100 * len(lat)))] if lat else None
    with open(rawfile, "w") as f:
        f.write("# " + " ".join(cmd) + "\n" + out)
        f.write(f"\n# per-request latency from the h2load log ({len(lat)} requests): p50 {pct(50)} us, "
                f"p90 {pct(90)} us, p99 {pct(99)} us, p99.9 {pct(99.9)} us, max {lat[-1] if lat else None} us\n")
        f.write(f"# server pid {pid}: cpu ticks {c0} -> {c1} (user {u1 - u0}, system {s1 - s0}; CLK_TCK {CLK_TCK}), rss idle {rss0} kB, "
                f"rss peak {peak} kB, threads {thr0} -> peak {thr_peak}\n")
    import re
    m_fin = re.search(r"finished in ([0-9.]+)(m?s)", out)
    m_req = re.search(r"requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, "
                      r"(\d+) errored, (\d+) timeout", out)
    m_st = re.search(r"status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx", out)
    if not (m_fin and m_req and m_st) or int(m_req.group(3)) == 0:
        return dict(failed=True, raw=os.path.basename(rawfile), error=out.strip()[-300:])
    dur = float(m_fin.group(1)) / (1000 if m_fin.group(2) == "ms" else 1)
    done = int(m_req.group(3))
    cpu_s = (c1 - c0) / CLK_TCK
    return dict(requests=done, duration_s=dur, req_s=done / dur, p50_us=pct(50), p99_us=pct(99),
                mean_us=(sum(lat) / len(lat)) if lat else None, max_us=lat[-1] if lat else None,
                cpu_ticks=c1 - c0, cpu_us_per_req=cpu_s * 1e6 / done, server_cpu_util=cpu_s / dur,
                cpu_sys_share=(s1 - s0) / (c1 - c0) if c1 > c0 else None,
                errors=int(m_req.group(5)) + int(m_req.group(6)) + int(m_req.group(7)),
                non2xx=int(m_st.group(3)) + int(m_st.group(4)),
                rss_idle_kb=rss0, rss_load_kb=peak, threads_idle=thr0, threads_peak=thr_peak,
                raw=os.path.basename(rawfile))


def run_ws(srv, prof, duration, rawfile, wsload):
    mode = prof["ws"]
    cmd = ["taskset", "-c", LOAD_CORE, wsload, mode, "-p", str(srv.port), "-u", srv.ws[mode],
           "-c", str(prof["conns"]), "-d", str(duration), "-w", "60"]
    if mode == "echo":
        cmd += ["-s", str(prof["size"])]
    pid = srv.pid
    rss0 = rss_kb(pid)
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    # CPU is counted from the end of the setup (the "upgraded" line) to the end of the
    # measurement ("measurement done", printed before the client closes its connections,
    # so that tearing down 10,000 connections is not charged to the messages)
    c0 = c1 = None
    peak = rss0 or 0
    out = []
    t0 = time.time()
    for line in p.stdout:
        out.append(line)
        if c0 is None and "upgraded in" in line:
            c0 = cpu_ticks(pid)
        if c1 is None and "measurement done" in line:
            c1 = cpu_ticks(pid)
        r = rss_kb(pid)
        if r:
            peak = max(peak, r)
        if time.time() - t0 > duration + 120:
            p.kill()
    p.wait()
    if c1 is None:  # a wsload without the "measurement done" line
        c1 = cpu_ticks(pid)
    out = "".join(out)
    with open(rawfile, "w") as f:
        f.write("# " + " ".join(cmd) + "\n" + out)
        f.write(f"\n# server pid {pid}: cpu ticks {c0} -> {c1}, rss idle {rss0} kB, rss peak {peak} kB\n")
    j = None
    for line in out.splitlines():
        if line.startswith("WSJSON "):
            j = json.loads(line[len("WSJSON "):])
    if j is None or not j["messages"] or c0 is None:
        return dict(failed=True, raw=os.path.basename(rawfile), error=out.strip()[-300:])
    cpu_s = (c1 - c0) / CLK_TCK
    return dict(requests=j["messages"], duration_s=j["seconds"], req_s=j["msg_s"],
                p50_us=j["p50_us"], p99_us=j["p99_us"], mean_us=None, max_us=j["max_us"],
                cpu_ticks=c1 - c0, cpu_us_per_req=cpu_s * 1e6 / j["messages"],
                errors=j["connections"] - j["alive"], non2xx=j["bad"], rss_idle_kb=rss0,
                rss_load_kb=peak, ws=j, raw=os.path.basename(rawfile))


def run_idle(srv, prof, duration, rawfile):
    ready = rawfile + ".ready"
    if os.path.exists(ready):
        os.remove(ready)
    rss_before = rss_kb(srv.pid)
    holder = subprocess.Popen(["taskset", "-c", LOAD_CORE, sys.executable,
                               os.path.join(HERE, "idleconns.py"), str(srv.port), str(prof["idle"]),
                               "--hold", str(duration + 120), "--ready-file", ready],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              start_new_session=True)
    RUNNING.append(holder)
    t0 = time.time()
    while not os.path.exists(ready) and holder.poll() is None and time.time() - t0 < 90:
        time.sleep(0.2)
    info = json.load(open(ready)) if os.path.exists(ready) else {}
    time.sleep(1.0)
    rss_held = rss_kb(srv.pid)
    thr_held = threads(srv.pid)
    res = run_wrk(srv, prof, duration, rawfile)
    holder.send_signal(signal.SIGTERM)
    try:
        out = holder.communicate(timeout=30)[0]
    except subprocess.TimeoutExpired:
        holder.kill(); out = holder.communicate()[0]
    RUNNING.remove(holder)
    try:
        fin = json.loads(out.strip().splitlines()[-1])
    except Exception:
        fin = {}
    n = info.get("answered", 0)
    res.update(idle_requested=prof["idle"], idle_answered=n, idle_alive_at_end=fin.get("alive_at_end"),
               rss_before_idle_kb=rss_before, rss_idle_held_kb=rss_held, threads_idle_held=thr_held,
               rss_per_idle_conn_kb=((rss_held - rss_before) / n) if n and rss_held and rss_before else None)
    with open(rawfile, "a") as f:
        f.write(f"# idle holder: setup {info}, end {fin}; rss before {rss_before} kB, "
                f"held {rss_held} kB, threads held {thr_held}\n")
    time.sleep(2.0)  # let the server notice the closed idle connections
    return res


# --------------------------------------------------------------------------- summary
def rng(xs):
    xs = [x for x in xs if x is not None]
    return (min(xs), max(xs)) if xs else (None, None)


def summarize(results):
    """Per (profile, server): medians, min-max, ratios from same-round pairs."""
    runs = results["runs"]
    summ = {}
    for prof in results["profiles"]:
        summ[prof] = {}
        byserver = {}
        for r in runs:
            if r["profile"] == prof and not r.get("failed"):
                byserver.setdefault(r["server"], {})[r["round"]] = r
        for s, rounds in byserver.items():
            rs = list(rounds.values())
            d = {}
            for k in ("req_s", "p50_us", "p99_us", "mean_us", "max_us", "cpu_us_per_req", "rss_idle_kb", "rss_load_kb",
                      "rss_per_idle_conn_kb", "rss_idle_held_kb", "threads_peak", "cpu_sys_share"):
                vals = [r.get(k) for r in rs]
                d[k] = med(vals); d[k + "_range"] = rng(vals)
            # memory taken by idle connections shows in the first round; later rounds reuse it
            for k in ("rss_per_idle_conn_kb", "rss_idle_held_kb"):
                vals = [r.get(k) for r in rs if r.get(k) is not None]
                d[k] = max(vals) if vals else None
            d["errors"] = sum(r["errors"] for r in rs)
            d["non2xx"] = sum(r["non2xx"] for r in rs)
            d["requests"] = sum(r["requests"] for r in rs)
            d["rounds"] = len(rs)
            if any("idle_alive_at_end" in r for r in rs):
                d["idle_alive_at_end"] = min((r.get("idle_alive_at_end") or 0) for r in rs)
                d["idle_answered"] = min((r.get("idle_answered") or 0) for r in rs)
            for anchor, key in ((ANCHOR_NGINX, "x_nginx"), (ANCHOR_JDK, "x_jdk"), (ANCHOR_ROBAHO, "x_robaho")):
                ratios = []
                for rnd, r in rounds.items():
                    a = byserver.get(anchor, {}).get(rnd)
                    if a and a["cpu_us_per_req"] > 0:
                        ratios.append(r["cpu_us_per_req"] / a["cpu_us_per_req"])
                d[key] = med(ratios); d[key + "_range"] = rng(ratios)
            summ[prof][s] = d
    return summ


def f_num(x, fmt="{:.0f}"):
    return "–" if x is None else fmt.format(x)


def f_us(x):
    if x is None:
        return "–"
    if x >= 10000:
        return f"{x / 1000:.0f} ms"
    if x >= 1000:
        return f"{x / 1000:.1f} ms"
    return f"{x:.0f} µs"


def f_kb(x):
    if x is None:
        return "–"
    return f"{x / 1024:.2f} MiB" if x < 10240 else f"{x / 1024:.1f} MiB"


def f_ratio(x, r):
    if x is None:
        return "–"
    if r[0] is not None and r[1] is not None and r[1] - r[0] >= 0.01:
        return f"{x:.2f} ({r[0]:.2f}–{r[1]:.2f})"
    return f"{x:.2f}"


def render_md(results, summ):
    m = results["meta"]
    L = []
    L.append(f"# tachy benchmark — {m['started']} ({m['mode']} mode)")
    L.append("")
    L.append(f"tachy `{m.get('tachy_rev', '?')}` · command: `{m['command']}` · {m['rounds']} alternating rounds × {m['duration_s']} s per "
             f"server and profile · server on core {SERVER_CORE}, load (wrk -t1) on core {LOAD_CORE} · "
             f"load average at start {m.get('loadavg_start')} , at end {m.get('loadavg_end')}")
    L.append("")
    L.append("Figures are medians over rounds (min–max in brackets where shown). **CPU µs/req** = "
             "server utime+stime (all threads, /proc/PID/stat) over the load ÷ completed requests. "
             "**×nginx / ×JDK / ×robaho** = median over rounds of the CPU-per-request ratio to "
             f"`{ANCHOR_NGINX}` / `{ANCHOR_JDK}` / `{ANCHOR_ROBAHO}` measured in the same round. "
             "**kernel share** = stime ÷ (utime + stime). "
             "**RSS idle** = VmRSS just before the load; **RSS load** = max VmRSS sampled during it. "
             "The machine is a shared 2-core VM: absolute req/s move ±10–40 % between runs; CPU/req and "
             "same-run ratios are the figures to read.")
    L.append("")
    L.append("## Servers")
    L.append("")
    L.append("| server | what | startup RSS (before any connection) | notes |")
    L.append("|---|---|---|---|")
    for name, s in results["servers"].items():
        L.append(f"| `{name}` | {s['label']} | {f_kb(s.get('startup_rss_kb'))} | {'; '.join(s['notes']) or ''} |")
    L.append("")
    order = list(results["servers"].keys())
    for prof in results["profiles"]:
        P = PROFILES[prof]
        L.append(f"## {prof}: {P['title']}")
        L.append("")
        rows = summ.get(prof, {})
        if prof == "ws-tick10k":
            L.extend(tick_notes(results, rows))
            if not rows:
                L.append("_no server with this endpoint_"); L.append(""); continue
        elif P["kind"] == "ws":
            L.append("The load client is `bench/wsload.c` (echo: each connection sends a 64-byte binary "
                     "message and waits for it back; latency per round trip). Only `tachy-c` takes part "
                     "(tachy-hello `/ws`): nginx has no WebSocket application of its own, the JDK's "
                     "server and robaho/httpserver have no server-side WebSocket API, and "
                     "`bench/servers/BenchServer.java` stays within the JDK's API. Columns: msg/s instead "
                     "of req/s, CPU µs per message; errors = connections lost; non-2xx = bad payloads.")
            L.append("")
            if not rows:
                L.append("_no server with this endpoint_"); L.append(""); continue
        if not rows:
            L.append("_no server measured_"); L.append(""); continue
        if prof == "close":
            L.append("wrk counts a read error whenever the server closes after a response that did not "
                     "say `Connection: close` (the JDK's behaviour, which tachy mirrors): there, errors ≈ "
                     "requests and are expected, not failures.")
            L.append("")
        idle = P["kind"] == "idle"
        hdr = "| server | req/s (min–max) | p50 | p99 | CPU µs/req (min–max) | kernel share | ×nginx | ×JDK | ×robaho | errors / non-2xx | RSS idle | RSS load |"
        if idle:
            hdr += " idle conns held (alive at end) | RSS with idle held | RSS / idle conn |"
        L.append(hdr)
        L.append("|" + "---|" * (hdr.count("|") - 1))
        for s in order:
            d = rows.get(s)
            if d is None:
                continue
            lo, hi = d["req_s_range"]; clo, chi = d["cpu_us_per_req_range"]
            line = (f"| `{s}` | {f_num(d['req_s'])} ({f_num(lo)}–{f_num(hi)}) | {f_us(d['p50_us'])} | "
                    f"{f_us(d['p99_us'])} | **{f_num(d['cpu_us_per_req'], '{:.2f}')}** "
                    f"({f_num(clo, '{:.2f}')}–{f_num(chi, '{:.2f}')}) | "
                    f"{'–' if d.get('cpu_sys_share') is None else format(d['cpu_sys_share'] * 100, '.0f') + ' %'} | "
                    f"{f_ratio(d['x_nginx'], d['x_nginx_range'])} | "
                    f"{f_ratio(d['x_jdk'], d['x_jdk_range'])} | {f_ratio(d['x_robaho'], d['x_robaho_range'])} | "
                    f"{d['errors']} / {d['non2xx']} | {f_kb(d['rss_idle_kb'])} | {f_kb(d['rss_load_kb'])} |")
            if idle:
                per = d.get("rss_per_idle_conn_kb")
                line += (f" {d.get('idle_answered')} ({d.get('idle_alive_at_end')}) | {f_kb(d.get('rss_idle_held_kb'))} | "
                         f"{'–' if per is None else f'{per:.1f} KiB'} |")
            L.append(line)
        missing = [s for s in order if s not in rows and (s not in FLOOR_SERVERS or prof == "ws-tick10k")]
        if missing:
            L.append("")
            L.append("Not measured here: " + ", ".join(
                f"`{s}` ({results['skipped'].get(prof, {}).get(s, 'not available')})" for s in missing))
        L.append("")
    L.append("## Targets (issues 6 and 12)")
    L.append("")
    L.extend(targets(results, summ))
    L.append("")
    L.append(f"Raw outputs: `{m['outdir_rel']}/raw/` (local, not committed: the load and server logs, "
             "results.json, chart.png, env.txt)")
    return "\n".join(L) + "\n"


def tick_notes(results, rows):
    """The ws-tick10k text: method, the floor measured in the same run, fan-out per client."""
    L = ["Columns: msg/s instead of req/s, **CPU µs per message** (server CPU over the measurement ÷ "
         "messages received); errors = connections lost; non-2xx = bad payloads. Tick latency (p50, p99) "
         "= kernel receive time stamp (SO_TIMESTAMPNS) at the client − the tick's **scheduled** time, which "
         "the server writes once per tick as the first token (so it includes the timer wake-up and the "
         "whole fan-out up to that client); target p99 < 5 ms. 10,000 clients, one tick every 500 ms.",
         "",
         "`tick-floor` and `tick-floor-uring` are not servers: `bench/tickfloor.c`, one thread that sends "
         "one pre-built frame to each socket in a tight loop (`send(MSG_DONTWAIT)` per socket / io_uring "
         "`IORING_OP_SEND`, 256 per `io_uring_enter`), pinned like the servers — the least one core can do "
         "with one TCP send per client. **fan-out per client** = the sender's own timing of each tick's "
         "loop ÷ clients (median over the ticks of all rounds; from `TICKFLOOR` / tachy-hello's `TICKSTATS` "
         "line in the server log)."]
    fl = []
    for name in ("tachy-c",) + FLOOR_SERVERS:
        ts = (results["servers"].get(name) or {}).get("tickstats")
        if ts and ts.get("ns_per_send_median"):
            fl.append(f"`{name}` {ts['ns_per_send_median'] / 1000:.2f} µs "
                      f"({ts.get('ns_per_send_min', 0) / 1000:.2f}–{ts.get('ns_per_send_max', 0) / 1000:.2f}, "
                      f"{ts.get('ticks')} ticks)")
    if fl:
        L += ["", "Fan-out per client (median, min–max over ticks): " + "; ".join(fl) + "."]
    fd, td = rows.get("tick-floor"), rows.get("tachy-c")
    if fd and fd.get("p99_us"):
        per = None
        ts = (results["servers"].get("tick-floor") or {}).get("tickstats") or {}
        if ts.get("ns_per_send_median"):
            per = ts["ns_per_send_median"] / 1000
        need = 5000 / (0.99 * PROFILES["ws-tick10k"]["conns"])
        msg = (f"**Floor in this run**: p99 {f_us(fd['p99_us'])}, p50 {f_us(fd['p50_us'])}"
               + (f", {per:.2f} µs per send" if per else "") + ". A sequential fan-out puts the 99th "
               f"percentile client after 99 % of the sends, so p99 < 5 ms needs ≤ {need:.2f} µs per client "
               "on the one core the server is pinned to")
        if per:
            msg += f" — {per / need:.0f}× less than the kernel's own cost of one loopback TCP send here"
        msg += "."
        if td and td.get("p99_us"):
            msg += (f" tachy-c: p99 {f_us(td['p99_us'])} = {td['p99_us'] / fd['p99_us']:.2f}× the floor's, "
                    f"CPU per message {td['cpu_us_per_req'] / fd['cpu_us_per_req']:.2f}× the floor's.")
        L += ["", msg]
    L.append("")
    return L


def pair_ratio(results, prof, a, b):
    """Median over rounds of a's CPU per request / b's in the same round, and the range."""
    by = {}
    for r in results["runs"]:
        if r["profile"] == prof and not r.get("failed") and r["server"] in (a, b):
            by.setdefault(r["round"], {})[r["server"]] = r["cpu_us_per_req"]
    xs = [d[a] / d[b] for d in by.values() if a in d and d.get(b)]
    return (med(xs), rng(xs)) if xs else (None, (None, None))


def targets(results, summ):
    out = ["| target | measured | holds? |", "|---|---|---|"]

    def get(prof, srv, key):
        return summ.get(prof, {}).get(srv, {}).get(key)

    def row(what, val, limit, fmt="{:.2f}"):
        if val is None:
            out.append(f"| {what} | not measured | – |")
        else:
            ok = val <= limit
            out.append(f"| {what} | {fmt.format(val)} | {'yes' if ok else f'no ({val / limit:.2f}× the limit)'} |")

    row("tachy C keep-alive 64 ≤ 0.9× nginx CPU/req", get("ka64", "tachy-c", "x_nginx"), 0.9)
    row("tachy C pipelined ×16 ≤ 0.15× nginx CPU/req (pipe16: wrk batches)", get("pipe16", "tachy-c", "x_nginx"), 0.15)
    if get("pipe16h", "tachy-c", "x_nginx") is not None:
        row("tachy C pipelined ×16 ≤ 0.15× nginx CPU/req (pipe16h: h2load streaming)",
            get("pipe16h", "tachy-c", "x_nginx"), 0.15)
    # Nagle + delayed ACK caps 64 connections x 16 at one batch per ~40 ms = 25.6k req/s
    for s in ("tachy-c", "tachy-java-none", "tachy-java-vt"):
        rps = get("pipe16", s, "req_s")
        if rps is None:
            continue
        ok = rps > 51200
        out.append(f"| `{s}` pipelined (pipe16): no 40 ms Nagle stalls (they cap 64 connections × 16 at "
                   f"25.6k req/s; holds above twice that) | {rps:.0f} req/s | {'yes' if ok else 'no'} |")
    for s in ("tachy-java-none", "tachy-java-vt"):
        row(f"`{s}` keep-alive ≤ 0.75× robaho", get("ka64", s, "x_robaho"), 0.75)
        row(f"`{s}` keep-alive ≤ 0.33× JDK", get("ka64", s, "x_jdk"), 0.33)
        row(f"`{s}` pipelined ≤ 1.5 µs/req", get("pipe16", s, "cpu_us_per_req"), 1.5, "{:.2f} µs")
    # issue 12: an executor at tachy speed; ratios of two servers measured in the same round
    for prof, limit in (("ka64", 0.75), ("ka1024", 0.75), ("pipe16", 0.5), ("pipe16h", 0.5)):
        v, r = pair_ratio(results, prof, "tachy-java-vt", "robaho-vt")
        if v is not None:
            row(f"`tachy-java-vt` {prof} ≤ {limit}× `robaho-vt` (same-round CPU/req ratio, range {r[0]:.2f}–{r[1]:.2f})",
                v, limit)
    for prof in ("ka64", "ka1024", "pipe16", "pipe16h"):
        v, r = pair_ratio(results, prof, "tachy-java-fixed", "robaho-fixed")
        if v is not None:
            row(f"`tachy-java-fixed` {prof} ≤ 0.75× `robaho-fixed` (same pool; range {r[0]:.2f}–{r[1]:.2f})", v, 0.75)
    srv = results["servers"].get("tachy-c")
    rss = srv.get("startup_rss_kb") if srv else None
    row("tachy-hello idle RSS ≤ 2 MiB", rss / 1024 if rss else None, 2.0, "{:.2f} MiB")
    per = get("idle4096", "tachy-c", "rss_per_idle_conn_kb")
    base = (results["servers"].get("tachy-c") or {}).get("startup_rss_kb")
    alive = get("idle4096", "tachy-c", "idle_alive_at_end")
    if per is not None and alive is not None and alive < 0.99 * PROFILES["idle4096"]["idle"]:
        out.append(f"| tachy C 10,000 idle connections ≤ 300 MiB | not measured: the server kept only {alive} "
                   f"of {PROFILES['idle4096']['idle']} idle connections | – |")
    else:
        est = ((base or 0) + per * 10000) / 1024 if per is not None else None
        row("tachy C 10,000 idle connections ≤ 300 MiB (startup RSS + 10,000 × RSS per idle connection "
            "measured with 4,096)", est, 300, "{:.0f} MiB")
    tick = get("ws-tick10k", "tachy-c", "p99_us")
    floor = get("ws-tick10k", "tick-floor", "p99_us")
    if tick is None:
        out.append("| 10,000-client WebSocket tick p99 < 5 ms | not measured | – |")
    else:
        row("tachy C 10,000-client WebSocket tick p99 < 5 ms" +
            (f" (floor in this run, one send per client on one core: {floor / 1000:.1f} ms)" if floor else ""),
            tick / 1000, 5.0, "{:.1f} ms")
    return out


# --------------------------------------------------------------------------- main
def build_servers(a, ports):
    S = []
    java = os.path.join(a.java_home, "bin", "java") if a.java_home else None
    jopts = a.java_opts.split()
    static_dir = a.static_dir
    p = iter(ports)

    def jcmd(cp, provider, mode):
        cmd = [java] + jopts + ["-cp", cp]
        if provider:
            cmd.append(f"-Dcom.sun.net.httpserver.HttpServerProvider={provider}")
        return cmd + ["BenchServer", "PORT", mode, static_dir]

    if shutil.which("nginx"):
        S.append(Server("nginx", "nginx (Debian), 1 worker, keepalive_requests 1e8, access_log off",
                        ["nginx", "-p", os.path.join(a.workdir, "nginx"), "-c",
                         os.path.join(a.workdir, "nginx", "nginx.conf")], next(p), "nginx",
                        skip={"post64k", "echo"}, notes=["no POST /echo: stock nginx cannot echo a body"]))
    if getattr(a, "h2o", False) and shutil.which("h2o"):
        S.append(Server("h2o", "h2o (Debian), num-threads 1, GET / from a 13-byte file",
                        ["h2o", "-c", os.path.join(a.workdir, "h2o", "h2o.conf")], next(p), "h2o",
                        skip={"post64k", "echo"}, notes=["no POST /echo"]))
    if a.tachy_hello:
        extra = os.environ.get("BENCH_TACHY_HELLO_ARGS", "").split()
        try:
            usage = subprocess.run([a.tachy_hello, "-h"], capture_output=True, text=True, timeout=5)
            usage = usage.stdout + usage.stderr
        except (OSError, subprocess.TimeoutExpired):
            usage = ""
        if not extra and "-i MAX_IDLE" in usage:
            extra = ["-i", "100000"]  # as -Dsun.net.httpserver.maxIdleConnections for the Java servers
        notes = ([f"args: {' '.join(extra)} (maxIdleConnections, as the Java servers)"] if extra else
                 ["JDK defaults, incl. maxIdleConnections 200: this tachy-hello has no -i flag, so "
                  "with more than 200 connections it closes idle keep-alive connections (read errors in "
                  "ka1024/idle4096)"])
        S.append(Server("tachy-c", "tachy C: examples/hello.c (`tachy-hello`)",
                        [a.tachy_hello, "-p", "PORT", "-b", "127.0.0.1"] + extra, next(p), "native",
                        skip={"static1m"} if a.tachy_fileserver else set(), notes=notes))
        S[-1].ws = {"echo": "/ws"}
        # GET /tick (ws-tick10k) in every tachy-hello that documents -t TICK_MS;
        # BENCH_TACHY_TICK_PATH overrides the path ("" turns the profile off for tachy-c)
        tick = os.environ.get("BENCH_TACHY_TICK_PATH", "/tick" if "TICK_MS" in usage else "")
        if tick:
            S[-1].ws["tick"] = tick
    if getattr(a, "tickfloor", None):
        for name, mode in (("tick-floor", "send"), ("tick-floor-uring", "uring")):
            S.append(Server(name, f"`bench/tickfloor.c -m {mode}`: the floor for ws-tick10k, not a server "
                            "(one thread, one pre-built frame, " +
                            ("one send(MSG_DONTWAIT) per socket)" if mode == "send" else
                             "io_uring IORING_OP_SEND, 256 per io_uring_enter)"),
                            [a.tickfloor, "-p", "PORT", "-b", "127.0.0.1", "-m", mode], next(p), "native",
                            only={"ws-tick10k"}))
            S[-1].ws = {"tick": "/tick"}
    if a.tachy_fileserver:
        S.append(Server("tachy-c-fs", "tachy C: examples/fileserver.c (`tachy-fileserver`), static profile only",
                        [a.tachy_fileserver] + a.tachy_fileserver_args.replace("DIR", os.path.dirname(static_dir)).split(),
                        next(p), "native", only={"static1m"}))
    if java and a.java_classes:
        cp = a.java_classes
        S.append(Server("jdk-none", "JDK 25 built-in, default executor (none: dispatcher thread)",
                        jcmd(cp, None, "none"), next(p), "java", expect="sun.net.httpserver"))
        S.append(Server("jdk-vt", "JDK 25 built-in, virtual-thread executor",
                        jcmd(cp, None, "vt"), next(p), "java", expect="sun.net.httpserver"))
        if a.robaho_jar:
            S.append(Server("robaho-vt", f"robaho/httpserver {a.robaho_version}, JDK 25, virtual threads",
                            jcmd(cp + ":" + a.robaho_jar, "robaho.net.httpserver.DefaultHttpServerProvider", "vt"),
                            next(p), "java", expect="robaho"))
            S.append(Server("robaho-fixed", f"robaho/httpserver {a.robaho_version}, JDK 25, "
                            "newFixedThreadPool(4)",
                            jcmd(cp + ":" + a.robaho_jar, "robaho.net.httpserver.DefaultHttpServerProvider", "fixed"),
                            next(p), "java", expect="robaho"))
        if a.jetty_cp:
            prov = "org.eclipse.jetty.http.spi.JettyHttpServerProvider"
            S.append(Server("jetty-none", f"Jetty {a.jetty_version} jetty-http-spi, JDK 25, no executor "
                            "(Jetty's own QueuedThreadPool)",
                            jcmd(cp + ":" + a.jetty_cp, prov, "none"), next(p), "java", expect="jetty"))
            S.append(Server("jetty-vt", f"Jetty {a.jetty_version} jetty-http-spi, JDK 25, virtual threads",
                            jcmd(cp + ":" + a.jetty_cp, prov, "vt"), next(p), "java", expect="jetty"))
        if a.tachy_jar:
            prov = "dev.tachy.httpserver.TachyServerProvider"
            jar = (f"`{a.tachy_jar_origin or os.path.basename(a.tachy_jar)}` built "
                   f"{datetime.datetime.utcfromtimestamp(os.path.getmtime(a.tachy_jar)).strftime('%H:%M UTC')}")
            S.append(Server("tachy-java-none", f"tachy Java provider ({jar}), JDK 25, no executor (connection thread)",
                            jcmd(cp + ":" + a.tachy_jar, prov, "none"), next(p), "java", expect="dev.tachy"))
            S.append(Server("tachy-java-vt", f"tachy Java provider ({jar}), JDK 25, virtual-thread executor",
                            jcmd(cp + ":" + a.tachy_jar, prov, "vt"), next(p), "java", expect="dev.tachy"))
            S.append(Server("tachy-java-fixed", f"tachy Java provider ({jar}), JDK 25, newFixedThreadPool(4)",
                            jcmd(cp + ":" + a.tachy_jar, prov, "fixed"), next(p), "java", expect="dev.tachy"))
    for s in S:
        s.cmd = [str(s.port) if x == "PORT" else x for x in s.cmd]
    profs = a.profiles.split(",") if a.profiles else (QUICK_PROFILES if a.mode == "quick" else FULL_PROFILES)
    if "ws-tick10k" not in profs:
        S = [s for s in S if s.name not in FLOOR_SERVERS]
    if a.servers:
        want = a.servers.split(",") + list(FLOOR_SERVERS)  # the floor goes with ws-tick10k
        S = [s for s in S if s.name in want]
    return S


def add_server_args(ap):
    """The options that say where the servers are (bench/lib/servers.sh passes them), shared
    by this driver and bench/lib/paced.py."""
    ap.add_argument("--tachy-hello")
    ap.add_argument("--tachy-fileserver")
    ap.add_argument("--tachy-fileserver-args", default="-p PORT -b 127.0.0.1 -d DIR")
    ap.add_argument("--tachy-jar")
    ap.add_argument("--robaho-jar")
    ap.add_argument("--robaho-version", default="?")
    ap.add_argument("--jetty-cp", help="class path of jetty-http-spi and its dependencies")
    ap.add_argument("--jetty-version", default="?")
    ap.add_argument("--java-home")
    ap.add_argument("--java-classes")
    ap.add_argument("--java-opts", default="")
    ap.add_argument("--base-port", type=int, default=18400)
    ap.add_argument("--wsload", help="path of the built bench/wsload.c")
    ap.add_argument("--tickfloor", help="path of the built bench/tickfloor.c (ws-tick10k floor rows)")
    ap.add_argument("--tachy-note", help="a note for the tachy servers (e.g. a failed build)")
    ap.add_argument("--tachy-rev", default="?", help="the tachy commit measured")
    ap.add_argument("--tachy-jar-origin", default=None, help="where the jar came from (for the label)")
    ap.add_argument("--tachy-jar-note", default=None)
    ap.add_argument("--skip-note", action="append", default=[], help="NAME=why: server not available")


def write_confs(servers, workdir, static_dir):
    """nginx's and h2o's configuration files from bench/servers/*.conf.in, for the port each got."""
    for s in servers:
        if s.kind not in ("nginx", "h2o"):
            continue
        d = os.path.join(workdir, s.kind)
        os.makedirs(d, exist_ok=True)
        tpl = open(os.path.join(BENCH, "servers", s.kind + ".conf.in")).read()
        with open(os.path.join(d, "hello.txt"), "wb") as f:
            f.write(b"Hello, World!")
        open(os.path.join(d, s.kind + ".conf"), "w").write(
            tpl.replace("@PORT@", str(s.port)).replace("@PREFIX@", d).replace("@STATIC@", static_dir))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", choices=["quick", "full"], default="quick")
    ap.add_argument("--outdir", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--static-dir", required=True)
    ap.add_argument("--rounds", type=int)
    ap.add_argument("--duration", type=float)
    ap.add_argument("--warmup", type=float, help="JVM warm-up seconds")
    ap.add_argument("--profile-warmup", type=float)
    ap.add_argument("--profiles")
    ap.add_argument("--servers")
    add_server_args(ap)
    ap.add_argument("--command", default="bench/run.sh")
    a = ap.parse_args()

    quick = a.mode == "quick"
    rounds = a.rounds or (3 if quick else 5)
    duration = a.duration or (3 if quick else 8)
    warmup = a.warmup if a.warmup is not None else (5 if quick else 10)
    pwarm = a.profile_warmup if a.profile_warmup is not None else (1 if quick else 2)
    profiles = a.profiles.split(",") if a.profiles else (QUICK_PROFILES if quick else FULL_PROFILES)

    rawdir = os.path.join(a.outdir, "raw")
    os.makedirs(rawdir, exist_ok=True)
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda *x: (stop_all(), sys.exit(130)))

    # nginx config
    ngdir = os.path.join(a.workdir, "nginx")
    os.makedirs(ngdir, exist_ok=True)
    servers = build_servers(a, range(a.base_port, a.base_port + 50))
    if a.tachy_jar_note:
        for srv in servers:
            if srv.name.startswith("tachy-java"):
                srv.notes.append(a.tachy_jar_note)
    if a.tachy_note:
        for srv in servers:
            if srv.name.startswith("tachy-c"):
                srv.notes.append(a.tachy_note)
    write_confs(servers, a.workdir, a.static_dir)
    static_bytes = open(os.path.join(a.static_dir, "1m.bin"), "rb").read()

    results = dict(meta=dict(mode=a.mode, rounds=rounds, duration_s=duration, warmup_s=warmup,
                             profile_warmup_s=pwarm, command=a.command,
                             started=datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC"),
                             outdir_rel=os.path.relpath(a.outdir, os.path.dirname(BENCH)),
                             loadavg_start=open("/proc/loadavg").read().split()[:3],
                             java_opts=a.java_opts, clk_tck=CLK_TCK, tachy_rev=a.tachy_rev),
                   profiles=profiles, servers={}, runs=[], skipped={})
    for name in ORDER:
        for srv in servers:
            if srv.name == name:
                results["servers"][name] = None
        if name not in results["servers"] and any(n.startswith(name + "=") for n in a.skip_note):
            results["servers"][name] = None
    for note in a.skip_note:
        n, _, why = note.partition("=")
        results["servers"][n] = dict(label=n, notes=["not measured: " + why], startup_rss_kb=None)

    try:
        live = []
        for s in servers:
            log(f"start {s.name} on :{s.port}")
            if s.start(rawdir):
                bad = check_routes(s, static_bytes)
                if bad is None:
                    s.notes.append("failed the GET / check; not measured"); s.stop(); s.ok = False
                else:
                    s.skip |= bad
                    live.append(s)
            results["servers"][s.name] = dict(label=s.label, port=s.port, cmd=s.cmd, notes=s.notes,
                                              startup_rss_kb=s.startup_rss, ok=s.ok)
        # JVM warm-up: same load as measured (keep-alive, then pipelined, then echo)
        for s in live:
            if s.only is not None:
                continue  # warmed up by its profile's own warm-up
            w = warmup if s.kind == "java" else 1
            log(f"warm-up {s.name} {w}s")
            run_wrk(s, PROFILES["ka64"], w, os.path.join(rawdir, f"warmup-{s.name}-ka64.txt"))
            if s.kind == "java":
                run_wrk(s, PROFILES["pipe16"], max(1, w / 2), os.path.join(rawdir, f"warmup-{s.name}-pipe16.txt"))
                if s.serves("post64k"):
                    run_wrk(s, PROFILES["post64k"], max(1, w / 2), os.path.join(rawdir, f"warmup-{s.name}-post64k.txt"))
        for s in live:
            results["servers"][s.name]["rss_after_warmup_kb"] = rss_kb(s.pid)

        for prof in profiles:
            P = PROFILES[prof]
            if P["kind"] == "ws" and not a.wsload:
                continue
            part = [s for s in live if s.serves(prof)]
            results["skipped"][prof] = {s.name: "not served (see notes)" for s in servers if not s.serves(prof)}
            if pwarm > 0 and P["kind"] in ("wrk", "h2load"):
                for s in part:
                    run_wrk(s, P, pwarm, os.path.join(rawdir, f"warmup-{s.name}-{prof}.txt"))
            for rnd in range(1, rounds + 1):
                for s in part:
                    if s.proc is None or s.proc.poll() is not None:
                        s.notes.append(f"died during {prof}")
                        continue
                    raw = os.path.join(rawdir, f"{prof}-r{rnd}-{s.name}.txt")
                    if P["kind"] == "idle":
                        r = run_idle(s, P, duration, raw)
                    elif P["kind"] == "ws":
                        r = run_ws(s, P, duration, raw, a.wsload)
                    elif P["kind"] == "h2load":
                        r = run_h2load(s, P, duration, raw)
                    else:
                        r = run_wrk(s, P, duration, raw)
                    r.update(profile=prof, server=s.name, round=rnd)
                    results["runs"].append(r)
                    if r.get("failed"):
                        log(f"{prof} r{rnd} {s.name}: FAILED {r.get('error', '')[-120:]}")
                    else:
                        log(f"{prof} r{rnd} {s.name}: {r['req_s']:.0f} req/s, {r['cpu_us_per_req']:.2f} µs/req, "
                            f"p99 {r['p99_us']} µs, max {r['max_us']} µs, err {r['errors']}/{r['non2xx']}, rss {r['rss_load_kb']} kB")
                    with open(os.path.join(a.outdir, "raw", "results.json"), "w") as f:
                        json.dump(results, f, indent=1)
        for s in live:
            if s.proc is None or s.proc.poll() is not None:
                s.notes.append("exited before the end of the run")
    finally:
        for s in servers:
            s.stop()
        stop_all()
    results["meta"]["loadavg_end"] = open("/proc/loadavg").read().split()[:3]
    results["meta"]["finished"] = datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC")
    for s in servers:
        results["servers"][s.name]["notes"] = s.notes
        # the fan-out timing the tick senders print when stopped (TICKSTATS / TICKFLOOR)
        try:
            for line in open(s.logfile or os.devnull):
                if line.startswith(("TICKSTATS ", "TICKFLOOR ")):
                    results["servers"][s.name]["tickstats"] = json.loads(line.split(" ", 1)[1])
        except (OSError, ValueError):
            pass
    with open(os.path.join(a.outdir, "raw", "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    summ = summarize(results)
    md = render_md(results, summ)
    with open(os.path.join(a.outdir, "table.md"), "w") as f:
        f.write(md)
    log("wrote", os.path.join(a.outdir, "table.md"))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--render":
        d = sys.argv[2]
        res = json.load(open(os.path.join(d, "raw", "results.json")))
        sys.stdout.write(render_md(res, summarize(res)))
    else:
        main()
