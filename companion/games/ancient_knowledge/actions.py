"""Ancient Knowledge log lines <-> action objects (the format is documented in docs/ancient-knowledge.md).

Three families, every line with ``type`` and ``player``:

- the five **actions** of a turn: ``create``, ``learn``, ``excavate``, ``archive``, ``search``;
- ``answer``: the reply to the pending prompt (``prompt`` names its kind, ``value`` the reply);
- **effect results**, recorded as the players resolve a card (no action is used): ``draw``,
  ``discard``, ``hand``, ``knowledge``, ``lost_knowledge``, ``move``, ``swap``, ``place``,
  ``destroy``, ``to_past``, ``straighten``, ``gain_tech``, ``skip_decline``. ``player`` is the
  player whose board or hand changes.

A malformed line raises BadInput naming the field; whether it is legal now is ``apply``'s business.
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields

from companion.errors import BadInput
from companion.games.ancient_knowledge.catalog import catalog
from companion.games.ancient_knowledge.state import HAND_LIMIT, ZONES
from companion.games.base import action_class


@dataclass(frozen=True)
class Action:
    player: str


@dataclass(frozen=True)
class Create(Action):
    card: str
    zone: int | None = None         # monuments only


@dataclass(frozen=True)
class Learn(Action):
    card: str


@dataclass(frozen=True)
class Excavate(Action):
    cards: tuple[str, ...]
    per_card: int = 2               # 3 with the artifact that raises it


@dataclass(frozen=True)
class Archive(Action):
    remove: tuple[tuple[str, int], ...]   # (monument, tokens removed from it)
    discard: int | None = None            # cards discarded; default: the tokens removed


@dataclass(frozen=True)
class Search(Action):
    pass


@dataclass(frozen=True)
class Answer(Action):
    prompt: str
    value: object


@dataclass(frozen=True)
class Draw(Action):
    count: int


@dataclass(frozen=True)
class Discard(Action):
    count: int


@dataclass(frozen=True)
class SetHand(Action):
    count: int


@dataclass(frozen=True)
class Knowledge(Action):
    card: str
    delta: int


@dataclass(frozen=True)
class LostKnowledge(Action):
    delta: int


@dataclass(frozen=True)
class Move(Action):
    card: str
    zone: int


@dataclass(frozen=True)
class Swap(Action):
    cards: tuple[str, str]


@dataclass(frozen=True)
class Place(Action):
    card: str
    zone: int | None = None


@dataclass(frozen=True)
class Destroy(Action):
    card: str


@dataclass(frozen=True)
class ToPast(Action):
    card: str


@dataclass(frozen=True)
class Straighten(Action):
    cards: tuple[str, ...]


@dataclass(frozen=True)
class GainTech(Action):
    card: str


@dataclass(frozen=True)
class SkipDecline(Action):
    pass


TYPES: dict[str, type[Action]] = {
    "create": Create, "learn": Learn, "excavate": Excavate, "archive": Archive, "search": Search,
    "answer": Answer,
    "draw": Draw, "discard": Discard, "hand": SetHand, "knowledge": Knowledge, "lost_knowledge": LostKnowledge,
    "move": Move, "swap": Swap, "place": Place, "destroy": Destroy, "to_past": ToPast,
    "straighten": Straighten, "gain_tech": GainTech, "skip_decline": SkipDecline,
}
TYPE_OF = {cls: name for name, cls in TYPES.items()}
PROMPT_KINDS = ("knowledge", "effect", "timeline", "decline_order", "decline_effect", "flip_tile", "refill")


# ---------------------------------------------------------------------------------------------
# Field checks: (value, where) -> value


def _int(value, where: str, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise BadInput(where, f"{value!r} is not a whole number")
    if not low <= value <= high:
        raise BadInput(where, f"{value} is outside {low}-{high}")
    return value


def _nonzero(value, where: str) -> int:
    _int(value, where, -99, 99)
    if value == 0:
        raise BadInput(where, "a change of 0 changes nothing; leave the line out")
    return value


def _builder(value, where):
    catalog().builder(value, where)
    return value


def _monument(value, where):
    catalog().monument(value, where)
    return value


def _tech(value, where):
    catalog().tech(value, where)
    return value


def _monuments(value, where, exactly: int | None = None):
    if not isinstance(value, list) or not value:
        raise BadInput(where, "a non-empty list of monument ids is needed")
    if exactly is not None and len(value) != exactly:
        raise BadInput(where, f"{len(value)} cards; exactly {exactly} are needed")
    for i, v in enumerate(value):
        _monument(v, f"{where}[{i}]")
        if v in value[:i]:
            raise BadInput(f"{where}[{i}]", f"{v!r} is listed twice")
    return tuple(value)


def _remove(value, where):
    if not isinstance(value, dict) or not value:
        raise BadInput(where, 'an object {"monument-id": tokens removed, ...} is needed')
    out = []
    for card, n in value.items():
        _monument(card, f"{where}.{card}")
        out.append((card, _int(n, f"{where}.{card}", 1, 14)))
    return tuple(out)


def _value(value, where):
    if isinstance(value, bool) or value is None:
        raise BadInput(where, f"{value!r} is not an answer (a number, a text or a list of card ids)")
    if isinstance(value, (int, str)):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise BadInput(where, "an answer is a number, a text or a list of card ids")


def _kind(value, where):
    if value not in PROMPT_KINDS:
        raise BadInput(where, f"{value!r} is not a prompt kind; one of {', '.join(PROMPT_KINDS)}")
    return value


def _zone(value, where):
    return _int(value, where, 1, ZONES)


_FIELDS = {
    (Create, "card"): _builder, (Create, "zone"): _zone,
    (Learn, "card"): _tech,
    (Excavate, "cards"): _monuments, (Excavate, "per_card"): lambda v, w: _int(v, w, 2, 3),
    (Archive, "remove"): _remove, (Archive, "discard"): lambda v, w: _int(v, w, 1, HAND_LIMIT),
    (Answer, "prompt"): _kind, (Answer, "value"): _value,
    (Draw, "count"): lambda v, w: _int(v, w, 1, 20),
    (Discard, "count"): lambda v, w: _int(v, w, 1, HAND_LIMIT),
    (SetHand, "count"): lambda v, w: _int(v, w, 0, HAND_LIMIT),
    (Knowledge, "card"): _monument, (Knowledge, "delta"): _nonzero,
    (LostKnowledge, "delta"): _nonzero,
    (Move, "card"): _monument, (Move, "zone"): _zone,
    (Swap, "cards"): lambda v, w: _monuments(v, w, exactly=2),
    (Place, "card"): _builder, (Place, "zone"): _zone,
    (Destroy, "card"): _builder,
    (ToPast, "card"): _monument,
    (Straighten, "cards"): _monuments,
    (GainTech, "card"): _tech,
}


def parse_action(line: dict) -> Action:
    """A log line to an action; BadInput names the field that is wrong."""
    cls = action_class(line, TYPES, "an Ancient Knowledge line")
    kind = line["type"]
    player = line.get("player")
    if not isinstance(player, str) or not player.strip():
        raise BadInput("player", "the player's name is needed")
    known = {f.name for f in fields(cls)}
    for key in line:
        if key not in known and key != "type":
            raise BadInput(key, f"unknown field for {kind!r}; its fields: {', '.join(sorted(known))}")
    values = {"player": player}
    for f in fields(cls):
        if f.name == "player":
            continue
        if f.name not in line or (line[f.name] is None and f.default is None):
            if f.default is MISSING:
                raise BadInput(f.name, f"missing field {f.name!r} for {kind!r}")
            continue
        values[f.name] = _FIELDS[(cls, f.name)](line[f.name], f.name)
    return cls(**values)


def action_to_json(action: Action) -> dict:
    """The log line of an action (the inverse of parse_action); defaults are left out, but for an
    Excavate's ``per_card``: the players choose it (2, or 3 with an artifact), and its line says it."""
    out = {"type": TYPE_OF[type(action)], "player": action.player}
    for f in fields(action):
        if f.name == "player":
            continue
        value = getattr(action, f.name)
        if f.default is not MISSING and value == f.default and not (isinstance(action, Excavate)
                                                                    and f.name == "per_card"):
            continue
        if isinstance(action, Archive) and f.name == "remove":
            value = {card: n for card, n in value}
        elif isinstance(value, tuple):
            value = list(value)
        out[f.name] = value
    return out
