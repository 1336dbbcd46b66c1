"""The game's history, newest first, with UNDO to take back the last action."""

from __future__ import annotations

from companion.i18n import N_, Text
from companion.inputs.commands import BACK, NEXT, OK, PREV, UNDO
from companion.play.turns import TurnController
from companion.ui import theme
from companion.ui.canvas import Canvas, Literal
from companion.ui.screen import Screen, screen


@screen("history")
class HistoryScreen(Screen):
    title = N_("History")
    first = 0       # the item shown at the top (NEXT and PREV scroll)

    def items(self):
        s = self.kiosk.session
        if s is None:
            return []
        out = []
        for i in range(len(s.lines) - 1, -1, -1):
            out.append((Literal(f"{i + 1}. "), s.view.history_text(s.lines[i], s, self.kiosk.lang)))
        return out

    def hints(self):
        h = {NEXT: N_("scroll"), OK: N_("back to the game")}
        if self.kiosk.session is not None and self.kiosk.session.lines:
            h[UNDO] = N_("undo the last one")
        return h

    def handle(self, cmd):
        k = self.kiosk
        n = len(self.items())
        if cmd.kind == NEXT:
            self.first = (self.first + 1) % max(1, n)
        elif cmd.kind == PREV:
            self.first = max(0, self.first - 1)
        elif cmd.kind in (OK, BACK):
            self.back()
        elif cmd.kind == UNDO and k.session is not None and k.session.lines:
            s = k.session
            question = Text(N_("Take back: {action}?"), {"action": s.view.history_text(s.lines[-1], s, k.lang)})
            k.stack.push("confirm", question, self.undo)

    def undo(self):
        k = self.kiosk
        # the question stays under the fault screen: a retry that stores closes it, a drop closes it too
        if not TurnController.take_back(k, again=self.undo, dropped=k.stack.pop):
            return
        k.stack.pop()          # the question
        self.back(note=Text(N_("Undone. Put the table back as it was before that action.")))

    def back(self, note=None):
        k = self.kiosk
        k.stack.pop()
        top = k.stack.top
        if top is not None and top.name == "table":
            top.resume(note)
        elif k.session is not None and k.session.in_progress():
            table = k.stack.replace("table") if top is not None and top.name == "score" else k.stack.push("table")
            table.resume(note)

    def draw(self, c: Canvas):
        self.draw_frame(c)
        area = self.content_rect(c)
        items = self.items()
        if not items:
            c.paragraph(N_("Nothing has been played yet."), area, theme.LARGE, theme.MUTED, align="center",
                        valign="middle", role="empty")
            return
        row_h = c.px(44)
        gap = c.px(4)
        fits = max(1, (area.h + gap) // (row_h + gap))
        for j, (num, text) in enumerate(items[self.first:self.first + fits]):
            r = (area.x, area.y + j * (row_h + gap), area.w, row_h)
            newest = self.first + j == 0
            c.box(r, theme.PANEL_HI if newest else theme.PANEL)
            c.text(num, (r[0] + c.px(10), r[1] + row_h // 2), theme.BODY, theme.MUTED, anchor="midleft", role="n")
            c.text(text, (r[0] + c.px(60), r[1] + row_h // 2), theme.BODY, theme.TEXT, bold=newest, anchor="midleft",
                   max_width=area.w - c.px(70), role="history")

