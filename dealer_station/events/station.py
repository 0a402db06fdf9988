"""The record kinds of the station itself, beside the games: users and sign-ins, the
software check, checkpoints, verifications and projections rewritten from the chain.

Their services (audit/users.py, integrity.py, the journal) write and read them; each is a
typed event here so that every kind in a journal reads back as its own class and writes out
the very payload stored. Parts whose keys vary with the case (a sign-in that also binds a
PIN, what a mismatch found) are kept whole in a ``rest`` field.
"""

from __future__ import annotations

from dataclasses import dataclass

from dealer_station.events.base import Event, JsonObject, optional, rest
from dealer_station.gaming_day import local_time


@dataclass(frozen=True, slots=True)
class UserAdded(Event):
    KIND = "user.add"
    user_id: str
    name: str
    role: str
    pin_mac: str | None = optional()


@dataclass(frozen=True, slots=True)
class PinSet(Event):
    KIND = "user.pin"
    user_id: str
    pin_mac: str | None = optional()


@dataclass(frozen=True, slots=True)
class RoleChanged(Event):
    KIND = "user.role"
    user_id: str
    role: str
    was: str
    reason: str


@dataclass(frozen=True, slots=True)
class UserDeactivated(Event):
    KIND = "user.deactivate"
    user_id: str
    reason: str


@dataclass(frozen=True, slots=True)
class UserUnlocked(Event):
    KIND = "user.unlock"
    user_id: str
    reason: str | None = optional()     # why (required on the station's screen)


@dataclass(frozen=True, slots=True)
class SignedIn(Event):
    KIND = "login"
    SIGNIFICANT = True
    user_id: str
    role: str
    more: JsonObject = rest()       # a PIN bound to the key at this sign-in


@dataclass(frozen=True, slots=True)
class SignInFailed(Event):
    KIND = "login.failed"
    SIGNIFICANT = True
    user_id: str
    reason: str
    more: JsonObject = rest()       # the failure count, for a wrong PIN


@dataclass(frozen=True, slots=True)
class LockedOut(Event):
    KIND = "lockout"
    SIGNIFICANT = True
    user_id: str
    failures: int
    until: str

    def told(self, unit: str, round_no: int | None) -> str:
        return (f"{self.user_id} locked out until {local_time(self.until)} after "
                f"{self.failures} wrong PINs (unlock on the Supervisor screen, Lockouts)")


@dataclass(frozen=True, slots=True)
class SignedOut(Event):
    KIND = "logout"
    SIGNIFICANT = True
    user: str
    why: str


@dataclass(frozen=True, slots=True)
class UserRowMismatch(Event):
    """The users table disagreed with the chain; the station acted on the chain."""

    KIND = "user.mismatch"
    found: JsonObject = rest()


@dataclass(frozen=True, slots=True)
class ProjectionsRebuilt(Event):
    KIND = "projection.mismatch"
    SIGNIFICANT = True
    count: int
    problems: tuple[str, ...]
    action: str


@dataclass(frozen=True, slots=True)
class CheckpointTaken(Event):
    """A clean shut-down: the meters and last round proven then (the next start checks only
    what comes after)."""

    KIND = "checkpoint"
    SIGNIFICANT = True
    state: JsonObject = rest()


@dataclass(frozen=True, slots=True)
class Verified(Event):
    """A person verified the journal (``audit verify --record``, the Verify tab)."""

    KIND = "verify"
    SIGNIFICANT = True
    ok: bool
    records: int
    result: JsonObject = rest()


@dataclass(frozen=True, slots=True)
class SoftwareMatched(Event):
    KIND = "integrity.ok"
    report: JsonObject = rest()


@dataclass(frozen=True, slots=True)
class SoftwareMismatched(Event):
    KIND = "integrity.mismatch"
    report: JsonObject = rest()


@dataclass(frozen=True, slots=True)
class SoftwareMismatchAcknowledged(Event):
    KIND = "integrity.ack"
    reason: str
    report: JsonObject = rest()


@dataclass(frozen=True, slots=True)
class UserAdopted(Event):
    """A user's facts copied from the floor's users into this journal (floor/follower.py);
    the rest names the floor records they came from."""
    KIND = "user.adopted"
    user_id: str
    source: JsonObject = rest()


@dataclass(frozen=True, slots=True)
class AlertAcknowledged(Event):
    """A supervisor at the pit acknowledged an alert, with a reason (the pit's own chain;
    floor/alerts.py). The rest says which table, what and when it was raised."""
    KIND = "alert.ack"
    SIGNIFICANT = True
    alert: str
    reason: str
    about: JsonObject = rest()


@dataclass(frozen=True, slots=True)
class FloorLost(Event):
    """The floor database could not be reached; the table deals on and keeps what the floor
    lacks until it can (dealer_station/floor)."""
    KIND = "floor.lost"
    ALERT = "floor.lost"
    floor: str              # its URL, without any password
    reason: str
    floor_seq: int          # the last record the floor was known to hold

    def alert_text(self, rnd: str, actor: str) -> str:
        return f"the table lost its link to the floor: {self.reason}"


