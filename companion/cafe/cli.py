"""``companion cafe``: the café's dashboard and its tools (docs/cafe.md)."""

from __future__ import annotations

import getpass
import os
import stat
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
                       description="N virtual tables (SIM01 ...; --prefix T: T01 ...), each with its own game "
                                   "log and publisher, play complete games; exits 0 once the broker acknowledged "
                                   "every action (with --until-confirmed: once the dashboard confirmed every "
                                   "action).")
    simulate.add_arguments(p)
    p.set_defaults(cafe_run=simulate.run)
    p = sub.add_parser("password", help="print the hash of a staff password, for --password-file",
                       description="Read a password (twice, hidden; or one line from standard input) and print "
                                   "its scrypt hash, to be saved as the --password-file of 'cafe serve'. The file "
                                   "it writes (-o, or standard output sent to a file) is made readable by its "
                                   "owner only.")
    p.add_argument("-o", "--output", metavar="FILE", help="write the hash to FILE (mode 0600) instead of printing it")
    p.set_defaults(cafe_run=_password)


def run(args) -> int:
    if getattr(args, "cafe_run", None) is None:
        raise BadInput("cafe", "say what to do: serve, simulate or password (companion cafe --help)")
    return args.cafe_run(args)


def _password(args) -> int:
    from companion.cafe.auth import MIN_PASSWORD, hash_password

    if sys.stdin.isatty():
        first = getpass.getpass("Staff password: ")
        if first != getpass.getpass("Again: "):
            raise BadInput("password", "the two passwords differ; nothing was printed")
    else:
        first = sys.stdin.readline().rstrip("\r\n")
    if len(first) < MIN_PASSWORD:
        raise BadInput("password", f"use at least {MIN_PASSWORD} characters")
    line = hash_password(first) + "\n"
    if args.output:
        try:
            fd = os.open(args.output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.fchmod(fd, 0o600)          # an existing file keeps its mode otherwise
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(line)
        except OSError as e:
            raise BadInput(args.output, f"cannot write the hash: {e.strerror}") from None
        print(f"companion cafe password: the hash is in {args.output} (readable by you only)", file=sys.stderr)
        return 0
    sys.stdout.flush()
    try:
        if stat.S_ISREG(os.fstat(sys.stdout.fileno()).st_mode):
            os.fchmod(sys.stdout.fileno(), 0o600)     # 'companion cafe password > staff.hash'
    except (OSError, ValueError):
        pass                                          # not a file of ours to change (a pipe, a terminal)
    sys.stdout.write(line)
    return 0
