"""Reading the stickers in a camera frame: every code that is truly decoded, and nothing else.

The stickers are small in a wide frame (2-3 pixels per code module), where a plain full-frame decode
misses many. So, per frame:

1. sticker candidates: regions dense with module-sized contrast (a code with its white quiet zone),
   found on a half-size image; much smaller ones than most (card text and art) are skipped, and a
   pass over a quarter-size image reads the codes too big for the search;
2. every candidate is cut out and read in the way its size calls for (as it is from about 3 px per
   module, else upscaled 1.5-2.5x with strong sharpening to undo the lens blur, and cut into black
   and white at the sticker's own grey levels). The cuts of one way are tiled into one picture,
   sharpened and scaled in one go, and each tile is decoded on its own; places that still look like
   a code get a second way with a wider cut (not the smallest codes). Where the codes are big
   (2.6+ px per module) and such a place stays unread, a full-frame pass reads them whole;
3. ``known``: codes already confirmed on the table (the tracker passes them) are re-checked in cuts
   where they were, and candidates are searched only where no code was read or is being re-checked;
4. ``decode_burst``: several frames of a still table. The first is decoded as above; the places it
   leaves unread are cut from every frame, aligned to a fraction of a pixel, upscaled onto a common
   grid and averaged before decoding (less noise, and the camera's small shake samples the sticker
   at different sub-pixel offsets, so the average holds more detail than any single frame).

A code counts only when a decoder returned its text for it (Reed-Solomon checked). Nothing is ever
filled in from what is expected. Two different texts decoded at the same place are both dropped.
Texts of the sticker form (``TC:<DECK>:<NUMBER>``) go to ``codes`` (with the card when a deck knows
it), any other barcode text to ``foreign``.

zxing-cpp is the decoder; pyzbar (over the system's libzbar0) is the fallback, used when zxing-cpp is
missing or when asked for (``decoder="pyzbar"``). Where libzbar0 is missing, ``decoder_status``
says so in one line and zxing-cpp goes on alone.
"""

from __future__ import annotations

import math
import os
import statistics
import sys
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import cv2
import numpy as np

from companion.cards.payload import parse_sticker

MIN_PPM, MAX_PPM = 1.4, 9.0        # pixels per module the candidate search is tuned for
CANDIDATE_CONTRAST = 36            # mean 3x3 grey-level range (half-size image) that marks code texture
WELL_LIT = 200                     # the 99th percentile grey level from which a frame counts as well lit
                                   # (204-254 on the bench's scenes)
LEAST_LIGHT = 0.35                 # the threshold goes no lower than this share (a covered lens is noise)
_K3 = np.ones((3, 3), np.uint8)
SAME_PLACE = 0.5                   # two reads closer than this many code sides are one code


@dataclass(frozen=True)
class Detection:
    payload: str                                  # the decoded text
    corners: tuple[tuple[float, float], ...]      # 4 points, image pixels, the code's corners
    center: tuple[float, float]
    card: object | None = None                    # companion.cards.model.Card when payload resolves, else None

    @property
    def size(self) -> float:
        """The code's side in pixels (mean of its four edges)."""
        c = self.corners
        return sum(math.dist(c[i], c[i - 1]) for i in range(4)) / 4


@dataclass
class DecodeResult:
    codes: list[Detection]    # payloads of sticker form TC:<DECK>:<N> (known or unknown card; card=None if unknown)
    foreign: list[Detection]  # any other barcode text

    def __iter__(self):
        return iter(self.codes)

    def __len__(self):
        return len(self.codes)


# -- decoders --------------------------------------------------------------------------------------------

class _Hit:
    """One decoded symbol: its text and corners (4 points, image pixels); centre and side kept at hand.
    Plain floats: a frame makes dozens of hits, and numpy is slow on 4 points."""

    __slots__ = ("text", "corners", "center", "side")

    def __init__(self, text: str, corners):
        (ax, ay), (bx, by), (cx, cy), (dx, dy) = corners
        self.text = text
        self.corners = ((ax, ay), (bx, by), (cx, cy), (dx, dy))
        self.center = ((ax + bx + cx + dx) / 4, (ay + by + cy + dy) / 4)
        self.side = (math.hypot(bx - ax, by - ay) + math.hypot(cx - bx, cy - by) + math.hypot(dx - cx, dy - cy)
                     + math.hypot(ax - dx, ay - dy)) / 4


@lru_cache(maxsize=1)
def _zxing():
    try:
        import zxingcpp
    except ImportError:
        return None
    return zxingcpp


@lru_cache(maxsize=1)
def _pyzbar():
    """pyzbar's decode function, or the reason it cannot be used."""
    try:
        from pyzbar import pyzbar
    except ImportError as e:  # pyzbar raises ImportError when libzbar0 is missing
        return None, str(e)
    except OSError as e:
        return None, str(e)
    return pyzbar, ""


