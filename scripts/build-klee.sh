#!/usr/bin/env bash
# Builds the patched KLEE v3.2 (patches/*.patch) with klee-uclibc v1.4 and the POSIX runtime,
# against Debian 12's LLVM 14, Z3 and clang-14, into a cache directory (default /opt/klee):
#
#   PREFIX/src        KLEE's source, patched      (KLEE_SRC_DIR for the plugin's CMake)
#   PREFIX/build      KLEE's build tree, bin/klee  (KLEE_BUILD_DIR)
#   PREFIX/uclibc     klee-uclibc, built
#
# Sources: KLEE_SRC_DIR / KLEE_UCLIBC_DIR when set (plain checkouts of v3.2 and
# klee_uclibc_v1.4; they are copied, never modified), else `git clone` of the public
# repositories at those tags. Idempotent: a step whose output is there and whose inputs
# (the patch) did not change is skipped. scripts/klee-tests.sh and experiments/ find the
# result at PREFIX (or KLEE_BUILD_DIR / KLEE_SRC_DIR).
#
#   scripts/build-klee.sh [--prefix DIR] [--jobs N]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
prefix=/opt/klee
jobs=$(nproc)
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix="$2"; shift 2 ;;
    --prefix=*) prefix="${1#*=}"; shift ;;
    --jobs) jobs="$2"; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "build-klee: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)
log() { echo "build-klee: $*"; }

# --- packages (Debian 12), lit 14.0.6 and tabulate ---
"$top/scripts/setup.sh" --klee-build

# --- sources ---
# $1 = destination, $2 = user-given checkout (may be empty), $3 = URL, $4 = tag
get_source() {
  local dest="$1" given="$2" url="$3" tag="$4"
  [ -d "$dest/.pspa-pristine" ] && return 0
  rm -rf "$dest"
  if [ -n "$given" ]; then
    [ -d "$given" ] || { echo "build-klee: $given does not exist" >&2; exit 2; }
    log "copying $given to $dest"
    rsync -a --exclude .git "$given/" "$dest/"
  else
    log "cloning $url at $tag"
    git clone -q --depth 1 --branch "$tag" "$url" "$dest"
    rm -rf "$dest/.git"
  fi
  mkdir -p "$dest/.pspa-pristine"
}
get_source "$prefix/src" "${KLEE_SRC_DIR:-}" https://github.com/klee/klee.git v3.2
get_source "$prefix/uclibc" "${KLEE_UCLIBC_DIR:-}" https://github.com/klee/klee-uclibc.git klee_uclibc_v1.4
[ -f "$prefix/src/lib/Core/Executor.cpp" ] || { echo "build-klee: $prefix/src is not a KLEE source tree" >&2; exit 2; }
grep -q 'LLVM 14' "$prefix/src/README-CMake.md" 2>/dev/null || true

# --- the patch: applied to the pristine copy; a changed patch re-applies from scratch ---
patch_sum=$(cat "$top"/patches/*.patch | sha256sum | cut -d' ' -f1)
if [ "$(cat "$prefix/src/.pspa-patch" 2>/dev/null)" != "$patch_sum" ]; then
  if [ -f "$prefix/src/.pspa-patch" ]; then
    log "the patch changed: reverting the old one"
    (cd "$prefix/src" && patch -s -R -p1 < "$prefix/src/.pspa-patch.applied")
  fi
  log "applying patches/*.patch"
  for p in "$top"/patches/*.patch; do (cd "$prefix/src" && patch -s -p1 --forward < "$p"); done
  cat "$top"/patches/*.patch > "$prefix/src/.pspa-patch.applied"
  echo "$patch_sum" > "$prefix/src/.pspa-patch"
fi

# --- klee-uclibc, locale support off so that it builds offline ---
if [ ! -f "$prefix/uclibc/lib/libc.a" ]; then
  log "building klee-uclibc"
  (
    cd "$prefix/uclibc"
    ./configure --make-llvm-lib --with-cc clang-14 --with-llvm-config llvm-config-14 >/dev/null
    sed -i -e 's/^UCLIBC_HAS_LOCALE=y/# UCLIBC_HAS_LOCALE is not set/' \
           -e '/^UCLIBC_HAS_XLOCALE/d' -e '/^UCLIBC_PREGENERATED_LOCALE_DATA/d' .config
    make -j"$jobs" >/dev/null 2>"$prefix/uclibc-build.log" \
      || { echo "build-klee: klee-uclibc failed, see $prefix/uclibc-build.log" >&2; exit 1; }
  )
fi

# --- KLEE ---
mkdir -p "$prefix/build"
if [ ! -f "$prefix/build/CMakeCache.txt" ]; then
  log "configuring KLEE"
  cmake -S "$prefix/src" -B "$prefix/build" -DCMAKE_BUILD_TYPE=Release \
    -DLLVM_DIR=/usr/lib/llvm-14/lib/cmake/llvm \
    -DLLVMCC=/usr/bin/clang-14 -DLLVMCXX=/usr/bin/clang++-14 \
    -DENABLE_SOLVER_Z3=ON -DENABLE_SOLVER_STP=OFF -DENABLE_SOLVER_METASMT=OFF \
    -DENABLE_POSIX_RUNTIME=ON -DKLEE_UCLIBC_PATH="$prefix/uclibc" \
    -DENABLE_UNIT_TESTS=OFF -DENABLE_SYSTEM_TESTS=ON -DENABLE_TCMALLOC=OFF \
    -DENABLE_KLEE_ASSERTS=ON -DLIT_TOOL="$(command -v lit)" >"$prefix/cmake.log" \
    || { echo "build-klee: KLEE's cmake failed, see $prefix/cmake.log" >&2; exit 1; }
fi
log "building KLEE (make -j$jobs; incremental)"
cmake --build "$prefix/build" -j"$jobs" >"$prefix/build.log" 2>&1 \
  || { tail -20 "$prefix/build.log" >&2; echo "build-klee: KLEE failed, see $prefix/build.log" >&2; exit 1; }
nm -D "$prefix/build/bin/klee" | grep registerPlugin >/dev/null \
  || { echo "build-klee: $prefix/build/bin/klee lacks the plugin hooks" >&2; exit 1; }

log "done: $prefix/build/bin/klee"
echo "export KLEE_SRC_DIR=$prefix/src"
echo "export KLEE_BUILD_DIR=$prefix/build"
echo "export PATH=$prefix/build/bin:\$PATH"
