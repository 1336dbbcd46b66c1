"""Every file a person hands the program, broken on purpose (issue 20): exit 0, or exit 2 with one line
naming the file, line or field; never exit 1, never a traceback.

The cases come from companion/bench/fuzz.py (the bundled examples mutated as bytes, lines, JSON or TOML
values; images of every size and pixel kind; button chatter on gpiozero's mock pins), made by the bench's
own generator from fixed seeds, a hundred or two per input: the same cases on every run, spread as the bench
spreads them (hypothesis's random streams gave a 1x1 picture in every other scan case, and now and then a
6000x6000 one that took minutes to write). ``companion bench fuzz --only NAME --seed S --cases N`` replays a
chunk; the bench runs thousands. The structured tests below build the same inputs from hypothesis
strategies directly.
"""

import copy
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.bench import fuzz
from companion.cards.decks import reload_decks
from companion.registry import GAMES, scorable

ROOT = Path(__file__).resolve().parents[1]
FOLDER = Path(tempfile.mkdtemp(prefix="companion-fuzz-test-"))
# input -> (seeds, cases per seed): the slower inputs get fewer cases; the slowest is cut into chunks that
# pytest-xdist runs side by side
CHUNKS = {"replay": (2, 100), "scan": (2, 50), "deck-import": (1, 150), "deck-json": (1, 100), "buttons": (1, 200),
          # `score` of every registered game, from its random whole games (about 15 ms a case)
          **{name: (1, 100) for name in fuzz.INPUTS if name.startswith("score-")}}
QUICK = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                 HealthCheck.large_base_example])


def check(case: fuzz.Case) -> fuzz.Outcome:
    outcome = fuzz.run_case(case)
    assert fuzz.problems(outcome) == [], outcome.err
    return outcome


@pytest.fixture(autouse=True, scope="module")
def _fresh_decks():
    reload_decks()
    yield
    reload_decks()


@pytest.mark.parametrize("name,seed", [(name, seed) for name in sorted(fuzz.INPUTS)
                                       for seed in range(1, CHUNKS.get(name, (1, 0))[0] + 1)])
def test_fuzzed_input_exits_0_or_2_with_one_line(name, seed):
    cases = CHUNKS.get(name, (1, 250))[1]
    found = fuzz.fuzz(name, cases, seed, FOLDER)
    assert (found["problems"], found["tracebacks"], found["hangs"]) == ([], 0, 0), \
        f"companion bench fuzz --only {name} --seed {seed} --cases {cases}: {found['problems']}"


# -- structured: hypothesis builds the values ------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2 ** 70, 2 ** 70) | st.floats() | st.text(max_size=20)
    | st.sampled_from(["TC:EXH20:017", "TC:DEMO:001", "TC:DEMO:999", "A", "B", "place", "undo", "swap"]),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(
        st.sampled_from(["type", "player", "card", "gap", "year", "gap_row", "col", "icon", "target", "grid",
                         "spot", "to", "continent", "white", "period", "icons", "decade"]) | st.text(max_size=5),
        inner, max_size=6),
    max_leaves=20)

SETUPS = [line for p in sorted((ROOT / "docs" / "examples").glob("*.jsonl"))
          for line in p.read_text(encoding="utf-8").splitlines()[:1]]
SETUPS.append((ROOT / "docs" / "exhibition" / "game.jsonl").read_text(encoding="utf-8").splitlines()[0])


@settings(max_examples=200, **QUICK)
@given(st.sampled_from(SETUPS), st.lists(json_values, min_size=1, max_size=4))
def test_replay_of_any_json_after_a_real_setup(setup, lines):
    path = FOLDER / "any.jsonl"
    path.write_text("\n".join([setup] + [json.dumps(v) for v in lines]) + "\n", encoding="utf-8")
    check(fuzz.Case("replay", ["replay", str(path), "--json"], names=(str(path),)))


