"""La Pair'e: the game's screens and their parts (Qt)."""
