"""Audit reports on paper, built only from the journal (see docs/reports.md)."""
