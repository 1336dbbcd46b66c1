"""Random but legal whole games of personal timelines (the contract's ``RandomGame``): what
``companion cafe simulate``, ``bench engine`` and ``bench fuzz`` play. Cards are drawn from a real
dated deck, so the logs are what a kiosk writes (sticker codes, a recorded box size)."""

from __future__ import annotations

import random

from companion.cards.decks import get_deck
from companion.games.base import refusal
from companion.games.personal_timelines import engine

NAMES = ["Ana", "Bo", "Cy", "Di", "Eva", "Fer"]


def random_game(rng: random.Random, max_actions: int = 200, right: float = 0.7) -> list[dict]:
    """A whole game of 2 to 6 players on the HIST deck, each placement right about ``right`` of the
    time (people who know some history), cut at ``max_actions``."""
    deck = get_deck("HIST")
    pile = sorted(c.code for c in deck.cards.values() if c.code)
    rng.shuffle(pile)
    players = NAMES[:rng.randint(engine.MIN_PLAYERS, engine.MAX_PLAYERS)]
    setup = engine.complete_setup({"type": "setup", "game": engine.GAME_ID, "players": players,
                                   "starts": [pile.pop() for _ in players], "goal": rng.choice(engine.GOALS)})
    state = engine.setup(setup)
    lines: list[dict] = [setup]
    while len(lines) <= max_actions and state.status == "in_progress" and pile:
        player = state.current
        assert player is not None
        card = engine.parse_action({"type": "place", "player": player, "card": pile.pop(), "gap": 0}).card
        row = state.row(player)
        t = engine.table(state)
        good = [g for g in range(len(row) + 1) if t.fits(player, card, g)]
        bad = [g for g in range(len(row) + 1) if g not in good]
        gap = rng.choice(good if rng.random() < right or not bad else bad)
        line = engine.action_to_json(engine.Place(player, player, card, gap))
        line["card"] = card.code               # as the kiosk logs it: the sticker code (with its facts)
        state, events = engine.apply(state, engine.parse_action(line))
        assert refusal(events) is None, (line, refusal(events))
        lines.append(line)
    return lines
