"""Bourré: pure rules: settlement, paytables, legality and exact game math. Nothing here
imports Qt, a database, serial or PDF library, reads a clock or does I/O (the import-linter
contracts)."""
