"""An on-screen keypad for four buttons: NEXT moves the focus, OK presses the focused key, UNDO
deletes (or leaves when nothing is typed); a real keyboard and touch type directly. The PIN pad and
the name keyboard are two of them."""

from __future__ import annotations

import pygame

from companion.inputs.commands import BACK, NEXT, OK, PREV, TEXT, UNDO, Command
from companion.ui import theme
from companion.ui.canvas import Canvas, Literal
from companion.ui.screen import Screen

DELETE, DONE = "⌫", "✓"


class KeypadScreen(Screen):
    typing = True
    keys: list[str] = []
    columns = 10
    key_size: float = theme.LARGE
    note_colour = theme.WARN

    def __init__(self, kiosk):
        super().__init__(kiosk)
        self.value = ""
        self.focus = 0
        self.note = None

    def type(self, ch: str) -> None:
        """One character from a key or a keyboard (``\\b`` deletes)."""
        raise NotImplementedError

    def done(self) -> None:
        raise NotImplementedError

    def shown_value(self) -> tuple[str, str]:
        """What the field shows, and where ("center" or "midleft")."""
        return self.value, "center"

    def handle(self, cmd):
        if cmd.kind == TEXT:
            for ch in cmd.text:
                self.type(ch)
        elif cmd.kind in (NEXT, PREV):
            self.focus = (self.focus + (1 if cmd.kind == NEXT else -1)) % len(self.keys)
        elif cmd.kind == UNDO and self.value:
            self.value = self.value[:-1]
        elif cmd.kind in (UNDO, BACK):
            self.kiosk.stack.pop()
        elif cmd.kind == OK:
            if cmd.index is not None and 0 <= cmd.index < len(self.keys):
                self.focus = cmd.index
            key = self.keys[self.focus]
            if key == DONE:
                self.done()
            elif key == DELETE:
                self.value = self.value[:-1]
            else:
                self.type(key)

    def draw(self, c: Canvas):
        self.draw_frame(c)
        area = self.content_rect(c)
        field = pygame.Rect(area.x, area.y, area.w, c.px(56))
        c.box(field, theme.PANEL_HI)
        text, anchor = self.shown_value()
        pos = (field.centerx, field.centery) if anchor == "center" else (field.x + c.px(16), field.centery)
        c.text(Literal(text), pos, theme.LARGE, bold=True, anchor=anchor, role="typed")
        if self.note:
            c.text(self.note, (field.right - c.px(12), field.centery), theme.SMALL, self.note_colour, bold=True,
                   anchor="midright", role="note")
        rows = -(-len(self.keys) // self.columns)
        top = field.bottom + c.px(10)
        gap = c.px(6)
        kw = (area.w - gap * (self.columns - 1)) // self.columns
        kh = min(kw, (area.bottom - top - gap * (rows - 1)) // rows)
        for i, key in enumerate(self.keys):
            r, col = divmod(i, self.columns)
            rect = pygame.Rect(area.x + col * (kw + gap), top + r * (kh + gap), kw, kh)
            focused = i == self.focus
            c.box(rect, theme.CORRECT if key == DONE else (theme.PANEL_HI if focused else theme.PANEL), radius=8)
            if focused:
                c.box(rect, theme.ACCENT, radius=8, width=c.px(4))
            c.text(Literal(key), rect.center, self.key_size, bold=True, anchor="center", role="key")
            c.touch(rect, Command(OK, index=i, source="touch"))
