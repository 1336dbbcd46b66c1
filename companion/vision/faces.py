"""Cards known by their printed face, without a sticker: the recognition core.

A face is enrolled once (companion/vision/enrol.py) as ORB features (OpenCV) of the card seen straight
on at ``FACE_SIZE``: keypoints in face pixels and their 256-bit descriptors. Every enrolled face of a
deck goes into one ``FaceIndex``: the descriptors stacked, searched at once for each feature of a
picture of the table (OpenCV's FLANN with locality-sensitive hashing; below ``EXACT_BELOW``
descriptors a brute-force Hamming search, which is exact).

``read_faces(grey, index)`` names the cards in a picture (a whole frame, or the region where a card
was just laid):

1. ORB features of the picture, scaled so that a card is about ``QUERY_CARD_PX`` wide (the caller
   says how wide a card is in its pixels);
2. each feature's two nearest enrolled descriptors; it votes for the nearest's card when that one is
   clearly nearer than the nearest of any other card (Lowe's ratio, ``RATIO``);
3. the cards with most votes are verified geometrically: a homography from the face to the picture
   by RANSAC; its inliers are the features that lie where that face puts them. The homography is the
   card's outline in the picture (the face's corners projected: the card found and rectified in one
   step, overlapped cards included); an outline that is no card seen from above (not convex, too
   small or large, squashed) is no verification;
4. verified cards whose outlines lie on one another are one place on the table; the place's card is
   named only when it has at least ``threshold`` inliers and the next card at that place has at most
   ``MARGIN`` of them: the next card verified there, or any other card voted for whose features lie
   where the named card's outline puts them (a look-alike, even where its own RANSAC failed).
   Anything less is a ``FaceUnsure`` (the kiosk asks to lift the card and lay it again), never a
   guess.

Both sides of a card may be enrolled (Timeline's title and date sides): the sides of one card are
never each other's rival.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

FACE_SIZE = (180, 252)          # a face is enrolled at this size, px (63 x 88 mm at 2.86 px/mm)
FACE_FEATURES = 600             # ORB features kept per enrolled face
QUERY_CARD_PX = 216.0           # a card's width in the picture searched (1.2 x the face: ORB's pyramid
                                # then meets the face's scale a level down, and tolerates 2x either way)
QUERY_FEATURES_PER_CARD = 1000  # ORB features of a picture, per card area it holds
RATIO = 0.85                    # a vote needs its nearest card this much nearer than the next card
MAX_HAMMING = 64                # of 256 bits: further than this is no match at all
MIN_VOTES = 5                   # a card with fewer votes is not verified
CANDIDATES_PER_CARD = 4         # cards verified, per card area the picture holds
RANSAC_PX = 5.0                 # reprojection error allowed, in the searched picture's pixels
SIMILAR_OUTLINE = 0.12          # a homography's corners within this share of a card's width of the similarity's
THRESHOLD = 16                  # inliers needed to name a card: the one owner (the tracker and bench faces read it)
MARGIN = 0.5                    # the next card at the same place must have at most this share of them
SEEN = 8                        # inliers from which a card is "seen but unsure" rather than "not seen"
EXACT_BELOW = 5_000             # enrolled descriptors below which the search is exhaustive (a few faces)


def _orb(features: int):
    return cv2.ORB.create(nfeatures=features, scaleFactor=1.2, nlevels=8, edgeThreshold=15, patchSize=31,
                          fastThreshold=5)


def _grey(img: np.ndarray) -> np.ndarray:
    return img if img.ndim == 2 else cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)


@dataclass(frozen=True)
class FaceFeatures:
    """One enrolled face: keypoints (n x 2, face pixels at FACE_SIZE) and descriptors (n x 32 bytes)."""

    points: np.ndarray
    descriptors: np.ndarray


def face_features(face: np.ndarray) -> FaceFeatures:
    """The features of a face seen straight on (any size; it is brought to FACE_SIZE)."""
    grey = cv2.resize(_grey(face), FACE_SIZE, interpolation=cv2.INTER_AREA)
    kps, des = _orb(FACE_FEATURES).detectAndCompute(grey, None)
    if des is None:
        return FaceFeatures(np.zeros((0, 2), np.float32), np.zeros((0, 32), np.uint8))
    return FaceFeatures(np.array([k.pt for k in kps], np.float32), des)


def rectify(grey: np.ndarray, corners, size=FACE_SIZE) -> np.ndarray:
    """The card whose corners (top left first, clockwise) are given, seen straight on at ``size``."""
    w, h = size
    dst = np.array([(0, 0), (w, 0), (w, h), (0, h)], np.float32)
    M = cv2.getPerspectiveTransform(np.asarray(corners, np.float32), dst)
    return cv2.warpPerspective(grey, M, (w, h), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)


class FaceIndex:
    """All enrolled faces of a deck (or several), searched at once. ``labels[i]`` names the card of
    face ``i`` (a sticker payload, ``TC:DECK:N``); two faces with one label are two sides of a card."""

    def __init__(self, labels: list[str], faces: list[FaceFeatures]):
        if len(labels) != len(faces):
            raise ValueError("one label per face")
        self.labels = list(labels)
        self.faces = list(faces)
        card_of_label: dict[str, int] = {}
        self.card = np.array([card_of_label.setdefault(lab, len(card_of_label)) for lab in labels], np.int32)
        counts = [len(f.descriptors) for f in faces]
        self.owner = np.repeat(np.arange(len(faces), dtype=np.int32), counts)
        self.first = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        self.points = np.concatenate([f.points for f in faces]) if faces else np.zeros((0, 2), np.float32)
        self.descriptors = (np.concatenate([f.descriptors for f in faces]) if faces
                            else np.zeros((0, 32), np.uint8))
        self._matcher: Any = None

    def __len__(self) -> int:
        return len(self.faces)

    def _search(self):
        if self._matcher is None:
            if len(self.descriptors) < EXACT_BELOW:
                self._matcher = cv2.BFMatcher(cv2.NORM_HAMMING)
            else:
                # LSH (FLANN_INDEX_LSH = 6): a few hash tables of 20-bit keys; approximate, and every
                # vote it gives is checked by the homography anyway
                self._matcher = cv2.FlannBasedMatcher(dict(algorithm=6, table_number=12, key_size=24,
                                                           multi_probe_level=0), dict(checks=32))
            self._matcher.add([self.descriptors])
            self._matcher.train()
        return self._matcher

    def nearest(self, descriptors: np.ndarray, k: int = 3) -> tuple[np.ndarray, np.ndarray]:
        """For each query descriptor its k nearest enrolled descriptors: (indexes, distances), n x k,
        -1 / 256 where fewer were found."""
        n = len(descriptors)
        idx = np.full((n, k), -1, np.int64)
        dist = np.full((n, k), 256.0, np.float32)
        if n == 0 or len(self.descriptors) == 0:
            return idx, dist
        for i, ms in enumerate(self._search().knnMatch(descriptors, k=k)):
            for j, m in enumerate(ms[:k]):
                idx[i, j] = m.trainIdx
                dist[i, j] = m.distance
        return idx, dist


@dataclass(frozen=True)
class FaceRead:
    """A card named by its face: ``payload`` its card, ``corners`` its outline in the picture (top
    left of the face first, clockwise), ``inliers`` the features that verified it, ``runner_up`` the
    inliers of the next card at that place (0: none)."""

    payload: str
    corners: np.ndarray
    inliers: int
    runner_up: int = 0
    side: int = 0                 # which enrolled face of the card matched (index in the FaceIndex)

    @property
    def center(self) -> tuple[float, float]:
        return float(self.corners[:, 0].mean()), float(self.corners[:, 1].mean())


@dataclass(frozen=True)
class FaceUnsure:
    """A card seen but not named: the best card there and its rival were too close, or too few features
    agreed. ``best``/``rival`` are payloads (rival None: no other card there)."""

    corners: np.ndarray
    best: str
    inliers: int
    rival: str | None

    @property
    def center(self) -> tuple[float, float]:
        return float(self.corners[:, 0].mean()), float(self.corners[:, 1].mean())


@dataclass
class FacesResult:
    reads: list[FaceRead] = field(default_factory=list)
    unsure: list[FaceUnsure] = field(default_factory=list)


@dataclass
class _Candidate:
    face: int
    inliers: int
    quad: np.ndarray           # in the original picture's pixels
    alike: list = field(default_factory=list)   # other cards, by the features this card's outline explains


def read_faces(picture: np.ndarray, index: FaceIndex, *, card_px: float, threshold: int = THRESHOLD,
               margin: float = MARGIN, offset: tuple[float, float] = (0.0, 0.0)) -> FacesResult:
    """The cards of ``index`` in ``picture`` (grey or BGR; a card about ``card_px`` wide in it). Corners
    come back in the picture's pixels plus ``offset`` (a region's place in its frame)."""
    grey = _grey(picture)
    scale = min(1.0, QUERY_CARD_PX / max(card_px, 1.0))
    small = grey if scale >= 0.999 else cv2.resize(grey, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    card_area = (QUERY_CARD_PX * QUERY_CARD_PX * FACE_SIZE[1] / FACE_SIZE[0]) if scale < 1 else (
        card_px * card_px * FACE_SIZE[1] / FACE_SIZE[0])
    cards_in_view = max(1.0, small.shape[0] * small.shape[1] / card_area)
    kps, des = _orb(int(QUERY_FEATURES_PER_CARD * cards_in_view) + 50).detectAndCompute(small, None)
    if des is None or len(index) == 0:
        return FacesResult()
    pts = np.array([k.pt for k in kps], np.float32)
    idx, dist = index.nearest(des, k=3)
    votes = _votes(index, idx, dist)
    if not votes:
        return FacesResult()
    candidates = []
    face_card_px = np.float32(max(card_px * scale, 1.0))
    voted = [f for f in _best(votes, int(CANDIDATES_PER_CARD * cards_in_view) + 2) if len(votes[f][0]) >= MIN_VOTES]
    for face in voted:
        q, t = votes[face]
        cand = _verify(index.points[t], pts[q], face_card_px)
        if cand is not None:
            inl, quad, model = cand
            quad = quad / scale + np.asarray(offset, np.float32)
            # the other cards voted for, seen through this card's outline: a look-alike (the same
            # picture, a few shapes more) lies there as much, whether or not its own RANSAC found it
            alike = [_Candidate(f, n, quad) for f in voted if index.card[f] != index.card[face]
                     for n in [_explained(index.points[votes[f][1]], pts[votes[f][0]], model)] if n]
            candidates.append(_Candidate(face, inl, quad, alike))
    return _decide(candidates, index, threshold, margin)


def _votes(index: FaceIndex, idx: np.ndarray, dist: np.ndarray) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """Each query feature's votes: face -> (query feature indexes, enrolled descriptor indexes). A
    feature votes for its nearest face, and for the nearest face of a second card when that one is
    about as near (within RATIO): look-alike cards then both get the votes and tie, where a single
    vote would have named one of them at random. A feature about as near to three cards or more is
    what many faces share (a frame, a band, a font): it votes for none."""
    n, k = idx.shape
    valid = idx >= 0
    face = index.owner[np.where(valid, idx, 0)]
    card = np.where(valid, index.card[face], -1)
    near = valid & (dist <= MAX_HAMMING) & (dist * RATIO <= dist[:, :1])
    near[:, 0] = valid[:, 0] & (dist[:, 0] <= MAX_HAMMING)
    # the distinct cards among each feature's near neighbours (same card twice: its two sides)
    first_of_card = np.ones_like(near)
    for j in range(1, k):
        first_of_card[:, j] = np.all(card[:, :j] != card[:, j:j + 1], axis=1)
    voters = near & first_of_card
    cards_near = voters.sum(1)
    voters &= (cards_near <= 2)[:, None]
    out: dict[int, list] = {}
    qs, js = np.nonzero(voters)
    for q, j in zip(qs.tolist(), js.tolist(), strict=True):
        entry = out.setdefault(int(face[q, j]), [[], []])
        entry[0].append(q)
        entry[1].append(int(idx[q, j]))
    return {f: (np.array(a, np.int64), np.array(b, np.int64)) for f, (a, b) in out.items()}


def _best(votes: dict, n: int) -> list[int]:
    return sorted(votes, key=lambda f: -len(votes[f][0]))[:n]


def _verify(face_pts: np.ndarray, query_pts: np.ndarray, card_px: np.float32):
    """(inliers, the card's outline) of a face in the picture, or None when no card seen from above
    lies there.

    A card under the kiosk's camera is seen nearly straight on: face to picture is first a
    similarity (turn, scale, shift; a tilted camera adds little), found by RANSAC from pairs of
    features. A homography found by RANSAC straight away has eight free parameters: fitted to the
    features of one small busy spot of a face (a soft face's only detail, the rest under its
    neighbour) it folds the outline, the card then failed as "no card" though plainly seen. The
    homography is fitted to the similarity's inliers for the exact outline (the camera's
    perspective) and kept where it agrees with the similarity; the inliers of the model kept are
    the evidence."""
    face_pts, query_pts = _distinct(face_pts, query_pts)
    if len(face_pts) < MIN_VOTES:
        return None
    A, sim_mask = cv2.estimateAffinePartial2D(face_pts, query_pts, method=cv2.RANSAC,
                                              ransacReprojThreshold=2 * RANSAC_PX, maxIters=500, confidence=0.995)
    if A is None or int(sim_mask.sum()) < 4:
        return None
    w, h = FACE_SIZE
    corners = np.array([[(0, 0), (w, 0), (w, h), (0, h)]], np.float32)
    model = np.vstack([A, (0, 0, 1)])
    sim_quad = cv2.transform(corners, A)[0]
    near = sim_mask.ravel().astype(bool)
    H, _mask = cv2.findHomography(face_pts[near], query_pts[near], cv2.RANSAC, RANSAC_PX, maxIters=200)
    if H is not None and np.all(np.isfinite(H)):
        quad = cv2.perspectiveTransform(corners, H)[0]
        if np.abs(quad - sim_quad).max() <= SIMILAR_OUTLINE * w * np.hypot(A[0, 0], A[1, 0]):
            model = H
    quad = cv2.perspectiveTransform(corners, model)[0]
    if not _card_like(quad, card_px):
        return None
    projected = cv2.perspectiveTransform(face_pts.reshape(-1, 1, 2), model).reshape(-1, 2)
    keep = np.hypot(*(projected - query_pts).T) <= RANSAC_PX
    if not _spread(face_pts[keep]):
        return None
    return int(keep.sum()), quad, model


def _explained(face_pts: np.ndarray, query_pts: np.ndarray, model: np.ndarray) -> int:
    """How many features (one per place) lie where ``model`` puts their face's points: another
    card's features, seen through a verified card's outline."""
    face_pts, query_pts = _distinct(face_pts, query_pts)
    projected = cv2.perspectiveTransform(face_pts.reshape(-1, 1, 2), model).reshape(-1, 2)
    return int(np.count_nonzero(np.hypot(*(projected - query_pts).T) <= RANSAC_PX))


def _distinct(face_pts: np.ndarray, query_pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The votes with one per place: several keypoints at one place of the picture (ORB's pyramid
    finds a corner at several levels) are one piece of evidence."""
    cells = np.floor(query_pts / 3).astype(np.int64)
    _keys, first = np.unique(cells[:, 0] * 1_000_003 + cells[:, 1], return_index=True)
    first.sort()
    return face_pts[first], query_pts[first]


