"""One Money, one way of writing it: exact from the integer, thousands separated, the sign
kept, the unit said once; a configuration's money read, and bad money refused."""

from __future__ import annotations

import dataclasses
import re
from typing import Any, cast

import pytest
from hypothesis import given
from hypothesis import strategies as st
from repo_paths import CONFIG_DIR

from dealer_station.games.lapaire.config_file import load_lapaire_config
from dealer_station.games.lapaire.rules.config import parse_lapaire_config
from dealer_station.money import CHIPS, Money
from dealer_station.tomlconfig import load_toml

USD = Money("USD", 100)
AMOUNTS = st.integers(min_value=-10**18, max_value=10**18)
POWERS = st.integers(min_value=0, max_value=4)


def parse(number: str, decimals: int) -> int:
    """The integer a printed figure stands for, read back the way a person reads it."""
    shape = r"-?\d{1,3}(,\d{3})*" + (rf"\.\d{{{decimals}}}" if decimals else "")
    assert re.fullmatch(shape, number), number
    sign = -1 if number.startswith("-") else 1
    whole, _, frac = number.lstrip("-").replace(",", "").partition(".")
    scale: int = 10**decimals
    return sign * (int(whole) * scale + (int(frac) if frac else 0))


# --- writing amounts -------------------------------------------------------------------------

def test_dollars_in_cents() -> None:
    assert USD.decimals == 2 and USD.label == "USD"
    assert USD.number(123456) == "1,234.56"
    assert USD.number(123456789) == "1,234,567.89"
    assert USD.number(0) == "0.00"
    assert USD.number(5) == "0.05"
    assert USD.number(-5) == "-0.05"
    assert USD.number(-123456789) == "-1,234,567.89"
    assert USD.text(125000) == "1,250.00 USD"
    assert USD.text(-300) == "-3.00 USD"


def test_whole_units_and_other_powers_of_ten() -> None:
    yen = Money("JPY", 1)
    assert yen.decimals == 0 and yen.label == "JPY"
    assert yen.number(1250) == "1,250" and yen.text(-1250) == "-1,250 JPY"
    dinar = Money("BHD", 1000)
    assert dinar.decimals == 3 and dinar.number(1234567) == "1,234.567"
    assert Money("XTS", 10).number(-15) == "-1.5"
    assert Money("XTS", 10_000).number(1) == "0.0001"


def test_minor_units_that_are_no_power_of_ten_are_written_as_they_are() -> None:
    odd = Money("XYZ", 12)
    assert odd.decimals is None
    assert odd.label == "minor units of XYZ"
    assert odd.number(1500) == "1,500" and odd.number(-1500) == "-1,500"
    assert odd.text(1250) == "1,250 minor units of XYZ"
    assert odd.chip_face(2400) == "2,400"
    assert [Money("XYZ", m).decimals for m in (2, 20, 99, 101, 250, 1001)] == [None] * 6


def test_chips() -> None:
    assert Money(None, 1) == CHIPS and CHIPS.currency is None
    assert CHIPS.decimals == 0 and CHIPS.label == "chips"
    assert CHIPS.number(1234) == "1,234"
    assert CHIPS.text(1234) == "1,234 chips"
    assert CHIPS.text(0) == "0 chips"
    assert CHIPS.text(1) == "1 chip" and CHIPS.text(-1) == "-1 chip"
    assert CHIPS.chip_face(25) == "25"


def test_a_chips_face_shows_no_zero_cents() -> None:
    assert USD.chip_face(500) == "5"
    assert USD.chip_face(2550) == "25.50"
    assert USD.chip_face(100000) == "1,000"
    assert USD.chip_face(5) == "0.05"
    assert USD.chip_face(0) == "0"
    dinar = Money("BHD", 1000)
    assert dinar.chip_face(2000) == "2" and dinar.chip_face(1500) == "1.500"
    assert Money("JPY", 1).chip_face(100) == "100"


def test_major_is_for_charts_only() -> None:
    assert USD.major(150) == 1.5
    assert USD.major(-5) == -0.05
    assert CHIPS.major(3) == 3.0
    assert Money("XYZ", 12).major(18) == 1.5


