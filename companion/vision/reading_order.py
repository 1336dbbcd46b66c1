"""The order in which people read the cards on the table: rows top to bottom, left to right in a row.

The table is seldom square to the camera: the layout is turned a few degrees, the camera's tilt
makes rows converge, and cards are laid by hand. So:

1. the rows' direction is measured from the cards themselves: the median direction from each code to
   its nearest neighbour on the left or right (neighbours in a row are closer than rows are);
2. in that turned frame, codes are chained into rows from left to right: each code joins the row
   whose line (fitted through the codes already in it) passes within half a code of it; otherwise
   it starts a new row. Lines, not one horizontal band, so converging or slightly curved rows stay
   whole;
3. rows are ordered by where their lines cross the middle of the table, top first.

Distances are in code sizes (the median side of the codes), so the same rules hold at any scale.
``layout="row"``: one row (Timeline), ordered along its own direction. A row too long for the table
wraps onto lines, one below the other: cards further apart across the row than ``LINE_GAP`` code
sides (a card's height; a card laid askew in its line is off by less than one) start a new line,
and the lines are read top to bottom, each left to right, as one row. ``"free"``: cards anywhere;
the same chaining with the image's axes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

LAYOUTS = ("row", "grid", "free")
ROW_TOLERANCE = 0.5     # a code joins a row whose line passes within this many code sides
MAX_ROW_GAP = 8.0       # two codes further apart than this many code sides along a row are not chained
LINE_GAP = 3.0          # a wrapped row: codes this many code sides lower than the line above start a new line


def _centers_and_side(detections) -> tuple[np.ndarray, float]:
    centers = np.array([[float(d.center[0]), float(d.center[1])] for d in detections], float).reshape(-1, 2)
    sides = []
    for d in detections:
        c = np.asarray(getattr(d, "corners", ()), float)
        if c.shape == (4, 2):
            sides.append(float(np.mean(np.linalg.norm(c - np.roll(c, -1, axis=0), axis=1))))
    side = float(np.median(sides)) if sides else 20.0
    return centers, max(side, 1.0)


def _code_angle(detections) -> float | None:
    """The codes' own x axis, averaged modulo 90 degrees (radians), or None without corners."""
    acc = 0j
    for d in detections:
        c = np.asarray(getattr(d, "corners", ()), float)
        if c.shape != (4, 2):
            continue
        v = c[1] - c[0]
        acc += np.exp(4j * math.atan2(v[1], v[0]))
    if acc == 0:
        return None
    return float(np.angle(acc) / 4)


def row_angle(centers: np.ndarray, side: float, hint: float | None = None) -> float:
    """Direction of the rows (radians, within +-45 degrees of the image's x axis): the median direction
    from each code to its nearest neighbour that lies more sideways than up or down."""
    n = len(centers)
    base = hint or 0.0
    if n < 2:
        return base
    angles = []
    for i in range(n):
        d = centers - centers[i]
        dist = np.hypot(d[:, 0], d[:, 1])
        ang = np.arctan2(d[:, 1], d[:, 0]) - base
        ang = (ang + math.pi / 2) % math.pi - math.pi / 2          # direction, not sense
        ok = (dist > 0) & (np.abs(ang) < math.radians(30)) & (dist < MAX_ROW_GAP * side)
        if ok.any():
            j = np.flatnonzero(ok)[np.argmin(dist[ok])]
            angles.append(ang[j])
    if not angles:
        return base
    return base + float(np.median(angles))


