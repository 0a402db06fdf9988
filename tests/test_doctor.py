"""``dealer-station doctor`` against a real installation-shaped setup: the configuration, a real
SQLite journal and key, the card shoe and reader emulators on real pseudo-terminals, and a
bundle with its manifest. It passes when all is well, and fails clearly (naming what and what
to do) with a bad key mode, a missing or silent device, a tampered journal, a changed file,
a bad config value or an unsynchronised clock."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import tty
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hw_support import drain, start_emulator, stop_emulator
from installer_support import CONFIG, ROOT, make_bundle

from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import create_key
from dealer_station.cli.main import main

CLOCK_TOOLS = ("timedatectl", "chronyc")


@pytest.fixture(scope="module")
def emulators(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    """A shoe and a reader emulator, each on a pseudo-terminal behind a stable link."""
    where = tmp_path_factory.mktemp("ports")
    procs = []
    links = {}
    try:
        for role in ("shoe", "reader"):
            link = where / f"dealer-{role}"
            proc = start_emulator(role, "--link", str(link), "--quiet")
            drain(proc)
            procs.append(proc)
            links[role] = link
        yield links
    finally:
        for proc in procs:
            stop_emulator(proc)


@dataclass
class Site:
    """One station's files: config folder, devices file, journal, key and bundle."""

    root: Path
    config: Path
    devices: Path
    db_url: str
    db_file: Path
    key: Path
    bundle: Path
    bin: Path            # holds the stand-in clock tools put first on PATH

    def args(self, *extra: str) -> list[str]:
        return ["doctor", "--config", str(self.config), "--devices", str(self.devices),
                "--db", self.db_url, "--key", str(self.key), "--bundle", str(self.bundle),
                "--timeout", "3", *extra]

    def clock_says(self, tool: str, output: str, status: int = 0) -> None:
        """A stand-in for the system's clock tool (the check reads its answer)."""
        script = self.bin / tool
        script.write_text(f"#!/bin/sh\ncat <<'EOF'\n{output}\nEOF\nexit {status}\n")
        script.chmod(0o755)

    def write_devices(self, shoe: str, reader: str, reader_id: str = "READER1") -> None:
        self.devices.write_text(
            f'[devices.shoe]\nbackend = "serial"\nurl = "{shoe}"\ndevice_id = "SHOE1"\n\n'
            f'[devices.reader]\nbackend = "serial"\nurl = "{reader}"\n'
            f'device_id = "{reader_id}"\n')


@pytest.fixture
def site(tmp_path: Path, emulators: dict[str, Path],
         monkeypatch: pytest.MonkeyPatch) -> Iterator[Site]:
    config = tmp_path / "etc"
    shutil.copytree(CONFIG, config)
    db_file = tmp_path / "var" / "journal.db"
    db_url = f"sqlite:///{db_file}"
    key = tmp_path / "var" / "journal.key"
    db = open_database(db_url)
    journal = Journal(db, create_key(key))
    for n in range(3):
        journal.append("T1", "startup", {"n": n}, "station")
    db.close()
    bundle = make_bundle(tmp_path)[0]
    tools = tmp_path / "bin"
    tools.mkdir()
    # Only the stand-ins (and the tools they need) on PATH: the machine's own clock is not
    # what these tests are about.
    for name in ("sh", "cat"):
        found = shutil.which(name)
        assert found is not None
        os.symlink(found, tools / name)
    monkeypatch.setenv("PATH", str(tools))
    s = Site(tmp_path, config, config / "devices.toml", db_url, db_file, key, bundle, tools)
    s.write_devices(str(emulators["shoe"]), str(emulators["reader"]))
    s.clock_says("timedatectl", "yes")
    yield s


