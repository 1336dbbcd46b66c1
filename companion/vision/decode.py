"""Reading the stickers in a camera frame: every code that is truly decoded, and nothing else.

The stickers are small in a wide frame (2-3 pixels per code module), where a plain full-frame decode
misses many. So, per frame:

1. a full-frame pass with zxing-cpp (QR Model 2 only), which reads every large enough code cheaply;
2. sticker candidates: regions dense with module-sized contrast (a code with its white quiet zone),
   found on a half-size image; each region that the full pass did not explain is cut out, upscaled
   (cubic, 2-4x, with a little sharpening to undo the lens blur) and decoded on its own;
3. ``known``: codes already confirmed on the table (the tracker passes them). Each one the full pass
   did not read again is re-checked in a small crop around where it was (when all known codes are
   small, the full pass, which would miss them anyway, is skipped); candidates are then searched only
   where no code was read: a still table costs a few small decodes;
4. ``decode_burst``: several frames of a still table. The first is decoded as above; candidates it
   leaves unread are cut from every frame, aligned to a fraction of a pixel, upscaled onto a common
   grid and averaged before decoding (less noise, and the camera's small shake samples the sticker at
   different sub-pixel offsets, so the average holds more detail than any single frame); then each
   frame's own cut is tried.

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
import sys
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import cv2
import numpy as np

from companion.cards.payload import parse_sticker

MIN_PPM, MAX_PPM = 1.4, 9.0        # pixels per module the candidate search is tuned for
CANDIDATE_CONTRAST = 40            # mean 3x3 grey-level range (half-size image) that marks code texture
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
        c = np.asarray(self.corners, float)
        return float(np.mean(np.linalg.norm(c - np.roll(c, -1, axis=0), axis=1)))


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
    """One decoded symbol: its text and corners (4x2, image pixels); centre and side kept at hand."""

    __slots__ = ("text", "corners", "center", "side")

    def __init__(self, text: str, corners):
        self.text = text
        self.corners = np.asarray(corners, float)
        c = self.corners
        self.center = (float(c[:, 0].mean()), float(c[:, 1].mean()))
        d = np.diff(np.vstack([c, c[:1]]), axis=0)
        self.side = float(np.sqrt((d * d).sum(axis=1)).mean())


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


def _read(img: np.ndarray, backend: str, global_binarizer: bool = False) -> list[_Hit]:
    """Every QR code one decoder reads in a grey image."""
    if backend == "zxing-cpp":
        zx = _zxing()
        # Model 2 only: zxing's "QRCode" family also holds Micro QR, whose smallest version only detects
        # errors (2 check codewords) and turns noise into short texts such as "0098"
        found = zx.read_barcodes(img, formats=zx.BarcodeFormat.QRCodeModel2, try_rotate=False, try_invert=False,
                                 try_downscale=False,
                                 binarizer=zx.Binarizer.GlobalHistogram if global_binarizer else zx.Binarizer.LocalAverage)
        out = []
        for r in found:
            if not r.valid or str(r.extra.get("Version", "")).startswith(("M", "R")):
                continue
            p = r.position
            out.append(_Hit(r.text, np.array([[p.top_left.x, p.top_left.y], [p.top_right.x, p.top_right.y],
                                              [p.bottom_right.x, p.bottom_right.y],
                                              [p.bottom_left.x, p.bottom_left.y]], float)))
        return out
    pz, _ = _pyzbar()
    out = []
    for r in pz.decode(img, symbols=[pz.ZBarSymbol.QRCODE]):
        try:
            text = r.data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        out.append(_Hit(text, _quad(np.array([(p.x, p.y) for p in r.polygon], float))))
    return out


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
    img = np.asarray(image)
    if img.dtype != np.uint8:
        img = np.clip(img, 0, 255).astype(np.uint8)
    if img.ndim == 3:
        if img.shape[2] == 4:
            return cv2.cvtColor(img, cv2.COLOR_BGRA2GRAY)
        if img.shape[2] == 3:
            return cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
        return np.ascontiguousarray(img[..., 0])
    if img.ndim != 2:
        raise ValueError(f"not an image: shape {img.shape}")
    return np.ascontiguousarray(img)


def _sharpen(img: np.ndarray, sigma: float, amount: float) -> np.ndarray:
    blur = cv2.GaussianBlur(img, (0, 0), sigma)
    return cv2.addWeighted(img, 1 + amount, blur, -amount, 0)


# -- candidates ------------------------------------------------------------------------------------------

@dataclass
class _Candidate:
    x: float          # centre, image pixels
    y: float
    r: float          # about half the code's side, pixels


def find_candidates(gray: np.ndarray, size_hint: float | None = None) -> list[_Candidate]:
    """Places that look like a sticker code: a patch dense with module-sized contrast, about square.

    Local contrast (the 3x3 grey-level range, averaged over 5x5) is measured on a half-size image; a
    code's modules make a solid patch of it, while a card edge or a line of text makes a thin band. The distance to the patch's edge peaks in the
    middle of each code (even where a code's patch touches a card edge), which gives its centre and
    size. ``size_hint``: the side of codes already read in this frame, which narrows the search."""
    h, w = gray.shape
    small = cv2.resize(gray, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    grad = cv2.morphologyEx(small, cv2.MORPH_GRADIENT, _K3)
    mask = cv2.threshold(cv2.blur(grad, (5, 5)), CANDIDATE_CONTRAST, 255, cv2.THRESH_BINARY)[1]
    # the patches' shapes are measured at quarter size: a code is still 9+ pixels across there
    f = 4
    mask = cv2.threshold(cv2.resize(mask, (w // f, h // f), interpolation=cv2.INTER_AREA), 100, 1,
                         cv2.THRESH_BINARY)[1]
    dist = cv2.distanceTransform(mask, cv2.DIST_L2, 3)
    lo = 21 * MIN_PPM / f / 2 * 0.6 + 0.5
    hi = 21 * MAX_PPM / f / 2 + 2
    if size_hint:
        lo = max(lo, size_hint / f / 2 * 0.55)
        hi = min(hi, size_hint / f / 2 * 1.6 + 2)
    peaks = (dist >= cv2.dilate(dist, _K3)) & (dist >= lo) & (dist <= hi)
    n, labels, _stats, centroids = cv2.connectedComponentsWithStats(peaks.astype(np.uint8), connectivity=8)
    if n <= 1:
        return []
    vals = np.zeros(n, np.float32)
    np.maximum.at(vals, labels[peaks], dist[peaks])
    order = np.argsort(-vals[1:]) + 1
    kept: list[tuple[float, float, float]] = []
    for i in order:
        cx, cy = centroids[i]
        v = float(vals[i])
        if any((cx - a) ** 2 + (cy - b) ** 2 < (0.9 * max(v, r)) ** 2 for a, b, r in kept):
            continue
        kept.append((cx, cy, v))
    # patch half-width = code half-side + the 5-pixel window's reach (2 half-size pixels, 1 here)
    return [_Candidate(cx * f + (f - 1) / 2, cy * f + (f - 1) / 2, max(2.0, (v - 0.5)) * f) for cx, cy, v in kept]


def _crop(gray: np.ndarray, cx: float, cy: float, half: float) -> tuple[np.ndarray, int, int]:
    h, w = gray.shape
    x0, y0 = max(0, int(cx - half)), max(0, int(cy - half))
    x1, y1 = min(w, int(math.ceil(cx + half)) + 1), min(h, int(math.ceil(cy + half)) + 1)
    return gray[y0:y1, x0:x1], x0, y0


# Ways to read a small crop: (scale, sharpen sigma, amount, global binarizer). Which comes first depends
# on the code's size: at 2.5+ px/module the crop usually reads as it is, below that an upscale with a
# little sharpening (undoing the lens blur) reads most, and the others catch the rest.
_VARIANTS = ((3, 0.8, 0.8, False), (2, 0.0, 0.0, False), (4, 1.2, 1.5, False), (3, 0.8, 0.8, True),
             (3, 1.0, 2.5, False))
_PLAIN = (1, 0.0, 0.0, False)
_TWO = (2, 0.8, 0.8, False)


def _variants_for(ppm: float | None, variants=_VARIANTS):
    if ppm is None:
        return variants
    if ppm >= 2.5:
        return (_PLAIN, _TWO) + tuple(variants)
    if ppm >= 2.0:
        return (_TWO,) + tuple(variants)
    return variants


def _decode_crop(crop: np.ndarray, backend: str, scale_hint: float | None, variants=_VARIANTS,
                 skip_first: bool = False) -> list[tuple[_Hit, float]]:
    """Hits in a crop (crop pixels) and the scale used; tries the variants until one reads
    (``skip_first``: the first way was tried already, in a mosaic)."""
    tried = set()
    ways = _variants_for(scale_hint, variants)
    for scale, sigma, amount, glob in ways[1:] if skip_first else ways:
        if scale_hint is not None and scale_hint * scale > 14 and scale > 1:
            scale = max(1, int(14 / scale_hint))
        key = (scale, sigma, amount, glob)
        if key in tried:
            continue
        tried.add(key)
        img = crop
        if sigma:
            img = _sharpen(img, sigma, amount)
        if scale != 1:
            img = cv2.resize(img, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
        hits = _read(img, backend, glob)
        if hits:
            return [(h, scale) for h in hits]
    return []


def _to_image(hit: _Hit, scale: float, x0: float, y0: float) -> _Hit:
    """Crop-upscaled pixels -> image pixels (pixel centres at integers)."""
    return _Hit(hit.text, (hit.corners + 0.5) / scale - 0.5 + np.array([x0, y0], float))


# -- decode ----------------------------------------------------------------------------------------------

def decode(image: np.ndarray, *, known: Sequence[Detection] = (), upscale: bool = True,
           decoder: str | None = None) -> DecodeResult:
    """Every code truly decoded in one frame (BGR or grey). ``known``: codes confirmed in earlier frames;
    ``upscale``: also search and upscale regions the full-frame pass missed (the default);
    ``decoder``: "zxing-cpp" (default) or "pyzbar"."""
    backend = _backend(decoder)
    gray = _gray(image)
    hits = _decode_gray(gray, backend, known, upscale)
    return _result(hits)


FULL_PASS_PPM = 2.4    # known codes at least this big: one full-frame pass re-reads most of them cheaper than crops


def _decode_gray(gray: np.ndarray, backend: str, known: Sequence[Detection], upscale: bool) -> list[_Hit]:
    hits: list[_Hit] = []
    known = list(known)
    # Big codes are re-read fastest by one full-frame pass; small ones (which that pass mostly misses)
    # only by their crops. So the pass runs unless every known code is small.
    if not known or np.median([k.size for k in known]) / 21 >= FULL_PASS_PPM:
        hits += _read(gray, backend)
    jobs: list[tuple[np.ndarray, int, int, float]] = []
    pending: list[_Hit] = []          # where known codes will be re-checked (for the candidate search)
    for k in known:
        if any(h.text == k.payload and (h.center[0] - k.center[0]) ** 2 + (h.center[1] - k.center[1]) ** 2
               < (0.5 * h.side) ** 2 for h in hits):
            continue
        side = max(8.0, k.size)
        crop, x0, y0 = _crop(gray, k.center[0], k.center[1], side * 0.95)
        if crop.shape[0] < 12 or crop.shape[1] < 12:
            continue
        jobs.append((crop, x0, y0, side / 21))
        pending.append(_Hit(k.payload, np.asarray(k.corners, float)))
    if upscale or known:
        sides = [h.side for h in hits] or [k.size for k in known]
        hint = float(np.median(sides)) if sides else None
        for c in find_candidates(gray, hint):
            if _explained(c, hits) or _explained(c, pending):
                continue
            crop, x0, y0 = _crop(gray, c.x, c.y, c.r * 1.55 + 4)
            if crop.shape[0] < 12 or crop.shape[1] < 12:
                continue
            jobs.append((crop, x0, y0, 2 * c.r / 21))
    hits += _decode_jobs(jobs, backend, upscale)
    return _dedupe(hits)


MOSAIC_WIDTH = 2048


def _first_variant(crop: np.ndarray, ppm: float | None) -> tuple[np.ndarray, float]:
    scale, sigma, amount, _glob = _variants_for(ppm)[0]
    if ppm is not None and ppm * scale > 14 and scale > 1:
        scale = max(1, int(14 / ppm))
    img = _sharpen(crop, sigma, amount) if sigma else crop
    if scale != 1:
        img = cv2.resize(img, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
    return img, scale


def _decode_jobs(jobs, backend: str, upscale: bool) -> list[_Hit]:
    """Decode many small crops. Their first (most likely) way is done for all of them at once: the
    prepared crops are tiled into one picture and decoded in one call, which costs about what their
    pixels cost, not one call each. Crops that did not read there try the other ways one by one."""
    if not jobs:
        return []
    prepared = [_first_variant(crop, ppm) if upscale else (crop, 1) for crop, _x, _y, ppm in jobs]
    pad = 6
    # shelf packing: tallest first, left to right, a new shelf when the row is full
    order = sorted(range(len(jobs)), key=lambda i: -prepared[i][0].shape[0])
    places, x, y, shelf = {}, 0, 0, 0
    for i in order:
        th, tw = prepared[i][0].shape[0] + 2 * pad, prepared[i][0].shape[1] + 2 * pad
        if x and x + tw > MOSAIC_WIDTH:
            x, y, shelf = 0, y + shelf, 0
        places[i] = (x, y)
        x += tw
        shelf = max(shelf, th)
    width = max(px + prepared[i][0].shape[1] + 2 * pad for i, (px, _py) in places.items())
    height = y + shelf
    mosaic = np.full((height, width), 255, np.uint8)
    for i, (px, py) in places.items():
        tile = cv2.copyMakeBorder(prepared[i][0], pad, pad, pad, pad, cv2.BORDER_REPLICATE)
        mosaic[py:py + tile.shape[0], px:px + tile.shape[1]] = tile
    found: dict[int, list[_Hit]] = {}
    for h in _read(mosaic, backend):
        cx, cy = h.center
        for i, (px, py) in places.items():
            img = prepared[i][0]
            if px + pad <= cx < px + pad + img.shape[1] and py + pad <= cy < py + pad + img.shape[0]:
                local = _Hit(h.text, h.corners - [px + pad, py + pad])
                found.setdefault(i, []).append(_to_image(local, prepared[i][1], jobs[i][1], jobs[i][2]))
                break
    out = [h for hs in found.values() for h in hs]
    if upscale:
        for i, (crop, x0, y0, ppm) in enumerate(jobs):
            if i in found:
                continue
            out += [_to_image(h, s, x0, y0) for h, s in _decode_crop(crop, backend, ppm, skip_first=True)]
    return out


def _explained(c: _Candidate, hits: Sequence[_Hit]) -> bool:
    for h in hits:
        if (c.x - h.center[0]) ** 2 + (c.y - h.center[1]) ** 2 < (0.5 * h.side + 0.3 * c.r) ** 2:
            return True
    return False


def _dedupe(hits: list[_Hit]) -> list[_Hit]:
    """One entry per code on the table. The same text read twice at one place is one code (corners
    averaged); two texts at one place contradict each other, and neither is reported."""
    groups: list[list[_Hit]] = []
    for h in hits:
        for g in groups:
            ref = g[0]
            lim = SAME_PLACE * max(h.side, ref.side)
            if (h.center[0] - ref.center[0]) ** 2 + (h.center[1] - ref.center[1]) ** 2 < lim * lim:
                g.append(h)
                break
        else:
            groups.append([h])
    out = []
    for g in groups:
        if len({h.text for h in g}) > 1:
            continue
        out.append(g[0] if len(g) == 1 else _Hit(g[0].text, np.mean([h.corners for h in g], axis=0)))
    return out


def _result(hits: list[_Hit]) -> DecodeResult:
    codes, foreign = [], []
    for h in hits:
        corners = tuple((float(x), float(y)) for x, y in h.corners)
        center = h.center
        if parse_sticker(h.text) is not None:
            codes.append(Detection(h.text, corners, center, _card(h.text)))
        else:
            foreign.append(Detection(h.text, corners, center))
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
    the camera's shake has sampled the sticker at different sub-pixel offsets. If the average does not
    read, each frame's own cut is tried. A code counts only when a decoder read it."""
    if not frames:
        return DecodeResult([], [])
    if len(frames) == 1:
        return decode(frames[0], **kw)
    unknown = set(kw) - {"known", "upscale", "decoder"}
    if unknown:
        raise TypeError(f"decode_burst: unknown options {sorted(unknown)}")
    backend = _backend(kw.get("decoder"))
    upscale = kw.get("upscale", True)
    grays = [_gray(f) for f in frames]
    if any(g.shape != grays[0].shape for g in grays):
        raise ValueError("the frames of a burst must all have the same size")
    hits = _decode_gray(grays[0], backend, kw.get("known", ()), upscale)
    if upscale:
        hits = _dedupe(hits + _burst_candidates(grays, hits, backend))
    return _result(hits)


# Sharpening of the averaged, upscaled cut: (sigma in original pixels, amount, global binarizer).
_FUSED_VARIANTS = ((0.8, 0.8, False), (1.2, 1.5, False), (0.8, 0.8, True), (1.0, 2.5, False), (0.6, 1.2, False))


def _burst_candidates(grays: list[np.ndarray], hits: list[_Hit], backend: str) -> list[_Hit]:
    sides = [h.side for h in hits]
    hint = float(np.median(sides)) if sides else None
    out: list[_Hit] = []
    ref_img = grays[0]
    H, W = ref_img.shape
    for c in find_candidates(ref_img, hint):
        if _explained(c, hits) or _explained(c, out):
            continue
        half = c.r * 1.55 + 4
        x0, y0 = max(0, int(c.x - half)), max(0, int(c.y - half))
        x1, y1 = min(W, int(math.ceil(c.x + half)) + 1), min(H, int(math.ceil(c.y + half)) + 1)
        w, h = x1 - x0, y1 - y0
        if w < 12 or h < 12:
            continue
        ref = ref_img[y0:y1, x0:x1].astype(np.float32)
        window = cv2.createHanningWindow((w, h), cv2.CV_32F)
        shifts = [(0.0, 0.0)]
        for g in grays[1:]:
            (dx, dy), _ = cv2.phaseCorrelate(ref, g[y0:y1, x0:x1].astype(np.float32), window)
            if abs(dx) < w / 4 and abs(dy) < h / 4:
                shifts.append((dx, dy))
        found: list[tuple[_Hit, float]] = []
        scale = 3
        stack = np.zeros((h * scale, w * scale), np.float32)
        for (dx, dy), g in zip(shifts, grays):
            # upscaled pixel (u, v) <- frame pixel ((u + 0.5) / scale - 0.5 + x0 + dx, ...)
            M = np.float32([[1 / scale, 0, 0.5 / scale - 0.5 + x0 + dx], [0, 1 / scale, 0.5 / scale - 0.5 + y0 + dy]])
            stack += cv2.warpAffine(g, M, (w * scale, h * scale), flags=cv2.INTER_CUBIC | cv2.WARP_INVERSE_MAP,
                                    borderMode=cv2.BORDER_REFLECT)
        big = np.clip(stack / len(shifts) + 0.5, 0, 255).astype(np.uint8)
        for sigma, amount, glob in _FUSED_VARIANTS:
            got = _read(_sharpen(big, sigma * scale, amount), backend, glob)
            if got:
                found = [(hh, scale) for hh in got]
                break
        if found:
            out += [_to_image(hh, s, x0, y0) for hh, s in found]
            continue
        for g in grays[1:]:
            crop, cx0, cy0 = _crop(g, c.x, c.y, half)
            got = _decode_crop(crop, backend, 2 * c.r / 21, _VARIANTS[:3])
            if got:
                # a still table: this frame's pixels are the first frame's, up to the shake (under a pixel)
                out += [_to_image(hh, s, cx0, cy0) for hh, s in got]
                break
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