@given(amount=AMOUNTS, power=POWERS)
def test_a_printed_figure_reads_back_to_the_exact_integer(amount: int, power: int) -> None:
    money = Money("XTS", 10**power)
    number = money.number(amount)
    assert money.decimals == power
    assert parse(number, power) == amount
    assert money.text(amount) == f"{number} XTS"
    face = money.chip_face(amount)
    if "." in face:
        assert face == number
    else:                                   # no cents to show: the whole part alone
        assert parse(face, 0) * 10**power == amount


@given(amount=AMOUNTS, minor=st.integers(min_value=2, max_value=10**6))
def test_no_decimal_form_prints_the_minor_units_exactly(amount: int, minor: int) -> None:
    money = Money("XYZ", minor)
    if money.decimals is not None:
        return          # a power of ten: the test above
    assert parse(money.number(amount), 0) == amount
    assert money.text(amount) == f"{amount:,} minor units of XYZ"


@given(amount=AMOUNTS)
def test_chips_read_back_too(amount: int) -> None:
    assert parse(CHIPS.number(amount), 0) == amount
    assert CHIPS.text(amount).split(" ")[1] in ("chip", "chips")


# --- a configuration's money -----------------------------------------------------------------

def test_of_a_configuration_with_money() -> None:
    content = {"money": {"currency": "USD", "minor_units": 100, "chips": [100, 500]}}
    money = Money.of(content)
    # The unit only: chip values are the table's, so tables in the same money total together.
    assert money == USD and money.chips == ()
    assert Money.of({"money": {"currency": "XYZ", "minor_units": 12}}) == Money("XYZ", 12)


@pytest.mark.parametrize("content", [
    None,
    {},
    {"profiles": {}},
    {"money": None},
    {"money": "USD"},
    {"money": ["USD", 100]},
    {"money": {}},
    {"money": {"minor_units": 100}},                        # no currency: no name to write
    {"money": {"currency": None, "minor_units": 100}},
    {"money": {"currency": 840, "minor_units": 100}},
    {"money": {"currency": "", "minor_units": 100}},
    {"money": {"currency": "  ", "minor_units": 100}},
    {"money": {"currency": "USD"}},
    {"money": {"currency": "USD", "minor_units": 0}},
    {"money": {"currency": "USD", "minor_units": -100}},
    {"money": {"currency": "USD", "minor_units": True}},    # a bool is not a count
    {"money": {"currency": "USD", "minor_units": "100"}},
    {"money": {"currency": "USD", "minor_units": 100.0}},
])
def test_of_content_without_usable_money_counts_chips(content: Any) -> None:
    assert Money.of(content) is CHIPS


def test_of_content_that_is_no_mapping_counts_chips() -> None:
    assert Money.of(cast(Any, ["money"])) is CHIPS
    assert Money.of(cast(Any, "money")) is CHIPS


# --- what a Money is -------------------------------------------------------------------------

@pytest.mark.parametrize(("currency", "minor"), [
    ("USD", 0), ("USD", -1), ("USD", True), ("USD", 1.0), (None, 100), ("", 100), (" ", 1),
])
def test_a_money_that_could_not_write_its_amounts_is_refused(currency: Any, minor: Any) -> None:
    with pytest.raises(ValueError):
        Money(currency, minor)


def test_frozen_slotted_and_compared_by_value() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        USD.minor_units = 1000  # type: ignore[misc]
    assert not hasattr(USD, "__dict__")
    assert Money("USD", 100) == USD and hash(Money("USD", 100)) == hash(USD)
    assert Money("USD", 100, (100, 500)) != USD                 # chips are part of it
    assert len({USD, Money("USD", 100), CHIPS, Money("EUR", 100)}) == 3


def test_the_lapaire_file_keeps_its_money_as_written() -> None:
    """La Pair'e's money is this Money, and its file's ``[money]`` round-trips unchanged."""
    path = CONFIG_DIR / "lapaire.toml"
    config = load_lapaire_config(path)
    assert isinstance(config.money, Money)
    assert config.money.chips == tuple(sorted(config.money.chips))
    data = config.to_data()
    assert data["money"] == load_toml(path)["money"]
    assert parse_lapaire_config(data, "<journal>") == config
