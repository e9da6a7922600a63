#!/usr/bin/env bash
# Install what pspa needs on Debian 12 (idempotent): LLVM 14 development files and clang-14.
# With --klee, also what the KLEE plugin and its tests need: cmake, FileCheck (llvm-14-tools),
# and from PyPI lit 14.0.6 (newer lit breaks KLEE's %T) and tabulate (klee-stats).
set -euo pipefail
pkgs=(llvm-14-dev clang-14 libz3-dev)
[ "${1:-}" = "--klee" ] && pkgs+=(cmake llvm-14-tools libsqlite3-dev)
need=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "pspa setup: installing ${need[*]}"
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${need[@]}"
fi
if [ "${1:-}" = "--klee" ]; then
  python3 -c 'import lit, tabulate; assert lit.__version__ == "14.0.6"' 2>/dev/null \
    || python3 -m pip install -q "lit==14.0.6" tabulate
fi
command -v cargo >/dev/null || { echo "pspa setup: cargo not found; install Rust (rustup) first" >&2; exit 1; }
