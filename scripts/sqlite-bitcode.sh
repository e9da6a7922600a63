#!/usr/bin/env bash
# Build whole-program bitcode of SQLite 3.40.1 (amalgamation + shell) for the benchmark.
# Sources come from Debian (apt-get source sqlite3) into the git-ignored cache/.
# Output: cache/sqlite/sqlite3-shell.bc
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cache="$top/cache"
out="$cache/sqlite/sqlite3-shell.bc"
[ -f "$out" ] && { echo "$out"; exit 0; }
mkdir -p "$cache/src" "$cache/sqlite"
if ! ls -d "$cache"/src/sqlite3-3.40.1 >/dev/null 2>&1; then
  if ! grep -rqs '^Types: deb-src' /etc/apt/sources.list.d/ && ! grep -qs '^deb-src' /etc/apt/sources.list; then
    cat > /etc/apt/sources.list.d/pspa-deb-src.sources <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    apt-get update -q
  fi
  (cd "$cache/src" && apt-get source -q sqlite3)
fi
command -v tclsh >/dev/null || apt-get install -y -q tcl
src=$(ls -d "$cache"/src/sqlite3-3.40.1)
if [ ! -f "$src/sqlite3.c" ]; then
  (cd "$src" && ./configure >/dev/null && make sqlite3.c shell.c >/dev/null)
fi
flags=(-g -O0 -Xclang -disable-O0-optnone -fno-discard-value-names -emit-llvm -c -DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION)
clang-14 "${flags[@]}" "$src/sqlite3.c" -o "$cache/sqlite/sqlite3.bc"
clang-14 "${flags[@]}" -I"$src" "$src/shell.c" -o "$cache/sqlite/shell.bc"
llvm-link-14 "$cache/sqlite/sqlite3.bc" "$cache/sqlite/shell.bc" -o "$out"
echo "$out"
