#!/usr/bin/env python3
"""Tests of the timing runs (timed-runs.py) and of the tables made from them (tables.py cost
and table3), without KLEE: a stand-in KLEE for the runner, made-up run directories for the
tables. Run with the pipeline's Python (matplotlib):

  .venv/experiments/bin/python experiments/scripts/test_tables.py

tests/pipeline.rs runs it when that venv exists (./experiments/run.sh makes it).
"""
import csv
import importlib.util
import io
import os
import subprocess
import sys
import tempfile
import contextlib

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("tables", os.path.join(HERE, "tables.py"))
tables = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tables)

FAKE_KLEE = """#!/bin/sh
# a stand-in KLEE: says which configuration ran, in order, and writes KLEE's last lines
for a in "$@"; do case "$a" in --output-dir=*) out="${a#*=}" ;; esac; done
mkdir -p "$out"
case " $* " in *" --plugin="*) cfg=plugin ;; *) cfg=vanilla ;; esac
echo "$cfg $*" >> "$ORDER"
echo "KLEE: done: total instructions = 1000"
[ $cfg = plugin ] && echo "KLEE: done: pspa time = 0.010 s (50.00% of the run)"
exit 0
"""


def test_runner(tmp):
    klee = os.path.join(tmp, "klee")
    with open(klee, "w") as f:
        f.write(FAKE_KLEE)
    os.chmod(klee, 0o755)
    order = os.path.join(tmp, "order")
    out = os.path.join(tmp, "timed")
    bc = os.path.join(tmp, "p.bc")
    open(bc, "w").close()
    subprocess.run([sys.executable, os.path.join(HERE, "timed-runs.py"), "--out", out, "--reps", "3", "--bc", bc,
                    "--args", "-H37 --sym-stdin 8", f"vanilla={klee} --search=dfs",
                    f"plugin={klee} --plugin=/x.so --search=dfs"],
                   check=True, env={**os.environ, "ORDER": order}, stdout=subprocess.DEVNULL)
    ran = [line.split() for line in open(order)]
    # back to back, alternating: A B, B A, A B
    assert [r[0] for r in ran] == ["vanilla", "plugin", "plugin", "vanilla", "vanilla", "plugin"], ran
    # the options, then the output directory, the module and the program's arguments
    assert ran[0][1:] == ["--search=dfs", "--output-dir=klee", os.path.abspath(bc), "-H37", "--sym-stdin", "8"], ran[0]
    for i in (1, 2, 3):
        for cfg in ("vanilla", "plugin"):
            d = os.path.join(out, f"rep{i}-{cfg}")
            for f in ("klee.log", "time.txt", "machine.txt", "klee"):
                assert os.path.exists(os.path.join(d, f)), (d, f)
            assert tables.machine_other(d) is not None
    # a failing run stops the job with its log
    bad = subprocess.run([sys.executable, os.path.join(HERE, "timed-runs.py"), "--out", out, "--reps", "1", "--bc", bc,
                          "vanilla=false", f"plugin={klee}"], capture_output=True, text=True, env={**os.environ, "ORDER": order})
    assert bad.returncode != 0 and "exit code" in bad.stderr, bad.stderr


def fake_run(d, wall, instructions, rss_mb, share=None, timed_out=False, calls=None, other=0.2):
    os.makedirs(os.path.join(d, "klee"), exist_ok=True)
    with open(os.path.join(d, "time.txt"), "w") as f:
        m, s = divmod(wall, 60)
        f.write(f"\tElapsed (wall clock) time (h:mm:ss or m:ss): {int(m)}:{s:05.2f}\n"
                f"\tMaximum resident set size (kbytes): {int(rss_mb * 1024)}\n")
    with open(os.path.join(d, "klee.log"), "w") as f:
        if timed_out:
            f.write("KLEE: HaltTimer invoked\n")
        f.write(f"KLEE: done: total instructions = {instructions}\nKLEE: done: completed paths = 3\n")
        if share is not None:
            n = len(calls or [])
            f.write(f"KLEE: done: pspa calls analysed = {n} (pspa)\n"
                    f"KLEE: done: pspa analyses = {max(n - 1, 0)}, reused = 1 (reuse ratio 0.5000)\n"
                    f"KLEE: done: pspa failures = 0\n"
                    f"KLEE: done: pspa time = {wall * share / 100:.3f} s ({share:.2f}% of the run)\n"
                    "KLEE: done: pspa time: reading = 1.000 s, checking = 0.100 s, solving = 2.000 s (10 solver runs)\n"
                    "KLEE: done: pspa projection: objects met = 10, read = 5, rounds = 2\n")
    if calls is not None:
        with open(os.path.join(d, "klee", "pspa-calls.csv"), "w") as f:
            f.write("function,line,mode,ok,reused,mod,ref,mod_stripped,ref_stripped,projected_objects,micros,"
                    "unknown,read_objects,answer_bytes\n")
            for fn, reused, us in calls:
                f.write(f"{fn},1,pspa,1,{reused},1,1,1,1,1,{us},0,7,10\n")
    with open(os.path.join(d, "machine.txt"), "w") as f:
        f.write(f"busy = 1\nown = 1\nother = {other}\n")


