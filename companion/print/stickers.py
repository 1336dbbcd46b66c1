"""``companion stickers DECK --out FILE.pdf``: sheets of code stickers for the cards of a deck.

Each sticker is the card's code (``TC:<DECK>:<NUMBER>``) with its number printed under it; a caption
outside the sticker says which card it belongs on. Every page carries a calibration ruler, because a
printer that scales the page ("fit to page") changes the sticker size the camera plan counted on.
The default size is the smallest that the default camera plan reads in single frames
(``camera_plan.default_sticker_mm()``; docs/decks.md, "Sticker size"), so a sheet printed with the
defaults works with the recommended camera set up as hardware/camera.md says; ``companion
plan-camera`` gives the size for another setup.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from pathlib import Path

from reportlab.lib.units import mm
from reportlab.lib.utils import simpleSplit
from reportlab.pdfbase import pdfmetrics

from companion import registry
from companion.cards.decks import Deck, deck_ref, get_deck
from companion.cards.payload import format_payload
from companion.errors import BadInput
from companion.i18n import LANGUAGES, N_
from companion.print.pdf import (
    FONT,
    FONT_BOLD,
    PAPERS,
    RULER_HEIGHT,
    RULER_NOTE,
    card_caption,
    checked_numbers,
    code_modules,
    draw_code,
    draw_ruler,
    fit_text,
    open_pdf,
    parse_numbers,
    register_fonts,
    tr,
)
from companion.vision.camera_plan import default_sticker_mm
from companion.words import counted

DEFAULT_SIZE_MM = default_sticker_mm()
SHAPES = ("square", "round")
MARGIN = 10 * mm
GAP_X = 3 * mm          # room to cut between stickers
CAPTION_LINE = 2.0 * mm  # each caption line under a sticker, outside it
GAP_Y = 1.8 * mm
MIN_MODULE_MM = 0.25    # below this, ordinary printers blur the modules together



@dataclass(frozen=True)
class StickerGeometry:
    """Where things go inside one sticker of side (or diameter) ``size`` points."""

    size: float
    shape: str
    module: float
    code_x: float        # bottom-left corner of the code, from the sticker's bottom-left
    code_y: float
    text_y: float        # baseline of the number
    text_size: float

    @classmethod
    def for_size(cls, size: float, shape: str, modules: int) -> StickerGeometry:
        face = pdfmetrics.getFont(FONT_BOLD).face  # type: ignore[attr-defined]  # Font.__init__ sets it; the stubs omit it
        cap = face.capHeight / 1000 or 0.73
        if shape == "square":
            # 2.5 modules above the code, 21 for the code, 1.2 gap, 3.2 for the digits, 1 below
            module = size / (modules + 7.9)
            code_x = (size - modules * module) / 2
            code_y = size - 2.5 * module - modules * module
            text_y = 1.0 * module
            return cls(size, shape, module, code_x, code_y, text_y, 3.2 * module / cap)
        # round: the code sits a little above the centre, with 2 modules of white to the circle at its top
        # corners; the number goes in the lower segment
        half = modules / 2 + 2
        module = (size / 2) / math.hypot(half, half + 1.5)
        centre = size / 2
        code_x = centre - modules / 2 * module
        code_y = centre + 1.5 * module - modules / 2 * module
        text_size = 3.0 * module / cap
        text_y = code_y - 1.2 * module - 3.0 * module
        return cls(size, shape, module, code_x, code_y, text_y, text_size)


@dataclass(frozen=True)
class SheetResult:
    pages: int
    per_page: int
    stickers: int
    module_mm: float
    payloads_by_page: list[list[str]]


def add_arguments(parser) -> None:
    parser.add_argument("deck", help="deck id (see 'companion deck list') or a deck file path")
    parser.add_argument("--out", required=True, help="the PDF file to write")
    parser.add_argument("--size", type=float, default=DEFAULT_SIZE_MM,
                        help=f"sticker side or diameter in mm (default {DEFAULT_SIZE_MM:g}: the smallest square the "
                             f"default camera plan reads; 'companion plan-camera' gives the size for your camera)")
    parser.add_argument("--paper", choices=tuple(PAPERS), default="a4", help="paper size (default a4)")
    parser.add_argument("--shape", choices=SHAPES, default="square",
                        help="square (default; largest code for its size) or round (needs about 30%% more size)")
    parser.add_argument("--only", metavar="LIST", help="only these card numbers, e.g. 17,23-30 (replacement stickers)")
    parser.add_argument("--lang", choices=LANGUAGES, default="en", help="language of the printed instructions")


def run(args) -> int:
    deck = get_deck(deck_ref(args.deck))
    numbers = parse_numbers(args.only, deck)
    result = make_sheets(deck, args.out, size_mm=args.size, paper=args.paper, shape=args.shape,
                         numbers=numbers, lang=args.lang)
    print(f"Wrote {counted(result.stickers, args.shape + ' sticker')} of {args.size:g} mm for {deck.id} on "
          f"{counted(result.pages, 'page')} to {args.out} (code module {result.module_mm:.2f} mm). "
          f"Print at 100 % and check the ruler.")
    return 0


def make_sheets(deck: Deck, out: str | Path, *, size_mm: float = DEFAULT_SIZE_MM, paper: str = "a4",
                shape: str = "square", numbers: list[int] | None = None, lang: str = "en") -> SheetResult:
    if not 8 <= size_mm <= 60:
        raise BadInput("--size", f"{size_mm:g} mm is outside 8 to 60 mm")
    if shape not in SHAPES:
        raise BadInput("--shape", f"{shape!r} is not one of {', '.join(SHAPES)}")
    numbers = checked_numbers(deck, numbers, paper)
    register_fonts()
    entries = {e.n: e for e in deck.entries()}
    payloads = [format_payload(deck.id, n) for n in numbers]
    modules = max(code_modules(p) for p in payloads)
    size = size_mm * mm
    geo = StickerGeometry.for_size(size, shape, modules)
    module_mm = geo.module / mm
    if module_mm < MIN_MODULE_MM:
        raise BadInput("--size", f"{size_mm:g} mm {shape} stickers give {module_mm:.2f} mm code modules; ordinary "
                                 f"printers need at least {MIN_MODULE_MM} mm: use a larger --size")

    width, height = PAPERS[paper]
    header_h = 18 * mm
    ruler_h = RULER_NOTE + RULER_HEIGHT + 2 * mm    # and a gap above it: the last captions stay clear of the box
    captions = {n: card_caption(entries[n], lang) for n in numbers}
    caption_h = 0.6 * mm + CAPTION_LINE * max(len(lines) for lines in captions.values())
    cell_w = size + GAP_X
    cell_h = size + caption_h + GAP_Y
    cols = int((width - 2 * MARGIN + GAP_X) // cell_w)
    rows = int((height - 2 * MARGIN - header_h - ruler_h + GAP_Y) // cell_h)
    per_page = cols * rows
    pages = math.ceil(len(numbers) / per_page)
    grid_w = cols * cell_w - GAP_X
    left = (width - grid_w) / 2
    top = height - MARGIN - header_h

    c = open_pdf(out, width, height, f"{deck.id} stickers")
    by_page: list[list[str]] = []
    for page in range(pages):
        chunk = numbers[page * per_page:(page + 1) * per_page]
        by_page.append([format_payload(deck.id, n) for n in chunk])
        _header(c, deck, width, height, size_mm, shape, module_mm, page, pages, lang)
        for i, n in enumerate(chunk):
            col, row = i % cols, i // cols
            x = left + col * cell_w
            y = top - row * cell_h - size
            _sticker(c, geo, x, y, format_payload(deck.id, n), n, deck.id)
            c.setFont(FONT, 4.6)
            c.setFillColorRGB(0.25, 0.25, 0.25)
            for k, line in enumerate(captions[n]):
                c.drawCentredString(x + size / 2, y - (k + 1) * CAPTION_LINE,
                                    fit_text(line, FONT, 4.6, size + GAP_X - 0.6 * mm))
            c.setFillColorRGB(0, 0, 0)
        draw_ruler(c, MARGIN, MARGIN + RULER_NOTE, lang)
        c.showPage()
    try:
        c.save()
    except OSError as e:
        raise BadInput(str(out), f"cannot write: {e.strerror}") from None
    if module_mm < 0.35:
        print(f"note: {module_mm:.2f} mm modules need a sharp printer and a close camera; see docs/decks.md",
              file=sys.stderr)
    return SheetResult(pages, per_page, len(numbers), module_mm, by_page)


def _header(c, deck: Deck, width, height, size_mm, shape, module_mm, page, pages, lang) -> None:
    y = height - MARGIN - 4 * mm
    c.setFont(FONT_BOLD, 10)
    c.drawString(MARGIN, y, fit_text(f"{deck.id} · {deck.name}", FONT_BOLD, 10, width - 2 * MARGIN - 25 * mm))
    c.setFont(FONT, 7)
    c.drawRightString(width - MARGIN, y, tr(N_("page {page} of {pages}"), lang, page=page + 1, pages=pages))
    shape_text = tr(N_("square") if shape == "square" else N_("round"), lang)
    decimal = "," if lang == "es" else "."
    c.drawString(MARGIN, y - 4.2 * mm, tr(N_("{size} mm {shape} stickers, code module {module} mm. Cut along the "
                                             "grey outlines."), lang, size=f"{size_mm:g}".replace(".", decimal),
                                          shape=shape_text, module=f"{module_mm:.2f}".replace(".", decimal)))
    placement = tr(registry.spec_for(deck.game).sticker_placement, lang)
    for k, line in enumerate(simpleSplit(placement, FONT, 7, width - 2 * MARGIN)[:2]):
        c.drawString(MARGIN, y - (7.6 + 3.2 * k) * mm, line)


def _sticker(c, geo: StickerGeometry, x: float, y: float, payload: str, number: int, deck_id: str) -> None:
    c.saveState()
    c.setStrokeColorRGB(0.6, 0.6, 0.6)
    c.setLineWidth(0.3)
    if geo.shape == "square":
        c.rect(x, y, geo.size, geo.size, stroke=1, fill=0)
    else:
        c.circle(x + geo.size / 2, y + geo.size / 2, geo.size / 2, stroke=1, fill=0)
    c.restoreState()
    draw_code(c, payload, x + geo.code_x, y + geo.code_y, geo.module)
    label = f"{number:03d}"
    wide = f"{deck_id} {label}"
    room = geo.size - 2 * geo.code_x if geo.shape == "square" else geo.size * 0.55
    c.setFont(FONT_BOLD, geo.text_size)
    if geo.shape == "square" and pdfmetrics.stringWidth(wide, FONT_BOLD, geo.text_size) <= room:
        label = wide
    c.drawCentredString(x + geo.size / 2, y + geo.text_y, label)
