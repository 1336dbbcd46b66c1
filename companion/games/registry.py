"""Which engine plays which setup line."""

from __future__ import annotations

import importlib

from companion.errors import BadInput

# game id -> module path; Cronología's two modes are one engine module that reads ``mode``.
ENGINES = {
    "timeline": "companion.games.timeline",
    "cronologia": "companion.games.cronologia",
    "exhibition": "companion.games.exhibition.engine",
    "ancient-knowledge": "companion.games.ancient_knowledge.engine",
}


def engine_for(game: str, where: str = "game"):
    """The engine module for a game id; BadInput names the known ones."""
    if not isinstance(game, str) or game not in ENGINES:
        raise BadInput(where, f"unknown game {game!r}; known games: {', '.join(ENGINES)}")
    return importlib.import_module(ENGINES[game])
