#!/usr/bin/env python3
"""Builds a Python wheel that carries payconform's single executable (as ruff and Pact's CLI wheel do): the
executable goes under the wheel's scripts data (payconform-<version>.data/scripts/payconform), which pip installs
into the environment's bin/ folder, so `pip install payconform-<version>-py3-none-<tag>.whl` puts `payconform` on
the virtual environment's PATH. No Node is needed where the wheel is installed.

Python's standard library only (the wheel format is a zip with METADATA, WHEEL and RECORD: the binary
distribution format of packaging.python.org).

    python3 scripts/build-wheel.py release/payconform-0.1.0-linux-x64 --out release

The platform tag is read from the executable, never from the machine that builds the wheel: PEP 600's
manylinux_2_X_<arch>, where <arch> is the ELF's machine and X the newest GLIBC_2.X in its version needs
(.gnu.version_r), so pip installs it only where a glibc at least that new can start it, and nowhere on musl.
Nothing is run: the file must be a 64-bit little-endian ELF for x86_64 or aarch64, linked dynamically against glibc
and only the libraries manylinux allows, and carry the version marker scripts/build-binary.ts writes into the
bundle ("payconform-executable-version: <version>") for the version asked for (--version, else package.json's).
Anything else (a README, another program, another version) is refused with exit 2 and says why.
"""
import argparse
import base64
import hashlib
import json
import os
import re
import struct
import sys
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Every entry gets this date: the same executable gives the same wheel bytes.
ZIP_DATE = (2020, 1, 1, 0, 0, 0)
# The marker scripts/build-binary.ts puts in the bundle's banner; the wheel's test builds a wheel from a real build.
VERSION_MARKER = re.compile(rb"payconform-executable-version: ([0-9A-Za-z.+-]+)\n")
# ELF e_machine values (System V ABI) and the wheel's name for each.
MACHINES = {62: "x86_64", 183: "aarch64"}
SHT_DYNAMIC = 6
SHT_GNU_VERNEED = 0x6FFFFFFE
DT_NEEDED = 1
# The libraries a manylinux wheel may take from the system (PEP 599's list, which PEP 600 keeps): glibc's own,
# libstdc++ and libgcc_s. An executable that needs another (a libnode.so, OpenSSL) cannot carry a manylinux tag.
MANYLINUX_LIBRARIES = {
    "libc.so.6",
    "libm.so.6",
    "libdl.so.2",
    "librt.so.1",
    "libpthread.so.0",
    "libutil.so.1",
    "libnsl.so.1",
    "libresolv.so.2",
    "libcrypt.so.1",
    "libstdc++.so.6",
    "libgcc_s.so.1",
    "ld-linux-x86-64.so.2",
    "ld-linux-aarch64.so.1",
}
GLIBC_VERSION = re.compile(r"^GLIBC_2\.(\d+)(?:\.\d+)?$")


class Refused(Exception):
    """The file given is not a payconform executable this script can wrap; the message says why."""


def c_string(table, offset):
    end = table.find(b"\0", offset)
    if offset >= len(table) or end < 0:
        raise Refused("a string offset points outside the dynamic string table")
    return table[offset:end].decode("ascii", "replace")


def read_elf(data):
    """The machine, the libraries needed (DT_NEEDED) and the version names needed (.gnu.version_r) of an ELF64 LE."""
    if data[:4] != b"\x7fELF":
        raise Refused("not an ELF executable (no ELF magic at its start)")
    if data[4] != 2 or data[5] != 1:
        raise Refused("not a 64-bit little-endian ELF")
    e_type, e_machine = struct.unpack_from("<HH", data, 16)
    if e_type not in (2, 3):  # ET_EXEC, ET_DYN
        raise Refused("an ELF file that is not an executable (e_type %d)" % e_type)
    if e_machine not in MACHINES:
        raise Refused("an ELF executable for machine %d, not x86_64 or aarch64" % e_machine)
    (e_shoff,) = struct.unpack_from("<Q", data, 40)
    e_shentsize, e_shnum = struct.unpack_from("<HH", data, 58)
    if e_shoff == 0 or e_shentsize < 64 or e_shoff + e_shnum * e_shentsize > len(data):
        raise Refused("the ELF's section headers are missing or lie outside the file")
    sections = []
    for i in range(e_shnum):
        _, sh_type, _, _, sh_offset, sh_size, sh_link, sh_info = struct.unpack_from(
            "<IIQQQQII", data, e_shoff + i * e_shentsize
        )
        sections.append((sh_type, sh_offset, sh_size, sh_link, sh_info))

    def section_bytes(index):
        if index >= len(sections):
            raise Refused("a section link points outside the section headers")
        _, offset, size, _, _ = sections[index]
        if offset + size > len(data):
            raise Refused("a section lies outside the file")
        return data[offset : offset + size]

    needed, versions = [], []
    for sh_type, offset, size, link, info in sections:
        if sh_type == SHT_DYNAMIC:
            strings = section_bytes(link)
            for at in range(offset, offset + size - 15, 16):
                d_tag, d_val = struct.unpack_from("<qQ", data, at)
                if d_tag == 0:
                    break
                if d_tag == DT_NEEDED:
                    needed.append(c_string(strings, d_val))
        elif sh_type == SHT_GNU_VERNEED:
            strings = section_bytes(link)
            at = offset
            for _ in range(info):  # sh_info: the number of Verneed entries
                _, vn_cnt, vn_file, vn_aux, vn_next = struct.unpack_from("<HHIII", data, at)
                aux = at + vn_aux
                for _ in range(vn_cnt):
                    _, _, _, vna_name, vna_next = struct.unpack_from("<IHHII", data, aux)
                    versions.append((c_string(strings, vn_file), c_string(strings, vna_name)))
                    aux += vna_next
                if vn_next == 0:
                    break
                at += vn_next
    return MACHINES[e_machine], needed, versions


