"""Bourré: the Cajun trick-taking pot game, with bourrés, reneges, carried pots and the card
room's collection."""
