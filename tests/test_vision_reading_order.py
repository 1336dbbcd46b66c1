"""Reading order: rows top to bottom, left to right, on tilted and perspective views."""

import math
from dataclasses import dataclass

import numpy as np
import pytest

from companion.sim.scene import FreeLayout, demo_codes, render_table
from companion.vision.layouts import GridLayout, RowLayout
from companion.vision.reading_order import reading_order


@dataclass
class Code:
    payload: str
    center: tuple
    corners: tuple


def _from_truth(scene, rng=None):
    codes = [Code(t.payload, t.center, tuple(map(tuple, t.corners))) for t in scene.truth]
    if rng is not None:
        codes = [codes[i] for i in rng.permutation(len(codes))]
    return codes


def _rows(ordered, rows):
    return [[ordered[i].payload for i in r] for r in rows]


def _grid(start=1):
    return [demo_codes(5, "HIST", start + 5 * r) if r % 2 == 0 else
            [None, f"TC:HIST:{150 + r:03d}", None, f"TC:HIST:{160 + r:03d}", None] if r == 3 else
            [None, None, f"TC:HIST:{170 + r:03d}", None, None] for r in range(9)]


@pytest.mark.parametrize("seed", range(4))
def test_tilted_rows(seed):
    scene = render_table(RowLayout(demo_codes(18, "HIST")), px_per_module=2.2, seed=seed, tilt=8, perspective=8,
                         blur=0, noise=0, jpeg=None)
    ordered, rows = reading_order(_from_truth(scene, np.random.default_rng(seed)), "row")
    assert _rows(ordered, rows) == scene.rows()


@pytest.mark.parametrize("seed", range(4))
def test_tilted_grids_with_gap_rows(seed):
    scene = render_table(GridLayout(_grid()), px_per_module=2.2, seed=seed, tilt=6, perspective=8, blur=0, noise=0,
                         jpeg=None)
    ordered, rows = reading_order(_from_truth(scene, np.random.default_rng(seed)), "grid")
    assert _rows(ordered, rows) == scene.rows()
    assert [len(r) for r in rows] == [5, 1, 5, 2, 5, 1, 5, 1, 5]


def test_a_row_with_a_hole_stays_one_row_in_a_grid():
    rows_in = [["TC:DEMO:001", None, None, None, "TC:DEMO:002"], ["TC:DEMO:003", "TC:DEMO:004", None, None, None]]
    scene = render_table(GridLayout(rows_in), width=1280, height=720, px_per_module=3.0, seed=1, blur=0, noise=0,
                         jpeg=None)
    ordered, rows = reading_order(_from_truth(scene), "grid")
    assert _rows(ordered, rows) == [["TC:DEMO:001", "TC:DEMO:002"], ["TC:DEMO:003", "TC:DEMO:004"]]


def test_a_turned_table_reads_along_its_rows():
    """Synthetic: a 3 x 4 grid turned 20 degrees (more than any layout jitter) still reads by rows."""
    a = math.radians(20)
    codes = []
    for r in range(3):
        for c in range(4):
            x, y = 100 * c, 120 * r
            cx, cy = 500 + x * math.cos(a) - y * math.sin(a), 200 + x * math.sin(a) + y * math.cos(a)
            corners = [(cx + dx * math.cos(a) - dy * math.sin(a), cy + dx * math.sin(a) + dy * math.cos(a))
                       for dx, dy in ((-20, -20), (20, -20), (20, 20), (-20, 20))]
            codes.append(Code(f"{r}{c}", (cx, cy), tuple(corners)))
    ordered, rows = reading_order(list(reversed(codes)), "grid")
    assert _rows(ordered, rows) == [[f"{r}{c}" for c in range(4)] for r in range(3)]


def test_free_and_empty():
    assert reading_order([], "grid") == ([], [])
    scene = render_table(FreeLayout(demo_codes(6)), width=1280, height=720, px_per_module=3.0, seed=2)
    ordered, rows = reading_order(_from_truth(scene), "free")
    assert sorted(i for r in rows for i in r) == list(range(6))
    ys = [np.mean([ordered[i].center[1] for i in r]) for r in rows]
    assert ys == sorted(ys)
    with pytest.raises(ValueError):
        reading_order([], "spiral")
