#!/usr/bin/env bash
# The install lock of scripts/setup.sh holds: installs started at once run one at a time.
# apt-get, apt-cache, dpkg-query, python3 (pip), sudo and tee are stubs put first on PATH: no root, no
# network, nothing installed, /etc untouched. The apt-get stub records an overlap when
# another apt-get is running (a directory made atomically) and stays 0.4 s; the apt-cache
# stub records one when it reads the package lists while an `apt-get update` rewrites them.
# The test takes the lock itself first, starts the callers, sees each of them wait (and no
# apt-get run), then lets them go: the lock, not luck, keeps them apart. A control run
# shows the stub does see two apt-gets started together without the lock.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
mkdir -p "$t/bin"
fail() { echo "install-lock test: FAILED: $*" >&2; exit 1; }

cat > "$t/bin/apt-get" <<'STUB'
#!/usr/bin/env bash
s="$STUB_STATE"
if ! mkdir "$s/busy" 2>/dev/null; then
  echo "apt-get $*: another apt-get is running" >> "$s/overlaps"; exit 100
fi
echo "apt-get $*" >> "$s/log"
sleep 0.4
case " $* " in
  *" update "*) touch "$s/lists" ;;
  *" source "*)
    if [ -f "$s/lists" ]; then p="${*: -1}"; mkdir -p "${p%%=*}-1.0"; echo src > "${p%%=*}-1.0/file"
    else echo "apt-get source before any update" >> "$s/overlaps"; fi ;;
esac
rmdir "$s/busy"
STUB
cat > "$t/bin/apt-cache" <<'STUB'
#!/usr/bin/env bash
s="$STUB_STATE"
[ -d "$s/busy" ] && echo "apt-cache $*: read the lists while apt-get ran" >> "$s/overlaps"
echo "apt-cache $*" >> "$s/log"
# the lists know the source package once an update has run
[ "$1" = showsrc ] && [ -f "$s/lists" ] && printf 'Package: %s\nVersion: 1.0-2\n\n' "$2"
exit 0
STUB
cat > "$t/bin/python3" <<'STUB'
#!/usr/bin/env bash
# setup.sh --klee/--klee-build: `python3 -c 'import lit...'` (not there), `python3 -m pip install`
s="$STUB_STATE"
[ "$1" = -m ] || exit 1
if ! mkdir "$s/busy" 2>/dev/null; then
  echo "python3 $*: another install is running" >> "$s/overlaps"; exit 100
fi
echo "python3 $*" >> "$s/log"
sleep 0.4
rmdir "$s/busy"
STUB
printf '#!/bin/sh\nexit 1\n' > "$t/bin/dpkg-query"          # nothing is installed
printf '#!/bin/sh\nexec "$@"\n' > "$t/bin/sudo"
printf '#!/bin/sh\ncat >/dev/null\n' > "$t/bin/tee"          # the deb-src lines: not written
command -v cargo >/dev/null || printf '#!/bin/sh\nexit 0\n' > "$t/bin/cargo"
chmod +x "$t/bin/"*
export PATH="$t/bin:$PATH"
export PSPA_INSTALL_LOCK="$t/install.lock"
unset PSPA_INSTALL_LOCKED

fresh() { rm -rf "$t/state"; mkdir -p "$t/state"; export STUB_STATE="$t/state"; }
count() { grep -c "$1" "$2" 2>/dev/null || true; }

# 0. the control: two apt-gets started together, no lock: the stub sees them meet.
fresh
apt-get update -q & apt-get update -q & wait || true
[ -s "$t/state/overlaps" ] || fail "the stub did not notice two apt-gets at once"

# run_held NAME CMD...: start CMD with the lock held by this test; NAME's stderr in $t/NAME.err
pids=()
run_held() { local n="$1"; shift; "$@" >"$t/$n.out" 2>"$t/$n.err" 9<&- & pids+=($!); }
# hold LABEL N: wait until N callers say they wait for the lock; nothing may have run apt
hold() {
  for _ in $(seq 100); do
    [ "$(cat "$t"/*.err 2>/dev/null | grep -c 'waiting for another install')" -ge "$2" ] && break
    sleep 0.1
  done
  [ "$(cat "$t"/*.err | grep -c 'waiting for another install')" -ge "$2" ] \
    || { cat "$t"/*.err >&2; fail "$1: the callers did not wait for the lock"; }
  [ ! -s "$t/state/log" ] || fail "$1: apt ran while the lock was held: $(cat "$t/state/log")"
}
finish() {
  local rc=0
  for p in "${pids[@]}"; do wait "$p" || rc=1; done
  pids=()
  [ $rc -eq 0 ] || { cat "$t"/*.err >&2; fail "$1: a caller failed"; }
  [ ! -s "$t/state/overlaps" ] || fail "$1: $(cat "$t/state/overlaps")"
  rm -f "$t"/*.err "$t"/*.out
}

# 1. three setup.sh at once: each installs (update + install) in turn.
fresh
exec 9<>"$PSPA_INSTALL_LOCK"; flock 9
for i in 1 2 3; do run_held "setup$i" "$top/scripts/setup.sh" --experiments; done
hold setup.sh 3
exec 9<&-
finish setup.sh
[ "$(count 'apt-get.* update' "$t/state/log")" -eq 3 ] && [ "$(count 'apt-get.* install' "$t/state/log")" -eq 3 ] \
  || fail "setup.sh: expected 3 updates and 3 installs: $(cat "$t/state/log")"

# 2. three fetch-source.sh at once on a machine whose lists lack the sources: the first
# updates them, the others find the package without updating again.
fresh
exec 9<>"$PSPA_INSTALL_LOCK"; flock 9
for p in alpha beta gamma; do run_held "fetch-$p" "$top/experiments/scripts/fetch-source.sh" "$p" 1.0 "$t/src/$p"; done
hold fetch-source.sh 3
exec 9<&-
finish fetch-source.sh
for p in alpha beta gamma; do
  [ "$(cat "$t/src/$p/.pspa-fetched")" = "$p 1.0-2" ] && [ -f "$t/src/$p/file" ] || fail "fetch-source.sh: $p not fetched"
done
[ "$(count 'apt-get.* update' "$t/state/log")" -eq 1 ] || fail "fetch-source.sh: expected one update: $(cat "$t/state/log")"

# 3. everything at once: setup.sh, fetch-source.sh, and a command under --locked that
# calls setup.sh again (the lock is reentrant for its children: no deadlock).
fresh
rm -rf "$t/src"
exec 9<>"$PSPA_INSTALL_LOCK"; flock 9
run_held mixed1 "$top/scripts/setup.sh" --klee-build
run_held mixed2 "$top/experiments/scripts/fetch-source.sh" delta 1.0 "$t/src/delta"
run_held mixed3 timeout 60 "$top/scripts/setup.sh" --locked "$top/scripts/setup.sh"
run_held mixed4 "$top/experiments/scripts/fetch-source.sh" epsilon 1.0 "$t/src/epsilon"
hold mixed 4
exec 9<&-
finish mixed
[ -f "$t/src/delta/.pspa-fetched" ] && [ -f "$t/src/epsilon/.pspa-fetched" ] || fail "mixed: sources not fetched"
[ "$(count 'python3 -m pip install' "$t/state/log")" -eq 1 ] || fail "mixed: expected one pip install: $(cat "$t/state/log")"
echo "install-lock test: ok (the control met; 3 + 3 + 4 callers waited for the lock and ran apt one at a time)"
