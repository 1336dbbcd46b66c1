"""The ``companion`` command (the contract in shared/spec/cli.md).

Each command lives in the room it belongs to, as a module with ``add_arguments(parser)`` and
``run(args) -> int``; only the chosen command's module is imported, so ``companion replay`` never
pays for OpenCV or pygame. Exit codes: 0 success, 2 bad input (one line on stderr naming where),
1 anything else (a bug).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from companion import __version__, registry
from companion.errors import BadInput

COMMANDS = {
    "kiosk": ("companion.app", "start the kiosk (--demo: virtual table and keyboard, no hardware)"),
    "replay": ("companion.store.replay_cli", "replay a game log (JSONL) and print the resulting state"),
    "score": ("companion.store.score_cli", "score a finished table ({scorable}), or rank the players of a game log"),
    "scan": ("companion.vision.scan_cli", "find the card stickers in photos of the table"),
    "deck": ("companion.cards.deck_cli", "list, create and edit decks; import/export CSV"),
    "stickers": ("companion.print.stickers", "print a sheet of stickers for a deck (PDF)"),
    "cards": ("companion.print.cards", "print a print-and-play deck (PDF)"),
    "plan-camera": ("companion.vision.camera_plan", "pixels per sticker module for a camera and table"),
    "bench": ("companion.bench", "figures: speed and accuracy (engine, vision, kiosk, cafe), bad input and "
                                 "failing parts (fuzz, chaos)"),
    "doctor": ("companion.doctor", "check camera, decoders, display, buttons, disk; say what to fix"),
    "cafe": ("companion.cafe.cli", "the café: every table on one live dashboard over MQTT (serve, simulate)"),
}


def _chosen(argv: list[str]) -> str | None:
    for arg in argv:
        if not arg.startswith("-"):
            return arg if arg in COMMANDS else None
    return None


class _Parser(argparse.ArgumentParser):
    """A mistyped command line is bad input like any other: exit 2 with one line (the usage is a
    ``--help`` away); every subcommand's parser is of this class too."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: {message} (see '{self.prog} --help')\n")


def build_parser(argv: list[str]) -> argparse.ArgumentParser:
    parser = _Parser(
        prog="companion",
        description="Table Companion: reads the cards on the table, referees the game and scores it.",
        epilog="Exit codes: 0 success, 2 bad input, 1 a bug (doctor: 3, a check failed). 'companion <command> --help' "
               "for each command.",
    )
    parser.add_argument("--version", action="version", version=f"companion {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="<command>")
    chosen = _chosen(argv)
    for name, (module, help_text) in COMMANDS.items():
        help_text = help_text.format(scorable=", ".join(registry.scorable()))    # the games, from the registry
        p = sub.add_parser(name, help=help_text, description=help_text[0].upper() + help_text[1:] + ".")
        if name == chosen:
            mod = importlib.import_module(module)
            mod.add_arguments(p)
            p.set_defaults(run=mod.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        return int(args.run(args) or 0)
    except BadInput as e:
        print(str(e), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as e:  # a bug: say so in one line; the trace only when asked for
        if os.environ.get("COMPANION_DEBUG"):
            raise
        print(f"companion {args.command}: internal error (a bug): {type(e).__name__}: {e}. "
              f"Run again with COMPANION_DEBUG=1 for the details.", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
