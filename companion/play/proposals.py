"""What the camera proposes to the turn controller: a card laid, taken away, the table as expected or
not, a sticker nobody knows, a foreign code. The tracker (``companion.vision.tracker``) makes them
from still frames; the controller (``companion.play.turns``) and the game views take them in. They
live here, with their consumer, so that the play package needs nothing of the camera's."""

from __future__ import annotations

from dataclasses import dataclass

from companion.i18n import Text


@dataclass(frozen=True)
class CardPlaced:
    code: str
    gap: int                # 0..n over the n expected cards (0 = left of all)


@dataclass(frozen=True)
class CardPlacedInGrid:
    code: str
    gap_row: int            # 1..4: between card rows k and k+1
    col: int                # 1..5


@dataclass(frozen=True)
class CardPlacedInRow:
    code: str
    row: int                # 0..: which of several parallel rows, the top one first (its owner's by place)
    gap: int                # 0..n over that row's n expected cards (0 = left of all)


@dataclass(frozen=True)
class CardPlacedOnSpot:
    code: str
    spot: str


@dataclass(frozen=True)
class CardRemoved:
    code: str


@dataclass(frozen=True)
class TableMatches:
    pass


@dataclass(frozen=True)
class TableDiffers:
    message: Text           # a sentence for the players (in their language: ``message.render(lang)``)


@dataclass(frozen=True)
class UnknownSticker:
    payload: str
    message: Text


@dataclass(frozen=True)
class ForeignCode:
    text: str


# A card move the game's view turns into the engine's action (``TurnView.action_for``)
CardMove = CardPlaced | CardPlacedInGrid | CardPlacedInRow | CardPlacedOnSpot | CardRemoved
Proposal = CardMove | TableMatches | TableDiffers | UnknownSticker | ForeignCode
