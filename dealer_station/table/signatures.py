"""Who may sign: one active user of the right role for each signature, all different
people (the cage's steps, voids, the count room's team and dispositions)."""

from __future__ import annotations

from collections.abc import Sequence

from dealer_station.accounting.cage_settings import may_sign
from dealer_station.accounting.ledger import AccountingRefused
from dealer_station.audit.users import User
from dealer_station.events.wording import ROLE_WORDS


def signed(users: Sequence[User | None], slots: Sequence[str], action: str) -> tuple[User, ...]:
    """Refuse unless one active user of the right role signed each slot, all different."""
    given = [u for u in users if u is not None]
    if len(given) != len(slots):
        raise AccountingRefused(f"{action} needs {len(slots)} signature"
                                f"{'s' if len(slots) != 1 else ''} ({', '.join(slots)}); "
                                f"{len(given)} given")
    seen: set[str] = set()
    for user, slot in zip(given, slots, strict=True):
        if user.user_id in seen:
            raise AccountingRefused(f"{action} needs different people; {who(user)} cannot "
                                    f"sign twice")
        seen.add(user.user_id)
        if not may_sign(user.role, slot):
            raise AccountingRefused(f"{action}: {who(user)} is {_a(user.role)}; this "
                                    f"signature is for {_a(slot)}")
        if not user.active:
            raise AccountingRefused(f"{action}: {who(user)} is not an active user")
    return tuple(given)


def who(user: User) -> str:
    """A signer as a refusal names them: "Cal Cashier (cal)"."""
    return f"{user.name} ({user.user_id})" if user.name and user.name != user.user_id \
        else user.user_id


def _a(role: str) -> str:
    """A role in words with its article: "a cage cashier", "an operator"."""
    words = ROLE_WORDS.get(role, role)
    return f"{'an' if words[0] in 'aeiou' else 'a'} {words}"
