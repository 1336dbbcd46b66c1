"""Cronología referee, both modes (rules: shared/spec/games/cronologia.md; log lines: cli.md).

Competitive: Timeline's row and rounds (rounds.py) plus levels, periods and the three icon effects.
Cooperative: a 5 x 5 grid of fixed cards, union events slipped into the 4 gap rows, lives, columns
scored and grids dealt anew.

Setup options, one per decision of the spec's table (§8), each with the spec's default:
competitive ``competitive_between_only`` (C1), ``sudden_death_miss_draws`` (C4),
``reshuffle_only_between_rounds`` (C13); cooperative ``coop_column_ascending_down`` (C6),
``failure_scope`` "all" | "active_player_only" (C7), ``failure_clears_placed_gaps`` (C8),
``shared_union_pool`` (C12); both ``deck_size`` (default: the deck of the sticker codes, else unknown).
C2, C3, C5, C9, C10, C11, C14, C15 and C16 have no flag: the code does what the table says.
"""

from __future__ import annotations

from dataclasses import dataclass

from companion.cards.json_cards import card_to_json, parse_card
from companion.cards.model import ICONS, Card, year_label
from companion.errors import BadInput, json_path
from companion.games import rounds
from companion.games.base import Event, Illegal, Outcome, Standing, Standings, Summary, refused
from companion.games.rounds import RowRules, RowState, evolve, year
from companion.i18n import N_, Text
from companion.words import Words

GAME_ID = "cronologia"
MODES = ("competitive", "cooperative")
COMPETITIVE_LEVELS = {"iniciado": 4, "medio": 6, "experto": 8}
COOPERATIVE_LEVELS = {"experto": 4, "medio": 6, "iniciado": 8}     # lives: more cards is easier
# The box's Spanish level names, as an English reader says them (Spanish keeps the box's words).
LEVEL_NAMES = {"iniciado": N_("beginner"), "medio": N_("medium"), "experto": N_("expert")}
ROWS, COLS, GAP_ROWS = 5, 5, 4
GRID_CARDS = ROWS * COLS

_COMMON = ("type", "game", "mode", "level", "players", "deck_size")
_COMPETITIVE_KEYS = _COMMON + ("start", "competitive_between_only", "sudden_death_miss_draws",
                               "reshuffle_only_between_rounds")
_COOPERATIVE_KEYS = _COMMON + ("grid", "coop_column_ascending_down", "failure_scope", "failure_clears_placed_gaps",
                               "shared_union_pool")


# -- actions ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Place:
    player: str
    card: Card
    gap: int


@dataclass(frozen=True)
class Effect:
    player: str
    icon: str
    target: str | None = None


@dataclass(frozen=True)
class PlaceInGrid:
    player: str
    card: Card
    gap_row: int
    col: int


@dataclass(frozen=True)
class Deal:
    grid: tuple[tuple[Card, ...], ...]


# -- states ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Window:
    """The effect window a correct placement opens; the next action of any kind closes it."""

    player: str
    card: Card
    period_seen: bool          # C2: a card of its period was in the row before it arrived
    sudden_death: bool
    used: bool = False


@dataclass(frozen=True)
class Competitive:
    """``row`` is the game right after the last action. When ``turn_open``, the placing player's turn
    is not over: a correct card that may fire an effect holds back the end of the turn (and the
    end-of-round check) until the window closes (C16), so an effect is judged against the table as
    the placement left it. :func:`settle` closes the turn; every reading of the state goes through it."""

    row: RowState
    level: str
    window: Window | None = None
    turn_open: bool = False
    mode: str = "competitive"


@dataclass(frozen=True)
class CoopRules:
    ascending_down: bool = False           # C6
    failure_active_only: bool = False      # C7
    failure_clears_gaps: bool = False      # C8
    shared_pool: bool = False              # C12


@dataclass(frozen=True)
class Cooperative:
    players: tuple[str, ...]
    rules: CoopRules
    level: str
    rows: tuple[tuple[Card | None, ...], ...]           # 5 x 5 fixed cards (None once scored)
    gaps: tuple[tuple[Card | None, ...], ...]           # 4 x 5 union events placed
    hands: tuple[int, ...]                              # union events per player (one pool if shared)
    lives: int
    pile: int | None
    score: int = 0
    box: int = 0
    turn: int = 0                                       # index into players
    columns: int = 0                                    # columns scored
    awaiting_deal: bool = False
    status: str = "in_progress"                         # in_progress | finished | lost
    end_reason: str | None = None                       # deck | no_union_events | lives
    mode: str = "cooperative"

    def holds(self, player: str) -> int:
        return self.hands[0] if self.rules.shared_pool else self.hands[self.players.index(player)]

    @property
    def current(self) -> str | None:
        return self.players[self.turn] if self.status == "in_progress" else None


