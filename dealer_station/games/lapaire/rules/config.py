"""The La Pair'e table configuration: prices, offered wagers, paytables, limits, money.

``parse_lapaire_config(data, file)`` is pure: it takes the parsed TOML (or the journal's stored
``to_data()`` form) and returns a frozen ``LaPaireConfig``, or raises ConfigError naming the
file, the key and the reason. Every legal spot of a kind is priced at the kind's ``pays``
unless a ``[[wagers.<kind>.spot]]`` entry gives it its own price or takes it off the table.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from dealer_station.cards import CardError, parse_value
from dealer_station.games.lapaire.rules.layout import (
    SPOT_EXAMPLES,
    SPOT_SIZE,
    is_legal_spot,
    sort_values,
    spot_label,
    spots_in_order,
)
from dealer_station.money import Money
from dealer_station.tomlconfig import ConfigError, Section

#: Every bet kind the engine knows, in the order tables and screens list them.
BET_KINDS: tuple[str, ...] = (
    "straight", "split", "three", "corner", "red", "black", "lapaire", "any_pair", "poker",
)
#: A seat needs one of these before it may place any other wager.
FIRST_CARD_KINDS: tuple[str, ...] = ("straight", "split", "three", "corner")
OPTIONAL_KINDS: tuple[str, ...] = ("red", "black", "lapaire", "any_pair", "poker")
#: Kinds whose wagers cover values on the layout.
SPOT_KINDS: tuple[str, ...] = ("straight", "split", "three", "corner", "lapaire")
EVEN_KINDS: tuple[str, ...] = ("red", "black")
#: The card after which each kind settles.
STAGE_OF: dict[str, int] = {
    "straight": 1, "split": 1, "three": 1, "corner": 1, "red": 1, "black": 1,
    "lapaire": 2, "any_pair": 2, "poker": 3,
}
KIND_LABELS: dict[str, str] = {
    "straight": "Straight-up", "split": "Split", "three": "Three Cards", "corner": "Corner",
    "red": "First Card Red", "black": "First Card Black", "lapaire": "La Pair'e Card",
    "any_pair": "Any Pair'e", "poker": "3rd Card Poker",
}


def wager_labels() -> dict[str, str]:
    """The registry's ``wager_labels`` part: the wager kinds in the felt's order, each with
    its name on the felt (the shift report's meters and the pit's payout alerts say them)."""
    return {kind: KIND_LABELS[kind] for kind in BET_KINDS}


#: Poker hands from best to worst; a paytable pays any subset of them.
POKER_HANDS: tuple[str, ...] = (
    "two_jokers", "mini_royal", "straight_flush", "three_of_a_kind", "straight", "flush", "pair",
)
HAND_LABELS: dict[str, str] = {
    "two_jokers": "Two Jokers", "mini_royal": "Mini Royal", "straight_flush": "Straight Flush",
    "three_of_a_kind": "Three of a Kind", "straight": "Straight", "flush": "Flush",
    "pair": "Pair",
}

_ODDS_RE = re.compile(r"^\s*([0-9]+)\s*(?:to|:)\s*([0-9]+)\s*$", re.IGNORECASE)
_PERCENT_RE = re.compile(r"^\s*([0-9]{1,3}(?:\.[0-9]{1,6})?)\s*%\s*$")

#: The ranges every number in a table file must keep (docs/lapaire.md, "Ranges"). A limit or
#: a chip is at most MAX_AMOUNT minor units and a price at most MAX_ODDS_TERM to 1, so the
#: largest win (10**18) still fits a signed 64-bit meter.
MAX_AMOUNT = 1_000_000_000_000
#: Each term of a price "WIN to STAKE" is from 1 to this.
MAX_ODDS_TERM = 1_000_000
#: Minor units in one unit of the currency (100 for cents).
MAX_MINOR_UNITS = 1_000_000
_CURRENCY_RE = re.compile(r"^[A-Z]{3}$")


@dataclass(frozen=True, slots=True)
class Odds:
    """A price "``win`` to ``stake``": a winning wager of ``stake`` units wins ``win`` units.

    Payouts are whole minor units: ``pay(amount)`` rounds a fractional win DOWN (e.g. 3 to 2
    on 5 pays 7), so a table that prices odds with a denominator above 1 should take amounts
    in multiples of it.
    """

    win: int
    stake: int = 1

    def __post_init__(self) -> None:
        for name in ("win", "stake"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"odds must be positive whole numbers, got {self.win!r} to "
                                 f"{self.stake!r}")

    def pay(self, amount: int) -> int:
        """The win (excluding the returned stake) on ``amount``, rounded down to the minor unit."""
        return amount * self.win // self.stake

    @property
    def ratio(self) -> Fraction:
        return Fraction(self.win, self.stake)

    def __str__(self) -> str:
        return f"{self.win} to {self.stake}"

    @classmethod
    def parse(cls, value: Any) -> Odds:
        """``"12 to 1"``, ``"3:2"`` or a whole number ``12`` (meaning 12 to 1)."""
        if isinstance(value, bool):
            raise ValueError(f"must be odds such as \"12 to 1\", got {value!r}")
        if isinstance(value, int):
            if value < 1:
                raise ValueError(f"odds must be positive, got {value}")
            if value > MAX_ODDS_TERM:
                raise ValueError(f"odds must be from 1 to {MAX_ODDS_TERM} to 1, got {value}")
            return cls(value, 1)
        if isinstance(value, str):
            m = _ODDS_RE.match(value)
            if m:
                terms = m.group(1, 2)
                if any(len(t.lstrip("0")) > len(str(MAX_ODDS_TERM)) for t in terms):
                    win = stake = MAX_ODDS_TERM + 1  # too many digits: out of range below
                else:
                    win, stake = int(terms[0]), int(terms[1])
                if win < 1 or stake < 1:
                    raise ValueError(f"odds must be positive, got {value!r}")
                if win > MAX_ODDS_TERM or stake > MAX_ODDS_TERM:
                    raise ValueError(f"each term of the odds must be from 1 to "
                                     f"{MAX_ODDS_TERM}, got {value!r}")
                return cls(win, stake)
        raise ValueError(f"must be odds such as \"12 to 1\", got {value!r}")


@dataclass(frozen=True, slots=True)
class Limits:
    """Table minimum and maximum for one wager kind, in minor units, per seat and spot."""

    minimum: int
    maximum: int

    def __post_init__(self) -> None:
        if self.minimum < 1 or self.maximum < self.minimum:
            raise ValueError(f"limits need 1 <= min <= max, got min {self.minimum}, "
                             f"max {self.maximum}")


@dataclass(frozen=True, slots=True)
class SpotPrice:
    """One spot on the layout (values in canonical order), its price, and whether it is offered
    (on its own; the kind must be offered too)."""

    values: tuple[str, ...]
    pays: Odds
    offered: bool

    @property
    def label(self) -> str:
        return spot_label(self.values)


@dataclass(frozen=True, slots=True)
class SpotWager:
    """A kind of wager on values: straight, split, three, corner, or La Pair'e Card.

    ``spots`` holds every legal spot of the kind, in layout order, with its resolved price.
    """

    kind: str
    offered: bool
    limits: Limits
    pays: Odds
    spots: tuple[SpotPrice, ...]

    def spot(self, values: Iterable[str]) -> SpotPrice | None:
        """The spot covering exactly ``values`` (any order), or None if not on the layout."""
        key = sort_values(values)
        for s in self.spots:
            if s.values == key:
                return s
        return None

    def offered_spots(self) -> tuple[SpotPrice, ...]:
        return tuple(s for s in self.spots if s.offered) if self.offered else ()


@dataclass(frozen=True, slots=True)
class EvenWager:
    """First Card Red or First Card Black: a joker is neither colour."""

    kind: str
    offered: bool
    limits: Limits
    pays: Odds


@dataclass(frozen=True, slots=True)
class AnyPairWager:
    """Any Pair'e: first and second card a pair; a pair of jokers has its own price."""

    kind: str
    offered: bool
    limits: Limits
    pays: Odds
    two_jokers_pays: Odds


