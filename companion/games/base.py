"""The contract every rules engine keeps (the spirit of boardgame.io moves and python-chess).

An engine is a module (or object) with:

- ``GAME_ID``: the ``game`` of the log's setup line (``timeline``, ``cronologia``, ...).
- ``setup(line: dict) -> state``: the state from a setup line (cards already parsed by the engine
  with ``companion.cards.json_cards.parse_card``). Bad setup raises ``BadInput`` with a JSON path.
- ``parse_action(line: dict) -> action``: a log line to an action object; a line that is malformed
  (missing field, wrong type, unknown ``type``) raises ``BadInput`` naming the field.
- ``apply(state, action) -> (state, events)``: pure. Never mutates ``state``, never does I/O.
  A legal action returns the new state and what happened. An **illegal** action returns the
  *same* state and exactly one :class:`Refused` event whose ``reason`` a player can read; it never
  raises. A legal move with a bad outcome (a wrongly dated card) is not illegal: it is an event.
- ``summary(state) -> dict``: the ``companion replay --json`` document for this state.
- the read model beside it, typed, which the views and the commands read instead of the state:
  ``outcome(state) -> Outcome`` (the status, who won, how it ended), ``current_player(state) -> str |
  None`` (whose turn; None once the game is over) and ``cards_on_table(state) -> tuple`` (every card
  lying on the table now, as the game's cards: a ``Card``, or Ancient Knowledge's card name).
- ``action_to_json(action) -> dict``: the log line of an action (the inverse of ``parse_action``).
- optional ``complete_setup(line) -> dict``: the setup line as the log must record it, with what a
  replay needs that the players did not say (the box's size, read from the deck file), so a stored
  game replays the same forever. The kiosk stores this line; without the function, the line as given.

States are frozen dataclasses (tuples, not lists), so sharing them between the store, the kiosk and
undo is safe.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypedDict, TypeVar

from companion.cards.decks import FACTS_KEY, cards_as_recorded, facts_in, without_facts
from companion.errors import BadInput
from companion.i18n import Text
from companion.words import counted

T = TypeVar("T")


class Illegal(Exception):
    """Raised inside an engine for an illegal action; its ``apply`` turns it into a refusal
    (``refused(e.reason)``). ``Illegal.worded`` raises one whose reason is worded already (a count's
    plural form: ``i18n.plural``)."""

    def __init__(self, msgid: str, **params):
        super().__init__(msgid)
        self.msgid = msgid
        self.params = params
        self.reason: Text = Text(msgid, params)

    @classmethod
    def worded(cls, reason: Text) -> Illegal:
        e = cls(reason.msgid, **reason.params)
        e.reason = reason
        return e


def parse_players(line: dict, lo: int, hi: int, game: str, order: str) -> tuple[str, ...]:
    """The setup line's player names; BadInput says what is wrong. ``order``: how they are listed."""
    names = line.get("players")
    if not isinstance(names, list) or not all(isinstance(p, str) and p.strip() for p in names):
        raise BadInput("players", f"a list of player names ({order}) is needed")
    if not lo <= len(names) <= hi:
        raise BadInput("players", f"{counted(len(names), 'player')}; {game} is for {lo} to {hi}")
    if len(set(names)) != len(names):
        raise BadInput("players", "two players have the same name")
    return tuple(names)


def action_class(line: dict, types: Mapping[str, T], what: str) -> T:
    """The action class a log line's ``type`` names among ``types``; BadInput if the line is no
    object or names none (``what``, e.g. "an Exhibition action", says what the line should be)."""
    if not isinstance(line, dict):
        raise BadInput("", "a log line must be a JSON object")
    kind = line.get("type")
    if not isinstance(kind, str) or kind not in types:
        raise BadInput("type", f"{kind!r} is not {what}; one of {', '.join(types)}")
    return types[kind]


