"""Which server the pit reads the floor from, in one query: its host and port, whether it
is the primary (takes writes) or a standby (read-only, replaying a primary's WAL), how far a
standby is behind, and a primary's standbys (``pg_stat_replication``). A SQLite floor is an
embedded database with no replication.

:class:`PrimaryWatch` remembers the primary from one reading to the next, so that a change of
primary (a failover: the host a multi-host URL reaches is another one) is said once and kept
on the line ("since 14:02, was floor-a:5432"). No Qt here; the pit's window and
``floor status`` say :func:`server_words`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, text

from dealer_station.audit.db import Database
from dealer_station.audit.journal import utc_now

#: One statement: the server, its role and, on a standby, its lag; on a primary, its standbys.
#: Lag in seconds on a standby: 0 when everything received is replayed (an idle primary
#: writes nothing to replay), else the time since the last transaction replayed.
_QUERY = text("""
SELECT host(inet_server_addr()) AS addr, inet_server_port() AS port,
       pg_is_in_recovery() AS standby,
       CASE WHEN pg_is_in_recovery() THEN
            CASE WHEN pg_last_wal_receive_lsn() IS NOT DISTINCT FROM pg_last_wal_replay_lsn()
                 THEN 0.0
                 ELSE extract(epoch FROM now() - pg_last_xact_replay_timestamp())::float8
            END
       END AS lag_s,
       CASE WHEN pg_is_in_recovery() THEN
            pg_wal_lsn_diff(pg_last_wal_receive_lsn(), pg_last_wal_replay_lsn())::float8
       END AS lag_bytes,
       CASE WHEN pg_is_in_recovery() THEN pg_is_wal_replay_paused() END AS paused,
       (SELECT status FROM pg_stat_wal_receiver LIMIT 1) AS receiving,
       CASE WHEN NOT pg_is_in_recovery() THEN
            (SELECT json_agg(json_build_object(
                 'name', application_name, 'state', state, 'sync', sync_state,
                 'lag_s', extract(epoch FROM replay_lag)::float8,
                 'lag_bytes', pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn)::float8)
                 ORDER BY application_name)
             FROM pg_stat_replication)
       END AS standbys
""")

#: pg_stat_replication's words, as an operator reads them.
STATE_WORDS = {"streaming": "streaming", "catchup": "catching up", "startup": "starting",
               "backup": "taking a base backup", "stopping": "stopping"}
SYNC_WORDS = {"sync": "synchronous", "async": "asynchronous",
              "potential": "synchronous if needed", "quorum": "synchronous, by quorum"}


@dataclass(frozen=True)
class Standby:
    """One standby as its primary sees it (``pg_stat_replication``); None: not visible to
    the pit's role (it needs ``pg_read_all_stats`` for the details)."""

    name: str
    state: str | None
    sync: str | None
    lag_seconds: float | None       # replay_lag; None once caught up and idle
    lag_bytes: float | None         # the primary's WAL not yet replayed there


@dataclass(frozen=True)
class FloorServer:
    """The server one reading reached."""

    embedded: bool = False          # a SQLite file: no server, no replication
    host: str = ""                  # "floor-a:5432", as the URL or the server names it
    primary: bool = True            # takes writes (False: a standby, read-only)
    lag_seconds: float | None = None    # a standby's: behind its primary
    lag_bytes: float | None = None      # a standby's: received, not yet replayed
    paused: bool = False            # a standby whose replay an administrator paused
    receiving: bool = False         # a standby's WAL receiver streams from a primary
    standbys: tuple[Standby, ...] = ()
    at: datetime = field(default_factory=utc_now)


def _host(conn: Connection, addr: str | None, port: int | None) -> str:
    """The host and port the connection reached, as the URL names them (libpq's own
    ``host``/``port`` for the server of a multi-host URL it chose), else as the server says
    (a Unix socket's connection has no address: ``local socket``)."""
    info = getattr(getattr(conn.connection, "dbapi_connection", None), "info", None)
    host = getattr(info, "host", None)
    port_said = getattr(info, "port", None)
    if isinstance(host, str) and host and not host.startswith("/"):
        return f"{host}:{port_said or port}"
    if addr:
        return f"{addr}:{port}"
    return f"local socket{f' {host}' if host else ''}, port {port_said or port or '?'}"


def _standbys(raw: Any) -> tuple[Standby, ...]:
    rows = json.loads(raw) if isinstance(raw, str) else raw
    if not isinstance(rows, list):
        return ()
    return tuple(Standby(str(r.get("name") or "unnamed"), r.get("state"), r.get("sync"),
                         r.get("lag_s"), r.get("lag_bytes")) for r in rows
                 if isinstance(r, dict))


