"""Ancient Knowledge tracker: the spec's worked examples (§8.1, §8.2, §8.4), one test per decision
A1-A11 (§11), and the rules of Create, Learn, Excavate, Archive, Search and the effect lines."""

from dataclasses import replace

import pytest

from companion.errors import BadInput
from companion.games.ancient_knowledge import engine as E
from companion.games.ancient_knowledge.state import PastCard, Placed
from companion.games.base import Refused, refusal

TILES = [["thales", "aristotle", "mercury"], ["runic-alphabet", "the-number-pi", "ptolemy"],
         ["golden-mean", "plato", "thoth"]]
# 13 monuments without end-game, decline or timeline activation trouble, for a nearly full Past
PAST13 = ["babylon", "ellora-caves", "byblos", "petra", "tiwanaku", "stonehenge", "the-fairies-rock",
          "menhir-of-kerloas", "barabar-caves", "great-sphinx-of-giza", "pyramid-of-the-niches",
          "pyramid-of-userkaf", "pyramid-of-coba"]


def new_game(players=("Ana", "Bo"), **options):
    return E.setup({"type": "setup", "game": "ancient-knowledge", "players": list(players), "tiles": TILES,
                    "options": options})


def board(state, name):
    return state.boards[state.index(name)]


def with_board(state, name, zones=None, past=None, **changes):
    b = board(state, name)
    if zones is not None:
        b = replace(b, zones=tuple(tuple(Placed(c, t) for c, t in zones.get(z, ())) for z in range(1, 7)))
    if past is not None:
        b = replace(b, past=tuple(PastCard(c) for c in past))
    return state.with_board(state.index(name), replace(b, **changes))


def flipped(state):
    """The mid-game flip already done (so a Past of 7 or more asks nothing)."""
    return replace(state, flipped_tile=1, flipped_by=state.boards[-1].name, tile_levels=(2, 1, 2))


def line(kind, player, **fields):
    return {"type": kind, "player": player, **fields}


def play(state, *lines):
    """Apply lines that must all be legal; the final state and every event."""
    events = []
    for ln in lines:
        state, ev = E.apply(state, E.parse_action(ln))
        assert refusal(ev) is None, (ln, str(refusal(ev)))
        events += ev
    return state, events


def refused(state, ln) -> str:
    new, ev = E.apply(state, E.parse_action(ln))
    assert len(ev) == 1 and isinstance(ev[0], Refused), ev
    assert new is state
    return str(ev[0].reason)


def kinds(events):
    return [e.kind for e in events]


def searches(state, name):
    return play(state, line("search", name), line("search", name))


# ---------------------------------------------------------------------------------------------
# Worked examples


def test_8_1_create_cost_knowledge_lock_and_rows():
    s = new_game()
    s = with_board(s, "Ana", hand=5, artifacts=("dogu-figurines",), zones={2: [("easter-island", 3)]})
    s1, ev = play(s, line("create", "Ana", card="karnak-temple", zone=5))
    assert ev[0].kind == "created" and ev[0].data["cost"] == 2 and ev[0].data["row"] == "lower"
    assert board(s1, "Ana").hand == 2
    pr = s1.pending_prompt
    assert (pr.kind, pr.card, pr.low, pr.high, pr.default) == ("knowledge", "karnak-temple", 0, 8, 6)
    assert "Dogū Figurines -1" in str(pr.question) and "Easter Island -1" in str(pr.question)
    s2, _ = play(s1, line("answer", "Ana", prompt="knowledge", value=6))
    assert board(s2, "Ana").find("karnak-temple") == (5, "lower", Placed("karnak-temple", 6))

    assert "locked: it may only be created in zone 6" in refused(s, line("create", "Ana", card="mycenae", zone=4))
    s3, ev = play(s, line("create", "Ana", card="mycenae", zone=6))
    assert ev[0].data["cost"] == 1 and board(s3, "Ana").hand == 3

    full = with_board(s, "Ana", hand=10, zones={5: [("karnak-temple", 6)]})
    s4, ev = play(full, line("create", "Ana", card="warangal", zone=5))
    assert ev[0].data["row"] == "upper"
    third = with_board(s, "Ana", hand=10, zones={5: [("karnak-temple", 6), ("warangal", 2)]})
    assert "Zone 5 of Ana already holds two monuments" in refused(third, line("create", "Ana", card="bagan", zone=5))


