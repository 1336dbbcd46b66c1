"""Personal timelines referee (rules and decisions: docs/personal-timelines.md).

Every player builds a row of their own, ordered by year, starting from one card dealt face up. On
a turn the player draws the top card of the pile, slips it into their own row and turns it over: a
card in its right place stays, a wrong one is discarded. The first row to hold ``goal`` cards wins;
when the pile is spent the longest row wins.

Setup options, each a decision of the rules file's table with its default: ``goal`` (5, 7 or 10;
default 10), ``start_card_counts`` (P1, default true), ``finish_round`` (P2, default false),
``reshuffle_discards`` (P3, default false), ``ties`` (P4: ``"shared"``, default, or
``"fewer_turns"``) and ``deck_size`` (cards in the box; default: the deck of the sticker codes, else
unknown: the pile never runs out).
"""

from __future__ import annotations

from dataclasses import dataclass

from companion.cards.json_cards import card_to_json
from companion.cards.model import Card
from companion.errors import BadInput
from companion.games import base, rounds
from companion.games.base import Event, Outcome, Standings, parse_players, ranked, refuse
from companion.games.rounds import evolve, fits
from companion.i18n import N_, NP_, Text, plural
from companion.words import Words, date_words, later

GAME_ID = "personal-timelines"
MIN_PLAYERS, MAX_PLAYERS = 2, 6
GOALS = (5, 7, 10)
TIES = ("shared", "fewer_turns")
_SETUP_KEYS = ("type", "game", "players", "starts", "goal", "start_card_counts", "finish_round",
               "reshuffle_discards", "ties", "deck_size")
_PLACE_KEYS = ("type", "player", "row", "card", "gap")


@dataclass(frozen=True)
class Rules:
    goal: int = 10
    start_card_counts: bool = True      # P1: the first card is one of the goal's cards
    finish_round: bool = False          # P2: a row at the goal ends the game at once
    reshuffle_discards: bool = False    # P3: a spent pile ends the game
    ties: str = "shared"                # P4: the longest rows share the win

    @property
    def length_to_win(self) -> int:
        """How many cards a row holds when it reaches the goal."""
        return self.goal if self.start_card_counts else self.goal + 1


@dataclass(frozen=True)
class State:
    players: tuple[str, ...]                # seating order; the first plays first
    rows: tuple[tuple[Card, ...], ...]      # each player's row, left to right, in seating order
    rules: Rules
    pile: int | None                        # cards left to draw; None: not known (never runs out)
    discards: int = 0
    turn: int = 0                           # index into ``players``
    round: int = 1
    turns_taken: tuple[int, ...] = ()
    status: str = "in_progress"             # in_progress | finished
    winners: tuple[str, ...] = ()
    end_reason: str | None = None           # goal | no_cards

    def row(self, player: str) -> tuple[Card, ...]:
        return self.rows[self.players.index(player)]

    @property
    def current(self) -> str | None:
        return self.players[self.turn] if self.status == "in_progress" else None


@dataclass(frozen=True)
class Place:
    """``player`` slips ``card`` into gap ``gap`` (0..n) of ``row`` (the row's owner: their own)."""

    player: str
    row: str
    card: Card
    gap: int


@dataclass(frozen=True)
class Table:
    """The read model the kiosk draws and asks: every row by its owner, whose turn, the goal."""

    players: tuple[str, ...]
    rows: tuple[tuple[Card, ...], ...]
    current: str | None
    goal: int
    length_to_win: int
    pile: int | None
    discards: int
    round: int
    status: str
    winners: tuple[str, ...]
    end_reason: str | None

    def row(self, player: str) -> tuple[Card, ...]:
        return self.rows[self.players.index(player)]

    def fits(self, player: str, card: Card, gap: int) -> bool:
        """Whether ``card`` is right in gap ``gap`` of ``player``'s row (equal years either side)."""
        return fits(self.row(player), card, gap)

    def cards_to_goal(self, player: str) -> int:
        return max(0, self.length_to_win - len(self.row(player)))


# -- setup and lines ---------------------------------------------------------------------------------

def _choice(line: dict, key: str, allowed: tuple, default):
    value = line.get(key, default)
    if not any(value == a and type(value) is type(a) for a in allowed):
        raise BadInput(key, f"{value!r} is not one of {', '.join(map(str, allowed))}")
    return value


