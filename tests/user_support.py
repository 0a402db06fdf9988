"""Users for table tests (no tests here): a user of a given role, signed in, on a journal."""

from __future__ import annotations

from dealer_station.audit.journal import Journal
from dealer_station.audit.users import User, Users


def start_users(journal: Journal) -> None:
    """The set-up operator, added while the journal is new (before any record), as a
    station's first operator is."""
    Users(journal).add("setup", "Set-up Operator", "operator", "2468", actor="setup/operator")


def make_user(journal: Journal, user_id: str, role: str) -> User:
    """``user_id`` added with ``role`` (by a set-up operator, added first if the journal has
    no users) and signed in at table T1; every PIN is 2468."""
    users = Users(journal)
    if not users.has_users():
        users.add("setup", "Set-up Operator", "operator", "2468", actor="setup/operator")
    admin = users.authenticate("setup", "2468")
    users.add(user_id, user_id.title(), role, "2468", actor=admin)
    return users.authenticate(user_id, "2468", table_id="T1")
