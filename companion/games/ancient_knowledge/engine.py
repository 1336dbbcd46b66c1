"""Ancient Knowledge tracker (rules: shared/spec/games/ancient-knowledge.md; log lines and prompts:
docs/ancient-knowledge.md).

The engine follows a turn through its phases -- two actions, the Timeline phase, the Decline
phase -- and checks every rule it can see: zones and locks, Create costs, hand sizes and the limit
of 10, technology requirements, the Decline order, the mid-game tile flip and the end of the game.
What the camera cannot know (knowledge tokens placed, an effect's outcome, the order of two
declining monuments, the tile to flip, the cards dealt onto a tile) it asks the players through a
prompt and waits for an ``answer`` line; it never guesses. Card effects are not automated: the
players record what an effect changed with effect lines, and the engine checks those too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, NoReturn

from companion.errors import BadInput, present
from companion.games.ancient_knowledge import actions as A
from companion.games.ancient_knowledge.actions import action_to_json, parse_action  # noqa: F401 (contract)
from companion.games.ancient_knowledge.catalog import Builder, catalog
from companion.games.ancient_knowledge.score import Holdings, counts, rank, score_holdings
from companion.games.ancient_knowledge.state import (
    ARTIFACT_SLOTS,
    HAND_LIMIT,
    OPTION_NAMES,
    START_HAND,
    ZONES,
    Board,
    GameState,
    Options,
    PastCard,
    Placed,
    Prompt,
)
from companion.games.ancient_knowledge.words import holdings_words, requirement_words
from companion.games.base import Event, Outcome, Summary, outcome_of, parse_players, refused, scored
from companion.games.base import Illegal as _Illegal
from companion.i18n import N_, NP_, Plural, Text, plural

GAME_ID = "ancient-knowledge"
MIN_PLAYERS, MAX_PLAYERS = 2, 4          # decision A8
MIDGAME_PAST, END_PAST = 7, 14
CANDI_SUKUH = "candi-sukuh"

# Knowledge reductions the rules reference names (§8.1): the card, the monument kind it lowers, by
# how much. The data files do not say which other cards lower knowledge, so this only feeds the
# suggested answer of the ``knowledge`` prompt; the players confirm the real count.
KNOWN_REDUCTIONS = {"dogu-figurines": ("city", 1), "easter-island": ("city", 1)}


def _no(msgid: str, **params) -> NoReturn:
    raise _Illegal(msgid, **params)


def _short(player: str, hand: int, n: int) -> NoReturn:
    """``player`` holds fewer cards than the ``n`` the action gives up ("holds only 1 card, not 2")."""
    raise _Illegal.worded(plural(NP_("{player} holds only {n} card, not {wanted}.",
                                     "{player} holds only {n} cards, not {wanted}."), hand, player=player, wanted=n))


def _few_tokens(card: str, tokens: int, n: int) -> NoReturn:
    """``card`` carries fewer knowledge tokens than the ``n`` the action takes off it."""
    raise _Illegal.worded(plural(NP_("{card} carries only {n} knowledge token, not {wanted}.",
                                     "{card} carries only {n} knowledge tokens, not {wanted}."), tokens,
                                 card=_name(card), wanted=n))


def _name(card: str) -> str:
    return catalog().name(card)


# ---------------------------------------------------------------------------------------------
# Setup


def setup(line: dict) -> GameState:
    """The state from the setup line; BadInput names the field."""
    if not isinstance(line, dict):
        raise BadInput("", "the setup line must be a JSON object")
    for key in line:
        if key not in ("type", "game", "players", "tiles", "options"):
            raise BadInput(key, "unknown setup field; known: type, game, players, tiles, options")
    if line.get("game") != GAME_ID:
        raise BadInput("game", f"{line.get('game')!r} is not {GAME_ID!r}")
    players = list(parse_players(line, MIN_PLAYERS, MAX_PLAYERS, "Ancient Knowledge (decision A8)",
                                 "in turn order, first player first"))
    opts = line.get("options", {})
    if not isinstance(opts, dict):
        raise BadInput("options", "an object of flags is needed, e.g. {\"strict_hand_limit\": true}")
    for key, value in opts.items():
        if key not in OPTION_NAMES:
            raise BadInput(f"options.{key}", f"unknown option; known: {', '.join(OPTION_NAMES)}")
        if not isinstance(value, bool):
            raise BadInput(f"options.{key}", f"{value!r} is not true or false")
    options = Options(**opts)
    tiles = _setup_tiles(line.get("tiles"))
    boards = tuple(Board(name, START_HAND + (1 if options.extra_card_late_seats and seat >= 2 else 0))
                   for seat, name in enumerate(players))
    return GameState(options, boards, tiles)


def _setup_tiles(tiles) -> tuple:
    hint = "the 9 technologies dealt at setup: [[3 Level I], [3 Level I], [3 Level II]]"
    if not isinstance(tiles, list) or len(tiles) != 3:
        raise BadInput("tiles", f"{hint} are needed")
    cat, seen, out = catalog(), set(), []
    for i, tile in enumerate(tiles):
        if not isinstance(tile, list) or len(tile) != 3:
            raise BadInput(f"tiles[{i}]", f"a tile holds 3 technologies ({hint})")
        level = 2 if i == 2 else 1
        for j, card in enumerate(tile):
            t = cat.tech(card, f"tiles[{i}][{j}]")
            if t.level != level:
                raise BadInput(f"tiles[{i}][{j}]", f"{t.name} is Level {'I' * t.level}; tile {i + 1} starts "
                                                   f"with Level {'I' * level}")
            if card in seen:
                raise BadInput(f"tiles[{i}][{j}]", f"{t.name} is dealt twice")
            seen.add(card)
        out.append(tuple(tile))
    return tuple(out)


# ---------------------------------------------------------------------------------------------
# apply


def apply(state: GameState, action: A.Action) -> tuple[GameState, list[Event]]:
    """The new state and what happened; an illegal action gives the same state and one Refused."""
    try:
        if state.finished:
            _no(N_("The game is over."))
        p = state.index(action.player)
        if p is None:
            _no(N_("{player} is not playing; the players are {players}."), player=action.player,
                players=", ".join(b.name for b in state.boards))
        events: list[Event] = []
        new = _HANDLERS[type(action)](state, action, p, events)
        return _advance(new, events), events
    except _Illegal as e:
        return state, refused(e.reason)


def _turn_action(s: GameState, p: int) -> None:
    """The checks every one of the five actions shares."""
    if s.prompts:
        _no(N_("First answer the pending question ({kind} for {player})."), kind=s.prompts[0].kind,
            player=s.prompts[0].player)
    if p != s.current:
        _no(N_("It is {expected}'s turn, not {player}'s."), expected=s.board.name, player=s.boards[p].name)
    if s.phase != "action" or s.actions_left == 0:
        _no(N_("{player} has already taken both actions this turn."), player=s.board.name)


def _used_action(s: GameState) -> GameState:
    return replace(s, actions_left=s.actions_left - 1)


def _push(s: GameState, events: list[Event], *prompts: Prompt) -> GameState:
    """New questions go before any pending one: an effect's own questions are answered first."""
    for pr in prompts:
        events.append(Event("prompt", {"kind": pr.kind, "player": pr.player, "card": pr.card}))
    return replace(s, prompts=tuple(prompts) + s.prompts)