def test_8_1_karnak_declines_at_the_end_of_its_owners_fifth_turn():
    s = with_board(new_game(), "Ana", hand=5)
    s, _ = play(s, line("create", "Ana", card="karnak-temple", zone=5),
                line("answer", "Ana", prompt="knowledge", value=6), line("search", "Ana"))
    for turn in range(1, 5):
        assert board(s, "Ana").find("karnak-temple")[0] == 5 - turn
        assert s.pending_prompt is None
        s, _ = searches(s, "Bo")
        if turn < 4:
            s, _ = searches(s, "Ana")
    assert board(s, "Ana").turns == 4
    s, _ = searches(s, "Ana")   # the 5th turn: Karnak declines still carrying knowledge
    pr = s.pending_prompt
    assert (pr.kind, pr.card, pr.choices) == ("decline_effect", "karnak-temple", ("past", "discarded"))
    s, ev = play(s, line("answer", "Ana", prompt="decline_effect", value="discarded"))
    ana = board(s, "Ana")
    assert ana.past == () and ana.lost_knowledge == 0 and ana.find("karnak-temple") is None
    assert ev[0].kind == "self_discarded" and ev[0].data["tokens"] == 6


def _8_2_state(flip_done=True):
    s = new_game()
    s = with_board(s, "Ana", hand=5, past=PAST13, zones={1: [("karnak-temple", 2), ("heracleion", 1)],
                                                         2: [("angkor-wat", 1)], 4: [("warangal", 2)]})
    return replace(flipped(s) if flip_done else s, actions_left=1)


def test_8_2_decline_order_effects_lost_knowledge_slide_and_end_trigger():
    s, ev = play(_8_2_state(), line("search", "Ana"))
    pr = s.pending_prompt
    assert pr.kind == "decline_order" and set(pr.choices) == {"karnak-temple", "heracleion"}
    s, _ = play(s, line("answer", "Ana", prompt="decline_order", value="heracleion"))
    assert (s.pending_prompt.kind, s.pending_prompt.card) == ("decline_effect", "heracleion")
    s, ev = play(s, line("draw", "Ana", count=4))            # Heracleion's effect: draw 4
    assert board(s, "Ana").hand == 10
    s, ev = play(s, line("answer", "Ana", prompt="decline_effect", value="past"))
    ana = board(s, "Ana")
    assert len(ana.past) == 14 and ana.past[-1].card == "heracleion" and ana.lost_knowledge == 1
    assert ana.find("karnak-temple") == (1, "lower", Placed("karnak-temple", 2))
    assert (s.pending_prompt.kind, s.pending_prompt.card) == ("decline_effect", "karnak-temple")
    s, ev = play(s, line("answer", "Ana", prompt="decline_effect", value="discarded"))
    ana = board(s, "Ana")
    assert len(ana.past) == 14 and ana.lost_knowledge == 1          # Karnak's 2 tokens vanish
    assert ana.find("angkor-wat")[0] == 1 and ana.find("warangal")[0] == 3   # zones 2-6 slid left
    assert "end_triggered" in kinds(ev) and s.end_triggered_by == "Ana"
    assert s.current == 1 and not s.finished                          # Bo still plays this round


def test_8_2_first_to_seven_flips_a_tile():
    s, _ = play(_8_2_state(flip_done=False), line("search", "Ana"),
                line("answer", "Ana", prompt="decline_order", value="heracleion"),
                line("answer", "Ana", prompt="decline_effect", value="past"),
                line("answer", "Ana", prompt="decline_effect", value="discarded"))
    pr = s.pending_prompt
    assert pr.kind == "flip_tile" and pr.choices == (1, 2)
    assert board(s, "Ana").find("angkor-wat")[0] == 2                      # no slide before the flip
    s, _ = play(s, line("answer", "Ana", prompt="flip_tile", value=2))
    assert s.tile_levels == (1, 2, 2) and s.tiles[1] == () and s.pending_prompt.kind == "refill"
    assert s.pending_prompt.level == 2 and s.pending_prompt.count == 3
    s, ev = play(s, line("answer", "Ana", prompt="refill", value=["hieroglyphs", "alchemy", "imhotep"]))
    assert s.tiles[1] == ("hieroglyphs", "alchemy", "imhotep")
    assert board(s, "Ana").find("angkor-wat")[0] == 1 and s.current == 1


def test_8_4_end_timing_everyone_has_had_twelve_turns():
    s = new_game(("P1", "P2", "P3", "P4"))
    s = flipped(with_board(s, "P3", past=PAST13))
    for _round in range(1, 12):
        for name in ("P1", "P2", "P3", "P4"):
            s, _ = searches(s, name)
    assert s.round == 12 and not s.end_triggered_by
    s, _ = searches(s, "P1")
    s, _ = searches(s, "P2")
    s, _ = play(s, line("create", "P3", card="warangal", zone=1),        # A10: declines this turn
                line("answer", "P3", prompt="knowledge", value=2), line("search", "P3"))
    assert s.end_triggered_by == "P3" and len(board(s, "P3").past) == 14 and not s.finished
    assert s.board.name == "P4"
    s, ev = searches(s, "P4")
    assert s.finished and "game_over" in kinds(ev)
    assert [b.turns for b in s.boards] == [12, 12, 12, 12]
    summary = E.summary(s)
    assert summary["status"] == "finished" and summary["round"] == 12
    assert refused(s, line("search", "P1")) == "The game is over."