def _version(dist: str) -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version(dist)
    except PackageNotFoundError:
        return "installed"


@lru_cache(maxsize=1)
def decoder_status() -> dict:
    """Which decoders this process can use (their versions, None when missing), the default, and a
    one-line note when one is missing (the program goes on with the other)."""
    zx = _zxing()
    pz, why = _pyzbar()
    status = {"zxing-cpp": _version("zxing-cpp") if zx else None, "pyzbar": _version("pyzbar") if pz else None,
              "default": "zxing-cpp" if zx else ("pyzbar" if pz else None), "note": ""}
    if zx is None and pz is None:
        status["note"] = f"no barcode decoder: install zxing-cpp (pip), or libzbar0 and pyzbar ({why})"
    elif pz is None:
        status["note"] = ("pyzbar fallback decoder unavailable (the system library libzbar0 is missing: "
                          "sudo apt-get install libzbar0); reading with zxing-cpp only")
    elif zx is None:
        status["note"] = "zxing-cpp is not installed; reading with the slower pyzbar fallback"
    return status


_noted = False


def note_once(stream=None) -> None:
    """Print the decoders' one-line note (if any) once per process, on stderr."""
    global _noted
    note = decoder_status()["note"]
    if note and not _noted:
        _noted = True
        print(note, file=stream or sys.stderr)


def _backend(decoder: str | None) -> str:
    st = decoder_status()
    name = decoder or st["default"]
    if name == "zxing-cpp" and st["zxing-cpp"] is None or name == "pyzbar" and st["pyzbar"] is None:
        raise RuntimeError(f"decoder {name} is not available: {st['note']}")
    if name not in ("zxing-cpp", "pyzbar"):
        raise ValueError(f"unknown decoder {decoder!r} (zxing-cpp or pyzbar)")
    return name


def _symbols(img: np.ndarray, backend: str, sharpened: bool = False) -> list:
    """The decoder's own results for one grey image. ``sharpened``: the image went through the strong
    sharpening of a way (pushed towards black and white), which zxing-cpp reads best with a fixed
    threshold: its adaptive binarizer follows the overshoot around each module instead."""
    if backend == "zxing-cpp":
        zx = _zxing()
        # Model 2 only: zxing's "QRCode" family also holds Micro QR, whose smallest version only detects
        # errors (2 check codewords) and turns noise into short texts such as "0098"
        return zx.read_barcodes(img, formats=zx.BarcodeFormat.QRCodeModel2, try_rotate=False, try_invert=False,
                                try_downscale=False,
                                binarizer=zx.Binarizer.FixedThreshold if sharpened else zx.Binarizer.LocalAverage)
    pz, _ = _pyzbar()
    try:
        return pz.decode(img, symbols=[pz.ZBarSymbol.QRCODE])
    except ValueError:
        # pyzbar turns zbar's orientation of some symbols (a structured-append QR) into an enum that has
        # no such value and fails the whole image (an open pyzbar bug): nothing read, never a crash
        return []


def _hits(found: list, backend: str, scale: float = 1.0, at: tuple[float, float] = (0.0, 0.0)) -> list[_Hit]:
    """``_symbols``' results as hits, corners in the frame's pixels: the image was the frame's region
    from ``at``, scaled by ``scale`` (pixel centres at integers)."""
    ax, ay = at[0] + 0.5 / scale - 0.5, at[1] + 0.5 / scale - 0.5
    out = []
    if backend == "zxing-cpp":
        for r in found:
            if r.valid:
                p = r.position
                out.append(_Hit(r.text, [(q.x / scale + ax, q.y / scale + ay)
                                         for q in (p.top_left, p.top_right, p.bottom_right, p.bottom_left)]))
        return out
    for r in found:
        try:
            text = r.data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        out.append(_Hit(text, (_quad(np.array([(p.x, p.y) for p in r.polygon], float)) / scale + (ax, ay)).tolist()))
    return out


def _read(img: np.ndarray, backend: str, sharpened: bool = False, scale: float = 1.0,
          at: tuple[float, float] = (0.0, 0.0)) -> list[_Hit]:
    """Every QR code one decoder reads in a grey image, corners in the frame's pixels (see ``_hits``)."""
    return _hits(_symbols(img, backend, sharpened), backend, scale, at)


TWO_READERS = (os.cpu_count() or 1) > 1    # a frame's many cuts are read on two threads, half each
SPLIT_AT = 12                              # cuts from which they are


@lru_cache(maxsize=1)
def _other_reader():
    from concurrent.futures import ThreadPoolExecutor
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="decode")


