"""Table-games accounting record kinds, journaled in the table's own chain.

Chips are ``{"denomination": count}`` (minor units as text keys); ``total`` is their value.
``gaming_day`` (``YYYY-MM-DD``) is the gaming day the station placed the action in when it was
taken, so a later change of the day's start never moves a slip. ``signers`` are the people who
signed, as ``user_id/role``, in the order the slip prints them. Fill and credit slips carry a
``number`` that counts 1, 2, 3... within ``year`` (the gaming day's year) per table and kind.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from dealer_station.events.base import Codec, Event, EventError, JsonObject, Upcaster, optional


@dataclass(frozen=True, slots=True)
class TrayOpened(Event):
    """The opener: the tray counted at the start of the gaming day by two people."""

    KIND = "tray.open"
    gaming_day: str
    chips: JsonObject
    total: int
    signers: tuple[str, ...]
    #: The previous closer's record (its seq) and total, when there is one.
    previous_seq: int | None = optional()
    previous_total: int | None = optional()


@dataclass(frozen=True, slots=True)
class TrayClosed(Event):
    """The closer: the tray counted at the end of the gaming day; the next day's opener."""

    KIND = "tray.close"
    gaming_day: str
    chips: JsonObject
    total: int
    signers: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class TrayShiftCounted(Event):
    """A shift-change inventory: the tray counted at the end of ``shift`` (not the day's last:
    the closer counts that one), by the outgoing shift's dealer and a supervisor. It closes
    the shift and opens the next one."""

    KIND = "tray.shift"
    gaming_day: str
    shift: str
    chips: JsonObject
    total: int
    signers: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class TrayDifference(Event):
    """An exception: the opener differs from the previous closer by more than the tolerance.
    Journaled with the opener, as the record right after it."""

    KIND = "tray.difference"
    SIGNIFICANT = True
    gaming_day: str
    opener_total: int
    previous_seq: int
    previous_total: int
    difference: int
    #: Per denomination, opener count minus closer count (only those that differ).
    chips: JsonObject


@dataclass(frozen=True, slots=True)
class FillSlip(Event):
    """Chips brought from the cage to the tray: the slip of record, journaled when the table
    signs for them. Issued by the cage against a request, it names the ``request`` and every
    signer (the cage's, the runner's, the table's); each signed at its step's record."""

    KIND = "fill"
    number: int
    year: int
    gaming_day: str
    chips: JsonObject
    total: int
    signers: tuple[str, ...]
    note: str | None = optional()
    request: int | None = optional()
    request_year: int | None = optional()


@dataclass(frozen=True, slots=True)
class CreditSlip(Event):
    """Chips taken from the tray back to the cage: journaled when the table signs them over
    (the fields as :class:`FillSlip`'s)."""

    KIND = "credit"
    number: int
    year: int
    gaming_day: str
    chips: JsonObject
    total: int
    signers: tuple[str, ...]
    note: str | None = optional()
    request: int | None = optional()
    request_year: int | None = optional()


@dataclass(frozen=True, slots=True)
class SlipRequested(Event):
    """A fill or credit requested at the table by its supervisor, numbered per table and year
    (fills and credits in one sequence), with the chips wanted by denomination."""

    KIND = "slip.request"
    slip: str              # "fill" or "credit"
    request: int
    year: int
    gaming_day: str
    chips: JsonObject
    total: int
    signers: tuple[str, ...]
    note: str | None = optional()


@dataclass(frozen=True, slots=True)
class SlipIssued(Event):
    """The cage's slip against a request: its control ``number`` (per table, kind and year,
    the slip's own sequence), the chips counted out (or, for a credit, to be taken), signed
    by the cage cashier."""

    KIND = "slip.issue"
    slip: str
    request: int
    request_year: int
    number: int
    year: int
    chips: JsonObject
    total: int
    signers: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SlipCarried(Event):
    """The runner (security) took the issued slip, and the chips, on their way."""

    KIND = "slip.carry"
    slip: str
    number: int
    year: int
    signers: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RequestVoided(Event):
    """A request voided before the table signed for it, by two people with a reason: at the
    ``state`` it had reached ("requested", "issued" or "in transit"); an issued slip's
    ``number`` is voided with it and keeps its number."""

    KIND = "request.void"
    SIGNIFICANT = True
    slip: str
    request: int
    year: int
    request_seq: int
    state: str
    reason: str
    signers: tuple[str, ...]
    number: int | None = optional()
    number_year: int | None = optional()


@dataclass(frozen=True, slots=True)
class BuyIn(Event):
    """Cash or a marker exchanged for chips at the table: the cash or marker goes into the
    drop box, the chips given leave the tray."""

    KIND = "buyin"
    gaming_day: str
    tender: str            # "cash" or "marker"
    amount: int
    chips: JsonObject
    seat: int | None = optional()
    marker: str | None = optional()


@dataclass(frozen=True, slots=True)
class DropCounted(Event):
    """The soft count's figure for the table's drop box of one gaming day, entered by the
    count team (two accounting users or more, who all verify it) after the day closed; or,
    with ``shift``, of one shift's drop box (changed at the shift change), entered after the
    shift is over.

    Counted in the count room, it also holds the ``currency`` by denomination (bills, minor
    units as text keys, like chips) and the number of markers or counter checks (``marker_count``;
    their total is ``markers``). ``box`` "rake" is a card room table's rake box (the house's
    collection, counted against the rake the hands journaled), never its drop."""

    KIND = "drop.count"
    gaming_day: str
    cash: int
    markers: int
    total: int
    signers: tuple[str, ...]
    shift: str | None = optional()
    currency: JsonObject | None = optional()
    marker_count: int | None = optional()
    box: str | None = optional()


