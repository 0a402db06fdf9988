"""The recall model: one round or hand exactly as the journal records it, typed, and the words
people read about it.

Every game's recall (the registry's ``recall`` part) returns a :class:`Recall`. The command
line, the supervisor's screen and the printed dispute report render these objects, and take
every word they show about a recall from here (record kinds, statuses, results, card
sources) or from the game's own recall module (its stages, its plays), so the same fact reads
the same on the terminal, on the screen and on paper.

``to_json()`` gives exactly the dict ``dealer-station recall --json`` has always printed (keys,
values and their order): tools outside the station read it, so it is a contract.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dealer_station import registry as games
from dealer_station.accounting.glossary import COLLECTED, PAID, RETURNED, WAGERED, meanings
from dealer_station.audit.journal import Record, RoundInfo
from dealer_station.events import rows
from dealer_station.events.kinds import closing_statuses, exception_kinds
from dealer_station.money import CHIPS, Money

# --- the words people read ------------------------------------------------------------------

#: What each record kind in a round or hand is called, in plain words.
RECORD_LABELS: dict[str, str] = {
    "round.open": "Round opened",
    "hand.open": "Hand opened",
    "wager.place": "Wager placed",
    "wager.remove": "Wager taken back",
    "betting.close": "Betting closed",
    "card": "Card dealt",
    "stage.settle": "Stage settled",
    "payout.confirm": "Payout confirmed",
    "round.close": "Round closed",
    "hand.close": "Hand closed",
    "bourre.card": "Card dealt",
    "bourre.decision": "Stay or fold",
    "bourre.discard.card": "Discard read",
    "bourre.discard": "Discards done",
    "bourre.play": "Card played",
    "void": "Voided",
    "halt": "Stopped",
    "resolve": "Resumed",
    "correction": "Card corrected",
    "card.held": "Card held",
    "renege": "Renege",
    "recovery": "Recovered after a restart",
    "misread": "Misread",
    "device.fault": "Device fault",
    "device.status": "Device status",
    "device.state": "Device state",
    "device.identified": "Device identified",
    "device.connected": "Device connected",
    "device.lost": "Device lost",
    "clock.jump": "Clock jumped",
    "session.open": "Session started",
    "session.close": "Session ended",
    "bourre.collection": "House collection",
    "pot.carry": "Pot carried to the next session",
    "pot.return": "Pot returned to the players",
    # Records outside a round, as the reports list them.
    "startup": "Station started",
    "shutdown": "Station stopped",
    "checkpoint": "Checkpoint",
    "verify": "Journal verified",
    "config.change": "Configuration changed",
    "login": "Signed in",
    "login.failed": "Sign-in failed",
    "logout": "Signed out",
    "lockout": "Locked out",
    "projection.mismatch": "Rows beside the chain rewritten",
    "integrity.ok": "Software check passed",
    "integrity.mismatch": "Software check FAILED",
    "user.add": "User added",
    "user.pin": "PIN set",
    "user.role": "Role changed",
    "user.deactivate": "User deactivated",
    "user.unlock": "User unlocked",
}

#: A round's or hand's status.
STATUS_LABELS: dict[str, str] = {"open": "Open", "settled": "Settled", "voided": "Voided"}

#: How a wager ended.
RESULT_LABELS: dict[str, str] = {"win": "Won", "lose": "Lost", "returned": "Returned (void)",
                                 "pending": "Not settled"}

#: Where a card came from.
SOURCE_LABELS: dict[str, str] = {"shoe": "Shoe", "reader": "Card reader",
                                 "manual": "Entered by hand", "correction": "Corrected"}

#: Whether the dealer confirmed that a stage was paid.
CONFIRMED_LABELS: dict[bool, str] = {True: "Payout confirmed", False: "Payout NOT confirmed"}

#: The money of a round: stakes settled, paid to players, collected by the house; and the
#: stakes given back unsettled by a void.
WAGERED_LABEL, PAID_LABEL, COLLECTED_LABEL = WAGERED.label, PAID.label, COLLECTED.label
RETURNED_LABEL = RETURNED.label

#: What "wagered" means wherever a person reads it (recall, screen, paper): the meters and
#: the shift report count exactly this, so one round has one number everywhere.
WAGERED_MEANING = meanings((WAGERED, RETURNED))

#: A difference between what was recorded and a re-settlement of the recorded inputs.
DIFFERENCE_LABEL = "Replay difference"



def _word(labels: Mapping[Any, str], key: object) -> str:
    # A value this release has no word for is shown as recorded, never hidden.
    return labels.get(key) or ("-" if key is None else str(key))


def record_label(kind: str) -> str:
    """A record kind in words: ``bourre.discard.card`` -> ``Discard read``. A kind this release
    has no word for still reads as words (``a.new_kind`` -> ``A new kind``), never hidden."""
    word = RECORD_LABELS.get(kind)
    if word is not None:
        return word
    spaced = kind.replace(".", " ").replace("_", " ").replace("-", " ").strip()
    return spaced[:1].upper() + spaced[1:] if spaced else "-"


def status_label(status: str) -> str:
    return _word(STATUS_LABELS, status)


def result_label(result: str) -> str:
    return _word(RESULT_LABELS, result)


def source_label(source: str | None) -> str:
    return _word(SOURCE_LABELS, source)


# --- the recall ------------------------------------------------------------------------------

@dataclass(frozen=True)
class RecallHeader:
    """Which round or hand, of which table and game; how it ended; who dealt; when; under
    which configuration version."""

    table: str
    round_no: int
    game: str
    status: str
    dealer: str
    started_at: str | None
    ended_at: str | None
    config_version: str

    @classmethod
    def of(cls, info: RoundInfo, status: str, game: str | None = None,
           records: Sequence[Record] = ()) -> RecallHeader:
        """The header; with ``records``, every time and the dealer are the round's own
        records' (the opening record's time and dealer, the closing record's time), never a
        projection's or a clock's."""
        started, ended, dealer = info.started_at, info.ended_at, info.dealer
        if records:
            opening = records[0]
            closing = next((r for r in records if r.kind in closing_statuses()), None)
            started = opening.ts
            ended = closing.ts if closing is not None else None
            opened = rows.opening(opening.kind, opening.payload)
            dealer = (opened.dealer if opened is not None else "") or dealer
        return cls(info.table_id, info.round_no, game or info.game, status, dealer,
                   started, ended, info.config_version)

    @property
    def status_label(self) -> str:
        return status_label(self.status)

    @property
    def game_label(self) -> str:
        return games.label(self.game)

    def to_json(self) -> dict[str, Any]:
        return {"table": self.table, "round_no": self.round_no, "game": self.game,
                "status": self.status, "dealer": self.dealer, "started_at": self.started_at,
                "ended_at": self.ended_at, "config_version": self.config_version}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> RecallHeader:
        return cls(d["table"], d["round_no"], d["game"], d["status"], d["dealer"],
                   d["started_at"], d["ended_at"], d["config_version"])


@dataclass(frozen=True)
class RecordLine:
    """One journal record of the round, with its hash: what each line on paper is found by."""

    seq: int
    ts: str
    actor: str
    kind: str
    hash: str
    payload: Mapping[str, Any]

    @classmethod
    def of(cls, r: Record) -> RecordLine:
        return cls(r.seq, r.ts, r.actor, r.kind, r.hash, r.payload)

    @property
    def label(self) -> str:
        return record_label(self.kind)

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "ts": self.ts, "actor": self.actor, "kind": self.kind,
                "payload": self.payload, "hash": self.hash}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> RecordLine:
        return cls(d["seq"], d["ts"], d["actor"], d["kind"], d["hash"], d["payload"])


@dataclass(frozen=True)
class ExceptionLine:
    """A record that departs from the normal flow of play: who, when, what, and why."""

    seq: int
    ts: str
    actor: str
    kind: str
    reason: str | None
    payload: Mapping[str, Any]

    @classmethod
    def of(cls, r: Record) -> ExceptionLine:
        return cls(r.seq, r.ts, r.actor, r.kind, rows.why(r.payload) or None, r.payload)

    @property
    def label(self) -> str:
        return record_label(self.kind)

    @property
    def why(self) -> str:
        """The reason as recorded ("" when the record gives none, as a recovery's)."""
        return "" if self.reason is None else str(self.reason)

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "ts": self.ts, "actor": self.actor, "kind": self.kind,
                "reason": self.reason, "payload": self.payload}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> ExceptionLine:
        return cls(d["seq"], d["ts"], d["actor"], d["kind"], d["reason"], d["payload"])


