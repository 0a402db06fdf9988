"""The reason picker: why an action is done, chosen by touch.

An action that needs a reason asks for it when its button is touched: a sheet (see
``touch_sheet``) names the action and lists the reasons the operator configured for it in
``[reasons]`` of ``config/station.toml`` (``dealer_station.reasons``), each a large button,
plus *Other…*, which opens the on-screen keyboard to type one. The action then runs with the
reason's text, which is what the journal records.

Use::

    from dealer_station.ui.reasons import ask_reason

    def void(self) -> None:
        ask_reason(self.void_button, "void", "Void round 12: why?",
                   lambda reason: self.table.void(user, reason))

A station file whose ``[reasons]`` cannot be read does not stop the action: the sheet says
what is wrong with the file (file, key and reason) and offers *Other…* only.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QWidget

from dealer_station.errors import StationError
from dealer_station.reasons import ACTIONS, OTHER, Reasons, load_reasons
from dealer_station.ui import theme
from dealer_station.ui.touch_keyboard import InputSheet, open_keyboard
from dealer_station.ui.touch_sheet import ChoiceSheet

#: The longest reason typed with Other… (the journal keeps it whole; a screen shows it).
MAX_TYPED = 120


def station_reasons(path: Path | str | None = None) -> Reasons:
    """The reasons of the station file (``config/station.toml``, or ``path``); read each
    time a sheet opens, so an operator's edit shows at the next action."""
    from dealer_station.gameconfig import STATION_FILE, config_dir

    return load_reasons(path if path is not None else config_dir() / STATION_FILE)


class ReasonSheet(ChoiceSheet[str]):
    """The reasons for one action and *Other…* (see the module). ``other_sheet`` is the
    keyboard once *Other…* opened it."""

    def __init__(self, anchor: QWidget, action: str, title: str,
                 on_chosen: Callable[[str], Any], *, note: str = "",
                 reasons: Reasons | None = None, path: Path | str | None = None) -> None:
        problem = ""
        if action not in ACTIONS:
            raise KeyError(f"{action!r} is not an action that takes a reason")
        if reasons is None:
            try:
                reasons = station_reasons(path)
            except StationError as exc:
                problem = (f"The list of reasons cannot be read: {exc}. Type the reason with "
                           f"{OTHER}, and have the file corrected.")
        offered = reasons.of(action) if reasons is not None else ()
        words = (note + "\n" if note else "") + "The reason is recorded with your name."
        super().__init__(anchor, title, [(r, r) for r in offered], on_chosen, note=words,
                         columns=2)
        self.action = action
        self.problem = problem
        self.other_sheet: InputSheet | None = None
        self.other_button = self.add_extra(OTHER, self._other)
        self.other_button.setAccessibleName("Other reason")
        if problem:
            self.empty.setText(problem)
            self.empty.setStyleSheet(self.empty.styleSheet() + f" color: {theme.BAD};")
            self.empty.show()

    def _other(self) -> None:
        self.other_sheet = open_keyboard(
            self.anchor, self.title.text(), self.on_chosen,
            note=f"Type the reason for {ACTIONS[self.action]}; it is recorded with your name.",
            placeholder="the reason", max_length=MAX_TYPED, required=True)


def ask_reason(anchor: QWidget, action: str, title: str, on_chosen: Callable[[str], Any], *,
               note: str = "", reasons: Reasons | None = None,
               path: Path | str | None = None) -> ReasonSheet:
    """Ask why, for ``action`` (a key of ``dealer_station.reasons.ACTIONS``: ``"resume"``,
    ``"void"``, ``"correction"``, ``"unlock"``, ``"acknowledge"``, ...); ``on_chosen(reason)``
    runs with the reason's text once one is chosen or typed. Cancel runs nothing."""
    sheet = ReasonSheet(anchor, action, title, on_chosen, note=note, reasons=reasons,
                        path=path)
    sheet.open()
    return sheet


__all__ = ["ReasonSheet", "ask_reason", "station_reasons"]