def _quad(points: np.ndarray) -> np.ndarray:
    """Four corners, clockwise from the one nearest the image's top-left (pyzbar gives a polygon)."""
    if len(points) != 4:
        points = cv2.boxPoints(cv2.minAreaRect(points.astype(np.float32))).astype(float)
    c = points.mean(axis=0)
    ang = np.arctan2(points[:, 1] - c[1], points[:, 0] - c[0])
    points = points[np.argsort(ang)]          # clockwise on screen (y down)
    start = int(np.argmin(points.sum(axis=1)))
    return np.roll(points, -start, axis=0)


# -- the image -------------------------------------------------------------------------------------------

def _gray(image) -> np.ndarray:
    """The frame as 8-bit grey. 16-bit frames keep their top 8 bits; any other kind of pixel is refused
    (clipping it to 0..255 would read a different picture without a word)."""
    img = np.asarray(image)
    if img.dtype == np.uint16:
        img = (img >> 8).astype(np.uint8)
    elif img.dtype != np.uint8:
        raise ValueError(f"decode() takes 8- or 16-bit unsigned pixels, not {img.dtype}")
    if img.ndim == 3:
        if img.shape[2] == 4:
            return cv2.cvtColor(img, cv2.COLOR_BGRA2GRAY)
        if img.shape[2] == 3:
            return cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
        return np.ascontiguousarray(img[..., 0])
    if img.ndim != 2:
        raise ValueError(f"not an image: shape {img.shape}")
    return np.ascontiguousarray(img)


# -- candidates ------------------------------------------------------------------------------------------

@dataclass
class _Candidate:
    x: float          # centre, image pixels
    y: float
    r: float          # about half the code's side, pixels (the search measures codes ~1.25x too big)
    cut: float = 0.0  # half the side of the first cut, when known better than from ``r`` (a known code)

    @property
    def ppm(self) -> float:
        """The module size as the search measures it (about 1.25x the true one): what picks the ways."""
        return 2 * self.r / 21


SIZE_BIAS = 1.25     # the candidate search's code size / the true size (bench scenes, all levels)


