"""What each chain is called as a log (a checkpoint's origin line), from the station's signing
key's name ``<casino>/<station>``: ``<casino>/<table>`` for a table's chain (and a
tournament's), ``<casino>/<station>/station`` for the station's own, which every machine has."""

from __future__ import annotations

#: The chain of the station's own records (users, start-ups): one per machine.
STATION_CHAIN = "station"


def origin_of(signer_name: str, table_id: str) -> str:
    if table_id == STATION_CHAIN:
        return f"{signer_name}/{STATION_CHAIN}"
    casino = signer_name.split("/", 1)[0]
    return f"{casino}/{table_id}"
