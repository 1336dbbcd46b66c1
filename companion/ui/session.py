"""The game being played: its engine, its state and its log in the store.

Every action is checked by the engine first (a refused action is never stored), then appended to
the store -- which returns only once the line is on disk -- and only then does the in-memory state
move on. So whatever the screen shows as done is already in the log, and after a power cut
:meth:`GameSession.resume` folds the stored log back into the same game and turn.
"""

from __future__ import annotations

from companion.games.base import refusal
from companion.store.replay import fold


class GameSession:
    def __init__(self, store, game_id, view, setup_line: dict, state, lines: list[dict]):
        self.store = store
        self.game_id = game_id
        self.view = view
        self.engine = view.engine()
        self.setup_line = setup_line
        self.state = state
        self.lines = lines                 # the confirmed action lines, oldest first
        self.last_events: list = []
        self.ended_early = False

    # -- starting and resuming -----------------------------------------------------------------
    @classmethod
    def start(cls, store, view, setup_line: dict) -> GameSession:
        engine = view.engine()
        state = engine.setup(setup_line)      # BadInput before anything is stored
        complete = getattr(engine, "complete_setup", None)
        if complete is not None:
            setup_line = complete(setup_line)
        game_id = store.new_game(setup_line)
        return cls(store, game_id, view, setup_line, state, [])

    @classmethod
    def resume(cls, store) -> GameSession | None:
        """The game that was in progress when the kiosk stopped, at the same turn, or None."""
        from companion.ui.games import view_for_setup

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
    def preview(self, line: dict):
        """What the engine says about ``line`` now, without storing anything: (state, events)."""
        return self.engine.apply(self.state, self.engine.parse_action(line))

    def confirm(self, line: dict) -> list:
        """Check, store, then move on. Returns the events (a refusal stores nothing). Raises the
        store's StoreError with the state unchanged when the line could not be saved."""
        new_state, events = self.preview(line)
        if refusal(events) is not None:
            return events
        self.store.append(self.game_id, line)
        self.state = new_state
        self.lines.append(line)
        self.last_events = events
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
        self.last_events = []
        return undone if isinstance(undone, dict) else None

    def end_early(self) -> None:
        self.store.abandon(self.game_id)
        self.ended_early = True

    # -- reading -------------------------------------------------------------------------------
    def summary(self) -> dict:
        return self.engine.summary(self.state)

    def status(self) -> str:
        return self.summary().get("status", "in_progress")

    def in_progress(self) -> bool:
        return not self.ended_early and self.status() == "in_progress"
