"""La Pair'e: the game's command-line parts: a module not starting with ``_`` is a command of
its own (discovered by ``dealer_station.cli.main``); the others serve the shared commands."""
