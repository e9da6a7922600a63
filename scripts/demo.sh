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