def _starts(line: dict, players: tuple[str, ...]) -> list[Card]:
    starts = line.get("starts")
    if not isinstance(starts, list) or len(starts) != len(players):
        raise BadInput("starts", f"one starting card for each of the {len(players)} players, in seating order")
    cards = [rounds.dated(rounds.card_at({"card": c}), f"starts[{i}]") for i, c in enumerate(starts)]
    codes = [c.code for c in cards if c.code]
    if len(set(codes)) != len(codes):
        raise BadInput("starts", "the same card is dealt to two rows")
    return cards


def setup(line: dict) -> State:
    rounds.check_keys(line, _SETUP_KEYS, "setup")
    if line.get("game") != GAME_ID:
        raise BadInput("game", f"{line.get('game')!r} is not {GAME_ID!r}")
    players = parse_players(line, MIN_PLAYERS, MAX_PLAYERS, "Personal timelines", "in seating order, the first "
                            "player first")
    starts = _starts(line, players)
    rules = Rules(goal=_choice(line, "goal", GOALS, 10), start_card_counts=rounds.flag(line, "start_card_counts", True),
                  finish_round=rounds.flag(line, "finish_round"),
                  reshuffle_discards=rounds.flag(line, "reshuffle_discards"),
                  ties=_choice(line, "ties", TIES, "shared"))
    pile = rounds.initial_pile(rounds.deck_size(line, starts), len(starts))
    state = State(players, tuple((c,) for c in starts), rules, pile, turns_taken=(0,) * len(players))
    return _after_turn(state, [])        # a box dealt to the last card leaves nothing to draw


def complete_setup(line: dict) -> dict:
    """The setup line as the log records it: with the box's size, so a stored game replays the same
    after its deck file changes."""
    players = line.get("players") if isinstance(line, dict) else None
    return rounds.with_deck_size(line, _starts(line, tuple(players) if isinstance(players, list) else ()))


def parse_action(line: dict) -> Place:
    player = rounds.check_place(line, "Personal timelines", _PLACE_KEYS)
    row = line.get("row", player)
    if not isinstance(row, str) or not row:
        raise BadInput("row", "the name of the row's owner is needed")
    return Place(player, row, rounds.card_at(line), rounds.whole(line, "gap", 0))


def action_to_json(action: Place) -> dict:
    return {"type": "place", "player": action.player, "row": action.row, "card": card_to_json(action.card),
            "gap": action.gap}


# -- play -------------------------------------------------------------------------------------------

def apply(state: State, action: Place) -> tuple[State, list[Event]]:
    s, a = state, action
    if s.status != "in_progress":
        return s, refuse(N_("the game is over"))
    for who in (a.player, a.row):
        if who not in s.players:
            return s, refuse(N_("{player} is not playing in this game"), player=who)
    if a.player != s.current:
        return s, refuse(N_("it is {expected}'s turn, not {player}'s"), expected=s.current, player=a.player)
    if a.row != a.player:
        return s, refuse(N_("{player} plays in their own row, not in {row}'s: move the card to {player}'s row"),
                         player=a.player, row=a.row)
    i = s.players.index(a.player)
    row = s.rows[i]
    if not 0 <= a.gap <= len(row):
        return s, refuse(N_("gap {gap} is outside 0..{n}"), gap=a.gap, n=len(row))
    for owner, other in zip(s.players, s.rows, strict=True):
        if a.card.code and any(c.code == a.card.code for c in other):
            return s, refuse(N_("{card} is already in {owner}'s row"), card=a.card.code, owner=owner)
    ok = fits(row, a.card, a.gap)
    events = [Event("card_placed", {"player": a.player, "year": a.card.year, "gap": a.gap, "correct": ok,
                                    "card": a.card})]
    taken = tuple(n + (k == i) for k, n in enumerate(s.turns_taken))
    s = evolve(s, pile=None if s.pile is None else s.pile - 1, turns_taken=taken)
    if ok:
        row = row[:a.gap] + (a.card,) + row[a.gap:]
        s = evolve(s, rows=s.rows[:i] + (row,) + s.rows[i + 1:])
        if len(row) >= s.rules.length_to_win:
            events.append(Event("goal_reached", {"player": a.player, "cards": len(row)}))
            if not s.rules.finish_round:
                return _end(s, (a.player,), "goal", events), events
    else:
        s = evolve(s, discards=s.discards + 1)
        events.append(Event("card_discarded", {"player": a.player}))
    s = evolve(s, turn=s.turn + 1)
    if s.turn == len(s.players):
        events.append(Event("round_ended", {"round": s.round}))
        s = evolve(s, turn=0, round=s.round + 1)
        reached = [p for p, r in zip(s.players, s.rows, strict=True) if len(r) >= s.rules.length_to_win]
        if reached:
            return _end(s, _longest(s, reached), "goal", events), events
    return _after_turn(s, events), events


