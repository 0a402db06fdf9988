"""Dealer Station: live-table settlement, device capture and a tamper-evident journal."""

__version__ = "0.1.0"
