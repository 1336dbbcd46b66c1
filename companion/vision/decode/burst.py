"""A burst of frames of one still table: the first frame read as ``decode`` reads it, and each place
it leaves unread fused from every frame (aligned, upscaled onto one grid and averaged)."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from companion.vision.decode.cuts import Job, crop_half, read_tiled, to_image, ways
from companion.vision.decode.frame import DecodeResult, decode, decode_gray, dedupe, result
from companion.vision.decode.image import crop, gray
from companion.vision.decode.readers import FIXED, Hit
from companion.vision.decode.readers import backend as pick_backend


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
    backend = pick_backend(kw.get("decoder"))
    upscale = kw.get("upscale", True)
    shapes = {np.asarray(f).shape[:2] for f in frames}
    if len(shapes) > 1:
        raise ValueError("the frames of a burst must all have the same size")
    first = gray(frames[0])
    plain, hits, left = decode_gray(first, backend, kw.get("known", ()), upscale, want_left=True)
    if upscale and left:
        hits = hits + _fuse(first, frames[1:], left, backend)
    return result(dedupe(plain, hits))


FUSE_SCALE = 3
# Sharpening of the averaged, upscaled cut: (sigma in original pixels, amount), tried in turn.
_FUSED_WAYS = ((0.8, 8.0), (0.9, 5.0), (0.8, 3.0))


def _fuse(first: np.ndarray, others: Sequence[np.ndarray], jobs: Sequence[Job], backend: str) -> list[Hit]:
    """Codes read in the average of each job's aligned, upscaled cuts (image pixels of ``first``); where
    the average does not read, each frame's own cut is tried. Only the cuts of the other frames are
    turned grey, with a margin for the shake."""
    s = FUSE_SCALE
    H, W = first.shape
    fused = []
    origins = []
    kept = []                     # (job, its cuts from the other frames, where they lie)
    for j in jobs:
        cut, x0, y0 = crop(first, j.cand.x, j.cand.y, crop_half(j.cand, 1))
        h, w = cut.shape
        if h < 12 or w < 12:
            continue
        origins.append((x0, y0))
        ref = cut.astype(np.float32)
        window = cv2.createHanningWindow((w, h), cv2.CV_32F)
        m = w // 4 + 4
        bx0, by0, bx1, by1 = max(0, x0 - m), max(0, y0 - m), min(W, x0 + w + m), min(H, y0 + h + m)
        stack = np.zeros((h * s, w * s), np.float32)
        n = 0
        cuts = [gray(np.asarray(f)[by0:by1, bx0:bx1]) for f in others]
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
            M = np.array([[1 / s, 0, 0.5 / s - 0.5 + x0 - ox + dx], [0, 1 / s, 0.5 / s - 0.5 + y0 - oy + dy]],
                         np.float32)
            stack += cv2.warpAffine(g, M, (w * s, h * s), flags=cv2.INTER_CUBIC | cv2.WARP_INVERSE_MAP,
                                    borderMode=cv2.BORDER_REFLECT)
            n += 1
        fused.append(np.clip(stack / n + 0.5, 0, 255).astype(np.uint8))
    out: list[Hit] = []
    todo = list(range(len(fused)))
    for sigma, amount in _FUSED_WAYS:
        if not todo:
            break
        found = read_tiled([fused[i] for i in todo], [(0, 0)] * len(todo), (1, sigma * s, amount, FIXED), backend)
        still = []
        for i, (hs, _nearly) in zip(todo, found, strict=True):
            out += [to_image(h, s, *origins[i]) for h in hs]
            if not hs:
                still.append(i)
        todo = still
    if todo:
        # a still table: each frame's pixels are the first frame's, up to the shake (under a pixel)
        groups: dict[tuple, tuple[list, list]] = {}
        for i in todo:
            j, cuts, (bx0, by0) = kept[i]
            way = ways(j.cand.ppm)[0]
            for g in cuts:
                cut, x0, y0 = crop(g, j.cand.x - bx0, j.cand.y - by0, crop_half(j.cand))
                if cut.shape[0] >= 12 and cut.shape[1] >= 12:
                    groups.setdefault(way, ([], []))[0].append(cut)
                    groups[way][1].append((x0 + bx0, y0 + by0))
        for way, (crops, places) in groups.items():
            for hs, _nearly in read_tiled(crops, places, way, backend):
                out += hs
    return out
