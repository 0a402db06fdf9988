"""The card room's own accounting on the card-room report's page: a day's **Bank** (opener,
fills, credits and chip purchases against the closer, by chip denomination, with the records
each figure comes from) and its **Rake and box** (the rake the hands journaled against the rake
box the count room counted, the variance and its disposition).

The figures are :mod:`dealer_station.games.bourre.reports.card_room_bank`'s; every label over a
figure is the glossary's (``dealer_station/accounting/glossary.py``), its meaning printed
beneath.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from xml.sax.saxutils import escape

from reportlab.lib.units import mm
from reportlab.platypus import KeepTogether

from dealer_station.accounting.glossary import (
    BANK,
    BANK_DIFFERENCE,
    BANK_EXPECTED,
    CASH,
    CHIP_PURCHASES,
    CLOSER,
    CREDITS,
    DISPOSITION,
    DROP,
    FILLS,
    MARKERS,
    OPENER,
    RAKE,
    RAKE_BOX,
    RAKE_VARIANCE,
    meanings,
)
from dealer_station.accounting.requests import request_label, slip_label
from dealer_station.accounting.settings import AccountingSettings
from dealer_station.events.accounting import DropCounted, TrayClosed, TrayOpened
from dealer_station.events.base import Committed
from dealer_station.games.bourre.reports.card_room import CardRoomDay
from dealer_station.games.bourre.reports.card_room_bank import Bank, RakeBox, value
from dealer_station.money import Money
from dealer_station.reports.pdf_style import p, rich
from dealer_station.reports.template import Cell, ReportBuilder, facts, grid
from dealer_station.reports.text import local, local_short

RED = "#b00020"
GREEN = "#1b5e20"


def _alert(text: str) -> str:
    return f"<font color='{RED}'><b>{escape(text)}</b></font>"


def _good(text: str) -> str:
    return f"<font color='{GREEN}'><b>{escape(text)}</b></font>"


def _signers(c: Committed) -> str:
    return ", ".join(getattr(c.event, "signers", ()) or ()) or c.actor


def bank_section(r: ReportBuilder, day: CardRoomDay, settings: AccountingSettings) -> None:
    """The day's bank: the chips by denomination, the reconciliation and its records."""
    bank = day.bank
    w = r.width
    money = settings.money
    r.heading(f"{BANK.label} (the whole gaming day, {money.label})")
    if not bank.recorded:
        cash = day.chips.cash
        r.add(p("No record of the bank on this gaming day: no opener, closer, fill, credit or "
                "chip purchase was journaled" + (" for a table played for cash." if cash
                                                 else "."), "alert" if cash else "note"))
        return
    opener_label = OPENER.label + (" (previous closer)" if bank.carried else "")
    lines: list[tuple[str, Mapping[int, int] | None]] = [
        (opener_label, bank.opening), (FILLS.label, bank.fills),
        (CREDITS.label, bank.credits), (CHIP_PURCHASES.label, bank.sold),
        (BANK_EXPECTED.label, bank.expected), (CLOSER.label, bank.closing),
        (BANK_DIFFERENCE.label, bank.difference)]
    denoms = sorted({d for _, c in lines if c for d in c} | set(settings.denominations))
    rows = []
    for label, c in lines:
        if c is None:
            rows.append([label, *["" for _ in denoms], "not counted" if label in (
                opener_label, CLOSER.label) else "-"])
            continue
        rows.append([label, *[f"{c[d]:,}" if c.get(d) else "" for d in denoms],
                     money.number(value(c))])
    diff = bank.difference_total
    if diff is not None and diff != 0:
        rows[-1] = [rich(_alert(str(x)), "cell") if i in (0, len(rows[-1]) - 1) else x
                    for i, x in enumerate(rows[-1])]
    first = 0.2
    each = min(0.09, (0.85 - first - 0.13) / max(len(denoms), 1))
    verdict = ("the closer is not counted yet" if diff is None else
               "the closer equals the bank expected" if diff == 0 else
               f"the closer is {money.text(abs(diff))} "
               f"{'short of' if diff < 0 else 'over'} the bank expected")
    r.add(KeepTogether([
        grid(["Chips of", *[money.chip_face(d) for d in denoms], f"Total ({money.label})"],
             rows, [w * first, *[w * each] * len(denoms), w * 0.13],
             numeric=tuple(range(1, len(denoms) + 2))),
        rich(f"<b>{escape(BANK_EXPECTED.label)}</b> = opener + fills - credits - chip "
             f"purchases, chip by chip: " + (_good(verdict) if diff == 0 else
                                            _alert(verdict) if diff else escape(verdict))
             + ".", "body")]))
    r.add(p("Chip counts by denomination (the chip's face value); totals in "
            f"{money.label}. " + meanings((OPENER, CLOSER, FILLS, CREDITS, CHIP_PURCHASES,
                                            BANK_EXPECTED, BANK_DIFFERENCE))
            + " The station records no chips bought back at the table, so a bank over its "
              "expected is chips no record explains. The rake is not in the bank: it goes "
              "from the pots to the rake box.", "note"))
    _bank_records(r, bank, day.table, money)
    _purchases(r, bank, settings)


