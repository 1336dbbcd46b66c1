"""The decoder pays for its candidate search only where it can help, finishes the codes the plain pass
found but could not decode, and keeps the plain pass's reads exact while doing so."""

import cv2
import numpy as np
import pytest

from companion.sim.scene import FreeLayout, demo_codes, render_table
from companion.vision.decode import decode, frame, readers
from companion.vision.decode.finish import finish
from companion.vision.decode.readers import Hit, plain_found, plain_symbols
from companion.vision.stickers import make_sticker_matrix


def _big_code(text: str, module: int, size: tuple[int, int], at: tuple[int, int]) -> np.ndarray:
    img = np.full(size, 235, np.uint8)
    code = np.where(np.pad(make_sticker_matrix(text), 4), 25, 235).astype(np.uint8)
    code = cv2.resize(code, None, fx=module, fy=module, interpolation=cv2.INTER_NEAREST)
    y, x = at
    img[y:y + code.shape[0], x:x + code.shape[1]] = code
    return cv2.GaussianBlur(img, (0, 0), 0.8)


@pytest.fixture
def no_search(monkeypatch):
    def refuse(*_a, **_k):
        raise AssertionError("the candidate search ran")
    monkeypatch.setattr(frame, "find_candidates", refuse)


@pytest.mark.usefixtures("no_search")
def test_a_photo_whose_code_the_plain_pass_read_is_done():
    img = _big_code("TC:DEMO:001", 6, (240, 320), (30, 60))
    assert [d.payload for d in decode(img).codes] == ["TC:DEMO:001"]


def test_a_wide_frame_whose_only_texture_is_the_code_read_reads_no_cut(monkeypatch):
    def refuse(*_a, **_k):
        raise AssertionError("a cut was read")
    img = _big_code("TC:DEMO:002", 8, (1080, 1920), (300, 800))
    # on two threads, a candidate may be read while the plain pass runs (time the thread would wait),
    # but none once it has read the code
    monkeypatch.setattr(frame, "_first_reads", refuse)
    assert [d.payload for d in decode(img).codes] == ["TC:DEMO:002"]
    # on one thread, none at all
    monkeypatch.setattr(readers, "TWO_READERS", False)
    monkeypatch.setattr(frame, "read_jobs", refuse)
    assert [d.payload for d in decode(img).codes] == ["TC:DEMO:002"]


def test_a_small_frame_where_zxing_found_no_code_is_not_searched(monkeypatch):
    # a picture under 640x480 is a photo: zxing-cpp's own detector finds its codes, read or not, so
    # where it found none the candidate search (9 plain passes on the shared pictures without a code)
    # is not paid for, even where code texture covers the picture; a camera's wide frame is searched
    searched = []
    real = frame.find_candidates
    monkeypatch.setattr(frame, "find_candidates", lambda *a, **k: searched.append(a[0].shape) or real(*a, **k))
    texture = np.random.default_rng(1).integers(0, 256, (480, 640), dtype=np.uint8)
    small = cv2.resize(texture, (320, 240), interpolation=cv2.INTER_AREA)
    assert readers.read_plain(small, "zxing-cpp", found=True) == ([], [])
    assert decode(small).codes == [] and searched == []
    assert decode(texture).codes == [] and searched == [texture.shape]


def test_a_small_sticker_beside_a_read_code_is_still_searched_for():
    scene = render_table(FreeLayout(demo_codes(2)), width=1280, height=720, px_per_module=2.0, seed=3)
    gray = cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY)
    # a foreign code (not a sticker: the stickers on one table are one size, and a sticker read would
    # set the size of the others)
    big = _big_code("MENU:42", 7, (260, 260), (0, 0))
    gray[20:280, 20:280] = big
    assert {r.text for r in plain_symbols(gray)} == {"MENU:42"}
    result = decode(gray)
    assert [d.payload for d in result.foreign] == ["MENU:42"]
    assert {d.payload for d in result.codes} == set(scene.payloads)


def test_a_found_code_is_read_in_its_rectified_region_at_its_place():
    img = _big_code("TC:DEMO:004", 4, (300, 300), (40, 70))
    (read,) = plain_symbols(img)
    p = read.position
    corners = [(float(q.x), float(q.y)) for q in (p.top_left, p.top_right, p.bottom_right, p.bottom_left)]
    (hit,) = finish(img, [Hit("", corners)], "zxing-cpp")
    assert hit.text == "TC:DEMO:004"
    assert np.allclose(hit.corners, corners, atol=2.5)


def test_finishing_keeps_to_its_budget(monkeypatch):
    img = _big_code("TC:DEMO:005", 4, (300, 300), (40, 70))
    calls = []
    real = readers.read
    monkeypatch.setattr("companion.vision.decode.finish.read", lambda *a, **k: calls.append(a[0].size) or real(*a, **k))
    monkeypatch.setattr("companion.vision.decode.finish.FINISH_PIXELS", 1)
    assert finish(img, [Hit("", [(40, 70), (150, 70), (150, 180), (40, 180)])], "zxing-cpp") == [] and calls == []


def test_the_pass_runs_again_as_plain_where_an_undecoded_code_could_hide_a_read(monkeypatch):
    img = _big_code("TC:DEMO:006", 4, (300, 300), (40, 70))
    again = []
    monkeypatch.setattr(readers, "plain_symbols", lambda image: again.append(1) or plain_symbols(image))
    monkeypatch.setattr(readers, "FOUND_PLENTY", 1)
    decoded, undecoded = plain_found(img)
    assert [r.text for r in decoded] == ["TC:DEMO:006"] and undecoded == [] and again == [1]
