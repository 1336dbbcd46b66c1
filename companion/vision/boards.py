"""Player boards seen by the camera: board-definition files, the four ArUco corner markers, spots.

A board-definition file (``assets/boards/<name>.json``) describes one printed board or play mat in
millimetres, x to the right and y down as the players see it from their seat:

```json
{"name": "Exhibition player board",
 "size_mm": [560, 420],
 "markers": [{"id": 0, "x": 8, "y": 8, "size": 40}, ... 4 markers: top-left, top-right,
             bottom-right, bottom-left (clockwise); x, y = the marker's top-left corner],
 "spots": {"one_era[0]": [x, y, width, height], ...}}
```

The markers are ArUco ``DICT_4X4_50`` markers, printed upright (``marker_image``). Their sixteen
corners give the homography from the picture to the board, so a board that is turned, tilted or
seen at an angle still maps each sticker to its spot (``spot_of``). Until all four markers are seen
the board is not located: a guess from three would put a card in the wrong spot without anyone
noticing. Two boards on one table need different markers: ``id_offset=4`` uses ids 4..7 for the
second board, and so on.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from companion.errors import BadInput, json_path
from companion.paths import assets_dir

ARUCO_DICT = "DICT_4X4_50"
MARKER_IDS = 50                     # ids 0..49 exist in DICT_4X4_50
CORNER_NAMES = ("top left", "top right", "bottom right", "bottom left")
SPOT_NAME = re.compile(r"[a-z][a-z0-9_]*(\[[0-9]{1,2}\])?(\.[a-z][a-z0-9_]*)?")
MAX_FIT_ERROR_MM = 3.0              # marker corners further than this from the file's layout: wrong board


# -- the file ------------------------------------------------------------------------------------------

class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class MarkerDef(_Model):
    id: int = Field(ge=0, lt=MARKER_IDS)
    x: float
    y: float
    size: float = Field(gt=0)


class BoardFile(_Model):
    name: str = Field(min_length=1)
    notes: str = ""
    size_mm: tuple[float, float]
    markers: list[MarkerDef] = Field(min_length=4, max_length=4)
    spots: dict[str, tuple[float, float, float, float]] = Field(min_length=1)


@dataclass(frozen=True)
class Spot:
    name: str
    x: float
    y: float
    w: float
    h: float

    def contains(self, x: float, y: float) -> bool:
        return self.x <= x <= self.x + self.w and self.y <= y <= self.y + self.h

    @property
    def center(self) -> tuple[float, float]:
        return self.x + self.w / 2, self.y + self.h / 2

    @property
    def corners(self) -> list[tuple[float, float]]:
        return [(self.x, self.y), (self.x + self.w, self.y), (self.x + self.w, self.y + self.h),
                (self.x, self.y + self.h)]


@dataclass(frozen=True)
class Board:
    key: str                        # the file's name without .json
    name: str
    width: float
    height: float
    markers: tuple[MarkerDef, ...]  # top-left, top-right, bottom-right, bottom-left
    spots: tuple[Spot, ...]
    path: str

    def spot(self, name: str) -> Spot:
        for s in self.spots:
            if s.name == name:
                return s
        raise KeyError(name)

    @property
    def spot_names(self) -> list[str]:
        return [s.name for s in self.spots]

    def marker_corners(self, index: int) -> np.ndarray:
        """The 4 corners (board mm) of marker ``index`` in ArUco's order: its own top-left, clockwise."""
        m = self.markers[index]
        return np.array([(m.x, m.y), (m.x + m.size, m.y), (m.x + m.size, m.y + m.size), (m.x, m.y + m.size)],
                        np.float64)


def board_file(name_or_path: str) -> Path:
    """``exhibition``, ``exhibition.json`` (under assets/boards/) or a path to a board file."""
    if "/" in name_or_path or (name_or_path.endswith(".json") and Path(name_or_path).exists()):
        return Path(name_or_path)
    stem = name_or_path.removesuffix(".json")
    return assets_dir() / "boards" / f"{stem}.json"


def load_board(name_or_path: str) -> Board:
    path = board_file(name_or_path)
    try:
        stamp = path.stat().st_mtime_ns
    except OSError:
        known = sorted(p.stem for p in (assets_dir() / "boards").glob("*.json"))
        raise BadInput(str(path), f"no such board file (boards: {', '.join(known) or 'none'})") from None
    return _load(str(path), stamp)


