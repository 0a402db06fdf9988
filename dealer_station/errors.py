"""The root of the station's own exceptions.

Every error a person can cause (bad config, bad input, bad device data) is a subclass of
StationError whose message names what was wrong and where; the CLI prints it and exits 2
instead of showing a traceback.
"""

from __future__ import annotations


class StationError(Exception):
    """An error with a message meant for a person."""
