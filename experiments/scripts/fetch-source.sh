#!/usr/bin/env bash
# Fetches one pinned Debian 12 (bookworm) source package into DEST (idempotent), adding the
# deb-src lines for bookworm when apt has none.
#   fetch-source.sh PACKAGE VERSION DEST
set -euo pipefail
pkg="$1" ver="$2" dest="$3"
[ -f "$dest/.pspa-fetched" ] && exit 0
sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
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
  $sudo apt-get update -q
fi
command -v dpkg-source >/dev/null || $sudo apt-get install -y -q dpkg-dev
tmp="$dest.tmp"
rm -rf "$tmp" && mkdir -p "$tmp"
# The version pin: any Debian revision of the upstream version (bookworm carries one).
full=$(apt-cache showsrc "$pkg" | awk -v v="$ver" '$1=="Version:" && index($2, v)==1 {print $2}' | sort -V | tail -1)
[ -n "$full" ] || { echo "fetch-source: bookworm has no $pkg $ver source" >&2; exit 1; }
(cd "$tmp" && apt-get source -q "$pkg=$full" >/dev/null)
dir=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d | head -1)
rm -rf "$dest" && mv "$dir" "$dest" && rm -rf "$tmp"
echo "$pkg $full" > "$dest/.pspa-fetched"
