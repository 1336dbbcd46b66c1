"""A list of choices driven by the buttons: NEXT/PREV move the focus, OK chooses (a touch chooses that
item). The kiosk draws it; the turn controller and the menus use it. An :class:`Ask` is a game view's
question with such a list."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from companion.i18n import N_, Msg
from companion.inputs.commands import NEXT, OK, PREV, Command

Choices = list[tuple[Msg, Any]]   # a menu: (label, what choosing it does)


@dataclass
class Ask:
    """A question the camera cannot answer (a market card taken, a token count, an effect's outcome):
    a prompt and a menu for the buttons.

    Each choice is ``(label, value)``; the value is the engine's action to confirm (``Take(...)``),
    another Ask (a sub-menu), a callable that builds one of those when chosen, or None (back one
    level)."""

    prompt: Msg
    choices: list
    note: Msg | None = None
    camera: bool = False          # the camera's proposals are still taken while it is open
    optional: bool = False        # opened by the players (UNDO closes it); else the game waits for it
    hint: str = N_("by buttons")  # OK's label in the watch phase, for an optional menu
    columns: int = 0              # 0: as many as the list needs
    focus: int = 0


class Choice:
    def __init__(self, items: list, focus: int = 0):
        self.items = items            # [(label, value)]
        self.focus = focus

    def handle(self, cmd: Command):
        """The chosen value on OK, else None (the focus moves)."""
        if not self.items:
            return None
        if cmd.kind == NEXT:
            self.focus = (self.focus + 1) % len(self.items)
        elif cmd.kind == PREV:
            self.focus = (self.focus - 1) % len(self.items)
        elif cmd.kind == OK:
            if cmd.index is not None and 0 <= cmd.index < len(self.items):
                self.focus = cmd.index
            return self.items[self.focus][1]
        return None