def test_a_past_of_fifteen_is_possible():
    s = flipped(with_board(new_game(), "Ana", past=PAST13, zones={1: [("warangal", 0), ("angkor-wat", 0)]}))
    s, ev = searches(s, "Ana")
    assert len(board(s, "Ana").past) == 15 and s.end_triggered_by == "Ana"


# ---------------------------------------------------------------------------------------------
# Decision table §11: one test per row


def test_A1_extra_card_for_the_third_and_fourth_players():
    assert [b.hand for b in new_game(("A", "B", "C", "D")).boards] == [6, 6, 7, 7]
    assert [b.hand for b in new_game(("A", "B", "C", "D"), extra_card_late_seats=False).boards] == [6, 6, 6, 6]
    assert [b.hand for b in new_game(("A", "B", "C")).boards] == [6, 6, 7]


def test_A2_hand_limit_partial_draw_by_default_strict_blocks():
    s = with_board(new_game(), "Ana", hand=9, past=["petra"])
    s1, ev = play(s, line("excavate", "Ana", cards=["petra"]))
    drew = next(e for e in ev if e.kind == "drew")
    assert (drew.data["asked"], drew.data["count"], board(s1, "Ana").hand) == (2, 1, 10)
    assert board(s1, "Ana").past[0].rotated
    strict = replace(s, options=replace(s.options, strict_hand_limit=True))
    assert "strict hand limit" in refused(strict, line("excavate", "Ana", cards=["petra"]))
    s2, _ = play(strict, line("search", "Ana"))
    assert board(s2, "Ana").hand == 10
    assert "would pass 10" in refused(s2, line("search", "Ana"))
    s3, ev = play(replace(s2, options=replace(s2.options, strict_hand_limit=False)), line("search", "Ana"))
    assert board(s3, "Ana").hand == 10 and next(e for e in ev if e.kind == "drew").data["count"] == 0


def test_A3_archive_bounded_by_the_tokens_on_the_timeline():
    s = with_board(new_game(), "Ana", hand=6, zones={3: [("babylon", 2)], 4: [("warangal", 1)]})
    s1, ev = play(s, line("archive", "Ana", remove={"babylon": 2, "warangal": 1}))
    assert board(s1, "Ana").hand == 3 and board(s1, "Ana").tokens_on_timeline() == 0
    assert board(s1, "Ana").lost_knowledge == 0        # archived tokens are not lost knowledge
    assert "more cards (5) than the 3 knowledge tokens" in refused(
        s, line("archive", "Ana", remove={"babylon": 2, "warangal": 1}, discard=5))
    unbounded = replace(s, options=replace(s.options, archive_unbounded=True))
    s2, _ = play(unbounded, line("archive", "Ana", remove={"babylon": 2, "warangal": 1}, discard=5))
    assert board(s2, "Ana").hand == 1 and board(s2, "Ana").tokens_on_timeline() == 0
    assert "knowledge tokens removed must be 3, not 2" in refused(
        unbounded, line("archive", "Ana", remove={"babylon": 2}, discard=5))


def test_A4_the_mid_game_flip_happens_once_for_the_game():
    s = with_board(new_game(), "Ana", past=PAST13[:6], zones={1: [("warangal", 0)]})
    s = with_board(s, "Bo", past=PAST13[6:12], zones={1: [("angkor-wat", 0)]})
    s, _ = searches(s, "Ana")
    assert s.pending_prompt.kind == "flip_tile" and s.pending_prompt.player == "Ana"
    s, _ = play(s, line("answer", "Ana", prompt="flip_tile", value=1),
                line("answer", "Ana", prompt="refill", value=["imhotep", "alchemy", "hieroglyphs"]))
    assert (s.flipped_tile, s.flipped_by, s.tile_levels) == (1, "Ana", (2, 1, 2))
    s, _ = searches(s, "Bo")                  # Bo reaches 7 too: no second flip
    assert len(board(s, "Bo").past) == 7 and s.pending_prompt is None and s.current == 0


