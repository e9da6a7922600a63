#!/usr/bin/env python3
"""Where a KLEE run spent its work, per function: what to skip (chopping) is what forks and
runs much while its effects are rarely read.

  profile.py RUN.istats [--top N] [--sort forks|instructions|queries] [--csv OUT]

Reads KLEE's run.istats (callgrind format): each function's own costs (its instruction
lines) and, for each call site, the callee's cost accumulated under that call (the line
after `calls=`). A function's inclusive cost is its own plus its call sites'; a recursive
function's inner calls are inside its own call lines, so its inclusive cost counts them
once per level (as callgrind does). Printed per function: the calls it received (from call
sites KLEE counted), instructions and forks, own and inclusive, and the solver time (s)
spent under it.
"""
import argparse
import csv
import sys
from collections import defaultdict


def parse(path):
    """{function: {"self": {event: n}, "incl_calls": {event: n}, "calls": n}} and the events."""
    funcs = defaultdict(lambda: {"self": defaultdict(int), "incl_calls": defaultdict(int), "calls": 0})
    events = []
    fn = None
    pending_call = None  # callee of a `calls=` line: the next cost line is its inclusive cost
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("events:"):
                events = line.split()[1:]
            elif line.startswith("fn="):
                fn = line[3:]
                funcs[fn]
            elif line.startswith("cfn="):
                pending_call = line[4:]
            elif line.startswith("calls="):
                n = int(line[6:].split()[0])
                funcs[pending_call]["calls"] += n
                pending_call = (pending_call, True)
            elif line and (line[0].isdigit()) and fn is not None:
                vals = [int(x) for x in line.split()[2:]]
                if isinstance(pending_call, tuple):
                    for e, v in zip(events, vals):
                        funcs[fn]["incl_calls"][e] += v
                    pending_call = None
                else:
                    for e, v in zip(events, vals):
                        funcs[fn]["self"][e] += v
    if not events:
        sys.exit(f"{path}: no `events:` line (not a KLEE run.istats?)")
    return funcs, events


def rows(funcs):
    out = []
    for name, d in funcs.items():
        s, c = d["self"], d["incl_calls"]
        out.append({
            "function": name,
            "calls": d["calls"],
            "instructions": s.get("I", 0),
            "instructions_incl": s.get("I", 0) + c.get("I", 0),
            "forks": s.get("Forks", 0),
            "forks_incl": s.get("Forks", 0) + c.get("Forks", 0),
            # QueryTime is in microseconds
            "query_s": round((s.get("Qtime", 0) + c.get("Qtime", 0)) / 1e6, 3),
        })
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("istats")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--sort", choices=["forks", "instructions", "queries"], default="forks")
    ap.add_argument("--csv")
    a = ap.parse_args()
    funcs, _ = parse(a.istats)
    key = {"forks": "forks_incl", "instructions": "instructions_incl", "queries": "query_s"}[a.sort]
    rs = sorted(rows(funcs), key=lambda r: (-r[key], r["function"]))
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rs[0].keys()))
            w.writeheader()
            w.writerows(rs)
    print(f"{'function':40} {'calls':>8} {'instr':>10} {'instr incl':>11} {'forks':>6} {'forks incl':>10} {'query s':>8}")
    for r in rs[: a.top]:
        print(f"{r['function'][:40]:40} {r['calls']:>8} {r['instructions']:>10} {r['instructions_incl']:>11} "
              f"{r['forks']:>6} {r['forks_incl']:>10} {r['query_s']:>8}")


if __name__ == "__main__":
    main()
