"""What a game's view answers (the contract every ``companion.ui.games`` view keeps). The turn
controller asks the turn half; the kiosk's screens ask the drawing half. ``GameView`` in
``companion/ui/games`` gives the defaults of the optional parts (``ask``, ``actions``, ``quiet``,
``judges_refusals``, ``matches``). A game's view takes the session typed with its read model
(``GameSession[Table]``, docs/architecture.md)."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from companion.i18n import Text
from companion.play.proposals import CardMove
from companion.play.session import GameSession


@runtime_checkable
class TurnView(Protocol):
    """What the turn controller asks of a game's view."""

    key: str                      # the picker's key ("cronologia-cooperative")
    engine_id: str                # the setup line's "game"
    judges_refusals: bool         # an engine's refusal of a camera reading is shown as a Wrong verdict

    def engine(self) -> Any: ...
    def matches(self, setup_line: dict) -> bool: ...
    # setting up: what the camera must see, and the setup (or new deal) line from it
    def empty_layout(self) -> Any: ...
    def read_setup(self, detections: list, new_game: dict | None,
                   session: GameSession | None) -> tuple[Any, Text | None]: ...
    def setup_line(self, players: list[str], options: dict, codes) -> dict: ...
    def deal_action(self, codes, session: GameSession) -> Any: ...                  # a new table dealt in play
    # playing: what the table should look like, a camera proposal as the engine's action, the questions
    def expected_layout(self, session: GameSession) -> Any: ...
    def action_for(self, proposal: CardMove, session: GameSession) -> Any: ...      # an action, or None
    def ask(self, session: GameSession) -> Any: ...                 # a question the game waits for, or None
    def actions(self, session: GameSession) -> Any: ...             # a menu the players may open, or None
    # after a confirmed action, read as its log line: what to remember, what comes next, how it went
    def context(self, session: GameSession) -> Any: ...
    def quiet(self, line: dict, events: list, session: GameSession) -> bool: ...
    def next_step(self, line: dict, events: list, session: GameSession) -> str: ...   # watch | effect | deal | reset
    def is_correct(self, events: list) -> bool | None: ...
    def verdict(self, line: dict, events: list, before, session: GameSession, lang: str) -> Any: ...
    def follow_ups(self, session: GameSession) -> list: ...         # the effects allowed now: [(label, action)]
    def effect_player(self, session: GameSession) -> str | None: ...


@runtime_checkable
class SheetView(Protocol):
    """What the kiosk's screens draw from a game's view."""

    title: str
    min_players: int
    max_players: int
    table_kind: str               # what the camera reads: row | grid | board
    start_cards: int              # a row game's cards laid before the first turn (the demo lays that many)
    camera_share: float
    band_height: int

    def options(self) -> list: ...
    def turn(self, session: GameSession) -> Any: ...
    def codes_on_table(self, session: GameSession) -> list[str]: ...
    def draw_board(self, c, rect, session: GameSession, highlight) -> None: ...
    def setup_prompt(self, new_game: dict | None, session: GameSession | None) -> Text: ...
    def watch_prompt(self, session: GameSession) -> Text: ...
    def describe(self, line: dict, session: GameSession, lang: str) -> Any: ...
    def effect_prompt(self, session: GameSession) -> Text: ...
    def reset_prompt(self, session: GameSession) -> Text: ...
    def history_text(self, line: dict, session: GameSession, lang: str) -> Any: ...
    def score_sheet(self, session: GameSession, *page) -> Any: ...


# Every name the two halves ask for, in their order: the picker offers only a view that has them all
CONTRACT: tuple[str, ...] = tuple(dict.fromkeys(
    name for half in (TurnView, SheetView) for name in [*half.__annotations__, *vars(half)]
    if not name.startswith("_")))
