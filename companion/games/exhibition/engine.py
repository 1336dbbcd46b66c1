"""Exhibition: Twentieth Century referee (rules: shared/spec/games/exhibition.md; log lines, spot
names and the summary: docs/exhibition.md).

A turn is four steps -- take a card from the column under your vehicle, move the vehicle to the
card's continent (the players name it after a white card), refill the market from the stock, place
the card in a showcase where it is legal or in the Depot -- or, when the card fits nowhere in the
Hall, ``finish``: the card is discarded and that player's exhibition is over. Move, refill and place
may come in any order once the card is taken; the turn passes when all are done. Finished players
are skipped; the game ends when everyone is finished, or when the stock and the market are empty.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from operator import itemgetter
from typing import Any, NoReturn

from companion.errors import BadInput
from companion.games.base import Event, Outcome, Summary, outcome_of, parse_players, refused, scored
from companion.games.base import Illegal as _Illegal
from companion.games.exhibition import actions as A
from companion.games.exhibition.actions import action_to_json, parse_action  # noqa: F401 (contract)
from companion.games.exhibition.board import (
    CONTINENTS,
    DEPOT,
    SHOWCASES,
    Layout,
    board,
    layout_warnings,
    parse_layout,
    spot_name,
)
from companion.games.exhibition.cards import Card, card_json, coloured, label, parse, said, said_all, same_card
from companion.games.exhibition.options import Options, parse_options
from companion.games.exhibition.rules import Context, Exhibit, claims_against, hall_spots_for, placement_problem
from companion.games.exhibition.score import GAME_ID, MAX_PLAYERS, Final, score_finals
from companion.games.exhibition.state import GameState, Player, Turn, sort_column
from companion.i18n import N_

_SETUP_KEYS = ("type", "game", "players", "market", "stock", "first_player", "layout", "variations", "options",
               "secret_decade")


def _no(msgid: str, **params) -> NoReturn:
    raise _Illegal(msgid, **params)


# ---------------------------------------------------------------------------------------------
# Setup


def setup(line: dict) -> GameState:
    """The state from the setup line; BadInput names the field."""
    if not isinstance(line, dict):
        raise BadInput("", "the setup line must be a JSON object")
    for key in line:
        if key not in _SETUP_KEYS:
            raise BadInput(key, f"unknown setup field; known: {', '.join(_SETUP_KEYS)}")
    if line.get("game") != GAME_ID:
        raise BadInput("game", f"{line.get('game')!r} is not {GAME_ID!r}")
    names = list(parse_players(line, 1, MAX_PLAYERS, "Exhibition", "in seating order, clockwise, the oldest first"))
    layout = parse_layout(line.get("layout"), line.get("variations"))
    options = parse_options(line.get("options"))
    secret = line.get("secret_decade", False)
    if not isinstance(secret, bool):
        raise BadInput("secret_decade", f"{secret!r} is not true or false (the Secret Decade variant)")
    first = line.get("first_player", names[0])
    if first not in names:
        raise BadInput("first_player", f"{first!r} is not one of the players ({', '.join(names)})")
    start = names.index(first)
    market = _setup_market(line.get("market"))
    in_market = sum(len(c) for c in market)
    stock = line.get("stock", board().cards_in_game - in_market)
    if not isinstance(stock, int) or isinstance(stock, bool) or stock < 0:
        raise BadInput("stock", f"{stock!r} is not a number of face-down cards (0 or more)")
    b = board()
    players = []
    for seat, name in enumerate(names):
        offset = (seat - start) % len(names)
        players.append(Player(Exhibit.empty(name, layout), b.vehicles[offset], b.start_continents[offset]))
    return GameState(layout, options, secret, tuple(players), start, market, stock, start)


def _setup_market(market) -> tuple[tuple[Card, ...], ...]:
    per = board().cards_per_column
    if not isinstance(market, dict):
        raise BadInput("market", f"the {per} face-up cards under each continent are needed, e.g. "
                                 f'{{"OC": [card, card, card], "SA": [...], ...}}')
    for key in market:
        if key not in CONTINENTS:
            raise BadInput(f"market.{key}", f"not a continent; the columns are {' '.join(CONTINENTS)}")
    seen: dict[str, str] = {}
    columns = []
    for k in CONTINENTS:
        cards = market.get(k)
        if not isinstance(cards, list) or len(cards) != per:
            raise BadInput(f"market.{k}", f"{per} cards are dealt under each continent")
        column = []
        for j, obj in enumerate(cards):
            where = f"market.{k}[{j}]"
            card = parse(obj, where)
            ident = card.code or (f"white {card.white}" if card.white else None)
            if ident is not None:
                if ident in seen:
                    raise BadInput(where, f"{label(card)} is already at {seen[ident]}; every card exists once")
                seen[ident] = where
            column.append(card)
        columns.append(sort_column(column))
    return tuple(columns)


# ---------------------------------------------------------------------------------------------
# apply


def apply(state: GameState, action: A.Action) -> tuple[GameState, list[Event]]:
    """The new state and what happened; an illegal action gives the same state and one Refused."""
    try:
        p = state.index(action.player)
        if p is None:
            _no(N_("{player} is not playing; the players are {players}."), player=action.player,
                players=", ".join(pl.name for pl in state.players))
        events: list[Event] = []
        if isinstance(action, A.Secret):
            return _secret(state, p, action, events), events
        if state.finished:
            _no(N_("The game is over."))
        if p != state.current:
            _no(N_("It is {expected}'s turn, not {player}'s."), expected=state.player.name, player=action.player)
        new = _HANDLERS[type(action)](state, action, events)
        return _advance(new, events), events
    except _Illegal as e:
        return state, refused(e.reason)


def _ctx(s: GameState, p: int) -> Context:
    return Context(s.layout, s.options, len(s.players), claims_against(s.exhibits, p, s.layout))


def _move(s: GameState, a: A.Move, events: list[Event]) -> GameState:
    me, turn = s.player, s.turn
    if turn.needs_move:
        events.append(Event("vehicle_moved", {"player": me.name, "from": me.at, "to": a.to, "white": True}))
        return replace(s.with_player(s.current, at=a.to), turn=replace(turn, needs_move=False))
    if turn.taken:
        _no(N_("{player}'s vehicle already went to the card's continent; it moves again only after a white card."),
            player=me.name)
    if s.column(me.at):
        _no(N_("The {continent} column still holds cards: take one of them; the vehicle moves first only when its "
               "column is empty."), continent=me.at)
    if not s.column(a.to):
        _no(N_("The {continent} column is empty too; move to a continent that has cards."),
            continent=a.to)
    events.append(Event("vehicle_moved", {"player": me.name, "from": me.at, "to": a.to, "white": False}))
    return s.with_player(s.current, at=a.to)


def _take(s: GameState, a: A.Take, events: list[Event]) -> GameState:
    me = s.player
    if s.turn.taken:
        _no(N_("{player} has already taken {card} this turn."), player=me.name,
            card=said(s.turn.held) if s.turn.held else said(a.card))
    column = s.column(me.at)
    if not column:
        _no(N_("The {continent} column under {player}'s vehicle is empty: first move the vehicle to another "
               "continent."), continent=me.at, player=me.name)
    i = next((j for j, c in enumerate(column) if same_card(c, a.card)), None)
    if i is None:
        elsewhere = next((k for k in CONTINENTS if any(same_card(c, a.card) for c in s.column(k))), None)
        if elsewhere is not None:
            _no(N_("{card} lies in the {other} column, but {player}'s vehicle stands on {continent}: take from "
                   "{continent} ({cards})."), card=said(a.card), other=elsewhere, player=me.name,
                continent=me.at, cards=said_all(column))
        _no(N_("{card} is not in the market; the {continent} column holds {cards}."), card=said(a.card),
            continent=me.at, cards=said_all(column))
    card = column[i]
    s = s.with_column(me.at, column[:i] + column[i + 1:])
    turn = Turn(held=card, column=me.at, needs_refill=s.stock > 0)
    events.append(Event("taken", {"player": me.name, "card": card_json(card), "column": me.at}))
    if coloured(card):
        if card.continent != me.at:
            events.append(Event("vehicle_moved", {"player": me.name, "from": me.at, "to": card.continent,
                                                  "white": False}))
        s = s.with_player(s.current, at=card.continent)
    else:
        turn = replace(turn, needs_move=True)
        events.append(Event("choose_continent", {"player": me.name, "card": card_json(card)}))
    s = replace(s, turn=turn)
    fits = hall_spots_for(card, s.player.exhibit, _ctx(s, s.current))
    depot_free = sum(1 for c in s.player.exhibit.depot if c is None)
    events.append(Event("choices", {"player": me.name, "card": card_json(card), "fits": fits,
                                    "depot_free": depot_free}))
    return s


def _in_play(s: GameState, card: Card) -> str | None:
    """Where a physical card already lies (by sticker code, or the one white card of its kind)."""
    if card.code is None and card.white is None:
        return None    # a card known only by its facts: duplicates are allowed (A14)

    def same(c):
        return c is not None and (c.code == card.code if card.code else c.white == card.white)
    for k in CONTINENTS:
        if any(same(c) for c in s.column(k)):
            return f"market {k}"
    for pl in s.players:
        for key, spots in pl.exhibit.hall + ((DEPOT, pl.exhibit.depot),):
            for i, c in enumerate(spots):
                if same(c):
                    return f"{pl.name} {spot_name(key, i)}"
    if same(s.turn.held):
        return s.player.name
    if any(same(c) for c in s.discarded):
        return "discard"
    return None


def _refill(s: GameState, a: A.Refill, events: list[Event]) -> GameState:
    me, turn = s.player, s.turn
    if not turn.taken:
        _no(N_("Nothing to refill yet: {player} has not taken a card this turn."), player=me.name)
    if not turn.needs_refill or turn.column is None:     # a refill is needed only after a take from a column
        _no(N_("The {continent} column was already refilled this turn, or the stock is empty."),
            continent=turn.column)
    if a.card is None:
        events.append(Event("stock_empty", {"expected": s.stock}))
        return replace(s, stock=0, turn=replace(turn, needs_refill=False))
    where = _in_play(s, a.card)
    if where is not None:
        _no(N_("{card} is already in play ({where}); the refill comes from the face-down stock."),
            card=said(a.card), where=where)
    s = s.with_column(turn.column, s.column(turn.column) + (a.card,))
    events.append(Event("refilled", {"column": turn.column, "card": card_json(a.card), "stock": s.stock - 1}))
    return replace(s, stock=s.stock - 1, turn=replace(turn, needs_refill=False))


def _place(s: GameState, a: A.Place, events: list[Event]) -> GameState:
    me, turn = s.player, s.turn
    if turn.placed:
        _no(N_("{player} has already placed this turn's card."), player=me.name)
    if turn.held is None:
        _no(N_("{player} holds no card to place: take one first."), player=me.name)
    if not same_card(turn.held, a.card):
        _no(N_("{player} took {held}, not {card}."), player=me.name, held=said(turn.held), card=said(a.card))
    key, index = _spot(s, a.spot)
    card = turn.held
    problem = placement_problem(card, key, index, me.exhibit, _ctx(s, s.current))
    if problem is not None:
        _no(problem.msgid, **problem.params)
    s = s.with_player(s.current, exhibit=me.exhibit.with_card(key, index, card))
    events.append(Event("placed", {"player": me.name, "card": card_json(card), "spot": a.spot}))
    me = s.player
    if key == "one_continent" and s.layout.overlay(key) is None and coloured(card) and \
            sum(1 for c in me.exhibit.showcase(key) if coloured(c)) == 1:
        events.append(Event("continent_claimed", {"player": me.name, "continent": card.continent}))
    if key != DEPOT and me.six_continents_round is None and len(me.exhibit.continents()) == len(CONTINENTS):
        s = s.with_player(s.current, six_continents_round=s.round)
        order = sum(1 for pl in s.players if pl.six_continents_round is not None)
        events.append(Event("six_continents", {"player": me.name, "round": s.round, "order": order}))
    return replace(s, turn=replace(turn, held=None, placed=True))


def _spot(s: GameState, spot: str) -> tuple[str, int]:
    try:
        key, index = spot[:spot.index("[")], int(spot[spot.index("[") + 1:-1])
    except ValueError:
        _no(N_("{spot} is not a spot name."), spot=spot)
    if key not in SHOWCASES and key != DEPOT:
        _no(N_("{spot}: there is no showcase {key}; the showcases are {keys}, and the depot."), spot=spot, key=key,
            keys=", ".join(SHOWCASES))
    n = s.layout.size(key)
    if index >= n:
        _no(N_("{spot}: {key} has {count} spots in this layout ({key}[0] to {key}[{last}])."), spot=spot, key=key,
            count=n, last=n - 1)
    return key, index


def _finish(s: GameState, a: A.Finish, events: list[Event]) -> GameState:
    me, turn = s.player, s.turn
    if turn.held is None:
        _no(N_("{player} may finish only holding a card that fits nowhere in the Hall."), player=me.name)
    fits = hall_spots_for(turn.held, me.exhibit, _ctx(s, s.current))
    if fits:
        _no(N_("{card} fits in {spot}; an exhibition ends only with a card that fits nowhere in the Hall."),
            card=said(turn.held), spot=", ".join(fits[:3]) + (" ..." if len(fits) > 3 else ""))
    events.append(Event("discarded", {"player": me.name, "card": card_json(turn.held)}))
    events.append(Event("exhibition_finished", {"player": me.name, "reason": "fits_nowhere"}))
    s = s.with_player(s.current, finished=True, finish_reason="fits_nowhere", discarded=turn.held)
    return replace(s, discarded=s.discarded + (turn.held,), turn=replace(turn, held=None, placed=True))


def _secret(s: GameState, p: int, a: A.Secret, events: list[Event]) -> GameState:
    if not s.secret_variant:
        _no(N_("This game is played without the Secret Decade variant."))
    if s.players[p].secret_decade is not None:
        _no(N_("{player}'s Secret Decade is already recorded."), player=a.player)
    holder = next((pl.name for pl in s.players if pl.secret_decade == a.decade), None)
    if holder is not None:      # A30: one Secret Decade card per decade
        _no(N_("{player} cannot hold the {decade}s: that Secret Decade is {holder}'s, and there is one card per "
               "decade."), player=a.player, decade=a.decade, holder=holder)
    events.append(Event("secret_decade", {"player": a.player}))
    return s.with_player(p, secret_decade=a.decade)


_HANDLERS: dict[type, Callable[[GameState, Any, list[Event]], GameState]] = {
    A.Take: _take, A.Move: _move, A.Refill: _refill, A.Place: _place, A.Finish: _finish}


def _advance(s: GameState, events: list[Event]) -> GameState:
    """End the turn once every step is done: a full Hall finishes that player; the next unfinished
    player in seating order plays (a new round when the turn passes the start player)."""
    if not s.turn.done:
        return s
    me = s.player
    if not me.finished and me.exhibit.hall_full:
        s = s.with_player(s.current, finished=True, finish_reason="hall_full")
        events.append(Event("exhibition_finished", {"player": me.name, "reason": "hall_full"}))
    s = replace(s, turn=Turn())
    if all(pl.finished for pl in s.players):
        return _game_over(s, "all_finished", events)
    if s.stock == 0 and not s.market_cards():
        return _game_over(s, "no_cards", events)
    n = len(s.players)
    offset = (s.current - s.start) % n
    for step in range(1, n + 1):
        nxt = (s.current + step) % n
        if not s.players[nxt].finished:
            break
    new_round = (nxt - s.start) % n <= offset
    s = replace(s, current=nxt, round=s.round + 1 if new_round else s.round)
    if new_round:
        events.append(Event("round", {"round": s.round}))
    events.append(Event("turn", {"player": s.player.name, "round": s.round}))
    return s


def _game_over(s: GameState, reason: str, events: list[Event]) -> GameState:
    for i, pl in enumerate(s.players):
        if not pl.finished:
            s = s.with_player(i, finished=True, finish_reason="game_over")
    events.append(Event("game_over", {"reason": reason}))
    return replace(s, finished=True, end_reason=reason)


# ---------------------------------------------------------------------------------------------
# Scores and the summary


def final_score(state: GameState) -> dict:
    """The score document of the boards as they lie (the same as ``companion score``)."""
    finals = [Final(p.exhibit, p.six_continents_round, p.secret_decade) for p in state.players]
    return score_finals(finals, state.layout, state.options, state.market_cards() if len(state.players) == 1 else ())


def missing_secrets(state: GameState) -> list[str]:
    if not state.secret_variant:
        return []
    return [p.name for p in state.players if p.secret_decade is None]


def _player_json(s: GameState, p: Player) -> dict:
    ex = p.exhibit
    out = {
        "name": p.name,
        "vehicle": p.vehicle,
        "at": p.at,
        "finished": p.finished,
        "finish_reason": p.finish_reason,
        "showcases": {k: [card_json(c) for c in spots] for k, spots in ex.hall},
        "depot": [card_json(c) for c in ex.depot],
        "hall_filled": ex.filled,
        "hall_size": s.layout.hall_size,
        "six_continents_round": p.six_continents_round,
        "continents": sorted(ex.continents(), key=CONTINENTS.index),
    }
    if p.discarded is not None:
        out["discarded"] = card_json(p.discarded)
    if s.secret_variant:
        if s.finished:
            out["secret_decade"] = p.secret_decade
        else:
            out["secret_decade_recorded"] = p.secret_decade is not None
    return out


def summary(state: GameState) -> Summary:
    """The ``companion replay --json`` document: everything a board view draws; the final scores
    once the game is over (and, in the Secret Decade variant, every decade is recorded)."""
    s = state
    claims = {}
    if s.layout.overlay("one_continent") is None:
        for p in s.players:
            for c in p.exhibit.showcase("one_continent"):
                if coloured(c):
                    claims[c.continent] = p.name
                    break
    out: Summary = {
        "game": GAME_ID,
        "status": "finished" if s.finished else "in_progress",
        "round": s.round,
        "turn": None if s.finished else s.player.name,
        "waiting_for": [] if s.finished else s.turn.waiting_for(),
        "held": card_json(s.turn.held),
        "players": [_player_json(s, p) for p in s.players],
        "market": {k: [card_json(c) for c in s.column(k)] for k in CONTINENTS},
        "stock": s.stock,
        "layout": s.layout.to_json(),
        "variations": s.layout.variations_json(),
        "options": s.options.to_json(),
        "secret_decade_variant": s.secret_variant,
        "claims": claims,
        "six_continents": sorted(({"player": p.name, "round": p.six_continents_round} for p in s.players
                                  if p.six_continents_round is not None), key=itemgetter("round")),
        "end_reason": s.end_reason,
    }
    warnings = layout_warnings(s.layout)
    if warnings:
        out["warnings"] = [w.render("en") for w in warnings]
    if s.finished:
        missing = missing_secrets(s)
        if missing:
            out["waiting_for"] = [f"secret decade of {name}" for name in missing]
        else:
            out.update(scored(final_score(s)))
    return out


def outcome(state: GameState) -> Outcome:
    """Who won once the game is over (none while a Secret Decade is still to be recorded) and how it
    ended (``all_finished``, ``no_cards``)."""
    return outcome_of(summary(state)) if state.finished else Outcome()


def current_player(state: GameState) -> str | None:
    return None if state.finished else state.player.name


def cards_on_table(state: GameState) -> tuple[Card, ...]:
    """The market's columns, then each player's showcases and depot."""
    out = [c for column in state.market for c in column]
    for p in state.players:
        out += [c for _spot, c in p.exhibit.hall_cards()]
        out += p.exhibit.depot_cards
    return tuple(out)


# ---------------------------------------------------------------------------------------------
# The table as the views draw it (the read model beside the summary, typed)


@dataclass(frozen=True)
class Seat:
    """One player as the board views draw them."""

    name: str
    exhibit: Exhibit                      # the Hall and the Depot as they lie
    at: str                               # the continent the vehicle stands on
    finished: bool                        # this player's exhibition is over


@dataclass(frozen=True)
class Table:
    """What the kiosk's views draw and ask about (``table(state)``): every player's board, the market,
    whose turn and which step of it, and the placement rule's answer for the active player's Hall.
    The views read this, never the state, so the engine may keep its state as it likes."""

    layout: Layout
    options: Options
    seats: tuple[Seat, ...]               # seating order
    active: int                           # the seat whose turn it is (the last one, once the game is over)
    market: tuple[tuple[Card, ...], ...]  # one column per continent, CONTINENTS order, in year order
    stock: int                            # face-down cards left
    round: int
    finished: bool
    missing_secrets: tuple[str, ...]      # Secret Decade variant: the players who have not chosen yet
    held: Card | None                     # taken this turn and not yet placed
    refill_column: str | None             # the market column the card came from (to refill)
    needs_move: bool                      # a white card was taken: the players name a continent
    needs_refill: bool                    # a card of the stock goes into the emptied spot
    placed: bool                          # the card taken is placed (or discarded by finishing)
    discarded: tuple[Card, ...]           # out of play: discarded from the market and ending exhibitions

    @property
    def me(self) -> Seat:
        return self.seats[self.active]

    @property
    def taken(self) -> bool:
        return self.held is not None or self.placed

    def column(self, continent: str) -> tuple[Card, ...]:
        return self.market[CONTINENTS.index(continent)]

    def in_play(self) -> list[Card]:
        """Every card out of the stock: the market, the boards, the discards and the card held."""
        out = [c for col in self.market for c in col] + list(self.discarded)
        for seat in self.seats:
            out += [c for _, c in seat.exhibit.hall_cards()] + seat.exhibit.depot_cards
        if self.held is not None:
            out.append(self.held)
        return out

    def hall_spots_for(self, card: Card) -> list[str]:
        """The spots of the active player's Hall where ``card`` may lie now (the placement rules
        against the other players' boards as they lie)."""
        ctx = Context(self.layout, self.options, len(self.seats),
                      claims_against([s.exhibit for s in self.seats], self.active, self.layout))
        return hall_spots_for(card, self.me.exhibit, ctx)


def table(state: GameState) -> Table:
    s, turn = state, state.turn
    return Table(s.layout, s.options, tuple(Seat(p.name, p.exhibit, p.at, p.finished) for p in s.players),
                 s.current, s.market, s.stock, s.round, s.finished, tuple(missing_secrets(s)), turn.held,
                 turn.column, turn.needs_move, turn.needs_refill, turn.placed,
                 s.discarded + tuple(p.discarded for p in s.players if p.discarded is not None))
