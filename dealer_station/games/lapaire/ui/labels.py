"""What the La Pair'e dealer screen calls spots and seats in its lists and messages, and a
label fixed at the size of its lines."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel

from dealer_station.games.lapaire.rules.config import KIND_LABELS
from dealer_station.games.lapaire.rules.layout import spot_label


def fixed_lines(label: QLabel, width: int, lines: int) -> None:
    """Fix a label that changes with every card at ``width`` and the height of ``lines``
    lines for good: a change of its text then repaints it, and lays nothing out again."""
    label.setText("\n".join(["Lines"] * lines))
    label.ensurePolished()
    label.setFixedSize(width, label.sizeHint().height())
    label.setText("")


#: Short names for lists where room is tight (the felt and messages use KIND_LABELS).
SHORT_LABELS = {"straight": "Straight", "split": "Split", "three": "Three",
                "corner": "Corner", "red": "Red", "black": "Black", "lapaire": "La Pair'e",
                "any_pair": "Any Pair'e", "poker": "Poker"}


def seat_list(seats: list[int]) -> str:
    """``seat 3``, ``seats 3–5``, ``seats 2, 4–5``: seat numbers as a dealer says them."""
    runs: list[list[int]] = []
    for n in seats:
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    parts = [f"{r[0]}–{r[-1]}" if len(r) > 1 else str(r[0]) for r in runs]
    return ("seat " if len(seats) == 1 else "seats ") + ", ".join(parts)


def spot_name(bet: str, values: tuple[str, ...] | list[str]) -> str:
    name = KIND_LABELS[bet]
    return f"{name} {spot_label(values)}" if values else name


def short_spot_name(bet: str, values: tuple[str, ...] | list[str]) -> str:
    name = SHORT_LABELS[bet]
    return f"{name} {spot_label(values)}" if values else name
