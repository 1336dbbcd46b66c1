"""Cronología engine, both modes: the spec's worked examples, one test per decision (C1-C15),
illegal actions and effects."""

import json
from pathlib import Path

import pytest

from companion.errors import BadInput
from companion.games import cronologia
from companion.games.base import refusal
from companion.store import replay

EXAMPLES = Path(__file__).resolve().parents[1] / "docs" / "examples"
START = [{"year": -753, "period": "antigua"}, {"year": 1212, "period": "media"}, {"year": 1492, "period": "moderna"},
         {"year": 1789, "period": "contemporanea"}, {"year": 1969, "period": "contemporanea"}]


def comp(players=("A", "B", "C"), level="medio", **extra):
    return cronologia.setup({"type": "setup", "game": "cronologia", "mode": "competitive", "level": level,
                             "players": list(players), "start": START, **extra})


def grid(col3=(1492, 1815, 1200, 1914, 1945)):
    rows = [[1000, 1100, None, 1600, 1700], [1700, 1800, None, 1850, 1900], [1000, 1100, None, 1300, 1400],
            [1900, 1910, None, 1920, 1930], [1940, 1942, None, 1950, 1960]]
    for r, y in enumerate(col3):
        rows[r][2] = y
    return [[{"year": y} for y in row] for row in rows]


def coop(players=("A", "B"), level="medio", **extra):
    return cronologia.setup({"type": "setup", "game": "cronologia", "mode": "cooperative", "level": level,
                             "players": list(players), "grid": grid(), **extra})


def do(state, line):
    new, ev = cronologia.apply(state, cronologia.parse_action(line))
    assert refusal(ev) is None, (line, str(refusal(ev)))
    return new, ev


def no(state, line):
    new, ev = cronologia.apply(state, cronologia.parse_action(line))
    assert new is state
    return str(refusal(ev))


def place(player, year, gap, period=None, icons=()):
    card = {"year": year}
    if period:
        card["period"] = period
    if icons:
        card["icons"] = list(icons)
    return {"type": "place", "player": player, "card": card, "gap": gap}


def put(player, year, gap_row, col):
    return {"type": "place", "player": player, "card": {"year": year}, "gap_row": gap_row, "col": col}


def effect(player, icon, target=None):
    line = {"type": "effect", "player": player, "icon": icon}
    if target:
        line["target"] = target
    return line


def hands(s):
    return s.row.hands if isinstance(s, cronologia.Competitive) else s.hands


# -- competitive: worked example (spec §3.6) --------------------------------------------------------
def test_competitive_worked_example():
    s = comp()
    assert hands(s) == (6, 6, 6)
    s, ev = do(s, place("A", 1066, 1, "media", ["swap"]))
    assert ev[0].data["correct"] and any(e.kind == "effect_available" for e in ev) and hands(s) == (5, 6, 6)
    s, _ = do(s, effect("A", "swap", "B"))
    assert hands(s) == (5, 6, 6)
    s, ev = do(s, place("B", -10000, 0, "prehistoria", ["replace_opp"]))
    assert ev[0].data["correct"] and not any(e.kind == "effect_available" for e in ev) and hands(s) == (5, 5, 6)
    assert no(s, effect("B", "replace_opp", "A")) == (
        "no earlier event of period prehistoria was in the chronology, so the effect cannot fire")
    s, ev = do(s, place("C", 1700, 6, "moderna"))
    assert not ev[0].data["correct"] and hands(s) == (5, 5, 6) and s.row.spent == 1


def test_competitive_worked_example_log_replays():
    lines = [json.loads(x) for x in (EXAMPLES / "cronologia-competitive-worked-example.jsonl").read_text().splitlines()]
    r = replay.start(lines[0])
    for n, line in enumerate(lines[1:], start=2):
        r = replay.step(r, line, f"line {n}")
    assert cronologia.summary(r.state)["hands"] == {"A": 5, "B": 5, "C": 6}


@pytest.mark.parametrize("level,n", [("iniciado", 4), ("medio", 6), ("experto", 8), (4, 4), (6, 6), (8, 8)])
def test_competitive_levels(level, n):
    assert set(hands(comp(level=level))) == {n}


def test_start_must_be_five_cards_in_date_order():
    with pytest.raises(BadInput, match=r"^start\[2\]: 1000 is earlier than 1212"):
        cronologia.setup({"type": "setup", "game": "cronologia", "mode": "competitive", "players": ["A", "B"],
                          "start": START[:2] + [{"year": 1000}] + START[3:]})
    with pytest.raises(BadInput, match="^start: the 5 cards"):
        cronologia.setup({"type": "setup", "game": "cronologia", "players": ["A", "B"], "start": START[:4]})


