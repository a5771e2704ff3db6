#!/usr/bin/env python3
"""Latency at a fixed rate (bench/paced.sh is the front door; see bench/README.md).

Two measurements with bench/paced.c (open loop: latency from each request's intended send
time), server on core 0, client on core 1, the servers started by bench/lib/bench.py's
machinery (the same commands as bench/run.sh), all of them in every round, alternating:

  paced  HttpArena's latency-10k shape: 1,024 keep-alive connections at a fixed rate
         (--paced-rates, e.g. 10000 and a higher step), GET / (13-byte body); server CPU µs
         per request (/proc/PID/stat utime+stime, all threads, between the client's
         "PACED-WINDOW start" and "end" lines), mean, p50, p99, p99.9, max.
  sweep  64 connections, rising rates (--sweep-rates); a step holds when p99 < 10 ms, no
         error, no non-2xx and the achieved rate is within 1 % of the asked one; each
         server's figure is its highest holding step (the steps are climbed until one fails).
         Rounds after the first start two steps below the server's figure so far.

The client's own limit is printed beside every figure: its work per request (its CPU from
getrusage in bench/paced.c less the empty polls it spins on instead of sleeping when the next
send is due within 20 µs) gives its ceiling on one core, 1e6 / that; its own send delay p99
(the sends of idle connections: no late response in it) says how late it sent; its core's
work share and that delay at the step that failed say whether the step failed on it
(>= CLIENT_BOUND busy or >= CLIENT_LATE_US late: the client was the limit, and the table
says so).

--priority puts every server and every client run in its own autogroup at nice -19 (root
only; /proc/PID/autogroup): on a machine shared with other sessions' builds, the kernel
shares a core between autogroups, so a plain nice does not keep a benchmark from waiting
behind a compiler (bench/README.md, "Where the Java provider's tail waited").

Writes OUT/table.md and OUT/raw/ (every paced output, server logs, results.json, chart.png).
"""
import argparse
import datetime
import json
import os
import signal
import subprocess
import sys
import time

import bench
from benchutil import CLK_TCK, cpu_split, log, med

SERVER_CORE, LOAD_CORE = bench.SERVER_CORE, bench.LOAD_CORE
DEFAULT_SERVERS = ["nginx", "h2o", "tachy-c", "tachy-java-none", "tachy-java-fixed", "tachy-java-vt",
                   "jdk-vt", "robaho-vt", "jetty-none"]
P99_LIMIT_US = 10000
CLIENT_BOUND = 0.9  # the client's core this busy with work at a failing step: the client failed
CLIENT_LATE_US = P99_LIMIT_US / 2  # ... or its own send delay p99 this long (preempted, busy)


def _autogroup_boost(pid="self"):
    """Nice -19 for the autogroup (session) of pid; False when not permitted."""
    try:
        with open(f"/proc/{pid}/autogroup", "w") as f:
            f.write("-19")
        return True
    except OSError:
        return False


def run_paced(srv, paced, conns, rate, warm, dur, rawfile, priority=False):
    """One bench/paced.c run against srv; its PACED figures plus the server's CPU per request
    over the measured window. failed=True when the client reported nothing."""
    cmd = ["taskset", "-c", LOAD_CORE, paced, "-p", str(srv.port), "-c", str(conns), "-r", str(rate),
           "-w", str(warm), "-d", str(dur), "-u", "/"]
    tree = srv.kind in ("nginx", "h2o")
    extra = dict(start_new_session=True, preexec_fn=_autogroup_boost) if priority else {}
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **extra)
    killer = None
    c0 = c1 = None
    out = []
    t0 = time.time()
    try:
        import threading
        killer = threading.Timer(warm + dur + 40, p.kill)
        killer.start()
        for line in p.stdout:
            out.append(line)
            if line.startswith("PACED-WINDOW start"):
                c0 = sum(cpu_split(srv.pid, tree)), time.time()
            elif line.startswith("PACED-WINDOW end"):
                c1 = sum(cpu_split(srv.pid, tree)), time.time()
        p.wait()
    finally:
        if killer:
            killer.cancel()
    text = "".join(out)
    with open(rawfile, "w") as f:
        f.write("# " + " ".join(cmd) + "\n" + text)
        if c0 and c1:
            f.write(f"\n# server pid {srv.pid}: cpu ticks {c0[0]} -> {c1[0]} over {c1[1] - c0[1]:.2f} s "
                    f"(CLK_TCK {CLK_TCK}); run {time.time() - t0:.1f} s\n")
    d = None
    for line in text.splitlines():
        if line.startswith("PACED ") and "error=" not in line:
            d = {}
            for kv in line.split()[1:]:
                k, _, v = kv.partition("=")
                d[k] = float(v)
    if d is None or not c0 or not c1 or d["requests"] == 0:
        return dict(failed=True, raw=os.path.basename(rawfile), error=text.strip()[-300:])
    d["cpu_us_per_req"] = (c1[0] - c0[0]) / CLK_TCK * 1e6 / d["requests"]
    d["server_cpu_util"] = (c1[0] - c0[0]) / CLK_TCK / max(1e-9, c1[1] - c0[1])
    # the client's work: its CPU less the empty polls it spun on (older paced builds: all of it)
    d.setdefault("client_work_us_per_req", d["client_cpu_us_per_req"])
    d.setdefault("own_lag_p99_us", d["lag_p99_us"])  # the client's own delay (older builds: all lag)
    d["client_busy"] = (d["client_cpu_s"] - d.get("client_spin_s", 0)) / d["seconds"]
    d["raw"] = os.path.basename(rawfile)
    return d


