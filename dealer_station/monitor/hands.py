"""A Bourré hand as the monitor reads it: who sat in, the deal by seat, who stayed and who
folded in the order they decided, who took the pot, who was bourréd and who reneged.

Pure: the journal's reader (dealer_station/table/monitor_hands.py) builds it from the hand's
typed events, and the pot game's rules (:mod:`dealer_station.monitor.bourre`) read it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class PlayedHand:
    """A finished hand (closed, or voided part way).

    ``seats``: the seats dealt in; ``players``: (seat, player) where the session said who
    sits where (empty when the reading started after the session opened); ``session``: the
    session the hand belongs to; ``dealer``: the dealer's user id, ``dealer_seat`` the seat
    that dealt. ``deal``: (seat, card code) of the first five cards to each seat, in the order
    dealt (the draw is not in it); ``trump_card``: the card turned for trumps (the deal's last,
    which its seat keeps); ``trump``: the trump suit (``S``, ``H``...). ``decisions``: (seat,
    stayed) in the order the players decided. ``winner``: the seat that took the pot (None: no
    one took a majority of tricks, or the hand was voided or dead); ``pot``: the chips in the
    pot the hand played for. ``bourre``: the seats bourréd (no trick taken, or a renege's
    penalty), ``reneges``: the seat of each renege, in order. ``voided``: the hand was voided.
    """

    table: str
    hand_no: int
    dealer: str | None
    dealer_seat: int | None
    session: str
    seats: tuple[int, ...]
    players: tuple[tuple[int, str], ...] = ()
    deal: tuple[tuple[int, str], ...] = ()
    trump_card: str | None = None
    trump: str | None = None
    decisions: tuple[tuple[int, bool], ...] = ()
    winner: int | None = None
    pot: int = 0
    bourre: tuple[int, ...] = ()
    reneges: tuple[int, ...] = ()
    voided: bool = False

    @property
    def round_no(self) -> int:
        """The hand's number, as the journal numbers a table's rounds."""
        return self.hand_no

    @property
    def stayers(self) -> tuple[int, ...]:
        return tuple(s for s, stayed in self.decisions if stayed)

    @property
    def folded(self) -> tuple[int, ...]:
        return tuple(s for s, stayed in self.decisions if not stayed)

    def dealt(self, seat: int) -> tuple[str, ...]:
        """The cards dealt to ``seat`` (its first five)."""
        return tuple(card for s, card in self.deal if s == seat)

    def player(self, seat: int) -> str | None:
        """Who sat at ``seat``, when the session said."""
        return next((p for s, p in self.players if s == seat), None)

    def who(self, seat: int) -> str:
        """The player at ``seat`` as the evidence names them: the player, else the seat of
        the session."""
        return self.player(seat) or f"seat {seat} of session {self.session}"