def test_A5_tokens_of_a_self_discarding_monument_vanish_or_become_lost():
    for flag, lost in ((False, 0), (True, 3)):
        s = with_board(new_game(destroyed_knowledge_is_lost=flag), "Ana", zones={1: [("karnak-temple", 3)]})
        s, _ = play(s, line("search", "Ana"), line("search", "Ana"),
                    line("answer", "Ana", prompt="decline_effect", value="discarded"))
        assert board(s, "Ana").lost_knowledge == lost and board(s, "Ana").past == ()


def test_A6_the_player_chooses_the_order_of_two_declining_monuments():
    s = with_board(new_game(), "Ana", zones={1: [("karnak-temple", 0), ("heracleion", 0)]})
    s, _ = searches(s, "Ana")
    assert s.pending_prompt.kind == "decline_order"
    assert "does not answer" in refused(s, line("answer", "Ana", prompt="decline_order", value="babylon"))
    s, _ = play(s, line("answer", "Ana", prompt="decline_order", value="karnak-temple"),
                line("answer", "Ana", prompt="decline_effect", value="past"),
                line("answer", "Ana", prompt="decline_effect", value="past"))
    assert [c.card for c in board(s, "Ana").past] == ["karnak-temple", "heracleion"]
    # without any decline activation the order changes nothing, so it is not asked
    s = with_board(new_game(), "Ana", zones={1: [("warangal", 1), ("angkor-wat", 2)]})
    s, _ = searches(s, "Ana")
    assert [c.card for c in board(s, "Ana").past] == ["warangal", "angkor-wat"]
    assert board(s, "Ana").lost_knowledge == 3


def test_A7_still_tied_after_lost_knowledge_is_a_shared_place():
    from companion.games.ancient_knowledge.score import score_table
    table = {"players": [
        {"name": "Ana", "past": ["babylon"], "timeline": [], "techs": [], "lost_knowledge": 1},
        {"name": "Bo", "past": ["atlantis"], "timeline": [], "techs": [], "lost_knowledge": 3},
        {"name": "Cy", "past": ["karnak-temple"], "timeline": ["petra"], "techs": [], "lost_knowledge": 0}]}
    result = score_table(table, "t.json")
    totals = {p["name"]: (p["total"], p["place"]) for p in result["players"]}
    assert totals == {"Ana": (9, 2), "Bo": (9, 3), "Cy": (9, 1)}
    assert [p["name"] for p in result["players"]] == ["Cy", "Ana", "Bo"] and result["winners"] == ["Cy"]
    tie = {"players": [{"name": "Ana", "past": ["petra"], "timeline": [], "techs": [], "lost_knowledge": 0},
                       {"name": "Bo", "past": ["warangal"], "timeline": [], "techs": [], "lost_knowledge": 0}]}
    result = score_table(tie, "t.json")
    assert [p["place"] for p in result["players"]] == [1, 1] and result["winners"] == ["Ana", "Bo"]


def test_A8_two_to_four_players():
    for n in (2, 3, 4):
        assert len(new_game(tuple("ABCD"[:n])).boards) == n
    for n in (1, 5):
        with pytest.raises(BadInput, match=r"^players: .*Ancient Knowledge \(decision A8\) is for 2 to 4"):
            new_game(tuple("ABCDE"[:n]))


def test_A9_requirements_are_checked_only_when_learning():
    s = with_board(new_game(), "Ana", past=["petra", "babylon", "byblos"])
    s, _ = play(s, line("learn", "Ana", card="golden-mean"))
    s = with_board(s, "Ana", past=["petra", "babylon", "byblos", "stonehenge"], lost_knowledge=12)
    ana = board(s, "Ana")
    assert "golden-mean" in ana.techs
    assert E.summary(s)["players"][0]["score_if_ended_now"]["breakdown"]["techs"] == 2
    # and Alchemy keeps its VP when lost knowledge later passes its cap
    s2 = with_board(new_game(), "Ana", past=PAST13[:7], lost_knowledge=3)
    s2 = replace(s2, tiles=(s2.tiles[0], s2.tiles[1], ("alchemy", "plato", "thoth")))
    s2, _ = play(s2, line("learn", "Ana", card="alchemy"), line("lost_knowledge", "Ana", delta=10))
    assert E.summary(s2)["players"][0]["score_if_ended_now"]["breakdown"]["techs"] == 4


def test_A10_create_into_zone_1_declines_the_same_turn():
    s = with_board(new_game(), "Ana", hand=8)
    s, ev = play(s, line("create", "Ana", card="petra", zone=1))
    assert ev[0].data["cost"] == 3
    s, ev = play(s, line("answer", "Ana", prompt="knowledge", value=1), line("search", "Ana"))
    assert s.pending_prompt.kind == "timeline"        # Petra is a timeline card, still active
    s, ev = play(s, line("answer", "Ana", prompt="timeline", value="done"))
    ana = board(s, "Ana")
    assert [c.card for c in ana.past] == ["petra"] and ana.lost_knowledge == 1 and s.current == 1


