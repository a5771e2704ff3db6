#!/usr/bin/env python3
"""The HttpArena profiles at this machine's scale (bench/arena.sh is the front door).

Servers: tachy-arena (C), tachy-fileserver (static only), h2o (1 thread) and nginx (1 worker)
where they can serve a profile (static files; baseline/pipeline as constant plaintext), and
the Java twin when its jar is given. Server on core 0, load on core 1; rounds alternate the
servers (A B C A B C ...); every figure is the median over the rounds (min-max beside it).
CPU per request = server utime+stime (/proc/PID/stat, all threads, the process and its
children: nginx's worker, h2o's helpers) over the load / completed requests.

Writes OUT/table.md (the summary) and OUT/raw/ (every load output and server log,
results.json, chart.png); bench/arena.sh's OUT is under bench/results/runs/, which git ignores.
"""
import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

from benchutil import CLK_TCK, log, med, sampled_load, stop_group, wait_port

SERVER_CORE, LOAD_CORE = "0", "1"
BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(BENCH)
LUA = os.path.join(BENCH, "lua")
RUNNING = []

# name -> (title, kind, conns, path-or-None per server kind)
#   path keys: "arena", "fs" (tachy-fileserver), "h2o", "nginx", "java"
PROFILES = {
    "static-ka": dict(title="static 13 B file, keep-alive, 64 conns", kind="wrk", conns=64,
                      paths=dict(fs="/hello.txt", arena="/static/hello.txt", h2o="/static/hello.txt",
                                 nginx="/static/hello.txt", java="/static/hello.txt")),
    "static-pipe16": dict(title="static 13 B file, pipelined x16, 64 conns", kind="h2load", conns=64,
                          depth=16,
                          paths=dict(fs="/hello.txt", arena="/static/hello.txt", h2o="/static/hello.txt",
                                     nginx="/static/hello.txt", java="/static/hello.txt")),
    "static-1m": dict(title="static 1 MiB file, keep-alive, 16 conns", kind="wrk", conns=16,
                      paths=dict(fs="/1m.bin", arena="/static/1m.bin", h2o="/static/1m.bin",
                                 nginx="/static/1m.bin", java="/static/1m.bin")),
    "static-app": dict(title="static app.js (.br variant), Accept-Encoding br, 64 conns", kind="wrk",
                       conns=64, headers=["Accept-Encoding: br, gzip"],
                       paths=dict(arena="/static/app.js", java="/static/app.js")),
    "baseline": dict(title="GET /baseline11?a=1&b=2, 64 conns (h2o: a file; nginx: return)",
                     kind="wrk", conns=64,
                     paths=dict(arena="/baseline11?a=1&b=2", h2o="/baseline11", nginx="/baseline11",
                                java="/baseline11?a=1&b=2")),
    "pipelined": dict(title="GET /pipeline, pipelined x16, 64 conns", kind="h2load", conns=64, depth=16,
                      paths=dict(arena="/pipeline", h2o="/pipeline", nginx="/pipeline", java="/pipeline")),
    "json": dict(title="GET /json/50?m=3, 64 conns", kind="wrk", conns=64,
                 paths=dict(arena="/json/50?m=3", java="/json/50?m=3")),
    "json-comp": dict(title="GET /json/50?m=3 with Accept-Encoding: gzip, 64 conns", kind="wrk",
                      conns=64, headers=["Accept-Encoding: gzip"],
                      paths=dict(arena="/json/50?m=3", java="/json/50?m=3")),
    "json-tls": dict(title="GET /json/50?m=3 over TLS 1.3, 64 conns", kind="wrk", conns=64, tls=True,
                     paths=dict(arena="/json/50?m=3", java="/json/50?m=3")),
    "8gbit": dict(title="POST /echo 100 KB over TLS, 16 conns", kind="wrk", conns=16, tls=True,
                  script="arena_echo.lua", paths=dict(arena="/echo", java="/echo")),
    "async": dict(title="GET /delay/15, 256 conns", kind="wrk", conns=256,
                  paths=dict(arena="/delay/15", java="/delay/15")),
    "echo-ws": dict(title="WebSocket echo, 32 B messages, 64 conns", kind="ws", conns=64,
                    paths=dict(arena="/ws", java="/ws")),
}


