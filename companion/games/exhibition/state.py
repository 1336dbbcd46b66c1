"""The frozen state of an Exhibition game: every player's showcases and depot, the market, the
vehicles, whose turn and which step, and what else the engine needs to referee. The engine's own: the
views read its ``table()`` (engine.py), never this.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from companion.games.exhibition.board import CONTINENTS, Layout
from companion.games.exhibition.cards import Card
from companion.games.exhibition.options import Options
from companion.games.exhibition.rules import Exhibit


@dataclass(frozen=True)
class Player:
    exhibit: Exhibit
    vehicle: str                          # Zeppelin, Ford, ...: cosmetic, for the board view
    at: str                               # the continent the vehicle stands on
    finished: bool = False
    finish_reason: str | None = None      # "hall_full" | "fits_nowhere" | "game_over"
    six_continents_round: int | None = None
    secret_decade: int | None = None      # Secret Decade variant; shown only once the game is over
    discarded: Card | None = None         # the card that ended the exhibition (A6: out of play)

    @property
    def name(self) -> str:
        return self.exhibit.name


@dataclass(frozen=True)
class Turn:
    """The steps of the current turn: take, move (after a white card), refill, place (or finish)."""

    held: Card | None = None              # taken and not yet placed
    column: str | None = None             # the market column it came from (to refill)
    needs_move: bool = False              # a white card was taken: the player names a continent
    needs_refill: bool = False            # the stock still has cards: one goes into the emptied spot
    placed: bool = False                  # placed, or discarded by finishing

    @property
    def taken(self) -> bool:
        return self.held is not None or self.placed

    @property
    def done(self) -> bool:
        return self.placed and not self.needs_move and not self.needs_refill

    def waiting_for(self) -> list[str]:
        if not self.taken:
            return ["take"]
        out = []
        if self.needs_move:
            out.append("move")
        if self.needs_refill:
            out.append("refill")
        if not self.placed:
            out.append("place")
        return out


@dataclass(frozen=True)
class GameState:
    layout: Layout
    options: Options
    secret_variant: bool
    players: tuple[Player, ...]           # seating order, clockwise
    start: int                            # the start player's seat (dates the rounds)
    market: tuple[tuple[Card, ...], ...]  # one column per continent, CONTINENTS order, sorted by year
    stock: int                            # face-down cards left
    current: int
    round: int = 1
    turn: Turn = Turn()
    finished: bool = False
    end_reason: str | None = None         # "all_finished" | "no_cards"
    discarded: tuple[Card, ...] = ()

    @property
    def player(self) -> Player:
        return self.players[self.current]

    def index(self, name: str) -> int | None:
        return next((i for i, p in enumerate(self.players) if p.name == name), None)

    def column(self, continent: str) -> tuple[Card, ...]:
        return self.market[CONTINENTS.index(continent)]

    def with_column(self, continent: str, cards) -> GameState:
        i = CONTINENTS.index(continent)
        return replace(self, market=self.market[:i] + (sort_column(cards),) + self.market[i + 1:])

    def with_player(self, i: int, **changes) -> GameState:
        return replace(self, players=self.players[:i] + (replace(self.players[i], **changes),) + self.players[i + 1:])

    def market_cards(self) -> list[Card]:
        return [c for col in self.market for c in col]

    @property
    def exhibits(self) -> list[Exhibit]:
        return [p.exhibit for p in self.players]


def sort_column(cards) -> tuple[Card, ...]:
    """A market column in year order (Einstein, without a year, last)."""
    return tuple(sorted(cards, key=lambda c: (c.year is None, c.year or 0)))