def test_A11_timeline_effects_optional_by_default_mandatory_with_the_flag():
    zones = {3: [("petra", 0), ("uxmal", 0)]}
    s = with_board(new_game(), "Ana", zones=zones, artifacts=("disk-of-sabu", "crystal-skull"))
    s, _ = searches(s, "Ana")
    pr = s.pending_prompt
    assert pr.kind == "timeline" and pr.choices == ("petra", "uxmal", "disk-of-sabu", "done")
    s1, _ = play(s, line("answer", "Ana", prompt="timeline", value="uxmal"))
    assert (s1.pending_prompt.kind, s1.pending_prompt.card) == ("effect", "uxmal")
    s1, _ = play(s1, line("answer", "Ana", prompt="effect", value="done"))
    assert s1.pending_prompt.choices == ("petra", "disk-of-sabu", "done")
    s1, ev = play(s1, line("answer", "Ana", prompt="timeline", value="done"))
    assert s1.current == 1 and "decline_phase" in kinds(ev)

    m = with_board(new_game(timeline_effects_mandatory=True), "Ana", zones=zones, artifacts=("disk-of-sabu",))
    m, _ = searches(m, "Ana")
    assert m.pending_prompt.choices == ("petra", "uxmal", "disk-of-sabu")
    assert "does not answer" in refused(m, line("answer", "Ana", prompt="timeline", value="done"))
    for card in ("disk-of-sabu", "petra", "uxmal"):
        m, _ = play(m, line("answer", "Ana", prompt="timeline", value=card),
                    line("answer", "Ana", prompt="effect", value="done"))
    assert m.current == 1


# ---------------------------------------------------------------------------------------------
# Rules of the actions


def test_create_needs_enough_cards_and_a_free_slot():
    s = with_board(new_game(), "Ana", hand=2)
    assert "costs 2 cards besides itself here; Ana holds only 1 other card." in refused(
        s, line("create", "Ana", card="karnak-temple", zone=5))
    assert "Say which zone" in refused(s, line("create", "Ana", card="karnak-temple"))
    assert "costs 3 cards" in refused(s, line("create", "Ana", card="pachamama-monolith"))
    s1, ev = play(s, line("create", "Ana", card="dogu-figurines"))
    assert board(s1, "Ana").artifacts == ("dogu-figurines",) and board(s1, "Ana").hand == 1
    assert "goes in an artifact slot" in refused(s, line("create", "Ana", card="dogu-figurines", zone=2))
    full = with_board(s, "Ana", artifacts=("disk-of-sabu", "ica-stones", "moai-statue", "tzolkin", "nebra-sky-disc"))
    assert "All 5 artifact slots of Ana are full" in refused(full, line("create", "Ana", card="dogu-figurines"))
    taken = with_board(s, "Bo", past=["petra"])
    assert "Petra is already in play, with Bo" in refused(taken, line("create", "Ana", card="petra", zone=4))


def test_turn_order_two_actions_and_pending_questions():
    s = new_game()
    assert "It is Ana's turn, not Bo's" in refused(s, line("search", "Bo"))
    assert "not playing" in refused(s, line("search", "Cy"))
    s1, _ = play(s, line("create", "Ana", card="karnak-temple", zone=3))
    assert "First answer the pending question (knowledge for Ana)" in refused(s1, line("search", "Ana"))
    assert "The pending question is knowledge, not effect" in refused(
        s1, line("answer", "Ana", prompt="effect", value="done"))
    assert "is for Ana, not Bo" in refused(s1, line("answer", "Bo", prompt="knowledge", value=8))
    assert "from 0 to 8" in refused(s1, line("answer", "Ana", prompt="knowledge", value=9))
    assert "no question pending" in refused(s, line("answer", "Ana", prompt="effect", value="done"))


def test_immediate_monuments_ask_for_their_effect_after_the_knowledge():
    s, _ = play(new_game(), line("create", "Ana", card="tiwanaku", zone=2))
    assert [p.kind for p in s.prompts] == ["knowledge", "effect"]
    s, ev = play(s, line("answer", "Ana", prompt="knowledge", value=2), line("draw", "Ana", count=2),
                 line("answer", "Ana", prompt="effect", value="done"))
    assert s.pending_prompt is None and board(s, "Ana").hand == 7 and s.actions_left == 1


