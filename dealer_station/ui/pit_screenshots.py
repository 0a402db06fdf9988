"""Screenshots of the pit window (``dealer-station pit --screenshots``), and the pit after a
failover for the documentation's samples::

    .venv/bin/python -m dealer_station.ui.pit_screenshots docs/samples
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from dealer_station.audit.journal import Journal
from dealer_station.errors import StationError
from dealer_station.floor.alerts import Pit
from dealer_station.ui import theme
from dealer_station.ui.pit_window import PitWindow

if TYPE_CHECKING:
    from dealer_station.audit.db import Database
    from dealer_station.audit.keys import JournalKey



def _demo_window(floor: Database, key: JournalKey, tmp: Path) -> PitWindow:
    """The pit east over the demo floor, shown at the table screen's size."""
    from dealer_station.app import fast_hasher
    from dealer_station.floor.alerts import PitSettings

    # The demo tables dealt in the last hour: a gaming day begun two hours ago holds them
    # whatever the time the screenshots are taken at.
    began = (datetime.now().astimezone() - timedelta(hours=2)).time().replace(
        minute=0, second=0, microsecond=0)
    pit = Pit(Journal(floor, key), "east", PitSettings(payout_above=100, gaming_day_starts=began))
    w = PitWindow(pit, hasher=fast_hasher(), reports_dir=tmp / "reports", auto_refresh=False)
    w.resize(*theme.WINDOW_SIZE)
    w.show()
    return w

def pit_screenshots(out: Path, *, work: Path | None = None) -> list[Path]:
    """Screenshots of the pit window at 1280x800 (a throwaway PostgreSQL floor with the demo
    pit of :mod:`dealer_station.ui.pit_demo`): the grid with alerts, and a drill-down."""
    import tempfile

    from PySide6.QtWidgets import QApplication

    from dealer_station.app import fast_hasher
    from dealer_station.audit.keys import create_key
    from dealer_station.audit.pgcluster import MISSING_MESSAGE, PgCluster, find_bindir
    from dealer_station.ui.pit_demo import demo_pit

    app = QApplication.instance() or QApplication([])
    assert isinstance(app, QApplication)
    theme.apply(app)
    bindir = find_bindir()
    if bindir is None:
        raise StationError(MISSING_MESSAGE)
    out.mkdir(parents=True, exist_ok=True)
    shots: list[Path] = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = work or Path(tmp_name)
        with PgCluster(bindir) as cluster:
            url = cluster.create_database("pit_screens")
            key = create_key(tmp / "floor.key")
            with demo_pit(tmp, url, key, hasher=fast_hasher()) as floor:
                w = _demo_window(floor, key, tmp)

                def grab(name: str) -> None:
                    for _ in range(5):
                        app.processEvents()
                    path = out / f"pit-{name}.png"
                    w.grab().save(str(path))
                    shots.append(path)

                w.sign.user_id.setText("sue")
                w.sign.pin.setText("2468")
                w.sign.sign_in()
                if w.view and w.view.alerts:
                    w.select_alert(next((a.id for a in w.view.alerts
                                         if a.category == "halt"), w.view.alerts[0].id))
                grab("grid")
                # A game-protection alert (T6's shoe) and its evidence page.
                shoe = next((a for a in (w.view.alerts if w.view else [])
                             if a.category == "protection" and "a 7" in a.what), None)
                if shoe is not None:
                    w.select_alert(shoe.id)
                    grab("protection-alert")
                    w.open_evidence(shoe)
                    grab("protection-evidence")
                    w.stack.setCurrentWidget(w.main)
                rows = [r.table for r in (w.view.rows if w.view else [])]
                w.open_table(rows.index("T3") if "T3" in rows else 0)
                w.drill.rounds.setCurrentRow(w.drill.rounds.count() - 1)   # the voided round
                grab("recall")
                w.drill.tabs.setCurrentIndex(1)
                grab("events")
                w.drill.tabs.setCurrentIndex(3)
                w.drill.verify()
                grab("chain")
                w.drill.open("T1")
                w.drill.tabs.setCurrentIndex(2)
                grab("meters")
                w.drill.tabs.setCurrentIndex(4)
                w.drill.make_report("pit")
                grab("reports")
                w.close()
                w.pit.db.close()
    return shots


def pit_failover_screenshot(out: Path, *, work: Path | None = None) -> Path:
    """``pit-after-failover.png`` at 1280x800: the demo pit on a primary and a standby
    through a hard failover (:mod:`dealer_station.ui.pit_failover_demo`), read through the
    multi-host URL: the line names the new primary and the old one, the message line says the
    failover, T7's *Floor lost records* selected in the queue, and the tab of what the floor
    lost (Dee's deactivation) beside it, for the operator signed in to publish again."""
    import tempfile

    from PySide6.QtWidgets import QApplication

    from dealer_station.app import fast_hasher
    from dealer_station.audit.keys import create_key
    from dealer_station.audit.pgcluster import MISSING_MESSAGE, PgPair, find_bindir
    from dealer_station.ui.pit_demo import PIN
    from dealer_station.ui.pit_failover_demo import failed_over_pit

    app = QApplication.instance() or QApplication([])
    assert isinstance(app, QApplication)
    theme.apply(app)
    bindir = find_bindir()
    if bindir is None:
        raise StationError(MISSING_MESSAGE)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "pit-after-failover.png"
    windows: list[PitWindow] = []

    def first_read(floor: Database) -> None:
        w = _demo_window(floor, key, tmp)
        windows.append(w)

    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = work or Path(tmp_name)
        key = create_key(tmp / "floor.key")
        pair = PgPair.start(bindir, synchronous=False)
        try:
            with failed_over_pit(tmp, pair, key, hasher=fast_hasher(), before=first_read):
                (w,) = windows
                w.sign.user_id.setText("setup")
                w.sign.pin.setText(PIN)
                w.sign.sign_in()
                w.refresh_now()         # the new primary, said once on the message line
                behind = next((a for a in (w.view.alerts if w.view else [])
                               if a.category == "floor.behind"), None)
                if behind is not None:
                    w.select_alert(behind.id)
                if w.lost_panel.table.rowCount():
                    w.lost_panel.table.selectRow(0)
                for _ in range(5):
                    app.processEvents()
                w.grab().save(str(path))
                w.close()
        finally:
            pair.stop()
    return path


if __name__ == "__main__":
    import sys

    print(pit_failover_screenshot(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/samples")))
