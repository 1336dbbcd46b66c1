"""Each game brings its own views: how its table is laid out and read (a row, a grid, a board), how
its turn bar, verdicts and score sheet read, and which options its setup takes. The kiosk's screens
are the same for every game; they ask the game's view.

A view registers itself with :func:`register` when its module (named in its game's
:class:`~companion.registry.GameSpec`) is imported; the picker offers the views whose engine can
be imported.
"""

from __future__ import annotations

import importlib
import logging
from dataclasses import dataclass, field

from companion import registry
from companion.games.base import ScoreEntry, Summary, refusal
from companion.games.explained import ScoreRow
from companion.i18n import N_, Literal, Msg, Text
from companion.play.choice import Ask, Choices  # noqa: F401  (the views' menus)
from companion.play.session import GameSession
from companion.play.view import CONTRACT

log = logging.getLogger(__name__)

VIEWS: dict[str, GameView] = {}


@dataclass
class Option:
    """One setup choice: ``choices`` are (value, label) pairs; the first is the default."""

    key: str
    label: Msg
    choices: list
    default_index: int = 0

    @property
    def default(self):
        return self.choices[self.default_index][0]

    def label_of(self, value):
        for v, label in self.choices:
            if v == value:
                return label
        return str(value)


@dataclass
class TurnInfo:
    player: str | None
    round: int | None
    hands: dict = field(default_factory=dict)
    sudden_death: bool = False
    eliminated: tuple = ()
    extra: list = field(default_factory=list)     # more Texts for the bar (lives, score)
    hands_label: str = N_("Cards in hand: {hands}")   # what the figure beside each name counts
    players_own: bool = False     # ``extra`` belongs to ``player`` (their actions left), not to the game


@dataclass
class Verdict:
    correct: bool | None          # None: neither (a refusal or a plain record)
    headline: Msg
    reason: Msg | None = None
    then: Msg | None = None       # what the players do now


class GameView:
    key = ""                      # picker key, e.g. "cronologia-cooperative"
    engine_id = ""                # the setup line's "game"
    title = ""
    blurb = ""
    min_players, max_players = 2, 8
    table_kind = "row"            # what the tracker reads: row | grid | board
    start_cards = 1               # a row game's cards laid before the first turn (the demo's players lay that many)
    picker_rank = 0               # the picker lists games by rank, then in the order they registered
    camera_share = 0.38           # the table view's width given to the camera picture
    band_height = 124             # the table view's prompt band, in reference pixels

    def options(self) -> list[Option]:
        return []

    judges_refusals = False       # show the engine's refusal of a camera reading as a Wrong verdict

    def engine(self):
        return registry.spec_for(self.engine_id).load_engine()

    def current(self, session: GameSession) -> str | None:
        """Whose turn it is: the engine's word (None once the game is over)."""
        return session.current_player()

    def empty_layout(self):
        """What the camera must see before the first action: a table of this view's kind, bare."""
        from companion.vision.layouts import GridLayout, RowLayout
        return GridLayout([]) if self.table_kind == "grid" else RowLayout([])

    # The optional parts of the contract (companion/play/view.py), for a game that has no use for them.
    def matches(self, setup_line) -> bool:
        return setup_line.get("game") == self.engine_id

    def ask(self, session: GameSession):
        return None

    def actions(self, session: GameSession):
        return None

    def quiet(self, line, events, session: GameSession) -> bool:
        return False

    def follow_ups(self, session: GameSession) -> list:
        return []

    def effect_player(self, session: GameSession):
        return None

    def deal_action(self, codes, session: GameSession):
        raise NotImplementedError(f"{self.key} deals no new table during a game")

    def effect_prompt(self, session: GameSession):
        raise NotImplementedError(f"{self.key} has no effects to choose")

    def reset_prompt(self, session: GameSession):
        raise NotImplementedError(f"{self.key} has no reset step")


