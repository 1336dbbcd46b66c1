"""Drawing helpers the game views share: a card tile, a row of cards with gaps, a grid."""

from __future__ import annotations

import pygame

from companion.cards.model import Card
from companion.i18n import N_
from companion.ui import theme
from companion.ui.canvas import Canvas, Literal, font


def card_tile(c: Canvas, rect: pygame.Rect, card: Card | None, show_year: bool = True, highlight=None,
              role: str = "card") -> None:
    """One card: the period colour along the top (Cronología), the year big, the title small."""
    if card is None:
        c.box(rect, theme.PANEL_HI, radius=6)
        return
    c.box(rect, theme.CARD, radius=6)
    if card.period:
        band = pygame.Rect(rect.x, rect.y, rect.w, max(3, rect.h // 7))
        c.box(band, theme.PERIOD_COLOURS.get(card.period, theme.MUTED), radius=6)
    if highlight is not None:
        c.box(rect.inflate(c.px(6), c.px(6)), highlight, radius=8, width=c.px(4))
    year = card.date(c.lang) if show_year else "?"      # as its printed face writes it: "c. 300,000 BC"
    # the year's part of the tile grows with its width, not its height: a tall tile gives its title room;
    # a tile too low for a title is all year
    top_h = min(rect.h * 0.6, rect.w * 0.84) if rect.h > c.px(46) else rect.h * 0.9
    size = max(10.0, min(28.0, rect.w / c.u / max(3.2, len(year) * 0.62), top_h / c.u * 0.8))
    title_top = _year(c, pygame.Rect(rect.x, rect.y, rect.w, int(top_h)), year, size, role)
    title = card.title_in(c.lang)
    if title and rect.h > c.px(46):
        where = title_room(c, rect, title_top)
        # A title too long for its tile is left to the card itself (and to the verdict, which names it):
        # half a title would read as another card.
        if c.fits(Literal(title), where, TITLE_SIZE):
            c.paragraph(Literal(title), where, TITLE_SIZE, theme.CARD_TEXT, align="center", role="card-title")


TITLE_SIZE = 12


def title_room(c: Canvas, rect: pygame.Rect, title_top: float) -> tuple:
    return rect.x + c.px(3), title_top, rect.w - c.px(6), rect.bottom - title_top - c.px(2)


def _year(c: Canvas, zone: pygame.Rect, year: str, size: float, role: str) -> float:
    """The year in the top ``zone`` of a tile, always whole: on one line if it fits, else its number over
    its era ("44" over "BC") -- a cut "44 …" would read as AD 44. Returns where the title may start."""
    room = zone.w - c.px(4)
    number, _, era = year.partition(" ")
    whole_px = c.fit_size(year, size, True, room)
    number_px = c.fit_size(number, size, True, room)
    # one line while it stays about as big as the number alone would be, or whenever it fits on a tile
    # too low for two lines
    short = zone.h < c.px(30)
    if not era or (font(whole_px, True).size(year)[0] <= room and (short or whole_px >= 0.85 * number_px)):
        c.text(Literal(year), (zone.centerx, zone.y + zone.h * 0.7), size, theme.CARD_TEXT, bold=True,
               anchor="center", max_width=room, role=role)
        return zone.bottom
    top = c.text(Literal(number), (zone.centerx, zone.y + zone.h * 0.6), size, theme.CARD_TEXT, bold=True,
                 anchor="center", max_width=room, role=role)
    low = c.text(Literal(era), (zone.centerx, top.bottom), size * 0.6, theme.CARD_TEXT, bold=True, anchor="midtop",
                 max_width=room, role=role + "-era")
    return low.bottom + c.px(2)


PERIOD_WORDS = {"prehistoria": N_("Prehistory"), "antigua": N_("Ancient history"), "media": N_("Middle Ages"),
                "moderna": N_("Early modern age"), "contemporanea": N_("Late modern age")}


def period_legend(c: Canvas, area: pygame.Rect, cards) -> pygame.Rect:
    """Under cards that carry a period: each period's colour with its name (colour alone is not enough
    to tell them apart), on as many lines as the names need. Returns the room left above it."""
    present = {card.period for card in cards if card is not None and card.period}
    periods = [p for p in PERIOD_WORDS if p in present]
    if not periods:
        return area
    size = theme.SMALL * 0.75
    px = c.px(size)
    gap = c.px(14)
    widths = [c.px(18) + font(px, False).size(c.tr(PERIOD_WORDS[p]))[0] for p in periods]
    lines: list[list[int]] = [[]]
    used = 0
    for i, w in enumerate(widths):
        if lines[-1] and used + gap + w > area.w:
            lines.append([])
            used = 0
        used += (gap if lines[-1] else 0) + w
        lines[-1].append(i)
    h = c.px(22)
    y = area.bottom - h * len(lines)
    for line in lines:
        x = area.x
        for i in line:
            p = periods[i]
            c.box(pygame.Rect(x + c.px(2), y + c.px(5), c.px(12), c.px(12)),
                  theme.PERIOD_COLOURS.get(p, theme.MUTED), radius=2)
            c.text(PERIOD_WORDS[p], (x + c.px(18), y + h // 2), size, theme.TEXT, anchor="midleft",
                   max_width=area.right - x - c.px(18), role="period")
            x += widths[i] + gap
        y += h
    return pygame.Rect(area.x, area.y, area.w, area.h - h * len(lines) - c.px(4))


def row_of_cards(c: Canvas, area: pygame.Rect, cards: list, gap_mark: int | None = None, new_card=None,
                 lines: int | None = None) -> None:
    """The shared row (Timeline, Cronología competitive), wrapped onto lines when it is long. With
    ``gap_mark`` the proposed gap is marked (and the proposed card drawn there, date hidden)."""
    area = period_legend(c, area, cards)
    items: list = list(cards)
    if gap_mark is not None:
        items.insert(gap_mark, "new")
    n = max(1, len(items))
    lines = lines or (1 if n <= 8 else 2 if n <= 18 else 3)
    per_line = -(-n // lines)
    gap = c.px(6)
    w = min(c.px(96), (area.w - gap * (per_line - 1)) // per_line)
    room_h = (area.h - gap * (lines - 1)) // lines
    h = min(int(w * 1.4), room_h)
    w = min(w, int(h / 1.2))
    # taller tiles, while there is room, until every title fits whole (a title that does not is left off)
    titles = [card.title_in(c.lang) for card in items if card != "new" and card is not None]
    while h < min(int(w * 2.2), room_h) and not all(_title_fits(c, w, h, t) for t in titles if t):
        h = min(h + c.px(8), int(w * 2.2), room_h)
    total_h = lines * h + (lines - 1) * gap
    y0 = area.y + (area.h - total_h) // 2
    for i, item in enumerate(items):
        line, pos = divmod(i, per_line)
        count = min(per_line, n - line * per_line)
        x0 = area.centerx - (count * w + (count - 1) * gap) // 2
        r = pygame.Rect(x0 + pos * (w + gap), y0 + line * (h + gap), w, h)
        if item == "new":
            card_tile(c, r, new_card, show_year=False, highlight=theme.OUTLINE_NEW, role="card-new")
        else:
            card_tile(c, r, item)


def _title_fits(c: Canvas, w: int, h: int, title: str) -> bool:
    top = min(h * 0.6, w * 0.84) + c.px(10)            # under the year (its era line included)
    return c.fits(Literal(title), pygame.Rect(title_room(c, pygame.Rect(0, 0, w, h), top)), TITLE_SIZE)


def grid_of_cards(c: Canvas, area: pygame.Rect, rows: list, gaps: list, mark: tuple | None = None,
                  new_card=None) -> None:
    """Cooperative Cronología: 5 fixed rows with 4 gap rows between them (9 rows on the table)."""
    area = period_legend(c, area, [card for row in list(rows) + list(gaps) for card in row])
    nrows = len(rows) + len(gaps)
    cols = len(rows[0]) if rows else 5
    gap = c.px(3)
    h = (area.h - gap * (nrows - 1)) // max(1, nrows)
    w = min((area.w - gap * (cols - 1)) // cols, int(h * 5))     # wide enough for "10000 a. C." on one line
    x0 = area.centerx - (cols * w + (cols - 1) * gap) // 2
    for r in range(nrows):
        y = area.y + r * (h + gap)
        for col in range(cols):
            rect = pygame.Rect(x0 + col * (w + gap), y, w, h)
            if r % 2 == 0:
                card_tile(c, rect, rows[r // 2][col])
            else:
                k = r // 2
                card = gaps[k][col]
                if mark == (k + 1, col + 1):
                    card_tile(c, rect, new_card, show_year=False, highlight=theme.OUTLINE_NEW, role="card-new")
                elif card is None:
                    pygame.draw.rect(c.surface, theme.MUTED, rect.inflate(-c.px(4), -c.px(2)), 1,
                                     border_radius=c.px(4))
                else:
                    card_tile(c, rect, card)
