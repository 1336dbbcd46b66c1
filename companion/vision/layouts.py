"""What lies on the table, as the camera should see it (no pixels here).

- ``RowLayout``: one row left to right (Timeline, Cronología competitive).
- ``GridLayout``: physical rows top to bottom; Cronología cooperative has 9 (fixed rows 1, 3, 5, 7,
  9 and gap rows 2, 4, 6, 8 between them); ``None`` is an empty slot.
- ``RowsLayout``: several parallel rows, one above the other as the camera sees them, each a player's
  own row read left to right (personal timelines). A row's owner is known from where it lies, as a
  player's board is: row 0 is the top one; ``owners`` names them for the players' messages. Every
  row holds at least its owner's first card, which is how the camera finds where it lies.
- ``BoardLayout``: a player board located by its four ArUco corner markers; ``board`` names a
  board-definition file under ``assets/boards/``, ``spots`` maps spot names (``one_era[2]``,
  ``depot[0]``, ``zone3.lower``) to the code lying there.
Codes are sticker payloads (``TC:DEMO:006``) or, in tests, any text (a foreign code).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class RowLayout:
    codes: tuple[str, ...] = ()

    def __init__(self, codes=()):
        object.__setattr__(self, "codes", tuple(codes))


@dataclass(frozen=True)
class GridLayout:
    rows: tuple[tuple[str | None, ...], ...] = ()

    def __init__(self, rows=()):
        object.__setattr__(self, "rows", tuple(tuple(r) for r in rows))


@dataclass(frozen=True)
class RowsLayout:
    rows: tuple[tuple[str, ...], ...] = ()
    owners: tuple[str, ...] = ()      # who each row belongs to, top row first (for messages; may be empty)

    def __init__(self, rows=(), owners=()):
        object.__setattr__(self, "rows", tuple(tuple(r) for r in rows))
        object.__setattr__(self, "owners", tuple(owners))


@dataclass(frozen=True)
class BoardLayout:
    board: str
    spots: dict = field(default_factory=dict)

    def __hash__(self):
        return hash((self.board, tuple(sorted(self.spots.items()))))


Layout = RowLayout | GridLayout | RowsLayout | BoardLayout
