"""The shift report of a Bourré table: a pot game the house does not bank. Where the rules
take no collection there is no house win to chart, and the report says so in a sentence
instead of drawing an empty axis; where they take one (the cash profile's drop), the chart is
the house's collection by hour. Played through the real table service on a real SQLite
journal, read back with pypdf and rendered with pdftoppm."""

from __future__ import annotations

import random
import re
import shutil
import subprocess
from collections import defaultdict
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from card_room_support import open_table, play_sessions, profile
from PIL import Image
from pypdf import PdfReader

from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import create_key
from dealer_station.reports.charts import WIN
from dealer_station.reports.shift import build_shift_report

HANDS = 12


def stepping(start: datetime, seconds: float) -> Callable[[], datetime]:
    """A journal clock that moves ``seconds`` a record: twelve hands span a few hours."""
    now = [start]

    def tick() -> datetime:
        now[0] += timedelta(seconds=seconds)
        return now[0]

    return tick


def played(tmp_path: Path, name: str) -> tuple[Journal, Path]:
    db = open_database(f"sqlite:///{tmp_path / 'journal.db'}")
    start = datetime(2026, 3, 1, 18, 0, tzinfo=UTC)
    journal = Journal(db, create_key(tmp_path / "journal.key"), clock=stepping(start, 20))
    t = open_table(journal, "B1", profile(name))
    play_sessions(t, random.Random(5), HANDS)
    out = tmp_path / "shift.pdf"
    build_shift_report(journal, "B1", out=out)
    return journal, out


def pdf_text(path: Path) -> str:
    return " ".join(" ".join(pg.extract_text().split()) for pg in PdfReader(str(path)).pages)


def first_page_png(pdf: Path) -> Image.Image:
    exe = shutil.which("pdftoppm")
    if exe is None:
        pytest.skip("pdftoppm is not installed (apt-get install poppler-utils)")
    subprocess.run([exe, "-r", "60", "-f", "1", "-l", "1", "-png", str(pdf),
                    str(pdf.with_suffix(""))], check=True, timeout=60)
    (png,) = pdf.parent.glob(f"{pdf.stem}*.png")
    return Image.open(png).convert("RGB")


def bar_pixels(image: Image.Image) -> int:
    """Pixels in the colour of the hourly chart's bars."""
    want = tuple(int(WIN.hexval()[i:i + 2], 16) for i in (2, 4, 6))
    raw = image.tobytes()
    return sum(1 for i in range(0, len(raw), 3)
               if all(abs(raw[i + k] - want[k]) <= 12 for k in range(3)))


def test_a_pot_game_without_a_collection_says_why_it_has_no_hourly_chart(
        tmp_path: Path) -> None:
    journal, out = played(tmp_path, "tournament")
    closes = [r for r in journal.records("B1", kinds=["hand.close"])]
    assert len(closes) >= HANDS and all(r.payload["meters"]["total"]["house_win"] == 0
                                        for r in closes)
    hours = {r.ts[:13] for r in closes}
    assert len(hours) >= 2, "the hands should span more than one hour"
    text = pdf_text(out)
    # No empty axis: no hourly chart, and a sentence that says why.
    assert "by hour (" not in text and "House win by hour" not in text
    assert ("No chart of the house's collection by hour: Bourré is played between the "
            "players for their own pots, and the rules played here took no collection from "
            "any pot in the period, so the house won nothing in any hour.") in text
    # What is meaningful is still drawn: the chips the players put into the pots.
    assert "Chips put into the pots (chips)" in text
    assert bar_pixels(first_page_png(out)) == 0


def test_a_cash_game_charts_the_house_collection_by_hour(tmp_path: Path) -> None:
    journal, out = played(tmp_path, "cash")
    by_hour: dict[str, int] = defaultdict(int)
    for r in journal.records("B1", kinds=["hand.close", "void"]):
        by_hour[datetime.fromisoformat(r.ts).astimezone().strftime("%H:00")] += \
            r.payload["meters"]["total"]["house_win"]
    assert sum(by_hour.values()) >= HANDS          # a one-chip drop from every pot
    text = pdf_text(out)
    assert "House collection by hour (" in text and "House win by hour" not in text
    figures = text.split("House collection by hour (")[-1]
    for hour, chips in by_hour.items():
        assert re.search(rf"{hour} {chips:,}\b", figures), (hour, chips)
    assert "No chart of the house" not in text
    # The bars are drawn: the chart is not an empty axis.
    assert bar_pixels(first_page_png(out)) > 100
