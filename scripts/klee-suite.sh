#!/usr/bin/env bash
# KLEE's own lit suite (test/ of the patched KLEE) twice: without the plugin, and with it
# loaded (KLEE_PLUGINS) and every client turned on by environment (analysis of every call,
# --pspa-check, resolution pruning, WIT with its write check). Prints both summaries and
# every test whose result differs; exits 1 if one does. About 2 x 5 minutes on 2 cores.
#
#   scripts/klee-suite.sh [--plugin PATH] [--filter REGEX] [-j N]
#
# KLEE_BUILD_DIR (default /opt/klee/build) and the plugin (default build/libpspa-klee.so).
# Some tests fail on some machines with and without the plugin (the environment, not the
# patch: docs in ../shared/design.md); only differences count.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
klee_build="${KLEE_BUILD_DIR:-/opt/klee/build}"
plugin="$top/build/libpspa-klee.so"
jobs=$(nproc)
filter=()
while [ $# -gt 0 ]; do
  case "$1" in
    --plugin) plugin="$2"; shift 2 ;;
    --filter) filter=(--filter "$2"); shift 2 ;;
    -j) jobs="$2"; shift 2 ;;
    *) echo "klee-suite: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ -f "$klee_build/test/lit.site.cfg" ] || { echo "klee-suite: no KLEE build tree at $klee_build" >&2; exit 2; }
[ -f "$plugin" ] || { echo "klee-suite: no plugin at $plugin" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() { # $1 = name; the environment says what is on
  lit -j"$jobs" -v "${filter[@]}" "$klee_build/test" > "$out/$1.log" 2>&1 || true
  grep -E '^(PASS|FAIL|XFAIL|XPASS|UNSUPPORTED|UNRESOLVED|TIMEOUT): ' "$out/$1.log" | sed 's/ (.*)$//' | sort > "$out/$1.results"
  echo "klee-suite: $1: $(cut -d: -f1 "$out/$1.results" | sort | uniq -c | tr -s ' ' | tr '\n' ',' | sed 's/,$//')"
}
(unset KLEE_PLUGINS; run alone)
KLEE_PLUGINS="$plugin" KLEE_PLUGIN_PSPA_ANALYZE_ALL=1 KLEE_PLUGIN_PSPA_CHECK=1 KLEE_PLUGIN_PSPA_RESOLVE=1 \
  KLEE_PLUGIN_PSPA_WIT=1 run clients
if diff "$out/alone.results" "$out/clients.results" > "$out/diff"; then
  echo "klee-suite: the same results with every client on"
else
  echo "klee-suite: results differ (< alone, > with the plugin and every client):"
  cat "$out/diff"
  for t in $(grep '^>' "$out/diff" | grep -v ' PASS: \| XFAIL: \| UNSUPPORTED: ' | sed 's/^> [A-Z]*: KLEE :: //'); do
    echo "--- $t"; sed -n "/FAIL: KLEE :: $t/,/^\*\*\*\*\*\*\*\*\*\*\*\*\*\*\*\*\*\*\*\*$/p" "$out/clients.log" | tail -30
  done
  exit 1
fi