@lru_cache(maxsize=16)
def _load(path: str, _stamp: int) -> Board:
    where = path
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise BadInput(where, f"cannot be read: {e}") from None
    except json.JSONDecodeError as e:
        raise BadInput(f"{where}: line {e.lineno}", f"not valid JSON: {e.msg}") from None
    try:
        spec = BoardFile.model_validate(raw)
    except ValidationError as e:
        err = e.errors()[0]
        raise BadInput(f"{where}: {_loc(err['loc'])}", err["msg"]) from None
    return _check(spec, where, Path(path).stem)


def _loc(parts) -> str:
    """A pydantic error location as a JSON path; spot names hold brackets, so they are quoted."""
    out = ""
    for i, p in enumerate(parts):
        if isinstance(p, int):
            out += f"[{p}]"
        elif i > 0 and parts[i - 1] == "spots":
            out += f'["{p}"]'
        else:
            out += f".{p}" if out else str(p)
    return out or "(top)"


def _check(spec: BoardFile, where: str, key: str) -> Board:
    def bad(path, message):
        return BadInput(f"{where}: {path}", message)

    w, h = spec.size_mm
    if w <= 0 or h <= 0:
        raise bad("size_mm", "width and height must be above 0 mm")
    ids = [m.id for m in spec.markers]
    if len(set(ids)) != 4:
        raise bad("markers", f"the four markers need four different ids, not {ids}")
    for i, m in enumerate(spec.markers):
        if m.x < 0 or m.y < 0 or m.x + m.size > w or m.y + m.size > h:
            raise bad(json_path("markers", i), f"the marker ({m.x}, {m.y}, {m.size} mm) does not lie on the "
                                                f"{w} x {h} mm board")
        cx, cy = m.x + m.size / 2, m.y + m.size / 2
        right, low = {0: (False, False), 1: (True, False), 2: (True, True), 3: (False, True)}[i]
        if (cx > w / 2) != right or (cy > h / 2) != low:
            raise bad(json_path("markers", i), f"marker {i} must be the {CORNER_NAMES[i]} one (markers go "
                                                "top-left, top-right, bottom-right, bottom-left)")
    spots: list[Spot] = []
    for name, (x, y, sw, sh) in spec.spots.items():
        at = json_path("spots") + f'["{name}"]'
        if not SPOT_NAME.fullmatch(name):
            raise bad(at, "a spot name is lower-case words with an optional [index] and .part, e.g. one_era[2], "
                          "zone1.upper")
        if sw <= 0 or sh <= 0:
            raise bad(at, "width and height must be above 0 mm")
        if x < 0 or y < 0 or x + sw > w or y + sh > h:
            raise bad(at, f"the spot [{x}, {y}, {sw}, {sh}] does not lie on the {w} x {h} mm board")
        spot = Spot(name, x, y, sw, sh)
        for other in spots:
            if _overlap(spot, other):
                raise bad(at, f"overlaps spot {other.name}: a card there would belong to both")
        for i, m in enumerate(spec.markers):
            if _overlap(spot, Spot("", m.x, m.y, m.size, m.size)):
                raise bad(at, f"covers marker {i} ({CORNER_NAMES[i]}): cards there would hide it")
        spots.append(spot)
    return Board(key, spec.name, w, h, tuple(spec.markers), tuple(spots), where)


def _overlap(a: Spot, b: Spot) -> bool:
    return a.x < b.x + b.w and b.x < a.x + a.w and a.y < b.y + b.h and b.y < a.y + a.h


# -- the markers ---------------------------------------------------------------------------------------

def _aruco():
    import cv2
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, ARUCO_DICT))


def marker_image(marker_id: int, px: int) -> np.ndarray:
    """Marker ``marker_id`` as a grey image ``px`` pixels square: the black square with its 4x4 cells,
    edge to edge (leave a white margin of at least one cell around it when printing or drawing)."""
    import cv2
    if not 0 <= marker_id < MARKER_IDS:
        raise ValueError(f"marker id {marker_id} is outside 0..{MARKER_IDS - 1} ({ARUCO_DICT})")
    if px < 6:
        raise ValueError("a marker needs at least 6 pixels (6 cells across)")
    return cv2.aruco.generateImageMarker(_aruco(), marker_id, px, borderBits=1)