def _in_play(s: GameState, card: str) -> None:
    """Refuse a card that already lies on the table: every card exists once."""
    for b in s.boards:
        if b.find(card) or card in b.past_ids() or card in b.artifacts or card in b.techs:
            _no(N_("{card} is already in play, with {owner}."), card=_name(card), owner=b.name)
    for i, tile in enumerate(s.tiles):
        if card in tile:
            _no(N_("{card} is already in play, on technology tile {tile}."), card=_name(card), tile=i + 1)


# --- Create and place -----------------------------------------------------------------------


def _reductions(board: Board, kind: str) -> list[tuple[str, int]]:
    """The known reductions the player's active cards give a new monument of ``kind``."""
    out = []
    for card in board.timeline_ids() + board.artifacts:
        if card in KNOWN_REDUCTIONS and KNOWN_REDUCTIONS[card][0] == kind:
            out.append((card, KNOWN_REDUCTIONS[card][1]))
    return out


def _put_from_hand(s: GameState, p: int, card: str, zone: int | None, by_effect: bool,
                   events: list[Event]) -> GameState:
    b = catalog().builders[card]
    board = s.boards[p]
    _in_play(s, card)
    if b.is_monument:
        if zone is None:
            _no(N_("Say which zone (1-6) {card} goes in."), card=b.name)
        if b.locked and not by_effect and zone != b.start_zone:
            _no(N_("{card} is locked: it may only be created in zone {start}."), card=b.name, start=b.start_zone)
        _guard_zone1(s, p, zone)
        row = board.free_row(zone)
        if row is None:
            _no(N_("Zone {zone} of {player} already holds two monuments."), zone=zone, player=board.name)
        cost = 0 if by_effect else _create_cost(b, zone)
    else:
        if zone is not None:
            _no(N_("{card} is an artifact: it goes in an artifact slot, not in a zone."), card=b.name)
        if len(board.artifacts) >= ARTIFACT_SLOTS:
            _no(N_("All {slots} artifact slots of {player} are full."), slots=ARTIFACT_SLOTS, player=board.name)
        row, cost = None, 0 if by_effect else b.discard_cost
    if board.hand < 1:
        _no(N_("{player} has no card in hand."), player=board.name)
    if board.hand - 1 < cost:
        # two counts, each its noun's form: the hand's words are a message of their own inside the cost's
        raise _Illegal.worded(plural(NP_("{card} costs {n} card besides itself here; {player} holds {others}.",
                                         "{card} costs {n} cards besides itself here; {player} holds {others}."),
                                     cost, card=b.name, player=board.name,
                                     others=plural(NP_("only {n} other card", "only {n} other cards"), board.hand - 1)))
    hand = board.hand - 1 - cost
    data = {"player": board.name, "card": card, "cost": cost, "hand": hand}
    if zone is None:    # an artifact: a monument has its zone by now
        s = s.with_board(p, replace(board, hand=hand, artifacts=board.artifacts + (card,)))
        events.append(Event("placed" if by_effect else "created", data))
        return s
    knowledge = present(b.knowledge, f"the knowledge of {b.name}")
    cuts = _reductions(board, b.kind)
    suggested = max(0, knowledge - sum(n for _, n in cuts))
    s = s.with_board(p, replace(board.put(zone, Placed(card, suggested)), hand=hand))
    events.append(Event("placed" if by_effect else "created", {**data, "zone": zone, "row": row}))
    asks = []
    if knowledge > 0:
        params = {"card": b.name, "printed": knowledge, "suggested": suggested,
                  "reductions": ", ".join(f"{_name(c)} -{n}" for c, n in cuts)}
        question = (N_("How many knowledge tokens go on {card}? Printed {printed}, with {reductions}: {suggested}.")
                    if cuts else N_("How many knowledge tokens go on {card}? Printed {printed}."))
        asks.append(Prompt("knowledge", board.name, Text(question, params),
                           card=card, low=0, high=knowledge, default=suggested))
    if b.activation == "immediate":
        asks.append(_effect_prompt(board.name, card))
    return _push(s, events, *asks)