def level_text(level: str, mode: str) -> Text:
    """A level as players read it, with what it means: "medium (6 cards)", cooperative "medium (6 lives)";
    Spanish "medio (6 cartas)". An unknown name is shown as it is."""
    if level not in LEVEL_NAMES:
        return Text(level)
    if mode == "cooperative":
        return Words(N_("{level} ({n} lives)"), {"level": Text(LEVEL_NAMES[level]), "n": COOPERATIVE_LEVELS[level]})
    return Words(N_("{level} ({n} cards)"), {"level": Text(LEVEL_NAMES[level]), "n": COMPETITIVE_LEVELS[level]})


def summary_words(summary: Summary) -> list[Text]:
    """What ``companion replay`` says of a summary beyond the words every game shares (the contract's
    optional part): the level, as players read it ("Level: medium (6 cards)", never "medio")."""
    level = summary.get("level")
    if level is None:
        return []
    return [Words(N_("Level: {value}"), {"value": level_text(str(level), str(summary.get("mode")))})]


# -- setup -----------------------------------------------------------------------------------------
def _level(line: dict, levels: dict) -> tuple[str, int]:
    value = line.get("level", "medio")
    by_count = {n: name for name, n in levels.items()}
    if isinstance(value, str) and value in levels:
        return value, levels[value]
    if isinstance(value, int) and not isinstance(value, bool) and value in by_count:
        return by_count[value], value
    names = ", ".join(f"{name} ({n})" for name, n in levels.items())
    raise BadInput("level", f"{value!r} is not a level; one of {names}")


def setup(line: dict):
    if not isinstance(line, dict):
        raise BadInput("", "the setup line must be a JSON object")
    if line.get("game") != GAME_ID:
        raise BadInput("game", f"{line.get('game')!r} is not {GAME_ID!r}")
    mode = line.get("mode", "competitive")
    if mode not in MODES:
        raise BadInput("mode", f"{mode!r} is not a mode; one of {', '.join(MODES)}")
    return _setup_competitive(line) if mode == "competitive" else _setup_cooperative(line)


def complete_setup(line: dict) -> dict:
    """The setup line as the log records it (see companion.games.base); ``line`` has passed setup()."""
    if line.get("mode", "competitive") == "competitive":
        cards = [parse_card(c, json_path("start", i)) for i, c in enumerate(line["start"])]
    else:
        cards = [c for row in parse_grid(line["grid"], "grid") for c in row]
    return rounds.with_deck_size(line, cards)


def _setup_competitive(line: dict) -> Competitive:
    rounds.check_keys(line, _COMPETITIVE_KEYS, "setup")
    players = rounds.parse_players(line)
    level, n = _level(line, COMPETITIVE_LEVELS)
    start = line.get("start")
    if not isinstance(start, list) or len(start) != 5:
        raise BadInput("start", "the 5 cards of the starting chronology are needed, left to right")
    cards = tuple(rounds.dated(parse_card(c, json_path("start", i)), json_path("start", i))
                  for i, c in enumerate(start))
    for i in range(1, 5):
        later, earlier = year(cards[i]), year(cards[i - 1])
        if later < earlier:
            raise BadInput(json_path("start", i), f"{year_label(later)} is earlier than {year_label(earlier)}: "
                                                  "the start must be in date order")
    rules = RowRules(miss_draws_in_sudden_death=rounds.flag(line, "sudden_death_miss_draws"),
                     draw_each_sudden_death_round=True, reshuffle_spent=True,
                     reshuffle_only_between_rounds=rounds.flag(line, "reshuffle_only_between_rounds"),
                     ends_closed=rounds.flag(line, "competitive_between_only"))
    hands = (n,) * len(players)
    pile = rounds.initial_pile(rounds.deck_size(line, list(cards)), 5 + sum(hands))
    return Competitive(RowState(players, hands, cards, rules, active=players, pile=pile), level)


