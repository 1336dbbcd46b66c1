"""``companion bench engine|vision|faces|kiosk|cafe|fuzz|chaos``: speed and accuracy figures, printed as
ratios against a reference run in the same process, and the counts of the long fuzz and chaos runs.
Benchmarks never fail a build on a time; they report.

Each benchmark is a module here with ``add_arguments(parser)`` and ``run(args) -> int``.
"""

from __future__ import annotations

import importlib
import sys

BENCHES = {
    "engine": "replaying long generated games: actions per second",
    "vision": "sticker recall, misreads, reading order and ms per frame at 3.3-1.8 px/module",
    "faces": "cards named by their printed faces beside the stickers on the same frames: named %, wrong, ms per "
             "new card and per frame, enrolment ms per face, the threshold chosen on one set and held on another",
    "kiosk": "button-to-screen latency, frames per second, memory over a long autoplay",
    "cafe": "the café under load: actions/s and append-to-dashboard latency through Mosquitto, dashboard CPU, memory",
    "chaos": "the demo kiosk under random buttons, camera drop-outs, a full disk and clock jumps",
    "fuzz": "every input file broken on purpose: exit codes, tracebacks (must be 0), hangs, slowest case",
}


def add_arguments(parser) -> None:
    sub = parser.add_subparsers(dest="bench", metavar="<benchmark>", required=True)
    chosen = next((a for a in sys.argv[1:] if a in BENCHES), None)
    for name, help_text in BENCHES.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        # Only the chosen benchmark's options are needed (and only it pays its imports).
        if name == chosen or chosen is None:
            importlib.import_module(f"companion.bench.{name}").add_arguments(p)


def run(args) -> int:
    return importlib.import_module(f"companion.bench.{args.bench}").run(args)
