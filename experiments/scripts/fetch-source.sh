#!/usr/bin/env bash
# Fetches one pinned Debian 12 (bookworm) source package into DEST (idempotent), adding the
# deb-src lines for bookworm when apt has none.
#   fetch-source.sh PACKAGE VERSION DEST
# Everything that touches apt runs holding the machine's install lock (scripts/setup.sh
# --locked): the pipeline fetches several packages at once, and one job's `apt-get update`
# must neither meet another's (apt's lock) nor be half done when another looks a version up.
set -euo pipefail
pkg="$1" ver="$2" dest="$3"
[ -f "$dest/.pspa-fetched" ] && exit 0
top=$(cd "$(dirname "$0")/../.." && pwd)
[ -n "${PSPA_INSTALL_LOCKED:-}" ] || exec "$top/scripts/setup.sh" --locked "$0" "$@"
[ -f "$dest/.pspa-fetched" ] && exit 0  # fetched while this job waited for the lock
sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
apt_get() { $sudo apt-get -o DPkg::Lock::Timeout=600 "$@"; }
if ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ && ! grep -qs '^deb-src' /etc/apt/sources.list; then
  $sudo tee /etc/apt/sources.list.d/pspa-deb-src.sources >/dev/null <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
fi
command -v dpkg-source >/dev/null || apt_get install -y -q dpkg-dev
# The version pin: any Debian revision of the upstream version (bookworm carries one).
version() { apt-cache showsrc "$pkg" 2>/dev/null | awk -v v="$ver" '$1=="Version:" && index($2, v)==1 {print $2}' | sort -V | tail -1; }
tmp="$dest.tmp"
fetch() {
  local full
  full=$(version)
  [ -n "$full" ] || return 1
  rm -rf "$tmp" && mkdir -p "$tmp"
  (cd "$tmp" && apt-get source -q "$pkg=$full" >/dev/null) || return 1
  echo "$pkg $full"
}
# The package lists first made (the deb-src lines just added) or stale (a revision the
# mirror no longer has): update them once and try again.
if ! got=$(fetch); then
  apt_get update -q
  got=$(fetch) || { echo "fetch-source: bookworm has no $pkg $ver source" >&2; exit 1; }
fi
dir=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d | head -1)
rm -rf "$dest" && mv "$dir" "$dest" && rm -rf "$tmp"
echo "$got" > "$dest/.pspa-fetched"
