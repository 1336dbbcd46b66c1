"""The attract loop: an idle café table says what the companion does and how to start."""

from __future__ import annotations

import math

import pygame

from companion.cards.model import year_label
from companion.i18n import N_
from companion.inputs.commands import NEXT, OK
from companion.ui import theme
from companion.ui.canvas import Canvas, Literal
from companion.ui.games._draw import year_face
from companion.ui.screen import Screen, draw_hints, screen

SLIDES = [
    (N_("Lay your cards on the table"), N_("A camera above the table reads the small code on every card.")),
    (N_("Right or wrong, at once"),
     N_("Place a card in the row: the companion tells everyone if it is in the right place, and why.")),
    (N_("Turns, rounds and scores"),
     N_("It keeps whose turn it is, the cards in every hand, sudden death and the final score.")),
]
SLIDE_SECONDS = 6.0
DEMO_YEARS = [-753, 1066, 1492, 1969]


@screen("attract")
class AttractScreen(Screen):
    def __init__(self, kiosk):
        super().__init__(kiosk)
        self.t0 = kiosk.clock()
        self.now = self.t0

    def hints(self):
        resume = self.kiosk.game_in_progress()
        return {NEXT: N_("Español") if self.kiosk.lang == "en" else N_("English"),
                OK: N_("continue the game") if resume else N_("start")}

    def handle(self, cmd):
        if cmd.kind == NEXT:
            self.kiosk.set_language("es" if self.kiosk.lang == "en" else "en")
        elif cmd.kind == OK:
            if self.kiosk.game_in_progress():
                self.kiosk.stack.push("table")
            else:
                self.kiosk.stack.push("picker")

    def update(self, now):
        self.now = now

    @property
    def phase(self) -> str:
        return str(self.slide())

    def slide(self) -> int:
        return int((self.now - self.t0) // SLIDE_SECONDS) % len(SLIDES)

    def draw(self, c: Canvas):
        c.fill(theme.BG)
        c.text(N_("Table Companion"), (c.w // 2, c.px(44)), theme.HUGE * 0.8, theme.ACCENT, bold=True,
               anchor="center", max_width=c.w - c.px(40), role="title")
        head, body = SLIDES[self.slide()]
        c.text(head, (c.w // 2, c.px(112)), theme.TITLE, bold=True, anchor="center", max_width=c.w - c.px(40),
               role="slide")
        c.paragraph(body, (c.px(40), c.px(136), c.w - c.px(80), c.px(66)), theme.BODY * 0.9, theme.MUTED,
                    align="center", role="slide-body")
        self.draw_cards(c, pygame.Rect(c.px(60), c.px(236), c.w - c.px(120), c.px(96)))
        pulse = 0.5 + 0.5 * math.sin((self.now - self.t0) * 3)
        colour = tuple(int(a + (b - a) * pulse) for a, b in zip(theme.TEXT, theme.ACCENT, strict=True))
        prompt = N_("Press OK to continue the game") if self.kiosk.game_in_progress() else N_("Press OK to start")
        c.text(prompt, (c.w // 2, c.px(385)), theme.TITLE, colour, bold=True, anchor="center",
               max_width=c.w - c.px(40), role="prompt")
        draw_hints(c, self.button_hints())

    def draw_cards(self, c: Canvas, area: pygame.Rect):
        """A little row of cards: one slides into its gap and is ticked (the whole idea in a picture)."""
        n = len(DEMO_YEARS)
        card_w = min(c.px(110), area.w // (n + 2))
        card_h = min(area.h, int(card_w * 1.35))
        gap = c.px(18)
        total = n * card_w + (n - 1) * gap
        x0 = area.centerx - total // 2
        t = (self.now - self.t0) % SLIDE_SECONDS / SLIDE_SECONDS
        drop = max(0.0, 1 - t * 2.5)
        for i, year in enumerate(DEMO_YEARS):
            x = x0 + i * (card_w + gap)
            y = area.y + (area.h - card_h) // 2
            if i == 2:
                y -= int(drop * c.px(40))
            r = pygame.Rect(x, y, card_w, card_h)
            c.box(r, theme.CARD, radius=8)
            # "753 BC" on one line if it fits, else its number over its era, as big as each other
            lines, _, bold = year_face(c, year_label(year, c.lang), card_w - c.px(4))
            line_h = c.px(30)
            for j, line in enumerate(lines):
                c.text(Literal(line), (r.centerx, r.centery + (j - (len(lines) - 1) / 2) * line_h), theme.BODY,
                       theme.CARD_TEXT, bold=bold, anchor="center", max_width=card_w - c.px(8),
                       role="card" if j == 0 else "card-era")
            if i == 2 and drop == 0:
                c.tick_mark((r.right - c.px(4), r.top + c.px(4)), c.px(18))