@dataclass(frozen=True)
class Event:
    """Something that happened, e.g. ``Event("card_placed", {"player": "A", "correct": True})``."""

    kind: str
    data: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Refused(Event):
    """The action was illegal; the state is unchanged. ``reason`` says why, in words."""

    reason: Text = Text("")


def refuse(msgid: str, **params) -> list[Event]:
    """The events of an illegal action: ``return state, refuse(N_("it is {expected}'s turn"), ...)``."""
    return refused(Text(msgid, params))


def refused(reason: Text) -> list[Event]:
    """The events of an illegal action whose reason is worded already (an ``Illegal``'s ``reason``)."""
    return [Refused("refused", dict(reason.params), reason)]


def refusal(events: list[Event]) -> Text | None:
    """The reason if these events say the action was refused, else None."""
    for e in events:
        if isinstance(e, Refused):
            return e.reason
    return None


class ScoreEntry(TypedDict, total=False):
    """One player's final score in a summary's ``scores`` (a scorer's ``players`` entry)."""

    name: str
    total: int
    place: int
    breakdown: dict[str, Any]
    explain: dict[str, Any]            # A: the figures the breakdown is worked out from


class Summary(TypedDict, total=False):
    """An engine's ``summary(state)``: the ``companion replay --json`` document, typed, so mypy checks every
    read of it (replay, the café, the views). One document for every game: each key is filled by the
    games it belongs to (the comment says which) and absent in the others; a key a game adds is added
    here first. The games: T Timeline, C Cronología (c competitive, co cooperative), E Exhibition, A
    Ancient Knowledge, P personal timelines (whose own keys are its engine's ``Summary``)."""

    # every game
    game: str
    status: str                          # in_progress | finished | lost (a cooperative game)
    turn: str | None                     # whose turn; None once over
    round: int                           # not Cronología's cooperative game
    end_reason: str | None               # the engine's word for how it ended
    winner: str | None                   # the one winner (None on a tie or while playing)
    winners: list[str]                   # E A P; a tie names several
    scores: list[ScoreEntry]             # E A, once over: the final scores, best first
    hands: dict[str, int]                # T C A: cards in each hand (Cronología's shared pool: "pool")
    mode: str                            # C: competitive | cooperative
    level: str                           # C
    # the row games (T, Cc)
    timeline: list[int | None]           # the row's years, left to right
    eliminated: list[str]
    sudden_death: bool
    pile: int | None                     # T C: cards left to draw (None: not known)
    box: int                             # T Cco: cards back in the box
    discard: int                         # Cc P: cards on the discard pile
    effect_open: bool                    # Cc: a card effect may be played now
    # Cronología's cooperative grid
    score: int                           # cards on the score pile
    lives: int
    columns_scored: int
    awaiting_deal: bool
    grid: list[list[int | None]]         # the fixed cards' years, row by row (None: scored)
    gaps: list[list[int | None]]         # the gap rows' years
    # the board games (E A)
    players: list[dict[str, Any]]        # each player's board, as the board views draw it
    options: dict[str, Any]
    # Exhibition
    waiting_for: list[str]
    held: dict[str, Any] | None
    market: dict[str, list[dict[str, Any] | None]]
    stock: int | None                    # E: face-down cards left; P: the pile (None: not known)
    layout: dict[str, Any]
    variations: dict[str, Any]
    secret_decade_variant: bool
    claims: dict[str, str]
    six_continents: list[dict[str, Any]]
    warnings: list[str]
    # Ancient Knowledge
    phase: str
    actions_left: int
    tiles: list[dict[str, Any]]
    midgame_flip: dict[str, Any] | None
    end_triggered_by: str | None
    decline_reminder: dict[str, Any] | None
    pending_prompt: dict[str, Any] | None
    prompts_waiting: int
    end_past: int
    past_reached_by: list[str]
    # added by `companion replay` to an older log's summary
    cards_from_decks: list[str]


