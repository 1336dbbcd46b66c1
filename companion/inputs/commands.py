"""The kiosk's commands and the thread-safe stream that carries them.

Four arcade buttons exist: NEXT, UNDO, OK, MENU. Holding MENU opens the menu (``MENU``); a short
press of MENU goes back (``BACK``), so a brush against the button at a café never opens settings.
The keyboard adds ``PREV`` (arrow keys) and ``TEXT`` (typing a name); touch adds ``index`` (the
item touched) to ``OK``.
"""

from __future__ import annotations

import queue
import time
from dataclasses import dataclass, field

NEXT, UNDO, OK, MENU, BACK, PREV, TEXT, QUIT = "NEXT", "UNDO", "OK", "MENU", "BACK", "PREV", "TEXT", "QUIT"
KINDS = (NEXT, UNDO, OK, MENU, BACK, PREV, TEXT, QUIT)


@dataclass(frozen=True)
class Command:
    kind: str
    index: int | None = None      # OK on a touched list item: which one
    text: str = ""                # TEXT: the characters typed ("\b" deletes one)
    source: str = "test"          # gpio | keyboard | touch | demo | test
    at: float = field(default_factory=time.monotonic, compare=False)  # when it was pressed

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"unknown command {self.kind!r}; one of {', '.join(KINDS)}")


class CommandStream:
    """Commands from every source, in the order they arrived. ``post`` may be called from any thread
    (gpiozero calls back from its own threads)."""

    def __init__(self):
        self._queue: queue.SimpleQueue[Command] = queue.SimpleQueue()

    def post(self, command: Command) -> None:
        self._queue.put(command)

    def drain(self) -> list[Command]:
        out = []
        while True:
            try:
                out.append(self._queue.get_nowait())
            except queue.Empty:
                return out
