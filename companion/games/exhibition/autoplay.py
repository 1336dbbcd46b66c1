"""Whole Exhibition games played by a simple seeded robot: for the kiosk's demo table, the engine
benchmark and the tests. Every line it writes went through the engine and was accepted.

The robot takes a random card from the column under its vehicle, places it in a random legal Hall
spot, else in the Depot (most of the time), else finishes; the stock is the shuffled rest of the deck.
"""

from __future__ import annotations

import random

from companion.games.base import refusal
from companion.games.exhibition import engine
from companion.games.exhibition.board import CONTINENTS, board
from companion.games.exhibition.cards import DECADES, Card, card_json


def exh20_cards() -> list[Card]:
    """The cards of the bundled (or the user's own) EXH20 deck."""
    from companion.cards.decks import get_deck
    deck = get_deck("EXH20")
    return [deck.cards[n] for n in sorted(deck.cards)]


def random_game(rng: random.Random, max_actions: int = 200) -> list[dict]:
    """A whole game of 1 to 4 players (the contract's ``RandomGame``), cut at ``max_actions``."""
    names = ["Ana", "Bo", "Cy", "Di"][:rng.randint(1, 4)]
    return play_game(names, seed=rng.randrange(2**32), secret_decade=rng.random() < 0.3)[:max_actions + 1]


def play_game(players: list[str], seed: int = 0, cards: list[Card] | None = None, secret_decade: bool = False,
              layout: dict | None = None, variations: dict | None = None, options: dict | None = None,
              depot_chance: float = 0.7) -> list[dict]:
    """The log lines (setup first) of one whole game, ending with the final scores reachable."""
    rng = random.Random(seed)
    stock = list(cards if cards is not None else exh20_cards())
    rng.shuffle(stock)
    per = board().cards_per_column
    market = {k: [card_json(stock.pop()) for _ in range(per)] for k in CONTINENTS}
    setup = {"type": "setup", "game": "exhibition", "players": list(players), "market": market,
             "stock": len(stock), "secret_decade": secret_decade}
    for key, value in (("layout", layout), ("variations", variations), ("options", options)):
        if value is not None:
            setup[key] = value
    lines = [setup]
    state = engine.setup(setup)

    def do(line: dict):
        nonlocal state
        new, events = engine.apply(state, engine.parse_action(line))
        reason = refusal(events)
        if reason is not None:
            raise AssertionError(f"the engine refused the robot's {line}: {reason}")
        state = new
        lines.append(line)
        return events

    while not state.finished:
        me = state.player
        if not state.column(me.at):
            do({"type": "move", "player": me.name, "to": rng.choice([k for k in CONTINENTS if state.column(k)])})
        card = rng.choice(state.column(state.player.at))
        events = do({"type": "take", "player": me.name, "card": card_json(card)})
        choices = next(e.data for e in events if e.kind == "choices")
        if state.turn.needs_move:
            do({"type": "move", "player": me.name, "to": rng.choice(CONTINENTS)})
        if state.turn.needs_refill:
            do({"type": "refill", "player": me.name, "card": card_json(stock.pop())})
        if choices["fits"]:
            do({"type": "place", "player": me.name, "card": card_json(card), "spot": rng.choice(choices["fits"])})
        elif choices["depot_free"] and rng.random() < depot_chance:
            free = next(i for i, c in enumerate(state.player.exhibit.depot) if c is None)
            do({"type": "place", "player": me.name, "card": card_json(card), "spot": f"depot[{free}]"})
        else:
            do({"type": "finish", "player": me.name})
    if secret_decade:
        dealt = rng.sample(DECADES, len(players))       # ten cards, one per decade (A30)
        for name, decade in zip(players, dealt, strict=True):
            do({"type": "secret", "player": name, "decade": decade})
    return lines
