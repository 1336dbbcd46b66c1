"""``companion cafe``: the café's dashboard and its tools (docs/cafe.md)."""

from __future__ import annotations

import getpass
import sys

from companion.errors import BadInput


def add_arguments(parser) -> None:
    from companion.cafe import serve, simulate

    sub = parser.add_subparsers(dest="cafe_command", metavar="<cafe command>")
    p = sub.add_parser("serve", help="the staff's live page over every table (subscribes to the broker)",
                       description="Serve the café's dashboard: every table live, the plays, figures and exports.")
    serve.add_arguments(p)
    p.set_defaults(cafe_run=serve.run)
    p = sub.add_parser("simulate", help="N virtual tables playing complete games through the broker",
                       description="N virtual tables (T01 ...), each with its own game log and publisher, play "
                                   "complete games; exits 0 once the broker acknowledged every action (with "
                                   "--until-confirmed: once the dashboard confirmed every action).")
    simulate.add_arguments(p)
    p.set_defaults(cafe_run=simulate.run)
    p = sub.add_parser("password", help="print the hash of a staff password, for --password-file",
                       description="Read a password (twice, hidden; or one line from standard input) and print "
                                   "its scrypt hash, to be saved as the --password-file of 'cafe serve'.")
    p.set_defaults(cafe_run=_password)


def run(args) -> int:
    if getattr(args, "cafe_run", None) is None:
        raise BadInput("cafe", "say what to do: serve, simulate or password (companion cafe --help)")
    return args.cafe_run(args)


def _password(args) -> int:
    from companion.cafe.auth import hash_password

    if sys.stdin.isatty():
        first = getpass.getpass("Staff password: ")
        if first != getpass.getpass("Again: "):
            raise BadInput("password", "the two passwords differ; nothing was printed")
    else:
        first = sys.stdin.readline().rstrip("\r\n")
    if len(first) < 8:
        raise BadInput("password", "use at least 8 characters")
    print(hash_password(first))
    return 0
