"""Photos of the project's own printed pages, made without the scene generator.

The sticker sheets and print-and-play card pages of ``companion/print`` are written to PDF, rendered
to pixels (pypdfium2), and then seen as a phone or a camera would see the printed page: turned any
way, tilted (a perspective), lit unevenly (light falling off across the page, a darker side), blurred
by the lens, noised by the sensor and JPEG-compressed, lying on a plain table. Nothing here is drawn
by ``scene.py``: the page is what the printer gets, the camera is this module's own.

It stands in for real photographs of printed stickers (the repository holds none): the tests check
on these that the decoder reads at least what zxing-cpp's plain pass reads, and no wrong text.
"""

from __future__ import annotations

import math
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

# the printed pages: (name, deck, what, sticker size in mm, shape)
PAGES = (("stickers-square", "DEMO", "stickers", 12.0, "square"),
         ("stickers-round", "EXH20", "stickers", 15.0, "round"),
         ("cards", "HIST", "cards", 0.0, ""))
RENDER_OVERSAMPLE = 2         # the page is rendered this many times finer, then area-averaged down
FOCAL = 1.3                   # the camera's focal length, in photo widths (a phone's normal lens)


@dataclass(frozen=True)
class Photo:
    image: np.ndarray         # grey uint8
    payloads: tuple[str, ...]  # every sticker text printed on the page (the whole page is in view)
    page: str
    px_per_module: float      # at the page's middle, before the tilt


@lru_cache(maxsize=4)
def _printed(name: str) -> tuple[Path, int, tuple[str, ...], float]:
    """The PDF of one printed page: its path, the page index, its sticker texts, the code module in mm."""
    from companion.cards.decks import get_deck
    from companion.print.cards import make_cards
    from companion.print.stickers import make_sheets

    _, deck_id, what, size, shape = next(p for p in PAGES if p[0] == name)
    out = Path(_folder().name) / f"{name}.pdf"
    deck = get_deck(deck_id)
    if what == "stickers":
        sheets = make_sheets(deck, out, size_mm=size, shape=shape, numbers=sorted(deck.cards)[:40])
        return out, 0, tuple(sheets.payloads_by_page[0]), sheets.module_mm
    from reportlab.lib.units import mm

    from companion.print.cards import CODE_SIZE
    from companion.print.pdf import code_modules
    cards = make_cards(deck, out, numbers=sorted(deck.cards)[:9])
    page = cards.code_pages[0]
    payloads = tuple(cards.payloads_by_page[page])
    # the card's code block is its code and a quiet zone of two modules each side
    return out, page, payloads, CODE_SIZE / (code_modules(payloads[0]) + 4) / mm


@lru_cache(maxsize=1)
def _folder() -> tempfile.TemporaryDirectory:
    """Where this process writes the PDFs (removed when it exits)."""
    return tempfile.TemporaryDirectory(prefix="companion-rephotograph-")


def _render(pdf: Path, page: int, dpi: float) -> np.ndarray:
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(pdf))
    try:
        return np.array(doc[page].render(scale=dpi / 72, grayscale=True).to_pil())
    finally:
        doc.close()


def rephotograph(page: str, px_per_module: float, seed: int) -> Photo:
    """A photo of one printed page (a name from PAGES) with about ``px_per_module`` camera pixels per
    code module at the page's middle; every other choice (turn, tilt, light, blur, noise, JPEG) is
    drawn from ``seed``."""
    pdf, index, payloads, module_mm = _printed(page)
    rng = np.random.default_rng([seed, int(px_per_module * 100)])
    dpi = RENDER_OVERSAMPLE * px_per_module / module_mm * 25.4
    fine = _render(pdf, index, dpi)
    # each photo pixel at the page's middle averages the printed page's area under it
    sheet = cv2.resize(fine, (fine.shape[1] // RENDER_OVERSAMPLE, fine.shape[0] // RENDER_OVERSAMPLE),
                       interpolation=cv2.INTER_AREA)
    H, size = _camera(sheet.shape[1], sheet.shape[0], 1.0, rng)
    page_px = cv2.warpPerspective(sheet, H, size, flags=cv2.INTER_LINEAR, borderValue=0).astype(np.float32)
    inside = cv2.warpPerspective(np.ones(sheet.shape, np.float32), H, size, flags=cv2.INTER_LINEAR)
    table = _table(size, rng)
    lit = ((page_px * inside + table * (1 - inside)) * _light(size, rng)).astype(np.float32)
    photo = np.asarray(cv2.GaussianBlur(lit, (0, 0), rng.uniform(0.5, 1.1)), np.float32)
    # sensor noise: a floor plus shot noise that grows with the light
    sigma = rng.uniform(1.5, 3.5) * np.sqrt(np.maximum(photo, 1.0) / 128)
    noisy = photo + rng.standard_normal(photo.shape).astype(np.float32) * sigma
    img = np.clip(noisy + 0.5, 0, 255).astype(np.uint8)
    _ok, data = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(75, 94))])
    decoded = cv2.imdecode(data, cv2.IMREAD_GRAYSCALE)
    if decoded is None:
        raise RuntimeError("OpenCV could not decode the JPEG it has just encoded")
    return Photo(decoded, payloads, page, px_per_module)