@dataclass(frozen=True, slots=True)
class PokerWager:
    """3rd Card Poker, paid from the paytable named ``paytable``."""

    kind: str
    offered: bool
    limits: Limits
    paytable: str


WagerKind = SpotWager | EvenWager | AnyPairWager | PokerWager


@dataclass(frozen=True, slots=True)
class Paytable:
    """A named poker paytable: the hands it pays, best first. A hand not listed loses."""

    name: str
    pays: tuple[tuple[str, Odds], ...]

    def odds(self, hand: str) -> Odds | None:
        for name, odds in self.pays:
            if name == hand:
                return odds
        return None

    def as_dict(self) -> dict[str, Odds]:
        return dict(self.pays)


@dataclass(frozen=True, slots=True)
class LaPaireConfig:
    """One La Pair'e table: every wager kind's prices and limits, paytables, money, par sheet
    warning threshold. Immutable and comparable; ``to_data()`` round-trips through
    ``parse_lapaire_config``."""

    money: Money
    straight: SpotWager
    split: SpotWager
    three: SpotWager
    corner: SpotWager
    red: EvenWager
    black: EvenWager
    lapaire: SpotWager
    any_pair: AnyPairWager
    poker: PokerWager
    paytables: tuple[Paytable, ...]
    warn_house_edge_above: Fraction

    def wager(self, kind: str) -> WagerKind:
        """The configuration of bet ``kind`` (one of BET_KINDS); KeyError if unknown."""
        if kind not in BET_KINDS:
            raise KeyError(kind)
        result: WagerKind = getattr(self, kind)
        return result

    def wagers(self) -> tuple[WagerKind, ...]:
        return tuple(self.wager(k) for k in BET_KINDS)

    def is_offered(self, kind: str) -> bool:
        return self.wager(kind).offered

    def paytable(self, name: str | None = None) -> Paytable:
        """The paytable ``name``, by default the one the poker wager uses."""
        wanted = self.poker.paytable if name is None else name
        for p in self.paytables:
            if p.name == wanted:
                return p
        raise KeyError(wanted)

    def to_data(self) -> dict[str, Any]:
        """Canonical plain data (str, int, bool, lists, dicts) that parses back to ``self``."""
        wagers: dict[str, Any] = {}
        for w in self.wagers():
            entry: dict[str, Any] = {"offered": w.offered, "min": w.limits.minimum,
                                     "max": w.limits.maximum}
            if isinstance(w, PokerWager):
                entry["paytable"] = w.paytable
            else:
                entry["pays"] = str(w.pays)
            if isinstance(w, AnyPairWager):
                entry["two_jokers_pays"] = str(w.two_jokers_pays)
            if isinstance(w, SpotWager):
                overrides = [
                    {"values": list(s.values), "pays": str(s.pays), "offered": s.offered}
                    for s in w.spots if s.pays != w.pays or not s.offered
                ]
                if overrides:
                    entry["spot"] = overrides
            wagers[w.kind] = entry
        return {
            "money": {"currency": self.money.currency, "minor_units": self.money.minor_units,
                      "chips": list(self.money.chips)},
            "par_sheet": {"warn_house_edge_above": _format_percent(self.warn_house_edge_above)},
            "wagers": wagers,
            "poker_paytables": {p.name: {h: str(o) for h, o in p.pays} for p in self.paytables},
        }

    def with_changes(
        self,
        offered: Mapping[str, bool] | None = None,
        poker_paytable: str | None = None,
        limits: Mapping[str, Limits | tuple[int, int]] | None = None,
    ) -> LaPaireConfig:
        """A copy with some wagers offered or withdrawn, another poker paytable, or new limits
        (``{kind: Limits(min, max)}`` or ``{kind: (min, max)}``), validated exactly as a file
        is. ``offered`` keys are a kind (``"poker"``) or one spot of a kind (``"split 7-JK"``,
        at its configured price). Raises ConfigError (file ``<changes>``) naming the bad key."""
        data = self.to_data()
        wagers = data["wagers"]
        for key, flag in (offered or {}).items():
            kind, _, label = key.partition(" ")
            if kind not in wagers:
                raise ConfigError(CHANGES, f"offered.{key}", _unknown_kind(kind))
            if not label:
                wagers[kind]["offered"] = flag
                continue
            entry = _spot_entry(wagers[kind], kind, label, f"offered.{key}")
            entry["offered"] = flag
        if poker_paytable is not None:
            wagers["poker"]["paytable"] = poker_paytable
        for kind, lim in (limits or {}).items():
            if kind not in wagers:
                raise ConfigError(CHANGES, f"limits.{kind}", _unknown_kind(kind))
            lo, hi = (lim.minimum, lim.maximum) if isinstance(lim, Limits) else lim
            wagers[kind]["min"], wagers[kind]["max"] = lo, hi
        return parse_lapaire_config(data, CHANGES)


