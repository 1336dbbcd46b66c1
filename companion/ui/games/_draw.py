"""Drawing helpers the game views share: a card tile, a row of cards with gaps, a grid."""

from __future__ import annotations

import pygame

from companion.cards.model import Card
from companion.i18n import N_, Text
from companion.ui import theme
from companion.ui.canvas import READ_TEXT, Canvas, Literal, font
from companion.words import NBSP

YEAR_SIZE = 28    # reference px: a card's year, never under READ_TEXT, its era (BC) as big as its number
TITLE_SIZE = READ_TEXT


def card_tile(c: Canvas, rect: pygame.Rect, card: Card | None, show_year: bool = True, highlight=None,
              role: str = "card", title: bool = True) -> None:
    """One card: the period colour along the top (Cronología), the year, the title under it (``title``:
    when the tile has room for it; see tile_height)."""
    if card is None:
        c.box(rect, theme.PANEL_HI, radius=6)
        return
    c.box(rect, theme.CARD, radius=6)
    band = _band(c, rect.h)
    if card.period:
        c.box(pygame.Rect(rect.x, rect.y, rect.w, band), theme.PERIOD_COLOURS.get(card.period, theme.MUTED),
              radius=6)
    if highlight is not None:
        c.box(rect.inflate(c.px(6), c.px(6)), highlight, radius=8, width=c.px(4))
    year = card.date(c.lang) if show_year else "?"      # as its printed face writes it: "c. 300,000 BC"
    lines, px, bold = year_face(c, year, rect.w, title)
    line_h = font(px, bold).get_linesize()
    y = rect.y + band + (c.px(2) if title else max(0, (rect.h - band - line_h * len(lines)) // 2))
    for i, line in enumerate(lines):
        c.text(Literal(line), (rect.centerx, y), px / c.u, theme.CARD_TEXT, bold=bold, anchor="midtop",
               max_width=rect.w - c.px(4), role=role if i == 0 else role + "-era")
        y += line_h
    name = card.title_in(c.lang)          # a proposed card's title shows (it is on its face), not its year
    if title and name:
        where = pygame.Rect(rect.x + c.px(3), y + c.px(2), rect.w - c.px(6), rect.bottom - y - c.px(4))
        # whole or not at all: a title cut short reads as another card (the title is on the card's face)
        if c.fits(Literal(name), where, TITLE_SIZE, role="card-title"):
            c.paragraph(Literal(name), where, TITLE_SIZE, theme.CARD_TEXT, align="center", role="card-title")


def _band(c: Canvas, h: int) -> int:
    return max(3, min(c.px(10), h // 9))


def year_face(c: Canvas, year: str, width: int, title: bool = True) -> tuple[list[str], int, bool]:
    """How a year is drawn on a tile ``width`` wide: its lines, its size in px and whether bold. The
    first way that fits whole at the readable size: on one line; its number over its era ("44" over
    "BC", as big as each other: a cut "44 …", or a tiny "BC", reads as AD 44); "c." over the number
    over the era; each bold, else in the narrower regular weight. The size grows to YEAR_SIZE over a
    title while it fits. A tile too narrow for all of them (:func:`year_fits`) draws the last, cut."""
    room = width - c.px(4)
    number, _, era = year.partition(" ")            # the one plain space is before the era
    head, sep, digits = number.partition(NBSP)
    ways = [[year]] + ([[number, era]] if era else [])
    if sep and head.endswith("."):                  # "c.\u00a03,200,000" (Spanish "h."): the "c." may go above
        ways.append([head, digits] + ([era] if era else []))
    for bold in (True, False):
        for lines in ways:
            px = c.px(READ_TEXT)
            if max(font(px, bold).size(line)[0] for line in lines) > room:
                continue
            top = c.px(YEAR_SIZE if title else READ_TEXT)
            while px < top and max(font(px + 1, bold).size(line)[0] for line in lines) <= room:
                px += 1
            return lines, px, bold
    return ways[-1], c.px(READ_TEXT), False


def year_fits(c: Canvas, card: Card | None, width: int, show_year: bool = True) -> bool:
    """Whether a tile ``width`` wide shows this card's year whole at the readable size."""
    if card is None or not show_year:
        return True
    lines, px, bold = year_face(c, card.date(c.lang), width)
    return max(font(px, bold).size(line)[0] for line in lines) <= width - c.px(4)


def tile_height(c: Canvas, width: int, card: Card | None, show_year: bool = True, title: bool = True) -> int:
    """How tall a tile of ``width`` must be to show its year (and, with ``title``, its title) whole at
    the readable size."""
    if card is None:
        return c.px(READ_TEXT + 8)
    year = card.date(c.lang) if show_year else "?"      # as its printed face writes it: "c. 300,000 BC"
    lines, px, bold = year_face(c, year, width, title)
    h = font(px, bold).get_linesize() * len(lines) + c.px(4)
    name = card.title_in(c.lang)
    if title and name:
        px = c.px(TITLE_SIZE)
        h += font(px, False).get_linesize() * len(c.wrap(name, px, False, width - c.px(6), hyphens=True)) + c.px(6)
        return h + c.px(10)
    return h + c.px(4)


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
                 focus: int | None = None) -> None:
    """The shared row (Timeline, Cronología competitive): every card with its year and title whole at
    the readable size. A row longer than the board shows the part around the proposed gap
    (``gap_mark``, where the proposed card is drawn, date hidden) or around ``focus`` (the card just
    placed), and says at each end how many cards are left out there."""
    area = period_legend(c, area, cards)
    items: list = list(cards)
    if gap_mark is not None:
        items.insert(gap_mark, "new")
        focus = gap_mark
    n = len(items)
    if not n:
        return
    gap = c.px(6)
    more_w = c.px(44)
    # the most tiles side by side whose years and titles all fit whole
    for count in range(min(n, max(1, (area.w + gap) // (c.px(100) + gap))), 0, -1):
        room = area.w - (2 * (more_w + gap) if count < n else 0)
        w = min(c.px(150), (room - gap * (count - 1)) // count)
        start = _window(n, count, focus)
        shown = items[start:start + count]
        h = max(tile_height(c, w, new_card if item == "new" else item, item != "new") for item in shown)
        whole = all(year_fits(c, item, w) for item in shown if item != "new")
        if (h <= area.h and whole) or count == 1:
            break
    h = min(h, area.h)
    x0 = area.centerx - (count * w + (count - 1) * gap) // 2
    y0 = area.y + (area.h - h) // 2
    for pos, item in enumerate(shown):
        r = pygame.Rect(x0 + pos * (w + gap), y0, w, h)
        if item == "new":
            card_tile(c, r, new_card, show_year=False, highlight=theme.OUTLINE_NEW, role="card-new")
        else:
            card_tile(c, r, item)
    if start:
        _more(c, pygame.Rect(x0 - gap - more_w, y0, more_w, h), start, "◀")
    if start + count < n:
        _more(c, pygame.Rect(x0 + count * (w + gap), y0, more_w, h), n - start - count, "▶")


def _window(n: int, count: int, focus: int | None) -> int:
    """Where a window of ``count`` of ``n`` items starts: around ``focus``, else at the end (the newest
    cards of a row usually lie around its middle, so the end is as good as any and steady)."""
    if focus is None:
        return max(0, n - count) // 2
    return max(0, min(n - count, focus - count // 2))


def _more(c: Canvas, rect: pygame.Rect, hidden: int, arrow: str) -> None:
    """How many cards lie beyond this end of the screen's part of the row."""
    c.box(rect, theme.PANEL_HI, radius=6)
    c.text(Literal(arrow), (rect.centerx, rect.centery - c.px(18)), 20, theme.ACCENT, anchor="center", role="more")
    c.text(Literal(f"+{hidden}"), (rect.centerx, rect.centery + c.px(12)), READ_TEXT, theme.TEXT, bold=True,
           anchor="center", max_width=rect.w, role="more")


def grid_of_cards(c: Canvas, area: pygame.Rect, rows: list, gaps: list, mark: tuple | None = None,
                  new_card=None) -> None:
    """Cooperative Cronología: 5 fixed rows with 4 gap rows between them (9 rows on the table), each
    year whole at the readable size. A grid taller than the board shows the rows around the proposed
    gap (``mark``: gap row, column) and says above and below how many rows are left out."""
    area = period_legend(c, area, [card for row in list(rows) + list(gaps) for card in row])
    lines = [row for pair in zip(rows, list(gaps) + [None], strict=False) for row in pair if row is not None]
    nrows = len(lines)
    cols = len(rows[0]) if rows else 5
    gap = c.px(2)
    w = (area.w - gap * (cols - 1)) // cols
    heights = [max(tile_height(c, w, card, title=False) if card is not None else c.px(12) for card in line)
               for line in lines]
    if mark is not None:
        heights[2 * mark[0] - 1] = max(heights[2 * mark[0] - 1], tile_height(c, w, new_card, False, title=False))
    focus = 2 * mark[0] - 1 if mark is not None else None
    more_h = c.px(26)
    first, last = 0, nrows
    while sum(heights[first:last]) + gap * (last - first - 1) + (more_h + gap) * ((first > 0) + (last < nrows)) \
            > area.h and last - first > 1:
        # drop the row farthest from the focus (the gap proposed, else the last rows)
        if focus is not None and focus - first > last - 1 - focus:
            first += 1
        else:
            last -= 1
    x0 = area.centerx - (cols * w + (cols - 1) * gap) // 2
    y = area.y
    if first:
        _more_rows(c, pygame.Rect(x0, y, cols * w + (cols - 1) * gap, more_h), first, "▲")
        y += more_h + gap
    for r in range(first, last):
        for col in range(cols):
            rect = pygame.Rect(x0 + col * (w + gap), y, w, heights[r])
            card = lines[r][col]
            if r % 2 and mark == (r // 2 + 1, col + 1):
                card_tile(c, rect, new_card, show_year=False, highlight=theme.OUTLINE_NEW, role="card-new",
                          title=False)
            elif card is None:
                if r % 2:
                    pygame.draw.rect(c.surface, theme.MUTED, rect.inflate(-c.px(4), -c.px(2)), 1,
                                     border_radius=c.px(4))
            else:
                card_tile(c, rect, card, title=False)
        y += heights[r] + gap
    if last < nrows:
        _more_rows(c, pygame.Rect(x0, y, cols * w + (cols - 1) * gap, more_h), nrows - last, "▼")


def _more_rows(c: Canvas, rect: pygame.Rect, hidden: int, arrow: str) -> None:
    msgid = N_("{arrow} 1 more row on the table") if hidden == 1 else N_("{arrow} {n} more rows on the table")
    c.text(Text(msgid, {"arrow": arrow, "n": hidden}), rect.center, 20, theme.TEXT, anchor="center",
           max_width=rect.w, role="more")
