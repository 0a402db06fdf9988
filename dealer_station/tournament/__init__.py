"""Card tournaments: the tournament director's job around the tables.

Pure rules, split by what they hold: ``games`` (each category's table size, chips, winners per
table size, elimination), ``config`` (config/tournament.toml), ``seating`` (the seeded draw and
equal tables), ``triple`` (a table's winners and losers, game tags, elimination order),
``bracket`` (double elimination), ``euchre`` and ``pedro`` (scoring hand by hand),
``tournament`` (the aggregate: verify / can / do, decide and apply), ``journaled`` (its own
chain in the journal), ``engines`` (a game's tables played on its own engine, found through
the registry: Bourré's) and ``simulate``. No Qt, database, serial or PDF library
(import-linter holds it).
"""
