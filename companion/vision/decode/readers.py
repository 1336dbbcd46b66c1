"""The barcode decoders behind the stages: zxing-cpp (the default), pyzbar (the fallback), and the
plain full-frame pass that every frame gets.

Only QR Model 2 is read, dark on light, as the stickers are printed: see docs/vision.md ("What is
not read, by design").
"""

from __future__ import annotations

import math
import os
import sys
from functools import lru_cache

import cv2
import numpy as np

# a frame's many cuts are read on two threads, half each, and the plain pass runs beside the search
TWO_READERS = (os.cpu_count() or 1) > 1


class Hit:
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


def backend(decoder: str | None) -> str:
    """The decoder to use: the one asked for, else the default; refused in words when unavailable."""
    st = decoder_status()
    name = decoder or st["default"]
    if name == "zxing-cpp" and st["zxing-cpp"] is None or name == "pyzbar" and st["pyzbar"] is None:
        raise RuntimeError(f"decoder {name} is not available: {st['note']}")
    if name not in ("zxing-cpp", "pyzbar"):
        raise ValueError(f"unknown decoder {decoder!r} (zxing-cpp or pyzbar)")
    return name


def plain_symbols(img: np.ndarray) -> list:
    """zxing-cpp's plain full-frame pass: its own defaults (both ways up, its downscaled copies of a
    big frame, its adaptive binarizer), QR Model 2, dark on light. The decoder runs exactly this on
    every frame, so it reads at least what this reads; ``companion bench vision`` times it as the
    reference."""
    zx = _zxing()
    return zx.read_barcodes(img, formats=zx.BarcodeFormat.QRCodeModel2, try_invert=False)


# zxing-cpp keeps at most this many symbols of one pass, the found-but-undecoded ones included (its
# ReaderOptions' maxNumberOfSymbols, 255, which its Python binding does not let one change)
_ZXING_MOST = 255
# where the plain pass with its undecoded symbols returns this many or more, it is run again without
# them: a cap on symbols of one pass could then have cut off a read (never on the bench's frames or photos)
FOUND_PLENTY = 64

# how a cut is cut into black and white (``readers.read``): the keys of a way's fourth field
FIXED, ADAPTIVE, GLOBAL = "fixed", "adaptive", "global"


def plain_found(img: np.ndarray) -> tuple[list, list]:
    """The plain full-frame pass's symbols (``plain_symbols``, exactly) and the QR codes it found but
    could not decode (their corners), from one pass of zxing-cpp with ``return_errors``.

    The symbols it decodes are exactly ``plain_symbols``'s (zxing-cpp 3.1): its QR reader uses up
    finder patterns only on decoded symbols, so each of its downscaled copies yields the same decoded
    symbols either way; the pass merges a symbol into its list unless one with the same bytes lies at
    its place, so an undecoded symbol (no bytes) never hides a decoded one; and at the end it drops only
    symbols in error. What could still differ is guarded here: an undecoded symbol that carries bytes,
    or a pass near zxing-cpp's cap on symbols (``FOUND_PLENTY``), and then ``plain_symbols`` runs as
    well and its symbols are the ones kept (tests/test_vision_photos.py compares the two on every
    photo)."""
    zx = _zxing()
    found = zx.read_barcodes(img, formats=zx.BarcodeFormat.QRCodeModel2, try_invert=False, return_errors=True)
    decoded = [r for r in found if r.valid]
    undecoded = [r for r in found if not r.valid]
    if len(found) >= FOUND_PLENTY or any(r.bytes for r in undecoded):
        decoded = plain_symbols(img)
    return decoded, [_corners(r.position) for r in undecoded]


def _corners(p) -> list[tuple[float, float]]:
    return [(float(q.x), float(q.y)) for q in (p.top_left, p.top_right, p.bottom_right, p.bottom_left)]