def _create_cost(b: Builder, zone: int) -> int:
    """Cards discarded to create monument ``b`` in ``zone``: its cost plus one per zone away from its start."""
    return b.discard_cost + abs(zone - present(b.start_zone, f"the start zone of {b.name}"))


def _effect_prompt(player: str, card: str) -> Prompt:
    return Prompt("effect", player, Text(N_("Resolve the effect of {card}: record what it changes, then OK."),
                                         {"card": _name(card)}), card=card, choices=("done",))


def _create(s, a: A.Create, p, events):
    _turn_action(s, p)
    return _used_action(_put_from_hand(s, p, a.card, a.zone, False, events))


def _place(s, a: A.Place, p, events):
    return _put_from_hand(s, p, a.card, a.zone, True, events)


# --- Learn and technology tiles -------------------------------------------------------------


def _holdings(b: Board) -> Holdings:
    return Holdings(b.name, b.past_ids(), b.timeline_ids(), b.techs, b.lost_knowledge, b.artifacts, b.hand)


def _take_tech(s: GameState, p: int, card: str, check: bool, events: list[Event]) -> GameState:
    cat = catalog()
    t = cat.techs[card]
    board = s.boards[p]
    tile = next((i for i, cards in enumerate(s.tiles) if card in cards), None)
    if tile is None:
        _in_play(s, card)
        _no(N_("{card} is not on a technology tile."), card=t.name)
    if check and t.requirement.conds:
        c = counts(_holdings(board), cat)
        candi = CANDI_SUKUH in board.timeline_ids()
        if not t.requirement.holds(c, lower_one=candi):
            msgid = (N_("{card} needs {requirement}; {player} has {values}, more than one short even with "
                        "Candi Sukuh.") if candi else N_("{card} needs {requirement}; {player} has {values}."))
            _no(msgid, card=t.name, requirement=requirement_words(t.requirement), player=board.name,
                values=holdings_words(t.requirement.counts_used(), c))
    tiles = list(s.tiles)
    tiles[tile] = tuple(x for x in tiles[tile] if x != card)
    s = replace(s.with_board(p, replace(board, techs=board.techs + (card,))), tiles=tuple(tiles))
    events.append(Event("learnt" if check else "tech_gained", {"player": board.name, "card": card, "tile": tile + 1}))
    asks = []
    if t.level == 1:
        asks.append(_effect_prompt(board.name, card))
    if len(tiles[tile]) <= 1:
        refill = _refill_prompt(s, tile, board.name)
        if refill is not None:
            asks.append(refill)
    return _push(s, events, *asks)


def _available(s: GameState, tile: int, level: int) -> list[str]:
    """Technologies of ``level`` that could be dealt onto ``tile`` now: not owned, not on another tile
    (the discard pile is reshuffled into the deck when it runs out, so any other card can come)."""
    taken = {c for b in s.boards for c in b.techs} | {c for i, t in enumerate(s.tiles) if i != tile for c in t}
    return [t.id for t in catalog().techs.values() if t.level == level and t.id not in taken]


def _refill_prompt(s: GameState, tile: int, player: str) -> Prompt | None:
    level = s.tile_levels[tile]
    count = min(3, len(_available(s, tile, level)))
    if count == 0:
        return None
    return Prompt("refill", player, plural(NP_("Deal {n} Level {level} technology onto tile {tile}: which card?",
                                               "Deal {n} Level {level} technologies onto tile {tile}: which cards?"),
                                           count, level="I" * level, tile=tile + 1),
                  tile=tile + 1, level=level, count=count)


def _learn(s, a: A.Learn, p, events):
    _turn_action(s, p)
    return _used_action(_take_tech(s, p, a.card, True, events))


def _gain_tech(s, a: A.GainTech, p, events):
    return _take_tech(s, p, a.card, False, events)


# --- Excavate, Archive, Search, draws -------------------------------------------------------


def _draw(s: GameState, p: int, n: int, events: list[Event], why: str) -> GameState:
    """Draw ``n`` with the hand limit of 10: partial by default, blocked entirely if strict (A2)."""
    board = s.boards[p]
    if board.hand + n > HAND_LIMIT and s.options.strict_hand_limit:
        _no(N_("Hand limit 10: {player} holds {hand}; drawing {n} would pass 10 (strict hand limit)."),
            player=board.name, hand=board.hand, n=n)
    got = min(n, HAND_LIMIT - board.hand)
    events.append(Event("drew", {"player": board.name, "count": got, "asked": n, "why": why,
                                 "hand": board.hand + got}))
    return s.with_board(p, replace(board, hand=board.hand + got))


