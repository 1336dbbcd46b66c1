"""What Timeline and Cronología's competitive mode share: one row of dated cards, rounds in seating
order, hidden hands known only by their size, a draw pile, a pile of spent cards (Timeline's box,
Cronología's discard pile), the end-of-round win check and sudden death.

The two engines (``timeline.py``, ``cronologia.py``) differ only where their rules differ, through
:class:`RowRules`. Everything here is pure: functions take a frozen :class:`RowState` and return a new
one plus the events that happened.
"""

from __future__ import annotations

from dataclasses import dataclass

from companion.cards.json_cards import parse_card
from companion.cards.model import Card
from companion.errors import BadInput
from companion.games.base import Event, Illegal, Outcome, Standings, Summary, ranked
from companion.games.base import parse_players as base_players
from companion.i18n import N_, NP_, Text, plural

MIN_PLAYERS, MAX_PLAYERS = 2, 8


@dataclass(frozen=True)
class RowRules:
    """How a row game draws and decides; built from the setup line's options."""

    miss_draws_in_sudden_death: bool = True      # Timeline: yes; Cronología (C4): no, unless the flag
    draw_each_sudden_death_round: bool = False   # Cronología: every survivor draws 1 as each round starts
    reshuffle_spent: bool = True                 # Timeline T3 / Cronología C13: refill the pile from the spent cards
    reshuffle_only_between_rounds: bool = False  # Cronología C13 flag
    wrong_card_to_row: bool = False              # Timeline T4 flag
    ends_closed: bool = False                    # Cronología C1 flag: only "between two" cards


@dataclass(frozen=True)
class RowState:
    players: tuple[str, ...]          # seating order, the first player (the youngest) first
    hands: tuple[int, ...]            # hidden cards each player holds, in seating order
    row: tuple[Card, ...]             # the face-up row, left to right
    rules: RowRules
    active: tuple[str, ...] = ()      # players still in the game, seating order
    turn: int = 0                     # index into ``active`` of the player to play
    round: int = 1
    pile: int | None = None           # cards in the draw pile; None = not known (never runs out)
    spent: int = 0                    # boxed (Timeline) or discarded (Cronología) cards
    sudden_death: bool = False
    emptied: tuple[str, ...] = ()     # placed their last card correctly this round
    correct: tuple[str, ...] = ()     # placed a card correctly this round
    eliminated: tuple[str, ...] = ()
    status: str = "in_progress"       # in_progress | finished
    winner: str | None = None

    def hand(self, player: str) -> int:
        return self.hands[self.players.index(player)]

    @property
    def current(self) -> str | None:
        if self.status != "in_progress" or self.turn >= len(self.active):
            return None
        return self.active[self.turn]


def evolve(state, **changes):
    """``dataclasses.replace`` for the engines' frozen states, without its per-field checks: replaying
    a log calls this several times per action and ``replace`` was most of the time (bench engine)."""
    new = object.__new__(type(state))
    new.__dict__.update(state.__dict__)
    new.__dict__.update(changes)
    return new


# -- parsing ---------------------------------------------------------------------------------------
def parse_players(line: dict) -> tuple[str, ...]:
    return base_players(line, MIN_PLAYERS, MAX_PLAYERS, "this game", "in seating order, the youngest first")


def check_keys(line: dict, known: tuple[str, ...], what: str) -> None:
    if not isinstance(line, dict):
        raise BadInput("", f"a {what} line must be a JSON object")
    for key in line:
        if key not in known:
            raise BadInput(key, f"unknown field in a {what} line; known: {', '.join(known)}")


def check_place(line: dict, game: str, known: tuple[str, ...]) -> str:
    """A row game's one action, a "place" line with only the ``known`` fields: its player."""
    if not isinstance(line, dict):
        raise BadInput("", "an action line must be a JSON object")
    kind = line.get("type")
    if kind != "place":
        raise BadInput("type", f"{kind!r} is not a {game} action; the only one is \"place\"")
    check_keys(line, known, "place")
    return player_of(line)


def flag(line: dict, key: str, default: bool = False) -> bool:
    value = line.get(key, default)
    if not isinstance(value, bool):
        raise BadInput(key, f"{value!r} is not true or false")
    return value


def whole(line: dict, key: str, lo: int, hi: int | None = None) -> int:
    value = line.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise BadInput(key, "a whole number is needed" if value is None else f"{value!r} is not a whole number")
    if value < lo or (hi is not None and value > hi):
        raise BadInput(key, f"{value} is outside {lo}..{hi}" if hi is not None else f"{value} is less than {lo}")
    return value


def player_of(line: dict) -> str:
    p = line.get("player")
    if not isinstance(p, str) or not p:
        raise BadInput("player", "the player's name is needed")
    return p


