"""install.sh and uninstall.sh into / for real — the service user, its group, ownership and
permissions — inside a private mount namespace, so the machine running the tests is not
changed: /etc is a copy, and /opt, /var/lib and /usr/local are empty scratch folders there.
Needs root and ``unshare``; skipped (saying so) where either is missing."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
from installer_support import INSTALLER, make_bundle, station_config

pytestmark = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0 or shutil.which("unshare") is None,
    reason="installing into / (in a private mount namespace) needs root and unshare")

USER = "dealer-station"


def in_namespace(scratch: Path, script: str) -> subprocess.CompletedProcess[str]:
    mounts = "\n".join(f"mount --bind {scratch / name} {target}"
                       for name, target in (("etc", "/etc"), ("opt", "/opt"),
                                            ("varlib", "/var/lib"),
                                            ("usrlocal", "/usr/local")))
    return subprocess.run(["unshare", "--mount", "--propagation", "private", "bash", "-c",
                           f"set -e\n{mounts}\n{script}"],
                          capture_output=True, text=True, timeout=120, check=False)


def passwd_entry(scratch: Path, name: str) -> list[str] | None:
    for line in (scratch / "etc" / "passwd").read_text().splitlines():
        fields = line.split(":")
        if fields[0] == name:
            return fields
    return None


def group_members(scratch: Path, group: str) -> list[str]:
    for line in (scratch / "etc" / "group").read_text().splitlines():
        fields = line.split(":")
        if fields[0] == group:
            return [m for m in fields[3].split(",") if m]
    return []


def owner(path: Path) -> tuple[int, int, int]:
    info = path.lstat()
    return info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)


def test_install_and_uninstall_into_root(tmp_path: Path) -> None:
    scratch = tmp_path / "ns"
    for name in ("opt", "varlib", "usrlocal"):
        (scratch / name).mkdir(parents=True)
    shutil.copytree("/etc", scratch / "etc", symlinks=True)
    if passwd_entry(scratch, USER) is not None:
        pytest.skip(f"this machine already has a user {USER}")
    bundle = make_bundle(tmp_path / "build")[0]
    conf = station_config(tmp_path)
    probe = in_namespace(scratch, "true")
    if probe.returncode != 0:
        pytest.skip(f"cannot make a private mount namespace here: {probe.stderr.strip()}")

    as_user = f"setpriv --reuid={USER} --regid={USER} --init-groups"
    done = in_namespace(scratch, f"""
bash {INSTALLER / 'install.sh'} --bundle {bundle} --config {conf} --no-start
echo "== as the service user"
{as_user} id -nG
{as_user} cat /var/lib/{USER}/journal.key >/dev/null && echo "key: readable"
{as_user} cat /etc/{USER}/lapaire.toml >/dev/null && echo "config: readable"
{as_user} touch /var/lib/{USER}/journal.db && echo "journal folder: writable"
{as_user} sh -c 'echo x >> /etc/{USER}/lapaire.toml' 2>/dev/null || echo "config: read-only"
{as_user} touch /opt/{USER}/_internal/x 2>/dev/null || echo "software: read-only"
""")
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    assert (f"ran: useradd --system --user-group --home-dir /var/lib/{USER} --no-create-home "
            f"--shell /usr/sbin/nologin --groups dialout {USER}") in out
    entry = passwd_entry(scratch, USER)
    assert entry is not None
    uid, gid = int(entry[2]), int(entry[3])
    assert entry[5] == f"/var/lib/{USER}" and entry[6] == "/usr/sbin/nologin"
    assert USER in group_members(scratch, "dialout")
    groups = out.split("== as the service user\n", 1)[1].splitlines()[0].split()
    assert set(groups) == {USER, "dialout"}
    for line in ("key: readable", "config: readable", "journal folder: writable",
                 "config: read-only", "software: read-only"):
        assert line in out, out

    assert owner(scratch / "opt" / USER) == (0, 0, 0o755)
    assert owner(scratch / "opt" / USER / "dealer-station")[:2] == (0, 0)
    assert owner(scratch / "etc" / USER) == (0, gid, 0o750)
    assert owner(scratch / "etc" / USER / "lapaire.toml") == (0, gid, 0o640)
    assert owner(scratch / "varlib" / USER) == (uid, gid, 0o700)
    assert owner(scratch / "varlib" / USER / "journal.key") == (uid, gid, 0o600)
    assert (scratch / "etc" / "udev" / "rules.d" / "70-dealer-station.rules").exists()
    unit = (scratch / "etc" / "systemd" / "system" / "dealer-station.service").read_text()
    assert f"User={USER}" in unit
    key = (scratch / "varlib" / USER / "journal.key").read_bytes()

    done = in_namespace(scratch, f"bash {INSTALLER / 'uninstall.sh'}")
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"ran: userdel {USER}" in done.stdout
    assert passwd_entry(scratch, USER) is None
    assert USER not in group_members(scratch, "dialout")
    assert not (scratch / "opt" / USER).exists() and not (scratch / "etc" / USER).exists()
    assert not (scratch / "usrlocal" / "bin" / USER).exists()
    assert not (scratch / "etc" / "udev" / "rules.d" / "70-dealer-station.rules").exists()
    assert sorted(p.name for p in (scratch / "varlib" / USER).iterdir()) == [
        "journal.db", "journal.key"]
    assert (scratch / "varlib" / USER / "journal.key").read_bytes() == key

    # Installing again gives the kept journal to the new service user.
    done = in_namespace(scratch, f"bash {INSTALLER / 'install.sh'} --bundle {bundle} --no-start")
    assert done.returncode == 0, done.stdout + done.stderr
    entry = passwd_entry(scratch, USER)
    assert entry is not None
    assert owner(scratch / "varlib" / USER / "journal.key") == (int(entry[2]), int(entry[3]),
                                                                 0o600)
    assert owner(scratch / "varlib" / USER / "journal.db")[:2] == (int(entry[2]), int(entry[3]))
    assert "kept the existing journal key" in done.stdout
