"""The regulator's copy of the floor by PostgreSQL logical replication (issue 26), set up by
running docs/floor.md's own SQL blocks ("The regulator's copy: logical replication") with
psql, and its line that creates the copy's schema: a floor with ``wal_level = logical`` and
users of its own, a second server as the regulator's, two tables forwarding to the floor.
The copy then gives the same ``audit verify`` and ``recall`` as the floor, even to a role
that may only read; later rounds arrive; a new table is added as the doc says after a
migration; a record edited at the floor reaches the copy, which keeps the row it first
received and whose ``audit verify`` fails; a TRUNCATE at the floor empties nothing on the
copy. Every wait is on a condition (tests/waiting.py), never on the clock."""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from repo_paths import ROOT
from waiting import wait_until

from dealer_station import registry as games
from dealer_station.app import fast_hasher
from dealer_station.audit import schema
from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import JournalKey, create_key
from dealer_station.audit.pgcluster import MISSING_MESSAGE, PgCluster, find_bindir
from dealer_station.cli.main import main
from dealer_station.floor.forwarder import Forwarder
from dealer_station.table.parts import SIMULATE

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

SECTION = "## The regulator's copy: logical replication"
#: Every table of the station's schema but the forwarders' bookkeeping: what the doc says to
#: publish (a table a new revision adds fails this test until the doc decides about it).
PUBLISHED = sorted(set(schema.metadata.tables) - {"floor_tables"})


