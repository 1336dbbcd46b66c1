"""``companion cards DECK --out FILE.pdf``: a print-and-play deck, fronts and backs for duplex printing.

Nine 63 x 88 mm cards per page. Pages alternate: one side of nine cards, then the other side of the
same nine, mirrored left-right so that a sheet printed double-sided with a long-edge flip puts every
back behind its front. Cut marks sit in the margins on the grid lines; every face keeps a white border
so a printer that shifts the back by a millimetre or two still gives clean cards. Four registration
marks (filled squares, the top left one larger) sit in the side margins: ``companion deck enrol
--pages`` finds every card of a page, rendered or scanned, by them (``sheet_plan``).

The code goes on the face the camera sees while the card lies in play:
- Timeline / Cronología: the **date side**. A card is placed and turned date side up, and the row is
  read that way; the title side (the one players hold) carries no code and no number.
- Exhibition: the **front** (year and continent): market and showcase cards lie face up. The back is
  the same for every card.
- Ancient Knowledge cards are the publisher's: print stickers for the box instead (``companion
  stickers AK``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from reportlab.lib.units import mm
from reportlab.lib.utils import simpleSplit
from reportlab.pdfbase import pdfmetrics

from companion import registry
from companion.cards.decks import CardEntry, Deck, deck_ref, get_deck
from companion.cards.model import CONTINENT_COLOURS, PERIOD_COLOURS
from companion.cards.payload import format_payload
from companion.errors import BadInput, present
from companion.i18n import LANGUAGES, N_
from companion.paths import command
from companion.print.pdf import (
    CONTINENT_NAMES,
    FONT,
    FONT_BOLD,
    ICON_NAMES,
    PAPERS,
    PERIOD_NAMES,
    checked_numbers,
    code_modules,
    draw_code,
    fit_text,
    open_pdf,
    parse_numbers,
    register_fonts,
    tr,
    year_text,
)

CARD_W, CARD_H = 63 * mm, 88 * mm
COLS, ROWS = 3, 3
BORDER = 3.5 * mm          # white on every face: absorbs duplex misregistration
CODE_SIZE = 16 * mm        # the printed code with its white quiet zone
CUT_MARK = 5 * mm
GREY = (120, 120, 128)


@dataclass(frozen=True)
class CardsResult:
    pages: int
    cards: int
    code_pages: list[int]            # 0-based indexes of the pages that carry codes
    payloads_by_page: dict[int, list[str]]


def add_arguments(parser) -> None:
    parser.add_argument("deck", help="deck id (see 'companion deck list') or a deck file path")
    parser.add_argument("--out", required=True, help="the PDF file to write")
    parser.add_argument("--paper", choices=tuple(PAPERS), default="a4", help="paper size (default a4)")
    parser.add_argument("--only", metavar="LIST", help="only these card numbers, e.g. 1-9")
    parser.add_argument("--lang", choices=LANGUAGES, default="en",
                        help="language of the printing instructions (cards carry both languages)")


def run(args) -> int:
    deck = get_deck(deck_ref(args.deck))
    numbers = parse_numbers(args.only, deck)
    result = make_cards(deck, args.out, paper=args.paper, numbers=numbers, lang=args.lang)
    print(f"Wrote {result.cards} print-and-play cards of {deck.id} on {result.pages} pages to {args.out}. "
          f"Print double-sided (flip on the long edge) at 100 %, then cut along the marks.")
    return 0


def make_cards(deck: Deck, out: str | Path, *, paper: str = "a4", numbers: list[int] | None = None,
               lang: str = "en") -> CardsResult:
    spec = registry.spec_for(deck.game)
    layout = spec.print_layout
    if not layout:
        raise BadInput(deck.id, f"{spec.name} cards are the publisher's and are not printed here; print "
                                f"stickers for your box instead: {command()} stickers {deck.id} --out stickers.pdf")
    numbers = checked_numbers(deck, numbers, paper)
    register_fonts()
    entries = {e.n: e for e in deck.entries()}
    width, height = PAPERS[paper]
    left = (width - COLS * CARD_W) / 2
    bottom = (height - ROWS * CARD_H) / 2
    per_sheet = COLS * ROWS
    sheets = math.ceil(len(numbers) / per_sheet)
    chronology = layout == "chronology"      # title and date sides; else Exhibition's front and back

    c = open_pdf(out, width, height, f"{deck.id} print-and-play cards")
    code_pages: list[int] = []
    payloads: dict[int, list[str]] = {}
    for sheet in range(sheets):
        chunk = [entries[n] for n in numbers[sheet * per_sheet:(sheet + 1) * per_sheet]]
        for side in ("front", "back"):
            page = sheet * 2 + (side == "back")
            with_code = side == ("back" if chronology else "front")
            if with_code:
                code_pages.append(page)
                payloads[page] = [format_payload(deck.id, e.n) for e in chunk]
            _page_frame(c, deck, width, height, left, bottom, page, sheets * 2, side, chronology, lang)
            for i, entry in enumerate(chunk):
                x, y = _slot(i, side == "back", left, bottom)
                c.saveState()
                c.translate(x, y)
                if chronology:
                    (_title_side if side == "front" else _date_side)(c, deck, entry)
                elif side == "front":
                    _exhibition_front(c, deck, entry)
                else:
                    _exhibition_back(c, deck)
                c.restoreState()
            c.showPage()
    try:
        c.save()
    except OSError as e:
        raise BadInput(str(out), f"cannot write: {e.strerror}") from None
    return CardsResult(sheets * 2, len(numbers), code_pages, payloads)


def _slot(i: int, back: bool, left: float, bottom: float) -> tuple[float, float]:
    """The bottom left corner (points, from the page's bottom left) of the card in place ``i`` of a
    sheet: three across, top row first; on a back page mirrored left-right, as a long-edge flip turns
    the sheet over, so that every back lies behind its front."""
    col, row = i % COLS, i // COLS
    if back:
        col = COLS - 1 - col
    return left + col * CARD_W, bottom + (ROWS - 1 - row) * CARD_H


MARK = 3 * mm               # the registration marks: filled squares in the side margins, by the top and
MARK_FIRST = 4 * mm         # bottom rows; the top left one larger, so a scan turned round is known
MARK_OFF = 4.5 * mm         # ... their centres this far outside the cards


def _marks(width: float, height: float) -> list[tuple[float, float, float]]:
    """The registration marks' centres and sides (points, from the page's bottom left): top left (the
    large one) first, then clockwise."""
    left, bottom = (width - COLS * CARD_W) / 2, (height - ROWS * CARD_H) / 2
    right, top = left + COLS * CARD_W, bottom + ROWS * CARD_H
    hi, lo = top - CARD_H / 2, bottom + CARD_H / 2
    return [(left - MARK_OFF, hi, MARK_FIRST), (right + MARK_OFF, hi, MARK), (right + MARK_OFF, lo, MARK),
            (left - MARK_OFF, lo, MARK)]


@dataclass(frozen=True)
class SheetPlan:
    """Where ``companion cards`` puts everything on a page, in millimetres from the page's top left (y
    down, as a picture of the page is read): what enrolment reads a printed page by
    (companion/vision/enrol.py: ``enrol_printed``)."""

    page_mm: tuple[float, float]
    marks: list[tuple[float, float, float]]                 # centre x, y and side: top left first, clockwise
    cards: dict[str, list[tuple[float, float]]]             # "front"/"back": each place's top left corner
    card_mm: tuple[float, float]
    code_side: str                                          # the pages whose cards carry their codes
    sides: dict[str, str]                                   # "front"/"back": the enrolled side ("" none)


def sheet_plan(paper: str, layout: str) -> SheetPlan:
    """The plan of a page of print-and-play cards on ``paper`` for a game's ``layout`` ("chronology":
    title fronts, date backs with the codes; "exhibition": fronts with the codes, backs all alike)."""
    width, height = PAPERS[paper]
    left, bottom = (width - COLS * CARD_W) / 2, (height - ROWS * CARD_H) / 2

    def top_left(x: float, y: float) -> tuple[float, float]:
        return x / mm, (height - y - CARD_H) / mm
    cards = {side: [top_left(*_slot(i, side == "back", left, bottom)) for i in range(COLS * ROWS)]
             for side in ("front", "back")}
    marks = [(x / mm, (height - y) / mm, side / mm) for x, y, side in _marks(width, height)]
    chronology = layout == "chronology"
    return SheetPlan((width / mm, height / mm), marks, cards, (CARD_W / mm, CARD_H / mm),
                     "back" if chronology else "front",
                     {"front": "title", "back": "date"} if chronology else {"front": "face", "back": ""})


# --- page --------------------------------------------------------------------------------------------

def _page_frame(c, deck, width, height, left, bottom, page, pages, side, chronology, lang) -> None:
    """Cut marks on every grid line, in the margins, and one line of instructions."""
    c.saveState()
    c.setStrokeColorRGB(0, 0, 0)
    c.setLineWidth(0.35)
    right, top = left + COLS * CARD_W, bottom + ROWS * CARD_H
    gap = 1.5 * mm
    v_len = max(1.5 * mm, min(CUT_MARK, bottom - gap - 1 * mm))
    h_len = max(1.5 * mm, min(CUT_MARK, left - gap - 1 * mm))
    for i in range(COLS + 1):
        x = left + i * CARD_W
        c.line(x, top + gap, x, top + gap + v_len)
        c.line(x, bottom - gap, x, bottom - gap - v_len)
    for j in range(ROWS + 1):
        y = bottom + j * CARD_H
        c.line(left - gap, y, left - gap - h_len, y)
        c.line(right + gap, y, right + gap + h_len, y)
    c.setFillColorRGB(0, 0, 0)
    for x, y, side in _marks(width, height):      # where a scan of the page is aligned by (deck enrol)
        c.rect(x - side / 2, y - side / 2, side, side, stroke=0, fill=1)
    if chronology:
        face = tr(N_("title sides") if side == "front" else N_("date sides (with the codes)"), lang)
    else:
        face = tr(N_("fronts (with the codes)") if side == "front" else N_("backs"), lang)
    note = tr(N_("{deck} print-and-play, page {page} of {pages}: {face}. Print double-sided, flip on the long edge, "
                 "at 100 %."), lang, deck=deck.id, page=page + 1, pages=pages, face=face)
    c.setFont(FONT, 6)
    c.setFillColorRGB(0.3, 0.3, 0.3)
    c.drawCentredString(width / 2, height - min(5 * mm, (height - top) / 2 + 1 * mm),
                        fit_text(note, FONT, 6, width - 2 * left))
    c.restoreState()


# --- drawing helpers ---------------------------------------------------------------------------------

def _rgb(c, colour, stroke=False) -> None:
    r, g, b = (v / 255 for v in colour)
    (c.setStrokeColorRGB if stroke else c.setFillColorRGB)(r, g, b)


def _wrap(text: str, font: str, sizes, width: float, max_lines: int) -> tuple[list[str], float]:
    """The largest size in ``sizes`` at which ``text`` fits in ``max_lines`` lines of ``width``."""
    for size in sizes:
        lines = simpleSplit(text, font, size, width)
        if len(lines) <= max_lines:
            return lines, size
    size = sizes[-1]
    lines = simpleSplit(text, font, size, width)[:max_lines]
    lines[-1] = fit_text(lines[-1] + "…", font, size, width)
    return lines, size


def _centred_lines(c, lines, font, size, cx, top, leading=1.18) -> float:
    """Lines centred on ``cx`` from ``top`` down; returns the y below the last line."""
    c.setFont(font, size)
    y = top - size
    for line in lines:
        c.drawCentredString(cx, y, line)
        y -= size * leading
    return y + size * leading - size * 0.3


def _band(c, colour, label: str, label2: str | None) -> None:
    """The coloured band across the top of a face (Cronología's period colour)."""
    x, w = BORDER, CARD_W - 2 * BORDER
    h = 12 * mm
    y = CARD_H - BORDER - h
    _rgb(c, colour)
    c.roundRect(x, y, w, h, 2 * mm, stroke=0, fill=1)
    light = 0.299 * colour[0] + 0.587 * colour[1] + 0.114 * colour[2] > 150   # dark text on a light band
    c.setFillColorRGB(*((0.08, 0.08, 0.1) if light else (1, 1, 1)))
    c.setFont(FONT_BOLD, 8.5)
    c.drawCentredString(CARD_W / 2, y + h - 5 * mm, fit_text(label, FONT_BOLD, 8.5, w - 4 * mm))
    if label2:
        c.setFont(FONT, 7)
        c.drawCentredString(CARD_W / 2, y + 2.6 * mm, fit_text(label2, FONT, 7, w - 4 * mm))
    c.setFillColorRGB(0, 0, 0)


def _frame(c, colour) -> None:
    """A thin line in the face's colour just inside the white border."""
    c.saveState()
    _rgb(c, colour, stroke=True)
    c.setLineWidth(0.8)
    c.roundRect(BORDER, BORDER, CARD_W - 2 * BORDER, CARD_H - 2 * BORDER, 2 * mm, stroke=1, fill=0)
    c.restoreState()


def _code_block(c, deck: Deck, entry: CardEntry, cx: float, y: float) -> None:
    """The card's code (white square with quiet zone) and its number under it, centred on cx."""
    payload = format_payload(deck.id, entry.n)
    modules = code_modules(payload)
    module = CODE_SIZE / (modules + 4)
    c.setFillColorRGB(1, 1, 1)
    c.rect(cx - CODE_SIZE / 2, y, CODE_SIZE, CODE_SIZE, stroke=0, fill=1)
    draw_code(c, payload, cx - modules * module / 2, y + 2 * module, module)
    c.setFillColorRGB(0.25, 0.25, 0.25)
    c.setFont(FONT, 5.5)
    c.drawCentredString(cx, y - 2.4 * mm, f"{deck.id} {entry.n:03d}")
    c.setFillColorRGB(0, 0, 0)


def draw_icon(c, icon: str, cx: float, cy: float, size: float) -> None:
    """The three Cronología icons as simple shapes: a target (replace an opponent's card), two opposite
    arrows (swap), a circular arrow (replace one of your own)."""
    r = size / 2
    c.saveState()
    c.setLineWidth(max(0.8, size * 0.09))
    c.setStrokeColorRGB(0.1, 0.1, 0.1)
    c.setFillColorRGB(0.1, 0.1, 0.1)
    c.circle(cx, cy, r, stroke=1, fill=0)
    if icon == "replace_opp":
        c.circle(cx, cy, r * 0.55, stroke=1, fill=0)
        c.circle(cx, cy, r * 0.18, stroke=0, fill=1)
    elif icon == "swap":
        for dy, direction in ((r * 0.28, 1), (-r * 0.28, -1)):
            x0, x1 = cx - r * 0.55 * direction, cx + r * 0.55 * direction
            c.line(x0, cy + dy, x1, cy + dy)
            head = c.beginPath()
            head.moveTo(x1 + r * 0.12 * direction, cy + dy)
            head.lineTo(x1 - r * 0.22 * direction, cy + dy + r * 0.22)
            head.lineTo(x1 - r * 0.22 * direction, cy + dy - r * 0.22)
            head.close()
            c.drawPath(head, stroke=0, fill=1)
    else:  # replace_own
        c.arc(cx - r * 0.55, cy - r * 0.55, cx + r * 0.55, cy + r * 0.55, startAng=60, extent=280)
        ang = math.radians(60)
        tip_x, tip_y = cx + r * 0.55 * math.cos(ang), cy + r * 0.55 * math.sin(ang)
        head = c.beginPath()
        head.moveTo(tip_x + r * 0.30, tip_y + r * 0.02)
        head.lineTo(tip_x - r * 0.08, tip_y + r * 0.28)
        head.lineTo(tip_x - r * 0.05, tip_y - r * 0.25)
        head.close()
        c.drawPath(head, stroke=0, fill=1)
    c.restoreState()


# --- Timeline / Cronología ---------------------------------------------------------------------------

def _period_band(c, deck: Deck, entry: CardEntry) -> tuple:
    if entry.period:
        colour = PERIOD_COLOURS[entry.period]
        _band(c, colour, *PERIOD_NAMES[entry.period])
    else:
        colour = GREY
        _band(c, colour, deck.name, None)
    _frame(c, colour)
    return colour


def _title_side(c, deck: Deck, entry: CardEntry) -> None:
    _period_band(c, deck, entry)
    inner = CARD_W - 2 * BORDER - 6 * mm
    top = CARD_H - BORDER - 12 * mm - 5 * mm
    lines, size = _wrap(entry.title or "?", FONT_BOLD, (13, 12, 11, 10, 9, 8), inner, 5)
    y = _centred_lines(c, lines, FONT_BOLD, size, CARD_W / 2, top)
    if entry.title_es and entry.title_es != entry.title:
        c.setFillColorRGB(0.35, 0.35, 0.4)
        es, es_size = _wrap(entry.title_es, FONT, (10, 9, 8, 7), inner, 4)
        _centred_lines(c, es, FONT, es_size, CARD_W / 2, y - 3 * mm)
        c.setFillColorRGB(0, 0, 0)
    if entry.icons:
        _icon_row(c, entry.icons, BORDER + 5 * mm)


def _icon_row(c, icons, base_y: float) -> None:
    """Icons with their names in both languages, along the bottom of the title side."""
    n = len(icons)
    slot = (CARD_W - 2 * BORDER) / n
    for i, icon in enumerate(icons):
        cx = BORDER + slot * (i + 0.5)
        draw_icon(c, icon, cx, base_y + 10 * mm, 8 * mm)
        c.setFont(FONT, 5)
        for k, lang in enumerate(("en", "es")):
            c.setFillColorRGB(*((0.15,) * 3 if lang == "en" else (0.4,) * 3))
            lines = simpleSplit(tr(ICON_NAMES[icon], lang), FONT, 5, slot - 2 * mm)[:2]
            for j, line in enumerate(lines):
                c.drawCentredString(cx, base_y + 3.6 * mm - (k * 2 + j) * 1.9 * mm, line)
        c.setFillColorRGB(0, 0, 0)


def _date_side(c, deck: Deck, entry: CardEntry) -> None:
    _period_band(c, deck, entry)
    inner = CARD_W - 2 * BORDER - 6 * mm
    top = CARD_H - BORDER - 12 * mm - 3 * mm
    year = present(entry.year, f"the year of card {entry.n}")    # a history deck's cards all have one
    year_en = year_text(year, entry.circa, "en")
    size = 26
    while size > 12 and pdfmetrics.stringWidth(year_en, FONT_BOLD, size) > inner:
        size -= 1
    c.setFont(FONT_BOLD, size)
    c.drawCentredString(CARD_W / 2, top - size * 0.85, year_en)
    y = top - size * 0.85 - 4 * mm
    year_es = year_text(year, entry.circa, "es")
    if year_es != year_en:
        c.setFont(FONT, 9)
        c.setFillColorRGB(0.35, 0.35, 0.4)
        c.drawCentredString(CARD_W / 2, y, year_es)
        c.setFillColorRGB(0, 0, 0)
        y -= 4 * mm
    lines, tsize = _wrap(entry.title or "", FONT_BOLD, (8, 7.5, 7, 6.5), inner, 3)
    y = _centred_lines(c, lines, FONT_BOLD, tsize, CARD_W / 2, y + 2 * mm)
    if entry.title_es and entry.title_es != entry.title:
        c.setFillColorRGB(0.35, 0.35, 0.4)
        es, es_size = _wrap(entry.title_es, FONT, (7, 6.5, 6), inner, 3)
        _centred_lines(c, es, FONT, es_size, CARD_W / 2, y - 1.2 * mm)
        c.setFillColorRGB(0, 0, 0)
    code_y = BORDER + 5 * mm
    _code_block(c, deck, entry, CARD_W / 2, code_y)
    for i, icon in enumerate(entry.icons):  # small reminders beside the code; names are on the title side
        draw_icon(c, icon, BORDER + 6 * mm, code_y + CODE_SIZE - 3 * mm - i * 7 * mm, 5.5 * mm)


# --- Exhibition --------------------------------------------------------------------------------------

def _exhibition_front(c, deck: Deck, entry: CardEntry) -> None:
    if entry.white:
        colour = GREY
        c.setStrokeColorRGB(0.5, 0.5, 0.5)
        _band(c, (235, 235, 235), "", None)
        c.setFillColorRGB(0.2, 0.2, 0.2)
        c.setFont(FONT_BOLD, 8.5)
        c.drawCentredString(CARD_W / 2, CARD_H - BORDER - 7 * mm, tr(N_("White card"), "en") + " · " +
                            tr(N_("White card"), "es"))
        big = "1945" if entry.white == "1945" else "Einstein"
        wild = N_("Any continent") if entry.white == "1945" else N_("Any year, any continent")
        lines = [tr(wild, "en"), tr(wild, "es")]
    else:
        continent = present(entry.continent, f"the continent of card {entry.n}")   # the deck checks both
        year = present(entry.year, f"the year of card {entry.n}")
        colour = CONTINENT_COLOURS[continent]
        _band(c, colour, *CONTINENT_NAMES[continent])
        big = str(year)
        lines = [f"{continent} · {year // 10 * 10}s"]
    _frame(c, colour)
    size = 30 if len(big) <= 4 else 20
    c.setFillColorRGB(0, 0, 0)
    c.setFont(FONT_BOLD, size)
    c.drawCentredString(CARD_W / 2, CARD_H - BORDER - 12 * mm - 8 * mm - size * 0.75, big)
    c.setFont(FONT, 8)
    c.setFillColorRGB(0.35, 0.35, 0.4)
    y = CARD_H - BORDER - 12 * mm - 8 * mm - size * 0.75 - 6 * mm
    for line in lines:
        c.drawCentredString(CARD_W / 2, y, line)
        y -= 3.6 * mm
    c.setFillColorRGB(0, 0, 0)
    _code_block(c, deck, entry, CARD_W / 2, BORDER + 6 * mm)


def _exhibition_back(c, deck: Deck) -> None:
    """The same for every card: six continent stripes and the deck's name."""
    x, w = BORDER, CARD_W - 2 * BORDER
    stripe = 5 * mm
    y0 = CARD_H / 2 - 3 * stripe
    for i, key in enumerate(("OC", "SA", "AF", "AS", "EU", "NA")):
        _rgb(c, CONTINENT_COLOURS[key])
        c.rect(x, y0 + i * stripe, w, stripe, stroke=0, fill=1)
    _frame(c, GREY)
    c.setFillColorRGB(0.15, 0.15, 0.2)
    c.setFont(FONT_BOLD, 11)
    c.drawCentredString(CARD_W / 2, CARD_H - BORDER - 14 * mm, "Exhibition")
    c.setFont(FONT, 8)
    c.drawCentredString(CARD_W / 2, CARD_H - BORDER - 19 * mm, "1900 – 1999")
    c.setFont(FONT, 6)
    c.drawCentredString(CARD_W / 2, BORDER + 8 * mm, fit_text(deck.name, FONT, 6, w - 4 * mm))
    c.drawCentredString(CARD_W / 2, BORDER + 5 * mm, "print-and-play · companion")
    c.setFillColorRGB(0, 0, 0)
