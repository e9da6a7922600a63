#!/usr/bin/env python3
"""Tests of the timing runs (timed-runs.py) and of the tables made from them (tables.py cost
and table3), without KLEE: a stand-in KLEE for the runner, made-up run directories for the
tables; and of tables.py's reading of the plugin's counters from pspa-stats.json, against
the `KLEE: done:` lines of the same runs (fixtures/: real runs' done lines and JSON).
Run with the pipeline's Python (matplotlib):

  .venv/experiments/bin/python experiments/scripts/test_tables.py
  .venv/experiments/bin/python experiments/scripts/test_tables.py --compare KLEE.LOG:KLEE-OUT-DIR...
    (the same comparison on other runs: a log of KLEE's stderr and its output directory)

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
import json
import re

HERE = os.path.dirname(os.path.abspath(__file__))
def script(name, file):
    """One of experiments/scripts' scripts, imported as a module."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, file))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


tables = script("tables", "tables.py")

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
    # three runs: A B C, C B A, A B C
    open(order, "w").close()
    subprocess.run([sys.executable, os.path.join(HERE, "timed-runs.py"), "--out", out, "--reps", "3", "--bc", bc,
                    f"vanilla={klee}", f"spa-hand={klee} --plugin=/x.so --pspa-mode=spa",
                    f"pspa-hand={klee} --plugin=/x.so --pspa-mode=pspa"],
                   check=True, env={**os.environ, "ORDER": order}, stdout=subprocess.DEVNULL)
    ran = [line.split() for line in open(order)]
    mode = lambda r: "vanilla" if r[0] == "vanilla" else r[2].split("=")[1]
    assert [mode(r) for r in ran] == ["vanilla", "spa", "pspa", "pspa", "spa", "vanilla", "vanilla", "spa", "pspa"], ran
    assert os.path.isdir(os.path.join(out, "rep2-spa-hand", "klee"))
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
        # KLEE's own lines: the plugin's counters are read from pspa-stats.json alone
        f.write(f"KLEE: done: total instructions = {instructions}\nKLEE: done: completed paths = 3\n")
    if share is not None:
        n = len(calls or [])
        an = {"calls": n, "analyses": max(n - 1, 0), "reused": 1, "invocations": 2, "failures": 0, "over_budget": 0,
              "fallback": True, "whole_program_calls": sum(c[3] for c in calls or []), "whole_program_s": 1.5,
              "time_s": wall * share / 100, "run_s": wall, "read_s": 1.0, "check_s": 0.1, "solve_s": 2.0,
              "solver_runs": 10, "objects_met": 10, "objects_read": 5, "fetch_rounds": 2}
        with open(os.path.join(d, "klee", "pspa-stats.json"), "w") as f:
            json.dump({"schema": "pspa.stats/1", "mode": "pspa", "analysis": an}, f)
    if calls is not None:
        with open(os.path.join(d, "klee", "pspa-calls.csv"), "w") as f:
            f.write("function,line,mode,ok,reused,mod,ref,mod_stripped,ref_stripped,projected_objects,micros,"
                    "unknown,read_objects,answer_bytes,work,rounds,solve_micros,whole_program\n")
            for fn, reused, us, whole in calls:
                f.write(f"{fn},1,pspa,1,{reused},1,1,1,1,1,{us},0,7,10,0,1,{us // 2},{whole}\n")
    with open(os.path.join(d, "machine.txt"), "w") as f:
        f.write(f"busy = 1\nown = 1\nother = {other}\n")


# (function, reused, microseconds, answered by the whole-program fallback)
CALLS = [("asn1_find_node", 0, 300, 0), ("asn1_find_node", 1, 8, 0), ("_asn1_find_up", 0, 500, 1)]


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
    assert ("**libtasn1, library files.** pspa failures = 0; whole-program answers = 1 (0 over the work budget; "
            "whole-program analysis 1.500 s); pspa time: reading = 1.000 s, checking = 0.100 s, "
            "solving = 2.000 s (10 solver runs); pspa projection: objects met = 10, read = 5, rounds = 2.") in md, md
    # One of the three calls fell back (its row's whole_program), both in the table and per function.
    assert r["whole-program answers"] == "1 (33.33%)", r
    assert "| `_asn1_find_up` | 1 | 0 | 0 | 1 | 0.00 | 61.9% | 7 |" in md, md
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
    assert close(r["wall No R (s, one run)"], 38.0) and r["budget reached"] == "yes", r
    assert r["RR"] == "50.00%" and r["N"] == "2" and r["calls"] == "3", r
    return out.getvalue()


