"""The floor's tables: each forwarded table's head and last contact, and refused chains.

Revision ID: 0002_floor
Revises: 0001_journal
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002_floor"
down_revision = "0001_journal"
branch_labels = None
depends_on = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "floor_tables",
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("head_seq", sa.BigInteger, nullable=False),
        sa.Column("head_hash", sa.String(64), nullable=True),
        sa.Column("head_ts", sa.String(40), nullable=True),
        sa.Column("received_at", sa.String(40), nullable=True),
        sa.Column("local_seq", sa.BigInteger, nullable=True),
        sa.Column("pending_since", sa.String(40), nullable=True),
        sa.Column("contact_at", sa.String(40), nullable=True),
        sa.Column("refused", sa.Boolean, nullable=False),
        sa.Column("refused_reason", sa.Text, nullable=True),
        sa.Column("refused_at", sa.String(40), nullable=True),
        sa.PrimaryKeyConstraint("table_id", name="pk_floor_tables"),
    )
    op.create_table(
        "floor_refusals",
        sa.Column("id", BigId, primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("at", sa.String(40), nullable=False),
        sa.Column("seq", sa.BigInteger, nullable=True),
        sa.Column("reason", sa.Text, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_floor_refusals"),
    )
    op.create_index("ix_floor_refusals_table_id_at", "floor_refusals", ["table_id", "at"])


def downgrade() -> None:
    op.drop_index("ix_floor_refusals_table_id_at", table_name="floor_refusals")
    op.drop_table("floor_refusals")
    op.drop_table("floor_tables")
