"""Timeline referee (rules: shared/spec/games/timeline.md; log lines: cli.md ``companion replay``).

Setup options, each a decision of the spec's table (§12) with the spec's default:
``hand`` (T2: 4, any whole number, or ``"by_player_count"`` for 6/5/4), ``first_player_extra_card``
(variant), ``wrong_card_to_timeline`` (T4), ``reshuffle_box_when_empty`` (T3, default true),
``deck_size`` (cards in the box; default: the deck of the sticker codes, else unknown).
T5, T6, T8 and T9 have no flag: rounds.py does what the table says.
"""

from __future__ import annotations

from dataclasses import dataclass

from companion.cards.json_cards import card_to_json
from companion.cards.model import Card
from companion.errors import BadInput
from companion.games import rounds
from companion.games.base import Event, Illegal, Outcome, Standings, Summary, refused
from companion.games.rounds import RowRules, RowState

GAME_ID = "timeline"
_SETUP_KEYS = ("type", "game", "players", "hand", "start", "first_player_extra_card", "wrong_card_to_timeline",
               "reshuffle_box_when_empty", "deck_size")
_PLACE_KEYS = ("type", "player", "card", "gap")


@dataclass(frozen=True)
class Place:
    player: str
    card: Card
    gap: int


def hand_size(hand, players: int) -> int:
    """T2: a fixed hand, or the newer sheet's 6/5/4 by player count."""
    if hand == "by_player_count":
        return 6 if players <= 3 else 5 if players <= 5 else 4
    if not isinstance(hand, int) or isinstance(hand, bool) or not 1 <= hand <= 20:
        raise BadInput("hand", f"{hand!r} is not a hand size: a whole number 1..20 or \"by_player_count\"")
    return hand


def setup(line: dict) -> RowState:
    rounds.check_keys(line, _SETUP_KEYS, "setup")
    if line.get("game") != GAME_ID:
        raise BadInput("game", f"{line.get('game')!r} is not {GAME_ID!r}")
    players = rounds.parse_players(line)
    start = rounds.card_at(line, "start")
    n = hand_size(line.get("hand", 4), len(players))
    hands = [n] * len(players)
    if rounds.flag(line, "first_player_extra_card"):
        hands[0] += 1
    rules = RowRules(miss_draws_in_sudden_death=True, draw_each_sudden_death_round=False,
                     reshuffle_spent=rounds.flag(line, "reshuffle_box_when_empty", True),
                     wrong_card_to_row=rounds.flag(line, "wrong_card_to_timeline"))
    pile = rounds.initial_pile(rounds.deck_size(line, [start]), 1 + sum(hands))
    return RowState(players, tuple(hands), (start,), rules, active=players, pile=pile)


def complete_setup(line: dict) -> dict:
    """The setup line as the log records it (see companion.games.base)."""
    return rounds.with_deck_size(line, [rounds.card_at(line, "start")])


def parse_action(line: dict) -> Place:
    player = rounds.check_place(line, "Timeline", _PLACE_KEYS)
    return Place(player, rounds.card_at(line), rounds.whole(line, "gap", 0))


def apply(state: RowState, action: Place) -> tuple[RowState, list[Event]]:
    events: list[Event] = []
    try:
        s, _ok = rounds.place(state, action.player, action.card, action.gap, events)
    except Illegal as e:
        return state, refused(e.reason)
    return rounds.pass_turn(s, events), events


def action_to_json(action: Place) -> dict:
    return {"type": "place", "player": action.player, "card": card_to_json(action.card), "gap": action.gap}


def summary(state: RowState) -> Summary:
    out = rounds.row_summary(state, GAME_ID)
    out["box"] = state.spent
    return out


def outcome(state: RowState) -> Outcome:
    return rounds.row_outcome(state)


def standings(state: RowState) -> Standings:
    return rounds.row_standings(state)


def current_player(state: RowState) -> str | None:
    return state.current


def cards_on_table(state: RowState) -> tuple[Card, ...]:
    return tuple(state.row)