def platform_tag(data):
    """manylinux_2_X_<arch>: X the newest GLIBC_2.X the executable needs (PEP 600)."""
    machine, needed, versions = read_elf(data)
    if not needed:
        raise Refused("a static ELF (no DT_NEEDED): not the glibc-linked executable npm run build:binary makes")
    others = sorted(set(needed) - MANYLINUX_LIBRARIES)
    if others:
        raise Refused("it needs libraries a manylinux wheel cannot assume: " + ", ".join(others))
    minors = [int(m.group(1)) for m in (GLIBC_VERSION.match(name) for _, name in versions) if m]
    if not minors:
        raise Refused("it needs no GLIBC_2.N symbol version: not linked against glibc (musl?)")
    return "manylinux_2_%d_%s" % (max(minors), machine)


def check_version(data, version):
    found = sorted(set(m.decode("ascii") for m in VERSION_MARKER.findall(data)))
    if not found:
        raise Refused("no payconform version marker inside: not an executable npm run build:binary made")
    if found != [version]:
        raise Refused("it is payconform %s, not %s" % (", ".join(found), version))


def record_hash(data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
    return "sha256=" + digest


def metadata(package, version):
    lines = [
        "Metadata-Version: 2.1",
        "Name: payconform",
        "Version: " + version,
        "Summary: " + package.get("description", "payconform"),
        "Home-page: " + package.get("homepage", ""),
        "License: " + package.get("license", ""),
        "Requires-Python: >=3.8",
        "",
        "payconform's single executable (no Node needed) as a wheel: `pip install` puts `payconform` on PATH.",
        "",
    ]
    return "\n".join(lines).encode("utf-8")


def wheel_file(tag):
    return (
        "Wheel-Version: 1.0\n"
        "Generator: payconform scripts/build-wheel.py\n"
        "Root-Is-Purelib: false\n"
        "Tag: py3-none-%s\n" % tag
    ).encode("utf-8")


def add(archive, name, data, mode):
    info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
    info.external_attr = (0o100000 | mode) << 16  # a regular file with these permission bits
    info.compress_type = zipfile.ZIP_DEFLATED
    archive.writestr(info, data)


def build(executable, out_dir, version=None):
    with open(os.path.join(ROOT, "package.json"), "rb") as f:
        package = json.load(f)
    version = version or package["version"]
    with open(executable, "rb") as f:
        binary = f.read()
    tag = platform_tag(binary)
    check_version(binary, version)
    data_dir = "payconform-%s.data" % version
    info_dir = "payconform-%s.dist-info" % version
    files = [
        (data_dir + "/scripts/payconform", binary, 0o755),
        (info_dir + "/METADATA", metadata(package, version), 0o644),
        (info_dir + "/WHEEL", wheel_file(tag), 0o644),
    ]
    record = "".join("%s,%s,%d\n" % (name, record_hash(data), len(data)) for name, data, _ in files)
    record += info_dir + "/RECORD,,\n"
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "payconform-%s-py3-none-%s.whl" % (version, tag))
    with zipfile.ZipFile(path, "w") as archive:
        for name, data, mode in files:
            add(archive, name, data, mode)
        add(archive, info_dir + "/RECORD", record.encode("utf-8"), 0o644)
    return path


def main(argv):
    parser = argparse.ArgumentParser(description="Build the payconform wheel around the single executable.")
    parser.add_argument("executable", help="the executable npm run build:binary wrote")
    parser.add_argument("--out", default=os.path.join(ROOT, "release"), help="folder for the wheel")
    parser.add_argument("--version", help="the payconform version the executable must be (default: package.json's)")
    args = parser.parse_args(argv)
    if not os.path.isfile(args.executable):
        parser.error("no executable at %s (build it with npm run build:binary)" % args.executable)
    try:
        print(build(args.executable, args.out, args.version))
    except Refused as refused:
        print("build-wheel: refusing %s: %s" % (args.executable, refused), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
