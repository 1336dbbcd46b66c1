"""Personal timelines engine: the rules file's worked example (docs/personal-timelines.md §8), one test
per decision of its table (P1-P10; P9, whose row is whose, in tests/test_personal_timelines_kiosk.py), illegal
actions and bad lines, and properties (hypothesis)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import BadInput
from companion.games.base import fold, refusal
from companion.games.personal_timelines import engine as pt


def setup(players=("A", "B", "C"), starts=(1450, 1969, -753), **extra):
    line = {"type": "setup", "game": "personal-timelines", "players": list(players),
            "starts": [{"year": y} for y in starts]}
    line.update(extra)
    return pt.setup(line)


def line(player, year, gap, row=None):
    out = {"type": "place", "player": player, "card": {"year": year}, "gap": gap}
    if row is not None:
        out["row"] = row
    return out


def play(state, *moves):
    """moves: (player, year, gap); returns the state and every event."""
    events = []
    for player, year, gap in moves:
        state, ev = pt.apply(state, pt.parse_action(line(player, year, gap)))
        assert refusal(ev) is None, (player, year, gap, refusal(ev))
        events += ev
    return state, events


def refused(state, action_line) -> str:
    new, ev = pt.apply(state, pt.parse_action(action_line))
    assert new is state
    reason = refusal(ev)
    assert reason is not None and len(ev) == 1
    return reason.render("en")


def years(state, player):
    return [c.year for c in state.row(player)]


ROUNDS_1_TO_3 = [("A", 1600, 1), ("B", 1800, 1), ("C", 2000, 1),        # B's 1800 is before 1969: discarded
                 ("A", 1500, 1), ("B", 1066, 0), ("C", 100, 0),         # C's 100 is after -753: discarded
                 ("A", 1700, 3), ("B", 1969, 2), ("C", 1000, 1)]        # B's 1969 beside 1969: either side


def test_worked_example_the_first_row_at_the_goal_wins_at_once():
    s = setup(goal=5, deck_size=13)
    assert s.pile == 10 and s.current == "A"
    s, events = play(s, *ROUNDS_1_TO_3)
    assert (years(s, "A"), years(s, "B"), years(s, "C")) == ([1450, 1500, 1600, 1700], [1066, 1969, 1969],
                                                             [-753, 1000, 2000])
    assert s.discards == 2 and s.pile == 1 and s.round == 4
    assert [e.kind for e in events].count("card_discarded") == 2
    s, events = play(s, ("A", 1650, 3))
    assert [e.kind for e in events] == ["card_placed", "goal_reached", "game_won"]
    summary = pt.summary(s)
    assert summary == {"game": "personal-timelines", "status": "finished", "winner": "A", "winners": ["A"],
                       "turn": None, "round": 4, "goal": 5,
                       "rows": {"A": [1450, 1500, 1600, 1650, 1700], "B": [1066, 1969, 1969], "C": [-753, 1000, 2000]},
                       "lengths": {"A": 5, "B": 3, "C": 3}, "stock": 0, "discard": 2, "end_reason": "goal"}
    assert pt.outcome(s).winners == ("A",) and pt.outcome(s).how == "goal"
    assert "the game is over" in refused(s, line("B", 1, 0))


def test_worked_example_a_spent_pile_the_longest_row_wins():
    s, events = play(setup(goal=5, deck_size=12), *ROUNDS_1_TO_3)
    assert [e.kind for e in events][-3:] == ["round_ended", "pile_exhausted", "game_won"]
    assert pt.outcome(s).winners == ("A",) and s.end_reason == "no_cards" and s.pile == 0


def test_p1_the_first_card_counts_toward_the_goal_unless_the_flag_says_not():
    s, _ = play(setup(goal=5), *ROUNDS_1_TO_3, ("A", 1650, 3))
    assert s.winners == ("A",)
    s, _ = play(setup(goal=5, start_card_counts=False), *ROUNDS_1_TO_3, ("A", 1650, 3))
    assert s.status == "in_progress" and s.current == "B"
    s, _ = play(s, ("B", 2020, 3), ("C", -1000, 0), ("A", 1800, 5))
    assert s.winners == ("A",) and len(s.row("A")) == 6


def test_p2_the_game_ends_at_once_or_at_the_end_of_the_round():
    moves = [*ROUNDS_1_TO_3, ("A", 1650, 3), ("B", 1970, 3), ("C", 2010, 3)]
    s, _ = play(setup(goal=5, finish_round=True), *moves[:-2])
    assert s.status == "in_progress" and s.current == "B"       # A reached the goal; B and C still play
    s, _ = play(s, *moves[-2:])
    assert s.winners == ("A",) and s.end_reason == "goal" and len(s.row("C")) == 4
    # two rows at the goal at the end of the round: the longest wins; equal, they share it (P4)
    c_right = [m if m[0] != "C" else ("C", m[1], {100: 1, 1000: 2}.get(m[1], m[2])) for m in ROUNDS_1_TO_3]
    s, events = play(setup(goal=5, finish_round=True), *c_right, ("A", 1650, 3), ("B", 1970, 3))
    assert s.status == "in_progress" and len(s.row("C")) == 4
    s, events = play(s, ("C", 2010, 4))
    assert s.winners == ("A", "C") and pt.summary(s)["winner"] is None and events[-1].kind == "game_shared"


def test_p3_a_spent_pile_ends_the_game_unless_the_discards_are_shuffled_into_a_new_one():
    s, events = play(setup(goal=10, deck_size=12, reshuffle_discards=True), *ROUNDS_1_TO_3)
    assert s.status == "in_progress" and s.pile == 2 and s.discards == 0
    assert events[-1].kind == "pile_reshuffled"
    s, events = play(s, ("A", 1200, 0), ("B", 900, 0))
    assert s.status == "finished" and s.end_reason == "no_cards" and s.winners == ("A",)


def test_p4_a_tie_for_the_longest_row_is_shared_or_goes_to_fewer_turns():
    # the pile runs out after A's second turn (a miss): A and B hold 2 cards each, B had one turn fewer
    moves = [("A", 1500, 1), ("B", 2000, 1), ("A", 1200, 0)]
    s, events = play(setup(("A", "B"), (1000, 1900), deck_size=5), *moves)
    assert s.winners == ("A", "B") and events[-1].kind == "game_shared"
    s, _ = play(setup(("A", "B"), (1000, 1900), deck_size=5, ties="fewer_turns"), *moves)
    assert s.winners == ("B",)


def test_p5_equal_years_lie_on_either_side():
    s = setup(("A", "B"), (1500, 1900))
    for gap in (0, 1):
        t, ev = pt.apply(s, pt.parse_action(line("A", 1500, gap)))
        assert ev[0].data["correct"] is True and years(t, "A") == [1500, 1500]


def test_p6_a_pile_of_unknown_size_never_runs_out_and_a_known_one_is_recorded():
    assert setup().pile is None
    line_ = {"type": "setup", "game": "personal-timelines", "players": ["A", "B"],
             "starts": ["TC:DEMO:001", "TC:DEMO:002"]}
    recorded = pt.complete_setup(line_)
    assert recorded["deck_size"] == 40 and pt.setup(recorded).pile == 38


def test_p7_a_card_in_another_players_row_is_refused_with_the_row_named():
    s = setup()
    assert refused(s, line("A", 1500, 1, row="B")) == ("A plays in their own row, not in B's: move the card to "
                                                       "A's row")
    assert refused(s, line("B", 1500, 1)) == "it is A's turn, not B's"
    assert refused(s, line("A", 1500, 2)) == "gap 2 is outside 0..1"
    assert refused(s, line("Z", 1500, 0)) == "Z is not playing in this game"
    coded = pt.setup({"type": "setup", "game": "personal-timelines", "players": ["A", "B"],
                      "starts": ["TC:DEMO:001", "TC:DEMO:002"]})
    assert refused(coded, {"type": "place", "player": "A", "card": "TC:DEMO:002", "gap": 1}) == \
        "TC:DEMO:002 is already in B's row"


def test_p8_seating_order_the_first_listed_plays_first_and_rounds_count():
    s, events = play(setup(), ("A", 1600, 1), ("B", 2000, 1), ("C", 1, 1))
    assert s.current == "A" and s.round == 2 and any(e.kind == "round_ended" for e in events)


def test_p10_goals_and_players_allowed():
    for goal in (5, 7, 10):
        assert setup(goal=goal).rules.goal == goal
    assert setup().rules.goal == 10
    for bad in (6, "10", 10.0, True):
        with pytest.raises(BadInput, match="^goal: "):
            setup(goal=bad)
    with pytest.raises(BadInput, match="^players: 1 player; Personal timelines is for 2 to 6"):
        setup(("A",), (1,))
    with pytest.raises(BadInput, match="^players: 7 players"):
        setup(tuple("ABCDEFG"), tuple(range(1, 8)))


def test_bad_lines_say_what_and_where():
    with pytest.raises(BadInput, match="^starts: one starting card for each of the 3 players"):
        setup(starts=(1, 2))
    with pytest.raises(BadInput, match="^starts: the same card is dealt to two rows"):
        pt.setup({"type": "setup", "game": "personal-timelines", "players": ["A", "B"],
                  "starts": ["TC:DEMO:001", "TC:DEMO:001"]})
    with pytest.raises(BadInput, match="^ties: "):
        setup(ties="random")
    with pytest.raises(BadInput, match="^colour: unknown field"):
        setup(colour="red")
    with pytest.raises(BadInput, match="^type: 'swap' is not a Personal timelines action"):
        pt.parse_action({"type": "swap"})
    with pytest.raises(BadInput, match="^gap: a whole number is needed"):
        pt.parse_action({"type": "place", "player": "A", "card": {"year": 1}})
    with pytest.raises(BadInput, match="^row: "):
        pt.parse_action({**line("A", 1, 0), "row": 3})
    with pytest.raises(BadInput, match="^deck_size: a box of 2 cards cannot deal 3"):
        setup(deck_size=2)


def test_a_line_without_its_row_is_the_players_own_and_lines_round_trip():
    a = pt.parse_action(line("A", 1500, 1))
    assert a.row == "A" and pt.parse_action(pt.action_to_json(a)) == a


def test_the_read_model_answers_where_a_card_fits():
    t = pt.table(setup(goal=7, start_card_counts=False))
    assert t.current == "A" and t.length_to_win == 8 and t.cards_to_goal("B") == 7
    card = pt.parse_action(line("A", 1500, 0)).card
    assert t.fits("A", card, 1) and not t.fits("A", card, 0) and t.fits("C", card, 1)


# -- properties ---------------------------------------------------------------------------------------

YEARS = st.integers(-3000, 2020).filter(bool)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 6), goal=st.sampled_from(pt.GOALS), extra=st.integers(0, 30), reshuffle=st.booleans(),
       finish=st.booleans(), ties=st.sampled_from(pt.TIES), data=st.data())
def test_random_games_keep_every_card_sorted_counted_and_end_with_the_longest_rows(n, goal, extra, reshuffle,
                                                                                   finish, ties, data):
    players = [f"P{i}" for i in range(n)]
    size = n + extra
    setup_line = {"type": "setup", "game": "personal-timelines", "players": players, "goal": goal,
                  "starts": [{"year": y} for y in data.draw(st.lists(YEARS, min_size=n, max_size=n))],
                  "deck_size": size, "reshuffle_discards": reshuffle, "finish_round": finish, "ties": ties}
    s = pt.setup(setup_line)
    lines = []
    for _ in range(200):
        if s.status != "in_progress":
            break
        who = s.current
        # now and then someone plays in another's row or outside the row: refused, nothing changes
        slip = data.draw(st.integers(0, 7))
        row = players[(players.index(who) + 1) % n] if slip == 1 else who
        gap = len(s.row(who)) + 1 if slip == 2 else data.draw(st.integers(0, len(s.row(who))))
        action = pt.parse_action({"type": "place", "player": who, "row": row, "card": {"year": data.draw(YEARS)},
                                  "gap": gap})
        new, events = pt.apply(s, action)
        if slip in (1, 2):
            assert new is s and refusal(events) is not None
            continue
        assert refusal(events) is None and pt.parse_action(pt.action_to_json(action)) == action
        lines.append(pt.action_to_json(action))
        s = new
        for row in s.rows:
            assert [c.year for c in row] == sorted(c.year for c in row)
        assert sum(map(len, s.rows)) + s.discards + s.pile == size
    if not reshuffle:
        assert s.status == "finished"           # at most ``extra`` turns: every turn spends a card of the pile
    if s.status == "finished":
        assert s.winners and s.current is None
        lengths = {p: len(s.row(p)) for p in players}
        if s.end_reason == "no_cards":
            assert {lengths[w] for w in s.winners} == {max(lengths.values())}
        else:
            assert all(lengths[w] >= s.rules.length_to_win for w in s.winners)
    assert fold(pt, setup_line, lines) == s          # the log replays to the same state