#: Payload keys an exception's detail leaves out: said elsewhere (who, why, the round's
#: figures in its own sections) or for machines (meters).
DETAIL_SKIP = frozenset({"reason", "detail", "note", "meters", "remedy", "cards", "wagers",
                         "wagered", "total_win", "total_lost", "voided"})

#: Payload keys in words.
DETAIL_WORDS: dict[str, str] = {
    "halt_seq": "stop", "device_seq": "device frame",
    "device_said": "the device said", "device": "device", "fault": "fault",
    "kind": "kind", "action": "action", "card": "card", "n": "card number",
    "seat": "seat", "trick": "trick", "rule": "rule", "penalised": "penalised",
    "stands": "the card stands", "witness": "read by",
}


def detail_text(payload: Mapping[str, Any], returned: str = "",
                money: Callable[[int], str] | None = None) -> str:
    """An exception record's payload beyond who and why, as ``words: value; ...``.
    ``returned`` is how the game words the wagers a void gave back; ``money`` shows the
    stakes it gave back (left out without it: never minor units)."""
    parts = []
    # A listing of whatever keys the record holds, of any kind: no field is picked out.
    for k, v in sorted(payload.items()):
        if k in DETAIL_SKIP or v is None or v == [] or v == {}:
            continue
        if k == "returned":
            parts.append(f"returned: {returned or ', '.join(f'wager #{x}' for x in v)}")
            continue
        if k == "returned_stakes":
            if money is not None and isinstance(v, int):
                parts.append(f"returned in all: {money(v)}")
            continue
        if isinstance(v, bool):
            v = "yes" if v else "no"
        elif isinstance(v, int) and k == "halt_seq":
            v = f"record {v:,}"
        elif isinstance(v, list):
            v = ", ".join(str(x) for x in v)
        elif isinstance(v, Mapping):
            v = ", ".join(f"{a} {b}" for a, b in sorted(v.items()))
        parts.append(f"{DETAIL_WORDS.get(k, k.replace('_', ' '))}: {v}")
    return "; ".join(parts)