def test_learn_requirement_candi_sukuh_and_tile_refill():
    s = with_board(new_game(), "Ana", past=["petra", "babylon"])
    # in players' words, not the data file's "past.city>=3"
    assert refused(s, line("learn", "Ana", card="golden-mean")) == \
        "Golden Mean needs 3 or more cities in your Past; Ana has 2 cities in your Past."
    _, ev = E.apply(s, E.parse_action(line("learn", "Ana", card="golden-mean")))
    assert ev[0].reason.render("es") == \
        "Golden Mean requiere 3 o más ciudades en tu Pasado; Ana tiene 2 ciudades en tu Pasado."
    candi = with_board(s, "Ana", zones={4: [("candi-sukuh", 4)]})
    s1, ev = play(candi, line("learn", "Ana", card="golden-mean"))
    assert "golden-mean" in board(s1, "Ana").techs and s1.tiles[2] == ("plato", "thoth")
    assert refused(s1, line("learn", "Ana", card="imhotep")) == "Imhotep is not on a technology tile."
    assert "Golden Mean is already in play, with Ana" in refused(s1, line("learn", "Ana", card="golden-mean"))
    # Ptolemy (hand<=1) is not helped by Candi Sukuh
    assert refused(candi, line("learn", "Ana", card="ptolemy")).startswith(
        "Ptolemy needs at most 1 card in your hand; Ana has 6 cards in your hand")
    # a tile down to one card: its last card is discarded and 3 new are dealt, after the effect
    s2, _ = play(s, line("learn", "Ana", card="thales"), line("answer", "Ana", prompt="effect", value="done"),
                 line("learn", "Ana", card="mercury"))
    assert [p.kind for p in s2.prompts] == ["effect", "refill"]
    s2, _ = play(s2, line("answer", "Ana", prompt="effect", value="done"))
    assert "different technologies, not 2" in refused(
        s2, line("answer", "Ana", prompt="refill", value=["anaximenes", "mummification"]))
    assert "is Level II" in refused(
        s2, line("answer", "Ana", prompt="refill", value=["anaximenes", "mummification", "plato"]))
    assert "already in play, with Ana" in refused(
        s2, line("answer", "Ana", prompt="refill", value=["anaximenes", "mummification", "thales"]))
    s2, ev = play(s2, line("answer", "Ana", prompt="refill", value=["anaximenes", "mummification", "ancient-greek"]))
    assert s2.tiles[0] == ("anaximenes", "mummification", "ancient-greek")
    assert next(e for e in ev if e.kind == "tile_refilled").data["discarded"] == ["aristotle"]


def test_excavate_rotates_and_draws_two_per_card_or_three_with_an_artifact():
    s = with_board(new_game(), "Ana", hand=2, past=["petra", "babylon", "byblos"])
    s1, _ = play(s, line("excavate", "Ana", cards=["petra", "byblos"]))
    assert board(s1, "Ana").hand == 6 and [c.rotated for c in board(s1, "Ana").past] == [True, False, True]
    assert "already been excavated" in refused(s1, line("excavate", "Ana", cards=["petra"]))
    assert "needs an artifact" in refused(s, line("excavate", "Ana", cards=["petra"], per_card=3))
    s2, _ = play(with_board(s, "Ana", artifacts=("crystal-skull",)),
                 line("excavate", "Ana", cards=["petra"], per_card=3))
    assert board(s2, "Ana").hand == 5
    assert "not in Ana's Past" in refused(s, line("excavate", "Ana", cards=["atlantis"]))
    s3, _ = play(s1, line("straighten", "Ana", cards=["petra"]))
    assert [c.rotated for c in board(s3, "Ana").past] == [False, False, True]


def test_effect_lines_move_swap_knowledge_destroy_to_past():
    s = with_board(new_game(), "Ana", zones={3: [("babylon", 4), ("petra", 1)], 5: [("warangal", 2)]})
    s1, ev = play(s, line("move", "Ana", card="babylon", zone=5))
    ana = board(s1, "Ana")
    assert ana.find("petra")[:2] == (3, "lower") and ana.find("babylon")[:2] == (5, "upper")
    assert "already holds two" in refused(s1, line("move", "Ana", card="petra", zone=5))
    s2, _ = play(s, line("swap", "Ana", cards=["petra", "warangal"]))
    assert board(s2, "Ana").find("warangal")[:2] == (3, "upper") and board(s2, "Ana").find("petra")[0] == 5
    s3, _ = play(s, line("knowledge", "Ana", card="babylon", delta=-3))
    assert board(s3, "Ana").find("babylon")[2].tokens == 1
    assert "carries only 1 knowledge token, not 2." in refused(s3, line("knowledge", "Ana", card="babylon", delta=-2))
    assert "not in Bo's Timeline" in refused(s, line("knowledge", "Bo", card="babylon", delta=1))
    s4, _ = play(s, line("destroy", "Ana", card="babylon"), line("to_past", "Ana", card="petra"))
    ana = board(s4, "Ana")
    assert ana.find("babylon") is None and [c.card for c in ana.past] == ["petra"] and ana.lost_knowledge == 1
    s5, _ = play(s, line("lost_knowledge", "Bo", delta=2), line("hand", "Bo", count=3),
                 line("discard", "Bo", count=1), line("place", "Bo", card="atlantis", zone=2))
    bo = board(s5, "Bo")
    assert (bo.lost_knowledge, bo.hand) == (2, 1) and bo.find("atlantis")[0] == 2
    assert s5.pending_prompt.kind == "knowledge" and s5.pending_prompt.player == "Bo"


