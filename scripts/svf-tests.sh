#!/usr/bin/env bash
# The SVF part of the test command (README): installs the SVF baseline (scripts/svf-setup.sh,
# into .venv/svf), builds pspa-svf and runs tests/svf.rs against it. PSPA_SKIP_SVF=1 skips
# them, and says so.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${PSPA_SKIP_SVF:-0}" = 1 ]; then
  echo "SVF tests: SKIPPED (PSPA_SKIP_SVF=1)"
  exit 0
fi
./scripts/setup.sh --locked ./scripts/svf-setup.sh >/dev/null  # installs: under the machine-wide lock
cargo build --release -p pspa-svf
echo "SVF tests: using $(pwd)/target/release/pspa-svf"
PSPA_SVF_BIN="$(pwd)/target/release/pspa-svf" cargo test --release --test svf
