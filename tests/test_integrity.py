"""Software integrity: the build's manifest, its check at every start, the journal records, and
the tilt screen that names the changed file until a supervisor acknowledges."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from argon2 import PasswordHasher
from installer_support import make_bundle
from touch_support import give_reason, tap_button
from ui_support import WAIT_MS, click, make_station

from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Journal, is_significant
from dealer_station.audit.keys import create_key
from dealer_station.audit.users import PermissionDenied, Users
from dealer_station.games.lapaire.config_file import load_lapaire_config
from dealer_station.games.lapaire.table.live import LaPaireTable
from dealer_station.integrity import (
    APPROVED_ENV,
    DEVELOPMENT_TEXT,
    KIND_ACK,
    KIND_MISMATCH,
    KIND_OK,
    MANIFEST_NAME,
    SUMS_NAME,
    IntegrityError,
    approved_hash,
    check_running,
    load_manifest,
    start_gate,
    verify_bundle,
    write_manifest,
)
from dealer_station.table.base import TableError

LIB = "_internal/lib/libstation.so.1"


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    return make_bundle(tmp_path)[0]


# --- the manifest ---------------------------------------------------------------------------

def test_manifest_lists_every_file_and_sha256sum_agrees(bundle: Path) -> None:
    manifest = load_manifest(bundle)
    shipped = {p.relative_to(bundle).as_posix() for p in bundle.rglob("*")
               if p.is_file() and p.name not in (MANIFEST_NAME, SUMS_NAME)}
    assert set(manifest.files) == shipped
    assert "_internal/config/lapaire.toml" in manifest.files
    assert "_internal/libstation.so.1" in manifest.files            # a link, hashed as loaded
    assert manifest.files[LIB] == hashlib.sha256((bundle / LIB).read_bytes()).hexdigest()
    assert manifest.version == "9.9.9"
    # The overall hash is the SHA-256 of SHA256SUMS, and the real sha256sum checks the bundle.
    sums = (bundle / SUMS_NAME).read_bytes()
    assert manifest.overall == hashlib.sha256(sums).hexdigest()
    done = subprocess.run(["sha256sum", "--strict", "-c", SUMS_NAME], cwd=bundle,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count(": OK") == len(manifest.files)


def test_same_files_same_overall_hash(tmp_path: Path) -> None:
    a = make_bundle(tmp_path / "a")[1]
    b = make_bundle(tmp_path / "b")[1]
    assert a.overall == b.overall                  # a function of the contents only


def test_an_untouched_bundle_verifies(bundle: Path) -> None:
    report = verify_bundle(bundle)
    assert report.ok and not report.tilt and report.problems() == []
    assert report.overall == load_manifest(bundle).overall
    assert report.files == len(load_manifest(bundle).files)
    assert "software verified" in report.summary() and report.overall in report.summary()


def test_a_file_edited_after_the_build_is_named(bundle: Path) -> None:
    target = bundle / "_internal/config/lapaire.toml"
    target.write_text(target.read_text() + "\n# changed on site\n")
    report = verify_bundle(bundle)
    assert report.tilt and not report.ok
    assert report.changed == ("_internal/config/lapaire.toml",)
    assert report.first_file == "_internal/config/lapaire.toml"
    assert report.overall != report.expected
    assert "changed: _internal/config/lapaire.toml" in report.summary()


def test_one_flipped_byte_in_a_library_is_caught(bundle: Path) -> None:
    data = bytearray((bundle / LIB).read_bytes())
    data[1000] ^= 1
    (bundle / LIB).write_bytes(bytes(data))
    report = verify_bundle(bundle)
    # The library and the link to it both load those bytes: both are named.
    assert report.changed == ("_internal/lib/libstation.so.1", "_internal/libstation.so.1")


def test_missing_and_extra_files_are_named(bundle: Path) -> None:
    (bundle / "_internal/config/bourre.toml").unlink()
    (bundle / "_internal/dealer_station").mkdir()
    (bundle / "_internal/dealer_station/__pycache__").mkdir()
    (bundle / "_internal/dealer_station/__pycache__/x.cpython-311.pyc").write_bytes(b"x")
    report = verify_bundle(bundle)
    assert report.missing == ("_internal/config/bourre.toml",)
    assert report.extra == ("_internal/dealer_station/__pycache__/x.cpython-311.pyc",)
    assert report.changed == ()
    assert report.problems() == [
        "missing: _internal/config/bourre.toml",
        "extra (not in the manifest): _internal/dealer_station/__pycache__/x.cpython-311.pyc"]


def test_a_manifest_edited_to_hide_a_change_is_caught(bundle: Path) -> None:
    # Change a file and its line in manifest.json, but not the overall hash.
    target = bundle / "_internal/config/lapaire.toml"
    target.write_text("# replaced\n")
    data = json.loads((bundle / MANIFEST_NAME).read_text())
    data["files"]["_internal/config/lapaire.toml"] = hashlib.sha256(b"# replaced\n").hexdigest()
    (bundle / MANIFEST_NAME).write_text(json.dumps(data))
    report = verify_bundle(bundle)
    assert report.tilt and report.changed == ()
    assert "SHA256SUMS" in report.problem and "does not agree" in report.problem


def test_a_rewritten_manifest_verifies_but_its_overall_hash_differs(bundle: Path) -> None:
    """Rewriting the whole manifest makes the bundle self-consistent: what gives it away is
    the overall hash, which is what the station shows and journals, and what the regulator
    compares with the approved build's."""
    approved = load_manifest(bundle).overall
    (bundle / "_internal/config/lapaire.toml").write_text("# replaced\n")
    write_manifest(bundle)
    report = verify_bundle(bundle)
    assert report.ok and report.overall != approved