def _setup_cooperative(line: dict) -> Cooperative:
    rounds.check_keys(line, _COOPERATIVE_KEYS, "setup")
    players = rounds.parse_players(line)
    level, lives = _level(line, COOPERATIVE_LEVELS)
    scope = line.get("failure_scope", "all")
    if scope not in ("all", "active_player_only"):
        raise BadInput("failure_scope", f"{scope!r} is not \"all\" or \"active_player_only\"")
    rules = CoopRules(ascending_down=rounds.flag(line, "coop_column_ascending_down"),
                      failure_active_only=scope == "active_player_only",
                      failure_clears_gaps=rounds.flag(line, "failure_clears_placed_gaps"),
                      shared_pool=rounds.flag(line, "shared_union_pool"))
    grid = parse_grid(line.get("grid"), "grid")
    hands = (lives * len(players),) if rules.shared_pool else (lives,) * len(players)
    flat = [c for row in grid for c in row]
    pile = rounds.initial_pile(rounds.deck_size(line, flat), GRID_CARDS + sum(hands))
    empty = ((None,) * COLS,) * GAP_ROWS
    return Cooperative(players, rules, level, grid, empty, hands, lives, pile)


def parse_grid(grid, where: str) -> tuple[tuple[Card, ...], ...]:
    """5 rows of 5 cards, each row in date order (BadInput names the row and card)."""
    if not isinstance(grid, list) or len(grid) != ROWS or not all(isinstance(r, list) and len(r) == COLS for r in grid):
        raise BadInput(where, "a grid is 5 rows of 5 cards, top to bottom, each row left to right")
    rows = tuple(tuple(rounds.dated(parse_card(c, json_path(where, r, i)), json_path(where, r, i))
                       for i, c in enumerate(row)) for r, row in enumerate(grid))
    for r, row in enumerate(rows):
        for i in range(1, COLS):
            later, earlier = year(row[i]), year(row[i - 1])
            if later < earlier:
                raise BadInput(json_path(where, r, i), f"{year_label(later)} is earlier than {year_label(earlier)}: "
                                                       "each row must be in date order")
    return rows


# -- actions from log lines ------------------------------------------------------------------------
def parse_action(line: dict):
    if not isinstance(line, dict):
        raise BadInput("", "an action line must be a JSON object")
    kind = line.get("type")
    if kind == "place" and ("gap_row" in line or "col" in line):
        rounds.check_keys(line, ("type", "player", "card", "gap_row", "col"), "place")
        return PlaceInGrid(rounds.player_of(line), rounds.card_at(line), rounds.whole(line, "gap_row", 1, GAP_ROWS),
                           rounds.whole(line, "col", 1, COLS))
    if kind == "place":
        rounds.check_keys(line, ("type", "player", "card", "gap"), "place")
        return Place(rounds.player_of(line), rounds.card_at(line), rounds.whole(line, "gap", 0))
    if kind == "effect":
        rounds.check_keys(line, ("type", "player", "icon", "target"), "effect")
        icon = line.get("icon")
        if icon not in ICONS:
            raise BadInput("icon", f"{icon!r} is not an icon; one of {', '.join(ICONS)}")
        target = line.get("target")
        if target is not None and not isinstance(target, str):
            raise BadInput("target", "the target is a player's name")
        return Effect(rounds.player_of(line), icon, target)
    if kind == "deal":
        rounds.check_keys(line, ("type", "grid"), "deal")
        return Deal(parse_grid(line.get("grid"), "grid"))
    raise BadInput("type", f"{kind!r} is not a Cronología action; known: place, effect, deal")


def action_to_json(action) -> dict:
    if isinstance(action, PlaceInGrid):
        return {"type": "place", "player": action.player, "card": card_to_json(action.card),
                "gap_row": action.gap_row, "col": action.col}
    if isinstance(action, Place):
        return {"type": "place", "player": action.player, "card": card_to_json(action.card), "gap": action.gap}
    if isinstance(action, Effect):
        out = {"type": "effect", "player": action.player, "icon": action.icon}
        if action.target is not None:
            out["target"] = action.target
        return out
    return {"type": "deal", "grid": [[card_to_json(c) for c in row] for row in action.grid]}


