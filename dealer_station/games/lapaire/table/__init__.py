"""La Pair'e: the live table: deciding each intent against the round under way, the state its
journal's events build, the read models the screens show, recall and simulation."""
