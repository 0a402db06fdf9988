"""The journal database's tables (SQLAlchemy Core).

The migrations in ``migrations/versions`` create exactly these; a test compares the two.
Text columns hold times as UTC ISO-8601 text with microseconds
(``2026-01-31T20:15:00.000001+00:00``) on every database, because a record's hash covers its
time exactly as stored. Money is integers.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Column,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

# SQLite only auto-numbers an "INTEGER PRIMARY KEY"; PostgreSQL gets a 64-bit key.
BigId = BigInteger().with_variant(Integer(), "sqlite")

metadata = MetaData(naming_convention={
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "pk": "pk_%(table_name)s",
})

journal = Table(
    "journal", metadata,
    Column("id", BigId, primary_key=True, autoincrement=True),
    Column("table_id", String(64), nullable=False),
    Column("seq", BigInteger, nullable=False),
    Column("ts", String(40), nullable=False),
    Column("actor", String(200), nullable=False),
    Column("kind", String(100), nullable=False),
    Column("round_no", BigInteger, nullable=True),
    Column("payload", Text, nullable=False),
    Column("prev_hash", String(64), nullable=False),
    Column("hash", String(64), nullable=False),
    # The database itself refuses a second record with the same (table, seq): two writers
    # cannot both extend a chain.
    UniqueConstraint("table_id", "seq"),
    Index(None, "table_id", "round_no", "seq"),
    Index(None, "table_id", "kind", "ts"),
)

checkpoints = Table(
    "checkpoints", metadata,
    Column("id", BigId, primary_key=True, autoincrement=True),
    Column("table_id", String(64), nullable=False),
    Column("seq", BigInteger, nullable=False),
    Column("hash", String(64), nullable=False),
    Column("ts", String(40), nullable=False),
    Column("actor", String(200), nullable=False),
    UniqueConstraint("table_id", "seq"),
)

ROUND_STATUSES = ("open", "settled", "voided")

rounds = Table(
    "rounds", metadata,
    Column("table_id", String(64), primary_key=True),
    Column("round_no", BigInteger, primary_key=True),
    Column("game", String(40), nullable=False),
    Column("config_version", String(64), nullable=False),
    Column("status", String(10), nullable=False),
    Column("dealer", String(200), nullable=False),
    Column("started_at", String(40), nullable=False),
    Column("ended_at", String(40), nullable=True),
    Column("first_seq", BigInteger, nullable=False),
    Column("last_seq", BigInteger, nullable=False),
    Column("summary", Text, nullable=False),
    CheckConstraint("status IN ('open', 'settled', 'voided')", name="status"),
)

meters = Table(
    "meters", metadata,
    Column("table_id", String(64), primary_key=True),
    Column("meter", String(64), primary_key=True),
    Column("rounds", BigInteger, nullable=False),
    Column("wagered", BigInteger, nullable=False),
    Column("paid", BigInteger, nullable=False),
    Column("house_win", BigInteger, nullable=False),
)

config_versions = Table(
    "config_versions", metadata,
    # One configuration may be used at several tables, so the key is (table, version).
    Column("table_id", String(64), primary_key=True),
    Column("version", String(64), primary_key=True),
    Column("game", String(40), nullable=False),
    Column("content", Text, nullable=False),
    Column("created_at", String(40), nullable=False),
    Column("created_by", String(200), nullable=False),
    Column("reason", Text, nullable=False),
)

ROLES = ("dealer", "supervisor", "operator", "accounting", "cage", "security")

users = Table(
    "users", metadata,
    Column("user_id", String(64), primary_key=True),
    Column("name", String(200), nullable=False),
    Column("role", String(20), nullable=False),
    Column("pin_hash", Text, nullable=False),
    Column("failed_attempts", Integer, nullable=False),
    Column("locked_until", String(40), nullable=True),
    Column("active", Boolean, nullable=False),
    Column("created_at", String(40), nullable=False),
    CheckConstraint("role IN ('dealer', 'supervisor', 'operator', 'accounting', 'cage', "
                    "'security')", name="role"),
)

# --- the floor: what a floor database keeps beside the tables' forwarded journals ------------
# (Empty at a table: one schema everywhere. Conveniences for the podium and scripts, never
# evidence: what a table did is its chain, compared record by record by `audit verify --floor`.)

floor_tables = Table(
    "floor_tables", metadata,
    Column("table_id", String(64), primary_key=True),
    # The floor's head of the table's chain (seq 0: nothing yet) and the head record's time.
    Column("head_seq", BigInteger, nullable=False),
    Column("head_hash", String(64), nullable=True),
    Column("head_ts", String(40), nullable=True),
    Column("received_at", String(40), nullable=True),    # the floor's time of the last accept
    # What the table's forwarder said at its last contact: its local head, and the time of
    # its oldest record the floor did not yet hold (none: caught up).
    Column("local_seq", BigInteger, nullable=True),
    Column("pending_since", String(40), nullable=True),
    Column("contact_at", String(40), nullable=True),
    Column("refused", Boolean, nullable=False),
    Column("refused_reason", Text, nullable=True),
    Column("refused_at", String(40), nullable=True),
)

floor_refusals = Table(
    "floor_refusals", metadata,
    Column("id", BigId, primary_key=True, autoincrement=True),
    Column("table_id", String(64), nullable=False),
    Column("at", String(40), nullable=False),
    Column("seq", BigInteger, nullable=True),
    Column("reason", Text, nullable=False),
    Index(None, "table_id", "at"),
)


# Each chain's Merkle tree (audit/merkle.py): the hash (hex) of every full subtree of 2**level
# leaves starting at leaf idx * 2**level. A projection of the records, rebuilt from them.
merkle_nodes = Table(
    "merkle_nodes", metadata,
    Column("table_id", String(64), primary_key=True),
    Column("level", Integer, primary_key=True),
    Column("idx", BigInteger, primary_key=True),
    Column("hash", String(64), nullable=False),
)

# The station's signed checkpoints of each chain (C2SP tlog-checkpoint notes, audit/notes.py).
signed_checkpoints = Table(
    "signed_checkpoints", metadata,
    Column("table_id", String(64), primary_key=True),
    Column("size", BigInteger, primary_key=True),
    Column("origin", String(200), nullable=False),
    Column("root", String(64), nullable=False),
    Column("note", Text, nullable=False),
    Column("ts", String(40), nullable=False),
)

# Checkpoints a witness cosigned: the note with the station's signature and the witness's.
cosignatures = Table(
    "cosignatures", metadata,
    Column("table_id", String(64), primary_key=True),
    Column("witness", String(200), primary_key=True),
    Column("size", BigInteger, primary_key=True),
    Column("note", Text, nullable=False),
    Column("ts", String(40), nullable=False),
)
