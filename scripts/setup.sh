#!/usr/bin/env bash
# Install what pspa needs on Debian 12 (idempotent): LLVM 14 development files and clang-14.
set -euo pipefail
need=()
for p in llvm-14-dev clang-14 libz3-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "pspa setup: installing ${need[*]}"
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${need[@]}"
fi
command -v cargo >/dev/null || { echo "pspa setup: cargo not found; install Rust (rustup) first" >&2; exit 1; }
