#!/usr/bin/env python3
"""The functions a KLEE run analysed (pspa-calls.csv), one per line; with --args, as
`--function F` arguments for `pspa analyze` / `pspa-svf analyze`."""
import csv
import sys

path = sys.argv[1]
with open(path) as f:
    names = sorted({r["function"] for r in csv.DictReader(l for l in f if not l.startswith("#"))})
if "--args" in sys.argv:
    print(" ".join(f"--function {n}" for n in names))
else:
    print("\n".join(names))
