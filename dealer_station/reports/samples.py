"""Sample reports for the documentation, from a journal made the way a floor makes one.

    .venv/bin/python -m dealer_station.reports.samples docs/samples

Each game plays its own sample tables into one witnessed journal, in the registry's order
(its ``report_samples`` part): La Pair'e's table T1 an eight-hour shift through the real table
service and simulated shoe (two dealers, a misread corrected by a supervisor, a device fault
and a void, three configuration changes, two of them approved by a second person); Bourré's
table B1 ten 30-minute sessions of named players (bourrés, reneges, carried pots; the last
session left under way) under a profile with a house collection, and B2 three cash sessions.
Every report each game asks for is written from that journal, and its pages rendered to PNG
with pdftoppm where it is installed. Then the game-protection report of a simulated gaming day
with a biased shoe and a seat with card knowledge (:mod:`~dealer_station.reports.
protection_samples`, its own journal).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from dealer_station import registry
from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import create_key

SHIFT_START = datetime(2026, 3, 6, 23, 0, tzinfo=UTC)   # 17:00 in Louisiana
SECONDS_PER_APPEND = 11


class SampleClock:
    """The journal's clock in the samples: each record a ``step`` after the one before (a
    game sets its own pace)."""

    def __init__(self, start: datetime, step: float) -> None:
        self.now, self.step = start, timedelta(seconds=step)
        self.lock = threading.Lock()

    def __call__(self) -> datetime:
        with self.lock:
            self.now += self.step
            return self.now


@dataclass(frozen=True)
class SampleReport:
    """A report to write of a game's sample tables: the report, its table, the file's name
    and (a recall) the round."""

    kind: str
    table: str
    name: str
    round_no: int | None = None


@contextmanager
def _witnessed(journal: Journal, where: Path, out: Path) -> Iterator[None]:
    """The regulator's witness, in this process, cosigning each checkpoint the sample table
    signs; the station's and the witness's public keys are written beside the samples, so
    that the samples' pages can be checked with them alone (docs/journal.md)."""
    from dealer_station.floor.witness_push import WitnessConfig, WitnessPusher
    from dealer_station.witness.files import init_state, open_state
    from dealer_station.witness.server import WitnessServer
    from dealer_station.witness.service import Witness

    assert journal.signer is not None
    init_state(where / "witness", "regulator.example/witness-1")
    signer, state = open_state(where / "witness")
    server = WitnessServer(Witness(signer, [journal.signer.verifier], state), "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    pusher = WitnessPusher(journal, [WitnessConfig(server.url, signer.verifier)])
    pusher.start()
    try:
        yield
        journal.anchor_written()
        pusher.flush(timeout=60)
    finally:
        pusher.stop()
        server.shutdown()
        server.server_close()
        thread.join()
        state.close()
    (out / "station.pub").write_text(journal.signer.verifier.vkey() + "\n")
    (out / "witness.pub").write_text(signer.verifier.vkey() + "\n")


def make_samples(out: Path) -> list[Path]:
    from dealer_station.reports.catalog import build_report
    from dealer_station.reports.parts import REPORT_SAMPLES

    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp)
        db = open_database(f"sqlite:///{where / 'journal.db'}")
        try:
            clock = SampleClock(SHIFT_START, SECONDS_PER_APPEND)
            journal = Journal(db, create_key(where / "journal.key", "casino.example/pit1"),
                              clock=clock)
            wanted: list[SampleReport] = []
            with _witnessed(journal, where, out):
                # Each game plays its sample tables in turn (the registry's order).
                for g in registry.REGISTRY.values():
                    samples = g.supplies(REPORT_SAMPLES)
                    if samples is not None:
                        wanted += samples(journal, clock, where)
            for r in wanted:
                report = build_report(r.kind, journal, r.table, out=out / f"{r.name}.pdf",
                                      round_no=r.round_no)
                written.append(report.path)
        finally:
            db.close()
    exe = shutil.which("pdftoppm")
    for pdf in written:
        for old in out.glob(f"{pdf.stem}-*.png"):
            old.unlink()
        if exe:
            subprocess.run([exe, "-r", "72", "-png", str(pdf), str(out / pdf.stem)],
                           check=True)
    return written


if __name__ == "__main__":
    from dealer_station.reports import protection_samples

    target = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/samples")
    for path in make_samples(target):
        print(f"wrote {path}")
    print(f"wrote {protection_samples.main(target)}")