def _excavate(s, a: A.Excavate, p, events):
    _turn_action(s, p)
    board = s.boards[p]
    past = {c.card: c for c in board.past}
    for card in a.cards:
        if card not in past:
            _no(N_("{card} is not in {player}'s Past."), card=_name(card), player=board.name)
        if past[card].rotated:
            _no(N_("{card} has already been excavated (it is rotated)."), card=_name(card))
    if a.per_card == 3 and not board.artifacts:
        _no(N_("Drawing 3 cards per excavated monument needs an artifact; {player} has none."), player=board.name)
    rotated = tuple(PastCard(c.card, True) if c.card in a.cards else c for c in board.past)
    s = s.with_board(p, replace(board, past=rotated))
    events.append(Event("excavated", {"player": board.name, "cards": list(a.cards)}))
    return _used_action(_draw(s, p, a.per_card * len(a.cards), events, "excavate"))


def _archive(s, a: A.Archive, p, events):
    _turn_action(s, p)
    board = s.boards[p]
    for card, n in a.remove:
        found = board.find(card)
        if found is None:
            _no(N_("{card} is not in {player}'s Timeline."), card=_name(card), player=board.name)
        if found[2].tokens < n:
            _few_tokens(card, found[2].tokens, n)
    removed = sum(n for _, n in a.remove)
    discard = removed if a.discard is None else a.discard
    on_timeline = board.tokens_on_timeline()
    if s.options.archive_unbounded:
        if removed != min(discard, on_timeline):
            raise _Illegal.worded(plural(NP_("With {n} card discarded, the knowledge tokens removed must be "
                                             "{expected}, not {removed}.",
                                             "With {n} cards discarded, the knowledge tokens removed must be "
                                             "{expected}, not {removed}."),
                                         discard, expected=min(discard, on_timeline), removed=removed))
    elif discard != removed:
        if discard > on_timeline:
            _no(N_("Archive may not discard more cards ({discard}) than the {tokens} knowledge tokens on "
                   "{player}'s Timeline (decision A3)."), discard=discard, tokens=on_timeline, player=board.name)
        _no(N_("Archive removes one token per discarded card: {discard} cards for {removed} tokens."),
            discard=discard, removed=removed)
    if board.hand < discard:
        _short(board.name, board.hand, discard)
    for card, n in a.remove:
        board = board.set_tokens(card, board.find(card)[2].tokens - n)
    s = s.with_board(p, replace(board, hand=board.hand - discard))
    events.append(Event("archived", {"player": board.name, "discarded": discard, "removed": dict(a.remove),
                                     "hand": board.hand - discard}))
    return _used_action(s)


def _search(s, a: A.Search, p, events):
    _turn_action(s, p)
    return _used_action(_draw(s, p, 1, events, "search"))


# --- Effect results -------------------------------------------------------------------------


def _effect_draw(s, a: A.Draw, p, events):
    return _draw(s, p, a.count, events, "effect")


def _effect_discard(s, a: A.Discard, p, events):
    board = s.boards[p]
    if board.hand < a.count:
        _short(board.name, board.hand, a.count)
    events.append(Event("discarded", {"player": board.name, "count": a.count, "hand": board.hand - a.count}))
    return s.with_board(p, replace(board, hand=board.hand - a.count))


def _set_hand(s, a: A.SetHand, p, events):
    board = s.boards[p]
    events.append(Event("hand_set", {"player": board.name, "was": board.hand, "hand": a.count}))
    return s.with_board(p, replace(board, hand=a.count))


def _in_timeline(board: Board, card: str):
    found = board.find(card)
    if found is None:
        _no(N_("{card} is not in {player}'s Timeline."), card=_name(card), player=board.name)
    return found


def _knowledge(s, a: A.Knowledge, p, events):
    board = s.boards[p]
    tokens = _in_timeline(board, a.card)[2].tokens
    if tokens + a.delta < 0:
        _few_tokens(a.card, tokens, -a.delta)
    events.append(Event("knowledge_changed", {"player": board.name, "card": a.card, "delta": a.delta,
                                              "tokens": tokens + a.delta}))
    return s.with_board(p, board.set_tokens(a.card, tokens + a.delta))


def _lost_knowledge(s, a: A.LostKnowledge, p, events):
    board = s.boards[p]
    if board.lost_knowledge + a.delta < 0:
        _no(N_("{player} has only {lost} lost knowledge."), player=board.name, lost=board.lost_knowledge)
    events.append(Event("lost_knowledge_changed", {"player": board.name, "delta": a.delta,
                                                   "lost_knowledge": board.lost_knowledge + a.delta}))
    return s.with_board(p, replace(board, lost_knowledge=board.lost_knowledge + a.delta))


def _guard_zone1(s: GameState, p: int, zone: int) -> None:
    if zone == 1 and p == s.current and s.phase == "decline":
        _no(N_("No monument can enter zone 1 while zone 1 is declining."))


def _move(s, a: A.Move, p, events):
    board = s.boards[p]
    zone, _, m = _in_timeline(board, a.card)
    if zone == a.zone:
        _no(N_("{card} is already in zone {zone}."), card=_name(a.card), zone=zone)
    _guard_zone1(s, p, a.zone)
    if board.free_row(a.zone) is None:
        _no(N_("Zone {zone} of {player} already holds two monuments."), zone=a.zone, player=board.name)
    board, m = board.take(a.card)
    events.append(Event("moved", {"player": board.name, "card": a.card, "from": zone, "zone": a.zone,
                                  "row": board.free_row(a.zone)}))
    return s.with_board(p, board.put(a.zone, m))


