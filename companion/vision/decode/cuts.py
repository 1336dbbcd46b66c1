"""Reading cut-outs: each candidate (or known code) is cut from the frame and read in the way its
size calls for. The cuts of one way are tiled into one picture that is sharpened and scaled in one
go, then each tile is decoded on its own."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from companion.vision.decode import readers
from companion.vision.decode.candidates import Candidate
from companion.vision.decode.image import crop
from companion.vision.decode.readers import ADAPTIVE, FIXED, GLOBAL, Hit, read

KNOWN_CUT = 1.4       # a known code's cut, in code sides: its place and size are known, not searched
SPLIT_AT = 12         # cuts from which a frame's cuts are read on two threads, half each
MOSAIC_WIDTH = 2048   # pixels, after scaling
_PAD = 2              # pixels between tiles (before scaling)
DARK_SHARE = 0.4      # the fixed threshold lies this share of the way from a sticker's black to its white


@dataclass
class Job:
    """A place to cut out and decode: a candidate, or a known code (its place and size)."""
    cand: Candidate
    known: bool = False


def crop_half(c: Candidate, step: int = 0) -> float:
    """Half the side of the cut around a candidate: the code and its quiet zone, with room for the
    search's usual error in centre and size; the second try cuts wider (where two cards' patches
    merged, the centre can be off by a third of the code)."""
    if step == 0 and c.cut:
        return c.cut
    return 1.3 * c.r + 3 if step == 0 else 1.6 * c.r + 4


Way = tuple[float, float, float, str]
# A way: (scale, sharpen sigma in crop pixels, amount, binarizer). The strong sharpening (amount 5-8,
# clipped to 0-255) undoes the lens blur and stretches the local contrast, which small codes need; the
# smallest get no second way in a single frame (bursts fuse them instead). How each way was chosen:
# docs/vision.md, "How the ways were chosen".
_WAYS_BY_SIZE: tuple[tuple[float, tuple[Way, ...]], ...] = (   # (smallest measured px/module, ways)
    (3.0, ((1, 0.8, 3.0, FIXED), (1.5, 0.9, 5.0, FIXED))),
    (2.8, ((1.5, 0.9, 5.0, FIXED), (3, 0.8, 8.0, FIXED))),
    (2.4, ((2, 0.9, 8.0, FIXED), (3, 0.8, 8.0, FIXED))),
    (0.0, ((2.5, 0.8, 8.0, FIXED),)),
)
PLAIN: Way = (1, 0.0, 0.0, ADAPTIVE)
# The other readings of a candidate, not tuned to stickers (hard sharpening, one fixed threshold): the
# cut as it is, cut into black and white by one threshold from its histogram; and from about 4 px per
# module (measured: SIZE_BIAS times that), a half-size copy (less speckle and noise per module)
OTHER_READINGS: tuple[Way, ...] = ((1, 0.0, 0.0, GLOBAL),)
HALF_FROM = 5.0
HALF: Way = (0.5, 0.0, 0.0, ADAPTIVE)


def ways(ppm: float) -> tuple[Way, ...]:
    for least, found in _WAYS_BY_SIZE:
        if ppm >= least:
            return found
    return _WAYS_BY_SIZE[-1][1]


def other_readings(ppm: float) -> tuple[Way, ...]:
    """A candidate's readings not tuned to stickers (``OTHER_READINGS``, and ``HALF`` from HALF_FROM)."""
    return OTHER_READINGS + (HALF,) if ppm >= HALF_FROM else OTHER_READINGS


def to_image(hit: Hit, scale: float, x0: float, y0: float) -> Hit:
    """Crop-upscaled pixels -> image pixels (pixel centres at integers)."""
    return Hit(hit.text, [((x + 0.5) / scale - 0.5 + x0, (y + 0.5) / scale - 0.5 + y0) for x, y in hit.corners])


