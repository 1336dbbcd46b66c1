"""The café's part of the settings (behind the PIN with the rest): the broker, this table's name and
the broker login. Each is typed on a keypad; the settings screen's "Save and close" writes them."""

from __future__ import annotations

from pydantic import ValidationError

from companion.i18n import N_, Text
from companion.inputs.commands import NEXT, OK, UNDO
from companion.ui import theme
from companion.ui.screens.keypad import DELETE, DONE, KeypadScreen
from companion.ui.screens.settings import SettingsScreen

SHIFT = "⇧"
FIELDS = {"broker": N_("Broker: {value}"), "table": N_("Table name: {value}"), "username": N_("Broker login: {value}"),
          "password": N_("Broker password: {value}")}


class CafeSettingsScreen(SettingsScreen):
    name = "settings:cafe"
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
            self.kiosk.stack.push(CafeFieldScreen(self.kiosk, key))


class CafeFieldScreen(KeypadScreen):
    name = "keyboard:cafe"
    characters = "abcdefghijklmnopqrstuvwxyz0123456789.:/-_@"
    columns = 9
    key_size = theme.SMALL

    def __init__(self, kiosk, field: str):
        super().__init__(kiosk)
        self.field = field
        self.value = getattr(kiosk.config.cafe, field)
        self.upper = False

    @property
    def keys(self):
        shown = self.characters.upper() if self.upper else self.characters
        return list(shown) + [SHIFT, DELETE, DONE]

    @property
    def title(self):
        return Text(FIELDS[self.field], {"value": ""})

    def hints(self):
        return {NEXT: N_("next key"), UNDO: N_("delete"), OK: N_("press key")}

    def type(self, ch: str) -> None:
        if ch == "\b":
            self.value = self.value[:-1]
        elif ch == SHIFT:
            self.upper = not self.upper
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