def test_a_pinned_approved_hash_refuses_any_other_build(bundle: Path) -> None:
    approved = load_manifest(bundle).overall
    assert verify_bundle(bundle, approved).ok
    assert verify_bundle(bundle, approved.upper() + " ").ok      # as pasted by a person
    (bundle / "_internal/config/lapaire.toml").write_text("# replaced\n")
    write_manifest(bundle)                                       # a consistent forgery
    report = verify_bundle(bundle, approved)
    assert report.tilt and report.changed == () and report.first_file == ""
    assert f"is not the approved build's {approved}" in report.problem
    assert report.headline() == report.problem


def test_check_running_reads_the_pin_only_for_a_frozen_build(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(APPROVED_ENV, "0" * 64)
    assert approved_hash() == "0" * 64
    assert check_running().development              # a checkout has nothing to compare


def test_no_manifest_in_a_bundle_is_a_mismatch(bundle: Path) -> None:
    (bundle / MANIFEST_NAME).unlink()
    report = verify_bundle(bundle)
    assert report.tilt
    assert "manifest.json: the manifest is missing" in report.problem
    (bundle / MANIFEST_NAME).write_text("{not json")
    assert "not valid JSON" in verify_bundle(bundle).problem


def test_a_development_checkout_has_no_manifest_and_says_so() -> None:
    report = check_running()                     # the tests run from a checkout, not frozen
    assert report.development and not report.tilt and not report.ok
    assert report.summary() == DEVELOPMENT_TEXT
    assert "no manifest (development build)" in DEVELOPMENT_TEXT


def test_write_manifest_refuses_a_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(IntegrityError, match="no such bundle folder"):
        write_manifest(tmp_path / "nowhere")


def test_a_link_out_of_the_bundle_is_refused(bundle: Path, tmp_path: Path) -> None:
    (tmp_path / "outside.so").write_bytes(b"elsewhere")
    os.symlink(tmp_path / "outside.so", bundle / "_internal/outside.so")
    with pytest.raises(IntegrityError, match="a link out of the bundle"):
        write_manifest(bundle)
    report = verify_bundle(bundle)
    assert report.tilt and "a link out of the bundle" in report.problem


# --- at start: journal, tilt, acknowledgement ------------------------------------------------

@pytest.fixture
def table(tmp_path: Path) -> Iterator[LaPaireTable]:
    db = open_database(f"sqlite:///{tmp_path / 'journal.db'}")
    journal = Journal(db, create_key(tmp_path / "journal.key"))
    users = Users(journal, hasher=PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))
    users.seed([("operator", "Olive Operator", "operator", "3333"),
                ("super", "Sam Supervisor", "supervisor", "2222"),
                ("dealer", "Dana Dealer", "dealer", "1111")], actor="test")
    t = LaPaireTable(journal, "T1", load_lapaire_config(), dealer="test/dealer")
    t.startup()
    t.users = users  # type: ignore[attr-defined]  (for the tests below)
    yield t
    db.close()


