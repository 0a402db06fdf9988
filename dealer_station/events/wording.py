"""What a journal record says, in the words of the people at the table and in the pit.

One wording of events for every list of them: the supervisor's Events tab, the pit's
drill-down and the printed significant events report. Each record reads as *what* happened
("Shoe ready", "Signed out: back to the dealer"), *who* did it ("Sam Supervisor
(supervisor)", "the shoe", "seat 3 (Ann Example)") and the *detail* in a sentence, never as the
journal's keys (``device.status``, ``user=super``, ``device_error``). A kind this release has
no words for still reads as words, and its payload as "name: value" parts, never hidden.

Pure: it reads a record's kind, actor and payload, and the names the caller knows (users by
id, players by seat), never a database or a screen.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from dealer_station import registry as games
from dealer_station.events.base import Codec, EventError
from dealer_station.events.station import WitnessRefused, WitnessRestored, WitnessUnreachable
from dealer_station.events.table import (
    DEVICE_NAMES,
    device_name,
    fault_words,
    halt_event_text,
)


class Recorded(Protocol):
    """What the wording reads of a journal record (``audit.records.Record`` has it)."""

    @property
    def table_id(self) -> str: ...
    @property
    def seq(self) -> int: ...
    @property
    def actor(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def round_no(self) -> int | None: ...
    @property
    def payload(self) -> Mapping[str, Any]: ...


# --- kinds ------------------------------------------------------------------------------------

#: What people call each kind of record in an events list.
KIND_WORDS: dict[str, str] = {
    "startup": "Station started", "shutdown": "Station shut down",
    "login": "Signed in", "login.failed": "Sign-in refused", "logout": "Signed out",
    "lockout": "Locked out",
    "user.add": "User added", "user.pin": "PIN set", "user.role": "User's role changed",
    "user.deactivate": "User deactivated", "user.unlock": "User unlocked",
    "user.mismatch": "User row altered", "user.adopted": "User copied from the floor",
    "config.change": "Configuration changed", "checkpoint": "Checkpoint",
    "verify": "Journal verified", "projection.mismatch": "Rows beside the chain rewritten",
    "integrity.ok": "Software check passed", "integrity.mismatch": "Software check FAILED",
    "integrity.ack": "Changed software acknowledged",
    "alert.ack": "Alert acknowledged",
    "floor.lost": "Floor out of reach", "floor.restored": "Floor reached again",
    "floor.refused": "Floor refused the journal",
    "floor.behind": "Floor lost records in a failover",
    "floor.adoption_lost": "Floor lost what the table adopted",
    "witness.refused": "Regulator's witness REFUSED the journal",
    "witness.unreachable": "Regulator's witness out of reach",
    "witness.restored": "Regulator's witness reached again",
    "clock.jump": "Clock jumped",
    "device.state": "Device state", "device.status": "Device status",
    "device.connected": "Device connected", "device.lost": "Device lost",
    "device.identified": "Device identified", "device.fault": "Device fault",
    "halt": "Halt (play stopped)", "resolve": "Halt resolved",
    "card.held": "Card held (not taken)",
    "void": "Voided", "correction": "Card corrected", "misread": "Misread",
    "renege": "Renege", "recovery": "Recovered after a restart",
    "session.open": "Session started", "session.close": "Session ended",
    "pot.carry": "Pot carried to the next session",
    "pot.return": "Pot returned to the players",
    "bourre.collection": "House collection",
    "monitor.alert": "Game protection alert",
}


def spaced(kind: str) -> str:
    """A kind with no words of its own, as words: ``a.new_kind`` -> ``A new kind``."""
    words = kind.replace(".", " ").replace("_", " ").replace("-", " ").strip()
    return words[:1].upper() + words[1:] if words else "-"


def kind_words(kind: str) -> str:
    """A kind as people read it ("Station started", "Renege")."""
    return KIND_WORDS.get(kind) or spaced(kind)


#: Kinds an events list shows in the colour of trouble, and of a resolution or a change.
ALERT_KINDS = frozenset({"halt", "void", "lockout", "login.failed", "device.fault",
                         "device.lost", "clock.jump", "card.held", "renege", "misread",
                         "integrity.mismatch", "projection.mismatch", "user.mismatch",
                         "floor.refused", "floor.lost", "floor.behind",
                         "floor.adoption_lost", "witness.refused",
                         "witness.unreachable", "monitor.alert"})
CHANGE_KINDS = frozenset({"resolve", "correction", "config.change", "pot.return",
                          "integrity.ack", "user.role", "user.deactivate", "user.unlock",
                          "alert.ack"})


def tone(kind: str) -> str:
    """``bad`` (trouble), ``warn`` (a resolution or a change) or ``""``."""
    return "bad" if kind in ALERT_KINDS else "warn" if kind in CHANGE_KINDS else ""


# --- people ---------------------------------------------------------------------------------

#: Who a role is, in the lists.
ROLE_WORDS = {"dealer": "dealer", "supervisor": "supervisor", "operator": "operator",
              "accounting": "accounting", "cage": "cage cashier", "security": "security officer"}


@dataclass(frozen=True)
class People:
    """The names the caller knows: users by id, and the players each session seated
    (``session.open``'s players, from that record on)."""

    users: Mapping[str, str] = field(default_factory=dict)
    #: (seq of the ``session.open``, its table, seat -> player), in order.
    seatings: tuple[tuple[int, str, Mapping[str, str]], ...] = ()

    @classmethod
    def of(cls, records: Iterable[Recorded]) -> People:
        """From ``user.add`` records (each user's name) and ``session.open`` records (the
        players at their seats); any other record is passed over."""
        users: dict[str, str] = {}
        seatings: list[tuple[int, str, Mapping[str, str]]] = []
        for r in records:
            p = r.payload
            if r.kind == "user.add" and p.get("user_id") and p.get("name"):
                users[str(p["user_id"])] = str(p["name"])
            elif r.kind == "session.open":
                players = p.get("players") or {}
                seatings.append((r.seq, r.table_id,
                                 {str(k): str(v) for k, v in dict(players).items()}))
        seatings.sort(key=lambda s: s[0])
        return cls(users, tuple(seatings))

    def name(self, user_id: str) -> str:
        """The user's name, or the id when the journal names nobody by it."""
        return self.users.get(user_id) or user_id

    def user(self, user_id: str, role: str | None = None) -> str:
        """``Sam Supervisor (supervisor)``; ``Sam Supervisor`` without a role."""
        name = self.name(user_id)
        return f"{name} ({ROLE_WORDS.get(role, role)})" if role else name

    def seat(self, seat: object, at_seq: int | None = None, table: str | None = None) -> str:
        """``seat 3 (Ann Example)`` when the session open at ``at_seq`` named the player."""
        player = None
        for seq, where, players in reversed(self.seatings):
            if (at_seq is None or seq < at_seq) and (table is None or where == table):
                player = players.get(str(seat))
                break
        return f"seat {seat} ({player})" if player and player != str(seat) else f"seat {seat}"

    def actor(self, actor: str, at_seq: int | None = None, table: str | None = None, *,
              device_id: bool = False) -> str:
        """Who a record's actor is: a person by name and role, a device by its name (with its
        own id when ``device_id``), the station, a player at a seat."""
        if actor.startswith("device:"):
            device, _, ident = actor.partition(":")[2].partition(":")
            return device_name(device) + (f" ({ident})" if device_id and ident else "")
        if actor == "station":
            return "the station"
        if actor.startswith("console:"):
            return f"the command line ({actor.partition(':')[2]})"
        if actor.startswith("seat:"):
            return self.seat(actor.partition(":")[2], at_seq, table)
        if actor in ("unknown/unknown", "unknown"):
            return "someone unknown"
        user_id, slash, role = actor.partition("/")
        if not slash:
            return self.name(actor)
        if user_id == "station":
            return f"the station ({role})"
        return self.user(user_id, role)


# --- details ----------------------------------------------------------------------------------

#: What a device says of itself (its status), short for the "what" and as a sentence.
STATUS_WORDS: dict[str, tuple[str, str]] = {
    "READY": ("ready", "is ready"), "EMPTY": ("empty", "is empty"),
    "LOW": ("low on cards", "is low on cards"), "DOOR_OPEN": ("door open", "has its door open"),
    "JAM": ("jammed", "is jammed"), "TAMPER": ("tampering", "reports tampering"),
}
#: The link to a device, from the station's side.
LINK_WORDS: dict[str, str] = {
    "connecting": "connecting", "connected": "connected", "silent": "not heard",
    "disconnected": "disconnected", "closed": "closed",
}


def _device_title(device: object) -> str:
    """``shoe`` -> ``Shoe``, ``reader`` -> ``Card reader``."""
    name = DEVICE_NAMES.get(str(device), f"the {device}" if device else "the device")
    name = name.removeprefix("the ")
    return name[:1].upper() + name[1:]


def name_the_player(reason: str, who: str) -> str:
    """The rules' text says "she" and "her" of the player at fault; the lists name them."""
    return re.sub(r"\bher\b", f"{who}'s", re.sub(r"\bshe\b", who, reason))


def local_hhmm(moment: object) -> str:
    """An ISO time as the local clock's ``HH:MM`` (the moment as written if it is not one)."""
    try:
        return datetime.fromisoformat(str(moment)).astimezone().strftime("%H:%M")
    except ValueError:
        return str(moment)


def payload_parts(payload: Mapping[str, Any], skip: Iterable[str] = ()) -> str:
    """A payload the wording has no sentence for, as ``name: value; name: value`` (its keys
    as words), so nothing it holds is hidden."""
    parts = []
    skipped = set(skip)
    for k in sorted(payload):
        v = payload[k]
        if k in skipped or v is None or v == [] or v == {}:
            continue
        if isinstance(v, bool):
            v = "yes" if v else "no"
        elif isinstance(v, list | tuple):
            v = ", ".join(str(x) for x in v)
        elif isinstance(v, dict):
            v = ", ".join(f"{a} {b}" for a, b in sorted(v.items()))
        parts.append(f"{k.replace('_', ' ')}: {v}")
    return "; ".join(parts)


def _reason(p: Mapping[str, Any], key: str = "reason") -> str:
    return f"reason: {p.get(key)}" if p.get(key) else "no reason recorded"


def _short(text: object, n: int = 12) -> str:
    return str(text)[:n] if text else "-"


@dataclass(frozen=True)
class EventWords:
    """One record in words: what happened, who did it, the whole detail, and its tone
    (``bad``, ``warn`` or ``""``)."""

    what: str
    who: str
    detail: str
    tone: str = ""


Worder = Callable[[Recorded, Mapping[str, Any], People], tuple[str, str]]


def _startup(r: Recorded, p: Mapping[str, Any], _people: People) -> tuple[str, str]:
    game = games.label(p.get("game")) if p.get("game") else "no game"
    return (KIND_WORDS["startup"],
            f"Dealer Station {p.get('version', '')} started: {game} at table "
            f"{p.get('table', r.table_id)}")


def _shutdown(_r: Recorded, p: Mapping[str, Any], _people: People) -> tuple[str, str]:
    return KIND_WORDS["shutdown"], f"Dealer Station {p.get('version', '')} shut down"


def _login(_r: Recorded, p: Mapping[str, Any], people: People) -> tuple[str, str]:
    who = people.name(str(p.get("user_id", "")))
    over = p.get("over")
    detail = f"{who} signed in as {p.get('role', '')}".rstrip()
    if over:
        detail += f", over {people.name(str(over))}'s sign-in (a visit)"
    return KIND_WORDS["login"], detail


def _login_failed(_r: Recorded, p: Mapping[str, Any], people: People) -> tuple[str, str]:
    who = people.name(str(p.get("user_id", "")))
    failures = p.get("failures")
    more = f" ({failures} in a row)" if isinstance(failures, int) and failures > 1 else ""
    return (f"{KIND_WORDS['login.failed']}: {p.get('reason') or 'refused'}",
            f"{who}: {p.get('reason') or 'refused'}{more}")


def _lockout(_r: Recorded, p: Mapping[str, Any], people: People) -> tuple[str, str]:
    who = people.name(str(p.get("user_id", "")))
    return (KIND_WORDS["lockout"],
            f"{who} locked out after {p.get('failures')} wrong PINs, until "
            f"{local_hhmm(p.get('until'))}")


#: What the station writes of the dealer left signed in when a supervisor's visit ends.
_STILL_SIGNED_IN = re.compile(r"\s*\((\S+) still signed in\)")


def _logout(_r: Recorded, p: Mapping[str, Any], people: People) -> tuple[str, str]:
    why = str(p.get("why") or "")
    who = people.name(str(p.get("user", "")))
    # "back to the dealer (dealer still signed in)": the dealer by name, in the detail.
    short = _STILL_SIGNED_IN.sub("", why)
    why = _STILL_SIGNED_IN.sub(lambda m: f" ({people.name(m.group(1))} still signed in)", why)
    return (f"{KIND_WORDS['logout']}: {short}" if short else KIND_WORDS["logout"],
            f"{who} signed out" + (f": {why}" if why else ""))


def _user_add(_r: Recorded, p: Mapping[str, Any], _people: People) -> tuple[str, str]:
    return (KIND_WORDS["user.add"],
            f"{p.get('name')} (user id {p.get('user_id')}) added as {p.get('role')}")


def _user_pin(_r: Recorded, p: Mapping[str, Any], people: People) -> tuple[str, str]:
    return KIND_WORDS["user.pin"], f"a new PIN for {people.name(str(p.get('user_id')))}"


def _user_role(_r: Recorded, p: Mapping[str, Any], people: People) -> tuple[str, str]:
    return (KIND_WORDS["user.role"],
            f"{people.name(str(p.get('user_id')))} from {p.get('was')} to {p.get('role')}; "
            f"{_reason(p)}")


def _user_deactivate(_r: Recorded, p: Mapping[str, Any], people: People) -> tuple[str, str]:
    return (KIND_WORDS["user.deactivate"],
            f"{people.name(str(p.get('user_id')))} may no longer sign in; {_reason(p)}")


def _user_unlock(_r: Recorded, p: Mapping[str, Any], people: People) -> tuple[str, str]:
    return (KIND_WORDS["user.unlock"],
            f"{people.name(str(p.get('user_id')))} may sign in again; {_reason(p)}")


def _user_adopted(_r: Recorded, p: Mapping[str, Any], people: People) -> tuple[str, str]:
    return (KIND_WORDS["user.adopted"],
            f"{people.name(str(p.get('user_id')))}'s records copied from the floor's users")


def _device_status(_r: Recorded, p: Mapping[str, Any], _people: People) -> tuple[str, str]:
    state = str(p.get("state") or "")
    short, sentence = STATUS_WORDS.get(state, (state.replace("_", " ").lower(),
                                               f"reports {state}"))
    return (f"{_device_title(p.get('device'))} {short}",
            f"{device_name(str(p.get('device') or ''))} {sentence}")


def _device_link(r: Recorded, p: Mapping[str, Any], _people: People) -> tuple[str, str]:
    state = str(p.get("state") or "")
    words = "lost" if r.kind == "device.lost" else LINK_WORDS.get(state, state.replace("_", " "))
    detail = str(p.get("detail") or "")
    return (f"{_device_title(p.get('device'))} {words}",
            detail or f"{device_name(str(p.get('device') or ''))} {words}")


def _device_identified(_r: Recorded, p: Mapping[str, Any], _people: People) -> tuple[str, str]:
    return (f"{_device_title(p.get('device'))} identified",
            f"model {p.get('model')}, firmware {p.get('firmware')}, serial number "
            f"{p.get('serial_no')}")


def _device_fault(_r: Recorded, p: Mapping[str, Any], _people: People) -> tuple[str, str]:
    device = str(p.get("device") or "")
    words = fault_words(str(p.get("kind") or ""), device)
    said = str(p.get("detail") or "")
    # The device's own words when they say it all ("the shoe reports E42: ..."), else both.
    detail = said if said.startswith(device_name(device)) else (
        f"{words}: {said}" if said else words)
    if p.get("card"):
        detail += f"; card {p.get('card')}"
    return words[:1].upper() + words[1:], detail


def _void(r: Recorded, p: Mapping[str, Any], _people: People) -> tuple[str, str]:
    unit = "hand" if r.kind == "void" and "cards" not in p else "round"
    what = f"{unit.capitalize()} {r.round_no} voided" if r.round_no is not None else "Voided"
    detail = _reason(p)
    returned = p.get("returned")
    if isinstance(returned, list):
        detail += (f"; {len(returned)} wager{'s' if len(returned) != 1 else ''} not yet "
                   f"settled returned to the players" if returned
                   else "; every wager was already settled")
    elif unit == "hand":
        detail += "; every chip went back as it was before the hand"
    return what, detail


def _correction(_r: Recorded, p: Mapping[str, Any], _people: People) -> tuple[str, str]:
    n = p.get("n")
    card = f"card {n}" if n else "the card"
    return KIND_WORDS["correction"], f"{card} entered as {p.get('card')}; {_reason(p)}"


def _config(_r: Recorded, p: Mapping[str, Any], people: People) -> tuple[str, str]:
    detail = str(p.get("reason") or "no reason recorded")
    detail += f"; version {_short(p.get('version'))}"
    approved = p.get("approved_by")
    if approved:
        detail += f"; approved by {people.actor(str(approved))}"
    return KIND_WORDS["config.change"], detail


def _verify(_r: Recorded, p: Mapping[str, Any], _people: People) -> tuple[str, str]:
    records = p.get("records")
    counted = f"{records:,} records" if isinstance(records, int) else "the chain"
    if p.get("ok"):
        detail = f"the chain is intact ({counted} checked)"
        if p.get("projections_ok") is False:
            detail += "; rows beside the chain disagree with it"
        return KIND_WORDS["verify"], detail
    return ("Journal verified: FAILED",
            f"the chain FAILED at record {p.get('bad_seq')}: {p.get('problem') or 'see audit'}")


def _checkpoint(_r: Recorded, p: Mapping[str, Any], _people: People) -> tuple[str, str]:
    return (KIND_WORDS["checkpoint"],
            "the meters and the last round proven at a clean shut-down; the next start "
            "checks only what comes after")


def _clock_jump(_r: Recorded, p: Mapping[str, Any], _people: People) -> tuple[str, str]:
    seconds = p.get("seconds")
    if not isinstance(seconds, int):
        return KIND_WORDS["clock.jump"], payload_parts(p)
    way = "forward" if seconds >= 0 else "back"
    return KIND_WORDS["clock.jump"], f"the station's clock jumped {way} {abs(seconds):,} s"


def _projection(_r: Recorded, p: Mapping[str, Any], _people: People) -> tuple[str, str]:
    problems = p.get("problems") or []
    first = f": {problems[0]}" if problems else ""
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return (KIND_WORDS["projection.mismatch"],
            f"rows beside the chain were altered and rewritten from it{first}{more}")


def _user_mismatch(_r: Recorded, p: Mapping[str, Any], people: People) -> tuple[str, str]:
    uid = p.get("user_id")
    if uid:
        return (KIND_WORDS["user.mismatch"],
                f"{people.name(str(uid))}'s row says {p.get('field')} {p.get('row')}; the "
                f"journal says {p.get('chain')}, and the station acted on the journal")
    return KIND_WORDS["user.mismatch"], payload_parts(p)


def _integrity(r: Recorded, p: Mapping[str, Any], _people: People) -> tuple[str, str]:
    if r.kind == "integrity.ack":
        return KIND_WORDS["integrity.ack"], f"ran software that differs from its manifest; " \
                                             f"{_reason(p)}"
    if r.kind == "integrity.ok":
        return KIND_WORDS["integrity.ok"], "the software matches its manifest"
    return KIND_WORDS["integrity.mismatch"], "the software does not match its manifest"


def _alert_ack(_r: Recorded, p: Mapping[str, Any], _people: People) -> tuple[str, str]:
    about = f"table {p.get('table')}: {p.get('what')}" if p.get("what") else str(p.get("alert"))
    return KIND_WORDS["alert.ack"], f"{about}; {_reason(p)}"


def _floor(r: Recorded, p: Mapping[str, Any], people: People) -> tuple[str, str]:
    if r.kind == "floor.restored":
        return (KIND_WORDS["floor.restored"],
                f"the floor holds records up to {p.get('floor_seq')}; the rest follow")
    if r.kind == "floor.lost":
        return (KIND_WORDS["floor.lost"],
                f"{p.get('reason')}; the table deals on and keeps its records until the floor "
                f"can take them")
    if r.kind == "floor.behind":
        return (KIND_WORDS["floor.behind"],
                f"the floor lost {p.get('lost')} records it had taken (it holds up to "
                f"{p.get('floor_seq')}, had taken up to {p.get('sent_seq')}); the table sends "
                f"them again")
    if r.kind == "floor.adoption_lost":
        if p.get("what") == "publication":
            said = (f"configuration {str(p.get('subject'))[:12]}, adopted here, is no longer "
                    f"at the floor; the table keeps it")
        else:
            said = (f"{people.name(str(p.get('subject')))}'s user records, adopted here, are "
                    f"no longer at the floor; the table keeps them")
        return (KIND_WORDS["floor.adoption_lost"],
                f"{said}, and its copy is here for the operator to publish again")
    return KIND_WORDS["floor.refused"], str(p.get("reason") or "")


def _witness(r: Recorded, p: Mapping[str, Any], _people: People) -> tuple[str, str]:
    who = f"the witness {p.get('witness')}"
    try:
        event = _WITNESS.decode(r.kind, p)
    except EventError:
        event = None
    if event is not None and event.ALERT:       # refused, out of reach: the alert's words
        return KIND_WORDS[r.kind], event.alert_text("", r.actor)
    if r.kind != WitnessRestored.KIND:
        return KIND_WORDS[r.kind], payload_parts(p)     # a damaged record: as it is
    return KIND_WORDS["witness.restored"], f"{who} answers again; the checkpoints that waited " \
                                           f"are sent"


_WITNESS = Codec((WitnessRefused, WitnessUnreachable, WitnessRestored))


def _renege(r: Recorded, p: Mapping[str, Any], people: People) -> tuple[str, str]:
    who = people.seat(p.get("seat"), r.seq, r.table_id)
    reason = name_the_player(str(p.get("reason") or ""), who)
    then = "the card stands" if p.get("stands") else "the card went back"
    pen = "; a penalty is due" if p.get("penalised") else ""
    return (KIND_WORDS["renege"],
            f"{reason} (trick {p.get('trick')}, card {p.get('card')}); {then}{pen}")


def _recovery(r: Recorded, p: Mapping[str, Any], _people: People) -> tuple[str, str]:
    differences = p.get("differences") or []
    return (KIND_WORDS["recovery"],
            f"the station restarted with round {p.get('round_no', r.round_no)} under way and "
            f"took it up where the journal left it"
            + (f"; {'; '.join(str(d) for d in differences)}" if differences else ""))


def _players(players: Mapping[str, Any]) -> str:
    return ", ".join(f"seat {k} {v}" if str(v) != str(k) else f"seat {k}"
                     for k, v in sorted(players.items(), key=lambda kv: str(kv[0])))


def _session_open(_r: Recorded, p: Mapping[str, Any], _people: People) -> tuple[str, str]:
    pot = p.get("pot")
    return (KIND_WORDS["session.open"],
            f"{_players(p.get('players') or {})}; "
            + (f"the pot opens with {pot} chips carried in" if pot else "the pot opens empty"))


def _session_close(_r: Recorded, p: Mapping[str, Any], _people: People) -> tuple[str, str]:
    pot = p.get("pot")
    return (KIND_WORDS["session.close"],
            f"{p.get('hands')} hands played; "
            + (f"{pot} chips left in the pot" if pot else "nothing left in the pot"))


def _pot_carry(_r: Recorded, p: Mapping[str, Any], _people: People) -> tuple[str, str]:
    return KIND_WORDS["pot.carry"], f"{p.get('pot')} chips wait for the next session"


def _pot_return(_r: Recorded, p: Mapping[str, Any], _people: People) -> tuple[str, str]:
    players = p.get("players") or {}
    shares = ", ".join(f"{players.get(k, 'seat ' + str(k))} {v}"
                       for k, v in sorted((p.get("shares") or {}).items()))
    return (KIND_WORDS["pot.return"],
            f"{p.get('pot')} chips given back: {shares}; {_reason(p)}")


def _protection(_r: Recorded, p: Mapping[str, Any], people: People) -> tuple[str, str]:
    from dealer_station.events.table import PROTECTION_RULES

    seat = f", seat {p.get('seat')}" if p.get("seat") is not None else ""
    dealer = f", dealt by {people.actor(str(p['dealer']))}" if p.get("dealer") else ""
    words = str(p.get("words") or "")
    try:
        p_value = f"; p-value {float(p.get('p_value') or 1):.2g}"
    except (TypeError, ValueError):
        p_value = ""
    return (KIND_WORDS["monitor.alert"],
            f"{PROTECTION_RULES.get(str(p.get('rule')), str(p.get('rule')))}, round "
            f"{p.get('round_no')}{seat}{dealer}: {words[:1].upper()}{words[1:]}{p_value}")


WORDERS: dict[str, Worder] = {
    "startup": _startup, "shutdown": _shutdown, "login": _login,
    "login.failed": _login_failed, "lockout": _lockout, "logout": _logout,
    "user.add": _user_add, "user.pin": _user_pin, "user.role": _user_role,
    "user.deactivate": _user_deactivate, "user.unlock": _user_unlock,
    "user.adopted": _user_adopted, "user.mismatch": _user_mismatch,
    "device.status": _device_status, "device.state": _device_link,
    "device.connected": _device_link, "device.lost": _device_link,
    "device.identified": _device_identified, "device.fault": _device_fault,
    "void": _void, "correction": _correction, "config.change": _config, "verify": _verify,
    "checkpoint": _checkpoint, "clock.jump": _clock_jump, "projection.mismatch": _projection,
    "integrity.ok": _integrity, "integrity.mismatch": _integrity, "integrity.ack": _integrity,
    "alert.ack": _alert_ack, "floor.lost": _floor, "floor.restored": _floor,
    "floor.refused": _floor, "floor.behind": _floor, "floor.adoption_lost": _floor,
    "witness.refused": _witness, "witness.unreachable": _witness,
    "witness.restored": _witness, "renege": _renege, "recovery": _recovery,
    "session.open": _session_open, "session.close": _session_close,
    "pot.carry": _pot_carry, "pot.return": _pot_return, "monitor.alert": _protection,
}
#: Payload fields never shown: a PIN's keyed hash is for no one's eyes.
SECRET_FIELDS = ("pin_mac", "pin_hash", "salt")


def event_words(record: Recorded, people: People | None = None) -> EventWords:
    """``record`` in words: what, who, the whole detail, and its tone."""
    people = people or People()
    who = people.actor(record.actor, record.seq, record.table_id)
    payload = {k: v for k, v in record.payload.items() if k not in SECRET_FIELDS}
    halt = halt_event_text(record.kind, dict(payload), record.actor, who=who)
    if halt is not None:
        what, detail = halt
    else:
        worder = WORDERS.get(record.kind)
        if worder is not None:
            what, detail = worder(record, payload, people)
        else:
            what = kind_words(record.kind)
            detail = payload_parts(payload, skip=("meters", "content"))
    return EventWords(what, who, detail or "—", tone(record.kind))
