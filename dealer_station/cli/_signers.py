"""The people who sign at the command line (``cage``, ``count-room``): ``--signer ID`` for each,
in the order of the signatures, each asked for a PIN (or read with ``--pin-stdin``), and signed
in at the table (each attempt journaled). Who may sign what is decided by the accounting
(table/signatures.py); here only that the named people are different and counted right."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dealer_station.audit.journal import Journal
    from dealer_station.audit.users import User


def signer_options(who: str) -> argparse.ArgumentParser:
    """A parent parser with ``--signer`` (``who``: who signs, for the help) and
    ``--pin-stdin``."""
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--signer", metavar="ID", action="append", default=[],
                   help=f"{who} (repeat, one --signer each); their PIN is asked for")
    p.add_argument("--pin-stdin", action="store_true",
                   help="read the signers' PINs from standard input, one per line, in the "
                        "order of --signer (for scripts)")
    return p


def sign_in(args: argparse.Namespace, journal: Journal, action: str, *,
            slots: Sequence[str] | None = None, at_least: int = 1) -> list[User]:
    """Sign each ``--signer`` in by PIN at ``args.table``: as many as ``slots`` (each named
    with its role in the prompt) or, without slots, ``at_least``; all different people."""
    from dealer_station.accounting.ledger import AccountingRefused
    from dealer_station.audit.users import Users
    from dealer_station.cli.users import _PinSource

    ids = [s.strip() for s in args.signer]
    if slots is not None and len(ids) != len(slots):
        raise AccountingRefused(f"{action} needs {len(slots)} signer"
                                f"{'s' if len(slots) != 1 else ''} ({', '.join(slots)}, in "
                                f"that order): give --signer ID for each; {len(ids)} given")
    if slots is None and len(ids) < at_least:
        raise AccountingRefused(f"{action} needs {at_least} signers or more: give --signer "
                                f"ID for each; {len(ids)} given")
    for uid in ids:
        if ids.count(uid) > 1:
            raise AccountingRefused(f"{action} needs different people; {uid} cannot sign "
                                    f"twice")
    users = Users(journal)
    pins = _PinSource(args.pin_stdin)
    roles = list(slots) if slots is not None else [""] * len(ids)
    return [users.authenticate(uid, pins.read(f"PIN for {uid}{f' ({r})' if r else ''}: "),
                               table_id=args.table)
            for uid, r in zip(ids, roles, strict=True)]