def kinds(table: LaPaireTable) -> list[str]:
    return [r.kind for r in table.journal.records("T1")]


def test_a_verified_start_is_journaled_as_significant(table: LaPaireTable, bundle: Path) -> None:
    gate = start_gate(table, verify_bundle(bundle))
    assert not gate.tilted
    assert kinds(table)[-1] == KIND_OK and is_significant(KIND_OK)
    record = list(table.journal.records("T1"))[-1]
    assert record.payload["overall"] == load_manifest(bundle).overall
    assert record.payload["version"] == "9.9.9"
    assert record.kind in [e.kind for e in table.journal.events("T1")]


def test_a_development_start_journals_nothing(table: LaPaireTable) -> None:
    before = kinds(table)
    gate = start_gate(table)
    assert gate.report.development and not gate.tilted
    assert kinds(table) == before


def test_a_mismatch_tilts_until_a_supervisor_acknowledges(table: LaPaireTable,
                                                          bundle: Path) -> None:
    (bundle / LIB).write_bytes(b"patched")
    gate = start_gate(table, verify_bundle(bundle))
    assert gate.tilted
    mismatch = list(table.journal.records("T1"))[-1]
    assert mismatch.kind == KIND_MISMATCH and is_significant(KIND_MISMATCH)
    assert LIB in mismatch.payload["changed"]
    users: Users = table.users  # type: ignore[attr-defined]
    dealer = users.authenticate("dealer", "1111", table_id="T1")
    supervisor = users.authenticate("super", "2222", table_id="T1")
    count = len(kinds(table))
    with pytest.raises(PermissionDenied, match="only a supervisor or operator"):
        gate.acknowledge(dealer, "let me deal")
    with pytest.raises(TableError, match="a reason is required"):
        gate.acknowledge(supervisor, "  ")
    assert gate.tilted and len(kinds(table)) == count          # refusals leave no trace
    ack = gate.acknowledge(supervisor, "operator called, reinstall booked")
    assert not gate.tilted and gate.acknowledged_by == supervisor.actor
    assert ack.kind == KIND_ACK and ack.actor == supervisor.actor and is_significant(KIND_ACK)
    assert ack.payload["file"] == "_internal/lib/libstation.so.1"
    assert ack.payload["reason"] == "operator called, reinstall booked"
    with pytest.raises(TableError, match="already acknowledged"):
        gate.acknowledge(supervisor, "again")
    assert table.journal.verify()[0].ok


# --- the window -----------------------------------------------------------------------------

@pytest.fixture
def station(tmp_path: Path) -> Iterator[Any]:
    st = make_station(tmp_path)
    yield st
    st.close()


def open_window(qtbot: Any, station: Any, report: Any) -> Any:
    from PySide6.QtWidgets import QApplication

    from dealer_station.ui import theme
    from dealer_station.ui.main_window import MainWindow

    app = QApplication.instance()
    assert isinstance(app, QApplication)
    theme.apply(app)
    w = MainWindow(station, integrity=report)
    qtbot.addWidget(w, before_close_func=lambda w: w.shutdown())
    w.resize(*theme.WINDOW_SIZE)
    w.show()
    qtbot.waitExposed(w)
    return w


def sign_in_at(qtbot: Any, w: Any, user: str, pin: str) -> None:
    if w.session.user is not None:
        w.lock()
    if w.current_screen == "tilt":
        click(qtbot, w.tilt_screen.sign_in_button)
    assert w.current_screen == "login"
    w.login.user_edit.clear()
    qtbot.keyClicks(w.login.user_edit, user)
    w.login.pin_edit.clear()
    qtbot.keyClicks(w.login.pin_edit, pin)
    click(qtbot, w.login.sign_in_button)


