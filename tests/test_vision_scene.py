"""The scene generator: the truth matches the pixels, modules have exact sizes, layouts fit or say so."""

import numpy as np
import pytest
import zxingcpp

from companion.sim.scene import FreeLayout, demo_codes, render_sequence, render_table
from companion.vision.layouts import BoardLayout, GridLayout, RowLayout
from companion.vision.stickers import make_sticker_matrix

CLEAN = dict(blur=0, noise=0, jpeg=None, glare=0, light=0, tilt=0, perspective=0, jitter=0)


def _zxing(image):
    out = {}
    for r in zxingcpp.read_barcodes(image, formats=zxingcpp.BarcodeFormat.QRCode):
        p = r.position
        out[r.text] = np.array([[p.top_left.x, p.top_left.y], [p.top_right.x, p.top_right.y],
                                [p.bottom_right.x, p.bottom_right.y], [p.bottom_left.x, p.bottom_left.y]], float)
    return out


def test_truth_corners_are_where_the_codes_are():
    scene = render_table(RowLayout(demo_codes(8)), px_per_module=4.0, seed=3, foreign_codes=2)
    found = _zxing(scene.image)
    assert [t.payload for t in scene.truth] == demo_codes(8)
    for t in scene.truth:
        assert t.payload in found
        # zxing gives the outer corners of the code to about a module
        assert np.abs(found[t.payload] - t.corners).max() < 2 * 4.0
    assert {f.text for f in scene.foreign} <= set(found)
    assert len(scene.foreign) == 2


def test_modules_have_exact_sizes():
    """Axis-aligned at 4 px per module, no camera effects: every module is a flat block of exactly 16 px of
    area wherever it falls on the pixel grid (area-averaged rendering, not a nearest-neighbour resize)."""
    scene = render_table(RowLayout(["TC:DEMO:001"]), width=400, height=300, px_per_module=4.0, seed=1, **CLEAN)
    t = scene.truth[0]
    x0, y0 = t.corners[0]
    grey = scene.image[..., 1].astype(float)
    matrix = make_sticker_matrix("TC:DEMO:001")
    centres = np.arange(21) * 4 + 2                     # module centres from the corner, pixels


    samples = grey[np.ix_(np.round(y0 + centres).astype(int), np.round(x0 + centres).astype(int))]
    assert ((samples < 128) == matrix).all()
    dark, light = samples[matrix].mean(), samples[~matrix].mean()
    assert samples[matrix].std() < 2 and samples[~matrix].std() < 2
    # the darkness summed over the code is the dark module count times 16 pixels
    x_lo, y_lo = int(np.floor(x0)) - 1, int(np.floor(y0)) - 1
    patch = grey[y_lo:y_lo + 88, x_lo:x_lo + 88]
    coverage = ((light - patch) / (light - dark)).clip(0, 1).sum()
    assert abs(coverage - 16 * matrix.sum()) < 0.01 * 16 * matrix.sum()



def test_grid_board_and_free_layouts_render_with_truth():
    rows = [demo_codes(5, start=1 + 5 * r) if r % 2 == 0 else [None, None, demo_codes(1, start=30 + r)[0], None, None]
            for r in range(9)]
    scene = render_table(GridLayout(rows), px_per_module=2.7, seed=2)
    assert [t.row for t in scene.truth] == sorted(t.row for t in scene.truth)
    assert len(scene.truth) == 29 and scene.rows()[1] == [rows[1][2]]
    free = render_table(FreeLayout(demo_codes(10)), px_per_module=3.3, seed=4)
    assert sorted(free.payloads) == sorted(demo_codes(10))
    board = render_table(BoardLayout("exhibition", {"one_era[0]": "TC:EXH20:001", "depot[2]": "TC:EXH20:002"}),
                         px_per_module=2.7, seed=5)
    assert board.spots == {"TC:EXH20:001": "one_era[0]", "TC:EXH20:002": "depot[2]"}
    assert board.board_to_image is not None


def test_a_layout_that_cannot_fit_says_so():
    with pytest.raises(ValueError, match="do not fit"):
        render_table(RowLayout(demo_codes(40)), px_per_module=3.3)


def test_sequences_shake_but_keep_the_table():
    frames = render_sequence(RowLayout(demo_codes(6)), frames=3, px_per_module=3.0, seed=7)
    assert len(frames) == 3
    a, b = frames[0].truth[0].center, frames[1].truth[0].center
    assert 0 < np.hypot(a[0] - b[0], a[1] - b[1]) < 4
    assert not np.array_equal(frames[0].image, frames[1].image)
    assert frames[0].payloads == frames[2].payloads


def test_same_seed_same_image():
    a = render_table(RowLayout(demo_codes(3)), width=640, height=360, px_per_module=3.0, seed=11)
    b = render_table(RowLayout(demo_codes(3)), width=640, height=360, px_per_module=3.0, seed=11)
    assert np.array_equal(a.image, b.image)


def test_a_card_laid_last_lies_over_both_its_neighbours():
    """``on_top``: the card drawn last covers the neighbours it overlaps (as a card just laid into a
    fanned row), where otherwise each card lies over the right part of the card before it."""
    colours = {"TC:A:1": (0, 0, 255), "TC:A:2": (0, 255, 0), "TC:A:3": (255, 0, 0)}
    faces = {c: np.full((70, 50, 3), bgr, np.uint8) for c, bgr in colours.items()}
    layout = RowLayout(list(colours))
    args = dict(width=640, height=360, px_per_module=3.0, seed=1, blur=0, noise=0, jpeg=None, glare=0, light=0,
                tilt=0, perspective=0, jitter=0, bayer=False, card=(30, 42, -9, 6), wrap=True, faces=faces)

    def colour_between(scene, left, right):
        """The colour where two neighbours overlap: the middle of the strip they share."""
        a, b = scene.truth[left].corners, scene.truth[right].corners
        x = (a[1, 0] + b[0, 0]) / 2
        y = (a[0, 1] + a[3, 1]) / 2
        return tuple(int(v) for v in scene.image[int(y), int(x)])

    def which(bgr):
        return min(colours, key=lambda c: sum(abs(u - v) for u, v in zip(colours[c], bgr, strict=True)))

    plain = render_table(layout, **args)
    assert [which(colour_between(plain, 0, 1)), which(colour_between(plain, 1, 2))] == ["TC:A:2", "TC:A:3"]
    laid = render_table(layout, on_top={"TC:A:2"}, **args)
    assert [which(colour_between(laid, 0, 1)), which(colour_between(laid, 1, 2))] == ["TC:A:2", "TC:A:2"]
