"""``[monitor]`` of config/station.toml: the false-alarm rate and how the rules share it.

```toml
[monitor]
rounds_per_false_alarm = 10000   # at most 1 false alarm per this many rounds at a table
seats = 7                        # the seats a table has (card knowledge tests each)

[monitor.shoe]
share = 1          # the rule's share of the false-alarm rate (relative; 0 turns it off)
shift = 0.25       # the departure its tests are designed for (docs/monitor.md)

[monitor.card_knowledge]
share = 1
shift = 0.25

[monitor.dealer]   # each dealer's win against the wagers they dealt
share = 1
shift = 0.5        # in standard deviations of a round's house win

[monitor.hold]     # the table's hold against its band
share = 1
shift = 0.25       # in standard deviations of a round's house win

[monitor.tray]     # each dealer's share of the tray's variances, once a counted gaming day
share = 0.04       # it looks once a day, not once a round: a small share finds it as fast
days = 30          # the gaming days of shifts each look tests

# Bourré's rules share the rate among themselves (a pot game's table runs only these):
[monitor.bourre_deal]      # the deal by seat: trumps, Aces
[monitor.chip_dumping]     # pots passing from one player to another
[monitor.soft_play]        # a player folding whenever another stays
[monitor.reneges]          # reneges at one seat
# each with share = 1 and shift = 0.25 by default
```
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from dealer_station.tomlconfig import ConfigError, Section, load_toml


@dataclass(frozen=True)
class RuleSettings:
    share: float = 1.0
    shift: float = 0.25


@dataclass(frozen=True)
class TraySettings:
    """The tray rule's: its share of the rate, and the gaming days each look tests."""

    share: float = 0.04
    days: int = 30


#: Bourré's rules' tables under ``[monitor]`` (the pot game's rules share its rate).
BOURRE_RULES = ("bourre_deal", "chip_dumping", "soft_play", "reneges")


@dataclass(frozen=True)
class MonitorSettings:
    rounds_per_false_alarm: int = 10_000
    seats: int = 7
    shoe: RuleSettings = RuleSettings()
    card_knowledge: RuleSettings = RuleSettings()
    file: str = ""
    dealer: RuleSettings = RuleSettings(shift=0.5)
    hold: RuleSettings = RuleSettings()
    bourre_deal: RuleSettings = RuleSettings()
    chip_dumping: RuleSettings = RuleSettings()
    soft_play: RuleSettings = RuleSettings()
    reneges: RuleSettings = RuleSettings()
    tray: TraySettings = TraySettings()

    @property
    def total_share(self) -> float:
        """A banked game's rules' shares together (the tray's included)."""
        return (self.shoe.share + self.card_knowledge.share + self.dealer.share
                + self.hold.share + self.tray.share)


def _number(sec: Section, name: str, default: float, *, low: float, high: float,
            low_included: bool) -> float:
    value = sec.raw(name, default)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise sec.error(name, f"must be a number, got {value!r}")
    v = float(value)
    if not ((low <= v if low_included else low < v) and v < high):
        raise sec.error(name, f"must be {'from' if low_included else 'above'} {low:g} and "
                              f"below {high:g}, got {value!r}")
    return v


def _rule(sec: Section, name: str, default_shift: float = 0.25) -> RuleSettings:
    if not sec.has(name):
        return RuleSettings(shift=default_shift)
    r = sec.section(name)
    share = _number(r, "share", 1.0, low=0.0, high=1e6, low_included=True)
    shift = _number(r, "shift", default_shift, low=0.0, high=1.0, low_included=False)
    r.finish()
    return RuleSettings(share, shift)


def monitor_settings_from(sec: Section) -> MonitorSettings:
    """The settings in a ``[monitor]`` section (clear errors naming the file and key)."""
    rounds = sec.int("rounds_per_false_alarm", 10_000, minimum=10, maximum=10**12)
    seats = sec.int("seats", 7, minimum=1, maximum=99)
    shoe = _rule(sec, "shoe")
    knowledge = _rule(sec, "card_knowledge")
    dealer = _rule(sec, "dealer", 0.5)
    hold = _rule(sec, "hold")
    bourre = {name: _rule(sec, name) for name in BOURRE_RULES}
    tray = TraySettings()
    if sec.has("tray"):
        t = sec.section("tray")
        tray = TraySettings(_number(t, "share", TraySettings.share, low=0.0, high=1e6,
                                    low_included=True),
                            t.int("days", TraySettings.days, minimum=1, maximum=3660))
        t.finish()
    sec.finish()
    if sum(r.share for r in bourre.values()) <= 0:
        raise ConfigError(sec.file, sec.key("chip_dumping.share"),
                          "every Bourré rule's share is 0: give at least one of "
                          f"{', '.join(BOURRE_RULES)} a share above 0")
    if shoe.share + knowledge.share + dealer.share + hold.share + tray.share <= 0:
        raise ConfigError(sec.file, sec.key("shoe.share"),
                          "every rule's share is 0: give at least one rule a share above 0 "
                          "(or leave [monitor] out for the defaults)")
    return MonitorSettings(rounds, seats, shoe, knowledge, sec.file, **bourre, dealer=dealer,
                           hold=hold, tray=tray)


def load_monitor_settings(path: Path | str | None) -> MonitorSettings:
    """The ``[monitor]`` table of the station file at ``path``; the defaults where the file
    or the table is missing."""
    if path is None or not Path(path).exists():
        return MonitorSettings(file=str(path or ""))
    data = load_toml(path)
    if "monitor" not in data:
        return MonitorSettings(file=str(path))
    return monitor_settings_from(Section(data, str(path)).section("monitor"))
