"""A box of cards enrolled by their printed faces, once, so that its cards are read without stickers
(companion/vision/faces.py); the command is ``companion deck enrol DECK`` (companion/enrol_cli.py).

Two ways in:

- **the kiosk's camera** (``camera.source``; the virtual table in the demo and the tests): the
  owner is asked to clear the table, then to lay the next cards of the deck in the order listed,
  rows left to right, apart from one another, as many as the view holds; each card found on the
  table is matched to the card asked for at its place in that order, or to its sticker where it has
  one. Where a game shows both sides (Timeline's title and date sides, ``--sides title,date``) the
  same cards are then asked again, turned over, in the same places.
- **scanned pages** (``--pages FILE...``: pictures, or PDFs of them): the cards of each page in
  reading order, numbered from ``--first`` on, or by their stickers. (The project's print-and-play
  PDFs are not read yet: their white-bordered cards on white paper show no outline.)

Every face is then checked against every other: two faces too alike to tell apart (the recogniser
would not name either with its margin) are listed, and the owner is told to sticker one of each
pair; those cards are read by their stickers only. The faces are written beside the deck
(vision/faces_file.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from companion.cards.decks import Deck
from companion.cards.payload import parse_sticker
from companion.errors import BadInput
from companion.vision.faces_file import EnrolledDeck, EnrolledFace, deck_fingerprint

LOOK_ALIKE_SHARE = 0.25         # a rival with this share of a face's own inliers is too close (the camera
                                # loses features that a flat face keeps: MARGIN is kept with room to spare)
STILL_FRAMES = 60               # frames waited for a still table before the owner is asked again


@dataclass
class Enrolment:
    deck: Deck
    faces: list[EnrolledFace] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0
    feature_seconds: float = 0.0

    def add(self, number: int, side: str, picture: np.ndarray) -> None:
        from companion.vision.faces import face_features
        t = time.process_time()
        f = face_features(picture)
        self.feature_seconds += time.process_time() - t
        self.faces = [e for e in self.faces if (e.number, e.side) != (number, side)]
        self.faces.append(EnrolledFace(number, side, f.points, f.descriptors))

    def result(self) -> EnrolledDeck:
        deck = self.deck
        return EnrolledDeck(deck.id, sorted(self.faces, key=lambda f: (f.number, f.side)),
                            deck_fingerprint(deck))


# -- the camera -------------------------------------------------------------------------------------

def still_frame(source, motion=None) -> np.ndarray:
    """The next frame of a still table (two frames in a row alike)."""
    from companion.vision.tracker import Motion
    motion = motion or Motion()
    for _ in range(STILL_FRAMES):
        frame = source.read()
        if frame is not None and motion.update(frame):
            return frame
    raise BadInput("camera", f"the table did not hold still for {STILL_FRAMES} frames (a hand over it? the "
                             "camera shaking?)")


def enrol_by_camera(enrolment: Enrolment, source, lay: Callable[[list[int], str], None], *, per_round: int,
                    sides: tuple[str, ...], say: Callable[[str], None], numbers: list[int] | None = None) -> None:
    """Round after round: ``lay(numbers, side)`` asks for the cards (the person lays them, or the
    virtual table does), the table is read, each card found is enrolled."""
    from companion.vision.outlines import outlines
    from companion.vision.tracker import Motion
    deck = enrolment.deck
    todo = numbers if numbers is not None else sorted(deck.cards)
    motion = Motion()
    lay([], sides[0])
    background = still_frame(source, motion)
    rounds = [todo[i:i + per_round] for i in range(0, len(todo), per_round)]
    start = time.monotonic()
    for r, group in enumerate(rounds, 1):
        for side in sides:
            for attempt in range(3):
                lay(group, side)
                frame = still_frame(source, motion)
                blobs = outlines(frame, background)
                found = _assign(frame, blobs, group, deck.id)
                if isinstance(found, str):
                    say(f"round {r}/{len(rounds)} ({side} side): {found}; lay them again"
                        + ("" if attempt < 2 else " (giving up on this round)"))
                    continue
                for number, corners in found:
                    from companion.vision.faces import rectify
                    enrolment.add(number, side, rectify(frame, corners, (360, 504)))
                break
            else:
                enrolment.problems.append(f"cards {group[0]}-{group[-1]} ({side} side) were not enrolled")
        done = sum(len(g) for g in rounds[:r])
        say(f"round {r}/{len(rounds)}: {done} of {len(todo)} cards enrolled ({time.monotonic() - start:.0f} s)")
    lay([], sides[0])
    enrolment.seconds += time.monotonic() - start


def _assign(frame, blobs, group: list[int], deck_id: str):
    """(number, corners) for each card found, or what is wrong with the table."""
    bad = [b for b in blobs if b.problem]
    if bad:
        at = bad[0].corners.mean(0)
        return f"{len(bad)} place(s) are not one whole card, e.g. at ({at[0]:.0f}, {at[1]:.0f}): {bad[0].problem}"
    if len(blobs) != len(group):
        return f"{len(blobs)} cards are on the table, {len(group)} were asked for"
    import cv2

    from companion.vision.decode import decode
    by_sticker: dict[int, int] = {}
    for d in decode(frame).codes:
        s = parse_sticker(d.payload)
        if s is None or s.deck != deck_id:
            continue
        for i, b in enumerate(blobs):
            if cv2.pointPolygonTest(b.corners.reshape(-1, 1, 2), tuple(map(float, d.center)), False) >= 0:
                by_sticker[i] = s.number
    if any(n not in group for n in by_sticker.values()):
        return "a card with a sticker lies there that was not asked for in this round"
    rest = [n for n in group if n not in by_sticker.values()]
    out = []
    for i, b in enumerate(blobs):
        out.append((by_sticker[i] if i in by_sticker else rest.pop(0), b.corners))
    return out


# -- pages ----------------------------------------------------------------------------------------------

def page_pictures(path: str, dpi: float = 150.0) -> list[np.ndarray]:
    """The pictures of a scanned page (an image) or of each page of a PDF (rendered)."""
    import cv2
    if path.lower().endswith(".pdf"):
        import pypdfium2
        try:
            pdf = pypdfium2.PdfDocument(path)
        except (pypdfium2.PdfiumError, OSError) as e:
            raise BadInput(path, f"cannot be read as a PDF: {e}") from None
        out = []
        for page in pdf:
            img = np.asarray(page.render(scale=dpi / 72).to_pil().convert("RGB"))
            out.append(cv2.cvtColor(img, cv2.COLOR_RGB2BGR))
        return out
    picture = cv2.imread(path, cv2.IMREAD_COLOR)
    if picture is None:
        raise BadInput(path, "cannot be read as a picture (PNG, JPEG...) or a PDF")
    return [picture]


def enrol_pages(enrolment: Enrolment, files: list[str], *, first: int, side: str, say) -> None:
    """The cards of each page in reading order: by their stickers, else numbered on from ``first``."""
    from companion.vision.faces import rectify
    from companion.vision.outlines import outlines
    numbers = sorted(enrolment.deck.cards)
    if first not in numbers:
        raise BadInput("--first", f"deck {enrolment.deck.id} has no card {first}")
    todo = numbers[numbers.index(first):]
    start = time.monotonic()
    for path in files:
        for p, picture in enumerate(page_pictures(path), 1):
            blobs = [b for b in outlines(picture, None, least_area=0.01) if b.problem is None]
            if not blobs:
                say(f"{path} page {p}: no card found")
                continue
            found = _assign(picture, blobs, todo[:len(blobs)], enrolment.deck.id)
            if isinstance(found, str):
                raise BadInput(f"{path} page {p}", found)
            for number, corners in found:
                enrolment.add(number, side, rectify(picture, corners, (360, 504)))
                if number in todo:
                    todo.remove(number)
            say(f"{path} page {p}: {len(found)} cards enrolled")
    enrolment.seconds += time.monotonic() - start


# -- look-alikes -------------------------------------------------------------------------------------

def look_alikes(enrolled: EnrolledDeck, progress=None) -> list[tuple[int, int]]:
    """Pairs of cards whose faces are too alike to be told apart: each face is searched for in the
    deck's index as the camera would see it, straight on; a face whose best other card has more than
    LOOK_ALIKE_SHARE of its own inliers (and enough to be named) is one of a pair."""
    from companion.vision.faces import THRESHOLD, FaceFeatures, _verify
    index = enrolled.index()
    pairs: set[tuple[int, int]] = set()
    for i, face in enumerate(enrolled.faces):
        rivals = _rivals(index, i, FaceFeatures(face.points, face.descriptors), _verify)
        for j, inl in rivals:
            other = enrolled.faces[j].number
            if other != face.number and inl >= THRESHOLD and inl >= LOOK_ALIKE_SHARE * len(face.points):
                pairs.add((min(face.number, other), max(face.number, other)))
        if progress is not None:
            progress(1)
    return sorted(pairs)


def _rivals(index, own: int, features, verify) -> list[tuple[int, int]]:
    """Other faces that a face's own features verify, with their inliers."""
    from companion.vision.faces import MIN_VOTES
    idx, dist = index.nearest(features.descriptors, k=4)
    out = []
    votes: dict[int, list[tuple[int, int]]] = {}
    for q in range(len(idx)):
        for j in range(idx.shape[1]):
            if idx[q, j] < 0 or dist[q, j] > 64:
                continue
            face = int(index.owner[idx[q, j]])
            if face != own and index.card[face] != index.card[own]:
                votes.setdefault(face, []).append((q, int(idx[q, j])))
    for face, pairs in sorted(votes.items(), key=lambda kv: -len(kv[1]))[:3]:
        if len(pairs) < MIN_VOTES:
            break
        q, t = np.array(pairs).T
        got = verify(index.points[t], features.points[q], np.float32(180.0))
        if got is not None:
            out.append((face, got[0]))
    return out
