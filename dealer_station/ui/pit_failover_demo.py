"""The demo pit through a hard failover, for the pit's after-failover screenshot (no tests
here): the demo pit of :mod:`dealer_station.ui.pit_demo` on an asynchronous primary and
standby (:class:`~dealer_station.audit.pgcluster.PgPair`, one multi-host URL), and a table
``T7`` dealing, forwarding and following the floor's users through that URL.

The standby stops streaming; the floor deactivates the dealer Dee and T7 adopts it; T7 deals
on and the primary acknowledges its records; the primary dies and the standby is promoted.
T7's forwarder finds the new primary behind what it had acknowledged (``floor.behind``) and
sends the records again; its follower finds Dee's deactivation gone from the floor's users
(``floor.adoption_lost``), which the pit lists for an operator to publish again.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dealer_station.audit.db import Database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import JournalKey
from dealer_station.audit.pgcluster import PgPair
from dealer_station.audit.users import Users
from dealer_station.floor.follower import Follower
from dealer_station.floor.forwarder import Forwarder
from dealer_station.ui.pit_demo import PIN, demo_pit, demo_table, play

#: The dealer whose deactivation the floor loses.
DEACTIVATED = "dee"


@dataclass
class _Following:
    """What the follower needs of a table that only follows the floor's users (no
    publication is made to it)."""

    table_id: str
    game: str = "lapaire"

    def upcoming_config_version(self) -> str:
        return ""

    def adopt_published_config(self, version: str, content: Mapping[str, Any], reason: str,
                               what: Mapping[str, Any], actor: str) -> bool:
        raise AssertionError("no configuration is published to the demo's T7")


def _wait(what: Callable[[], bool], words: str, timeout: float = 120.0) -> None:
    end = time.monotonic() + timeout
    while not what():
        if time.monotonic() > end:
            raise TimeoutError(f"the failover demo waited {timeout:g} s for {words}")
        time.sleep(0.02)


@contextmanager
def failed_over_pit(tmp: Path, pair: PgPair, key: JournalKey, *, hasher: object,
                    before: Callable[[Database], None] = lambda _db: None
                    ) -> Iterator[Database]:
    """The demo pit on ``pair``, failed over as the module says; ``before(floor)`` runs once
    the pit's tables are at the floor, before anything is lost (the pit reads its first
    primary there). Yields the floor database, opened on the pair's multi-host URL."""
    url = pair.create_database("pit_failover")
    with demo_pit(tmp, url, key, hasher=hasher) as floor:
        t7 = demo_table(tmp, "T7", key)
        users = Users(t7.journal, hasher=hasher)  # type: ignore[arg-type]
        fwd = Forwarder(t7.journal, url, "T7", poll_s=0.05, backoff_s=(0.1, 0.5))
        follower = Follower(t7.journal, url, _Following("T7"), users, poll_s=0.1,
                            backoff_s=(0.1, 0.5))
        fwd.start()
        follower.start()

        def forwarded() -> bool:
            last = t7.journal.last("T7")
            return (fwd.link.state == "online" and fwd.link.waiting == 0
                    and fwd.link.floor_seq == (last.seq if last else 0))

        def said(kind: str) -> bool:
            return any(r.kind == kind for r in t7.journal.records("T7"))

        try:
            _wait(lambda: users.get(DEACTIVATED) is not None, "T7 to copy the floor's users")
            play(t7, 6, seed=21)
            _wait(forwarded, "the floor to hold T7's rounds")
            before(floor)
            _wait(pair.caught_up, "the standby to stream what the floor holds")
            pair.cut_standby()
            floor_users = Users(Journal(floor, key), hasher=hasher)  # type: ignore[arg-type]
            floor_users.deactivate(DEACTIVATED, actor=floor_users.authenticate("setup", PIN),
                                   reason="left the company")
            _wait(lambda: not getattr(users.get(DEACTIVATED), "active", True),
                  "T7 to adopt the deactivation")
            play(t7, 4, seed=22)
            _wait(forwarded, "the primary to acknowledge what the standby lacks")
            pair.failover()
            _wait(lambda: said("floor.behind") and said("floor.adoption_lost")
                  and forwarded(), "T7 to say what the new primary lost and send it again")
        finally:
            follower.stop()
            fwd.stop()
            t7.db.close()
        yield floor

