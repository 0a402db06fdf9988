"""``--witness URL --witness-key FILE``: the regulator's witnesses a station pushes its signed
checkpoints to (``simulate`` and ``run``; ``run`` also reads ``[witness]`` in station.toml)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from dealer_station.errors import StationError

if TYPE_CHECKING:
    from dealer_station.floor.witness_push import WitnessConfig, WitnessPusher


def add_witness_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--witness", action="append", default=[], metavar="URL",
                   help="push each signed checkpoint to the witness at URL while dealing "
                        "(repeatable, each with its --witness-key)")
    p.add_argument("--witness-key", action="append", default=[], metavar="FILE",
                   help="the witness's public key (its witness.pub), one per --witness")


def witness_configs(urls: list[str], keys: list[str], where: str = "--witness-key"
                    ) -> list[WitnessConfig]:
    from dealer_station.audit.notes import COSIGNATURE_KEY, NoteError, Verifier
    from dealer_station.floor.witness_push import WitnessConfig
    from dealer_station.witness.client import check_url
    from dealer_station.witness.errors import WitnessError

    if len(urls) != len(keys):
        raise StationError(f"give one witness key for each witness ({len(urls)} witness(es), "
                           f"{len(keys)} key(s))")
    out = []
    for url, key_file in zip(urls, keys, strict=True):
        try:
            text = Path(key_file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            reason = e.strerror if isinstance(e, OSError) else "not text"
            raise StationError(f"{where} {key_file}: cannot be read ({reason})") from None
        try:
            key = Verifier.parse(text)
        except NoteError as e:
            raise StationError(f"{where} {key_file}: {e}") from None
        if key.kind != COSIGNATURE_KEY:
            raise StationError(f"{where} {key_file}: not a witness's key (a witness.pub)")
        try:
            out.append(WitnessConfig(check_url(url), key))
        except WitnessError as e:
            raise StationError(f"--witness {url}: {e}") from None
    return out


def report(pusher: WitnessPusher) -> bool:
    """Print what each witness last said; False if one refused."""
    ok = True
    for st in pusher.status.values():
        for table_id, why in sorted(st.refused.items()):
            ok = False
            print(f"witness {st.name}: refused table {table_id} ({why}): {st.detail}")
        for table_id, size in sorted(st.cosigned.items()):
            if table_id not in st.refused:
                print(f"witness {st.name}: cosigned table {table_id} at size {size}")
        if st.state == "unreachable":
            print(f"witness {st.name}: unreachable ({st.detail}); the checkpoints wait in the "
                  f"journal and are pushed at the next start")
    return ok
