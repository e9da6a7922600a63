#!/usr/bin/env bash
# The test command: installs what is missing, then runs every test that can run here.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cargo test --release
klee_build="${KLEE_BUILD_DIR:-/opt/klee/build}"
if [ -d klee-tests ] && [ -x "$klee_build/bin/klee" ]; then
  echo "KLEE tests: using $klee_build"
  lit -v klee-tests
else
  echo "KLEE tests: SKIPPED (no patched KLEE build at \$KLEE_BUILD_DIR or /opt/klee/build; the KLEE plugin is not built yet)"
fi
