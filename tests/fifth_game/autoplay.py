"""Random but legal whole games of "Later" (the contract's ``RandomGame``, companion/games/contract.py):
each player lays a dated card, later than the last one most of the time."""

from __future__ import annotations

import random

from companion.games.base import refusal

from . import engine


def random_game(rng: random.Random, max_actions: int = 200) -> list[dict]:
    setup = {"type": "setup", "game": engine.GAME_ID, "players": ["Ana", "Bo", "Cy", "Di"][:rng.randint(2, 4)]}
    state = engine.setup(setup)
    lines: list[dict] = [setup]
    while engine.current_player(state) is not None and len(lines) <= max_actions:
        last = state.last if state.last is not None else 1000
        year = last + rng.randint(1, 40) if rng.random() < 0.8 else last - rng.randint(0, 40)
        line = {"type": "lay", "player": engine.current_player(state), "card": {"year": year}}
        state, events = engine.apply(state, engine.parse_action(line))
        assert refusal(events) is None, line
        lines.append(line)
    return lines
