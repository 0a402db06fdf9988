"""PySide6 views over the table service. The only package that imports Qt."""

from dealer_station.ui.bindings import guard_none

#: Whether the None reference guard was needed by these Qt bindings (see bindings.py).
NONE_GUARD = guard_none()