@settings(max_examples=150, **QUICK)
@given(st.sampled_from(scorable()), json_values,
       st.lists(st.sampled_from(["players", 0, "showcases", "one_era", 1, "past", "depot", "name"]), max_size=4))
def test_score_of_a_real_table_with_any_value_anywhere(game, value, path_keys):
    """The table a random whole game of each scorable game leaves (its scorer's ``table_of``), a value put
    anywhere in it."""
    table = copy.deepcopy(fuzz.end_tables(game)[0])
    node = table
    for key in path_keys[:-1]:
        nxt = node[key] if isinstance(node, dict) and key in node or \
            isinstance(node, list) and isinstance(key, int) and key < len(node) else None
        if not isinstance(nxt, (dict, list)):
            break
        node = nxt
    if path_keys and isinstance(node, dict):
        node[str(path_keys[-1])] = value
    elif path_keys and isinstance(node, list) and node:
        node[0] = value
    path = FOLDER / "any-table.json"
    path.write_text(json.dumps(table), encoding="utf-8")
    check(fuzz.Case("score", ["score", game, str(path), "--json"], names=(str(path),)))


@settings(max_examples=150, **QUICK)
@given(st.sampled_from(list(GAMES)),
       st.lists(st.lists(st.text(max_size=12) | st.sampled_from(fuzz.CELLS[:20]), min_size=1, max_size=6),
                max_size=6))
def test_deck_import_of_any_cells(game, rows):
    header = "n,year,title,period,icons,continent,white,ak_id"
    path = FOLDER / "any.csv"
    import csv
    import io
    out = io.StringIO()
    csv.writer(out).writerows(rows)
    path.write_text(header + "\n" + out.getvalue(), encoding="utf-8", errors="surrogatepass")
    check(fuzz.Case("deck-import", ["deck", "import", "FZANY" + game[:2].upper(), str(path), "--game", game],
                    names=(str(path),)))


toml_values = st.one_of(st.integers(-2 ** 63, 2 ** 63 - 1).map(str), st.floats().map(
    lambda f: "nan" if f != f else ("inf" if f == float("inf") else "-inf" if f == float("-inf") else repr(f))),
    st.booleans().map(lambda b: "true" if b else "false"), st.text(max_size=10).map(json.dumps))


@settings(max_examples=200, **QUICK)
@given(st.dictionaries(st.sampled_from(["kiosk", "camera", "buttons", "outputs", "extra"]),
                       st.dictionaries(st.sampled_from(["language", "fullscreen", "idle_minutes", "cafe_pin", "source",
                                                        "width", "height", "next", "undo", "ok", "menu",
                                                        "bounce_ms", "hold_menu_seconds", "led_green", "led_red",
                                                        "buzzer", "x"]), toml_values, max_size=5), max_size=4))
def test_settings_with_any_values(sections):
    text = "".join(f"[{name}]\n" + "".join(f"{k} = {v}\n" for k, v in keys.items()) for name, keys in sections.items())
    path = FOLDER / "any.toml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    check(fuzz.settings_case(path))


@settings(max_examples=300, **QUICK)
@given(st.from_regex(r"TC:[A-Z0-9]{0,9}:[0-9]{0,5}", fullmatch=True) | st.text(max_size=20))
def test_any_sticker_text_is_a_card_or_one_clear_refusal(text):
    from companion.cards.decks import resolve
    from companion.errors import BadInput
    try:
        card = resolve(text, "sticker")
    except BadInput as e:
        assert "\n" not in str(e) and str(e).startswith("sticker: ")
    else:
        assert card.code and card.code.split(":")[1] == text.split(":")[1]


# -- the defects of the issue, as regression tests ---------------------------------------------------------

def test_a_log_line_nested_100000_deep_is_bad_input_naming_the_line(capsys):
    path = FOLDER / "deep.jsonl"
    path.write_text(SETUPS[0] + "\n" + "[" * 100_000 + "\n", encoding="utf-8")
    outcome = check(fuzz.Case("replay", ["replay", str(path)], names=(f"{path}: line 2",)))
    assert outcome.code == 2 and "nested deeper than" in outcome.err


