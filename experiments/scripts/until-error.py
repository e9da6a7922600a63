#!/usr/bin/env python3
"""Run KLEE until it reports an error at each of some source locations (Table 4: the time
to reach a CVE's vulnerable location), or until a time limit: the role of Chopper's
`--error-location`, which KLEE 3.2 lacks.

  until-error.py --locations F:L[,F:L...] --timeout S --output-dir DIR --log LOG --result OUT.json -- KLEE...

Every half second the output directory's *.err files are read: a location is reached when
an error's stack passes through it (any frame outside the C library, as Chopper's
`--error-location` judged it: an overflow inside uclibc's memcpy counts at its caller's
line, and CVE-2012-1569's decoding.c:137 counts when the error is in a function it
calls); an error's time is its file's modification time from KLEE's start. Once every location
has one, or at the limit, KLEE is interrupted (SIGINT: it halts, writes its statistics and
`KLEE: done:` lines). OUT.json: {"locations": {F:L: seconds or null}, "wall": seconds,
"all_found": bool}.
"""
import argparse
import glob
import json
import os
import re
import signal
import subprocess
import sys
import time


FRAME = re.compile(r"^\s*#\d+ in .* at (\S+):(\d+)$")


def locations(path):
    """The frames of an error's stack outside the C library and KLEE's runtime, innermost
    first, as FILE:LINE."""
    out = []
    for line in open(path, errors="replace"):
        m = FRAME.match(line.rstrip())
        if m and not m.group(1).startswith(("libc/", "src/runtime/")):
            out.append(f"{os.path.basename(m.group(1))}:{m.group(2)}")
    return out


def found(out_dir, start, seen, limit=None):
    """Marks in `seen` the locations the errors of out_dir reach, at their files' times from
    `start`; an error written after `limit` seconds (KLEE halting: it may take minutes to
    stop) does not count."""
    for path in glob.glob(os.path.join(out_dir, "*.err")):
        t = round(os.path.getmtime(path) - start, 2)
        if limit is not None and t > limit:
            continue
        for loc in locations(path):
            if loc in seen and seen[loc] is None:
                seen[loc] = t


def halt(p, log_path, grace=120):
    """Interrupts KLEE so that it halts and writes its statistics. Z3 takes SIGINT for
    itself while it solves (it cancels the query, and KLEE never hears of it: a Table 4
    run went on for two more minutes), so the signal is sent again every 2 s until KLEE's
    log says it heard it (a second one it hears makes it exit without its statistics);
    killed after `grace` seconds."""
    deadline = time.time() + grace
    heard = False
    while p.poll() is None and time.time() < deadline:
        if not heard:
            with open(log_path, errors="replace") as f:
                heard = "ctrl-c detected" in f.read()
        if not heard:
            p.send_signal(signal.SIGINT)
        try:
            p.wait(timeout=2)
        except subprocess.TimeoutExpired:
            pass
    if p.poll() is None:
        p.kill()
        p.wait()


def main():
    ap = argparse.ArgumentParser(usage=__doc__)
    ap.add_argument("--locations", required=True)
    ap.add_argument("--timeout", type=float, required=True)
    ap.add_argument("--output-dir", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--result", required=True)
    ap.add_argument("klee", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.klee[1:] if a.klee[:1] == ["--"] else a.klee
    seen = {loc: None for loc in a.locations.split(",")}
    start = time.time()
    with open(a.log, "w") as log:
        p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        while p.poll() is None:
            time.sleep(0.5)
            found(a.output_dir, start, seen, a.timeout)
            if all(v is not None for v in seen.values()) or time.time() - start > a.timeout:
                halt(p, a.log)
                break
    found(a.output_dir, start, seen, a.timeout)
    wall = round(time.time() - start, 2)
    json.dump({"locations": seen, "wall": wall, "all_found": all(v is not None for v in seen.values())},
              open(a.result, "w"), indent=1)
    if p.returncode not in (0, -signal.SIGINT, 1) and not os.path.exists(os.path.join(a.output_dir, "info")):
        sys.exit(f"until-error: KLEE failed ({p.returncode}), see {a.log}")


if __name__ == "__main__":
    main()
