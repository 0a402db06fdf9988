"""La Pair'e: the game's sections of the station's reports (configuration, recall, sessions)."""
