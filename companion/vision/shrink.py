"""Shrinking a camera frame by a whole number.

OpenCV's area shrink takes a fast path only when both sides shrink by the same whole number (each
small pixel is the mean of a k x k block); any other ratio takes the general path, several times
slower (12.5 ms instead of ~1 for a 12 MP frame to 320 wide on the development machine). So every
shrink of a frame here is by a whole number, after cutting off the last few rows and columns that
do not fill a block (under k pixels: invisible at the small size).
"""

from __future__ import annotations

import numpy as np


def factor(width: int, target: int, *, at_most: bool = True) -> int:
    """The whole number to divide ``width`` by: the smallest that gives ``target`` or less
    (``at_most``), else the largest that gives ``target`` or more (never coarser than asked)."""
    if at_most:
        return max(1, -(-width // target))
    return max(1, width // target)


def shrink(image: np.ndarray, k: int) -> np.ndarray:
    """``image`` (grey or colour) divided by ``k`` on both sides, each small pixel the mean of a
    k x k block."""
    if k <= 1:
        return image
    import cv2
    h, w = image.shape[:2]
    h, w = h - h % k, w - w % k
    return cv2.resize(image[:h, :w], (w // k, h // k), interpolation=cv2.INTER_AREA)
