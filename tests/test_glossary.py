"""One meaning for every figure: docs/reports.md's glossary is the station's
(``accounting/glossary.py``), and the printed reports read back from their PDFs use its labels
with its meanings. "Hold" is win / drop wherever it is printed; house win / wagered is
"Win % of handle"."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pypdf import PdfReader

from dealer_station.accounting.glossary import GLOSSARY, HOLD, WIN_PCT_OF_HANDLE
from dealer_station.cli.main import main

ROOT = Path(__file__).resolve().parents[1]


def _docs_glossary() -> list[tuple[str, str]]:
    text = (ROOT / "docs" / "reports.md").read_text(encoding="utf-8")
    section = text.split("## Glossary", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^- \*\*(.+?)\*\*: (.+)\.$", section, flags=re.M)


def test_the_docs_glossary_is_the_stations() -> None:
    assert _docs_glossary() == [(t.label, t.meaning) for t in GLOSSARY]
    labels = [t.label for t in GLOSSARY]
    assert len(set(labels)) == len(labels)          # a label is defined once


@pytest.fixture(scope="module")
def printed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Two gaming days of La Pair'e with the tray's accounting (fills, credits, a drop, mispays)
    and a voided round, printed as the shift, pit, master game and recall reports: each
    report's text as it reads on paper (whitespace folded)."""
    tmp = tmp_path_factory.mktemp("glossary")
    mp = pytest.MonkeyPatch()
    try:
        mp.setenv("DEALER_STATION_CONFIG", str(tmp))
        (tmp / "station.toml").write_text('[gaming_day]\nstarts = "06:00"\n'
                                          'timezone = "UTC"\n')
        (tmp / "lapaire.toml").write_text((ROOT / "config" / "lapaire.toml").read_text())
        store = ["--db", f"sqlite:///{tmp / 'j.db'}", "--key", str(tmp / "j.key")]
        assert main(["simulate", "--game", "lapaire", "--rounds", "20", "--gaming-days", "2",
                     "--mispay-rate", "0.2", "--seed", "3", "--quiet", "--table", "T1",
                     *store]) == 0
        texts: dict[str, str] = {}
        for name, extra in (("shift", []), ("pit", ["--tables", "T1"]),
                            ("master-game", ["--by-shift"]), ("recall", ["--round", "3"])):
            out = tmp / f"{name}.pdf"
            assert main(["report", name, *extra, "--out", str(out), *store]) == 0, name
            words = " ".join(page.extract_text() for page in PdfReader(str(out)).pages)
            texts[name] = " ".join(words.split())
        return texts
    finally:
        mp.undo()


def test_every_label_a_report_defines_means_what_the_glossary_says(
        printed: dict[str, str]) -> None:
    defined: set[str] = set()
    for name, text in printed.items():
        for term in GLOSSARY:
            # "Label: ..." is a definition (a capital, so "house win: ..." is not "Win: ...").
            for m in re.finditer(rf"(?<![\w%.]){re.escape(term.label)}: ", text):
                said = text[m.start():m.start() + len(term.said())]
                assert said == term.said(), f"{name} defines {term.label!r} as {said!r}"
                defined.add(term.label)
    # Every figure the reports print is defined where it is printed, somewhere.
    assert defined >= {"Wagered", "Winning stakes", "Paid", "House win", "Win % of handle",
                       "Theor. edge", "Theor. win", "Opener", "Closer", "Fills", "Credits",
                       "Drop", "Win", "Hold", "Computed", "Variance", "Returned"}, defined


def test_hold_is_win_over_drop_everywhere(printed: dict[str, str]) -> None:
    # The table's play (house win over the handle) is never called a hold...
    for name in ("shift", "pit"):
        assert WIN_PCT_OF_HANDLE.said() in printed[name], name
        assert not re.search(r"\bHold\b", printed[name]), name
    # ...and the count room's hold is win / drop, beside the table of days that prints it.
    master = printed["master-game"]
    assert HOLD.said() in master and WIN_PCT_OF_HANDLE.label not in master
    # The wager kinds' table heads its columns with the glossary's labels, in its order.
    assert ("Wager kind Rounds Wagered Winning stakes Paid House win Win % of handle "
            "Theor. edge Theor. win") in printed["shift"]
    assert ("Opener Closer Fills Credits Drop Win Hold Computed Variance Theor. win MTD win "
            "MTD hold") in master
