#!/usr/bin/env bash
# The KLEE part of the test command (README): builds the plugin and runs klee-tests/.
# They run when a patched KLEE v3.2 is found: build tree $KLEE_BUILD_DIR (default
# /opt/klee/build, with bin/klee) and source tree $KLEE_SRC_DIR (default /opt/klee/src,
# with the patch applied). Otherwise they are reported as SKIPPED, with the reason.
set -euo pipefail
cd "$(dirname "$0")/.."
klee_build="${KLEE_BUILD_DIR:-/opt/klee/build}"
klee_src="${KLEE_SRC_DIR:-/opt/klee/src}"
if [ ! -x "$klee_build/bin/klee" ]; then
  echo "KLEE tests: SKIPPED (no KLEE build at $klee_build/bin/klee; set KLEE_BUILD_DIR)"
elif [ ! -f "$klee_src/include/klee/Core/Plugin.h" ]; then
  echo "KLEE tests: SKIPPED (no patched KLEE source at $klee_src; set KLEE_SRC_DIR and apply patches/klee-v3.2-pspa.patch)"
elif ! nm -D "$klee_build/bin/klee" 2>/dev/null | grep registerPlugin >/dev/null; then
  echo "KLEE tests: SKIPPED ($klee_build/bin/klee was not built from the patched source: rebuild it)"
else
  echo "KLEE tests: using $klee_build and $klee_src"
  ./scripts/setup.sh --klee
  cmake -S . -B build -DKLEE_SRC_DIR="$klee_src" -DKLEE_BUILD_DIR="$klee_build" >/dev/null
  cmake --build build -j2
  cargo build --release -q --bin pspa
  KLEE_BUILD_DIR="$klee_build" KLEE_SRC_DIR="$klee_src" lit -v klee-tests
  # The library models that replace uclibc's bodies, against those bodies (reference solver).
  KLEE_UCLIBC_DIR="${KLEE_UCLIBC_DIR:-$(dirname "$klee_build")/uclibc}" cargo test --release --test uclibc -- --nocapture
fi
