"""Pure game rules: settlement, paytables, legality and exact game math.

Nothing here imports Qt, a database, serial or PDF libraries, reads a clock or does I/O
(enforced by the import-linter contract in pyproject.toml and tests/test_layers.py).
"""
