"""Drawing Exhibition: a card tile, one player's board (the Hall's showcases and the Depot) and the
market of six continent columns. Every size comes from the rectangle given, so the same code draws
the wide strip beside the camera and the taller box beside a question."""

from __future__ import annotations

import pygame

from companion.games.exhibition.board import CONTINENTS, DEPOT
from companion.i18n import N_
from companion.ui import theme
from companion.ui.canvas import MIN_TEXT, Canvas, Literal, font

CONTINENT_COLOURS = theme.CONTINENT_COLOURS
WHITE_CARD = (250, 250, 250)

SHOWCASE_LABELS = {"one_continent": N_("One\nContinent"), "one_era": N_("One Era"), "plain": N_("Plain"),
                   "years_gap": N_("Years\nGap"), "mid_century": N_("Mid-\nCentury")}
OVERLAY_LABELS = {"spread_the_years": N_("Spread\nthe Years"), "links": N_("Links"), "short_era": N_("Short Era"),
                  "one_decade": N_("One\nDecade"), "antiquity": N_("Antiquity"),
                  "unique_decades": N_("Unique\nDecades")}


def _tint(colour, share: float = 0.5):
    return tuple(int(a * share + b * (1 - share)) for a, b in zip(colour, theme.CARD, strict=True))


def card_lines(card) -> tuple[str, str]:
    """The two lines of a tile: the year (or the white card's name) and the continent code."""
    if card.white == "einstein":
        return "E=mc²", "Einstein"
    if card.white == "1945":
        return "1945", "✱"
    return str(card.year), card.continent or ""


def tile(c: Canvas, rect: pygame.Rect, card, highlight=None, role: str = "card") -> None:
    """One card: its continent's colour, the year big and the continent's code (two lines when the
    tile is tall enough, else one). ``None`` is an empty spot."""
    if highlight is not None:
        c.box(rect.inflate(c.px(8), c.px(8)), highlight, radius=8, width=c.px(4))
    if card is None:
        pygame.draw.rect(c.surface, theme.MUTED, rect, max(1, c.px(1)), border_radius=c.px(5))
        return
    colour = WHITE_CARD if card.continent is None else _tint(CONTINENT_COLOURS.get(card.continent, theme.MUTED))
    c.box(rect, colour, radius=5)
    if card.continent is not None:
        band = pygame.Rect(rect.x, rect.y, max(3, c.px(5)), rect.h)
        c.box(band, CONTINENT_COLOURS.get(card.continent, theme.MUTED), radius=3)
    top, bottom = card_lines(card)
    room = rect.w - c.px(7)
    # The Hall and the market hold up to 43 tiles beside each other: at 800x480 their years are under
    # READ_TEXT (the size test lists them as the known exception), never under MIN_TEXT.
    least = MIN_TEXT
    two = rect.h >= c.px(32)
    if two:
        size = min(22.0, rect.h / c.u * 0.48)
        # narrow tiles: plain digits
        bold = font(c.fit_size(top, size, True, room, role, least), True).size(top)[0] <= room
        c.text(Literal(top), (rect.centerx + c.px(2), rect.y + rect.h * 0.3), size, theme.CARD_TEXT, bold=bold,
               anchor="center", max_width=room, role=role, least=least)
        c.text(Literal(bottom), (rect.centerx + c.px(2), rect.y + rect.h * 0.74), max(16.0, min(size, 18.0)),
               theme.CARD_TEXT, anchor="center", max_width=room, role=role + "-continent")
    else:
        one = f"{top} {bottom}" if card.white != "einstein" else bottom
        c.text(Literal(one), (rect.centerx + c.px(2), rect.centery), max(16.0, min(20.0, rect.h / c.u * 0.7)),
               theme.CARD_TEXT, bold=True, anchor="center", max_width=room, role=role, least=least)


def _label(c: Canvas, msgid: str, rect: pygame.Rect, colour=theme.MUTED) -> None:
    c.paragraph(msgid, rect, theme.SMALL * 0.8, colour, bold=True, role="showcase", valign="middle")


