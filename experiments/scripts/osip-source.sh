#!/usr/bin/env bash
# libosip2 is not served as a Debian source package (bookworm has only its .dsc), so its
# source comes from a directory the user gives: OSIP_SRC, a checkout or unpacked tarball of
# GNU oSIP 5.x (https://ftp.gnu.org/gnu/osip/libosip2-5.3.1.tar.gz, or the git tag 5.0.0 of
# https://git.savannah.gnu.org/git/osip.git, mirrored as github.com/gitGNU/gnu_osip).
#   osip-source.sh DEST
set -euo pipefail
dest="$1"
[ -f "$dest/.pspa-fetched" ] && exit 0
if [ -z "${OSIP_SRC:-}" ] || [ ! -f "${OSIP_SRC}/src/osipparser2/osip_message_parse.c" ]; then
  echo "libosip: set OSIP_SRC to a GNU oSIP 5.x source tree (see experiments/scripts/osip-source.sh)" >&2
  exit 1
fi
rm -rf "$dest" && mkdir -p "$dest"
rsync -a --exclude .git "$OSIP_SRC/" "$dest/"
echo "libosip2 from $OSIP_SRC" > "$dest/.pspa-fetched"
