"""Drawing Exhibition: a card tile, one player's board (the Hall's showcases and the Depot) and the
market of six continent columns. Every size comes from the rectangle given, so the same code draws
the wide strip beside the camera and the taller box beside a question."""

from __future__ import annotations

import pygame

from companion.games.exhibition.board import CONTINENTS, DEPOT
from companion.i18n import N_
from companion.ui import theme
from companion.ui.canvas import MIN_TEXT, READ_TEXT, Canvas, Literal, font

CONTINENT_COLOURS = theme.CONTINENT_COLOURS
WHITE_CARD = (250, 250, 250)
TWO_LINES = 54        # reference px: a tile at least this tall writes the continent under the year

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
    """One card: its continent's colour, the year at a size read from a metre (READ_TEXT at least)
    and the continent's code under it when the tile is tall enough, else beside it. ``None`` is an
    empty spot."""
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
    x = rect.centerx + c.px(2)
    if rect.h >= c.px(TWO_LINES):
        room = rect.w - c.px(5)     # a market column beside a question: 66 px
        size = max(float(READ_TEXT), min(30.0, rect.h / c.u * 0.44))
        if card.white == "einstein" and font(c.px(READ_TEXT)).size(top)[0] > room:
            # "E=mc²" is wider than a year: on two lines, both read ("Einstein" would not fit either)
            c.text(Literal("E ="), (x, rect.y + rect.h * 0.3), READ_TEXT, theme.CARD_TEXT, anchor="center",
                   max_width=room, role=role)
            c.text(Literal("mc²"), (x, rect.y + rect.h * 0.72), READ_TEXT, theme.CARD_TEXT, anchor="center",
                   max_width=room, role=role)
            return
        bold = font(c.fit_size(top, size, True, room, role), True).size(top)[0] <= room
        c.text(Literal(top), (x, rect.y + rect.h * 0.32), size, theme.CARD_TEXT, bold=bold, anchor="center",
               max_width=room, role=role)
        c.text(Literal(bottom), (x, rect.y + rect.h * 0.76), max(float(MIN_TEXT), min(size * 0.75, 22.0)),
               theme.CARD_TEXT, anchor="center", max_width=room, role=role + "-continent")
        return
    if card.white == "einstein":
        bottom = ""                 # "E=mc²" alone: it fits where a year and its code do, "Einstein" does not;
        if font(c.px(READ_TEXT)).size(top)[0] > room:     # where only a year fits, its end, as printed
            top = "mc²"
    year_w = font(c.px(READ_TEXT), True).size(top)[0]
    code_w = font(c.px(MIN_TEXT)).size(bottom)[0] if bottom else 0
    if bottom and year_w + c.px(5) + code_w <= room:
        left = x - (year_w + c.px(5) + code_w) // 2
        c.text(Literal(top), (left, rect.centery), READ_TEXT, theme.CARD_TEXT, bold=True, anchor="midleft",
               max_width=year_w + 1, role=role)
        c.text(Literal(bottom), (left + year_w + c.px(5), rect.centery + c.px(2)), MIN_TEXT, theme.CARD_TEXT,
               anchor="midleft", max_width=code_w + 1, role=role + "-continent")
    else:           # the continent in the tile's colour only
        bold = year_w <= room
        c.text(Literal(top), (x, rect.centery), READ_TEXT, theme.CARD_TEXT, bold=bold, anchor="center",
               max_width=room, role=role)


def one_line_width(c: Canvas, code: bool = True) -> int:
    """The width of a one-line tile that holds a year at READ_TEXT and (``code``) a continent's code
    beside it; without it the tile's colour tells the continent."""
    year = font(c.px(READ_TEXT), True).size("8888")[0] + c.px(12)
    return year + c.px(5) + font(c.px(MIN_TEXT)).size("OC")[0] if code else year


def _label(c: Canvas, msgid: str | Literal, rect: pygame.Rect, colour=theme.MUTED) -> None:
    c.paragraph(msgid, rect, theme.SMALL * 0.8, colour, bold=True, role="showcase", valign="middle")