def _bank_records(r: ReportBuilder, bank: Bank, table: str, money: Money) -> None:
    """The counts and slips the bank's figures come from: when, who signed, the record."""
    w = r.width
    rows: list[list[Cell]] = []
    for c, tray in ((bank.opener, OPENER.label), (bank.closer, CLOSER.label)):
        if c is not None and isinstance(c.event, TrayOpened | TrayClosed):
            said = (f"{CLOSER.label} of gaming day {c.event.gaming_day}, this day's "
                    f"{OPENER.label.lower()}" if bank.carried and c is bank.opener else tray)
            rows.append([local_short(c.ts), said, "", money.number(c.event.total),
                         _signers(c), f"{c.seq:,}"])
    for s in bank.slips:
        e = s.event
        number = slip_label(table, s.kind, e.year, e.number)
        if e.request is not None and e.request_year is not None:
            number += f" (request {request_label(table, e.request_year, e.request)})"
        kind = "Fill slip" if s.kind == "fill" else "Credit slip"
        what: Cell = kind
        if s.void is not None:
            what = rich(_alert(f"{kind}: VOID ({s.void.reason}), not counted"), "cell")
        rows.append([local_short(s.ts), what, number, money.number(e.total),
                     ", ".join(e.signers), f"{s.seq:,}"])
    rows.sort(key=lambda row: int(str(row[-1]).replace(",", "")))
    r.add(grid(["Time", "Record of", "Control number", f"Amount ({money.label})", "Signed by",
                "Record"], rows,
               [w * 0.13, w * 0.2, w * 0.24, w * 0.1, w * 0.25, w * 0.07],
               numeric=(3, 5), wrap=(1, 2, 4)))


def _purchases(r: ReportBuilder, bank: Bank, settings: AccountingSettings) -> None:
    """Chip purchases by tender, every marker by number, and the drop box against them."""
    money = settings.money
    w = r.width
    cash = [x for x in bank.purchases if x.event.tender == "cash"]
    markers = [x for x in bank.purchases if x.event.tender == "marker"]
    pairs: list[tuple[str, Cell]] = [
        (CHIP_PURCHASES.label,
         f"{money.text(value(bank.sold))}: {len(cash):,} for cash "
         f"({money.text(bank.tender('cash'))}), {len(markers):,} for markers "
         f"({money.text(bank.tender('marker'))})")]
    drop = bank.drop.event if bank.drop is not None else None
    if isinstance(drop, DropCounted) and bank.drop is not None:
        gaps = [f"{name} {money.text(counted - sold)} {'over' if counted > sold else 'short'}"
                for name, counted, sold in (("cash", drop.cash, bank.tender("cash")),
                                            ("markers", drop.markers, bank.tender("marker")))
                if counted != sold]
        said = (f"{money.text(drop.total)} ({CASH.label.lower()} {money.text(drop.cash)}, "
                f"{MARKERS.label.lower()} {money.text(drop.markers)}), counted "
                f"{local(bank.drop.ts)} by {', '.join(drop.signers)} (record "
                f"{bank.drop.seq:,}): ")
        pairs.append((DROP.label, rich(
            escape(said) + (_good("the chip purchases' cash and markers, to the cent")
                            if not gaps else _alert("against the chip purchases: "
                                                    + "; ".join(gaps))), "cell")))
    else:
        pairs.append((DROP.label, "not counted yet (the count room counts the drop box "
                                  "after the gaming day)"))
    r.add(facts(pairs, widths=(42 * mm, w - 42 * mm)))
    if markers:
        r.add(grid(["Time", "Seat", "Marker", f"Amount ({money.label})"],
                   [[local_short(x.ts), "-" if x.event.seat is None else str(x.event.seat),
                     x.event.marker or "", money.number(x.event.amount)] for x in markers],
                   [w * 0.15, w * 0.06, w * 0.2, w * 0.12], numeric=(3,)))
    r.add(p(meanings((DROP, CASH, MARKERS)) + " A card room table's drop box holds what "
            "players paid for their chips: its cash and markers are set against the chip "
            "purchases'.", "note"))


