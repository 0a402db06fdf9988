"""``dealer-station users``: add, list, change PIN, unlock and deactivate station users.

Every change is journaled on the station chain. The actor is the console user unless
``--as USER`` signs a supervisor or operator in first (their PIN is asked for). PINs are read
with a hidden prompt, or with ``--pin-stdin`` one per line from standard input, in this order:
the ``--as`` user's PIN, then the new PIN.
"""

from __future__ import annotations

import argparse
import getpass
import sys
from typing import TYPE_CHECKING

from dealer_station.cli.audit import default_actor, open_store, store_options
from dealer_station.errors import StationError

if TYPE_CHECKING:
    from dealer_station.audit.users import Users


class _PinSource:
    def __init__(self, from_stdin: bool) -> None:
        self.from_stdin = from_stdin

    def read(self, prompt: str, *, confirm: bool = False) -> str:
        if self.from_stdin:
            line = sys.stdin.readline()
            if not line:
                raise StationError(f"--pin-stdin: no line left on standard input for: "
                                   f"{prompt.rstrip(': ')}")
            return line.rstrip("\r\n")
        pin = getpass.getpass(prompt)
        if confirm and getpass.getpass("Repeat the PIN: ") != pin:
            raise StationError("the two PINs differ; nothing was changed")
        return pin


def _actor(args: argparse.Namespace, users: Users, pins: _PinSource) -> str:
    if not args.as_user:
        return default_actor()
    from dealer_station.audit.users import require_role

    user = users.authenticate(args.as_user, pins.read(f"PIN for {args.as_user}: "))
    require_role(user, "supervisor", "operator", action="administer users")
    return user.actor


def run(args: argparse.Namespace) -> int:
    from dealer_station.audit.users import Users

    pins = _PinSource(args.pin_stdin)
    with open_store(args, write=args.action != "list") as store:
        users = Users(store.journal)
        if args.action == "list":
            for u in users.list():
                state = "active" if u.active else "inactive"
                locked = f", locked until {u.locked_until}" if u.locked_until else ""
                print(f"{u.user_id:<16} {u.role:<10} {state}{locked}  {u.name}")
            return 0
        actor = _actor(args, users, pins)
        if args.action == "add":
            pin = pins.read(f"New PIN for {args.user_id}: ", confirm=True)
            u = users.add(args.user_id, args.name, args.role, pin, actor=actor)
            print(f"added {u.user_id} ({u.role})")
        elif args.action == "passwd":
            pin = pins.read(f"New PIN for {args.user_id}: ", confirm=True)
            users.change_pin(args.user_id, pin, actor=actor)
            print(f"changed the PIN of {args.user_id}")
        elif args.action == "unlock":
            users.unlock(args.user_id, actor=actor)
            print(f"unlocked {args.user_id}")
        elif args.action == "deactivate":
            users.deactivate(args.user_id, actor=actor, reason=args.reason)
            print(f"deactivated {args.user_id}")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("users", help="add, list and manage station users and their PINs")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    common = store_options()
    common.add_argument("--pin-stdin", action="store_true",
                        help="read PINs from standard input, one per line (for scripts)")
    common.add_argument("--as", dest="as_user", metavar="USER",
                        help="sign in as this supervisor or operator to make the change")

    add = actions.add_parser("add", parents=[common], help="add a user")
    add.add_argument("user_id")
    add.add_argument("--name", required=True)
    add.add_argument("--role", required=True, choices=["dealer", "supervisor", "operator"])
    actions.add_parser("list", parents=[common], help="list users")
    pw = actions.add_parser("passwd", parents=[common], help="set a user's PIN")
    pw.add_argument("user_id")
    un = actions.add_parser("unlock", parents=[common], help="clear a lockout")
    un.add_argument("user_id")
    de = actions.add_parser("deactivate", parents=[common], help="stop a user signing in")
    de.add_argument("user_id")
    de.add_argument("--reason", required=True)
    p.set_defaults(func=run)
