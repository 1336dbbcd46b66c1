"""Settings (behind the café PIN when one is set): language, idle time, the PIN, full screen.
Pins and the camera are shown for reference; they are changed in the settings file."""

from __future__ import annotations

import pygame
from pydantic import ValidationError

from companion.i18n import N_, Text
from companion.inputs.commands import BACK, NEXT, OK, PREV, UNDO, Command
from companion.ui import theme
from companion.ui.canvas import Canvas
from companion.ui.keypad import DELETE, DONE, KeypadScreen
from companion.ui.screen import Screen, screen

IDLE_CHOICES = [2, 5, 10, 15, 30, 60]


@screen("settings")
class SettingsScreen(Screen):
    title = N_("Settings")

    def __init__(self, kiosk):
        super().__init__(kiosk)
        self.focus = 0
        self.note = None

    def rows(self):
        k = self.kiosk.config.kiosk
        cfg = self.kiosk.config
        return [
            ("lang", Text(N_("Language: English")) if self.kiosk.lang == "en" else Text(N_("Language: Español"))),
            ("idle", Text(N_("Back to the start screen after {n} minutes untouched"), {"n": _num(k.idle_minutes)})),
            ("pin", Text(N_("Café PIN: set")) if k.cafe_pin else Text(N_("Café PIN: none"))),
            ("full", Text(N_("Full screen: yes")) if k.fullscreen else Text(N_("Full screen: no"))),
            ("cafe", Text(N_("Café dashboard: {table}"), {"table": cfg.cafe.table or "-"})),
            ("save", Text(N_("Save and close"))),
            ("info", Text(N_("Camera: {source} · buttons NEXT {next}, UNDO {undo}, OK {ok}, MENU {menu} (BCM). "
                             "Change these in {file}."),
                          {"source": cfg.camera.source, "next": cfg.buttons.next, "undo": cfg.buttons.undo,
                           "ok": cfg.buttons.ok, "menu": cfg.buttons.menu, "file": "config.toml"})),
        ]

    def hints(self):
        return {NEXT: N_("next line"), UNDO: N_("close"), OK: N_("change")}

    def handle(self, cmd):
        rows = self.rows()
        active = len(rows) - 1      # the last row is information only
        if cmd.kind in (UNDO, BACK):
            self.kiosk.stack.pop()
        elif cmd.kind == NEXT:
            self.focus = (self.focus + 1) % active
        elif cmd.kind == PREV:
            self.focus = (self.focus - 1) % active
        elif cmd.kind == OK:
            if cmd.index is not None and cmd.index < active:
                self.focus = cmd.index
            self.change(rows[self.focus][0])

    def change(self, key):
        k = self.kiosk
        s = k.config.kiosk
        if key == "lang":
            k.set_language("es" if k.lang == "en" else "en")
        elif key == "idle":
            nxt = [m for m in IDLE_CHOICES if m > s.idle_minutes]
            s.idle_minutes = nxt[0] if nxt else IDLE_CHOICES[0]
        elif key == "pin":

            def set_pin(pin):
                s.cafe_pin = pin
            k.stack.push("pin", then=set_pin)
        elif key == "full":
            s.fullscreen = not s.fullscreen
            self.note = N_("Full screen changes at the next start")
        elif key == "cafe":
            k.stack.push("settings:cafe")
        elif key == "save":
            try:
                if k.save_settings:
                    k.save_settings(k.config)
            except OSError as e:
                self.note = Text(N_("Could not save the settings: {error}"), {"error": e.strerror or str(e)})
                return
            k.stack.pop()

    def draw(self, c: Canvas):
        self.draw_frame(c)
        area = self.content_rect(c)
        rows = self.rows()
        gap = c.px(6)
        row_h = min(c.px(52), (area.h - gap * len(rows)) // len(rows))
        y = area.y
        for i, (key, label) in enumerate(rows):
            info = key == "info"
            h = row_h * 2 if info else row_h
            rect = pygame.Rect(area.x, y, area.w, h)
            focused = i == self.focus
            if info:
                c.paragraph(label, rect.inflate(-c.px(16), -c.px(4)), theme.SMALL, theme.MUTED, role="info")
            else:
                c.box(rect, theme.CORRECT if key == "save" else (theme.PANEL_HI if focused else theme.PANEL))
                if focused:
                    c.box(rect, theme.ACCENT, width=c.px(4))
                c.text(label, (rect.x + c.px(16), rect.centery), theme.BODY, bold=focused, anchor="midleft",
                       max_width=rect.w - c.px(24), role="row:focus" if focused else "row")
                c.touch(rect, Command(OK, index=i, source="touch"))
            y += h + gap
        if self.note:
            c.text(self.note, (area.right, area.bottom), theme.SMALL, theme.WARN, anchor="bottomright", role="note")


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)



# -- the café's part of the settings (behind the PIN with the rest): the broker, this table's name and
# the broker login, each typed on a keypad; the settings screen's "Save and close" writes them.

SHIFT = "⇧"
FIELDS = {"broker": N_("Broker: {value}"), "table": N_("Table name: {value}"), "username": N_("Broker login: {value}"),
          "password": N_("Broker password: {value}")}


@screen("settings:cafe")
class CafeSettingsScreen(SettingsScreen):
    title = N_("Café dashboard")

    def rows(self):
        cafe = self.kiosk.config.cafe
        rows = []
        for key, msgid in FIELDS.items():
            value = getattr(cafe, key)
            shown = ("•" * len(value) if key == "password" else value) or Text(N_("(none)")).render(self.kiosk.lang)
            rows.append((key, Text(msgid, {"value": shown})))
        rows.append(("save", Text(N_("Done"))))
        rows.append(("info", Text(N_("An empty broker keeps this kiosk to itself. Changes take effect at the next "
                                     "start, once saved in the settings."))))
        return rows

    def change(self, key):
        if key == "save":
            self.kiosk.stack.pop()
        else:
            self.kiosk.stack.push("keyboard:cafe", key)


@screen("keyboard:cafe")
class CafeFieldScreen(KeypadScreen):
    characters = "abcdefghijklmnopqrstuvwxyz0123456789.:/-_@"
    columns = 9
    key_size = theme.SMALL

    def __init__(self, kiosk, field: str):
        super().__init__(kiosk)
        self.field = field
        self.value = getattr(kiosk.config.cafe, field)
        self.shift(False)

    def shift(self, upper: bool) -> None:
        """Capitals or not: the keys shown (and typed) change with it."""
        self.upper = upper
        shown = self.characters.upper() if upper else self.characters
        self.keys = list(shown) + [SHIFT, DELETE, DONE]

    @property
    def title(self):
        return Text(FIELDS[self.field], {"value": ""})

    def hints(self):
        return {NEXT: N_("next key"), UNDO: N_("delete"), OK: N_("press key")}

    def type(self, ch: str) -> None:
        if ch == "\b":
            self.value = self.value[:-1]
        elif ch == SHIFT:
            self.shift(not self.upper)
        elif len(self.value) < 200 and ch.isprintable():
            self.value += ch

    def shown_value(self):
        shown = "•" * len(self.value) if self.field == "password" else self.value
        return shown + "▏", "midleft"

    def done(self):
        cafe = self.kiosk.config.cafe
        try:
            checked = type(cafe).model_validate({**cafe.model_dump(), self.field: self.value.strip()})
        except ValidationError as e:
            self.note = e.errors()[0]["msg"].removeprefix("Value error, ")
            return
        setattr(cafe, self.field, getattr(checked, self.field))
        self.kiosk.stack.pop()