def record_lines(records: Sequence[Record]) -> tuple[RecordLine, ...]:
    return tuple(RecordLine.of(r) for r in records)


def exception_lines(records: Sequence[Record]) -> tuple[ExceptionLine, ...]:
    # The kinds the events declare exceptions (Event.EXCEPTION).
    exceptions = exception_kinds()
    return tuple(ExceptionLine.of(r) for r in records if r.kind in exceptions)


@dataclass(frozen=True, kw_only=True)
class Recall:
    """What every game's recall holds alike; each game adds its own body (its cards, wagers,
    plays) between the header and the exceptions.

    ``money`` is the table's unit in the configuration version the round was played under
    (None: chips). It is how amounts are written, not a recorded fact, so ``to_json`` leaves
    it out and equality ignores it.
    """

    header: RecallHeader
    void_reason: str | None
    exceptions: tuple[ExceptionLine, ...]
    differences: tuple[str, ...]
    records: tuple[RecordLine, ...]
    money: Money | None = field(default=None, compare=False)

    @property
    def round_no(self) -> int:
        return self.header.round_no

    @property
    def status(self) -> str:
        return self.header.status

    @property
    def status_label(self) -> str:
        return self.header.status_label

    @property
    def unit(self) -> str:
        """What one deal of this game is called: round, hand."""
        return games.game(self.header.game).unit

    @property
    def written_in(self) -> Money:
        """The money this recall's amounts are written in: the round's, else whole chips."""
        return self.money if self.money is not None else CHIPS

    def amount(self, value: int) -> str:
        """``123456`` -> ``1,234.56``: a figure as the reports and screens write it (the unit
        is said once, by ``written_in.label``)."""
        return self.written_in.number(value)

    def dealt(self) -> tuple[str, ...]:
        """The cards' codes in the order they came, for a one-line summary."""
        raise NotImplementedError

    def wagered(self) -> int:
        """The stakes settled, in minor units (chips): what the meters count."""
        raise NotImplementedError

    def returned(self) -> int:
        """Stakes given back unsettled (a void), in minor units (chips)."""
        return 0

    def exception_detail(self, e: ExceptionLine) -> str:
        """What an exception's record says beyond who and why, in words."""
        return detail_text(e.payload)

    def paid(self) -> int:
        """What was paid to players beyond their returned stakes (the pot won)."""
        raise NotImplementedError

    def body_json(self) -> dict[str, Any]:
        """The game's own keys, in their order."""
        raise NotImplementedError

    def to_json(self) -> dict[str, Any]:
        return {**self.header.to_json(), **self.body_json(),
                "void_reason": self.void_reason,
                "exceptions": [e.to_json() for e in self.exceptions],
                "differences": list(self.differences),
                "records": [r.to_json() for r in self.records]}

    @staticmethod
    def common_json(d: Mapping[str, Any]) -> dict[str, Any]:
        """The common fields of ``from_json``, as keyword arguments."""
        return {"header": RecallHeader.from_json(d), "void_reason": d["void_reason"],
                "exceptions": tuple(ExceptionLine.from_json(e) for e in d["exceptions"]),
                "differences": tuple(d["differences"]),
                "records": tuple(RecordLine.from_json(r) for r in d["records"])}
