#!/usr/bin/env python3
"""The experiment tables from the pipeline's KLEE runs (experiments/Snakefile).

  tables.py table1 RES PROG...    precision: average stripped mod/ref per analysed call
  tables.py table3 RES PROG...    overhead and reuse, DFS and random-path
  tables.py table3chop RES PROG.. overhead and reuse where the paper measured it: Table 2's chopped runs
  tables.py drivers RES PROG...   each driver for 60 s under KLEE without the plugin
  tables.py cost RES PROG:SEL...  the analysis' cost inside KLEE against KLEE without it
  tables.py check RES PROG:RUN... --pspa-check: accesses outside mod/ref, answer sizes
  tables.py table7 RES PROG...    symbolic pointer resolution: queries, baseline/SPA/PSPA
  tables.py table6 RES PROG...    WIT colours and transitions, SPA/PSPA, hand and automatic point
  tables.py figure4 RES PROG...   chopping: recoveries per path over random skip sets, SPA/PSPA
  tables.py table5 RES PROG...    chopping: all-path time vanilla/SPA/PSPA, errors and replays checked
  tables.py table4 RES CVE...     chopping: time to each CVE's location, SPA/PSPA, with/without its searcher
  tables.py autowide RES PROG...  --skip-functions=auto against KLEE alone in a time budget: paths, coverage

Each writes RES/NAME.csv, RES/NAME.md and RES/NAME.png. A run directory is
RES/runs/PROG/RUN/ with klee/ (KLEE's output directory), klee.log (its stderr) and
time.txt (/usr/bin/time -v). A ratio against KLEE alone (cost, table3) comes from
RES/runs/PROG/timed-PAIR/rep{i}-{vanilla,plugin}/ (timed-runs.py: back to back, alone).

Every counter of the plugin comes from klee/pspa-stats.json (pspa.stats/1, Stats): a run
the plugin analysed in must have it, with every key a table reads. From klee.log come only
KLEE's own lines (tools/klee/main.cpp: `KLEE: done: total instructions`, `completed
paths`, `partially completed paths`, `generated tests`; `HaltTimer invoked`) and the WIT
point (the plugin's `pspa wit: colours computed at the call of F`, not in pspa.stats/1).
`KLEE: done: recovery states` and `created snapshots` are the plugin's (Chopper's names).
"""
import csv
import glob
import json
import os
import re
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def done_lines(log):
    """The `KLEE: done: NAME = VALUE` lines of a run, as a dict of strings (tables read
    KLEE's own from it: the plugin's come from pspa-stats.json)."""
    out = {}
    for line in open(log, errors="replace"):
        m = re.match(r"KLEE: done: (.+?) = (.+)$", line.strip())
        if m:
            out[m.group(1)] = m.group(2)
    return out


def first_int(s):
    return int(re.match(r"-?\d+", s).group(0))


def gnu_time(path):
    """Wall seconds and peak RSS (MB) from /usr/bin/time -v."""
    wall, rss = None, None
    for line in open(path):
        line = line.strip()
        if line.startswith("Elapsed (wall clock) time"):
            parts = [float(p) for p in line.rsplit(" ", 1)[1].split(":")]
            wall = sum(p * 60 ** i for i, p in enumerate(reversed(parts)))
        elif line.startswith("Maximum resident set size"):
            rss = int(line.rsplit(" ", 1)[1]) / 1024
    return wall, rss


def calls(path):
    """The analysed calls of a run (pspa-calls.csv rows, comments skipped)."""
    with open(path) as f:
        return [r for r in csv.DictReader(line for line in f if not line.startswith("#"))]


def answered(row):
    """A pspa-calls.csv row the analysis itself answered: not failed, and not given the
    whole-program answer by the fallback (`whole_program`, absent before the fallback)."""
    return row["ok"] == "1" and row.get("whole_program", "0") != "1"


class Stats:
    """A run's pspa-stats.json (pspa.stats/1: every counter of the plugin's done lines,
    typed). `stats["check"]["outside"]`: a missing section or key stops the table with
    the file and the key, instead of leaving a cell empty."""

    def __init__(self, path, data=None, where=""):
        self.path, self.where = path, where
        self.data = json.load(open(path)) if data is None else data

    def __getitem__(self, key):
        if key not in self.data:
            sys.exit(f"{self.path}: no `{self.where}{key}` (schema {self.data.get('schema', '?')})")
        v = self.data[key]
        return Stats(self.path, v, f"{self.where}{key}.") if isinstance(v, dict) else v

    def get(self, key, default):
        """A counter only newer plugins write: `default` for runs made before it."""
        return self[key] if key in self.data else default


def stats_of(d):
    """The pspa-stats.json of the KLEE run in directory d (its klee/ output)."""
    path = os.path.join(d, "klee", "pspa-stats.json")
    if not os.path.exists(path):
        sys.exit(f"{path}: missing (a plugin older than pspa.stats/1, or a run that did not finish)")
    return Stats(path)


def printed(x, digits):
    """x as the plugin's done line prints it (printf's %.Nf): the tables' numbers as they
    were when read from that line."""
    return float(f"{x:.{digits}f}")


def analysis(st):
    """The analysis counters of a run (Stats): calls analysed, failures, the analysis' share
    of the run (%), and for PSPA the analyses run, the reuses and the reuse ratio."""
    an = st["analysis"]
    r = {"pspa_share": printed(100.0 * an["time_s"] / an["run_s"] if an["run_s"] > 0 else 0.0, 2),
         "calls": an["calls"], "failures": an["failures"]}
    if st["mode"] == "pspa":  # SPA reuses nothing
        inv = an["invocations"]
        r.update(analyses=an["analyses"], reuses=an["reused"],
                 reuse_ratio=printed(an["reused"] / inv if inv else 0.0, 4))
    return r


def run(res, prog, name, plugin):
    """A run's numbers. plugin: whether the plugin analysed in it (it then wrote
    pspa-stats.json); KLEE alone and the plugin loaded idle (no analysis asked for) did not."""
    d = os.path.join(res, "runs", prog, name)
    log = os.path.join(d, "klee.log")
    done = done_lines(log)
    text = open(log, errors="replace").read()
    wall, rss = gnu_time(os.path.join(d, "time.txt"))
    r = {
        "dir": d,
        "instructions": first_int(done.get("total instructions", "0")),
        "completed": first_int(done.get("completed paths", "0")),
        "partial": first_int(done.get("partially completed paths", "0")),
        "tests": first_int(done.get("generated tests", "0")),
        "wall": wall,
        "rss": rss,
        # a run stopped by --max-time instead of its instruction budget is not comparable
        "timed_out": "HaltTimer invoked" in text,
    }
    if plugin:
        r["stats"] = stats_of(d)
        r.update(analysis(r["stats"]))
        # A run that analysed no call writes no CSV.
        path = os.path.join(d, "klee", "pspa-calls.csv")
        rows = calls(path) if os.path.exists(path) else []
        r["rows"] = rows
        hits = [int(x["micros"]) for x in rows if answered(x) and x["reused"] == "1"]
        misses = [int(x["micros"]) for x in rows if answered(x) and x["reused"] == "0"]
        r["hit_us"] = statistics.median(hits) if hits else None
        r["miss_us"] = statistics.median(misses) if misses else None
    return r


def machine_other(d):
    """The CPU seconds everything else on the machine used during a timed run (machine.txt)."""
    path = os.path.join(d, "machine.txt")
    if not os.path.exists(path):
        return None
    for line in open(path):
        k, _, v = line.partition("=")
        if k.strip() == "other":
            return float(v)
    return None


