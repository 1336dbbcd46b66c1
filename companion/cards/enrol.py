"""``companion deck enrol DECK``: a box of cards enrolled by their printed faces, once, so that its
cards are read without stickers (companion/vision/faces.py).

Two ways in:

- **the kiosk's camera** (``camera.source``; the virtual table in the demo and the tests): the
  owner is asked to clear the table, then to lay the next cards of the deck in the order listed,
  rows left to right, apart from one another, as many as the view holds; each card found on the
  table is matched to the card asked for at its place in that order, or to its sticker where it has
  one. Where a game shows both sides (Timeline's title and date sides, ``--sides title,date``) the
  same cards are then asked again, turned over, in the same places.
- **scanned pages or the project's print-and-play PDFs** (``--pages FILE...``): the cards of each
  page in reading order, numbered from ``--first`` on, or by the stickers printed on them.

Every face is then checked against every other: two faces too alike to tell apart (the recogniser
would not name either with its margin) are listed, and the owner is told to sticker one of each
pair; those cards are read by their stickers only. The faces are written beside the deck
(cards/faces_file.py).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from companion.cards.faces_file import EnrolledDeck, EnrolledFace, deck_fingerprint, faces_path, save_faces
from companion.cards.payload import format_payload, parse_sticker
from companion.errors import BadInput
from companion.paths import command

LOOK_ALIKE_SHARE = 0.25         # a rival with this share of a face's own inliers is too close (the camera
                                # loses features that a flat face keeps: MARGIN is kept with room to spare)
STILL_FRAMES = 60               # frames waited for a still table before the owner is asked again


@dataclass
class Enrolment:
    deck: object
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
        return EnrolledDeck(deck.id, sorted(self.faces, key=lambda f: (f.number, f.side)),  # type: ignore[attr-defined]
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
    todo = numbers if numbers is not None else sorted(deck.cards)  # type: ignore[attr-defined]
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
                found = _assign(frame, blobs, group, deck.id)  # type: ignore[attr-defined]
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
    img = cv2.imread(path, cv2.IMREAD_COLOR)
    if img is None:
        raise BadInput(path, "cannot be read as a picture (PNG, JPEG...) or a PDF")
    return [img]


def enrol_pages(enrolment: Enrolment, files: list[str], *, first: int, side: str, say) -> None:
    """The cards of each page in reading order: by their stickers, else numbered on from ``first``."""
    from companion.vision.faces import rectify
    from companion.vision.outlines import outlines
    numbers = sorted(enrolment.deck.cards)  # type: ignore[attr-defined]
    if first not in numbers:
        raise BadInput("--first", f"deck {enrolment.deck.id} has no card {first}")  # type: ignore[attr-defined]
    todo = numbers[numbers.index(first):]
    start = time.monotonic()
    for path in files:
        for p, picture in enumerate(page_pictures(path), 1):
            blobs = [b for b in outlines(picture, None, least_area=0.01) if b.problem is None]
            if not blobs:
                say(f"{path} page {p}: no card found")
                continue
            found = _assign(picture, blobs, todo[:len(blobs)], enrolment.deck.id)  # type: ignore[attr-defined]
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


# -- the command ------------------------------------------------------------------------------------

def add_arguments(p) -> None:
    p.add_argument("deck", help="deck id or deck file path")
    p.add_argument("--camera", metavar="SOURCE",
                   help="where the cards are seen (default: the camera.source setting; 'virtual': the demo's "
                        "virtual table lays the deck's drawn faces itself)")
    p.add_argument("--sides", default="face",
                   help="which sides to enrol, in order: 'face' (one printed side), or 'title,date' for Timeline "
                        "and Cronología cards (both sides are asked for, the cards turned over in place)")
    p.add_argument("--per-round", type=int, metavar="N",
                   help="cards laid at a time (default: as many as the view holds apart)")
    p.add_argument("--cards", metavar="A-B", help="only these card numbers (e.g. 1-40)")
    p.add_argument("--pages", nargs="+", metavar="FILE",
                   help="scanned pages (PNG, JPEG) or print-and-play PDFs instead of the camera")
    p.add_argument("--first", type=int, default=1, help="with --pages: the number of the first card shown")
    p.add_argument("--yes", action="store_true", help="do not wait for Enter between rounds")
    p.add_argument("--json", action="store_true", help="one JSON document on stdout")


def run(args) -> int:
    import json

    from companion.cards.decks import deck_ref, get_deck
    from companion.progress import bar
    deck = get_deck(deck_ref(args.deck))
    sides = tuple(s.strip() for s in args.sides.split(","))
    if not sides or any(s not in ("face", "title", "date") for s in sides) or len(set(sides)) != len(sides):
        raise BadInput("--sides", f"{args.sides!r}: 'face', or 'title,date' (or 'date,title')")
    say: Callable[[str], None] = (lambda m: print(m, file=sys.stderr)) if args.json else print
    enrolment = Enrolment(deck)
    numbers = _numbers(args.cards, deck)
    if args.pages:
        if len(sides) != 1:
            raise BadInput("--sides", "with --pages, one side at a time (scan each side as its own pages)")
        enrolment_side = sides[0]
        enrol_pages(enrolment, args.pages, first=args.first, side=enrolment_side, say=say)
    else:
        source, lay, per_round = _camera(args, deck, say)
        try:
            enrol_by_camera(enrolment, source, lay, per_round=args.per_round or per_round, sides=sides, say=say,
                            numbers=numbers)
        finally:
            source.close()
    enrolled = enrolment.result()
    if not enrolled.faces:
        raise BadInput(deck.id, "no face was enrolled")
    t = time.process_time()
    with bar(len(enrolled.faces), "checking for look-alike cards", "face") as progress:
        enrolled.look_alikes = look_alikes(enrolled, progress.update)
    check_s = time.process_time() - t
    path = save_faces(enrolled)
    cards = len(enrolled.numbers())
    report = {"deck": deck.id, "file": str(path), "cards": cards, "faces": len(enrolled.faces),
              "missing": sorted(set(numbers) - enrolled.numbers()),
              "look_alikes": [[format_payload(deck.id, a), format_payload(deck.id, b)] for a, b in enrolled.look_alikes],
              "seconds": round(enrolment.seconds, 1),
              "feature_ms_per_face": round(1000 * enrolment.feature_seconds / len(enrolled.faces), 1),
              "look_alike_check_s": round(check_s, 1), "problems": enrolment.problems}
    if args.json:
        print(json.dumps(report))
        return 0
    print(f"{deck.id}: {cards} cards enrolled ({len(enrolled.faces)} faces) in {enrolment.seconds:.0f} s, "
          f"written to {path}")
    if report["missing"]:
        print(f"not enrolled: cards {', '.join(map(str, report['missing']))} (enrol them with --cards)")
    for a, b in enrolled.look_alikes:
        print(f"cards {a} and {b} look too alike to be told apart by their faces: put a sticker on one of them "
              f"({command()} stickers {deck.id} prints them); until then neither is named by its face")
    return 0


def _numbers(text: str | None, deck) -> list[int]:
    numbers = sorted(deck.cards)
    if not text:
        return numbers
    a, _, b = text.partition("-")
    try:
        lo, hi = int(a), int(b or a)
    except ValueError:
        raise BadInput("--cards", f"{text!r}: a range of card numbers like 1-40") from None
    chosen = [n for n in numbers if lo <= n <= hi]
    if not chosen:
        raise BadInput("--cards", f"deck {deck.id} has no card in {text}")
    return chosen


def _camera(args, deck, say):
    """(source, lay, cards per round) for the camera the settings (or --camera) name."""
    from companion.camera import open_source
    from companion.config import load_config
    spec = args.camera or load_config().camera.source
    if spec.strip().lower() == "virtual":
        return _virtual_hands(deck)
    cam = load_config().camera
    source = open_source(spec, width=cam.width, height=cam.height, focus=cam.focus, mains_hz=cam.mains_hz)

    def lay(numbers: list[int], side: str) -> None:
        if not numbers:
            say("Clear the table (nothing on it), then press Enter.")
        else:
            say(f"Lay these {len(numbers)} cards {side} side up, in rows left to right, apart from one another:")
            for n in numbers:
                say(f"  {n}. {deck.cards[n].label()}")
            say("then press Enter.")
        if not args.yes:
            input()
    return source, lay, 12


def _virtual_hands(deck):
    """The virtual table, with the deck's drawn faces laid by the program itself (the demo)."""
    from companion.sim.face_art import deck_faces
    from companion.sim.scene import CARD_H, CARD_W
    from companion.sim.virtual_table import VirtualTable
    from companion.vision.layouts import RowLayout
    ppm, gap = 3.6, 8.0
    card = (CARD_W, CARD_H, gap, gap)
    pictures: dict[str, dict] = {}
    table = VirtualTable(1920, 1080, 0, px_per_module=ppm, card=card, wrap=True)
    # as many as lie apart in the view: whole lines of cards (scene.row_lines' arithmetic)
    avail_w, avail_h = 1920 / ppm * 0.9, 1080 / ppm * 0.88
    per_round = (int((avail_w - CARD_W) // (CARD_W + gap)) + 1) * (int((avail_h - CARD_H) // (CARD_H + gap)) + 1)

    def lay(numbers: list[int], side: str) -> None:
        faces = pictures.setdefault(side, {})
        faces.update(deck_faces(deck, side, [n for n in numbers if format_payload(deck.id, n) not in faces]))
        table.set_faces(faces)
        table.set_layout(RowLayout([format_payload(deck.id, n) for n in numbers]))
    return table, lay, per_round
