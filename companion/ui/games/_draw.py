"""Drawing helpers the game views share: a card tile, a row of cards with gaps, a grid."""

from __future__ import annotations

from dataclasses import dataclass

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
    ways = _year_ways(year)
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


def _year_ways(year: str) -> list[list[str]]:
    """The ways a year may be laid on a tile, widest first (see year_face)."""
    number, _, era = year.partition(" ")            # the one plain space is before the era
    head, sep, digits = number.partition(NBSP)
    ways = [[year]] + ([[number, era]] if era else [])
    if sep and head.endswith("."):                  # "c.\u00a03,200,000" (Spanish "h."): the "c." may go above
        ways.append([head, digits] + ([era] if era else []))
    return ways


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


def row_items(cards: list, gap_mark: int | None, focus: int | None) -> tuple[list, int | None]:
    """A row's cards with the proposed card (``"new"``) in its gap, and the place to show first (the
    proposed gap, else ``focus``)."""
    items: list = list(cards)
    if gap_mark is not None:
        items.insert(gap_mark, "new")
        focus = gap_mark
    return items, focus


def row_of_cards(c: Canvas, area: pygame.Rect, cards: list, gap_mark: int | None = None, new_card=None,
                 focus: int | None = None, legend: bool = True) -> None:
    """The shared row (Timeline, Cronología competitive), every year whole at the readable size: the
    whole row with its titles on one line of tiles if it fits; else the whole row, years first (titles
    dropped before years), on as many lines of tiles as it needs; else (a row too long for the board)
    the part around the proposed gap (``gap_mark``, where the proposed card is drawn, date hidden) or
    around ``focus`` (the card just placed), saying at each end how many cards are left out there (the
    whole row is on its own screen, a page at a time: :func:`row_page`). ``legend``: the periods'
    colours named under the row (Cronología's icons count by period; Timeline has no use for them)."""
    if legend:
        area = period_legend(c, area, cards)
    items, focus = row_items(cards, gap_mark, focus)
    n = len(items)
    if not n:
        return
    tiles = _tiles(c, area, items, new_card)
    if tiles.capacity >= n:
        _draw_tiles(c, area, tiles, items, new_card)
        return
    count = tiles.capacity
    while True:   # the window and its "more" marks, each mark in the place of a tile
        start = _window(n, count, focus)
        marks = (start > 0) + (start + count < n)
        if count + marks <= tiles.capacity or count == 1:
            break
        count -= 1
    shown: list = (["before"] if start else []) + items[start:start + count] + (["after"] if start + count < n else [])
    _draw_tiles(c, area, tiles, shown, new_card, hidden={"before": start, "after": n - start - count})


def row_capacity(c: Canvas, area: pygame.Rect, cards: list) -> int:
    """How many cards of the row a page of ``area`` shows whole, years first (see :func:`row_page`)."""
    return max(1, _tiles(c, area, cards, None).capacity) if cards else 1


def row_page(c: Canvas, area: pygame.Rect, cards: list, first: int, count: int) -> None:
    """A page of the row on a screen of its own: ``count`` cards from ``first`` (counting from 0), in
    reading order, each year whole at the readable size (their titles too where the page has room)."""
    shown = cards[first:first + count]
    if shown:
        _draw_tiles(c, area, _tiles(c, area, shown, None), shown, None)


@dataclass
class _Tiles:
    """How a row's tiles lie on the board: ``per_line`` tiles ``w`` wide on ``lines`` lines, with or
    without their titles; each line as tall as its tallest tile."""
    w: int
    per_line: int
    lines: int
    title: bool

    @property
    def capacity(self) -> int:
        return self.per_line * self.lines