def _swap(s, a: A.Swap, p, events):
    board = s.boards[p]
    (z1, r1, m1), (z2, r2, m2) = (_in_timeline(board, c) for c in a.cards)
    if z1 != z2:
        _guard_zone1(s, p, min(z1, z2))
    zones = [list(z) for z in board.zones]
    zones[z1 - 1][["lower", "upper"].index(r1)] = m2
    zones[z2 - 1][["lower", "upper"].index(r2)] = m1
    events.append(Event("swapped", {"player": board.name, "cards": list(a.cards), "zones": [z2, z1]}))
    return s.with_board(p, replace(board, zones=tuple(tuple(z) for z in zones)))


def _destroy(s, a: A.Destroy, p, events):
    board = s.boards[p]
    if a.card in board.artifacts:
        events.append(Event("destroyed", {"player": board.name, "card": a.card}))
        return s.with_board(p, replace(board, artifacts=tuple(x for x in board.artifacts if x != a.card)))
    _in_timeline(board, a.card)
    board, m = board.take(a.card)
    events.append(Event("destroyed", {"player": board.name, "card": a.card, "tokens_vanished": m.tokens}))
    return s.with_board(p, board)


def _to_past_action(s, a: A.ToPast, p, events):
    _in_timeline(s.boards[p], a.card)
    return _to_past(s, p, a.card, events, "effect")


def _straighten(s, a: A.Straighten, p, events):
    board = s.boards[p]
    past = {c.card: c for c in board.past}
    for card in a.cards:
        if card not in past:
            _no(N_("{card} is not in {player}'s Past."), card=_name(card), player=board.name)
        if not past[card].rotated:
            _no(N_("{card} is not rotated."), card=_name(card))
    events.append(Event("straightened", {"player": board.name, "cards": list(a.cards)}))
    return s.with_board(p, replace(board, past=tuple(PastCard(c.card, False) if c.card in a.cards else c
                                                     for c in board.past)))


def _skip_decline(s, a: A.SkipDecline, p, events):
    if p != s.current:
        _no(N_("Only the player whose turn it is can skip the Decline phase; it is {expected}'s turn."),
            expected=s.board.name)
    if s.declining is not None or s.skip_decline:
        _no(N_("Too late: the Decline phase of this turn has already begun."))
    events.append(Event("decline_skipped", {"player": s.board.name}))
    return replace(s, skip_decline=True)


# --- Answers ----------------------------------------------------------------------------------


def _answer(s, a: A.Answer, p, events):
    pr = s.pending_prompt
    if pr is None:
        _no(N_("There is no question pending."))
    if a.prompt != pr.kind:
        _no(N_("The pending question is {kind}, not {answered}."), kind=pr.kind, answered=a.prompt)
    if s.boards[p].name != pr.player:
        _no(N_("The pending question is for {expected}, not {player}."), expected=pr.player, player=a.player)
    if pr.choices and a.value not in pr.choices:
        _no(N_("{value} does not answer this question; the answers are {choices}."), value=a.value,
            choices=", ".join(map(str, pr.choices)))
    s = replace(s, prompts=s.prompts[1:])
    return _ANSWERS[pr.kind](s, pr, a.value, events)


def _answer_knowledge(s, pr: Prompt, value, events):
    card, low, high = _card(pr), present(pr.low, "the fewest tokens"), present(pr.high, "the most tokens")
    if not isinstance(value, int) or not low <= value <= high:
        _no(N_("{value} is not a token count for {card}: from {low} to {high}."), value=value,
            card=_name(card), low=low, high=high)
    p = s.index(pr.player)
    events.append(Event("knowledge_placed", {"player": pr.player, "card": card, "tokens": value}))
    return s.with_board(p, s.boards[p].set_tokens(card, value))


def _card(pr: Prompt) -> str:
    """The card a knowledge or decline question is about (they are always asked about one)."""
    return present(pr.card, f"the card of the {pr.kind} question")


def _answer_effect(s, pr, value, events):
    events.append(Event("effect_resolved", {"player": pr.player, "card": pr.card}))
    return s


def _answer_timeline(s, pr, value, events):
    if value == "done":
        events.append(Event("timeline_passed", {"player": pr.player, "cards": list(s.timeline_todo)}))
        return replace(s, timeline_todo=())
    s = replace(s, timeline_todo=tuple(c for c in s.timeline_todo if c != value))
    return _push(s, events, _effect_prompt(pr.player, value))


def _answer_decline_order(s, pr, value, events):
    other = next(c for c in pr.choices if c != value)
    events.append(Event("decline_order", {"player": pr.player, "cards": [value, other]}))
    return replace(s, declining=(value, other))


def _answer_decline_effect(s, pr, value, events):
    p = s.current
    s = replace(s, declining=s.declining[1:])
    if value == "past":
        return _to_past(s, p, pr.card, events, "decline")
    board, m = s.boards[p].take(pr.card)
    lost = m.tokens if s.options.destroyed_knowledge_is_lost else 0
    events.append(Event("self_discarded", {"player": board.name, "card": pr.card, "tokens": m.tokens,
                                           "lost_knowledge": lost}))
    return s.with_board(p, replace(board, lost_knowledge=board.lost_knowledge + lost))


