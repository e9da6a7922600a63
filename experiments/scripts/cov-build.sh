#!/usr/bin/env bash
# A program's driver and library built natively with gcov instrumentation (Table 2: the line
# coverage of a run's tests, replayed natively).
#   cov-build.sh PROGRAM BUILD OUT
# BUILD: the program's build directory of build-bitcode.sh (configured there under wllvm);
# its configured tree is copied to BUILD/cov and the library rebuilt there with gcc
# --coverage (make's CC/CFLAGS override the configured ones: no second configure). OUT: the
# driver (DRIVER_DEFS: its preprocessor flags) linked against that library and KLEE's
# libkleeRuntest ($KLEE_LIB), so that KTEST_FILE=... replays a KLEE test. The .gcno files
# stay in BUILD/cov; a replay writes .gcda files under $GCOV_PREFIX (coverage.py).
set -euo pipefail
prog="$1" build="$(cd "$2" && pwd)" out="$3"
drivers="$(cd "$(dirname "$0")/.." && pwd)/drivers"
[ -n "${KLEE_LIB:-}" ] || { echo "cov-build: KLEE_LIB (libkleeRuntest's directory) is not set" >&2; exit 2; }
[ -f "$build/.configured" ] || { echo "cov-build: $build is not configured: build the bitcode first" >&2; exit 2; }
exec 9>"$build/.lock"
flock 9
cov="$build/cov"
log="$build/cov.log"
defs=(${DRIVER_DEFS:-})
gflags=(CC=gcc "CFLAGS=--coverage -O0 -g")
if [ ! -f "$cov/.built" ]; then
  echo "cov-build $prog: library with --coverage in $cov"
  rm -rf "$cov"
  rsync -a "$build/src/" "$cov/"
  case "$prog" in
    libtasn1) dirs=(lib) ;;
    libosip) dirs=(src/osipparser2) ;;
    libtiff) dirs=(port libtiff) ;;
    *) echo "cov-build: no coverage build for $prog" >&2; exit 2 ;;
  esac
  for d in "${dirs[@]}"; do
    make -C "$cov/$d" clean >>"$log" 2>&1
    if [ "$prog" = libtiff ] && [ "$d" = libtiff ]; then
      make -C "$cov/$d" -j2 "${gflags[@]}" libtiff.la >>"$log" 2>&1
    else
      make -C "$cov/$d" -j2 "${gflags[@]}" >>"$log" 2>&1
    fi
  done
  touch "$cov/.built"
fi
case "$prog" in
  libtasn1) lib=("$cov/lib/.libs/libtasn1.a") inc=(-I"$cov/lib" -I"$build") ;;
  libosip) lib=("$cov/src/osipparser2/.libs/libosipparser2.a") inc=(-I"$cov/include") ;;
  libtiff) lib=("$cov/libtiff/.libs/libtiff.a") inc=(-I"$cov/libtiff") ;;
esac
mkdir -p "$(dirname "$out")"
# coverage.py counts the library's files only (the driver is compiled with --coverage too)
gcc -g -O0 "${defs[@]}" "${inc[@]}" "$drivers/$prog.c" "${lib[@]}" --coverage \
  -L"$KLEE_LIB" -Wl,-rpath,"$KLEE_LIB" -lkleeRuntest -lm -o "$out"
echo "cov-build $prog: -> $out"
