"""What the sticker sheets and the print-and-play cards share: paper, fonts, the code, the ruler.

Everything is drawn as vectors with reportlab, so a printer renders the code modules crisp at any
resolution. The code's module matrix is the camera's own (``companion.vision.stickers``), so print
and camera agree on the symbol and its error-correction level.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from reportlab.lib.pagesizes import A4, LETTER
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont

from companion.errors import BadInput
from companion.i18n import N_, Text
from companion.paths import assets_dir
from companion.vision.stickers import make_sticker_matrix
from companion.words import date_words

PAPERS = {"a4": A4, "letter": LETTER}
FONT, FONT_BOLD = "DejaVuSans", "DejaVuSans-Bold"

# Printed cards carry both languages at once, so these names are pairs rather than msgids.
PERIOD_NAMES = {"prehistoria": ("Prehistory", "Prehistoria"), "antigua": ("Ancient history", "Edad Antigua"),
                "media": ("Middle Ages", "Edad Media"), "moderna": ("Early modern age", "Edad Moderna"),
                "contemporanea": ("Late modern age", "Edad Contemporánea")}
CONTINENT_NAMES = {"OC": ("Oceania", "Oceanía"), "SA": ("South America", "Sudamérica"), "AF": ("Africa", "África"),
                   "AS": ("Asia", "Asia"), "EU": ("Europe", "Europa"), "NA": ("North America", "Norteamérica")}
ICON_NAMES = {"replace_opp": N_("Replace an opponent's card"), "swap": N_("Swap a card with an opponent"),
              "replace_own": N_("Replace one of your cards")}


def open_pdf(out, width: float, height: float, title: str):
    """A reportlab canvas writing to ``out`` (in a folder that exists: errors.output_file); a place
    that cannot be written is one clear error naming it."""
    from reportlab.pdfgen import canvas as pdfcanvas

    from companion.errors import output_file

    out = output_file(out)
    try:
        c = pdfcanvas.Canvas(str(out), pagesize=(width, height), pageCompression=1)
    except OSError as e:
        raise BadInput(str(out), f"cannot write: {e.strerror}") from None
    c.setTitle(title)
    c.setAuthor("companion")
    return c


def tr(msgid: str, lang: str, **params) -> str:
    return Text(msgid, params).render(lang)


@lru_cache(maxsize=1)
def register_fonts() -> None:
    """DejaVu Sans (bundled under assets/fonts, with its licence) carries every Spanish accent."""
    folder = assets_dir() / "fonts"
    for name, file in ((FONT, "DejaVuSans.ttf"), (FONT_BOLD, "DejaVuSans-Bold.ttf")):
        path = folder / file
        if not path.exists():
            raise BadInput(str(path), "the bundled font is missing; reinstall the companion")
        pdfmetrics.registerFont(TTFont(name, str(path)))


@lru_cache(maxsize=4096)
def code_matrix(payload: str) -> np.ndarray:
    """The dark/light modules of the code for ``payload``, without quiet zone (True = dark)."""
    return np.asarray(make_sticker_matrix(payload), dtype=bool)


def draw_code(c, payload: str, x: float, y: float, module: float) -> float:
    """Draw the code with its bottom-left corner at (x, y) in points; returns its side in points.
    Dark runs of each row are one rectangle each, which keeps the PDF small and the edges exact."""
    matrix = code_matrix(payload)
    n = matrix.shape[0]
    c.saveState()
    c.setFillColorRGB(0, 0, 0)
    path = c.beginPath()
    for r in range(n):
        row = matrix[r]
        top = y + (n - r) * module
        col = 0
        while col < n:
            if row[col]:
                start = col
                while col < n and row[col]:
                    col += 1
                path.rect(x + start * module, top - module, (col - start) * module, module)
            else:
                col += 1
    c.drawPath(path, stroke=0, fill=1)
    c.restoreState()
    return n * module


def code_modules(payload: str) -> int:
    return code_matrix(payload).shape[0]


RULER_HEIGHT = 10 * mm      # the 20 x 10 mm box, the tallest part of the ruler above its line
RULER_NOTE = 4.5 * mm       # the line under the ruler that says how to check it


def draw_ruler(c, x: float, y: float, lang: str) -> None:
    """A 100 mm calibration ruler with mm ticks and a 20 x 10 mm box, its line at (x, y): RULER_HEIGHT
    above y, its note RULER_NOTE below."""
    c.saveState()
    c.setStrokeColorRGB(0, 0, 0)
    c.setLineWidth(0.4)
    c.line(x, y, x + 100 * mm, y)
    c.setFont(FONT, 5.5)
    for i in range(101):
        h = 3.2 * mm if i % 10 == 0 else 2.2 * mm if i % 5 == 0 else 1.3 * mm
        c.line(x + i * mm, y, x + i * mm, y + h)
        if i % 10 == 0:
            c.drawCentredString(x + i * mm, y + 3.8 * mm, str(i // 10))
    c.drawString(x + 101.5 * mm, y + 3.8 * mm, "cm")
    c.rect(x + 110 * mm, y, 20 * mm, 10 * mm, stroke=1, fill=0)
    c.setFont(FONT, 6)
    c.drawCentredString(x + 120 * mm, y + 4 * mm, "20 × 10 mm")
    c.setFont(FONT, 6.5)
    c.drawString(x, y - 3.5 * mm, tr(N_("Check: this ruler measures exactly 100 mm and the box 20 × 10 mm. If not, "
                                        "print again at 100 % (\"Actual size\", no \"Fit to page\")."), lang))
    c.restoreState()


def card_caption(entry, lang: str) -> list[str]:
    """One or two short lines that say which physical card a sticker belongs on: the year (and
    continent) first, then the title."""
    if entry.white == "einstein":
        return ["Einstein"]
    if entry.white == "1945":
        return [tr(N_("1945 (white)"), lang)]
    title = (entry.title_es if lang == "es" and entry.title_es else entry.title) or entry.ak_id or ""
    if entry.year is None:
        return [title]
    first = year_text(entry.year, entry.circa, lang) + (f" {entry.continent}" if entry.continent else "")
    return [first, title] if title else [first]


def year_text(year: int, circa: bool, lang: str) -> str:
    """1969, '753 BC' / '753 a. C.', 'c. 3,200,000 BC' / 'h. 3 200 000 a. C.': the words layer's dates,
    the same on the printed card as on the kiosk, in ``scan`` and in ``replay``."""
    return date_words(year, lang, circa)


def fit_text(text: str, font: str, size: float, width: float) -> str:
    """``text`` shortened with an ellipsis to fit ``width`` points."""
    if pdfmetrics.stringWidth(text, font, size) <= width:
        return text
    while text and pdfmetrics.stringWidth(text + "…", font, size) > width:
        text = text[:-1]
    return text.rstrip() + "…"


def checked_numbers(deck, numbers: list[int] | None, paper: str) -> list[int]:
    """The cards to print (all of the deck when None), once the paper is known and there is at least one."""
    if paper not in PAPERS:
        raise BadInput("--paper", f"{paper!r} is not one of {', '.join(PAPERS)}")
    numbers = sorted(deck.cards) if numbers is None else numbers
    if not numbers:
        raise BadInput(deck.id, "the deck has no cards yet; add some with 'companion deck add'")
    return numbers


def parse_numbers(spec: str | None, deck) -> list[int]:
    """``--only 17,23-30``: the card numbers to print (all of the deck when None)."""
    if spec is None:
        return sorted(deck.cards)
    numbers: list[int] = []
    for part in spec.split(","):
        part = part.strip()
        try:
            if "-" in part:
                lo, hi = (int(p) for p in part.split("-", 1))
                if lo > hi:
                    raise BadInput("--only", f"{part!r} runs backwards: write the smaller number first ({hi}-{lo})")
                numbers.extend(range(lo, hi + 1))
            else:
                numbers.append(int(part))
        except ValueError:
            raise BadInput("--only", f"{part!r} is not a number or a range like 23-30") from None
    missing = [n for n in numbers if n not in deck.cards]
    if missing:
        raise BadInput("--only", f"deck {deck.id} has no card {missing[0]}")
    return sorted(set(numbers))
