"""Every game the companion knows, one :class:`GameSpec` each; every other module asks here.

A spec is plain data: the modules it names (engine, scorer, random games, kiosk views, demo players,
card rule) are imported only when they are used, so the cards layer can ask a spec without importing
an engine (engines import the cards layer). What each named part keeps is the game's contract:
``Engine``, ``Scorer`` and ``RandomGame`` in companion/games/contract.py, ``TurnView`` and ``SheetView``
in companion/play/view.py, ``BoardPlayers`` in companion/ui/demo_boards.py. Adding a game is one package
under ``companion/games/``, its view module, its translations and one ``register`` line below; see
docs/adding-a-game.md.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

from companion.errors import BadInput
from companion.i18n import N_


@dataclass(frozen=True)
class GameSpec:
    id: str                                   # the log's setup "game" and a deck file's "game"
    name: str                                 # as people read it (titles, replay's first line, café exports)
    engine: str                               # module keeping companion.games.contract.Engine
    random_game: str = ""                     # "module:function" keeping companion.games.contract.RandomGame
    views: tuple[str, ...] = ()               # kiosk view modules (each registers its views when imported)
    scorer: str | None = None                 # module keeping companion.games.contract.Scorer: `companion score ID`
    demo: str | None = None                   # "module:Class" of a board game's demo players (BoardPlayers); a
                                              # row or grid game is played by the demo's own row and grid players
    cooperative_modes: tuple[str, ...] = ()   # setup "mode"s in which the players win or lose together
    deck_columns: tuple[str, ...] = ("n", "year", "title")   # a deck's CSV columns, in order
    card_rule: str | None = None              # "module:function": (CardEntry) -> (field, message) | None
    add_fields: str = "--year YEAR --title TITLE"            # what `companion deck add` asks for a card
    uses_decks_of: tuple[str, ...] = ()       # other games whose decks it can play (if each card passes its rule)
    sticker_placement: str = ""               # where the sticker goes on a card (printed on the sheet)
    print_layout: str = ""                    # print-and-play faces: "chronology", "exhibition", "" (not printed)
    screenshots: str = ""                     # "module:function" of its screenshot script (tools/screens.py's
                                              # Studio in): kept beside its views

    def load_engine(self) -> ModuleType:
        return importlib.import_module(self.engine)

    def load_scorer(self) -> ModuleType:
        if self.scorer is None:
            raise BadInput(self.id, f"no scoring for this game; scorable games: {', '.join(scorable())}")
        return importlib.import_module(self.scorer)

    def load_random_game(self) -> Callable:
        """The game's random legal games: ``(rng, max_actions) -> [setup line, action lines...]``."""
        if not self.random_game:
            raise BadInput(self.id, "this game has no random games (GameSpec.random_game)")
        return _named(self.random_game)

    def load_demo(self) -> type | None:
        """The class of a board game's demo players, or None (the demo's row and grid players)."""
        return _named(self.demo) if self.demo else None

    def load_screenshots(self) -> Callable:
        """The game's screenshot script: ``(studio) -> None`` (tools/screens.py)."""
        return _named(self.screenshots)

    def cooperative(self, mode: object) -> bool:
        """Whether a game set up in ``mode`` (its setup line's "mode") is won or lost by the team together."""
        return isinstance(mode, str) and mode in self.cooperative_modes

    def check_card(self, entry) -> tuple[str, str] | None:
        """What is wrong with a deck's card entry for this game: (field, message), or None."""
        if self.card_rule is None:
            return None
        rule: Callable = _named(self.card_rule)
        return rule(entry)


def _named(path: str):
    """What a "module:name" path names, its module imported now."""
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


GAMES: dict[str, GameSpec] = {}


def register(spec: GameSpec) -> GameSpec:
    GAMES[spec.id] = spec
    return spec


def unregister(game_id: str) -> None:
    """Forget a game (tests that register a game of their own)."""
    GAMES.pop(game_id, None)


