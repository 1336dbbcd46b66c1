"""The project's synthetic table photos, with the truth stored beside them.

``render_table(layout, ...)`` draws what a camera above the table would see: a wood or cloth table,
cards with a title and a year, and on each card the printed sticker (white square, the code, its
number under it, exactly as ``companion stickers`` prints it), then camera effects: a tilted view
(perspective), the layout turned a little and each card jittered, uneven light, glare, lens blur,
sensor noise and JPEG. ``Scene.truth`` lists every sticker on the table in true reading order with
the code's corners in image pixels.

Scale is given as pixels per code module (``px_per_module``) at the middle of the image; the
perspective changes it by a few per cent towards the edges, as a real tilted camera does. Everything
is drawn in table units of one module, and each sticker is rendered at the target scale: the sticker
is warped onto a 4x finer grid and area-averaged down, so every module covers exactly the area it
should (no nearest-neighbour resize: no printed sticker has unequal modules).

Card size is chosen to fit the layout in the frame (rows of 20 overlap like a fanned hand, with each
sticker in the visible top-left corner); a layout that cannot fit at the asked scale raises
ValueError saying so. ``render_sequence`` gives K frames of the same still table (sub-pixel camera
jitter, fresh noise and JPEG per frame).
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np
from numpy.typing import ArrayLike

from companion.vision.layouts import BoardLayout, GridLayout, RowLayout, RowsLayout
from companion.vision.stickers import make_sticker_matrix

if TYPE_CHECKING:
    from companion.vision.boards import Board

# The printed square sticker, in modules (companion/print/stickers.py, StickerGeometry "square"):
# 28.9 modules across, the 21-module code centred 2.5 modules below the top, the number under it.
STICKER = 28.9
CODE_X = (STICKER - 21) / 2
CODE_Y = 2.5
CARD_W, CARD_H = 48.0, 70.0     # a card is about twice a sticker wide (cards scale with the stickers)
EDGE = 1.5                      # sticker to card edge
SENSOR_SCALE = 1.2              # Bayer mosaic pixels per output pixel (2304 -> 1920)
SUPER = 4                       # stickers are drawn this much finer, then area-averaged down
MIN_PITCH = EDGE + STICKER + 1.5  # card-to-card spacing that still leaves the sticker of the one below visible
FOREIGN_TEXTS = ("https://example.com/shop/item/48213", "WIFI:S:CafeGuest;T:WPA;P:coffee2024;;",
                 "TC:DEMO", "tc:demo:001", "TC-DEMO-001", "4006381333931", "Table 7", "http://x.example/q?id=99",
                 "TC:DEMO:0001X", "TC::001")


@dataclass(frozen=True)
class TruthCode:
    payload: str
    corners: np.ndarray          # 4x2: the code's own top-left, top-right, bottom-right, bottom-left (pixels)
    center: tuple[float, float]
    row: int                     # row of the layout (grid: physical row 0..8; row layout: 0)
    index: int                   # place in that row (grid: the column slot; board: order within its spot row)


@dataclass(frozen=True)
class ForeignTruth:
    text: str
    corners: np.ndarray
    center: tuple[float, float]


@dataclass(frozen=True)
class FreeLayout:
    """Cards anywhere on the table, at any angle (no reading order to speak of)."""

    codes: tuple[str, ...] = ()

    def __init__(self, codes=()):
        object.__setattr__(self, "codes", tuple(codes))


@dataclass
class Scene:
    image: np.ndarray                        # BGR uint8
    truth: list[TruthCode]
    foreign: list[ForeignTruth]
    px_per_module: float
    layout: object
    homography: np.ndarray                   # table units (modules) -> image pixels
    spots: dict[str, str] = field(default_factory=dict)   # board scenes: payload -> spot name
    board_to_image: np.ndarray | None = None  # board scenes: board mm -> image pixels
    params: dict = field(default_factory=dict)

    @property
    def payloads(self) -> list[str]:
        return [t.payload for t in self.truth]

    def rows(self) -> list[list[str]]:
        """The payloads row by row, as reading order should give them."""
        out: dict[int, list[str]] = {}
        for t in self.truth:
            out.setdefault(t.row, []).append(t.payload)
        return [out[k] for k in sorted(out)]


# -- the plan: every random choice of a scene, drawn from its seed --------------------------------------

@dataclass
class _Item:
    kind: str                      # card | foreign | hand | board
    text: str                      # payload or foreign text
    cx: float                      # centre, table units
    cy: float
    angle: float                   # degrees, clockwise on the image
    w: float
    h: float
    row: int = 0
    index: int = 0
    module: float = 1.0            # code module in table units (foreign codes may be bigger)
    style: int = 0
    occlude: float = 0.0
    damage: int = 0
    spot: str | None = None


@dataclass
class _Plan:
    width: int
    height: int
    ppm: float
    seed: int
    items: list[_Item]
    H: np.ndarray
    table: str
    table_colour: tuple
    light: dict
    glare: dict
    blur_sigma: float
    noise: float
    jpeg: int | None
    layout: object
    board: Board | None = None
    board_mm: float = 1.0          # board mm per table unit
    bayer: bool = True
    art: str = "soft"
    card_detail: float = 2.0       # card faces drawn at this many pixels per picture pixel (stickers: always fine)
    faces: dict | None = None      # payload -> a printed face (BGR) drawn instead of the generated one, no sticker
    face_stickers: bool = False    # ... with its sticker after all (the same cards read both ways: bench faces)
    on_top: frozenset = frozenset()  # payloads of the cards drawn last, over their neighbours (laid last)


def _art(art: str) -> str:
    if art not in ART:
        raise ValueError(f"art must be one of {', '.join(ART)}, not {art!r}")
    return art


def _rng_range(rng, value):
    if isinstance(value, (tuple, list)):
        return float(rng.uniform(value[0], value[1]))
    return float(value)


def render_table(layout, *, width: int = 1920, height: int = 1080, px_per_module: float = 3.3, seed: int = 0,
                 table: str | None = None, blur=(0.6, 1.0), noise=(2.0, 4.0), tilt: float = 3.0,
                 perspective: float = 6.0, jitter: float = 2.0, light: float = 0.25, glare: float = 0.35,
                 jpeg=(80, 93), foreign_codes=0, hands: int = 0, occlude: dict | None = None,
                 damage: dict | None = None, bayer: bool = True, art: str = "soft", card=None,
                 wrap: bool = False, card_detail: float = 2.0, faces=None, face_stickers: bool = False,
                 on_top=()) -> Scene:
    """One photo-like frame of ``layout`` (RowLayout, GridLayout, RowsLayout, BoardLayout or FreeLayout).

    - ``table``: "wood" or "cloth" (default: drawn from the seed); ``blur``: lens blur sigma in
      pixels (a range is drawn from); ``noise``: sensor noise sigma in grey levels at mid grey;
    - ``tilt``: the layout turned up to this many degrees; ``perspective``: camera tilt up to this many
      degrees; ``jitter``: each card turned up to about this many degrees (less where cards overlap);
    - ``light``: how uneven the light is (0 = flat); ``glare``: strength of a soft highlight (0 = none);
    - ``jpeg``: quality (a range is drawn from; None = no compression); ``bayer``: simulate a colour
      sensor's mosaic at 1.2x the picture's size, its demosaicing and the scaling (as the Pi camera's
      1080p from its 2304x1296 binned mode); False: an ideal sensor;
    - ``foreign_codes``: a count, or the texts, of other QR codes lying on the table (leaflets, a
      menu, a box); ``hands``: hands over the table; ``occlude``: payload -> fraction of its code
      hidden under an object; ``damage``: payload -> number of modules scratched (flipped);
    - ``art``: the cards' pictures: "soft" (blurred coloured shapes) or "busy" (sharp small print and
      pictures that look like codes: block patterns, checks, dots, squares like finder patterns);
    - ``card``: (width, height, gap across, gap down) of a card and the room people leave between
      cards, in modules (default: CARD_W x CARD_H, a card about twice its sticker);
    - ``wrap``: a row longer than the frame is wide goes on in a second line below (and a third...),
      left to right, as people lay a long Timeline row on a real table; without it a long row is
      squeezed into one line, cards overlapping;
    - ``card_detail``: pixels of a card's face (its picture, title, year; not its sticker) per picture
      pixel: 2 draws them finely, 1 twice as fast (big cards in a 12 MP picture);
    - ``faces``: payload -> a picture of that card's printed face (BGR, any size): the card is drawn
      with it and without a sticker (a card known by its face, companion/vision/faces.py); its truth
      entry's corners are then the card's own, top left first; ``face_stickers``: those cards carry
      their sticker too (not in the truth: the bench reads the same cards both ways);
    - ``on_top``: payloads of cards drawn after all the others, over the neighbours they overlap, as a
      card lies when it was laid last (otherwise cards are drawn in the layout's order: in an
      overlapping row each card lies over the right part of the card before it).
    """
    plan = _make_plan(layout, width, height, px_per_module, seed, table, blur, noise, tilt, perspective, jitter,
                      light, glare, jpeg, foreign_codes, hands, occlude or {}, damage or {}, card, wrap)
    plan.bayer = bayer
    plan.art = _art(art)
    plan.card_detail = card_detail
    plan.faces = dict(faces) if faces else None
    plan.face_stickers = face_stickers
    plan.on_top = frozenset(on_top)
    return _draw(plan, np.random.default_rng([seed, 1]))


def fits(layout, *, width: int = 1920, height: int = 1080, px_per_module: float = 3.3, seed: int = 0,
         tilt: float = 3.0, perspective: float = 6.0, jitter: float = 2.0, table: str | None = None, card=None,
         wrap: bool = False) -> bool:
    """Whether ``layout`` fits the frame at this scale (without drawing anything), drawn as
    ``render_table`` draws it with the same arguments (the table is drawn from the seed too)."""
    try:
        _make_plan(layout, width, height, px_per_module, seed, table, 0, 0, tilt, perspective, jitter, 0, 0, None, 0,
                   0, {}, {}, card, wrap)
    except ValueError:
        return False
    return True


def render_sequence(layout, frames: int = 5, *, shake: float = 0.6, seed: int = 0, **kw) -> list[Scene]:
    """``frames`` frames of one still table: the same cards and light, the camera shaking by about
    ``shake`` pixels (sub-pixel on a solid mount), fresh noise and JPEG each frame."""
    width, height = kw.pop("width", 1920), kw.pop("height", 1080)
    ppm = kw.pop("px_per_module", 3.3)
    args: dict[str, Any] = dict(table=None, blur=(0.6, 1.0), noise=(2.0, 4.0), tilt=3.0, perspective=6.0, jitter=2.0,
                                light=0.25, glare=0.35, jpeg=(80, 93), foreign_codes=0, hands=0, occlude={}, damage={},
                                bayer=True, art="soft")
    unknown = set(kw) - set(args)
    if unknown:
        raise TypeError(f"render_sequence: unknown options {sorted(unknown)}")
    args.update(kw)
    plan = _make_plan(layout, width, height, ppm, seed, args["table"], args["blur"], args["noise"], args["tilt"],
                      args["perspective"], args["jitter"], args["light"], args["glare"], args["jpeg"],
                      args["foreign_codes"], args["hands"], args["occlude"] or {}, args["damage"] or {})
    plan.bayer = args["bayer"]
    plan.art = _art(args["art"])
    rng = np.random.default_rng([seed, 2])
    out = []
    for k in range(frames):
        dx, dy = (0.0, 0.0) if k == 0 else rng.normal(0, shake, 2)
        da = 0.0 if k == 0 else rng.normal(0, 0.03)
        out.append(_draw(plan, np.random.default_rng([seed, 3, k]), shift=(dx, dy), turn=da))
    return out


def _make_plan(layout, width, height, ppm, seed, table, blur, noise, tilt, perspective, jitter, light, glare,
               jpeg, foreign_codes, hands, occlude, damage, card=None, wrap=False) -> _Plan:
    if ppm <= 0:
        raise ValueError("px_per_module must be above 0")
    rng = np.random.default_rng([seed, 0])
    table = table or ("wood" if rng.random() < 0.5 else "cloth")
    if table not in ("wood", "cloth"):
        raise ValueError(f"table must be wood or cloth, not {table!r}")
    # table units visible: the frame with a margin for tilt, perspective and jitter
    avail_w, avail_h = width / ppm * 0.9, height / ppm * 0.88
    board, board_mm = None, 1.0
    if isinstance(layout, RowLayout):
        items = _row_items(layout.codes, avail_w, avail_h, jitter, rng, card, wrap)
    elif isinstance(layout, GridLayout):
        items = _grid_items(layout.rows, avail_w, avail_h, jitter, rng, card)
    elif isinstance(layout, RowsLayout):
        items = _rows_items(layout.rows, avail_w, avail_h, jitter, rng, card)
    elif isinstance(layout, FreeLayout):
        items = _free_items(layout.codes, avail_w, avail_h, rng)
    elif isinstance(layout, BoardLayout):
        items, board, board_mm = _board_items(layout, width, height, ppm, jitter, rng)
        avail_w, avail_h = board.width / board_mm, board.height / board_mm
    else:
        raise TypeError(f"render_table: not a layout: {layout!r}")
    for it in items:
        if it.text in occlude:
            it.occlude = float(occlude[it.text])
        if it.text in damage:
            it.damage = int(damage[it.text])
    H = None
    # A board lies still under the camera: its pose comes from the seed alone, so every layout of one
    # board is a photo of the same board (and its picture is drawn once, _board_on_table).
    pose = np.random.default_rng([seed, 4]) if board is not None else rng
    whole = [] if board is None else [_Item("board", board.key, 0.0, 0.0, 0.0, board.width / board_mm,
                                            board.height / board_mm)]
    for attempt in range(6):
        shrink = 0.5 ** attempt
        turn = pose.uniform(-tilt, tilt) * shrink
        tx, ty = pose.uniform(-perspective, perspective, 2) * shrink
        H = _camera(width, height, ppm, turn, tx, ty)
        if _all_inside(whole + items, H, width, height):     # a board's corner markers too
            break
    else:
        raise ValueError(f"the layout does not fit a {width}x{height} frame at {ppm} px/module")
    items[:0] = whole
    n_foreign = foreign_codes if isinstance(foreign_codes, int) else len(foreign_codes)
    texts = ([FOREIGN_TEXTS[(seed + i) % len(FOREIGN_TEXTS)] for i in range(n_foreign)]
             if isinstance(foreign_codes, int) else list(foreign_codes))
    for i, text in enumerate(texts):
        leaflet = _place_foreign(text, items, H, width, height, ppm, rng, i)
        if leaflet is not None:
            items.append(leaflet)
    for _ in range(hands):
        hx, hy = _random_point(width, height, H, rng)
        items.append(_Item("hand", "", hx, hy, float(rng.uniform(0, 360)), float(rng.uniform(70, 110)),
                           float(rng.uniform(90, 130)), style=int(rng.integers(4))))
    # the room (table, lamps) depends on the seed only: another layout is the same table
    room = np.random.default_rng([seed, 8])
    colour = _table_colour(table, room)
    light_p = dict(strength=light, gx=room.uniform(-1, 1), gy=room.uniform(-1, 1), bx=room.uniform(0.1, 0.9),
                   by=room.uniform(0.1, 0.9), vign=room.uniform(0.05, 0.2) * min(1.0, light / 0.25),
                   level=room.uniform(0.85, 1.05), tint=room.uniform(0.94, 1.06, 3))
    glare_p = dict(strength=room.uniform(0, glare) if glare else 0.0, x=room.uniform(0.15, 0.85),
                   y=room.uniform(0.15, 0.85), rx=room.uniform(0.05, 0.15), ry=room.uniform(0.03, 0.1),
                   a=room.uniform(0, 180))
    sigma = _rng_range(rng, blur)
    noise_v = _rng_range(rng, noise)
    quality = None if jpeg is None else int(round(_rng_range(rng, jpeg)))
    return _Plan(width, height, ppm, seed, items, H, table, colour, light_p, glare_p, sigma, noise_v, quality, layout,
                 board, board_mm)


# -- layouts in table units ------------------------------------------------------------------------------

def _pitch(n: int, avail: float, natural: float, size: float, what: str) -> tuple[float, float]:
    """Card spacing and card size along one direction so that n cards span at most ``avail`` units
    (they overlap when they must; the last card may be shortened down to a sticker's height)."""
    if n <= 1:
        return natural, min(size, avail)
    pitch = min(natural, (avail - size) / (n - 1))
    if pitch >= MIN_PITCH:
        return pitch, size
    pitch = MIN_PITCH
    size = avail - (n - 1) * pitch
    if size < MIN_PITCH:
        raise ValueError(f"{n} cards {what} do not fit: a sticker needs {MIN_PITCH:.1f} modules of card each, "
                         f"{avail:.0f} modules are in view")
    return pitch, size


def _overlap_jitter(pitch: float, size: float, jitter: float) -> float:
    """Where cards overlap, a turned card would cover its neighbour's sticker: turn less."""
    slack = pitch - MIN_PITCH
    if pitch >= size + 2:
        return jitter
    return min(jitter, math.degrees(math.asin(min(1.0, max(slack, 0.0) / 80))))


def row_lines(n: int, avail_w: float, avail_h: float, card=None) -> list[int] | None:
    """How many of ``n`` cards lie in each line of a row that wraps: as many as fit side by side in
    ``avail_w``, then the next line below; None when the lines need more than ``avail_h`` (all in
    table units; ``card`` as ``render_table`` takes it)."""
    cw, ch, gx, gy = card or (CARD_W, CARD_H, 6.0, 6.0)
    per_line = max(1, int((avail_w - cw) // (cw + gx)) + 1) if avail_w >= cw else 0
    if per_line == 0 or ch > avail_h:
        return None
    lines = [per_line] * (n // per_line) + ([n % per_line] if n % per_line else [])
    if (len(lines) - 1) * (ch + gy) + ch > avail_h:
        return None
    return lines or [0]


def _wrapped_row_items(codes, avail_w, avail_h, jitter, rng, card) -> list[_Item]:
    cw, ch, gx, gy = card or (CARD_W, CARD_H, 6.0, 6.0)
    lines = row_lines(len(codes), avail_w, avail_h, card)
    if lines is None:
        raise ValueError(f"{len(codes)} cards do not fit in lines of a {avail_w:.0f} x {avail_h:.0f} module view")
    pitch, line_pitch = cw + gx, ch + gy
    # one line: centred; more: every line starts at the left, as a row read like text
    first = (lines[0] - 1) / 2
    items, i = [], 0
    for k, count in enumerate(lines):
        for j in range(count):
            items.append(_Item("card", codes[i], (j - first) * pitch + rng.normal(0, 0.4),
                               (k - (len(lines) - 1) / 2) * line_pitch + rng.normal(0, 0.8),
                               float(np.clip(rng.normal(0, jitter / 2), -jitter, jitter)), cw, ch, k, j,
                               style=_style(codes[i])))
            i += 1
    return items


def _row_items(codes, avail_w, avail_h, jitter, rng, card=None, wrap=False) -> list[_Item]:
    if wrap:
        return _wrapped_row_items(codes, avail_w, avail_h, jitter, rng, card)
    n = len(codes)
    cw, ch, gx, _gy = card or (CARD_W, CARD_H, 6.0, 6.0)
    pitch, w = _pitch(n, avail_w, cw + gx, cw, "in a row")
    h = min(ch, avail_h)
    if h < STICKER + 2 * EDGE:
        raise ValueError("the frame is too low for one row of stickers at this scale")
    jit = _overlap_jitter(pitch, cw, jitter)
    pos = 0.4 * min(1.0, (pitch - MIN_PITCH) / 4)
    items = []
    for i, code in enumerate(codes):
        items.append(_Item("card", code, (i - (n - 1) / 2) * pitch + rng.normal(0, pos), rng.normal(0, 0.8),
                           float(np.clip(rng.normal(0, jit / 2), -jit, jit)), w, h, 0, i,
                           style=_style(code)))
    return items


def _grid_items(rows, avail_w, avail_h, jitter, rng, card=None) -> list[_Item]:
    cw, ch, gx, gy = card or (CARD_W, CARD_H, 6.0, 6.0)
    n_rows = len(rows)
    n_cols = max((len(r) for r in rows), default=0)
    px, w = _pitch(n_cols, avail_w, cw + gx, cw, "across the grid")
    py, h = _pitch(n_rows, avail_h, ch + gy, ch, "rows")
    jit = min(_overlap_jitter(px, w, jitter), _overlap_jitter(py, h, jitter))
    pos = 0.4 * min(1.0, (min(px, py) - MIN_PITCH) / 4)
    items = []
    for r, row in enumerate(rows):
        for c, code in enumerate(row):
            if code is None:
                continue
            items.append(_Item("card", code, (c - (n_cols - 1) / 2) * px + rng.normal(0, pos),
                               (r - (n_rows - 1) / 2) * py + rng.normal(0, pos),
                               float(np.clip(rng.normal(0, jit / 2), -jit, jit)), w, h, r, c,
                               style=_style(code)))
    return items


def _rows_items(rows, avail_w, avail_h, jitter, rng, card=None) -> list[_Item]:
    """Several players' own rows, one above the other, each starting at the same left edge (a row
    grows to the right, as people lay it: a new card moves no other row). Rows that do not fit one
    below the other overlap, each covering the lower part of the row above (the stickers lie near
    the top of a card)."""
    cw, ch, gx, gy = card or (CARD_W, CARD_H, 6.0, 6.0)
    longest = max((len(r) for r in rows), default=0)
    px, w = _pitch(longest, avail_w, cw + gx, cw, "in a row")
    py, h = _pitch(len(rows), avail_h, ch + gy, ch, "rows one below the other")
    jit = min(_overlap_jitter(px, w, jitter), _overlap_jitter(py, h, jitter))
    left = -avail_w / 2 + w / 2
    items = []
    for r, row in enumerate(rows):
        for j, code in enumerate(row):
            items.append(_Item("card", code, left + j * px + rng.normal(0, 0.4),
                               (r - (len(rows) - 1) / 2) * py + rng.normal(0, 0.8),
                               float(np.clip(rng.normal(0, jit / 2), -jit, jit)), w, h, r, j, style=_style(code)))
    return items


def _free_items(codes, avail_w, avail_h, rng) -> list[_Item]:
    for w, h in ((CARD_W, CARD_H), (STICKER + 2 * EDGE + 4, STICKER + 2 * EDGE + 12)):
        radius = math.hypot(w, h) / 2
        placed: list[tuple[float, float]] = []
        for _ in range(len(codes)):
            for _try in range(400):
                x = rng.uniform(-avail_w / 2 + radius, avail_w / 2 - radius)
                y = rng.uniform(-avail_h / 2 + radius, avail_h / 2 - radius)
                if all(math.hypot(x - a, y - b) > 2 * radius for a, b in placed):
                    placed.append((x, y))
                    break
            else:
                break
        if len(placed) == len(codes):
            order = sorted(range(len(codes)), key=lambda i: (placed[i][1], placed[i][0]))
            return [_Item("card", codes[i], placed[i][0], placed[i][1], float(rng.uniform(0, 360)), w, h, 0, k,
                          style=_style(codes[i])) for k, i in enumerate(order)]
    raise ValueError(f"{len(codes)} cards do not fit apart on the table at this scale")


def _board_items(layout: BoardLayout, width, height, ppm, jitter, rng):
    from companion.vision.boards import load_board

    board = load_board(layout.board)
    px_mm = min(width * 0.9 / board.width, height * 0.88 / board.height)
    module_mm = ppm / px_mm           # the sticker size that gives this scale with the board filling the frame
    unit = module_mm                  # board mm per table unit
    sticker_mm = (STICKER + 2 * EDGE) * module_mm
    items = []
    spots = sorted(((board.spot(name), code) for name, code in layout.spots.items() if code is not None),
                   key=lambda sc: (sc[0].y, sc[0].x))
    row_keys = sorted({round(s.y) for s, _ in spots})
    counters: dict[int, int] = {}
    for spot, code in spots:
        strip = spot.h < 0.6 * spot.w
        cw = spot.w - 4
        ch = max(spot.h - 4, 1.4 * cw) if strip else spot.h - 4
        if sticker_mm > min(cw, spot.h if strip else ch):
            raise ValueError(f"at {ppm} px/module a {layout.board} board fills the frame with "
                             f"{sticker_mm:.0f} mm stickers, larger than spot {spot.name}")
        top = spot.y + 2 if strip else spot.y + (spot.h - ch) / 2
        cx = spot.x + spot.w / 2 + rng.normal(0, 0.6)
        cy = top + ch / 2 + rng.normal(0, 0.6)
        r = row_keys.index(round(spot.y))
        k = counters.get(r, 0)
        counters[r] = k + 1
        items.append(_Item("card", code, (cx - board.width / 2) / unit, (cy - board.height / 2) / unit,
                           float(np.clip(rng.normal(0, jitter / 3), -jitter / 2, jitter / 2)) if strip else
                           float(np.clip(rng.normal(0, jitter / 2), -jitter, jitter)),
                           cw / unit, ch / unit, r, k, style=_style(code), spot=spot.name))
    return items, board, unit


def _style(code: str) -> int:
    return zlib.crc32(code.encode()) & 0xFFFF


def _corners(it: _Item, w=None, h=None, ox=0.0, oy=0.0) -> np.ndarray:
    """Corners (table units) of a w x h rectangle at offset (ox, oy) from the item's top-left, turned
    with the item."""
    w = it.w if w is None else w
    h = it.h if h is None else h
    a = math.radians(it.angle)
    c, s = math.cos(a), math.sin(a)
    local = np.array([[ox, oy], [ox + w, oy], [ox + w, oy + h], [ox, oy + h]]) - [it.w / 2, it.h / 2]
    return np.stack([it.cx + local[:, 0] * c - local[:, 1] * s, it.cy + local[:, 0] * s + local[:, 1] * c], 1)


def _item_to_table(it: _Item) -> np.ndarray:
    """Item-local units (origin at its top-left) -> table units."""
    a = math.radians(it.angle)
    c, s = math.cos(a), math.sin(a)
    R = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])
    return np.array([[1, 0, it.cx], [0, 1, it.cy], [0, 0, 1.0]]) @ R @ np.array(
        [[1, 0, -it.w / 2], [0, 1, -it.h / 2], [0, 0, 1.0]])


def _project(H: np.ndarray, pts: ArrayLike) -> np.ndarray:
    return cv2.perspectiveTransform(np.asarray(pts, np.float64).reshape(-1, 1, 2), H).reshape(-1, 2)


def _camera(width, height, ppm, turn_deg, tilt_x_deg, tilt_y_deg) -> np.ndarray:
    """Table units -> pixels: scale, the layout's turn, then a camera tilt (a homography that keeps the
    scale at the middle of the image)."""
    a = math.radians(turn_deg)
    A = np.array([[ppm * math.cos(a), -ppm * math.sin(a), 0], [ppm * math.sin(a), ppm * math.cos(a), 0], [0, 0, 1]])
    f = 1.1 * width
    ax, ay = math.radians(tilt_x_deg), math.radians(tilt_y_deg)
    Rx = np.array([[1, 0, 0], [0, math.cos(ax), -math.sin(ax)], [0, math.sin(ax), math.cos(ax)]])
    Ry = np.array([[math.cos(ay), 0, math.sin(ay)], [0, 1, 0], [-math.sin(ay), 0, math.cos(ay)]])
    K = np.diag([f, f, 1.0])
    P = K @ Rx @ Ry @ np.linalg.inv(K)
    p0 = _project(P, [[0, 0]])[0]
    e = _project(P, [[0, 0], [1, 0], [0, 1]])
    J = np.stack([e[1] - e[0], e[2] - e[0]], 1)
    s = math.sqrt(abs(np.linalg.det(J)))
    N = np.array([[1 / s, 0, -p0[0] / s], [0, 1 / s, -p0[1] / s], [0, 0, 1]])
    C = np.array([[1, 0, (width - 1) / 2], [0, 1, (height - 1) / 2], [0, 0, 1]])
    return C @ N @ P @ A


def _all_inside(items, H, width, height, margin=6) -> bool:
    for it in items:
        p = _project(H, _corners(it))
        if p[:, 0].min() < margin or p[:, 1].min() < margin or p[:, 0].max() > width - 1 - margin \
                or p[:, 1].max() > height - 1 - margin:
            return False
    return True


def _random_point(width, height, H, rng) -> tuple[float, float]:
    p = rng.uniform([0.1 * width, 0.1 * height], [0.9 * width, 0.9 * height])
    x, y = _project(np.linalg.inv(H), [p])[0]
    return float(x), float(y)


def _place_foreign(text, items, H, width, height, ppm, rng, i) -> _Item | None:
    import segno

    qr = segno.make_qr(text, error="m")
    n = len(qr.matrix)
    module = float(rng.uniform(1.0, 1.5))
    w = (n + 8) * module
    h = w + (8 if i % 2 else 0)
    boxes = [_bbox(_project(H, _corners(it))) for it in items if it.kind in ("card", "foreign")]
    inv = np.linalg.inv(H)
    for _ in range(200):
        p = rng.uniform([0, 0], [width, height])
        cx, cy = _project(inv, [p])[0]
        it = _Item("foreign", text, float(cx), float(cy), float(rng.uniform(-25, 25)), w, h, module=module,
                   style=i)
        b = _bbox(_project(H, _corners(it)))
        if b[0] < 4 or b[1] < 4 or b[2] > width - 5 or b[3] > height - 5:
            continue
        if any(b[0] < o[2] + 6 and o[0] < b[2] + 6 and b[1] < o[3] + 6 and o[1] < b[3] + 6 for o in boxes):
            continue
        if it.module * ppm < 1.2:
            return None
        return it
    return None


def _bbox(p):
    return p[:, 0].min(), p[:, 1].min(), p[:, 0].max(), p[:, 1].max()


# -- drawing ------------------------------------------------------------------------------------------------

def _table_colour(table, rng):
    if table == "wood":
        choices = [(58, 96, 140), (70, 115, 165), (40, 70, 105), (95, 140, 185)]
    else:
        choices = [(45, 95, 40), (110, 70, 35), (85, 85, 90), (45, 45, 115), (120, 110, 95)]
    base = np.array(choices[int(rng.integers(len(choices)))], float)
    return tuple(base * rng.uniform(0.9, 1.1))


def _noise_field(rng, h, w, scale, octaves=3) -> np.ndarray:
    """Smooth noise in [-1, 1], features about ``scale`` pixels across."""
    out = np.zeros((h, w), np.float32)
    amp, total = 1.0, 0.0
    for k in range(octaves):
        s = max(1.0, scale / 2 ** k)
        small = rng.standard_normal((max(2, int(h / s) + 2), max(2, int(w / s) + 2))).astype(np.float32)
        out += amp * cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
        total += amp
        amp *= 0.5
    return out / total


@lru_cache(maxsize=4)
def _cached_background(table: str, colour: tuple, seed: int, size: tuple) -> np.ndarray:
    """The same table under every frame of a sequence and every layout of the virtual table."""
    return _background(table, colour, np.random.default_rng([seed, 5]), size)


def _background(table: str, colour: tuple, rng, size) -> np.ndarray:
    """Wood planks with grain, or cloth with its weave (the grain is drawn at half size: it is soft)."""
    w, h = size
    base = np.array(colour, np.float32)
    if table == "wood":
        # Planks along x on a larger canvas, turned to a random direction: each plank its own tone,
        # long streaks (noise stretched along the grain) and thin darker grain lines that wander.
        hh, ww = (h + 1) // 2, (w + 1) // 2
        side = int(math.hypot(hh, ww)) + 4
        ys = np.arange(side, dtype=np.float32)[:, None]
        streak = np.zeros((side, side), np.float32)
        for length, width, amp in ((160, 3, 1.0), (60, 1.5, 0.6), (400, 12, 0.8)):
            small = rng.standard_normal((max(2, int(side / width)), max(2, int(side / length)))).astype(np.float32)
            streak += amp * cv2.resize(small, (side, side), interpolation=cv2.INTER_CUBIC)
        wander = cv2.resize(rng.standard_normal((8, max(2, side // 90))).astype(np.float32), (side, side),
                            interpolation=cv2.INTER_CUBIC) * 6
        period = rng.uniform(5.0, 9.0)
        grain = np.abs(np.sin((ys + wander + 2 * streak) / period * math.pi)) ** 8
        plank_w = rng.uniform(90, 160)
        plank = np.floor((ys + 1000) / plank_w)
        tone = (np.sin(plank * 12.9898) * 43758.5453) % 1.0         # a fixed tone per plank
        seam = np.clip(1.2 - np.minimum((ys + 1000) % plank_w, plank_w - (ys + 1000) % plank_w), 0, 1)
        flat = (1 + 0.10 * (tone - 0.5) + 0.035 * streak - 0.10 * grain - 0.45 * seam).astype(np.float32)
        ang = rng.uniform(-20, 20) + (90 if rng.random() < 0.3 else 0)
        M = np.asarray(cv2.getRotationMatrix2D((side / 2, side / 2), ang, 1.0), np.float64)
        M[:, 2] += [ww / 2 - side / 2, hh / 2 - side / 2]
        shade: np.ndarray = cv2.warpAffine(flat, M, (ww, hh), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
        shade = cv2.resize(shade, (w, h), interpolation=cv2.INTER_LINEAR)
        shade = shade + 0.015 * rng.standard_normal((h, w), dtype=np.float32)
    else:
        fine = rng.standard_normal((h, w), dtype=np.float32)
        fine = cv2.GaussianBlur(fine, (0, 0), 0.7)
        ys = np.cos(np.arange(h, dtype=np.float32) * 2.1)
        xs = np.cos(np.arange(w, dtype=np.float32) * 2.1)
        shade = 1 + 0.06 * fine + 0.03 * ys[:, None] * xs[None, :] + 0.06 * _noise_field(rng, h, w, 200, 2)
    return base[None, None, :] * shade[..., None]


@lru_cache(maxsize=48)
def _sticker_texture(payload: str, R: int, damage: int, seed: int) -> np.ndarray:
    """The printed sticker at R pixels per module, grey (float32, 0..255)."""
    size = int(round(STICKER * R))
    img = np.full((size, size), 247.0, np.float32)
    m = make_sticker_matrix(payload)
    if damage:
        rng = np.random.default_rng([seed, zlib.crc32(payload.encode())])
        flip = rng.choice(21 * 21, size=min(damage, 21 * 21), replace=False)
        m = m.copy().reshape(-1)
        m[flip] = ~m[flip]
        m = m.reshape(21, 21)
    ox, oy = int(round(CODE_X * R)), int(round(CODE_Y * R))
    block = np.kron(m, np.ones((R, R), bool))
    img[oy:oy + 21 * R, ox:ox + 21 * R][block] = 28.0
    number = payload.rsplit(":", 1)[-1]
    scale = 2.6 * R / 22
    (tw, th), _ = cv2.getTextSize(number, cv2.FONT_HERSHEY_SIMPLEX, scale, max(1, R // 4))
    cv2.putText(img, number, ((size - tw) // 2, int(round((CODE_Y + 21 + 1.0) * R)) + th), cv2.FONT_HERSHEY_SIMPLEX,
                scale, 40.0, max(1, R // 4), cv2.LINE_AA)
    return img


def _qr_texture(text: str, R: int) -> np.ndarray:
    import segno

    qr = segno.make_qr(text, error="m")
    m = np.array(qr.matrix, dtype=bool)
    img = np.full(((m.shape[0] + 8) * R, (m.shape[1] + 8) * R), 245.0, np.float32)
    img[4 * R:4 * R + m.shape[0] * R, 4 * R:4 * R + m.shape[1] * R][np.kron(m, np.ones((R, R), bool))] = 25.0
    return img


WORDS = ("Printing press", "Moon landing", "Great Wall", "Telephone", "Penicillin", "Steam engine", "Magna Carta",
         "Olympic Games", "Compass", "Eiffel Tower", "Vaccine", "Radio", "Pyramids", "Gunpowder", "Paper money",
         "Telescope", "Railway", "Photography", "Windmill", "Chess")
PAPER = ((232, 238, 242), (215, 230, 240), (225, 232, 225), (236, 236, 236), (205, 225, 238))
ART = ("soft", "busy")
INK = (35.0, 30.0, 30.0)


def _busy_picture(pic: np.ndarray, R: int, rng) -> None:
    """Sharp card art that looks like code texture to a camera (R pixels per sticker module): a block
    pattern of module-sized squares with three finder-like squares, a check, a dot screen, and lines
    of small print over all of it."""
    h, w = pic.shape[:2]
    kind = int(rng.integers(3))
    if kind == 0:
        n = int(rng.integers(17, 30))                 # a random block picture, about a sticker's modules
        blocks = rng.random((n, n)) < 0.5
        for r0, c0 in ((0, 0), (0, n - 7), (n - 7, 0)):
            blocks[r0:r0 + 7, c0:c0 + 7] = True
            blocks[r0 + 1:r0 + 6, c0 + 1:c0 + 6] = False
            blocks[r0 + 2:r0 + 5, c0 + 2:c0 + 5] = True
        big = cv2.resize(blocks.astype(np.uint8), (min(w, n * R), min(h, n * R)), interpolation=cv2.INTER_NEAREST)
        pic[:big.shape[0], :big.shape[1]][big > 0] = INK
    elif kind == 1:
        step = max(2, int(R * rng.uniform(1.0, 2.0)))  # a check of squares one to two modules wide
        yy, xx = np.mgrid[0:h, 0:w]
        pic[((yy // step + xx // step) % 2) == 0] = INK
    else:
        step = max(3, int(R * rng.uniform(1.2, 2.0)))  # a dot screen, as printed pictures are
        for y in range(step // 2, h, step):
            for x in range(step // 2, w, step):
                cv2.circle(pic, (x, y), max(1, int(step * rng.uniform(0.2, 0.45))), INK, -1, cv2.LINE_AA)
    size = R * 0.06
    for k in range(max(1, int(h / (R * 1.6)))):
        words = " ".join(WORDS[int(i)] for i in rng.integers(0, len(WORDS), 3))
        cv2.putText(pic, words, (int(R * 0.5), int((k + 1) * R * 1.6)), cv2.FONT_HERSHEY_SIMPLEX, size,
                    (20.0, 20.0, 20.0), max(1, R // 6), cv2.LINE_AA)


@lru_cache(maxsize=48)
def _card_texture(payload: str, w: float, h: float, R: int, style: int, art: str = "soft"
                  ) -> tuple[np.ndarray, np.ndarray]:
    """A card face (no sticker): paper, a picture, a title and a year. BGR float32 and its alpha."""
    W, Hh = int(round(w * R)), int(round(h * R))
    rng = np.random.default_rng(style)
    paper = np.array(PAPER[style % len(PAPER)], np.float32) * rng.uniform(0.95, 1.02)
    img = np.empty((Hh, W, 3), np.float32)
    img[:] = paper
    # the picture: soft coloured shapes in the lower part
    top = int(Hh * 0.5)
    pic = img[top:Hh - int(2 * R), int(2 * R):W - int(2 * R)]
    if pic.size:
        pic[:] = rng.uniform(80, 200, 3)
        for _ in range(6):
            c = (int(rng.uniform(0, pic.shape[1])), int(rng.uniform(0, pic.shape[0])))
            ax = (int(rng.uniform(0.1, 0.5) * pic.shape[1]), int(rng.uniform(0.1, 0.4) * pic.shape[0]))
            colour = tuple(float(v) for v in rng.uniform(30, 230, 3))
            cv2.ellipse(pic, c, ax, float(rng.uniform(0, 180)), 0, 360, colour, -1, cv2.LINE_AA)
        pic[:] = cv2.GaussianBlur(pic, (0, 0), R * 0.8)
        if art == "busy":
            _busy_picture(pic, R, rng)
    # the frame line, a title right of the sticker and the year under it
    cv2.rectangle(img, (int(R * 0.8), int(R * 0.8)), (W - int(R * 0.8), Hh - int(R * 0.8)),
                  tuple(float(v) * 0.75 for v in paper), max(1, R // 3))
    ink = (50.0, 45.0, 40.0)
    x_text = int((EDGE + STICKER + 1.5) * R)
    title = WORDS[style % len(WORDS)]
    if W - x_text > 6 * R:
        words = title.split()
        for k, word in enumerate(words):
            cv2.putText(img, word, (x_text, int((EDGE + 5 + 5 * k) * R)), cv2.FONT_HERSHEY_SIMPLEX, R * 0.13, ink,
                        max(1, R // 4), cv2.LINE_AA)
    year = str(1000 + style % 1000)
    y_year = int((EDGE + STICKER + 8) * R)
    if y_year < top - R:
        cv2.putText(img, year, (int(3 * R), y_year), cv2.FONT_HERSHEY_DUPLEX, R * 0.26, (40.0, 40.0, 160.0),
                    max(1, R // 2), cv2.LINE_AA)
    return img, _card_alpha(W, Hh, R)


def _card_alpha(W: int, Hh: int, R: int) -> np.ndarray:
    """A card's outline: a rectangle with rounded corners, as alpha."""
    alpha = np.zeros((Hh, W), np.float32)
    rad = int(2.2 * R)
    cv2.rectangle(alpha, (rad, 0), (W - 1 - rad, Hh - 1), 1.0, -1)
    cv2.rectangle(alpha, (0, rad), (W - 1, Hh - 1 - rad), 1.0, -1)
    for cx, cy in ((rad, rad), (W - 1 - rad, rad), (rad, Hh - 1 - rad), (W - 1 - rad, Hh - 1 - rad)):
        cv2.circle(alpha, (cx, cy), rad, 1.0, -1, cv2.LINE_AA)
    return alpha


def _face_texture(face: np.ndarray, w: float, h: float, R: int) -> tuple[np.ndarray, np.ndarray]:
    """A printed face at R pixels per table unit, as ``_card_texture`` draws a generated one."""
    W, Hh = int(round(w * R)), int(round(h * R))
    scaled = cv2.resize(face, (W, Hh), interpolation=cv2.INTER_AREA if W < face.shape[1] else cv2.INTER_LINEAR)
    return scaled.astype(np.float32), _card_alpha(W, Hh, R)


def release_scene_caches() -> None:
    """Forget the cached card and sticker textures (a long-running caller draws few scenes)."""
    _sticker_texture.cache_clear()
    _card_texture.cache_clear()


def _paste(canvas: np.ndarray, texture: np.ndarray, alpha: np.ndarray | None, M: np.ndarray, R: float, S: int,
           shadow: float = 0.0) -> None:
    """Warp ``texture`` (R px per item unit; M = item units -> image px) onto ``canvas`` through an S-times
    finer grid, area-averaged back, so edges and modules get their exact area coverage."""
    h_t, w_t = texture.shape[:2]
    T = np.array([[1 / R, 0, 0.5 / R], [0, 1 / R, 0.5 / R], [0, 0, 1.0]])
    full = M @ T
    corners = _project(full, [[-0.5, -0.5], [w_t - 0.5, -0.5], [w_t - 0.5, h_t - 0.5], [-0.5, h_t - 0.5]])
    pad = 3 + int(shadow * 3)
    x0 = max(0, int(math.floor(corners[:, 0].min())) - pad)
    y0 = max(0, int(math.floor(corners[:, 1].min())) - pad)
    x1 = min(canvas.shape[1], int(math.ceil(corners[:, 0].max())) + pad + 1)
    y1 = min(canvas.shape[0], int(math.ceil(corners[:, 1].max())) + pad + 1)
    if x1 <= x0 or y1 <= y0:
        return
    w, h = x1 - x0, y1 - y0
    Q = np.array([[S, 0, S * (0.5 - x0) - 0.5], [0, S, S * (0.5 - y0) - 0.5], [0, 0, 1.0]])
    W = Q @ full
    big = cv2.warpPerspective(texture, W, (w * S, h * S), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    a_src = alpha if alpha is not None else np.ones((h_t, w_t), np.float32)
    a_big = cv2.warpPerspective(a_src, W, (w * S, h * S), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                                borderValue=0)
    if S > 1:
        big = cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA)
        a = cv2.resize(a_big, (w, h), interpolation=cv2.INTER_AREA)
    else:
        a = a_big
    region = canvas[y0:y1, x0:x1]
    if shadow:
        sh = cv2.GaussianBlur(a, (0, 0), 1.5 + shadow)
        sh = np.roll(sh, (1, 1), (0, 1))
        region *= (1 - 0.3 * sh)[..., None]
    if big.ndim == 2:
        big = big[..., None]
    # region * (1 - a) + big * a, computed in place in the canvas (the same float32 steps, fewer
    # full-size copies)
    covered = big * a[..., None]
    region *= (1 - a)[..., None]
    np.add(region, covered, out=region)


def _draw(plan: _Plan, rng, shift=(0.0, 0.0), turn=0.0) -> Scene:
    c = ((plan.width - 1) / 2, (plan.height - 1) / 2)
    a = math.radians(turn)
    G = np.array([[math.cos(a), -math.sin(a), c[0] + shift[0] - math.cos(a) * c[0] + math.sin(a) * c[1]],
                  [math.sin(a), math.cos(a), c[1] + shift[1] - math.sin(a) * c[0] - math.cos(a) * c[1]],
                  [0, 0, 1.0]])
    H_out = G @ plan.H
    # A colour camera samples a Bayer mosaic finer than the picture it gives (the Pi's 1080p comes from
    # a 2304x1296 binned mosaic, demosaiced and scaled): draw at the sensor's size, scale down at the end.
    k = SENSOR_SCALE if plan.bayer else 1.0
    K = np.array([[k, 0, 0.5 * k - 0.5], [0, k, 0.5 * k - 0.5], [0, 0, 1.0]])
    H = K @ H_out
    size = (int(round(plan.width * k)), int(round(plan.height * k)))
    img = _cached_background(plan.table, tuple(float(v) for v in plan.table_colour), plan.seed, size).copy()
    R_card = max(4, int(math.ceil(plan.ppm * k * plan.card_detail)))
    R_stk = max(6, int(math.ceil(plan.ppm * k * SUPER * 1.2)))
    truth: list[TruthCode] = []
    foreign: list[ForeignTruth] = []
    spots: dict[str, str] = {}
    board_to_image = None
    # the cards laid last lie over the other cards, under hands and things lying about (a stable sort)
    order = {"foreign": 2, "hand": 2}
    items = sorted(plan.items, key=lambda it: order.get(it.kind, int(it.kind == "card" and it.text in plan.on_top))
                   ) if plan.on_top else plan.items
    for it in items:
        if it.kind == "board":
            img = _board_on_table(img, plan, it, H, R_card)
            board_to_image = H_out @ _item_to_table(it) @ np.diag([1 / plan.board_mm, 1 / plan.board_mm, 1.0])
        elif it.kind == "card" and plan.faces and it.text in plan.faces:
            tex, alpha = _face_texture(plan.faces[it.text], it.w, it.h, R_card)
            M = H @ _item_to_table(it)
            _paste(img, tex, alpha, M, R_card, 2 if plan.card_detail >= 2 else 1, shadow=1.0)
            corners = _project(np.linalg.inv(K) @ M, np.array([[0, 0], [it.w, 0], [it.w, it.h], [0, it.h]], float))
            truth.append(TruthCode(it.text, corners, (float(corners[:, 0].mean()), float(corners[:, 1].mean())),
                                   it.row, it.index))
            if plan.face_stickers:
                stk = _sticker_texture(it.text, R_stk, it.damage, plan.seed)
                _paste(img, stk, None, M @ np.array([[1, 0, EDGE], [0, 1, EDGE], [0, 0, 1.0]]), R_stk, SUPER)
        elif it.kind == "card":
            tex, alpha = _card_texture(it.text, round(it.w, 3), round(it.h, 3), R_card, it.style, plan.art)
            _paste(img, tex, alpha, H @ _item_to_table(it), R_card, 2 if plan.card_detail >= 2 else 1, shadow=1.0)
            stk = _sticker_texture(it.text, R_stk, it.damage, plan.seed)
            M = H @ _item_to_table(it) @ np.array([[1, 0, EDGE], [0, 1, EDGE], [0, 0, 1.0]])
            _paste(img, stk, None, M, R_stk, SUPER)
            code = _project(np.linalg.inv(K) @ M, [[CODE_X, CODE_Y], [CODE_X + 21, CODE_Y], [CODE_X + 21, CODE_Y + 21],
                                                   [CODE_X, CODE_Y + 21]])
            truth.append(TruthCode(it.text, code, (float(code[:, 0].mean()), float(code[:, 1].mean())), it.row,
                                   it.index))
            if it.spot:
                spots[it.text] = it.spot
            if it.occlude > 0:
                _occluder(img, M, it.occlude, it.style)
        elif it.kind == "foreign":
            _draw_foreign(img, H, it, R_stk, foreign, np.linalg.inv(K))
        elif it.kind == "hand":
            _draw_hand(img, H, it)
    _light(img, plan)
    _glare(img, plan)
    if plan.blur_sigma > 0:
        img = cv2.GaussianBlur(img, (0, 0), plan.blur_sigma * k)
    out = _sensor(img, plan, rng)
    if k != 1.0:
        out = cv2.resize(out, (plan.width, plan.height), interpolation=cv2.INTER_AREA)
    if plan.jpeg is not None:
        _ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, plan.jpeg])
        decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        if decoded is None:
            raise RuntimeError("OpenCV could not decode the JPEG it has just encoded")
        out = decoded
    truth = _in_reading_order(truth, plan.layout)
    params = dict(table=plan.table, blur_sigma=round(plan.blur_sigma, 3), noise=round(plan.noise, 3), jpeg=plan.jpeg,
                  glare=round(plan.glare["strength"], 3), shift=tuple(float(v) for v in shift), seed=plan.seed)
    return Scene(out, truth, foreign, plan.ppm, plan.layout, H_out, spots, board_to_image, params)


_BOARD_PICTURE: dict[tuple, np.ndarray] = {}


def _board_on_table(img: np.ndarray, plan: _Plan, it: _Item, H: np.ndarray, R_card: int) -> np.ndarray:
    """The table with the board pasted on it. Warping a board that fills the frame is most of a board
    scene's drawing time, and the virtual table draws the same board at the same pose for every card
    laid: the last one is kept (one picture, not released with the card textures)."""
    assert plan.board is not None, "a board item without its board"
    key = (plan.table, plan.seed, img.shape, plan.board.key, R_card, plan.board_mm, H.tobytes(), it.w, it.h)
    if key not in _BOARD_PICTURE:
        from companion.vision.boards import draw_board
        px_mm = max(2.0, R_card / plan.board_mm)
        tex = draw_board(plan.board, px_mm, labels=True).astype(np.float32)
        _paste(img, tex, None, H @ _item_to_table(it), tex.shape[1] / it.w, 2, shadow=1.0)
        _BOARD_PICTURE.clear()
        _BOARD_PICTURE[key] = img
    return _BOARD_PICTURE[key].copy()


def _sensor(img: np.ndarray, plan: _Plan, rng) -> np.ndarray:
    """What the sensor makes of the light: one colour per pixel (a Bayer mosaic), noise that grows with
    the light, then the colours interpolated back (demosaicing), as in every colour camera."""
    h, w = img.shape[:2]
    if plan.bayer:
        mosaic = np.empty((h, w), np.float32)
        mosaic[0::2, 0::2] = img[0::2, 0::2, 0]     # B G / G R
        mosaic[0::2, 1::2] = img[0::2, 1::2, 1]
        mosaic[1::2, 0::2] = img[1::2, 0::2, 1]
        mosaic[1::2, 1::2] = img[1::2, 1::2, 2]
        planes = mosaic
    else:
        planes = img
    if plan.noise > 0:
        sig = plan.noise * np.sqrt(0.3 + 0.7 * np.clip(planes, 0, 255) / 128.0)
        planes = planes + rng.standard_normal(planes.shape, dtype=np.float32) * sig
    # rounded and clipped in place: ``planes`` is this scene's own picture (or made here), never read again,
    # and at 12 MP each full-size temporary costs as much as the arithmetic
    np.add(planes, 0.5, out=planes)
    np.clip(planes, 0, 255, out=planes)
    out: np.ndarray = planes.astype(np.uint8)
    if plan.bayer:
        out = cv2.cvtColor(out, cv2.COLOR_BayerRG2BGR_EA)
    return out


def _in_reading_order(truth: list[TruthCode], layout) -> list[TruthCode]:
    if isinstance(layout, FreeLayout):
        return sorted(truth, key=lambda t: t.index)
    return sorted(truth, key=lambda t: (t.row, t.index))


def _occluder(img, M, fraction, style):
    """Something lying over the right part of the code (a coin, another card's corner)."""
    x0 = CODE_X + 21 * (1 - fraction)
    pts = _project(M, [[x0, -1], [STICKER + 3, -1], [STICKER + 3, STICKER + 1], [x0, STICKER + 1]])
    colour = (70.0, 120.0, 200.0) if style % 2 else (200.0, 205.0, 210.0)
    cv2.fillConvexPoly(img, np.round(pts * 16).astype(np.int32), colour, cv2.LINE_AA, shift=4)


def _draw_foreign(img, H, it: _Item, R_stk, out, back):
    """A leaflet or a box label with its QR code (and a line of text)."""
    paper = (240.0, 240.0, 238.0) if it.style % 2 == 0 else (170.0, 200.0, 230.0)
    corners = _project(H, _corners(it))
    shadow = corners + [1.5, 2.0]
    cv2.fillConvexPoly(img, np.round(shadow * 16).astype(np.int32), tuple(float(v) * 0.7 for v in img[
        int(np.clip(corners[0, 1], 0, img.shape[0] - 1)), int(np.clip(corners[0, 0], 0, img.shape[1] - 1))]),
        cv2.LINE_AA, shift=4)
    cv2.fillConvexPoly(img, np.round(corners * 16).astype(np.int32), paper, cv2.LINE_AA, shift=4)
    R = max(4, int(math.ceil(R_stk / it.module)))
    tex = _qr_texture(it.text, R)
    n_units = tex.shape[0] / R * it.module
    M = H @ _item_to_table(it) @ np.diag([it.module, it.module, 1.0])
    _paste(img, tex, None, M, R, SUPER)
    n = tex.shape[0] // R - 8
    code = _project(back @ M, [[4, 4], [4 + n, 4], [4 + n, 4 + n], [4, 4 + n]])
    out.append(ForeignTruth(it.text, code, (float(code[:, 0].mean()), float(code[:, 1].mean()))))
    if it.h > n_units + 2:
        p = _project(H @ _item_to_table(it), [[2, n_units + 5]])[0]
        cv2.putText(img, "scan me!", (int(p[0]), int(p[1])), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (60.0, 60.0, 60.0), 1,
                    cv2.LINE_AA)


def _draw_hand(img, H, it: _Item):
    skin = [(120.0, 150.0, 205.0), (95.0, 125.0, 175.0), (70.0, 95.0, 140.0), (140.0, 170.0, 220.0)][it.style]
    layer = np.zeros(img.shape[:2], np.float32)
    M = H @ _item_to_table(it)
    palm = _project(M, [[it.w / 2, it.h * 0.65]])[0]
    scale = math.sqrt(abs(np.linalg.det(M[:2, :2])))
    cv2.ellipse(layer, (int(palm[0]), int(palm[1])), (int(it.w * 0.42 * scale), int(it.h * 0.33 * scale)),
                it.angle, 0, 360, 1.0, -1, cv2.LINE_AA)
    for k in range(4):
        base = _project(M, [[it.w * (0.2 + 0.2 * k), it.h * 0.45]])[0]
        tip = _project(M, [[it.w * (0.15 + 0.23 * k), it.h * (0.02 + 0.08 * abs(k - 1.5))]])[0]
        cv2.line(layer, (int(base[0]), int(base[1])), (int(tip[0]), int(tip[1])), 1.0, max(2, int(it.w * 0.16 * scale)),
                 cv2.LINE_AA)
    soft = cv2.GaussianBlur(layer, (0, 0), 1.2)
    shadow = cv2.GaussianBlur(np.roll(layer, (12, 8), (0, 1)), (0, 0), 8)
    img *= (1 - 0.35 * shadow)[..., None]
    shade = 0.85 + 0.15 * cv2.GaussianBlur(layer, (0, 0), 15)
    img[:] = img * (1 - soft[..., None]) + (np.array(skin, np.float32) * shade[..., None]) * soft[..., None]


def _smooth_grid(h, w, step=8):
    """Normalised coordinates on a coarse grid (smooth fields are computed there and resized up)."""
    hs, ws = max(2, h // step), max(2, w // step)
    yy, xx = np.mgrid[0:hs, 0:ws].astype(np.float32)
    return xx / (ws - 1), yy / (hs - 1)


def _light(img, plan: _Plan):
    p = plan.light
    h, w = img.shape[:2]
    x, y = _smooth_grid(h, w)
    u, v = x - 0.5, y - 0.5
    field_ = p["level"] * (1 + p["strength"] * (0.5 * p["gx"] * u + 0.5 * p["gy"] * v))
    field_ += p["strength"] * 0.25 * np.exp(-((x - p["bx"]) ** 2 + (y - p["by"]) ** 2) / 0.08)
    field_ *= 1 - p["vign"] * (u * u + v * v) * 2
    field_ = cv2.resize(field_, (w, h), interpolation=cv2.INTER_LINEAR)
    # channel by channel: the same products as field * tint over the whole picture, without a
    # full-size three-channel temporary (143 MB at 12 MP)
    for c, t in enumerate(np.asarray(p["tint"], np.float32)):
        img[..., c] *= field_ * t


def _glare(img, plan: _Plan):
    """A soft highlight (a lamp reflected in glossy cards): light added, contrast lost under it."""
    g = plan.glare
    if g["strength"] <= 0:
        return
    h, w = img.shape[:2]
    x, y = _smooth_grid(h, w)
    a = math.radians(g["a"])
    dx, dy = (x - g["x"]) * w, (y - g["y"]) * h
    p = dx * math.cos(a) + dy * math.sin(a)
    q = -dx * math.sin(a) + dy * math.cos(a)
    mask = np.exp(-((p / (g["rx"] * w)) ** 2 + (q / (g["ry"] * w)) ** 2)).astype(np.float32)
    mask = cv2.resize(mask, (w, h), interpolation=cv2.INTER_LINEAR)
    img += (g["strength"] * mask)[..., None] * (255 - img)


def demo_codes(n: int, deck: str = "DEMO", start: int = 1) -> list[str]:
    """n sticker payloads of a deck, numbered from ``start`` (wrapping over the deck's numbers when known)."""
    from companion.cards.decks import get_deck
    from companion.cards.payload import format_payload
    try:
        numbers = sorted(get_deck(deck).cards)
    except Exception:
        numbers = list(range(1, 1000))
    return [format_payload(deck, numbers[(start - 1 + i) % len(numbers)]) for i in range(n)]


__all__ = ["Scene", "TruthCode", "ForeignTruth", "FreeLayout", "render_table", "render_sequence", "demo_codes",
           "RowLayout", "GridLayout", "RowsLayout", "BoardLayout", "Sequence"]
