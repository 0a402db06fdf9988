"""The journal key: a secret kept outside the database.

Every journal record's hash is an HMAC under this key, so someone who can edit the database but
cannot read this file cannot rebuild the chain after changing a record. The file holds 32 random
bytes as 64 hexadecimal digits and must be readable by the station's user only (mode 0600).

Beside the key lives the checkpoint anchor file (``<key stem>.anchors``): checkpoints written
there are outside the database, so truncating the database after a checkpoint is detected.

And the station's **signing key** (``<key stem>.ed25519``, mode 0600): an Ed25519 key, made with
the journal key, that signs each chain's checkpoints (``audit/notes.py``). Its public half is
what a regulator verifies with, without the journal key (``dealer-station audit public-key``).
Its name, ``<casino>/<station>``, names the logs it signs: ``<casino>/<table>`` for a table's
chain (``journal_origins``). The signed checkpoints are also kept beside the key
(``<key stem>.checkpoints``).
"""

from __future__ import annotations

import os
import re
import secrets
import socket
import stat
from dataclasses import dataclass, field
from pathlib import Path

import platformdirs

from dealer_station.audit.hashing import KEY_BYTES
from dealer_station.audit.notes import NOTE_KEY, NoteError, Signer
from dealer_station.errors import StationError

KEY_ENV = "DEALER_STATION_KEY"
KEY_FILE_NAME = "journal.key"


class KeyFileError(StationError):
    """The journal key file is missing, unsafe or malformed."""


@dataclass(frozen=True)
class JournalKey:
    """The secret and where it came from (the anchor file lives beside it)."""

    path: Path
    secret: bytes = field(repr=False)

    @property
    def anchor_path(self) -> Path:
        return anchor_path_for(self.path)

    @property
    def signing_path(self) -> Path:
        return signing_path_for(self.path)

    @property
    def checkpoints_path(self) -> Path:
        return self.path.with_suffix(".checkpoints")


def signing_path_for(key_path: Path) -> Path:
    """The station's signing key that belongs to a journal key file."""
    return key_path.with_suffix(".ed25519")


NAME_ENV = "DEALER_STATION_NAME"


def default_signer_name() -> str:
    """``$DEALER_STATION_NAME`` (``CASINO/STATION``, set in the installed station.env), else
    ``casino.local/<host name>``; ``audit new-key --name`` names it explicitly."""
    named = os.environ.get(NAME_ENV, "").strip()
    if named:
        return named
    host = re.sub(r"[^A-Za-z0-9._-]", "-", socket.gethostname()) or "station"
    return f"casino.local/{host}"


def _private_file(path: Path, what: str) -> bytes:
    """Read a private file, refusing one that group or others could read or write."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        raise KeyFileError(f"{what} {path} does not exist") from None
    except OSError as exc:
        raise KeyFileError(f"cannot read {what} {path}: {exc.strerror}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise KeyFileError(f"{what} {path} is not a regular file")
        if info.st_mode & 0o077:
            raise KeyFileError(
                f"{what} {path} is readable or writable by group or others (mode "
                f"{stat.S_IMODE(info.st_mode):04o}). Run: chmod 600 {path}")
        return os.read(fd, 4096)
    finally:
        os.close(fd)


def _write_private(path: Path, text: str, what: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise KeyFileError(f"{what} {path} already exists; refusing to replace it") from None
    except OSError as exc:
        raise KeyFileError(f"cannot create {what} {path}: {exc.strerror}") from None
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, (text + "\n").encode("ascii"))
        os.fsync(fd)
    finally:
        os.close(fd)


def create_signing_key(key_path: Path | str, name: str | None = None) -> Signer:
    """Make the station's Ed25519 signing key beside the journal key (never replaces one)."""
    path = signing_path_for(Path(key_path))
    try:
        signer = Signer.generate(name or default_signer_name(), NOTE_KEY)
    except NoteError as e:
        raise KeyFileError(f"bad signing key name {name!r}: {e}") from None
    _write_private(path, signer.text(), "signing key file")
    return signer


