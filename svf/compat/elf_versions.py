"""Rewrite symbol version requirements in ELF files (scripts/svf-setup.sh).

The pysvf wheel needs GLIBC_2.38 and GLIBCXX_3.4.32, which Debian 12 lacks. Each such
requirement (a Vernaux entry of .gnu.version_r) is renamed in place to an older version of
the same library that the file already requires, so that the loader accepts the file; the
few symbols involved are then found unversioned in libpspa-svfcompat.so.

usage: elf_versions.py FILE OLD=NEW [OLD=NEW...]
"""
import struct
import sys

from elftools.elf.elffile import ELFFile


def elf_hash(name: bytes) -> int:
    h = 0
    for c in name:
        h = ((h << 4) + c) & 0xFFFFFFFF
        g = h & 0xF0000000
        if g:
            h ^= g >> 24
        h &= ~g & 0xFFFFFFFF
    return h


def rewrite(path: str, renames: dict) -> int:
    with open(path, "rb") as f:
        data = bytearray(f.read())
    with open(path, "rb") as f:
        elf = ELFFile(f)
        if elf.elfclass != 64 or not elf.little_endian:
            raise SystemExit(f"{path}: not a little-endian ELF64 file")
        vr = elf.get_section_by_name(".gnu.version_r")
        dynstr = elf.get_section_by_name(".dynstr")
        if vr is None or dynstr is None:
            return 0
        strtab = data[dynstr["sh_offset"]: dynstr["sh_offset"] + dynstr["sh_size"]]

        def name_at(off):
            return bytes(strtab[off: strtab.index(b"\0", off)])

        # Find every Vernaux: offset in the file, name offset.
        auxes = []
        off = vr["sh_offset"]
        while True:
            _ver, _cnt, _file, aux, nxt = struct.unpack_from("<HHIII", data, off)
            a = off + aux
            for _ in range(_cnt):
                _h, _fl, _oth, name, anext = struct.unpack_from("<IHHII", data, a)
                auxes.append((a, name))
                if anext == 0:
                    break
                a += anext
            if nxt == 0:
                break
            off += nxt
    changed = 0
    for a, name in auxes:
        old = name_at(name).decode()
        new = renames.get(old)
        if new is None:
            continue
        target = [n for _, n in auxes if name_at(n).decode() == new]
        if not target:
            raise SystemExit(f"{path}: requires {old} but no {new} string to rename it to")
        struct.pack_into("<I", data, a, elf_hash(new.encode()))
        struct.pack_into("<I", data, a + 8, target[0])
        changed += 1
    if changed:
        with open(path, "wb") as f:
            f.write(data)
    return changed


if __name__ == "__main__":
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    renames = dict(arg.split("=", 1) for arg in sys.argv[2:])
    n = rewrite(sys.argv[1], renames)
    print(f"{sys.argv[1]}: {n} version requirement(s) rewritten")
