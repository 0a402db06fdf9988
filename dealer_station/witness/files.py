"""The witness's folder (``--state WDIR``) and the key files it reads.

- ``WDIR/witness.key``: the private cosigner key (``PRIVATE+KEY+...``, mode 0600), made once
  and never replaced;
- ``WDIR/witness.pub``: its public key (a vkey, one line) for verifiers;
- ``WDIR/witness.db``: the state (``state.py``).

A station's public key (``--trust FILE``) is a vkey line of a note signing key.
"""

from __future__ import annotations

import os
import socket
import stat
from collections.abc import Sequence
from pathlib import Path

from dealer_station.audit.notes import COSIGNATURE_KEY, NOTE_KEY, NoteError, Signer, Verifier
from dealer_station.witness.errors import WitnessError
from dealer_station.witness.state import WitnessState

KEY_FILE = "witness.key"
PUB_FILE = "witness.pub"
STATE_FILE = "witness.db"


def default_name() -> str:
    """``witness.<host name>``, fit for a key name (no spaces, no '+')."""
    host = "".join(c for c in socket.gethostname() if c.isalnum() or c in ".-_") or "local"
    return f"witness.{host}"


def init_state(wdir: Path, name: str) -> Signer:
    """Make the witness's folder (0700), key (0600), public key and state. Refuses a folder
    that already holds any of them."""
    for file in (KEY_FILE, PUB_FILE, STATE_FILE):
        if (wdir / file).exists():
            raise WitnessError(f"{wdir / file} already exists: a witness's key and state are "
                               f"never replaced (verifiers trust its public key, and the state "
                               f"holds what it cosigned)")
    try:
        signer = Signer.generate(name, COSIGNATURE_KEY)
    except NoteError as exc:
        raise WitnessError(f"--name: {exc}") from None
    try:
        made = not wdir.exists()
        wdir.mkdir(parents=True, exist_ok=True, mode=0o700)
        if made:
            os.chmod(wdir, 0o700)
    except OSError as exc:
        raise WitnessError(f"cannot make the witness folder {wdir}: "
                           f"{exc.strerror or exc}") from None
    if not wdir.is_dir():
        raise WitnessError(f"{wdir} is not a folder")
    key_path = wdir / KEY_FILE
    try:
        # O_EXCL: a key is never replaced, even by two inits at once.
        fd = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise WitnessError(f"{key_path} already exists; refusing to replace it") from None
    except OSError as exc:
        raise WitnessError(f"cannot create {key_path}: {exc.strerror or exc}") from None
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, (signer.text() + "\n").encode("ascii"))
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        (wdir / PUB_FILE).write_text(signer.verifier.vkey() + "\n", encoding="ascii")
    except OSError as exc:
        raise WitnessError(f"cannot write {wdir / PUB_FILE}: {exc.strerror or exc}") from None
    WitnessState.create(wdir / STATE_FILE, signer.verifier.vkey()).close()
    return signer


def load_signer(path: Path) -> Signer:
    """The witness's private key, refused if others could read it."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        raise WitnessError(f"no witness key at {path} (make one with "
                           f"`dealer-station witness init --state {path.parent}`)") from None
    except OSError as exc:
        raise WitnessError(f"cannot read the witness key {path}: {exc.strerror}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise WitnessError(f"the witness key {path} is not a regular file")
        if info.st_mode & 0o077:
            raise WitnessError(f"the witness key {path} is readable or writable by group or "
                               f"others (mode {stat.S_IMODE(info.st_mode):04o}); anyone who can "
                               f"read it can cosign as this witness. Run: chmod 600 {path}")
        data = os.read(fd, 4096)
    finally:
        os.close(fd)
    try:
        signer = Signer.parse(data.decode("ascii"))
    except (UnicodeDecodeError, NoteError) as exc:
        raise WitnessError(f"the witness key {path} is not a private key: {exc}") from None
    if signer.kind != COSIGNATURE_KEY:
        raise WitnessError(f"the key {path} is a note signing key, not a witness's cosigner key")
    return signer


def open_state(wdir: Path) -> tuple[Signer, WitnessState]:
    """The witness's key and its state, checked to belong together."""
    if not wdir.is_dir():
        raise WitnessError(f"no witness folder at {wdir} (make one with "
                           f"`dealer-station witness init --state {wdir}`)")
    signer = load_signer(wdir / KEY_FILE)
    state = WitnessState.open(wdir / STATE_FILE)
    if state.witness_key != signer.verifier.vkey():
        state.close()
        raise WitnessError(f"the key {wdir / KEY_FILE} is not the key the state "
                           f"{wdir / STATE_FILE} was made with ({state.witness_key})")
    return signer, state


def load_trusted(paths: Sequence[Path]) -> list[Verifier]:
    """The station keys the witness trusts: every non-empty line of each file a vkey of a
    note signing key."""
    out: list[Verifier] = []
    for path in paths:
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise WitnessError(f"--trust {path}: no such file") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise WitnessError(f"--trust {path}: cannot read it: "
                               f"{getattr(exc, 'strerror', None) or exc}") from None
        lines = [(n, line.strip()) for n, line in enumerate(text.splitlines(), 1)
                 if line.strip()]
        if not lines:
            raise WitnessError(f"--trust {path}: the file is empty (expected a station's public "
                               f"key, from `dealer-station audit public-key`)")
        for n, line in lines:
            try:
                key = Verifier.parse(line)
            except NoteError as exc:
                raise WitnessError(f"--trust {path} line {n}: {exc}") from None
            if key.kind != NOTE_KEY:
                raise WitnessError(f"--trust {path} line {n}: {key.name} is a witness's "
                                   f"cosigner key, not a station's signing key")
            out.append(key)
    return out
