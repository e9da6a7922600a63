#!/usr/bin/env bash
# Install what pspa needs on Debian 12 (idempotent): LLVM 14 development files and clang-14.
# With --klee, also what the KLEE plugin and its tests need: cmake, FileCheck (llvm-14-tools),
# and from PyPI lit 14.0.6 (newer lit breaks KLEE's %T) and tabulate (klee-stats). With
# --klee-build, also what building KLEE itself needs (scripts/build-klee.sh). With
# --experiments, also what building the experiments' programs needs (autotools, tcl for
# SQLite's amalgamation, dpkg-dev for apt-get source).
#
# Every install holds one lock for the machine (flock on $PSPA_INSTALL_LOCK, default
# /var/lock/pspa-install.lock), so that callers running at once (the experiments'
# Snakemake jobs, a test run beside the pipeline) wait for each other instead of failing
# on apt's lock. `setup.sh --locked CMD ARG...` runs any command holding it (the
# experiments' source fetches and venv installs do); the lock is reentrant for the
# command's children (PSPA_INSTALL_LOCKED).
set -euo pipefail
lock="${PSPA_INSTALL_LOCK:-/var/lock/pspa-install.lock}"
if [ -z "${PSPA_INSTALL_LOCK:-}" ] && [ ! -r "$lock" ] && [ ! -w "$(dirname "$lock")" ]; then
  lock=/tmp/pspa-install.lock  # no /var/lock: every user of the machine still meets here
fi

# locked CMD ARG...: CMD holding the install lock (at once when this process tree holds it).
locked() {
  if [ "${PSPA_INSTALL_LOCKED:-}" = "$lock" ]; then
    "$@"
    return
  fi
  # world-writable, so that a lock file root made does not lock other users out
  [ -e "$lock" ] || { (umask 0; : >>"$lock") 2>/dev/null || true; }
  (
    exec 9<"$lock"
    if ! flock -n 9; then
      echo "pspa setup: waiting for another install to finish (lock $lock)" >&2
      flock -w "${PSPA_INSTALL_LOCK_WAIT:-3600}" 9 \
        || { echo "pspa setup: gave up waiting for $lock" >&2; exit 1; }
    fi
    export PSPA_INSTALL_LOCKED="$lock"
    "$@" 9<&-
  )
}

if [ "${1:-}" = "--locked" ]; then
  shift
  [ $# -gt 0 ] || { echo "usage: setup.sh --locked CMD [ARG...]" >&2; exit 2; }
  locked "$@"
  exit
fi

pkgs=(llvm-14-dev clang-14 libz3-dev)
case "${1:-}" in
  --klee) pkgs+=(cmake llvm-14-tools libsqlite3-dev) ;;
  --klee-build) pkgs+=(cmake llvm-14-tools libsqlite3-dev build-essential git zlib1g-dev libncurses-dev python3-pip rsync) ;;
  --experiments) pkgs+=(cmake llvm-14-tools build-essential autoconf automake libtool autopoint gettext texinfo
                        pkg-config tcl bison flex dpkg-dev rsync python3-venv) ;;
esac
missing() {
  need=()
  for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
  done
}
install_packages() {
  missing  # again: a caller that held the lock before us may have installed them
  [ ${#need[@]} -gt 0 ] || return 0
  echo "pspa setup: installing ${need[*]}"
  local sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  # DPkg::Lock::Timeout: wait for apt run by anything else (unattended-upgrades) too
  $sudo apt-get -o DPkg::Lock::Timeout=600 update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=600 install -y -q "${need[@]}"
}
missing
[ ${#need[@]} -eq 0 ] || locked install_packages
if [ "${1:-}" = "--klee" ] || [ "${1:-}" = "--klee-build" ]; then
  have_lit() { python3 -c 'import lit, tabulate; assert lit.__version__ == "14.0.6"' 2>/dev/null; }
  install_lit() { have_lit || python3 -m pip install -q "lit==14.0.6" tabulate; }
  have_lit || locked install_lit
fi
command -v cargo >/dev/null || { echo "pspa setup: cargo not found; install Rust (rustup) first" >&2; exit 1; }
