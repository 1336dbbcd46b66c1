"""A list of choices driven by the buttons: NEXT/PREV move the focus, OK chooses (a touch chooses that
item). The kiosk draws it; the turn controller and the menus use it."""

from __future__ import annotations

from companion.inputs.commands import NEXT, OK, PREV, Command


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
