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

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TypeVar

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


def winners(summary: dict) -> list[str]:
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


def scored(result: dict) -> dict:
    """A finished game's summary keys from its final score (``winners``, ``players``): ``winners``,
    ``winner`` (the one winner, None on a tie) and ``scores``."""
    won = result["winners"]
    return {"winners": won, "winner": won[0] if len(won) == 1 else None, "scores": result["players"]}


def outcome_of(summary: dict) -> Outcome:
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
