"""What a report's verification remembers of the records it has checked, so that the next
report need not hash them again.

Walking a whole chain costs a keyed hash per record, and a table's chain only grows: a shift
report at the end of a season would spend most of its time re-hashing records the report of the
night before had already checked. So when a report's verification finds the chain intact, it
keeps, per run of :data:`CHUNK` records, a SHA-256 digest of the records exactly as the
database gave them (every stored field, the keyed hash included), in a file beside the journal
key's checkpoint anchor, sealed with an HMAC under the journal key.

The next verification reads every record again. A run whose digest equals the remembered one
holds byte for byte the records whose keyed hashes and links were checked, so checking them
again would prove nothing new; any other run (a record changed, added, deleted or moved) is
checked record by record, as before. The memo only saves work: a memo that is missing, sealed
under another key or changed is ignored, and someone with the database but not the key can
neither make one nor make a changed record match one. ``dealer-station audit verify`` never uses
it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import marshal
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from dealer_station.audit.hashing import canonical_json, keyed_mac

#: Records per remembered run (about 30 MB of records read at once).
CHUNK = 65_536
MAC_DOMAIN = "verified-memo/v1"


def chunk_digest(rows: Sequence[tuple[Any, ...]]) -> str:
    """The digest of a run of records as the database driver returned them, written out by
    marshal: text, numbers and None exactly, so equal digests are equal records. Version 4
    (twice as quick as 2) marks an object held by more than one name: every record is, here
    (the run's list and this copy of it), and a field only when the interpreter shares it
    (small numbers, one-letter text), the same each time. Should that ever differ, a digest
    differs, and the run is only checked record by record again."""
    return hashlib.sha256(marshal.dumps(list(rows), 4)).hexdigest()


def memo_path(anchor: Path, table_id: str) -> Path:
    """Where a table's memo is kept: beside the checkpoint anchor, one file per table."""
    tag = hashlib.sha256(table_id.encode()).hexdigest()[:16]
    return anchor.with_name(f"{anchor.name}.verified-{tag}.json")


def _mac(key: bytes, table_id: str, chunk: int, digests: Mapping[int, str]) -> str:
    body = canonical_json({str(k): v for k, v in sorted(digests.items())})
    return keyed_mac(key, MAC_DOMAIN, table_id, str(chunk), body)


def load_memo(path: Path | None, key: bytes, table_id: str, chunk: int = CHUNK
              ) -> dict[int, str]:
    """The remembered digests by run (run ``i`` holds records ``i*chunk+1`` to
    ``(i+1)*chunk``); empty where there is no memo, or it is not this table's, under this
    key, unchanged."""
    if path is None:
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        digests = {int(k): str(v) for k, v in data["digests"].items()}
        if (data.get("table") != table_id or data.get("chunk") != chunk
                or data.get("mac") != _mac(key, table_id, chunk, digests)):
            return {}
        return digests
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def save_memo(path: Path | None, key: bytes, table_id: str, digests: Mapping[int, str],
              chunk: int = CHUNK) -> None:
    """Keep the digests of a chain found intact (written whole, then moved into place; a
    memo that cannot be written is no memo)."""
    if path is None or not digests:
        return
    data = {"table": table_id, "chunk": chunk,
            "digests": {str(k): v for k, v in sorted(digests.items())},
            "mac": _mac(key, table_id, chunk, digests)}
    tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
    try:
        tmp.write_text(json.dumps(data), encoding="utf-8")
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()
