"""The journal, checkpoints, rounds, meters, configuration versions and users.

Revision ID: 0001_journal
Revises:
Create Date: 2026-11-21
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001_journal"
down_revision = None
branch_labels = None
depends_on = None

# Frozen copies of the column types as of this revision (a migration never imports the live
# schema, which will move on).
BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "journal",
        sa.Column("id", BigId, primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("seq", sa.BigInteger, nullable=False),
        sa.Column("ts", sa.String(40), nullable=False),
        sa.Column("actor", sa.String(200), nullable=False),
        sa.Column("kind", sa.String(100), nullable=False),
        sa.Column("round_no", sa.BigInteger, nullable=True),
        sa.Column("payload", sa.Text, nullable=False),
        sa.Column("prev_hash", sa.String(64), nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_journal"),
        sa.UniqueConstraint("table_id", "seq", name="uq_journal_table_id_seq"),
    )
    op.create_index("ix_journal_table_id_round_no_seq", "journal",
                    ["table_id", "round_no", "seq"])
    op.create_index("ix_journal_table_id_kind_ts", "journal", ["table_id", "kind", "ts"])

    op.create_table(
        "checkpoints",
        sa.Column("id", BigId, primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("seq", sa.BigInteger, nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
        sa.Column("ts", sa.String(40), nullable=False),
        sa.Column("actor", sa.String(200), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_checkpoints"),
        sa.UniqueConstraint("table_id", "seq", name="uq_checkpoints_table_id_seq"),
    )

    op.create_table(
        "rounds",
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("round_no", sa.BigInteger, nullable=False),
        sa.Column("game", sa.String(40), nullable=False),
        sa.Column("config_version", sa.String(64), nullable=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("dealer", sa.String(200), nullable=False),
        sa.Column("started_at", sa.String(40), nullable=False),
        sa.Column("ended_at", sa.String(40), nullable=True),
        sa.Column("first_seq", sa.BigInteger, nullable=False),
        sa.Column("last_seq", sa.BigInteger, nullable=False),
        sa.Column("summary", sa.Text, nullable=False),
        sa.PrimaryKeyConstraint("table_id", "round_no", name="pk_rounds"),
        sa.CheckConstraint("status IN ('open', 'settled', 'voided')",
                           name="ck_rounds_status"),
    )

    op.create_table(
        "meters",
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("meter", sa.String(64), nullable=False),
        sa.Column("rounds", sa.BigInteger, nullable=False),
        sa.Column("wagered", sa.BigInteger, nullable=False),
        sa.Column("paid", sa.BigInteger, nullable=False),
        sa.Column("house_win", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("table_id", "meter", name="pk_meters"),
    )

    op.create_table(
        "config_versions",
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("version", sa.String(64), nullable=False),
        sa.Column("game", sa.String(40), nullable=False),
        sa.Column("content", sa.Text, nullable=False),
        sa.Column("created_at", sa.String(40), nullable=False),
        sa.Column("created_by", sa.String(200), nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.PrimaryKeyConstraint("table_id", "version", name="pk_config_versions"),
    )

    op.create_table(
        "users",
        sa.Column("user_id", sa.String(64), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("role", sa.String(20), nullable=False),
        sa.Column("pin_hash", sa.Text, nullable=False),
        sa.Column("failed_attempts", sa.Integer, nullable=False),
        sa.Column("locked_until", sa.String(40), nullable=True),
        sa.Column("active", sa.Boolean, nullable=False),
        sa.Column("created_at", sa.String(40), nullable=False),
        sa.PrimaryKeyConstraint("user_id", name="pk_users"),
        sa.CheckConstraint("role IN ('dealer', 'supervisor', 'operator')", name="ck_users_role"),
    )


def downgrade() -> None:
    for name in ("users", "config_versions", "meters", "rounds", "checkpoints"):
        op.drop_table(name)
    op.drop_index("ix_journal_table_id_kind_ts", table_name="journal")
    op.drop_index("ix_journal_table_id_round_no_seq", table_name="journal")
    op.drop_table("journal")