# -- apply -----------------------------------------------------------------------------------------
def apply(state, action):
    events: list[Event] = []
    new: Competitive | Cooperative
    try:
        if isinstance(state, Competitive):
            new = _apply_competitive(state, action, events)
        else:
            new = _apply_cooperative(state, action, events)
    except Illegal as e:
        return state, refused(e.reason)
    return new, events


def settle(state):
    """The state with the open turn closed, and the events of closing it (the turn passing, the
    end-of-round check, sudden death's draws): what the next action of any kind, or a reading of
    the state at the end of a log, finds. Pure; a settled state comes back unchanged."""
    if not isinstance(state, Competitive) or not state.turn_open:
        return state, []
    events: list[Event] = []
    row = rounds.pass_turn(state.row, events)
    return evolve(state, row=row, window=None, turn_open=False), events


def _apply_competitive(s: Competitive, a, events: list[Event]) -> Competitive:
    if isinstance(a, Effect):
        return _effect(s, a, events)
    if not isinstance(a, Place):
        raise Illegal(N_("this action belongs to the cooperative game"))
    s, closing = settle(s)
    events.extend(closing)
    before = s.row
    row, ok = rounds.place(before, a.player, a.card, a.gap, events)
    if not ok:
        return evolve(s, row=rounds.pass_turn(row, events), window=None)
    seen = any(c.period is not None and c.period == a.card.period for c in before.row)
    window = Window(a.player, a.card, seen, before.sudden_death)
    if a.card.icons and seen and not before.sudden_death:
        events.append(Event("effect_available", {"player": a.player, "icons": list(a.card.icons)}))
        return evolve(s, row=row, window=window, turn_open=True)
    return evolve(s, row=rounds.pass_turn(row, events), window=window)


def _effect(s: Competitive, a: Effect, events: list[Event]) -> Competitive:
    """Judged against ``s.row`` as the placement left it: on the last turn of a round, before the
    round ends (C16)."""
    row, w = s.row, s.window
    if w is None and row.status != "in_progress":
        raise Illegal(N_("the game is over"))
    if w is None or w.player != a.player:
        raise Illegal(N_("an effect can only follow {player}'s own correct placement"), player=a.player)
    if a.icon not in w.card.icons:
        raise Illegal(N_("the card just placed has no {icon} icon"), icon=a.icon)
    if w.sudden_death:
        raise Illegal(N_("icons are ignored in sudden death"))
    if not w.period_seen:
        raise Illegal(N_("no earlier event of period {period} was in the chronology, so the effect cannot fire"),
                      period=w.card.period or "?")
    if w.used:
        raise Illegal(N_("an effect was already used for this card"))
    if a.icon == "replace_own":
        if a.target not in (None, a.player):
            raise Illegal(N_("this effect has no target: it replaces one of your own cards"))
        if row.hand(a.player) == 0:
            raise Illegal(N_("{player} holds no card to replace"), player=a.player)
        row = rounds.draw(evolve(row, hands=_minus(row, a.player), spent=row.spent + 1), a.player, events)
    else:
        t = a.target
        if t is None:
            raise Illegal(N_("this effect needs a target opponent"))
        if t == a.player or t not in row.players:
            raise Illegal(N_("{target} is not an opponent"), target=t)
        if t not in row.active:
            raise Illegal(N_("{target} is out of the game"), target=t)
        if row.hand(t) == 0:
            raise Illegal(N_("{target} holds no card"), target=t)
        if a.icon == "swap":
            if row.hand(a.player) == 0:
                raise Illegal(N_("{player} holds no card to swap"), player=a.player)
        else:
            row = rounds.draw(evolve(row, hands=_minus(row, t), spent=row.spent + 1), t, events)
    events.append(Event("effect_used", {"player": a.player, "icon": a.icon, "target": a.target}))
    return evolve(s, row=row, window=evolve(w, used=True))


def _minus(row: RowState, player: str) -> tuple[int, ...]:
    hands = list(row.hands)
    hands[row.players.index(player)] -= 1
    return tuple(hands)