def read_server(db: Database, conn: Connection | None = None) -> FloorServer:
    """Which server ``db`` reaches now (one statement on ``conn``, or on a connection of its
    own)."""
    if db.is_sqlite:
        return FloorServer(embedded=True, host=db.engine.url.database or "in memory")
    if conn is None:
        with db.read() as own:
            return read_server(db, own)
    row = conn.execute(_QUERY).mappings().one()
    standby = bool(row["standby"])
    return FloorServer(
        host=_host(conn, row["addr"], row["port"]), primary=not standby,
        lag_seconds=row["lag_s"], lag_bytes=row["lag_bytes"], paused=bool(row["paused"]),
        receiving=row["receiving"] == "streaming", standbys=_standbys(row["standbys"]))


@dataclass(frozen=True)
class PrimaryChange:
    """The primary the pit reads is another server than at the reading before."""

    was: str
    now: str
    at: datetime


class PrimaryWatch:
    """The primaries seen from one reading to the next: :meth:`see` returns the change once,
    at the first reading of a new primary; :attr:`last_change` keeps it for the line."""

    def __init__(self) -> None:
        self.primary: str | None = None
        self.last_change: PrimaryChange | None = None

    def see(self, server: FloorServer) -> PrimaryChange | None:
        if server.embedded or not server.primary:
            return None
        if self.primary is None or self.primary == server.host:
            self.primary = server.host
            return None
        change = PrimaryChange(self.primary, server.host, server.at)
        self.primary = server.host
        self.last_change = change
        return change


# --- words -----------------------------------------------------------------------------------

def _seconds(s: float | None) -> str:
    return f"{max(0.0, s or 0.0):.1f} s"


def _bytes(n: float) -> str:
    for unit, size in (("GB", 1 << 30), ("MB", 1 << 20), ("kB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n:.0f} bytes"


def _standby_words(s: Standby) -> str:
    if s.state is None:
        return f"{s.name} (its state needs the pg_read_all_stats role to read)"
    how = STATE_WORDS.get(s.state, s.state)
    sync = SYNC_WORDS.get(s.sync or "", s.sync or "")
    said = f"{s.name}, {how}" + (f" ({sync})" if sync else "")
    # replay_lag is None once the standby has caught up and the primary is idle; the bytes
    # the primary counts lag the standby's reports by up to wal_receiver_status_interval.
    if s.lag_seconds is None:
        return f"{said}, up to date"
    return f"{said}, {_seconds(s.lag_seconds)} behind"


def server_words(server: FloorServer, change: PrimaryChange | None = None) -> str:
    """The line the pit shows: ``Floor: primary floor-a:5432 · 1 standby: floor_b,
    streaming (synchronous), up to date``; ``Floor: standby floor-b:5432, read-only, 2.4 s
    behind the primary``; ``Floor: embedded database /var/lib/table.db (no
    replication)``."""
    if server.embedded:
        return f"Floor: embedded database {server.host} (no replication)"
    if server.primary:
        said = f"Floor: primary {server.host}"
        if change is not None and change.now == server.host:
            said += (f" (since {change.at.astimezone():%H:%M}, was {change.was})")
        if not server.standbys:
            return f"{said} · no standby streaming from it"
        n = len(server.standbys)
        return (f"{said} · {n} standby{'s' if n > 1 else ''}: "
                + "; ".join(_standby_words(s) for s in server.standbys))
    said = f"Floor: standby {server.host}, read-only, "
    if server.paused:
        said += f"replay paused, {_seconds(server.lag_seconds)} behind the primary"
    elif not server.receiving:
        said += (f"not receiving from a primary ({_seconds(server.lag_seconds)} behind what "
                 f"it last received)")
    else:
        said += f"{_seconds(server.lag_seconds)} behind the primary"
    if server.lag_bytes:
        said += f" ({_bytes(server.lag_bytes)} received, not yet replayed)"
    return said


def server_tone(server: FloorServer, lag_limit_s: float) -> str:
    """``good``, ``warn`` (a standby read, a primary with no standby, a change of primary
    kept on the line) or ``bad`` (a standby further behind than ``lag_limit_s``, or not
    receiving)."""
    if server.embedded:
        return "good"
    if server.primary:
        return "good" if server.standbys else "warn"
    if server.paused or not server.receiving or (server.lag_seconds or 0) > lag_limit_s:
        return "bad"
    return "warn"
