"""The words in the pit's cells: a time on the podium's clock, how far the floor's copy of a
table is behind, each device's last state (no Qt)."""

from __future__ import annotations

from datetime import datetime

from dealer_station.floor.alerts import PitRow, duration_text


def local_hhmm(iso: str) -> str:
    return datetime.fromisoformat(iso).astimezone().strftime("%H:%M")


def behind_text(row: PitRow) -> str:
    st = row.status
    if st.lag_seconds is None:
        return "never heard"
    if st.lag_seconds < 1 and not st.lag_records:
        return "up to date"
    # Whole minutes once it is a minute or more: the grid keeps its room for the devices.
    lag = st.lag_seconds if st.lag_seconds < 60 else st.lag_seconds - st.lag_seconds % 60
    return f"{duration_text(lag).removesuffix(' 00 s')} · {st.lag_records} rec"


def devices_text(row: PitRow) -> str:
    """Each device's last state, devices in the same state said together: ``shoe, reader
    READY``; ``shoe JAM``; faults first."""
    by_state: dict[str, list[str]] = {}
    for d in sorted(row.devices, key=lambda d: not d.fault):
        by_state.setdefault(d.state, []).append(d.device)
    return " · ".join(f"{', '.join(names)} {state}" for state, names in by_state.items()) \
        or "—"
