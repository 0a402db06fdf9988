"""One meaning for every figure: each label a report prints over an amount or a ratio, and
what it means.

A label means the same number wherever it is printed, on paper, on a screen or at the
command line: "Hold" is win / drop in every report (the count room's figure, as MICS defines
it), and house win / wagered is "Win % of handle". The reports and the recall take their
figure labels from here and print each label's meaning beneath the table that uses it;
``docs/reports.md``'s glossary is this list (``tests/test_glossary.py`` holds the two equal,
and reads the labels back from the printed reports).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Term:
    label: str      # as printed over a column or beside a figure
    meaning: str    # what it is, printed where it appears

    def said(self) -> str:
        """``Label: meaning.``, as a report's note prints it."""
        return f"{self.label}: {self.meaning}."


WAGERED = Term("Wagered", "the stakes the cards settled (the handle), as the meters count "
                          "them; wagers a void handed back unsettled are not in it")
WINNING_STAKES = Term("Winning stakes", "the stakes of winning wagers, handed back to the "
                                        "players with their wins")
PAID = Term("Paid", "what players won beyond their winning stakes")
HOUSE_WIN = Term("House win", "the stakes lost less the amounts paid (wagered - winning stakes "
                              "- paid): the station's computed win")
WIN_PCT_OF_HANDLE = Term("Win % of handle", "house win / wagered")
RETURNED = Term("Returned", "the stakes a void handed back unsettled; they count in no "
                            "meter")
COLLECTED = Term("Collected", "the stakes of losing wagers, taken by the house")
THEORETICAL_EDGE = Term("Theor. edge", "theoretical win / wagered, exact over the wagers "
                                       "actually made")
THEORETICAL_WIN = Term("Theor. win", "each settled wager times its own spot's house edge, "
                                     "from the par sheet of the configuration version its "
                                     "round was played under")
OPENER = Term("Opener", "the chips in the tray at the start of the gaming day (or shift), "
                        "counted and signed")
CLOSER = Term("Closer", "the chips in the tray at its end, counted and signed")
FILLS = Term("Fills", "chips the cage brought to the table")
CREDITS = Term("Credits", "chips the table sent back to the cage")
DROP = Term("Drop", "the cash and markers counted from the table's drop box")
CASH = Term("Cash", "the currency counted from the drop box")
MARKERS = Term("Markers", "the markers and counter checks counted from the drop box, apart "
                          "from the cash")
WIN = Term("Win", "the statistical win: drop + credits - fills + (closer - opener)")
HOLD = Term("Hold", "win / drop")
COMPUTED = Term("Computed", "the station's win from the rounds it settled (its house win)")
VARIANCE = Term("Variance", "win - computed (negative: the tray is short of what the station "
                            "settled)")
DISPOSITION = Term("Disposition", "what the count room decided about a variance beyond the "
                                  "threshold (explained, adjusted by an entry, or referred "
                                  "to compliance), signed by two accounting users")

# The card room (a pot game's table: its bank, and the rake against its counted box).
RAKE = Term("Rake", "the house's collection from the pots (a drop or a percentage of each "
                    "pot) as the hands journaled it: a pot game's only win, in money where "
                    "the chips are cash")
RAKE_BOX = Term("Rake box", "the rake as the count room counted it from the table's rake box "
                            "after the gaming day: the cash by note and any markers, signed by "
                            "the count team")
RAKE_VARIANCE = Term("Rake variance", "rake box - rake (negative: the box is short of what "
                                      "the hands collected)")
BANK = Term("Bank", "a card room table's chip tray, from which players buy their chips")
CHIP_PURCHASES = Term("Chip purchases", "the chips the bank sold to players at the table, "
                                        "for cash or a marker (buy-ins)")
BANK_EXPECTED = Term("Bank expected", "opener + fills - credits - chip purchases: what the "
                                      "bank should hold at the closer; chips players take "
                                      "away are cashed at the cage, not at the table")
BANK_DIFFERENCE = Term("Bank difference", "closer - bank expected (negative: the bank is "
                                          "short)")
# A tournament's money.
ENTRY_FEES = Term("Entry fees", "what the entries paid to play, the fee times the people "
                                "entered; no refunds")
PRIZES = Term("Prizes", "what the tournament pays its places out of the entry fees")
HOUSE_SHARE = Term("House's share", "entry fees - prizes: what the house keeps (negative: "
                                    "what it adds to the prizes)")

GLOSSARY: tuple[Term, ...] = (
    WAGERED, WINNING_STAKES, PAID, COLLECTED, HOUSE_WIN, WIN_PCT_OF_HANDLE, RETURNED,
    THEORETICAL_EDGE,
    THEORETICAL_WIN, OPENER, CLOSER, FILLS, CREDITS, DROP, CASH, MARKERS, WIN, HOLD, COMPUTED,
    VARIANCE, DISPOSITION, RAKE, RAKE_BOX, RAKE_VARIANCE, BANK, CHIP_PURCHASES, BANK_EXPECTED,
    BANK_DIFFERENCE, ENTRY_FEES, PRIZES, HOUSE_SHARE)


def meanings(terms: Iterable[Term]) -> str:
    """The meanings of ``terms``, one sentence each, for the note beneath a table."""
    return " ".join(t.said() for t in terms)
