"""Journals and witnesses for the witness's tests: a station's log built with the journal's own
Merkle frontier and signed with its own note keys, and a real witness on a free port."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from dealer_station.audit import merkle as m
from dealer_station.audit import notes as n
from dealer_station.witness.files import init_state, open_state
from dealer_station.witness.server import WitnessServer
from dealer_station.witness.service import Witness


class StationLog:
    """One chain as a station keeps it: leaves appended through a ``Frontier``, every full
    subtree's hash kept, checkpoints signed with the station's key."""

    def __init__(self, origin: str, signer: n.Signer, tag: bytes = b"") -> None:
        self.origin = origin
        self.signer = signer
        self.tag = tag
        self.frontier = m.Frontier()
        self.nodes: dict[tuple[int, int], bytes] = {}
        self.roots = [m.EMPTY_ROOT]

    @property
    def size(self) -> int:
        return self.frontier.size

    def grow(self, to: int) -> StationLog:
        while self.frontier.size < to:
            record = b"record %d %s" % (self.frontier.size + 1, self.tag)
            for level, index, h in self.frontier.append(m.leaf_hash(record)):
                self.nodes[(level, index)] = h
            self.roots.append(self.frontier.root())
        return self

    def node(self, level: int, index: int) -> bytes:
        return self.nodes[(level, index)]

    def checkpoint(self, size: int | None = None) -> n.Checkpoint:
        size = self.size if size is None else size
        return n.Checkpoint(self.origin, size, self.roots[size])

    def note(self, size: int | None = None, signer: n.Signer | None = None) -> str:
        return n.sign_checkpoint(signer or self.signer, self.checkpoint(size)).render()

    def proof(self, old: int, new: int | None = None) -> list[bytes]:
        return m.consistency_proof(self.node, old, self.size if new is None else new)


@dataclass
class RunningWitness:
    url: str
    wdir: Path
    signer: n.Signer
    server: WitnessServer
    lines: list[str] = field(default_factory=list)

    @property
    def key(self) -> n.Verifier:
        return self.signer.verifier

    @property
    def witness(self) -> Witness:
        return self.server.witness


@contextmanager
def running_witness(wdir: Path, trusted: list[n.Verifier],
                    name: str = "regulator.example/w1", port: int = 0
                    ) -> Iterator[RunningWitness]:
    """A witness serving ``wdir`` (made if new) on ``port`` of 127.0.0.1 (0: a free one), in
    a thread."""
    if not (wdir / "witness.key").exists():
        init_state(wdir, name)
    signer, state = open_state(wdir)
    lines: list[str] = []
    server = WitnessServer(Witness(signer, trusted, state), "127.0.0.1", port,
                           log=lines.append)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield RunningWitness(server.url, wdir, signer, server, lines)
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
        state.close()