def _answer_flip(s, pr, value, events):
    tile = value - 1
    levels = list(s.tile_levels)
    levels[tile] = 2
    tiles = list(s.tiles)
    discarded, tiles[tile] = tiles[tile], ()
    s = replace(s, tile_levels=tuple(levels), tiles=tuple(tiles), flipped_tile=value, flipped_by=pr.player)
    events.append(Event("tile_flipped", {"player": pr.player, "tile": value, "discarded": list(discarded)}))
    refill = _refill_prompt(s, tile, pr.player)
    return _push(s, events, refill) if refill else s


def _answer_refill(s, pr, value, events):
    if not isinstance(value, tuple):
        raise _Illegal.worded(plural(NP_("Name the {n} technology dealt onto tile {tile}.",
                                         "Name the {n} technologies dealt onto tile {tile}."), pr.count, tile=pr.tile))
    tile = pr.tile - 1
    available = _available(s, tile, pr.level)
    count = min(3, len(available))
    if len(value) != count or len(set(value)) != len(value):
        raise _Illegal.worded(plural(NP_("Tile {tile} gets {n} technology, not {given}.",
                                         "Tile {tile} gets {n} different technologies, not {given}."),
                                     count, tile=pr.tile, given=len(value)))
    cat = catalog()
    for card in value:
        t = cat.techs.get(card)
        if t is None:
            _no(N_("{card} is not a technology."), card=card)
        if t.level != pr.level:
            _no(N_("{card} is Level {level}; tile {tile} takes Level {wanted}."), card=t.name,
                level="I" * t.level, tile=pr.tile, wanted="I" * pr.level)
        if card not in available:
            _in_play(s, card)
    tiles = list(s.tiles)
    discarded, tiles[tile] = tiles[tile], tuple(value)
    events.append(Event("tile_refilled", {"tile": pr.tile, "cards": list(value), "discarded": list(discarded)}))
    return replace(s, tiles=tuple(tiles))


_ANSWERS = {
    "knowledge": _answer_knowledge, "effect": _answer_effect, "timeline": _answer_timeline,
    "decline_order": _answer_decline_order, "decline_effect": _answer_decline_effect,
    "flip_tile": _answer_flip, "refill": _answer_refill,
}

_HANDLERS: dict[type, Callable[[GameState, Any, int, list[Event]], GameState]] = {
    A.Create: _create, A.Learn: _learn, A.Excavate: _excavate, A.Archive: _archive, A.Search: _search,
    A.Answer: _answer,
    A.Draw: _effect_draw, A.Discard: _effect_discard, A.SetHand: _set_hand, A.Knowledge: _knowledge,
    A.LostKnowledge: _lost_knowledge, A.Move: _move, A.Swap: _swap, A.Place: _place, A.Destroy: _destroy,
    A.ToPast: _to_past_action, A.Straighten: _straighten, A.GainTech: _gain_tech,
    A.SkipDecline: _skip_decline,
}


# ---------------------------------------------------------------------------------------------
# The flow of a turn: everything that happens by itself until the next question


def _to_past(s: GameState, p: int, card: str, events: list[Event], why: str) -> GameState:
    """A Timeline monument enters the Past; knowledge still on it becomes lost knowledge."""
    board, m = s.boards[p].take(card)
    board = replace(board, past=board.past + (PastCard(card),), lost_knowledge=board.lost_knowledge + m.tokens)
    events.append(Event("to_past", {"player": board.name, "card": card, "lost_knowledge": m.tokens, "why": why,
                                    "past": len(board.past)}))
    return s.with_board(p, board)


def _timeline_cards(board: Board) -> tuple[str, ...]:
    cat = catalog()
    return tuple(c for c in board.timeline_ids() + board.artifacts if cat.builders[c].activation == "timeline")


def _stale(s: GameState, pr: Prompt) -> bool:
    """A question about a card an effect has since taken away."""
    if pr.kind == "knowledge":
        b = next(b for b in s.boards if b.name == pr.player)
        return b.find(_card(pr)) is None
    if pr.kind == "decline_effect":
        found = s.board.find(_card(pr))
        return found is None or found[0] != 1
    return False


