"""The game registry: every game the station plays, and where each of its parts lives.

Modelled on python-can's backend registry: an entry names its parts as ``module:attribute``
strings, loaded on first use. The registry itself imports nothing but the card model, so the
command line, the screens and the reports can all ask it without importing every game, and
no layer below them imports a layer above through it.

The rule (docs/architecture.md, enforced by tests/test_game_registry.py): outside a game's own
modules and this registry, no code tests a game's name. It asks the registry instead. Adding
a game means adding its modules and one entry here.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Generic, TypeVar, cast

from dealer_station.cards import BOURRE_DECK, LAPAIRE_DECK, DeckSpec
from dealer_station.errors import StationError

#: The parts an entry may name, each a callable. How each is called is the ``Part`` key its
#: callers declare in their own layer (table/parts.py, reports/parts.py, ui/parts.py,
#: cli/_parts.py), typed there by a Protocol: the registry imports none of those layers.
PARTS = (
    "table",          # open the game's table service
    "simulate",       # play simulated rounds through the real table
    "simulate_days",  # optional: whole gaming days with a chip tray (banked games)
    "wins",           # optional: each round's computed and theoretical win (banked games)
    "round_law",      # optional: the exact law of a round's house win given its wagers
    "settler",        # the ``settle`` command's settler
    "events",         # the game's record kinds as typed events
    "recall",         # a round's recall
    "replay",         # audit replay of a round's records
    "recall_text",    # the command line's recall text
    "recall_html",    # the supervisor's recall panel
    "report_recall",  # the recall report's game section
    "report_config",  # the configuration report's body
    "config_words",   # optional: the felt's names for its settings in the configuration report
    "house_edges",    # optional: lowest and highest house edge per wager kind (banked games)
    "wager_labels",   # optional: its wager kinds in the felt's order, with their names
    "screens",        # the dealer's and operator's screens and the demo panel
    "screenshots",    # its screenshots in docs/screens
    "demo_halts",     # optional: the demo pit's table whose shoe stops its rounds
    "publish",        # what ``floor publish`` sends
    "config_check",   # ``doctor``'s check of its file in the configuration folder
    "report",         # optional: its own reports (``Game.reports``), built by name
    "report_json",    # optional: the JSON form of those of its reports that have one
    "report_samples",  # optional: its tables in the documentation's sample reports
    "tournament_tables",  # optional: a tournament's tables played on its engine (simulations)
    "rake_variances",  # optional: a card room's rake against its counted rake box, by day
)

P = TypeVar("P")


@dataclass(frozen=True, slots=True)
class Part(Generic[P]):
    """A kind of part a game supplies, as its callers ask for it: ``name`` is its key in a
    registry entry, ``P`` (a Protocol of the caller's layer) how it is called. ``optional``:
    a capability only some games have; asked for with :meth:`Game.supplies`."""

    name: str
    optional: bool = False

    def __post_init__(self) -> None:
        if self.name not in PARTS:
            raise ValueError(f"unknown game part {self.name!r}")


@dataclass(frozen=True)
class GameReport:
    """A report of the game's own, as ``dealer-station report NAME`` takes it."""

    name: str          # on the command line (``card-room``)
    about: str         # what it shows, for the command's help
    json: bool = False  # it also prints JSON for other tools (``--json``)


@dataclass(frozen=True)
class Game:
    """One game: what people read, and where its parts are."""

    name: str          # the journal's key (``round.open``'s ``game``); never shown to people
    label: str         # on the felt and in the rules
    deck: DeckSpec
    unit: str          # what one deal is called: a round, a hand
    id_key: str        # the id field of a ``settle`` input record
    meter_labels: tuple[tuple[str, str], ...]   # meter kinds of its own, and their names
    meters_note: str   # what its meter rows mean, printed under the shift report's table
    config_file: str   # its file in the configuration folder
    config_noun: str   # what that file holds, as people say it
    config_option: str  # the option of ``settle`` that names another file
    settle_loads_at_start: bool  # ``settle`` stops on a bad file (else answers each line)
    parts: tuple[tuple[str, str], ...]
    #: The house banks the game (its win is stakes lost less paid, and "hold" means something);
    #: False for a pot game between players, where the house earns its collection only.
    banked: bool = True
    #: Reports of its own besides the station's (built by its ``report`` part).
    reports: tuple[GameReport, ...] = ()

    @property
    def units(self) -> str:
        return self.unit + "s"

    def part(self, kind: Part[P]) -> P:
        """The part ``kind``, imported now if it was not yet; a StationError if the game
        has none (ask for an optional one with :meth:`supplies`)."""
        found = self.supplies(kind)
        if found is None:
            raise StationError(f"{self.label} has no {kind.name!r} part")
        return found

    def supplies(self, kind: Part[P]) -> P | None:
        """The part ``kind`` if this game has it, else None."""
        where = dict(self.parts).get(kind.name)
        if where is None:
            return None
        module, _, attr = where.partition(":")
        found = getattr(importlib.import_module(module), attr)
        if not callable(found):
            raise StationError(f"{self.label}'s {kind.name!r} part ({where}) is not callable")
        # The entry names it; Part's type says how it is called (tests/test_game_registry.py
        # checks every entry's signature against it).
        return cast(P, found)


def _parts(**where: str) -> tuple[tuple[str, str], ...]:
    unknown = sorted(set(where) - set(PARTS))
    if unknown:
        raise ValueError(f"unknown game parts: {unknown}")
    return tuple(sorted(where.items()))


_L = "dealer_station.games.lapaire."
_B = "dealer_station.games.bourre."

REGISTRY: dict[str, Game] = {
    "lapaire": Game(
        name="lapaire", label="La Pair'e", deck=LAPAIRE_DECK, unit="round", id_key="round_id",
        meter_labels=(), meters_note="", config_file="lapaire.toml", config_noun="table file",
        config_option="--config", settle_loads_at_start=True,
        parts=_parts(
            table=_L + "table.live:open_lapaire_table",
            simulate=_L + "table.sim:simulate",
            simulate_days=_L + "table.days:simulate_days",
            wins=_L + "table.wins:round_wins",
            round_law=_L + "table.round_law:round_law",
            settler=_L + "cli._settle:lapaire_settler",
            events=_L + "events:codec",
            recall=_L + "table.recall:lapaire_recall",
            replay=_L + "table.rounds:replay_round",
            recall_text=_L + "cli._text:format_round",
            recall_html=_L + "ui.recall_view:lapaire_html",
            report_recall=_L + "reports.recall_report:lapaire_section",
            report_config=_L + "reports.config_report:par_sheet_body",
            config_words=_L + "reports.config_report:config_words",
            house_edges=_L + "rules.house_math:house_edges",
            wager_labels=_L + "rules.config:wager_labels",
            screens=_L + "ui.screen:lapaire_screens",
            screenshots=_L + "ui.screenshots:lapaire_scenes",
            demo_halts=_L + "ui.pit_demo:halted_and_voided",
            publish=_L + "cli._publish:lapaire_content",
            config_check=_L + "config_file:check_file",
            report_samples=_L + "reports.samples:sample_reports",
        )),
    "bourre": Game(
        name="bourre", label="Bourré", deck=BOURRE_DECK, unit="hand", id_key="hand_id",
        meter_labels=(("bourre", "Bourré pots"),),
        meters_note=("Bourré pots: wagered is what players put in (antes, stays, penalties), "
                     "paid is the pots won, house win is the house collection; Bourré is not "
                     "banked, so it has no hold (the card-room report reconciles its chips)."),
        config_file="bourre.toml",
        config_noun="profiles", config_option="--bourre-config", settle_loads_at_start=False,
        banked=False,
        reports=(
            GameReport("bourre-session",
                       "Bourré sessions: chips over the session, pots, bourrés and reneges, "
                       "eliminations and tags, house collection"),
            GameReport("card-room",
                       "Bourré card room per gaming day: hands, sessions, house collection "
                       "(money in a cash game), pots carried and returned, chip "
                       "reconciliation", json=True)),
        parts=_parts(
            table=_B + "table.live:open_bourre_table",
            simulate=_B + "table.sim:simulate",
            # A pot game: no chip tray at the table (its card room's accounting is its own),
            # no house edge, no computed win: no simulate_days, wins or house_edges.
            settler=_B + "cli._settle:bourre_settler",
            events=_B + "events:codec",
            recall=_B + "table.recall:bourre_recall",
            replay=_B + "table.rounds:replay_hand",
            recall_text=_B + "cli._text:format_hand",
            recall_html="dealer_station.ui.recall_view:text_html",
            report_recall=_B + "reports.recall_report:bourre_section",
            report_config=_B + "reports.config_report:profile_body",
            screens=_B + "ui.screen:bourre_screens",
            screenshots=_B + "ui.screenshots:bourre_scenes",
            publish=_B + "cli._publish:bourre_content",
            config_check=_B + "config_file:check_file",
            report=_B + "reports.catalog:build",
            report_json=_B + "cli._card_room:print_json",
            rake_variances=_B + "reports.card_room:rake_variances",
            report_samples=_B + "reports.samples:sample_reports",
            tournament_tables=_B + "tournament_tables:tournament_tables",
        )),
}


def game_reports() -> dict[str, tuple[Game, GameReport]]:
    """Every game's own reports by their command-line name, with the game that builds each."""
    return {r.name: (g, r) for g in REGISTRY.values() for r in g.reports}


def names() -> tuple[str, ...]:
    """Every game's journal key, in the registry's order."""
    return tuple(REGISTRY)


def game(name: object) -> Game:
    """The registered game ``name``; a clear StationError for anything else."""
    found = REGISTRY.get(name) if isinstance(name, str) else None
    if found is None:
        known = ", ".join(f"{g.name} ({g.label})" for g in REGISTRY.values())
        raise StationError(f"unknown game {name!r}: this station plays {known}")
    return found


def label(name: object) -> str:
    """What people call the game ``name`` (the name itself if it is not registered)."""
    found = REGISTRY.get(name) if isinstance(name, str) else None
    return found.label if found else str(name)


def meter_label(kind: str) -> str | None:
    """The name of a meter kind that a game keeps of its own (Bourré's pots), if any."""
    for g in REGISTRY.values():
        for k, text in g.meter_labels:
            if k == kind:
                return text
    return None
