"""The one wording of events (dealer_station/events/wording.py): what, who and the detail of
a record in plain words, the same on the supervisor's screen, at the pit and on paper."""

from __future__ import annotations

from typing import Any

import pytest

from dealer_station.audit.records import Record
from dealer_station.events.wording import KIND_WORDS, People, event_words, kind_words

PEOPLE = People({"super": "Sam Supervisor", "dealer": "Dana Dealer"},
                ((3, "T1", {"1": "Ada", "2": "2"}),))


def rec(kind: str, payload: dict[str, Any], actor: str = "super/supervisor", seq: int = 10,
        table: str = "T1") -> Record:
    return Record(table, seq, "2026-01-31T20:15:00+00:00", actor, kind, None, payload,
                  "0" * 64, "1" * 64)


@pytest.mark.parametrize(("actor", "who"), [
    ("super/supervisor", "Sam Supervisor (supervisor)"),
    ("dee/dealer", "dee (dealer)"),                     # nobody by that id: the id
    ("device:shoe:SIMSHOE", "the shoe"),
    ("device:reader:R1", "the card reader"),
    ("station", "the station"),
    ("seat:1", "seat 1 (Ada)"),
    ("seat:2", "seat 2"),                                # seated under no name of their own
    ("console:olga", "the command line (olga)"),
])
def test_who_is_said_by_name_and_role(actor: str, who: str) -> None:
    assert PEOPLE.actor(actor, 10, "T1") == who


def test_a_device_keeps_its_id_for_the_whole_record() -> None:
    assert PEOPLE.actor("device:shoe:SIMSHOE", device_id=True) == "the shoe (SIMSHOE)"


@pytest.mark.parametrize(("kind", "payload", "what", "detail"), [
    ("device.status", {"device": "shoe", "state": "READY"}, "Shoe ready", "the shoe is ready"),
    ("device.status", {"device": "shoe", "state": "DOOR_OPEN"}, "Shoe door open",
     "the shoe has its door open"),
    ("device.fault", {"device": "shoe", "kind": "device_error", "card": None,
                      "detail": "the shoe reports E17: card path sensor dirty"},
     "The shoe reports an error", "the shoe reports E17: card path sensor dirty"),
    ("logout", {"user": "super", "why": "back to the dealer (dealer still signed in)"},
     "Signed out: back to the dealer",
     "Sam Supervisor signed out: back to the dealer (Dana Dealer still signed in)"),
    ("login", {"user_id": "super", "role": "supervisor"}, "Signed in",
     "Sam Supervisor signed in as supervisor"),
    ("login.failed", {"user_id": "dealer", "reason": "wrong PIN", "failures": 2},
     "Sign-in refused: wrong PIN", "Dana Dealer: wrong PIN (2 in a row)"),
    ("resolve", {"action": "resume", "halt_seq": 7, "reason": "jam cleared"},
     "Halt resolved: resumed",
     "resumed by Sam Supervisor (supervisor) (the halt at record 7); reason: jam cleared"),
    ("renege", {"seat": 1, "trick": 2, "card": "5D", "rule": "follow_suit",
                "reason": "she must follow suit", "penalised": True, "stands": True,
                "witness": "reader"},
     "Renege",
     "seat 1 (Ada) must follow suit (trick 2, card 5D); the card stands; a penalty is due"),
])
def test_kinds_and_details_in_words(kind: str, payload: dict[str, Any], what: str,
                                    detail: str) -> None:
    words = event_words(rec(kind, payload), PEOPLE)
    assert (words.what, words.detail) == (what, detail)


def test_a_kind_with_no_words_still_reads_as_words_and_hides_nothing_but_secrets() -> None:
    words = event_words(rec("a.new_kind", {"some_field": 3, "pin_mac": "ab" * 32}), PEOPLE)
    assert words.what == kind_words("a.new_kind") == "A new kind"
    assert words.detail == "some field: 3"
    for kind, said in KIND_WORDS.items():
        assert "." not in said and "_" not in said, kind
