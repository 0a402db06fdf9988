"""A guard against a reference-counting fault in some Qt for Python builds.

Some PySide6 wheels (6.12.0 was seen doing it) return ``None`` from every C++ ``void``
function without taking a new reference to it. From Python 3.12 on, ``None`` is immortal and
this is harmless; on Python 3.11 each such call lowers ``None``'s reference count by one, and a
window that calls a few thousand of them a second brings it to zero within minutes, when the
interpreter aborts ("deallocating None"). ``True`` and ``False`` lose references too, which
shows as the same abort when the interpreter exits.

:func:`guard_none` detects the fault (it calls a void function a hundred times and watches the
count) and, only if it is present, gives ``None``, ``True`` and ``False`` reference counts so
large that no station shift can use them up. They are never freed in a healthy interpreter
anyway, so this changes nothing else.
"""

from __future__ import annotations

import sys

#: References added to None when the fault is present (about 10^15 void calls of headroom).
HEADROOM = 2**50
_PROBE_CALLS = 100


def leaks_none() -> bool:
    """Whether calling a void Qt function drops a reference to None."""
    if sys.version_info >= (3, 12):
        return False  # None is immortal: its count means nothing
    from PySide6.QtCore import QObject

    probe = QObject()
    before = sys.getrefcount(None)
    for _ in range(_PROBE_CALLS):
        probe.setObjectName("probe")
    after = sys.getrefcount(None)
    return before - after >= _PROBE_CALLS // 2


def guard_none() -> bool:
    """Apply the guard if this interpreter and these bindings need it; True if applied."""
    if not leaks_none():
        return False
    import ctypes

    # ob_refcnt is the first field of every object in CPython 3.11. The same builds also
    # lose references to True and False (seen when the interpreter exits), which are just
    # as static, so they get the same headroom.
    for singleton in (None, True, False):
        ctypes.c_ssize_t.from_address(id(singleton)).value += HEADROOM
    return True
