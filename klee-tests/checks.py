#!/usr/bin/env python3
"""Checks for the lit tests that FileCheck cannot express (set relations over JSON/CSV).

  checks.py fig1 SNAPS CSV PSPA     Figure 1: the mod-set of the marked call touches t1 only;
                                    every dumped snapshot replays to KLEE's own sets
  checks.py replay SNAPS PSPA       every dumped snapshot replays to KLEE's own sets
  checks.py smaller SPA.csv PSPA.csv F   PSPA's average (stripped) mod <= SPA's, ref < SPA's
  checks.py whole-program CSV PSPA BC F...
                                    every call of F in pspa-calls.csv was answered by the
                                    whole-program fallback (last column 1), with the mod and ref
                                    sizes of `pspa analyze` (SPA) of BC
  checks.py projected CSV F N       every analysed call of F projected exactly N objects
  checks.py same SNAPS_A SNAPS_B    the runs analysed the same calls with the same sets
  checks.py labels SNAPS CSV F KIND LINE WANT... [--not NOTWANT...]
                                    the KIND (mod/ref) labels of the call of F at source LINE,
                                    uniqueness stripped, include WANT and none of NOTWANT
  checks.py wit JSON SRC F same|distinct TEXT...
                                    the colours (pspa.wit/1) of F's writes at the source lines
                                    of SRC containing each TEXT are all equal / pairwise distinct
  checks.py wit-same JSON JSON      two WIT tables with the same colours and writes (KLEE's
                                    object ids in unique sites compared by rank)
  checks.py same-errors DIR DIR     the two KLEE output directories hold the same errors: the
                                    same kinds (*.err) at the same source lines
  checks.py same-lines LOG LOG PREFIX[~STOP]...
                                    the `KLEE: done: PREFIX...` lines are the same in both logs
                                    (up to STOP, when given)
  checks.py outcomes REPLAY.csv OUTCOME...
                                    the tests (scripts/ktest-replay.py) replayed natively to
                                    exactly these outcomes, as a multiset (`exit N`, ...)
  checks.py stats DIR SECTION.KEY=VALUE...
                                    the run's pspa-stats.json (pspa.stats/1) has these values
  checks.py fewer-instructions DIR DIR
                                    the first KLEE run executed fewer instructions than the second
  checks.py profile CSV F[:LINE] KEY=VALUE...
                                    the row of chop-profile.csv for F's call site at LINE (the
                                    first of F's without) has these values (KEY<VALUE, KEY>VALUE
                                    too)
  checks.py queries DIR REL DIR REL DIR ...
                                    the runs' final ResolveQueries (run.stats) in the order
                                    given, each REL (<, <=, ==, <=half: at most half) the next
"""
import csv, json, os, re, subprocess, sys


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def rows(path):
    with open(path) as f:
        return [r for r in csv.reader(f) if r and not r[0].startswith("#")][1:]


def averages(path):
    out = {}
    for line in open(path):
        if line.startswith("# average,"):
            parts = line.strip().split(",")
            kv = dict(p.split("=") for p in parts[3:])
            out[parts[1]] = (float(kv["mod_stripped"]), float(kv["ref_stripped"]))
    return out


def strip(labels):
    return sorted({re.sub(r"@\d+(?=\.)", "", l) for l in labels})


def ids(labels):
    return {int(m.group(1)) for l in labels for m in [re.search(r"@(\d+)\.", l)] if m}


def replay(snaps, pspa):
    n = 0
    for name in sorted(os.listdir(snaps)):
        if not re.fullmatch(r"call-\d+\.json", name):
            continue
        path = os.path.join(snaps, name)
        klee = json.load(open(path[:-5] + ".modref.json"))
        # KLEE read the state on demand; the replay reads the snapshot (the whole
        # projection) eagerly: the reference the on-demand answer must equal.
        out = subprocess.run([pspa, "modref", "--eager", "--json", "--snapshot", path], capture_output=True, text=True)
        if out.returncode != 0:
            fail("pspa modref %s: %s" % (name, out.stderr))
        mine = json.loads(out.stdout)
        for k in ("mod", "ref"):
            if mine[k] != klee[k]:
                fail("%s: replayed %s differs from KLEE's:\n  %s\n  %s" % (name, k, mine[k], klee[k]))
        n += 1
    if n == 0:
        fail("no snapshot in " + snaps)
    print("replayed %d snapshots: same sets" % n)


def call_index(csv_path, function, line):
    for i, r in enumerate(rows(csv_path)):
        if r[0] == function and int(r[1]) == line:
            return i + 1
    fail("no analysed call of %s at line %d" % (function, line))


