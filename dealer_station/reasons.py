"""The reasons a supervisor picks from: the ``[reasons]`` table of ``config/station.toml``.

Every action that needs a reason offers a short list the operator configures, plus "Other…"
typed on the on-screen keyboard; whatever is chosen is journaled as its text. One list per
action:

```toml
[reasons]
resume = ["shoe jam cleared", "shoe door closed and checked", "device reconnected"]
void = ["player dispute", "dealer error", "misdeal"]
correction = ["misread corrected", "card checked by hand"]
unlock = ["identity checked", "mistyped PIN"]
acknowledge = ["checked with the dealer", "device replaced"]
slip_void = ["wrong count", "wrong slip"]
config_change = ["approved change"]
return_pot = ["players went home"]
publish_again = ["lost in the failover"]
```

An action left out keeps its defaults (:data:`DEFAULT_REASONS`); an empty list offers only
"Other…". Each reason is text of 1 to :data:`MAX_REASON_CHARS` characters, at most
:data:`MAX_REASONS` to an action (they are buttons on one sheet), none twice. A mistake is a
``ConfigError`` naming the file, the key and the reason, e.g.
``config/station.toml: reasons.void[2]: must be text, got 3``.

Pure: no Qt; the screens (``dealer_station/ui/reasons.py``) read it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from dealer_station.tomlconfig import Section, load_toml

#: The actions that take a reason, each with the words a person reads for it.
ACTIONS: Mapping[str, str] = {
    "resume": "resuming a stopped round or hand",
    "void": "voiding a round or hand",
    "correction": "entering the card actually dealt",
    "unlock": "unlocking a user",
    "acknowledge": "acknowledging an alert or the software check",
    "slip_void": "voiding a slip",
    "config_change": "changing the table's configuration",
    "return_pot": "returning a carried pot to the players",
    "publish_again": "publishing again what the floor lost in a failover",
}

DEFAULT_REASONS: Mapping[str, tuple[str, ...]] = {
    "resume": ("shoe jam cleared", "shoe door closed and checked", "device reconnected",
               "card checked by hand"),
    "void": ("player dispute", "dealer error", "misdeal", "device fault"),
    "correction": ("misread corrected", "card checked by hand", "dealer error"),
    "unlock": ("identity checked", "mistyped PIN"),
    "acknowledge": ("checked with the dealer", "device replaced", "operator informed"),
    "slip_void": ("wrong count", "wrong slip", "dealer error"),
    "config_change": ("approved change", "paytable change approved", "limits change approved"),
    "return_pot": ("players went home", "session ended early"),
    "publish_again": ("lost in the failover", "checked with the table's copy"),
}

#: Longest reason offered as a button (a longer one is typed with "Other…").
MAX_REASON_CHARS = 60
#: Most reasons to one action: they are buttons on one sheet, with "Other…".
MAX_REASONS = 8
#: The button that opens the keyboard: no configured reason may take its words.
OTHER = "Other…"


@dataclass(frozen=True)
class Reasons:
    """The reasons offered for each action; ``file`` is where they were read from."""

    by_action: Mapping[str, tuple[str, ...]] = field(
        default_factory=lambda: dict(DEFAULT_REASONS))
    file: str = ""

    def of(self, action: str) -> tuple[str, ...]:
        """The reasons offered for ``action`` (one of :data:`ACTIONS`)."""
        if action not in ACTIONS:
            raise KeyError(f"{action!r} is not an action that takes a reason "
                           f"({', '.join(ACTIONS)})")
        return self.by_action.get(action, DEFAULT_REASONS[action])


def reasons_from(sec: Section) -> Reasons:
    """The reasons in a ``[reasons]`` section (see the module)."""
    by_action = dict(DEFAULT_REASONS)
    for action in ACTIONS:
        if not sec.has(action):
            continue
        raw = sec.list(action)
        chosen: list[str] = []
        seen: set[str] = set()
        for i, item in enumerate(raw):
            key = f"{action}[{i}]"
            if not isinstance(item, str):
                raise sec.error(key, f"must be text, got {item!r}")
            text = " ".join(item.split())
            if not text:
                raise sec.error(key, "must not be empty (leave it out instead)")
            if len(text) > MAX_REASON_CHARS:
                raise sec.error(key, f"is {len(text)} characters long; a reason offered as a "
                                     f"button has at most {MAX_REASON_CHARS} (a longer one "
                                     f"is typed with {OTHER})")
            if text.casefold().rstrip(".…") == OTHER.casefold().rstrip(".…"):
                raise sec.error(key, f"{text!r} is the keyboard's own button; leave it out "
                                     f"(it is always offered)")
            if text.casefold() in seen:
                raise sec.error(key, f"{text!r} is listed twice")
            seen.add(text.casefold())
            chosen.append(text)
        if len(chosen) > MAX_REASONS:
            raise sec.error(action, f"lists {len(chosen)} reasons; at most {MAX_REASONS} fit "
                                    f"on the sheet beside {OTHER}")
        by_action[action] = tuple(chosen)
    sec.finish()
    return Reasons(by_action, sec.file)


def load_reasons(path: Path | str | None) -> Reasons:
    """The ``[reasons]`` table of the station file at ``path``; the defaults where the file
    or the table is missing. A bad value raises ``ConfigError`` (file, key, reason)."""
    if path is None or not Path(path).exists():
        return Reasons(file=str(path or ""))
    data = load_toml(path)
    if "reasons" not in data:
        return Reasons(file=str(path))
    return reasons_from(Section(data, str(path)).section("reasons"))


__all__ = ["ACTIONS", "DEFAULT_REASONS", "MAX_REASONS", "MAX_REASON_CHARS", "OTHER",
           "Reasons", "load_reasons", "reasons_from"]