def _half(gray: np.ndarray) -> np.ndarray:
    h, w = gray.shape
    return cv2.resize(gray, (w // 2, h // 2), interpolation=cv2.INTER_AREA)


def _contrast(small: np.ndarray) -> float:
    """The code texture's contrast threshold for this frame: CANDIDATE_CONTRAST in a well-lit frame,
    lower in proportion in a dim one (a sticker's black-to-white range shrinks with the light)."""
    # every 8th pixel each way (8,100 of a 1080p frame's half) gives the same level within 2 of 255
    counts = np.bincount(small[::8, ::8].ravel(), minlength=256).cumsum()
    light = int(np.searchsorted(counts, 0.99 * counts[-1]))        # the 99th percentile grey level
    return CANDIDATE_CONTRAST * min(1.0, max(light / WELL_LIT, LEAST_LIGHT))


def find_candidates(gray: np.ndarray, size_hint: float | None = None, small: np.ndarray | None = None
                    ) -> list[_Candidate]:
    """Places that look like a sticker code: a patch dense with module-sized contrast, about square.

    Local contrast (the 3x3 grey-level range, averaged over about 6x6) is measured on a half-size image
    (``small``, when the caller has it); a code's modules make a solid patch of it, while a card edge
    or a line of text makes a thin band. The distance to the patch's edge peaks in the middle of each
    code (even where a code's patch touches a card edge), which gives its centre and size.
    ``size_hint``: the side of codes already read in this frame, which narrows the search."""
    h, w = gray.shape
    if small is None:
        small = _half(gray)
    grad = cv2.morphologyEx(small, cv2.MORPH_GRADIENT, _K3)
    # averaged over about 6x6 half-size pixels, and the patches' shapes measured, at quarter size: a
    # code is still 9+ pixels across there
    f = 4
    texture = cv2.blur(cv2.resize(grad, (w // f, h // f), interpolation=cv2.INTER_AREA), (3, 3))
    mask = cv2.threshold(texture, _contrast(small), 1, cv2.THRESH_BINARY)[1]
    dist = cv2.distanceTransform(mask, cv2.DIST_L2, 3)
    lo = 21 * MIN_PPM / f / 2 * 0.6 + 0.5
    hi = 21 * MAX_PPM / f / 2 + 2
    if size_hint:
        lo = max(lo, size_hint / f / 2 * 0.55)
        hi = min(hi, size_hint / f / 2 * 1.6 + 2)
    peaks = cv2.bitwise_and(cv2.compare(dist, cv2.dilate(dist, _K3), cv2.CMP_GE), cv2.inRange(dist, lo, hi))
    # (16-bit labels: a quarter-size frame holds far fewer than 65,536 separate peaks)
    n, labels, _stats, centroids = cv2.connectedComponentsWithStats(peaks, connectivity=8, ltype=cv2.CV_16U)
    peaks = peaks > 0
    if n <= 1:
        return []
    vals = np.zeros(n, np.float32)
    # a peak is a plateau: every pixel of one holds its neighbours' maximum, so all hold one value
    vals[labels[peaks]] = dist[peaks]
    # the strongest peak first; a weaker one within 0.9 of the stronger's value is the same code
    order = np.argsort(-vals[1:], kind="stable") + 1
    v, c = vals[order], centroids[order]
    d2 = ((c[:, None, :] - c[None, :, :]) ** 2).sum(axis=2)
    near = d2 < (0.9 * v[:, None]) ** 2          # near[i, j]: j lies within reach of i (v[i] >= v[j])
    gone = np.zeros(len(order), bool)
    kept = []
    for i in range(len(order)):
        if not gone[i]:
            kept.append(i)
            gone |= near[i]
    # patch half-width = code half-side + about half the averaging window's reach
    return [_Candidate(float(c[i, 0]) * f + (f - 1) / 2, float(c[i, 1]) * f + (f - 1) / 2,
                       max(2.0, float(v[i]) - 0.5) * f) for i in kept]


def _isotropy(gray: np.ndarray, c: _Candidate) -> float:
    """1 when the grey-level edges around ``c`` run every way (a code's modules), near 0 when they run
    one way (a line of text, a card edge, wood grain)."""
    patch = _crop(gray, c.x, c.y, 0.9 * c.r)[0].astype(np.float32)
    if patch.shape[0] < 3 or patch.shape[1] < 3:
        return 0.0
    gx = cv2.Sobel(patch, cv2.CV_32F, 1, 0)
    gy = cv2.Sobel(patch, cv2.CV_32F, 0, 1)
    xx, yy, xy = float((gx * gx).mean()), float((gy * gy).mean()), float((gx * gy).mean())
    trace = xx + yy
    return 2 * math.sqrt(max(xx * yy - xy * xy, 0.0)) / trace if trace else 0.0


def _crop(gray: np.ndarray, cx: float, cy: float, half: float) -> tuple[np.ndarray, int, int]:
    h, w = gray.shape
    x0, y0 = max(0, int(cx - half)), max(0, int(cy - half))
    x1, y1 = min(w, int(math.ceil(cx + half)) + 1), min(h, int(math.ceil(cy + half)) + 1)
    return gray[y0:y1, x0:x1], x0, y0


KNOWN_CUT = 1.4       # a known code's cut, in code sides: its place and size are known, not searched


def _crop_half(c: _Candidate, step: int = 0) -> float:
    """Half the side of the cut around a candidate: the code and its quiet zone, with room for the
    search's usual error in centre and size; the second try cuts wider (where two cards' patches
    merged, the centre can be off by a third of the code)."""
    if step == 0 and c.cut:
        return c.cut
    return 1.3 * c.r + 3 if step == 0 else 1.6 * c.r + 4


# -- ways to read a crop ---------------------------------------------------------------------------------

# A way: (scale, sharpen sigma in crop pixels, amount). The strong sharpening (amount 5-8, clipped to
# 0-255) undoes the lens blur and stretches the local contrast: below 2.5 px per module it reads 1.5-2x
# as many codes as a mild one. The ways were chosen by what each read alone and after the other on
# the candidates of the bench's scenes (seed 1, 4 levels, 2,600 code crops). The smallest codes get
# 2.5x, not 3x or 4x: 1 % fewer read, 15 % less time (the decoder's time goes with the pixels and the
# codes it nearly reads); 2.25x read as many on the bench's scenes for 1 % less time, but missed a
# sticker of the demo's virtual table (tests/test_vision_virtual_table.py). No second way for them in
# a frame of its own: read with the fixed threshold, the first way leaves about 5 % unread at 1.8 px
# per module; a second way read 2 % more for about 15 % more time. In a burst the fused frames read
# them instead.
_WAYS_BY_SIZE = (      # (smallest measured px/module, (first way, second way if any))
    (3.0, ((1, 0.8, 3.0), (1.5, 0.9, 5.0))),
    (2.8, ((1.5, 0.9, 5.0), (3, 0.8, 8.0))),
    (2.4, ((2, 0.9, 8.0), (3, 0.8, 8.0))),
    (0.0, ((2.5, 0.8, 8.0),)),
)
_PLAIN = (1, 0.0, 0.0)


def _ways(ppm: float) -> tuple[tuple[float, float, float], ...]:
    for least, ways in _WAYS_BY_SIZE:
        if ppm >= least:
            return ways
    return _WAYS_BY_SIZE[-1][1]


def _to_image(hit: _Hit, scale: float, x0: float, y0: float) -> _Hit:
    """Crop-upscaled pixels -> image pixels (pixel centres at integers)."""
    return _Hit(hit.text, [((x + 0.5) / scale - 0.5 + x0, (y + 0.5) / scale - 0.5 + y0) for x, y in hit.corners])


@dataclass
class _Job:
    """A place to cut out and decode: a candidate, or a known code (its place and size)."""
    cand: _Candidate
    known: bool = False


MOSAIC_WIDTH = 2048    # pixels, after scaling
_PAD = 2               # pixels between tiles (before scaling)


DARK_SHARE = 0.4   # the fixed threshold lies this share of the way from a sticker's black to its white


def _levels(blurred: np.ndarray, y: int, h: int, spans: Sequence[tuple[int, int]]) -> list[float]:
    """The grey level that each tile of one shelf of the blurred mosaic is cut at: between the darkest
    and lightest of its middle (where the code is), nearer the dark: the blur leaves a lone black
    module lighter than a black area, and a lone white one not so much (measured on the bench's
    scenes: 0.4 reads the most). The shelf starts at row ``y``, its shortest tile is ``h`` high, and
    ``spans`` are the tiles' columns, left to right."""
    band = blurred[y + h // 4:y + h - h // 4]
    cuts = [k for x0, x1 in spans for k in (x0 + (x1 - x0) // 4, x1 - (x1 - x0) // 4)]
    lo = np.minimum.reduceat(band.min(axis=0), cuts)[::2].astype(np.float32)
    hi = np.maximum.reduceat(band.max(axis=0), cuts)[::2]
    return (lo + DARK_SHARE * (hi - lo)).tolist()


def _read_tiled(crops: Sequence[np.ndarray], origins: Sequence[tuple[float, float]], way, backend: str
                ) -> list[list[_Hit]]:
    """The hits in each crop read one way, in image pixels (``origins``: each crop's top-left corner in
    the image). The crops are tiled into one picture that is sharpened and scaled in one go; the
    decoder then reads each tile's view of it on its own: one call over all the tiles costs about
    twice as much (it pairs up the finder patterns of different codes)."""
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
    for crop, (px, py) in zip(crops, places):
        mosaic[py:py + crop.shape[0], px:px + crop.shape[1]] = crop
    _, sigma, amount = way
    sharpened = sigma > 0
    if sharpened:
        # tile + amount * (tile - blurred tile), which undoes the lens blur. The sharpened tiles are read
        # with a fixed threshold (mid-grey): each tile's sticker level is moved there in the same step,
        # so that a dim or a bright sticker is cut between its dark and light modules
        blurred = cv2.GaussianBlur(mosaic, (0, 0), sigma)
        for tiles in shelves:
            py = places[tiles[0]][1]
            spans = [(places[i][0], places[i][0] + crops[i].shape[1]) for i in tiles]
            for i, level in zip(tiles, _levels(blurred, py, crops[tiles[-1]].shape[0], spans)):
                px = places[i][0]
                h, w = crops[i].shape
                tile = mosaic[py:py + h, px:px + w]
                cv2.addWeighted(tile, 1 + amount, blurred[py:py + h, px:px + w], -amount, 127.0 - level, dst=tile)
    big = mosaic if scale == 1 else cv2.resize(mosaic, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
    views, ats = [], []
    for crop, (px, py), (ox, oy) in zip(crops, places, origins):
        h, w = crop.shape
        u0, v0 = int(px * scale), int(py * scale)
        views.append(big[v0:int(math.ceil((py + h) * scale)), u0:int(math.ceil((px + w) * scale))])
        # the tile's view starts at mosaic pixel (u0, v0) / scale, which is image pixel origin + that - place
        ats.append((u0 / scale - px + ox, v0 / scale - py + oy))
    return [_read(view, backend, sharpened, scale, at) for view, at in zip(views, ats)]


def _read_jobs(gray: np.ndarray, jobs: Sequence[_Job], backend: str, step: int, plain: bool = False
               ) -> list[list[_Hit]]:
    """Each job cut out and read its ``step``-th way (0: first, 1: second; ``plain``: as it is), one
    tiled call per way; image pixels. Many jobs are shared between two threads, half each: the
    decoders and OpenCV let go of Python's lock while they work. Waking a thread takes 50-100
    microseconds here, about as long as reading one tile, so there is one hand-over per frame, not
    one per way or per tile (measured at 1.8 px per module: 10 % less time per frame than shares of
    each way's tiles)."""
    if TWO_READERS and len(jobs) >= SPLIT_AT:
        half = len(jobs) // 2
        other = _other_reader().submit(_read_jobs_here, gray, jobs[half:], backend, step, plain)
        return _read_jobs_here(gray, jobs[:half], backend, step, plain) + other.result()
    return _read_jobs_here(gray, jobs, backend, step, plain)


def _read_jobs_here(gray: np.ndarray, jobs: Sequence[_Job], backend: str, step: int, plain: bool
                    ) -> list[list[_Hit]]:
    groups: dict[tuple, list[tuple[int, np.ndarray, tuple[int, int]]]] = {}
    for i, job in enumerate(jobs):
        crop, x0, y0 = _crop(gray, job.cand.x, job.cand.y, _crop_half(job.cand, step))
        ways = (_PLAIN,) if plain else _ways(job.cand.ppm)
        if crop.shape[0] >= 12 and crop.shape[1] >= 12 and step < len(ways):
            groups.setdefault(ways[step], []).append((i, crop, (x0, y0)))
    out: list[list[_Hit]] = [[] for _ in jobs]
    for way, group in groups.items():
        found = _read_tiled([g[1] for g in group], [g[2] for g in group], way, backend)
        for (i, _c, _o), hs in zip(group, found):
            out[i] = hs
    return out


# -- decode ----------------------------------------------------------------------------------------------

def decode(image: np.ndarray, *, known: Sequence[Detection] = (), upscale: bool = True,
           decoder: str | None = None) -> DecodeResult:
    """Every code truly decoded in one frame (BGR or grey). ``known``: codes confirmed in earlier frames;
    ``upscale``: search, cut out and upscale sticker candidates (the default); without it, one plain
    full-frame pass (and known codes re-checked in plain crops); ``decoder``: "zxing-cpp" (default) or
    "pyzbar"."""
    backend = _backend(decoder)
    gray = _gray(image)
    hits, _left = _decode_gray(gray, backend, known, upscale, want_left=False)
    return _result(hits)


TOO_SMALL = 0.55       # candidates smaller than this share of the upper quartile's size are skipped
PLAUSIBLE_SIZE = 0.7    # a second try only for candidates at least this share of the codes read
PLAUSIBLE_ISOTROPY = 0.5
FULL_PASS_PPM = 2.6     # codes read at least this big (px per module): the full-frame pass reads them too


def _decode_gray(gray: np.ndarray, backend: str, known: Sequence[Detection], upscale: bool, want_left: bool
                 ) -> tuple[list[_Hit], list[_Job]]:
    """The hits in one frame, and (``want_left``, for ``decode_burst``) the jobs that still look like an
    unread code."""
    known = list(known)
    if min(gray.shape) < 21:
        return [], []      # no QR code fits: the smallest has 21 modules a side
    if not upscale:
        hits = _read(gray, backend)
        jobs = [_known_job(k) for k in known if not _seen(k, hits)]
        for hs in _read_jobs(gray, jobs, backend, 0, plain=True):
            hits += hs
        return _dedupe(hits), []
    # codes too big for the candidate search (over MAX_PPM) are read at quarter size, cheaply (it reads
    # codes from 6 px per module up, and the candidates hold up to about 10), on the other thread
    # while this one searches
    small = _half(gray)
    quarter = _half(small)
    big = _other_reader().submit(_read, quarter, backend, False, 0.25) if TWO_READERS else None
    hint = statistics.median(k.size for k in known) if known else None
    cands = find_candidates(gray, hint, small)
    hits = big.result() if big else _read(quarter, backend, scale=0.25)
    jobs = [_known_job(k) for k in known if not _seen(k, hits)]
    # candidates only where no code was read and no known code is being re-checked
    pending = [_Hit("", k.corners) for k in known]
    # Stickers on one table are one size, and most candidates are stickers: much smaller ones are card
    # text or art (never a sticker on the bench's 4,000-sticker tables, where this drops 90 % of them)
    least = TOO_SMALL * _upper_quartile([c.r for c in cands]) if cands else 0.0
    for c in cands:
        if c.r >= least and not _explained(c, hits) and not _explained(c, pending):
            jobs.append(_Job(c))
    if not jobs:
        return _dedupe(hits), []
    found = _read_jobs(gray, jobs, backend, 0)
    for hs in found:
        hits += hs
    unread = [j for j, hs in zip(jobs, found) if not hs and not _explained(j.cand, hits)]
    sides = [h.side for h in hits]
    if unread and sides and statistics.median(sides) / 21 >= FULL_PASS_PPM:
        unread = [j for j in unread if _looks_like_code(gray, j)]
        if unread:
            # Big codes, and a place that looks like one stayed unread: on big sharp codes (a printed
            # sheet) the search's patches break up and a cut can miss part of its code; the full-frame
            # pass reads codes this big whole
            hits += _read(gray, backend)
            unread = [j for j in unread if not _explained(j.cand, hits)]
    read_sizes = [j.cand.ppm for j, hs in zip(jobs, found) if hs and not j.known]
    ref = statistics.median(read_sizes) if read_sizes else (
        statistics.median(k.size for k in known) / 21 * SIZE_BIAS if known else None)
    # more work (a second way, or fusing a burst) only for places of a plausible size that look like
    # a code; the look is tested last, where that work would follow (it costs as much as a small read)
    again = [j for j in unread if (j.known or ref is None or j.cand.ppm >= PLAUSIBLE_SIZE * ref)
             and (want_left or len(_ways(j.cand.ppm)) > 1) and _looks_like_code(gray, j)]
    left = []
    if again:
        for j, hs in zip(again, _read_jobs(gray, again, backend, 1)):
            hits += hs
            if not hs:
                left.append(j)
    return _dedupe(hits), left


def _seen(k: Detection, hits: Sequence[_Hit]) -> bool:
    """A known code read again, at its place."""
    return any(h.text == k.payload and (h.center[0] - k.center[0]) ** 2 + (h.center[1] - k.center[1]) ** 2
               < (0.5 * h.side) ** 2 for h in hits)


def _known_job(k: Detection) -> _Job:
    """A known code's re-check: a cut of KNOWN_CUT code sides where it was."""
    size = max(4.0, k.size)
    return _Job(_Candidate(k.center[0], k.center[1], size / 2 * SIZE_BIAS, cut=KNOWN_CUT * size / 2 + 3), known=True)


def _upper_quartile(xs: list[float]) -> float:
    """numpy's 75th percentile (linear between the two nearest), without numpy's cost on a short list."""
    xs = sorted(xs)
    k = 0.75 * (len(xs) - 1)
    i = int(k)
    return xs[i] + (xs[min(i + 1, len(xs) - 1)] - xs[i]) * (k - i)


def _looks_like_code(gray: np.ndarray, job: _Job) -> bool:
    return job.known or _isotropy(gray, job.cand) >= PLAUSIBLE_ISOTROPY


def _explained(c: _Candidate, hits: Sequence[_Hit]) -> bool:
    for h in hits:
        if (c.x - h.center[0]) ** 2 + (c.y - h.center[1]) ** 2 < (0.5 * h.side + 0.3 * c.r) ** 2:
            return True
    return False



def _dedupe(hits: list[_Hit]) -> list[_Hit]:
    """One entry per code on the table. The same text read twice at one place is one code (corners
    averaged); two texts at one place contradict each other, and neither is reported."""
    if not hits:
        return []
    c = np.array([h.center for h in hits])
    side = np.array([h.side for h in hits])
    # near[i, j]: hits i and j lie at one place
    near = (((c[:, None, :] - c[None, :, :]) ** 2).sum(axis=2)
            < (SAME_PLACE * np.maximum(side[:, None], side)) ** 2).tolist()    # lists: read one by one
    groups: list[list[_Hit]] = []
    firsts: list[int] = []          # each group's first hit, which the others are measured from
    for i, h in enumerate(hits):
        for g, first in zip(groups, firsts):
            if near[i][first]:
                g.append(h)
                break
        else:
            groups.append([h])
            firsts.append(i)
    out = []
    for g in groups:
        if len({h.text for h in g}) > 1:
            continue
        out.append(g[0] if len(g) == 1 else _Hit(g[0].text, np.mean([h.corners for h in g], axis=0).tolist()))
    return out


def _result(hits: list[_Hit]) -> DecodeResult:
    codes, foreign = [], []
    for h in hits:
        if parse_sticker(h.text) is not None:
            codes.append(Detection(h.text, h.corners, h.center, _card(h.text)))
        else:
            foreign.append(Detection(h.text, h.corners, h.center))
    return DecodeResult(codes, foreign)


def _card(payload: str):
    from companion.cards.decks import resolve
    from companion.errors import BadInput
    try:
        return resolve(payload)
    except BadInput:
        return None


# -- bursts ----------------------------------------------------------------------------------------------

def decode_burst(frames: Sequence[np.ndarray], **kw) -> DecodeResult:
    """Codes truly decoded in a burst of frames of one still table, corners in ``frames[0]``'s pixels.

    The first frame is decoded as ``decode`` does. Each region that still looks like an unread code is
    then cut from every frame, each cut aligned to the first to a fraction of a pixel (phase
    correlation), upscaled onto one grid and averaged: the average has less noise than any frame, and
    the camera's shake has sampled the sticker at different sub-pixel offsets. A code counts only when
    a decoder read it."""
    if not frames:
        return DecodeResult([], [])
    if len(frames) == 1:
        return decode(frames[0], **kw)
    unknown = set(kw) - {"known", "upscale", "decoder"}
    if unknown:
        raise TypeError(f"decode_burst: unknown options {sorted(unknown)}")
    backend = _backend(kw.get("decoder"))
    upscale = kw.get("upscale", True)
    shapes = {np.asarray(f).shape[:2] for f in frames}
    if len(shapes) > 1:
        raise ValueError("the frames of a burst must all have the same size")
    first = _gray(frames[0])
    hits, left = _decode_gray(first, backend, kw.get("known", ()), upscale, want_left=True)
    if upscale and left:
        hits = _dedupe(hits + _fuse(first, frames[1:], left, backend))
    return _result(hits)


FUSE_SCALE = 3
# Sharpening of the averaged, upscaled cut: (sigma in original pixels, amount), tried in turn.
_FUSED_WAYS = ((0.8, 8.0), (0.9, 5.0), (0.8, 3.0))


def _fuse(first: np.ndarray, others: Sequence[np.ndarray], jobs: Sequence[_Job], backend: str) -> list[_Hit]:
    """Codes read in the average of each job's aligned, upscaled cuts (image pixels of ``first``); where
    the average does not read, each frame's own cut is tried. Only the cuts of the other frames are
    turned grey, with a margin for the shake."""
    s = FUSE_SCALE
    H, W = first.shape
    fused = []
    origins = []
    kept = []                     # (job, its cuts from the other frames, where they lie)
    for j in jobs:
        crop, x0, y0 = _crop(first, j.cand.x, j.cand.y, _crop_half(j.cand, 1))
        h, w = crop.shape
        if h < 12 or w < 12:
            continue
        origins.append((x0, y0))
        ref = crop.astype(np.float32)
        window = cv2.createHanningWindow((w, h), cv2.CV_32F)
        m = w // 4 + 4
        bx0, by0, bx1, by1 = max(0, x0 - m), max(0, y0 - m), min(W, x0 + w + m), min(H, y0 + h + m)
        stack = np.zeros((h * s, w * s), np.float32)
        n = 0
        cuts = [_gray(np.asarray(f)[by0:by1, bx0:bx1]) for f in others]
        kept.append((j, cuts, (bx0, by0)))
        for g in [first] + cuts:
            if g is first:
                dx = dy = 0.0
                ox, oy = 0, 0
            else:
                ox, oy = bx0, by0        # this cut's place in the frame
                (dx, dy), _ = cv2.phaseCorrelate(ref, g[y0 - oy:y0 - oy + h, x0 - ox:x0 - ox + w].astype(np.float32),
                                                 window)
                if abs(dx) >= w / 4 or abs(dy) >= h / 4:
                    continue
            # upscaled pixel (u, v) <- frame pixel ((u + 0.5) / s - 0.5 + x0 + dx, ...)
            M = np.float32([[1 / s, 0, 0.5 / s - 0.5 + x0 - ox + dx], [0, 1 / s, 0.5 / s - 0.5 + y0 - oy + dy]])
            stack += cv2.warpAffine(g, M, (w * s, h * s), flags=cv2.INTER_CUBIC | cv2.WARP_INVERSE_MAP,
                                    borderMode=cv2.BORDER_REFLECT)
            n += 1
        fused.append(np.clip(stack / n + 0.5, 0, 255).astype(np.uint8))
    out: list[_Hit] = []
    todo = list(range(len(fused)))
    for sigma, amount in _FUSED_WAYS:
        if not todo:
            break
        found = _read_tiled([fused[i] for i in todo], [(0, 0)] * len(todo), (1, sigma * s, amount), backend)
        still = []
        for i, hs in zip(todo, found):
            out += [_to_image(h, s, *origins[i]) for h in hs]
            if not hs:
                still.append(i)
        todo = still
    if todo:
        # a still table: each frame's pixels are the first frame's, up to the shake (under a pixel)
        groups: dict[tuple, tuple[list, list]] = {}
        for i in todo:
            j, cuts, (bx0, by0) = kept[i]
            way = _ways(j.cand.ppm)[0]
            for g in cuts:
                crop, x0, y0 = _crop(g, j.cand.x - bx0, j.cand.y - by0, _crop_half(j.cand))
                if crop.shape[0] >= 12 and crop.shape[1] >= 12:
                    groups.setdefault(way, ([], []))[0].append(crop)
                    groups[way][1].append((x0 + bx0, y0 + by0))
        for way, (crops, places) in groups.items():
            for hs in _read_tiled(crops, places, way, backend):
                out += hs
    return out


def warm_up() -> None:
    """Load the decoders, the decks and OpenCV's routines, and run every path once, so that the first
    real frame is timed like any other."""
    from companion.vision.stickers import make_sticker_matrix

    code = np.pad(make_sticker_matrix("TC:DEMO:001"), 4)
    img = np.full((240, 320), 190, np.uint8)
    sticker = np.where(code, 30, 245).astype(np.uint8)
    small = cv2.resize(sticker, (58, 58), interpolation=cv2.INTER_AREA)     # about 2 px per module
    img[40:98, 40:98] = small
    big = cv2.resize(sticker, (116, 116), interpolation=cv2.INTER_AREA)
    img[100:216, 180:296] = big
    for name in ("zxing-cpp", "pyzbar"):
        if decoder_status()[name]:
            decode(img, decoder=name)
    decode_burst([img, img])
    _card("TC:DEMO:001")