def test_skip_decline_skips_the_declines_and_the_slide():
    s = with_board(new_game(), "Ana", zones={1: [("warangal", 1)], 3: [("temple-of-kom-ombo", 0)]})
    s, _ = play(s, line("skip_decline", "Ana"), line("search", "Ana"), line("search", "Ana"))
    ana = board(s, "Ana")
    assert ana.past == () and ana.find("warangal")[0] == 1 and ana.find("temple-of-kom-ombo")[0] == 3 and s.current == 1
    assert "Only the player whose turn" in refused(s, line("skip_decline", "Ana"))


def test_summary_has_what_the_board_view_needs():
    s = with_board(new_game(), "Ana", zones={1: [("karnak-temple", 2)], 4: [("petra", 1)]},
                   artifacts=("dogu-figurines",), past=["babylon"], lost_knowledge=2)
    s, _ = play(s, line("search", "Ana"))
    out = E.summary(s)
    ana = out["players"][0]
    assert out["turn"] == "Ana" and out["phase"] == "action" and out["actions_left"] == 1
    assert ana["zones"][0]["lower"] == {"card": "karnak-temple", "name": "Karnak Temple", "kind": "city",
                                        "tokens": 2, "activation": "decline"}
    assert ana["zones"][0]["upper"] is None and ana["past_count"] == 1 and ana["artifact_slots_free"] == 4
    assert out["decline_reminder"]["monuments"][0]["card"] == "karnak-temple"
    assert out["hands"] == {"Ana": 7, "Bo": 6} and out["tiles"][2]["level"] == 2
    assert ana["knowledge_on_timeline"] == 3 and ana["lost_knowledge"] == 2
    s, _ = play(s, line("create", "Ana", card="atlantis", zone=3))
    pr = E.summary(s)["pending_prompt"]
    assert pr["kind"] == "knowledge" and pr["min"] == 0 and pr["max"] == 10 and pr["default"] == 9
    assert pr["question"].startswith("How many knowledge tokens go on Atlantis?")


def test_parse_action_errors_and_round_trip():
    with pytest.raises(BadInput, match=r"^card: unknown card 'babylonn'; did you mean babylon\?"):
        E.parse_action(line("create", "Ana", card="babylonn", zone=3))
    with pytest.raises(BadInput, match=r"^zone: 7 is outside 1-6"):
        E.parse_action(line("create", "Ana", card="babylon", zone=7))
    with pytest.raises(BadInput, match=r"^type: 'build' is not an Ancient Knowledge line"):
        E.parse_action(line("build", "Ana"))
    with pytest.raises(BadInput, match=r"^cards: a non-empty list"):
        E.parse_action(line("excavate", "Ana", cards=[]))
    with pytest.raises(BadInput, match=r"^remove\.babylon: 0 is outside 1-14"):
        E.parse_action(line("archive", "Ana", remove={"babylon": 0}))
    with pytest.raises(BadInput, match=r"^card: 'golden-mean' \(Golden Mean\) is a technology"):
        E.parse_action(line("create", "Ana", card="golden-mean"))
    with pytest.raises(BadInput, match=r"^colour: unknown field"):
        E.parse_action(line("search", "Ana", colour="red"))
    with pytest.raises(BadInput, match=r"^value: missing field"):
        E.parse_action(line("answer", "Ana", prompt="effect"))
    lines = [line("create", "Ana", card="babylon", zone=3), line("create", "Ana", card="dogu-figurines"),
             line("learn", "Ana", card="thales"), line("excavate", "Ana", cards=["petra"], per_card=3),
             line("archive", "Ana", remove={"babylon": 2}, discard=3), line("search", "Ana"),
             line("answer", "Ana", prompt="refill", value=["a", "b", "c"]),
             line("answer", "Ana", prompt="knowledge", value=3), line("draw", "Ana", count=2),
             line("discard", "Ana", count=1), line("hand", "Ana", count=0),
             line("knowledge", "Bo", card="petra", delta=-1),
             line("lost_knowledge", "Bo", delta=2), line("move", "Ana", card="petra", zone=2),
             line("swap", "Ana", cards=["petra", "babylon"]), line("place", "Ana", card="petra", zone=1),
             line("destroy", "Ana", card="dogu-figurines"), line("to_past", "Ana", card="petra"),
             line("straighten", "Ana", cards=["petra"]), line("gain_tech", "Ana", card="plato"),
             line("skip_decline", "Ana")]
    for ln in lines:
        assert E.action_to_json(E.parse_action(ln)) == ln