def test_table3chop(res):
    """Table 3 from Table 2's chopped runs: each run's own share, without and with reuse."""
    for search, (nr, r) in (("dfs", (8.0, 3.0)), ("random-path", (6.5, 0.75))):
        for mode, share in (("pspa-noreuse", nr), ("pspa", r)):
            d = os.path.join(res, "runs", "libosip", f"t2-{mode}-{search}")
            fake_run(d, 120.0, 4000000, 170, share, calls=CALLS)
            path = os.path.join(d, "klee", "pspa-stats.json")
            st = json.load(open(path))
            if mode == "pspa-noreuse":  # nothing reused: a swap of the runs shows in RR and N
                st["analysis"].update(reused=0, analyses=3)
            st["chop"] = {"recovery_states": 7, "snapshots": 9, "recoveries_ended_before_returning": 0,
                          "result_used": 0, "joined_mod_sets": 0, "fallbacks": 0, "triggered_recoveries": 7,
                          "spurious_recoveries": 0}
            json.dump(st, open(path, "w"))
    with contextlib.redirect_stdout(io.StringIO()):
        tables.table3chop(res, ["libosip"])
    rows = read_csv(os.path.join(res, "table3chop.csv"))
    assert [r["search"] for r in rows] == ["dfs", "random-path"], rows
    r = rows[0]
    # each share is the run's own analysis time over its run time: 8 % and 3 % of 120 s
    assert r["No R"] == "8.00%" and r["R"] == "3.00%" and rows[1]["R"] == "0.75%", rows
    assert close(r["analysis R (s)"], 3.6) and close(r["analysis No R (s)"], 9.6), r
    assert r["RR"] == "50.00%" and r["N"] == "2" and r["skipped calls"] == "3" and r["recoveries R"] == "7", r


# What tables.py read from the `KLEE: done:` lines before pspa.stats/1 (its regexes then),
# the reference the JSON must agree with.
OLD = {
    "pspa time": re.compile(r"KLEE: done: pspa time = ([\d.]+) s \(([\d.]+)% of the run\)"),
    "calls": re.compile(r"KLEE: done: pspa calls analysed = (\d+)"),
    "failures": re.compile(r"KLEE: done: pspa failures = (\d+)"),
    "analyses": re.compile(r"KLEE: done: pspa analyses = (\d+), reused = (\d+) \(reuse ratio ([\d.]+)\)"),
    "resolve": re.compile(r"pspa resolve: symbolic accesses = (\d+), candidates skipped = (\d+), snapshots = (\d+), "
                          r"mismatches = (\d+)"),
    "wit colours": re.compile(r"wit colours = (\d+) \(heap (\d+)\), writes = (\d+), through unknown pointers = (\d+)"),
    "wit transitions": re.compile(r"wit transitions = (\d+)"),
    "wit check": re.compile(r"wit check: writes checked = (\d+), violations = (\d+), not coloured = (\d+)"),
    "recoveries": re.compile(r"KLEE: done: recovery states = (\d+)"),
    "snapshots": re.compile(r"KLEE: done: created snapshots = (\d+)"),
    "fallbacks": re.compile(r"recovery paths run on from the snapshot \([a-z ,]+\) = (\d+)"),
    "spurious": re.compile(r"recoveries waited for by a load or a free = (\d+), of which the call wrote none of "
                           r"those bytes \(spurious\) = (\d+)"),
    # figure4's line expected `whole-program mod sets (...) = N`, which the plugin stopped
    # printing when joins replaced that fallback (its cells were empty since): today's words
    "chop line": re.compile(r"pspa chop: recoveries ended before returning = (\d+), recovered before a write at a "
                            r"symbolic offset = \d+, skipped calls whose result is used = (\d+), mod sets joined "
                            r"with older pending skips' post-states = (\d+), .*recovery paths run on from the "
                            r"snapshot \([a-z ,]+\) = (\d+)"),
}
SPLIT = ("KLEE: done: pspa time:", "KLEE: done: pspa projection:", "KLEE: done: pspa failures")