@dataclass(frozen=True, slots=True)
class VarianceDisposed(Event):
    """What the count room decided about a variance above the threshold (statistical win
    against the computed win, or a card room's counted rake box against its rake): the
    ``disposition`` ("explained", "adjusted" or "referred"), why, and for "adjusted" the
    amount of the adjusting entry; signed by two accounting users. ``variance`` is the figure
    they disposed of, so a later change of it shows."""

    KIND = "variance.disposition"
    SIGNIFICANT = True
    gaming_day: str
    variance: int
    disposition: str
    note: str
    signers: tuple[str, ...]
    shift: str | None = optional()
    box: str | None = optional()
    adjustment: int | None = optional()


@dataclass(frozen=True, slots=True)
class SlipVoided(Event):
    """A fill or credit slip voided after the table signed it, with the reason; it keeps its
    number and no longer counts. ``signers``: the two who signed the void (a void journaled
    before two were required names only its actor)."""

    KIND = "slip.void"
    SIGNIFICANT = True
    slip: str              # "fill" or "credit"
    number: int
    year: int
    slip_seq: int
    reason: str
    signers: tuple[str, ...] | None = optional()


#: The whole-number figures of a day's play, in a ``day.play`` record and in each of its shifts.
PLAY_FIGURES = ("rounds", "wagered", "returned", "paid", "computed_win", "voided_returned")
#: The text fields of each shift in a ``day.play`` record.
SHIFT_TEXTS = ("shift", "start", "end", "theoretical")


@dataclass(frozen=True, slots=True)
class ShiftPlayed:
    """One shift's part of a ``day.play`` record (version 3): its name, the span of time it
    covered (``start`` to ``end``, UTC as the journal writes times) and the same figures as
    the day's, for the rounds that closed in it."""

    shift: str
    start: str
    end: str
    rounds: int
    wagered: int
    returned: int
    paid: int
    computed_win: int
    theoretical: str
    voided_returned: int

    def to_json(self) -> dict[str, int | str]:
        return {"shift": self.shift, "start": self.start, "end": self.end,
                "rounds": self.rounds, "wagered": self.wagered, "returned": self.returned,
                "paid": self.paid, "computed_win": self.computed_win,
                "theoretical": self.theoretical, "voided_returned": self.voided_returned}


@dataclass(frozen=True, slots=True)
class DayPlayed(Event):
    """What the station settled in the gaming day, summed from its rounds when the closer was
    counted and journaled right after it: the count room's figures meet the station's in one
    place, and a month's report reads one record per table per day. ``through_seq`` is the
    last record it covers; ``theoretical`` is exact, ``"numerator/denominator"``.

    Version 2 adds ``voided_returned``: the stakes the day's voids handed back unsettled. A
    version-1 record did not sum them: read as None, and the reports sum them from the rounds
    instead.

    Version 3 adds ``shifts``: the same figures for each shift of the gaming calendar, in its
    order (a list of objects, each naming its ``shift`` and the span it covered; see
    :class:`ShiftPlayed`), adding up exactly to the day's, so that the report shift by shift
    also reads one record per day. A version-2 record has none: read as None, and the reports
    sum each shift from the rounds."""

    KIND = "day.play"
    VERSION: ClassVar[int] = 3
    UPCASTERS: ClassVar[Mapping[int, Upcaster]] = {1: lambda d: d, 2: lambda d: d}
    gaming_day: str
    rounds: int
    wagered: int
    returned: int
    paid: int
    computed_win: int
    theoretical: str
    through_seq: int
    voided_returned: int | None = optional()
    shifts: tuple[JsonObject, ...] | None = optional()

    def shift_plays(self) -> tuple[ShiftPlayed, ...] | None:
        """The shifts' figures (None for a record without them), each checked to be what the
        station writes: an EventError names the first that is not."""
        if self.shifts is None:
            return None
        out: list[ShiftPlayed] = []
        for i, item in enumerate(self.shifts, 1):
            wrong = [k for k in SHIFT_TEXTS if not isinstance(item.get(k), str)] + [
                k for k in PLAY_FIGURES if type(item.get(k)) is not int]
            unknown = sorted(set(item) - set(SHIFT_TEXTS) - set(PLAY_FIGURES))
            if wrong or unknown:
                said = [f"no {k!r} as the station writes it" for k in wrong] + [
                    f"a key it does not know ({k!r})" for k in unknown]
                raise EventError(f"a {self.KIND} record of {self.gaming_day}: its shift {i} "
                                 f"has {' and '.join(said)}")
            out.append(ShiftPlayed(
                item["shift"], item["start"], item["end"], item["rounds"], item["wagered"],
                item["returned"], item["paid"], item["computed_win"], item["theoretical"],
                item["voided_returned"]))
        return tuple(out)


EVENTS: tuple[type[Event], ...] = (TrayOpened, TrayClosed, TrayShiftCounted, TrayDifference,
                                   FillSlip, CreditSlip, BuyIn, DropCounted, SlipVoided,
                                   DayPlayed, SlipRequested, SlipIssued, SlipCarried,
                                   RequestVoided, VarianceDisposed)
KINDS: tuple[str, ...] = tuple(e.KIND for e in EVENTS)
SLIP_KINDS = {FillSlip.KIND: FillSlip, CreditSlip.KIND: CreditSlip}
#: What the count room may decide about a variance.
DISPOSITIONS = ("explained", "adjusted", "referred")
#: A card room table's rake box (a ``drop.count`` of it is not the table's drop).
RAKE_BOX = "rake"

CODEC = Codec(EVENTS)