SPREAD_CELLS = (3, 4)           # the face cut into 3 x 4 cells ...
SPREAD_LEAST = (4, 2)           # ... inliers in at least 4 of them, in at least 2 rows


def _spread(face_pts: np.ndarray) -> bool:
    """Do the inliers cover the face, not one strip of it? Cards of a box share their layout, fonts
    and words: a title matched to another title in the same font is a strip of agreeing features, as
    a whole card is not. (Asking only 3 cells in 2 rows and 2 columns would accept most of the bench's
    remaining misses, soft faces a third under their neighbour, but it named a card of another box
    with 12 inliers in tests/test_faces.py: not done.)"""
    if len(face_pts) == 0:
        return False
    cols = np.clip((face_pts[:, 0] * SPREAD_CELLS[0] / FACE_SIZE[0]).astype(int), 0, SPREAD_CELLS[0] - 1)
    rows = np.clip((face_pts[:, 1] * SPREAD_CELLS[1] / FACE_SIZE[1]).astype(int), 0, SPREAD_CELLS[1] - 1)
    cells = set(zip(cols.tolist(), rows.tolist(), strict=True))
    return len(cells) >= SPREAD_LEAST[0] and len({r for _c, r in cells}) >= SPREAD_LEAST[1]


def _card_like(quad: np.ndarray, card_px: np.float32) -> bool:
    """An outline a card seen from above can have: convex, about as wide as a card, not squashed."""
    if not cv2.isContourConvex(quad.reshape(-1, 1, 2).astype(np.float32)):
        return False
    sides = np.linalg.norm(quad - np.roll(quad, -1, 0), axis=1)
    width, height = (sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2
    if not 0.5 * card_px <= width <= 2.0 * card_px:
        return False
    aspect = (height / width) / (FACE_SIZE[1] / FACE_SIZE[0])
    opposite = min(sides[0], sides[2]) / max(sides[0], sides[2]), min(sides[1], sides[3]) / max(sides[1], sides[3])
    return 0.75 <= aspect <= 1.33 and min(opposite) >= 0.8


def _decide(candidates: list[_Candidate], index: FaceIndex, threshold: int, margin: float) -> FacesResult:
    """Places on the table from the verified candidates; each place's card named, or unsure."""
    candidates.sort(key=lambda c: -c.inliers)
    places: list[list[_Candidate]] = []
    for c in candidates:
        centre = c.quad.mean(0)
        for place in places:
            if cv2.pointPolygonTest(place[0].quad.reshape(-1, 1, 2), (float(centre[0]), float(centre[1])),
                                    False) >= 0:
                place.append(c)
                break
        else:
            places.append([c])
    out = FacesResult()
    for place in places:
        best = place[0]
        card = index.card[best.face]
        # the next card at this place: verified there, or seen through this card's outline
        rival = max((c for c in place[1:] + best.alike if index.card[c.face] != card), key=lambda c: c.inliers,
                    default=None)
        rival_inl = rival.inliers if rival is not None else 0
        if best.inliers >= threshold and rival_inl <= margin * best.inliers:
            out.reads.append(FaceRead(index.labels[best.face], best.quad, best.inliers, rival_inl, best.face))
        elif best.inliers >= SEEN:
            out.unsure.append(FaceUnsure(best.quad, index.labels[best.face], best.inliers,
                                         index.labels[rival.face] if rival is not None else None))
    # a card is one place: two places naming one card leave both unsure (never a card in two places)
    named: dict[str, int] = {}
    for r in out.reads:
        named[r.payload] = named.get(r.payload, 0) + 1
    twice = [r for r in out.reads if named[r.payload] > 1]
    if twice:
        out.reads = [r for r in out.reads if named[r.payload] == 1]
        out.unsure += [FaceUnsure(r.corners, r.payload, r.inliers, r.payload) for r in twice]
    return out
