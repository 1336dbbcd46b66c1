"""The whole row of a row game (Timeline, Cronología competitive), a page at a time: the table view
shows the part around the last card when the row is too long for it; here the players check every
card the kiosk judges against, in reading order, each year whole at the readable size."""

from __future__ import annotations

from companion.i18n import N_, NP_, Plural, Text
from companion.inputs.commands import BACK, NEXT, OK, PREV, UNDO
from companion.ui.canvas import Canvas
from companion.ui.screen import Screen, screen


@screen("row")
class RowScreen(Screen):
    page = 0
    cards, per_page = 0, 1        # as the last frame laid them out

    @property
    def pages(self) -> int:
        return max(1, -(-self.cards // self.per_page))

    @property
    def title(self):
        if self.pages == 1:
            one, more = NP_("The row, left to right: 1 card", "The row, left to right: {n} cards")
            return Plural(one, {"n": self.cards}, plural=more)
        first = self.page * self.per_page
        return Text(N_("The row, left to right: cards {first}–{last} of {n}"),
                    {"first": first + 1, "last": min(self.cards, first + self.per_page), "n": self.cards})

    def hints(self):
        h = {OK: N_("back to the game"), UNDO: N_("back to the game")}
        if self.pages > 1:
            h[NEXT] = N_("next page")
        return h

    def handle(self, cmd):
        if cmd.kind == NEXT:
            self.page = (self.page + 1) % self.pages
        elif cmd.kind == PREV:
            self.page = (self.page - 1) % self.pages
        elif cmd.kind in (OK, UNDO, BACK):
            self.kiosk.stack.pop()

    def draw(self, c: Canvas):
        session = self.kiosk.session
        area = self.content_rect(c)
        if session is None:
            self.draw_frame(c)
            return
        self.cards, self.per_page = session.view.row_pages(c, area, session)
        self.page %= self.pages
        self.draw_frame(c)
        session.view.draw_row_page(c, area, session, self.page * self.per_page, self.per_page)