#: The file name ConfigErrors carry when ``with_changes`` refuses a change.
CHANGES = "<changes>"


def _spot_entry(kind_data: dict[str, Any], kind: str, label: str, key: str) -> dict[str, Any]:
    """The ``spot`` override entry in ``kind_data`` for the spot ``label`` ("7-JK"), added at
    the kind's price if the spot has none yet."""
    if kind not in SPOT_KINDS:
        raise ConfigError(CHANGES, key, f"{kind} has no spots on the layout")
    try:
        values = sort_values(parse_value(v) for v in label.split("-"))
    except CardError as exc:
        raise ConfigError(CHANGES, key, str(exc)) from None
    spots: list[dict[str, Any]] = kind_data.setdefault("spot", [])
    for entry in spots:
        if sort_values(entry["values"]) == values:
            return entry
    entry = {"values": list(values), "pays": kind_data["pays"]}
    spots.append(entry)
    return entry


def _unknown_kind(kind: str) -> str:
    return f"unknown wager kind {kind!r} (the engine knows: {', '.join(BET_KINDS)})"


def _format_percent(value: Fraction) -> str:
    pct = value * 100
    digits = 0
    while pct.denominator != 1 and digits < 12:
        pct *= 10
        digits += 1
    n = int(pct)
    if digits == 0:
        return f"{n}%"
    text = f"{n:0{digits + 1}d}"
    return f"{text[:-digits]}.{text[-digits:]}%"