def deck_size(line: dict, cards: list[Card]) -> int | None:
    """How many cards the box holds: ``deck_size`` in the setup, else the deck the sticker codes come
    from, else unknown (None: the draw pile never runs out). A game the kiosk starts records its size
    (:func:`with_deck_size`); the deck file is read only for a log written before it did, or by hand."""
    if "deck_size" in line:
        return whole(line, "deck_size", 1)
    decks = {c.code.split(":")[1] for c in cards if c.code}
    if len(decks) == 1 and all(c.code for c in cards):
        from companion.cards.decks import get_deck
        return len(get_deck(decks.pop()))
    return None


def with_deck_size(line: dict, cards: list[Card]) -> dict:
    """The setup line with the box's size written in, so that the log replays the same after the deck
    file changes (a card added to the deck must not change a stored game's draw pile)."""
    size = deck_size(line, cards)
    if size is None or "deck_size" in line:
        return line
    return {**line, "deck_size": size}


def initial_pile(size: int | None, used: int) -> int | None:
    if size is None:
        return None
    if used > size:
        raise BadInput("deck_size", f"a box of {size} cards cannot deal {used}")
    return size - used


def card_at(line: dict, key: str = "card") -> Card:
    return dated(parse_card(line.get(key), key), key)


def dated(card: Card, where: str) -> Card:
    """A card of a row game, which must have a year: an Einstein or Ancient Knowledge sticker has none."""
    if card.year is None:
        named = f"{card.code} ({card.label()})" if card.code else card.label()
        raise BadInput(where, f"{named} has no year; Timeline and Cronología place only dated cards")
    return card


def year(card: Card | None) -> int:
    """The year of a card in a row or grid. Parsing lets in only dated cards, so None here is a bug."""
    if card is None or card.year is None:
        raise TypeError(f"a row game holds an undated card: {card!r}")
    return card.year


# -- play ------------------------------------------------------------------------------------------
def fits(row: tuple[Card, ...], card: Card, gap: int) -> bool:
    """The placement predicate of both rule sheets; equal years may lie on either side."""
    y = year(card)
    return (gap == 0 or year(row[gap - 1]) <= y) and (gap == len(row) or y <= year(row[gap]))


def sorted_gap(row: tuple[Card, ...], card: Card) -> int:
    """The right-most gap that keeps the row sorted (after every card with year <= the card's)."""
    y = year(card)
    return sum(1 for c in row if year(c) <= y)


def check_turn(s: RowState, player: str) -> None:
    if s.status != "in_progress":
        raise Illegal(N_("the game is over"))
    if player not in s.players:
        raise Illegal(N_("{player} is not playing in this game"), player=player)
    if player in s.eliminated:
        raise Illegal(N_("{player} was eliminated in sudden death"), player=player)
    if player != s.current:
        raise Illegal(N_("it is {expected}'s turn, not {player}'s"), expected=s.current, player=player)
    if s.hand(player) == 0:
        raise Illegal(N_("{player} holds no card"), player=player)


def place(s: RowState, player: str, card: Card, gap: int, events: list[Event]) -> tuple[RowState, bool]:
    """One card put into a gap and turned over. Returns the state (the turn not yet passed) and
    whether the card was correct."""
    check_turn(s, player)
    n = len(s.row)
    if not 0 <= gap <= n:
        raise Illegal(N_("gap {gap} is outside 0..{n}"), gap=gap, n=n)
    if s.rules.ends_closed and n >= 2 and gap in (0, n):
        raise Illegal(N_("only the gaps between two cards are open (gaps 1..{last})"), last=n - 1)
    for c in s.row:
        if card.code and c.code == card.code:
            raise Illegal(N_("{card} is already in the row"), card=card.code)
    ok = fits(s.row, card, gap)
    events.append(Event("card_placed", {"player": player, "year": card.year, "gap": gap, "correct": ok,
                                        "card": card}))
    hands = list(s.hands)
    i = s.players.index(player)
    hands[i] -= 1
    s = evolve(s, hands=tuple(hands))
    if ok:
        s = evolve(s, row=s.row[:gap] + (card,) + s.row[gap:], correct=s.correct + (player,))
        if s.hand(player) == 0:
            s = evolve(s, emptied=s.emptied + (player,))
        return s, True
    if s.rules.wrong_card_to_row:
        at = sorted_gap(s.row, card)
        s = evolve(s, row=s.row[:at] + (card,) + s.row[at:])
        events.append(Event("card_to_row", {"player": player, "gap": at}))
    else:
        s = evolve(s, spent=s.spent + 1)
        events.append(Event("card_spent", {"player": player}))
    if not s.sudden_death or s.rules.miss_draws_in_sudden_death:
        s = draw(s, player, events)
    return s, False


