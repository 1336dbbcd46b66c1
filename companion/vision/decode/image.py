"""The frame as the stages read it: 8-bit grey, halved, and cut around a point."""

from __future__ import annotations

import math

import cv2
import numpy as np


def gray(image) -> np.ndarray:
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


def half(gray: np.ndarray) -> np.ndarray:
    h, w = gray.shape
    return cv2.resize(gray, (w // 2, h // 2), interpolation=cv2.INTER_AREA)


def crop(gray: np.ndarray, cx: float, cy: float, half: float) -> tuple[np.ndarray, int, int]:
    """The square of half-side ``half`` around (cx, cy), clipped to the frame, and its top-left corner."""
    h, w = gray.shape
    x0, y0 = max(0, int(cx - half)), max(0, int(cy - half))
    x1, y1 = min(w, int(math.ceil(cx + half)) + 1), min(h, int(math.ceil(cy + half)) + 1)
    return gray[y0:y1, x0:x1], x0, y0
