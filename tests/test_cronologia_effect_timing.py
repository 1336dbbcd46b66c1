"""Cronología C16: an icon effect is part of the placing player's turn, judged against the table as
that placement left it -- before the end-of-round check, the eliminations and sudden death's draws.
The round ends when the effect window closes: at the next action, or when the state is read."""

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_cronologia import START, do, effect, place

from companion.games import cronologia, random_play
from companion.games.base import refusal
from companion.play.session import GameSession
from companion.store import replay
from companion.store.log import GameLog
from companion.ui.games import view_for_setup
from companion.ui.games.cronologia import CronologiaCompetitiveView

PLAYERS = ("A", "B", "C", "D")


def setup_line(players=PLAYERS) -> dict:
    return {"type": "setup", "game": "cronologia", "mode": "competitive", "level": "iniciado",
            "players": list(players), "start": START, "deck_size": 200}


def right(s, player, icons=()):
    """A correct card at the right end; its period (contemporanea) is already in the chronology, so an
    icon on it may fire."""
    row = s.row.row
    return place(player, row[-1].year + 1, len(row), "contemporanea", icons)


def wrong(player):
    return place(player, 3000, 0)


def play_rounds(pattern: dict, last_icons=("replace_opp", "swap", "replace_own")):
    """Four rounds of iniciado (4 cards each): ``pattern[p]`` is how many of the four rounds ``p``
    plays correctly, counted from the last round back. The last player's last card carries
    ``last_icons``. Returns (state right after that card, the log lines)."""
    s = cronologia.setup(setup_line(tuple(pattern)))
    lines = []
    players = list(pattern)
    for rnd in range(4):
        for p in players:
            good = rnd >= 4 - pattern[p]
            icons = last_icons if rnd == 3 and p == players[-1] else ()
            line = right(s, p, icons) if good else wrong(p)
            s, _ = do(s, line)
            lines.append(line)
    return s, lines


def hands(s):
    return cronologia.summary(s)["hands"]


def refused(s, line):
    """The refusal in English and Spanish."""
    new, ev = cronologia.apply(s, cronologia.parse_action(line))
    assert new is s
    return refusal(ev).render("en"), refusal(ev).render("es")


# -- the four situations of the issue, both ways ---------------------------------------------------------
def test_an_opponent_who_has_just_emptied_their_hand_is_not_a_target():
    # A and B place their last card this round; D, last in the round, places a card with icons.
    s, _ = play_rounds({"A": 4, "B": 4, "C": 0, "D": 1})
    assert s.turn_open and s.row.hands == (0, 0, 4, 3)          # no sudden-death draw yet
    assert refused(s, effect("D", "replace_opp", "A")) == ("A holds no card", "A no tiene cartas")
    assert refused(s, effect("D", "swap", "B")) == ("B holds no card", "B no tiene cartas")
    # ... and once the round has ended (the next action) they hold one: sudden death has begun.
    after = cronologia.summary(s)
    assert after["sudden_death"] and after["hands"] == {"A": 1, "B": 1, "C": 4, "D": 3}
    assert after["eliminated"] == ["C", "D"] and after["turn"] == "A"


def test_a_player_eliminated_only_by_the_rounds_end_is_still_a_target():
    s, _ = play_rounds({"A": 4, "B": 4, "C": 0, "D": 1})
    for line in (effect("D", "replace_opp", "C"), effect("D", "swap", "C")):
        t, ev = do(s, line)
        assert any(e.kind == "effect_used" for e in ev)
        assert t.row.hands == s.row.hands                        # counts never change
        out = cronologia.summary(t)
        assert out["eliminated"] == ["C", "D"] and out["sudden_death"]


def test_replace_own_after_placing_ones_last_card_is_refused():
    # A and D both place their last card this round (sudden death follows); D's card has icons.
    s, _ = play_rounds({"A": 4, "B": 0, "C": 0, "D": 4})
    assert s.row.hand("D") == 0
    assert refused(s, effect("D", "replace_own")) == (
        "D holds no card to replace", "D no tiene ninguna carta que cambiar")
    assert refused(s, effect("D", "swap", "B")) == (
        "D holds no card to swap", "D no tiene ninguna carta que intercambiar")
    # Legal when D still holds a card after the placement.
    s2, _ = play_rounds({"A": 4, "B": 0, "C": 0, "D": 1})
    t, _ = do(s2, effect("D", "replace_own"))
    assert t.row.hands == s2.row.hands


def test_an_effect_after_the_winning_placement_is_legal_and_replays():
    # D is the only player to place their last card, as the last of the round: D wins.
    s, lines = play_rounds({"A": 0, "B": 0, "C": 0, "D": 4}, last_icons=("replace_opp",))
    assert cronologia.summary(s)["status"] == "finished" and cronologia.summary(s)["winner"] == "D"
    t, ev = do(s, effect("D", "replace_opp", "A"))
    assert any(e.kind == "effect_used" for e in ev) and t.row.hands == s.row.hands
    end = cronologia.summary(t)
    assert end["status"] == "finished" and end["winner"] == "D"
    # Refused the other way: one effect per card, and nothing after the window closes.
    assert refused(t, effect("D", "replace_opp", "B"))[0] == "an effect was already used for this card"
    assert refused(t, wrong("A")) == ("the game is over", "la partida ha terminado")
    # The log replays to the same end.
    log = [setup_line(("A", "B", "C", "D"))] + lines + [effect("D", "replace_opp", "A")]
    r = replay.start(json.loads(json.dumps(log[0])))
    for n, line in enumerate(log[1:], start=2):
        r = replay.step(r, json.loads(json.dumps(line)), f"line {n}")
    assert cronologia.summary(r.state) == end


