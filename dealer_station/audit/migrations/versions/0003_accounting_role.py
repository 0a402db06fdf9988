"""The accounting role: users may be dealers, supervisors, operators or accounting.

The users table's CHECK constraint names the roles; SQLite cannot change a constraint in
place, so there the table is rebuilt (same columns, rows copied); PostgreSQL swaps the
constraint.

Revision ID: 0003_accounting_role
Revises: 0002_floor
Create Date: 2026-11-25
"""

from __future__ import annotations

from dealer_station.audit.migrations.roles import set_roles

revision = "0003_accounting_role"
down_revision = "0002_floor"
branch_labels = None
depends_on = None


def upgrade() -> None:
    set_roles(("dealer", "supervisor", "operator", "accounting"))


def downgrade() -> None:
    # Refused by the constraint while an accounting user exists: change their role first.
    set_roles(("dealer", "supervisor", "operator"))