def start(name, cmd, port, logdir, cwd=None):
    logf = open(os.path.join(logdir, f"{name}.log"), "w")
    p = subprocess.Popen(["taskset", "-c", SERVER_CORE] + cmd, stdout=logf, stderr=subprocess.STDOUT,
                         cwd=cwd, start_new_session=True)
    RUNNING.append(p)
    if not wait_port(port, p, 30):
        log(f"{name} did not start (see raw/{name}.log)")
        stop(p)
        return None
    return p


def stop(p):
    stop_group(p, 10)


def stop_all(*_):
    for p in RUNNING:
        stop(p)
    sys.exit(1)


def run_load(pid, cmd, duration, env=None):
    """The load's output, the server tree's user and system ticks during it, its RSS before
    and its peak."""
    rss0, _, peak, _, u0, s0, u1, s1, out, _ = sampled_load(pid, cmd, duration, env, tree=True)
    return out, u1 - u0, s1 - s0, rss0, peak


def measure(srv, prof, duration, raw, wsload):
    path = prof["paths"][srv["kind"]]
    port = srv["tls_port"] if prof.get("tls") else srv["port"]
    scheme = "https" if prof.get("tls") else "http"
    url = f"{scheme}://127.0.0.1:{port}{path}"
    env = dict(os.environ, BENCH_LUA_DIR=LUA, PIPELINE_PATH=path, PIPELINE_DEPTH=str(prof.get("depth", 16)))
    if prof["kind"] == "wrk":
        cmd = ["taskset", "-c", LOAD_CORE, "wrk", "-t1", f"-c{prof['conns']}", f"-d{duration}s", "--latency",
               "-s", os.path.join(LUA, prof.get("script", "keepalive.lua"))]
        for h in prof.get("headers", []):
            cmd += ["-H", h]
        cmd.append(url)
    elif prof["kind"] == "h2load":
        cmd = ["taskset", "-c", LOAD_CORE, "h2load", "--h1", "-t1", f"-c{prof['conns']}",
               f"-m{prof['depth']}", f"-D{duration}", "--warm-up-time=0", url]
    else:
        cmd = ["taskset", "-c", LOAD_CORE, wsload, "echo", "-p", str(port), "-u", path,
               "-c", str(prof["conns"]), "-s", "32", "-d", str(duration)]
    out, du, ds, rss0, peak = run_load(srv["proc"].pid, cmd, duration, env)
    with open(raw, "w") as f:
        f.write("# " + " ".join(cmd) + "\n" + out +
                f"\n# server {srv['name']} pid {srv['proc'].pid}: user {du} system {ds} ticks "
                f"(CLK_TCK {CLK_TCK}), rss idle {rss0} kB, peak {peak} kB\n")
    done = errors = non2xx = 0
    dur = duration
    if prof["kind"] == "wrk":
        m = re.search(r"BENCHJSON (\{.*\})", out)
        if not m:
            return None
        j = json.loads(m.group(1))
        done, dur = j["requests"], j["duration_us"] / 1e6
        errors = j["connect"] + j["read"] + j["write"] + j["timeout"]
        non2xx = j["status"]
        p50, p99 = j["p50_us"], j["p99_us"]
    elif prof["kind"] == "h2load":
        m = re.search(r"requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed", out)
        st = re.search(r"status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx", out)
        fin = re.search(r"finished in ([0-9.]+)(m?s)", out)
        if not (m and st and fin):
            return None
        done = int(m.group(3))
        errors = int(m.group(5))
        non2xx = int(st.group(3)) + int(st.group(4))
        dur = float(fin.group(1)) / (1000 if fin.group(2) == "ms" else 1)
        p50 = p99 = None
    else:
        m = re.search(r"WSJSON (\{.*\})", out)
        if not m:
            return None
        j = json.loads(m.group(1))
        done = j.get("messages", 0)
        dur = j.get("seconds", duration)
        p50, p99 = j.get("p50_us"), j.get("p99_us")
    if done == 0:
        return None
    return dict(requests=done, req_s=done / dur, cpu_us=(du + ds) / CLK_TCK * 1e6 / done,
                sys_share=ds / (du + ds) if du + ds else None, p50_us=p50, p99_us=p99,
                errors=errors, non2xx=non2xx, rss_idle_kb=rss0, rss_load_kb=peak,
                raw=os.path.basename(raw))


