#!/usr/bin/env python3
"""Summarises kosoku (Autobahn|Testsuite) reports.

    summarize.py [--markdown FILE] [--title TEXT] [--note TEXT] NAME=REPORT_DIR[,DIR...]...

Each REPORT_DIR is a kosoku output folder (index.json plus one JSON file per case; several
folders, comma-separated, make one server's report). Every case falls in one class:

  ok              behavior OK (and the closing handshake OK or informational)
  non-strict      behavior or close NON-STRICT: allowed, deviates from a SHOULD
  informational   behavior INFORMATIONAL: the spec leaves it open
  unimplemented   behavior UNIMPLEMENTED
  failed          behavior or close FAILED, or an ERROR after the opening handshake was sent
  tool error      ERROR before kosoku sent its opening handshake: the tool itself could not
                  run the case (the server never saw it); listed, not counted as a pass

Prints one block per server and the closing line "N passed, M failed, K skipped" (passed
= ok + non-strict + informational, failed = failed + unimplemented, skipped = tool
errors). Exits 1 when anything failed.
"""
import argparse
import collections
import glob
import json
import os
import sys

ORDER = ["ok", "non-strict", "informational", "unimplemented", "failed", "tool error"]


def case_key(cid):
    return [int(p) for p in cid.split(".")]


def classify(case):
    b, c = case.get("behavior"), case.get("behaviorClose")
    if b == "ERROR":
        return "tool error" if not case.get("httpRequest") else "failed"
    if b == "FAILED" or c == "FAILED":
        return "failed"
    if b == "UNIMPLEMENTED":
        return "unimplemented"
    if b == "NON-STRICT" or c == "NON-STRICT":
        return "non-strict"
    if b == "INFORMATIONAL":
        return "informational"
    return "ok"


def load(folders):
    """Cases from one or more report folders (comma-separated: runs of parts of a suite)."""
    cases = {}
    paths = []
    for folder in folders.split(","):
        paths += glob.glob(os.path.join(folder, "*_case_*.json"))
    for path in paths:
        with open(path, encoding="utf-8") as f:
            c = json.load(f)
        cases[c["id"]] = c
    return cases


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--markdown")
    ap.add_argument("--title", default="Autobahn|Testsuite (kosoku)")
    ap.add_argument("--note", action="append", default=[])
    ap.add_argument("--expect", type=int, default=0,
                    help="cases each run must have reported (fewer: the missing ones fail)")
    ap.add_argument("runs", nargs="+")
    args = ap.parse_args()

    total = collections.Counter()
    md = [f"# {args.title}", ""] + [n for n in args.note] + ([""] if args.note else [])
    for run in args.runs:
        name, _, folder = run.partition("=")
        cases = load(folder)
        if not cases:
            print(f"{name}: no case reports in {folder}")
            total["failed"] += 1
            continue
        by = collections.defaultdict(list)
        for cid, c in cases.items():
            by[classify(c)].append(cid)
        counts = {k: len(by[k]) for k in ORDER}
        if args.expect and len(cases) < args.expect:
            print(f"{name}: only {len(cases)} of the {args.expect} selected cases reported")
            md.append(f"{name}: only {len(cases)} of the {args.expect} selected cases reported.")
            total["failed"] += args.expect - len(cases)
        total.update(counts)
        sections = sorted({cid.split(".")[0] for cid in cases}, key=int)
        line = ", ".join(f"{counts[k]} {k}" for k in ORDER)
        print(f"{name}: {len(cases)} cases (sections {' '.join(sections)}): {line}")
        md += [f"## {name}", "",
               f"{len(cases)} cases, sections {', '.join(sections)}.", "",
               "| result | cases |", "| --- | --- |"]
        md += [f"| {k} | {counts[k]} |" for k in ORDER]
        md.append("")
        for k in ORDER[1:]:
            if not by[k]:
                continue
            print(f"  {k}:")
            md.append(f"{k}:")
            md.append("")
            for cid in sorted(by[k], key=case_key):
                c = cases[cid]
                why = (c.get("result") or "").strip().replace("\n", " ")
                if k != "tool error" and c.get("behaviorClose") not in ("OK", "INFORMATIONAL", None):
                    why += f" (close: {c.get('behaviorClose')}: {c.get('resultClose', '')})"
                print(f"    {cid}: {why[:200]}")
                desc = c.get("description", "").strip()[:120] or "(kosoku did not start the case)"
                md.append(f"- {cid}: {desc} -> {why[:200]}")
            md.append("")
    passed = total["ok"] + total["non-strict"] + total["informational"]
    failed = total["failed"] + total["unimplemented"]
    skipped = total["tool error"]
    summary = f"{passed} passed, {failed} failed, {skipped} skipped"
    md += ["Total: " + summary + " (skipped = cases the tool itself could not run).", ""]
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as f:
            f.write("\n".join(md))
    print(summary)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
