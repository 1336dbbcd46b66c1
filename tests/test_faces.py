"""Cards read by their printed face (companion/vision/faces.py): named only when sure, never guessed.
The faces are the project's own drawings (companion/sim/face_art.py), laid on the virtual table."""

import numpy as np
import pytest

from companion.sim.face_art import draw_face
from companion.sim.virtual_table import VirtualTable
from companion.vision.faces import FaceIndex, face_features, read_faces
from companion.vision.layouts import GridLayout, RowLayout

DECK = 60


@pytest.fixture(scope="module")
def pictures():
    return {f"TC:FACE:{n}": draw_face(n, seed=5) for n in range(1, DECK + 1)}


@pytest.fixture(scope="module")
def index(pictures):
    return FaceIndex(list(pictures), [face_features(p) for p in pictures.values()])


def _table(pictures, layout, seed=2):
    table = VirtualTable(1280, 720, seed, faces=pictures)
    table.set_layout(layout)
    return table


def _named(result, truth, card_px):
    """(right, wrong): a read is right when it names the card that lies at its place."""
    right = wrong = 0
    for r in result.reads:
        at = min(truth, key=lambda t: np.hypot(*(np.subtract(t.center, r.center))))
        if at.payload == r.payload and np.hypot(*np.subtract(at.center, r.center)) < card_px / 2:
            right += 1
        else:
            wrong += 1
    return right, wrong


@pytest.mark.parametrize("layout", [
    RowLayout([f"TC:FACE:{n}" for n in (3, 17, 42, 8, 25, 60, 1)]),
    GridLayout([[f"TC:FACE:{n}" for n in range(r * 5 + 1, r * 5 + 6)] if r % 2 == 0 else [None] * 5
                for r in range(3)]),
], ids=["row", "grid"])
def test_every_laid_card_is_named_and_none_wrongly(pictures, index, layout):
    table = _table(pictures, layout)
    from companion.sim.scene import render_table
    scene = render_table(layout, width=1280, height=720, px_per_module=table.px_per_module(), seed=2, faces=pictures)
    card_px = table.card_px()
    result = read_faces(scene.image, index, card_px=card_px)
    right, wrong = _named(result, scene.truth, card_px)
    assert (right, wrong) == (len(scene.truth), 0)


def test_a_card_not_enrolled_is_never_named(pictures, index):
    others = {f"TC:FACE:{n}": draw_face(n, seed=6) for n in range(1, 6)}   # another box: other faces
    table = _table(others, RowLayout(list(others)))
    result = read_faces(table.read(), index, card_px=table.card_px())
    assert result.reads == []


def test_two_cards_alike_are_unsure_not_guessed(pictures):
    # card 2 is printed with card 1's face: neither can be told from the other
    twin = dict(pictures)
    twin["TC:FACE:2"] = pictures["TC:FACE:1"]
    index = FaceIndex(list(twin), [face_features(p) for p in twin.values()])
    table = _table(twin, RowLayout(["TC:FACE:1", "TC:FACE:7"]))
    result = read_faces(table.read(), index, card_px=table.card_px())
    assert [r.payload for r in result.reads] == ["TC:FACE:7"]
    assert [(u.best in ("TC:FACE:1", "TC:FACE:2"), u.rival in ("TC:FACE:1", "TC:FACE:2")) for u in result.unsure] \
        == [(True, True)]


def _lay(cards, seed):
    """A frame of cards on a plain cloth, laid in the order given (the last lies on top): (payload, picture,
    left, top) with cards 150 px wide; light blur and fresh sensor noise, as a still camera frame."""
    import cv2
    rng = np.random.default_rng(seed)
    frame = np.full((520, 1000, 3), (70, 90, 60), np.uint8)
    for _payload, picture, x, y in cards:
        frame[y:y + 210, x:x + 150] = cv2.resize(picture, (150, 210), interpolation=cv2.INTER_AREA)
    frame = cv2.GaussianBlur(frame, (0, 0), 0.8)
    return np.clip(frame + rng.normal(0, 2.0, frame.shape), 0, 255).astype(np.uint8)


