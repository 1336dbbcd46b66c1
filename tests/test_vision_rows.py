"""Several players' own rows read in one frame (``RowsLayout``, the tracker's ``rows`` kind): which
row a card lies in is known from where it lies, as a board's spots are, so nobody moves a card for
the camera. The rule on stickers placed by hand (``rows_proposals``), then the whole path on the
virtual table at the default camera plan's true sizes (12.5 mm stickers, 63 x 88 mm cards, the
4608x2592 picture from 36 cm): every player's row of a 4-player table in one frame, and 6 rows,
which overlap (each row covers the lower part of the row above; the stickers lie at the top)."""

from __future__ import annotations

import pytest
from hand_detections import Det, det

from companion.play.proposals import CardPlacedInRow, TableDiffers, TableMatches
from companion.sim.scene import demo_codes, render_table
from companion.sim.virtual_table import VirtualTable
from companion.vision.layouts import RowsLayout
from companion.vision.tracker import Tracker, rows_proposals

OWNERS = ("Ana", "Bo", "Cy")


def table(rows, extra=(), turn=0.0, pitch=80, spacing=150):
    """Detections of rows laid one below the other, each from the same left edge; ``extra``: (code,
    x, y) stickers laid anywhere."""
    out = [det(code, 40 + j * pitch, 60 + k * spacing, turn)
           for k, row in enumerate(rows) for j, code in enumerate(row)]
    return out + [det(code, x, y, turn) for code, x, y in extra]


ROWS = [["A1", "A2", "A3"], ["B1"], ["C1", "C2"]]


def said(dets, rows=ROWS):
    out = rows_proposals(RowsLayout(rows, OWNERS), dets, {})
    assert len(out) == 1
    return out[0]


def words(p) -> str:
    assert isinstance(p, TableDiffers), p
    return p.message.render("en")


@pytest.mark.parametrize("turn", [0.0, 4.0, -7.0])
def test_a_card_laid_in_a_row_is_proposed_in_that_row_and_gap(turn):
    assert said(table(ROWS, turn=turn)) == TableMatches()
    # laid at the right end of Bo's row, between Ana's first two cards, at the left of Cy's
    assert said(table(ROWS, [("N", 40 + 80, 60 + 150)], turn)) == CardPlacedInRow("N", 1, 1)
    assert said(table(ROWS, [("N", 80, 60 + 10)], turn)) == CardPlacedInRow("N", 0, 1)
    assert said(table(ROWS, [("N", 0, 60 + 300 - 12)], turn)) == CardPlacedInRow("N", 2, 0)


def test_a_row_is_found_by_its_own_cards_not_by_a_fixed_place():
    # the whole table lies lower and the rows closer together: the same reading
    dets = [Det(d.payload, tuple((x, y + 90) for x, y in d.corners), (d.center[0], d.center[1] + 90))
            for d in table(ROWS, [("N", 200, 60 + 100)], spacing=100)]
    assert said(dets) == CardPlacedInRow("N", 1, 1)


def test_a_card_between_two_rows_is_no_reading():
    assert "lies between two rows" in words(said(table(ROWS, [("N", 200, 60 + 75)])))


def test_rows_out_of_the_players_order_are_said():
    dets = table([ROWS[1], ROWS[0], ROWS[2]])
    assert words(said(dets)) == ("Bo's row lies above Ana's row: the rows must lie in the players' order, the first "
                                 "player's at the top.")


def test_a_card_moved_to_another_row_or_out_of_order_or_missing_is_said():
    moved = [["A1", "A2"], ["B1", "A3"], ["C1", "C2"]]
    assert words(said(table(moved))) == "A3 is no longer in Ana's row."
    swapped = [["A2", "A1", "A3"], ["B1"], ["C1", "C2"]]
    assert words(said(table(swapped))) == "the cards of Ana's row are not in the order the game has them."
    gone = table(ROWS)[1:]
    assert words(said(gone)) == "A1 is not seen in Ana's row."
    two = table(ROWS, [("N", 300, 60), ("M", 300, 210)])
    assert "lay one card at a time" in words(said(two))


def test_rows_without_owners_are_numbered_and_a_bare_table_is_not_judged():
    out = rows_proposals(RowsLayout(ROWS), table(ROWS)[1:], {})
    assert out[0].message.render("en") == "A1 is not seen in row 1."
    assert out[0].message.render("es") == "A1 no se ve en la fila 1."
    assert rows_proposals(RowsLayout([[], []]), table(ROWS), {}) == []


def read(tracker, vtable, frames=6):
    out = []
    for _ in range(frames):
        out = tracker.feed(vtable.read())
        if out:
            return out
    return out


@pytest.mark.slow(30)
def test_every_players_row_is_read_in_one_frame_at_the_default_camera_plan():
    """Four rows, one of them the longest a game can hold (10 cards, the largest goal): each placement
    is read in its owner's row from one picture of the whole table."""
    codes = demo_codes(40, "HIST")
    rows = [codes[0:10], codes[10:16], codes[16:19], codes[19:20]]
    owners = ["Ana", "Bo", "Cy", "Di"]
    vtable = VirtualTable.default_plan(seed=5)
    tracker = Tracker("rows")
    vtable.set_layout(RowsLayout(rows, owners))
    tracker.expect(RowsLayout(rows, owners))
    assert read(tracker, vtable) == [TableMatches()]
    for k, gap, code in ((3, 1, codes[30]), (2, 0, codes[31]), (1, 3, codes[32])):
        laid = [list(r) for r in rows]
        laid[k].insert(gap, code)
        vtable.set_layout(RowsLayout(laid, owners))
        assert read(tracker, vtable) == [CardPlacedInRow(code, k, gap)]


@pytest.mark.slow(12)
def test_six_rows_overlap_and_every_sticker_is_read_at_the_default_camera_plan():
    """Six rows do not fit one below the other in the default view (50 cm deep): they overlap, and
    every code is still read, each in its own row."""
    vtable = VirtualTable.default_plan(seed=2)
    codes = demo_codes(40, "HIST")
    rows = [codes[6 * k:6 * k + 1 + k] for k in range(6)]
    scene = render_table(RowsLayout(rows), width=vtable.width, height=vtable.height,
                         px_per_module=vtable.fixed_ppm, card=vtable.card, seed=2, bayer=False, jpeg=None,
                         blur=(0.4, 0.6), noise=0, glare=0, tilt=1.5, perspective=2.0)
    from companion.vision.decode import decode
    found = decode(scene.image)
    assert sorted(d.payload for d in found.codes) == sorted(c for r in rows for c in r)
    assert rows_proposals(RowsLayout(rows), list(found.codes), {}) == [TableMatches()]
