"""Each game's home: everything about one game in one package, in sub-packages named for
their layer (``rules``, ``events``, ``table``, ``reports``, ``cli``, ``ui``).

Shared code knows a game only through the registry (:mod:`dealer_station.registry`), whose
entries name a game's parts as ``module:attribute`` strings loaded on first use; a third game
is one package here and one line there (tests/test_third_game.py plays one defined inside the
test). The import-linter contracts in pyproject.toml keep shared packages from importing a
game's package, and keep each game's layers in the same order as the station's.
"""
