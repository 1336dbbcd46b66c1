"""The end-of-game score sheet: who won (or the team's score), and each category in words.

A view with ``score_pages(session)`` > 1 spreads its sheet over pages (the standings, then each
player's categories); NEXT turns the page and ``score_sheet(session, page)`` draws it."""

from __future__ import annotations

import pygame

from companion.i18n import N_, Text
from companion.inputs.commands import BACK, NEXT, OK, UNDO
from companion.ui import theme
from companion.ui.canvas import Canvas
from companion.ui.screen import Screen, screen


@screen("score")
class ScoreScreen(Screen):
    name = "score"
    def __init__(self, kiosk):
        super().__init__(kiosk)
        self.page = 0

    @property
    def title(self):
        pages = self.pages()
        if pages > 1:
            return Text(N_("End of the game ({n}/{count})"), {"n": self.page % pages + 1, "count": pages})
        return N_("End of the game")

    def pages(self) -> int:
        session = self.kiosk.session
        count = getattr(session.view, "score_pages", None) if session is not None else None
        return count(session) if count is not None else 1

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

    def draw(self, c: Canvas):
        self.draw_frame(c)
        session = self.kiosk.session
        area = self.content_rect(c)
        if session is None:
            return
        if self.pages() > 1:
            headline, good, rows = session.view.score_sheet(session, self.page % self.pages())
        else:
            headline, good, rows = session.view.score_sheet(session)
        colour = theme.CORRECT if good else theme.WRONG
        mark_r = c.px(26)
        if good:
            c.tick_mark((area.x + mark_r, area.y + mark_r), mark_r)
        else:
            c.cross_mark((area.x + mark_r, area.y + mark_r), mark_r)
        c.paragraph(headline, (area.x + mark_r * 2 + c.px(14), area.y, area.w - mark_r * 2 - c.px(14), mark_r * 2),
                    theme.TITLE, colour, bold=True, role="headline", valign="middle")
        top = area.y + mark_r * 2 + c.px(12)
        if not rows:
            return
        gap = c.px(6)
        value_w = c.px(150)
        label_w = int(area.w * 0.34)
        explain_w = area.w - label_w - value_w - c.px(18)
        heights = _row_heights(c, rows, explain_w, area.bottom - top - gap * (len(rows) - 1))
        y = top
        for row, row_h in zip(rows, heights, strict=True):
            r = pygame.Rect(area.x, y, area.w, row_h)
            y += row_h + gap
            c.box(r, theme.PANEL_HI if row.highlight else theme.PANEL)
            c.text(row.label, (r.x + c.px(12), r.centery), theme.BODY, theme.ACCENT if row.highlight else theme.TEXT,
                   bold=True, anchor="midleft", max_width=label_w - c.px(12), role="score-label")
            c.text(_lit(row.value), (r.x + label_w + value_w // 2, r.centery), theme.LARGE, bold=True,
                   anchor="center", max_width=value_w, role="score-value")
            if row.explain:
                x = r.x + label_w + value_w + c.px(8)
                c.paragraph(row.explain, (x, r.y + c.px(4), r.right - x - c.px(10), r.h - c.px(8)), theme.SMALL,
                            theme.MUTED, role="score-explain", valign="middle")


def _row_heights(c: Canvas, rows, explain_w: int, room: int) -> list[int]:
    """Each row as tall as its explanation needs at the small size (at least the usual row), as long
    as the sheet fits; otherwise an equal share each (the explanations then shrink)."""
    from companion.ui.canvas import font
    base = c.px(64)
    px = c.px(theme.SMALL)
    line_h = font(px, False).get_linesize()
    want = [max(base, len(c.wrap(c.tr(r.explain), px, False, explain_w)) * line_h + c.px(10)) if r.explain else base
            for r in rows]
    if sum(want) <= room:
        return want
    if len(rows) * base > room:
        return [room // len(rows)] * len(rows)
    # the rows that need more share what the usual rows leave
    spare, extra = room - len(rows) * base, [w - base for w in want]
    return [base + e * spare // sum(extra) for e in extra]


def _lit(value):
    from companion.ui.canvas import Literal
    return value if isinstance(value, Text) else Literal(str(value))
