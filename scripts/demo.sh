#!/usr/bin/env bash
# The main demo: installs what is missing, then shows what table_insert (paper, Figure 1)
# may modify, first by the whole-program analysis (SPA), then past-sensitively (PSPA) from
# the state right before `table_insert(t1, k1, "foo")` (examples/snapshots/fig1-insert.json).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cargo build --release -q
echo "== SPA: whole-program analysis of examples/fig1.c"
./target/release/pspa analyze examples/fig1.c --function table_insert --function table_lookup
echo
echo "== PSPA: the call table_insert(t1, k1, \"foo\") from its state (objects: SITE@ID)"
./target/release/pspa modref --snapshot examples/snapshots/fig1-insert.json
echo
echo "== PSPA, uniqueness stripped (how the paper compares with SPA)"
./target/release/pspa modref --snapshot examples/snapshots/fig1-insert.json --strip-unique

# The main job: the same Figure 1 program under the patched KLEE with the plugin, when one
# is built (scripts/build-klee.sh; KLEE_BUILD_DIR / KLEE_SRC_DIR, default /opt/klee).
klee_build="${KLEE_BUILD_DIR:-/opt/klee/build}"
klee_src="${KLEE_SRC_DIR:-/opt/klee/src}"
echo
if [ -x "$klee_build/bin/klee" ] && [ -f "$klee_src/include/klee/Core/Plugin.h" ]; then
  echo "== PSPA inside KLEE: every call of table_insert and table_lookup in klee-tests/fig1.c"
  ./scripts/setup.sh --klee >/dev/null
  cmake -S . -B build -DKLEE_SRC_DIR="$klee_src" -DKLEE_BUILD_DIR="$klee_build" >/dev/null
  cmake --build build -j2 >/dev/null
  out=$(mktemp -d)
  clang-14 -g -O0 -Xclang -disable-O0-optnone -emit-llvm -c -I"$klee_src/include" klee-tests/fig1.c -o "$out/fig1.bc"
  "$klee_build/bin/klee" --plugin=build/libpspa-klee.so --pspa-analyze=table_insert,table_lookup \
    --search=dfs --output-dir="$out/klee" "$out/fig1.bc" 2>&1 | grep -E '^KLEE: done: (pspa|completed)'
  echo "   per call: $out/klee/pspa-calls.csv"
  # What users come for: chopping (--skip-functions). klee-tests/chop_pays.c skips `audit`,
  # which forks 4 ways per record through a function pointer and writes only a log.
  echo
  echo "== Chopped symbolic execution: klee-tests/chop_pays.c, skipping audit (KLEE alone, SPA, PSPA)"
  clang-14 -g -O0 -Xclang -disable-O0-optnone -emit-llvm -c -I"$klee_src/include" klee-tests/chop_pays.c -o "$out/chop.bc" 2>/dev/null
  for run in alone spa pspa; do
    case $run in
      alone) opts=() ;;
      *) opts=(--plugin=build/libpspa-klee.so --skip-functions=audit --pspa-mode=$run) ;;
    esac
    start=$(date +%s%N)
    "$klee_build/bin/klee" "${opts[@]}" --output-dir="$out/chop-$run" "$out/chop.bc" >"$out/chop-$run.log" 2>&1
    ms=$((($(date +%s%N) - start) / 1000000))
    paths=$(sed -n 's/^KLEE: done: completed paths = //p' "$out/chop-$run.log")
    errors=$(grep -c 'ASSERTION FAIL' "$out/chop-$run.log" || true)
    instr=$(sed -n 's/^KLEE: done: total instructions = //p' "$out/chop-$run.log")
    rec=$(sed -n 's/^KLEE: done: recovery states = //p' "$out/chop-$run.log")
    printf '   %-6s %4s paths, %6s instructions, %2s assertion failures reported, recoveries %3s, %d.%03d s\n' \
      "$run" "$paths" "$instr" "$errors" "${rec:--}" $((ms / 1000)) $((ms % 1000))
  done
  echo "   (the same bug found; PSPA knows the function pointer holds the log's counter, so nothing recovers)"
else
  echo "== (no patched KLEE at $klee_build: scripts/build-klee.sh builds one; then run this again)"
fi
