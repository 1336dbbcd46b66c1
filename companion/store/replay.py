"""Folding a log through its engine: the setup line, then each action in order.

The kiosk (resuming after a restart), ``companion replay`` and the tests all replay through here, so
a log means the same thing everywhere. An ``{"type": "undo"}`` line retracts the newest action still
in force, as the kiosk's UNDO does in the store: the rule is GameLog's (``companion.store.log.in_force``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import ModuleType

from companion.errors import BadInput
from companion.games.base import refusal
from companion.games.registry import engine_for
from companion.store.log import in_force


@dataclass
class Replayed:
    engine: ModuleType                                  # games/base.py says what it holds
    setup: dict
    state: object
    lines: list[dict] = field(default_factory=list)     # the actions in force
    events: list = field(default_factory=list)          # of the last action applied


def start(setup_line, where: str = "line 1") -> Replayed:
    if not isinstance(setup_line, dict) or setup_line.get("type") != "setup":
        kind = setup_line.get("type") if isinstance(setup_line, dict) else type(setup_line).__name__
        raise BadInput(where, f"the first line must be the setup (\"type\": \"setup\"), not {kind!r}")
    # engine_for checks the type itself; its annotation says str until registry.py's rewrite (issue 17) lands
    engine = engine_for(setup_line.get("game"), f"{where}: game")  # type: ignore[arg-type, unused-ignore]
    try:
        state = engine.setup(setup_line)
    except BadInput as e:
        raise e.within(where) from None
    return Replayed(engine, setup_line, state)


def step(r: Replayed, line, where: str, lang: str = "en") -> Replayed:
    """Apply one line to ``r`` (in place, and returned); BadInput (naming ``where``) for a malformed or
    illegal one, leaving ``r`` as it was."""
    if isinstance(line, dict) and line.get("type") == "undo":
        if not r.lines:
            raise BadInput(where, "undo with nothing to undo (only the setup is left)")
        r.lines = in_force([*(("action", kept) for kept in r.lines), ("undo", None)])   # GameLog's undo rule
        r.state, r.events = fold(r.engine, r.setup, r.lines), []
        return r
    try:
        action = r.engine.parse_action(line)
    except BadInput as e:
        raise e.within(where) from None
    state, events = r.engine.apply(r.state, action)
    reason = refusal(events)
    if reason is not None:
        raise BadInput(where, reason.render(lang))
    r.state, r.events = state, events
    r.lines.append(line)
    return r


def fold(engine, setup_line: dict, lines: list[dict]):
    """The state after ``lines`` (already known to be legal: the store holds only confirmed ones)."""
    state = engine.setup(setup_line)
    for line in lines:
        state, _events = engine.apply(state, engine.parse_action(line))
    return state
