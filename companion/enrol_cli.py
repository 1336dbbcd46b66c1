"""``companion deck enrol DECK``: the command that enrols a box by its faces (companion/vision/enrol.py
does the work; docs/faces.md tells the owner how). It sits with the commands because it opens the
camera the settings name, or the virtual table, which lays the deck's drawn faces itself in the demo.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from companion.cards.payload import format_payload
from companion.errors import BadInput
from companion.paths import command
from companion.vision.enrol import (
    CameraEnrolment,
    Enrolment,
    LookAlikeCheck,
    drive,
    enrol_pages,
    number_ranges,
    sides_of,
)
from companion.vision.faces_file import load_faces, save_faces


def add_arguments(p) -> None:
    p.add_argument("deck", help="deck id or deck file path")
    p.add_argument("--camera", metavar="SOURCE",
                   help="where the cards are seen (default: the camera.source setting; 'virtual': the demo's "
                        "virtual table lays the deck's drawn faces itself)")
    p.add_argument("--sides",
                   help="which sides to enrol, in order: 'face' (one printed side), or 'title,date' (default: the "
                        "deck's game's: title,date for Timeline and Cronología cards, the cards turned over in "
                        "place; face for the others)")
    p.add_argument("--per-round", type=int, metavar="N",
                   help="cards laid at a time (default: as many as the view holds apart)")
    p.add_argument("--cards", metavar="A-B", help="only these card numbers (e.g. 1-40)")
    p.add_argument("--pages", nargs="+", metavar="FILE",
                   help="pages instead of the camera (PNG, JPEG, PDF): the PDF of 'companion cards' (or scans of its "
                        "printed pages, in order), both sides; or scans of cards apart on a dark sheet (one side, "
                        "--sides)")
    p.add_argument("--first", type=int, default=1, help="with --pages: the number of the first card shown")
    p.add_argument("--yes", action="store_true", help="do not wait for Enter between rounds")
    p.add_argument("--json", action="store_true", help="one JSON document on stdout")


def run(args) -> int:
    import json

    from companion.cards.decks import deck_ref, get_deck
    from companion.progress import bar
    deck = get_deck(deck_ref(args.deck))
    sides = tuple(s.strip() for s in args.sides.split(",")) if args.sides else sides_of(deck)
    if not sides or any(s not in ("face", "title", "date") for s in sides) or len(set(sides)) != len(sides):
        raise BadInput("--sides", f"{args.sides!r}: 'face', or 'title,date' (or 'date,title')")
    say: Callable[[str], None] = (lambda m: print(m, file=sys.stderr)) if args.json else print
    numbers = _numbers(args.cards, deck)
    previous = load_faces(deck.id)     # the faces of the cards not enrolled now are kept
    if args.pages:
        if args.sides and len(sides) != 1:
            raise BadInput("--sides", "with --pages of scanned cards, one side at a time (scan each side as its own "
                                      "pages); the print-and-play PDF's pages say their sides themselves")
        from companion import registry
        from companion.print.cards import sheet_plan
        layout = registry.spec_for(deck.game).print_layout
        enrolment = Enrolment(deck)
        if previous is not None:
            enrolment.faces = [f for f in previous.faces if f.number in deck.cards]
        enrol_pages(enrolment, args.pages, first=args.first, side=sides[0] if len(sides) == 1 else None, say=say,
                    plan=sheet_plan("a4", layout) if layout else None)
        enrolled = enrolment.result()
        if not enrolled.faces:
            raise BadInput(deck.id, "no face was enrolled")
        check = LookAlikeCheck(enrolled)
        with bar(len(enrolled.faces), "checking for look-alike cards", "face") as progress:
            check.run(progress=progress.update)
        enrolled.look_alikes = check.pairs()
        path = save_faces(enrolled)
        left_out: list[int] = []
    else:
        source, hands, shape = _camera(args, deck)
        if args.per_round is not None and args.per_round < 1:
            raise BadInput("--per-round", f"{args.per_round}: lay 1 card a round or more")
        run = CameraEnrolment(deck, sides=sides, shape=shape, numbers=numbers, previous=previous,
                              give_up_after=3 if args.yes or hands is not None else None, per_round=args.per_round)
        try:
            drive(run, source, hands=hands, answer=None if args.yes else _answer, say=say)
        finally:
            source.close()
        if run.path is None or run.checker is None:
            raise BadInput(deck.id, "no face was enrolled")
        enrolment, enrolled, path, left_out = run.enrolment, run.checker.enrolled, run.path, run.left_out
    cards = len(enrolled.numbers() & set(numbers))
    missing = sorted(set(numbers) - enrolled.numbers())
    report = {"deck": deck.id, "file": str(path), "cards": cards, "faces": len(enrolled.faces),
              "missing": missing,
              "look_alikes": [[format_payload(deck.id, a), format_payload(deck.id, b)]
                              for a, b in enrolled.look_alikes],
              "seconds": round(enrolment.seconds, 1),
              "feature_ms_per_face": round(1000 * enrolment.feature_seconds / max(1, len(enrolled.faces)), 1),
              "left_out": left_out}
    if args.json:
        print(json.dumps(report))
        return 0
    print(f"{deck.id}: {cards} cards enrolled ({len(enrolled.faces)} faces) in {enrolment.seconds:.0f} s, "
          f"written to {path}")
    if missing:
        print(f"not enrolled: cards {number_ranges(missing)} (enrol them with --cards; the others are kept)")
    for a, b in enrolled.look_alikes:
        print(f"cards {a} and {b} look too alike to be told apart by their faces: put a sticker on both "
              f"({command()} stickers {deck.id} prints them; with one, the other stays unsure); until then neither "
              f"is named by its face")
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


def _answer() -> str:
    """The person's answer at the terminal: Enter (OK), or a word for another button."""
    from companion.inputs.commands import MENU, NEXT, OK, UNDO
    try:
        said = input("Enter: done · skip · back · stop > ").strip().lower()
    except EOFError:
        return MENU
    return {"skip": NEXT, "back": UNDO, "stop": MENU}.get(said, OK)