def holds(r, rate):
    return (not r.get("failed") and r["p99_us"] < P99_LIMIT_US and r["errors"] == 0 and r["non2xx"] == 0
            and r["achieved"] >= 0.99 * rate)


def why_not(r, rate):
    if r.get("failed"):
        return "no result"
    w = []
    if r["p99_us"] >= P99_LIMIT_US:
        w.append(f"p99 {r['p99_us'] / 1000:.1f} ms")
    if r["achieved"] < 0.99 * rate:
        w.append(f"achieved {r['achieved'] / 1000:.1f}k")
    if r["errors"]:
        w.append(f"{r['errors']:.0f} errors")
    if r["non2xx"]:
        w.append(f"{r['non2xx']:.0f} non-2xx")
    return ", ".join(w)


def rng(xs):
    xs = [x for x in xs if x is not None]
    return (min(xs), max(xs)) if xs else (None, None)


def f_us(x):
    if x is None:
        return "–"
    if x >= 10000:
        return f"{x / 1000:.0f} ms"
    if x >= 1000:
        return f"{x / 1000:.2f} ms"
    return f"{x:.0f} µs"


def f_k(x):
    return "–" if x is None else (f"{x / 1000:.0f}k" if x >= 1000 else f"{x:.0f}")


def summarize(res):
    """paced: per (rate, server) medians and ranges; sweep: per server the holding figures."""
    out = {"paced": {}, "sweep": {}}
    for r in res["paced"]:
        if r.get("failed"):
            continue
        out["paced"].setdefault(r["rate_asked"], {}).setdefault(r["server"], []).append(r)
    ps = {}
    for rate, by in out["paced"].items():
        ps[rate] = {}
        for s, rs in by.items():
            d = {k: med([x.get(k) for x in rs]) for k in
                 ("cpu_us_per_req", "mean_us", "p50_us", "p90_us", "p99_us", "p999_us", "max_us", "achieved",
                  "lag_p99_us", "own_lag_p99_us", "client_cpu_us_per_req", "client_work_us_per_req", "client_busy",
                  "server_cpu_util")}
            for k in ("cpu_us_per_req", "p99_us", "p999_us", "max_us"):
                d[k + "_range"] = rng([x.get(k) for x in rs])
            for k in ("errors", "non2xx", "closes", "reconnects", "missed", "requests"):
                d[k] = sum(x.get(k, 0) for x in rs)
            d["rounds"] = len(rs)
            # same-round CPU ratio to nginx
            ratios = []
            for x in rs:
                a = [y for y in by.get("nginx", []) if y["round"] == x["round"]]
                if a and a[0]["cpu_us_per_req"] > 0:
                    ratios.append(x["cpu_us_per_req"] / a[0]["cpu_us_per_req"])
            d["x_nginx"], d["x_nginx_range"] = med(ratios), rng(ratios)
            ps[rate][s] = d
    ss = {}
    for s, rounds in res["sweep"].items():
        figs = [rd["highest"] for rd in rounds]
        ss[s] = dict(highest=med(figs), range=rng(figs), per_round=figs,
                     fails=[rd.get("failed_step") for rd in rounds])
    return ps, ss