def _advance(s: GameState, events: list[Event]) -> GameState:
    while True:
        if s.prompts and _stale(s, s.prompts[0]):
            pr = s.prompts[0]
            s = replace(s, prompts=s.prompts[1:])
            if pr.kind == "decline_effect":
                s = replace(s, declining=present(s.declining, "the declining monuments")[1:])
            continue
        if s.prompts or s.finished:
            return s
        board = s.board
        if s.phase == "action":
            if s.actions_left > 0:
                return s
            todo = _timeline_cards(board)
            s = replace(s, phase="timeline", timeline_todo=todo)
            events.append(Event("timeline_phase", {"player": board.name, "cards": list(todo)}))
            continue
        if s.phase == "timeline":
            still = _timeline_cards(board)   # an effect may have taken a card away meanwhile
            todo = tuple(c for c in present(s.timeline_todo, "the timeline cards to offer") if c in still)
            s = replace(s, timeline_todo=todo)
            if not todo:
                s = replace(s, phase="decline")
                events.append(Event("decline_phase", {"player": board.name,
                                                      "cards": [m.card for m in board.zones[0]]}))
                continue
            mandatory = s.options.timeline_effects_mandatory
            msgid = (N_("Timeline phase of {player}: which card is resolved next?") if mandatory else
                     N_("Timeline phase of {player}: which card is resolved next? (done: pass on the rest)"))
            choices = todo if mandatory else todo + ("done",)
            return _push(s, events, Prompt("timeline", board.name, Text(msgid, {"player": board.name}),
                                           choices=choices))
        # decline phase
        if s.skip_decline:
            s = _end_turn(s, events)
            continue
        zone1 = [m.card for m in board.zones[0]]
        if s.declining is None:
            cat = catalog()
            if len(zone1) == 2 and any(cat.builders[c].activation == "decline" for c in zone1):
                s = replace(s, declining=tuple(zone1))
                return _push(s, events, Prompt("decline_order", board.name, Text(
                    N_("Zone 1 of {player} declines: which monument declines first?"), {"player": board.name}),
                    choices=tuple(zone1)))
            s = replace(s, declining=tuple(zone1))
            continue
        if s.declining:
            card, rest = s.declining[0], s.declining[1:]
            if card not in zone1:   # an effect took it away meanwhile
                s = replace(s, declining=rest)
                continue
            if catalog().builders[card].activation == "decline":
                return _push(s, events, Prompt("decline_effect", board.name, Text(
                    N_("{card} declines: resolve its decline effect. Does it go to the Past, or did its effect "
                       "discard it?"), {"card": _name(card)}), card=card, choices=("past", "discarded")))
            s = replace(_to_past(s, s.current, card, events, "decline"), declining=rest)
            continue
        if s.flipped_tile is None and len(board.past) >= MIDGAME_PAST:
            return _push(s, events, Prompt("flip_tile", board.name, Text(
                N_("{player} is the first to reach 7 monuments in the Past: which technology tile (1 or 2) turns "
                   "to Level II?"), {"player": board.name}), choices=(1, 2)))
        s = _end_turn(_slide(s, events), events)


def _slide(s: GameState, events: list[Event]) -> GameState:
    board = s.board
    # Zone 1 is empty here: it has just declined, and nothing may enter it meanwhile (_guard_zone1).
    zones = (board.zones[0] + board.zones[1],) + board.zones[2:] + ((),)
    events.append(Event("slid", {"player": board.name}))
    return s.with_board(s.current, replace(board, zones=zones))


def _end_turn(s: GameState, events: list[Event]) -> GameState:
    board = replace(s.board, turns=s.board.turns + 1)
    s = s.with_board(s.current, board)
    if s.end_triggered_by is None:
        reached = [b for b in s.boards if len(b.past) >= END_PAST]
        if reached:
            s = replace(s, end_triggered_by=board.name)
            events.append(Event("end_triggered", {"player": board.name, "past": len(board.past),
                                                  "by": [b.name for b in reached]}))
    nxt = (s.current + 1) % len(s.boards)
    s = replace(s, current=nxt, round=s.round + (nxt == 0), phase="action", actions_left=2, timeline_todo=None,
                declining=None, skip_decline=False)
    if s.end_triggered_by is not None and nxt == 0:
        result = final_score(s)
        events.append(Event("game_over", {"winners": result["winners"], "rounds": s.round - 1}))
        return replace(s, phase="finished", finished=True, round=s.round - 1)
    events.append(Event("turn_started", {"player": s.board.name, "round": s.round}))
    return s


# ---------------------------------------------------------------------------------------------
# Reading the state


def create_options(state: GameState, card: str, player: str | None = None) -> list[dict]:
    """What creating ``card`` would cost ``player`` (default: whose turn it is) in each zone, or in an
    artifact slot: ``[{"zone", "cost", "row", "legal", "reason"}]`` (``reason``: a Text, or None when
    legal) -- for the kiosk's Create help."""
    cat = catalog()
    b = cat.builder(card, "card")
    p = state.current if player is None else state.index(player)
    if p is None:
        raise BadInput("player", f"{player!r} is not playing")
    out: list[dict] = []
    for zone in (range(1, ZONES + 1) if b.is_monument else [None]):
        try:
            after = _put_from_hand(state, p, card, zone, False, [])
            ev_cost = state.boards[p].hand - 1 - after.boards[p].hand
            out.append({"zone": zone, "cost": ev_cost, "row": state.boards[p].free_row(zone) if zone else None,
                        "legal": True, "reason": None})
        except _Illegal as e:
            cost = _create_cost(b, zone) if zone else b.discard_cost
            out.append({"zone": zone, "cost": cost, "row": None, "legal": False, "reason": e.reason})
    return out


def final_score(s: GameState) -> dict:
    """The cli.md score document for the boards as they are now."""
    cat = catalog()
    return rank([score_holdings(_holdings(b), cat) for b in s.boards])


def prompt_json(s: GameState, pr: Prompt | None) -> dict | None:
    if pr is None:
        return None
    out: dict = {"kind": pr.kind, "player": pr.player, "question": pr.question.render("en"),
           "msgid": pr.question.msgid, "params": dict(pr.question.params)}
    if isinstance(pr.question, Plural):            # its wording follows its count: the view words it again
        out["plural"] = pr.question.plural
    if pr.card:
        out["card"] = pr.card
    if pr.kind == "refill":
        out.update(tile=pr.tile, level=pr.level, count=pr.count,
                   choices=_available(s, present(pr.tile, "the refill's tile") - 1,
                                      present(pr.level, "the refill's level")))
    elif pr.kind == "knowledge":
        out.update(min=pr.low, max=pr.high, default=pr.default)
    else:
        out["choices"] = list(pr.choices)
    return out


def _card_json(card: str, **more) -> dict:
    return {"card": card, "name": _name(card), **more}


