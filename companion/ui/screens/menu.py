"""The menu (hold MENU): continue, history, language, settings, end the game, start screen.
Settings and ending a game early ask for the café PIN when one is set."""

from __future__ import annotations

import pygame

from companion.i18n import N_, Text
from companion.inputs.commands import BACK, NEXT, OK, PREV, TEXT, UNDO, Command
from companion.ui import theme
from companion.ui.canvas import Canvas, Literal
from companion.ui.screen import ListChoice, Screen


class MenuScreen(Screen):
    name = "menu"
    title = N_("Menu")

    def __init__(self, kiosk):
        super().__init__(kiosk)
        self.choice = ListChoice(self.items())

    def items(self):
        k = self.kiosk
        items = [(Text(N_("Continue")), "continue")]
        if k.session is not None:
            items.append((Text(N_("History and undo")), "history"))
        items.append((Text(N_("Language: English")) if k.lang == "en" else Text(N_("Language: Español")), "lang"))
        items.append((Text(N_("Settings")), "settings"))
        if k.game_in_progress():
            items.append((Text(N_("End this game now")), "end"))
        items.append((Text(N_("Start screen")), "attract"))
        if k.demo is not None:
            items.append((Text(N_("Close the demo")), "quit"))
        return items

    def hints(self):
        return {NEXT: N_("next"), UNDO: N_("close"), OK: N_("choose")}

    def on_enter(self):
        self.kiosk.unlocked = False
        if hasattr(self, "choice"):
            focus = self.choice.focus
            self.choice = ListChoice(self.items(), min(focus, len(self.items()) - 1))

    def handle(self, cmd):
        k = self.kiosk
        if cmd.kind in (UNDO, BACK):
            k.stack.pop()
            return
        what = self.choice.handle(cmd)
        if what == "continue":
            k.stack.pop()
        elif what == "history":
            from companion.ui.screens.history import HistoryScreen
            k.stack.replace(HistoryScreen(k))
        elif what == "lang":
            k.set_language("es" if k.lang == "en" else "en")
            self.choice.items = self.items()
        elif what == "settings":
            from companion.ui.screens.settings import SettingsScreen
            guarded(k, lambda: k.stack.replace(SettingsScreen(k)))
        elif what == "end":
            guarded(k, lambda: k.stack.replace(ConfirmScreen(
                k, Text(N_("End this game now? It is kept in the log as ended early.")), self.end_game)))
        elif what == "attract":
            from companion.ui.screens.attract import AttractScreen
            k.stack.reset(AttractScreen(k))
        elif what == "quit":
            k.running = False

    def end_game(self):
        k = self.kiosk
        k.end_game_early()
        from companion.ui.screens.attract import AttractScreen
        k.stack.reset(AttractScreen(k))

    def draw(self, c: Canvas):
        self.draw_frame(c)
        area = self.content_rect(c)
        self.choice.draw(c, area, theme.LARGE, columns=2 if len(self.choice.items) > 5 else 1)


def guarded(kiosk, then) -> None:
    """Run ``then`` now, or after the café PIN when one is set."""
    if kiosk.pin_required():
        kiosk.stack.push(PinScreen(kiosk, check=kiosk.config.kiosk.cafe_pin, then=then))
    else:
        then()


class ConfirmScreen(Screen):
    name = "confirm"
    title = N_("Are you sure?")

    def __init__(self, kiosk, question, yes):
        super().__init__(kiosk)
        self.question, self.yes = question, yes

    def hints(self):
        return {UNDO: N_("no"), OK: N_("yes")}

    def handle(self, cmd):
        if cmd.kind == OK:
            self.yes()
        elif cmd.kind in (UNDO, BACK):
            self.kiosk.stack.pop()

    def draw(self, c: Canvas):
        self.draw_frame(c)
        c.paragraph(self.question, self.content_rect(c), theme.TITLE, bold=True, align="center", valign="middle",
                    role="question")


PIN_KEYS = list("1234567890") + ["⌫", "✓"]


class PinScreen(Screen):
    """Digits on a keypad: NEXT moves, OK presses the key, UNDO deletes; a keyboard types directly.
    ``check``: the PIN to match (then ``then()`` runs); else the typed PIN is handed to ``then(pin)``."""

    name = "pin"
    typing = True

    def __init__(self, kiosk, then, check: str | None = None):
        super().__init__(kiosk)
        self.then, self.check = then, check
        self.value = ""
        self.focus = 0
        self.note = None

    @property
    def title(self):
        return N_("Café PIN") if self.check else N_("New café PIN (empty: none)")

    def hints(self):
        return {NEXT: N_("next key"), UNDO: N_("delete"), OK: N_("press key")}

    def handle(self, cmd):
        if cmd.kind == TEXT:
            for ch in cmd.text:
                if ch == "\b":
                    self.value = self.value[:-1]
                elif ch.isdigit() and len(self.value) < 8:
                    self.value += ch
            return
        if cmd.kind == NEXT:
            self.focus = (self.focus + 1) % len(PIN_KEYS)
        elif cmd.kind == PREV:
            self.focus = (self.focus - 1) % len(PIN_KEYS)
        elif cmd.kind == UNDO:
            if self.value:
                self.value = self.value[:-1]
            else:
                self.kiosk.stack.pop()
        elif cmd.kind == BACK:
            self.kiosk.stack.pop()
        elif cmd.kind == OK:
            if cmd.index is not None:
                self.focus = cmd.index
            key = PIN_KEYS[self.focus]
            if key == "⌫":
                self.value = self.value[:-1]
            elif key == "✓":
                self.submit()
            elif len(self.value) < 8:
                self.value += key

    def submit(self):
        if self.check is None:
            self.kiosk.stack.pop()
            self.then(self.value)
        elif self.value == self.check:
            self.kiosk.unlocked = True
            self.kiosk.stack.pop()
            self.then()
        else:
            self.value = ""
            self.note = N_("Wrong PIN")

    def draw(self, c: Canvas):
        self.draw_frame(c)
        area = self.content_rect(c)
        field = pygame.Rect(area.x, area.y, area.w, c.px(56))
        c.box(field, theme.PANEL_HI)
        c.text(Literal("● " * len(self.value) if self.check else self.value), (field.centerx, field.centery),
               theme.LARGE, bold=True, anchor="center", role="typed")
        if self.note:
            c.text(self.note, (field.right - c.px(12), field.centery), theme.BODY, theme.WRONG, bold=True,
                   anchor="midright", role="note")
        cols = 6
        top = field.bottom + c.px(10)
        gap = c.px(8)
        kw = (area.w - gap * (cols - 1)) // cols
        kh = min(kw, (area.bottom - top - gap) // 2)
        for i, key in enumerate(PIN_KEYS):
            r, col = divmod(i, cols)
            rect = pygame.Rect(area.x + col * (kw + gap), top + r * (kh + gap), kw, kh)
            focused = i == self.focus
            c.box(rect, theme.CORRECT if key == "✓" else (theme.PANEL_HI if focused else theme.PANEL), radius=8)
            if focused:
                c.box(rect, theme.ACCENT, radius=8, width=c.px(4))
            c.text(Literal(key), rect.center, theme.TITLE, bold=True, anchor="center", role="key")
            c.touch(rect, Command(OK, index=i, source="touch"))
