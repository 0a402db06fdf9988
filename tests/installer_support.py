"""Shared set-up for the installer, integrity and doctor tests (no tests here).

A *fake bundle* is a small folder shaped like the PyInstaller build (``dealer-station`` at the
top, ``_internal/`` with the configuration, a library and a link inside), with a real manifest
written by the same code the build uses. Its ``dealer-station`` runs this checkout's command
line, so an installed fake bundle can run ``doctor`` for real. The full PyInstaller build is
tested by ``test_installer_build.py`` (slow).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from dealer_station.integrity import Manifest, write_manifest

ROOT = Path(__file__).resolve().parents[1]
INSTALLER = ROOT / "installer"
CONFIG = ROOT / "config"

UDEV_TABLES = """
[udev.shoe]
usb_vendor = "0403"   # FTDI
usb_product = "6001"
usb_serial = "SHOE0001"

[udev.reader]
usb_vendor = '10C4'
usb_product = "EA60"
"""


def make_bundle(where: Path, *, version: str = "9.9.9") -> tuple[Path, Manifest]:
    """A fake one-folder build with its manifest, in ``where/dealer-station``."""
    bundle = where / "dealer-station"
    internal = bundle / "_internal"
    shutil.copytree(CONFIG, internal / "config")
    lib = internal / "lib"
    lib.mkdir()
    (lib / "libstation.so.1").write_bytes(bytes(range(256)) * 64)
    (internal / "libstation.so.1").symlink_to("lib/libstation.so.1")  # as PyInstaller links
    exe = bundle / "dealer-station"
    exe.write_text(f"#!/bin/sh\n# a stand-in for the frozen station: this checkout's CLI\n"
                   f"PYTHONPATH={ROOT} exec {sys.executable} -m dealer_station \"$@\"\n")
    exe.chmod(0o755)
    (internal / "VERSION").write_text(version + "\n")   # builds of other versions differ
    manifest = write_manifest(bundle, version=version, commit="0" * 40, source_date_epoch=1)
    return bundle, manifest


def station_config(where: Path, udev: str = UDEV_TABLES) -> Path:
    """A table's configuration folder: the shipped files, with ``udev`` added to
    station.toml."""
    conf = where / "table-config"
    shutil.copytree(CONFIG, conf)
    with (conf / "station.toml").open("a", encoding="utf-8") as fh:
        fh.write(udev)
    return conf


def tree(root: Path) -> list[str]:
    """Every file and link under ``root`` (not folders), relative, sorted."""
    found = []
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            found.append((Path(dirpath) / name).relative_to(root).as_posix())
    return sorted(found)
