"""A box of cards enrolled by their printed faces, once, so that its cards are read without stickers
(companion/vision/faces.py); the command is ``companion deck enrol DECK`` (companion/enrol_cli.py),
and the kiosk's screen MENU > "Enrol a deck by its faces" (companion/ui/screens/enrol.py).

Two ways in:

- **the kiosk's camera** (``camera.source``; the virtual table in the demo and the tests), step by
  step in ``CameraEnrolment``, which the command line and the screen both drive with the buttons'
  commands: the owner is asked to clear the table, then to lay the next cards of the deck in the
  order listed, in lines left to right, a finger apart, as many as the view holds (``round_shape``);
  each card found on the table is matched to the card asked for at its place in that order, or to
  its sticker where it has one. Where a game shows both sides (Timeline's title and date sides) the
  same cards are then asked again, turned over, in the same places.
- **pages** (``--pages FILE...``: pictures, or PDFs): a page of the project's own print-and-play
  cards (``companion cards``), rendered from its PDF or scanned once printed, is found by its four
  registration marks and read by its known layout (print/cards.py: ``sheet_plan``), both sides: the
  code side's cards named by their codes, the other side's by their places on the same sheet. Any
  other page holds cards on a dark sheet, found by their outlines, in reading order, numbered from
  ``--first`` on, or by their stickers.

Every face is then checked against every other: two faces too alike to tell apart (the recogniser
would not name either with its margin) are listed, and the owner is told to sticker both cards of
each pair (with one, the other stays unsure: its twin's face is still enrolled); those cards are read
by their stickers only. The faces are written beside the deck
(vision/faces_file.py).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from companion.cards.decks import Deck
from companion.cards.payload import parse_sticker
from companion.errors import BadInput
from companion.i18n import N_, NP_, Plural, Text, plural
from companion.vision.faces_file import EnrolledDeck, EnrolledFace, deck_fingerprint

LOOK_ALIKE_SHARE = 0.25         # a rival with this share of a face's own inliers is too close (the camera
                                # loses features that a flat face keeps: MARGIN is kept with room to spare)
STILL_FRAMES = 60               # frames waited for a still table before the owner is asked again


@dataclass
class Enrolment:
    deck: Deck
    faces: list[EnrolledFace] = field(default_factory=list)
    seconds: float = 0.0
    feature_seconds: float = 0.0

    def add(self, number: int, side: str, picture: np.ndarray) -> None:
        from companion.vision.faces import face_features
        t = time.process_time()
        f = face_features(picture)
        self.feature_seconds += time.process_time() - t
        self.keep(number, side, f)

    def keep(self, number: int, side: str, features) -> None:
        """A face's features (vision.faces.FaceFeatures), in place of any it had."""
        self.faces = [e for e in self.faces if (e.number, e.side) != (number, side)]
        self.faces.append(EnrolledFace(number, side, features.points, features.descriptors))

    def result(self) -> EnrolledDeck:
        deck = self.deck
        return EnrolledDeck(deck.id, sorted(self.faces, key=lambda f: (f.number, f.side)),
                            deck_fingerprint(deck))


# -- the camera -------------------------------------------------------------------------------------

