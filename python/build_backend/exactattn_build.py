# SPDX-License-Identifier: MIT
"""PEP 517 build backend for exactattn's Python module, driving the project's CMake.

Why in-tree: the usual CMake backend (scikit-build-core) is not a Debian 12 package and the
build machines have no PyPI; this backend needs nothing beyond cmake, a C++ compiler and the
packages scripts/setup.sh installs. It configures ``build-pip/`` (kept between builds, so a
second ``pip install`` is incremental) with ``EXACTATTN_BUILD_PYTHON=ON`` for the running
interpreter, builds the extension, installs the CMake component ``python`` into a staging
directory and zips it into a wheel. ``pip install --no-build-isolation .`` uses it.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NAME = "exactattn"


def _version() -> str:
    """MAJOR.MINOR.PATCH from include/exactattn/version.hpp, the one place it is written."""
    text = (ROOT / "include" / "exactattn" / "version.hpp").read_text(encoding="utf-8")
    return ".".join(re.search(rf"^#define EXACTATTN_VERSION_{part} ([0-9]+)", text, re.M).group(1)
                    for part in ("MAJOR", "MINOR", "PATCH"))


def _metadata() -> str:
    return (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {_version()}\n"
            "Summary: Exact arithmetic for the mathematics of attention (a = ln 2)\n"
            "License: MIT\nRequires-Python: >=3.9\n")


def _tag() -> str:
    py = f"cp{sys.version_info.major}{sys.version_info.minor}"
    plat = re.sub(r"[-.]", "_", sysconfig.get_platform())
    return f"{py}-{py}-{plat}"


def _run(args: list[str]) -> None:
    print("exactattn_build:", " ".join(args), file=sys.stderr)
    subprocess.run(args, check=True, stdout=sys.stderr)


def _build_into(stage: Path) -> None:
    build = ROOT / "build-pip"
    configure = ["cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                 "-DEXACTATTN_BUILD_PYTHON=ON", "-DEXACTATTN_BUILD_CLI=OFF",
                 "-DEXACTATTN_BUILD_TESTS=OFF", f"-DPython_EXECUTABLE={sys.executable}",
                 "-DEXACTATTN_PYTHON_INSTALL_DIR=."]
    if not (build / "CMakeCache.txt").exists() and shutil.which("ninja"):
        configure += ["-G", "Ninja"]
    if shutil.which("ccache"):
        configure.append("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache")
    _run(configure)
    _run(["cmake", "--build", str(build), "--target", "_exactattn", "-j",
          os.environ.get("EXACTATTN_JOBS", "2")])
    _run(["cmake", "--install", str(build), "--component", "python", "--prefix", str(stage)])


def _record_line(path: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    version = _version()
    dist_info = f"{NAME}-{version}.dist-info"
    wheel_name = f"{NAME}-{version}-{_tag()}.whl"
    with tempfile.TemporaryDirectory() as tmp:
        stage = Path(tmp)
        _build_into(stage)
        records = []
        with zipfile.ZipFile(Path(wheel_directory) / wheel_name, "w", zipfile.ZIP_DEFLATED) as whl:
            def add(arcname: str, data: bytes) -> None:
                whl.writestr(arcname, data)
                records.append(_record_line(arcname, data))

            for f in sorted((stage / NAME).rglob("*")):
                if f.is_file():
                    add(f.relative_to(stage).as_posix(), f.read_bytes())
            add(f"{dist_info}/METADATA", _metadata().encode())
            add(f"{dist_info}/WHEEL", (f"Wheel-Version: 1.0\nGenerator: exactattn_build\n"
                                       f"Root-Is-Purelib: false\nTag: {_tag()}\n").encode())
            records.append(f"{dist_info}/RECORD,,")
            whl.writestr(f"{dist_info}/RECORD", "\n".join(records) + "\n")
    return wheel_name


def build_sdist(sdist_directory, config_settings=None):
    base = f"{NAME}-{_version()}"
    try:
        files = subprocess.run(["git", "-C", str(ROOT), "ls-files"], check=True,
                               capture_output=True, text=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        files = [p.relative_to(ROOT).as_posix() for p in ROOT.rglob("*")
                 if p.is_file() and not p.relative_to(ROOT).parts[0].startswith(("build", "."))]
    name = f"{base}.tar.gz"
    with tarfile.open(Path(sdist_directory) / name, "w:gz") as tar:
        for f in files:
            tar.add(ROOT / f, arcname=f"{base}/{f}")
        info = tarfile.TarInfo(f"{base}/PKG-INFO")
        data = _metadata().encode()
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return name
