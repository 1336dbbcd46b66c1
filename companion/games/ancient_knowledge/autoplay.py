"""Whole Ancient Knowledge games played by a seeded robot that knows only the turn's five actions and
how to answer a question (the contract's ``RandomGame``: companion/games/contract.py): the material of
``companion cafe simulate``, ``bench engine`` and the tests. Every line it writes went through the
engine and was accepted.

Each turn it answers the pending question at random (a number of tokens in its range, a technology
dealt from those left, one of the choices), else tries a random action: mostly Create (a monument in
a zone the engine allows, or an artifact), sometimes Learn, Excavate, Archive or Search; an action
the engine refuses is dropped and another tried, Search (always legal) last.
"""

from __future__ import annotations

import random

from companion.games.ancient_knowledge import engine
from companion.games.ancient_knowledge.catalog import catalog
from companion.games.base import refusal

NAMES = ("Ana", "Bo", "Cy", "Di")


def random_game(rng: random.Random, max_actions: int = 200) -> list[dict]:
    cat = catalog()
    level = {n: sorted(t for t in cat.techs if cat.techs[t].level == n) for n in (1, 2)}
    ones, twos = rng.sample(level[1], 6), rng.sample(level[2], 3)
    setup = {"type": "setup", "game": engine.GAME_ID, "players": list(NAMES[:rng.randint(2, 4)]),
             "tiles": [ones[:3], ones[3:], twos]}
    builders = sorted(cat.builders)
    state = engine.setup(setup)
    lines: list[dict] = [setup]
    while not state.finished and len(lines) <= max_actions:
        for line in _tries(state, rng, builders):
            new, events = engine.apply(state, engine.parse_action(line))
            if refusal(events) is None:
                state = new
                lines.append(line)
                break
        else:
            break               # nothing it knows is legal here: the game stops where it is
    return lines


def _tries(s, rng: random.Random, builders: list[str]) -> list[dict]:
    """Lines to try in turn, the likeliest to be accepted first."""
    pr = s.pending_prompt
    if pr is not None:
        return [_answer(s, pr, rng) for _ in range(4)]
    me = s.board.name
    tries: list[dict] = []
    for _ in range(6):
        card = rng.choice(builders)
        if cat_is_monument(card):
            tries.append({"type": "create", "player": me, "card": card, "zone": rng.randint(1, 6)})
        else:
            tries.append({"type": "create", "player": me, "card": card})
    techs = [t for tile in s.tiles for t in tile]
    past = list(s.board.past_ids())
    carrying = list(s.board.timeline_ids())
    if techs:
        tries.insert(rng.randrange(len(tries) + 1), {"type": "learn", "player": me, "card": rng.choice(techs)})
    if past:
        tries.insert(rng.randrange(len(tries) + 1), {"type": "excavate", "player": me, "cards": [rng.choice(past)]})
    if carrying:
        tries.insert(rng.randrange(len(tries) + 1),
                     {"type": "archive", "player": me, "remove": {rng.choice(carrying): 1}})
    return [*tries, {"type": "search", "player": me}]


def cat_is_monument(card: str) -> bool:
    return catalog().builders[card].is_monument


def _answer(s, pr, rng: random.Random) -> dict:
    if pr.kind == "knowledge":
        value: object = rng.randint(pr.low, pr.high)
    elif pr.kind == "refill":
        available = engine._available(s, pr.tile - 1, pr.level)
        value = rng.sample(available, min(pr.count, len(available)))
    else:
        value = rng.choice(pr.choices)
    return {"type": "answer", "player": pr.player, "prompt": pr.kind, "value": value}
