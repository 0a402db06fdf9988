"""Bourré: the game's screens and their parts (Qt)."""
