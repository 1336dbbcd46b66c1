"""Card outlines where nothing is known of the cards yet (enrolment): what differs from the bare
table (or, on a scanned page, from the paper), cut into card-shaped blobs.

``outlines(picture, background)`` returns each card's four corners (top left first, clockwise, the
card upright: its long side down the picture) in reading order (rows top to bottom, left to right).
Blobs that are no card (two cards touching, a hand, a card half out of view) are returned apart as
``Blob``s with what is wrong, so the owner can be told which place to fix.

The difference is taken in colour: in grey, a pale card's edge on a pale table differs by a few
levels and makes no outline. The Pi camera's grey frame carries its main stream's U and V planes
(vision/sources.py, ``CameraFrame.chroma``), put back in colour at the working size (``in_colour``).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from companion.i18n import N_

CARD_ASPECT = 88 / 63           # a card's long side over its short side (Timeline, print-and-play)
ASPECT_SLACK = 0.18             # ... give or take this share
DIFF_LEVEL = 28                 # grey levels (any colour channel) that make a pixel differ from the table


@dataclass(frozen=True)
class Blob:
    corners: np.ndarray         # 4 x 2, top left first, clockwise
    problem: str | None         # None: a card; else what is wrong (a msgid: the kiosk says it translated)


def outlines(picture: np.ndarray, background: np.ndarray | None = None, *, least_area: float = 0.002) -> list[Blob]:
    """The cards in ``picture`` (BGR, or the Pi camera's grey frame, seen in colour from the chroma
    it carries: ``in_colour``) against ``background`` (the bare table, the same camera), or against the
    paper's colour when there is none (a scan). ``least_area``: the smallest card as a share of the
    picture."""
    k = max(1, int(round(max(picture.shape[:2]) / 1600)))      # blobs are found at about 1600 px
    colour = background is None or _has_colour(background)        # both compared in colour, or both in grey
    small = cv2.GaussianBlur(in_colour(picture, k, colour), (0, 0), 1.5).astype(np.int16)
    if background is not None:
        bg = cv2.resize(in_colour(background, k, _has_colour(picture)), (small.shape[1], small.shape[0]),
                        interpolation=cv2.INTER_AREA)
        ref = cv2.GaussianBlur(bg, (0, 0), 1.5).astype(np.int16)
        diff = small - ref
        diff -= np.median(diff.reshape(-1, 3), 0).astype(np.int16)     # the camera's exposure moved
    else:
        border = np.concatenate([small[:4].reshape(-1, 3), small[-4:].reshape(-1, 3), small[:, :4].reshape(-1, 3),
                                 small[:, -4:].reshape(-1, 3)])
        diff = small - np.median(border, 0).astype(np.int16)
    mask = (np.abs(diff).max(2) > DIFF_LEVEL).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((7, 7), np.uint8))
    # the inside of a card's outline may differ little from the table (a grey camera sees a face's greys
    # as the wood's): each outer contour is filled before specks are opened away, so a card's thin
    # border is not opened away with them
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.drawContours(mask, contours, -1, 1, cv2.FILLED)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    least = least_area * mask.size
    found = []
    for c in contours:
        area = cv2.contourArea(c)
        if area < least:
            continue
        rect = cv2.minAreaRect(c)
        (w, h) = rect[1]
        corners = _upright(cv2.boxPoints(rect)) * k + (k - 1) / 2
        aspect = max(w, h) / max(1e-6, min(w, h))
        filled = area / max(1e-6, w * h)
        x0, y0 = corners.min(0)
        x1, y1 = corners.max(0)
        H, W = picture.shape[:2]
        if x0 < 2 or y0 < 2 or x1 > W - 3 or y1 > H - 3:
            problem = N_("partly out of view")
        elif filled < 0.85:
            problem = N_("not one card (cards touching or overlapping, or a hand)")
        elif abs(aspect / CARD_ASPECT - 1) > ASPECT_SLACK:
            problem = (N_("cards touching") if aspect < CARD_ASPECT * (1 - ASPECT_SLACK) * 0.75 or
                       aspect > CARD_ASPECT * (1 + ASPECT_SLACK) else N_("not card-shaped"))
        else:
            problem = None
        found.append(Blob(corners.astype(np.float32), problem))
    return _reading_order(found)


def in_colour(picture: np.ndarray, k: int, colour: bool = True) -> np.ndarray:
    """``picture`` in BGR at 1/k of its size. A grey camera frame that carries its chroma (the Pi
    camera's: vision/sources.py, ``CameraFrame``) is put back in colour there, from its Y plane shrunk
    and its U and V planes brought to half that size (the I420 layout the camera sent, at the working
    size), unless ``colour`` is False (the other picture compared has no colour)."""
    grey = cv2.resize(picture, None, fx=1 / k, fy=1 / k, interpolation=cv2.INTER_AREA) if k > 1 else picture
    if picture.ndim == 3:
        return grey
    chroma = _chroma(picture)
    if chroma is None or not colour:
        return cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR)
    h, w = grey.shape[0] // 2 * 2, grey.shape[1] // 2 * 2
    u, v = (cv2.resize(p, (w // 2, h // 2), interpolation=cv2.INTER_AREA) for p in chroma)
    i420 = np.concatenate([np.ascontiguousarray(grey[:h, :w]).reshape(-1), u.reshape(-1), v.reshape(-1)])
    return cv2.cvtColor(i420.reshape(-1, w), cv2.COLOR_YUV2BGR_I420)


def _has_colour(picture: np.ndarray) -> bool:
    return picture.ndim == 3 or _chroma(picture) is not None


def _chroma(picture: np.ndarray) -> np.ndarray | None:
    """The U and V planes a grey frame carries, if they are its own (a frame cut out of it has none)."""
    chroma = getattr(picture, "chroma", None)
    if picture.ndim != 2 or chroma is None or chroma.shape != (2, picture.shape[0] // 2, picture.shape[1] // 2):
        return None
    return chroma


def _upright(box: np.ndarray) -> np.ndarray:
    """A rectangle's corners, top left first and clockwise, its long side down the picture."""
    c = box.mean(0)
    ang = np.arctan2(box[:, 1] - c[1], box[:, 0] - c[0])
    box = box[np.argsort(ang)]                      # clockwise on the image (y down), from the left
    start = int(np.argmin(box[:, 0] + box[:, 1]))   # nearest the picture's top left
    box = np.roll(box, -start, 0)
    if np.linalg.norm(box[1] - box[0]) > np.linalg.norm(box[2] - box[1]):
        box = np.roll(box, -1, 0)                   # the top side is the short one
    return box


def _reading_order(blobs: list[Blob]) -> list[Blob]:
    if not blobs:
        return blobs
    heights = [np.linalg.norm(b.corners[3] - b.corners[0]) for b in blobs]
    line = float(np.median(heights)) / 2
    rest = sorted(blobs, key=lambda b: float(b.corners[:, 1].mean()))
    rows: list[list[Blob]] = []
    for b in rest:
        y = float(b.corners[:, 1].mean())
        if rows and abs(y - float(np.mean([r.corners[:, 1].mean() for r in rows[-1]]))) < line:
            rows[-1].append(b)
        else:
            rows.append([b])
    return [b for row in rows for b in sorted(row, key=lambda b: float(b.corners[:, 0].mean()))]