def _parse_percent(sec: Section, name: str) -> Fraction:
    raw = sec.raw(name)
    if raw is None:
        raise sec.error(name, "is required (a percentage as text, e.g. \"15%\")")
    if not isinstance(raw, str):
        raise sec.error(name, f"must be a percentage as text, e.g. \"15%\", got {raw!r}")
    m = _PERCENT_RE.match(raw)
    if not m:
        raise sec.error(name, f"must be a percentage such as \"15%\" or \"12.5%\" (at most "
                              f"6 decimals), got {raw!r}")
    value = Fraction(m.group(1)) / 100
    if not 0 < value < 1:
        raise sec.error(name, f"must be above 0% and below 100%, got {raw!r}")
    return value


def _odds(sec: Section, name: str, default: Odds | None = None) -> Odds:
    if default is not None and not sec.has(name):
        sec.raw(name)  # mark as read
        return default
    raw = sec.raw(name)
    if raw is None:
        raise sec.error(name, "is required (odds such as \"12 to 1\")")
    try:
        return Odds.parse(raw)
    except ValueError as exc:
        raise sec.error(name, str(exc)) from None


def _limits(sec: Section) -> Limits:
    # Annotated: tomlconfig's getters are named int/str/bool, which confuses type checkers.
    lo: int = sec.int("min", minimum=1, maximum=MAX_AMOUNT)
    hi: int = sec.int("max", minimum=1, maximum=MAX_AMOUNT)
    if hi < lo:
        raise sec.error("max", f"must be at least min ({lo}), got {hi}")
    return Limits(lo, hi)


def _values(sec: Section, name: str) -> tuple[str, ...]:
    raw = sec.list(name)
    values: list[str] = []
    for item in raw:
        try:
            values.append(parse_value(item))
        except CardError as exc:
            raise sec.error(name, str(exc)) from None
    if len(set(values)) != len(values):
        raise sec.error(name, f"names a value twice: {raw!r}")
    return sort_values(values)


def _spot_wager(sec: Section, kind: str) -> SpotWager:
    offered = sec.bool("offered")
    limits = _limits(sec)
    pays = _odds(sec, "pays")
    overrides: dict[tuple[str, ...], SpotPrice] = {}
    for i, item in enumerate(sec.list("spot", [])):
        ssec = Section(item, sec.file, f"{sec.key('spot')}[{i}]")
        values = _values(ssec, "values")
        size = SPOT_SIZE[kind]
        if len(values) != size:
            raise ssec.error("values", f"a {kind} spot covers {size} value"
                             f"{'s' if size > 1 else ''}, got {spot_label(values) or 'none'}")
        if not is_legal_spot(kind, values):
            raise ssec.error("values", f"{spot_label(values)} is not a {kind} spot on the "
                             f"layout (a {kind} covers {SPOT_EXAMPLES[kind]})")
        if values in overrides:
            raise ssec.error("values", f"spot {spot_label(values)} is listed twice")
        overrides[values] = SpotPrice(values, _odds(ssec, "pays", pays),
                                      ssec.bool("offered", True))
        ssec.finish()
    spots = tuple(overrides.get(v, SpotPrice(v, pays, True)) for v in spots_in_order(kind))
    return SpotWager(kind, offered, limits, pays, spots)


def _even_wager(sec: Section, kind: str) -> EvenWager:
    return EvenWager(kind, sec.bool("offered"), _limits(sec), _odds(sec, "pays"))


def _any_pair_wager(sec: Section) -> AnyPairWager:
    return AnyPairWager("any_pair", sec.bool("offered"), _limits(sec), _odds(sec, "pays"),
                        _odds(sec, "two_jokers_pays"))