def _symbols(img: np.ndarray, backend: str, binarizer: str) -> list:
    """The decoder's own results for one grey cut, with the symbols it found but could not decode
    (zxing-cpp; their ``valid`` is False). ``binarizer``: FIXED for a cut that went through the strong
    sharpening of a way (pushed towards black and white), which zxing-cpp reads best with a fixed
    threshold (its adaptive binarizer follows the overshoot around each module instead); ADAPTIVE
    (zxing-cpp's default, local averages) or GLOBAL (one threshold from the cut's histogram) for an
    unsharpened one."""
    if backend == "zxing-cpp":
        zx = _zxing()
        kind = {FIXED: zx.Binarizer.FixedThreshold, ADAPTIVE: zx.Binarizer.LocalAverage,
                GLOBAL: zx.Binarizer.GlobalHistogram}[binarizer]
        # Model 2 only: zxing's "QRCode" family also holds Micro QR, whose smallest version only detects
        # errors (2 check codewords) and turns noise into short texts such as "0098"
        return zx.read_barcodes(img, formats=zx.BarcodeFormat.QRCodeModel2, try_rotate=False, try_invert=False,
                                try_downscale=False, return_errors=True, binarizer=kind)
    return _pyzbar_symbols(img)


def _pyzbar_symbols(img: np.ndarray) -> list:
    pz, _ = _pyzbar()
    try:
        return pz.decode(img, symbols=[pz.ZBarSymbol.QRCODE])
    except ValueError:
        # pyzbar turns zbar's orientation of some symbols (a structured-append QR) into an enum that has
        # no such value and fails the whole image (an open pyzbar bug): nothing read, never a crash
        return []


def _hits(found: list, backend: str, scale: float = 1.0, at: tuple[float, float] = (0.0, 0.0)) -> list[Hit]:
    """A decoder's results as hits, corners in the frame's pixels: the image was the frame's region
    from ``at``, scaled by ``scale`` (pixel centres at integers)."""
    ax, ay = at[0] + 0.5 / scale - 0.5, at[1] + 0.5 / scale - 0.5
    out = []
    if backend == "zxing-cpp":
        for r in found:
            if r.valid:
                p = r.position
                out.append(Hit(r.text, [(q.x / scale + ax, q.y / scale + ay)
                                        for q in (p.top_left, p.top_right, p.bottom_right, p.bottom_left)]))
        return out
    for r in found:
        try:
            text = r.data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        out.append(Hit(text, (_quad(np.array([(p.x, p.y) for p in r.polygon], float)) / scale + (ax, ay)).tolist()))
    return out


def read(img: np.ndarray, backend: str, binarizer: str = ADAPTIVE, scale: float = 1.0,
         at: tuple[float, float] = (0.0, 0.0)) -> tuple[list[Hit], bool]:
    """Every QR code one decoder reads in a grey cut, corners in the frame's pixels (see ``_hits``),
    and whether the cut held a code the decoder found but could not decode (always True for pyzbar,
    which does not say)."""
    found = _symbols(img, backend, binarizer)
    return _hits(found, backend, scale, at), backend != "zxing-cpp" or any(not r.valid for r in found)


def read_plain(gray: np.ndarray, backend: str, found: bool = False) -> tuple[list[Hit], list[Hit]]:
    """The plain full-frame pass (``plain_symbols``; pyzbar's whole-frame read for the fallback) as hits,
    and (``found``, zxing-cpp) the codes it found but could not decode, as hits with no text
    (``plain_found``)."""
    if backend != "zxing-cpp":
        return _hits(_pyzbar_symbols(gray), backend), []
    if not found:
        return _hits(plain_symbols(gray), backend), []
    decoded, undecoded = plain_found(gray)
    return _hits(decoded, backend), [Hit("", c) for c in undecoded]


@lru_cache(maxsize=1)
def other_reader():
    """The decoder's second thread. From then on OpenCV works on one thread: the decoder splits a
    frame's work between its two threads itself, and OpenCV's own pool on top of that, on its small
    pictures (a mosaic of cuts, a half-size frame), spent 3-8 % more CPU time on busy card art and
    saved no time (docs/vision.md, "Busy card art"). The setting is the process's: the tracker's and
    the table view's few OpenCV calls a frame (grey, a shrink, a colour conversion) run on one thread
    too."""
    from concurrent.futures import ThreadPoolExecutor
    cv2.setNumThreads(1)
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
