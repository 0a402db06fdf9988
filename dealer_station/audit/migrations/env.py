"""Alembic environment, configured in code by ``dealer_station.audit.db`` (no alembic.ini).

``open_database`` passes its open connection in ``config.attributes["connection"]`` so the
migration runs on the same engine, with the same SQLite pragmas, inside one transaction.
"""

from __future__ import annotations

from alembic import context

from dealer_station.audit.schema import metadata

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("the journal migrations run through dealer_station.audit.db.open_database")

context.configure(
    connection=connection,
    target_metadata=metadata,
    render_as_batch=connection.dialect.name == "sqlite",
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()
