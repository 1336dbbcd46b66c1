"""The kiosk's enrolment screen (companion/ui/screens/enrol.py), headless: a small box enrolled end to
end from the MENU under the demo's virtual camera, the demo's hands laying the cards the screen asks
for; every frame read whole in both languages at both sizes (companion/ui/textcheck.py)."""

from __future__ import annotations

import json

import pytest

from companion.inputs.commands import MENU, OK, UNDO, Command

SMALL_BOX = 8


@pytest.fixture
def small_box(tmp_path, monkeypatch):
    """A user deck of the first 8 DEMO cards (Cronología: title and date sides) in a data dir of its own."""
    from companion.cards.decks import reload_decks
    from companion.paths import assets_dir
    monkeypatch.setenv("COMPANION_DATA", str(tmp_path))
    demo = json.loads((assets_dir() / "decks" / "demo.json").read_text(encoding="utf-8"))
    deck = {"id": "MINI", "name": "Mini box", "game": demo["game"], "cards": demo["cards"][:SMALL_BOX]}
    (tmp_path / "decks").mkdir()
    (tmp_path / "decks" / "MINI.json").write_text(json.dumps(deck), encoding="utf-8")
    reload_decks()
    yield tmp_path
    reload_decks()


def enrol_through_the_screen(k, deck_id: str, look=None, frames: int = 600) -> list[str]:
    """MENU > Enrol a deck > the deck, then the demo's hands lay and OK every round; ``look`` after
    every frame. The screen keys shown, in order."""
    from test_ui_kiosk import frame, press

    def step(kind=None, **kw):
        if kind is None:
            frame(k)
        else:
            press(k, kind, **kw)
        if look is not None:
            look()

    step()
    step(MENU)
    values = [v for _, v in k.stack.top.choice.items]
    step(OK, index=values.index("enrol"))
    assert k.stack.top.name == "enrol:decks"
    decks = [d.id for d in k.stack.top.decks]
    step(OK, index=decks.index(deck_id))
    assert k.stack.top.name == "enrol"
    for _ in range(frames):
        step()
        if k.stack.top.name == "enrol" and k.stack.top.phase == "done":
            return k.shown
    raise AssertionError(f"enrolment never ended: {k.screen_key()}: {k.texts()[:8]}")


@pytest.mark.slow(12)
@pytest.mark.usefixtures("small_box")
def test_a_small_box_is_enrolled_through_the_kiosk_screen(monkeypatch):
    from test_ui_kiosk import make

    from companion.sim import face_art
    from companion.ui.textcheck import FrameCheck
    from companion.vision.faces_file import load_faces
    drawn = face_art.deck_face
    # cards 1 and 2 printed alike (a reprint with another title): the screen must name them at the end
    monkeypatch.setattr(face_art, "deck_face", lambda deck, n, side="face": drawn(deck, 1 if n == 2 else n, side))
    k = make(autoplay=False)
    k.demo.autoplay, k.demo.think = True, 0
    k.demo.enrol_mistakes = 1               # the first round is laid a card short: it is asked again
    check = FrameCheck(k)
    notes, prompts = [], []

    def look():
        check.look()
        texts = {d.role: d.text for d in k.last.drawn}
        notes.append(texts.get("refused"))
        prompts.append(texts.get("prompt"))

    shown = enrol_through_the_screen(k, "MINI", look)
    assert check.total() == 0, "\n".join(check.lines())
    run = k.stack.top.run
    assert {"enrol-clear", "enrol-lay", "enrol-look", "enrol-done"} <= set(shown)
    assert "7 cards are on the table, 8 were asked for. Lay them again, then press OK." in notes, set(notes)
    assert "Lay cards 1 to 8 with the title side up, in lines of 6, left to right, the top line first, a finger " \
        "apart. Then press OK." in prompts, set(prompts)
    assert "Turn each card over where it lies, so that the date side shows. Then press OK." in prompts
    assert run.enrolled() == SMALL_BOX and run.missing() == [] and run.look_alikes == [(1, 2)]
    text = " ".join(k.texts())
    assert "8 of 8 cards enrolled and saved." in text
    assert "Too alike to tell apart: cards 1\u00a0&\u00a02. Put a sticker on both cards of each pair." in text
    # the demo's enrolment is written beside its own game log, never over the owner's faces
    assert run.path is not None and run.path.parent == k.store.path.parent
    assert load_faces("MINI") is None
    saved = load_faces("MINI", run.path)
    assert saved is not None and sorted({(f.number, f.side) for f in saved.faces}) == \
        [(n, s) for n in range(1, SMALL_BOX + 1) for s in ("date", "title")]
    press_ok = Command(OK)
    k.stream.post(press_ok)
    k.step()
    assert k.stack.top.name == "enrol:decks"
    k.step()
    assert "MINI: Mini box, 0 of 8 cards enrolled" in k.texts()   # (the owner's file: untouched)


@pytest.mark.slow(4)
@pytest.mark.usefixtures("small_box")
def test_undo_takes_the_step_before_again_and_menu_stops_with_what_is_taken():
    """The same button commands drive the enrolment from a test as the screen's buttons do."""
    import numpy as np

    from companion.cards.decks import get_deck
    from companion.sim.face_art import deck_faces
    from companion.sim.virtual_table import VirtualTable
    from companion.vision.enrol import CameraEnrolment
    from companion.vision.faces_file import load_faces
    from companion.vision.layouts import RowLayout
    deck = get_deck("MINI")
    table = VirtualTable(1280, 720, 0, faces={})
    run = CameraEnrolment(deck, sides=("title", "date"), shape=(1, 4))

    def lay(side, plain=()):
        numbers = run.group if run.phase == "lay" else []
        faces = deck_faces(deck, side, numbers)
        faces.update({f"TC:MINI:{n}": np.full((504, 360, 3), 235, np.uint8) for n in plain})
        table.set_faces(faces)
        table.set_layout(RowLayout([f"TC:MINI:{n}" for n in numbers]))
        run.command(OK)
        while run.phase == "look":
            run.feed(table.read())

    lay("title")                                      # the bare table
    assert (run.phase, run.group, run.side) == ("lay", [1, 2, 3, 4], "title")
    lay("title")
    assert (run.phase, run.side, run.enrolled()) == ("lay", "date", 0) and len(run.taken) == 4
    run.command(UNDO)                                 # the title sides again
    assert (run.side, run.enrolled(), run.enrolment.faces) == ("title", 0, [])
    lay("title")
    lay("date")
    assert (run.group, run.side, run.enrolled()) == ([5, 6, 7, 8], "title", 4)
    # a plain face cannot be known again: that card is asked again first, in a round of its own here
    lay("title", plain=(6,))
    lay("date")
    assert (run.group, run.side, run.enrolled()) == ([6], "title", 7)
    assert run.note is not None and "Card 6 could not be taken" in run.note.render("en")
    assert run.prompt().render("es") == "Pon la carta 6 con el lado del título hacia arriba. Después pulsa OK."
    run.command(MENU)                                 # stop here: what is taken is kept
    assert run.phase == "check"
    while run.phase == "check":
        run.work()
    assert run.phase == "done" and run.missing() == [6]
    saved = load_faces("MINI")
    assert saved is not None and saved.numbers() == set(range(1, 9))
    assert ("title" not in {f.side for f in saved.faces if f.number == 6})
