"""Alembic migrations of the journal database, run by ``open_database`` on every start."""
