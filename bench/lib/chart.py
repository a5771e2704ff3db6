#!/usr/bin/env python3
"""Draw bench/results/runs/<run>/raw/chart.png from raw/results.json (needs matplotlib:
Debian python3-matplotlib, installed by bench/run.sh).

Top: server CPU µs per request (median, min-max whiskers) per profile, log scale.
Bottom: req/s (median, min-max whiskers) per profile.
"""
import json, os, sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402  (summarize, PROFILES)


def main(d):
    res = json.load(open(os.path.join(d, "raw", "results.json")))
    summ = bench.summarize(res)
    profs = [p for p in res["profiles"] if summ.get(p)]
    servers = [s for s in res["servers"] if any(s in summ[p] for p in profs)]
    if not profs or not servers:
        print("chart: nothing to draw"); return
    fig, axes = plt.subplots(3, 1, figsize=(max(9, 1.7 * len(profs) + 3), 13), constrained_layout=True)
    width = 0.8 / len(servers)
    colors = plt.get_cmap("tab10")
    for ax, key, ylabel, logy in ((axes[0], "cpu_us_per_req", "server CPU µs / request (lower is better)", True),
                                  (axes[1], "x_nginx", "CPU / request ÷ nginx's, same round (lower is better)", True),
                                  (axes[2], "req_s", "requests / s (higher is better; noisy)", True)):
        for i, s in enumerate(servers):
            xs, ys, lo, hi = [], [], [], []
            for j, p in enumerate(profs):
                dd = summ[p].get(s)
                if not dd or dd.get(key) is None:
                    continue
                v = dd[key]; r = dd[key + "_range"]
                xs.append(j - 0.4 + width * (i + 0.5)); ys.append(v)
                lo.append(v - r[0]); hi.append(r[1] - v)
            ax.bar(xs, ys, width, yerr=[lo, hi], capsize=2, label=s, color=colors(i % 10))
        if key == "x_nginx":
            ax.axhline(1.0, color="grey", lw=0.8)
        ax.set_xticks(range(len(profs)))
        ax.set_xticklabels(profs)
        ax.set_ylabel(ylabel)
        if logy:
            ax.set_yscale("log")
        ax.grid(axis="y", alpha=0.3, which="both")
    axes[0].legend(ncol=min(4, len(servers)), fontsize=8)
    m = res["meta"]
    axes[0].set_title(f"tachy bench {m['started']} — {m['mode']}, {m['rounds']} rounds × {m['duration_s']} s, "
                      f"server core {bench.SERVER_CORE}, wrk core {bench.LOAD_CORE}")
    out = os.path.join(d, "raw", "chart.png")
    fig.savefig(out, dpi=110)
    print("chart:", out)


if __name__ == "__main__":
    main(sys.argv[1])
