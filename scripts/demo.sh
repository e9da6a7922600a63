#!/usr/bin/env bash
# The main demo: installs what is missing, then shows what table_insert (paper, Figure 1)
# may modify according to the whole-program analysis.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cargo run --release -q -- analyze examples/fig1.c --function table_insert --function table_lookup --pointers
