"""The virtual table (the kiosk demo's camera) at the demo's 1280x720: every frame decodes to exactly
the layout on it, for a short row, long rows and Cronología's 9-row grid; a shop's QR code laid among
the cards is read as a foreign code. Only the common API is used: VirtualTable(width, height, seed),
set_layout(layout), read()."""

import numpy as np
import pytest

from companion.sim import virtual_table
from companion.sim.scene import demo_codes
from companion.vision.decode import decode
from companion.vision.layouts import GridLayout, RowLayout
from companion.vision.reading_order import reading_order

GRID = [demo_codes(5, "HIST", 1 + 5 * r) if r % 2 == 0 else [None, f"TC:HIST:{100 + r:03d}", None, None, None]
        for r in range(9)]


@pytest.mark.parametrize("layout,kind", [
    (RowLayout(demo_codes(6)), "row"),
    (RowLayout(demo_codes(16, "HIST")), "row"),
    (RowLayout(demo_codes(20, "HIST", 50)), "row"),
    (GridLayout(GRID), "grid"),
], ids=["row6", "row16", "row20", "cooperative-grid"])
def test_frames_decode_to_exactly_the_layout(layout, kind):
    table = virtual_table.VirtualTable(1280, 720, 3)
    table.set_layout(layout)
    expected = list(layout.codes) if kind == "row" else [c for r in layout.rows for c in r if c is not None]
    frames = [table.read() for _ in range(2)]
    assert frames[0].shape == (720, 1280, 3) and frames[0].dtype == np.uint8
    assert not np.array_equal(frames[0], frames[1])        # a camera's frames differ
    for frame in frames:
        result = decode(frame)
        ordered, rows = reading_order(result.codes, kind)
        assert [d.payload for d in ordered] == expected
        assert result.foreign == []
    if kind == "grid":
        assert [len(r) for r in rows] == [5, 1, 5, 1, 5, 1, 5, 1, 5]


def test_a_foreign_code_in_the_layout_lies_beside_the_cards():
    table = virtual_table.VirtualTable(1280, 720, 1)
    table.set_layout(RowLayout(demo_codes(5) + ["https://example.com/shop"]))
    result = decode(table.read())
    assert sorted(d.payload for d in result.codes) == demo_codes(5)
    assert [f.payload for f in result.foreign] == ["https://example.com/shop"]


def test_an_empty_table_reads_nothing():
    table = virtual_table.VirtualTable(640, 360, 0)
    table.set_layout(RowLayout([]))
    assert decode(table.read()).codes == []
