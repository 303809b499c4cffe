#!/usr/bin/env python3
"""Builds a Python wheel that carries payconform's single executable (as ruff and Pact's CLI wheel do): the
executable goes under the wheel's scripts data (payconform-<version>.data/scripts/payconform), which pip installs
into the environment's bin/ folder, so `pip install payconform-<version>-py3-none-<tag>.whl` puts `payconform` on
the virtual environment's PATH. No Node is needed where the wheel is installed.

Python's standard library only (the wheel format is a zip with METADATA, WHEEL and RECORD: the binary
distribution format of packaging.python.org), for the platform tag of the machine it runs on.

    python3 scripts/build-wheel.py release/payconform-0.1.0-linux-x64 --out release

The version is package.json's; the executable must be the one `npm run build:binary` made for this machine.
"""
import argparse
import base64
import hashlib
import json
import os
import re
import sys
import sysconfig
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Every entry gets this date: the same executable gives the same wheel bytes.
ZIP_DATE = (2020, 1, 1, 0, 0, 0)


def platform_tag():
    """The wheel platform tag of this machine, as the wheel spec derives it from sysconfig (linux_x86_64, ...)."""
    return re.sub(r"[^A-Za-z0-9]", "_", sysconfig.get_platform())


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


def build(executable, out_dir):
    with open(os.path.join(ROOT, "package.json"), "rb") as f:
        package = json.load(f)
    version = package["version"]
    tag = platform_tag()
    with open(executable, "rb") as f:
        binary = f.read()
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
    parser.add_argument("executable", help="the executable npm run build:binary wrote for this machine")
    parser.add_argument("--out", default=os.path.join(ROOT, "release"), help="folder for the wheel")
    args = parser.parse_args(argv)
    if not os.path.isfile(args.executable):
        parser.error("no executable at %s (build it with npm run build:binary)" % args.executable)
    print(build(args.executable, args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
