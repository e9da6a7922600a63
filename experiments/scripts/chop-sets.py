#!/usr/bin/env python3
"""Figure 4's skip sets: from a vanilla run's run.istats, the functions of the library (not
uclibc, not KLEE's runtime, not the driver) that executed at least one instruction; then N
random sets of K of them, seeded (set i uses seed i), one comma-separated line each.

  chop-sets.py RUN.ISTATS EXCLUDE N K OUT_DIR     writes OUT_DIR/reached.txt, OUT_DIR/set-I.txt

EXCLUDE: comma-separated functions never skipped (the driver's entry into the library).
"""
import os, random, sys


def reached(istats):
    """Functions with a covered instruction, by file (fl=, fn=, then per-line rows whose
    third column is Icov, the instructions covered)."""
    out, fl, fn = {}, "", None
    for line in open(istats, errors="replace"):
        if line.startswith("fl="):
            fl = line[3:].strip()
        elif line.startswith("fn="):
            fn = line[3:].strip()
        elif fn and line[:1].isdigit():
            cols = line.split()
            if len(cols) > 2 and cols[2] != "0":
                out[fn] = fl
    return out


def library(fl):
    return fl and not fl.startswith(("libc/", "./include/", "include/", "experiments/")) and "runtime" not in fl


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    istats, exclude, n, k, out = sys.argv[1], set(sys.argv[2].split(",")), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    fns = sorted(f for f, fl in reached(istats).items() if library(fl) and f not in exclude and not f.startswith("klee_"))
    if len(fns) < k:
        sys.exit(f"chop-sets: only {len(fns)} library functions reached in {istats}, {k} needed")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "reached.txt"), "w") as f:
        f.write("\n".join(fns) + "\n")
    for i in range(n):
        with open(os.path.join(out, f"set-{i}.txt"), "w") as f:
            f.write(",".join(sorted(random.Random(i).sample(fns, k))) + "\n")
    print(f"{len(fns)} library functions reached; {n} sets of {k}")


main()