def _tiles(c: Canvas, area: pygame.Rect, items: list, new_card) -> _Tiles:
    """The first way that shows every item: titled tiles on one line, then tiles with their years
    only, on one line or more; else, as many years-only tiles as fit (a part of the row)."""
    gap = c.px(6)
    faces = [(new_card, False) if item == "new" else (item, True) for item in items]
    n = len(items)
    # titled tiles, side by side (a title wraps over a narrow tile and soon makes it too tall)
    w = min(c.px(150), (area.w - gap * (n - 1)) // n)
    if w >= c.px(100) and all(year_fits(c, card, w, shown) for card, shown in faces):
        if max(tile_height(c, w, card, shown) for card, shown in faces) <= area.h:
            return _Tiles(w, n, 1, True)
    # years only: the narrowest tile every year fits whole in; the lines as even as they can be (a
    # row runs in date order, so its "c." and BC years, the tallest, share the first lines)
    need = max(_year_width(c, card, shown) for card, shown in faces)
    most = max(1, min(n, (area.w + gap) // (need + gap)))      # the most tiles a line holds
    for per_line in (-(-n // -(-n // most)), most):
        w = min(c.px(150), (area.w - gap * (per_line - 1)) // per_line)
        heights = [tile_height(c, w, card, shown, title=False) for card, shown in faces]
        lines = [max(heights[i:i + per_line]) for i in range(0, n, per_line)]
        if sum(lines) + gap * (len(lines) - 1) <= area.h:
            return _Tiles(w, per_line, len(lines), False)
    # too long for the board: as many full lines as fit, whichever part of the row they show
    return _Tiles(w, most, max(1, (area.h + gap) // (max(heights) + gap)), False)


def _year_width(c: Canvas, card: Card | None, shown: bool = True) -> int:
    """The narrowest tile that shows this card's year whole at the readable size (see year_face)."""
    year = card.date(c.lang) if card is not None and shown else "?"
    px = c.px(READ_TEXT)
    return min(max(font(px, bold).size(line)[0] for line in lines)
               for lines in _year_ways(year) for bold in (True, False)) + c.px(4)


def _draw_tiles(c: Canvas, area: pygame.Rect, tiles: _Tiles, items: list, new_card,
                hidden: dict | None = None) -> None:
    """``items`` (cards, "new" for the proposed card, "before"/"after" for the marks of the cards left
    out) on ``tiles``'s lines, left to right and top to bottom, centred in ``area``."""
    gap = c.px(6)
    tall = [tile_height(c, tiles.w, new_card if item == "new" else item if item not in ("before", "after") else None,
                        item != "new", title=tiles.title) for item in items]
    lines = [max(tall[i:i + tiles.per_line]) for i in range(0, len(items), tiles.per_line)]
    if len(lines) * (max(lines) + gap) - gap <= area.h:
        lines = [max(lines)] * len(lines)         # tiles of one size where the area has room for them
    line_gap = c.px(10)
    if sum(lines) + line_gap * (len(lines) - 1) > area.h:
        line_gap = gap
    y = area.y + max(0, (area.h - sum(lines) - line_gap * (len(lines) - 1)) // 2)
    for line, h in enumerate(lines):
        part = items[line * tiles.per_line:(line + 1) * tiles.per_line]
        x0 = area.centerx - (len(part) * tiles.w + (len(part) - 1) * gap) // 2
        for pos, item in enumerate(part):
            r = pygame.Rect(x0 + pos * (tiles.w + gap), y, tiles.w, min(h, area.h))
            if item == "new":
                card_tile(c, r, new_card, show_year=False, highlight=theme.OUTLINE_NEW, role="card-new",
                          title=tiles.title)
            elif item in ("before", "after"):
                _more(c, r, (hidden or {})[item], "◀" if item == "before" else "▶")
            else:
                card_tile(c, r, item, title=tiles.title)
        y += h + line_gap


def _window(n: int, count: int, focus: int | None) -> int:
    """Where a window of ``count`` of ``n`` items starts: around ``focus``, else at the end (the newest
    cards of a row usually lie around its middle, so the end is as good as any and steady)."""
    if focus is None:
        return max(0, n - count) // 2
    return max(0, min(n - count, focus - count // 2))


def _more(c: Canvas, rect: pygame.Rect, hidden: int, arrow: str) -> None:
    """How many cards lie beyond this end of the screen's part of the row."""
    c.box(rect, theme.PANEL_HI, radius=6)
    count_y = rect.centery
    if rect.h >= c.px(64):        # the arrow above the count where the tile has room for both
        c.text(Literal(arrow), (rect.centerx, rect.centery - c.px(14)), 20, theme.ACCENT, anchor="center",
               role="more")
        count_y += c.px(12)
    c.text(Literal(f"+{hidden}"), (rect.centerx, count_y), READ_TEXT, theme.TEXT, bold=True,
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