def _apply_cooperative(s: Cooperative, a, events: list[Event]) -> Cooperative:
    if isinstance(a, Deal):
        return _deal(s, a, events)
    if not isinstance(a, PlaceInGrid):
        raise Illegal(N_("this action belongs to the competitive game"))
    if s.status != "in_progress":
        raise Illegal(N_("the game is over"))
    if s.awaiting_deal:
        raise Illegal(N_("a column was scored: deal the new grid first"))
    if a.player not in s.players:
        raise Illegal(N_("{player} is not playing in this game"), player=a.player)
    if a.player != s.current:
        raise Illegal(N_("it is {expected}'s turn, not {player}'s"), expected=s.current, player=a.player)
    if s.holds(a.player) == 0:
        raise Illegal(N_("{player} holds no card"), player=a.player)
    k, c = a.gap_row, a.col
    if s.gaps[k - 1][c - 1] is not None:
        raise Illegal(N_("the slot in gap row {gap_row}, column {col} is taken"), gap_row=k, col=c)
    above, below = year(s.rows[k - 1][c - 1]), year(s.rows[k][c - 1])     # no column is scored while in play
    x = year(a.card)
    ok = above <= x <= below if s.rules.ascending_down else min(above, below) <= x <= max(above, below)
    events.append(Event("card_placed", {"player": a.player, "year": x, "gap_row": k, "col": c, "correct": ok,
                                        "card": a.card}))
    s = _take_from_hand(s, a.player)
    if not ok:
        return _fail(s, a.player, events)
    gaps = _set(s.gaps, k - 1, c - 1, a.card)
    s = evolve(s, gaps=gaps)
    if all(gaps[r][c - 1] is not None for r in range(GAP_ROWS)):
        placed = sum(1 for row in gaps for g in row if g is not None)
        gained = GRID_CARDS + placed
        events.append(Event("column_scored", {"col": c, "cards": gained}))
        s = evolve(s, score=s.score + gained, columns=s.columns + 1,
                    rows=((None,) * COLS,) * ROWS, gaps=((None,) * COLS,) * GAP_ROWS)
        if s.pile is not None and s.pile < GRID_CARDS:
            events.append(Event("game_ended", {"reason": "deck", "score": s.score}))
            return evolve(s, status="finished", end_reason="deck")
        return evolve(s, awaiting_deal=True)       # C15: the one draw of this turn comes with the deal
    s = _draw(s, a.player, events)
    return _next(s, events)


def _fail(s: Cooperative, player: str, events: list[Event]) -> Cooperative:
    """C7/C8: the failed card and the unplaced union events go to the box; one life fewer."""
    boxed = 1
    hands = list(s.hands)
    if s.rules.failure_active_only and not s.rules.shared_pool:
        i = s.players.index(player)
        boxed += hands[i]
        hands[i] = 0
        dealt_to = [player]
    else:
        boxed += sum(hands)
        hands = [0] * len(hands)
        dealt_to = list(s.players)
    gaps = s.gaps
    if s.rules.failure_clears_gaps:
        boxed += sum(1 for row in gaps for g in row if g is not None)
        gaps = ((None,) * COLS,) * GAP_ROWS
    lives = s.lives - 1
    s = evolve(s, hands=tuple(hands), box=s.box + boxed, gaps=gaps, lives=lives)
    events.append(Event("life_lost", {"lives": lives, "boxed": boxed}))
    if lives == 0:
        events.append(Event("game_lost", {"score": s.score}))
        return evolve(s, status="lost", end_reason="lives")
    for p in dealt_to:
        for _ in range(lives * (len(s.players) if s.rules.shared_pool else 1)):
            s = _draw(s, p, events)
        if s.rules.shared_pool:
            break
    return _next(s, events)


def _deal(s: Cooperative, a: Deal, events: list[Event]) -> Cooperative:
    if s.status != "in_progress":
        raise Illegal(N_("the game is over"))
    if not s.awaiting_deal:
        raise Illegal(N_("a new grid is dealt only after a column was scored"))
    s = evolve(s, rows=a.grid, awaiting_deal=False, pile=None if s.pile is None else s.pile - GRID_CARDS)
    events.append(Event("grid_dealt", {}))
    s = _draw(s, s.players[s.turn], events)
    return _next(s, events)


def _take_from_hand(s: Cooperative, player: str) -> Cooperative:
    hands = list(s.hands)
    hands[0 if s.rules.shared_pool else s.players.index(player)] -= 1
    return evolve(s, hands=tuple(hands))


