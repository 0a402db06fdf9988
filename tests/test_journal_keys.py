"""The journal key file: created safely, never replaced, refused when others can read it."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from dealer_station.audit.keys import (
    KeyFileError,
    create_key,
    default_key_path,
    load_key,
    load_or_create_key,
)
from dealer_station.cli.main import main


def test_created_key_is_private_random_and_loads_back(tmp_path: Path) -> None:
    key = create_key(tmp_path / "conf" / "journal.key")
    assert stat.S_IMODE(os.stat(key.path).st_mode) == 0o600
    assert len(key.secret) == 32
    assert load_key(key.path).secret == key.secret
    assert create_key(tmp_path / "other.key").secret != key.secret
    assert key.anchor_path == tmp_path / "conf" / "journal.anchors"
    assert key.secret.hex() not in repr(key) and repr(key.secret) not in repr(key)


def test_create_never_overwrites(tmp_path: Path) -> None:
    key = create_key(tmp_path / "journal.key")
    with pytest.raises(KeyFileError, match="already exists"):
        create_key(tmp_path / "journal.key")
    assert load_key(tmp_path / "journal.key").secret == key.secret


def test_load_or_create_creates_once(tmp_path: Path) -> None:
    first = load_or_create_key(tmp_path / "k" / "journal.key")
    again = load_or_create_key(tmp_path / "k" / "journal.key")
    assert first.secret == again.secret


@pytest.mark.parametrize("mode", [0o640, 0o604, 0o644, 0o660, 0o602])
def test_key_readable_or_writable_by_others_is_refused(tmp_path: Path, mode: int) -> None:
    key = create_key(tmp_path / "journal.key")
    os.chmod(key.path, mode)
    with pytest.raises(KeyFileError) as err:
        load_key(key.path)
    assert f"mode {mode:04o}" in str(err.value)
    assert f"chmod 600 {key.path}" in str(err.value)


def test_missing_and_malformed_keys(tmp_path: Path) -> None:
    with pytest.raises(KeyFileError, match="does not exist"):
        load_key(tmp_path / "none.key")
    bad = tmp_path / "bad.key"
    bad.write_text("not hex at all\n")
    bad.chmod(0o600)
    with pytest.raises(KeyFileError, match="malformed"):
        load_key(bad)
    bad.write_text("ab" * 16 + "\n")  # 16 bytes: too short
    with pytest.raises(KeyFileError, match="64 hexadecimal digits"):
        load_key(bad)


def test_default_key_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DEALER_STATION_KEY", str(tmp_path / "x.key"))
    assert default_key_path() == tmp_path / "x.key"
    monkeypatch.delenv("DEALER_STATION_KEY")
    assert default_key_path().name == "journal.key"
    assert "dealer-station" in str(default_key_path())


def test_verify_refuses_an_exposed_key_without_a_traceback(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    key = create_key(tmp_path / "journal.key")
    os.chmod(key.path, 0o644)
    status = main(["audit", "verify", "--db", f"sqlite:///{tmp_path / 'j.db'}",
                   "--key", str(key.path)])
    err = capsys.readouterr().err
    assert status == 2
    assert err.startswith("dealer-station audit: error: journal key file")
    assert "Traceback" not in err