def test_no_effect_on_the_last_turn_of_a_sudden_death_round():
    sd = _two_in_sudden_death_with_c_out()
    s, _ = do(sd, right(sd, "A"))
    s, ev = do(s, right(s, "B", ("replace_opp",)))              # B closes the sudden-death round
    assert not any(e.kind == "effect_available" for e in ev)
    assert refused(s, effect("B", "replace_opp", "A")) == (
        "icons are ignored in sudden death", "en muerte súbita no se usan los iconos")


def _two_in_sudden_death_with_c_out():
    s, _ = play_rounds({"A": 4, "B": 4, "C": 0}, last_icons=())
    assert cronologia.summary(s)["eliminated"] == ["C"]
    return s


def test_the_kiosk_offers_no_effect_after_the_winning_placement_and_announces_the_winner(tmp_path):
    view = CronologiaCompetitiveView()
    store = GameLog(tmp_path / "games.sqlite")
    session = GameSession.start(store, view, setup_line(("A", "B")))
    _, lines = play_rounds({"A": 0, "B": 4}, last_icons=("replace_opp",))
    for line in lines:
        before = view.context(session)
        events = session.confirm(cronologia.parse_action(line))
        assert refusal(events) is None
    assert not session.in_progress() and view.follow_ups(session) == []
    v = view.verdict(lines[-1], events, before, session, "en")
    assert v.correct and "B wins the game!" in _text(v)
    store.close()


def test_the_kiosk_announces_sudden_death_with_the_card_that_started_it_not_after(tmp_path):
    view = CronologiaCompetitiveView()
    store = GameLog(tmp_path / "games.sqlite")
    session = GameSession.start(store, view, setup_line(("A", "B", "C")))
    _, lines = play_rounds({"A": 4, "B": 0, "C": 4})
    for line in lines:
        before = view.context(session)
        events = session.confirm(cronologia.parse_action(line))
    assert view.next_step(lines[-1], events, session) == "effect"   # replace_opp on B is legal
    v = view.verdict(lines[-1], events, before, session, "en")
    assert "Sudden death" in _text(v)
    nxt = right(session.state, "A")
    before = view.context(session)
    events = session.confirm(cronologia.parse_action(nxt))
    assert "Sudden death" not in _text(view.verdict(nxt, events, before, session, "en"))
    session.undo()                                   # back to the open window, as after a restart
    resumed = GameSession.resume(store, view_for_setup)
    assert resumed.summary() == session.summary() == cronologia.summary(session.state)
    assert resumed.summary()["sudden_death"] and view.current(resumed) == "A"
    store.close()


def _text(verdict) -> str:
    return " ".join(str(part) for part in (verdict.headline, verdict.reason, verdict.then) if part)


# -- random complete games, effect lines included ------------------------------------------------------
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 5))
def test_random_games_with_effects(seed, players):
    rng = random.Random(seed)
    setup = random_play.competitive_setup(rng, players=players, deck_size=rng.choice((40, 60, 200)))
    s = cronologia.setup(setup)
    names = setup["players"]
    lines: list[dict] = []
    rounds_ended = 0
    for _ in range(400):
        if cronologia.summary(s)["status"] != "in_progress":
            break
        if s.turn_open and rng.random() < 0.6:
            icon = rng.choice(["replace_opp", "swap", "replace_own"])
            line = {"type": "effect", "player": rng.choice(names + [s.window.player] * 2), "icon": icon}
            if icon != "replace_own" or rng.random() < 0.1:
                line["target"] = rng.choice(names)
        else:
            line = random_play._next_line(cronologia, s, rng)
        new, events = cronologia.apply(s, cronologia.parse_action(line))
        if refusal(events) is not None:
            assert new is s
            continue
        if line["type"] == "effect":
            assert new.row.hands == s.row.hands and new.row.round == s.row.round
            assert not any(e.kind == "round_ended" for e in events)
        rounds_ended += sum(e.kind == "round_ended" for e in events)
        s = new
        lines.append(line)
        # Read at the end of the log: the same as the next action would find.
        read, closed = cronologia.summary(s), cronologia.summary(cronologia.settle(s)[0])
        assert read.pop("effect_open") == (s.turn_open and not s.window.used) and not closed.pop("effect_open")
        assert read == closed
    _settled, closing = cronologia.settle(s)
    rounds_ended += sum(e.kind == "round_ended" for e in closing)
    out = cronologia.summary(s)
    # Exactly one end-of-round check per round: every round before the current one, and the current
    # one too when it ended with a winner (a game won does not open another round).
    assert rounds_ended == out["round"] - (0 if out["winner"] else 1)
    r = replay.start(setup)
    for n, line in enumerate(lines, start=2):
        r = replay.step(r, line, f"line {n}")
    assert r.state == s and cronologia.summary(r.state) == out


def test_companion_replay_reads_a_log_that_ends_in_an_open_window(tmp_path, capsys):
    """The last line is the placement that starts sudden death: the round ends when the log is read."""
    from companion.cli import main

    _, lines = play_rounds({"A": 4, "B": 4, "C": 0, "D": 1})
    path = tmp_path / "game.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in [setup_line()] + lines) + "\n", encoding="utf-8")
    assert main(["replay", str(path), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["sudden_death"] and doc["eliminated"] == ["C", "D"] and doc["turn"] == "A"
    assert doc["hands"] == {"A": 1, "B": 1, "C": 4, "D": 3} and doc["effect_open"] is True
    with path.open("a", encoding="utf-8") as f:
        f.write(json.dumps(effect("D", "replace_opp", "A")) + "\n")
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert "line 18" in err and "A holds no card" in err
