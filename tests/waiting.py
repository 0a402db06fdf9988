"""Waiting on a condition, never on the clock: a test waits for the state it needs.

The timeout only bounds a hang (a state that never comes fails the test, naming it); it is
never the thing a test measures, so a slow or loaded machine only makes a test take longer.
"""

from __future__ import annotations

import time
from collections.abc import Callable

#: Long enough that only a hang reaches it, on any machine.
HANG = 120.0


def wait_until(check: Callable[[], bool], what: str, timeout: float = HANG,
               poll: float = 0.01) -> None:
    """Return once ``check()`` holds; fail naming ``what`` if it never does."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout:g} s for {what}; it never happened")
        time.sleep(poll)
