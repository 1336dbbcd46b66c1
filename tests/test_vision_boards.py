"""Board files, ArUco corner markers, and mapping stickers to spots on a turned, tilted board."""

import json

import cv2
import numpy as np
import pytest

from companion.errors import BadInput
from companion.vision.boards import draw_board, find_board, load_board, locate_board, marker_image, spot_of

PPM = 2.0               # board pixels per mm in the flat rendering


def view(board, quad, size=(1920, 1080), id_offset=0, blur=0.8, seed=0, table=(60, 90, 120)):
    """The board seen by a camera: its four corners land on ``quad`` (picture px). Returns the
    picture and the matrix from board mm to picture px."""
    flat = draw_board(board, PPM, id_offset=id_offset)
    h, w = flat.shape[:2]
    src = np.float32([(0, 0), (w, 0), (w, h), (0, h)])
    M = cv2.getPerspectiveTransform(src, np.float32(quad))
    img = cv2.warpPerspective(flat, M, size, flags=cv2.INTER_AREA, borderValue=table)
    if blur:
        img = cv2.GaussianBlur(img, (0, 0), blur)
    rng = np.random.default_rng(seed)
    img = np.clip(img.astype(np.int16) + rng.normal(0, 3, img.shape).astype(np.int16), 0, 255).astype(np.uint8)
    mm_to_px = M @ np.diag([PPM, PPM, 1.0])
    return img, mm_to_px


def project(M, point):
    v = M @ np.array([point[0], point[1], 1.0])
    return v[0] / v[2], v[1] / v[2]


def turned(board, angle_deg, scale, centre=(960, 540), tilt=0.0):
    """Board corners turned by ``angle_deg`` about ``centre``; ``tilt`` shrinks the far (top) edge, as
    a camera that does not look straight down sees it."""
    w, h = board.width * scale, board.height * scale
    pts = np.array([(-w / 2 * (1 - tilt), -h / 2), (w / 2 * (1 - tilt), -h / 2), (w / 2, h / 2), (-w / 2, h / 2)])
    a = np.radians(angle_deg)
    R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    return (pts @ R.T) + centre


@pytest.mark.parametrize("name", ["exhibition", "ancient-knowledge"])
@pytest.mark.parametrize("angle, tilt", [(0, 0.0), (17, 0.0), (-35, 0.15), (90, 0.1), (180, 0.0), (241, 0.2)])
def test_every_spot_maps_back_on_a_turned_tilted_board(name, angle, tilt):
    board = load_board(name)
    scale = 1040 / np.hypot(board.width, board.height)      # as large as fits a 1080p picture at any turn
    img, M = view(board, turned(board, angle, scale, tilt=tilt), seed=angle % 360)
    pose, why = find_board(img, board)
    assert pose is not None, why
    assert pose.fit_error_mm < 1.5
    for spot in board.spots:
        cx, cy = spot.center
        assert spot_of(pose, project(M, (cx, cy))) == spot.name
        # a sticker near a spot's corner still belongs to it
        for dx, dy in ((0.15, 0.15), (0.85, 0.2), (0.2, 0.85)):
            p = (spot.x + dx * spot.w, spot.y + dy * spot.h)
            assert spot_of(pose, project(M, p)) == spot.name
    assert (pose.rotation_deg - angle + 180) % 360 - 180 == pytest.approx(0, abs=3 + 30 * tilt)


def test_points_off_every_spot_are_none():
    board = load_board("exhibition")
    img, M = view(board, turned(board, 8, 1.8))
    pose = locate_board(img, board)
    assert spot_of(pose, project(M, (2, board.height / 2))) is None          # board edge
    s = board.spot("one_era[0]")
    assert spot_of(pose, project(M, (s.x + s.w + 3, s.y + 10))) is None       # between two spots
    assert spot_of(pose, (5, 5)) is None                                       # the table
    assert pose.px_per_mm == pytest.approx(1.8, rel=0.03)


def test_a_covered_marker_means_no_board_and_says_which():
    board = load_board("exhibition")
    img, M = view(board, turned(board, 0, 1.8))
    m = board.markers[2]
    a, b = project(M, (m.x - 3, m.y - 3)), project(M, (m.x + m.size + 3, m.y + m.size + 3))
    img[int(a[1]):int(b[1]), int(a[0]):int(b[0])] = (30, 120, 200)             # a hand over the corner
    pose, why = find_board(img, board)
    assert pose is None
    assert why == ("the bottom right corner marker of the Exhibition player board is not in view "
                   "(covered, outside the picture or too small)")
    assert locate_board(img, board) is None


def test_no_board_in_view():
    board = load_board("ancient-knowledge")
    pose, why = find_board(np.full((480, 640, 3), 128, np.uint8), board)
    assert pose is None and why == "no corner marker of the Ancient Knowledge player mat is in view"


def test_two_boards_need_their_own_markers():
    board = load_board("exhibition")
    a, _ = view(board, turned(board, 0, 0.9, centre=(480, 540)), table=(60, 90, 120))
    b, M2 = view(board, turned(board, 0, 0.9, centre=(1440, 540)), id_offset=4)
    both = np.where(np.all(a == a[0, 0], axis=2, keepdims=True) | (np.arange(1920) >= 960)[None, :, None], b, a)
    p0, p1 = locate_board(both, board), locate_board(both, board, id_offset=4)
    assert p0 is not None and p1 is not None
    s = board.spot("depot[1]")
    assert spot_of(p1, project(M2, s.center)) == "depot[1]"
    assert p0.image_point(s.center)[0] < 960 < p1.image_point(s.center)[0]
    same = np.concatenate([a[:, :960], a[:, :960]], axis=1)      # the same markers twice
    pose, why = find_board(same, board)
    assert pose is None and "seen 2 times" in why