@pytest.mark.parametrize("text", ["{\"a\": " * 40 + "1" + "}" * 40, "[" + "9" * 5000 + "]"])
def test_json_too_deep_or_with_a_huge_number_is_bad_input(text):
    path = FOLDER / "table.json"
    path.write_text(text, encoding="utf-8")
    assert check(fuzz.Case("score", ["score", "exhibition", str(path)], names=(str(path),))).code == 2


@pytest.mark.parametrize("level", [[], {}, ["medio"]])
def test_a_level_that_is_a_list_or_an_object_is_bad_input(level):
    """It was looked up in a dict (TypeError: unhashable), found by bench fuzz at 10,000 cases."""
    path = FOLDER / "level.jsonl"
    setup = {"type": "setup", "game": "cronologia", "mode": "competitive", "level": level, "players": ["A", "B"],
             "start": [{"year": y, "period": "moderna"} for y in (1500, 1600, 1700, 1750, 1780)]}
    path.write_text(json.dumps(setup) + "\n", encoding="utf-8")
    outcome = check(fuzz.Case("replay", ["replay", str(path)], names=(f"{path}: line 1: level",)))
    assert outcome.code == 2


def test_a_short_tap_does_not_swallow_the_next_press():
    """A press released inside the debounce window left the button 'pressed' for good: the next real
    press was ignored (found by the button-chatter fuzz)."""
    steps = [("ok", "press", 0.0), ("ok", "release", 0.01)]
    assert fuzz.run_buttons(steps, hold=False) == (0, "")


# -- a few from outside, as a person runs them -------------------------------------------------------------

def _outside(argv, env_extra=None):
    env = dict(os.environ, PYGAME_HIDE_SUPPORT_PROMPT="1", **(env_extra or {}))
    env.pop("COMPANION_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "companion", *argv], capture_output=True, text=True, env=env,
                          timeout=120)


def _bad_files(tmp_path):
    deep = tmp_path / "deep.jsonl"
    deep.write_text(SETUPS[0] + "\n" + "[" * 100_000 + "\n")
    png = tmp_path / "cut.png"
    import cv2
    import numpy as np
    png.write_bytes(cv2.imencode(".png", np.random.default_rng(1).integers(0, 255, (200, 200), np.uint8))[1]
                    .tobytes()[:900])
    csv_file = tmp_path / "cards.csv"
    csv_file.write_text("n,year,title\n1,abc,x\n")
    toml = tmp_path / "config.toml"
    toml.write_text("[buttons]\nnext = 22\n")       # the OK button's pin
    return {"replay": (["replay", str(deep)], deep, {}), "scan": (["scan", str(png)], png, {}),
            "deck-import": (["deck", "import", "FZOUT", str(csv_file), "--game", "timeline"], csv_file, {}),
            "kiosk": (["kiosk", "--autoplay", "1"], toml, {"COMPANION_CONFIG": str(toml)}),
            "deck-add": (["deck", "add", "FZOUT", "--number", "x"], "--number", {})}


def test_every_file_from_outside_is_tried(tmp_path):
    assert sorted(_bad_files(tmp_path)) == sorted(OUTSIDE)


OUTSIDE = ["replay", "scan", "deck-import", "kiosk", "deck-add"]


@pytest.mark.parametrize("which", OUTSIDE)
def test_from_outside_bad_input_is_exit_2_and_one_line(tmp_path, which):
    argv, where, env = _bad_files(tmp_path)[which]
    proc = _outside(argv, env)
    assert proc.returncode == 2, (argv, proc.stderr)
    assert proc.stdout == "" and proc.stderr.count("\n") == 1, (argv, proc.stderr)
    assert str(where) in proc.stderr and "Traceback" not in proc.stderr
