"""Random but legal games of Timeline and Cronología, as log lines (their ``GameSpec.random_game``:
``timeline_game``, ``cronologia_game``, the contract's ``RandomGame``): the material of the property
tests, ``companion cafe simulate`` and ``companion bench engine``. Players pick a random card (year) and
a random gap, so about half the placements are wrong, as with real players guessing."""

from __future__ import annotations

import random

from companion.games import cronologia, timeline
from companion.games.base import refusal

PERIOD_OF = [(-3000, "prehistoria"), (476, "antigua"), (1492, "media"), (1789, "moderna"), (10**6, "contemporanea")]


def _card(rng: random.Random, icons: bool = False) -> dict:
    year = rng.randint(-3000, 2020) or 1
    period = next(p for limit, p in PERIOD_OF if year < limit)
    card = {"year": year, "period": period}
    if icons and rng.random() < 0.3:
        card["icons"] = [rng.choice(("replace_opp", "swap", "replace_own"))]
    return card


SETUP_DECK = "HIST"      # the cards laid at setup are a real box's, by sticker code, as a kiosk's camera reads them


def _sorted_cards(rng: random.Random, n: int) -> list[str]:
    """``n`` cards of the box, oldest first, by sticker code (the stored setup line records their facts, as
    a kiosk's does)."""
    from companion.cards.decks import get_deck
    cards = [c for c in get_deck(SETUP_DECK).cards.values() if c.code and c.year is not None]
    return [str(c.code) for c in sorted(rng.sample(cards, n), key=lambda c: c.year or 0)]


def timeline_setup(rng: random.Random, players: int = 3, **options) -> dict:
    return {"type": "setup", "game": "timeline", "players": [f"P{i + 1}" for i in range(players)],
            "hand": rng.choice((3, 4, 5)), "start": _sorted_cards(rng, 1)[0], **options}


def competitive_setup(rng: random.Random, players: int = 3, **options) -> dict:
    return {"type": "setup", "game": "cronologia", "mode": "competitive", "level": rng.choice(("iniciado", "medio")),
            "players": [f"P{i + 1}" for i in range(players)], "start": _sorted_cards(rng, 5), **options}


def cooperative_setup(rng: random.Random, players: int = 3, **options) -> dict:
    return {"type": "setup", "game": "cronologia", "mode": "cooperative", "level": rng.choice(("experto", "medio")),
            "players": [f"P{i + 1}" for i in range(players)], "grid": [_sorted_cards(rng, 5) for _ in range(5)],
            **options}


def timeline_game(rng: random.Random, max_actions: int = 200) -> list[dict]:
    setup = timeline_setup(rng, players=rng.randint(2, 6))
    return [setup, *play(setup, rng, max_actions)]


def cronologia_game(rng: random.Random, max_actions: int = 200) -> list[dict]:
    """A competitive or a cooperative game, one in two."""
    setup = rng.choice((competitive_setup, cooperative_setup))(rng, players=rng.randint(2, 6))
    return [setup, *play(setup, rng, max_actions)]


def play(setup: dict, rng: random.Random, max_actions: int = 200) -> list[dict]:
    """Action lines of one random game from ``setup`` (until it ends or ``max_actions``)."""
    engine = timeline if setup["game"] == "timeline" else cronologia
    state = engine.setup(setup)
    lines: list[dict] = []
    while len(lines) < max_actions and engine.summary(state)["status"] == "in_progress":
        line = _next_line(engine, state, rng)
        new, events = engine.apply(state, engine.parse_action(line))
        if refusal(events) is not None:       # an effect whose target holds nothing: do without it
            continue
        state = new
        lines.append(line)
    return lines


def _next_line(engine, state, rng: random.Random) -> dict:
    if engine is timeline:
        return {"type": "place", "player": state.current, "card": _card(rng), "gap": rng.randint(0, len(state.row))}
    if isinstance(state, cronologia.Competitive):
        w = state.window
        if state.turn_open and w is not None and not w.used and rng.random() < 0.7:
            icon = w.card.icons[0]
            line = {"type": "effect", "player": w.player, "icon": icon}
            if icon != "replace_own":
                line["target"] = rng.choice([p for p in state.row.active if p != w.player] or [w.player])
            return line
        row = cronologia.settle(state)[0].row
        return {"type": "place", "player": row.current, "card": _card(rng, icons=True),
                "gap": rng.randint(0, len(row.row))}
    if state.awaiting_deal:
        return {"type": "deal", "grid": [_sorted_cards(rng, 5) for _ in range(5)]}
    free = [(k + 1, c + 1) for k in range(4) for c in range(5) if state.gaps[k][c] is None]
    k, c = rng.choice(free)
    lo, hi = sorted((state.rows[k - 1][c - 1].year, state.rows[k][c - 1].year))
    year = rng.randint(lo, hi) if rng.random() < 0.8 else rng.randint(-3000, 2020)
    return {"type": "place", "player": state.current, "card": {"year": year or 1}, "gap_row": k, "col": c}