def reading_order(detections: Sequence, layout: str = "row") -> tuple[list, list[list[int]]]:
    """``(ordered, rows)``: the detections in reading order and, for each row top to bottom, the
    indexes (into ``ordered``) of its codes left to right. Detections need ``center`` and, for
    scale and direction, ``corners``."""
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {', '.join(LAYOUTS)}, not {layout!r}")
    dets = list(detections)
    if not dets:
        return [], []
    if layout == "free":
        centers, side = _centers_and_side(dets)
        u, v = centers[:, 0], centers[:, 1]
    else:
        u, v, side = across_and_along(dets)
    if layout == "row":
        ordered_row: list = []
        lines: list[list[int]] = []
        for line in _row_lines(u, v, side):
            lines.append(list(range(len(ordered_row), len(ordered_row) + len(line))))
            ordered_row += [dets[i] for i in line]
        return ordered_row, lines
    rows = _chain_rows(u, v, side)
    mid = float(np.median(u))
    rows.sort(key=lambda r: _line_at(u[r], v[r], mid))
    ordered: list = []
    groups: list[list[int]] = []
    for r in rows:
        r = sorted(r, key=lambda i: u[i])
        groups.append(list(range(len(ordered), len(ordered) + len(r))))
        ordered += [dets[i] for i in r]
    return ordered, groups


def across_and_along(detections: Sequence) -> tuple[np.ndarray, np.ndarray, float]:
    """The detections' centres turned to the rows' direction: ``u`` along the rows, ``v`` across them
    (down), and the codes' side in pixels (the scale of every tolerance)."""
    centers, side = _centers_and_side(detections)
    theta = row_angle(centers, side, _code_angle(detections))
    c, s = math.cos(theta), math.sin(theta)
    return centers[:, 0] * c + centers[:, 1] * s, -centers[:, 0] * s + centers[:, 1] * c, side


def _row_lines(u: np.ndarray, v: np.ndarray, side: float) -> list[list[int]]:
    """A row's codes in lines top to bottom, each left to right: a new line where the codes, taken
    from the top, jump down by more than LINE_GAP code sides."""
    lines: list[list[int]] = []
    last = None
    for i in np.argsort(v, kind="stable"):
        if last is None or v[i] - last > LINE_GAP * side:
            lines.append([])
        lines[-1].append(int(i))
        last = v[i]
    return [sorted(line, key=lambda i: u[i]) for line in lines]


def _line(us: np.ndarray, vs: np.ndarray) -> tuple[float, float]:
    """v = a * u + b through a row's codes (flat through one code; slope kept small)."""
    if len(us) < 2 or np.ptp(us) < 1e-6:
        return 0.0, float(np.mean(vs))
    a, b = np.polyfit(us, vs, 1)
    a = float(np.clip(a, -0.2, 0.2))                   # a row is never steeper than ~11 degrees off the rest
    return a, float(np.mean(vs) - a * np.mean(us))


def _line_at(us, vs, x) -> float:
    a, b = _line(np.asarray(us), np.asarray(vs))
    return a * x + b


def _chain_rows(u: np.ndarray, v: np.ndarray, side: float) -> list[list[int]]:
    rows: list[list[int]] = []
    for i in np.argsort(u, kind="stable"):
        best, best_d = None, ROW_TOLERANCE * side
        for k, r in enumerate(rows):
            last = r[-1]
            if u[i] - u[last] > MAX_ROW_GAP * side:
                continue
            a, b = _line(u[r[-4:]], v[r[-4:]])
            d = abs(v[i] - (a * u[i] + b))
            if d < best_d:
                best, best_d = k, d
        if best is None:
            rows.append([int(i)])
        else:
            rows[best].append(int(i))
    return _merge_split_rows(rows, u, v, side)


def _merge_split_rows(rows, u, v, side):
    """Two chains that are one row broken by a wide gap (an empty slot) are joined: same line, no
    overlap along the row."""
    merged = True
    while merged:
        merged = False
        for i in range(len(rows)):
            for j in range(i + 1, len(rows)):
                a, b = rows[i], rows[j]
                if max(u[a].min(), u[b].min()) <= min(u[a].max(), u[b].max()):
                    continue            # they overlap along u: two rows
                both = a + b
                la, lb = _line(u[a], v[a]), _line(u[b], v[b])
                mid = float(np.median(u[both]))
                if abs((la[0] * mid + la[1]) - (lb[0] * mid + lb[1])) < ROW_TOLERANCE * side:
                    rows[i] = sorted(both, key=lambda k: u[k])
                    del rows[j]
                    merged = True
                    break
            if merged:
                break
    return rows

