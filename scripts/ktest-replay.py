#!/usr/bin/env python3
"""Replay a KLEE run's tests on the program compiled natively (linked with libkleeRuntest,
which hands klee_make_symbolic the test's bytes).

  ktest-replay.py NATIVE KLEE_DIR OUT.csv

OUT.csv: one row per test: the test, its outcome (`exit N`, `signal NAME` or `timeout`),
the error KLEE reported for it, if any (`file:line: kind`, from testNNNNNN.*.err), and
whether its path was cut short (`early`: KLEE's testNNNNNN.early, a path the run's time or
memory limit ended, whose input may not even reach the program's klee_make_symbolic).
"""
import csv
import glob
import os
import signal
import subprocess
import sys


def outcome(native, ktest):
    env = dict(os.environ, KTEST_FILE=ktest)
    try:
        p = subprocess.run([native], env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=20)
    except subprocess.TimeoutExpired:
        return "timeout"
    if p.returncode < 0:
        return f"signal {signal.Signals(-p.returncode).name}"
    return f"exit {p.returncode}"


def klee_error(ktest):
    """The error KLEE found on this test's path: FILE:LINE: KIND (KIND from the .err suffix)."""
    errs = glob.glob(ktest[: -len(".ktest")] + ".*.err")
    if not errs:
        return ""
    path = errs[0]
    kind = path.rsplit(".", 2)[-2]
    where = {}
    for line in open(path, errors="replace"):
        key, _, val = line.partition(":")
        if key in ("File", "Line") and key not in where:
            where[key] = val.strip()
    return f"{os.path.basename(where.get('File', '?'))}:{where.get('Line', '?')}: {kind}"


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    native, kdir, out = sys.argv[1:]
    tests = sorted(glob.glob(os.path.join(kdir, "*.ktest")))
    with open(out + ".tmp", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["test", "outcome", "klee error", "early"])
        for t in tests:
            early = os.path.exists(t[: -len(".ktest")] + ".early")
            w.writerow([os.path.basename(t), outcome(os.path.abspath(native), t), klee_error(t),
                        "yes" if early else ""])
    os.replace(out + ".tmp", out)


if __name__ == "__main__":
    main()