def _levels(blurred: np.ndarray, y: int, h: int, spans: Sequence[tuple[int, int]]) -> list[float]:
    """The grey level that each tile of one shelf of the blurred mosaic is cut at: between the darkest
    and lightest of its middle (where the code is), nearer the dark: the blur leaves a lone black
    module lighter than a black area, and a lone white one not so much. The shelf starts at row
    ``y``, its shortest tile is ``h`` high, and ``spans`` are the tiles' columns, left to right."""
    band = blurred[y + h // 4:y + h - h // 4]
    cuts = [k for x0, x1 in spans for k in (x0 + (x1 - x0) // 4, x1 - (x1 - x0) // 4)]
    lo = np.minimum.reduceat(band.min(axis=0), cuts)[::2].astype(np.float32)
    hi = np.maximum.reduceat(band.max(axis=0), cuts)[::2]
    return (lo + DARK_SHARE * (hi - lo)).tolist()


def read_tiled(crops: Sequence[np.ndarray], origins: Sequence[tuple[float, float]], way, backend: str
               ) -> list[tuple[list[Hit], bool]]:
    """The hits in each crop read one way, in image pixels (``origins``: each crop's top-left corner in
    the image), and whether it held a code found but not decoded (``readers.read``). The crops are
    tiled into one picture that is sharpened and scaled in one go; the decoder then reads each tile's
    view of it on its own: one call over all the tiles costs about twice as much (it pairs up the
    finder patterns of different codes)."""
    scale = way[0]
    order = sorted(range(len(crops)), key=lambda i: -crops[i].shape[0])
    # shelves of tiles, as many shelves as MOSAIC_WIDTH calls for and as many tiles on each as can be
    # (the tiles of one way are about one size): the sharpening and scaling go with the mosaic's area
    total = sum(c.shape[1] + _PAD for c in crops)
    per_shelf = math.ceil(len(crops) / math.ceil(total * scale / MOSAIC_WIDTH))
    places = [(0, 0)] * len(crops)            # each tile's top-left corner in the mosaic (before scaling)
    shelves = [order[k:k + per_shelf] for k in range(0, len(order), per_shelf)]
    y = width = 0
    for tiles in shelves:
        x = 0
        for i in tiles:
            places[i] = (x, y)
            x += crops[i].shape[1] + _PAD
        width = max(width, x)
        y += crops[tiles[0]].shape[0] + _PAD      # the tallest first
    mosaic = np.full((y - _PAD, width), 255, np.uint8)
    for tile, (px, py) in zip(crops, places, strict=True):
        mosaic[py:py + tile.shape[0], px:px + tile.shape[1]] = tile
    _, sigma, amount, binarizer = way
    if sigma > 0:
        # tile + amount * (tile - blurred tile), which undoes the lens blur. The sharpened tiles are read
        # with a fixed threshold (mid-grey): each tile's sticker level is moved there in the same step,
        # so that a dim or a bright sticker is cut between its dark and light modules
        blurred = cv2.GaussianBlur(mosaic, (0, 0), sigma)
        for tiles in shelves:
            py = places[tiles[0]][1]
            spans = [(places[i][0], places[i][0] + crops[i].shape[1]) for i in tiles]
            for i, level in zip(tiles, _levels(blurred, py, crops[tiles[-1]].shape[0], spans), strict=True):
                px = places[i][0]
                h, w = crops[i].shape
                tile = mosaic[py:py + h, px:px + w]
                cv2.addWeighted(tile, 1 + amount, blurred[py:py + h, px:px + w], -amount, 127.0 - level, dst=tile)
    big = mosaic if scale == 1 else cv2.resize(mosaic, None, fx=scale, fy=scale,
                                               interpolation=cv2.INTER_CUBIC if scale > 1 else cv2.INTER_AREA)
    views, ats = [], []
    for tile, (px, py), (ox, oy) in zip(crops, places, origins, strict=True):
        h, w = tile.shape
        u0, v0 = int(px * scale), int(py * scale)
        views.append(big[v0:int(math.ceil((py + h) * scale)), u0:int(math.ceil((px + w) * scale))])
        # the tile's view starts at mosaic pixel (u0, v0) / scale, which is image pixel origin + that - place
        ats.append((u0 / scale - px + ox, v0 / scale - py + oy))
    return [read(view, backend, binarizer, scale, at) for view, at in zip(views, ats, strict=True)]


def read_jobs(gray: np.ndarray, jobs: Sequence[Job], backend: str, step: int, plain: bool = False,
              other: bool = False) -> list[tuple[list[Hit], bool]]:
    """Each job cut out and read its ``step``-th way (0: first, 1: second; ``plain``: as it is;
    ``other``: its ``step``-th reading not tuned to stickers, ``other_readings``, in its first cut), one
    tiled call per way: its hits in image pixels, and whether its cut held a code found but not
    decoded. Many jobs are shared between two threads, half each: the
    decoders and OpenCV let go of Python's lock while they work. Waking a thread costs about as much
    as reading one tile, so there is one hand-over per frame, not one per way or per tile."""
    if readers.TWO_READERS and len(jobs) >= SPLIT_AT:
        half = len(jobs) // 2
        there = readers.other_reader().submit(_read_jobs_here, gray, jobs[half:], backend, step, plain, other)
        return _read_jobs_here(gray, jobs[:half], backend, step, plain, other) + there.result()
    return _read_jobs_here(gray, jobs, backend, step, plain, other)


def _read_jobs_here(gray: np.ndarray, jobs: Sequence[Job], backend: str, step: int, plain: bool, other: bool
                    ) -> list[tuple[list[Hit], bool]]:
    groups: dict[tuple, list[tuple[int, np.ndarray, tuple[int, int]]]] = {}
    for i, job in enumerate(jobs):
        cut, x0, y0 = crop(gray, job.cand.x, job.cand.y, crop_half(job.cand, 0 if other else step))
        its_ways = (PLAIN,) if plain else other_readings(job.cand.ppm) if other else ways(job.cand.ppm)
        if cut.shape[0] >= 12 and cut.shape[1] >= 12 and step < len(its_ways):
            groups.setdefault(its_ways[step], []).append((i, cut, (x0, y0)))
    out: list[tuple[list[Hit], bool]] = [([], False) for _ in jobs]
    for way, group in groups.items():
        found = read_tiled([g[1] for g in group], [g[2] for g in group], way, backend)
        for (i, _c, _o), read_here in zip(group, found, strict=True):
            out[i] = read_here
    return out


