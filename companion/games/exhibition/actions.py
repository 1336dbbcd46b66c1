"""Exhibition log lines <-> action objects (format: docs/exhibition.md).

Every line has ``type`` and ``player``. The four steps of a turn are ``take``, ``move`` (only when
the camera cannot infer it: after a white card, or before taking from an empty column), ``refill``
and ``place`` (or ``finish`` for a card that fits nowhere and does not go to the Depot); ``secret``
records a player's Secret Decade. A malformed line raises BadInput naming the field; whether the
action is legal now is ``apply``'s business.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from companion.errors import BadInput
from companion.games.base import action_class
from companion.games.exhibition.board import CONTINENTS
from companion.games.exhibition.cards import DECADES, Card, card_json, parse

_SPOT_RE = re.compile(r"[a-z_]+\[[0-9]{1,2}\]")


@dataclass(frozen=True)
class Action:
    player: str


@dataclass(frozen=True)
class Take(Action):
    card: Card


@dataclass(frozen=True)
class Move(Action):
    to: str


@dataclass(frozen=True)
class Refill(Action):
    card: Card | None          # None: the stock turned out to be empty


@dataclass(frozen=True)
class Place(Action):
    card: Card
    spot: str                  # "one_era[2]", "depot[0]"


@dataclass(frozen=True)
class Finish(Action):
    pass


@dataclass(frozen=True)
class Secret(Action):
    decade: int


TYPES: dict[str, type[Action]] = {"take": Take, "move": Move, "refill": Refill, "place": Place,
                                  "finish": Finish, "secret": Secret}
TYPE_OF = {cls: name for name, cls in TYPES.items()}
_FIELDS = {Take: ("card",), Move: ("to",), Refill: ("card",), Place: ("card", "spot"), Finish: (), Secret: ("decade",)}


def parse_action(line: dict) -> Action:
    """The action of a log line; BadInput names the field that is missing or malformed."""
    cls = action_class(line, TYPES, "an Exhibition action")
    kind = line["type"]
    allowed = ("type", "player") + _FIELDS[cls]
    for key in line:
        if key not in allowed:
            raise BadInput(key, f"unknown field for {kind}; a {kind} line has {', '.join(allowed)}")
    player = line.get("player")
    if not isinstance(player, str) or not player:
        raise BadInput("player", "the name of the player who acts is needed")
    for key in _FIELDS[cls]:
        if key not in line:
            raise BadInput(key, f"missing field {key!r} ({kind} needs {', '.join(_FIELDS[cls])})")
    if cls is Take:
        return Take(player, parse(line["card"], "card"))
    if cls is Move:
        to = line["to"]
        if to not in CONTINENTS:
            raise BadInput("to", f"{to!r} is not a continent; one of {' '.join(CONTINENTS)}")
        return Move(player, to)
    if cls is Refill:
        return Refill(player, parse(line["card"], "card", allow_empty=True))
    if cls is Place:
        spot = line["spot"]
        if not isinstance(spot, str) or not _SPOT_RE.fullmatch(spot):
            raise BadInput("spot", f"{spot!r} is not a spot; write it like \"one_era[2]\" or \"depot[0]\" (0-based)")
        return Place(player, parse(line["card"], "card"), spot)
    if cls is Secret:
        d = line["decade"]
        if not isinstance(d, int) or isinstance(d, bool) or d not in DECADES:
            raise BadInput("decade", f"{d!r} is not the first year of a decade from 1900 to 1990")
        return Secret(player, d)
    return Finish(player)


def action_to_json(action: Action) -> dict:
    """The log line of an action (the inverse of :func:`parse_action`)."""
    out: dict = {"type": TYPE_OF[type(action)], "player": action.player}
    if isinstance(action, (Take, Refill, Place)):
        out["card"] = card_json(action.card)
    if isinstance(action, Move):
        out["to"] = action.to
    if isinstance(action, Place):
        out["spot"] = action.spot
    if isinstance(action, Secret):
        out["decade"] = action.decade
    return out
