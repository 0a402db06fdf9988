"""Signed notes, checkpoints and cosignatures in the C2SP formats."""

from __future__ import annotations

import base64
import hashlib
import struct

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from dealer_station.audit import notes as n

CP = n.Checkpoint("casino.example/T1", 1207, hashlib.sha256(b"root").digest())


def test_a_signed_checkpoint_reads_back_and_any_change_fails() -> None:
    station = n.Signer.generate("casino.example/pc7")
    vkey = station.verifier.vkey()
    assert vkey.startswith("casino.example/pc7+") and n.Verifier.parse(vkey) == station.verifier
    assert n.Signer.parse(station.text()) == station
    text = n.sign_checkpoint(station, CP).render()
    body, sig = text.split("\n\n")
    assert body == "casino.example/T1\n1207\n" + base64.b64encode(CP.root).decode()
    assert sig.startswith("\u2014 casino.example/pc7 ")
    # The signature is Ed25519 over the checkpoint's text, after the 4-byte key id.
    raw = base64.b64decode(sig.split()[2])
    assert raw[:4] == hashlib.sha256(b"casino.example/pc7\n\x01"
                                     + station.verifier.public).digest()[:4]
    Ed25519PublicKey.from_public_bytes(station.verifier.public).verify(raw[4:],
                                                                       CP.text().encode())
    cp, _note, by = n.open_checkpoint(text, [station.verifier])
    assert cp == CP and by == station.verifier
    for forged in (text.replace("1207", "1208"), text.replace("T1", "T2")):
        with pytest.raises(n.NoteError, match="no valid signature"):
            n.open_checkpoint(forged, [station.verifier])
    other = n.Signer.generate("casino.example/pc7")      # same name, another key
    with pytest.raises(n.NoteError, match="no valid signature"):
        n.open_checkpoint(text, [other.verifier])


def test_a_cosignature_is_timestamped_and_bound_to_the_checkpoint() -> None:
    witness = n.Signer.generate("regulator.example/w1", n.COSIGNATURE_KEY)
    v = n.Verifier.parse(witness.verifier.vkey())
    assert v.kind == n.COSIGNATURE_KEY
    station = n.Signer.generate("casino.example/pc7")
    note = n.sign_checkpoint(station, CP)
    cosig = n.cosign(witness, note.text, 1_795_000_000)
    assert struct.unpack(">Q", cosig.data[:8]) == (1_795_000_000,)
    Ed25519PublicKey.from_public_bytes(v.public).verify(
        cosig.data[8:], b"cosignature/v1\ntime 1795000000\n" + CP.text().encode())
    both = n.Note.parse(n.Note(note.text, (*note.signatures, cosig)).render())
    assert n.cosigned_at(both, v) == 1_795_000_000
    assert both.signed_by(station.verifier) is not None
    moved = n.Note(n.Checkpoint(CP.origin, CP.size + 1, CP.root).text(), both.signatures)
    assert n.cosigned_at(moved, v) is None


@pytest.mark.parametrize("bad", [
    "", "x", "name+1234+AAAA", "na me+00000000+" + base64.b64encode(b"\x01" + b"k" * 32).decode(),
    "name+00000000+" + base64.b64encode(b"\x01" + b"k" * 32).decode(),   # wrong key id
])
def test_bad_keys_are_refused_in_words(bad: str) -> None:
    with pytest.raises(n.NoteError):
        n.Verifier.parse(bad)


@pytest.mark.parametrize("bad", [
    "casino\n12\nroot\n\n\u2014 x AAAA\n", "casino\n12\n",
    "casino\n-1\nAA==\n\n\u2014 x AAAAAAA=\n",
    "casino.example/T1\n01\n" + base64.b64encode(b"r" * 32).decode() + "\n\n\u2014 x AAAAAAA=\n",
])
def test_bad_checkpoints_are_refused_in_words(bad: str) -> None:
    with pytest.raises(n.NoteError):
        n.open_checkpoint(bad, [])