def _after_turn(s: State, events: list[Event]) -> State:
    """The next player must draw: from the pile, from the discards shuffled (P3's flag), or nobody
    can, and the longest rows win."""
    if s.status != "in_progress" or s.pile != 0:
        return s
    if s.rules.reshuffle_discards and s.discards:
        events.append(Event("pile_reshuffled", {"cards": s.discards}))
        return evolve(s, pile=s.discards, discards=0)
    events.append(Event("pile_exhausted", {}))
    return _end(s, _longest(s, list(s.players)), "no_cards", events)


def _longest(s: State, among: list[str]) -> tuple[str, ...]:
    """The players of ``among`` with the longest rows; a tie as P4 says (shared, or fewer turns)."""
    most = max(len(s.row(p)) for p in among)
    best = [p for p in among if len(s.row(p)) == most]
    if s.rules.ties == "fewer_turns":
        least = min(s.turns_taken[s.players.index(p)] for p in best)
        best = [p for p in best if s.turns_taken[s.players.index(p)] == least]
    return tuple(best)


def _end(s: State, winners: tuple[str, ...], reason: str, events: list[Event]) -> State:
    events.append(Event("game_won" if len(winners) == 1 else "game_shared",
                        {"player": winners[0]} if len(winners) == 1 else {"players": list(winners)}))
    return evolve(s, status="finished", winners=winners, end_reason=reason)


# -- the read model ----------------------------------------------------------------------------------

class Summary(base.Summary, total=False):
    """The keys of the game's own beside every game's (companion.games.base.Summary)."""

    goal: int                              # cards a row must hold to win (the start card counted, P1)
    rows: dict[str, list[int | None]]      # each player's row, its years left to right
    lengths: dict[str, int]                # cards in each row


def summary_words(summary: Summary) -> list[Text]:
    """What ``companion replay`` says of the game's own keys: each player's row, its dates as the cards
    write them."""
    return [Words(N_("{player}'s row: {years}"),
                  {"player": player, "years": later(lambda lang, years=years: " · ".join(
                      "·" if y is None else date_words(y, lang) for y in years))})
            for player, years in summary.get("rows", {}).items()]


def summary(s: State) -> Summary:
    return {"game": GAME_ID, "status": s.status, "winner": s.winners[0] if len(s.winners) == 1 else None,
            "winners": list(s.winners), "turn": s.current, "round": s.round, "goal": s.rules.goal,
            "rows": {p: [c.year for c in r] for p, r in zip(s.players, s.rows, strict=True)},
            "lengths": {p: len(r) for p, r in zip(s.players, s.rows, strict=True)},
            "stock": s.pile, "discard": s.discards, "end_reason": s.end_reason}


def outcome(s: State) -> Outcome:
    return Outcome(s.status, s.winners, s.end_reason)


IN_ROW = NP_("{n} card in the row", "{n} cards in the row")


def standings(s: State) -> Standings:
    """The rows by their length, the winners first: a game without points (``companion score``)."""
    figures = [(p, len(r), plural(IN_ROW, len(r))) for p, r in zip(s.players, s.rows, strict=True)]
    n = s.rules.length_to_win
    names = ", ".join(s.winners)
    if s.end_reason == "goal":
        why = Text(N_("{players}: the first row to reach the goal of {n} cards."), {"players": names, "n": n})
    elif s.end_reason == "no_cards":
        why = Text(N_("{players}: the longest row when the pile was spent."), {"players": names})
    else:
        why = Text(N_("In progress, {player} to play: the first row to reach {n} cards wins; the longest rows "
                      "lead."), {"player": s.current or "?", "n": n})
    return Standings(ranked(figures, s.winners, fewer_is_better=False), why)


def current_player(s: State) -> str | None:
    return s.current


def cards_on_table(s: State) -> tuple[Card, ...]:
    return tuple(c for r in s.rows for c in r)


def table(s: State) -> Table:
    return Table(s.players, s.rows, s.current, s.rules.goal, s.rules.length_to_win, s.pile, s.discards, s.round,
                 s.status, s.winners, s.end_reason)