def _camera(args, deck):
    """(source, hands, (lines, cards a line)) for the camera the settings (or --camera) name; hands
    lay the cards on the virtual table (None: a person lays them)."""
    from companion.camera import open_source
    from companion.config import load_config
    from companion.vision.enrol import round_shape
    spec = args.camera or load_config().camera.source
    if spec.strip().lower() == "virtual":
        return _virtual_hands(deck)
    cam = load_config().camera
    source = open_source(spec, width=cam.width, height=cam.height, focus=cam.focus, mains_hz=cam.mains_hz)
    return source, None, round_shape()


def _virtual_hands(deck):
    """The virtual table, with the deck's drawn faces laid by the program itself (the demo); its frames
    are the Pi camera's (grey, with its colour planes)."""
    from companion.sim.face_art import deck_faces
    from companion.sim.scene import CARD_H, CARD_W
    from companion.sim.virtual_table import VirtualTable
    from companion.vision.layouts import RowLayout
    ppm, gap = 3.6, 8.0
    card = (CARD_W, CARD_H, gap, gap)
    pictures: dict[str, dict] = {}
    table = VirtualTable(1920, 1080, 0, px_per_module=ppm, card=card, wrap=True, camera_frames=True)
    # as many as lie apart in the view: whole lines of cards (scene.row_lines' arithmetic)
    avail_w, avail_h = 1920 / ppm * 0.9, 1080 / ppm * 0.88
    shape = (int((avail_h - CARD_H) // (CARD_H + gap)) + 1, int((avail_w - CARD_W) // (CARD_W + gap)) + 1)

    def lay(numbers: list[int], side: str) -> None:
        faces = pictures.setdefault(side, {})
        faces.update(deck_faces(deck, side, [n for n in numbers if format_payload(deck.id, n) not in faces]))
        table.set_faces(faces)
        table.set_layout(RowLayout([format_payload(deck.id, n) for n in numbers]))
    return table, lay, shape