def compare(log, out):
    """The plugin's counters of one run as tables.py reads them (pspa-stats.json in the KLEE
    output directory `out`) against the done lines of its log; returns what was compared."""
    text = open(log, errors="replace").read()
    st = tables.Stats(os.path.join(out, "pspa-stats.json"))
    ints = lambda m: [int(g) for g in m.groups()]  # noqa: E731
    seen = []

    def same(what, old, new):
        assert old == new, f"{log}: {what}: the done lines say {old}, pspa-stats.json {new}"
        seen.append(what)

    # run(): the analysis' share, calls, failures, and PSPA's analyses, reuses, reuse ratio
    old = {"pspa_share": float(OLD["pspa time"].search(text).group(2)),
           "calls": int(OLD["calls"].search(text).group(1)), "failures": int(OLD["failures"].search(text).group(1))}
    m = OLD["analyses"].search(text)
    if m:
        old.update(analyses=int(m.group(1)), reuses=int(m.group(2)), reuse_ratio=float(m.group(3)))
    same("analysis", old, tables.analysis(st))
    # cost's notes: the --pspa-stats lines
    split = [line.strip()[len("KLEE: done: "):] for line in text.splitlines() if line.startswith(SPLIT)]
    if len(split) == 3:
        same("time split", split, tables.time_split(st))
    if OLD["resolve"].search(text):
        r = st["resolve"]
        same("resolve", ints(OLD["resolve"].search(text)),
             [r[k] for k in ("symbolic_accesses", "candidates_skipped", "snapshots", "mismatches")])
    if OLD["wit colours"].search(text):
        same("wit", ints(OLD["wit colours"].search(text)) + ints(OLD["wit transitions"].search(text))
             + ints(OLD["wit check"].search(text)), tables.wit(st))
    if OLD["recoveries"].search(text):
        c = tables.chop(st)
        line, sp = OLD["chop line"].search(text), OLD["spurious"].search(text)
        same("chop", [int(OLD[k].search(text).group(1)) for k in ("recoveries", "snapshots", "fallbacks")]
             + ints(sp) + ints(line),
             [c[k] for k in ("recoveries", "snapshots", "fallbacks", "triggered", "spurious", "ended", "result_used",
                             "joined", "fallbacks")])
    return seen


FIXTURES = os.path.join(HERE, "fixtures")


def test_stats_against_done_lines():
    """Each fixture (a real run's done lines and pspa-stats.json) reads the same both ways,
    and together they cover every counter tables.py takes from the JSON."""
    seen = set()
    for name in sorted(os.listdir(FIXTURES)):
        d = os.path.join(FIXTURES, name)
        seen.update(compare(os.path.join(d, "klee.log"), os.path.join(d, "klee")))
    assert seen == {"analysis", "time split", "resolve", "wit", "chop"}, seen
    # SPA: no reuse counters (run() leaves them out, as the done lines did)
    assert "reuse_ratio" not in tables.analysis(tables.stats_of(os.path.join(FIXTURES, "chop-spa")))


def test_stats_loud(tmp):
    """A missing pspa-stats.json or key stops the table, naming the file and the key."""
    d = os.path.join(tmp, "run")
    os.makedirs(os.path.join(d, "klee"))
    path = os.path.join(d, "klee", "pspa-stats.json")
    for make, want in ((None, f"{path}: missing"), ({"schema": "pspa.stats/1", "mode": "pspa", "analysis": {}},
                                                      f"{path}: no `chop`"),
                       ({"schema": "pspa.stats/1", "chop": {"snapshots": 1}}, f"{path}: no `chop.recovery_states`")):
        if make is not None:
            with open(path, "w") as f:
                json.dump(make, f)
        try:
            tables.chop(tables.stats_of(d))
        except SystemExit as e:
            assert str(e).startswith(want), (str(e), want)
        else:
            raise AssertionError(f"no stop for {make}")
    # a WIT point never reached: no colours, not zeros
    with open(path, "w") as f:
        json.dump({"schema": "pspa.stats/1", "wit": {"computed": False, "failed": False}}, f)
    assert tables.wit(tables.stats_of(d)) == [None] * 8


