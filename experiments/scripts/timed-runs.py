#!/usr/bin/env python3
"""The runs of a ratio against KLEE alone (targets cost, table3 and table5's hand-chosen
sets): two or more KLEE command lines, back to back, in turn forwards and backwards,
--reps times each. The Snakemake job that calls this takes every
core (`threads`), so no other job of the pipeline runs beside it; what else the machine ran
meanwhile (a build, another pipeline) is measured and written down.

  timed-runs.py --out DIR --reps N --bc BC [--args ARGS] NAME=CMD NAME=CMD [NAME=CMD...]

Repetition i of NAME runs in DIR/rep{i}-{NAME}/ as `CMD --output-dir=klee BC ARGS`, with
klee/, klee.log and time.txt (/usr/bin/time -v) as every run of the pipeline, and
machine.txt. The order is A B C, C B A, A B C, ...: a drift of the machine over the runs (its
caches, its clock) weighs on both alike.

machine.txt: `busy` the CPU seconds the whole machine spent during the run (/proc/stat),
`own` the run's (user + system, time.txt, its solver processes included), `other` the
difference: the CPU time of everything else. On an idle machine `other` is a fraction of a
second; tables.py prints the largest of a ratio's runs.
"""
import argparse
import os
import shlex
import shutil
import subprocess
import sys


def cpu_busy():
    """CPU seconds spent, over all cores, since boot (not idle, not waiting for I/O)."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    # user nice system idle iowait irq softirq steal (guest time is inside user)
    busy = sum(fields[:8]) - fields[3] - fields[4]
    return busy / os.sysconf("SC_CLK_TCK")


def own_cpu(time_txt):
    secs = 0.0
    for line in open(time_txt):
        line = line.strip()
        if line.startswith(("User time (seconds):", "System time (seconds):")):
            secs += float(line.rsplit(" ", 1)[1])
    return secs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--bc", required=True)
    ap.add_argument("--args", default="")
    ap.add_argument("runs", nargs="+", metavar="NAME=CMD")
    a = ap.parse_args()
    runs = [r.split("=", 1) for r in a.runs]
    if len(runs) < 2 or any(len(r) != 2 for r in runs) or len({r[0] for r in runs}) != len(runs):
        sys.exit("timed-runs: give two or more runs as NAME=CMD with different names")
    shutil.rmtree(a.out, ignore_errors=True)
    for i in range(1, a.reps + 1):
        for name, cmd in runs if i % 2 else runs[::-1]:
            d = os.path.join(a.out, f"rep{i}-{name}")
            os.makedirs(d)
            argv = ["/usr/bin/time", "-v", "-o", "time.txt", *shlex.split(cmd), "--output-dir=klee",
                    os.path.abspath(a.bc), *shlex.split(a.args)]
            before = cpu_busy()
            with open(os.path.join(d, "klee.log"), "w") as log:
                rc = subprocess.call(argv, cwd=d, stdout=log, stderr=subprocess.STDOUT)
            busy = cpu_busy() - before
            if rc != 0:
                sys.stderr.write("".join(open(os.path.join(d, "klee.log"), errors="replace").readlines()[-20:]))
                sys.exit(f"timed-runs: {d}: exit code {rc}")
            own = own_cpu(os.path.join(d, "time.txt"))
            with open(os.path.join(d, "machine.txt"), "w") as f:
                f.write(f"busy = {busy:.2f}\nown = {own:.2f}\nother = {max(busy - own, 0):.2f}\n")
            print(f"timed-runs: {d}: CPU {own:.1f} s, everything else {max(busy - own, 0):.1f} s", flush=True)


if __name__ == "__main__":
    main()
