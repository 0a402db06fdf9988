"""The game-protection monitor: sequential tests over a table's rounds that raise an alert the
moment the evidence crosses a threshold set for a stated false-alarm rate (docs/monitor.md).

Pure: the standard library and scipy only (no Qt, database, serial or PDF library; the
import-linter contract in pyproject.toml holds it to that). It is fed typed rounds
(:class:`~dealer_station.monitor.rounds.DealtRound`) one at a time by whoever reads them (the
journal's reader, dealer_station/table/monitor_rounds.py) and returns the alerts each raises.

- :mod:`.cusum`: Page's CUSUM on a Bernoulli observation whose chance under a fair game may
  change every round, its threshold from the false-alarm rate (Lorden), its p-value;
- :mod:`.deck`: the exact chance of a value or colour at each card of a round;
- :mod:`.rules`: the shoe rule and the card-knowledge rule;
- :mod:`.settings`: ``[monitor]`` of config/station.toml;
- :mod:`.alerts`: what an alert says;
- :mod:`.monitor`: one table's monitor, fed round by round.
"""

from dealer_station.monitor.alerts import Alert
from dealer_station.monitor.monitor import Monitor
from dealer_station.monitor.rounds import DealtRound, SeatWager
from dealer_station.monitor.settings import MonitorSettings, load_monitor_settings

__all__ = ["Alert", "DealtRound", "Monitor", "MonitorSettings", "SeatWager",
           "load_monitor_settings"]