def doctor(site: Site, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    status = main(site.args(*extra))
    return status, capsys.readouterr().out


def line(out: str, name: str, status: str) -> str:
    """The first output line of check ``name`` with ``status`` (fails if there is none)."""
    for text in out.splitlines():
        parts = text.split(None, 2)
        if len(parts) == 3 and parts[0] == status and parts[1] == name:
            return parts[2]
    raise AssertionError(f"no {status} line for {name} in:\n{out}")


def test_everything_passes_on_a_good_station(site: Site, emulators: dict[str, Path],
                                             capsys: pytest.CaptureFixture[str]) -> None:
    status, out = doctor(site, capsys)
    assert status == 0, out
    assert "FAIL" not in out and "warn" not in out
    assert out.rstrip().endswith("checks passed")
    assert "lapaire.toml: valid" in out and "bourre.toml: valid" in out
    assert "station.toml: valid" in out
    assert "mode 0600" in line(out, "key", "ok")
    assert "schema at the latest revision" in line(out, "database", "ok")
    assert "table T1: ok, 3 records" in line(out, "journal", "ok")
    shoe = line(out, "shoe", "ok")
    assert str(emulators["shoe"]) in shoe and "answered QUERY: SHOE1 model SIM-SHOE" in shoe
    assert "answered QUERY: READER1" in line(out, "reader", "ok")
    assert "synchronised (timedatectl" in line(out, "clock", "ok")
    assert "files match the manifest" in line(out, "software", "ok")


def test_the_real_command_exits_1_and_names_a_bad_key_mode(site: Site) -> None:
    site.key.chmod(0o644)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "dealer_station", *site.args()],
                          capture_output=True, text=True, env=env, timeout=60, check=False)
    assert done.returncode == 1, done.stdout + done.stderr
    key_line = line(done.stdout, "key", "FAIL")
    assert "readable or writable by group or others (mode 0644)" in key_line
    assert f"chmod 600 {site.key}" in key_line
    # Without the key the chain cannot be verified: said, not hidden.
    assert "cannot verify the chain without the key" in line(done.stdout, "journal", "FAIL")
    assert "checks FAILED (key, journal)" in done.stdout
    assert done.stderr == ""


