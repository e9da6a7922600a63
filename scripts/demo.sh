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
else
  echo "== (no patched KLEE at $klee_build: scripts/build-klee.sh builds one; then run this again)"
fi
