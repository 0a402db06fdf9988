"""What the :class:`~dealer_station.audit.journal.Journal`'s method groups (``journal_reads``,
``journal_projection_proof``, ``journal_checkpoints``, ``journal_verify``) use of its state and
of one another: declared here for the type checker, defined in ``journal.py`` and those modules.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection

from dealer_station.audit.anchors import AnchorProblem
from dealer_station.audit.checkpoint_signing import CheckpointSigning
from dealer_station.audit.db import Database
from dealer_station.audit.journal_common import Checkpoint, ProvenState
from dealer_station.audit.keys import JournalKey
from dealer_station.audit.records import ConfigVersion, Fact, Meter, Record, RoundInfo


class JournalBase:
    """The base of the journal's method groups. Not a dataclass and no fields: ``Journal`` (a
    dataclass) declares and sets every attribute; this only names their types."""

    # The Journal's fields and what its __post_init__ sets.
    db: Database
    key: JournalKey | bytes
    anchor_path: Path | None
    location: str
    signing: CheckpointSigning
    anchor_problems: list[AnchorProblem]
    _secret: bytes
    _written: dict[str, Record]
    _anchored: dict[str, int]
    _firsts: dict[str, str]
    _anchor_lock: threading.Lock

    if TYPE_CHECKING:
        # journal.py
        def genesis(self, table_id: str) -> str: ...

        def mac(self, domain: str, *fields: str) -> str: ...

        def append(self, table_id: str, kind: str, payload: Mapping[str, Any], actor: str, *,
                   round_no: int | None = None,
                   also: Callable[[Connection], None] | None = None) -> Record: ...

        def _append(self, table_id: str, facts: Sequence[Fact],
                    after: Callable[[Connection, list[Record]], None] | None, *,
                    sign: bool = False) -> list[Record]: ...

        # journal_reads.py
        def last(self, table_id: str) -> Record | None: ...

        def tables(self) -> list[str]: ...

        def authentic(self, rows: Iterable[Sequence[Any]]) -> Iterator[Record]: ...

        def _select(self, stmt: Any) -> list[Record]: ...

        def recent_rounds(self, table_id: str, last: int = 10) -> list[RoundInfo]: ...

        def meters(self, table_id: str) -> dict[str, Meter]: ...

        def meters_from_chain(self, table_id: str) -> dict[str, Meter]: ...

        def _config_rows(self, table_id: str) -> dict[str, Any]: ...

        def config_versions(self, table_id: str) -> list[ConfigVersion]: ...

        # journal_projection_proof.py
        def proven_state(self, table_id: str, *,
                         since_checkpoint: bool = True) -> ProvenState: ...

        # journal_checkpoints.py
        def anchored_checkpoints(self) -> list[Checkpoint]: ...

        def db_checkpoints(self, table_id: str | None = None) -> list[Checkpoint]: ...