# -- effects -----------------------------------------------------------------------------------------
def test_each_effect_keeps_the_counts():
    for icon, target in (("swap", "B"), ("replace_opp", "C"), ("replace_own", None)):
        s, _ = do(comp(deck_size=60), place("A", 1100, 1, "media", [icon]))
        pile = s.row.pile
        s, ev = do(s, effect("A", icon, target))
        assert hands(s) == (5, 6, 6)
        assert s.row.spent == (0 if icon == "swap" else 1)
        assert s.row.pile == (pile if icon == "swap" else pile - 1)


def test_illegal_effects():
    s, _ = do(comp(), place("A", 1100, 1, "media", ["swap"]))
    assert no(s, effect("B", "swap", "A")) == "an effect can only follow B's own correct placement"
    assert no(s, effect("A", "replace_own")) == "the card just placed has no replace_own icon"
    assert no(s, effect("A", "swap")) == "this effect needs a target opponent"
    assert no(s, effect("A", "swap", "A")) == "A is not an opponent"
    s2, _ = do(s, effect("A", "swap", "B"))
    assert no(s2, effect("A", "swap", "C")) == "an effect was already used for this card"
    s3, _ = do(s, place("B", 1000, 0))          # the next action closes the window
    assert no(s3, effect("A", "swap", "B")) == "an effect can only follow A's own correct placement"
    w, _ = do(comp(), place("A", 1600, 1, "moderna", ["swap"]))   # wrong: no window
    assert no(w, effect("A", "swap", "B")) == "an effect can only follow A's own correct placement"


def test_no_effects_in_sudden_death():
    s = _sudden_death()
    s2, _ = do(s, place("A", -9000, 0, "prehistoria", ["replace_opp"]))
    assert no(s2, effect("A", "replace_opp", "B")) == "icons are ignored in sudden death"


def test_target_must_be_in_the_game():
    s = _sudden_death()
    s, _ = do(s, place("A", -9000, 0))
    s, _ = do(s, place("B", -9500, 0))          # both correct: sudden death goes on, each draws 1
    assert no(s, place("C", 1, 0)) == "C was eliminated in sudden death"


# -- competitive decisions ---------------------------------------------------------------------------
def test_C1_ends_open_by_default_or_closed_by_flag():
    s, ev = do(comp(), place("A", -1000, 0))
    assert ev[0].data["correct"]
    closed = comp(competitive_between_only=True)
    assert no(closed, place("A", -1000, 0)) == "only the gaps between two cards are open (gaps 1..4)"
    assert no(closed, place("A", 2000, 5)) == "only the gaps between two cards are open (gaps 1..4)"


def test_C2_period_checked_before_the_card_joins():
    s, ev = do(comp(), place("A", -9000, 0, "prehistoria", ["swap"]))
    assert not any(e.kind == "effect_available" for e in ev)
    s, ev = do(s, place("B", -8000, 1, "prehistoria", ["swap"]))     # now a prehistoria card was there
    assert any(e.kind == "effect_available" for e in ev)


def test_C3_at_most_one_of_several_icons():
    s, ev = do(comp(), place("A", 1100, 1, "media", ["swap", "replace_own"]))
    s, _ = do(s, effect("A", "replace_own"))
    assert no(s, effect("A", "swap", "B")) == "an effect was already used for this card"


def _sudden_death(**extra):
    """A and B place all 4 cards correctly, C misses every time: sudden death between A and B."""
    s = comp(players=("A", "B", "C"), level="iniciado", deck_size=100, **extra)
    for i in range(4):
        s, _ = do(s, place("A", -1000 * (i + 1), 0))
        s, _ = do(s, place("B", 2000 + i, len(s.row.row)))
        s, _ = do(s, place("C", 2500, 0))
    assert s.row.sudden_death and s.row.active == ("A", "B") and s.row.eliminated == ("C",)
    return s


def test_C4_no_replacement_draw_for_a_miss_in_sudden_death():
    s = _sudden_death()
    assert s.row.sudden_death and s.row.active == ("A", "B") and hands(s) == (1, 1, 4)
    s, ev = do(s, place("A", 2900, 0))                 # wrong: no replacement
    assert hands(s)[0] == 0
    s2 = _sudden_death(sudden_death_miss_draws=True)
    s2, ev = do(s2, place("A", 2900, 0))
    assert hands(s2)[0] == 1


