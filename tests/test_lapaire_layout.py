"""The La Pair'e layout: which values touch and which spots each bet kind may cover."""

from __future__ import annotations

import pytest

from dealer_station.games.lapaire.rules.layout import (
    ADJACENT,
    CORNER_SPOTS,
    SPLIT_SPOTS,
    STRAIGHT_SPOTS,
    THREE_SPOTS,
    is_legal_spot,
    legal_spots,
    neighbours,
    sort_values,
    spot_label,
    spots_in_order,
)


def fs(*values: str) -> frozenset[str]:
    return frozenset(values)


def test_spot_counts() -> None:
    assert len(STRAIGHT_SPOTS) == 14
    # 5 + 5 horizontal, 6 vertical, A-2, A-8, 7-JK, K-JK
    assert len(SPLIT_SPOTS) == 20
    assert {fs("A", "2", "8"), fs("7", "K", "JK")} == THREE_SPOTS
    assert len(CORNER_SPOTS) == 5


@pytest.mark.parametrize("pair", [("2", "8"), ("4", "5"), ("5", "6"), ("7", "K"), ("A", "2"),
                                  ("A", "8"), ("JK", "7"), ("JK", "K"), ("Q", "K"), ("3", "9")])
def test_adjacent_pairs_from_the_rules(pair: tuple[str, str]) -> None:
    assert fs(*pair) in ADJACENT
    assert is_legal_spot("split", pair)


@pytest.mark.parametrize("pair", [("2", "4"), ("2", "9"), ("A", "3"), ("A", "JK"), ("7", "8"),
                                  ("K", "2"), ("JK", "Q"), ("A", "K")])
def test_non_adjacent_pairs(pair: tuple[str, str]) -> None:
    assert not is_legal_spot("split", pair)


def test_neighbours_of_the_end_areas() -> None:
    assert neighbours("A") == {"2", "8"}
    assert neighbours("JK") == {"7", "K"}
    assert neighbours("9") == {"8", "10", "3"}
    assert neighbours("7") == {"6", "K", "JK"}


def test_corners_are_two_by_two_blocks() -> None:
    assert fs("2", "3", "8", "9") in CORNER_SPOTS
    assert fs("6", "7", "Q", "K") in CORNER_SPOTS
    assert not is_legal_spot("corner", ("7", "K", "JK", "6"))
    assert not is_legal_spot("corner", ("A", "2", "8", "3"))


def test_canonical_order_and_labels() -> None:
    assert sort_values(["JK", "K", "7"]) == ("7", "K", "JK")
    assert spot_label(["8", "A", "2"]) == "A-2-8"
    assert spots_in_order("three") == (("A", "2", "8"), ("7", "K", "JK"))
    assert spots_in_order("straight")[0] == ("A",)
    assert spots_in_order("straight")[-1] == ("JK",)
    assert legal_spots("lapaire") == STRAIGHT_SPOTS