def test_the_tilt_screen_blocks_the_station_until_acknowledged(qtbot: Any, station: Any,
                                                               bundle: Path) -> None:
    target = bundle / "_internal/config/lapaire.toml"
    target.write_text(target.read_text() + "\n# edited\n")
    w = open_window(qtbot, station, verify_bundle(bundle))
    tilt = w.tilt_screen
    assert w.current_screen == "tilt"
    assert "_internal/config/lapaire.toml" in tilt.detail.text()
    assert "STATION STOPPED" in tilt.findChildren(type(tilt.detail))[0].text()
    w.show_screen("dealer")                                  # F2 and the nav cannot get past it
    assert w.current_screen == "tilt"
    # A dealer signs in: still stopped, and cannot acknowledge.
    sign_in_at(qtbot, w, "dealer", "1111")
    assert w.session.user is not None and w.current_screen == "tilt"
    assert not tilt.ack_button.isVisible() and "only a supervisor" in tilt.message.text()
    assert not any(b.isVisible() for b in w.nav.values())
    # A supervisor: a reason is asked (cancelled: nothing), then the acknowledgement is
    # journaled with it.
    sign_in_at(qtbot, w, "super", "2222")
    assert w.current_screen == "tilt" and tilt.ack_button.isVisible()
    click(qtbot, tilt.ack_button)
    tap_button(qtbot, w, "Cancel")
    assert KIND_ACK not in [r.kind for r in station.journal.records(station.table_id)]
    tilt.acknowledge("  ")
    assert "a reason is required" in tilt.message.text()
    click(qtbot, tilt.ack_button)
    give_reason(qtbot, w, "operator informed")
    qtbot.waitUntil(lambda: w.current_screen == "supervisor", timeout=WAIT_MS)
    records = list(station.journal.records(station.table_id))
    mismatch = [r for r in records if r.kind == KIND_MISMATCH]
    ack = [r for r in records if r.kind == KIND_ACK]
    assert len(mismatch) == 1 and len(ack) == 1
    assert ack[0].actor.startswith("super") and ack[0].payload["reason"] == "operator informed"
    # The supervisor screen shows the hash and who acknowledged.
    sup = w.screens["supervisor"]
    text = sup.software_label.text()
    assert w.integrity.report.overall in text and "Acknowledged by" in text
    w.show_screen("dealer")
    assert w.current_screen == "dealer"


def test_a_verified_start_shows_the_overall_hash_to_the_supervisor(qtbot: Any, station: Any,
                                                                   bundle: Path) -> None:
    report = verify_bundle(bundle)
    w = open_window(qtbot, station, report)
    assert w.tilt_screen is None and w.current_screen == "login"
    assert [r.kind for r in station.journal.records(station.table_id)].count(KIND_OK) == 1
    sign_in_at(qtbot, w, "super", "2222")
    assert w.current_screen == "supervisor"
    text = w.screens["supervisor"].software_label.text()
    assert report.overall in text and "matches its manifest" in text


def test_a_development_window_says_it_is_not_verified(qtbot: Any, station: Any) -> None:
    w = open_window(qtbot, station, None)
    assert w.current_screen == "login"
    assert "no manifest (development build)" in w.screens["supervisor"].software_label.text()
    assert not [r for r in station.journal.records(station.table_id)
                if r.kind.startswith("integrity.")]


def test_fake_bundle_layout_matches_what_the_checks_expect(tmp_path: Path) -> None:
    bundle, manifest = make_bundle(tmp_path)
    assert (bundle / "dealer-station").stat().st_mode & 0o111
    assert os.path.islink(bundle / "_internal/libstation.so.1")
    shutil.rmtree(bundle / "_internal/lib")                   # the link dangles now
    report = verify_bundle(bundle)
    assert report.missing == ("_internal/lib/libstation.so.1", "_internal/libstation.so.1")
    assert manifest.overall == report.expected


def test_linked_folders_are_listed_as_find_lists_them(bundle: Path) -> None:
    """A link to a folder lists its files under both names; a link back to an ancestor is a
    loop and not entered. install.sh lists a bundle with `find -L`: both must agree."""
    os.symlink("lib", bundle / "_internal/lib-alias")
    os.symlink("..", bundle / "_internal/lib/up")              # a loop
    write_manifest(bundle)
    files = set(load_manifest(bundle).files)
    assert {"_internal/lib/libstation.so.1", "_internal/lib-alias/libstation.so.1"} <= files
    assert not any("/up/" in f for f in files)
    found = subprocess.run(["find", "-L", ".", "-type", "f"], cwd=bundle, capture_output=True,
                           text=True, check=False).stdout.split()
    listed = {f.removeprefix("./") for f in found} - {MANIFEST_NAME, SUMS_NAME}
    assert listed == files
    assert verify_bundle(bundle).ok
