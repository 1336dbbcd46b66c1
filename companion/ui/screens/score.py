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
        # the sheet as drawn (see plan_pages)
        self.plan: list[tuple[int, int, int, frozenset, int]] = []

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

    def plan_pages(self, c: Canvas) -> list[tuple[int, int, int, frozenset, int]]:
        """The sheet as the screen shows it: (the view's page, its first row, the row after its last,
        the rows shown without their explanation, columns). A view's page is one screen page: its rows
        whole where they fit, else the longest explanations left out, one by one, until they fit; else
        every row's label and points in two columns; only rows too many even for that go on over more
        pages."""
        area = self.content_rect(c)
        room = area.bottom - (area.y + c.px(52) + c.px(12))
        gap = c.px(6)
        plan = []
        for view_page in range(self.view_pages()):
            rows = self.sheet(view_page)[2]
            full = [_row_height(c, row, area.w) for row in rows]
            brief: set[int] = set()

            def height(brief=brief, full=full, rows=rows) -> int:
                return sum(c.px(LINE) if j in brief else full[j] for j in range(len(rows))) + gap * len(rows)

            for i in sorted(range(len(rows)), key=lambda i: -full[i]):     # the longest words first
                if height() <= room:
                    break
                brief.add(i)
            if height() <= room or not rows:
                plan.append((view_page, 0, len(rows), frozenset(brief), 1))
                continue
            per_page = max(1, room // (c.px(LINE) + gap)) * 2
            for first in range(0, len(rows), per_page):
                plan.append((view_page, first, min(len(rows), first + per_page), frozenset(range(len(rows))), 2))
        return plan

    def draw(self, c: Canvas):
        session = self.kiosk.session
        if session is None:
            self.draw_frame(c)
            return
        self.plan = self.plan_pages(c)
        self.page %= len(self.plan)
        view_page, first, end, brief, columns = self.plan[self.page]
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
        top = area.y + mark_r * 2 + c.px(12)
        gap = c.px(6)
        col_w = (area.w - gap * (columns - 1)) // columns
        per_column = -(-(end - first) // columns)
        y = top
        for n, (i, row) in enumerate(enumerate(rows[first:end], first)):
            column, at = divmod(n, per_column)
            if at == 0:
                y = top
            explain = None if i in brief else row.explain
            row_h = _row_height(c, row, col_w) if explain else c.px(LINE)
            r = pygame.Rect(area.x + column * (col_w + gap), y, col_w, row_h)
            y += row_h + gap
            c.box(r, theme.PANEL_HI if row.highlight else theme.PANEL)
            line = pygame.Rect(r.x, r.y, r.w, c.px(LINE))
            value = c.text(_lit(row.value), (r.right - c.px(16), line.centery), theme.LARGE, bold=True,
                           anchor="midright", max_width=c.px(VALUE_W), role="score-value")
            label = c.text(row.label, (r.x + c.px(12), line.centery), theme.BODY,
                           theme.ACCENT if row.highlight else theme.TEXT, bold=True, anchor="midleft",
                           max_width=value.x - r.x - c.px(24), role="score-label")
            if explain and _inline(c, row, col_w):
                c.text(explain, (label.right + c.px(16), line.centery), READ_TEXT, theme.TEXT, anchor="midleft",
                       max_width=value.x - label.right - c.px(24), role="score-explain")
            elif explain:
                c.paragraph(explain, _explain_rect(c, r), READ_TEXT, theme.TEXT, role="score-explain")

LINE = 40          # reference px: a row's line (its label and its points)
VALUE_W = 120      # reference px: the points' room at the right of that line


def _explain_rect(c: Canvas, r: pygame.Rect) -> pygame.Rect:
    return pygame.Rect(r.x + c.px(12), r.y + c.px(LINE - 4), r.w - c.px(24), r.h - c.px(LINE))


def _inline(c: Canvas, row, width: int) -> bool:
    """Whether the row's explanation fits on its label's line, between the label and the points."""
    label = font(c.px(theme.BODY), True).size(c.tr(row.label))[0]
    value = font(c.px(theme.LARGE), True).size(c.tr(_lit(row.value)))[0]
    words = font(c.px(READ_TEXT)).size(c.tr(row.explain))[0]
    return c.px(12) + label + c.px(16) + words + c.px(24) + value + c.px(16) <= width


def _row_height(c: Canvas, row, width: int) -> int:
    """A row: its label and points on a line, then its explanation, whole, at the readable size (on the
    same line where it fits there)."""
    if not row.explain or _inline(c, row, width):
        return c.px(LINE)
    px = c.px(READ_TEXT)
    lines = len(c.wrap(c.tr(row.explain), px, False, width - c.px(24), hyphens=True))
    return c.px(LINE) + lines * font(px, False).get_linesize() + c.px(2)


def _lit(value):
    from companion.ui.canvas import Literal
    return value if isinstance(value, Text) else Literal(str(value))
