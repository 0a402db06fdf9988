"""La Pair'e's part of the demo pit (``ui/pit_demo.py``): the table whose rounds its shoe
stops, one voided and one left for the pit to see (the registry's ``demo_halts`` part)."""

from __future__ import annotations

from dealer_station.audit.users import Users
from dealer_station.cards import LAPAIRE_DECK
from dealer_station.games.lapaire.config_file import load_lapaire_config
from dealer_station.games.lapaire.rules.engine import Wager
from dealer_station.games.lapaire.table.live import LaPaireTable
from dealer_station.hardware.backends import open_device
from dealer_station.ui.pit_demo import PIN, DemoTable, _wait, add_users


def halted_and_voided(table: DemoTable, hasher: object) -> None:
    """The registry's ``demo_halts`` part: a La Pair'e round stopped by a shoe jam, then
    voided by a supervisor; the next round stopped by an error the shoe reports (a device
    fault), not yet resolved."""
    users = Users(table.journal, hasher=hasher)  # type: ignore[arg-type]
    add_users(table.journal, users)
    t = LaPaireTable(table.journal, table.table_id, load_lapaire_config(), dealer="dee/dealer")
    shoe = open_device("shoe", "simulated", device_id="S1", deck=LAPAIRE_DECK,
                       on_event=t.on_device_event, cards=["KH", "5D", "9C", "2S", "3S"])
    t.attach("shoe", shoe)
    try:
        _wait(lambda: t.device_state.get("shoe") == "READY")
        sup = users.authenticate("sue", PIN, table_id=table.table_id)
        t.place(Wager(1, "straight", ("K",), 2500))
        t.place(Wager(3, "split", ("9", "10"), 1000))
        assert shoe.simulator is not None
        shoe.simulator.set_status("JAM")
        _wait(lambda: t.halt is not None)
        t.void(sup, "shoe jammed mid-deal; wagers returned, shoe replaced")
        # The next round: the shoe reports an error of its own mid-round (a device fault),
        # which stops the round; nobody has resolved it yet.
        t.place(Wager(2, "straight", ("7",), 500))
        shoe.simulator.report_error("E17", "card path sensor dirty")
        _wait(lambda: t.halt is not None)
    finally:
        shoe.close()
