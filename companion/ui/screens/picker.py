"""The game picker: the games whose views are registered and whose engines are installed."""

from __future__ import annotations

from companion.i18n import N_
from companion.inputs.commands import BACK, NEXT, OK, PREV, UNDO
from companion.ui import theme
from companion.ui.canvas import Canvas
from companion.ui.games import available_views
from companion.ui.screen import ListChoice, Screen, screen


@screen("picker")
class PickerScreen(Screen):
    title = N_("Which game?")

    def __init__(self, kiosk):
        super().__init__(kiosk)
        self.views = available_views()
        self.choice = ListChoice([(v.title, v) for v in self.views])

    def hints(self):
        return {NEXT: N_("next game"), UNDO: N_("back"), OK: N_("choose")}

    @property
    def phase(self):
        return self.views[self.choice.focus].key if self.views else ""

    def handle(self, cmd):
        if cmd.kind in (UNDO, BACK):
            self.kiosk.stack.pop()
            return
        if cmd.kind in (NEXT, PREV, OK):
            view = self.choice.handle(cmd)
            if view is not None:
                self.kiosk.stack.push("players", view)

    def draw(self, c: Canvas):
        self.draw_frame(c)
        area = self.content_rect(c)
        list_w = int(area.w * 0.5)
        self.choice.draw(c, (area.x, area.y, list_w, area.h), theme.LARGE)
        if self.views:
            view = self.views[self.choice.focus]
            x = area.x + list_w + c.px(16)
            box = c.box((x, area.y, area.right - x, area.h), theme.PANEL)
            c.text(view.title, (box.x + c.px(14), box.y + c.px(12)), theme.LARGE, theme.ACCENT, bold=True,
                   max_width=box.w - c.px(28), role="game")
            c.paragraph(view.blurb, (box.x + c.px(14), box.y + c.px(60), box.w - c.px(28), box.h - c.px(72)),
                        theme.BODY, role="blurb")
