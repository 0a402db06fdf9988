"""A throwaway PostgreSQL cluster from the installed server binaries (tests and benchmarks).

``initdb`` refuses to run as root, so as root the cluster runs as the ``postgres`` system user
(via ``runuser``) in a temporary folder it owns. The server listens on 127.0.0.1 at a free port
and on a Unix socket in that folder, trusts local connections, and is removed on ``stop()``.

:class:`PgPair` is a primary with a streaming standby (``pg_basebackup -R``), asynchronous or
synchronous, reached through one multi-host URL (``target_session_attrs=read-write``): the
floor's failover as a casino runs it, on this machine (``dealer-station floor cluster``, the
failover tests). It promotes the standby after a hard stop of the primary (a failover) or
after a clean one (a switch-over, the old primary then following the new one).

``PgCluster(..., logical=True)`` runs with ``wal_level = logical``: a floor that publishes
the regulator's copy by logical replication (docs/floor.md; tests/test_floor_regulator_copy.py).
"""

from __future__ import annotations

import glob
import json
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from dealer_station.errors import StationError


class ClusterError(StationError):
    """The throwaway PostgreSQL cluster could not be started."""


def find_bindir() -> Path | None:
    """The newest installed PostgreSQL server's bin folder, or None."""
    env = os.environ.get("DEALER_STATION_PG_BINDIR")
    if env and (Path(env) / "initdb").exists():
        return Path(env)
    found = glob.glob("/usr/lib/postgresql/*/bin/initdb") + glob.glob("/usr/pgsql-*/bin/initdb")

    def version(p: str) -> tuple[int, ...]:
        digits = "".join(c if c.isdigit() else " " for c in p).split()
        return tuple(int(d) for d in digits)

    if found:
        return Path(max(found, key=version)).parent
    on_path = shutil.which("initdb")
    return Path(on_path).parent if on_path else None


MISSING_MESSAGE = ("PostgreSQL server binaries not found (looked for "
                   "/usr/lib/postgresql/*/bin/initdb and initdb on PATH); install the "
                   "'postgresql' package (scripts/bootstrap.sh does) to run these tests")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass
