"""Card shoe and card reader drivers: bytes in, typed events out. Knows nothing of games."""
