"""Canonical encoding and keyed hashing of journal records.

Pure: stdlib only (the import-linter contract keeps it so), because regulators' tools and the
verifier must be able to recompute a chain without the station's database layer.

Each record's hash is HMAC-SHA-256 under the station's journal key over a domain-separated,
length-prefixed encoding of its fields and the previous record's hash. Length prefixes make the
encoding unambiguous (no field can bleed into the next); the domain prefixes keep a record hash
from ever equalling a genesis or checkpoint hash computed over the same bytes.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import struct
from collections.abc import Callable
from typing import Any

from dealer_station.errors import StationError

RECORD_DOMAIN = b"dealer-station/journal-record/v1\x00"
GENESIS_DOMAIN = b"dealer-station/journal-genesis/v1\x00"
KEY_BYTES = 32


class CanonicalJsonError(StationError, ValueError):
    """A payload that has no single canonical form (floats, non-text keys, NaN)."""


def _plain_json(value: Any) -> bool:
    """Whether ``value`` holds only text-keyed objects, lists and non-float scalars: the
    quick check every record takes; :func:`_reject_floats` then says where it does not."""
    kind = type(value)
    if kind is dict:
        return all(type(k) is str and _plain_json(v) for k, v in value.items())
    if kind is list or kind is tuple:
        return all(_plain_json(v) for v in value)
    return kind is int or kind is str or kind is bool or value is None


def _reject_floats(value: Any, path: str = "$") -> None:
    if isinstance(value, float):
        raise CanonicalJsonError(f"{path}: floats are not allowed in the journal (money is "
                                 f"integer minor units), got {value!r}")
    if isinstance(value, dict):
        for k, v in value.items():
            if not isinstance(k, str):
                raise CanonicalJsonError(f"{path}: keys must be text, got {k!r}")
            _reject_floats(v, f"{path}.{k}")
    elif isinstance(value, list | tuple):
        for i, v in enumerate(value):
            _reject_floats(v, f"{path}[{i}]")


def canonical_json(value: Any) -> str:
    """The one text form of a payload: sorted keys, no spaces, UTF-8, no floats."""
    if not _plain_json(value):
        _reject_floats(value)
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)


def _field(data: bytes) -> bytes:
    return len(data).to_bytes(8, "big") + data


def genesis_hash(key: bytes, table_id: str) -> str:
    """The 'previous hash' of a table's first record: binds the chain to its table and key."""
    return hmac.new(key, GENESIS_DOMAIN + _field(table_id.encode()), hashlib.sha256).hexdigest()


def record_hash(key: bytes, *, table_id: str, seq: int, ts: str, actor: str, kind: str,
                payload: str, prev_hash: str) -> str:
    """HMAC-SHA-256 of one record. ``payload`` is the canonical JSON text as stored."""
    message = b"".join((
        RECORD_DOMAIN,
        _field(table_id.encode()),
        _field(str(seq).encode()),
        _field(ts.encode()),
        _field(actor.encode()),
        _field(kind.encode()),
        _field(payload.encode()),
        _field(prev_hash.encode()),
    ))
    return hmac.new(key, message, hashlib.sha256).hexdigest()


LEAF_DOMAIN = b"dealer-station/journal-leaf/v1\x00"


def record_leaf(*, table_id: str, seq: int, ts: str, actor: str, kind: str, payload: str,
                prev_hash: str, hash_: str) -> bytes:
    """A record as a leaf of its chain's Merkle tree (``audit/merkle.py``): every field as
    stored, its keyed hash included, length-prefixed after a domain of its own. The leaf is
    the record's content, not only its keyed hash, so that a record can be checked against
    a signed root by anyone, without the key; ``kind`` is the hashed kind (``kind#round``)."""
    return b"".join((
        LEAF_DOMAIN,
        _field(table_id.encode()),
        _field(str(seq).encode()),
        _field(ts.encode()),
        _field(actor.encode()),
        _field(kind.encode()),
        _field(payload.encode()),
        _field(prev_hash.encode()),
        _field(hash_.encode()),
    ))


def config_version(config_text: str) -> str:
    """The version id of a configuration: SHA-256 of its canonical JSON form."""
    return hashlib.sha256(config_text.encode()).hexdigest()


MAC_DOMAIN_PREFIX = "dealer-station/"


