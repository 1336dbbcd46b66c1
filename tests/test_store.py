"""The game log: durable appends, undo by appending, resume after a restart, SIGKILL safety,
a full disk and a damaged file; and the properties tying the log to the engines."""

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.games import random_play
from companion.store import replay
from companion.store.log import GameLog, StoreError

ROOT = Path(__file__).resolve().parents[1]
SETUP = {"type": "setup", "game": "timeline", "players": ["A", "B"], "start": {"year": 1450}}
A1 = {"type": "place", "player": "A", "card": {"year": 1969}, "gap": 1}
B1 = {"type": "place", "player": "B", "card": {"year": 1200}, "gap": 0}


def test_append_undo_and_resume(tmp_path):
    log = GameLog(tmp_path / "games.sqlite")
    gid = log.new_game(SETUP)
    log.append(gid, A1)
    log.append(gid, B1)
    assert log.undo(gid) == B1
    assert log.undo(gid) == A1
    assert log.undo(gid) is None                       # back at the setup; nothing more to take back
    log.append(gid, A1)
    log.close()
    again = GameLog(tmp_path / "games.sqlite")          # a restart
    assert again.in_progress() == (gid, SETUP, [A1])
    kinds = [k for k, _ in again.entries(gid)]
    assert kinds == ["action", "action", "undo", "undo", "action"]      # nothing was deleted
    assert again.export(gid) == json.dumps(SETUP) + "\n" + json.dumps(A1) + "\n"


def test_finished_and_abandoned_games_are_not_resumed(tmp_path):
    log = GameLog(tmp_path / "g.sqlite")
    first = log.new_game(SETUP)
    log.finish(first, {"status": "finished"})
    second = log.new_game(SETUP)
    log.abandon(second)
    assert log.in_progress() is None
    with pytest.raises(StoreError, match="is finished; it takes no more actions"):
        log.append(first, A1)
    assert [g["status"] for g in log.games()] == ["finished", "abandoned"]


def test_a_full_disk_is_one_clear_error_and_keeps_what_was_saved(tmp_path):
    path = tmp_path / "g.sqlite"
    log = GameLog(path)
    gid = log.new_game(SETUP)
    log.append(gid, A1)
    pages = log._db.execute("PRAGMA page_count").fetchone()[0]
    log._db.execute(f"PRAGMA max_page_count = {pages}")          # the disk is now full
    big = dict(B1, note="x" * 20000)
    with pytest.raises(StoreError, match=r"g\.sqlite: the disk is full .*nothing new was saved"):
        log.append(gid, big)
    log.close()
    assert GameLog(path).in_progress() == (gid, SETUP, [A1])


def test_a_damaged_file_is_named(tmp_path):
    path = tmp_path / "g.sqlite"
    path.write_bytes(b"this is not a database at all" * 200)
    with pytest.raises(StoreError, match=r"g\.sqlite: not a readable game database"):
        GameLog(path)


CHILD = """
import sys
from companion.store.log import GameLog
log = GameLog(sys.argv[1])
found = log.in_progress()
gid = found[0] if found else log.new_game({"type": "setup", "game": "timeline"})
n = len(found[2]) if found else 0
print("ready", flush=True)
while True:
    log.append(gid, {"n": n})
    print(n, flush=True)
    n += 1
"""


@pytest.mark.slow(11)
def test_sigkill_at_random_moments_loses_no_confirmed_action(tmp_path):
    path = tmp_path / "crash.sqlite"
    rng = random.Random(7)
    confirmed = -1
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for _ in range(100):
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(path)], stdout=subprocess.PIPE, text=True,
                                 env=env)
        assert child.stdout.readline().strip() == "ready"
        time.sleep(rng.uniform(0, 0.03))
        child.send_signal(signal.SIGKILL)
        out, _ = child.communicate()
        for line in out.split():
            confirmed = max(confirmed, int(line))        # its append had returned
        db = sqlite3.connect(path)
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        db.close()
        lines = GameLog(path).in_progress()[2]
        assert [x["n"] for x in lines] == list(range(len(lines)))
        assert len(lines) - 1 >= confirmed
    assert confirmed > 100


# -- properties ------------------------------------------------------------------------------------
SETUPS = [random_play.timeline_setup, random_play.competitive_setup, random_play.cooperative_setup]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 10**6), st.sampled_from(SETUPS))
def test_replaying_a_stored_log_gives_the_state_of_applying_each_action(tmp_path, seed, make):
    rng = random.Random(seed)
    setup = make(rng)
    lines = random_play.play(setup, rng, 60)
    engine = replay.start(setup).engine
    state = engine.setup(setup)
    for line in lines:
        state, _ = engine.apply(state, engine.parse_action(line))
    log = GameLog(tmp_path / f"p{seed}.sqlite")
    gid = log.new_game(setup)
    for line in lines:
        log.append(gid, line)
    _gid, stored_setup, stored = log.in_progress() if log.in_progress() else (gid, log.setup(gid), log.lines(gid))
    assert replay.fold(engine, stored_setup, stored) == state
    log.close()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 10**6), st.sampled_from(SETUPS))
def test_as_many_undos_as_actions_return_to_the_setup_state(tmp_path, seed, make):
    rng = random.Random(seed)
    setup = make(rng)
    lines = random_play.play(setup, rng, 40)
    log = GameLog(tmp_path / f"u{seed}.sqlite")
    gid = log.new_game(setup)
    for line in lines:
        log.append(gid, line)
    for line in reversed(lines):
        assert log.undo(gid) == line
    engine = replay.start(setup).engine
    assert replay.fold(engine, setup, log.lines(gid)) == engine.setup(setup)
    log.close()
