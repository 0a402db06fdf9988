"""The regulator's witness against a real server on a free port: it cosigns a station's
checkpoints only when each extends what it cosigned, refuses (and keeps) the rest, and never
rolls an origin back, even under concurrent requests."""

from __future__ import annotations

import http.client
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from witness_support import RunningWitness, StationLog, running_witness

from dealer_station.audit import notes as n
from dealer_station.witness import client
from dealer_station.witness.client import Cosigned, Refused, WitnessSize
from dealer_station.witness.state import WitnessState
from dealer_station.witness.wire import (
    MAX_BODY,
    HistoryEntry,
    RefusalEntry,
    b64,
    parse_request,
    request_body,
)

ORIGIN = "casino.example/T1"


@pytest.fixture(scope="module")
def station() -> n.Signer:
    return n.Signer.generate("casino.example/pc7")


@pytest.fixture
def w(tmp_path: Path, station: n.Signer) -> Iterator[RunningWitness]:
    with running_witness(tmp_path / "w", [station.verifier]) as running:
        yield running


def post(url: str, body: bytes, path: str = "/add-checkpoint",
         headers: dict[str, str] | None = None) -> tuple[int, str, str]:
    """A raw POST: (status, content type, body)."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=30)
    try:
        conn.request("POST", path, body=body, headers=headers or {})
        resp = conn.getresponse()
        return resp.status, resp.getheader("Content-Type", ""), resp.read().decode()
    finally:
        conn.close()


def get(url: str, path: str) -> tuple[int, str]:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=30)
    try:
        conn.request("GET", path)
        resp = conn.getresponse()
        return resp.status, resp.read().decode()
    finally:
        conn.close()


def cosign_up_to(w: RunningWitness, log: StationLog, *sizes: int) -> None:
    old = w.witness.state.latest(log.origin)
    have = old.size if old else 0
    for size in sizes:
        log.grow(size)
        got = client.submit(w.url, log.note(size), have, log.proof(have, size) if have else [],
                            witness=w.key)
        assert isinstance(got, Cosigned), got
        have = size


# --- the request's form (pure) ----------------------------------------------------------------

def test_a_request_body_reads_back_and_the_spec_example_parses(station: n.Signer) -> None:
    log = StationLog(ORIGIN, station).grow(20)
    body = request_body(log.note(20), 7, log.proof(7, 20))
    req = parse_request(body)
    assert (req.old_size, list(req.proof), req.note) == (7, log.proof(7, 20), log.note(20))
    assert body.startswith(b"old 7\n") and body.count(b"\n\n") == 2
    assert HistoryEntry.parse(HistoryEntry(12, log.roots[12], 1795000000).line().strip()) == \
        HistoryEntry(12, log.roots[12], 1795000000)
    r = RefusalEntry(1795000000, 409, None, "two different journals: size 8")
    assert RefusalEntry.parse(r.line().strip()) == r


# --- cosigning --------------------------------------------------------------------------------

def test_the_first_checkpoint_is_cosigned_persisted_and_served(w: RunningWitness,
                                                               station: n.Signer) -> None:
    log = StationLog(ORIGIN, station).grow(1207)
    before = int(time.time())
    got = client.submit(w.url, log.note(), 0, [], witness=w.key)
    assert isinstance(got, Cosigned)
    assert got.time is not None and before <= got.time <= int(time.time())
    assert len(got.lines) == 1 and got.lines[0].startswith("\u2014 regulator.example/w1 ")
    assert w.lines == [f"cosigned {ORIGIN} size 1207"]
    # What the witness serves is the station's signed checkpoint with its cosignature.
    served = client.latest(w.url, ORIGIN)
    assert served is not None
    note = n.Note.parse(served)
    assert n.Checkpoint.parse(note.text) == log.checkpoint()
    assert note.signed_by(station.verifier) is not None
    assert n.cosigned_at(note, w.key) == got.time
    assert [s.name for s in note.signatures] == [station.name, w.signer.name]
    assert client.history(w.url, ORIGIN) == [HistoryEntry(1207, log.roots[1207], got.time)]
    # And it is in the state file, committed.
    with sqlite3.connect(w.wdir / "witness.db") as db:
        assert db.execute("SELECT size, root, key FROM origins").fetchall() == [
            (1207, log.roots[1207], station.verifier.vkey())]


def test_growth_with_consistency_proofs_is_cosigned_step_by_step(w: RunningWitness,
                                                                 station: n.Signer) -> None:
    log = StationLog(ORIGIN, station)
    sizes = [1, 2, 3, 4, 7, 8, 9, 16, 100, 1024, 1025, 3000]
    cosign_up_to(w, log, *sizes)
    history = client.history(w.url, ORIGIN)
    assert [h.size for h in history] == sizes
    assert [h.root for h in history] == [log.roots[s] for s in sizes]
    assert w.lines == [f"cosigned {ORIGIN} size {s}" for s in sizes]
    # A client that does not know the witness's size asks from 0 and learns it (409, size).
    log.grow(3100)
    got = client.submit(w.url, log.note(), 0, [])
    assert got == WitnessSize(3000)
    assert w.lines[-1] == f"asked {ORIGIN} size 3100: old size 0, the witness holds size 3000"
    status, ctype, body = post(w.url, request_body(log.note(), 1, log.proof(1)))
    assert (status, ctype, body) == (409, "text/x.tlog.size", "3000\n")
    assert isinstance(client.submit(w.url, log.note(), 3000, log.proof(3000), witness=w.key),
                      Cosigned)
    assert w.witness.state.refusals(ORIGIN) == []      # asking the size is no refusal


def test_the_same_checkpoint_again_is_cosigned_again_and_listed_once(w: RunningWitness,
                                                                     station: n.Signer) -> None:
    log = StationLog(ORIGIN, station)
    cosign_up_to(w, log, 50)
    again = client.submit(w.url, log.note(50), 50, [], witness=w.key)
    assert isinstance(again, Cosigned)
    assert [h.size for h in client.history(w.url, ORIGIN)] == [50]


def test_origins_are_kept_apart(w: RunningWitness, station: n.Signer) -> None:
    t1, t2 = StationLog("casino.example/T1", station), StationLog("casino.example/T2", station)
    cosign_up_to(w, t1, 10, 20)
    cosign_up_to(w, t2, 5)
    assert [h.size for h in client.history(w.url, "casino.example/T2")] == [5]
    assert client.submit(w.url, t2.grow(30).note(), 20, t2.proof(20)) == WitnessSize(5)
    # An origin with odd characters travels percent-encoded, and its '/' unencoded reads too.
    odd = StationLog("casino.example/salle privée #2", station)
    cosign_up_to(w, odd, 3)
    assert client.latest(w.url, odd.origin) is not None
    assert get(w.url, "/checkpoint/casino.example/T1")[0] == 200


# --- refusals, kept as evidence ------------------------------------------------------------------

def test_a_fork_is_refused_409_and_the_requests_are_kept_whole(w: RunningWitness,
                                                               station: n.Signer) -> None:
    honest = StationLog(ORIGIN, station)
    cosign_up_to(w, honest, 8)
    # The casino, holding the station's key, deals another history under the same origin.
    forged = StationLog(ORIGIN, station, tag=b"rewritten").grow(12)
    same_size = request_body(forged.note(8), 8, [])
    status, ctype, body = post(w.url, same_size)
    assert (status, ctype.split(";")[0]) == (409, "text/plain")
    assert "two different journals" in body and b64(honest.roots[8]) in body
    grown = request_body(forged.note(12), 8, forged.proof(8, 12))
    status, _, body = post(w.url, grown)
    assert status == 409 and "not consistent with size 8 already cosigned" in body
    # From old size 0 the fork is told the size, then refused with its proof.
    assert client.submit(w.url, forged.note(12), 0, []) == WitnessSize(8)
    got = client.submit(w.url, forged.note(12), 8, forged.proof(8, 12))
    assert isinstance(got, Refused) and got.status == 409
    # Nothing of the fork was cosigned, and every refusal is in the state file, whole.
    assert [h.root for h in client.history(w.url, ORIGIN)] == [honest.roots[8]]
    kept = w.witness.state.refusals(ORIGIN)
    assert [(r.status, r.size, r.body) for r in kept] == [
        (409, 8, same_size), (409, 12, grown), (409, 12, grown)]
    listed = client.refusals(w.url, ORIGIN)
    assert [(e.status, e.size) for e in listed] == [(409, 8), (409, 12), (409, 12)]
    assert listed[0].reason == kept[0].reason and "two different journals" in listed[0].reason
    assert [line.split(" (")[0] for line in w.lines[1:]] == [
        f"refused {ORIGIN} size 8", f"refused {ORIGIN} size 12",
        f"asked {ORIGIN} size 12: old size 0, the witness holds size 8",
        f"refused {ORIGIN} size 12"]
    # The honest journal goes on being cosigned.
    cosign_up_to(w, honest, 40)


def test_a_smaller_checkpoint_is_refused_409(w: RunningWitness, station: n.Signer) -> None:
    log = StationLog(ORIGIN, station)
    cosign_up_to(w, log, 90, 1000)
    for old in (1000, 0, 90):
        got = client.submit(w.url, log.note(90), old, [])
        assert isinstance(got, Refused) and got.status == 409, (old, got)
        assert "smaller than size 1000 already cosigned" in got.reason
    assert w.lines[-1].startswith(f"refused {ORIGIN} size 90 (409): ")
    assert len(w.witness.state.refusals(ORIGIN)) == 3
    assert client.latest(w.url, ORIGIN) is not None
    assert n.Checkpoint.parse(n.Note.parse(client.latest(w.url, ORIGIN) or "").text).size == 1000


@pytest.mark.parametrize("damage", ["flip a hash", "drop a hash", "extra hash", "no proof",
                                    "another size's proof"])
def test_a_proof_that_does_not_verify_is_refused_409(w: RunningWitness, station: n.Signer,
                                                     damage: str) -> None:
    log = StationLog(ORIGIN, station)
    cosign_up_to(w, log, 13)
    log.grow(77)
    proof = log.proof(13)
    bad = {"flip a hash": [bytes([proof[0][0] ^ 1]) + proof[0][1:], *proof[1:]],
           "drop a hash": proof[:-1], "extra hash": [*proof, proof[0]], "no proof": [],
           "another size's proof": log.proof(12)}[damage]
    got = client.submit(w.url, log.note(), 13, bad)
    assert isinstance(got, Refused) and got.status == 409
    assert "not consistent with size 13" in got.reason
    assert w.witness.state.refusals(ORIGIN)[0].body == request_body(log.note(), 13, bad)
    assert isinstance(client.submit(w.url, log.note(), 13, proof), Cosigned)


def test_an_untrusted_key_is_refused_403_and_an_origin_stays_with_its_first_key(
        tmp_path: Path, station: n.Signer) -> None:
    other = n.Signer.generate("casino.example/pc8")
    stranger = n.Signer.generate("casino.example/pc7")        # a trusted name, another key
    with running_witness(tmp_path / "w", [station.verifier, other.verifier]) as w:
        log = StationLog(ORIGIN, station).grow(10)
        got = client.submit(w.url, log.note(signer=stranger), 0, [])
        assert isinstance(got, Refused) and got.status == 403
        assert "no valid signature by a key this witness trusts" in got.reason
        cosign_up_to(w, log, 10)
        # Another trusted key may not take over an origin bound to the first.
        log.grow(20)
        got = client.submit(w.url, log.note(signer=other), 10, log.proof(10))
        assert isinstance(got, Refused) and got.status == 403
        assert "bound to the key casino.example/pc7" in got.reason
        # ... but a note signed by both keys is cosigned, with the bound key's signature kept.
        both = n.Note(log.checkpoint().text(), (
            *n.Note.parse(log.note(signer=other)).signatures,
            *n.Note.parse(log.note()).signatures)).render()
        assert isinstance(client.submit(w.url, both, 10, log.proof(10)), Cosigned)
        kept = n.Note.parse(client.latest(w.url, ORIGIN) or "")
        assert [s.name for s in kept.signatures] == [station.name, w.signer.name]
        # The other key signs an origin of its own.
        t2 = StationLog("casino.example/T2", other)
        cosign_up_to(w, t2, 4)
        assert [(r.status, r.size) for r in w.witness.state.refusals(ORIGIN)] == [
            (403, 10), (403, 20)]
        assert all(line.startswith("refused ") for line in w.lines if "(403)" in line)


def _malformed(log: StationLog) -> dict[str, bytes]:
    note = log.note().encode()
    proof_line = b64(log.proof(5)[0]).encode()
    return {
        "empty": b"",
        "no old line": note,
        "old with a leading zero": b"old 05\n\n" + note,
        "old not a number": b"old five\n\n" + note,
        "old negative": b"old -5\n\n" + note,
        "no empty line": b"old 0\n" + note.replace(b"\n\n", b"\n"),
        "proof line not base64": b"old 5\n!!!!\n\n" + note,
        "proof line too short": b"old 5\nAAAA\n\n" + note,
        "64 proof lines": b"old 5\n" + (proof_line + b"\n") * 64 + b"\n" + note,
        "a proof from old size 0": b"old 0\n" + proof_line + b"\n\n" + note,
        "not UTF-8": b"old 0\n\n\xff\xfe" + note,
        "no checkpoint": b"old 0\n\n",
        "unsigned checkpoint": b"old 0\n\n" + log.checkpoint().text().encode(),
        "bad signature line": b"old 0\n\n" + log.checkpoint().text().encode() + b"\nsigned\n",
        "root not 32 bytes": b"old 0\n\n" + note.replace(
            b64(log.roots[log.size]).encode(), b"AAAA"),
        "carriage returns": b"old 0\r\n\r\n" + note.replace(b"\n", b"\r\n"),
        "old larger than the checkpoint": request_body(log.note(), log.size + 5, []),
        "a proof between equal sizes": request_body(log.note(), 0, []).replace(
            b"old 0\n", b"old 9\n" + proof_line + b"\n"),
    }


MALFORMED = ["empty", "no old line", "old with a leading zero", "old not a number", "old negative",
             "no empty line", "proof line not base64", "proof line too short", "64 proof lines",
             "a proof from old size 0", "not UTF-8", "no checkpoint", "unsigned checkpoint",
             "bad signature line", "root not 32 bytes", "carriage returns",
             "old larger than the checkpoint", "a proof between equal sizes"]


@pytest.mark.parametrize("case", MALFORMED)
def test_a_malformed_body_is_refused_400_and_kept(w: RunningWitness, station: n.Signer,
                                                  case: str) -> None:
    log = StationLog(ORIGIN, station).grow(9)
    if case == "a proof between equal sizes":
        cosign_up_to(w, log, 9)
    cases = _malformed(log)
    assert sorted(cases) == sorted(MALFORMED)
    body = cases[case]
    status, ctype, text = post(w.url, body)
    assert status == 400, (case, text)
    assert ctype.startswith("text/plain") and text.endswith("\n") and text.count("\n") == 1
    with sqlite3.connect(w.wdir / "witness.db") as db:
        kept = db.execute("SELECT status, body FROM refused").fetchall()
    assert kept == [(400, body)]
    assert w.lines[-1].startswith("refused ") and "(400)" in w.lines[-1]


def test_a_body_too_large_or_without_length_is_refused_400(w: RunningWitness) -> None:
    status, _, text = post(w.url, b"x" * (MAX_BODY + 1))
    assert status == 400 and "larger than" in text
    parts = urlsplit(w.url)
    conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=30)
    conn.putrequest("POST", "/add-checkpoint")
    conn.endheaders()
    resp = conn.getresponse()
    assert resp.status == 400 and b"Content-Length" in resp.read()
    conn.close()


# --- reading -----------------------------------------------------------------------------------

def test_the_read_endpoints(w: RunningWitness, station: n.Signer) -> None:
    assert get(w.url, "/checkpoint/casino.example%2FT1")[0] == 404
    assert get(w.url, "/history/casino.example%2FT1")[0] == 404
    assert get(w.url, "/refused/casino.example%2FT1") == (200, "")
    assert client.latest(w.url, ORIGIN) is None and client.history(w.url, ORIGIN) == []
    assert get(w.url, "/nothing")[0] == 404 and get(w.url, "/checkpoint/")[0] == 400
    assert post(w.url, b"x", path="/checkpoint/x")[0] == 404
    log = StationLog(ORIGIN, station)
    cosign_up_to(w, log, 3, 5)
    client.submit(w.url, log.note(3), 5, [])
    status, text = get(w.url, "/history/casino.example%2FT1")
    lines = text.splitlines()
    assert status == 200 and len(lines) == 2
    assert [line.split(" ")[:2] for line in lines] == [["3", b64(log.roots[3])],
                                                       ["5", b64(log.roots[5])]]
    status, text = get(w.url, "/refused/casino.example%2FT1")
    assert status == 200 and text.split(" ")[1:3] == ["409", "3"]


def test_keep_alive_serves_several_requests_on_one_connection(w: RunningWitness,
                                                              station: n.Signer) -> None:
    log = StationLog(ORIGIN, station)
    parts = urlsplit(w.url)
    conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=30)
    old = 0
    for size in (4, 9, 30):
        log.grow(size)
        conn.request("POST", "/add-checkpoint",
                     body=request_body(log.note(), old, log.proof(old) if old else []))
        resp = conn.getresponse()
        assert resp.status == 200 and resp.read().startswith("\u2014 ".encode())
        old = size
    conn.request("GET", "/history/casino.example%2FT1")
    assert len(conn.getresponse().read().splitlines()) == 3
    conn.close()


# --- durability and atomicity ------------------------------------------------------------

def test_a_restarted_witness_keeps_what_it_cosigned_and_refused(tmp_path: Path,
                                                                station: n.Signer) -> None:
    log = StationLog(ORIGIN, station)
    forged = StationLog(ORIGIN, station, tag=b"other").grow(64)
    with running_witness(tmp_path / "w", [station.verifier]) as w:
        cosign_up_to(w, log, 10, 64)
        first_key = w.key
        assert isinstance(client.submit(w.url, forged.note(), 64, []), Refused)
    with running_witness(tmp_path / "w", [station.verifier]) as w:
        assert w.key == first_key and w.url
        assert client.submit(w.url, log.grow(70).note(), 0, []) == WitnessSize(64)
        assert isinstance(client.submit(w.url, forged.note(), 64, []), Refused)
        assert len(client.refusals(w.url, ORIGIN)) == 2
        cosign_up_to(w, log, 70)
        assert [h.size for h in client.history(w.url, ORIGIN)] == [10, 64, 70]


def test_the_state_itself_refuses_a_rollback(tmp_path: Path, station: n.Signer) -> None:
    with running_witness(tmp_path / "w", [station.verifier]) as w:
        cosign_up_to(w, StationLog(ORIGIN, station), 5, 9)
    with sqlite3.connect(tmp_path / "w" / "witness.db") as db:
        with pytest.raises(sqlite3.IntegrityError, match="never rolls an origin back"):
            db.execute("UPDATE origins SET size = 5")
        with pytest.raises(sqlite3.IntegrityError, match="never cosigns two roots"):
            db.execute("UPDATE origins SET root = zeroblob(32)")


def test_concurrent_checkpoints_never_roll_the_witness_back(w: RunningWitness,
                                                            station: n.Signer) -> None:
    """The race of tlog-witness: B (N+K) checked and stored, then A (N) stored over it. Here
    every request checks and stores in one transaction, so whatever the interleaving, the
    history only grows and ends at the largest size."""
    log = StationLog(ORIGIN, station)
    cosign_up_to(w, log, 10)
    log.grow(400)
    sizes = [11, 12, 13, 16, 17, 31, 32, 33, 64, 100, 101, 150, 200, 255, 256, 257, 300, 399,
             400, 42]
    barrier = threading.Barrier(len(sizes))
    results: dict[int, list[object]] = {s: [] for s in sizes}

    def push(size: int) -> None:
        barrier.wait()
        old = 10
        while True:
            got = client.submit(w.url, log.note(size), old, log.proof(old, size),
                                timeout=60)
            results[size].append(got)
            if isinstance(got, WitnessSize) and got.size < size:
                old = got.size            # someone got there first: go on from there
                continue
            return

    threads = [threading.Thread(target=push, args=(s,)) for s in sizes]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for s, rs in results.items():
        # Until the last answer, only "the witness holds a smaller size: go on from it".
        assert all(isinstance(r, WitnessSize) and r.size < s for r in rs[:-1]), rs
        last = rs[-1]
        assert (isinstance(last, Cosigned)
                or (isinstance(last, WitnessSize) and last.size > s)
                or (isinstance(last, Refused) and last.status == 409
                    and "smaller than size" in last.reason)), (s, last)
    cosigned = sorted(s for s, rs in results.items() if isinstance(rs[-1], Cosigned))
    history = client.history(w.url, ORIGIN)
    got_sizes = [h.size for h in history]
    assert got_sizes == sorted(got_sizes) and len(set(got_sizes)) == len(got_sizes)
    assert got_sizes[1:] == cosigned and got_sizes[-1] == 400
    assert all(h.root == log.roots[h.size] for h in history)
    latest = w.witness.state.latest(ORIGIN)
    assert latest is not None and latest.size == 400
    # Every size that was not cosigned was overtaken by a larger one, never lost to a smaller:
    # a larger size was cosigned before it was refused.
    for s, rs in results.items():
        if not isinstance(rs[-1], Cosigned):
            assert any(h.size > s for h in history)


def test_two_services_on_one_state_share_its_lock(tmp_path: Path, station: n.Signer) -> None:
    """The transaction is SQLite's, not the service's: a second service on the same state
    file sees what the first committed before it answered."""
    wdir = tmp_path / "w"
    with running_witness(wdir, [station.verifier]) as a, \
            running_witness(wdir, [station.verifier]) as b:
        log = StationLog(ORIGIN, station)
        cosign_up_to(a, log, 20)
        assert client.submit(b.url, log.grow(30).note(), 0, []) == WitnessSize(20)
        assert isinstance(client.submit(b.url, log.note(10), 20, []), Refused)
        state = WitnessState.open(wdir / "witness.db")
        assert len(state.refusals(ORIGIN)) == 1
        state.close()
