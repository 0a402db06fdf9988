"""``dealer-station witness init`` and ``serve``: the real command, as a regulator runs it."""

from __future__ import annotations

import os
import queue
import signal
import socket
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from repo_paths import ROOT
from witness_support import StationLog

from dealer_station.audit import notes as n
from dealer_station.cli.main import main
from dealer_station.witness import client
from dealer_station.witness.client import Cosigned, Refused, WitnessSize

ORIGIN = "casino.example/T1"


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def station(tmp_path: Path) -> tuple[n.Signer, Path]:
    signer = n.Signer.generate("casino.example/pc7")
    pub = tmp_path / "station.pub"
    pub.write_text(signer.verifier.vkey() + "\n")
    return signer, pub


def test_init_makes_the_folder_the_keys_and_the_state_and_never_replaces_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    wdir = tmp_path / "regulator" / "w"
    code, out, err = run(["witness", "init", "--state", str(wdir),
                          "--name", "regulator.example/w1"], capsys)
    assert (code, err) == (0, "")
    assert stat.S_IMODE(wdir.stat().st_mode) == 0o700
    key_file, pub_file = wdir / "witness.key", wdir / "witness.pub"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    signer = n.Signer.parse(key_file.read_text())
    pub = pub_file.read_text()
    assert pub.count("\n") == 1 and n.Verifier.parse(pub) == signer.verifier
    assert signer.kind == n.COSIGNATURE_KEY and signer.name == "regulator.example/w1"
    assert pub.strip() in out and (wdir / "witness.db").is_file()
    key_before = key_file.read_bytes()
    code, out, err = run(["witness", "init", "--state", str(wdir)], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "witness.key already exists" in err and "never replaced" in err
    assert key_file.read_bytes() == key_before
    # The default name is the host's.
    code, _, _ = run(["witness", "init", "--state", str(tmp_path / "w2")], capsys)
    assert code == 0
    assert n.Signer.parse((tmp_path / "w2" / "witness.key").read_text()).name.startswith(
        "witness.")


def test_serve_cosigns_refuses_says_so_and_stops_on_sigterm(
        tmp_path: Path, station: tuple[n.Signer, Path],
        capsys: pytest.CaptureFixture[str]) -> None:
    signer, pub = station
    wdir = tmp_path / "w"
    assert run(["witness", "init", "--state", str(wdir), "--name", "regulator.example/w1"],
               capsys)[0] == 0
    witness_key = n.Verifier.parse((wdir / "witness.pub").read_text())
    log = StationLog(ORIGIN, signer)
    forged = StationLog(ORIGIN, signer, tag=b"rewritten").grow(90)

    def serve() -> tuple[subprocess.Popen[str], queue.Queue[str], str]:
        proc = subprocess.Popen(
            [sys.executable, "-m", "dealer_station", "witness", "serve", "--state", str(wdir),
             "--listen", "127.0.0.1:0", "--trust", str(pub)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
        lines: queue.Queue[str] = queue.Queue()

        def read() -> None:
            assert proc.stdout is not None
            for line in proc.stdout:
                lines.put(line.rstrip("\n"))

        threading.Thread(target=read, daemon=True).start()
        ready = lines.get(timeout=60)
        prefix = "witness regulator.example/w1 listening on http://127.0.0.1:"
        assert ready.startswith(prefix), ready
        port = int(ready[len(prefix):])
        assert port > 0
        return proc, lines, f"http://127.0.0.1:{port}"

    def stop(proc: subprocess.Popen[str]) -> None:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0
        assert proc.stderr is not None
        assert "Traceback" not in proc.stderr.read()

    proc, lines, url = serve()
    try:
        assert isinstance(client.submit(url, log.grow(100).note(), 0, [], witness=witness_key),
                          Cosigned)
        assert lines.get(timeout=60) == f"cosigned {ORIGIN} size 100"
        assert isinstance(client.submit(url, log.grow(1207).note(), 100, log.proof(100),
                                        witness=witness_key), Cosigned)
        assert lines.get(timeout=60) == f"cosigned {ORIGIN} size 1207"
        got = client.submit(url, forged.note(), 1207, [])
        assert isinstance(got, Refused) and got.status == 409
        line = lines.get(timeout=60)
        assert line.startswith(f"refused {ORIGIN} size 90 (409): ")
    finally:
        stop(proc)
    # A new process on the same state holds what the last one cosigned and refused.
    proc, lines, url = serve()
    try:
        assert client.submit(url, log.note(), 0, []) == WitnessSize(1207)
        assert [e.size for e in client.history(url, ORIGIN)] == [100, 1207]
        assert [(e.status, e.size) for e in client.refusals(url, ORIGIN)] == [(409, 90)]
    finally:
        stop(proc)


def _bad_serve_inputs(tmp_path: Path, pub: Path) -> dict[str, tuple[list[str], str]]:
    wdir = tmp_path / "w"
    base = ["witness", "serve", "--state", str(wdir), "--listen", "127.0.0.1:0",
            "--trust", str(pub)]
    not_a_key = tmp_path / "notes.txt"
    not_a_key.write_text("station key goes here\n")
    empty = tmp_path / "empty.pub"
    empty.write_text("\n")
    return {
        "missing state": (["witness", "serve", "--state", str(tmp_path / "nowhere"),
                           "--listen", "127.0.0.1:0", "--trust", str(pub)],
                          f"no witness folder at {tmp_path / 'nowhere'}"),
        "a .pub that is not a vkey": ([*base[:-1], str(not_a_key)],
                                      f"--trust {not_a_key} line 1: not a public key"),
        "an empty .pub": ([*base[:-1], str(empty)], f"--trust {empty}: the file is empty"),
        "a missing .pub": ([*base[:-1], str(tmp_path / "gone.pub")],
                           f"--trust {tmp_path / 'gone.pub'}: no such file"),
        "the witness's own key as trust": ([*base[:-1], str(wdir / "witness.pub")],
                                           "is a witness's cosigner key, not a station's"),
        "listen without a port": ([*base[:4], "--listen", "127.0.0.1", *base[6:]],
                                  "--listen '127.0.0.1': expected HOST:PORT"),
        "listen with a bad port": ([*base[:4], "--listen", "127.0.0.1:99999", *base[6:]],
                                   "expected HOST:PORT"),
        "listen on an address not here": ([*base[:4], "--listen", "192.0.2.7:0", *base[6:]],
                                          "cannot listen on 192.0.2.7:0"),
    }


@pytest.mark.parametrize("case", ["missing state", "a .pub that is not a vkey", "an empty .pub",
                                  "a missing .pub", "the witness's own key as trust",
                                  "listen without a port", "listen with a bad port",
                                  "listen on an address not here"])
def test_serve_refuses_bad_input_in_one_line(tmp_path: Path, station: tuple[n.Signer, Path],
                                             capsys: pytest.CaptureFixture[str],
                                             case: str) -> None:
    assert run(["witness", "init", "--state", str(tmp_path / "w")], capsys)[0] == 0
    args, expect = _bad_serve_inputs(tmp_path, station[1])[case]
    code, out, err = run(args, capsys)
    assert (code, out) == (2, "")
    assert err.startswith("dealer-station witness: error: ") and err.count("\n") == 1, err
    assert expect in err, err


def test_serve_refuses_an_unsafe_missing_or_foreign_key_and_a_port_in_use(
        tmp_path: Path, station: tuple[n.Signer, Path],
        capsys: pytest.CaptureFixture[str]) -> None:
    pub = station[1]
    wdir, other = tmp_path / "w", tmp_path / "other"
    for d in (wdir, other):
        assert run(["witness", "init", "--state", str(d)], capsys)[0] == 0
    serve = ["witness", "serve", "--state", str(wdir), "--listen", "127.0.0.1:0",
             "--trust", str(pub)]
    key = wdir / "witness.key"

    def refused(expect: str, args: list[str] = serve) -> None:
        code, out, err = run(args, capsys)
        assert code == 2 and out == "" and err.count("\n") == 1 and expect in err, err

    os.chmod(key, 0o644)
    refused(f"the witness key {key} is readable or writable by group or others")
    os.chmod(key, 0o600)
    saved = key.read_bytes()
    key.write_text("PRIVATE+KEY+garbage\n")
    refused(f"the witness key {key} is not a private key")
    key.write_bytes((other / "witness.key").read_bytes())
    refused(f"the key {key} is not the key the state {wdir / 'witness.db'} was made with")
    key.write_bytes(saved)
    key.unlink()
    refused(f"no witness key at {key}")
    key.write_bytes(saved)
    os.chmod(key, 0o600)
    (wdir / "witness.db").rename(tmp_path / "moved.db")
    refused(f"no witness state at {wdir / 'witness.db'}")
    (wdir / "witness.db").write_bytes(b"not a database at all" * 100)
    refused(f"{wdir / 'witness.db'} is not a witness state")
    (tmp_path / "moved.db").rename(wdir / "witness.db")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        refused(f"cannot listen on 127.0.0.1:{port}",
                [*serve[:4], "--listen", f"127.0.0.1:{port}", *serve[6:]])
