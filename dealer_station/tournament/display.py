"""How a tournament is shown, the same on the director's screen and on paper: money, game tags,
a bracket slot's words and the bracket's layout (where each match box goes, which lines join
them). Pure: the screen (Qt) and the printed sheets (reportlab) only scale and draw it.
"""

from __future__ import annotations

from dataclasses import dataclass

from dealer_station.money import Money
from dealer_station.tournament.bracket import BYE, FINAL, SECOND_FINAL, Bracket, Side, Source
from dealer_station.tournament.tournament import Tournament

#: The rulebooks are American: fees and prizes are US dollars, kept in cents, and written as
#: every amount at the station is (``MONEY.text(1500)`` -> ``15.00 USD``).
MONEY = Money("USD", 100)


def tag_marks(tags: int, limit: int) -> str:
    """Game tags as the tags a player wears: ``●●○`` for 2 of 3."""
    return "●" * min(tags, limit) + "○" * max(0, limit - tags)


def place_text(place: int | None) -> str:
    if place is None:
        return ""
    suffix = "th" if 10 <= place % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(
        place % 10, "th")
    return f"{place}{suffix}"


def members_text(members: tuple[str, ...]) -> str:
    return " + ".join(members)


def status_text(status: str) -> str:
    return {"playing": "playing", "eliminated": "eliminated", "disqualified": "disqualified",
            "winner": "winner"}.get(status, status)


def _source_text(source: Source) -> str:
    if source.kind == "seed":
        return f"seed {source.ref}"
    return f"{source.kind} of {source.ref}"


def slot_text(bracket: Bracket, mid: str, index: int) -> str:
    """What a match box says in slot ``index`` (0 or 1): the team, "bye", or where the team
    will come from ("winner of W1-2", "loser of W2-1")."""
    team = bracket.teams_of(mid)[index]
    if team is None:
        spec = bracket.spec(mid)
        if mid == SECOND_FINAL:
            return "if needed"
        return _source_text(spec.a if index == 0 else spec.b)
    return "bye" if team == BYE else team


def side_title(side: Side, round_no: int) -> str:
    if side is Side.FINAL:
        return "Final" if round_no == 1 else "Second final"
    return f"{'Winners' if side is Side.WINNERS else 'Losers'} round {round_no}"


@dataclass(frozen=True, slots=True)
class Box:
    match: str
    side: Side
    round: int
    column: int
    #: The box's centre in rows (0: the top row); rows are one match box apart.
    row: float


@dataclass(frozen=True, slots=True)
class BracketLayout:
    boxes: dict[str, Box]
    #: (from, to): the winner of ``from`` goes on to ``to`` (losers' drops are named in the
    #: box instead: a line across the sides would cross every other).
    links: tuple[tuple[str, str], ...]
    columns: int
    rows: float
    #: Where the losers' side begins (a heading goes above it).
    losers_top: float
    #: Column headings: (column, side, text).
    headings: tuple[tuple[int, Side, str], ...]


def bracket_layout(bracket: Bracket) -> BracketLayout:
    """Winners' side on top, losers' side below it, the finals on the right, each later
    match between the matches it comes from."""
    boxes: dict[str, Box] = {}
    specs = bracket.specs
    winners = [s for s in specs if s.side is Side.WINNERS]
    losers = [s for s in specs if s.side is Side.LOSERS]
    w_rounds = max(s.round for s in winners)
    l_rounds = max((s.round for s in losers), default=0)

    def row_of(source: Source) -> float | None:
        box = boxes.get(source.ref) if source.kind == "winner" else None
        return box.row if box is not None else None

    first = 0
    for s in winners:
        if s.round == 1:
            row = float(first)
            first += 1
        else:
            rows = [r for r in (row_of(s.a), row_of(s.b)) if r is not None]
            row = sum(rows) / len(rows)
        boxes[s.id] = Box(s.id, s.side, s.round, s.round - 1, row)
    losers_top = float(first) + 0.6 if losers else float(first)
    count = 0
    for s in losers:
        rows = [r for r in (row_of(s.a), row_of(s.b)) if r is not None]
        if rows:
            row = sum(rows) / len(rows)
        else:
            row = losers_top + 0.4 + count
            count += 1
        boxes[s.id] = Box(s.id, s.side, s.round, s.round - 1, row)
    final_col = max(w_rounds, l_rounds)
    final = bracket.spec(FINAL)
    rows = [r for r in (row_of(final.a), row_of(final.b)) if r is not None]
    final_row = sum(rows) / len(rows) if rows else 0.0
    boxes[FINAL] = Box(FINAL, Side.FINAL, 1, final_col, final_row)
    boxes[SECOND_FINAL] = Box(SECOND_FINAL, Side.FINAL, 2, final_col + 1, final_row)
    links = [(src.ref, s.id) for s in specs for src in (s.a, s.b)
             if src.kind == "winner" and src.ref in boxes and s.id != SECOND_FINAL]
    links.append((FINAL, SECOND_FINAL))
    headings = [(r - 1, Side.WINNERS, side_title(Side.WINNERS, r)) for r in range(1, w_rounds + 1)]
    headings += [(r - 1, Side.LOSERS, side_title(Side.LOSERS, r))
                 for r in range(1, l_rounds + 1)]
    headings += [(final_col, Side.FINAL, "Final"), (final_col + 1, Side.FINAL, "Second final")]
    bottom = max(b.row for b in boxes.values()) + 1
    return BracketLayout(boxes, tuple(links), final_col + 2, bottom, losers_top,
                         tuple(headings))


def entry_label(t: Tournament, entry: str) -> str:
    """An entry as a sheet names it: ``T01 (Ann + Bob)`` for a team, the player's name."""
    members = t.entries.get(entry, ())
    if len(members) > 1:
        return f"{entry} ({members_text(members)})"
    return entry