def rake_section(r: ReportBuilder, day: CardRoomDay, settings: AccountingSettings) -> None:
    """The day's rake against its counted rake box: the variance and its disposition."""
    box = day.rake_box
    if box is None or (box.rake is None and box.counted is None):
        return
    money = settings.money
    w = r.width
    r.heading("Rake and box (the whole gaming day)")
    rake = ("none in money: no hand of the day was played for cash" if box.rake is None else
            f"{money.text(box.rake)} ({box.rake_chips:,} chips from {box.hands:,} hands' "
            f"collection records)")
    pairs: list[tuple[str, Cell]] = [(RAKE.label, rake)]
    count, counted = box.count, box.counted
    if count is None or counted is None:
        pairs.append((RAKE_BOX.label, rich(_alert("not counted yet") + escape(
            ": the count room counts the rake box after the gaming day"), "cell")))
    else:
        markers = (f"markers {money.text(count.markers)} ({count.marker_count or 0:,})"
                   if count.markers else "no markers")
        pairs.append((RAKE_BOX.label, f"{money.text(count.total)}: cash "
                      f"{money.text(count.cash)}, {markers}"))
        pairs.append(("Count", f"{local(counted.ts)} by {', '.join(count.signers)} (record "
                               f"{counted.seq:,})"))
    if box.problem:
        pairs.append((RAKE_VARIANCE.label, rich(_alert(box.problem), "cell")))
    elif box.variance is not None:
        v = box.variance
        said = money.text(v) + ("" if v == 0 else
                                f" (the box is {'short' if v < 0 else 'over'})")
        pairs.append((RAKE_VARIANCE.label, rich(_alert(said) if box.beyond_threshold else
                                                escape(said), "cell")))
        pairs.append((DISPOSITION.label, _disposition(box, settings)))
    r.add(facts(pairs, widths=(42 * mm, w - 42 * mm)))
    if count is not None:
        notes = box.notes
        rows = [[money.chip_face(d), f"{n:,}", money.number(d * n)] for d, n in notes.items()]
        rows.append([MARKERS.label, f"{count.marker_count or 0:,}",
                     money.number(count.markers)])
        rows.append(["Total", f"{sum(notes.values()):,} notes", money.number(count.total)])
        r.add(grid(["Note", "Count", f"Amount ({money.label})"], rows,
                   [w * 0.12, w * 0.1, w * 0.14], numeric=(1, 2), bold_last=True))
    r.add(p(meanings((RAKE, RAKE_BOX, RAKE_VARIANCE, DISPOSITION)) + " Variance threshold "
            f"{money.text(settings.variance_threshold)} (from {settings.source}).", "note"))


def _disposition(box: RakeBox, settings: AccountingSettings) -> Cell:
    money = settings.money
    d, c = box.disposition, box.disposed
    if d is None or c is None:
        if box.beyond_threshold:
            return rich(_alert("Needs a disposition") + escape(
                f": beyond the threshold of {money.text(settings.variance_threshold)}"),
                "cell")
        return (f"none needed: within the threshold of "
                f"{money.text(settings.variance_threshold)}")
    said = (f"{d.disposition.capitalize()} {local(c.ts)} by {' and '.join(d.signers)} "
            f"(record {c.seq:,}): {d.note}")
    if d.adjustment is not None:
        said += f"; adjusting entry {money.text(d.adjustment)}"
    if box.variance is not None and d.variance != box.variance:
        return rich(escape(said) + _alert(f". Signed for a variance of "
                                          f"{money.text(d.variance)}; the variance is now "
                                          f"{money.text(box.variance)}"), "cell")
    return said


def sections(r: ReportBuilder, day: CardRoomDay, settings: AccountingSettings) -> None:
    """Both sections, in the order a count room reads them."""
    rake_section(r, day, settings)
    bank_section(r, day, settings)


__all__: Sequence[str] = ("bank_section", "rake_section", "sections")
