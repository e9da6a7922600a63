#!/usr/bin/env python3
"""Line coverage of a KLEE run's tests, replayed natively on a gcov build (Table 2).

  coverage.py NATIVE KLEE_DIR COV_TREE OUT.json [--skip F1,F2,...] [--early]

NATIVE: the driver linked against the library built with --coverage in COV_TREE
(cov-build.sh). Each test (KLEE_DIR/*.ktest) runs once with KTEST_FILE set; the .gcda files
go under a fresh GCOV_PREFIX, so runs do not mix. Counted: the lines gcov instruments in
COV_TREE's source files (the library; the driver is left out), and of those the lines some
test executed; the lines of the skipped functions (--skip, a --skip-functions list, `:LINE`
suffixes ignored) are left out of both, as the paper counts coverage over the code that is
not skipped. Tests of paths cut short (KLEE's .early: the time limit) are left out unless
--early: their inputs may stop anywhere (scripts/ktest-replay.py).

OUT.json: {"lines": N, "covered": M, "coverage": M/N, "tests": T, "per_file": {...}}.
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile


def replay(native, ktest, prefix):
    env = dict(os.environ, KTEST_FILE=ktest, GCOV_PREFIX=prefix, GCOV_PREFIX_STRIP="0")
    try:
        subprocess.run([native], env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=20)
    except subprocess.TimeoutExpired:
        pass  # what ran before the timeout is not written (gcov writes at exit): counts nothing


def gcov_lines(cov_tree, prefix):
    """{source file: {line: count}} and {source file: {line: function}} over COV_TREE."""
    counts, owner = {}, {}
    for gcno in glob.glob(os.path.join(cov_tree, "**", "*.gcno"), recursive=True):
        objdir = os.path.dirname(os.path.abspath(gcno))
        gcda_dir = prefix + objdir  # GCOV_PREFIX + the object's absolute directory
        os.makedirs(gcda_dir, exist_ok=True)
        shutil.copy(gcno, gcda_dir)  # gcov wants the notes beside the data
        base = os.path.join(gcda_dir, os.path.basename(gcno))
        p = subprocess.run(["gcov", "--json-format", "--stdout", base[: -len(".gcno")] + ".gcda"],
                           cwd=objdir, capture_output=True, text=True)
        for line in p.stdout.splitlines():
            if not line.startswith("{"):
                continue
            for f in json.loads(line).get("files", []):
                src = os.path.normpath(os.path.join(objdir, f["file"]))
                if not src.startswith(os.path.abspath(cov_tree)) or not src.endswith(".c"):
                    continue  # headers are counted in the .c that includes them, once
                c = counts.setdefault(src, {})
                o = owner.setdefault(src, {})
                for ln in f["lines"]:
                    n = ln["line_number"]
                    c[n] = max(c.get(n, 0), ln["count"])
                    o[n] = ln.get("function_name", "")
    return counts, owner


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("native")
    ap.add_argument("klee_dir")
    ap.add_argument("cov_tree")
    ap.add_argument("out")
    ap.add_argument("--skip", default="")
    ap.add_argument("--early", action="store_true")
    a = ap.parse_args()
    skipped = {s.split(":")[0] for s in a.skip.split(",") if s}
    tests = sorted(glob.glob(os.path.join(a.klee_dir, "*.ktest")))
    if not a.early:
        tests = [t for t in tests if not os.path.exists(t[: -len(".ktest")] + ".early")]
    prefix = tempfile.mkdtemp(prefix="pspa-cov-")
    try:
        for t in tests:
            replay(os.path.abspath(a.native), os.path.abspath(t), prefix)
        counts, owner = gcov_lines(a.cov_tree, prefix)
    finally:
        shutil.rmtree(prefix, ignore_errors=True)
    if not counts:
        sys.exit(f"coverage.py: no gcov notes under {a.cov_tree} (build it with cov-build.sh)")
    per_file, lines, covered = {}, 0, 0
    for src, c in sorted(counts.items()):
        keep = [n for n in c if owner[src].get(n) not in skipped]
        n_cov = sum(1 for n in keep if c[n] > 0)
        per_file[os.path.relpath(src, a.cov_tree)] = [n_cov, len(keep)]
        lines += len(keep)
        covered += n_cov
    res = {"lines": lines, "covered": covered, "coverage": covered / lines if lines else 0.0,
           "tests": len(tests), "skipped_functions": sorted(skipped), "per_file": per_file}
    with open(a.out + ".tmp", "w") as f:
        json.dump(res, f, indent=1)
    os.replace(a.out + ".tmp", a.out)


if __name__ == "__main__":
    main()
