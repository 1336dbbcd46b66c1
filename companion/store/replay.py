"""Folding a log through its engine: the setup line, then each action in order.

``companion replay``, the café's tile (companion/cafe/outbox.py) and the benches replay through here,
and the kiosk resumes through ``fold``: each reads a stored line one way (``games/base.py: read_setup``,
``read_action``: its card facts applied), so a log means the same thing everywhere. An ``{"type":
"undo"}`` line retracts the newest action still in force, as the kiosk's UNDO does in the store: the
rule is GameLog's (``companion.store.log.in_force``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from types import ModuleType

from companion.cards.decks import codes_named
from companion.errors import BadInput, parse_json
from companion.games.base import fold, read_action, read_setup, refusal
from companion.registry import engine_for
from companion.store.log import in_force


@dataclass
class Replayed:
    engine: ModuleType                                  # games/base.py says what it holds
    setup: dict
    state: object
    lines: list[dict] = field(default_factory=list)     # the actions in force
    events: list = field(default_factory=list)          # of the last action applied
    facts: dict = field(default_factory=dict)           # the card facts the log recorded, by sticker code
    from_decks: list[str] = field(default_factory=list)  # codes it names without their facts (read from today's decks)

    def note(self, line) -> None:
        """Remember the codes ``line`` names that the log holds no facts of (read after the line's own)."""
        self.from_decks += [c for c in codes_named(line) if c not in self.facts and c not in self.from_decks]


def start(setup_line, where: str = "line 1") -> Replayed:
    if not isinstance(setup_line, dict) or setup_line.get("type") != "setup":
        kind = setup_line.get("type") if isinstance(setup_line, dict) else type(setup_line).__name__
        raise BadInput(where, f"the first line must be the setup (\"type\": \"setup\"), not {kind!r}")
    engine = engine_for(setup_line.get("game"), f"{where}: game")       # it checks the type itself
    r = Replayed(engine, setup_line, None)
    try:
        r.state = read_setup(engine, setup_line, r.facts, where)
    except BadInput as e:
        raise e.within(where) from None
    r.note(setup_line)
    return r


def step(r: Replayed, line, where: str, lang: str = "en") -> Replayed:
    """Apply one line to ``r`` (in place, and returned); BadInput (naming ``where``) for a malformed or
    illegal one, leaving ``r`` as it was."""
    if isinstance(line, dict) and line.get("type") == "undo":
        if not r.lines:
            raise BadInput(where, "undo with nothing to undo (only the setup is left)")
        r.lines = in_force([*(("action", kept) for kept in r.lines), ("undo", None)])   # GameLog's undo rule
        r.state, r.events = fold(r.engine, r.setup, r.lines), []
        return r
    before = (dict(r.facts), list(r.from_decks))
    try:
        action = read_action(r.engine, line, r.facts, where)
        r.note(line)
    except BadInput as e:
        r.facts, r.from_decks = before
        raise e.within(where) from None
    state, events = r.engine.apply(r.state, action)
    reason = refusal(events)
    if reason is not None:
        r.facts, r.from_decks = before
        raise BadInput(where, reason.render(lang))
    r.state, r.events = state, events
    r.lines.append(line)
    return r


def log_lines(text: str, path: str) -> list[tuple[int, object]]:
    """(line number, parsed JSON) for each non-blank line of a log file's text; BadInput names the file
    and line."""
    out = []
    for n, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            out.append((n, parse_json(raw, f"{path}: line {n}")))
        except json.JSONDecodeError as e:
            raise BadInput(f"{path}: line {n}", f"malformed JSON at column {e.colno}: {e.msg}") from None
    if not out:
        raise BadInput(path, "the log is empty; its first line must be the setup")
    return out


def replay_lines(lines: list[tuple[int, object]], path: str, lang: str = "en") -> Replayed:
    """A log file's lines (``log_lines``) replayed: the setup, then each action; BadInput names the file
    and the line that is malformed or breaks the rules."""
    n, first = lines[0]
    r = start(first, f"{path}: line {n}")
    for n, line in lines[1:]:
        r = step(r, line, f"{path}: line {n}", lang)
    return r
