"""Timeline engine: the spec's worked example, predicate cases, one test per decision (T1-T9),
illegal actions, and properties (hypothesis)."""

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.cards.model import Card
from companion.errors import BadInput
from companion.games import rounds, timeline
from companion.games.base import refusal
from companion.store import replay

EXAMPLES = Path(__file__).resolve().parents[1] / "docs" / "examples"


def setup(**extra):
    line = {"type": "setup", "game": "timeline", "players": ["A", "B", "C"], "hand": 4, "start": {"year": 1450}}
    line.update(extra)
    return timeline.setup(line)


def play(state, *moves):
    """moves: (player, year, gap); returns the state and every event."""
    events = []
    for player, year, gap in moves:
        state, ev = timeline.apply(state, timeline.parse_action(
            {"type": "place", "player": player, "card": {"year": year}, "gap": gap}))
        assert refusal(ev) is None, (player, year, gap, refusal(ev))
        events += ev
    return state, events


def refused(state, player, year, gap):
    new, ev = timeline.apply(state, timeline.parse_action(
        {"type": "place", "player": player, "card": {"year": year}, "gap": gap}))
    assert new is state
    return str(refusal(ev))


def replay_file(name):
    lines = [json.loads(x) for x in (EXAMPLES / name).read_text().splitlines() if x.strip()]
    r = replay.start(lines[0])
    for n, line in enumerate(lines[1:], start=2):
        r = replay.step(r, line, f"line {n}")
    return r


def test_worked_example_round_1():
    s, _ = play(setup(), ("A", 1969, 1))
    assert [c.year for c in s.row] == [1450, 1969] and s.hands == (3, 4, 4)
    s, ev = play(s, ("B", 1200, 1))
    assert [c.year for c in s.row] == [1450, 1969] and s.hands == (3, 4, 4)
    assert any(e.kind == "card_spent" for e in ev) and any(e.kind == "card_drawn" for e in ev)
    s, ev = play(s, ("C", 1450, 0))
    assert [c.year for c in s.row] == [1450, 1450, 1969] and s.hands == (3, 4, 3)
    assert s.round == 2 and s.current == "A" and len(s.row) + 1 == 4


def test_worked_example_to_the_end():
    r = replay_file("timeline-worked-example.jsonl")
    s = timeline.summary(r.state)
    assert {k: s[k] for k in ("status", "winner", "round", "eliminated", "hands", "sudden_death")} == {
        "status": "finished", "winner": "C", "round": 5, "eliminated": ["B"], "hands": {"A": 1, "B": 2, "C": 0},
        "sudden_death": True}


@pytest.mark.parametrize("year,good_gaps", [(1450, {0, 1, 2}), (1969, {2, 3}), (-753, {0})])
def test_predicate_cases(year, good_gaps):
    row = tuple(Card(year=y) for y in (1450, 1450, 1969))
    assert {g for g in range(4) if rounds.fits(row, Card(year=year), g)} == good_gaps


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(-5000, 2100).filter(bool), min_size=1, max_size=12), st.integers(-5000, 2100).filter(bool),
       st.data())
def test_correct_iff_the_row_stays_non_decreasing(years, x, data):
    row = tuple(Card(year=y) for y in sorted(years))
    gap = data.draw(st.integers(0, len(row)))
    after = [c.year for c in row[:gap]] + [x] + [c.year for c in row[gap:]]
    assert rounds.fits(row, Card(year=x), gap) == (after == sorted(after))


# -- decisions (spec §12) --------------------------------------------------------------------------
def test_T1_card_count_comes_from_the_deck_file():
    s = setup(start="TC:DEMO:001")
    from companion.cards.decks import get_deck
    assert s.pile == len(get_deck("DEMO")) - 1 - 12
    assert setup(deck_size=110).pile == 110 - 13 and setup(deck_size=55).pile == 55 - 13
    assert setup().pile is None                       # unknown box: the pile never runs out


@pytest.mark.parametrize("players,hand", [(2, 6), (3, 6), (4, 5), (5, 5), (6, 4), (8, 4)])
def test_T2_hand_by_player_count(players, hand):
    s = timeline.setup({"type": "setup", "game": "timeline", "players": [f"P{i}" for i in range(players)],
                        "hand": "by_player_count", "start": {"year": 1}})
    assert set(s.hands) == {hand}


def test_T2_default_hand_is_4_and_any_number_is_allowed():
    assert setup().hands == (4, 4, 4)
    two = timeline.setup({"type": "setup", "game": "timeline", "players": ["A", "B"], "start": {"year": 1}})
    assert two.hands == (4, 4)
    assert setup(hand=7).hands == (7, 7, 7)
    assert setup(first_player_extra_card=True).hands == (5, 4, 4)


def test_T3_empty_pile_reshuffles_the_box_then_skips():
    s = setup(deck_size=14, hand=4)                  # 1 start + 12 dealt: one card left in the pile
    assert s.pile == 1
    s, ev = play(s, ("A", 1000, 1))                  # wrong: box 1, draws the last card
    assert (s.pile, s.spent, s.hands[0]) == (0, 1, 4)
    s, ev = play(s, ("B", 1000, 1))                  # wrong: the box (2 cards) becomes the pile
    assert any(e.kind == "pile_reshuffled" for e in ev) and (s.pile, s.spent, s.hands[1]) == (1, 0, 4)
    s2 = setup(deck_size=13, hand=4, reshuffle_box_when_empty=False)
    s2, ev = play(s2, ("A", 1000, 1))
    assert any(e.kind == "draw_skipped" for e in ev) and s2.hands[0] == 3 and s2.spent == 1