def client_ceiling(res):
    """The client's own ceiling on one core: 1e6 / its work µs per request (CPU less empty
    spins), taken at the highest holding sweep step against the server that held the highest
    rate (the fastest server): the busiest the client was while the figures held."""
    best = None
    for s, rounds in res["sweep"].items():
        for rd in rounds:
            for st in rd["steps"]:
                r = st["result"]
                if holds(r, st["rate"]) and (best is None or st["rate"] > best[1]):
                    best = (s, st["rate"], r)
    if not best:
        return None
    s, rate, r = best
    w = r.get("client_work_us_per_req", r["client_cpu_us_per_req"])
    return dict(server=s, rate=rate, client_work_us_per_req=w, ceiling=1e6 / w if w > 0 else None,
                client_busy=r["client_busy"], lag_p99_us=r.get("own_lag_p99_us", r["lag_p99_us"]))


def client_bound(d, cc):
    """A sweep figure's client limits: the failing steps where the client was the limit (its
    core >= CLIENT_BOUND busy with work, or its own send delay p99 >= CLIENT_LATE_US), and
    whether the figure is within 10 % of the client's ceiling."""
    bound = [f for f in d["fails"] if f and ((f.get("client_busy") or 0) >= CLIENT_BOUND
                                             or (f.get("lag_p99_us") or 0) >= CLIENT_LATE_US)]
    near = bool(cc and cc["ceiling"] and (d["highest"] or 0) >= 0.9 * cc["ceiling"])
    return bound, near


