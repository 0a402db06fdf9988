"""``dealer-station users``: add, list, change PIN, unlock, deactivate and change roles.

Every change is journaled on the station chain and attributed to the user who signs in with
``--as USER`` (their PIN is asked for): an operator, or a supervisor unlocking a dealer, or a
user changing their own PIN. Without ``--as`` only the first user of a journal with no users
(an operator) can be added. PINs are read with a hidden prompt, or with ``--pin-stdin`` one per
line from standard input, in this order: the ``--as`` user's PIN, then the new PIN.
"""

from __future__ import annotations

import argparse
import getpass
import sys
from typing import TYPE_CHECKING

from dealer_station.cli.audit import default_actor, open_store, store_options
from dealer_station.errors import StationError

if TYPE_CHECKING:
    from dealer_station.audit.users import User, Users


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
        try:
            pin = getpass.getpass(prompt)
            if confirm and getpass.getpass("Repeat the PIN: ") != pin:
                raise StationError("the two PINs differ; nothing was changed")
        except EOFError:
            raise StationError(f"no PIN given for: {prompt.rstrip(': ')}") from None
        return pin


_WHAT = {"add": "add a user", "passwd": "set a PIN", "unlock": "unlock a user",
         "deactivate": "deactivate a user", "role": "change a role"}


def _sign_in(args: argparse.Namespace, users: Users, pins: _PinSource) -> tuple[User, str]:
    """The ``--as`` user, signed in (the attempt is journaled), and the PIN they gave."""
    pin = pins.read(f"PIN for {args.as_user}: ")
    return users.authenticate(args.as_user, pin), pin


def run(args: argparse.Namespace) -> int:
    from dealer_station.audit.users import PermissionDenied, Users

    pins = _PinSource(args.pin_stdin)
    with open_store(args, write=args.action != "list") as store:
        users = Users(store.journal)
        if args.action == "list":
            for u in users.list():
                state = "active" if u.active else "inactive"
                locked = f", locked until {u.locked_until}" if u.locked_until else ""
                print(f"{u.user_id:<16} {u.role:<10} {state}{locked}  {u.name}")
            problems = users.check_projection()
            for p in problems:
                print(f"users table disagrees with the journal: {p}", file=sys.stderr)
            return 1 if problems else 0
        if args.as_user:
            admin, admin_pin = _sign_in(args, users, pins)
            actor: User | str = admin
        elif ((args.action == "add" and not users.has_users())
              or (args.action == "passwd" and users.has_users() and not users.pins_bound())):
            # The first operator of a journal with no users; or, on a journal whose PINs were
            # set before they were bound to the key, one operator's new PIN (Users checks).
            actor, admin_pin = default_actor(), ""
        else:
            raise PermissionDenied(f"to {_WHAT[args.action]} an operator must sign in first: "
                                   f"add --as USER")
        if args.action == "add":
            pin = pins.read(f"New PIN for {args.user_id}: ", confirm=True)
            u = users.add(args.user_id, args.name, args.role, pin, actor=actor)
            print(f"added {u.user_id} ({u.role})")
        elif args.action == "passwd":
            own = args.as_user == args.user_id
            pin = pins.read(f"New PIN for {args.user_id}: ", confirm=True)
            users.change_pin(args.user_id, pin, actor=actor,
                             current_pin=admin_pin if own else None)
            print(f"changed the PIN of {args.user_id}")
        elif args.action == "unlock":
            users.unlock(args.user_id, actor=actor, reason=args.reason)
            print(f"unlocked {args.user_id}")
        elif args.action == "deactivate":
            users.deactivate(args.user_id, actor=actor, reason=args.reason)
            print(f"deactivated {args.user_id}")
        elif args.action == "role":
            u = users.set_role(args.user_id, args.role, actor=actor, reason=args.reason)
            print(f"{u.user_id} is now a {u.role}")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from dealer_station.audit.schema import ROLES

    p = sub.add_parser("users", help="add, list and manage station users and their PINs")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    common = store_options()
    common.add_argument("--pin-stdin", action="store_true",
                        help="read PINs from standard input, one per line (for scripts)")
    common.add_argument("--as", dest="as_user", metavar="USER",
                        help="sign in as this user to make the change (an operator; a "
                             "supervisor to unlock a dealer; anyone to change their own PIN). "
                             "Required, except to add the first operator of a new journal")

    add = actions.add_parser("add", parents=[common], help="add a user")
    add.add_argument("user_id")
    add.add_argument("--name", required=True)
    add.add_argument("--role", required=True, choices=list(ROLES))
    actions.add_parser("list", parents=[common], help="list users")
    pw = actions.add_parser("passwd", parents=[common], help="set a user's PIN")
    pw.add_argument("user_id")
    un = actions.add_parser("unlock", parents=[common], help="clear a lockout")
    un.add_argument("user_id")
    un.add_argument("--reason", help="why (journaled with who unlocked whom)")
    de = actions.add_parser("deactivate", parents=[common], help="stop a user signing in")
    de.add_argument("user_id")
    de.add_argument("--reason", required=True)
    ro = actions.add_parser("role", parents=[common], help="change a user's role")
    ro.add_argument("user_id")
    ro.add_argument("--role", required=True, choices=list(ROLES))
    ro.add_argument("--reason", required=True)
    p.set_defaults(func=run)
