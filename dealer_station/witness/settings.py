"""The regulator's witnesses a station pushes to: ``[witness]`` in ``config/station.toml``::

    [witness]
    urls = ["https://witness.regulator.example"]
    keys = ["witness.pub"]          # each witness's public key file, beside station.toml
    alert_after_seconds = 300       # a witness out of reach this long is a significant event

``dealer-station run --witness URL --witness-key FILE`` gives them on the command line instead.
A bad value is refused with the file, the key and the reason. Pure: the files are read by the
caller (the command line).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from dealer_station.tomlconfig import Section, load_toml

DEFAULT_ALERT_AFTER_S = 300


@dataclass(frozen=True)
class WitnessSettings:
    urls: tuple[str, ...] = ()
    key_files: tuple[Path, ...] = ()
    alert_after_s: int = DEFAULT_ALERT_AFTER_S
    file: str = field(default="")


def load_witness_settings(path: Path) -> WitnessSettings:
    """The ``[witness]`` table of the station file at ``path`` (none: no witnesses)."""
    if not path.exists():
        return WitnessSettings(file=str(path))
    data = load_toml(path)
    if "witness" not in data:
        return WitnessSettings(file=str(path))
    sec = Section(data, str(path)).section("witness")
    urls = sec.list("urls", [])
    keys = sec.list("keys", [])
    alert = sec.int("alert_after_seconds", DEFAULT_ALERT_AFTER_S, minimum=1)
    for name, values in (("urls", urls), ("keys", keys)):
        for i, v in enumerate(values):
            if not isinstance(v, str) or not v.strip():
                raise sec.error(f"{name}[{i}]", f"must be text, got {v!r}")
    if len(urls) != len(keys):
        raise sec.error("keys", f"gives {len(keys)} key file(s) for {len(urls)} url(s): one "
                                f"public key for each witness")
    sec.finish()
    files = tuple((path.parent / k).resolve() for k in keys)
    return WitnessSettings(tuple(urls), files, alert, str(path))