def marked_line(src, mark):
    for i, l in enumerate(open(src)):
        if mark in l:
            return i + 1
    fail("no %s in %s" % (mark, src))


def reachable(snap, roots):
    objs = {o["id"]: o for o in snap["objects"]}
    seen, work = set(), list(roots)
    while work:
        i = work.pop()
        if i in seen or i not in objs:
            continue
        seen.add(i)
        for p in objs[i]["pointers"]:
            work += [t["object"] for t in p["targets"] if "object" in t]
    return seen


def main():
    cmd = sys.argv[1]
    if cmd == "fig1":
        snaps, csv_path, pspa = sys.argv[2:5]
        here = os.path.dirname(os.path.abspath(__file__))
        line = marked_line(os.path.join(here, "fig1.c"), "// PSPA-CALL")
        n = call_index(csv_path, "table_insert", line)
        snap = json.load(open(os.path.join(snaps, "call-%d.json" % n)))
        res = json.load(open(os.path.join(snaps, "call-%d.modref.json" % n)))
        t1 = [t["object"] for t in snap["call"]["args"][0]["targets"]]
        from_t1 = reachable(snap, t1)
        objs = {o["id"]: o for o in snap["objects"]}
        t1_array = {t["object"] for p in objs[t1[0]]["pointers"] if p["offset"] == 8 for t in p["targets"]}
        arrays = {i for i in ids(res["mod"]) if any(l.startswith("heap:table_alloc:") and "@%d." % i in l for l in res["mod"])}
        if arrays != t1_array:
            fail("mod-set should hold exactly t1's bucket array %s, has %s" % (sorted(t1_array), sorted(arrays)))
        stray = ids(res["mod"]) - from_t1
        if stray:
            fail("mod-set has objects not reachable from t1: %s" % sorted(stray))
        elems = {i for i in ids(res["mod"]) if any(l.startswith("heap:table_insert:") and "@%d." % i in l for l in res["mod"])}
        # t1 holds the 10 even keys, each an element and its value buffer.
        if len(elems) != 20:
            fail("expected t1's 10 elements and 10 buffers in the mod-set, got %d objects" % len(elems))
        print("table_insert(t1, k1, \"foo\"): mod-set within t1 (%d labels)" % len(res["mod"]))
        replay(snaps, pspa)
    elif cmd == "replay":
        replay(sys.argv[2], sys.argv[3])
    elif cmd == "smaller":
        spa, pspa, f = averages(sys.argv[2]), averages(sys.argv[3]), sys.argv[4]
        (sm, sr), (pm, pr) = spa[f], pspa[f]
        print("%s: SPA mod %.2f ref %.2f; PSPA mod %.2f ref %.2f" % (f, sm, sr, pm, pr))
        if not (pm <= sm and pr < sr):
            fail("PSPA is not smaller than SPA")
    elif cmd in ("projected", "read"):
        # projected: objects the projection met; read: those whose contents it read.
        col = "projected_objects" if cmd == "projected" else "read_objects"
        csv_path, f, n = sys.argv[2], sys.argv[3], int(sys.argv[4])
        with open(csv_path) as fh:
            calls = [r for r in csv.DictReader(l for l in fh if not l.startswith("#")) if r["function"] == f]
        if not calls:
            fail("no analysed call of " + f)
        for r in calls:
            if int(r[col]) != n:
                fail("%s: %s = %s, expected %d" % (f, col, r[col], n))
        print("%d calls of %s, each with %s = %d" % (len(calls), f, col, n))
    elif cmd == "whole-program":
        csv_path, pspa, bc, fns = sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
        args = [pspa, "analyze", "--json", "--no-memory", bc]
        for f in fns:
            args += ["--function", f]
        spa = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
        with open(csv_path) as fh:
            calls = [r for r in csv.DictReader(l for l in fh if not l.startswith("#"))]
        for f in fns:
            mine = [r for r in calls if r["function"] == f]
            if not mine:
                fail(f"{f}: no call in {csv_path}")
            want = (len(spa["functions"][f]["mod"]), len(spa["functions"][f]["ref"]))
            for r in mine:
                got = (int(r["mod"]), int(r["ref"]))
                if r["whole_program"] != "1" or got != want:
                    fail(f"{f} at line {r['line']}: whole_program={r['whole_program']}, "
                         f"(mod, ref) sizes {got}, SPA's {want}")
    elif cmd == "same":
        a, b = sys.argv[2], sys.argv[3]
        names = sorted(x for x in os.listdir(a) if re.fullmatch(r"call-\d+\.modref\.json", x))
        if not names or names != sorted(x for x in os.listdir(b) if re.fullmatch(r"call-\d+\.modref\.json", x)):
            fail("%s and %s hold different calls" % (a, b))
        for x in names:
            ra, rb = json.load(open(os.path.join(a, x))), json.load(open(os.path.join(b, x)))
            for k in ("function", "mod", "ref"):
                if ra[k] != rb[k]:
                    fail("%s: %s differs:\n  %s\n  %s" % (x, k, ra[k], rb[k]))
        print("%d calls: the same sets" % len(names))
    elif cmd == "labels":
        snaps, csv_path, f, kind, line = sys.argv[2:7]
        rest = sys.argv[7:]
        want = rest[: rest.index("--not")] if "--not" in rest else rest
        notwant = rest[rest.index("--not") + 1:] if "--not" in rest else []
        n = call_index(csv_path, f, int(line))
        res = json.load(open(os.path.join(snaps, "call-%d.modref.json" % n)))
        got = strip(res[kind])
        for w in want:
            if w not in got:
                fail("%s of %s: %s missing from %s" % (kind, f, w, got))
        for w in notwant:
            if w in got:
                fail("%s of %s: %s should not be in %s" % (kind, f, w, got))
        print("%s of %s at line %s: %s" % (kind, f, line, got))
    elif cmd == "queries":
        import sqlite3
        args = sys.argv[2:]
        dirs, rels = args[0::2], args[1::2]
        vals = []
        for d in dirs:
            con = sqlite3.connect(os.path.join(d, "run.stats"))
            vals.append(con.execute("SELECT ResolveQueries FROM stats ORDER BY rowid DESC LIMIT 1").fetchone()[0])
        ops = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, "==": lambda a, b: a == b,
               "<=half": lambda a, b: 2 * a <= b}
        for (a, b), rel, (da, db) in zip(zip(vals, vals[1:]), rels, zip(dirs, dirs[1:])):
            if not ops[rel](a, b):
                fail("ResolveQueries %s (%s) %s %s (%s) does not hold" % (a, da, rel, b, db))
        print("ResolveQueries: " + " ".join(f"{v} ({os.path.basename(d)})" for v, d in zip(vals, dirs)))
    elif cmd == "work":
        # A work budget: FACTOR times the largest solve work of FUNCTION's calls (they
        # must have solved: a budget from nothing would test nothing).
        path, f, factor = sys.argv[2:5]
        works = [int(r[14]) for r in rows(path) if r[0] == f]
        if not works or max(works) == 0:
            fail("no solve of %s in %s" % (f, path))
        print(int(max(works) * float(factor)))
    elif cmd == "wit":
        tables, src, f, how = sys.argv[2:6]
        lines = open(src).read().splitlines()
        cols = []
        for text in sys.argv[6:]:
            ln = next((i + 1 for i, l in enumerate(lines) if text in l and not l.lstrip().startswith("//")), None)
            if ln is None:
                fail("no line of %s contains %r" % (src, text))
            got = {s["colour"] for s in json.load(open(tables))["stores"] if s["function"] == f and s["line"] == ln}
            if len(got) != 1:
                fail("%s: the writes of %s at line %d have colours %s (one expected)" % (tables, f, ln, sorted(got)))
            cols.append(got.pop())
        if how == "same" and len(set(cols)) != 1:
            fail("colours %s of %s are not all equal" % (cols, sys.argv[6:]))
        if how == "distinct" and len(set(cols)) != len(cols):
            fail("colours %s of %s are not pairwise distinct" % (cols, sys.argv[6:]))
        print("wit colours of %s: %s" % (sys.argv[6:], cols))
    elif cmd == "wit-same":
        a, b = (json.load(open(p)) for p in sys.argv[2:4])
        # Unique sites name KLEE's object ids (SITE@ID), which depend on how many objects
        # the run made before: compare the ids by rank.
        for t in (a, b):
            klee_ids = sorted({int(m) for k in t["objects"] for m in re.findall(r"@(\d+)", k)})
            rank = {str(i): str(r) for r, i in enumerate(klee_ids)}
            t["objects"] = {re.sub(r"@(\d+)", lambda m: "@#" + rank[m.group(1)], k): v for k, v in t["objects"].items()}
        for k in ("colours", "heap_colours", "objects", "stores"):
            if a[k] != b[k]:
                fail("%s differs between %s and %s" % (k, sys.argv[2], sys.argv[3]))
        print("same WIT tables: %d colours" % a["colours"])
    elif cmd == "same-lines":
        logs = [open(p, errors="replace").read().splitlines() for p in sys.argv[2:4]]
        for arg in sys.argv[4:]:
            prefix, _, stop = arg.partition("~")
            cut = lambda l: l[: l.find(stop)] if stop and stop in l else l
            got = [[cut(l) for l in log if l.startswith("KLEE: done: " + prefix)] for log in logs]
            if not got[0]:
                fail("no `KLEE: done: %s` line in %s" % (prefix, sys.argv[2]))
            if got[0] != got[1]:
                fail("`%s` differs: %s has %s, %s has %s" % (prefix, sys.argv[2], got[0], sys.argv[3], got[1]))
        print("same lines: %s" % sys.argv[4:])
    elif cmd == "same-errors":
        def errors(d):
            # test000N.KIND.err: "Error: MESSAGE", "File: F", "Line: L"
            out = []
            for name in sorted(os.listdir(d)):
                m = re.match(r"test\d+\.(\w+)\.err$", name)
                if m:
                    text = open(os.path.join(d, name)).read()
                    f, ln = re.search(r"^File: (.*)$", text, re.M), re.search(r"^Line: (\d+)$", text, re.M)
                    out.append((m.group(1), os.path.basename(f.group(1)) if f else "?", int(ln.group(1)) if ln else 0))
            return sorted(out)
        a, b = errors(sys.argv[2]), errors(sys.argv[3])
        if a != b:
            fail("errors differ: %s has %s, %s has %s" % (sys.argv[2], a, sys.argv[3], b))
        if not a:
            fail("no error in %s: nothing compared" % sys.argv[2])
        print("same errors: %s" % a)
    elif cmd == "fewer-instructions":
        def instructions(d):
            m = re.search(r"KLEE: done: total instructions = (\d+)", open(os.path.join(d, "info")).read())
            if not m:
                fail("%s/info: no `total instructions` line" % d)
            return int(m.group(1))
        a, b = instructions(sys.argv[2]), instructions(sys.argv[3])
        if a >= b:
            fail("%s executed %d instructions, not fewer than %s's %d" % (sys.argv[2], a, sys.argv[3], b))
        print("instructions: %d < %d" % (a, b))
    elif cmd == "outcomes":
        with open(sys.argv[2]) as f:
            got = sorted(r["outcome"] for r in csv.DictReader(f))
        want = sorted(sys.argv[3:])
        if got != want:
            fail("%s: the tests replayed to %s, not %s" % (sys.argv[2], got, want))
        print("replayed %d tests to %s" % (len(got), want))
    elif cmd == "stats":
        path = os.path.join(sys.argv[2], "pspa-stats.json")
        stats = json.load(open(path))
        if stats.get("schema") != "pspa.stats/1":
            fail("%s: schema %s, not pspa.stats/1" % (path, stats.get("schema")))
        for want in sys.argv[3:]:
            key, _, value = want.partition("=")
            v = stats
            for part in key.split("."):
                if not isinstance(v, dict) or part not in v:
                    fail("%s: no %s" % (path, key))
                v = v[part]
            if str(v).lower() != value.lower():
                fail("%s: %s = %s, not %s" % (path, key, v, value))
        print("stats: %s" % sys.argv[3:])
    elif cmd == "profile":
        with open(sys.argv[2]) as f:
            header = f.readline()
            if not header.startswith("# pspa chop profile/1:"):
                fail("%s: header %r" % (sys.argv[2], header))
            name, _, line = sys.argv[3].partition(":")
            row = next((r for r in csv.DictReader(f)
                        if r["function"] == name and (not line or r["line"] == line)), None)
        if row is None:
            fail("%s: no row for %s" % (sys.argv[2], sys.argv[3]))
        for want in sys.argv[4:]:
            m = re.match(r"(\w+)([=<>])(.*)$", want)
            key, rel, value = m.groups()
            got = row.get(key)
            if got is None:
                fail("%s: no column %s" % (sys.argv[2], key))
            ok = {"=": lambda: got == value, "<": lambda: float(got) < float(value),
                  ">": lambda: float(got) > float(value)}[rel]()
            if not ok:
                fail("%s: %s's %s = %s, not %s %s" % (sys.argv[2], sys.argv[3], key, got, rel, value))
        print("profile %s: %s" % (sys.argv[3], sys.argv[4:]))
    else:
        fail("unknown check " + cmd)


main()