class PgCluster:
    bindir: Path
    durable: bool = False
    """fsync on (benchmarks of durable commits) or off (fast tests)."""
    max_connections: int = 50
    """The server's ``max_connections`` (a benchmark of many forwarders needs more)."""
    root: Path = field(init=False)
    port: int = field(init=False, default=0)
    name: str = "primary"
    """The server's ``cluster_name`` (a standby's is its name at the primary)."""
    place: Path | None = None
    """The folder to make the cluster's own folder in (default: the system's temporary one)."""
    logical: bool = False
    """``wal_level = logical`` (a publisher of logical replication: the regulator's copy,
    docs/floor.md) instead of ``replica``; a streaming standby works from either."""
    _as_user: list[str] = field(init=False, default_factory=list)
    _started: bool = field(init=False, default=False)

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        cmd = [*self._as_user, *args]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        if check and proc.returncode != 0:
            raise ClusterError(f"{' '.join(args[:2])} failed ({proc.returncode}): "
                               f"{(proc.stderr or proc.stdout).strip()[-2000:]}")
        return proc

    def _make_root(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix=f"ds-pg-{self.name}-",
                                          dir=None if self.place is None else str(self.place)))
        if os.geteuid() == 0:
            try:
                pg = pwd.getpwnam("postgres")
            except KeyError:
                raise ClusterError("running as root and there is no 'postgres' system user "
                                   "to run the server as") from None
            os.chown(self.root, pg.pw_uid, pg.pw_gid)
            os.chmod(self.root, 0o700)
            self._as_user = ["runuser", "-u", "postgres", "--"]
            if self._run("test", "-w", str(self.root), check=False).returncode != 0:
                shutil.rmtree(self.root, ignore_errors=True)
                raise ClusterError(f"the 'postgres' user cannot reach {self.root} (the server "
                                   f"runs as it when started as root): use a folder every "
                                   f"user can pass through, e.g. under /tmp")

    def start(self) -> PgCluster:
        self._make_root()
        data = self.root / "data"
        self._run(str(self.bindir / "initdb"), "-D", str(data), "-U", "postgres",
                  "-A", "trust", "-E", "UTF8", "--no-locale", "--no-sync")
        # In the configuration file, not on the command line: ALTER SYSTEM (a pair made
        # synchronous) must be able to override them. A standby's base backup copies them.
        # wal_level=replica and max_wal_senders are the server's defaults, and initdb's
        # pg_hba.conf trusts replication from 127.0.0.1: any cluster can have a standby.
        # max_replication_slots (default 10) serves a logical subscriber's slot too.
        on = "on" if self.durable else "off"
        wal_level = "logical" if self.logical else "replica"
        settings = (f"\nfsync = {on}\nsynchronous_commit = {on}\nfull_page_writes = {on}\n"
                    f"wal_level = {wal_level}\nmax_wal_senders = 10\nhot_standby = on\n"
                    f"wal_keep_size = 256MB\n")
        self._run("sh", "-c", f"printf %s \"$0\" >> {data}/postgresql.conf", settings)
        self._start_on_a_free_port()
        return self

    def _start_on_a_free_port(self) -> None:
        for _attempt in range(5):  # a port taken between our probe and the bind: try another
            self.port = _free_port()
            if self._pg_ctl_start().returncode == 0:
                self._started = True
                return
        raise ClusterError(f"pg_ctl start failed: {self._log_tail()}")

    def _options(self) -> str:
        return (f"-c listen_addresses=127.0.0.1 -c unix_socket_directories={self.root} "
                f"-c max_connections={self.max_connections} "
                f"-c cluster_name={self.name} -p {self.port}")

    def _pg_ctl_start(self) -> subprocess.CompletedProcess[str]:
        return self._run(str(self.bindir / "pg_ctl"), "start", "-D", str(self.root / "data"),
                         "-w", "-t", "60", "-l", str(self.root / "server.log"),
                         "-o", self._options(), check=False)

    def _log_tail(self) -> str:
        log = self.root / "server.log"
        return log.read_text(errors="replace")[-2000:].strip() if log.exists() else ""

    def crash(self) -> None:
        """Stop the server at once, as a crash would (``pg_ctl stop -m immediate``): no
        shutdown checkpoint; the next :meth:`restart` recovers from the WAL."""
        self._run(str(self.bindir / "pg_ctl"), "stop", "-D", str(self.root / "data"),
                  "-m", "immediate", "-w")
        self._started = False

    def restart(self) -> None:
        """Start the server again on the same port with the same data (after :meth:`crash`);
        returns once it accepts connections."""
        if self._pg_ctl_start().returncode != 0:
            raise ClusterError(f"pg_ctl start failed: {self._log_tail()}")
        self._started = True

    def stop_cleanly(self) -> None:
        """Stop the server as an operator would (``pg_ctl stop -m fast``: a shutdown
        checkpoint, every WAL record sent to the standbys first); the data stays."""
        self._run(str(self.bindir / "pg_ctl"), "stop", "-D", str(self.root / "data"),
                  "-m", "fast", "-w", "-t", "60")
        self._started = False

    def promote(self) -> None:
        """A standby made primary (``pg_ctl promote``); returns once it takes writes."""
        self._run(str(self.bindir / "pg_ctl"), "promote", "-D", str(self.root / "data"),
                  "-w", "-t", "60")
        deadline = time.monotonic() + 60
        while self.in_recovery():
            if time.monotonic() > deadline:
                raise ClusterError(f"the standby on port {self.port} was promoted but is "
                                   f"still in recovery: {self._log_tail()}")
            time.sleep(0.05)

    @property
    def running(self) -> bool:
        """Whether this object started the server and has not stopped it since."""
        return self._started

    def in_recovery(self) -> bool:
        """Whether the server is a standby (replaying a primary's WAL)."""
        import psycopg

        with psycopg.connect(self.libpq(), autocommit=True, connect_timeout=10) as conn:
            row = conn.execute("SELECT pg_is_in_recovery()").fetchone()
        return bool(row and row[0])

    def sql(self, statement: str, dbname: str = "postgres") -> list[tuple[object, ...]]:
        """Run one statement on this server (autocommit); its rows, if any."""
        import psycopg

        with psycopg.connect(self.libpq(dbname), autocommit=True, connect_timeout=10) as conn:
            cur = conn.execute(statement)
            return list(cur.fetchall()) if cur.description else []

    def follow(self, primary: PgCluster) -> None:
        """A stopped former primary made a standby of ``primary`` (after a switch-over,
        whose clean stop left nothing the new primary lacks) and started again."""
        data = self.root / "data"
        conf = (f"\nprimary_conninfo = 'host=127.0.0.1 port={primary.port} user=postgres "
                f"application_name={self.name}'\nrecovery_target_timeline = 'latest'\n")
        self._run("sh", "-c", f"printf %s \"$0\" >> {data}/postgresql.auto.conf && "
                  f"touch {data}/standby.signal", conf)
        self.restart()

    def url(self, dbname: str = "postgres") -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{dbname}"

    def libpq(self, dbname: str = "postgres") -> str:
        return f"host=127.0.0.1 port={self.port} user=postgres dbname={dbname}"

    def create_database(self, name: str) -> str:
        import psycopg

        with psycopg.connect(self.libpq(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def drop_database(self, name: str) -> None:
        import psycopg

        with psycopg.connect(self.libpq(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def stop(self) -> None:
        if self._started:
            self._run(str(self.bindir / "pg_ctl"), "stop", "-D", str(self.root / "data"),
                      "-m", "immediate", "-w", check=False)
            self._started = False
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> PgCluster:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    # -- kept in a file (dealer-station floor cluster: one command starts, another stops) ---

    def state(self) -> dict[str, object]:
        return {"name": self.name, "root": str(self.root), "port": self.port,
                "durable": self.durable, "max_connections": self.max_connections,
                "logical": self.logical, "running": self._started}

    @classmethod
    def from_state(cls, bindir: Path, state: dict[str, object]) -> PgCluster:
        c = cls(bindir, durable=bool(state["durable"]),
                max_connections=int(str(state["max_connections"])), name=str(state["name"]),
                logical=bool(state.get("logical", False)))
        c.root = Path(str(state["root"]))
        c.port = int(str(state["port"]))
        c._started = bool(state["running"])
        if os.geteuid() == 0:
            c._as_user = ["runuser", "-u", "postgres", "--"]
        return c


def standby_of(primary: PgCluster, name: str = "standby") -> PgCluster:
    """A streaming standby of ``primary``: ``pg_basebackup -R`` (the primary's data, and
    ``standby.signal`` with ``primary_conninfo`` written for it), started on a port of its
    own. Returns once it accepts (read-only) connections."""
    standby = PgCluster(primary.bindir, durable=primary.durable,
                        max_connections=primary.max_connections, name=name,
                        place=primary.place, logical=primary.logical)
    standby._make_root()
    data = standby.root / "data"
    try:
        standby._run(str(primary.bindir / "pg_basebackup"), "-D", str(data), "-h",
                     "127.0.0.1", "-p", str(primary.port), "-U", "postgres", "-X", "stream",
                     "-R", "--no-sync", "-c", "fast")
        # pg_basebackup -R writes primary_conninfo without the standby's name: add it, so
        # that the primary's pg_stat_replication and synchronous_standby_names can name it.
        conf = f"\nprimary_conninfo = 'host=127.0.0.1 port={primary.port} user=postgres " \
               f"application_name={name}'\n"
        standby._run("sh", "-c", f"printf %s \"$0\" >> {data}/postgresql.auto.conf", conf)
        standby._start_on_a_free_port()
    except BaseException:
        standby.stop()          # (removes its folder too)
        raise
    return standby


@dataclass
class PgPair:
    """A primary and its streaming standby, one multi-host URL for both.

    ``synchronous``: the primary's commit waits until the standby has the commit's WAL
    (``synchronous_standby_names`` naming it, ``synchronous_commit = on``), so a promoted
    standby holds every commit a client was told of; asynchronous (the default), it may
    lack the last ones. After :meth:`failover` or :meth:`switchover`, :attr:`primary` is the
    server that takes writes and :attr:`standby` the other (stopped after a failover)."""

    primary: PgCluster
    standby: PgCluster
    synchronous: bool = False

    @classmethod
    def start(cls, bindir: Path, *, synchronous: bool = False, durable: bool = False,
              max_connections: int = 50, place: Path | None = None) -> PgPair:
        primary = PgCluster(bindir, durable=durable, max_connections=max_connections,
                            name="primary", place=place).start()
        try:
            standby = standby_of(primary, "standby")
        except BaseException:
            primary.stop()
            raise
        pair = cls(primary, standby, synchronous)
        try:
            pair.set_synchronous(synchronous)
            pair.wait_streaming()
        except BaseException:
            pair.stop()
            raise
        return pair

    @property
    def nodes(self) -> tuple[PgCluster, PgCluster]:
        """Both servers, in the order the multi-host URL names them (fixed at the start, so
        the URL stays the same through failovers)."""
        a, b = self.primary, self.standby
        return (a, b) if a.port < b.port else (b, a)

    def set_synchronous(self, on: bool) -> None:
        """Synchronous or asynchronous replication from now on (``ALTER SYSTEM`` and a
        reload at the primary: no restart)."""
        names = f"'{self.standby.name}'" if on else "''"
        self.primary.sql(f"ALTER SYSTEM SET synchronous_standby_names = {names}")
        self.primary.sql(f"ALTER SYSTEM SET synchronous_commit = "
                         f"{'on' if on or self.primary.durable else 'off'}")
        self.primary.sql("SELECT pg_reload_conf()")
        self.synchronous = on

    def wait_streaming(self, timeout: float = 60.0) -> None:
        """Return once the standby streams from the primary (synchronously if so set)."""
        want = "sync" if self.synchronous else "async"
        deadline = time.monotonic() + timeout
        while True:
            rows = self.primary.sql("SELECT application_name, state, sync_state "
                                    "FROM pg_stat_replication")
            if any(r[0] == self.standby.name and r[1] == "streaming" and r[2] == want
                   for r in rows):
                return
            if time.monotonic() > deadline:
                raise ClusterError(f"the standby on port {self.standby.port} is not streaming "
                                   f"({want}) from the primary on port {self.primary.port}: "
                                   f"{rows}; {self.standby._log_tail()}")
            time.sleep(0.05)

    def cut_standby(self) -> None:
        """The standby stops receiving from the primary (its ``primary_conninfo`` emptied and
        reloaded) but keeps running, read-only: what the primary writes from now on it
        lacks, as a standby whose link lags or broke. Asynchronous pairs only (a synchronous
        primary's commits would wait for it)."""
        if self.synchronous:
            raise ClusterError("a synchronous primary waits for its standby: cut the link of "
                               "an asynchronous pair only")
        self.standby.sql("ALTER SYSTEM SET primary_conninfo = ''")
        self.standby.sql("SELECT pg_reload_conf()")
        deadline = time.monotonic() + 60
        while self.primary.sql("SELECT count(*) FROM pg_stat_replication")[0][0]:
            if time.monotonic() > deadline:
                raise ClusterError("the standby still streams from the primary")
            time.sleep(0.05)

    def caught_up(self) -> bool:
        """Whether the standby has replayed everything the primary has written so far."""
        lsn = self.primary.sql("SELECT pg_current_wal_lsn()")[0][0]
        rows = self.standby.sql(f"SELECT pg_last_wal_replay_lsn() >= '{lsn}'::pg_lsn")
        return bool(rows[0][0])

    def url(self, dbname: str = "postgres", *, user: str = "postgres") -> str:
        """The SQLAlchemy URL naming both servers: libpq tries them in order and keeps the
        one that takes writes (``target_session_attrs=read-write``)."""
        hosts = "&".join(f"host=127.0.0.1:{n.port}" for n in self.nodes)
        return (f"postgresql+psycopg://{user}@/{dbname}?{hosts}"
                f"&target_session_attrs=read-write")

    def libpq(self, dbname: str = "postgres") -> str:
        """The same as a libpq connection string (psql, psycopg)."""
        ports = ",".join(str(n.port) for n in self.nodes)
        return (f"host=127.0.0.1,127.0.0.1 port={ports} user=postgres dbname={dbname} "
                f"target_session_attrs=read-write")

    def create_database(self, name: str) -> str:
        self.primary.create_database(name)
        return self.url(name)

    def failover(self) -> None:
        """A hard failover: the primary stopped at once (``pg_ctl stop -m immediate``, as a
        machine losing power), the standby promoted. What the standby had not received is
        lost (asynchronous replication)."""
        self.primary.crash()
        self.promote()

    def promote(self, *, fenced: bool = False) -> None:
        """The standby promoted after the primary died (stopped with :meth:`failover`, or
        by the test or operator otherwise): the standby is started if it is stopped.

        ``fenced``: the promoted server comes up read-only for every new session
        (``default_transaction_read_only``), so no client asking for a read-write server
        (``target_session_attrs=read-write``) uses it until :meth:`unfence`: a test reads
        what the standby held at its promotion before the tables write again."""
        if not self.standby.running:
            self.standby.restart()
        if fenced:
            self.standby.sql("ALTER SYSTEM SET default_transaction_read_only = on")
            self.standby.sql("SELECT pg_reload_conf()")
        self.standby.promote()
        self.primary, self.standby = self.standby, self.primary

    def unfence(self) -> None:
        """The promoted primary takes writes again (after ``promote(fenced=True)``)."""
        self.primary.sql("ALTER SYSTEM RESET default_transaction_read_only")
        self.primary.sql("SELECT pg_reload_conf()")

    def switchover(self) -> None:
        """A planned switch-over: the primary stopped cleanly (every WAL record reaches the
        standby first), the standby promoted, the old primary started again as the new
        one's standby."""
        if self.synchronous:        # commits would wait for the old primary while it is down
            self.primary.sql("ALTER SYSTEM SET synchronous_standby_names = ''")
            self.primary.sql("SELECT pg_reload_conf()")
        self.primary.stop_cleanly()
        self.standby.promote()
        old, self.primary = self.primary, self.standby
        old.follow(self.primary)
        self.standby = old
        self.set_synchronous(self.synchronous)
        self.wait_streaming()

    def stop(self) -> None:
        for node in (self.primary, self.standby):
            node.stop()

    def state(self) -> dict[str, object]:
        return {"bindir": str(self.primary.bindir), "synchronous": self.synchronous,
                "primary": self.primary.state(), "standby": self.standby.state()}

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(self.state(), indent=1) + "\n")

    @classmethod
    def load(cls, path: Path) -> PgPair:
        state = json.loads(path.read_text())
        bindir = Path(state["bindir"])
        return cls(PgCluster.from_state(bindir, state["primary"]),
                   PgCluster.from_state(bindir, state["standby"]), bool(state["synchronous"]))