def test_a_board_file_that_does_not_match_the_printed_board(tmp_path):
    board = load_board("exhibition")
    img, _ = view(board, turned(board, 5, 1.8))
    raw = json.loads(board_path("exhibition").read_text())
    raw["markers"][1]["y"] += 25                   # the file says the top-right marker lies elsewhere
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps(raw))
    pose, why = find_board(img, load_board(str(wrong)))
    assert pose is None and "do not lie where its board file says" in why


def board_path(name):
    from companion.vision.boards import board_file
    return board_file(name)


def test_marker_image_is_the_aruco_marker():
    img = marker_image(3, 120)
    assert img.shape == (120, 120) and img.dtype == np.uint8
    framed = cv2.copyMakeBorder(img, 30, 30, 30, 30, cv2.BORDER_CONSTANT, value=255)
    d = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50))
    _corners, ids, _ = d.detectMarkers(framed)
    assert ids is not None and ids.ravel().tolist() == [3]
    with pytest.raises(ValueError):
        marker_image(50, 100)
    with pytest.raises(ValueError):
        marker_image(0, 4)


def test_spot_names_match_the_games():
    exh = load_board("exhibition")
    from companion.games.exhibition.board import board as exhibition_board
    b = exhibition_board()
    want = [f"{s.key}[{i}]" for s in b.showcases for i in range(s.spots)]
    want += [f"depot[{i}]" for i in range(b.depot.spots)]
    assert sorted(exh.spot_names) == sorted(want)
    ak = load_board("ancient-knowledge")
    from companion.games.ancient_knowledge.state import ARTIFACT_SLOTS, ROWS, ZONES
    zones = {f"zone{z}.{r}" for z in range(1, ZONES + 1) for r in ROWS}
    assert zones <= set(ak.spot_names)
    assert {f"artifact[{i}]" for i in range(ARTIFACT_SLOTS)} <= set(ak.spot_names)
    assert sum(n.startswith("past[") for n in ak.spot_names) >= 15      # the end comes at 14 or 15


def _write(tmp_path, doc):
    p = tmp_path / "b.json"
    p.write_text(json.dumps(doc) if not isinstance(doc, str) else doc)
    return str(p)


def _doc(**change):
    doc = {"name": "Test board", "size_mm": [300, 200],
           "markers": [{"id": 0, "x": 5, "y": 5, "size": 30}, {"id": 1, "x": 265, "y": 5, "size": 30},
                       {"id": 2, "x": 265, "y": 165, "size": 30}, {"id": 3, "x": 5, "y": 165, "size": 30}],
           "spots": {"a[0]": [50, 50, 60, 90], "a[1]": [120, 50, 60, 90]}}
    doc.update(change)
    return doc


def test_a_good_minimal_file(tmp_path):
    b = load_board(_write(tmp_path, _doc()))
    assert b.spot_names == ["a[0]", "a[1]"] and b.width == 300


@pytest.mark.parametrize("change, where, words", [
    ({"size_mm": [300]}, "size_mm[1]", "required"),
    ({"markers": []}, "markers", "at least 4"),
    ({"spots": {"a[0]": [50, 50, 60]}}, 'spots["a[0]"][3]', "required"),
    ({"spots": {"A b": [50, 50, 60, 90]}}, 'spots["A b"]', "lower-case"),
    ({"spots": {"a": [250, 50, 60, 90]}}, 'spots["a"]', "does not lie on the 300.0 x 200.0 mm board"),
    ({"spots": {"a": [50, 50, 60, 90], "b": [100, 60, 60, 90]}}, 'spots["b"]', "overlaps spot a"),
    ({"spots": {"a": [20, 20, 60, 90]}}, 'spots["a"]', "covers marker 0 (top left)"),
    ({"spots": {"a": [50, 50, 0, 90]}}, 'spots["a"]', "above 0 mm"),
    ({"colour": "red"}, "colour", "Extra inputs"),
])
def test_bad_files_name_the_json_path(tmp_path, change, where, words):
    with pytest.raises(BadInput) as e:
        load_board(_write(tmp_path, _doc(**change)))
    assert e.value.where.endswith(f"b.json: {where}"), e.value.where
    assert words in e.value.message


def test_bad_markers(tmp_path):
    doc = _doc()
    doc["markers"][2]["id"] = 0
    with pytest.raises(BadInput, match="four different ids"):
        load_board(_write(tmp_path, doc))
    doc = _doc()
    doc["markers"][1], doc["markers"][3] = doc["markers"][3], doc["markers"][1]
    with pytest.raises(BadInput) as e:
        load_board(_write(tmp_path, doc))
    assert e.value.where.endswith("markers[1]") and "top right" in e.value.message
    doc = _doc()
    doc["markers"][0]["id"] = 50
    with pytest.raises(BadInput) as e:
        load_board(_write(tmp_path, doc))
    assert e.value.where.endswith("markers[0].id")


def test_unreadable_and_missing_files(tmp_path):
    with pytest.raises(BadInput, match="not valid JSON") as e:
        load_board(_write(tmp_path, "{\n  \"name\": \n"))
    assert "line" in e.value.where
    with pytest.raises(BadInput, match="no such board file.*ancient-knowledge, exhibition"):
        load_board("monopoly")


def test_an_edited_file_is_read_again(tmp_path):
    path = _write(tmp_path, _doc())
    assert load_board(path).name == "Test board"
    import os
    import time
    doc = _doc(name="Edited")
    (tmp_path / "b.json").write_text(json.dumps(doc))
    os.utime(tmp_path / "b.json", ns=(time.time_ns(), time.time_ns() + 10**9))
    assert load_board(path).name == "Edited"
