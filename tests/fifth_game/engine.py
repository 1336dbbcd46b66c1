"""The rules of "Later" (the contract of companion.games.base)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from companion.cards.json_cards import card_to_json, parse_card
from companion.errors import BadInput
from companion.games.base import Event, Outcome, Summary, parse_players, refuse

GAME_ID = "later"


@dataclass(frozen=True)
class State:
    players: tuple[str, ...]
    active: tuple[str, ...]
    last: int | None = None
    turn: int = 0
    row: tuple = ()               # the cards laid in time, oldest first
    laid: tuple = ()              # (player, year) of each card laid in time


@dataclass(frozen=True)
class Lay:
    player: str
    card: object


def setup(line: dict) -> State:
    players = parse_players(line, 2, 6, "Later", "in turn order")
    return State(players, players)


def parse_action(line: dict) -> Lay:
    if not isinstance(line, dict) or line.get("type") != "lay":
        raise BadInput("type", "Later knows only \"lay\" lines")
    return Lay(str(line.get("player")), parse_card(line.get("card"), "card"))


def apply(s: State, a: Lay):
    if len(s.active) < 2:
        return s, refuse("the game is over")
    expected = s.active[s.turn % len(s.active)]
    if a.player != expected:
        return s, refuse("it is {expected}'s turn", expected=expected)
    if s.last is not None and a.card.year <= s.last:
        active = tuple(p for p in s.active if p != a.player)
        turn = s.turn % len(s.active) % max(1, len(active))
        return replace(s, active=active, turn=turn), [Event("out", {"player": a.player})]
    laid = (*s.laid, (a.player, a.card.year))
    return replace(s, last=a.card.year, turn=s.turn + 1, row=(*s.row, a.card), laid=laid), \
        [Event("laid", {"player": a.player})]


class LaterSummary(Summary, total=False):
    """The keys of Later's own beside every game's (companion.games.base.Summary)."""

    last: int | None                 # the year to beat
    out: list[str]                   # the players out of the game
    row: list[str]                   # the sticker codes laid in time
    laid: dict[str, list[int]]       # each player's years laid in time


def summary(s: State) -> LaterSummary:
    over = len(s.active) < 2
    return {"game": GAME_ID, "status": "finished" if over else "in_progress",
            "winner": s.active[0] if over and s.active else None,
            "turn": None if over else s.active[s.turn % len(s.active)], "last": s.last,
            "out": [p for p in s.players if p not in s.active], "row": [c.code for c in s.row if c.code],
            "laid": {p: [y for who, y in s.laid if who == p] for p in s.players}}


def action_to_json(a: Lay) -> dict:
    return {"type": "lay", "player": a.player, "card": card_to_json(a.card)}


def outcome(s: State) -> Outcome:
    over = len(s.active) < 2
    return Outcome("finished" if over else "in_progress", s.active if over else ())


def current_player(s: State) -> str | None:
    return None if len(s.active) < 2 else s.active[s.turn % len(s.active)]


def cards_on_table(s: State) -> tuple:
    return s.row