def render(res):
    ps, ss = summarize(res)
    m = res["meta"]
    L = [f"# tachy paced benchmark — {m['started']}", "",
         f"tachy `{m['tachy_rev']}` · command: `{m['command']}` · {m['rounds']} alternating rounds · server on core "
         f"{SERVER_CORE}, client (`bench/paced.c`) on core {LOAD_CORE} · load average at start {m['loadavg_start']}, "
         f"at end {m.get('loadavg_end')}", "",
         "Latency is counted from each request's **intended** send time (open loop, no coordinated omission); "
         "**CPU µs/req** = server utime+stime (all threads, /proc/PID/stat) over the measured window ÷ requests "
         "answered; **×nginx** = median of same-round ratios. **client own delay p99** = how late the client "
         "itself sent requests of idle connections (inside the latency; a server's late response is not in it). The machine is a shared 2-core VM: read ratios and CPU/req, not absolutes.", ""]
    cc = client_ceiling(res)
    if cc:
        L += [f"**Client ceiling** (bench/paced.c on one core): {cc['client_work_us_per_req']:.2f} µs of client work "
              f"per request (CPU less empty spins) at {f_k(cc['rate'])} req/s against `{cc['server']}` (its core "
              f"{cc['client_busy'] * 100:.0f} % busy with work, its own send delay p99 {f_us(cc['lag_p99_us'])}) → about "
              f"**{f_k(cc['ceiling'])} req/s** on one core.", ""]
    if m.get("priority"):
        L += ["Every server and client ran in its own autogroup at nice -19 (`--priority`): other sessions' jobs "
              "still shared the two cores, but no longer for equal slices.", ""]
    L += ["## Servers", "", "| server | what | notes |", "|---|---|---|"]
    for name, s in res["servers"].items():
        L.append(f"| `{name}` | {s.get('label', name)} | {'; '.join(s.get('notes', []))} |")
    L.append("")
    for rate in sorted(ps):
        rows = ps[rate]
        L += [f"## Paced: {m['paced_conns']:,} keep-alive connections at {rate:,.0f} req/s, GET / "
              f"({m['paced_warmup']} s warm-up, {m['paced_duration']} s measured)", "",
              "| server | CPU µs/req (min–max) | ×nginx | mean | p50 | p99 | p99.9 (min–max) | max | achieved | "
              "errors / non-2xx | closes / reconnects | client own delay p99 | client work µs/req (core busy) |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for s in res["servers"]:
            d = rows.get(s)
            if not d:
                continue
            lo, hi = d["cpu_us_per_req_range"]
            plo, phi = d["p999_us_range"]
            xr = d["x_nginx_range"]
            xn = "–" if d["x_nginx"] is None else (f"{d['x_nginx']:.2f}" + (f" ({xr[0]:.2f}–{xr[1]:.2f})" if xr[0] != xr[1] else ""))
            L.append(f"| `{s}` | **{d['cpu_us_per_req']:.2f}** ({lo:.2f}–{hi:.2f}) | {xn} | {f_us(d['mean_us'])} | "
                     f"{f_us(d['p50_us'])} | {f_us(d['p99_us'])} | {f_us(d['p999_us'])} ({f_us(plo)}–{f_us(phi)}) | "
                     f"{f_us(d['max_us'])} | {d['achieved']:,.0f} | {d['errors']:.0f} / {d['non2xx']:.0f} | "
                     f"{d['closes']:.0f} / {d['reconnects']:.0f} | {f_us(d['own_lag_p99_us'])} | "
                     f"{d['client_work_us_per_req']:.2f} ({d['client_busy'] * 100:.0f} %) |")
        L.append("")
    if ss:
        L += [f"## Open loop: the highest rate with p99 < 10 ms, {m['sweep_conns']} connections, GET /", "",
              f"Steps (req/s): {', '.join(f_k(r) for r in m['sweep_rates'])}; each {m['sweep_warmup']} s warm-up + "
              f"{m['sweep_duration']} s measured. A step holds when p99 < 10 ms, no error or non-2xx, and the "
              "achieved rate is within 1 % of the asked one. **client at the failing step**: the client's own core "
              "busy share (with work, not counting empty spins) and its own send delay p99 when the next step failed. "
              f"**limit**: `client` when at a failing step the client's core was ≥ {CLIENT_BOUND * 100:.0f} % busy or "
              f"its own send delay p99 ≥ {CLIENT_LATE_US / 1000:.0f} ms (half the p99 limit), or the figure "
              "is within 10 % of the client's ceiling above — a server figure that only says the server reached at "
              "least the client's rate; else `server`.", "",
              "| server | highest holding (median, min–max) | per round | the next step failed on | client at the failing step | limit |",
              "|---|---|---|---|---|---|"]
        cc = client_ceiling(res)
        for s in res["servers"]:
            d = ss.get(s)
            if not d:
                continue
            lo, hi = d["range"]
            bound, near = client_bound(d, cc)
            limit = ("**client**" + (f" ({len(bound)} of {len(d['fails'])} rounds)" if bound and len(bound) < len(d["fails"]) else "")
                     if bound or near else "server")
            fails = [f for f in d["fails"] if f]
            fail_txt = "; ".join(f"{f_k(f['rate'])}: {f['why']}" for f in fails) or "none (top step held)"
            cl = "; ".join(f"{f['client_busy'] * 100:.0f} % busy, own delay p99 {f_us(f['lag_p99_us'])}" for f in fails
                           if f.get("client_busy") is not None) or "–"
            L.append(f"| `{s}` | **{f_k(d['highest'])}** ({f_k(lo)}–{f_k(hi)}) | "
                     f"{', '.join(f_k(x) for x in d['per_round'])} | {fail_txt} | {cl} | {limit} |")
        L.append("")
    L.append(f"Raw outputs: `{m['outdir_rel']}/raw/` (local: every bench/paced.c output, server logs, results.json, "
             "chart.png)")
    return "\n".join(L) + "\n"


def chart(res, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    ps, ss = summarize(res)
    servers = list(res["servers"])
    rates = sorted(ps)
    n = len(rates) + (1 if ss else 0)
    if n == 0:
        return False
    fig, axes = plt.subplots(n, 1, figsize=(11, 3.6 * n), constrained_layout=True, squeeze=False)
    for ax, rate in zip(axes[:, 0], rates):
        xs = [s for s in servers if s in ps[rate]]
        cpu = [ps[rate][s]["cpu_us_per_req"] for s in xs]
        p999 = [ps[rate][s]["p999_us"] / 1000 for s in xs]
        ax.bar(range(len(xs)), cpu, color="tab:blue")
        ax.set_ylabel("server CPU µs / request", color="tab:blue")
        ax2 = ax.twinx()
        ax2.plot(range(len(xs)), p999, "o", color="tab:red")
        ax2.set_ylabel("p99.9 ms", color="tab:red")
        ax2.set_ylim(bottom=0)
        ax.set_xticks(range(len(xs)))
        ax.set_xticklabels(xs, rotation=20, fontsize=8)
        ax.set_title(f"paced: {res['meta']['paced_conns']} connections at {rate:,.0f} req/s (lower is better)")
    if ss:
        ax = axes[-1, 0]
        xs = [s for s in servers if s in ss]
        v = [ss[s]["highest"] or 0 for s in xs]
        lo = [max(0, (ss[s]["highest"] or 0) - (ss[s]["range"][0] or 0)) for s in xs]
        hi = [max(0, (ss[s]["range"][1] or 0) - (ss[s]["highest"] or 0)) for s in xs]
        cc = client_ceiling(res)
        bars = ax.bar(range(len(xs)), v, yerr=[lo, hi], capsize=3, color="tab:green")
        for b, s in zip(bars, xs):  # hatched: the client, not the server, ended the climb
            bound, near = client_bound(ss[s], cc)
            if bound or near:
                b.set_hatch("//")
                b.set_facecolor("tab:olive")
        if cc and cc["ceiling"]:
            ax.axhline(cc["ceiling"], color="grey", ls="--", lw=1, label="client ceiling (1 core)")
            ax.legend(fontsize=8)
        ax.set_xticks(range(len(xs)))
        ax.set_xticklabels(xs, rotation=20, fontsize=8)
        ax.set_ylabel("req/s")
        ax.set_title(f"open loop, {res['meta']['sweep_conns']} connections: highest rate with p99 < 10 ms "
                     "(higher is better; hatched: limited by the client)")
    fig.savefig(path, dpi=100)
    return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--outdir", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--static-dir", required=True)
    ap.add_argument("--paced", required=True, help="the built bench/paced.c")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--paced-conns", type=int, default=1024)
    ap.add_argument("--paced-rates", default="10000")
    ap.add_argument("--paced-warmup", type=float, default=1)
    ap.add_argument("--paced-duration", type=float, default=3)
    ap.add_argument("--sweep-conns", type=int, default=64)
    ap.add_argument("--sweep-rates", default="10000,20000,40000,60000,80000,100000,120000,140000,160000")
    ap.add_argument("--sweep-warmup", type=float, default=0.5)
    ap.add_argument("--sweep-duration", type=float, default=1.5)
    ap.add_argument("--warmup", type=float, default=5, help="JVM warm-up seconds (64 connections, 40k req/s)")
    ap.add_argument("--parts", default="paced,sweep")
    ap.add_argument("--servers", default=",".join(DEFAULT_SERVERS))
    ap.add_argument("--h2o", action="store_true")
    ap.add_argument("--priority", action="store_true",
                    help="servers and clients in their own autogroups at nice -19 (root; see above)")
    ap.add_argument("--command", default="bench/paced.sh")
    bench.add_server_args(ap)
    a = ap.parse_args()
    a.profiles, a.mode = "ka64", "quick"  # build_servers: no ws-tick10k floor rows
    want = a.servers.split(",")
    a.h2o = a.h2o and "h2o" in want
    rawdir = os.path.join(a.outdir, "raw")
    os.makedirs(rawdir, exist_ok=True)
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda *x: (bench.stop_all(), sys.exit(130)))

    servers = [s for s in bench.build_servers(a, range(a.base_port, a.base_port + 50)) if s.name in want]
    servers.sort(key=lambda s: want.index(s.name))
    bench.write_confs(servers, a.workdir, a.static_dir)
    paced_rates = [float(x) for x in a.paced_rates.split(",") if x]
    sweep_rates = [float(x) for x in a.sweep_rates.split(",") if x]
    parts = a.parts.split(",")
    res = dict(meta=dict(started=datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC"), command=a.command,
                         tachy_rev=a.tachy_rev, rounds=a.rounds, paced_conns=a.paced_conns,
                         paced_rates=paced_rates, paced_warmup=a.paced_warmup, paced_duration=a.paced_duration,
                         sweep_conns=a.sweep_conns, sweep_rates=sweep_rates, sweep_warmup=a.sweep_warmup,
                         sweep_duration=a.sweep_duration, java_opts=a.java_opts,
                         priority=False,
                         outdir_rel=os.path.relpath(a.outdir, os.path.dirname(bench.BENCH)),
                         loadavg_start=open("/proc/loadavg").read().split()[:3]),
               servers={}, paced=[], sweep={})
    for n in want:
        for note in a.skip_note:
            if note.startswith(n + "="):
                res["servers"][n] = dict(label=n, notes=["not measured: " + note.partition("=")[2]])
    live = []
    try:
        for s in servers:
            log(f"start {s.name} on :{s.port}")
            ok = s.start(rawdir)
            if ok and a.priority:
                if _autogroup_boost(s.pid):  # its own session (bench.Server): its autogroup
                    res["meta"]["priority"] = True
                else:
                    s.notes.append("--priority: its autogroup's nice could not be set")
            if ok:
                try:
                    st, _, body = bench.http_request(s.port, b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                except OSError as e:
                    st, body = 0, repr(e).encode()
                if st != 200 or body != b"Hello, World!":
                    s.notes.append(f"GET / answered {st} {body[:40]!r}; not measured")
                    s.stop()
                    ok = False
            res["servers"][s.name] = dict(label=s.label, notes=s.notes, cmd=s.cmd)
            if ok:
                live.append(s)
        for s in live:
            w = a.warmup if s.kind == "java" else 1
            log(f"warm-up {s.name} {w}s")
            run_paced(s, a.paced, 64, 40000, 0, w, os.path.join(rawdir, f"warmup-{s.name}.txt"), a.priority)
        for rnd in range(1, a.rounds + 1):
            if "paced" in parts:
                for rate in paced_rates:
                    for s in live:
                        raw = os.path.join(rawdir, f"paced-{rate:.0f}-r{rnd}-{s.name}.txt")
                        r = run_paced(s, a.paced, a.paced_conns, rate, a.paced_warmup, a.paced_duration, raw, a.priority)
                        r.update(server=s.name, round=rnd, rate_asked=rate)
                        res["paced"].append(r)
                        if r.get("failed"):
                            log(f"paced {rate:.0f} r{rnd} {s.name}: FAILED {r.get('error', '')[-200:]}")
                        else:
                            log(f"paced {rate:.0f} r{rnd} {s.name}: {r['cpu_us_per_req']:.2f} µs/req, p50 "
                                f"{r['p50_us']:.0f} p99 {r['p99_us']:.0f} p99.9 {r['p999_us']:.0f} max {r['max_us']:.0f} µs, "
                                f"achieved {r['achieved']:.0f}, err {r['errors']:.0f}, closes {r['closes']:.0f}")
            if "sweep" in parts:
                for s in live:
                    prev = [rd["highest"] for rd in res["sweep"].get(s.name, [])]
                    start = 0
                    if prev:
                        m = med(prev)
                        idx = max([i for i, x in enumerate(sweep_rates) if x <= m] or [0])
                        start = max(0, idx - 2)
                    rd = dict(round=rnd, start=sweep_rates[start], steps=[], highest=0, failed_step=None)
                    if start > 0:
                        rd["highest"] = sweep_rates[start - 1]  # held in an earlier round
                    for rate in sweep_rates[start:]:
                        raw = os.path.join(rawdir, f"sweep-{rate:.0f}-r{rnd}-{s.name}.txt")
                        r = run_paced(s, a.paced, a.sweep_conns, rate, a.sweep_warmup, a.sweep_duration, raw, a.priority)
                        rd["steps"].append(dict(rate=rate, result=r))
                        ok = holds(r, rate)
                        log(f"sweep r{rnd} {s.name} {rate:.0f}: {'holds' if ok else 'fails: ' + why_not(r, rate)}"
                            + ("" if r.get("failed") else f" (p99 {r['p99_us']:.0f} µs, achieved {r['achieved']:.0f}, "
                               f"client {r['client_busy'] * 100:.0f} % busy)"))
                        if not ok:
                            rd["failed_step"] = dict(rate=rate, why=why_not(r, rate),
                                                     client_busy=None if r.get("failed") else r["client_busy"],
                                                     lag_p99_us=None if r.get("failed") else r["own_lag_p99_us"])
                            break
                        rd["highest"] = rate
                    res["sweep"].setdefault(s.name, []).append(rd)
            with open(os.path.join(rawdir, "results.json"), "w") as f:
                json.dump(res, f, indent=1)
    finally:
        for s in servers:
            s.stop()
        bench.stop_all()
    for s in servers:
        res["servers"][s.name]["notes"] = s.notes
    res["meta"]["loadavg_end"] = open("/proc/loadavg").read().split()[:3]
    res["meta"]["finished"] = datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC")
    with open(os.path.join(rawdir, "results.json"), "w") as f:
        json.dump(res, f, indent=1)
    with open(os.path.join(a.outdir, "table.md"), "w") as f:
        f.write(render(res))
    log("wrote", os.path.join(a.outdir, "table.md"))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--render":
        d = sys.argv[2]
        r = json.load(open(os.path.join(d, "raw", "results.json")))
        sys.stdout.write(render(r))
        if chart(r, os.path.join(d, "raw", "chart.png")):
            print("chart:", os.path.join(d, "raw", "chart.png"), file=sys.stderr)
    else:
        main()