def test_T4_wrong_card_to_the_box_or_into_the_timeline():
    s, _ = play(setup(), ("A", 1000, 1))
    assert [c.year for c in s.row] == [1450] and s.spent == 1 and s.hands[0] == 4
    s, ev = play(setup(wrong_card_to_timeline=True), ("A", 1000, 1))
    assert [c.year for c in s.row] == [1000, 1450] and s.spent == 0 and s.hands[0] == 4
    s, _ = play(setup(wrong_card_to_timeline=True), ("A", 1969, 1), ("B", 1450, 2))
    assert [c.year for c in s.row] == [1450, 1450, 1969]      # after every card with year <= its own


def _into_sudden_death():
    s = setup(hand=1)
    s, ev = play(s, ("A", 1500, 1), ("B", 1000, 2), ("C", 1600, 2))   # A and C finish, B misses
    assert s.sudden_death and s.active == ("A", "C") and s.eliminated == ("B",)
    assert s.hands == (1, 1, 1) and s.status == "in_progress"
    return s


def test_T5_sudden_death_round_with_nobody_correct_goes_on():
    s = _into_sudden_death()
    s, ev = play(s, ("A", 1000, 3), ("C", 1000, 3))
    assert s.status == "in_progress" and s.active == ("A", "C") and s.hands == (1, 1, 1) and s.round == 3


def test_T6_sudden_death_round_with_two_correct_repeats():
    s = setup(hand=1, players=["A", "B", "C", "D"])
    s, _ = play(s, ("A", 1500, 1), ("B", 1600, 2), ("C", 1700, 3), ("D", 1000, 4))
    assert s.active == ("A", "B", "C")
    s, ev = play(s, ("A", 1800, 4), ("B", 1900, 5), ("C", 1000, 6))
    assert s.active == ("A", "B") and s.eliminated == ("D", "C") and s.hands == (1, 1, 1, 1)
    s, ev = play(s, ("A", 2000, 6), ("B", 1000, 7))
    assert s.status == "finished" and s.winner == "A"


def test_T7_bc_years_are_negative_and_sort():
    s = timeline.setup({"type": "setup", "game": "timeline", "players": ["A", "B"], "start": {"year": -44}})
    s, _ = play(s, ("A", -753, 0), ("B", 79, 2))
    assert [c.year for c in s.row] == [-753, -44, 79]
    with pytest.raises(BadInput, match="no year 0"):
        timeline.parse_action({"type": "place", "player": "A", "card": {"year": 0}, "gap": 0})


def test_T8_equal_years_lie_next_to_each_other_on_either_side():
    s, ev = play(setup(), ("A", 1450, 0))
    assert ev[0].data["correct"]
    s, ev = play(setup(), ("A", 1450, 1))
    assert ev[0].data["correct"]


def test_T9_sudden_death_keeps_seating_order_from_the_first_player():
    s = setup(hand=1, players=["A", "B", "C", "D"])
    s, _ = play(s, ("A", 1000, 1), ("B", 1500, 1), ("C", 1000, 2), ("D", 1600, 2))
    assert s.active == ("B", "D") and s.current == "B"


def test_exactly_one_finisher_wins_only_at_the_end_of_the_round():
    s = setup(hand=1)
    s, ev = play(s, ("A", 1500, 1))
    assert s.status == "in_progress" and s.current == "B"     # not before B and C have played
    s, ev = play(s, ("B", 1000, 2), ("C", 1000, 2))
    assert s.status == "finished" and s.winner == "A"
    assert any(e.kind == "game_won" for e in ev)


# -- illegal actions: refused with a reason, state unchanged ---------------------------------------
def test_illegal_actions_are_refused_with_a_reason():
    s = setup()
    assert refused(s, "B", 1969, 1) == "it is A's turn, not B's"
    assert refused(s, "Z", 1969, 1) == "Z is not playing in this game"
    assert refused(s, "A", 1969, 2) == "gap 2 is outside 0..1"
    s = _into_sudden_death()
    assert refused(s, "B", 1969, 0) == "B was eliminated in sudden death"
    s, _ = play(s, ("A", 1000, 0), ("C", 1000, 3))
    assert s.status == "finished"
    assert refused(s, "A", 1969, 0) == "the game is over"


def test_refusals_read_in_spanish():
    s = setup()
    _new, ev = timeline.apply(s, timeline.parse_action({"type": "place", "player": "B", "card": {"year": 1}, "gap": 0}))
    assert refusal(ev).render("es") == "le toca a A, no a B"


def test_malformed_lines_name_the_field():
    with pytest.raises(BadInput, match="^type: 'effect' is not a Timeline action"):
        timeline.parse_action({"type": "effect", "player": "A"})
    with pytest.raises(BadInput, match="^gap: a whole number is needed"):
        timeline.parse_action({"type": "place", "player": "A", "card": {"year": 1}})
    with pytest.raises(BadInput, match="^players: 1 player;"):
        timeline.setup({"type": "setup", "game": "timeline", "players": ["A"], "start": {"year": 1}})
    with pytest.raises(BadInput, match="^hand: "):
        setup(hand="lots")
    with pytest.raises(BadInput, match="^colour: unknown field"):
        setup(colour="red")


def test_a_sticker_card_is_refused_if_already_in_the_row():
    s = setup(start="TC:DEMO:001")
    line = {"type": "place", "player": "A", "card": "TC:DEMO:001", "gap": 0}
    _new, ev = timeline.apply(s, timeline.parse_action(line))
    assert str(refusal(ev)) == "TC:DEMO:001 is already in the row"
