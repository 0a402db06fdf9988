"""Database fixtures: a fresh SQLite file or PostgreSQL database per test.

A throwaway PostgreSQL cluster is started once per session from the installed server binaries
(see ``dealer_station.audit.pgcluster``); where there are none, the PostgreSQL cases skip with a
message saying what to install.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest

from dealer_station.audit.pgcluster import MISSING_MESSAGE, ClusterError, PgCluster, find_bindir

_counter = itertools.count(1)


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PgCluster]:
    bindir = find_bindir()
    if bindir is None:
        pytest.skip(MISSING_MESSAGE)
    cluster = PgCluster(bindir)
    try:
        cluster.start()
    except ClusterError as e:
        cluster.stop()
        pytest.fail(f"the throwaway PostgreSQL cluster did not start: {e}")
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(scope="session")
def pg_url(pg_cluster: PgCluster) -> str:
    """The URL of the throwaway cluster's maintenance database."""
    return pg_cluster.url()


@pytest.fixture
def pg_db_url(pg_cluster: PgCluster) -> Iterator[str]:
    """A new, empty PostgreSQL database for one test."""
    name = f"journal_test_{next(_counter)}"
    url = pg_cluster.create_database(name)
    try:
        yield url
    finally:
        pg_cluster.drop_database(name)


@pytest.fixture
def sqlite_db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'db' / 'journal.db'}"


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh database for each test, once on SQLite and once on PostgreSQL."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'db' / 'journal.db'}"
    else:
        yield request.getfixturevalue("pg_db_url")
