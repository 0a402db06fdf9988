"""PIN hashing: argon2id over HMAC-SHA-256(pepper, PIN), checking a PIN against its hash, and
the MAC binding a hash to its user under the journal key (``Users``' ``PinHashing`` mixin)."""

from __future__ import annotations

import hashlib
import hmac

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from dealer_station.audit.journal import Journal

PIN_MAC_DOMAIN = "pin/v1"
PEPPER_PURPOSE = "pin-pepper/v1"


def default_hasher() -> PasswordHasher:
    """argon2id with the library's defaults (RFC 9106 low-memory profile: 64 MiB, t=3)."""
    return PasswordHasher()


class PinHashing:
    """``Users``' PIN hashing. ``Users.__init__`` sets the attributes named here."""

    journal: Journal
    hasher: PasswordHasher
    _pepper: bytes
    _dummy: str | None

    # -- PIN hashing --

    def _peppered(self, pin: str) -> bytes:
        return hmac.new(self._pepper, pin.encode("utf-8", "surrogatepass"),
                        hashlib.sha256).digest()

    def hash_pin(self, pin: str) -> str:
        """argon2id over HMAC-SHA-256(pepper, PIN): useless without the journal key."""
        return self.hasher.hash(self._peppered(pin))

    @property
    def _dummy_hash(self) -> str:
        """Checked against when the user id is unknown, so both paths cost the same time."""
        if self._dummy is None:
            self._dummy = self.hasher.hash(self._peppered("not-a-pin"))
        return self._dummy

    def pin_mac(self, user_id: str, pin_hash: str) -> str:
        """Binds a PIN hash to one user under the journal key (what the records carry)."""
        return self.journal.mac(PIN_MAC_DOMAIN, user_id, pin_hash)

    def _verify(self, pin_hash: str, pin: str) -> bool:
        try:
            return bool(self.hasher.verify(pin_hash, self._peppered(pin)))
        except (VerificationError, InvalidHashError):
            return False
