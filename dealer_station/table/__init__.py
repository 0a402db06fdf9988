"""The live table: the only place that coordinates devices, rules and the journal (Qt-free)."""
