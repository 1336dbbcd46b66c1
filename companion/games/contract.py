"""The contract of a game's rules, declared once: what its engine, its scorer and its random games
keep. A ``GameSpec`` (companion/registry.py) names each part by module path; every consumer (the
kiosk, ``replay``, ``score``, the café, the benches, the fuzzers, the tests) reads a game through these
and nothing else. The kiosk's half is ``TurnView`` and ``SheetView`` (companion/play/view.py) and the
demo's is ``BoardPlayers`` (companion/ui/demo_boards.py); docs/adding-a-game.md lists every part.

Each is a ``typing.Protocol``: a module keeps it when it defines the names (mypy checks a module
assigned to one; ``missing`` says what a module lacks, and tests/test_house.py asks it of every
registered game).
"""

from __future__ import annotations

import random
from typing import Any, Protocol, runtime_checkable

from companion.games.base import Event, Outcome, Standings, Summary
from companion.games.explained import ScoreRow


@runtime_checkable
class Engine(Protocol):
    """A game's pure rules (companion/games/base.py says what each part must do). Optional beside it:
    ``table(state)`` (a frozen read model for views that draw more than a row),
    ``complete_setup(line) -> dict`` (the setup line as the log records it) and
    ``summary_words(summary) -> list[Text]`` (what ``companion replay`` says of the game's own summary
    keys, beyond the words every game shares)."""

    GAME_ID: str

    def setup(self, line: dict) -> Any: ...
    def parse_action(self, line: dict) -> Any: ...
    def apply(self, state: Any, action: Any) -> tuple[Any, list[Event]]: ...
    def action_to_json(self, action: Any) -> dict: ...
    def summary(self, state: Any) -> Summary: ...
    def outcome(self, state: Any) -> Outcome: ...
    def current_player(self, state: Any) -> str | None: ...
    def cards_on_table(self, state: Any) -> tuple: ...


@runtime_checkable
class Scorer(Protocol):
    """Scoring a finished table (``companion score``) and explaining a finished game's scores (the
    kiosk's score sheet, ``companion replay``): one set of rows, so all three say the same. ``table_of``
    writes the table a game's summary says lies on the table (what ``score_table`` reads): ``bench fuzz``
    breaks the tables of random whole games, and the house tests score them, with no example written."""

    def score_table(self, table: dict, where: str) -> dict: ...        # the --json document; BadInput for a bad table
    def format_score(self, result: dict, lang: str) -> str: ...        # `companion score`'s text sheet
    def points_unit(self, summary: Summary) -> str: ...                # the msgid of the unit: "fame points"
    def explained(self, summary: Summary, entry: dict) -> list[ScoreRow]: ...   # one player's figures, explained
    def table_of(self, summary: Summary) -> dict: ...                  # the table a game leaves, as score reads it


@runtime_checkable
class Ranked(Protocol):
    """A game without points (no ``Scorer``: Timeline, Cronología, personal timelines) keeps this in its
    engine instead: ``companion score GAME LOG.jsonl`` prints the standings of the game a log records --
    each player's place and what places them (cards in hand, cards in the row), and why the first are
    first. Every game keeps one of the two, so ``companion score`` says something true of every game."""

    def standings(self, state: Any) -> Standings: ...


class RandomGame(Protocol):
    """Random but legal whole games (``GameSpec.random_game``, "module:function"): the material of
    ``companion cafe simulate``, ``bench engine``, ``bench fuzz`` and the tests. Returns the setup line,
    then every action line, each accepted by the engine, until the game ends or ``max_actions``."""

    def __call__(self, rng: random.Random, max_actions: int = 200) -> list[dict]: ...


def missing(module: object, part: type) -> list[str]:
    """The names of ``part`` (Engine, Scorer) that ``module`` lacks."""
    names = [*getattr(part, "__annotations__", {}), *(n for n in vars(part) if not n.startswith("_"))]
    return [n for n in dict.fromkeys(names) if not hasattr(module, n)]
