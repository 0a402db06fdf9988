"""Changing the users table's roles: its CHECK constraint names them. SQLite cannot change a
constraint in place, so there the table is rebuilt (same columns, rows copied); PostgreSQL
swaps the constraint. Shared by the migrations that add roles."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

_COLUMNS = ("user_id", "name", "role", "pin_hash", "failed_attempts", "locked_until", "active",
            "created_at")


def set_roles(roles: tuple[str, ...]) -> None:
    check = "role IN (" + ", ".join(f"'{r}'" for r in roles) + ")"
    if op.get_bind().dialect.name != "sqlite":
        op.drop_constraint("ck_users_role", "users", type_="check")
        op.create_check_constraint("ck_users_role", "users", check)
        return
    op.create_table(
        "users_new",
        sa.Column("user_id", sa.String(64), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("role", sa.String(20), nullable=False),
        sa.Column("pin_hash", sa.Text, nullable=False),
        sa.Column("failed_attempts", sa.Integer, nullable=False),
        sa.Column("locked_until", sa.String(40), nullable=True),
        sa.Column("active", sa.Boolean, nullable=False),
        sa.Column("created_at", sa.String(40), nullable=False),
        sa.PrimaryKeyConstraint("user_id", name="pk_users"),
        sa.CheckConstraint(check, name="ck_users_role"),
    )
    cols = ", ".join(_COLUMNS)
    op.execute(f"INSERT INTO users_new ({cols}) SELECT {cols} FROM users")
    op.drop_table("users")
    op.rename_table("users_new", "users")