@dataclass(frozen=True, slots=True)
class FloorRestored(Event):
    KIND = "floor.restored"
    floor: str
    floor_seq: int


@dataclass(frozen=True, slots=True)
class FloorRefused(Event):
    """The floor would not take the table's records: they do not extend its copy."""
    KIND = "floor.refused"
    ALERT = "floor.refused"
    floor: str
    reason: str
    seq: int | None = optional()

    def alert_text(self, rnd: str, actor: str) -> str:
        return f"the floor refused the table's records: {self.reason}"


@dataclass(frozen=True, slots=True)
class FloorBehind(Event):
    """After a reconnect the floor holds fewer of the table's records than it had taken:
    records it acknowledged were lost (a failover to a standby that lacked them, under
    asynchronous replication, or a floor restored from an older copy). The table sends them
    again from the floor's head. Significant as every ``floor.`` kind is."""
    KIND = "floor.behind"
    ALERT = "floor.behind"
    floor: str              # its URL, without any password
    floor_seq: int          # the floor's head now
    sent_seq: int           # the last record the floor had acknowledged
    lost: int               # sent_seq - floor_seq

    def alert_text(self, rnd: str, actor: str) -> str:
        return (f"the floor lost {self.lost} of the table's records in a failover (it holds "
                f"records up to {self.floor_seq}, it had taken up to {self.sent_seq}); the "
                f"table sends them again")


@dataclass(frozen=True, slots=True)
class FloorAdoptionLost(Event):
    """The floor no longer holds a record this table adopted from it (a publication, or a
    user's facts): lost in a failover. The table keeps what it adopted; this record carries
    the table's own chained copy of it, for the operator to publish again
    (``floor versions``, ``floor publish --again``). ``what`` is ``publication`` (``copy``:
    the table's config.change record's seq and the publication as adopted) or ``user``
    (``copy``: the user's facts as the table adopted them, kind, actor and payload each)."""
    KIND = "floor.adoption_lost"
    ALERT = "floor.adoption_lost"
    floor: str
    what: str               # "publication" or "user"
    floor_seqs: tuple[int, ...]       # the floor records adopted, as the floor numbered them
    floor_hashes: tuple[str, ...]
    subject: str            # the version published, or the user's id
    copy: JsonObject

    def alert_text(self, rnd: str, actor: str) -> str:
        said, it = ((f"configuration {self.subject[:12]}", "it") if self.what == "publication"
                    else (f"{self.subject}'s user records", "them"))
        return (f"the floor lost {said}, which this table adopted (floor records "
                f"{', '.join(str(s) for s in self.floor_seqs)}); the table keeps {it}; the "
                f"operator can publish {it} again from the table's copy")


@dataclass(frozen=True, slots=True)
class FloorGroupDefined(Event):
    """An operator named a group of the floor's tables (no tables: the group is removed)."""
    KIND = "floor.group"
    group: str
    tables: tuple[str, ...]
    reason: str


@dataclass(frozen=True, slots=True)
class FloorPublished(Event):
    """An operator published a configuration to a group's tables, or to tables named."""
    KIND = "floor.publish"
    group: str | None
    tables: tuple[str, ...]
    game: str
    version: str
    content: JsonObject
    reason: str


@dataclass(frozen=True, slots=True)
class WitnessRefused(Event):
    """The regulator's witness would not cosign the table's checkpoint: it disagrees with what
    the witness already cosigned (dealer_station/floor/witness_push.py)."""
    KIND = "witness.refused"
    ALERT = "witness.refused"
    witness: str
    url: str
    origin: str
    size: int
    status: int
    reason: str

    def alert_text(self, rnd: str, actor: str) -> str:
        return (f"the witness {self.witness} refused the journal at record {self.size}: it "
                f"disagrees with what the witness already cosigned ({self.reason}); call the "
                f"operator and the regulator")


@dataclass(frozen=True, slots=True)
class WitnessUnreachable(Event):
    KIND = "witness.unreachable"
    ALERT = "witness.unreachable"
    witness: str
    url: str
    why: str
    seconds: int

    def alert_text(self, rnd: str, actor: str) -> str:
        return (f"the witness {self.witness} has not answered for {self.seconds} s "
                f"({self.why}); the table deals on and its checkpoints wait")


@dataclass(frozen=True, slots=True)
class WitnessRestored(Event):
    KIND = "witness.restored"
    witness: str
    url: str


STATION: tuple[type[Event], ...] = (
    UserAdded, PinSet, RoleChanged, UserDeactivated, UserUnlocked, SignedIn, SignInFailed,
    LockedOut, SignedOut, UserRowMismatch, ProjectionsRebuilt, CheckpointTaken, Verified,
    SoftwareMatched, SoftwareMismatched, SoftwareMismatchAcknowledged, UserAdopted,
    AlertAcknowledged, FloorLost, FloorRestored, FloorRefused, WitnessRefused,
    WitnessUnreachable, WitnessRestored, FloorGroupDefined, FloorPublished, FloorBehind,
    FloorAdoptionLost,
)
