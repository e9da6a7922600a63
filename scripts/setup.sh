#!/usr/bin/env bash
# Install what pspa needs on Debian 12 (idempotent): LLVM 14 development files and clang-14.
# With --klee, also what the KLEE plugin and its tests need: cmake, FileCheck (llvm-14-tools),
# and from PyPI lit 14.0.6 (newer lit breaks KLEE's %T) and tabulate (klee-stats). With
# --klee-build, also what building KLEE itself needs (scripts/build-klee.sh). With
# --experiments, also what building the experiments' programs needs (autotools, tcl for
# SQLite's amalgamation, dpkg-dev for apt-get source).
set -euo pipefail
pkgs=(llvm-14-dev clang-14 libz3-dev)
case "${1:-}" in
  --klee) pkgs+=(cmake llvm-14-tools libsqlite3-dev) ;;
  --klee-build) pkgs+=(cmake llvm-14-tools libsqlite3-dev build-essential git zlib1g-dev libncurses-dev python3-pip rsync) ;;
  --experiments) pkgs+=(cmake llvm-14-tools build-essential autoconf automake libtool autopoint gettext texinfo
                        pkg-config tcl bison flex dpkg-dev rsync python3-venv) ;;
esac
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
if [ "${1:-}" = "--klee" ] || [ "${1:-}" = "--klee-build" ]; then
  python3 -c 'import lit, tabulate; assert lit.__version__ == "14.0.6"' 2>/dev/null \
    || python3 -m pip install -q "lit==14.0.6" tabulate
fi
command -v cargo >/dev/null || { echo "pspa setup: cargo not found; install Rust (rustup) first" >&2; exit 1; }