def winners(summary: Mapping[str, object]) -> list[str]:
    """Who won, from an engine's summary: its "winners" (a tie names several) or its "winner"; [] while
    nobody has (or nobody did: a cooperative game, a game ended early)."""
    found = summary.get("winners")
    if isinstance(found, list):
        return [w for w in found if isinstance(w, str) and w]
    winner = summary.get("winner")
    return [winner] if isinstance(winner, str) and winner else []


@dataclass(frozen=True)
class Outcome:
    """How a game stands (an engine's ``outcome(state)``): its ``status`` as its summary says it
    (``in_progress``, ``finished``, or a cooperative game's ``lost``), who won (a tie names several;
    none while playing, in a cooperative game or a game ended without one) and how it ended: the
    engine's own word for it (``no_cards``, ``all_finished``...), None when it keeps none."""

    status: str = "in_progress"
    winners: tuple[str, ...] = ()
    how: str | None = None

    @property
    def over(self) -> bool:
        return self.status != "in_progress"


@dataclass(frozen=True)
class Standing:
    """One player's place in a game without points, and what places them, in words ("2 cards in hand")."""

    player: str
    place: int
    figure: Text


@dataclass(frozen=True)
class Standings:
    """Where the players stand in a game without points (its engine's ``standings(state)``, the contract's
    ``Ranked``): best first, a tie sharing a place, and why the first are first (or how the game
    stands while it is played). ``companion score GAME LOG.jsonl`` prints it."""

    places: tuple[Standing, ...]
    why: Text


def ranked(figures: Sequence[tuple[str, int, Text]], first: tuple[str, ...],
           fewer_is_better: bool) -> tuple[Standing, ...]:
    """Places from each player's figure (name, count, the count in words): ``first`` (the winners) ahead,
    then by the count, equal counts sharing a place."""
    order = sorted(figures, key=lambda f: (f[0] not in first, f[1] if fewer_is_better else -f[1]))
    out: list[Standing] = []
    for i, (player, n, words) in enumerate(order):
        before = order[i - 1] if i else None
        same = before is not None and (before[0] in first) == (player in first) and before[1] == n
        out.append(Standing(player, out[-1].place if same else i + 1, words))
    return tuple(out)


def scored(result: dict) -> Summary:
    """A finished game's summary keys from its final score (``winners``, ``players``): ``winners``,
    ``winner`` (the one winner, None on a tie) and ``scores``."""
    won = result["winners"]
    return Summary(winners=won, winner=won[0] if len(won) == 1 else None, scores=result["players"])


def outcome_of(summary: Summary) -> Outcome:
    """The Outcome an engine's summary says (its ``status``, ``winner``/``winners``, ``end_reason``)."""
    how = summary.get("end_reason")
    return Outcome(str(summary.get("status", "in_progress")), tuple(winners(summary)),
                   how if isinstance(how, str) else None)


def read_setup(engine, line, facts: dict[str, dict], where: str = "setup"):
    """The one way to read a stored setup line (the kiosk, ``replay`` and the café's fold all read it so):
    the card facts it records are added to ``facts``, and the engine sets up from the line without them,
    each card it names the card recorded. BadInput for a line the engine refuses."""
    facts.update(facts_in(line, where))
    with cards_as_recorded(facts, where):
        return engine.setup(without_facts(line))


def read_action(engine, line, facts: dict[str, dict], where: str = ""):
    """The one way to read a stored action line: its card facts added to ``facts``, then the line without
    them parsed by the engine, each card it names the card recorded (or today's deck's, for a code the
    log holds no facts of). BadInput for a malformed line."""
    facts.update(facts_in(line, where))
    with cards_as_recorded(facts, where or FACTS_KEY):
        return engine.parse_action(without_facts(line))


def fold(engine, setup_line: dict, lines: list[dict]):
    """The state after ``lines`` (already known to be legal: the store holds only confirmed ones). A
    card the log recorded is the card it recorded, whatever its deck says today (an older log's codes
    are read from today's decks)."""
    facts: dict[str, dict] = {}
    state = read_setup(engine, setup_line, facts)
    for line in lines:
        state, _events = engine.apply(state, read_action(engine, line, facts))
    return state
