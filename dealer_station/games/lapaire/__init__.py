"""La Pair'e: the 54-card game of First Card wagers on a 14-value layout and its side wagers,
settled after cards 1, 2 and 3 (the rule text: ``shared/rules/``)."""