def test_C5_sudden_death_rounds():
    s = _sudden_death()
    s, ev = do(s, place("A", 2900, 0))
    s, ev = do(s, place("B", 2900, 0))                 # 0 correct: both go on, each draws 1
    assert s.row.status == "in_progress" and s.row.active == ("A", "B") and hands(s)[:2] == (1, 1)
    s, ev = do(s, place("A", -5500, 0))
    s, ev = do(s, place("B", -6000, 0))                # 2 correct: both go on
    assert s.row.status == "in_progress" and hands(s)[:2] == (1, 1)
    s, ev = do(s, place("A", -7000, 0))
    s, ev = do(s, place("B", 3000, 0))                   # only A correct: A wins
    assert s.row.status == "finished" and s.row.winner == "A"


def test_C13_reshuffle_the_discards_at_any_draw_or_only_between_rounds():
    size = 5 + 12 + 1
    s = comp(players=("A", "B"), deck_size=size)
    s, _ = do(s, place("A", 3000, 0))                  # wrong, draws the last card
    s, ev = do(s, place("B", 3000, 0))                 # wrong, pile empty: discards reshuffled now
    assert any(e.kind == "pile_reshuffled" for e in ev) and hands(s) == (6, 6)
    t = comp(players=("A", "B"), deck_size=size, reshuffle_only_between_rounds=True)
    t, _ = do(t, place("A", 3000, 0))
    t, ev = do(t, place("B", 3000, 0))
    assert any(e.kind == "draw_skipped" for e in ev) and hands(t) == (6, 5)


# -- cooperative: worked example (spec §4.4) ---------------------------------------------------------
def test_cooperative_worked_example():
    s = coop()
    assert s.lives == 6 and hands(s) == (6, 6)
    s, _ = do(s, put("A", 1500, 1, 1))
    s, _ = do(s, put("B", 1400, 1, 2))
    s, ev = do(s, put("A", 1789, 1, 3))
    assert ev[0].data["correct"]
    s, ev = do(s, put("B", 1517, 2, 3))
    assert ev[0].data["correct"]
    s, ev = do(s, put("A", 1900, 3, 3))
    s, ev = do(s, put("B", 1939, 4, 3))
    assert any(e.kind == "column_scored" for e in ev)
    assert s.score == 31 and s.awaiting_deal and hands(s) == (6, 5)      # B's draw comes with the deal
    assert no(s, put("A", 1500, 1, 1)) == "a column was scored: deal the new grid first"
    s, _ = do(s, {"type": "deal", "grid": grid()})
    assert hands(s) == (6, 6) and s.current == "A"                        # C15: one draw in all
    s, ev = do(s, put("A", 1600, 4, 3))
    assert not ev[0].data["correct"] and s.lives == 5 and hands(s) == (5, 5)
    for _ in range(4):
        s, _ = do(s, put(s.current, 1600, 4, 3))
    assert s.lives == 1 and s.status == "in_progress"
    s, ev = do(s, put(s.current, 1600, 4, 3))
    summary = cronologia.summary(s)
    assert summary["status"] == "lost" and summary["lives"] == 0 and summary["score"] == 31


def test_cooperative_worked_example_log():
    lines = [json.loads(x) for x in (EXAMPLES / "cronologia-cooperative-worked-example.jsonl").read_text().splitlines()]
    r = replay.start(lines[0])
    for n, line in enumerate(lines[1:], start=2):
        r = replay.step(r, line, f"line {n}")
    out = cronologia.summary(r.state)
    assert (out["score"], out["lives"], out["hands"]) == (31, 5, {"A": 5, "B": 5})


@pytest.mark.parametrize("level,lives", [("experto", 4), ("medio", 6), ("iniciado", 8)])
def test_cooperative_levels_are_lives(level, lives):
    s = coop(level=level)
    assert s.lives == lives and hands(s) == (lives, lives)


def test_dealt_rows_must_be_in_date_order():
    bad = grid()
    bad[1][0], bad[1][1] = bad[1][1], bad[1][0]
    with pytest.raises(BadInput, match=r"^grid\[1\]\[1\]: 1700 is earlier than 1800"):
        cronologia.setup({"type": "setup", "game": "cronologia", "mode": "cooperative", "players": ["A", "B"],
                          "grid": bad})


def test_cooperative_illegal_actions():
    s = coop()
    assert no(s, put("B", 1500, 1, 1)) == "it is A's turn, not B's"
    s, _ = do(s, put("A", 1500, 1, 1))
    assert no(s, put("B", 1500, 1, 1)) == "the slot in gap row 1, column 1 is taken"
    assert no(s, {"type": "deal", "grid": grid()}) == "a new grid is dealt only after a column was scored"
    with pytest.raises(BadInput, match="^gap_row: 5 is outside 1..4"):
        cronologia.parse_action(put("B", 1, 5, 1))
    with pytest.raises(BadInput, match="^col: 0 is outside 1..5"):
        cronologia.parse_action(put("B", 1, 1, 0))


