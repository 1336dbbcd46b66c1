"""What keeps busy card art cheap: the places on codes the plain pass read are found all at once (and
exactly as one by one), and a lattice (a check, a dot screen) gets no second way, while a code does."""

import math

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.vision.decode import frame
from companion.vision.decode.candidates import SIZE_BIAS, Candidate, repetition
from companion.vision.decode.cuts import Job
from companion.vision.decode.readers import Hit
from companion.vision.stickers import make_sticker_matrix


def _on_a_read(x: float, y: float, r: float, hits: list[Hit]) -> bool:
    """One place against each read, one by one: on the code's square and a module of quiet zone
    (either way round), or near its centre."""
    for h in hits:
        d = []
        for (px, py), (qx, qy) in zip(h.corners, h.corners[1:] + h.corners[:1], strict=True):
            ex, ey = qx - px, qy - py
            d.append((ex * (y - py) - ey * (x - px)) / (math.hypot(ex, ey) or 1.0))
        near = (x - h.center[0]) ** 2 + (y - h.center[1]) ** 2 < (0.5 * h.side + 0.3 * r) ** 2
        if min(d) >= -h.side / 21 or max(d) <= h.side / 21 or near:
            return True
    return False


def _near_centre(x: float, y: float, r: float, hits: list[Hit]) -> bool:
    return any((x - h.center[0]) ** 2 + (y - h.center[1]) ** 2 < (0.5 * h.side + 0.3 * r) ** 2 for h in hits)


_hit = st.builds(
    lambda x, y, side, turn, mirrored: Hit("TC:X:1", [
        (x + side / math.sqrt(2) * math.cos(turn + k * math.pi / 2 * (-1 if mirrored else 1)),
         y + side / math.sqrt(2) * math.sin(turn + k * math.pi / 2 * (-1 if mirrored else 1))) for k in range(4)]),
    st.floats(0, 400), st.floats(0, 300), st.floats(10, 90), st.floats(0, 2 * math.pi), st.booleans())
_place = st.tuples(st.floats(-20, 420), st.floats(-20, 320), st.floats(2, 60))


@settings(max_examples=200, deadline=None)
@given(st.lists(_place, max_size=30), st.lists(_hit, max_size=12), st.lists(_hit, max_size=4))
def test_places_off_the_reads_all_at_once_as_one_by_one(places, plain, pending):
    rows = np.array(places, float).reshape(-1, 3)
    got = frame._off_reads(rows, plain, pending).tolist()
    assert got == [not _on_a_read(x, y, r, plain) and not _near_centre(x, y, r, pending) for x, y, r in places]


def _photo(texture: np.ndarray, ppm: float, turn: float, seed: int) -> tuple[np.ndarray, Candidate]:
    """A texture (1 = dark) of modules drawn at ``ppm`` pixels each on paper, turned, blurred a little
    and noised as the camera does; and the place the search would give it (its size as the search
    measures it)."""
    side = texture.shape[0] * ppm
    size = int(side * 2.2)
    img = cv2.resize(np.where(texture, 40, 230).astype(np.float32), (int(side), int(side)),
                     interpolation=cv2.INTER_AREA)
    canvas = np.full((size, size), 230, np.float32)
    o = (size - img.shape[0]) // 2
    canvas[o:o + img.shape[0], o:o + img.shape[1]] = img
    turned = cv2.warpAffine(canvas, cv2.getRotationMatrix2D((size / 2, size / 2), turn, 1.0), (size, size),
                            borderValue=230)
    rng = np.random.default_rng(seed)
    grey = cv2.GaussianBlur(turned, (0, 0), 0.7) + rng.normal(0, 4, turned.shape)
    code_side = 21 * ppm         # the search sizes every place as a sticker's 21 modules
    return np.clip(grey, 0, 255).astype(np.uint8), Candidate(size / 2, size / 2, SIZE_BIAS * code_side / 2)


def _check(n: int, step: int) -> np.ndarray:
    yy, xx = np.mgrid[0:n, 0:n]
    return (yy // step + xx // step) % 2 == 0


def _dots(n: int) -> np.ndarray:
    yy, xx = np.mgrid[0:n * 4, 0:n * 4]
    return cv2.resize((((yy % 6) - 3) ** 2 + ((xx % 6) - 3) ** 2 < 5).astype(np.uint8), (n, n),
                      interpolation=cv2.INTER_NEAREST) > 0


@pytest.mark.parametrize("ppm", [1.8, 2.2, 2.7, 3.3, 5.0])
@pytest.mark.parametrize("turn", [0.0, 17.0, 45.0])
def test_a_lattice_repeats_itself_and_a_code_does_not(ppm, turn):
    codes = [np.pad(make_sticker_matrix(f"TC:HIST:{k:03d}"), 2) for k in (1, 42, 137)]
    # (a check of one-module squares repeats every 1.4 modules when turned 45 degrees: at 1.8 px/module
    # that is finer than the grid the patches are measured on, and it may pass for a code)
    lattices = [_check(25, 2), _dots(25)] + ([_check(25, 1)] if ppm >= 2.2 else [])
    for k, code in enumerate(codes):
        img, c = _photo(code, ppm, turn, k)
        assert repetition(img, [c])[0] < frame.LATTICE
    for k, lattice in enumerate(lattices):
        img, c = _photo(lattice, ppm, turn, k)
        assert repetition(img, [c])[0] >= frame.LATTICE


def test_a_lattice_gets_no_second_way_and_a_code_or_a_known_code_does():
    code_img, code = _photo(np.pad(make_sticker_matrix("TC:HIST:007"), 2), 2.2, 10.0, 1)
    check_img, check = _photo(_check(25, 1), 2.2, 10.0, 2)
    # (the two pictures side by side, the places moved with the second)
    img = np.hstack([code_img, check_img])
    moved = Candidate(check.x + code_img.shape[1], check.y, check.r)
    jobs = [Job(code), Job(moved), Job(moved, known=True)]
    assert frame._look_like_codes(img, jobs) == [jobs[0], jobs[2]]