def test_a_missing_device_fails_and_says_what_to_check(site: Site, emulators: dict[str, Path],
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    site.write_devices(str(emulators["shoe"]), "/dev/dealer-reader-not-here")
    status, out = doctor(site, capsys)
    assert status == 1
    reader = line(out, "reader", "FAIL")
    assert "/dev/dealer-reader-not-here: no such device" in reader
    assert "is it plugged in?" in reader and "[udev.reader]" in reader
    assert "answered QUERY" in line(out, "shoe", "ok")        # the other device still checked
    assert "1 of" in out and "(reader)" in out


def test_a_device_that_never_answers_query_fails(site: Site, emulators: dict[str, Path],
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    master, slave = os.openpty()                       # a port with nothing behind it
    tty.setraw(slave)
    try:
        site.write_devices(str(emulators["shoe"]), os.ttyname(slave))
        status, out = doctor(site, capsys, "--timeout", "0.5")
    finally:
        os.close(master)
        os.close(slave)
    assert status == 1
    reader = line(out, "reader", "FAIL")
    assert "opened, but no answer to QUERY within 0.5 s (expected HELLO from READER1)" in reader


def test_a_device_with_another_id_does_not_pass(site: Site, emulators: dict[str, Path],
                                                capsys: pytest.CaptureFixture[str]) -> None:
    site.write_devices(str(emulators["shoe"]), str(emulators["reader"]), reader_id="READER9")
    # Said as soon as the other device's frames arrive; the timeout only bounds a silence.
    status, out = doctor(site, capsys, "--timeout", "30")
    assert status == 1
    reader = line(out, "reader", "FAIL")
    assert "expected HELLO from READER9" in reader
    assert "frames from device 'READER1', but the reader is configured as 'READER9'" in reader


def test_a_devices_file_named_but_missing_fails(site: Site,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    site.devices.unlink()
    status, out = doctor(site, capsys)
    assert status == 1
    assert f"{site.devices}: missing" in line(out, "config", "FAIL")
    assert f"none configured in {site.devices}" in line(out, "devices", "warn")


def test_a_tampered_journal_fails(site: Site, capsys: pytest.CaptureFixture[str]) -> None:
    with sqlite3.connect(site.db_file) as conn:
        conn.execute("UPDATE journal SET payload = '{\"n\":7}' WHERE table_id = 'T1' "
                     "AND seq = 2")
    status, out = doctor(site, capsys)
    assert status == 1
    journal = line(out, "journal", "FAIL")
    assert "table T1: FAILED at record 2" in journal and "call the operator" in journal


def test_a_missing_database_fails_and_nothing_is_created(site: Site,
                                                         capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    missing = site.root / "nowhere" / "journal.db"
    status = main(site.args("--db", f"sqlite:///{missing}"))
    out = capsys.readouterr().out
    assert status == 1
    assert "no journal database" in line(out, "database", "FAIL")
    assert not missing.exists() and not missing.parent.exists()


def test_a_file_changed_after_the_build_fails_the_software_check(
        site: Site, capsys: pytest.CaptureFixture[str]) -> None:
    target = site.bundle / "_internal" / "config" / "devices.toml"
    target.write_text(target.read_text() + "# edited\n")
    status, out = doctor(site, capsys)
    assert status == 1
    software = line(out, "software", "FAIL")
    assert "does NOT match its manifest: changed: _internal/config/devices.toml" in software
    assert "Reinstall the approved build" in software


def test_a_pinned_approved_hash_is_checked(site: Site, capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from dealer_station.integrity import APPROVED_ENV, load_manifest

    status, out = doctor(site, capsys)
    assert f"not pinned: set {APPROVED_ENV}" in line(out, "software", "ok")
    monkeypatch.setenv(APPROVED_ENV, load_manifest(site.bundle).overall)
    status, out = doctor(site, capsys)
    assert status == 0 and "the approved build's" in line(out, "software", "ok")
    monkeypatch.setenv(APPROVED_ENV, "f" * 64)
    status, out = doctor(site, capsys)
    assert status == 1
    assert f"is not the approved build's {'f' * 64}" in line(out, "software", "FAIL")


def test_a_bad_config_value_is_named_with_file_and_key(site: Site,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    station = site.config / "station.toml"
    station.write_text(station.read_text()
                       + '\n[udev.shoe]\nusb_vendor = "04031"\nusb_product = "6001"\n')
    status, out = doctor(site, capsys)
    assert status == 1
    assert (f"{station}: udev.shoe.usb_vendor: must be 4 hexadecimal digits"
            in line(out, "config", "FAIL"))
    assert "lapaire.toml: valid" in out                       # the other files still checked


def test_the_game_protection_settings_are_checked(site: Site,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    station = site.config / "station.toml"
    good = station.read_text()
    status, out = doctor(site, capsys)
    assert "game protection: at most 1 false alarm per 10,000 rounds at a table, 7 seats" \
        in out and "station.toml: valid" in out
    assert "\nseats = 7\n" in good
    station.write_text(good.replace("\nseats = 7\n", "\nseats = 0\n", 1))
    status, out = doctor(site, capsys)
    assert status == 1
    assert f"{station}: monitor.seats: must be" in line(out, "config", "FAIL")


def test_an_unsynchronised_clock_fails(site: Site, capsys: pytest.CaptureFixture[str]) -> None:
    site.clock_says("timedatectl", "no")
    status, out = doctor(site, capsys)
    assert status == 1
    assert "NOT synchronised (timedatectl: NTPSynchronized=no)" in line(out, "clock", "FAIL")


def test_chronyc_answers_when_timedatectl_cannot(site: Site,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    # timedatectl present but unable to talk to systemd (as in a container): chronyc decides.
    site.clock_says("timedatectl", "Failed to connect to bus", status=1)
    site.clock_says("chronyc", "Reference ID    : 7F7F0101 ()\nLeap status     : Normal")
    status, out = doctor(site, capsys)
    assert status == 0 and "leap status Normal" in line(out, "clock", "ok")
    site.clock_says("chronyc", "Leap status     : Not synchronised")
    status, out = doctor(site, capsys)
    assert status == 1 and "leap status Not synchronised" in line(out, "clock", "FAIL")


def test_a_clock_that_cannot_be_checked_is_a_warning(site: Site,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    (site.bin / "timedatectl").unlink()
    status, out = doctor(site, capsys)
    assert status == 0
    assert "cannot be checked here" in line(out, "clock", "warn")
    assert "1 warning(s)" in out


def test_a_development_checkout_without_bundle_warns(site: Site,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    args = site.args()
    i = args.index("--bundle")
    del args[i:i + 2]
    status = main(args)
    out = capsys.readouterr().out
    assert status == 0
    assert "no manifest (development build)" in line(out, "software", "warn")


def test_skipped_checks_are_listed(site: Site, capsys: pytest.CaptureFixture[str]) -> None:
    site.key.chmod(0o644)
    status, out = doctor(site, capsys, "--skip", "key", "--skip", "journal")
    assert status == 0
    assert line(out, "key", "warn") == "skipped" and line(out, "journal", "warn") == "skipped"
    status, out = doctor(site, capsys, "--skip", "database")
    assert "skipped with the database check" in line(out, "journal", "warn")


def test_bad_timeout_is_refused_without_a_traceback(site: Site,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert main(site.args("--timeout", "0")) == 2
    assert "--timeout must be above 0" in capsys.readouterr().err


def test_a_configuration_row_the_chain_never_made_fails_the_journal_check(
        site: Site, emulators: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    """doctor proves what `audit verify` proves, the tables beside the chain included."""
    with sqlite3.connect(site.db_file) as conn:
        conn.execute("INSERT INTO config_versions (table_id, version, game, content, "
                     "created_at, created_by, reason) VALUES ('T1', 'f00d', 'lapaire', '{}', "
                     "'2099-01-01T00:00:00+00:00', 'mallory', 'odds')")
    status, out = doctor(site, capsys)
    assert status == 1, out
    failed = line(out, "journal", "FAIL")   # one line for the table: chain, then projections
    assert failed.startswith("table T1: ok, 3 records")
    assert "; projection FAILED: config_versions row version f00d" in failed
    assert "checks FAILED (journal)" in out
