"""How a table counts money, and the one way an amount of it is written.

Every amount the station keeps is a whole number of minor units (cents for a table in US
dollars, chips for a table played for chips), so no figure is ever rounded on its way into
the journal. :class:`Money` says what those minor units are and turns them into the text a
person reads, on the screens, on paper and on the command line alike, exactly from the
integer and never through a float, so a figure reads the same wherever it is shown.

Pure (stdlib only): the card model's layer, importable by every package.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["CHIPS", "Money"]


@dataclass(frozen=True, slots=True)
class Money:
    """A table's money: ``minor_units`` of ``currency`` to its whole unit (100 cents a US
    dollar), or whole chips when ``currency`` is None.

    ``chips`` are the chip values the table's file names (in minor units, ascending), kept
    here so that a La Pair'e configuration's money is one value; they take no part in how
    an amount is written. Equal values count in the same unit (reports total by it).
    """

    currency: str | None
    minor_units: int
    chips: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        # A Money that cannot write its amounts honestly is refused where it is made, not
        # discovered later as a division by zero or a figure in no unit.
        if type(self.minor_units) is not int or self.minor_units < 1:
            raise ValueError(f"minor units must be a whole number from 1, got "
                             f"{self.minor_units!r}")
        if self.currency is None and self.minor_units != 1:
            raise ValueError(f"chips are counted whole: minor units must be 1, got "
                             f"{self.minor_units}")
        if self.currency is not None and not self.currency.strip():
            raise ValueError("a currency needs a name (None counts in chips)")

    @classmethod
    def of(cls, content: Mapping[str, Any] | None) -> Money:
        """The money a configuration version's content names (``money.currency`` and
        ``money.minor_units``); :data:`CHIPS` when it names none, or names it so that no
        amount could be written in it (no currency, minor units that are not a whole
        number from 1). Chip values are the table's, not its unit's: left out, so that
        tables in the same money total together."""
        money = content.get("money") if isinstance(content, Mapping) else None
        if isinstance(money, Mapping):
            currency = money.get("currency")
            minor = money.get("minor_units")
            if (isinstance(currency, str) and currency.strip()
                    and type(minor) is int and minor > 0):
                return cls(currency, minor)
        return CHIPS

    @property
    def decimals(self) -> int | None:
        """Digits after the point (2 for cents, 0 for whole units and chips), or None when
        the minor units are not a power of ten: such amounts have no decimal form, so they
        are written as the minor units they are."""
        digits = len(str(self.minor_units)) - 1
        return digits if self.minor_units == 10**digits else None

    @property
    def label(self) -> str:
        """What a column of amounts is in: ``USD``, ``minor units of XYZ`` or ``chips``."""
        if self.currency is None:
            return "chips"
        return self.currency if self.decimals is not None else f"minor units of {self.currency}"

    def number(self, amount: int) -> str:
        """``123456`` -> ``1,234.56`` (cents): the figure alone, as tables and columns print
        it under a heading that names the unit. Thousands separated, the sign kept."""
        digits = self.decimals
        sign = "-" if amount < 0 else ""
        if not digits:
            return f"{sign}{abs(amount):,}"
        whole, frac = divmod(abs(amount), self.minor_units)
        return f"{sign}{whole:,}.{frac:0{digits}d}"

    def text(self, amount: int) -> str:
        """``123456`` -> ``1,234.56 USD``: the figure with its unit, for a sentence or a
        cell with no heading to say it (``1 chip``, ``25 chips``)."""
        unit = "chip" if self.currency is None and abs(amount) == 1 else self.label
        return f"{self.number(amount)} {unit}"

    def chip_face(self, amount: int) -> str:
        """What a chip of ``amount`` says on its face: ``500`` -> ``5``, ``2550`` ->
        ``25.50``, ``100000`` -> ``1,000`` (cents). A chip shows no zero cents."""
        text = self.number(amount)
        whole, point, frac = text.partition(".")
        return whole if point and frac.strip("0") == "" else text

    def major(self, amount: int) -> float:
        """``amount`` in whole units as a float, for a chart's axis only: never for a figure
        a person reads (that is :meth:`number` or :meth:`text`, exact)."""
        return amount / self.minor_units


#: A table played for chips: whole chips, no money.
CHIPS = Money(None, 1)