def draw_board(board: Board, px_per_mm: float, *, id_offset: int = 0, colour=(214, 226, 232),
               outline=(150, 160, 170), labels: bool = True) -> np.ndarray:
    """The board as a BGR picture: its colour, the four markers where the file puts them, and the
    spots' outlines (for the virtual table and for printing a play mat)."""
    import cv2
    W, H = round(board.width * px_per_mm), round(board.height * px_per_mm)
    img = np.empty((H, W, 3), np.uint8)
    img[:] = colour
    for s in board.spots:
        p0 = (round(s.x * px_per_mm), round(s.y * px_per_mm))
        p1 = (round((s.x + s.w) * px_per_mm), round((s.y + s.h) * px_per_mm))
        cv2.rectangle(img, p0, p1, outline, max(1, round(0.6 * px_per_mm)))
        if labels and px_per_mm >= 1:
            cv2.putText(img, s.name, (p0[0] + 3, p1[1] - 4), cv2.FONT_HERSHEY_SIMPLEX, 0.09 * px_per_mm,
                        outline, max(1, round(0.25 * px_per_mm)), cv2.LINE_AA)
    for m in board.markers:
        side = round(m.size * px_per_mm)
        x0, y0 = round(m.x * px_per_mm), round(m.y * px_per_mm)
        quiet = max(1, side // 6)
        cv2.rectangle(img, (x0 - quiet, y0 - quiet), (x0 + side + quiet, y0 + side + quiet), (255, 255, 255), -1)
        img[y0:y0 + side, x0:x0 + side] = marker_image(m.id + id_offset, side)[:, :, None]
    return img


# -- finding the board in a picture ----------------------------------------------------------------------

@dataclass(frozen=True)
class BoardPose:
    """Where the board lies in one picture."""

    board: Board
    to_board: np.ndarray        # 3x3 homography: picture pixels -> board mm
    to_image: np.ndarray        # board mm -> picture pixels
    fit_error_mm: float         # the furthest seen marker corner from where the file puts it

    def board_point(self, point) -> tuple[float, float]:
        return _apply(self.to_board, point)

    def image_point(self, point) -> tuple[float, float]:
        return _apply(self.to_image, point)

    @property
    def rotation_deg(self) -> float:
        """The board's x axis in the picture, in degrees (0: upright, 90: turned clockwise a quarter)."""
        (x0, y0), (x1, y1) = self.image_point((0, 0)), self.image_point((self.board.width, 0))
        return float(np.degrees(np.arctan2(y1 - y0, x1 - x0)))

    @property
    def px_per_mm(self) -> float:
        """Picture pixels per board millimetre, at the board's middle."""
        cx, cy = self.board.width / 2, self.board.height / 2
        a, b = np.array(self.image_point((cx - 5, cy))), np.array(self.image_point((cx + 5, cy)))
        return float(np.linalg.norm(b - a) / 10)


def _apply(H: np.ndarray, point) -> tuple[float, float]:
    x, y = float(point[0]), float(point[1])
    v = H @ np.array([x, y, 1.0])
    return float(v[0] / v[2]), float(v[1] / v[2])


def detect_markers(image: np.ndarray, *, codes: Sequence[Sequence[Sequence[float]]] = ()
                   ) -> dict[int, list[np.ndarray]]:
    """Every DICT_4X4_50 marker in the picture: id -> list of 4x2 corner arrays (one per copy seen).
    Big pictures are searched at half size (the markers are large) and the corners refined at full size.
    ``codes``: the corners of the QR codes already decoded in the picture. They are blanked before the
    search: each finder pattern is a dark square that the detector must open and reject, and a board
    full of cards took it 58 ms instead of 32 (a marker cannot lie where a code was read)."""
    import cv2
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    scale = 2 if grey.shape[1] > 1400 else 1
    small = cv2.resize(grey, (grey.shape[1] // scale, grey.shape[0] // scale), interpolation=cv2.INTER_AREA) \
        if scale > 1 else grey
    if len(codes):
        small = small.copy() if small is grey else small
        for quad in codes:
            q = np.asarray(quad, np.float64).reshape(4, 2)
            middle = q.mean(axis=0)
            # half a module more all round: the code's anti-aliased edge goes too
            grown = middle + (q - middle) * (1 + 1 / 21)
            cv2.fillConvexPoly(small, np.round((grown + 0.5) / scale - 0.5).astype(np.int32), 255)
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    corners, ids, _rejected = cv2.aruco.ArucoDetector(_aruco(), params).detectMarkers(small)
    found: dict[int, list[np.ndarray]] = {}
    if ids is None:
        return found
    for c, i in zip(corners, ids.ravel(), strict=True):
        pts: np.ndarray = c.reshape(4, 2).astype(np.float32)
        if scale > 1:
            pts = (pts + 0.5) * scale - 0.5
            side = float(np.min(np.linalg.norm(pts - np.roll(pts, 1, axis=0), axis=1)))
            win = int(max(2, min(8, side / 12)))
            pts = cv2.cornerSubPix(grey, pts.reshape(-1, 1, 2), (win, win), (-1, -1),
                                   (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_COUNT, 30, 0.01)).reshape(4, 2)
        found.setdefault(int(i), []).append(pts.astype(np.float64))
    return found


def find_board(image: np.ndarray, board: Board, *, id_offset: int = 0,
               markers: dict[int, list[np.ndarray]] | None = None) -> tuple[BoardPose | None, str]:
    """The board's pose in the picture and "" , or None and why not (in words for the players)."""
    import cv2
    seen = detect_markers(image) if markers is None else markers
    missing, doubled = [], []
    img_pts, board_pts = [], []
    for i, m in enumerate(board.markers):
        copies = seen.get(m.id + id_offset, [])
        if not copies:
            missing.append(i)
        elif len(copies) > 1:
            doubled.append(i)
        else:
            img_pts.append(copies[0])
            board_pts.append(board.marker_corners(i))
    if doubled:
        i = doubled[0]
        return None, (f"the {CORNER_NAMES[i]} corner marker (id {board.markers[i].id + id_offset}) of the "
                      f"{board.name} is seen {len(seen[board.markers[i].id + id_offset])} times: each board "
                      "needs its own markers")
    if len(missing) == 4:
        return None, f"no corner marker of the {board.name} is in view"
    if missing:
        names = " and ".join(CORNER_NAMES[i] for i in missing)
        return None, (f"the {names} corner marker{'s' if len(missing) > 1 else ''} of the {board.name} "
                      f"{'are' if len(missing) > 1 else 'is'} not in view (covered, outside the picture or too small)")
    src = np.concatenate(img_pts)
    dst = np.concatenate(board_pts)
    H, _mask = cv2.findHomography(src, dst, 0)
    if H is None or not np.all(np.isfinite(H)):
        return None, f"the corner markers of the {board.name} do not make a board shape"
    projected = cv2.perspectiveTransform(src.reshape(-1, 1, 2), H).reshape(-1, 2)
    err = float(np.max(np.linalg.norm(projected - dst, axis=1)))
    if err > MAX_FIT_ERROR_MM:
        return None, (f"the corner markers of the {board.name} do not lie where its board file says "
                      f"({err:.0f} mm off): is it the right board, or has a marker come loose?")
    to_image = np.linalg.inv(H)
    pose = BoardPose(board, H, to_image, err)
    if not _same_turn(pose):
        return None, f"the corner markers of the {board.name} are in the wrong places (the board looks mirrored)"
    return pose, ""


def _same_turn(pose: BoardPose) -> bool:
    """Clockwise on the board is clockwise in the picture (a real board is never seen mirrored)."""
    b = pose.board
    quad = np.array([pose.image_point(p) for p in ((0, 0), (b.width, 0), (b.width, b.height), (0, b.height))])
    for k in range(4):
        (ax, ay), (bx, by) = quad[k] - quad[k - 1], quad[(k + 1) % 4] - quad[k]
        if ax * by - ay * bx <= 0:
            return False
    return True


def locate_board(image: np.ndarray, board: Board, *, id_offset: int = 0) -> BoardPose | None:
    """The board's pose, or None when any of its four markers is not seen (``find_board`` says why)."""
    return find_board(image, board, id_offset=id_offset)[0]


def spot_of(pose: BoardPose, point) -> str | None:
    """The spot under a picture point (a sticker's centre), or None when it lies on no spot."""
    x, y = pose.board_point(point)
    for s in pose.board.spots:
        if s.contains(x, y):
            return s.name
    return None
