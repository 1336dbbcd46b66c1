"""The game being played: its engine, its state and its log in the store.

Every action is checked by the engine first (a refused action is never stored), then appended to
the store -- which returns only once the line is on disk -- and only then does the in-memory state
move on. So whatever the screen shows as done is already in the log, and after a power cut
:meth:`GameSession.resume` folds the stored log back into the same game and turn.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

from companion.cards.decks import cards_as_recorded, facts_in, resolve, with_facts
from companion.cards.model import Card
from companion.errors import is_store_error
from companion.games.base import Outcome, Summary, fold, read_action, refusal

Table = TypeVar("Table")


class GameSession(Generic[Table]):
    """``GameSession[T]``: a game whose engine's ``table(state)`` returns a ``T`` -- a view annotates the
    session it reads with its game's (``GameSession[cronologia.Table]``), so mypy checks what it reads
    from ``table()``. The kiosk holds a ``GameSession`` of any game (``T`` is then ``Any``)."""

    def __init__(self, store, game_id, view, setup_line: dict, state, lines: list[dict]):
        self.store = store
        self.game_id = game_id
        self.view = view
        self.engine = view.engine()
        self.setup_line = setup_line
        self.state = state
        self.lines = lines                 # the confirmed action lines, oldest first, as stored
        self.ended_early = False
        self.facts: dict[str, dict] = {}   # the card facts the stored lines recorded, by sticker code
        for line in [setup_line, *lines]:
            self.facts.update(facts_in(line))

    # -- starting and resuming -----------------------------------------------------------------
    @classmethod
    def start(cls, store, view, setup_line: dict) -> GameSession:
        engine = view.engine()
        state = engine.setup(setup_line)      # BadInput before anything is stored
        complete = getattr(engine, "complete_setup", None)
        if complete is not None:
            setup_line = complete(setup_line)
        setup_line = with_facts(setup_line, {})     # the log means the same after the deck file changes
        game_id = store.new_game(setup_line)
        return cls(store, game_id, view, setup_line, state, [])

    @classmethod
    def resume(cls, store, view_for_setup) -> GameSession | None:
        """The game that was in progress when the kiosk stopped, at the same turn, or None.
        ``view_for_setup(setup_line)`` finds the view that plays it (companion.ui.games's)."""
        found = store.in_progress()
        if found is None:
            return None
        game_id, setup_line, lines = found
        view = view_for_setup(setup_line)
        if view is None:
            return None
        state = fold(view.engine(), setup_line, lines)
        return cls(store, game_id, view, setup_line, state, list(lines))

    # -- playing -------------------------------------------------------------------------------
    # The views hand the session the engine's action values (``timeline.Place(...)``); the log line of
    # an action is made here and nowhere else.
    def line(self, action) -> dict:
        """The log line of ``action`` (the engine's ``action_to_json``), without the card facts the
        store adds to it: what the views read when they describe or judge it, as they read the log."""
        return self.engine.action_to_json(action)

    def card(self, code: str) -> Card:
        """The card a sticker code names in this game: the card this game recorded when it names one
        (the deck file may have changed since), else today's deck's. A view builds the actions that
        hold a card (Exhibition's ``Take(card=...)``) with it; a code no deck knows raises BadInput."""
        with cards_as_recorded(self.facts):
            return resolve(code)

    def preview(self, action):
        """What the engine says about ``action`` now, without storing anything: (state, events)."""
        return self._judge(self.line(action))

    def _judge(self, line: dict):
        # the line parsed back, as a replay reads it: the game played is the game the log replays (the
        # engine's own checks of a line included), and a card it recorded is the card it recorded
        return self.engine.apply(self.state, read_action(self.engine, line, self.facts))

    def confirm(self, action) -> list:
        """Check, store, then move on. Returns the events (a refusal stores nothing). Raises the
        store's StoreError with the state unchanged when the line could not be saved."""
        line = self.line(action)
        new_state, events = self._judge(line)
        if refusal(events) is not None:
            return events
        stored = with_facts(line, self.facts)
        self.store.append(self.game_id, stored)
        self.state = new_state
        self.lines.append(stored)
        self.facts.update(facts_in(stored))
        if not self.in_progress():
            self.store.finish(self.game_id, self.summary())
        return events

    def undo(self) -> dict | None:
        """Take back the last stored action (the store forgets it first); the state is refolded."""
        if not self.lines:
            return None
        undone = self.store.undo(self.game_id)
        self.lines = self.store.lines(self.game_id)     # the log's undo rule (store/log.py: in_force)
        self.state = fold(self.engine, self.setup_line, self.lines)
        return undone if isinstance(undone, dict) else None

    def end_early(self) -> None:
        self.store.abandon(self.game_id)
        self.ended_early = True

    # -- reading: the engine's read model (never its state) -------------------------------------
    def summary(self) -> Summary:
        return self.engine.summary(self.state)

    def outcome(self) -> Outcome:
        return self.engine.outcome(self.state)

    def current_player(self) -> str | None:
        return self.engine.current_player(self.state)

    def cards_on_table(self) -> tuple:
        return tuple(self.engine.cards_on_table(self.state))

    def table(self) -> Table:
        """The game's own read model, for a game whose views draw more than a row (its engine's
        ``table(state)``: frozen, its type the engine's): the boards, the market or the grid, the step
        of the turn, and the rule answers the views need."""
        return self.engine.table(self.state)

    def status(self) -> str:
        return self.outcome().status

    def in_progress(self) -> bool:
        return not self.ended_early and self.status() == "in_progress"


def stored_or_fault(stack, write: Callable[[], Any], again: Callable[[], None],
                    dropped: Callable[[], None] = lambda: None) -> tuple[bool, Any]:
    """Do one write to the store: (True, what ``write`` returned). When the store cannot write (the disk
    is full, gone or read-only) the store's fault screen opens instead, (False, None): its RETRY closes
    it and calls ``again``, its DROP closes it and calls ``dropped``. Any other exception is a bug and
    goes on up. Every write the kiosk makes (start, confirm, undo, end early) goes through here."""
    try:
        return True, write()
    except Exception as e:
        if not is_store_error(e):
            raise
        message = str(e)

    def retry() -> None:
        stack.pop()
        again()

    def drop() -> None:
        stack.pop()
        dropped()

    stack.push("fault:store", message, on_retry=retry, on_drop=drop)
    return False, None