def load_signing_key(key_path: Path | str) -> Signer | None:
    """The station's signing key beside ``key_path`` (None: there is none yet)."""
    path = signing_path_for(Path(key_path))
    if not path.exists():
        return None
    data = _private_file(path, "signing key file")
    try:
        signer = Signer.parse(data.decode("ascii", errors="replace"))
    except NoteError as e:
        raise KeyFileError(f"signing key file {path} is malformed: {e}") from None
    if signer.kind != NOTE_KEY:
        raise KeyFileError(f"signing key file {path} holds a cosigner's key, not a station's")
    return signer


def load_or_create_signing_key(key_path: Path | str) -> Signer:
    """The signing key beside ``key_path``, made now if the journal key has none yet (a
    journal key made before stations signed their checkpoints)."""
    found = load_signing_key(key_path)
    if found is not None:
        return found
    try:
        return create_signing_key(key_path)
    except KeyFileError:
        again = load_signing_key(key_path)      # another process made it meanwhile
        if again is None:
            raise
        return again


def anchor_path_for(key_path: Path) -> Path:
    """The checkpoint anchor file that belongs to a key file: same folder and stem."""
    return key_path.with_suffix(".anchors")


def default_key_path() -> Path:
    """``$DEALER_STATION_KEY``, else ``journal.key`` in the platform's per-user config folder."""
    env = os.environ.get(KEY_ENV)
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_config_dir("dealer-station")) / KEY_FILE_NAME


def load_key(path: Path | str) -> JournalKey:
    """Read a key file, refusing one that group or others could read or write."""
    path = Path(path)
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        raise KeyFileError(
            f"journal key file {path} does not exist; the station creates it on first start "
            f"(or pass --key with the key file this journal was written with)") from None
    except OSError as exc:
        raise KeyFileError(f"cannot read journal key file {path}: {exc.strerror}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise KeyFileError(f"journal key file {path} is not a regular file")
        if info.st_mode & 0o077:
            raise KeyFileError(
                f"journal key file {path} is readable or writable by group or others "
                f"(mode {stat.S_IMODE(info.st_mode):04o}); anyone who can read it can forge the "
                f"journal. Run: chmod 600 {path}")
        data = os.read(fd, 4096)
    finally:
        os.close(fd)
    text = data.decode("ascii", errors="replace").strip()
    try:
        secret = bytes.fromhex(text)
    except ValueError:
        secret = b""
    if len(secret) != KEY_BYTES:
        raise KeyFileError(
            f"journal key file {path} is malformed: expected {KEY_BYTES * 2} hexadecimal digits")
    return JournalKey(path=path, secret=secret)


def create_key(path: Path | str, name: str | None = None) -> JournalKey:
    """Create a new random key file with mode 0600, and the station's signing key beside it
    (named ``name``). Never overwrites an existing file."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as exc:
        raise KeyFileError(f"cannot create the folder for journal key file {path}: "
                           f"{exc.strerror}") from None
    secret = secrets.token_bytes(KEY_BYTES)
    try:
        # O_EXCL: two processes creating at once cannot both win, and an existing key (which
        # every record so far depends on) is never replaced.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise KeyFileError(f"journal key file {path} already exists; refusing to replace it "
                           f"(the journal's records depend on it)") from None
    except OSError as exc:
        raise KeyFileError(f"cannot create journal key file {path}: {exc.strerror}") from None
    try:
        os.fchmod(fd, 0o600)  # in case the umask was stricter than needed or odd
        os.write(fd, (secret.hex() + "\n").encode("ascii"))
        os.fsync(fd)
    finally:
        os.close(fd)
    if not signing_path_for(path).exists():
        create_signing_key(path, name)
    return JournalKey(path=path, secret=secret)


def load_or_create_key(path: Path | str | None = None) -> JournalKey:
    """The embedded default: use the key file if present, otherwise create it."""
    path = Path(path) if path is not None else default_key_path()
    if not path.exists():
        try:
            return create_key(path)
        except KeyFileError:
            if not path.exists():
                raise
            # Another process created it between our check and our create: use theirs.
    key = load_key(path)
    load_or_create_signing_key(path)     # a key made before stations signed checkpoints
    return key
