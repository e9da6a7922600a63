#!/usr/bin/env bash
# Whole-program bitcode of one experiment program, with its driver (experiments/drivers/).
#   build-bitcode.sh PROGRAM SRC BUILD OUT
# SRC: the unpacked source (read-only; copied to BUILD). BUILD: a cache directory of this
# program's build; configure under wllvm takes minutes, so it runs once (stamp files) and
# is never redone. OUT: the linked module KLEE runs (driver + library, or the program).
# Compiled with wllvm + clang-14, -g -O0 -Xclang -disable-O0-optnone, as the paper's setup.
# Driver variants (table5's small inputs) share the library's build:
#   DRIVER_DEFS="-DN=6"  preprocessor flags for the driver only
#   NATIVE=PATH          also link the driver natively against the library's archive (wllvm
#                        builds native objects too) and KLEE's libkleeRuntest ($KLEE_LIB), so
#                        that KLEE's tests replay on the program itself (KTEST_FILE=...).
set -euo pipefail
prog="$1" src="$2" build="$3" out="$4"
here=$(cd "$(dirname "$0")/.." && pwd)
drivers="$here/drivers"
export LLVM_COMPILER=clang LLVM_CC_NAME=clang-14 LLVM_CXX_NAME=clang++-14 \
       LLVM_LINK_NAME=llvm-link-14 LLVM_AR_NAME=llvm-ar-14 WLLVM_OUTPUT_LEVEL=ERROR
export CC=wllvm CFLAGS="-g -O0 -Xclang -disable-O0-optnone -fno-discard-value-names"
cflags=($CFLAGS)
mkdir -p "$build" "$(dirname "$out")"
build=$(cd "$build" && pwd)
out="$(cd "$(dirname "$out")" && pwd)/$(basename "$out")"
# variants of one program build in the same directory: one at a time
exec 9>"$build/.lock"
flock 9
defs_driver=(${DRIVER_DEFS:-})
rm -f "$out"
log="$build/build.log"
step() { echo "build-bitcode $prog: $*"; }
copy_src() {
  [ -f "$build/.copied" ] && return 0
  rsync -a --delete --exclude .pspa-fetched "$src/" "$build/src/"
  touch "$build/.copied"
}
# configure once: $@ = the configure command line
configure_once() {
  [ -f "$build/.configured" ] && return 0
  step "configure (slow under wllvm, done once)"
  (cd "$build/src" && "$@") >>"$log" 2>&1 || { echo "configure of $prog failed: $log" >&2; exit 1; }
  touch "$build/.configured"
}
# the driver + one library archive, linked into OUT
link_driver() {
  local archive="$1"; shift
  (cd "$build" && extract-bc -b -o "$build/lib.bc" "$archive") >>"$log" 2>&1
  clang-14 "${cflags[@]}" "${defs_driver[@]}" -emit-llvm -c "$@" -o "$build/driver.bc"
  llvm-link-14 "$build/driver.bc" "$build/lib.bc" -o "$out"
  if [ -n "${NATIVE:-}" ]; then
    [ -n "${KLEE_LIB:-}" ] || { echo "build-bitcode: NATIVE needs KLEE_LIB (libkleeRuntest's directory)" >&2; exit 2; }
    mkdir -p "$(dirname "$NATIVE")"
    clang-14 -g -O0 "${defs_driver[@]}" "$@" "$archive" -L"$KLEE_LIB" -Wl,-rpath,"$KLEE_LIB" -lkleeRuntest -lm \
      -o "$NATIVE"
  fi
}

# a program's module + drivers/compat.c (glibc functions uclibc lacks), linked into OUT
link_compat() {
  clang-14 "${cflags[@]}" -emit-llvm -c "$drivers/compat.c" -o "$build/compat.bc"
  llvm-link-14 "$1" "$build/compat.bc" -o "$out"
}

copy_src
case "$prog" in
  libtasn1)
    configure_once ./configure --disable-shared --disable-doc --disable-valgrind-tests --disable-silent-rules
    step make
    make -C "$build/src/lib" -j2 >>"$log" 2>&1
    make -C "$build/src/src/gl" -j2 >>"$log" 2>&1
    make -C "$build/src/src" -j2 asn1Parser >>"$log" 2>&1
    # The PKIX1 definitions as the static table asn1_array2tree reads (no file I/O in KLEE).
    (cd "$build" && src/src/asn1Parser -o pkix_asn1_tab.c -n pkix_asn1_tab src/tests/pkix.asn) >>"$log" 2>&1
    link_driver "$build/src/lib/.libs/libtasn1.a" -I"$build/src/lib" -I"$build" "$drivers/libtasn1.c"
    ;;
  libosip)
    configure_once sh -c './autogen.sh && ./configure --disable-shared --disable-trace --disable-mt'
    step make
    make -C "$build/src/src/osipparser2" -j2 >>"$log" 2>&1
    link_driver "$build/src/src/osipparser2/.libs/libosipparser2.a" -I"$build/src/include" "$drivers/libosip.c"
    ;;
  libtiff)
    # autogen.sh would download config.guess: autoreconf uses the system's
    configure_once sh -c 'autoreconf -fi && ./configure --disable-shared --disable-cxx --disable-jpeg --disable-old-jpeg \
      --disable-zlib --disable-libdeflate --disable-pixarlog --disable-jbig --disable-lerc --disable-lzma \
      --disable-zstd --disable-webp --disable-tools --disable-tests --disable-contrib --disable-docs'
    step make
    make -C "$build/src/port" -j2 >>"$log" 2>&1
    make -C "$build/src/libtiff" -j2 libtiff.la >>"$log" 2>&1
    link_driver "$build/src/libtiff/.libs/libtiff.a" -I"$build/src/libtiff" "$drivers/libtiff.c"
    ;;
  m4)
    configure_once ./configure --disable-nls --without-libsigsegv --disable-silent-rules
    step make
    make -C "$build/src/lib" -j2 >>"$log" 2>&1
    make -C "$build/src/src" -j2 m4 >>"$log" 2>&1
    (cd "$build" && extract-bc -o "$build/prog.bc" src/src/m4) >>"$log" 2>&1
    link_compat "$build/prog.bc"
    ;;
  make)
    configure_once sh -c 'autoreconf -fi && ./configure --disable-nls --without-guile --disable-load'
    step make
    make -C "$build/src/lib" -j2 >>"$log" 2>&1
    make -C "$build/src" -j2 make >>"$log" 2>&1
    (cd "$build" && extract-bc -o "$out" src/make) >>"$log" 2>&1
    ;;
  sqlite)
    # The amalgamation is the whole library in one file: no archive to extract.
    configure_once ./configure --disable-tcl --disable-readline
    step "make sqlite3.c"
    make -C "$build/src" sqlite3.c >>"$log" 2>&1
    defs=(-DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION -DSQLITE_OMIT_WAL)
    clang-14 "${cflags[@]}" "${defs[@]}" -emit-llvm -c "$build/src/sqlite3.c" -o "$build/lib.bc"
    clang-14 "${cflags[@]}" "${defs[@]}" -I"$build/src" -emit-llvm -c "$drivers/sqlite.c" -o "$build/driver.bc"
    llvm-link-14 "$build/driver.bc" "$build/lib.bc" -o "$out"
    ;;
  *) echo "build-bitcode: unknown program $prog" >&2; exit 2 ;;
esac
[ -s "$out" ] || { echo "build-bitcode $prog: no bitcode made, see $log" >&2; exit 1; }
step "-> $out ($(llvm-dis-14 "$out" -o - | grep -c '^define') functions)"
