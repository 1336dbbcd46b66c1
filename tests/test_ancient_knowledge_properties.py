"""Property tests of the Ancient Knowledge tracker: random games (legal and illegal lines mixed)
never break the table's invariants, and apply never mutates its input."""

import ast
import copy
import json
import pathlib
from collections import Counter
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.ancient_knowledge import engine as E
from companion.games.ancient_knowledge.catalog import catalog
from companion.games.ancient_knowledge.state import PastCard
from companion.games.base import Refused

TILES = [["thales", "aristotle", "mercury"], ["runic-alphabet", "the-number-pi", "ptolemy"],
         ["golden-mean", "plato", "thoth"]]
CAT = catalog()
MONUMENTS = sorted(b.id for b in CAT.builders.values() if b.is_monument)
ARTIFACTS = sorted(b.id for b in CAT.builders.values() if not b.is_monument)


def _candidates(s, draw):
    """A few plausible lines for this state (some will be refused, which is part of the test)."""
    name = s.board.name
    pr = s.pending_prompt
    b = s.board
    out = []
    if pr is not None:
        if pr.kind == "knowledge":
            value = draw(st.integers(pr.low, pr.high))
        elif pr.kind == "refill":
            available = E._available(s, pr.tile - 1, pr.level)
            value = draw(st.permutations(available))[:pr.count]
        else:
            value = draw(st.sampled_from(pr.choices))
        out.append({"type": "answer", "player": pr.player, "prompt": pr.kind, "value": value})
    timeline = list(b.timeline_ids())
    past = list(b.past_ids())
    other = draw(st.sampled_from([x.name for x in s.boards]))
    out += [
        {"type": "create", "player": name, "card": draw(st.sampled_from(MONUMENTS)),
         "zone": draw(st.sampled_from([1, 1, 2, 3, 4, 5, 6]))},
        {"type": "create", "player": name, "card": draw(st.sampled_from(ARTIFACTS))},
        {"type": "search", "player": name},
        {"type": "search", "player": other},
        {"type": "learn", "player": name, "card": draw(st.sampled_from([c for t in TILES for c in t] + ["imhotep"]))},
        {"type": "draw", "player": other, "count": draw(st.integers(1, 5))},
        {"type": "discard", "player": name, "count": draw(st.integers(1, 3))},
        {"type": "lost_knowledge", "player": other, "delta": draw(st.sampled_from([-1, 1, 2]))},
        {"type": "place", "player": name, "card": draw(st.sampled_from(MONUMENTS)), "zone": draw(st.integers(1, 6))},
    ]
    if timeline:
        card = draw(st.sampled_from(timeline))
        out += [
            {"type": "move", "player": name, "card": card, "zone": draw(st.integers(1, 6))},
            {"type": "knowledge", "player": name, "card": card, "delta": draw(st.sampled_from([-2, -1, 1]))},
            {"type": "archive", "player": name, "remove": {card: draw(st.integers(1, 3))}},
            {"type": "to_past", "player": name, "card": card},
            {"type": "destroy", "player": name, "card": card},
        ]
        if len(timeline) >= 2:
            out.append({"type": "swap", "player": name, "cards": draw(st.permutations(timeline))[:2]})
    if past:
        out.append({"type": "excavate", "player": name, "cards": [draw(st.sampled_from(past))]})
    return out


def _check_invariants(before, after):
    every = Counter()
    for old, new in zip(before.boards, after.boards, strict=True):
        assert all(len(zone) <= 2 for zone in new.zones), "a zone holds three monuments"
        assert len(new.past) >= len(old.past), "the Past shrank"
        assert 0 <= new.hand <= 10
        assert new.lost_knowledge >= 0 and len(new.artifacts) <= 5
        assert all(m.tokens >= 0 for _, _, m in new.timeline())
        every.update(new.timeline_ids() + new.past_ids() + new.artifacts + new.techs)
    every.update(c for tile in after.tiles for c in tile)
    assert max(every.values(), default=1) == 1, "a card is in two places"


@pytest.mark.slow
@settings(max_examples=40)
@given(st.data(), st.integers(2, 4))
def test_random_games_keep_the_invariants(data, players):
    names = ["Ana", "Bo", "Cy", "Di"][:players]
    s = E.setup({"type": "setup", "game": "ancient-knowledge", "players": names, "tiles": TILES})
    # start from Pasts of random sizes so the mid-game flip and the end of the game come into play
    pool = iter(data.draw(st.permutations(MONUMENTS)))
    for i, b in enumerate(s.boards):
        size = data.draw(st.integers(0, 14))
        s = s.with_board(i, replace(b, past=tuple(PastCard(next(pool)) for _ in range(size))))
    for _ in range(80):
        if s.finished:
            assert len({b.turns for b in s.boards}) == 1   # everyone has had the same number of turns
            break
        line = data.draw(st.sampled_from(_candidates(s, data.draw)))
        action = E.parse_action(line)
        assert E.parse_action(E.action_to_json(action)) == action
        frozen = copy.deepcopy(s)
        new, events = E.apply(s, action)
        assert s == frozen, "apply mutated its input"
        if any(isinstance(e, Refused) for e in events):
            assert new is s and len(events) == 1
            continue
        _check_invariants(s, new)
        s = new
    json.dumps(E.summary(s))


@settings(max_examples=30)
@given(st.data())
def test_searching_only_games_end_after_equal_turns(data):
    """With only Search and passing, a game never ends; with a full Past it ends after the round."""
    s = E.setup({"type": "setup", "game": "ancient-knowledge", "players": ["A", "B", "C"], "tiles": TILES})
    trigger = data.draw(st.integers(0, 2))
    board = s.boards[trigger]
    s = replace(s.with_board(trigger, replace(board, past=tuple(PastCard(c) for c in MONUMENTS[:14]))),
                flipped_tile=1, tile_levels=(2, 1, 2))
    while not s.finished:
        s, ev = E.apply(s, E.parse_action({"type": "search", "player": s.board.name}))
        assert not any(isinstance(e, Refused) for e in ev)
    assert [b.turns for b in s.boards] == [1, 1, 1] and s.end_triggered_by == "A"
    assert json.loads(json.dumps(E.summary(s)))["winners"]


def test_every_marked_message_has_a_spanish_translation():
    folder = pathlib.Path(E.__file__).parent
    msgids = set()
    for path in folder.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "N_":
                msgids.add(node.args[0].value)
    assert len(msgids) > 50
    from test_i18n import spanish_catalog  # a Spanish word equal to the English one ("Total") counts
    known = spanish_catalog()
    missing = sorted(m for m in msgids if m not in known)
    assert missing == []