ISTATS = """version: 1
creator: klee
events: Icov Forks I Qtime
fn=main
1 1 1 0 10 0
2 2 1 1 5 1000
cfn=log
calls=2 9
3 3 0 4 40 500000
cfn=work
calls=1 20
4 4 0 0 7 0
fn=log
9 9 1 3 30 400000
10 10 1 1 10 100000
fn=work
20 20 1 0 7 0
"""


def test_profile(tmp):
    """profile.py's inclusive costs. By hand: log's own lines hold 40 instructions and 4
    forks; work's 7 and 0. main's own lines hold 15 instructions and 1 fork, and its two
    call sites 40 + 7 instructions and 4 + 0 forks under them: inclusive 62 and 5; query
    time 0.001 own + 0.5 + 0 under calls = 0.501 s. log was called twice (calls=2)."""
    profile = script("profile", "profile.py")
    path = os.path.join(tmp, "run.istats")
    with open(path, "w") as f:
        f.write(ISTATS)
    funcs, _ = profile.parse(path)
    got = {r["function"]: r for r in profile.rows(funcs)}
    assert (got["main"]["instructions"], got["main"]["instructions_incl"]) == (15, 62), got["main"]
    assert (got["main"]["forks"], got["main"]["forks_incl"]) == (1, 5), got["main"]
    assert abs(got["main"]["query_s"] - 0.501) < 1e-9, got["main"]
    assert (got["log"]["calls"], got["log"]["instructions_incl"], got["log"]["forks_incl"]) == (2, 40, 4), got["log"]
    assert (got["work"]["calls"], got["work"]["instructions_incl"]) == (1, 7), got["work"]


ERR = """Error: memory error: out of bound pointer
File: libc/string/memcpy.c
Line: 29
Stack:
\t#000000123 in memcpy (s1, s2, n) at libc/string/memcpy.c:29
\t#100000456 in _asn1_get_octet_string (der, node, len) at lib/decoding.c:1092
\t#200000789 in asn1_der_decoding2 (element) at lib/decoding.c:137
\t#300000111 in main () at driver.c:20
"""


def test_until_error(tmp):
    """Table 4's judge (until-error.py): a location is reached when an error's stack passes
    through it, outside the C library. The stack above (memcpy inside
    _asn1_get_octet_string, called from decoding.c:137) reaches decoding.c:1092 and
    decoding.c:137, not memcpy's line and not a line it does not name."""
    ue = script("until_error", "until-error.py")
    path = os.path.join(tmp, "test000001.ptr.err")
    with open(path, "w") as f:
        f.write(ERR)
    assert ue.locations(path) == ["decoding.c:1092", "decoding.c:137", "driver.c:20"], ue.locations(path)
    seen = {"decoding.c:137": None, "decoding.c:1092": None, "memcpy.c:29": None, "decoding.c:9": None}
    ue.found(tmp, os.path.getmtime(path) - 2, seen)
    assert seen["decoding.c:137"] == 2 and seen["decoding.c:1092"] == 2, seen
    assert seen["memcpy.c:29"] is None and seen["decoding.c:9"] is None, seen
    # written 2 s after the start: past a 1 s limit, it does not count
    late = {"decoding.c:137": None}
    ue.found(tmp, os.path.getmtime(path) - 2, late, limit=1)
    assert late["decoding.c:137"] is None, late


COV_LIB = """int used(int x) {
  if (x > 100)
    return 1;
  return 2;
}

int skipped(int x) {
  return x * 3;
}

int never(int x) {
  return x - 1;
}
"""

COV_MAIN = """int used(int);
int skipped(int);
int main(void) { return used(7) + skipped(1) == 5 ? 0 : 1; }
"""


