"""Sample accounting reports for the documentation.

    .venv/bin/python -m dealer_station.reports.accounting_samples docs/samples

Table T1 plays three simulated gaming days (40 rounds each) through the real table service
with the chip tray's accounting, the dealer mispaying 5% of winning wagers by one chip; every
fill and credit goes through the cage (requested by the supervisor, issued by the cage
cashier, carried by security, signed for by the dealer and the supervisor). A credit slip is
then voided by the supervisor and the cage cashier, which shows as a variance. On the fourth
gaming day a fill is requested, issued and carried, then voided in transit. Written: the master
game report, the discrepancy report, the first fill's request and its slip (a page per copy:
original, duplicate, triplicate), the slip voided in transit, and a table inventory slip, each
rendered to PNG with pdftoppm where installed.

Each run prints the same figures, times, names and record numbers: the simulation's seed, its
clock, the journal's key and the station's signing key are fixed, and the pages print in the
casino's time zone (America/Chicago) at the journal clock's time (a run used to differ in
every hash, from a new random key, and in its void's and printing's times, from the wall
clock). Two things still differ: the PDF files' creation date and id (the report template
stamps the time of writing), and the records' hashes, since the simulated shoe's thread
journals its ``device.*`` records at a position that races the table's first records.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from dealer_station import registry
from dealer_station.accounting.chips import Chips
from dealer_station.accounting.settings import AccountingSettings
from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import JournalKey, signing_path_for
from dealer_station.audit.notes import NOTE_KEY, Signer
from dealer_station.audit.users import Users
from dealer_station.events.accounting import SlipIssued, SlipRequested
from dealer_station.gaming_day import GamingCalendar
from dealer_station.reports.accounting_pdf import (
    build_discrepancy_pdf,
    build_inventory_pdf,
    build_master_game_pdf,
    build_request_pdf,
    build_slip_pdf,
)
from dealer_station.reports.count_sheet import build_count_sheet_pdf
from dealer_station.reports.master_game import gather
from dealer_station.table.accounting import TableAccounting, accounting_event
from dealer_station.table.cage import CageDesk
from dealer_station.table.count_room import CountRoom
from dealer_station.table.days import SIM_PIN, SimClock
from dealer_station.table.parts import SIMULATE_DAYS

ZONE = "America/Chicago"
CAL = GamingCalendar(zone=ZoneInfo(ZONE))
SETTINGS = AccountingSettings(variance_threshold=2500)
START = date(2026, 3, 2)
SEED = 2026
#: The samples' journal key and signing key, made from these words (never a station's).
KEY_WORDS = b"dealer-station accounting samples: not a station's key"


def _sample_key(folder: Path) -> JournalKey:
    """A fixed journal key and signing key, so that every hash in the samples is the same
    each run (files of mode 0600, as a station's)."""
    path = folder / "journal.key"
    secret = hashlib.sha256(KEY_WORDS).digest()
    for where, text in ((path, secret.hex()),
                        (signing_path_for(path),
                         Signer("casino.example/pit1", NOTE_KEY,
                                hashlib.sha256(KEY_WORDS + b" signing").digest()).text())):
        fd = os.open(where, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(text + "\n")
    return JournalKey(path=path, secret=secret)


def _png(pdf: Path) -> None:
    for old in pdf.parent.glob(f"{pdf.stem}-*.png"):   # a page fewer than last time
        if old.stem.removeprefix(f"{pdf.stem}-").isdigit():
            old.unlink()
    if shutil.which("pdftoppm"):
        subprocess.run(["pdftoppm", "-r", "80", "-png", str(pdf), str(pdf.with_suffix(""))],
                       check=True)


def _void_in_transit(journal: Journal, book: TableAccounting, clock: SimClock) -> int:
    """The fourth gaming day: the tray opened, a fill requested, issued and carried, then
    voided in transit (the runner dropped a rack). Returns the voided slip's number."""
    users = Users(journal)
    who = {u: users.authenticate(u, SIM_PIN, table_id="T1")
           for u in ("sim-dealer", "sim-supervisor", "sim-cashier", "sim-runner")}
    day = START + timedelta(days=3)
    clock.set(CAL.day(day).start + timedelta(hours=2))
    carried = book.ledger().closer_before(day)
    assert carried is not None
    book.opener(Chips.from_payload(carried.event.chips),  # type: ignore[attr-defined]
                who["sim-dealer"], who["sim-supervisor"])
    desk = CageDesk(book)
    chips = Chips.of({2500: 20, 10000: 5})
    clock.set(clock() + timedelta(minutes=48))
    asked = desk.request("fill", chips, who["sim-supervisor"], note="tray low on 25s and 100s")
    request = accounting_event(asked, SlipRequested)
    year, n = request.year, request.request
    clock.set(clock() + timedelta(minutes=4))
    issued = desk.issue(year, n, chips, [who["sim-cashier"]])
    clock.set(clock() + timedelta(minutes=3))
    desk.carry(year, n, [who["sim-runner"]])
    clock.set(clock() + timedelta(minutes=6))
    desk.void(year, n, "runner dropped a rack on the way; chips recounted at the cage",
              [who["sim-supervisor"], who["sim-cashier"]])
    return accounting_event(issued, SlipIssued).number


def _dispose_first_variance(journal: Journal, book: TableAccounting) -> None:
    """The count room explains the first variance beyond the threshold (two accounting
    users), and leaves any other for the discrepancy report to show as still needing one."""
    users = Users(journal)
    team = [users.authenticate(u, SIM_PIN, table_id="T1") for u in ("sim-count1", "sim-count2")]
    for d in gather(journal, SETTINGS, CAL).days:
        if d.variance is not None and abs(d.variance) > SETTINGS.variance_threshold:
            CountRoom(book).dispose(d.gaming_day, d.variance, "explained",
                                    "the dealer mispaid winning wagers (seen on the video "
                                    "review); the dealer was retrained", team)
            return


def main(out: Path) -> None:
    # The pages print local times: the casino's, wherever the samples are made.
    os.environ["TZ"] = ZONE
    time.tzset()
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        db = open_database(f"sqlite:///{Path(tmp) / 'journal.db'}")
        clock = SimClock(datetime(START.year, START.month, START.day, tzinfo=UTC))
        journal = Journal(db, _sample_key(Path(tmp)), clock=clock)
        # The first banked game that simulates whole gaming days with its chip tray (on its
        # own clock; ours again after).
        simulate_days = next(days for g in registry.REGISTRY.values()
                             if (days := g.supplies(SIMULATE_DAYS)) is not None)
        simulate_days(journal, "T1", 40, days=3, mispay_rate=0.05, seed=SEED,
                      settings=SETTINGS, calendar=CAL, start=START, quiet=True)
        last = journal.last("T1")
        assert last is not None
        clock.set(datetime.fromisoformat(last.ts) + timedelta(minutes=5))
        book = TableAccounting(journal, "T1", SETTINGS, CAL)
        ledger = book.ledger()
        fills = sorted(k for k in ledger.slips if k[0] == "fill")
        credits = sorted(k for k in ledger.slips if k[0] == "credit")
        if credits:   # a supervisor and a cage cashier void a credit: a variance shows
            users = Users(journal)
            sup = users.authenticate("sim-supervisor", SIM_PIN, table_id="T1")
            cashier = users.authenticate("sim-cashier", SIM_PIN, table_id="T1")
            book.void("credit", credits[0][2], credits[0][1], [sup, cashier],
                      "written for the wrong table")
        _dispose_first_variance(journal, book)
        report = gather(journal, SETTINGS, CAL)
        made = [build_master_game_pdf(journal, report, out=out / "master-game.pdf"),
                build_discrepancy_pdf(journal, report, out=out / "discrepancies.pdf")]
        voided = _void_in_transit(journal, book, clock)
        ledger = book.ledger()
        if fills:
            kind, year, number = fills[0]
            req = ledger.issued.get(fills[0])
            if req is not None:
                made.append(build_request_pdf(journal, ledger, SETTINGS, *req.key,
                                              out=out / "fill-request.pdf"))
            made.append(build_slip_pdf(journal, ledger, SETTINGS, kind, year, number,
                                       out=out / "fill-slip.pdf"))
        made.append(build_slip_pdf(journal, ledger, SETTINGS, "fill", START.year, voided,
                                   out=out / "fill-slip-void.pdf"))
        made.append(build_inventory_pdf(journal, ledger, SETTINGS, "closer",
                                        START.isoformat(), out=out / "inventory-slip.pdf"))
        made.append(build_count_sheet_pdf(journal, ledger, SETTINGS, START,
                                          shift=CAL.shifts[0].name,
                                          out=out / "count-sheet.pdf"))
        db.close()
    for built in made:
        _png(built.path)
        print(f"{built.path} ({built.pages} page{'s' if built.pages != 1 else ''})")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/samples"))