def spec_for(game, where: str = "game") -> GameSpec:
    """The spec of a game id; BadInput names the known ones."""
    if not isinstance(game, str) or game not in GAMES:
        raise BadInput(where, f"unknown game {game!r}; known games: {', '.join(GAMES)}")
    return GAMES[game]


def engine_for(game, where: str = "game") -> ModuleType:
    """The engine module for a game id; BadInput names the known ones."""
    return spec_for(game, where).load_engine()


def scorable() -> list[str]:
    return [g for g, spec in GAMES.items() if spec.scorer]


_CHRONOLOGY_STICKER = N_("Stick each sticker on the date side of its card (the side with the year): the camera "
                         "reads the row with the date side up.")
_CHRONOLOGY_COLUMNS = ("n", "year", "circa", "title", "title_es", "period", "icons", "review")

register(GameSpec(
    "timeline", "Timeline", "companion.games.timeline", "companion.games.random_play:timeline_game",
    views=("companion.ui.games.timeline",), screenshots="companion.ui.games.timeline:screenshots",
    deck_columns=_CHRONOLOGY_COLUMNS, card_rule="companion.cards.rules:dated", uses_decks_of=("cronologia",),
    sticker_placement=_CHRONOLOGY_STICKER, print_layout="chronology"))
register(GameSpec(
    "cronologia", "Cronología", "companion.games.cronologia", "companion.games.random_play:cronologia_game",
    views=("companion.ui.games.cronologia",), screenshots="companion.ui.games.cronologia:screenshots",
    cooperative_modes=("cooperative",),
    deck_columns=_CHRONOLOGY_COLUMNS, card_rule="companion.cards.rules:dated_with_period",
    add_fields="--year YEAR --title TITLE --period PERIOD", uses_decks_of=("timeline",),
    sticker_placement=_CHRONOLOGY_STICKER, print_layout="chronology"))
register(GameSpec(
    "exhibition", "Exhibition", "companion.games.exhibition.engine", "companion.games.exhibition.autoplay:random_game",
    views=("companion.ui.games.exhibition",), screenshots="companion.ui.games.exhibition:screenshots",
    demo="companion.ui.demo_boards:ExhibitionPlayers",
    scorer="companion.games.exhibition.score", deck_columns=("n", "year", "continent", "white"),
    card_rule="companion.games.exhibition.cards:card_problem", add_fields="--year YEAR --continent XX",
    sticker_placement=N_("Stick each sticker on the front of its card (the side with the year and continent), in "
                         "the same corner on every card."), print_layout="exhibition"))
register(GameSpec(
    "ancient-knowledge", "Ancient Knowledge", "companion.games.ancient_knowledge.engine",
    "companion.games.ancient_knowledge.autoplay:random_game", views=("companion.ui.games.ancient_knowledge",),
    screenshots="companion.ui.games.ancient_knowledge:screenshots",
    demo="companion.ui.demo_boards:AncientKnowledgePlayers", scorer="companion.games.ancient_knowledge.score",
    deck_columns=("n", "ak_id", "title"), card_rule="companion.games.ancient_knowledge.catalog:card_problem",
    add_fields="--ak-id ID",
    sticker_placement=N_("Stick each sticker upright on the front of its card, near the top edge, the same way on "
                         "every card: the camera tells a rotated card by the sticker's orientation.")))
register(GameSpec(
    "personal-timelines", "Personal timelines", "companion.games.personal_timelines.engine",
    "companion.games.personal_timelines.autoplay:random_game", views=("companion.ui.games.personal_timelines",),
    screenshots="companion.ui.games.personal_timelines:screenshots",
    demo="companion.ui.games.personal_timelines:DemoRowsPlayers", deck_columns=_CHRONOLOGY_COLUMNS,
    card_rule="companion.cards.rules:dated", uses_decks_of=("timeline", "cronologia"),
    sticker_placement=_CHRONOLOGY_STICKER, print_layout="chronology"))