def draw(s: RowState, player: str, events: list[Event], between_rounds: bool = False) -> RowState:
    """``player`` draws one card: from the pile, from the spent cards reshuffled, or not at all."""
    pile, spent = s.pile, s.spent
    reshuffle_now = between_rounds or not s.rules.reshuffle_only_between_rounds
    if pile == 0 and spent and s.rules.reshuffle_spent and reshuffle_now:
        pile, spent = spent, 0
        events.append(Event("pile_reshuffled", {"cards": pile}))
    if pile == 0:
        events.append(Event("draw_skipped", {"player": player}))
        return evolve(s, pile=pile, spent=spent)
    hands = list(s.hands)
    hands[s.players.index(player)] += 1
    events.append(Event("card_drawn", {"player": player}))
    return evolve(s, hands=tuple(hands), pile=None if pile is None else pile - 1, spent=spent)


def pass_turn(s: RowState, events: list[Event]) -> RowState:
    """The next player of the round, or the end of the round. Players without a card (the pile ran
    dry) cannot play and are passed over."""
    s = evolve(s, turn=s.turn + 1)
    while True:
        while s.turn < len(s.active) and s.hand(s.active[s.turn]) == 0:
            events.append(Event("turn_passed", {"player": s.active[s.turn]}))
            s = evolve(s, turn=s.turn + 1)
        if s.turn < len(s.active):
            return s
        s = end_of_round(s, events)
        if s.status != "in_progress":
            return s
        if not any(s.hand(p) for p in s.active):
            events.append(Event("game_drawn", {"reason": "no cards left to play"}))
            return evolve(s, status="finished", winner=None)
        if s.turn < len(s.active) and s.hand(s.active[s.turn]):
            return s


def end_of_round(s: RowState, events: list[Event]) -> RowState:
    """The win check, run only when every active player has played (both rule sheets)."""
    finishers = s.correct if s.sudden_death else s.emptied
    finishers = tuple(p for p in s.active if p in finishers)
    events.append(Event("round_ended", {"round": s.round}))
    if len(finishers) == 1:
        events.append(Event("game_won", {"player": finishers[0]}))
        return evolve(s, status="finished", winner=finishers[0], turn=0, emptied=(), correct=())
    if len(finishers) >= 2:
        out = tuple(p for p in s.active if p not in finishers)
        if not s.sudden_death:
            events.append(Event("sudden_death_started", {"players": list(finishers)}))
        for p in out:
            events.append(Event("player_eliminated", {"player": p}))
        s = evolve(s, active=finishers, eliminated=s.eliminated + out, sudden_death=True)
        if not s.rules.draw_each_sudden_death_round:
            for p in finishers:
                s = draw(s, p, events, between_rounds=True)
    s = evolve(s, round=s.round + 1, turn=0, emptied=(), correct=())
    if s.sudden_death and s.rules.draw_each_sudden_death_round:
        for p in s.active:
            s = draw(s, p, events, between_rounds=True)
    return s


def row_outcome(s: RowState) -> Outcome:
    return Outcome(s.status, (s.winner,) if s.winner else ())


IN_HAND = NP_("{n} card in hand", "{n} cards in hand")


def row_standings(s: RowState) -> Standings:
    """A row game's standings (Timeline, Cronología competitive): the winner, then the fewest cards in
    hand; a player out in the sudden death last."""
    first = (s.winner,) if s.winner else ()
    out = len(s.players) * 1000          # after every hand still in the game
    figures = [(p, n + (out if p in s.eliminated else 0),
                Text(N_("out in the sudden death")) if p in s.eliminated else plural(IN_HAND, n))
               for p, n in zip(s.players, s.hands, strict=True)]
    if s.status == "finished" and s.winner:
        why = Text(N_("{player} won: the first to place their last card correctly, no card left in hand."),
                   {"player": s.winner})
    elif s.status == "finished":
        why = Text(N_("The game ended without a winner."))
    else:
        why = Text(N_("In progress, {player} to play: the first to place their last card correctly wins; the "
                      "fewest cards in hand lead."), {"player": s.current or "?"})
    return Standings(ranked(figures, first, fewer_is_better=True), why)


def row_summary(s: RowState, game: str) -> Summary:
    return {"game": game, "status": s.status, "winner": s.winner, "round": s.round,
            "eliminated": list(s.eliminated), "hands": dict(zip(s.players, s.hands, strict=True)),
            "timeline": [c.year for c in s.row], "sudden_death": s.sudden_death,
            "turn": s.current, "pile": s.pile}