def keyed_mac(key: bytes, domain: str, *fields: str) -> str:
    """HMAC-SHA-256 under the journal key of length-prefixed ``fields``, domain-separated.

    Binds values kept beside the chain (a PIN hash, a projection row) to the journal key, so
    that someone who can edit the database but not read the key cannot forge or move them.
    ``domain`` names the use, e.g. ``"pin/v1"``; it never equals a record or genesis domain.
    """
    if not domain or "\x00" in domain:
        raise ValueError(f"bad MAC domain {domain!r}")
    message = (MAC_DOMAIN_PREFIX + "mac/" + domain).encode() + b"\x00" + b"".join(
        _field(f.encode()) for f in fields)
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def derived_secret(key: bytes, purpose: str) -> bytes:
    """A secret for one purpose derived from the journal key (e.g. the PIN pepper)."""
    return hmac.new(key, (MAC_DOMAIN_PREFIX + "derive/" + purpose).encode(),
                    hashlib.sha256).digest()


def _hmac_pads(key: bytes) -> tuple[hashlib._Hash, hashlib._Hash]:
    """SHA-256 states after HMAC's inner and outer key pads (RFC 2104): copying a state is
    one C call, where ``hmac.HMAC.copy`` is several Python ones, so a walk of millions of
    records spends its time hashing, not copying."""
    block = 64  # SHA-256's block size
    k = hashlib.sha256(key).digest() if len(key) > block else key
    k = k.ljust(block, b"\0")
    inner = hashlib.sha256(bytes(b ^ 0x36 for b in k))
    outer = hashlib.sha256(bytes(b ^ 0x5C for b in k))
    return inner, outer


def table_record_hasher(key: bytes, table_id: str) -> Callable[..., str]:
    """:func:`record_hash` for one table, as ``hasher(seq, ts, actor, kind, round_no, payload,
    prev_hash)`` (``kind`` and ``round_no`` as stored: the round joins the kind as
    ``kind#round_no``), with the HMAC state after the fixed prefix (domain and table) computed
    once: checking a whole chain is then a few microseconds a record. It is checked against
    :func:`record_hash` before use; if they ever differ, :func:`record_hash` itself is used."""
    size = struct.Struct(">Q").pack
    # Length prefixes of the short fields, looked up rather than packed for every record.
    sizes = [size(n) for n in range(256)]
    table = table_id.encode()
    inner, outer = _hmac_pads(key)
    inner.update(RECORD_DOMAIN + size(len(table)) + table)
    inner_copy, outer_copy, join = inner.copy, outer.copy, b"".join

    def fast(seq: int, ts: str, actor: str, kind: str, round_no: int | None, payload: str,
             prev_hash: str) -> str:
        s = str(seq).encode()
        t = ts.encode()
        a = actor.encode()
        k = (kind if round_no is None else f"{kind}#{round_no}").encode()
        p = payload.encode()
        h = prev_hash.encode()
        m = inner_copy()
        m.update(join((sizes[len(s)] if len(s) < 256 else size(len(s)), s,
                       sizes[len(t)] if len(t) < 256 else size(len(t)), t,
                       sizes[len(a)] if len(a) < 256 else size(len(a)), a,
                       sizes[len(k)] if len(k) < 256 else size(len(k)), k,
                       sizes[len(p)] if len(p) < 256 else size(len(p)), p,
                       sizes[len(h)] if len(h) < 256 else size(len(h)), h)))
        o = outer_copy()
        o.update(m.digest())
        digest: str = o.hexdigest()
        return digest

    def slow(seq: int, ts: str, actor: str, kind: str, round_no: int | None, payload: str,
             prev_hash: str) -> str:
        return record_hash(key, table_id=table_id, seq=seq, ts=ts, actor=actor,
                           kind=kind if round_no is None else f"{kind}#{round_no}",
                           payload=payload, prev_hash=prev_hash)

    samples = [(12, "2026-01-31T20:15:00.000001+00:00", "ann/dealer", "wager.place", 3,
                '{"a":"\u00e9"}', "0" * 64),
               (7, "t" * 300, "a" * 300, "k" * 300, None, "p" * 70_000, "h" * 300)]
    return fast if all(fast(*x) == slow(*x) for x in samples) else slow
