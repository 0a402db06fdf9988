"""A tournament kept in its own chain of the journal: the stream ``tournament-<name>``.

The journal is passed in (anything with ``append_many`` and ``records``, as
``audit.journal.Journal`` has), so this package imports no database library. Each action's
events are appended in one transaction, with who did it as the records' actor, before they
are applied; loading reads the stream back through the typed events and applies them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from dealer_station.audit.records import Entry, Record
from dealer_station.events.base import Event
from dealer_station.events.tournament import codec
from dealer_station.tournament.errors import TournamentError
from dealer_station.tournament.tournament import Sink, Tournament

PREFIX = "tournament-"
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")


class StoredRecord(Protocol):
    @property
    def kind(self) -> str: ...
    @property
    def payload(self) -> Mapping[str, Any]: ...


class Verified(Protocol):
    @property
    def ok(self) -> bool: ...


class JournalPort(Protocol):
    def write(self, table_id: str, entries: Sequence[Entry]) -> list[Record]: ...
    def records(self, table_id: str) -> Iterable[Any]: ...
    def verify_table(self, table_id: str) -> Verified: ...
    def check_head(self, table_id: str) -> None: ...


def stream(name: str) -> str:
    """The journal stream (table id) of tournament ``name``."""
    if (not name or len(PREFIX) + len(name) > 64 or not set(name) <= _NAME_CHARS
            or name[0] in "._-"):
        raise TournamentError(f"bad tournament name {name!r}: use 1 to {64 - len(PREFIX)} "
                              f"letters, digits, '.', '_' or '-', starting with a letter or "
                              f"digit")
    return PREFIX + name


def sink(journal: JournalPort, name: str) -> Sink:
    table_id = stream(name)

    def write(events: Sequence[Event], actor: str) -> None:
        journal.write(table_id, [Entry(e, actor, getattr(e, "round", None)) for e in events])
    return write


def events(journal: JournalPort, name: str) -> list[Event]:
    c = codec()
    return [c.decode(r.kind, r.payload) for r in journal.records(stream(name))]


def load(journal: JournalPort, name: str, *, must_exist: bool = True) -> Tournament:
    """The tournament rebuilt from its stream, journaling what is done to it next.

    The stream is verified first, as a table's chain is before the table acts: every record
    against its keyed hash and link, and its head against the anchors and checkpoints, so
    that nothing is read from, or appended to, a chain that was changed or cut short."""
    table_id = stream(name)
    result = journal.verify_table(table_id)
    if not result.ok:
        raise TournamentError(f"tournament {name!r}: its journal does not verify ({result}); "
                              f"nothing is read from it or added to it. Run `dealer-station "
                              f"audit verify --table {table_id}`")
    journal.check_head(table_id)
    t = Tournament.rebuild(events(journal, name), sink(journal, name))
    if must_exist and not t.created:
        raise TournamentError(f"there is no tournament {name!r} in this journal: create it "
                              f"first (dealer-station tournament create {name} --game ...)")
    if not must_exist and t.created:
        raise TournamentError(f"tournament {name!r} already exists in this journal")
    return t
