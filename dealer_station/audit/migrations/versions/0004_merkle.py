"""Merkle trees, signed checkpoints and witnesses' cosignatures (docs/journal.md).

``merkle_nodes`` keeps the hash of every full subtree of each chain's tree (a projection of the
records, rebuilt from them when it disagrees); ``signed_checkpoints`` the station's signed
checkpoints of each chain; ``cosignatures`` each witness's cosigned checkpoints.

Revision ID: 0004_merkle
Revises: 0003_accounting_role
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_merkle"
down_revision = "0003_accounting_role"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "merkle_nodes",
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("level", sa.Integer, nullable=False),
        sa.Column("idx", sa.BigInteger, nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
        sa.PrimaryKeyConstraint("table_id", "level", "idx", name="pk_merkle_nodes"),
    )
    op.create_table(
        "signed_checkpoints",
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("size", sa.BigInteger, nullable=False),
        sa.Column("origin", sa.String(200), nullable=False),
        sa.Column("root", sa.String(64), nullable=False),
        sa.Column("note", sa.Text, nullable=False),
        sa.Column("ts", sa.String(40), nullable=False),
        sa.PrimaryKeyConstraint("table_id", "size", name="pk_signed_checkpoints"),
    )
    op.create_table(
        "cosignatures",
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("witness", sa.String(200), nullable=False),
        sa.Column("size", sa.BigInteger, nullable=False),
        sa.Column("note", sa.Text, nullable=False),
        sa.Column("ts", sa.String(40), nullable=False),
        sa.PrimaryKeyConstraint("table_id", "witness", "size", name="pk_cosignatures"),
    )


def downgrade() -> None:
    op.drop_table("cosignatures")
    op.drop_table("signed_checkpoints")
    op.drop_table("merkle_nodes")
