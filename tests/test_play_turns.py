"""The turn controller without a screen: readings and buttons in, proposals, verdicts and stored
actions out. Its module imports no pygame."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass, field, make_dataclass

from companion.cards import decks
from companion.i18n import N_, Text
from companion.inputs.commands import NEXT, OK, UNDO, Command
from companion.play.proposals import CardPlaced, ForeignCode, TableDiffers, TableMatches
from companion.play.turns import TurnController
from companion.store.log import GameLog
from companion.ui.games import view_for


class FakeStack:
    """The navigator as the controller sees it: screens opened by name."""

    def __init__(self):
        self.opened: list[tuple] = []
        self.top = None

    def push(self, name, *args, **kwargs):
        self.opened.append(("push", name, args))
        self.top = name
        return name

    def replace(self, name, *args, **kwargs):
        self.opened.append(("replace", name, args))
        self.top = name
        return name

    def pop(self):
        self.opened.append(("pop",))
        self.top = None


@dataclass
class FakeSignals:
    seen: list = field(default_factory=list)

    def verdict(self, correct):
        self.seen.append(("verdict", correct))

    def fault(self, on):
        self.seen.append(("fault", on))


@dataclass
class Host:
    store: GameLog
    session: object = None
    table: object = None
    stack: FakeStack = field(default_factory=FakeStack)
    signals: FakeSignals = field(default_factory=FakeSignals)


@dataclass
class Reading:
    detections: list = field(default_factory=list)
    proposals: list = field(default_factory=list)
    lost: str = ""
    frame: object = None
    scale: float = 1.0


@dataclass
class Seen:
    payload: str
    card: object
    center: tuple = (100.0, 100.0)


def _deck():
    deck = next(d for d in decks.all_decks() if d.plays("timeline"))
    cards = sorted(deck.cards.values(), key=lambda c: c.year)
    return cards


def test_the_controller_imports_no_pygame():
    code = "import sys, companion.play.turns; print('pygame' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_proposal_types_need_nothing_of_the_camera():
    code = ("import sys, companion.play.proposals, companion.play.turns\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('cv2', 'pygame', 'zxingcpp')"
            " or m.startswith('companion.vision')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_proposals_are_told_apart_by_type_not_by_name(tmp_path):
    """A look-alike of another class with the same name and fields is no foreign code: the controller
    dispatches on the types of companion.play.proposals."""
    cards = _deck()
    host = Host(GameLog(tmp_path / "games.sqlite"))
    turns = TurnController(host, {"view": view_for("timeline"), "players": ["Ana", "Bo"], "options": {}})
    turns.reading_in(Reading(detections=[Seen(cards[0].code, cards[0])]), "en")
    turns.command(Command(OK))

    look_alike = make_dataclass("ForeignCode", ["text"], frozen=True)
    turns.reading_in(Reading(proposals=[look_alike("hello")]), "en")
    assert not [o for o in host.stack.opened if o[0] == "push"] and turns.phase == "watch"
    turns.reading_in(Reading(proposals=[TableDiffers(Text(N_("the row is not the one the game has.")))]), "en")
    assert turns.table_note is not None and "the row is not" in turns.table_note.render("en")
    turns.reading_in(Reading(proposals=[TableMatches()]), "en")
    assert turns.table_note is None


def test_a_timeline_turn_from_deal_to_verdict(tmp_path):
    cards = _deck()
    start, later = cards[len(cards) // 2], cards[-1]
    host = Host(GameLog(tmp_path / "games.sqlite"))
    view = view_for("timeline")
    turns = TurnController(host, {"view": view, "players": ["Ana", "Bo"], "options": {}})
    assert turns.phase == "deal" and turns.hints()[UNDO] == "back" and OK not in turns.hints()
    turns.reading_in(Reading(detections=[Seen(start.code, start)]), "en")
    assert turns.setup_codes == [start.code]
    turns.command(Command(OK))
    assert host.session is not None and turns.phase == "watch"
    assert host.store.in_progress()[1]["start"] == start.code

    # a foreign code is reported once, by name of the fault screen
    turns.reading_in(Reading(proposals=[ForeignCode("hello")]), "en")
    turns.reading_in(Reading(proposals=[ForeignCode("hello")]), "en")
    assert [o for o in host.stack.opened if o[0] == "push"] == [("push", "fault:foreign-code", ("hello",))]

    # the camera proposes Ana's card right of the start card; UNDO calls it a misread: the same reading
    # is not proposed again by itself, but NEXT ("read again") proposes what the camera sees now
    placed = CardPlaced(later.code, 1)
    turns.reading_in(Reading(proposals=[placed]), "en")
    assert turns.phase == "propose" and turns.pending.player == "Ana"
    first = turns.pending
    turns.command(Command(UNDO))
    assert turns.phase == "watch" and "press NEXT" in turns.table_note.render("en")
    turns.reading_in(Reading(proposals=[placed]), "en")
    assert turns.phase == "watch"
    assert turns.hints()[NEXT] == "read again"
    turns.command(Command(NEXT))
    turns.reading_in(Reading(proposals=[placed]), "en")
    assert turns.phase == "propose" and turns.pending == first
    # called a misread twice in a row: the screen says what to do with the card
    turns.command(Command(UNDO))
    note = turns.table_note.render("en")
    assert turns.phase == "watch" and "lift the card and lay it again" in note
    assert "levanta la carta y vuelve a dejarla" in turns.table_note.render("es")
    turns.command(Command(NEXT))
    turns.reading_in(Reading(proposals=[placed]), "en")
    assert turns.phase == "propose" and turns.pending == first
    turns.command(Command(OK))
    assert turns.phase == "verdict" and host.signals.seen == [("verdict", True)]
    assert len(host.session.lines) == 1 and host.store.in_progress()[2] == host.session.lines
    assert turns.verdict("en").correct
    turns.command(Command(NEXT))
    assert turns.phase == "watch" and view.current(host.session) == "Bo"


def test_read_again_in_a_question_the_camera_answers_too(tmp_path):
    """Exhibition's "which card does Ana take?" is answered by the buttons or by laying the card on the
    mat. A take read from the mat and called a misread (UNDO) opens the question again, where NEXT moves
    the focus: "Read the table again" is then its last choice, and proposes what the camera sees now."""
    from board_kiosk import detection

    from companion.play.proposals import CardPlacedOnSpot

    market = [[4, 51, 46], [20, 33, 70], [12, 25, 38], [60, 85, 90], [15, 28, 42], [55, 66, 80]]
    host = Host(GameLog(tmp_path / "games.sqlite"))
    turns = TurnController(host, {"view": view_for("exhibition"), "players": ["Ana", "Bo"], "options": {}})
    turns.reading_in(Reading(detections=[detection(f"TC:EXH20:{n:03d}", 80 + col * 140, 60 + row * 70)
                                         for col, column in enumerate(market) for row, n in enumerate(column)]), "en")
    turns.command(Command(OK))
    assert turns.phase == "ask" and turns.asks[0][0].camera
    asked = len(turns.asks[0][1].items)
    laid = CardPlacedOnSpot("TC:EXH20:004", "one_era[0]")
    turns.reading_in(Reading(proposals=[laid]), "en")
    assert turns.phase == "propose"
    first = turns.pending
    turns.command(Command(UNDO))
    items = turns.asks[0][1].items
    assert turns.phase == "ask" and len(items) == asked + 1 and items[-1][0].render("en") == "Read the table again"
    assert "then choose “Read the table again”" in turns.table_note.render("en")
    turns.reading_in(Reading(proposals=[laid]), "en")
    assert turns.phase == "ask"                         # the same reading is not proposed again by itself
    turns.command(Command(NEXT))
    assert turns.phase == "ask"                         # NEXT moves in the menu
    turns.command(Command(OK, index=len(items) - 1))    # "Read the table again"
    turns.reading_in(Reading(proposals=[laid]), "en")
    assert turns.phase == "propose" and turns.pending == first and host.session.lines == []
    turns.command(Command(UNDO))                        # a misread twice: what to do with the card
    assert "lift the card and lay it again" in turns.table_note.render("en")
    assert turns.asks[0][1].items[-1][0].render("es") == "Volver a leer la mesa"
    turns.command(Command(OK, index=len(items) - 1))
    turns.reading_in(Reading(proposals=[laid]), "en")
    turns.command(Command(OK))
    assert [line["type"] for line in host.session.lines] == ["take"]


def test_a_lost_camera_opens_the_fault_and_closes_it_when_back(tmp_path):
    cards = _deck()
    host = Host(GameLog(tmp_path / "games.sqlite"))
    turns = TurnController(host, {"view": view_for("timeline"), "players": ["Ana", "Bo"], "options": {}})
    turns.reading_in(Reading(lost="no frames for 5 s"), "en")
    turns.reading_in(Reading(lost="no frames for 5 s"), "en")
    assert host.stack.opened == [("push", "fault:camera", ("no frames for 5 s",))]
    assert host.signals.seen == [("fault", True)]
    turns.reading_in(Reading(detections=[Seen(cards[0].code, cards[0])]), "en")
    assert host.stack.opened[-1] == ("pop",) and host.signals.seen[-1] == ("fault", False)
    assert turns.setup_codes == [cards[0].code]


def test_every_registered_view_keeps_the_declared_contract():
    from companion.play.view import SheetView, TurnView
    from companion.ui.games import VIEWS, available_views

    available_views()
    assert len(VIEWS) >= 5
    for view in VIEWS.values():
        assert isinstance(view, TurnView) and isinstance(view, SheetView), view.key
