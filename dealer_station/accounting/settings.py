"""The accounting settings (``config/accounting.toml``), validated with file, key and reason.

```toml
[accounting]
currency = "USD"
minor_units = 100
denominations = [100, 500, 2500, 10000, 50000]   # chips the trays hold, minor units
variance_threshold = 2500         # |statistical - computed win| above this is an exception
inventory_tolerance = 0           # |opener - previous closer| above this is an exception
currency_denominations = [100, 500, 1000, 2000, 5000, 10000]  # notes the count room counts

[cage]                            # optional: who signs a fill or credit (cage_settings.py)
```
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from dealer_station.accounting.cage_settings import CageSettings, cage_from
from dealer_station.money import Money
from dealer_station.tomlconfig import ConfigError, Section, load_toml

DEFAULT_DENOMINATIONS = (100, 500, 2500, 10000, 50000)
#: US notes: $1, $5, $10, $20, $50 and $100.
DEFAULT_CURRENCY = (100, 500, 1000, 2000, 5000, 10000)


@dataclass(frozen=True, slots=True)
class AccountingSettings:
    currency: str = "USD"
    minor_units: int = 100
    denominations: tuple[int, ...] = DEFAULT_DENOMINATIONS
    variance_threshold: int = 0
    inventory_tolerance: int = 0
    #: The notes the count room counts a drop box's cash in, minor units.
    currency_denominations: tuple[int, ...] = DEFAULT_CURRENCY
    #: Who signs a fill or credit, and the slip's copies (the jurisdiction's ``[cage]``).
    cage: CageSettings = field(default_factory=CageSettings)
    #: Where these settings were read (a report names it beside the thresholds it applies).
    source: str = field(default="the defaults (no accounting file)", compare=False)

    @property
    def money(self) -> Money:
        """The trays' money, its chips the denominations: amounts on slips, screens and
        reports are written by it, as every table's are."""
        return Money(self.currency, self.minor_units, self.denominations)


def settings_from(sec: Section) -> AccountingSettings:
    currency = sec.str("currency", "USD").strip()
    if not currency:
        raise sec.error("currency", "must not be empty")
    minor = sec.int("minor_units", 100, minimum=1)
    denoms = _denominations(sec, "denominations", DEFAULT_DENOMINATIONS, "chip")
    notes = _denominations(sec, "currency_denominations", DEFAULT_CURRENCY, "note")
    threshold = sec.int("variance_threshold", 0, minimum=0)
    tolerance = sec.int("inventory_tolerance", 0, minimum=0)
    sec.finish()
    return AccountingSettings(currency, minor, denoms, threshold, tolerance, notes)


def _denominations(sec: Section, key: str, default: tuple[int, ...], what: str
                   ) -> tuple[int, ...]:
    raw = sec.list(key, list(default))
    if not raw:
        raise sec.error(key, f"needs at least one {what} denomination")
    denoms: list[int] = []
    for i, d in enumerate(raw):
        if isinstance(d, bool) or not isinstance(d, int) or d <= 0:
            raise sec.error(f"{key}[{i}]", f"must be a whole number of minor units above 0, "
                                           f"got {d!r}")
        if d in denoms:
            raise sec.error(f"{key}[{i}]", f"{d} is listed twice")
        denoms.append(d)
    return tuple(sorted(denoms))


def load_settings(path: Path | str | None) -> AccountingSettings:
    """``[accounting]`` of the file at ``path``; the defaults when the file is missing."""
    if path is None or not Path(path).exists():
        return AccountingSettings() if path is None else AccountingSettings(
            source=f"the defaults ({path} does not exist)")
    data = load_toml(path)
    if "accounting" not in data:
        raise ConfigError(str(path), "accounting", "is required (the [accounting] table)")
    top = Section(data, str(path))
    sec = top.section("accounting")
    cage = cage_from(top.section("cage")) if top.has("cage") else CageSettings()
    top.finish()
    return replace(settings_from(sec), cage=cage, source=str(path))