def test_a_card_covered_by_the_next_one_laid_is_kept_by_its_place(pictures, index):
    """A card is named as it is laid, on top of the cards it overlaps; a card named before that a new
    card now covers by most of its face is not read again under it (where it could no longer be told)
    but kept, since the part still in view did not change. A card lifted and another laid in its
    place is forgotten, never kept by its place."""
    from companion.vision.faces_tracking import FaceReader
    a, b, c, d = (("TC:FACE:" + n, pictures["TC:FACE:" + n]) for n in ("3", "17", "42", "8"))
    reader = FaceReader(index, card_px=150)

    def names(*cards, seed):
        return sorted(r.payload for r in reader.read(_lay(cards, seed), []))

    assert names((*a, 80, 150), (*b, 600, 150), seed=1) == sorted([a[0], b[0]])
    # c laid over the right 63 % of a: c named as laid, a kept (its left 37 % did not change)
    assert names((*a, 80, 150), (*c, 135, 160), (*b, 600, 150), seed=2) == sorted([a[0], b[0], c[0]])
    assert reader.unsure == []
    # b lifted and d laid where it lay: d named, b gone
    assert names((*a, 80, 150), (*c, 135, 160), (*d, 602, 152), seed=3) == sorted([a[0], c[0], d[0]])


def test_a_stickered_card_whose_face_is_unsure_asks_nothing():
    """A card of a look-alike pair carries a sticker: its sticker names it, so its face, unsure between
    the two, is no reason to ask the players again; a card without a sticker, its face as unsure, is
    (why enrolment advises stickering both cards of a pair)."""
    from companion.vision.decode.frame import Detection
    from companion.vision.faces_tracking import FaceReader
    twin = {"TC:FACE:1": draw_face(1, seed=5), "TC:FACE:2": draw_face(1, seed=5), "TC:FACE:3": draw_face(3, seed=5)}
    index = FaceIndex(list(twin), [face_features(p) for p in twin.values()])
    frame = _lay([("TC:FACE:1", twin["TC:FACE:1"], 80, 150)], seed=1)
    sticker = Detection("TC:FACE:1", ((90, 160), (120, 160), (120, 190), (90, 190)), (105.0, 175.0))
    stickered = FaceReader(index, card_px=150)
    assert stickered.read(frame, [sticker]) == [] and stickered.unsure == []
    bare = FaceReader(index, card_px=150)
    assert bare.read(frame, []) == [] and len(bare.unsure) == 1


def test_bench_faces_stickers_only_the_pairs_enrolment_found():
    """The bench's box as its owner sets it up: a laid card of a look-alike pair enrolment found is
    named by its sticker or its face; any other card by its face only, its sticker read or not."""
    from companion.bench.faces import Tally, _line, _row
    b = Tally(cards=5)
    # (inliers, runner_up, right?, the region's card?, on top?): one region's read each
    b.region_reads = [(20, 0, True, True, True),      # a card of no pair, named by its face
                      (12, 10, True, True, True),     # a card of no pair, face below the threshold: not named
                      (5, 4, True, True, True),       # a card of a pair, face unsure, sticker read
                      (30, 0, True, True, True)]      # a card of a pair, named by its face and sticker
    b.stickered = [(True, 5, 0), (True, 30, 0), (False, 3, 1)]  # the last: sticker not read, a code misread
    assert b.at(16) == (2, 0) and b.box(16) == (3, 1, 1)
    row = _row(1000, "12mp", "row", 16, 16, Tally(), b, 4.0)
    row["look_alikes"] = {"pairs": 2, "cards": 4, "check_s": 1.5}
    assert row["box"] == {"named": 3, "named_pct": 60.0, "wrong": 1, "pair_cards": 3, "by_sticker": 1,
                          "pair_cards_by_sticker": 2}
    text = _line(row)
    assert "faces:    40.00 % of 5 cards" in text and "box:      60.00 % of 5 cards" in text
    assert "2 pairs (4 cards to sticker)" in text and "the box as set up: 60.00 % named as laid, 1 wrong" in text
