"""Every public exception the station defines is a StationError: the CLI catches that one
root, prints its message and exits 2, so no error a person can cause escapes as a traceback."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import dealer_station
from dealer_station.errors import StationError


def _public_exceptions() -> list[type[BaseException]]:
    found = []
    for info in pkgutil.walk_packages(dealer_station.__path__, "dealer_station."):
        if ".migrations" in info.name or info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if (inspect.isclass(obj) and issubclass(obj, BaseException)
                    and obj.__module__ == info.name and not name.startswith("_")):
                found.append(obj)
    return found


def test_every_public_exception_is_a_station_error() -> None:
    found = _public_exceptions()
    assert len(found) >= 15, [e.__name__ for e in found]
    strays = sorted(f"{e.__module__}.{e.__qualname__}" for e in found
                    if not issubclass(e, StationError))
    assert strays == []


def test_the_errors_once_bare_value_errors_are_still_value_errors() -> None:
    from dealer_station.cards import CardError
    from dealer_station.games.bourre.rules.config import ProfileError
    from dealer_station.games.bourre.table.rounds import ReplayError

    for cls in (CardError, ProfileError, ReplayError):
        assert issubclass(cls, StationError) and issubclass(cls, ValueError)
