"""Finishing what the plain pass found: the QR codes zxing-cpp located in the whole frame but could not
decode (a checksum or format error: a wrinkled print, a worn or glared sticker) are read again, each
in its own region only, in a few other ways, within a bounded budget per frame."""

from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np

from companion.vision.decode.readers import ADAPTIVE, GLOBAL, Hit, read

FINISH_MOST = 6              # found-but-undecoded codes finished per frame, the biggest first
FINISH_PIXELS = 400_000      # pixels handed to the decoder per frame for them, all ways together
MARGIN = 0.25                # the region read: the found code and this share of its side around it
SIDE_RANGE = (48, 240)       # the rectified code's side in pixels (a smaller or bigger code is scaled)
TWICE_UP_TO = 120            # the 2x reading for rectified codes up to this side
HALF_FROM = 96               # the half-size reading for rectified codes from this side


def _side(corners) -> float:
    return sum(math.dist(corners[i], corners[i - 1]) for i in range(4)) / 4


def finish(gray: np.ndarray, found: Sequence[Hit], backend: str) -> list[Hit]:
    """Codes read in the regions of ``found`` (hits with the corners of a code found but not decoded),
    corners in the frame's pixels. Each region is turned square (its found corners onto an upright
    square, a quarter of its side of margin around) and read, as it is, with the other binarizer, at
    2x when small and at half size when big, until one reading decodes it; at most FINISH_MOST
    regions a frame and FINISH_PIXELS pixels read for all of them."""
    out: list[Hit] = []
    budget = FINISH_PIXELS
    for f in sorted(found, key=lambda h: -h.side)[:FINISH_MOST]:
        side = min(max(_side(f.corners), SIDE_RANGE[0]), SIDE_RANGE[1])
        m = MARGIN * side
        n = int(round(side + 2 * m))
        square = np.array([(m, m), (m + side, m), (m + side, m + side), (m, m + side)], np.float32)
        to_square = cv2.getPerspectiveTransform(np.array(f.corners, np.float32), square)
        flat = cv2.warpPerspective(gray, to_square, (n, n), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        back = np.linalg.inv(np.asarray(to_square, np.float64))
        readings: list[tuple[np.ndarray, float, str]] = [(flat, 1.0, ADAPTIVE), (flat, 1.0, GLOBAL)]
        if side <= TWICE_UP_TO:
            readings.append((cv2.resize(flat, None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC), 2.0, ADAPTIVE))
        if side >= HALF_FROM:
            readings.append((cv2.resize(flat, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA), 0.5, ADAPTIVE))
        for image, scale, binarizer in readings:
            if image.size > budget:
                return out
            budget -= image.size
            hits, _nearly = read(image, backend, binarizer, scale)
            if hits:
                for h in hits:
                    pts = cv2.perspectiveTransform(np.array([h.corners], np.float32), back)[0]
                    out.append(Hit(h.text, [(float(x), float(y)) for x, y in pts]))
                break
    return out
