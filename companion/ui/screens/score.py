"""The end-of-game score sheet: who won (or the team's score), and each category in words.

A view with ``score_pages(session)`` > 1 spreads its sheet over pages (the standings, then each
player's categories); NEXT turns the page and ``score_sheet(session, page)`` draws it."""

from __future__ import annotations

import pygame

from companion.i18n import N_, Text
from companion.inputs.commands import BACK, NEXT, OK, UNDO
from companion.ui import theme
from companion.ui.canvas import READ_TEXT, Canvas, font
from companion.ui.screen import Screen, screen


@screen("score")
class ScoreScreen(Screen):
    def __init__(self, kiosk):
        super().__init__(kiosk)
        self.page = 0
        # the sheet as drawn: (the view's page, its first row, the row after its last); a view's page
        # whose rows do not fit at a readable size goes on over more pages of the screen
        self.plan: list[tuple[int, int, int]] = []

    @property
    def title(self):
        pages = self.pages()
        if pages > 1:
            return Text(N_("End of the game ({n}/{count})"), {"n": self.page % pages + 1, "count": pages})
        return N_("End of the game")

    def view_pages(self) -> int:
        session = self.kiosk.session
        count = getattr(session.view, "score_pages", None) if session is not None else None
        return count(session) if count is not None else 1

    def pages(self) -> int:
        return len(self.plan) or self.view_pages()

    def hints(self):
        h = {UNDO: N_("history / undo"), OK: N_("new game")}
        if self.pages() > 1:
            h[NEXT] = N_("next page")
        return h

    def handle(self, cmd):
        k = self.kiosk
        if cmd.kind == OK:
            k.session = None
            k.stack.reset("attract")
            k.stack.push("picker")
        elif cmd.kind in (UNDO, BACK):
            k.stack.push("history")
        elif cmd.kind == NEXT:
            self.page = (self.page + 1) % self.pages()

    def sheet(self, view_page: int):
        session = self.kiosk.session
        if self.view_pages() > 1:
            return session.view.score_sheet(session, view_page)
        return session.view.score_sheet(session)

    def draw(self, c: Canvas):
        session = self.kiosk.session
        if session is None:
            self.draw_frame(c)
            return
        area = self.content_rect(c)
        top = area.y + c.px(52) + c.px(12)
        room = area.bottom - top
        self.plan = []
        for view_page in range(self.view_pages()):
            rows = self.sheet(view_page)[2]
            heights = [_row_height(c, row, area.w) for row in rows]
            first = 0
            while True:
                end, used = first, 0
                while end < len(rows) and (end == first or used + heights[end] <= room):
                    used += heights[end] + c.px(6)
                    end += 1
                self.plan.append((view_page, first, end))
                if end >= len(rows):
                    break
                first = end
        self.page %= len(self.plan)
        view_page, first, end = self.plan[self.page]
        self.draw_frame(c)
        area = self.content_rect(c)
        headline, good, rows = self.sheet(view_page)
        colour = theme.CORRECT if good else theme.WRONG
        mark_r = c.px(26)
        if good:
            c.tick_mark((area.x + mark_r, area.y + mark_r), mark_r)
        else:
            c.cross_mark((area.x + mark_r, area.y + mark_r), mark_r)
        c.paragraph(headline, (area.x + mark_r * 2 + c.px(14), area.y, area.w - mark_r * 2 - c.px(14), mark_r * 2),
                    theme.TITLE, colour, bold=True, role="headline", valign="middle")
        y = area.y + mark_r * 2 + c.px(12)
        for row in rows[first:end]:
            row_h = _row_height(c, row, area.w)
            r = pygame.Rect(area.x, y, area.w, row_h)
            y += row_h + c.px(6)
            c.box(r, theme.PANEL_HI if row.highlight else theme.PANEL)
            line = pygame.Rect(r.x, r.y, r.w, c.px(LINE))
            c.text(_lit(row.value), (r.right - c.px(16), line.centery), theme.LARGE, bold=True,
                   anchor="midright", max_width=c.px(VALUE_W), role="score-value")
            c.text(row.label, (r.x + c.px(12), line.centery), theme.BODY, theme.ACCENT if row.highlight else theme.TEXT,
                   bold=True, anchor="midleft", max_width=r.w - c.px(VALUE_W + 40), role="score-label")
            if row.explain:
                c.paragraph(row.explain, _explain_rect(c, r), READ_TEXT, theme.TEXT, role="score-explain")


LINE = 40          # reference px: a row's line (its label and its points)
VALUE_W = 120      # reference px: the points' room at the right of that line


def _explain_rect(c: Canvas, r: pygame.Rect) -> pygame.Rect:
    return pygame.Rect(r.x + c.px(12), r.y + c.px(LINE - 4), r.w - c.px(24), r.h - c.px(LINE))


def _row_height(c: Canvas, row, width: int) -> int:
    """A row: its label and points on a line, then its explanation, whole, at the readable size."""
    if not row.explain:
        return c.px(LINE)
    px = c.px(READ_TEXT)
    lines = len(c.wrap(c.tr(row.explain), px, False, width - c.px(24), hyphens=True))
    return c.px(LINE) + lines * font(px, False).get_linesize() + c.px(2)


def _lit(value):
    from companion.ui.canvas import Literal
    return value if isinstance(value, Text) else Literal(str(value))
