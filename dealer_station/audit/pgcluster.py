"""A throwaway PostgreSQL cluster from the installed server binaries (tests and benchmarks).

``initdb`` refuses to run as root, so as root the cluster runs as the ``postgres`` system user
(via ``runuser``) in a temporary folder it owns. The server listens on 127.0.0.1 at a free port
and on a Unix socket in that folder, trusts local connections, and is removed on ``stop()``.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
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
    _as_user: list[str] = field(init=False, default_factory=list)
    _started: bool = field(init=False, default=False)

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        cmd = [*self._as_user, *args]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        if check and proc.returncode != 0:
            raise ClusterError(f"{' '.join(args[:2])} failed ({proc.returncode}): "
                               f"{(proc.stderr or proc.stdout).strip()[-2000:]}")
        return proc

    def start(self) -> PgCluster:
        self.root = Path(tempfile.mkdtemp(prefix="ds-pg-"))
        data = self.root / "data"
        if os.geteuid() == 0:
            try:
                pg = pwd.getpwnam("postgres")
            except KeyError:
                raise ClusterError("running as root and there is no 'postgres' system user "
                                   "to run the server as") from None
            os.chown(self.root, pg.pw_uid, pg.pw_gid)
            os.chmod(self.root, 0o700)
            self._as_user = ["runuser", "-u", "postgres", "--"]
        self._run(str(self.bindir / "initdb"), "-D", str(data), "-U", "postgres",
                  "-A", "trust", "-E", "UTF8", "--no-locale", "--no-sync")
        for _attempt in range(5):  # a port taken between our probe and the bind: try another
            self.port = _free_port()
            if self._pg_ctl_start().returncode == 0:
                self._started = True
                return self
        raise ClusterError(f"pg_ctl start failed: {self._log_tail()}")

    def _options(self) -> str:
        return (f"-c listen_addresses=127.0.0.1 -c unix_socket_directories={self.root} "
                f"-c max_connections={self.max_connections} "
                f"-c fsync={'on' if self.durable else 'off'} "
                f"-c synchronous_commit={'on' if self.durable else 'off'} "
                f"-c full_page_writes={'on' if self.durable else 'off'} -p {self.port}")

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
