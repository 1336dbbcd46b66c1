"""The keyboard and the touch screen, as the same Commands as the buttons.

Enter/Space = OK, Backspace/U = UNDO, N/Right/Down = NEXT, Left/Up = PREV, Esc/M = MENU. While a
screen takes text (a player's name), letters are TEXT and Backspace deletes. A touch or click is
turned into a command by the screen that drew the touched spot (``Canvas.hits``).
"""

from __future__ import annotations

import pygame

from companion.inputs.commands import MENU, NEXT, OK, PREV, QUIT, TEXT, UNDO, Command

_KEYS = {
    pygame.K_RETURN: OK, pygame.K_KP_ENTER: OK, pygame.K_SPACE: OK,
    pygame.K_BACKSPACE: UNDO, pygame.K_u: UNDO,
    pygame.K_n: NEXT, pygame.K_RIGHT: NEXT, pygame.K_DOWN: NEXT, pygame.K_TAB: NEXT,
    pygame.K_LEFT: PREV, pygame.K_UP: PREV,
    pygame.K_ESCAPE: MENU, pygame.K_m: MENU,
}


def key_command(event, typing: bool = False) -> Command | None:
    """The command for one pygame KEYDOWN event (None for keys that mean nothing here)."""
    if event.type != pygame.KEYDOWN:
        return None
    if typing:
        if event.key == pygame.K_BACKSPACE:
            return Command(TEXT, text="\b", source="keyboard")
        ch = event.unicode
        if ch and (ch.isalnum() or ch in " -'."):
            return Command(TEXT, text=ch, source="keyboard")
    if event.key == pygame.K_q and event.mod & pygame.KMOD_CTRL:
        return Command(QUIT, source="keyboard")
    kind = _KEYS.get(event.key)
    return Command(kind, source="keyboard") if kind else None
