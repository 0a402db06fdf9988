"""Bourré rule profiles: every way two tables may play differently, as a named option.

A profile is plain data (``config/bourre.toml``). ``BourreProfile()`` with no arguments is the
tournament profile, so code and tests can start from it and ``dataclasses.replace`` one option.
``parse_bourre_profiles`` validates the TOML data with errors naming the file, the key and the
reason; ``BourreProfile.to_data()`` gives the canonical dict the journal stores for replay, and
it parses back to an equal profile.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from dealer_station.errors import StationError
from dealer_station.tomlconfig import ConfigError, Section

#: The profile used when a caller does not name one.
DEFAULT_PROFILE = "tournament"
#: Five cards each from one 52-card deck: more than ten players cannot be dealt.
DECK_PLAYER_LIMIT = 10
HAND_SIZE = 5
TRICKS = 5
#: The ranges every number in a profile must keep (docs/bourre.md, "Ranges"): any count of
#: chips (ante, stay chip, caps, drop, starting chips) is at most MAX_CHIPS.
MAX_CHIPS = 1_000_000_000
#: A session lasts at most a day.
MAX_SESSION_MINUTES = 24 * 60
MAX_TAGS_TO_ELIMINATE = 100


class ProfileError(StationError, ValueError):
    """A profile built in code that breaks one of its own rules (``key``: ``reason``)."""

    def __init__(self, profile: str, key: str, reason: str) -> None:
        self.key = key
        self.reason = reason
        super().__init__(f"Bourré profile {profile!r}: {key}: {reason}")


class MisplayPenalty(StrEnum):
    """What happens when a card read breaks the rules of play."""

    #: The card goes back to the hand and the player plays again; no penalty.
    RETRACTION = "retraction"
    #: The card goes back and the player plays again, and she is a reneger: she matches the
    #: pot (capped) and may not win it. The tournament rule.
    RETRACTION_AND_RENEGE = "retraction_and_renege"
    #: The card stands in the trick and she is a reneger (matches the pot, may not win it).
    RENEGE = "renege"


class HouseCollection(StrEnum):
    """How a casino that deals the game is paid; always kept apart from the pot."""

    NONE = "none"
    #: A fixed number of chips out of the pot every hand, taken once the antes are in.
    DROP = "drop"
    #: A percentage of a pot that is won (never of a pot that carries), rounded down, capped.
    PERCENT = "percent"


class ChipKind(StrEnum):
    """What a chip is: a tournament chip (no money) or a cash chip worth ``chip_value``."""

    TOURNAMENT = "tournament"
    CASH = "cash"


#: Most minor units in a major unit (cents per dollar is 100).
MAX_MINOR_UNITS = 1_000_000
#: The most a chip may be worth, in minor units.
MAX_CHIP_VALUE = 1_000_000_000


def default_winners() -> tuple[tuple[int, int], ...]:
    """Winners per table size: fewer than half the table, at least one (5 -> 2, <=3 -> 1)."""
    return tuple((n, max(1, (n - 1) // 2)) for n in range(2, DECK_PLAYER_LIMIT + 1))


@dataclass(frozen=True, slots=True)
class BourreProfile:
    """One rule profile. The defaults are the tournament profile."""

    name: str = DEFAULT_PROFILE
    description: str = "Tournament rules"
    min_players: int = 2
    max_players: int = 7
    #: Chips each player antes every deal (or, with ``dealer_antes_for_all``, per player seated).
    ante: int = 1
    #: Staying costs a second ante (the stay chip).
    second_ante: bool = True
    stay_chips: int = 1
    #: The dealer antes for every player seated; the others ante nothing.
    dealer_antes_for_all: bool = False
    #: Most cards one player may discard and draw.
    draw_limit: int = 4
    #: Players who must stay: ``min_staying`` at a small table, ``min_staying_large_table`` once
    #: ``large_table`` or more are seated. The station refuses a fold that would leave fewer.
    min_staying: int = 2
    min_staying_large_table: int = 3
    large_table: int = 4
    #: Most a bourré or renege costs (it matches the end-of-hand pot up to this); None: no cap.
    bourre_penalty_cap: int | None = 10
    #: A leader holding the ace, king and queen of trumps must lead her highest trump.
    lead_highest_trump_with_ace_king_queen: bool = True
    #: Void in the led suit and unable to beat a trump already played, she must still trump.
    must_trump_even_when_cannot_beat: bool = True
    misplay_penalty: MisplayPenalty = MisplayPenalty.RETRACTION_AND_RENEGE
    house_collection: HouseCollection = HouseCollection.NONE
    house_drop: int = 0
    #: Whole percent of a won pot; rounded down, then capped at ``house_cap`` (None: no cap).
    house_percent: int = 0
    house_cap: int | None = None
    session_chips: int = 100
    session_minutes: int = 30
    #: (table size, winners) for every size from ``min_players`` to ``max_players``.
    winners: tuple[tuple[int, int], ...] = field(default_factory=default_winners)
    tags_to_eliminate: int = 3
    #: Tournament chips are worth no money; cash chips are worth ``chip_value`` minor units of
    #: ``currency`` each (``minor_units`` minor units to the major unit: 100 cents a dollar).
    chips: ChipKind = ChipKind.TOURNAMENT
    currency: str = ""
    minor_units: int = 100
    chip_value: int = 0

    def __post_init__(self) -> None:
        problems = self.problems()
        if problems:
            raise ProfileError(self.name, *problems[0])

    # -- derived rules -------------------------------------------------------------------------

    @property
    def stay_cost(self) -> int:
        return self.stay_chips if self.second_ante else 0

    @property
    def penalised_reneges(self) -> bool:
        """A misplay makes a reneger (penalty, cannot win) rather than a plain retraction."""
        return self.misplay_penalty is not MisplayPenalty.RETRACTION

    @property
    def misplay_stands(self) -> bool:
        """The illegal card stays in the trick instead of going back to the hand."""
        return self.misplay_penalty is MisplayPenalty.RENEGE

    def min_staying_for(self, seated: int) -> int:
        if seated >= self.large_table:
            return self.min_staying_large_table
        return self.min_staying

    def penalty_for(self, pot: int) -> int:
        """What a bourré or a reneger must put up: the end-of-hand pot, capped."""
        if self.bourre_penalty_cap is None:
            return pot
        return min(pot, self.bourre_penalty_cap)

    def house_percent_take(self, pot_won: int) -> int:
        if self.house_collection is not HouseCollection.PERCENT:
            return 0
        take = pot_won * self.house_percent // 100
        return take if self.house_cap is None else min(take, self.house_cap)

    @property
    def is_cash(self) -> bool:
        return self.chips is ChipKind.CASH

    def money_of(self, chips: int) -> int | None:
        """``chips`` in minor units of the currency; None for tournament chips (no money)."""
        return chips * self.chip_value if self.is_cash else None

    def winners_for(self, table_size: int) -> int:
        for size, count in self.winners:
            if size == table_size:
                return count
        raise ValueError(f"profile {self.name!r} has no winners count for a table of "
                         f"{table_size}")

    # -- validation ----------------------------------------------------------------------------

    def problems(self) -> list[tuple[str, str]]:
        """Every rule this profile breaks, as (key, reason); empty when it can be played."""
        out: list[tuple[str, str]] = []

        def need(ok: bool, key: str, reason: str) -> None:
            if not ok:
                out.append((key, reason))

        need(2 <= self.min_players <= DECK_PLAYER_LIMIT, "min_players",
             f"must be from 2 to {DECK_PLAYER_LIMIT}, got {self.min_players}")
        need(self.min_players <= self.max_players <= DECK_PLAYER_LIMIT, "max_players",
             f"must be from min_players ({self.min_players}) to {DECK_PLAYER_LIMIT}, "
             f"got {self.max_players}")
        need(1 <= self.ante <= MAX_CHIPS, "ante",
             f"must be from 1 to {MAX_CHIPS}, got {self.ante}")
        need(1 <= self.stay_chips <= MAX_CHIPS, "stay_chips",
             f"must be from 1 to {MAX_CHIPS}, got {self.stay_chips}")
        need(0 <= self.draw_limit <= HAND_SIZE, "draw_limit",
             f"must be from 0 to {HAND_SIZE}, got {self.draw_limit}")
        need(1 <= self.min_staying <= self.min_players, "min_staying",
             f"must be from 1 to min_players ({self.min_players}), got {self.min_staying}")
        need(2 <= self.large_table <= DECK_PLAYER_LIMIT, "large_table",
             f"must be from 2 to {DECK_PLAYER_LIMIT}, got {self.large_table}")
        need(1 <= self.min_staying_large_table <= self.large_table, "min_staying_large_table",
             f"must be from 1 to large_table ({self.large_table}), "
             f"got {self.min_staying_large_table}")
        need(self.bourre_penalty_cap is None or 1 <= self.bourre_penalty_cap <= MAX_CHIPS,
             "bourre_penalty_cap", f"must be from 1 to {MAX_CHIPS} or \"none\", got "
             f"{self.bourre_penalty_cap}")
        need(0 <= self.house_drop <= MAX_CHIPS, "house.drop",
             f"must be from 0 to {MAX_CHIPS}, got {self.house_drop}")
        need(0 <= self.house_percent <= 100, "house.percent",
             f"must be from 0 to 100, got {self.house_percent}")
        need(self.house_cap is None or 1 <= self.house_cap <= MAX_CHIPS, "house.cap",
             f"must be from 1 to {MAX_CHIPS} or \"none\", got {self.house_cap}")
        if self.house_collection is HouseCollection.DROP:
            need(self.house_drop >= 1, "house.drop",
                 "must be at least 1 when collection is \"drop\"")
        if self.house_collection is HouseCollection.PERCENT:
            need(self.house_percent >= 1, "house.percent",
                 "must be at least 1 when collection is \"percent\"")
        need(1 <= self.session_chips <= MAX_CHIPS, "session.starting_chips",
             f"must be from 1 to {MAX_CHIPS}, got {self.session_chips}")
        need(1 <= self.session_minutes <= MAX_SESSION_MINUTES, "session.minutes",
             f"must be from 1 to {MAX_SESSION_MINUTES}, got {self.session_minutes}")
        need(1 <= self.tags_to_eliminate <= MAX_TAGS_TO_ELIMINATE, "session.tags_to_eliminate",
             f"must be from 1 to {MAX_TAGS_TO_ELIMINATE}, got {self.tags_to_eliminate}")
        if self.is_cash:
            need(len(self.currency) == 3 and self.currency.isascii()
                 and self.currency.isalpha() and self.currency.isupper(), "money.currency",
                 f"must be a three-letter currency code such as \"USD\", got "
                 f"{self.currency!r}")
            need(1 <= self.minor_units <= MAX_MINOR_UNITS, "money.minor_units",
                 f"must be from 1 to {MAX_MINOR_UNITS}, got {self.minor_units}")
            need(1 <= self.chip_value <= MAX_CHIP_VALUE, "money.chip_value",
                 f"must be from 1 to {MAX_CHIP_VALUE} minor units, got {self.chip_value}")
        else:
            need(not self.currency and self.chip_value == 0, "money",
                 "only cash chips are worth money: set chips = \"cash\" or leave the money "
                 "table out")
        sizes = {size for size, _ in self.winners}
        # Only the sizes a deck can seat: out-of-range player counts are reported above, and
        # a range built from them could hold millions of sizes.
        for size in range(max(self.min_players, 2),
                          min(self.max_players, DECK_PLAYER_LIMIT) + 1):
            need(size in sizes, "session.winners",
                 f"needs a count for a table of {size} (every size from min_players to "
                 f"max_players)")
        for size, count in self.winners:
            need(2 <= size <= DECK_PLAYER_LIMIT and 1 <= count < size,
                 f"session.winners.{size}",
                 f"a table of {size} needs from 1 to {size - 1} winners (at least one "
                 f"winner and one loser), got {count}" if size >= 2 else
                 "a table has at least 2 players")
        return out

    # -- journal form --------------------------------------------------------------------------

    def to_data(self) -> dict[str, Any]:
        """The canonical plain form (the TOML table, with every key); parses back equal.

        Tournament chips (the default) add no key, so that a profile written before chips
        could be cash keeps its canonical form and its configuration version."""
        data = self._rules_data()
        if self.is_cash:
            data["chips"] = self.chips.value
            data["money"] = {"currency": self.currency, "minor_units": self.minor_units,
                             "chip_value": self.chip_value}
        return data

    def _rules_data(self) -> dict[str, Any]:
        return {
            "description": self.description,
            "min_players": self.min_players,
            "max_players": self.max_players,
            "ante": self.ante,
            "second_ante": self.second_ante,
            "stay_chips": self.stay_chips,
            "dealer_antes_for_all": self.dealer_antes_for_all,
            "draw_limit": self.draw_limit,
            "min_staying": self.min_staying,
            "min_staying_large_table": self.min_staying_large_table,
            "large_table": self.large_table,
            "bourre_penalty_cap": _cap_data(self.bourre_penalty_cap),
            "lead_highest_trump_with_ace_king_queen":
                self.lead_highest_trump_with_ace_king_queen,
            "must_trump_even_when_cannot_beat": self.must_trump_even_when_cannot_beat,
            "misplay_penalty": self.misplay_penalty.value,
            "house": {
                "collection": self.house_collection.value,
                "drop": self.house_drop,
                "percent": self.house_percent,
                "cap": _cap_data(self.house_cap),
            },
            "session": {
                "starting_chips": self.session_chips,
                "minutes": self.session_minutes,
                "tags_to_eliminate": self.tags_to_eliminate,
                "winners": {str(size): count for size, count in self.winners},
            },
        }


def _cap_data(cap: int | None) -> int | str:
    return "none" if cap is None else cap


def _cap(section: Section, name: str, default: int | None) -> int | None:
    value = section.raw(name, _cap_data(default))
    if value == "none":
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise section.error(name, f"must be a whole number or \"none\", got {value!r}")
    if not 1 <= value <= MAX_CHIPS:
        raise section.error(name, f"must be from 1 to {MAX_CHIPS} or \"none\", got {value}")
    return value


def parse_bourre_profile(name: str, data: Mapping[str, Any], file: str,
                         path: str | None = None) -> BourreProfile:
    """One profile table (``[profiles.<name>]``). Missing keys take the tournament value."""
    key = path if path is not None else f"profiles.{name}"
    sec = Section(dict(data), file, key)
    base = BourreProfile()
    house = sec.section("house", required=False)
    chips = ChipKind(sec.str("chips", base.chips.value,
                             choices=tuple(c.value for c in ChipKind)))
    money = sec.section("money", required=False)
    if chips is ChipKind.CASH and not money.data:
        raise sec.error("money", "cash chips need a money table: currency, minor_units and "
                                 "chip_value (what one chip is worth, in minor units)")
    if chips is ChipKind.TOURNAMENT and money.data:
        raise sec.error("money", "only cash chips are worth money: set chips = \"cash\" or "
                                 "leave the money table out")
    session = sec.section("session", required=False)
    winners_sec = session.section("winners", required=False)
    winners: list[tuple[int, int]] = []
    winners_given = bool(winners_sec.data)
    for size_text in list(winners_sec.data):
        try:
            size = int(size_text)
        except ValueError:
            raise winners_sec.error(size_text, "must be a table size (a whole number of "
                                               "players)") from None
        if not 2 <= size <= DECK_PLAYER_LIMIT:
            raise winners_sec.error(size_text, f"a table size must be from 2 to "
                                               f"{DECK_PLAYER_LIMIT} players, got {size}")
        winners.append((size, winners_sec.int(size_text, minimum=1, maximum=size - 1)))
    winners_sec.finish()
    try:
        profile = BourreProfile(
            name=name,
            description=sec.str("description", base.description),
            min_players=sec.int("min_players", base.min_players, minimum=2,
                                maximum=DECK_PLAYER_LIMIT),
            max_players=sec.int("max_players", base.max_players, minimum=2,
                                maximum=DECK_PLAYER_LIMIT),
            ante=sec.int("ante", base.ante, minimum=1, maximum=MAX_CHIPS),
            second_ante=sec.bool("second_ante", base.second_ante),
            stay_chips=sec.int("stay_chips", base.stay_chips, minimum=1, maximum=MAX_CHIPS),
            dealer_antes_for_all=sec.bool("dealer_antes_for_all", base.dealer_antes_for_all),
            draw_limit=sec.int("draw_limit", base.draw_limit, minimum=0, maximum=HAND_SIZE),
            min_staying=sec.int("min_staying", base.min_staying, minimum=1,
                                maximum=DECK_PLAYER_LIMIT),
            min_staying_large_table=sec.int("min_staying_large_table",
                                            base.min_staying_large_table, minimum=1,
                                            maximum=DECK_PLAYER_LIMIT),
            large_table=sec.int("large_table", base.large_table, minimum=2,
                                maximum=DECK_PLAYER_LIMIT),
            bourre_penalty_cap=_cap(sec, "bourre_penalty_cap", base.bourre_penalty_cap),
            lead_highest_trump_with_ace_king_queen=sec.bool(
                "lead_highest_trump_with_ace_king_queen",
                base.lead_highest_trump_with_ace_king_queen),
            must_trump_even_when_cannot_beat=sec.bool(
                "must_trump_even_when_cannot_beat", base.must_trump_even_when_cannot_beat),
            misplay_penalty=MisplayPenalty(sec.str(
                "misplay_penalty", base.misplay_penalty.value,
                choices=tuple(m.value for m in MisplayPenalty))),
            house_collection=HouseCollection(house.str(
                "collection", base.house_collection.value,
                choices=tuple(h.value for h in HouseCollection))),
            house_drop=house.int("drop", base.house_drop, minimum=0, maximum=MAX_CHIPS),
            house_percent=house.int("percent", base.house_percent, minimum=0, maximum=100),
            house_cap=_cap(house, "cap", base.house_cap),
            session_chips=session.int("starting_chips", base.session_chips, minimum=1,
                                      maximum=MAX_CHIPS),
            session_minutes=session.int("minutes", base.session_minutes, minimum=1,
                                        maximum=MAX_SESSION_MINUTES),
            tags_to_eliminate=session.int("tags_to_eliminate", base.tags_to_eliminate,
                                          minimum=1, maximum=MAX_TAGS_TO_ELIMINATE),
            winners=tuple(sorted(winners)) if winners_given else base.winners,
            chips=chips,
            currency=money.str("currency") if money.data else "",
            minor_units=money.int("minor_units", 100, minimum=1, maximum=MAX_MINOR_UNITS)
            if money.data else 100,
            chip_value=money.int("chip_value", minimum=1, maximum=MAX_CHIP_VALUE)
            if money.data else 0,
        )
    except ProfileError as exc:
        # The profile's own cross-checks found a rule broken: report it with the TOML key.
        raise sec.error(exc.key, exc.reason) from None
    house.finish()
    money.finish()
    session.finish()
    sec.finish()
    return profile


def parse_bourre_profiles(data: dict[str, Any], file: str) -> dict[str, BourreProfile]:
    """Every ``[profiles.<name>]`` table of a Bourré config file. Pure: no file reading."""
    root = Section(data, file)
    profiles: dict[str, BourreProfile] = {}
    for name, sec in root.sections("profiles"):
        profiles[name] = parse_bourre_profile(name, sec.data, file, sec.path)
    root.finish()
    if not profiles:
        raise ConfigError(file, "profiles", "no Bourré profile is defined (add a "
                                            "[profiles.tournament] table)")
    return profiles
