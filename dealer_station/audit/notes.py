"""Signed notes, checkpoints and cosignatures, in the C2SP formats (signed-note,
tlog-checkpoint, tlog-cosignature), with Ed25519 keys.

A **checkpoint** says that a log (one chain of the journal, named by its *origin*) had ``size``
records whose Merkle tree (``audit/merkle.py``) has root ``root``::

    casino.example/T1
    1207
    <base64 root>

The station signs it as a **note**: the text, a blank line, then one line per signature,
``— <key name> <base64(4-byte key id || signature)>``. A **witness** that has checked it
against the last checkpoint it cosigned for that origin adds a **cosignature**: a note
signature whose bytes are an 8-byte big-endian time and an Ed25519 signature over
``cosignature/v1\\ntime <t>\\n`` followed by the checkpoint's text.

Public keys travel as **vkeys**: ``<name>+<hex key id>+<base64(type || public key)>``, type 0x01
for a note signer (the station), 0x04 for a cosigner (the witness). Private keys are kept as
``PRIVATE+KEY+<name>+<hex key id>+<base64(type || 32-byte seed)>``.

Pure: no database, no clock (times are passed in), no files.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import struct
from dataclasses import dataclass, field
from functools import cached_property

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from dealer_station.errors import StationError

NOTE_KEY = 0x01          # Ed25519 note signature (the log's own)
COSIGNATURE_KEY = 0x04   # Ed25519 cosignature/v1 (a witness's)
DASH = "\u2014"          # the em dash that starts a signature line
MAX_NOTE = 1 << 20


class NoteError(StationError, ValueError):
    """A note, key or checkpoint that is malformed or does not verify; says what and why."""


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _unb64(text: str, what: str) -> bytes:
    try:
        return base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        raise NoteError(f"{what} is not base64: {text[:40]!r}") from None


def _check_name(name: str) -> str:
    if not name or any(c.isspace() or c == "+" for c in name) or not name.isprintable():
        raise NoteError(f"bad key name {name!r}: no spaces and no '+'")
    return name


def key_id(name: str, kind: int, public: bytes) -> bytes:
    """SHA-256(name || "\\n" || type || public key)[:4] (signed-note and tlog-cosignature)."""
    return hashlib.sha256(name.encode() + b"\n" + bytes([kind]) + public).digest()[:4]


def _raw_public(key: Ed25519PublicKey) -> bytes:
    return key.public_bytes(Encoding.Raw, PublicFormat.Raw)


@dataclass(frozen=True)
class Verifier:
    """A public key: who (``name``), what kind of signature (``kind``) and the key."""

    name: str
    kind: int
    public: bytes

    @cached_property
    def key_id(self) -> bytes:
        return key_id(self.name, self.kind, self.public)

    def vkey(self) -> str:
        return f"{self.name}+{self.key_id.hex()}+{_b64(bytes([self.kind]) + self.public)}"

    @classmethod
    def parse(cls, text: str) -> Verifier:
        """A vkey; :class:`NoteError` naming what is wrong."""
        parts = text.strip().split("+", 2)       # base64 may hold '+' too
        if len(parts) != 3:
            raise NoteError(f"not a public key (expected name+keyid+key): {text.strip()[:60]!r}")
        name, kid, blob = parts
        _check_name(name)
        raw = _unb64(blob, "the key")
        if len(raw) != 33 or raw[0] not in (NOTE_KEY, COSIGNATURE_KEY):
            raise NoteError(f"public key {name}: not an Ed25519 note or cosignature key")
        v = cls(name, raw[0], raw[1:])
        if kid.lower() != v.key_id.hex():
            raise NoteError(f"public key {name}: its key id {kid} does not match the key")
        return v

    def verify(self, message: bytes, signature: bytes) -> bool:
        try:
            Ed25519PublicKey.from_public_bytes(self.public).verify(signature, message)
        except (InvalidSignature, ValueError):
            return False
        return True


@dataclass(frozen=True)
class Signer:
    """A private key and its name."""

    name: str
    kind: int
    seed: bytes = field(repr=False)

    @classmethod
    def generate(cls, name: str, kind: int = NOTE_KEY) -> Signer:
        from cryptography.hazmat.primitives.serialization import NoEncryption, PrivateFormat

        key = Ed25519PrivateKey.generate()
        seed = key.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
        return cls(_check_name(name), kind, seed)

    # Made once per signer: a signature is made at every round's close.
    @cached_property
    def _key(self) -> Ed25519PrivateKey:
        return Ed25519PrivateKey.from_private_bytes(self.seed)

    @cached_property
    def verifier(self) -> Verifier:
        return Verifier(self.name, self.kind, _raw_public(self._key.public_key()))

    def sign(self, message: bytes) -> bytes:
        return self._key.sign(message)

    def text(self) -> str:
        """The private key file's one line."""
        return (f"PRIVATE+KEY+{self.name}+{self.verifier.key_id.hex()}+"
                f"{_b64(bytes([self.kind]) + self.seed)}")

    @classmethod
    def parse(cls, text: str) -> Signer:
        parts = text.strip().split("+", 4)
        if len(parts) != 5 or parts[:2] != ["PRIVATE", "KEY"]:
            raise NoteError("not a private signing key (expected PRIVATE+KEY+name+keyid+key)")
        name, kid, blob = parts[2:]
        _check_name(name)
        raw = _unb64(blob, "the private key")
        if len(raw) != 33 or raw[0] not in (NOTE_KEY, COSIGNATURE_KEY):
            raise NoteError(f"private key {name}: not an Ed25519 key")
        s = cls(name, raw[0], raw[1:])
        if kid.lower() != s.verifier.key_id.hex():
            raise NoteError(f"private key {name}: its key id {kid} does not match the key")
        return s