def doc_sql(first_line: str) -> str:
    """The SQL block of the doc's section that starts with the comment ``first_line``."""
    text = (ROOT / "docs" / "floor.md").read_text(encoding="utf-8")
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sql\n(.*?)```", section, flags=re.S)
    found = [b for b in blocks if b.startswith(f"-- {first_line}\n")]
    assert len(found) == 1, f"docs/floor.md: no single SQL block starting '-- {first_line}'"
    return found[0]


def doc_migrate_line(url: str) -> list[str]:
    """The doc's command that creates the copy's schema, for ``url``, run by this Python."""
    text = (ROOT / "docs" / "floor.md").read_text(encoding="utf-8")
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    lines = [ln for ln in section.splitlines() if ln.startswith(".venv/bin/python -c ")]
    assert len(lines) == 1, "docs/floor.md: no single '.venv/bin/python -c' line"
    argv = shlex.split(lines[0])
    assert argv[-1] == "postgresql+psycopg://postgres@/floor_copy", argv
    return [sys.executable, *argv[1:-1], url]


def psql(server: PgCluster, dbname: str, sql: str) -> str:
    """``sql`` run as pasted into psql (autocommit, one statement at a time), stopping at
    the first error."""
    proc = subprocess.run(
        [str(server.bindir / "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-At",
         "-d", server.libpq(dbname)], input=sql, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def play(journal: Journal, table: str, rounds: int, seed: int, game: str) -> None:
    games.game(game).part(SIMULATE)(journal, table, rounds, seed=seed, config_path=None,
                                      quiet=True)


class Table:
    """One table: its own SQLite journal under the key the floor's tables share, forwarding
    to the floor."""

    def __init__(self, tmp: Path, table_id: str, game: str, key: JournalKey,
                 floor_url: str) -> None:
        self.table_id, self.game, self.floor_url = table_id, game, floor_url
        self.url = f"sqlite:///{tmp / f'{table_id}.db'}"
        self.journal = Journal(open_database(self.url), key)
        self.dealt = 0

    def deal_and_forward(self, rounds: int) -> None:
        play(self.journal, self.table_id, rounds, seed=7 * self.dealt + 1, game=self.game)
        self.dealt += rounds
        Forwarder(self.journal, self.floor_url, self.table_id).sync()


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[tuple[PgCluster, PgCluster]]:
    bindir = find_bindir()
    if bindir is None:
        pytest.skip(MISSING_MESSAGE)
    floor = PgCluster(bindir, logical=True, name="floor")
    copy = PgCluster(bindir, name="regulator")
    try:
        floor.start()
        copy.start()
        yield floor, copy
    finally:
        if copy.running:    # the subscription's slot goes with it, before the floor stops
            with contextlib.suppress(psycopg.Error):
                copy.sql("DROP SUBSCRIPTION IF EXISTS regulator_copy", "floor_copy")
        copy.stop()
        floor.stop()


def digest(server: PgCluster, dbname: str, table: str) -> str:
    rows = server.sql(f"SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) "
                      f"FROM {table} t", dbname)
    return str(rows[0][0])


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(args)
    return code, capsys.readouterr().out


def test_the_regulators_copy_answers_as_the_floor_and_keeps_what_it_received(
        tmp_path: Path, servers: tuple[PgCluster, PgCluster],
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    floor, copy = servers
    floor_url = floor.create_database("floor")
    copy_url = copy.create_database("floor_copy")
    auditor_url = f"postgresql+psycopg://auditor@127.0.0.1:{copy.port}/floor_copy"
    key = create_key(tmp_path / "floor.key")
    k = str(key.path)
    tables = [Table(tmp_path, "T1", "lapaire", key, floor_url),
              Table(tmp_path, "T2", "bourre", key, floor_url)]
    # The floor's own users (its `station` stream, signed and in a Merkle tree at the floor):
    # audit verify checks the users rows against that stream.
    monkeypatch.setattr("dealer_station.audit.users.default_hasher", fast_hasher)
    monkeypatch.setattr("sys.stdin", io.StringIO("24681357\n24681357\n"))
    assert main(["users", "add", "olga", "--name", "Olga", "--role", "operator",
                 "--pin-stdin", "--db", floor_url, "--key", k]) == 0
    assert "added olga" in capsys.readouterr().out
    for t in tables:
        t.deal_and_forward(4)
    for held in ("users", "signed_checkpoints", "merkle_nodes"):
        assert floor.sql(f"SELECT count(*) FROM {held}", "floor") != [(0,)], held

    def caught_up() -> bool:
        return all(digest(floor, "floor", t) == digest(copy, "floor_copy", t)
                   for t in PUBLISHED)

    # The doc's recipe: the floor's role and publication; the copy's schema by the station's
    # migrations, its trigger, the subscription and the reading role.
    psql(floor, "floor", doc_sql("the floor database"))
    assert sorted(r[0] for r in floor.sql(
        "SELECT tablename FROM pg_publication_tables WHERE pubname = 'regulator_copy'",
        "floor")) == PUBLISHED
    made = subprocess.run(doc_migrate_line(copy_url), capture_output=True, text=True,
                          timeout=120)
    assert made.returncode == 0, made.stderr
    psql(copy, "floor_copy", doc_sql("floor_copy")
         .replace("host=floor-a.casino.example port=5432", f"host=127.0.0.1 port={floor.port}")
         .replace(" sslmode=verify-full", ""))
    wait_until(caught_up, "the copy to hold what the floor holds")
    assert int(str(copy.sql("SELECT count(*) FROM journal", "floor_copy")[0][0])) > 100

    # The same answers on the copy, read by a role that may only read, as on the floor.
    def same_answers(expect: int) -> str:
        code_f, out_f = run(["audit", "verify", "--db", floor_url, "--key", k], capsys)
        code_c, out_c = run(["audit", "verify", "--db", auditor_url, "--key", k], capsys)
        assert (code_c, out_c) == (code_f, out_f) and code_c == expect, out_c
        for t in tables:
            f = run(["audit", "verify", "--db", t.url, "--key", k, "--floor", floor_url],
                    capsys)
            c = run(["audit", "verify", "--db", t.url, "--key", k, "--floor", auditor_url],
                    capsys)
            assert c == (f[0], f[1].replace(floor_url, auditor_url)), c[1]
            for args in (["--last", "2", "--records"], ["--round", "1", "--json"]):
                on_floor = run(["recall", "--db", floor_url, "--key", k, "--table",
                                t.table_id, *args], capsys)
                assert run(["recall", "--db", auditor_url, "--key", k, "--table",
                            t.table_id, *args], capsys) == on_floor
        return out_c

    out = same_answers(0)
    assert "table T1: ok" in out and "table T2: ok" in out and "FAILED" not in out
    assert "table station: ok" in out and "users" not in out, out

    # Later rounds arrive.
    before = copy.sql("SELECT max(seq) FROM journal WHERE table_id = 'T1'", "floor_copy")
    tables[0].deal_and_forward(2)
    wait_until(caught_up, "the later rounds to reach the copy")
    head = tables[0].journal.last("T1")
    assert head is not None
    assert copy.sql("SELECT max(seq) FROM journal WHERE table_id = 'T1'",
                    "floor_copy") == [(head.seq,)] != before
    same_answers(0)

    # The copy refuses the reading role's writes: read-only by default, and no right to.
    with psycopg.connect(f"host=127.0.0.1 port={copy.port} user=auditor dbname=floor_copy",
                         autocommit=True) as conn:
        with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
            conn.execute("UPDATE journal SET payload = payload || ' '")
        conn.execute("SET default_transaction_read_only = off")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("UPDATE journal SET payload = payload || ' '")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("DELETE FROM regulator_superseded")

    # A table a next revision adds (created here by hand on both sides, copy first), added
    # to the publication and the subscription as the doc says.
    copy.sql("CREATE TABLE new_table (id int PRIMARY KEY, v text)", "floor_copy")
    floor.sql("CREATE TABLE new_table (id int PRIMARY KEY, v text)", "floor")
    floor.sql("INSERT INTO new_table VALUES (1, 'before')", "floor")
    psql(floor, "floor", doc_sql("after a migration, the floor database"))
    psql(copy, "floor_copy", doc_sql("after a migration, floor_copy"))
    floor.sql("INSERT INTO new_table VALUES (2, 'after')", "floor")
    wait_until(lambda: digest(copy, "floor_copy", "new_table")
               == digest(floor, "floor", "new_table"), "the new table's rows on the copy")
    with psycopg.connect(f"host=127.0.0.1 port={copy.port} user=auditor dbname=floor_copy",
                         autocommit=True) as conn:
        assert conn.execute("SELECT v FROM new_table ORDER BY id").fetchall() == [
            ("before",), ("after",)]

    # A record edited at the floor after it was copied: the copy takes the change, keeps the
    # row it first received, and its verification fails, as the floor's does.
    seq = 40
    original = str(floor.sql(f"SELECT payload FROM journal WHERE table_id = 'T1' "
                             f"AND seq = {seq}", "floor")[0][0])
    digit = re.search(r"\d", original)
    assert digit is not None
    edited = (original[:digit.start()] + str((int(digit.group()) + 1) % 10)
              + original[digit.end():])
    with psycopg.connect(floor.libpq("floor"), autocommit=True) as conn:
        conn.execute("UPDATE journal SET payload = %s WHERE table_id = 'T1' AND seq = %s",
                     (edited, seq))
    wait_until(caught_up, "the edit to reach the copy")
    out = same_answers(1)
    assert f"table T1: FAILED at record {seq}" in out and "table T2: ok" in out, out
    code, out = run(["audit", "verify", "--db", tables[0].url, "--key", k, "--floor",
                     auditor_url], capsys)
    assert code == 1 and f"record {seq} differs from the floor's copy in payload" in out, out
    query = re.search(r"```sql\n(SELECT at, op.*?;)\n```", (ROOT / "docs" / "floor.md")
                      .read_text(encoding="utf-8"), flags=re.S)
    assert query is not None
    with psycopg.connect(f"host=127.0.0.1 port={copy.port} user=auditor dbname=floor_copy",
                         autocommit=True) as conn:
        assert [r[1:] for r in conn.execute(query.group(1)).fetchall()] == [
            ("UPDATE", "T1", str(seq))]
        assert conn.execute("SELECT old_row->>'payload', new_row->>'payload' "
                            "FROM regulator_superseded").fetchall() == [(original, edited)]

    # A TRUNCATE at the floor is not published: the copy keeps every row.
    held = copy.sql("SELECT count(*) FROM journal", "floor_copy")
    floor.sql("TRUNCATE journal, rounds", "floor")
    floor.sql("INSERT INTO new_table VALUES (3, 'after the truncate')", "floor")
    wait_until(lambda: digest(copy, "floor_copy", "new_table")
               == digest(floor, "floor", "new_table"), "the row after the truncate")
    assert copy.sql("SELECT count(*) FROM journal", "floor_copy") == held != [(0,)]
    assert copy.sql("SELECT count(*) FROM rounds", "floor_copy") != [(0,)]