def _paytables(root: Section) -> tuple[Paytable, ...]:
    if not root.has("poker_paytables"):
        raise root.error("poker_paytables", "is required: at least one poker paytable")
    tables: list[Paytable] = []
    for name, sec in root.sections("poker_paytables"):
        pays: list[tuple[str, Odds]] = []
        for hand in POKER_HANDS:
            if sec.has(hand):
                pays.append((hand, _odds(sec, hand)))
        unknown = sorted(set(sec.data) - set(POKER_HANDS))
        if unknown:
            raise sec.error(unknown[0], f"unknown poker hand (hands: {', '.join(POKER_HANDS)})")
        if not pays:
            raise ConfigError(sec.file, sec.path, "a paytable must pay at least one hand")
        tables.append(Paytable(name, tuple(pays)))
    if not tables:
        raise root.error("poker_paytables", "is empty: define at least one poker paytable")
    return tuple(tables)


def _money(sec: Section) -> Money:
    currency = sec.str("currency")
    if not _CURRENCY_RE.match(currency):
        raise sec.error("currency", f"must be a three-letter currency code such as \"USD\", "
                                    f"got {currency!r}")
    minor = sec.int("minor_units", minimum=1, maximum=MAX_MINOR_UNITS)
    chips = sec.list("chips")
    for c in chips:
        if isinstance(c, bool) or not isinstance(c, int) or not 1 <= c <= MAX_AMOUNT:
            raise sec.error("chips", f"chip values must be whole numbers of minor units from 1 "
                                     f"to {MAX_AMOUNT}, got {c!r}")
    if len(set(chips)) != len(chips):
        raise sec.error("chips", "lists a chip value twice")
    if not chips:
        raise sec.error("chips", "must list at least one chip value")
    sec.finish()
    return Money(currency, minor, tuple(sorted(chips)))


def parse_lapaire_config(data: dict[str, Any], file: str) -> LaPaireConfig:
    """Validate parsed TOML (or ``LaPaireConfig.to_data()``) into a LaPaireConfig.

    Raises ConfigError naming ``file``, the key and the reason for anything wrong: unknown keys,
    unknown wager kinds or hands, non-positive odds, a spot not on the layout, bad limits.
    """
    root = Section(data, file)
    money = _money(root.section("money"))
    par = root.section("par_sheet")
    threshold = _parse_percent(par, "warn_house_edge_above")
    par.finish()
    paytables = _paytables(root)

    wsec = root.section("wagers")
    unknown = sorted(set(wsec.data) - set(BET_KINDS))
    if unknown:
        raise wsec.error(unknown[0], _unknown_kind(unknown[0]))
    kinds: dict[str, WagerKind] = {}
    for kind in BET_KINDS:
        sec = wsec.section(kind)
        w: WagerKind
        if kind in SPOT_KINDS:
            w = _spot_wager(sec, kind)
        elif kind in EVEN_KINDS:
            w = _even_wager(sec, kind)
        elif kind == "any_pair":
            w = _any_pair_wager(sec)
        else:
            names = tuple(p.name for p in paytables)
            name = sec.str("paytable")
            if name not in names:
                raise sec.error("paytable", f"unknown paytable {name!r} (defined in "
                                            f"[poker_paytables]: {', '.join(names)})")
            w = PokerWager("poker", sec.bool("offered"), _limits(sec), name)
        sec.finish()
        kinds[kind] = w
    wsec.finish()
    root.finish()

    first = [kinds[k] for k in FIRST_CARD_KINDS]
    if not any(isinstance(w, SpotWager) and w.offered_spots() for w in first):
        raise wsec.error("straight", "no First Card spot is offered, so no seat could bet: "
                                     "offer at least one straight, split, three or corner spot")

    def spot_kind(k: str) -> SpotWager:
        w = kinds[k]
        assert isinstance(w, SpotWager)
        return w

    def even_kind(k: str) -> EvenWager:
        w = kinds[k]
        assert isinstance(w, EvenWager)
        return w

    any_pair, poker = kinds["any_pair"], kinds["poker"]
    assert isinstance(any_pair, AnyPairWager)
    assert isinstance(poker, PokerWager)
    return LaPaireConfig(
        money=money,
        straight=spot_kind("straight"), split=spot_kind("split"), three=spot_kind("three"),
        corner=spot_kind("corner"), red=even_kind("red"), black=even_kind("black"),
        lapaire=spot_kind("lapaire"), any_pair=any_pair, poker=poker,
        paytables=paytables, warn_house_edge_above=threshold,
    )
