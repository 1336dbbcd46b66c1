"""The frozen state of an Ancient Knowledge game, and small pure helpers on a player's board.

A player's Timeline is six zones (index 0 = zone 1, next to the Past); each zone is a tuple of 0-2
monuments, lower row first, so removing the lower one makes the upper one slide down by itself.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from companion.errors import present
from companion.i18n import Text

ZONES = 6
ROWS = ("lower", "upper")
ARTIFACT_SLOTS = 5
HAND_LIMIT = 10
START_HAND = 6


@dataclass(frozen=True)
class Options:
    """The decisions of rules §11 that have a flag; the defaults are the spec's."""

    extra_card_late_seats: bool = True          # A1: 3rd and 4th players start with 7 cards
    strict_hand_limit: bool = False             # A2: a draw that would pass 10 is blocked entirely
    archive_unbounded: bool = False             # A3: Archive may discard more cards than tokens
    destroyed_knowledge_is_lost: bool = False   # A5: tokens of a self-discarding monument become lost
    timeline_effects_mandatory: bool = False    # A11: every timeline card must be resolved


OPTION_NAMES = tuple(Options.__dataclass_fields__)


@dataclass(frozen=True)
class Placed:
    """A monument in the Timeline and the knowledge tokens on it."""

    card: str
    tokens: int = 0


@dataclass(frozen=True)
class PastCard:
    card: str
    rotated: bool = False   # excavated


@dataclass(frozen=True)
class Board:
    name: str
    hand: int
    zones: tuple[tuple[Placed, ...], ...] = ((),) * ZONES
    past: tuple[PastCard, ...] = ()
    artifacts: tuple[str, ...] = ()
    techs: tuple[str, ...] = ()
    lost_knowledge: int = 0
    turns: int = 0          # turns completed

    def timeline(self) -> list[tuple[int, str, Placed]]:
        """(zone 1-6, row, monument) for every monument in the Timeline, zone 1 first."""
        return [(z + 1, ROWS[r], m) for z, zone in enumerate(self.zones) for r, m in enumerate(zone)]

    def timeline_ids(self) -> tuple[str, ...]:
        return tuple(m.card for _, _, m in self.timeline())

    def find(self, card: str) -> tuple[int, str, Placed] | None:
        for z, row, m in self.timeline():
            if m.card == card:
                return z, row, m
        return None

    def tokens_on_timeline(self) -> int:
        return sum(m.tokens for _, _, m in self.timeline())

    def past_ids(self) -> tuple[str, ...]:
        return tuple(p.card for p in self.past)

    def free_row(self, zone: int) -> str | None:
        n = len(self.zones[zone - 1])
        return ROWS[n] if n < len(ROWS) else None

    def with_zone(self, zone: int, content: tuple[Placed, ...]) -> Board:
        zones = list(self.zones)
        zones[zone - 1] = content
        return replace(self, zones=tuple(zones))

    def put(self, zone: int, m: Placed) -> Board:
        """``m`` in the free row of ``zone`` (the caller has checked there is one)."""
        return self.with_zone(zone, self.zones[zone - 1] + (m,))

    def take(self, card: str) -> tuple[Board, Placed]:
        """The board without ``card`` (in the Timeline; the upper one slides down) and the card."""
        zone, _, m = present(self.find(card), f"{card} in the Timeline")
        return self.with_zone(zone, tuple(x for x in self.zones[zone - 1] if x.card != card)), m

    def set_tokens(self, card: str, tokens: int) -> Board:
        zone, _, _ = present(self.find(card), f"{card} in the Timeline")
        return self.with_zone(zone, tuple(Placed(x.card, tokens) if x.card == card else x
                                          for x in self.zones[zone - 1]))


@dataclass(frozen=True)
class Prompt:
    """A question only the players can answer; the game waits for an ``answer`` line.

    kind: ``knowledge`` (tokens placed on ``card``: a number ``low``..``high``, ``default`` the
    suggestion), ``effect`` (resolve ``card``'s effect, then "done"), ``timeline`` (next timeline
    card, or "done"), ``decline_order`` (which of the two zone-1 monuments declines first),
    ``decline_effect`` (``card`` declines: "past" or "discarded" by its own effect), ``flip_tile``
    (1 or 2), ``refill`` (the ``count`` technology ids dealt onto ``tile``)."""

    kind: str
    player: str
    question: Text
    card: str | None = None
    choices: tuple = ()
    low: int | None = None
    high: int | None = None
    default: object = None
    tile: int | None = None
    level: int | None = None
    count: int | None = None


@dataclass(frozen=True)
class GameState:
    options: Options
    boards: tuple[Board, ...]
    tiles: tuple[tuple[str, ...], ...]               # the three technology tiles
    tile_levels: tuple[int, int, int] = (1, 1, 2)
    flipped_tile: int | None = None             # the mid-game flip (once per game, A4)
    flipped_by: str | None = None
    current: int = 0
    round: int = 1
    phase: str = "action"                       # action | timeline | decline | finished
    actions_left: int = 2
    prompts: tuple[Prompt, ...] = ()            # the first one is the pending question
    timeline_todo: tuple[str, ...] | None = None   # timeline cards not yet offered this phase
    declining: tuple[str, ...] | None = None       # zone-1 monuments still to decline, in order
    skip_decline: bool = False
    end_triggered_by: str | None = None
    finished: bool = False

    @property
    def pending_prompt(self) -> Prompt | None:
        return self.prompts[0] if self.prompts else None

    @property
    def board(self) -> Board:
        """The board of the player whose turn it is."""
        return self.boards[self.current]

    def index(self, name: str) -> int | None:
        for i, b in enumerate(self.boards):
            if b.name == name:
                return i
        return None

    def with_board(self, i: int, board: Board) -> GameState:
        boards = list(self.boards)
        boards[i] = board
        return replace(self, boards=tuple(boards))
