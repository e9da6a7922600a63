#!/usr/bin/env bash
# The experiments pipeline's one entry point:
#
#   ./experiments/run.sh TARGET [--cores N] [--dry-run] [any snakemake option...]
#
# TARGET: table1 (precision), table3 (overhead and reuse), table3chop (overhead and reuse in
# Table 2's chopped runs, the paper's setting), drivers (each driver 60 s under
# KLEE), cost (the analysis' cost inside KLEE), check (--pspa-check: accesses outside
# mod/ref, answer sizes), table7 (resolution pruning), resolvetime (resolution's wall time
# against KLEE alone, bounded inputs), table6 (WIT colours), figure4
# (chopping: recoveries per path, random skip sets), table5, table4, table2 (chopping: all-path
# time, CVEs, coverage in a time budget), autowide (--skip-functions=auto on m4, make and
# SQLite against KLEE alone), bitcodes (just build the programs), all. Installs
# its Python tools (snakemake, wllvm, matplotlib: experiments/requirements.txt) into the
# git-ignored .venv/experiments, then runs experiments/Snakefile from the repository root.
# Results: experiments/results/.
# Needs the patched KLEE (scripts/build-klee.sh; KLEE_BUILD_DIR / KLEE_SRC_DIR, default
# /opt/klee) for the KLEE runs, and OSIP_SRC for libosip (experiments/scripts/osip-source.sh).
# `--config only=libtasn1,sqlite` restricts the programs. Every ratio against KLEE alone
# (cost, table3's slowdown) comes from runs made back to back, alone on the machine,
# `timing_reps` (3) times each: `--config timing_reps=1` for a quick look.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
venv=.venv/experiments
venv_ready() { cmp -s experiments/requirements.txt "$venv/.requirements" 2>/dev/null; }
if [ "${1:-}" = "--install-venv" ]; then
  # (run holding the install lock, below: two pipelines started at once install once)
  venv_ready && exit 0
  echo "experiments: installing snakemake, wllvm, matplotlib into $venv"
  python3 -m venv "$venv" 2>/dev/null || { ./scripts/setup.sh --experiments >/dev/null && python3 -m venv "$venv"; }
  "$venv/bin/pip" install -q -r experiments/requirements.txt
  cp experiments/requirements.txt "$venv/.requirements"
  exit 0
fi
case " $* " in
  *" --dry-run "*|*" -n "*) ;;
  *) ./scripts/setup.sh --experiments ;;  # apt: autotools, tcl, dpkg-dev, ...
esac
venv_ready || ./scripts/setup.sh --locked "$0" --install-venv
[ $# -ge 1 ] || { sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
target="$1"; shift
cores=2; args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --cores) cores="$2"; shift 2 ;;
    --cores=*) cores="${1#*=}"; shift ;;
    --dry-run|-n) args+=(--dry-run); shift ;;
    *) args+=("$1"); shift ;;
  esac
done
export PATH="$top/$venv/bin:$PATH"
mkdir -p experiments/results
# the target first: options such as --config take every value after them. `install`: the
# jobs that install or fetch with apt (rule source, pspa_svf) run one at a time (they also
# hold the install lock of scripts/setup.sh, which is what makes them safe).
exec snakemake "$target" -s experiments/Snakefile -d "$top" --cores "$cores" --resources install=1 "${args[@]}"
