"""The tracker on rendered photo-like frames (scene generator, real decoder): a card laid in a row, a
gap of the cooperative grid, a spot of a turned and tilted board, hands, foreign and unknown codes."""

import pytest

from companion.play.proposals import (
    CardPlaced,
    CardPlacedInGrid,
    CardPlacedOnSpot,
    ForeignCode,
    TableMatches,
    UnknownSticker,
)
from companion.sim.scene import render_sequence, render_table
from companion.vision.layouts import BoardLayout, GridLayout, RowLayout
from companion.vision.tracker import Tracker

W, H = 1280, 720


def code(n):
    return f"TC:DEMO:{n:03d}"


def still(layout, n=3, seed=0, **kw):
    """``n`` frames of a still table (camera shake, fresh noise and JPEG each)."""
    kw.setdefault("px_per_module", 2.7)
    return [s.image for s in render_sequence(layout, frames=n, seed=seed, width=W, height=H, **kw)]


def run(tracker, frames):
    return [tracker.feed(f) for f in frames]


def test_a_card_laid_in_the_row_is_proposed_within_three_still_frames():
    before = [code(n) for n in (1, 4, 9, 15, 22, 30)]
    after = before[:3] + [code(12)] + before[3:]
    t = Tracker("row")
    t.expect(RowLayout(before))
    assert run(t, still(RowLayout(before), seed=1))[-1] == [TableMatches()]
    out = run(t, still(RowLayout(after), seed=2))
    assert out[0] == []                    # the frame the card appeared in: the table moved
    assert out[2] == [CardPlaced(code(12), 3)]
    assert {d.payload for d in t.detections} == set(after)


def test_hands_over_the_table_say_nothing():
    row = [code(n) for n in (2, 6, 11, 18)]
    t = Tracker("row")
    t.expect(RowLayout(row))
    frames = [render_table(RowLayout(row + [code(25)]), width=W, height=H, px_per_module=2.7, seed=s, hands=1).image
              for s in range(10, 14)]
    assert all(o == [] for o in run(t, frames))


def test_a_union_event_in_a_gap_row():
    rows = []
    n = 1
    for r in range(5):
        rows.append([code(n + i) for i in range(5)])
        n += 5
        if r < 4:
            rows.append([None] * 5)
    t = Tracker("grid")
    t.expect(GridLayout(rows))
    assert run(t, still(GridLayout(rows), seed=3, px_per_module=2.2))[-1] == [TableMatches()]
    rows2 = [list(r) for r in rows]
    rows2[5][1] = code(30)                  # between card rows 3 and 4, column 2
    out = run(t, still(GridLayout(rows2), seed=4, px_per_module=2.2))
    assert out[2] == [CardPlacedInGrid(code(30), 3, 2)]


@pytest.mark.parametrize("seed, seed2", [(1, 3), (7, 8)])     # scenes with all four markers in the frame
def test_a_card_on_a_spot_of_a_tilted_board(seed, seed2):
    spots = {"one_era[0]": code(1), "plain[2]": code(2)}
    t = Tracker("board")
    t.expect(BoardLayout("exhibition", spots))
    kw = dict(tilt=8.0, perspective=10.0)   # turned more, the board would leave the frame
    assert run(t, still(BoardLayout("exhibition", spots), seed=seed, **kw))[-1] == [TableMatches()]
    more = dict(spots, **{"depot[1]": code(3)})
    out = run(t, still(BoardLayout("exhibition", more), seed=seed2, **kw))
    assert out[2] == [CardPlacedOnSpot(code(3), "depot[1]")]


def test_foreign_and_unknown_codes_in_rendered_frames():
    row = [code(3), code(7), code(21)]
    t = Tracker("row")
    t.expect(RowLayout(row))
    out = run(t, still(RowLayout(row), seed=7, foreign_codes=["https://example.com/shop/item/48213"]))[-1]
    assert out == [ForeignCode("https://example.com/shop/item/48213"), TableMatches()]
    out = run(t, still(RowLayout(row + ["TC:DEMO:999"]), seed=8))[-1]
    assert len(out) == 1 and isinstance(out[0], UnknownSticker) and out[0].payload == "TC:DEMO:999"