def _draw(s: Cooperative, player: str, events: list[Event]) -> Cooperative:
    """C14: an empty deck skips the draw."""
    if s.pile == 0:
        events.append(Event("draw_skipped", {"player": player}))
        return s
    hands = list(s.hands)
    hands[0 if s.rules.shared_pool else s.players.index(player)] += 1
    events.append(Event("card_drawn", {"player": player}))
    return evolve(s, hands=tuple(hands), pile=None if s.pile is None else s.pile - 1)


def _next(s: Cooperative, events: list[Event]) -> Cooperative:
    """The turn passes left; a player without union events passes (C14); nobody holding one ends it."""
    if not any(s.hands):
        events.append(Event("game_ended", {"reason": "no_union_events", "score": s.score}))
        return evolve(s, status="finished", end_reason="no_union_events")
    turn = s.turn
    for _ in s.players:
        turn = (turn + 1) % len(s.players)
        if s.holds(s.players[turn]):
            break
        events.append(Event("turn_passed", {"player": s.players[turn]}))
    return evolve(s, turn=turn)


def _set(grid, r: int, c: int, value):
    row = list(grid[r])
    row[c] = value
    return grid[:r] + (tuple(row),) + grid[r + 1:]


# -- what the kiosk and `companion replay` show ----------------------------------------------------
def summary(state) -> Summary:
    if isinstance(state, Competitive):
        effect_open = state.turn_open and state.window is not None and not state.window.used
        settled, _events = settle(state)
        out = rounds.row_summary(settled.row, GAME_ID)
        out.update({"mode": "competitive", "level": state.level, "discard": settled.row.spent,
                    "effect_open": effect_open})
        return out
    s = state
    hands = {"pool": s.hands[0]} if s.rules.shared_pool else dict(zip(s.players, s.hands, strict=True))
    return {"game": GAME_ID, "mode": "cooperative", "level": s.level, "status": s.status, "score": s.score,
            "lives": s.lives, "hands": hands, "turn": s.current, "columns_scored": s.columns,
            "awaiting_deal": s.awaiting_deal, "pile": s.pile, "box": s.box, "end_reason": s.end_reason,
            "grid": [[c.year if c else None for c in row] for row in s.rows],
            "gaps": [[c.year if c else None for c in row] for row in s.gaps]}


def outcome(state) -> Outcome:
    """Competitive: who won the row (as the summary, once the round is settled); cooperative: the team's
    status (finished: it won; lost) and why it ended (deck, no_union_events, lives)."""
    if isinstance(state, Competitive):
        return rounds.row_outcome(settle(state)[0].row)
    return Outcome(state.status, (), state.end_reason)


def standings(state) -> Standings:
    """Competitive: the row game's standings; cooperative: the team, by its score pile and lives."""
    if isinstance(state, Competitive):
        return rounds.row_standings(settle(state)[0].row)
    s = state
    team = Standing(", ".join(s.players), 1, Text(N_("{score} cards on the score pile, {lives} lives left"),
                                                  {"score": s.score, "lives": s.lives}))
    why = {"finished": Text(N_("The team won: {score} cards scored."), {"score": s.score}),
           "lost": Text(N_("The team lost: no lives left."))}.get(
        s.status, Text(N_("In progress: the team plays together, {score} cards scored so far."), {"score": s.score}))
    return Standings((team,), why)


def current_player(state) -> str | None:
    return settle(state)[0].row.current if isinstance(state, Competitive) else state.current


def cards_on_table(state) -> tuple[Card, ...]:
    """The row (competitive), or the grid's cards and the events placed in its gaps (cooperative)."""
    if isinstance(state, Competitive):
        return tuple(state.row.row)
    return tuple(c for part in (state.rows, state.gaps) for row in part for c in row if c is not None)


@dataclass(frozen=True)
class Table:
    """What the kiosk's views draw and say beyond the row (``table(state)``), so they never read the
    state: the cooperative grid, and the news the open turn of a competitive game closes with."""

    rows: tuple[tuple[Card | None, ...], ...] = ()      # cooperative: 5 x 5 (None once scored)
    gaps: tuple[tuple[Card | None, ...], ...] = ()      # cooperative: 4 x 5, None for an empty slot
    closing: tuple[Event, ...] = ()     # competitive: the events of closing the open turn (the turn passing,
    #                                     the end of the round), which a correct card's effect window holds back (C16)


def table(state) -> Table:
    if isinstance(state, Competitive):
        return Table(closing=tuple(settle(state)[1]))
    return Table(state.rows, state.gaps)