def test_setup_errors_name_the_field():
    base = {"type": "setup", "game": "ancient-knowledge", "players": ["A", "B"], "tiles": TILES}
    with pytest.raises(BadInput, match=r"^tiles\[1\]\[0\]: Golden Mean is Level II"):
        E.setup({**base, "tiles": [TILES[0], TILES[2], TILES[1]]})
    with pytest.raises(BadInput, match=r"^options\.strict: unknown option"):
        E.setup({**base, "options": {"strict": True}})
    with pytest.raises(BadInput, match=r"^tiles: the 9 technologies"):
        E.setup({k: v for k, v in base.items() if k != "tiles"})
    with pytest.raises(BadInput, match=r"is dealt twice"):
        E.setup({**base, "tiles": [TILES[0], TILES[0], TILES[2]]})
    with pytest.raises(BadInput, match=r"^players: two players have the same name"):
        E.setup({**base, "players": ["A", "A"]})


def test_the_example_log_of_the_docs_replays_as_described():
    import json
    import pathlib
    doc = (pathlib.Path(__file__).parents[1] / "docs" / "ancient-knowledge.md").read_text(encoding="utf-8")
    block = doc.split("```jsonl\n", 1)[1].split("```", 1)[0]
    lines = [json.loads(x) for x in block.splitlines() if x.strip()]
    s = E.setup(lines[0])
    s, _ = play(s, *lines[1:])
    out = E.summary(s)
    assert (out["round"], out["turn"], out["hands"]) == (2, "Bo", {"Ana": 0, "Bo": 6})
    bo, ana = out["players"][1], out["players"][0]
    assert [c["card"] for c in bo["past"]] == ["tiwanaku"] and bo["lost_knowledge"] == 2
    assert ana["zones"][2]["lower"]["card"] == "karnak-temple" and ana["zones"][2]["lower"]["tokens"] == 6


def test_create_options_list_costs_and_legality_per_zone():
    s = new_game()
    options = E.create_options(s, "mycenae")
    assert [o["legal"] for o in options] == [False] * 5 + [True]
    assert options[5] == {"zone": 6, "cost": 1, "row": "lower", "legal": True, "reason": None}
    assert "locked" in str(options[0]["reason"])
    assert [o["cost"] for o in E.create_options(s, "karnak-temple")] == [2, 1, 0, 1, 2, 3]
    assert E.create_options(s, "pachamama-monolith") == [{"zone": None, "cost": 3, "row": None, "legal": True,
                                                           "reason": None}]


def test_a_refusal_words_its_counts_in_their_forms():
    """A count of one takes the singular, in English and Spanish ("holds only 1 card", "solo tiene 1 carta")."""
    def reason(state, ln):
        _new, ev = E.apply(state, E.parse_action(ln))
        return refusal(ev)

    one = reason(with_board(new_game(), "Ana", hand=1), line("discard", "Ana", count=2))
    assert (one.render("en"), one.render("es")) == ("Ana holds only 1 card, not 2.", "Ana solo tiene 1 carta, no 2.")
    three = reason(with_board(new_game(), "Ana", hand=3), line("discard", "Ana", count=5))
    assert three.render("es") == "Ana solo tiene 3 cartas, no 5."
    cost = reason(with_board(new_game(), "Ana", hand=2), line("create", "Ana", card="karnak-temple", zone=5))
    assert cost.render("en").endswith("costs 2 cards besides itself here; Ana holds only 1 other card.")
    assert cost.render("es").endswith("cuesta aquí 2 cartas además de sí misma; Ana tiene solo 1 carta más.")
    s = with_board(new_game(), "Ana", zones={3: [("babylon", 1)]})
    token = reason(s, line("knowledge", "Ana", card="babylon", delta=-2))
    assert token.render("en").endswith("carries only 1 knowledge token, not 2.")
    assert token.render("es").endswith("solo tiene 1 ficha de conocimiento, no 2.")