CALLS = [("asn1_find_node", 0, 300), ("asn1_find_node", 1, 8), ("_asn1_find_up", 0, 500)]


def fake_pair(res, prog, pair, plugin, vanilla, instr=(3000000, 3000000), timed_out=False, other=0.2):
    """plugin: [(wall, share)] per repetition; vanilla: [wall]."""
    base = os.path.join(res, "runs", prog, f"timed-{pair}")
    for i, ((w, share), wv) in enumerate(zip(plugin, vanilla), 1):
        fake_run(os.path.join(base, f"rep{i}-plugin"), w, instr[0], 170, share, timed_out, CALLS, other if i == 2 else 0.1)
        fake_run(os.path.join(base, f"rep{i}-vanilla"), wv, instr[1], 130, timed_out=timed_out)


def read_csv(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def close(a, b, tol=0.01):
    return abs(float(a) - b) <= tol * max(abs(b), 1e-9)


def test_cost(res):
    # libtasn1 on its instruction budget: KLEE alone 3.5 s, the plugin 21.9 s, share 84 %
    fake_pair(res, "libtasn1", "cost-files", [(21.5, 84.1), (22.3, 84.0), (21.9, 83.9)], [3.6, 3.4, 3.5])
    fake_pair(res, "libtasn1", "cost-all", [(23.0, 85.0), (22.0, 85.2), (22.5, 84.8)], [3.5, 3.6, 3.4], other=7.5)
    # SQLite for 60 s: the plugin runs 200,000 instructions, KLEE alone 19,700,000
    fake_pair(res, "sqlite", "cost-all", [(61.0, 96.8)] * 3, [60.5] * 3, instr=(200000, 19700000))
    with contextlib.redirect_stdout(io.StringIO()) as out:
        tables.cost(res, ["libtasn1:files", "libtasn1:all", "sqlite:all"])
    rows = read_csv(os.path.join(res, "cost.csv"))
    r = rows[0]
    assert close(r["wall (s)"], 21.9) and close(r["wall vanilla (s)"], 3.5), r
    assert close(r["slowdown"], 21.9 / 3.5), r                      # the ratio of the medians
    assert close(r["slowdown implied by share"], 1 / (1 - 0.84)), r    # 6.25
    assert r["pspa share"] == "84.00%" and r["walls (s)"] == "21.50, 22.30, 21.90", r
    assert r["walls vanilla (s)"] == "3.60, 3.40, 3.50", r
    assert close(r["KLEE part (s)"], 21.9 * 0.161), r
    assert close(r["other CPU (s)"], 0.2) and close(rows[1]["other CPU (s)"], 7.5), rows[1]
    s = rows[2]
    assert close(s["slowdown"], (61.0 / 200000) / (60.5 / 19700000)), s
    assert close(s["slowdown implied by share"], 1 / (1 - 0.968)), s
    md = open(os.path.join(res, "cost.md")).read()
    assert "| libtasn1 | library files | instructions | 21.90 | 3.50 | 6.26 | 6.25 | 84.00% |" in md, md
    assert "back to back" in md and "3 runs with the plugin" in md and "`_asn1_find_up`" in md, md
    assert os.path.exists(os.path.join(res, "cost.png"))
    return out.getvalue()


def test_table3(res):
    for search in ("dfs", "random"):
        fake_pair(res, "libtasn1", f"pspa-{search}", [(20.0, 84.0), (21.0, 84.5), (22.0, 85.0)], [3.4, 3.5, 3.6])
        fake_run(os.path.join(res, "runs", "libtasn1", f"noreuse-{search}"), 38.0, 3000000, 170, 91.0, calls=CALLS)
    with contextlib.redirect_stdout(io.StringIO()) as out:
        tables.table3(res, ["libtasn1"])
    rows = read_csv(os.path.join(res, "table3.csv"))
    r = rows[0]
    assert r["R"] == "84.50%" and r["No R"] == "91.00%", r
    assert close(r["wall R (s)"], 21.0) and close(r["wall vanilla (s)"], 3.5) and close(r["slowdown R"], 6.0), r
    assert close(r["slowdown R implied by share"], 1 / (1 - 0.845)), r
    assert close(r["wall No R (s, beside another job)"], 38.0) and r["budget reached"] == "yes", r
    return out.getvalue()


def main():
    with tempfile.TemporaryDirectory() as tmp:
        test_runner(tmp)
    with tempfile.TemporaryDirectory() as res:
        cost_md = test_cost(res)
        test_table3(res)
    if "-v" in sys.argv:
        print(cost_md)
    print("test_tables: ok (timed-runs.py order and layout; cost and table3 medians, ratios, implied slowdowns)")


if __name__ == "__main__":
    main()