def setup_tree(work, shipped):
    data = os.path.join(work, "data")
    if os.path.exists(data):
        shutil.rmtree(data)
    shutil.copytree(shipped, data)
    st = os.path.join(data, "static")
    with open(os.path.join(st, "hello.txt"), "wb") as f:
        f.write(b"Hello, World!")
    with open(os.path.join(st, "1m.bin"), "wb") as f:
        f.write(os.urandom(1 << 20))
    h2root = os.path.join(work, "h2oroot")
    os.makedirs(h2root, exist_ok=True)
    for name, body in (("baseline11", b"3"), ("pipeline", b"ok")):
        with open(os.path.join(h2root, name), "wb") as f:
            f.write(body)
    return data, h2root


def h2o_conf(work, port, data, h2root):
    p = os.path.join(work, "h2o.conf")
    with open(p, "w") as f:
        f.write(f"""num-threads: 1
listen:
  host: 127.0.0.1
  port: {port}
http1-request-timeout: 300
hosts:
  default:
    paths:
      /static:
        file.dir: {data}/static
      /:
        file.dir: {h2root}
        file.mime.setdefaulttype: text/plain
""")
    return p


def nginx_conf(work, port, data):
    prefix = os.path.join(work, "nginx")
    os.makedirs(prefix, exist_ok=True)
    p = os.path.join(prefix, "nginx.conf")
    with open(p, "w") as f:
        f.write(f"""daemon off;
worker_processes 1;
worker_rlimit_nofile 20000;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log warn;
events {{ worker_connections 16384; }}
http {{
    access_log off;
    client_body_temp_path {prefix}/cb; proxy_temp_path {prefix}/px; fastcgi_temp_path {prefix}/fc;
    uwsgi_temp_path {prefix}/uw; scgi_temp_path {prefix}/sc;
    keepalive_requests 100000000; keepalive_timeout 300s;
    sendfile on; tcp_nopush on; tcp_nodelay on; server_tokens off;
    server {{
        listen 127.0.0.1:{port} backlog=4096;
        location = /baseline11 {{ default_type text/plain; return 200 "3"; }}
        location = /pipeline {{ default_type text/plain; return 200 "ok"; }}
        location /static/ {{ alias {data}/static/; default_type application/octet-stream; }}
    }}
}}
""")
    return p, prefix


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="")
    ap.add_argument("--out", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--duration", type=int, default=3)
    ap.add_argument("--profiles", default=",".join(PROFILES))
    ap.add_argument("--servers", default="tachy-arena,tachy-fileserver,h2o,nginx,tachy-java")
    ap.add_argument("--java-cmd", default="", help="command line of the Java twin (a shell string)")
    ap.add_argument("--wsload", default="")
    ap.add_argument("--fs-before", default="", help="another tachy-fileserver binary (an older revision)")
    ap.add_argument("--cert", default="")
    ap.add_argument("--key", default="")
    ap.add_argument("--render", action="store_true",
                    help="only re-render OUT/table.md and OUT/raw/chart.png from OUT/raw/results.json")
    a = ap.parse_args()
    if a.render:
        with open(os.path.join(a.out, "raw", "results.json")) as f:
            saved = json.load(f)
        a.rounds, a.duration = saved["rounds_n"], saved["duration"]
        write_table(a, saved["summary"], saved["notes"])
        write_chart(a, saved["summary"])
        return 0
    signal.signal(signal.SIGTERM, stop_all)
    signal.signal(signal.SIGINT, stop_all)
    raw = os.path.join(a.out, "raw")
    os.makedirs(raw, exist_ok=True)
    work = os.path.join(BENCH, "build", "arena")
    os.makedirs(work, exist_ok=True)
    data, h2root = setup_tree(work, os.path.join(ROOT, "examples", "httparena", "data"))
    want = a.servers.split(",")
    profiles = [p for p in a.profiles.split(",") if p in PROFILES]
    notes = []
    servers = []
    base = 18480

    def add(name, kind, cmd, port, tls_port=None, cwd=None):
        p = start(name, cmd, port, raw, cwd)
        if p:
            servers.append(dict(name=name, kind=kind, proc=p, port=port, tls_port=tls_port))
        else:
            notes.append(f"{name}: did not start (raw/{name}.log)")

    if "tachy-arena" in want:
        add("tachy-arena", "arena", [os.path.join(a.build, "examples", "tachy-arena"), "--port", str(base),
                                     "--tls-port", str(base + 1), "--cert", a.cert, "--key", a.key,
                                     "--data", data, "--bind", "127.0.0.1"], base, base + 1)
    if "tachy-fileserver" in want:
        add("tachy-fileserver", "fs", [os.path.join(a.build, "examples", "tachy-fileserver"), "-p",
                                       str(base + 2), "-d", os.path.join(data, "static"), "-o", "none"],
            base + 2)
    if a.fs_before:
        add("tachy-fs-before", "fs", [a.fs_before, "-p", str(base + 7), "-d", os.path.join(data, "static"),
                                      "-o", "none"], base + 7)
    if "h2o" in want:
        if shutil.which("h2o"):
            add("h2o", "h2o", ["h2o", "-c", h2o_conf(work, base + 3, data, h2root)], base + 3)
        else:
            notes.append("h2o: not installed")
    if "nginx" in want:
        if shutil.which("nginx"):
            conf, prefix = nginx_conf(work, base + 4, data)
            add("nginx", "nginx", ["nginx", "-p", prefix, "-c", conf], base + 4)
        else:
            notes.append("nginx: not installed")
    if "tachy-java" in want:
        if a.java_cmd:
            add("tachy-java", "java", ["sh", "-c", a.java_cmd.format(port=base + 5, tls_port=base + 6,
                                                                     data=data)], base + 5, base + 6)
        else:
            notes.append("tachy-java: no provider jar (see the report), left out")
    if not servers:
        log("no server started")
        return 1
    log("servers: " + ", ".join(s["name"] for s in servers))
    wsload = a.wsload if a.wsload and os.access(a.wsload, os.X_OK) else None
    results = {}
    try:
        for pname in profiles:
            prof = PROFILES[pname]
            cand = [s for s in servers if s["kind"] in prof["paths"]
                    and (not prof.get("tls") or s["tls_port"])]
            if prof["kind"] == "ws" and not wsload:
                notes.append(f"{pname}: bench/wsload not built, skipped")
                continue
            if not cand:
                continue
            log(f"{pname}: {prof['title']} - " + ", ".join(s["name"] for s in cand))
            for s in cand:  # warm-up, unmeasured (the JVM gets longer: its JIT)
                measure(s, prof, 5 if s["kind"] == "java" else 1,
                        os.path.join(raw, f"{pname}-{s['name']}-warmup.txt"), wsload)
            for r in range(a.rounds):
                for s in cand:
                    res = measure(s, prof, a.duration, os.path.join(raw, f"{pname}-{s['name']}-r{r}.txt"),
                                  wsload)
                    results.setdefault(pname, {}).setdefault(s["name"], []).append(res)
    finally:
        for s in servers:
            stop(s["proc"])
    summary = {}
    for pname, by in results.items():
        summary[pname] = {}
        for sname, rs in by.items():
            ok = [r for r in rs if r]
            summary[pname][sname] = dict(
                rounds=len(ok), failed_rounds=len(rs) - len(ok),
                cpu_us=med([r["cpu_us"] for r in ok]),
                cpu_min=min((r["cpu_us"] for r in ok), default=None),
                cpu_max=max((r["cpu_us"] for r in ok), default=None),
                req_s=med([r["req_s"] for r in ok]),
                p99_us=med([r["p99_us"] for r in ok]),
                errors=sum(r["errors"] for r in ok), non2xx=sum(r["non2xx"] for r in ok),
                rss_load_kb=max((r["rss_load_kb"] for r in ok), default=None))
        # same-round ratios against h2o and nginx
        for ref in ("h2o", "nginx"):
            if ref not in by:
                continue
            for sname, rs in by.items():
                ratios = [x["cpu_us"] / y["cpu_us"] for x, y in zip(rs, by[ref]) if x and y]
                summary[pname][sname][f"x_{ref}"] = med(ratios)
    with open(os.path.join(a.out, "raw", "results.json"), "w") as f:
        json.dump(dict(summary=summary, rounds=results, notes=notes, duration=a.duration,
                       rounds_n=a.rounds), f, indent=1)
    write_table(a, summary, notes)
    write_chart(a, summary)
    return 0


def fmt(x, f="{:.1f}"):
    return "–" if x is None else f.format(x)


def write_table(a, summary, notes):
    lines = [f"# HttpArena profiles, local scale (run {os.path.basename(os.path.normpath(a.out))})",
             "",
             f"Server on core 0, load on core 1 (wrk -t1 / h2load -t1 / bench/wsload), {a.rounds} "
             f"alternating rounds x {a.duration} s after a warm-up per server and profile (1 s; 5 s for the JVM); median (min-max). "
             "CPU = server utime+stime per completed request. ×h2o / ×nginx: CPU ratio in the same "
             "round, median over rounds. The machine is shared with other engineers' jobs: absolute "
             "req/s moves from run to run, the same-round ratios much less.", "",
             "| profile | server | CPU µs/req | ×h2o | ×nginx | req/s | p99 ms | errors / non-2xx | RSS MB |",
             "|---|---|---|---|---|---|---|---|---|"]
    for pname, by in summary.items():
        for sname, s in by.items():
            cpu = f"{fmt(s['cpu_us'])} ({fmt(s['cpu_min'])}–{fmt(s['cpu_max'])})"
            lines.append(f"| {pname} | {sname} | {cpu} | {fmt(s.get('x_h2o'), '{:.2f}')} | "
                         f"{fmt(s.get('x_nginx'), '{:.2f}')} | {fmt(s['req_s'], '{:.0f}')} | "
                         f"{fmt(s['p99_us'] / 1000 if s['p99_us'] else None, '{:.2f}')} | "
                         f"{s['errors']} / {s['non2xx']} | "
                         f"{fmt(s['rss_load_kb'] / 1024 if s['rss_load_kb'] else None)} |")
    lines += ["", "Profiles:", ""] + [f"- **{p}**: {PROFILES[p]['title']}" for p in summary]
    legend = {
        "tachy-arena": "examples/httparena/tachy-arena.c (the HttpArena entry, C)",
        "tachy-fileserver": "examples/fileserver.c (jwebserver's C twin) with the open-file cache, -o none",
        "tachy-fs-before": "examples/fileserver.c at the revision given to --fs-before (before the cache), "
                           "same libtachy, -o none",
        "h2o": "Debian's h2o, num-threads 1, file.dir (baseline/pipeline: a small file)",
        "nginx": "Debian's nginx, 1 worker, access_log off, sendfile on, no open_file_cache "
                 "(baseline/pipeline: return 200)",
        "tachy-java": "examples/httparena/java/TachyArena.java on the tachy provider jar "
                      "(static files read per request, no cache)",
    }
    names = sorted({n for by in summary.values() for n in by})
    lines += ["", "Servers:", ""] + [f"- **{n}**: {legend.get(n, n)}" for n in names]
    if notes:
        lines += ["", "Notes:", ""] + [f"- {n}" for n in notes]
    with open(os.path.join(a.out, "table.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


def write_chart(a, summary):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log("no matplotlib: chart skipped")
        return
    names = sorted({s for by in summary.values() for s in by})
    colors = {"tachy-arena": "#1f77b4", "tachy-fileserver": "#17becf", "tachy-fs-before": "#bcbd22",
              "h2o": "#d62728",
              "nginx": "#2ca02c", "tachy-java": "#9467bd"}
    profs = list(summary)
    fig, ax = plt.subplots(figsize=(max(8, 1.3 * len(profs)), 5))
    w = 0.8 / max(1, len(names))
    for i, n in enumerate(names):
        xs = [j + i * w for j, p in enumerate(profs) if n in summary[p]]
        ys = [summary[p][n]["cpu_us"] or 0 for p in profs if n in summary[p]]
        ax.bar(xs, ys, w, label=n, color=colors.get(n))
    ax.set_xticks([j + 0.4 - w / 2 for j in range(len(profs))])
    ax.set_xticklabels(profs, rotation=30, ha="right")
    ax.set_ylabel("server CPU µs per request (median, lower is better)")
    ax.set_yscale("log")
    ax.set_title("HttpArena profiles at local scale: server on core 0, load on core 1")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(a.out, "raw", "chart.png"), dpi=110)


if __name__ == "__main__":
    sys.exit(main())