# --- notes -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Signature:
    name: str
    key_id: bytes
    data: bytes

    def line(self) -> str:
        return f"{DASH} {self.name} {_b64(self.key_id + self.data)}\n"


@dataclass(frozen=True)
class Note:
    """A note's text (ending in a newline) and its signature lines."""

    text: str
    signatures: tuple[Signature, ...] = ()

    def render(self) -> str:
        return self.text + "\n" + "".join(s.line() for s in self.signatures)

    @classmethod
    def parse(cls, data: str) -> Note:
        if len(data) > MAX_NOTE:
            raise NoteError("the note is too large")
        if "\r" in data or not data.endswith("\n"):
            raise NoteError("a note's lines end with a newline alone (no carriage return)")
        split = data.rfind("\n\n")
        if split < 0:
            raise NoteError("the note has no blank line before its signatures")
        text, sigs = data[:split + 1], data[split + 2:]
        out = []
        for line in sigs.splitlines():
            if not line.startswith(DASH + " "):
                raise NoteError(f"not a signature line: {line[:60]!r}")
            try:
                name, blob = line[2:].split(" ")
            except ValueError:
                raise NoteError(f"a signature line is '— name signature': {line[:60]!r}") \
                    from None
            raw = _unb64(blob, f"the signature of {name}")
            if len(raw) < 5:
                raise NoteError(f"the signature of {name} is too short")
            out.append(Signature(name, raw[:4], raw[4:]))
        if not out:
            raise NoteError("the note carries no signature")
        return cls(text, tuple(out))

    def signed_by(self, verifier: Verifier) -> Signature | None:
        """The valid signature by ``verifier`` (a note signer), or None."""
        if verifier.kind != NOTE_KEY:
            raise NoteError(f"{verifier.name} is a cosignature key, not a note key")
        for s in self.signatures:
            if (s.name == verifier.name and s.key_id == verifier.key_id
                    and verifier.verify(self.text.encode(), s.data)):
                return s
        return None


def sign_note(signer: Signer, text: str) -> Note:
    if not text.endswith("\n"):
        raise NoteError("a note's text ends with a newline")
    sig = Signature(signer.name, signer.verifier.key_id, signer.sign(text.encode()))
    return Note(text, (sig,))


# --- checkpoints -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Checkpoint:
    origin: str
    size: int
    root: bytes

    def text(self) -> str:
        return f"{self.origin}\n{self.size}\n{_b64(self.root)}\n"

    @classmethod
    def parse(cls, text: str) -> Checkpoint:
        lines = text.split("\n")
        if len(lines) < 4 or lines[-1] != "":
            raise NoteError("a checkpoint is origin, size and root hash, a line each")
        origin, size_text, root_text = lines[:3]
        if not origin or not origin.isprintable():
            raise NoteError(f"bad checkpoint origin {origin!r}")
        if not size_text.isdigit() or (size_text.startswith("0") and size_text != "0"):
            raise NoteError(f"bad checkpoint size {size_text!r}")
        root = _unb64(root_text, "the checkpoint's root hash")
        if len(root) != 32:
            raise NoteError("the checkpoint's root hash is not 32 bytes")
        return cls(origin, int(size_text), root)


def sign_checkpoint(signer: Signer, cp: Checkpoint) -> Note:
    return sign_note(signer, cp.text())


def open_checkpoint(data: str, verifiers: list[Verifier]) -> tuple[Checkpoint, Note, Verifier]:
    """Parse a signed checkpoint and check it carries a valid signature by one of
    ``verifiers``; returns the checkpoint, the note and the key that signed it."""
    note = Note.parse(data)
    cp = Checkpoint.parse(note.text)
    for v in verifiers:
        if note.signed_by(v) is not None:
            return cp, note, v
    names = ", ".join(v.name for v in verifiers) or "none"
    raise NoteError(f"checkpoint {cp.origin} at size {cp.size} carries no valid signature "
                    f"by a trusted key (trusted: {names})")


def cosignature_message(cp_text: str, timestamp: int) -> bytes:
    return f"cosignature/v1\ntime {timestamp}\n".encode() + cp_text.encode()


def cosign(witness: Signer, cp_text: str, timestamp: int) -> Signature:
    if witness.kind != COSIGNATURE_KEY:
        raise NoteError(f"{witness.name} is not a cosignature key")
    if not 0 <= timestamp < 1 << 63:
        raise NoteError("a cosignature's time is a POSIX time")
    sig = witness.sign(cosignature_message(cp_text, timestamp))
    return Signature(witness.name, witness.verifier.key_id, struct.pack(">Q", timestamp) + sig)


def cosigned_at(note: Note, witness: Verifier) -> int | None:
    """The time of ``witness``'s valid cosignature on the note's checkpoint, or None."""
    if witness.kind != COSIGNATURE_KEY:
        raise NoteError(f"{witness.name} is not a cosignature key")
    for s in note.signatures:
        if s.name != witness.name or s.key_id != witness.key_id or len(s.data) != 72:
            continue
        (when,) = struct.unpack(">Q", s.data[:8])
        if witness.verify(cosignature_message(note.text, when), s.data[8:]):
            return int(when)
    return None
