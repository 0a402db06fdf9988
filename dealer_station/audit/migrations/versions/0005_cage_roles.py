"""The cage's roles: a cage cashier issues fill and credit slips, a security officer carries
the chips between the cage and the table (docs/accounting.md, "The cage").

Revision ID: 0005_cage_roles
Revises: 0004_merkle
Create Date: 2026-11-27
"""

from __future__ import annotations

from dealer_station.audit.migrations.roles import set_roles

revision = "0005_cage_roles"
down_revision = "0004_merkle"
branch_labels = None
depends_on = None


def upgrade() -> None:
    set_roles(("dealer", "supervisor", "operator", "accounting", "cage", "security"))


def downgrade() -> None:
    # Refused by the constraint while a cage or security user exists: change their role first.
    set_roles(("dealer", "supervisor", "operator", "accounting"))
