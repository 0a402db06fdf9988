"""Sample accounting reports for the documentation.

    .venv/bin/python -m dealer_station.reports.accounting_samples docs/samples

Table T1 plays three simulated gaming days (40 rounds each) through the real table service
with the chip tray's accounting, the dealer mispaying 5% of winning wagers by one chip; a credit
slip is then voided by the supervisor. Written: the master game report, the discrepancy report,
a fill slip and a table inventory slip, each rendered to PNG with pdftoppm where installed.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from datetime import date
from pathlib import Path
from zoneinfo import ZoneInfo

from dealer_station import registry
from dealer_station.accounting.settings import AccountingSettings
from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import create_key
from dealer_station.audit.users import Users
from dealer_station.gaming_day import GamingCalendar
from dealer_station.reports.accounting_pdf import (
    build_discrepancy_pdf,
    build_inventory_pdf,
    build_master_game_pdf,
    build_slip_pdf,
)
from dealer_station.reports.master_game import gather
from dealer_station.table.accounting import TableAccounting
from dealer_station.table.days import SIM_PIN, SimClock
from dealer_station.table.parts import SIMULATE_DAYS

CAL = GamingCalendar(zone=ZoneInfo("America/Chicago"))
SETTINGS = AccountingSettings(variance_threshold=2500)
START = date(2026, 3, 2)


def _png(pdf: Path) -> None:
    if shutil.which("pdftoppm"):
        subprocess.run(["pdftoppm", "-r", "80", "-png", str(pdf), str(pdf.with_suffix(""))],
                       check=True)


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        db = open_database(f"sqlite:///{Path(tmp) / 'journal.db'}")
        journal = Journal(db, create_key(Path(tmp) / "journal.key"))
        # The first banked game that simulates whole gaming days with its chip tray.
        simulate_days = next(days for g in registry.REGISTRY.values()
                             if (days := g.supplies(SIMULATE_DAYS)) is not None)
        simulate_days(journal, "T1", 40, days=3, mispay_rate=0.05, seed=2026,
                      settings=SETTINGS, calendar=CAL, start=START, quiet=True)
        book = TableAccounting(journal, "T1", SETTINGS, CAL)
        ledger = book.ledger()
        fills = sorted(k for k in ledger.slips if k[0] == "fill")
        credits = sorted(k for k in ledger.slips if k[0] == "credit")
        if credits:   # a supervisor voids a credit slip, which shows as a variance
            journal.clock = SimClock(journal.clock())
            users = Users(journal)
            sup = users.authenticate("sim-supervisor", SIM_PIN, table_id="T1")
            cashier = users.authenticate("sim-cashier", SIM_PIN, table_id="T1")
            book.void("credit", credits[0][2], credits[0][1], [sup, cashier],
                      "written for the wrong table")
        report = gather(journal, SETTINGS, CAL)
        ledger = book.ledger()
        made = [build_master_game_pdf(journal, report, out=out / "master-game.pdf"),
                build_discrepancy_pdf(journal, report, out=out / "discrepancies.pdf")]
        if fills:
            made.append(build_slip_pdf(journal, ledger, SETTINGS, "fill", fills[0][1],
                                       fills[0][2], out=out / "fill-slip.pdf"))
        made.append(build_inventory_pdf(journal, ledger, SETTINGS, "closer",
                                        START.isoformat(), out=out / "inventory-slip.pdf"))
        db.close()
    for built in made:
        _png(built.path)
        print(f"{built.path} ({built.pages} page{'s' if built.pages != 1 else ''})")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/samples"))