# -- cooperative decisions ---------------------------------------------------------------------------
def test_C6_column_direction_free_or_ascending_down():
    s, ev = do(coop(), put("A", 1600, 2, 3))           # 1815 above, 1200 below: direction-free
    assert ev[0].data["correct"]
    s, ev = do(coop(coop_column_ascending_down=True), put("A", 1600, 2, 3))
    assert not ev[0].data["correct"]


def test_C7_failure_clears_all_hands_or_the_active_players_only():
    s, _ = do(coop(players=("A", "B", "C")), put("A", 1000, 4, 3))
    assert hands(s) == (5, 5, 5) and s.box == 1 + 5 + 6 + 6
    s, _ = do(coop(players=("A", "B", "C"), failure_scope="active_player_only"), put("A", 1000, 4, 3))
    assert hands(s) == (5, 6, 6) and s.box == 1 + 5 and s.lives == 5


def test_C8_placed_union_events_stay_or_go():
    s, _ = do(coop(), put("A", 1500, 1, 1))
    s, _ = do(s, put("B", 1000, 4, 3))
    assert s.gaps[0][0] is not None
    t, _ = do(coop(failure_clears_placed_gaps=True), put("A", 1500, 1, 1))
    t, _ = do(t, put("B", 1000, 4, 3))
    assert t.gaps[0][0] is None and t.box == 1 + 5 + 6 + 1


def test_C9_C10_score_is_the_score_pile_and_a_defeat_keeps_it():
    s = coop(level="experto")
    for year, k in ((1789, 1), (1517, 2), (1900, 3), (1939, 4)):
        s, _ = do(s, put(s.current, year, k, 3))
    s, _ = do(s, {"type": "deal", "grid": grid()})
    assert s.score == 29
    for _ in range(4):
        s, _ = do(s, put(s.current, 1600, 4, 3))
    out = cronologia.summary(s)
    assert out["status"] == "lost" and out["score"] == 29


def test_C11_periods_come_from_the_card_not_the_year():
    s, ev = do(comp(), place("A", 1300, 2, "moderna", ["swap"]))      # a 1300 card printed as moderna
    assert any(e.kind == "effect_available" for e in ev)              # 1492 moderna was there


def test_C12_shared_union_pool():
    s = coop(players=("A", "B", "C"), shared_union_pool=True)
    assert cronologia.summary(s)["hands"] == {"pool": 18}
    s, _ = do(s, put("A", 1500, 1, 1))
    assert cronologia.summary(s)["hands"] == {"pool": 18} and s.current == "B"
    s, _ = do(s, put("B", 1000, 4, 3))
    assert cronologia.summary(s)["hands"] == {"pool": 15} and s.lives == 5


def test_C14_empty_deck_skips_the_draw_and_a_player_without_cards_passes():
    s = coop(players=("A", "B"), level="experto", deck_size=25 + 8)   # nothing left to draw
    s, ev = do(s, put("A", 1500, 1, 1))
    assert any(e.kind == "draw_skipped" for e in ev) and hands(s) == (3, 4)
    for _ in range(7):
        if s.status != "in_progress":
            break
        free = [(k + 1, c + 1) for k in range(4) for c in range(5) if s.gaps[k][c] is None and c != 2]
        k, c = free[0]
        lo = min(s.rows[k - 1][c - 1].year, s.rows[k][c - 1].year)
        s, ev = do(s, put(s.current, lo, k, c))
    assert s.status == "finished" and hands(s) == (0, 0)
    assert any(e.kind == "game_ended" for e in ev) and cronologia.summary(s)["end_reason"] == "no_union_events"


def test_normal_end_when_fewer_than_25_cards_remain_after_a_scoring():
    s = coop(players=("A", "B"), level="experto", deck_size=25 + 8 + 20)
    for year, k in ((1789, 1), (1517, 2), (1900, 3), (1939, 4)):
        s, _ = do(s, put(s.current, year, k, 3))
    assert s.status == "finished" and cronologia.summary(s)["score"] == 29
    assert cronologia.summary(s)["end_reason"] == "deck"


def test_C15_one_draw_on_the_turn_a_column_scores():
    s = coop(deck_size=200)
    for year, k in ((1789, 1), (1517, 2), (1900, 3), (1939, 4)):
        s, _ = do(s, put(s.current, year, k, 3))
    pile = s.pile
    s, ev = do(s, {"type": "deal", "grid": grid()})
    assert [e.kind for e in ev].count("card_drawn") == 1 and s.pile == pile - 25 - 1


def test_unknown_action_type():
    with pytest.raises(BadInput, match="^type: 'pass' is not a Cronología action"):
        cronologia.parse_action({"type": "pass", "player": "A"})