class BoardView(GameView):
    """A game read from a player board (Exhibition, Ancient Knowledge): ``spots`` says which code lies
    on which spot of the board file ``board`` (assets/boards/)."""

    table_kind = "board"
    board = ""
    kept_events: tuple = ()       # the engine's events that mean a card was judged and stays
    quiet_lines: tuple = ()       # routine lines (a take, an answer) that skip the verdict screen...
    news_events: tuple = ()       # ...unless one of these happened with them

    def spots(self, session: GameSession) -> dict:
        raise NotImplementedError

    def context(self, session: GameSession):
        return session.table()      # the engine's read model before the line: the verdict's ``before``

    def is_correct(self, events):
        if refusal(events) is not None:
            return False
        if any(e.kind in self.kept_events for e in events):
            return True
        return None

    def quiet(self, line, events, session: GameSession) -> bool:
        return line.get("type") in self.quiet_lines and not any(e.kind in self.news_events for e in events)

    def next_step(self, line, events, session: GameSession) -> str:
        return "watch"

    def codes_on_table(self, session: GameSession) -> list[str]:
        return list(self.spots(session).values())

    def expected_layout(self, session: GameSession):
        from companion.vision.layouts import BoardLayout
        return BoardLayout(self.board, self.spots(session))

    def empty_layout(self):
        from companion.vision.layouts import BoardLayout
        return BoardLayout(self.board, {})

    # -- the score sheet: page 0 the standings, then the pages ``_pages`` lists: (a player's entry of
    # the summary's ``scores``, its rows, which part of the player's pages it is, of how many)
    def _pages(self, session: GameSession) -> list:
        raise NotImplementedError

    def winner_headline(self, summary: Summary, winners: list[str]) -> Msg:
        """The standings' headline when one player won (or plays alone)."""
        raise NotImplementedError

    def standing(self, entry: ScoreEntry, session: GameSession) -> Msg:
        """A player's figures in one line, beside the total on the standings page."""
        raise NotImplementedError

    def page_headline(self, entry: ScoreEntry, part: int, parts: int, summary: Summary) -> Msg:
        raise NotImplementedError

    def score_pages(self, session: GameSession) -> int:
        return len(self._pages(session))

    def score_sheet(self, session: GameSession, page: int = 0):
        s = session.summary()
        scores = s.get("scores") or []
        if not scores:
            return Text(N_("The game ended before the final score")), False, []
        pages = self._pages(session)
        shown = pages[page % len(pages)]
        if shown is not None:
            entry, rows, part, parts = shown
            return self.page_headline(entry, part, parts, s), entry["place"] == 1, rows
        winners = s.get("winners", [])
        if len(winners) > 1:
            headline: Msg = Text(N_("Shared first place: {names}"), {"names": ", ".join(winners)})
        else:
            headline = self.winner_headline(s, winners)
        return headline, True, [ScoreRow(Literal(f"{p['place']}. {p['name']}"), str(p["total"]),
                                         self.standing(p, session), p["name"] in winners) for p in scores]


def known_cards(detections) -> tuple[list, Text | None]:
    """The read codes whose card is known, or ([], why) when a code on the table is no known card
    (a setup is read only from cards the companion knows)."""
    unknown = [d for d in detections if getattr(d, "card", None) is None]
    if unknown:
        return [], Text(N_("A code on the table is not a known card: {code}"),
                          {"code": getattr(unknown[0], "payload", "?")})
    return list(detections), None


def register(view: GameView) -> GameView:
    VIEWS[view.key] = view
    return view


def _load() -> None:
    """Import the view modules of every registered game (each registers its views)."""
    for spec in registry.GAMES.values():
        for module in spec.views:
            importlib.import_module(module)


def missing_parts(view) -> list[str]:
    """What ``view`` lacks of the contract the turn controller and the screens ask of it
    (companion/play/view.py: TurnView, SheetView; docs/adding-a-game.md lists it)."""
    return [name for name in CONTRACT if not hasattr(view, name)]


def available_views() -> list[GameView]:
    """The games that can be played here: a view registered that keeps the whole contract (one that
    does not is left out of the picker, with a log line naming what it lacks: offered, it would stop
    the kiosk at the first question it cannot answer), and its engine importable."""
    _load()
    out = []
    for view in VIEWS.values():
        lacks = missing_parts(view)
        if lacks:
            log.warning("the %s view is not offered: it lacks %s (docs/adding-a-game.md)", view.key, ", ".join(lacks))
            continue
        try:
            view.engine()
        except ImportError:
            continue
        out.append(view)
    return sorted(out, key=lambda v: v.picker_rank)


def view_for(key: str) -> GameView:
    _load()
    return VIEWS[key]


def view_for_setup(setup_line: dict) -> GameView | None:
    """The view that plays a stored game (its setup line), e.g. after a restart."""
    _load()
    for view in VIEWS.values():
        if view.matches(setup_line):
            return view
    return None