def test_coverage(tmp):
    """coverage.py's counting (Table 2), on a library built with gcov and a stand-in test
    (the native program ignores KTEST_FILE and runs once per test). By hand: the library's
    instrumented lines are used's 4 (1, 2, 3, 4: the opening line, the test, both returns),
    skipped's 2 and never's 2: 8. One run covers used's 1, 2, 4 (x = 7: not `return 1`) and
    skipped's 2: 5 of 8. With --skip skipped: 3 of 6. A test of a path cut short (.early)
    is not replayed: with only that test, nothing is covered."""
    cov = os.path.join(tmp, "cov")
    os.makedirs(cov)
    with open(os.path.join(cov, "lib.c"), "w") as f:
        f.write(COV_LIB)
    with open(os.path.join(tmp, "main.c"), "w") as f:
        f.write(COV_MAIN)
    subprocess.run(["gcc", "--coverage", "-O0", "-c", "lib.c", "-o", "lib.o"], cwd=cov, check=True)
    native = os.path.join(tmp, "native")
    subprocess.run(["gcc", "-O0", os.path.join(tmp, "main.c"), os.path.join(cov, "lib.o"), "--coverage", "-o", native],
                   check=True)
    kdir = os.path.join(tmp, "klee")
    os.makedirs(kdir)
    open(os.path.join(kdir, "test000001.ktest"), "w").close()
    coverage_py = os.path.join(HERE, "coverage.py")

    def measure(*extra):
        out = os.path.join(tmp, "cov.json")
        subprocess.run([sys.executable, coverage_py, native, kdir, cov, out, *extra], check=True)
        return json.load(open(out))

    c = measure()
    assert (c["covered"], c["lines"], c["tests"]) == (5, 8, 1), c
    c = measure("--skip", "skipped:12,other")
    assert (c["covered"], c["lines"]) == (3, 6), c
    # the replays left no .gcda beside the objects: each measure has its own prefix
    assert not [n for n in os.listdir(cov) if n.endswith(".gcda")], os.listdir(cov)
    open(os.path.join(kdir, "test000001.early"), "w").close()
    c = measure()
    assert (c["covered"], c["lines"], c["tests"]) == (0, 8, 0), c


FAKE_HALT = """import signal, sys, time
n = [0]
def h(s, f):
    n[0] += 1
    if n[0] == 1:
        return  # swallowed, as Z3 does while it solves
    if n[0] == 2:
        print("KLEE: ctrl-c detected, requesting interpreter to halt.", file=sys.stderr, flush=True)
        sys.exit(0)
    print("KLEE: ctrl-c detected, exiting.", file=sys.stderr, flush=True)
    sys.exit(1)
signal.signal(signal.SIGINT, h)
while True:
    time.sleep(0.05)
"""


def test_halt(tmp):
    """until-error.py's halt: the first SIGINT is swallowed (Z3), so it is sent again; once
    the log says KLEE heard one, no more is sent (a second one KLEE hears makes it exit
    without statistics: exit code 1 here)."""
    ue = script("until_error", "until-error.py")
    fake, log = os.path.join(tmp, "fake.py"), os.path.join(tmp, "klee.log")
    with open(fake, "w") as f:
        f.write(FAKE_HALT)
    with open(log, "w") as out:
        p = subprocess.Popen([sys.executable, fake], stdout=out, stderr=subprocess.STDOUT)
        import time
        time.sleep(0.5)  # its handler installed
        ue.halt(p, log, grace=20)
    assert p.returncode == 0, (p.returncode, open(log).read())
    assert open(log).read().count("ctrl-c detected") == 1, open(log).read()


def main():
    if sys.argv[1:2] == ["--compare"]:
        for pair in sys.argv[2:]:
            log, out = pair.rsplit(":", 1)
            print(f"{out}: {', '.join(compare(log, out))} agree")
        return
    with tempfile.TemporaryDirectory() as tmp:
        test_runner(tmp)
    with tempfile.TemporaryDirectory() as res:
        cost_md = test_cost(res)
        test_table3(res)
        test_table3chop(res)
    test_stats_against_done_lines()
    with tempfile.TemporaryDirectory() as tmp:
        test_stats_loud(tmp)
    with tempfile.TemporaryDirectory() as tmp:
        test_profile(tmp)
    with tempfile.TemporaryDirectory() as tmp:
        test_until_error(tmp)
    with tempfile.TemporaryDirectory() as tmp:
        test_coverage(tmp)
    with tempfile.TemporaryDirectory() as tmp:
        test_halt(tmp)
    if "-v" in sys.argv:
        print(cost_md)
    print("test_tables: ok (timed-runs.py order and layout; cost and table3 medians, ratios, implied slowdowns; table3chop's shares; "
          "pspa-stats.json against the done lines of the fixtures' runs; profile.py's inclusive costs; until-error.py's judge and halt; coverage.py's counting)")


if __name__ == "__main__":
    main()