def _camera(w: int, h: int, scale: float, rng) -> tuple[np.ndarray, tuple[int, int]]:
    """The page (w x h pixels) as a tilted camera sees it, ``scale`` photo pixels per page pixel at
    its middle: the homography and the photo's size (the page and a margin of table)."""
    turn = math.radians(rng.uniform(0, 360))
    tx, ty = (math.radians(a) for a in rng.uniform(-22, 22, 2))
    src = np.array([(0, 0), (w, 0), (w, h), (0, h)], np.float32)
    pts = (src - (w / 2, h / 2)) * scale
    c, s = math.cos(turn), math.sin(turn)
    pts = pts @ np.array([[c, s], [-s, c]])
    f = FOCAL * max(w, h) * scale
    rx = np.array([[1, 0, 0], [0, math.cos(tx), -math.sin(tx)], [0, math.sin(tx), math.cos(tx)]])
    ry = np.array([[math.cos(ty), 0, math.sin(ty)], [0, 1, 0], [-math.sin(ty), 0, math.cos(ty)]])
    xyz = np.c_[pts, np.zeros(4)] @ (ry @ rx).T
    dst = f * xyz[:, :2] / (f + xyz[:, 2:3])
    margin = 0.06 * max(w, h) * scale
    dst -= dst.min(axis=0) - margin
    right, bottom = dst.max(axis=0)
    size = (int(math.ceil(right + margin)), int(math.ceil(bottom + margin)))
    return np.asarray(cv2.getPerspectiveTransform(src, dst.astype(np.float32))), size


def _table(size: tuple[int, int], rng) -> np.ndarray:
    """A plain dark table with a faint low-frequency texture."""
    w, h = size
    coarse = rng.uniform(-1, 1, (max(2, h // 64), max(2, w // 64))).astype(np.float32)
    return rng.uniform(50, 120) + 12 * cv2.resize(coarse, (w, h), interpolation=cv2.INTER_CUBIC)


def _light(size: tuple[int, int], rng) -> np.ndarray:
    """How much of the light reaches each pixel: an overall level, a fall-off across the picture in a
    random direction, and a vignette."""
    w, h = size
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    u, v = (x / w - 0.5), (y / h - 0.5)
    a = rng.uniform(0, 2 * math.pi)
    fall = 1 - rng.uniform(0.2, 0.55) * (0.5 + math.cos(a) * u + math.sin(a) * v)
    vignette = 1 - rng.uniform(0.05, 0.25) * (u * u + v * v) * 2
    return (rng.uniform(0.55, 1.0) * fall * vignette).astype(np.float32)


def plan(count: int, seed: int = 0, px_per_module: tuple[float, float] = (1.8, 6.0)) -> list[tuple[str, float, int]]:
    """The arguments of ``count`` photos: the printed pages in turn, each at a scale drawn from
    ``px_per_module``, each with its own seed."""
    rng = np.random.default_rng([seed, 77])
    return [(PAGES[i % len(PAGES)][0], round(float(rng.uniform(*px_per_module)), 2), seed * 1000 + i)
            for i in range(count)]


def photos(count: int, seed: int = 0, px_per_module: tuple[float, float] = (1.8, 6.0)) -> list[Photo]:
    return [rephotograph(*args) for args in plan(count, seed, px_per_module)]