def draw_hall(c: Canvas, area: pygame.Rect, exhibit, layout, mark: str | None = None, new_card=None) -> None:
    """The player board: one row per showcase (its name on the left, an overlay's name in its place)
    and the Depot as the last row. A showcase with more spots than fit across at a readable size goes
    on over further lines; when even so the Hall is too tall for ``area``, the largest showcases
    but the one ``mark`` is in are summed up on one line each (cards in it / spots). ``mark`` (a spot
    name) outlines the spot a proposal is about, with ``new_card`` drawn in it."""
    gap = c.px(4)
    rows = [(key, n, OVERLAY_LABELS[layout.overlay(key)] if layout.overlay(key) else SHOWCASE_LABELS[key],
             bool(layout.overlay(key)), list(exhibit.showcase(key))) for key, n in layout.spots]
    depot = list(exhibit.depot)
    if depot:
        rows.append((DEPOT, len(depot), N_("Depot"), False, depot))
    marked = mark.split("[")[0] if mark else None

    def lines_of(key: str, n: int, across: int, summed: set[str]) -> int:
        return 1 if key in summed else -(-n // across)

    def plan(need: int):
        """How the Hall is laid out with tiles ``need`` wide: (summed up, across, names' width, line)."""
        summed: set[str] = set()
        lines = len(rows)
        while True:
            for _ in range(2):  # the names' width leaves the room for the tiles, whose lines set the names'
                # wide enough for the longest word of a showcase's name at the smallest size ("continente"),
                # or for the whole name on one line where a line is too low for two
                line_h = min(c.px(80), (area.h - gap * (lines - 1)) // lines)
                names = [_one_line(c.tr(row[2])) if line_h < c.px(40) else c.tr(row[2]) for row in rows]
                words = names if line_h < c.px(40) else [w for name in names for w in name.split()]
                widest = max(font(c.px(MIN_TEXT), True).size(word)[0] for word in words)
                label_w = min(max(c.px(86), widest + c.px(6)), area.w // 3)
                across = max(1, min(max(n for _, n, *_ in rows), (area.w - label_w + gap) // (need + gap)))
                lines = sum(lines_of(key, n, across, summed) for key, n, *_ in rows)
            line_h = min(c.px(80), (area.h - gap * (lines - 1)) // lines)
            left = [(n, key) for key, n, *_ in rows if key not in summed and key != marked and n > across]
            if line_h >= c.px(32) or not left:     # a line of tiles no lower than 32 px, else sum one up
                return summed, across, label_w, line_h
            summed.add(max(left)[1])

    # the continent's code beside the year; without it where that sums fewer showcases up
    need = one_line_width(c)
    summed, across, label_w, line_h = plan(need)
    if summed:
        bare = plan(one_line_width(c, code=False))
        if len(bare[0]) < len(summed):
            need, (summed, across, label_w, line_h) = one_line_width(c, code=False), bare
    room = area.w - label_w
    whole = line_h < c.px(40)
    tw = min(int(need * 1.25), (room - gap * (across - 1)) // across)
    y = area.y
    for key, n, name, overlay, cards in rows:
        height = lines_of(key, n, across, summed) * (line_h + gap) - gap
        _label(c, Literal(_one_line(c.tr(name))) if whole else name,
               pygame.Rect(area.x, y, label_w - c.px(4), height), theme.INFO if overlay else theme.MUTED)
        if key in summed:
            filled = sum(card is not None for card in cards)
            c.text(Literal(f"{filled}/{n}"), (area.x + label_w + c.px(6), y + height // 2), READ_TEXT, theme.MUTED,
                   anchor="midleft", max_width=room, role="showcase")
        else:
            for i in range(n):
                rect = pygame.Rect(area.x + label_w + (i % across) * (tw + gap), y + (i // across) * (line_h + gap),
                                   tw, line_h)
                if mark == f"{key}[{i}]":
                    tile(c, rect, new_card, theme.OUTLINE_NEW, role="card-new")
                else:
                    tile(c, rect, cards[i] if i < len(cards) else None)
        y += height + gap


def _one_line(name: str) -> str:
    return name.replace("-\n", "-").replace("\n", " ")


def draw_market(c: Canvas, area: pygame.Rect, table, here: str | None, mark=None) -> None:
    """The six continent columns of three cards of ``table`` (the engine's read model), as on the table
    (the demo's table too). The active player's vehicle (``here``) is marked with ▶ and an outline;
    ``mark``: a card to outline."""
    gap = c.px(2)
    head = c.px(24)
    col_w = (area.w - gap * (len(CONTINENTS) - 1)) // len(CONTINENTS)
    th = (area.h - head - gap * 3) // 3
    for i, k in enumerate(CONTINENTS):
        x = area.x + i * (col_w + gap)
        column = pygame.Rect(x, area.y, col_w, area.h)
        if k == here:
            c.box(column.inflate(c.px(2), c.px(4)), theme.ACCENT, radius=6, width=c.px(2))
        _continent_label(c, k, pygame.Rect(x, area.y, col_w, head), k == here)
        for j, card in enumerate(table.column(k)):
            rect = pygame.Rect(x, area.y + head + gap + j * (th + gap), col_w, th)
            tile(c, rect, card, theme.OUTLINE_NEW if mark is not None and card == mark else None, role="market")


def _continent_label(c: Canvas, k: str, rect: pygame.Rect, here: bool) -> None:
    text = f"▶{k}" if here else k
    c.box(pygame.Rect(rect.x, rect.y + rect.h // 2 - c.px(2), c.px(4), c.px(4)), CONTINENT_COLOURS[k], radius=2)
    c.text(Literal(text), (rect.centerx, rect.centery), theme.SMALL * 0.8, theme.ACCENT if here else theme.TEXT,
           bold=True, anchor="center", max_width=rect.w, role="continent")
