"""Sticker candidates: places in a frame dense with module-sized contrast, about square, with the
size of the code they may hold."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from companion.vision.decode.image import crop, half

MIN_PPM, MAX_PPM = 1.4, 9.0        # pixels per module the candidate search looks for
CANDIDATE_CONTRAST = 36            # mean 3x3 grey-level range (half-size image) that marks code texture
WELL_LIT = 200                     # the 99th percentile grey level from which a frame counts as well lit
LEAST_LIGHT = 0.35                 # the threshold goes no lower than this share (a covered lens is noise)
SIZE_BIAS = 1.25                   # the search's code size / the true size (docs/vision.md)
_K3 = np.ones((3, 3), np.uint8)
REPEAT_GRID = 48                   # pixels a side of the patches that ``repetition`` measures
_MODULE = REPEAT_GRID / (1.8 * SIZE_BIAS * 21 / 2)      # their pixels per module (a patch is 1.8 r a side)
_REPEAT_WINDOW = np.outer(np.hanning(REPEAT_GRID), np.hanning(REPEAT_GRID))
_REPEAT_SLOW = np.hypot(np.fft.fftfreq(REPEAT_GRID)[:, None], np.fft.rfftfreq(REPEAT_GRID)[None, :]) < 1 / (4 * _MODULE)
_REPEAT_NEAR = math.ceil(1.5 * _MODULE)


@dataclass
class Candidate:
    x: float          # centre, image pixels
    y: float
    r: float          # about half the code's side, pixels (the search measures codes SIZE_BIAS too big)
    cut: float = 0.0  # half the side of the first cut, when known better than from ``r`` (a known code)

    @property
    def ppm(self) -> float:
        """The module size as the search measures it (SIZE_BIAS times the true one): what picks the ways."""
        return 2 * self.r / 21


def _contrast(small: np.ndarray) -> float:
    """The code texture's contrast threshold for this frame: CANDIDATE_CONTRAST in a well-lit frame,
    lower in proportion in a dim one (a sticker's black-to-white range shrinks with the light)."""
    # every 8th pixel each way is enough for a percentile (docs/vision.md)
    samples = small[::8, ::8].ravel()
    k = max(0, math.ceil(0.99 * samples.size) - 1)
    light = int(np.partition(samples, k)[k])                         # the 99th percentile grey level
    return CANDIDATE_CONTRAST * min(1.0, max(light / WELL_LIT, LEAST_LIGHT))


TEXTURE_STEP = 4                   # the texture mask's pixels are this many frame pixels a side


def code_texture(gray: np.ndarray, small: np.ndarray | None = None) -> np.ndarray:
    """Where the frame is dense with module-sized contrast, at quarter size (1 there, else 0): the
    local contrast (the 3x3 grey-level range of the half-size image ``small``, averaged over about
    6x6) above the frame's threshold. A code's modules make a solid patch of it, while a card edge or a
    line of text makes a thin band."""
    h, w = gray.shape
    if small is None:
        small = half(gray)
    grad = cv2.morphologyEx(small, cv2.MORPH_GRADIENT, _K3)
    # averaged over about 6x6 half-size pixels, and the patches' shapes measured, at quarter size: a
    # code is still 9+ pixels across there
    f = TEXTURE_STEP
    texture = cv2.blur(cv2.resize(grad, (w // f, h // f), interpolation=cv2.INTER_AREA), (3, 3))
    return cv2.threshold(texture, _contrast(small), 1, cv2.THRESH_BINARY)[1]


def least_reach() -> float:
    """The least distance from a texture patch's edge (mask pixels) at which the search places a code."""
    return 21 * MIN_PPM / TEXTURE_STEP / 2 * 0.6 + 0.5


def find_candidates(gray: np.ndarray, size_hint: float | None = None, small: np.ndarray | None = None,
                    mask: np.ndarray | None = None) -> np.ndarray:
    """Places that look like a sticker code: a patch dense with module-sized contrast, about square.
    One row per place, strongest first: its centre and ``r`` as a ``Candidate`` has them. (Rows, not
    Candidates: busy card art and small print make a hundred places a frame, most of which the size
    of the codes read rules out, and making an object of each cost more than the search.)

    The patches are ``code_texture``'s (``mask``, when the caller has it; ``small``: the half-size
    image, when the caller has it). The distance to the patch's edge peaks in the middle of each
    code (even where a code's patch touches a card edge), which gives its centre and size.
    ``size_hint``: the side of codes already read in this frame, which narrows the search."""
    if mask is None:
        mask = code_texture(gray, small)
    f = TEXTURE_STEP
    dist = cv2.distanceTransform(mask, cv2.DIST_L2, 3)
    lo = least_reach()
    hi = 21 * MAX_PPM / f / 2 + 2
    if size_hint:
        lo = max(lo, size_hint / f / 2 * 0.55)
        hi = min(hi, size_hint / f / 2 * 1.6 + 2)
    # (OpenCV takes scalar bounds; its stubs ask for arrays)
    in_range = cv2.inRange(dist, lo, hi)  # type: ignore[call-overload]
    peaks = cv2.bitwise_and(cv2.compare(dist, cv2.dilate(dist, _K3), cv2.CMP_GE), in_range)
    # (16-bit labels: a quarter-size frame holds far fewer than 65,536 separate peaks)
    n, labels, _stats, centroids = cv2.connectedComponentsWithStats(peaks, connectivity=8, ltype=cv2.CV_16U)
    if n <= 1:
        return np.zeros((0, 3))
    is_peak = peaks > 0
    vals = np.zeros(n, np.float32)
    # a peak is a plateau: every pixel of one holds its neighbours' maximum, so all hold one value
    vals[labels[is_peak]] = dist[is_peak]
    # the strongest peak first; a weaker one within 0.9 of the stronger's value is the same code
    order = np.argsort(-vals[1:], kind="stable") + 1
    v, c = vals[order], centroids[order]
    x, y = c[:, 0].astype(np.float32), c[:, 1].astype(np.float32)
    # (two n x n sums, not one n x n x 2 array summed over its last axis: numpy reduces a short last
    # axis slowly, and busy card art makes hundreds of peaks)
    d2 = np.subtract.outer(x, x) ** 2 + np.subtract.outer(y, y) ** 2
    near = d2 < (0.9 * v[:, None]) ** 2          # near[i, j]: j lies within reach of i (v[i] >= v[j])
    gone = np.zeros(len(order), bool)
    kept = []
    for i in range(len(order)):
        if not gone[i]:
            kept.append(i)
            gone |= near[i]
    # patch half-width = code half-side + about half the averaging window's reach
    places = np.empty((len(kept), 3))
    places[:, :2] = c[kept] * f + (f - 1) / 2
    places[:, 2] = np.maximum(2.0, v[kept].astype(np.float64) - 0.5) * f
    return places


def isotropy(gray: np.ndarray, c: Candidate) -> float:
    """1 when the grey-level edges around ``c`` run every way (a code's modules), near 0 when they run
    one way (a line of text, a card edge, wood grain)."""
    patch = crop(gray, c.x, c.y, 0.9 * c.r)[0].astype(np.float32)
    if patch.shape[0] < 3 or patch.shape[1] < 3:
        return 0.0
    gx = cv2.Sobel(patch, cv2.CV_32F, 1, 0)
    gy = cv2.Sobel(patch, cv2.CV_32F, 0, 1)
    xx, yy, xy = float((gx * gx).mean()), float((gy * gy).mean()), float((gx * gy).mean())
    trace = xx + yy
    return 2 * math.sqrt(max(xx * yy - xy * xy, 0.0)) / trace if trace else 0.0


def repetition(gray: np.ndarray, cands: Sequence[Candidate]) -> np.ndarray:
    """For each candidate, how closely the texture around it matches itself shifted by a module and a
    half or more: near 1 for a lattice (a check or a dot screen: card art), about 0.25 for a code. A QR
    code's modules are close to random by design (its mask is chosen to break up regular patterns), so
    its texture matches itself only unshifted. Each patch (as ``isotropy`` takes it) is resampled to
    REPEAT_GRID pixels a side (about two per module) and all are measured in one go: the
    autocorrelation of the patch's texture (what changes over more than four modules, such as the
    light falling across it, left out), as a share of the unshifted one."""
    if not cands:
        return np.zeros(0)
    n = REPEAT_GRID
    stack = np.empty((len(cands), n, n), np.float64)
    for i, c in enumerate(cands):
        patch = crop(gray, c.x, c.y, 0.9 * c.r)[0]
        stack[i] = cv2.resize(patch, (n, n), interpolation=cv2.INTER_AREA) if patch.size else 0.0
    stack -= stack.mean(axis=(1, 2), keepdims=True)
    stack *= _REPEAT_WINDOW
    spectrum = np.fft.rfft2(stack)
    power = spectrum.real ** 2 + spectrum.imag ** 2
    power[:, _REPEAT_SLOW] = 0.0
    ac = np.fft.irfft2(power, s=(n, n))
    top = ac[:, 0, 0].copy()
    k = _REPEAT_NEAR            # (circular: the shifts near zero lie at the four corners)
    ac[:, :k, :k] = ac[:, :k, -k:] = ac[:, -k:, :k] = ac[:, -k:, -k:] = -np.inf
    return np.where(top > 0, ac.reshape(len(cands), -1).max(axis=1) / np.where(top > 0, top, 1.0), 0.0)