def draw_hall(c: Canvas, area: pygame.Rect, exhibit, layout, mark: str | None = None, new_card=None) -> None:
    """The player board as it lies: one row per showcase (its name on the left, an overlay's name
    in its place), the Depot as a column on the right. ``mark`` (a spot name) outlines the spot a
    proposal is about, with ``new_card`` drawn in it."""
    rows = list(layout.spots)
    gap = c.px(3)
    # wide enough for the longest word of a showcase's name at the smallest size ("continente")
    names = [OVERLAY_LABELS[layout.overlay(key)] if layout.overlay(key) else SHOWCASE_LABELS[key] for key, _ in rows]
    widest = max(font(c.px(MIN_TEXT), True).size(word)[0] for name in names for word in c.tr(name).split())
    label_w = min(max(c.px(86), widest + c.px(6)), area.w // 4)
    cols = max(n for _, n in rows)
    th = (area.h - gap * (len(rows) - 1)) // len(rows)
    tw = min(int(th * 1.4), (area.w - label_w - gap * cols - c.px(6)) // (cols + 1))
    for r, (key, n) in enumerate(rows):
        y = area.y + r * (th + gap)
        overlay = layout.overlay(key)
        name = OVERLAY_LABELS[overlay] if overlay else SHOWCASE_LABELS[key]
        _label(c, name, pygame.Rect(area.x, y, label_w - c.px(4), th), theme.INFO if overlay else theme.MUTED)
        spots = exhibit.showcase(key)
        for i in range(n):
            rect = pygame.Rect(area.x + label_w + i * (tw + gap), y, tw, th)
            spot = f"{key}[{i}]"
            if mark == spot:
                tile(c, rect, new_card, theme.OUTLINE_NEW, role="card-new")
            else:
                tile(c, rect, spots[i])
    depot_x = area.x + label_w + cols * (tw + gap) + c.px(6)
    for i, card in enumerate(exhibit.depot):
        rect = pygame.Rect(depot_x, area.y + i * (th + gap), tw, th)
        if mark == f"{DEPOT}[{i}]":
            tile(c, rect, new_card, theme.OUTLINE_NEW, role="card-new")
        else:
            tile(c, rect, card)
    below = area.y + len(exhibit.depot) * (th + gap)
    if below + th <= area.bottom + 1:
        # within the Hall's area: "Depósito" ran into the market beside it
        _label(c, N_("Depot"), pygame.Rect(depot_x - c.px(4), below, min(tw + c.px(40), area.right - depot_x + c.px(4)),
                                           th))


def draw_market(c: Canvas, area: pygame.Rect, state, here: str | None, mark=None) -> None:
    """The six continent columns of three cards, as on the table (the demo's table too). The active
    player's vehicle (``here``) is marked with ▶ and an outline; ``mark``: a card to outline."""
    gap = c.px(4)
    head = c.px(24)
    col_w = (area.w - gap * (len(CONTINENTS) - 1)) // len(CONTINENTS)
    th = (area.h - head - gap * 3) // 3
    for i, k in enumerate(CONTINENTS):
        x = area.x + i * (col_w + gap)
        column = pygame.Rect(x, area.y, col_w, area.h)
        if k == here:
            c.box(column.inflate(c.px(2), c.px(4)), theme.ACCENT, radius=6, width=c.px(2))
        _continent_label(c, k, pygame.Rect(x, area.y, col_w, head), k == here)
        for j, card in enumerate(state.column(k)):
            rect = pygame.Rect(x, area.y + head + gap + j * (th + gap), col_w, th)
            tile(c, rect, card, theme.OUTLINE_NEW if mark is not None and card == mark else None, role="market")


def _continent_label(c: Canvas, k: str, rect: pygame.Rect, here: bool) -> None:
    text = f"▶{k}" if here else k
    c.box(pygame.Rect(rect.x, rect.y + rect.h // 2 - c.px(2), c.px(4), c.px(4)), CONTINENT_COLOURS[k], radius=2)
    c.text(Literal(text), (rect.centerx, rect.centery), theme.SMALL * 0.8, theme.ACCENT if here else theme.TEXT,
           bold=True, anchor="center", max_width=rect.w, role="continent")