def round_shape(view_mm: tuple[float, float] | None = None) -> tuple[int, int]:
    """(lines, cards a line) laid at once: as many cards as lie a finger apart (``FINGER_MM``) in the
    camera's view, within the share of it a row may fill (vision/camera_plan.py). ``view_mm``: the
    table the camera sees, in mm (default: the default camera plan's, ``companion plan-camera``)."""
    from companion.vision import camera_plan
    if view_mm is None:
        w_cm, h_cm = camera_plan.plan()["view_cm"]
        view_mm = (w_cm * 10, h_cm * 10)
    w, h = view_mm[0] * camera_plan.ROW_SHARE[0], view_mm[1] * camera_plan.ROW_SHARE[1]
    cw, ch = camera_plan.CARD_MM
    per_line = int((w - cw) // (cw + FINGER_MM)) + 1 if w >= cw else 1
    lines = int((h - ch) // (ch + FINGER_MM)) + 1 if h >= ch else 1
    return max(1, lines), max(1, per_line)


def sides_of(deck: Deck) -> tuple[str, ...]:
    """The sides a deck's cards show on the table: a title side and a date side where its game prints
    both (Timeline, Cronología: the registry's print layout), else one printed face."""
    from companion import registry
    return ("title", "date") if registry.spec_for(deck.game).print_layout == "chronology" else ("face",)


SIDE_WORDS = {"face": N_("the printed face"), "title": N_("the title side"), "date": N_("the date side")}
WHERE = [[N_("at the top left"), N_("at the top"), N_("at the top right")],
         [N_("on the left"), N_("in the middle"), N_("on the right")],
         [N_("at the bottom left"), N_("at the bottom"), N_("at the bottom right")]]


@dataclass
class _Snapshot:
    """What an UNDO puts back: the enrolment as it was before a step was taken."""

    faces: list[EnrolledFace]
    todo: list[int]
    group: list[int]
    side_index: int
    round_no: int
    tries: dict[int, int]
    left_out: list[int]
    weak: set[int]


class CameraEnrolment:
    """A box enrolled under a camera, step by step: the one implementation behind ``companion deck enrol``
    (companion/enrol_cli.py, which prints what it asks and reads Enter) and the kiosk's enrolment screen
    (companion/ui/screens/enrol.py, which draws it and hands it the buttons). It never waits: it is
    told the person's buttons (``command``), handed camera frames (``feed``) and given time for the
    look-alike check (``work``); ``phase`` says what it needs next:

    - ``clear``: the table must be cleared (OK: it is), so the bare table is seen first;
    - ``lay``: the cards of ``group`` are asked for, ``side`` up, in the deck file's order, in lines of
      ``shape[1]`` left to right (OK: they lie there; NEXT: skip them, they are left out; UNDO: take the
      step before again; MENU: stop here, what is taken is kept);
    - ``look``: frames are read until the table holds still, then its cards are taken (UNDO: not yet);
    - ``check``: every face is compared with every other (``work``), then the faces are saved;
    - ``done``: ``path`` holds the file written (None: nothing was taken), ``look_alikes`` the pairs.

    A round whose table does not show exactly the cards asked for is asked again with ``note`` saying
    what is wrong and where; a card whose face gives too few features (plain, blurred, shiny) is
    asked again at the start of the next round, ``CARD_TRIES`` times at most, then left out. Where the
    deck shows two sides, the same cards are asked again turned over in place. Faces already enrolled
    for cards outside ``numbers`` are kept (a box enrolled in parts)."""

    def __init__(self, deck: Deck, *, sides: tuple[str, ...], shape: tuple[int, int], numbers: list[int] | None = None,
                 previous: EnrolledDeck | None = None, give_up_after: int | None = None, save_to=None,
                 per_round: int | None = None):
        from companion.vision.tracker import Motion
        self.deck = deck
        self.enrolment = Enrolment(deck)
        self.numbers = sorted(deck.cards) if numbers is None else list(numbers)
        if previous is not None:
            mine = set(self.numbers)
            self.enrolment.faces = [f for f in previous.faces if f.number not in mine and f.number in deck.cards]
        self.sides, self.shape = tuple(sides), shape
        self.per_round = min(shape[0] * shape[1], per_round or shape[0] * shape[1])   # (--per-round: fewer)
        self.give_up_after = give_up_after    # looks at one step before it is skipped (the command line's --yes)
        self.save_to = save_to                # the faces file (None: beside the deck; the demo's: a folder of its own)
        self.todo = list(self.numbers)
        self.group: list[int] = []
        self.side_index = 0
        self.round_no = 0
        self.tries: dict[int, int] = {}
        self.left_out: list[int] = []
        self.weak: set[int] = set()
        self.phase = "clear"
        self.note: Text | None = None         # what went wrong at the last look (None: nothing)
        self.taken: list[tuple[int, str, np.ndarray]] = []   # the last step's cards: number, side, small picture
        self.log: list[Text] = []             # one line per step taken (the command line prints them)
        self.background: np.ndarray | None = None
        self.motion = Motion()
        self.waited = 0
        self.attempts = 0
        self.history: list[_Snapshot] = []
        self.checker: LookAlikeCheck | None = None
        self.look_alikes: list[tuple[int, int]] = []
        self.path: Path | None = None
        self.started = time.monotonic()
        self.seconds = 0.0

    # -- what it asks --------------------------------------------------------------------------------
    @property
    def side(self) -> str:
        return self.sides[self.side_index]

    def rounds(self) -> int:
        """Rounds in all, as now known (a card asked again may add one)."""
        return self.round_no + -(-len(self.todo) // self.per_round) if self.round_no else \
            -(-len(self.todo) // self.per_round)

    def enrolled(self) -> int:
        """Cards of this enrolment with every side taken."""
        have: dict[int, set[str]] = {}
        for f in self.enrolment.faces:
            have.setdefault(f.number, set()).add(f.side)
        mine = set(self.numbers)
        return sum(1 for n, sides in have.items() if n in mine and set(self.sides) <= sides)

    def missing(self) -> list[int]:
        have: dict[int, set[str]] = {}
        for f in self.enrolment.faces:
            have.setdefault(f.number, set()).add(f.side)
        return [n for n in self.numbers if not set(self.sides) <= have.get(n, set())]

    def prompt(self) -> Text:
        """What the person is asked to do now, in words."""
        if self.phase == "clear":
            return Text(N_("Clear the table: nothing on it, not even a hand. Then press OK."))
        if self.phase == "look":
            return Text(N_("Looking at the table: keep your hands off it."))
        if self.phase == "check":
            done, total = self.checker.progress() if self.checker else (0, 0)
            return Text(N_("Checking for look-alike cards: {done} of {total} faces."), {"done": done, "total": total})
        if self.phase == "done":
            if self.path is None:
                return Text(N_("Nothing was enrolled, nothing was saved."))
            one, more = NP_("{n} of {total} card enrolled and saved.", "{n} of {total} cards enrolled and saved.")
            return Plural(one, {"n": self.enrolled(), "total": len(self.numbers)}, plural=more, count="total")
        side = Text(SIDE_WORDS[self.side])
        if self.side_index > 0:
            return Text(N_("Turn each card over where it lies, so that {side} shows. Then press OK."), {"side": side})
        first, last = self.group[0], self.group[-1]
        if len(self.group) == 1:
            return Text(N_("Lay card {first} with {side} up. Then press OK."), {"first": first, "side": side})
        where = (Text(N_("in one line, left to right")) if len(self.group) <= self.shape[1] else
                 Text(N_("in lines of {n}, left to right, the top line first"), {"n": self.shape[1]}))
        if self.group == list(range(first, last + 1)):
            cards = Text(N_("cards {first} to {last}"), {"first": first, "last": last})
        else:
            cards = Text(N_("cards {list}"), {"list": number_ranges(self.group)})
        return Text(N_("Lay {cards} with {side} up, {where}, a finger apart. Then press OK."),
                    {"cards": cards, "side": side, "where": where})

    # -- the person --------------------------------------------------------------------------------
    def command(self, kind: str) -> None:
        from companion.inputs.commands import MENU, NEXT, OK, UNDO
        if self.phase in ("clear", "lay"):
            if kind == OK:
                self.phase, self.waited = "look", 0
                self.motion.reset()
            elif kind == NEXT and self.phase == "lay":
                self._skip()
            elif kind == UNDO and self.history:
                self._restore(self.history.pop())
            elif kind == MENU:
                self._finish()
        elif self.phase == "look" and kind in (UNDO, MENU):
            self.phase = "lay" if self.background is not None else "clear"

    def _skip(self) -> None:
        """The asked cards are left out (the owner stickers them, or enrols them later)."""
        self.history.append(self._snapshot())
        self.left_out += [n for n in self.group if n not in self.left_out]
        self.log.append(plural(NP_("Card {list} was skipped: not enrolled.",
                                   "Cards {list} were skipped: not enrolled."), len(self.group),
                               list=number_ranges(self.group)))
        self.weak.clear()
        self.note = None
        self._next_round()

    def _snapshot(self) -> _Snapshot:
        return _Snapshot(list(self.enrolment.faces), list(self.todo), list(self.group), self.side_index,
                         self.round_no, dict(self.tries), list(self.left_out), set(self.weak))

    def _restore(self, s: _Snapshot) -> None:
        self.enrolment.faces, self.todo, self.group = s.faces, s.todo, s.group
        self.side_index, self.round_no, self.tries, self.left_out, self.weak = (s.side_index, s.round_no, s.tries,
                                                                                s.left_out, s.weak)
        self.phase, self.note, self.taken, self.attempts = "lay", None, [], 0

    # -- the camera ---------------------------------------------------------------------------------
    def feed(self, frame: np.ndarray | None) -> None:
        """A camera frame: read once the table holds still (two frames alike)."""
        if self.phase != "look" or frame is None:
            return
        self.waited += 1
        if not self.motion.update(frame):
            if self.waited >= STILL_FRAMES:
                self._failed(Text(N_("The table did not hold still (a hand over it? the camera shaking?).")))
            return
        if self.background is None:
            self.background = frame     # the frame itself, with the chroma a Pi camera's carries (vision/outlines.py)
            self.phase = "lay"
            self.note = None
            self._next_round()
            return
        self._read(frame)

    def _failed(self, why: Text) -> None:
        self.attempts += 1
        self.note = why
        self.phase = "lay" if self.background is not None else "clear"
        if self.give_up_after is not None and self.attempts >= self.give_up_after and self.phase == "lay":
            self.log.append(Text(N_("Round {round}: {why} Given up after {n} tries."),
                                 {"round": self.round_no, "why": why, "n": self.attempts}))
            self._skip()

    def _read(self, frame: np.ndarray) -> None:
        from companion.vision.faces import face_features, rectify
        from companion.vision.outlines import outlines
        found = _assign(frame, outlines(frame, self.background), self.group, self.deck.id)
        if isinstance(found, Text):
            self._failed(Text(N_("{what} Lay them again, then press OK."), {"what": found}))
            return
        self.history.append(self._snapshot())
        self.taken = []
        for number, corners in found:
            face = rectify(frame, corners, (360, 504))
            t = time.process_time()
            features = face_features(face)
            self.enrolment.feature_seconds += time.process_time() - t
            if len(features.points) < MIN_FACE_FEATURES:
                self.weak.add(number)
                continue
            self.enrolment.keep(number, self.side, features)
            self.taken.append((number, self.side, rectify(frame, corners, THUMB_SIZE)))
        self.attempts, self.note = 0, None
        self.log.append(Text(N_("Round {round} of {rounds}, {side}: {taken} taken; {n} of {total} cards enrolled "
                                "({seconds} s)."),
                             {"round": self.round_no, "rounds": self.rounds(), "side": Text(SIDE_WORDS[self.side]),
                              "taken": len(self.taken), "n": self.enrolled(), "total": len(self.numbers),
                              "seconds": round(time.monotonic() - self.started)}))
        if self.side_index + 1 < len(self.sides):
            self.side_index += 1
            self.phase = "lay"
            return
        self._end_round()

    def _end_round(self) -> None:
        again = []
        for n in sorted(self.weak, key=self.group.index):
            self.tries[n] = self.tries.get(n, 0) + 1
            if self.tries[n] < CARD_TRIES:
                again.append(n)
            elif n not in self.left_out:
                self.left_out.append(n)
        self.weak.clear()
        if again:
            self.note = plural(NP_("Card {list} could not be taken (too plain, blurred or shiny): it is asked again "
                                   "first.", "Cards {list} could not be taken (too plain, blurred or shiny): they are "
                                   "asked again first."), len(again), list=number_ranges(again))
        self.todo = again + self.todo
        self._next_round()

    def _next_round(self) -> None:
        self.side_index = 0
        if not self.todo:
            self._finish()
            return
        self.group, self.todo = self.todo[:self.per_round], self.todo[self.per_round:]
        self.round_no += 1
        self.phase = "lay"

    def _finish(self) -> None:
        self.seconds = time.monotonic() - self.started
        self.enrolment.seconds += self.seconds
        result = self.enrolment.result()
        if not result.faces:
            self.phase = "done"
            return
        self.checker = LookAlikeCheck(result)
        self.phase = "check"

    def work(self, seconds: float = 0.1) -> None:
        """The look-alike check for about ``seconds``; at its end the faces are written beside the deck."""
        if self.phase != "check" or self.checker is None:
            return
        self.checker.run(seconds)
        if self.checker.done():
            from companion.vision.faces_file import save_faces
            result = self.checker.enrolled
            result.look_alikes = self.look_alikes = self.checker.pairs()
            self.path = save_faces(result, self.save_to)
            self.phase = "done"


MIN_FACE_FEATURES = 80          # of FACE_FEATURES: fewer, and the face is too plain, blurred or shiny to know again
CARD_TRIES = 3                  # rounds a card is asked for before it is left out
FINGER_MM = 20.0                # room between two cards laid for enrolment: their outlines must not touch
THUMB_SIZE = (72, 100)          # the small picture of a card taken, for the screen


def number_ranges(numbers: list[int]) -> str:
    """Card numbers as a person reads them: "1-4, 9, 12-13"."""
    out: list[str] = []
    before: int | None = None
    for n in numbers:
        if before is not None and n == before + 1:
            out[-1] = f"{out[-1].split('-')[0]}-{n}"
        else:
            out.append(str(n))
        before = n
    return ", ".join(out)


def _where(frame: np.ndarray, corners: np.ndarray) -> Text:
    """Where a place lies on the table, in words a person finds it by (top left ... bottom right)."""
    h, w = frame.shape[:2]
    x, y = corners.mean(0)
    return Text(WHERE[min(2, int(3 * y / h))][min(2, int(3 * x / w))])


def _assign(frame, blobs, group: list[int], deck_id: str):
    """(number, corners) for each card found, or what is wrong with the table (a Text)."""
    bad = [b for b in blobs if b.problem]
    if bad:
        return Text(N_("A place {where} is not one whole card: {problem}."),
                    {"where": _where(frame, bad[0].corners), "problem": Text(bad[0].problem)})
    if len(blobs) != len(group):
        one, more = NP_("{seen} card is on the table, {asked} were asked for.",
                        "{seen} cards are on the table, {asked} were asked for.")
        return Plural(one, {"seen": len(blobs), "asked": len(group)}, plural=more, count="seen")
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
        return Text(N_("A card with a sticker lies there that was not asked for in this round."))
    rest = [n for n in group if n not in by_sticker.values()]
    out = []
    for i, b in enumerate(blobs):
        out.append((by_sticker[i] if i in by_sticker else rest.pop(0), b.corners))
    return out


def drive(run: CameraEnrolment, source, *, hands=None, answer=None, say=print) -> None:
    """An enrolment run to its end from the command line: ``hands(numbers, side)`` lays the cards asked
    for (the virtual table; None: a person does), ``answer()`` is the person's button for each question
    (None: OK at once), ``say`` prints (English)."""
    from companion.inputs.commands import OK
    said = 0
    while run.phase != "done":
        if run.phase in ("clear", "lay"):
            if hands is not None:
                hands(list(run.group) if run.phase == "lay" else [], run.side)
            if answer is not None:
                if run.note is not None:
                    say(run.note.render("en"))
                say(run.prompt().render("en"))
                if run.phase == "lay" and run.side_index == 0:
                    for n in run.group:
                        say(f"  {n}. {run.deck.cards[n].label()}")
            run.command(answer() if answer is not None else OK)
        elif run.phase == "look":
            run.feed(source.read())
        else:
            _check(run)
        for line in run.log[said:]:
            say(line.render("en"))
        said = len(run.log)
    if hands is not None:
        hands([], run.sides[0])


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


def enrol_pages(enrolment: Enrolment, files: list[str], *, first: int, side: str | None, say, plan=None) -> None:
    """Pages of cards: each page of the project's print-and-play cards (``plan``, print/cards.py's
    ``SheetPlan``: found by its registration marks) by its known layout, both sides (``enrol_printed``);
    any other page by the outlines of its cards on a dark sheet, in reading order, by their stickers
    or numbered on from ``first``, as ``side``."""
    from companion.vision.faces import rectify
    from companion.vision.outlines import outlines
    numbers = sorted(enrolment.deck.cards)
    if first not in numbers:
        raise BadInput("--first", f"deck {enrolment.deck.id} has no card {first}")
    todo = numbers[numbers.index(first):]
    start = time.monotonic()
    printed: list[PrintedPage] = []
    for path in files:
        for p, picture in enumerate(page_pictures(path), 1):
            where = f"{path} page {p}"
            page = read_printed(picture, plan, enrolment.deck.id, where) if plan is not None else None
            if page is not None:
                printed.append(page)
                continue
            if side is None:
                raise BadInput(where, "is no page of this program's print-and-play cards (no registration marks "
                                      "found): say which side its cards show with --sides (title, date or face)")
            blobs = [b for b in outlines(picture, None, least_area=0.01) if b.problem is None]
            if not blobs:
                say(f"{where}: no card found")
                continue
            found = _assign(picture, blobs, todo[:len(blobs)], enrolment.deck.id)
            if isinstance(found, Text):
                raise BadInput(where, found.render("en"))
            for number, corners in found:
                enrolment.add(number, side, rectify(picture, corners, (360, 504)))
                if number in todo:
                    todo.remove(number)
            say(f"{where}: {len(found)} cards enrolled")
    if printed:
        enrol_printed(enrolment, printed, plan, say)
    enrolment.seconds += time.monotonic() - start


# -- the project's own print-and-play pages -----------------------------------------------------------

@dataclass
class PrintedPage:
    """A page of ``companion cards`` found in a picture: its cards' corners (pixels) by place, and the
    card numbers its codes name by place (empty: a page without codes, the other side of a sheet)."""

    where: str
    picture: np.ndarray
    corners: dict[str, list[np.ndarray]]      # "front"/"back" -> each place's corners, as that side lies
    numbers: dict[int, int]                   # place -> card number (read from its code)


def find_page(picture: np.ndarray, plan) -> np.ndarray | None:
    """The homography from the plan's millimetres to the picture's pixels, by the page's four
    registration marks (filled squares, the top left one larger); None where they are not found."""
    import itertools

    import cv2
    grey = picture if picture.ndim == 2 else cv2.cvtColor(picture, cv2.COLOR_BGR2GRAY)
    h, w = grey.shape
    # the page fills half the picture or more (a rendering, a scan): that bounds the marks' size
    px_mm = max(h, w) / max(plan.page_mm)
    sides = [side for _x, _y, side in plan.marks]
    least, most = 0.7 * min(sides) * 0.5 * px_mm, 1.3 * max(sides) * 1.05 * px_mm
    dark = (grey < 110).astype(np.uint8)
    contours, _ = cv2.findContours(dark, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    found = []
    for c in contours:
        (cx, cy), (rw, rh), _ang = cv2.minAreaRect(c)
        if not (least <= min(rw, rh) and max(rw, rh) <= most) or max(rw, rh) > 1.25 * min(rw, rh):
            continue
        if cv2.contourArea(c) < 0.85 * rw * rh:
            continue
        # solid, not a ring (a code's finder pattern is a square too)
        x, y, bw, bh = cv2.boundingRect(c)
        inside = np.zeros((bh, bw), np.uint8)
        cv2.drawContours(inside, [c - (x, y)], -1, 1, cv2.FILLED)
        if dark[y:y + bh, x:x + bw][inside > 0].mean() < 0.9:
            continue
        found.append((float(cx), float(cy), float(np.sqrt(rw * rh))))
    if len(found) < 4 or len(found) > 16:
        return None
    want = np.array([(x, y) for x, y, _s in plan.marks], np.float32)
    best = None
    for first in found:
        for others in itertools.combinations([f for f in found if f is not first], 3):
            quad = [first, *others]
            centre = np.mean([(x, y) for x, y, _s in quad], 0)
            # clockwise on the picture (y down) from the first, as the plan lists them
            rest = sorted(others, key=lambda m: (np.arctan2(m[1] - centre[1], m[0] - centre[0]) -
                                                 np.arctan2(first[1] - centre[1], first[0] - centre[0])) % (2 * np.pi))
            pts = np.array([(x, y) for x, y, _s in [first, *rest]], np.float32)
            H = cv2.getPerspectiveTransform(want, pts)
            scale = float(np.sqrt(abs(np.linalg.det(H[:2, :2].astype(np.float64)))))
            error = max(abs(m[2] / (s * scale) - 1) for m, s in zip([first, *rest], sides, strict=True))
            if error < 0.3 and cv2.isContourConvex(pts.reshape(-1, 1, 2)) and (best is None or error < best[0]):
                best = (error, H)
    return None if best is None else best[1]


def read_printed(picture: np.ndarray, plan, deck_id: str, where: str) -> PrintedPage | None:
    """A page of print-and-play cards in ``picture``, its places and the numbers its codes name; None
    when the picture shows no such page."""
    import cv2

    from companion.vision.decode import decode
    H = find_page(picture, plan)
    if H is None:
        return None
    cw, ch = plan.card_mm
    corners = {}
    for side, places in plan.cards.items():
        corners[side] = [cv2.perspectiveTransform(np.array([[(x, y), (x + cw, y), (x + cw, y + ch), (x, y + ch)]],
                                                           np.float32), H)[0] for x, y in places]
    numbers: dict[int, int] = {}
    for d in decode(picture).codes:
        s = parse_sticker(d.payload)
        if s is None or s.deck != deck_id:
            continue
        for i, quad in enumerate(corners[plan.code_side]):
            if cv2.pointPolygonTest(quad.reshape(-1, 1, 2), tuple(map(float, d.center)), False) >= 0:
                numbers[i] = s.number
    return PrintedPage(where, picture, corners, numbers)


def enrol_printed(enrolment: Enrolment, pages: list[PrintedPage], plan, say) -> None:
    """Both sides of printed sheets: a page with codes is the sheet's code side, its cards named by their
    codes; a page without is the other side of the sheet next to it (printed front, back, front...),
    its cards in the same places mirrored (the plan's places of that side), named alike."""
    from companion.vision.faces import rectify
    other = "front" if plan.code_side == "back" else "back"
    for k, page in enumerate(pages):
        if page.numbers:
            layout, numbers = plan.code_side, page.numbers
        else:
            pair = next((pages[j] for j in (k + 1, k - 1) if 0 <= j < len(pages) and pages[j].numbers), None)
            if pair is None:
                say(f"{page.where}: no codes on it or on the page beside it (its sheet's other side): not enrolled")
                continue
            layout, numbers = other, pair.numbers
        side = plan.sides[layout]
        if not side:
            say(f"{page.where}: the backs, alike on every card: not enrolled")
            continue
        for place, number in sorted(numbers.items()):
            enrolment.add(number, side, rectify(page.picture, page.corners[layout][place], (360, 504)))
        say(f"{page.where}: {len(numbers)} cards enrolled ({side} side)")


def _check(run: CameraEnrolment) -> None:
    """The look-alike check and the saving, with a progress bar on a terminal."""
    from companion.progress import bar
    assert run.checker is not None
    with bar(len(run.checker.enrolled.faces), "checking for look-alike cards", "face") as progress:
        while run.phase == "check":
            before = run.checker.next
            run.work(1.0)
            progress.update(run.checker.next - before)


# -- look-alikes -------------------------------------------------------------------------------------

class LookAlikeCheck:
    """Pairs of cards whose faces are too alike to be told apart: each face is searched for in the
    deck's index as the camera would see it, straight on; a face whose best other card has more than
    LOOK_ALIKE_SHARE of its own inliers (and enough to be named) is one of a pair. Done a few faces at
    a time (``run``), so a screen shows its progress."""

    def __init__(self, enrolled: EnrolledDeck):
        self.enrolled = enrolled
        self.index = enrolled.index()
        self.next = 0
        self._pairs: set[tuple[int, int]] = set()

    def progress(self) -> tuple[int, int]:
        return self.next, len(self.enrolled.faces)

    def done(self) -> bool:
        return self.next >= len(self.enrolled.faces)

    def run(self, seconds: float | None = None, progress=None) -> None:
        """Faces checked until ``seconds`` have passed (None: all of them)."""
        from companion.vision.faces import THRESHOLD, FaceFeatures, _verify
        until = None if seconds is None else time.monotonic() + seconds
        while not self.done() and (until is None or time.monotonic() < until):
            i = self.next
            face = self.enrolled.faces[i]
            for j, inl in _rivals(self.index, i, FaceFeatures(face.points, face.descriptors), _verify):
                other = self.enrolled.faces[j].number
                if other != face.number and inl >= THRESHOLD and inl >= LOOK_ALIKE_SHARE * len(face.points):
                    self._pairs.add((min(face.number, other), max(face.number, other)))
            self.next += 1
            if progress is not None:
                progress(1)

    def pairs(self) -> list[tuple[int, int]]:
        return sorted(self._pairs)


def look_alikes(enrolled: EnrolledDeck, progress=None) -> list[tuple[int, int]]:
    """Every look-alike pair of an enrolled deck (see LookAlikeCheck)."""
    check = LookAlikeCheck(enrolled)
    check.run(progress=progress)
    return check.pairs()


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