def _board_json(s: GameState, b: Board) -> dict:
    cat = catalog()
    zones = []
    for z, zone in enumerate(b.zones):
        rows = {}
        for r, row in enumerate(("lower", "upper")):
            m = zone[r] if r < len(zone) else None
            rows[row] = None if m is None else _card_json(m.card, kind=cat.builders[m.card].kind, tokens=m.tokens,
                                                          activation=cat.builders[m.card].activation)
        zones.append({"zone": z + 1, **rows})
    score = score_holdings(_holdings(b), cat)
    return {
        "name": b.name,
        "hand": b.hand,
        "turns": b.turns,
        "zones": zones,
        "past": [_card_json(c.card, kind=cat.builders[c.card].kind, rotated=c.rotated) for c in b.past],
        "past_count": len(b.past),
        "artifacts": [_card_json(a, activation=cat.builders[a].activation) for a in b.artifacts],
        "artifact_slots_free": ARTIFACT_SLOTS - len(b.artifacts),
        "techs": [_card_json(t, type=cat.techs[t].type, level=cat.techs[t].level) for t in b.techs],
        "knowledge_on_timeline": b.tokens_on_timeline(),
        "lost_knowledge": b.lost_knowledge,
        "declines_next": [_card_json(m.card, tokens=m.tokens) for m in b.zones[0]],
        "score_if_ended_now": {"total": score["total"], "breakdown": score["breakdown"]},
    }


def summary(state: GameState) -> Summary:
    """The ``companion replay --json`` document, rich enough for the kiosk's board view."""
    s = state
    out: Summary = {
        "game": GAME_ID,
        "status": "finished" if s.finished else "in_progress",
        "round": s.round,
        "turn": None if s.finished else s.board.name,
        "phase": s.phase,
        "actions_left": s.actions_left if s.phase == "action" else 0,
        "hands": {b.name: b.hand for b in s.boards},
        "players": [_board_json(s, b) for b in s.boards],
        "tiles": [{"tile": i + 1, "level": s.tile_levels[i], "cards": [_card_json(c) for c in t]}
                  for i, t in enumerate(s.tiles)],
        "midgame_flip": None if s.flipped_tile is None else {"tile": s.flipped_tile, "by": s.flipped_by},
        "end_triggered_by": s.end_triggered_by,
        "decline_reminder": None if s.finished else {
            "player": s.board.name,
            "skipped": s.skip_decline,
            "monuments": [_card_json(m.card, tokens=m.tokens, activation=catalog().builders[m.card].activation)
                          for m in s.board.zones[0]],
        },
        "pending_prompt": prompt_json(s, s.pending_prompt),
        "prompts_waiting": max(0, len(s.prompts) - 1),
        "options": {name: getattr(s.options, name) for name in OPTION_NAMES},
    }
    if s.finished:
        out.update(scored(final_score(s)))
        # how it ended (spec 6): these players reached END_PAST monuments in their Past, and the round was
        # played out; the places are final_score's (more VP, then fewer lost knowledge; A7)
        out["end_reason"] = "past"
        out["end_past"] = END_PAST
        out["past_reached_by"] = [b.name for b in s.boards if len(b.past) >= END_PAST]
    return out


def outcome(state: GameState) -> Outcome:
    """Who won once the game is over (a tie names several)."""
    return outcome_of(summary(state)) if state.finished else Outcome()


def current_player(state: GameState) -> str | None:
    return None if state.finished else state.board.name


def cards_on_table(state: GameState) -> tuple[str, ...]:
    """The card names lying on the table: the technology tiles, then each board's monuments, past,
    artifacts and technologies."""
    out = [c for tile in state.tiles for c in tile]
    for b in state.boards:
        out += [p.card for zone in b.zones for p in zone]
        out += [p.card for p in b.past]
        out += [*b.artifacts, *b.techs]
    return tuple(out)


# ---------------------------------------------------------------------------------------------
# The table as the views draw it (the read model beside the summary, typed)


@dataclass(frozen=True)
class Table:
    """What the kiosk's views draw and ask about (``table(state)``): every player's board as it lies,
    the technology tiles, whose turn, its phase and actions left, whom the game waits for, and what
    a Create would cost. The views read this, never the state, so the engine may keep its state as
    it likes."""

    boards: tuple[Board, ...]             # every player's board, seating order
    active: int                           # the board of the player whose turn it is
    tiles: tuple[tuple[str, ...], ...]    # the cards on the three technology tiles
    round: int
    phase: str                            # action | timeline | decline | finished
    actions_left: int
    skip_decline: bool                    # no Decline phase this turn
    finished: bool
    asking: str | None                    # the kind of the question the game waits for (None: none)
    asked: str | None                     # whom it asks
    _state: GameState = field(repr=False, compare=False)    # what the rule answers below are worked out from

    @property
    def board(self) -> Board:
        return self.boards[self.active]

    def board_of(self, player: str) -> Board | None:
        return next((b for b in self.boards if b.name == player), None)

    def create_options(self, card: str, player: str | None = None) -> list[dict]:
        """What creating ``card`` would cost ``player`` (default: whose turn it is), zone by zone:
        :func:`create_options`."""
        return create_options(self._state, card, player)


def table(state: GameState) -> Table:
    s, pr = state, state.pending_prompt
    return Table(s.boards, s.current, s.tiles, s.round, s.phase, s.actions_left, s.skip_decline, s.finished,
                 None if pr is None else pr.kind, None if pr is None else pr.player, s)