def median_run(runs):
    """The run of median wall time (the lower middle one of an even number)."""
    return sorted(runs, key=lambda r: r["wall"])[(len(runs) - 1) // 2]


def timed(res, prog, pair):
    """A ratio against KLEE alone from the runs of timed-runs.py: RES/runs/PROG/timed-PAIR/
    rep{i}-vanilla and rep{i}-plugin, made back to back, alone on the machine.

    wall, wall_v: median wall seconds of the plugin runs and of KLEE alone; slowdown: the
    ratio of the medians of seconds per instruction (the ratio of median walls when both ran
    the same instructions: an instruction budget; the inverse ratio of instructions when both
    ran for a time); share: the median analysis share of the plugin runs (pspa-stats.json:
    the analysis' seconds over the run's, in %), implied: the slowdown that share implies if
    KLEE's own work cost what it costs alone, 1 / (1 - share); klee_part: the median wall of
    the plugin runs less their analysis time; other: the most CPU seconds anything else used
    during one run."""
    base = f"timed-{pair}"
    d = os.path.join(res, "runs", prog, base)
    reps = sorted({int(m.group(1)) for n in os.listdir(d) for m in [re.match(r"rep(\d+)-", n)] if m})
    runs = {cfg: [run(res, prog, f"{base}/rep{i}-{cfg}", cfg == "plugin") for i in reps]
            for cfg in ("plugin", "vanilla")}
    p, v = runs["plugin"], runs["vanilla"]

    def spi(r):
        return r["wall"] / r["instructions"] if r["instructions"] else None

    sp = [spi(r) for r in p if spi(r)]
    sv = [spi(r) for r in v if spi(r)]
    share = statistics.median(r["pspa_share"] for r in p)
    return {
        "reps": len(reps),
        "plugin": p, "vanilla": v,
        "median": median_run(p), "median_vanilla": median_run(v),
        "wall": statistics.median(r["wall"] for r in p),
        "wall_v": statistics.median(r["wall"] for r in v),
        "walls": ", ".join(f"{r['wall']:.2f}" for r in p),
        "walls_v": ", ".join(f"{r['wall']:.2f}" for r in v),
        "instructions": statistics.median(r["instructions"] for r in p),
        "instructions_v": statistics.median(r["instructions"] for r in v),
        "slowdown": statistics.median(sp) / statistics.median(sv) if sp and sv else None,
        "share": share,
        "implied": 1 / (1 - share / 100) if share < 100 else None,
        "klee_part": statistics.median(r["wall"] * (1 - r["pspa_share"] / 100) for r in p),
        "other": max((o for o in (machine_other(r["dir"]) for r in p + v) if o is not None), default=None),
        "timed_out": any(r["timed_out"] for r in p + v),
    }


TIMED_NOTE = (
    "Timing: the run with the plugin and KLEE alone (the patched KLEE without the plugin, the same "
    "options and budget) ran back to back, alternating (A B, B A, A B), alone on the machine (the "
    "pipeline's job takes every core); walls and RSS are medians. slowdown: the ratio of the medians "
    "of seconds per instruction (on an instruction budget, the ratio of median walls). implied: "
    "1 / (1 - share), the slowdown the analysis share alone accounts for if KLEE's own work costs what "
    "it costs alone; KLEE part: the plugin run's wall less its analysis time (against KLEE alone's "
    "wall: what the plugin costs outside the analysis, or saves). other CPU: the most CPU seconds "
    "anything else on the machine used during one of the runs (about 0 when it was idle).\n")


def fmt(v, digits=2):
    if v is None:
        return "n/a"
    if isinstance(v, float):
        return f"{v:,.{digits}f}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)


def write(res, name, header, rows, notes=""):
    with open(os.path.join(res, name + ".csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        for r in rows:
            w.writerow(["" if v is None else v for v in r])
    with open(os.path.join(res, name + ".md"), "w") as f:
        f.write("| " + " | ".join(header) + " |\n")
        f.write("|" + "---|" * len(header) + "\n")
        for r in rows:
            f.write("| " + " | ".join(fmt(v) for v in r) + " |\n")
        if notes:
            f.write("\n" + notes)
    print(open(os.path.join(res, name + ".md")).read())


def weighted(rows, sets):
    """Average mod and ref sizes over `rows` (calls) of the per-function sizes in `sets`
    (a pspa.analysis/1 document): the whole-program sets weighted by the same calls."""
    fns = sets["functions"]
    m = [len(fns[r["function"]]["mod"]) for r in rows if r["function"] in fns]
    f = [len(fns[r["function"]]["ref"]) for r in rows if r["function"] in fns]
    missing = sum(1 for r in rows if r["function"] not in fns)
    if missing:
        print(f"warning: {missing} calls of functions not in the document", file=sys.stderr)
    return (statistics.mean(m) if m else None, statistics.mean(f) if f else None)


def table1(res, progs):
    header = ["program", "calls", "functions", "failed", "SPA mod", "PSPA mod", "SVF mod",
              "SPA ref", "PSPA ref", "SVF ref", "SPA mod (SVF's blind spots)",
              "SPA ref (SVF's blind spots)", "instructions", "budget reached"]
    rows, plot = [], []
    for p in progs:
        spa, pspa = run(res, p, "spa-dfs", True), run(res, p, "pspa-dfs", True)
        # DFS is deterministic: both modes run the same calls in the same order, up to where
        # the shorter run stopped (a PSPA run may hit --max-time first). Compare that prefix.
        n = min(len(spa["rows"]), len(pspa["rows"]))
        if [r["function"] for r in spa["rows"][:n]] != [r["function"] for r in pspa["rows"][:n]]:
            sys.exit(f"{p}: the SPA and PSPA runs analysed different calls")
        ok = [r for r in pspa["rows"][:n] if answered(r)]
        same = [s for s, q in zip(spa["rows"][:n], pspa["rows"][:n]) if answered(q)]
        mean = lambda rs, k: statistics.mean(int(r[k]) for r in rs) if rs else None  # noqa: E731
        svf = weighted(ok, json.load(open(os.path.join(res, "runs", p, "svf.json"))))
        blind = weighted(ok, json.load(open(os.path.join(res, "runs", p, "spa-blind-spots.json"))))
        mine = weighted(ok, json.load(open(os.path.join(res, "runs", p, "spa.json"))))
        spa_mod, spa_ref = mean(same, "mod_stripped"), mean(same, "ref_stripped")
        # KLEE's SPA mode and `pspa analyze` on the module KLEE ran are the same analysis.
        if mine != (spa_mod, spa_ref):
            print(f"warning: {p}: KLEE's SPA {spa_mod}/{spa_ref} differs from pspa analyze's {mine}",
                  file=sys.stderr)
        row = [p, n, len({r["function"] for r in pspa["rows"][:n]}), n - len(ok), spa_mod, mean(ok, "mod_stripped"), svf[0],
               spa_ref, mean(ok, "ref_stripped"), svf[1], blind[0], blind[1],
               pspa["instructions"], "no (timeout)" if pspa["timed_out"] else "yes"]
        rows.append(row)
        plot.append((p, row[4:10]))
    per_function(res, progs)
    notes = ("Averages over the analysed calls that succeeded (DFS, the same instruction budget in "
             "both modes), uniqueness stripped; `failed` counts the PSPA calls without an answer of their "
             "own (failed, or given the whole-program answer by --pspa-fallback). SVF and \"SVF's blind spots\" are whole-program sets "
             "of the module KLEE ran, weighted by the same calls.\n")
    write(res, "table1", header, rows, notes)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for ax, off, title in ((axes[0], 0, "mod-set"), (axes[1], 3, "ref-set")):
        width = 0.27
        for i, (label, colour) in enumerate((("SPA", "tab:red"), ("PSPA", "tab:green"), ("SVF", "tab:blue"))):
            ax.bar([x + (i - 1) * width for x in range(len(plot))],
                   [v[off + i] or 0 for _, v in plot], width, label=label, color=colour)
        ax.set_xticks(range(len(plot)), [p for p, _ in plot])
        ax.set_yscale("symlog")
        ax.set_title(f"average {title} size per call")
        ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(res, "table1.png"), dpi=100)


def per_function(res, progs, top=8):
    """Table 1 broken down: the most called functions of each program, whole-program sets
    (pspa's SPA, SVF, pspa without SVF's blind spots) against PSPA's average."""
    header = ["program", "function", "calls", "PSPA mod", "SPA mod", "SVF mod", "SPA mod (blind spots)",
              "PSPA ref", "SPA ref", "SVF ref", "SPA ref (blind spots)"]
    rows = []
    for p in progs:
        docs = {k: json.load(open(os.path.join(res, "runs", p, f"{k}.json")))["functions"]
                for k in ("spa", "svf", "spa-blind-spots")}
        calls_ = [r for r in run(res, p, "pspa-dfs", True)["rows"] if answered(r)]
        by = {}
        for r in calls_:
            by.setdefault(r["function"], []).append(r)
        for f, rs in sorted(by.items(), key=lambda kv: -len(kv[1]))[:top]:
            size = lambda k, which: len(docs[k][f][which]) if f in docs[k] else None  # noqa: E731
            rows.append([p, f, len(rs), statistics.mean(int(r["mod_stripped"]) for r in rs), size("spa", "mod"),
                         size("svf", "mod"), size("spa-blind-spots", "mod"),
                         statistics.mean(int(r["ref_stripped"]) for r in rs), size("spa", "ref"), size("svf", "ref"),
                         size("spa-blind-spots", "ref")])
    write(res, "table1-functions", header, rows,
          "The most called functions of each PSPA run; whole-program sets of the module KLEE ran.\n")


def table3(res, progs):
    header = ["program", "search", "No R", "R", "RR", "N", "calls", "failed", "wall vanilla (s)",
              "wall R (s)", "slowdown R", "slowdown R implied by share", "wall No R (s, one run)",
              "other CPU (s)", "RSS vanilla (MB)", "RSS R (MB)", "hit median (us)", "miss median (us)",
              "instructions", "budget reached"]
    rows = []
    reps = None
    for p in progs:
        for search, suffix in (("DFS", "dfs"), ("Random", "random")):
            t = timed(res, p, f"pspa-{suffix}")
            reps = t["reps"]
            r, van = t["median"], t["median_vanilla"]
            nr = run(res, p, f"noreuse-{suffix}", True)
            rows.append([p, search, f"{nr['pspa_share']:.2f}%", f"{t['share']:.2f}%",
                         f"{100 * r['reuse_ratio']:.2f}%", r["analyses"], r["calls"], r["failures"],
                         t["wall_v"], t["wall"], t["slowdown"], t["implied"], nr["wall"], t["other"],
                         van["rss"], r["rss"], r["hit_us"], r["miss_us"], r["instructions"],
                         "no (timeout)" if t["timed_out"] or nr["timed_out"] else "yes"])
    notes = ("No R / R: the analysis' share of the run's wall time without / with reuse; RR: reuse "
             "ratio (calls whose summary was reused); N: analyses run with reuse (the paper's N). "
             f"R, its wall and KLEE alone's: medians of {reps} runs each. " + TIMED_NOTE +
             "The runs without reuse ran once each, beside the pipeline's other jobs unless it ran "
             "with --cores 1: their share is measured within the run; their wall is comparable "
             "with the others only with --cores 1.\n")
    write(res, "table3", header, rows, notes)
    fig, ax = plt.subplots(figsize=(9, 4))
    labels = [f"{r[0]}\n{r[1]}" for r in rows]
    xs = range(len(rows))
    ax.bar([x - 0.2 for x in xs], [float(r[2].rstrip("%")) for r in rows], 0.4, label="no reuse")
    ax.bar([x + 0.2 for x in xs], [float(r[3].rstrip("%")) for r in rows], 0.4, label="reuse")
    ax.set_xticks(list(xs), labels, fontsize=7)
    ax.set_ylabel("analysis share of run time (%)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(res, "table3.png"), dpi=100)


def drivers(res, progs):
    header = ["program", "instructions", "completed paths", "partial paths", "tests", "wall (s)", "RSS (MB)"]
    rows = []
    for p in progs:
        r = run(res, p, "vanilla60", False)
        rows.append([p, r["instructions"], r["completed"], r["partial"], r["tests"], r["wall"], r["rss"]])
    write(res, "drivers", header, rows, "Each driver for 60 s (--max-time=60s, DFS), KLEE without the plugin.\n")
    fig, ax = plt.subplots(figsize=(7, 3.5))
    ax.bar([r[0] for r in rows], [r[1] for r in rows])
    ax.set_ylabel("instructions in 60 s")
    ax.set_yscale("log")
    fig.tight_layout()
    fig.savefig(os.path.join(res, "drivers.png"), dpi=100)


def time_split(st):
    """Where a run's analysis time went (Stats), in the words of its --pspa-stats done lines:
    failures, reading, checking and solving time, the projection's objects and rounds."""
    an = st["analysis"]
    trial = (f", {an['over_trial']} of them the first of their function over the trial budget"
             if an.get("over_trial", 0) else "")
    # As the plugin prints it: under --pspa-fallback=whole-program (the default) calls over
    # the budget are whole-program answers. Runs made before `fallback` was written (the
    # fallback's first commits) had it on when they counted whole-program answers.
    if an.get("fallback", an.get("whole_program_calls", 0) > 0):
        whole = an["whole_program_calls"]
        line = (f"pspa failures = {an['failures']}; whole-program answers = {whole} ({an['over_budget']} over "
                f"the work budget{trial}; whole-program analysis {an['whole_program_s']:.3f} s)"
                if whole or an["over_budget"] else f"pspa failures = {an['failures']}")
    else:
        over = f" ({an['over_budget']} over the work budget{trial})" if an["over_budget"] else ""
        line = f"pspa failures = {an['failures']}{over}"
    return [line,
            f"pspa time: reading = {an['read_s']:.3f} s, checking = {an['check_s']:.3f} s, solving = "
            f"{an['solve_s']:.3f} s ({an['solver_runs']} solver runs)",
            f"pspa projection: objects met = {an['objects_met']}, read = {an['objects_read']}, "
            f"rounds = {an['fetch_rounds']}"]


def cost(res, pairs):
    header = ["program", "analysed", "budget", "wall (s)", "wall vanilla (s)", "slowdown", "slowdown implied by share",
              "pspa share", "KLEE part (s)", "walls (s)", "walls vanilla (s)", "other CPU (s)", "instructions",
              "instructions vanilla", "RSS (MB)", "RSS vanilla (MB)", "RSS ratio", "calls", "reuse ratio",
              "hit median (us)", "miss median (us)", "failed calls", "whole-program answers", "unknown calls"]
    rows = []
    medians = {}
    reps = None
    for pair in pairs:
        p, sel = pair.split(":")
        t = timed(res, p, f"cost-{sel}")
        reps = t["reps"]
        r, van = t["median"], t["median_vanilla"]
        medians[pair] = r
        unknown = sum(1 for x in r["rows"] if x.get("unknown") == "1")
        # Calls answered by the whole-program fallback (--pspa-fallback): not failures.
        whole = r["stats"]["analysis"].get("whole_program_calls", 0)
        rows.append([p, "library files" if sel == "files" else "all functions",
                     "instructions" if p == "libtasn1" else "60 s", t["wall"], t["wall_v"], t["slowdown"],
                     t["implied"], f"{t['share']:.2f}%", t["klee_part"], t["walls"], t["walls_v"], t["other"],
                     t["instructions"], t["instructions_v"], r["rss"], van["rss"],
                     r["rss"] / van["rss"] if van["rss"] else None,
                     r["calls"], r.get("reuse_ratio"), r["hit_us"], r["miss_us"],
                     f"{r['failures']} ({100 * r['failures'] / max(r['calls'], 1):.2f}%)",
                     f"{whole} ({100 * whole / max(r['calls'], 1):.2f}%)", unknown])
    notes = (f"Each row: {reps} runs with the plugin and {reps} of KLEE alone, DFS. libtasn1 on its "
             "instruction budget; SQLite, make and m4 for 60 s (m4's one path ends before). " + TIMED_NOTE +
             "For a run stopped by time the slowdown compares different stretches of the program (KLEE alone "
             "gets further): the share's is the better estimate there. Below, the median plugin run's "
             "`KLEE: done: pspa ...` lines (--pspa-stats) and the functions whose analysis cost most.\n")
    # Where each run's analysis time went: its --pspa-stats counters, and the functions that
    # cost most (from pspa-calls.csv).
    for pair in pairs:
        p, sel = pair.split(":")
        r = medians[pair]
        notes += (f"\n**{p}, {'library files' if sel == 'files' else 'all functions'}.** "
                  + "; ".join(time_split(r["stats"])) + ".\n\n")
        by = {}
        for x in r["rows"]:
            f = by.setdefault(x["function"], {"calls": 0, "reused": 0, "failed": 0, "whole": 0, "us": 0,
                                              "read": []})
            f["calls"] += 1
            f["reused"] += x["reused"] == "1"
            f["failed"] += x["ok"] == "0"
            f["whole"] += x.get("whole_program") == "1"
            f["us"] += int(x["micros"])
            f["read"].append(int(x.get("read_objects") or 0))
        total = sum(f["us"] for f in by.values()) or 1
        notes += ("| function | calls | reused | failed | whole-program | analysis (s) | share | objects read, median |\n"
                  "|---|---|---|---|---|---|---|---|\n")
        for name, f in sorted(by.items(), key=lambda kv: -kv[1]["us"])[:6]:
            notes += (f"| `{name}` | {f['calls']:,} | {f['reused']:,} | {f['failed']:,} | {f['whole']:,} | "
                      f"{f['us'] / 1e6:.2f} | "
                      f"{100 * f['us'] / total:.1f}% | {statistics.median(f['read']):,.0f} |\n")
    write(res, "cost", header, rows, notes)
    fig, ax = plt.subplots(figsize=(7, 3.5))
    xs = range(len(rows))
    ax.bar([x - 0.2 for x in xs], [r[5] or 0 for r in rows], 0.4, label="measured (ratio of medians)")
    ax.bar([x + 0.2 for x in xs], [r[6] or 0 for r in rows], 0.4, label="implied by the analysis share")
    ax.set_xticks(list(xs), [f"{r[0]}\n{r[1]}" for r in rows])
    ax.set_ylabel("slowdown against KLEE alone")
    ax.set_yscale("log")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(res, "cost.png"), dpi=100)


def check(res, pairs):
    header = ["program", "run", "points-to kept", "budget reached", "instructions", "calls checked", "failed calls",
              "accesses checked", "outside mod/ref", "to unknown sites", "at symbolic offsets",
              "declared calls inside", "answer bytes, median", "answer bytes, mean", "answer bytes, max"]
    rows = []
    for pair in pairs:
        p, name = pair.split(":")
        r = run(res, p, name, True)
        c, an = r["stats"]["check"], r["stats"]["analysis"]
        sizes = [int(x["answer_bytes"]) for x in r["rows"] if answered(x)]
        what = {"check": "library", "check-pt": "library", "check-all": "all functions",
                "check-chop": "library, chopped (skip set 0)"}[name]
        rows.append([p, what, "yes" if name == "check-pt" else "no", "no" if r["timed_out"] else "yes", r["instructions"],
                     c["calls_checked"], c["failed_calls"], c["accesses"], c["outside"], c["unknown_site"],
                     c["symbolic_offset"], c["declared_calls_inside"], int(statistics.median(sizes)) if sizes else None,
                     an["answer_bytes"] // max(an["answers"], 1), an["answer_bytes_max"]])
    notes = ("Each program's library functions analysed (--pspa-analyze-files; `all functions`: "
             "--pspa-analyze-all, uclibc's and the POSIX runtime's too; `chopped`: the library's functions "
             "on a run skipping figure4's random set 0, where calls analysed while skips are pending join "
             "their post-states), DFS, with --pspa-check: every "
             "load and store executed inside an analysed call, on every path, until the call returns, is "
             "checked against the call's mod or ref set (the object mapped to its abstract node; accesses "
             "to the call's own locals are not effects and are left out). `outside mod/ref` must be 0. "
             "Accesses at symbolic offsets are checked for the whole object; objects of unknown site are "
             "answered \"may\"; calls of declared functions (KLEE's special handlers, native code) "
             "inside an analysed call are counted: their own accesses are not seen. Answer bytes: the heap "
             "size of each analysed call's answer handle (pspa-calls.csv `answer_bytes`).\n")
    write(res, "check", header, rows, notes)
    fig, ax = plt.subplots(figsize=(7, 3.5))
    ax.bar([f"{r[0]}\n{r[1]}{' pt' if r[2] == 'yes' else ''}" for r in rows], [max(r[7], 1) for r in rows])
    ax.set_ylabel("accesses checked (0 outside mod/ref)")
    ax.set_yscale("log")
    fig.tight_layout()
    fig.savefig(os.path.join(res, "check.png"), dpi=100)


def last_stats(d):
    """The last row of a run's run.stats, as a dict."""
    import sqlite3
    con = sqlite3.connect(os.path.join(d, "klee", "run.stats"))
    cur = con.execute("SELECT * FROM stats ORDER BY rowid DESC LIMIT 1")
    return dict(zip([c[0] for c in cur.description], cur.fetchone()))


def resolvetime(res, progs):
    """Resolution's wall time against KLEE alone on bounded inputs (timed-resolve-bounded*)."""
    header = ["program", "allocator", "wall PSPA (s)", "wall KLEE alone (s)", "ratio", "implied by share",
              "analysis share", "KLEE part (s)", "walls PSPA (s)", "walls KLEE alone (s)", "other CPU (s)",
              "resolution queries", "resolution queries alone", "resolution time (s)", "resolution time alone (s)",
              "solver time (s)", "solver time alone (s)", "paths (completed + partial), each run",
              "paths alone, each run", "solver errors (killed states), each run", "solver errors alone, each run",
              "instructions", "instructions alone",
              "RSS ratio", "snapshots given up", "functions stopped for cost"]
    rows = []
    reps = None
    for p in progs:
        for pair, alloc in (("resolve-bounded", "kdalloc"), ("resolve-bounded-malloc", "host malloc")):
            t = timed(res, p, pair)
            reps = t["reps"]
            r, v = t["median"], t["median_vanilla"]
            sr, sv = last_stats(r["dir"]), last_stats(v["dir"])
            rs = r["stats"]["resolve"]
            rows.append([p, alloc, t["wall"], t["wall_v"], t["wall"] / t["wall_v"], t["implied"], f"{t['share']:.2f}%",
                         t["klee_part"], t["walls"], t["walls_v"], t["other"],
                         sr.get("ResolveQueries"), sv.get("ResolveQueries"),
                         sr.get("ResolveTime", 0) / 1e6, sv.get("ResolveTime", 0) / 1e6,
                         sr.get("SolverTime", 0) / 1e6, sv.get("SolverTime", 0) / 1e6,
                         *[", ".join(f"{x['completed']} + {x['partial']}" for x in t[k]) for k in ("plugin", "vanilla")],
                         *[", ".join(str(last_stats(x["dir"]).get("TerminationSolverError")) for x in t[k])
                           for k in ("plugin", "vanilla")],
                         t["instructions"], t["instructions_v"], r["rss"] / v["rss"] if v["rss"] else None,
                         rs["snapshots_given_up"], rs["snapshots_retired_cost"]])
    notes = (f"Each row: {reps} runs of KLEE with `--pspa-resolve` and {reps} of KLEE alone (the patched KLEE "
             "without the plugin), DFS, on the program's bounded input (config.yaml `resolve_bounded`): no "
             "instruction budget, every path ends, so both explore the same paths unless a solver query times out "
             "(--max-solver-time: KLEE kills the state; the paths and solver-error columns show it, run by run, "
             "in the order of the walls). The other columns are the median run's. ratio: the median walls'. "
             + TIMED_NOTE)
    write(res, "resolvetime", header, rows, notes)
    fig, ax = plt.subplots(figsize=(7, 3.5))
    xs = range(len(rows))
    ax.bar([x - 0.2 for x in xs], [r[4] or 0 for r in rows], 0.4, label="measured (ratio of median walls)")
    ax.bar([x + 0.2 for x in xs], [r[5] or 0 for r in rows], 0.4, label="implied by the analysis share")
    ax.axhline(1.0, color="grey", linewidth=0.8)
    ax.set_xticks(list(xs), [f"{r[0]}\n{r[1]}" for r in rows])
    ax.set_ylabel("wall time against KLEE alone")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(res, "resolvetime.png"), dpi=100)


def table7(res, progs):
    # (run, label, whether the plugin analysed: the KLEE rows load it idle)
    names = [("resolve-base", "KLEE", False), ("resolve-single", "KLEE --single-object-resolution", False),
             ("resolve-spa", "SPA", True), ("resolve-pspa", "PSPA", True),
             ("resolve-base-malloc", "KLEE, host malloc", False), ("resolve-spa-malloc", "SPA, host malloc", True),
             ("resolve-pspa-malloc", "PSPA, host malloc", True)]
    header = ["program", "resolution", "budget reached", "instructions", "completed paths", "resolution queries",
              "queries vs KLEE", "plugin's own queries", "resolution time share", "wall (s)", "analysis share", "symbolic accesses",
              "candidates skipped", "listed from the set", "snapshots", "mismatches (validate)",
              "same-state queries, pruned / unpruned (compare)", "resolutions where pruning asked more (compare)"]
    rows = []
    for p in progs:
        base_q = None
        # The PSPA rows' validation runs (the host-malloc one: newer pipelines only).
        mismatches = {}
        for pspa_name, valid in (("resolve-pspa", "resolve-validate"), ("resolve-pspa-malloc", "resolve-validate-malloc")):
            if os.path.isdir(os.path.join(res, "runs", p, valid, "klee")):
                mismatches[pspa_name] = run(res, p, valid, True)["stats"]["resolve"]["mismatches"]
        for name, label, plugin in names:
            if not os.path.isdir(os.path.join(res, "runs", p, name, "klee")):
                continue  # the host-malloc rows: programs whose resolutions scan
            r = run(res, p, name, plugin)
            st = last_stats(r["dir"])
            q = st.get("ResolveQueries")
            if name in ("resolve-base", "resolve-base-malloc"):
                base_q = q
            # symbolic accesses, candidates skipped, snapshots (the resolution client's)
            # (listed from the set: newer plugins only)
            m = [r["stats"]["resolve"].get(k, "") for k in ("symbolic_accesses", "candidates_skipped", "from_set",
                                                              "snapshots")] \
                if plugin else ["", "", "", ""]
            # ResolveTime and the wall time are both in microseconds in run.stats.
            share = 100.0 * st.get("ResolveTime", 0) / st["WallTime"] if st.get("WallTime") else None
            # The pruned rows: the same program, sets and allocator run with --pspa-resolve-compare.
            cmp_name = {"resolve-pspa": "resolve-compare", "resolve-pspa-malloc": "resolve-compare-malloc",
                        "resolve-spa": "resolve-compare-spa",
                        "resolve-spa-malloc": "resolve-compare-spa-malloc"}.get(name)
            same, more = "", ""
            if cmp_name and os.path.isdir(os.path.join(res, "runs", p, cmp_name, "klee")):
                c = run(res, p, cmp_name, True)["stats"]["resolve"]
                same = f"{c['compared_queries_pruned']:,} / {c['compared_queries_unpruned']:,}"
                more = c["pruned_asked_more"]
            # analysis.own_queries: newer plugins only (older runs leave the cell empty)
            own = r["stats"]["analysis"].get("own_queries", "") if plugin else ""
            rows.append([p, label, "no" if r["timed_out"] else "yes", r["instructions"], r["completed"], q,
                         f"{q / base_q:.3f}" if base_q else None, own,
                         f"{share:.1f}%" if share is not None else None,
                         r["wall"], f"{r['pspa_share']:.1f}%" if plugin else "", *m,
                         mismatches.get(name, ""), same, more])
    notes = ("DFS, the same instruction budget in each configuration (a run stopped by its time limit says "
             "`budget reached: no`). Resolution queries: KLEE's `ResolveQueries` statistic, every solver query "
             "made while resolving a symbolic address (loads, stores, and KLEE's special functions), counted the "
             "same way with and without the plugin; queries the plugin's hooks make inside a resolution are left out "
             "(from the patch at 9a23e9c) and given as the plugin's own queries: the analysis reading a state resolves "
             "the symbolic pointers it holds with the plugin's own solver. Listed from the set: resolutions whose pointer's "
             "set named at most three live objects, listed without a query (no scan). Mismatches: the PSPA run again with "
             "--pspa-resolve-validate, which asks the solver about every skipped object (its queries are not in this "
             "table). `host malloc`: "
             "KLEE with --kdalloc=false, which takes addresses from the host's malloc (as KLEE did before 3.0, the "
             "paper's); its queries are compared with KLEE's own with the same allocator. Same-state queries: the SPA or PSPA "
             "run again with --pspa-resolve-compare, which runs KLEE's scan with and without the pruning on each "
             "pruned resolution's state (an object listed counts one query, its fork's): layout-independent, unlike "
             "two runs' counts with the host's malloc.\n")
    write(res, "table7", header, rows, notes)
    fig, ax = plt.subplots(figsize=(7, 3.5))
    for i, p in enumerate(progs):
        rs = [r for r in rows if r[0] == p]
        ax.bar([i * 8 + j for j in range(len(rs))], [r[5] or 0 for r in rs], label=p)
    ax.set_ylabel("resolution queries")
    ax.set_xticks([i * 8 + 3 for i in range(len(progs))])
    ax.set_xticklabels(progs)
    fig.tight_layout()
    fig.savefig(os.path.join(res, "table7.png"), dpi=100)


def wit(st):
    """The WIT client's counters (Stats), in table6's order: colours, heap colours, writes,
    writes through unknown pointers, transitions, writes checked, violations, writes not
    coloured; all None when the colours were not computed (the point not reached, or the
    computation failed). The runs check every write (--pspa-wit-check)."""
    w = st["wit"]
    if not w["computed"]:
        return [None] * 8
    return [w[k] for k in ("colours", "heap_colours", "writes", "unknown_writes", "transitions", "writes_checked",
                           "violations", "not_coloured")]


# The WIT point: a message of the plugin's, the one thing table6 reads from klee.log that
# pspa-stats.json lacks.
WIT_POINT = re.compile(r"pspa wit: colours computed at the call of (\S+):")


def table6(res, progs):
    names = [("wit-spa", "SPA", "hand"), ("wit-pspa", "PSPA", "hand"), ("wit-input", "PSPA", "automatic (input)")]
    header = ["program", "colours", "WIT point", "function", "budget reached", "completed paths", "colours (all)",
              "heap colours", "writes", "writes through unknown", "transitions", "writes checked", "violations", "writes not checked"]
    rows = []
    for p in progs:
        for name, mode, how in names:
            r = run(res, p, name, True)
            at = WIT_POINT.search(open(os.path.join(r["dir"], "klee.log"), errors="replace").read())
            rows.append([p, mode, how, at.group(1) if at else "not reached", "no" if r["timed_out"] else "yes",
                         r["completed"] + r["partial"], *wit(r["stats"])])
    notes = ("DFS, the same instruction budget in each run (paths: completed and partially completed). Colours "
             "computed once, at the WIT point: the first call of the program's parsing entry (hand), or the first "
             "call after the first read of symbolic input (automatic). Heap colours: colours of heap object "
             "fields. Transitions: on each path, colour changes between consecutive heap object fields in "
             "allocation order, summed over paths. Violations: writes that touched a field of another colour "
             "(--pspa-wit-check), which must be 0. Writes not checked: writes of no colour or to objects of none "
             "(KLEE's own objects).\n")
    write(res, "table6", header, rows, notes)
    fig, ax = plt.subplots(figsize=(7, 3.5))
    xs = range(len(progs))
    for j, (name, mode, how) in enumerate(names):
        ax.bar([x + (j - 1) * 0.27 for x in xs], [next((r[7] or 0) for r in rows if r[0] == p and r[1] == mode and r[2] == how) for p in progs],
               0.27, label=f"{mode}, {how}")
    ax.set_xticks(list(xs))
    ax.set_xticklabels(progs)
    ax.set_ylabel("heap colours")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(res, "table6.png"), dpi=100)


def chop(st):
    """The chopping client's counters of a run (Stats; None: a run without the plugin, whose
    counters are all None): recovery states, snapshots, recoveries ended before returning
    (errors in recoveries), skipped calls whose result is used, mod sets joined with older
    pending skips' post-states, recovery paths run on from the snapshot (fallbacks),
    recoveries waited for by a load or a free (triggered), and of those the spurious ones."""
    keys = {"recoveries": "recovery_states", "snapshots": "snapshots", "ended": "recoveries_ended_before_returning",
            "result_used": "result_used", "joined": "joined_mod_sets", "fallbacks": "fallbacks",
            "triggered": "triggered_recoveries", "spurious": "spurious_recoveries"}
    if st is None:
        return dict.fromkeys(keys)
    c = st["chop"]
    return {k: c[v] for k, v in keys.items()}


def per_program_log_plot(fig, ax, progs, ylabel, path):
    """A log-scale scatter with one column per program, saved."""
    ax.set_yscale("log")
    ax.set_xticks(list(range(len(progs))))
    ax.set_xticklabels(progs)
    ax.set_ylabel(ylabel)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def figure4(res, progs):
    header = ["program", "set", "mod sets", "budget reached", "instructions", "paths", "snapshots", "recoveries",
              "recoveries per path", "waited for by a load or free", "spurious", "errors in recoveries", "skipped, result used", "joined with pending skips",
              "fallbacks to the snapshot", "analysis share", "reuse ratio", "wall (s)", "skipped functions"]
    rows, per, spur = [], {}, {}
    for p in progs:
        sets = sorted(int(n[4:-4]) for n in os.listdir(os.path.join(res, "chop-sets", p)) if n.startswith("set-"))
        for i in sets:
            skip = open(os.path.join(res, "chop-sets", p, f"set-{i}.txt")).read().strip()
            for mode in ("spa", "pspa"):
                r = run(res, p, f"chop-{mode}-{i}", True)
                c = chop(r["stats"])
                tot = spur.setdefault((p, mode), [0, 0])
                tot[0] += c["triggered"]
                tot[1] += c["spurious"]
                paths = r["completed"] + r["partial"]
                rpp = c["recoveries"] / paths if paths else None
                per.setdefault((p, mode), []).append(rpp)
                rows.append([p, i, mode.upper(), "no" if r["timed_out"] else "yes", r["instructions"], paths,
                             c["snapshots"], c["recoveries"], rpp, c["triggered"], c["spurious"],
                             *[c[k] for k in ("ended", "result_used", "joined", "fallbacks")],
                             r.get("pspa_share"), r.get("reuse_ratio"), r["wall"], skip])
    notes = ("Each set: 10 library functions a vanilla run reached (the same budget), chosen at random (seed = set). "
             "DFS, the same instruction budget in each run; a run stopped by its time limit says `budget reached: "
             "no`. Paths: completed and partially completed. Recoveries: recovery states started (Chopper's "
             "`recovery states`); a call whose result is used is skipped, its first use recovers it. Waited for by a load or a "
             "free: recoveries a load or a free started (not a result's use, an external call, a write at a symbolic "
             "offset); spurious: of those, the ones whose call (on its first path) wrote none of the loaded bytes and "
             "did not free their object, i.e. what a more precise mod set saves. Joined with pending skips: mod "
             "sets computed on the state joined with older pending skips' post-states (the call may read what "
             "they may write; this replaced the fallback to SPA's whole-program sets). Analysis "
             "share: the plugin's time (analyses, reuse checks, state reading) over the run's.\n\n")
    summary = []
    for p in progs:
        s_, q = [x for x in per.get((p, "spa"), []) if x is not None], [x for x in per.get((p, "pspa"), []) if x is not None]
        if s_ and q:
            summary.append(f"{p}: mean recoveries per path SPA {statistics.mean(s_):.3f}, PSPA {statistics.mean(q):.3f}")
        for mode in ("spa", "pspa"):
            if (p, mode) in spur:
                w, n = spur[(p, mode)]
                summary.append(f"{p} {mode.upper()}: of {w} recoveries waited for by a load or a free, {n} spurious "
                               f"({100 * n / w if w else 0:.1f}%)")
    write(res, "figure4", header, rows, notes + "\n".join(summary) + "\n")
    fig, ax = plt.subplots(figsize=(7, 3.5))
    for j, p in enumerate(progs):
        for k, (mode, mark) in enumerate((("spa", "o"), ("pspa", "x"))):
            ys = [x for x in per.get((p, mode), []) if x is not None]
            xs = [j + (k - 0.5) * 0.3 + (t - len(ys) / 2) * 0.02 for t in range(len(ys))]
            ax.scatter(xs, [max(y, 1e-3) for y in ys], marker=mark, label=mode.upper() if j == 0 else None)
    per_program_log_plot(fig, ax, progs, "recoveries per path (0 drawn at 0.001)", os.path.join(res, "figure4.png"))


def replayed(d):
    """A run's replay.csv: per test, (native outcome, KLEE's error), paths cut short by the
    run's limit (KLEE's .early tests) left out: their inputs need not reach the program."""
    with open(os.path.join(d, "replay.csv")) as f:
        return [(r["outcome"], r["klee error"]) for r in csv.DictReader(f) if r.get("early") != "yes"]


def mmss(sec):
    return f"{int(sec) // 60:02d}:{int(sec) % 60:02d}" if sec is not None else None


def t5_timed(res, prog):
    """The hand-chosen set's speed-up (runs/PROG/t5-timed, timed-runs.py: KLEE alone, SPA and
    PSPA back to back, in turn): per run name, the median wall, median maximum RSS (MB), the
    median analysis share (plugin runs), the paths of every repetition, and the most CPU
    seconds anything else used during one run. None without the directory."""
    d = os.path.join(res, "runs", prog, "t5-timed")
    if not os.path.isdir(d):
        return None
    names = sorted({m.group(2) for n in os.listdir(d) for m in [re.match(r"rep(\d+)-(.+)$", n)] if m})
    out = {}
    for name in names:
        reps = sorted(n for n in os.listdir(d) if n.endswith("-" + name) and n.startswith("rep"))
        rs = [run(res, prog, f"t5-timed/{n}", name != "vanilla") for n in reps]
        out[name] = {
            "wall": statistics.median(r["wall"] for r in rs),
            "walls": [r["wall"] for r in rs],
            "rss": statistics.median(r["rss"] for r in rs),
            "paths": sorted({r["completed"] + r["partial"] for r in rs}),
            "share": statistics.median(r["pspa_share"] for r in rs) if name != "vanilla" else None,
            "timed_out": any(r["timed_out"] for r in rs),
            "other": max((o for o in (machine_other(r["dir"]) for r in rs) if o is not None), default=None),
        }
    return out


T2_MODES = [("vanilla", "KLEE alone"), ("spa", "SPA"), ("pspa-noreuse", "PSPA without reuse"), ("pspa", "PSPA"),
            ("pspa-auto", "PSPA, automatic choice")]
T2_SEARCHES = ["dfs", "random-path"]


def auto_choice(r):
    """What --skip-functions=auto skipped (pspa-stats.json chop.auto), as `a, b; stopped: c`."""
    a = r["stats"]["chop"]["auto"]  # a run with auto has it: a missing key stops the table
    out = ", ".join(a["skipped"]) or "nothing"
    if a["stopped"]:
        out += "; skipped, then run again: " + ", ".join(a["stopped"])
    return out


def table2(res, progs):
    """Coverage of the chopped runs in a time budget (paper Table 2): per program and
    searcher, each mode's line coverage (coverage.json: the tests replayed on a gcov build,
    over the library's lines outside the skipped functions), paths, tests and recoveries."""
    header = ["program", "search"]
    for _, label in T2_MODES:
        header += [f"{label} coverage (%)", f"{label} paths", f"{label} tests"]
    header += ["SPA recoveries", "PSPA without reuse recoveries", "PSPA recoveries", "automatic recoveries",
               "PSPA analysis share", "PSPA reuse ratio", "automatic choice", "lines counted"]
    rows, wins = [], []
    for p in progs:
        for search in T2_SEARCHES:
            row, cov, lines = [p, search], {}, set()
            recs, share, ratio, chosen = {}, None, None, None
            for mode, _ in T2_MODES:
                name = f"t2-{mode}-{search}"
                r = run(res, p, name, mode != "vanilla")
                c = json.load(open(os.path.join(res, "runs", p, name, "coverage.json")))
                cov[mode] = 100.0 * c["coverage"]
                lines.add(c["lines"])
                row += [printed(cov[mode], 2), r["completed"] + r["partial"], c["tests"]]
                if mode != "vanilla":
                    recs[mode] = chop(r["stats"])["recoveries"]
                if mode == "pspa":
                    share, ratio = r.get("pspa_share"), r.get("reuse_ratio")
                if mode == "pspa-auto":
                    chosen = auto_choice(r)
            if len(lines) != 1:
                sys.exit(f"table2: {p} {search}: the runs counted different lines ({sorted(lines)})")
            row += [recs["spa"], recs["pspa-noreuse"], recs["pspa"], recs["pspa-auto"], share, ratio, chosen, lines.pop()]
            rows.append(row)
            wins.append(cov["pspa"] > cov["spa"])
    notes = (f"Each program's driver on its `table2` input (config.yaml) with its hand-chosen skip set "
             f"(`table5_skip`), {len(progs)} programs x {len(T2_SEARCHES)} searchers, each run stopped at "
             "`table2_time` seconds. Coverage: the run's tests (not those of paths the time limit cut short) "
             "replayed natively on the library built with gcov (experiments/scripts/cov-build.sh, coverage.py), "
             "as lines executed over the lines gcov instruments in the library, the skipped functions' lines "
             "left out (the same lines for every run of a program). "
             f"PSPA with reuse above SPA in {sum(wins)} of {len(wins)} cells (the paper: 5 of 6). "
             "PSPA, automatic choice: `--skip-functions=auto` instead of the hand-chosen set (docs/skips.md); "
             "its coverage is counted over the same lines (the hand-chosen set's functions left out).\n")
    write(res, "table2", header, rows, notes)


def table3chop(res, progs):
    """Table 3 in the paper's own setting: the analysis' share of the chopped runs of Table 2
    (each program's hand-chosen skip set, `table2_time` seconds), without and with reuse. The
    paper's Table 3 comes from its Table 2 runs: the analysis runs where chopping asks for
    it, at the skipped calls, not at every call of the library (target `table3`)."""
    header = ["program", "search", "No R", "R", "RR", "N", "skipped calls", "failed", "analysis R (s)",
              "run R (s)", "analysis No R (s)", "run No R (s)", "paths R", "recoveries R", "instructions R"]
    rows = []
    for p in progs:
        for search in T2_SEARCHES:
            nr = run(res, p, f"t2-pspa-noreuse-{search}", True)
            r = run(res, p, f"t2-pspa-{search}", True)
            an, nan = r["stats"]["analysis"], nr["stats"]["analysis"]
            rows.append([p, search, f"{nr['pspa_share']:.2f}%", f"{r['pspa_share']:.2f}%",
                         f"{100 * r['reuse_ratio']:.2f}%", r["analyses"], r["calls"], r["failures"],
                         round(an["time_s"], 3), round(an["run_s"], 1), round(nan["time_s"], 3),
                         round(nan["run_s"], 1),
                         r["completed"] + r["partial"], chop(r["stats"])["recoveries"], r["instructions"]])
    notes = ("The runs of Table 2 (target `table2`'s `t2-pspa-*` and `t2-pspa-noreuse-*`): each program's "
             "driver on its `table2` input with its hand-chosen skip set (`table5_skip`), stopped at "
             "`table2_time` seconds. No R / R: the analysis' share of the run's wall time without / with "
             "reuse; RR: reuse ratio; N: analyses run with reuse (the paper's N); skipped calls: the calls "
             "the analysis was asked about. The paper's Table 3 reports the same quantities for the same "
             "three programs from its Table 2 runs (1 hour each).\n")
    write(res, "table3chop", header, rows, notes)


def table5(res, progs):
    header = ["program", "run", "all paths explored", "wall (s)", "paths", "recoveries", "snapshots",
              "fallbacks to the snapshot", "errors", "same errors as vanilla", "tests", "outcomes on replay",
              "tests replaying to an outcome vanilla's tests lack", "analysis share", "reuse ratio", "skipped functions"]
    rows, summary, fig, hand = [], [], {}, {}
    for p in progs:
        # t5-timed holds the timed repetitions (t5_timed), t5-profile the profiled choice's
        # profile run: not runs of the table
        runs = sorted(n[3:] for n in os.listdir(os.path.join(res, "runs", p))
                      if n.startswith("t5-") and n not in ("t5-timed", "t5-profile"))
        base = None
        for name in ["vanilla"] + [n for n in runs if n != "vanilla"]:
            r = run(res, p, "t5-" + name, name != "vanilla")
            c = chop(r.get("stats"))
            reps = replayed(r["dir"])
            errors = sorted({e for _, e in reps if e})
            outcomes = sorted({o for o, _ in reps})
            complete = not r["timed_out"]
            if base is None:
                base = {"errors": errors, "outcomes": set(outcomes), "wall": r["wall"], "complete": complete}
            skip = ""
            if name == "pspa-auto":
                skip = "auto: " + auto_choice(r)
            elif name != "vanilla":
                skip = open(os.path.join(res, "chop-sets", f"{p}-small", f"set-{name.split('-')[1]}.txt")).read().strip()
            # a chopped run's errors are comparable when both runs explored every path
            same = "-" if name == "vanilla" else ("yes" if errors == base["errors"] else "no") \
                if complete and base["complete"] else "(incomplete)"
            extra = sum(1 for o, _ in reps if o not in base["outcomes"])
            rows.append([p, name.upper() if name == "vanilla" else name.replace("pspa", "PSPA").replace("spa", "SPA"),
                         "yes" if complete else "no (time limit)", r["wall"], r["completed"] + r["partial"],
                         c["recoveries"], c["snapshots"], c["fallbacks"], "; ".join(errors) or "none", same, len(reps),
                         ", ".join(outcomes), extra if name != "vanilla" else "-",
                         r.get("pspa_share"), r.get("reuse_ratio"), skip])
            if name.endswith("-hand"):
                hand[(p, name.split("-")[0])] = r["wall"] if complete else None
            elif name in ("pspa-auto", "pspa-profiled"):
                hand[(p, name.split("-")[1])] = r["wall"] if complete else None
            elif name != "vanilla":
                fig.setdefault((p, name.split("-")[0]), []).append(r["wall"] if complete else None)
        line = [f"{p}: vanilla {mmss(base['wall'])}" + ("" if base["complete"] else " (did not finish)")]
        timed = t5_timed(res, p)
        if timed and "vanilla" in timed:
            v = timed["vanilla"]
            parts = [f"hand-chosen set, back to back ({len(v['walls'])} runs each, medians): vanilla {v['wall']:.2f} s"]
            for name, label in (("spa-hand", "SPA"), ("pspa-hand", "PSPA"), ("pspa-auto", "PSPA with the automatic choice"),
                                ("pspa-profiled", "PSPA with the profiled choice")):
                t = timed.get(name)
                if t:
                    parts.append(f"{label} {t['wall']:.2f} s ({v['wall'] / t['wall']:.2f}x faster; analysis "
                                 f"{t['share']:.2f} %, RSS {t['rss']:.0f} MB against {v['rss']:.0f} MB)")
            for name, label in (("pspa-auto", "automatic"), ("pspa-profiled", "profiled")):
                if timed.get(name) and timed.get("pspa-hand"):
                    parts.append(f"{label} against hand-chosen PSPA: "
                                 f"{timed[name]['wall'] / timed['pspa-hand']['wall']:.2f}x the time")
            paths = sorted({n for t in timed.values() for n in t["paths"]})
            parts.append(f"paths {', '.join(map(str, paths))}"
                         + ("" if len(paths) == 1 else " (differ: see the runs)")
                         + ("; a run hit the time limit" if any(t["timed_out"] for t in timed.values()) else "")
                         + f"; other work on the machine at most {max(t['other'] or 0 for t in timed.values()):.1f} CPU s")
            line.append("; ".join(parts))
        for mode in ("spa", "pspa", "auto", "profiled"):
            if (p, mode) in hand:
                w = hand[(p, mode)]
                what = {"auto": "automatic choice PSPA", "profiled": "profiled choice PSPA"}.get(
                    mode, f"hand-chosen set {mode.upper()}")
                line.append(f"{what} " + (mmss(w) if w is not None else "did not finish")
                            + (f" ({base['wall'] / w:.1f}x faster than vanilla)" if w and base["complete"] else ""))
        for mode in ("spa", "pspa"):
            ws = fig.get((p, mode), [])
            done = [w for w in ws if w is not None]
            if ws:
                line.append(f"random sets {mode.upper()} {len(done)}/{len(ws)} finished"
                            + (f", median {mmss(statistics.median(done))}" if done else ""))
        summary.append(", ".join(line))
    notes = ("Each program's driver on a small symbolic input (config.yaml `table5`) that vanilla KLEE (no plugin) "
             "explores completely; skip sets: the program's hand-chosen set (`hand`, config.yaml `table5_skip`, "
             "chosen from the vanilla run's profile: experiments/scripts/profile.py), and 10 library functions that "
             "vanilla run reached, chosen at random (seed = set), each run with SPA and with PSPA mod sets; and "
             "`--skip-functions=auto` (PSPA-auto: the call sites chosen during the run, docs/skips.md); the set "
             "`pspa skips` proposes from a profile run of `table5_profile_time` seconds, alone, with nothing skipped "
             "(PSPA-profiled; the profile run's time is not counted); DFS, the "
             "same time limit (`table5_time`), no "
             "instruction budget. Paths: completed and partially completed. Errors: KLEE's .err files as file:line: "
             "kind; a chopped run that explored every path must report vanilla's. Tests replay on the program "
             "compiled natively with libkleeRuntest (scripts/ktest-replay.py): outcomes are exit codes or signals; a chopped "
             "test replaying to an outcome no vanilla test shows would be a wrong test. Tests of paths a time limit cut "
             "short (KLEE's `.early`) are left out of tests, outcomes and the check. Vanilla explores every path, "
             "but writes tests only for paths that cover new code, as every run does (`klee_common`).\n\n")
    write(res, "table5", header, rows, notes + "\n".join(summary) + "\n")
    fg, ax = plt.subplots(figsize=(7, 3.5))
    for j, p in enumerate(progs):
        v = next(r[3] for r in rows if r[0] == p and r[1] == "VANILLA")
        ax.scatter([j - 0.3], [v], marker="s", color="black", label="vanilla" if j == 0 else None)
        for k, (mode, mark) in enumerate((("spa", "s"), ("pspa", "D"))):
            if (p, mode) in hand:
                ax.scatter([j + (k - 0.25) * 0.4 - 0.08], [hand[(p, mode)] or 1.05 * v], marker=mark, facecolors="none",
                           edgecolors="C%d" % k, label=f"{mode.upper()} hand-chosen" if j == 0 else None)
        if (p, "auto") in hand:
            ax.scatter([j + 0.35], [hand[(p, "auto")] or 1.05 * v], marker="*", color="C2",
                       label="PSPA automatic choice" if j == 0 else None)
        if (p, "profiled") in hand:
            ax.scatter([j + 0.42], [hand[(p, "profiled")] or 1.05 * v], marker="P", color="C3",
                       label="PSPA profiled choice" if j == 0 else None)
        for k, (mode, mark) in enumerate((("spa", "o"), ("pspa", "x"))):
            ws = fig.get((p, mode), [])
            xs = [j + (k - 0.25) * 0.4 + t * 0.04 for t in range(len(ws))]
            lim = 1.05 * max([w for w in ws if w] + [v])
            ax.scatter(xs, [w if w is not None else lim for w in ws], marker=mark,
                       label=mode.upper() if j == 0 else None)
    per_program_log_plot(fg, ax, progs, "all-path wall time (s); top = time limit", os.path.join(res, "table5.png"))


T4_RUNS = [(f"{m}-{s}", f"{name}, {label}") for s, label in (("dfs", "DFS"), ("random-path", "random-path"))
           for m, name in (("vanilla", "KLEE alone"), ("spa", "SPA"), ("pspa", "PSPA"))]


def table4(res, cves):
    # the first argument: the runs made (vanilla only when asked for)
    made = cves[0].split(",")
    cves = cves[1:]
    T4 = [(k, n) for k, n in T4_RUNS if k in made]
    header = ["CVE", "location"] + [name for _, name in T4] + \
             [f"recoveries {name}" for key, name in T4 if not key.startswith("vanilla")]
    rows, found = [], {}
    for c in cves:
        runs = {}
        for key, _ in T4:
            d = os.path.join(res, "runs", c, f"t4-{key}")
            r = json.load(open(os.path.join(d, "result.json")))
            # a run the kernel killed (out of memory) wrote no statistics: "killed"
            killed = not os.path.exists(os.path.join(d, "klee", "pspa-stats.json"))
            runs[key] = (r, None if key.startswith("vanilla") else
                         "killed" if killed else stats_of(d)["chop"]["recovery_states"])
        for loc in runs[T4[0][0]][0]["locations"]:
            times = [runs[k][0]["locations"].get(loc) for k, _ in T4]
            for (k, _), t in zip(T4, times):
                found.setdefault(k, []).append(t)
            rows.append([c, loc] + [mmss(t) if t is not None else "TO" for t in times] +
                        [runs[k][1] for k, _ in T4 if not k.startswith("vanilla")])
    notes = ("Time (minutes:seconds) from KLEE's start to its first error whose stack passes through the location "
             "(any frame outside the C library, as Chopper's `--error-location` judged it: an overflow inside uclibc's "
             "memcpy counts at its caller's line), DFS and random-path; TO: not reached within the time limit (`table4_time`). "
             "Chopped runs skip the Chopper experiments' functions (config.yaml `table4`), with the chopping-aware "
             "searcher (recovery states first, then KLEE's). Recoveries: recovery states started in the run (up to the "
             "last location found or the limit).\n\n")
    summary = [f"{name}: {sum(1 for t in found.get(k, []) if t is not None)} of {len(found.get(k, []))} locations reached"
               for k, name in T4]
    write(res, "table4", header, rows, notes + "\n".join(summary) + "\n")
    fig, ax = plt.subplots(figsize=(8, 3.5))
    width = 0.15
    for j, (k, name) in enumerate(T4):
        ts = found.get(k, [])
        top = max([t for v in found.values() for t in v if t is not None] + [1])
        ax.bar([i + (j - 2) * width for i in range(len(ts))], [t if t is not None else top * 1.1 for t in ts],
               width, label=name, hatch=None)
    ax.set_xticks(list(range(len(rows))))
    ax.set_xticklabels([f"{r[0]}\n{r[1]}" for r in rows], fontsize=6)
    ax.set_ylabel("seconds to the location (top: not reached)")
    ax.legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(os.path.join(res, "table4.png"), dpi=100)


# The files of a run.istats that are not the program's: uclibc, KLEE's POSIX runtime, the
# pipeline's drivers, and instructions without debug information.
NOT_THE_PROGRAM = ("libc/", "./", "src/runtime/", "experiments/drivers/")


def istats_lines(path):
    """KLEE's own line coverage (run.istats, callgrind format, `positions: instr line`, first
    event Icov): {(file, line): (function, covered)} over the program's source files. The cost
    line after a `calls=` line is the call's inclusive cost, not an instruction's: skipped."""
    out, fl, fn, after_call = {}, None, None, False
    with open(path) as f:
        for raw in f:
            if raw.startswith("fl="):
                fl = raw[3:].strip()
            elif raw.startswith("fn="):
                fn = raw[3:].strip()
            elif raw.startswith("calls="):
                after_call = True
            elif raw[:1].isdigit():
                if after_call:
                    after_call = False
                    continue
                if not fl or fl.startswith(NOT_THE_PROGRAM):
                    continue
                fields = raw.split()
                key = (fl, int(fields[1]))
                covered = int(fields[2]) > 0
                old = out.get(key)
                out[key] = (fn, covered or (old is not None and old[1]))
    return out


AW_SEARCHES = ["dfs", "random-path"]


def autowide(res, progs):
    """--skip-functions=auto against KLEE alone on the programs without hand-chosen sets
    (runs/PROG/aw-{vanilla,pspa-auto}-SEARCH): the same time budget, each run alone."""
    header = ["program", "search", "run", "paths", "tests", "instructions", "errors", "lines covered", "lines",
              "line coverage", "analysis share", "automatic choice"]
    rows, summary = [], []
    for p in progs:
        for search in AW_SEARCHES:
            rs = {m: run(res, p, f"aw-{m}-{search}", m != "vanilla") for m in ("vanilla", "pspa-auto")}
            auto = rs["pspa-auto"]["stats"]["chop"]["auto"]
            # lines of the functions auto skipped at any point leave both counts, as Table 2
            # leaves out the skipped functions' lines
            skipped = {u.split(":")[0] for u in auto["skipped"] + auto["stopped"]}
            cov = {}
            for m, r in rs.items():
                lines = {k: c for k, (fn, c) in istats_lines(os.path.join(r["dir"], "klee", "run.istats")).items()
                         if fn not in skipped}
                cov[m] = (sum(lines.values()), len(lines))
                rows.append([p, search, "KLEE alone" if m == "vanilla" else "PSPA, automatic choice",
                             r["completed"] + r["partial"], r["tests"], r["instructions"],
                             len(glob.glob(os.path.join(r["dir"], "klee", "*.err"))), cov[m][0], cov[m][1],
                             printed(100.0 * cov[m][0] / cov[m][1] if cov[m][1] else 0.0, 2),
                             r.get("pspa_share"), auto_choice(r) if m != "vanilla" else "-"])
            v, a = rs["vanilla"], rs["pspa-auto"]
            pv, pa = v["completed"] + v["partial"], a["completed"] + a["partial"]
            summary.append(f"{p} {search}: paths {pa:,} against {pv:,} ({pa / pv if pv else 0:.2f}x), line coverage "
                           f"{100.0 * cov['pspa-auto'][0] / max(cov['pspa-auto'][1], 1):.2f} % against "
                           f"{100.0 * cov['vanilla'][0] / max(cov['vanilla'][1], 1):.2f} %")
    notes = ("Each program's driver and arguments (config.yaml), KLEE alone and with `--skip-functions=auto` "
             "(PSPA), `table2_time` seconds each, no instruction budget, each run alone on the machine. Paths: "
             "completed and partially completed. Errors: KLEE's .err files. Line coverage: KLEE's own "
             "(run.istats: a line is covered when one of its instructions ran), over the program's source files "
             "(not uclibc, KLEE's runtime or the driver), leaving out in both runs the functions the automatic "
             "choice skipped at any point. These programs have no hand-chosen set and no native build, so tests "
             "are not replayed.\n\n")
    write(res, "autowide", header, rows, notes + "\n".join(summary) + "\n")


if __name__ == "__main__":
    tables = {"table1": table1, "table3": table3, "drivers": drivers, "cost": cost, "check": check,
              "table7": table7, "resolvetime": resolvetime, "table6": table6, "figure4": figure4, "table5": table5, "table4": table4, "table2": table2,
              "table3chop": table3chop, "autowide": autowide}
    if len(sys.argv) < 4 or sys.argv[1] not in tables:
        sys.exit(__doc__)
    tables[sys.argv[1]](sys.argv[2], sys.argv[3:])
