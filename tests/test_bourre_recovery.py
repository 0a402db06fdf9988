"""A Bourré station that stops in any phase of a hand recovers every time.

Two ways of stopping: a station driven in this process is abandoned at a chosen point of a
chosen phase (its devices closed and its lease let go, nothing else: what a crash leaves in the
journal), and a real ``dealer-station simulate --game bourre`` is killed with SIGKILL at random
moments. Each time, the next ``simulate`` on the same journal finishes the hand that was under
way (the simulated shoe is loaded with the cards the hand can still be dealt), plays on, exits
0, writes no halt, and the journal verifies.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from kill_support import kill_after, open_rounds

from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import create_key, load_key
from dealer_station.games.bourre.config_file import load_bourre_profiles
from dealer_station.games.bourre.rules.engine import BourreHand, DrawSource, Phase
from dealer_station.games.bourre.table import sim as bourre_sim
from dealer_station.games.bourre.table.live import BourreTable
from dealer_station.games.bourre.table.sim import SEATS, SIM_DEALER, play_hand
from dealer_station.hardware.backends import open_device

ROOT = Path(__file__).resolve().parents[1]
TABLE = "B1"


class Crash(Exception):
    """The station stops here."""


def simulate(db: str, key: Path, hands: int, seed: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "dealer_station", "simulate", "--game", "bourre", "--table",
         TABLE, "--rounds", str(hands), "--seed", str(seed), "--db", db, "--key", str(key)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"})


def crash_in_process(db_url: str, key: Path, seed: int,
                     stop: Callable[[BourreHand, str], bool], hands: int = 6,
                     seats: tuple[int, ...] = SEATS) -> str:
    """Play hands at ``TABLE`` until ``stop(hand, what)`` says so just before an action (what:
    "device" or "decide"), then abandon the station; returns the phase it stopped in."""
    db = open_database(db_url)
    journal = Journal(db, load_key(key) if key.exists() else create_key(key))
    rng = random.Random(seed)
    table = BourreTable(journal, TABLE, load_bourre_profiles()["tournament"], dealer=SIM_DEALER)
    table.startup()
    waiter = bourre_sim._Waiter(table)
    shoe = open_device("shoe", "simulated", device_id="SIMSHOE", deck=bourre_sim.BOURRE_DECK,
                       on_event=table.on_device_event, seed=rng.randrange(2**32))
    reader = open_device("reader", "simulated", device_id="SIMREAD",
                         deck=bourre_sim.BOURRE_DECK, on_event=table.on_device_event)
    table.attach("shoe", shoe)
    table.attach("reader", reader)
    send, decide = waiter.send, table.decide

    def check(what: str) -> None:
        hand = table.hand
        if hand is not None and stop(hand, what):
            raise Crash(hand.phase.value)

    def guarded_send(action: object) -> None:
        check("device")
        send(action)

    def guarded_decide(seat: int, stay: bool, actor: str | None = None) -> None:
        check("decide")
        decide(seat, stay, actor)

    waiter.send = guarded_send  # type: ignore[method-assign]
    table.decide = guarded_decide  # type: ignore[method-assign]
    try:
        if table.session is None:
            table.start_session(seats, 1, players={s: f"player-{s}" for s in seats})
        for n in range(hands):
            play_hand(table, shoe, reader, rng, waiter, n * 60.0)
            last = table.state.hands[-1]
            if stop(last.hand, "between hands"):
                raise Crash("between hands")
        raise AssertionError("the stop condition never held")
    except Crash as crash:
        return str(crash)
    finally:
        # What a crash leaves: no shut-down record, no checkpoint; the lease goes with the
        # process (here: let go by hand, as the operating system would).
        shoe.close()
        reader.close()
        table.devices.clear()
        table.lease.release()
        db.close()


def restart_and_check(db_url: str, key: Path, seed: int, *, mid_hand: bool = True) -> None:
    before = _last_seq(db_url, key)
    run = simulate(db_url, key, 3, seed)
    out, err = run.communicate(timeout=120)
    assert run.returncode == 0, out + err
    journal = Journal(open_database(db_url, upgrade=False), load_key(key))
    try:
        after = list(journal.records(TABLE, from_seq=before + 1))
        kinds = [r.kind for r in after]
        assert ("recovery" in kinds) is mid_hand, kinds[:20]
        assert "halt" not in kinds and "card.held" not in kinds, [
            r.payload for r in after if r.kind in ("halt", "card.held")]
        assert kinds.count("hand.close") >= 3       # the one under way and those after it
        (result,) = journal.verify(TABLE)
        assert result.ok, str(result)
        assert journal.check_projections(TABLE) == []
    finally:
        journal.db.close()


def _last_seq(db_url: str, key: Path) -> int:
    journal = Journal(open_database(db_url, upgrade=False), load_key(key))
    try:
        last = journal.last(TABLE)
        return last.seq if last is not None else 0
    finally:
        journal.db.close()


def _dealt(hand: BourreHand) -> int:
    return sum(len(hand.held(s)) for s in hand.seats)


def _drawing_from_a_pile(hand: BourreHand, what: str) -> bool:
    return hand.phase is Phase.DRAW and hand.draw_source() in (DrawSource.FOLDED,
                                                               DrawSource.DISCARDS)


#: Where a station stops, by the phase of the hand under way (and a point inside it).
STOPS: dict[str, Callable[[BourreHand, str], bool]] = {
    "ante (hand opened, nothing dealt)": lambda h, w: h.phase is Phase.DEAL and _dealt(h) == 0,
    "deal, part-way": lambda h, w: h.phase is Phase.DEAL and _dealt(h) == 7,
    "decisions, part-way": lambda h, w: (h.phase is Phase.DECISIONS and w == "decide"
                                         and len(h.stayers) + len(h.folded) == 2),
    "draw, between discards": lambda h, w: (h.phase is Phase.DRAW and w == "device"
                                            and h.stock_left < 27 and _dealt(h) < 25),
    "draw, receiving from the stock": lambda h, w: (h.phase is Phase.DRAW
                                                    and _dealt(h) == 5 * len(h.seats) - 1),
    "draw, from the folded hands or the discards": _drawing_from_a_pile,
    "play, part-way": lambda h, w: h.phase is Phase.PLAY and h.trick_number == 3,
    "between hands": lambda h, w: w == "between hands",
}


@pytest.mark.parametrize("where", list(STOPS))
def test_a_station_stopped_in_any_phase_recovers(where: str, tmp_path: Path) -> None:
    db_url = f"sqlite:///{tmp_path / 'journal.db'}"
    key = tmp_path / "journal.key"
    phase = None
    # Seven players leave a stock of 17: some draws then run it out, and the next cards come
    # from the folded hands (it needs the right deal: seeds are tried in turn).
    seats = (1, 2, 3, 4, 5, 6, 7) if "folded" in where else SEATS
    for seed in range(40):
        try:
            phase = crash_in_process(db_url, key, seed, STOPS[where], seats=seats)
            break
        except AssertionError:
            continue
    assert phase is not None, f"no seed reached {where}"
    restart_and_check(db_url, key, seed=7, mid_hand=phase != "between hands")


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_sigkill_at_random_moments_always_recovers(tmp_path: Path) -> None:
    db_file = tmp_path / "journal.db"
    db_url = f"sqlite:///{db_file}"
    key = tmp_path / "journal.key"
    rng = random.Random(20261122)
    inside = attempt = 0
    # Kill at a random number of records written (not after a guessed sleep), and go on until
    # at least 4 kills have fallen inside a hand, however loaded the machine is.
    while attempt < 6 or (inside < 4 and attempt < 30):
        run = simulate(db_url, key, 500, attempt)
        out = kill_after(run, db_file, TABLE, rng.randint(1, 150))
        assert run.returncode == -signal.SIGKILL, out
        assert "Traceback" not in out, out
        inside += open_rounds(db_file, TABLE) > 0
        attempt += 1
    assert inside >= 4, f"only {inside} of {attempt} kills fell inside a hand"
    # The last kill may have fallen between two hands: then there is nothing to recover.
    restart_and_check(db_url, key, seed=99, mid_hand=open_rounds(db_file, TABLE) > 0)
    journal = Journal(open_database(db_url, upgrade=False), load_key(key))
    try:
        phases = [r.payload["phase"] for r in journal.records(TABLE, kinds=["recovery"])]
        assert len(phases) >= 4, phases          # most kills fell inside a hand
        assert list(journal.records(TABLE, kinds=["halt"])) == []
    finally:
        journal.db.close()


# --- resolving a halt from the command line ---------------------------------------------------

def _halted_bourre_table(db_url: str, key: Path) -> None:
    """A Bourré hand stopped by an impossible card from the shoe (the same card twice), left
    as a crash leaves it."""
    from dealer_station.audit.users import Users
    from dealer_station.cards import parse_card
    from dealer_station.hardware.events import CardRead

    db = open_database(db_url)
    journal = Journal(db, create_key(key))
    Users(journal).seed([("olga", "Olga", "operator", "2468"), ("sue", "Sue", "supervisor",
                                                                "1357"),
                         ("dee", "Dee", "dealer", "9999")], actor="setup")
    table = BourreTable(journal, TABLE, load_bourre_profiles()["tournament"], dealer=SIM_DEALER)
    table.startup()
    table.start_session([1, 2, 3], 3)
    table.start_hand()
    for seq, code in enumerate(["AS", "KD", "AS"], start=1):
        table.on_device_event(CardRead(device="shoe", device_id="SHOE1", at=0.0, seq=seq,
                                       card=parse_card(code)))
    assert table.worker.drain(10)          # the table keeps device events on its worker
    assert table.halt is not None and table.halt.fault == "impossible_card"
    table.lease.release()
    db.close()


def cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dealer_station", *args], input=stdin,
                          capture_output=True, text=True, cwd=ROOT, timeout=60)


def test_a_halt_is_seen_and_resolved_from_the_command_line(tmp_path: Path) -> None:
    db_url = f"sqlite:///{tmp_path / 'journal.db'}"
    key = tmp_path / "journal.key"
    _halted_bourre_table(db_url, key)
    store = ["--db", db_url, "--key", str(key), "--table", TABLE]

    status = cli("table", "status", *store, "--json")
    assert status.returncode == 0, status.stderr
    seen = json.loads(status.stdout)
    assert seen["table"] == TABLE and seen["game"] == "bourre" and seen["round"] == 1
    assert seen["halted"] is True and seen["halt"]["fault"] == "impossible_card"
    assert "AS has already been dealt this hand" in seen["halt"]["reason"]
    assert seen["resolutions"] == ["resume", "void", "correct"]
    text = cli("table", "status", *store)
    assert "STOPPED since record" in text.stdout and "Bourré" in text.stdout
    assert f"dealer-station table correct --table {TABLE} --card CODE" in text.stdout

    # A dealer may not; a wrong PIN is refused; a bad card code is named: exit 2, one line.
    for args, stdin, says in [
            (["correct", "--card", "QH", "--as", "dee"], "9999\n", "supervisor"),
            (["correct", "--card", "QH", "--as", "sue"], "0000\n", "PIN"),
            (["correct", "--card", "ZZ", "--as", "sue"], "1357\n", "ZZ"),
            (["correct", "--card", "KD", "--as", "sue"], "1357\n", "KD")]:
        bad = cli("table", *args, "--reason", "misread by the shoe", "--pin-stdin", *store,
                  stdin=stdin)
        assert bad.returncode == 2, (args, bad.stdout, bad.stderr)
        assert bad.stderr.startswith("dealer-station table: error: ") and says in bad.stderr
        assert "Traceback" not in bad.stderr

    done = cli("table", "correct", "--card", "QH", "--reason", "the shoe read QH twice",
               "--as", "sue", "--pin-stdin", *store, stdin="1357\n")
    assert done.returncode == 0, done.stderr
    assert "card corrected to QH by sue/supervisor" in done.stdout
    after = json.loads(cli("table", "status", *store, "--json").stdout)
    assert after["halted"] is False and after["round"] == 1 and after["resolutions"] == []
    again = cli("table", "resume", "--reason", "x", "--as", "sue", "--pin-stdin", *store,
                stdin="1357\n")
    assert again.returncode == 2 and "not stopped" in again.stderr

    void = cli("table", "void", "--reason", "cards exposed", "--as", "sue", "--pin-stdin",
               *store, stdin="1357\n")
    assert void.returncode == 0 and "hand 1 voided by sue/supervisor" in void.stdout
    journal = Journal(open_database(db_url, upgrade=False), load_key(key))
    try:
        kinds = [r.kind for r in journal.records(TABLE)]
        assert kinds.count("correction") == 1 and kinds[-1] == "void"
        assert [r.actor for r in journal.records(TABLE, kinds=["resolve", "void"])] == [
            "sue/supervisor", "sue/supervisor"]
        assert all(r.ok for r in journal.verify())
    finally:
        journal.db.close()
    # Nothing left to run a game on the next start: simulate plays on.
    restart = simulate(db_url, key, 2, 5)
    out, err = restart.communicate(timeout=120)
    assert restart.returncode == 0, out + err


def test_the_command_line_is_refused_while_a_station_holds_the_table(tmp_path: Path) -> None:
    db_url = f"sqlite:///{tmp_path / 'journal.db'}"
    key = tmp_path / "journal.key"
    _halted_bourre_table(db_url, key)
    db = open_database(db_url)
    running = BourreTable(Journal(db, load_key(key)), TABLE,
                          load_bourre_profiles()["tournament"], dealer=SIM_DEALER)
    try:
        refused = cli("table", "resume", "--reason", "x", "--as", "sue", "--pin-stdin",
                      "--db", db_url, "--key", str(key), "--table", TABLE, stdin="1357\n")
        assert refused.returncode == 2, refused.stdout + refused.stderr
        assert "in use" in refused.stderr or "held" in refused.stderr, refused.stderr
        # status only reads: it still answers
        status = cli("table", "status", "--json", "--db", db_url, "--key", str(key),
                     "--table", TABLE)
        assert status.returncode == 0 and json.loads(status.stdout)["halted"] is True
    finally:
        running.lease.release()
        db.close()
    nosuch = cli("table", "status", "--db", db_url, "--key", str(key), "--table", "T9")
    assert nosuch.returncode == 2 and "no table 'T9'" in nosuch.stderr


# --- resolving it on the screen --------------------------------------------------------------

def test_a_halt_left_by_a_restart_is_resolved_on_the_supervisor_screen(qtbot: Any,
                                                                       tmp_path: Path) -> None:
    from ui_support import WAIT_MS, make_station, open_window, sign_in

    from dealer_station.app import open_station
    from dealer_station.cards import parse_card
    from dealer_station.hardware.events import CardRead

    first = make_station(tmp_path, game="bourre")
    table: Any = first.table
    table.set_on_duty("dealer/dealer")              # someone is signed in to deal
    table.start_session([1, 2, 3], 3)
    table.start_hand()
    for seq, code in enumerate(["AS", "KD", "AS"], start=9000):
        table.on_device_event(CardRead(device="shoe", device_id="SHOE9", at=0.0, seq=seq,
                                       card=parse_card(code)))
    assert table.worker.drain(10)          # the table keeps device events on its worker
    assert table.halt is not None
    first.close()                                   # the station stops with the hand halted

    db = open_database(f"sqlite:///{tmp_path / 'journal.db'}")
    again = open_station(Journal(db, load_key(tmp_path / "journal.key")), game="bourre",
                         simulate=True, seed=7, hasher=first.users.hasher)
    again.closers.append(db.close)
    try:
        t: Any = again.table
        assert t.halt is not None and t.halt.fault == "impossible_card"   # still stopped
        window = open_window(qtbot, again)
        sign_in(qtbot, window, "super", "2222")
        sup: Any = window.screens["supervisor"]
        sup.refresh_round()
        assert "Stopped:" in sup.round_state.text() and "AS" in sup.round_state.text()
        sup.void("the shoe read AS twice: cards exposed")
        qtbot.waitUntil(lambda: t.halt is None, timeout=WAIT_MS)
        assert "Hand voided. Recorded as Sam Supervisor" in sup.message.text()
        last = again.journal.last(again.table_id)
        assert last is not None and last.kind == "void" and last.actor == "super/supervisor"
        window.shutdown()
    finally:
        again.close()
