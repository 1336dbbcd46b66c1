"""Players and options: how many, their names (a preset list or the on-screen keyboard), and the
game's own options (level, variants, layout). Then the table is laid out and read."""

from __future__ import annotations

import pygame

from companion.i18n import N_, Text
from companion.inputs.commands import BACK, NEXT, OK, PREV, UNDO
from companion.ui import theme
from companion.ui.canvas import Canvas, Literal, font
from companion.ui.keypad import DELETE, DONE, KeypadScreen
from companion.ui.screen import ListChoice, Screen, screen

PRESET_NAMES = ["Ana", "Bruno", "Carla", "David", "Elena", "Fran", "Gala", "Hugo", "Inés", "Jorge",
                "Lucía", "Mario", "Nuria", "Óscar", "Pilar", "Raúl"]
MAX_NAME = 12


@screen("players")
class PlayersScreen(Screen):
    def __init__(self, kiosk, view):
        super().__init__(kiosk)
        self.view = view
        self.count = max(view.min_players, min(3, view.max_players))
        self.names = PRESET_NAMES[: view.max_players]
        self.opts = view.options()
        self.values = {o.key: o.default for o in self.opts}
        self.focus = 0

    @property
    def title(self):
        return self.view.title

    @property
    def phase(self):
        return f"row{self.focus}"

    def rows(self) -> list[tuple]:
        rows: list[tuple] = [("count", Text(N_("Players: {n}"), {"n": self.count}))]
        for i in range(self.count):
            rows.append((("name", i), Text(N_("Player {n}: {name}"), {"n": i + 1, "name": self.names[i]})))
        for o in self.opts:
            value_label = o.label_of(self.values[o.key])
            rows.append((("opt", o.key), (o.label, value_label)))
        rows.append(("start", Text(N_("Start the game"))))
        return rows

    def hints(self):
        key = self.rows()[self.focus][0]
        what = {"count": N_("more players"), "start": N_("start")}.get(key if isinstance(key, str) else key[0],
                                                                         N_("change"))
        if isinstance(key, tuple) and key[0] == "name":
            what = N_("choose a name")
        return {NEXT: N_("next line"), UNDO: N_("back"), OK: what}

    def handle(self, cmd):
        rows = self.rows()
        if cmd.kind in (UNDO, BACK):
            self.kiosk.stack.pop()
        elif cmd.kind == NEXT:
            self.focus = (self.focus + 1) % len(rows)
        elif cmd.kind == PREV:
            self.focus = (self.focus - 1) % len(rows)
        elif cmd.kind == OK:
            if cmd.index is not None and 0 <= cmd.index < len(rows):
                self.focus = cmd.index
            self.activate(rows[self.focus][0])

    def activate(self, key):
        if key == "count":
            span = self.view.max_players - self.view.min_players + 1
            self.count = self.view.min_players + (self.count - self.view.min_players + 1) % span
        elif key == "start":
            setup = {"view": self.view, "players": self.names[: self.count], "options": dict(self.values)}
            self.kiosk.stack.push("table", new_game=setup)
        elif key[0] == "name":
            self.kiosk.stack.push("name", self, key[1])
        elif key[0] == "opt":
            opt = next(o for o in self.opts if o.key == key[1])
            values = [v for v, _ in opt.choices]
            self.values[opt.key] = values[(values.index(self.values[opt.key]) + 1) % len(values)]

    def set_name(self, i: int, name: str) -> None:
        if name in self.names[: self.count] and self.names[i] != name:
            j = self.names.index(name)
            self.names[j] = self.names[i]      # two players swap names rather than share one
        self.names[i] = name

    def draw(self, c: Canvas):
        self.draw_frame(c)
        area = self.content_rect(c)
        rows = self.rows()
        cols = 2 if len(rows) > 7 else 1
        per_col = -(-len(rows) // cols)
        gap = c.px(6)
        row_h = min(c.px(54), (area.h - gap * (per_col - 1)) // per_col)
        col_w = (area.w - c.px(12) * (cols - 1)) // cols
        texts = [Literal(f"{c.tr(label[0])}: {c.tr(label[1])}") if isinstance(label, tuple) else label
                 for _key, label in rows]
        # one size for every row (rows in mixed sizes read as more and less important): the largest at
        # which they all fit on a line, but not under 20; a row still too long wraps onto two lines
        size = min(theme.BODY, row_h / c.u * 0.5)
        size = max(20.0, min(c.fit_size(c.tr(t), size, True, col_w - c.px(24), least=20) for t in texts) / c.u)
        for i, (key, _label) in enumerate(rows):
            col, r = divmod(i, per_col)
            rect = pygame.Rect(area.x + col * (col_w + c.px(12)), area.y + r * (row_h + gap), col_w, row_h)
            focused = i == self.focus
            start = key == "start"
            c.box(rect, theme.CORRECT if start else (theme.PANEL_HI if focused else theme.PANEL), radius=10)
            if focused:
                c.box(rect, theme.ACCENT, radius=10, width=c.px(4))
            c.paragraph(texts[i], rect.inflate(-c.px(24), -c.px(4)).move(c.px(4), 0), size, theme.TEXT,
                        bold=focused or start, valign="middle", role="row:focus" if focused else "row")
            c.touch(rect, _ok(i))


def _ok(i):
    from companion.inputs.commands import Command
    return Command(OK, index=i, source="touch")


@screen("name")
class NameScreen(Screen):
    """A player's name from the preset list, or typed on the on-screen keyboard."""

    def __init__(self, kiosk, form: PlayersScreen, index: int):
        super().__init__(kiosk)
        self.form, self.index = form, index
        taken = set(form.names[: form.count]) - {form.names[index]}
        items: list[tuple] = [(Literal(n), n) for n in PRESET_NAMES if n not in taken]
        items.append((Text(N_("Type a name…")), None))
        current = form.names[index]
        focus = next((i for i, (_, v) in enumerate(items) if v == current), 0)
        self.choice = ListChoice(items, focus)

    @property
    def title(self):
        return Text(N_("Name of player {n}"), {"n": self.index + 1})

    def hints(self):
        return {NEXT: N_("next name"), UNDO: N_("back"), OK: N_("choose")}

    def handle(self, cmd):
        if cmd.kind in (UNDO, BACK):
            self.kiosk.stack.pop()
            return
        if cmd.kind == OK:
            if cmd.index is not None and 0 <= cmd.index < len(self.choice.items):
                self.choice.focus = cmd.index
            value = self.choice.items[self.choice.focus][1]
            if value is None:
                self.kiosk.stack.push("keyboard", self.form, self.index)
            else:
                self.form.set_name(self.index, value)
                self.kiosk.stack.pop()
        else:
            self.choice.handle(cmd)

    def draw(self, c: Canvas):
        self.draw_frame(c)
        area = self.content_rect(c)
        self.choice.draw(c, area, theme.BODY, columns=3)


@screen("keyboard")
class KeyboardScreen(KeypadScreen):
    """Letters for a player's name; ✓ is done."""

    # Spanish names need their accents (Inés, José, Begoña, Agüero): the letters after Z
    keys = list("ABCDEFGHIJKLMNÑOPQRSTUVWXYZÁÉÍÓÚÜ") + ["-", "␣", DELETE, DONE]
    key_size = theme.LARGE * 0.8

    def __init__(self, kiosk, form: PlayersScreen, index: int):
        super().__init__(kiosk)
        self.form, self.index = form, index

    @property
    def title(self):
        return Text(N_("Name of player {n}"), {"n": self.index + 1})

    def hints(self):
        return {NEXT: N_("next letter"), UNDO: N_("delete"), OK: N_("type it")}

    def type(self, ch: str) -> None:
        if ch == "\b":
            self.value = self.value[:-1]
            self.note = None
            return
        ch = " " if ch == "␣" else ch
        if not ch.isprintable() or font(12, True).metrics(ch)[0] is None:
            # an emoji or a sign the screen's letters do not have would show as an empty box
            self.note = N_("Left out: the screen cannot show that sign")
            return
        if len(self.value) >= MAX_NAME:
            self.note = Text(N_("At most {n} letters"), {"n": MAX_NAME})
            return
        self.note = None
        self.value += ch if not self.value or self.value.endswith((" ", "-")) else ch.lower()

    def shown_value(self):
        return self.value + "▏", "midleft"

    def done(self):
        name = self.value.strip()
        if not name:
            self.note = N_("Type at least one letter")
            return
        self.form.set_name(self.index, name)
        self.kiosk.stack.pop_to("players")
