"""`companion replay` as cli.md writes it: output keys, exit codes, and one clear line for bad input."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from companion.cards.decks import reload_decks
from companion.cli import main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "docs" / "examples"
SETUP = '{"type": "setup", "game": "timeline", "players": ["A", "B", "C"], "hand": 4, "start": {"year": 1450}}'


def write(tmp_path, *lines, name="game.jsonl"):
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run(capsys, *args):
    code = main(["replay", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_cli_md_example_from_outside(tmp_path):
    """Run as a separate process exactly as cli.md writes it."""
    proc = subprocess.run([sys.executable, "-m", "companion", "replay", str(EXAMPLES / "timeline-worked-example.jsonl"),
                           "--json"], capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["game"] == "timeline" and doc["status"] == "finished" and doc["winner"] == "C"
    assert doc["round"] == 5 and doc["eliminated"] == ["B"] and doc["hands"] == {"A": 1, "B": 2, "C": 0}
    assert doc["sudden_death"] is True and doc["timeline"][:3] == [1000, 1300, 1350]


def test_status_is_one_of_three(capsys):
    for name, status in (("timeline-worked-example.jsonl", "finished"),
                         ("cronologia-competitive-worked-example.jsonl", "in_progress"),
                         ("cronologia-cooperative-worked-example.jsonl", "in_progress")):
        code, out, _ = run(capsys, EXAMPLES / name, "--json")
        assert code == 0 and json.loads(out)["status"] == status


def test_cooperative_output_has_score_and_lives(capsys):
    code, out, _ = run(capsys, EXAMPLES / "cronologia-cooperative-worked-example.jsonl", "--json")
    doc = json.loads(out)
    assert (doc["score"], doc["lives"]) == (31, 5)


def test_text_output(capsys):
    code, out, _ = run(capsys, EXAMPLES / "timeline-worked-example.jsonl")
    assert code == 0 and out.startswith("Timeline: finished, C won in round 5\nSudden death\n")
    code, out, _ = run(capsys, EXAMPLES / "timeline-worked-example.jsonl", "--lang", "es")
    assert out.startswith("Timeline: terminada, ganó C en la ronda 5\nMuerte súbita\n")


def test_undo_lines_take_back_the_newest_action(tmp_path, capsys):
    log = write(tmp_path, SETUP, '{"type": "place", "player": "A", "card": {"year": 1969}, "gap": 1}',
                '{"type": "undo"}', '{"type": "place", "player": "A", "card": {"year": 1000}, "gap": 0}')
    code, out, _ = run(capsys, log, "--json")
    assert code == 0 and json.loads(out)["timeline"] == [1000, 1450]


BAD = [
    ("malformed JSON", ['{"type": "place", "player": "A" "card": {"year": 1969}, "gap": 1}'],
     "game.jsonl: line 2: malformed JSON at column 33: Expecting ',' delimiter"),
    ("unknown action type", ['{"type": "jump", "player": "A"}'],
     "game.jsonl: line 2: type: 'jump' is not a Timeline action; the only one is \"place\""),
    ("wrong player", ['{"type": "place", "player": "B", "card": {"year": 1969}, "gap": 1}'],
     "game.jsonl: line 2: it is A's turn, not B's"),
    ("gap out of range", ['{"type": "place", "player": "A", "card": {"year": 1969}, "gap": 2}'],
     "game.jsonl: line 2: gap 2 is outside 0..1"),
    ("unknown sticker", ['{"type": "place", "player": "A", "card": "TC:DEMO:999", "gap": 1}'],
     "game.jsonl: line 2: card: TC:DEMO:999: deck DEMO has no card 999"),
    ("foreign code", ['{"type": "place", "player": "A", "card": "TC:demo", "gap": 1}'],
     "game.jsonl: line 2: card: TC:demo: not a card sticker (a foreign code"),
    ("missing field", ['{"type": "place", "player": "A", "gap": 1}'],
     "game.jsonl: line 2: card: a card is needed here, not null"),
]


@pytest.mark.parametrize("what,lines,message", BAD, ids=[b[0] for b in BAD])
def test_bad_lines_exit_2_with_one_line(tmp_path, capsys, what, lines, message):
    log = write(tmp_path, SETUP, *lines)
    code, out, err = run(capsys, log)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert message.split("game.jsonl: ", 1)[1] in err
    assert err.startswith(str(log))


def test_action_after_the_game_ended(tmp_path, capsys):
    lines = (EXAMPLES / "timeline-worked-example.jsonl").read_text().splitlines()
    log = write(tmp_path, *lines, '{"type": "place", "player": "A", "card": {"year": 1}, "gap": 0}')
    code, _out, err = run(capsys, log)
    assert code == 2 and err == f"{log}: line {len(lines) + 1}: the game is over\n"


def test_the_first_line_must_be_a_setup(tmp_path, capsys):
    log = write(tmp_path, '{"type": "place", "player": "A", "card": {"year": 1}, "gap": 0}')
    code, _out, err = run(capsys, log)
    assert code == 2 and err == f"{log}: line 1: the first line must be the setup (\"type\": \"setup\"), not 'place'\n"
    log = write(tmp_path, '{"type": "setup", "game": "chess", "players": ["A", "B"]}')
    code, _out, err = run(capsys, log)
    assert code == 2 and "line 1: game: unknown game 'chess'" in err


def test_missing_and_empty_files(tmp_path, capsys):
    code, _out, err = run(capsys, tmp_path / "nope.jsonl")
    assert code == 2 and err == f"{tmp_path / 'nope.jsonl'}: no such file\n"
    empty = write(tmp_path, "", name="empty.jsonl")
    code, _out, err = run(capsys, empty)
    assert code == 2 and "the log is empty" in err


def test_a_corrupt_deck_file_is_named(tmp_path, capsys, monkeypatch):
    data = tmp_path / "data"
    (data / "decks").mkdir(parents=True)
    (data / "decks" / "MINE.json").write_text('{"id": "MINE", "name": "x", "game": "timeline", "cards": [{"n": 1}]}')
    monkeypatch.setenv("COMPANION_DATA", str(data))
    reload_decks()
    try:
        log = write(tmp_path, SETUP, '{"type": "place", "player": "A", "card": "TC:MINE:001", "gap": 1}')
        code, _out, err = run(capsys, log)
    finally:
        monkeypatch.undo()
        reload_decks()
    assert code == 2 and err.count("\n") == 1
    assert "MINE.json" in err and "cards[0]" in err


def test_a_refused_line_in_spanish(tmp_path, capsys):
    log = write(tmp_path, SETUP, '{"type": "place", "player": "B", "card": {"year": 1969}, "gap": 1}')
    code, _out, err = run(capsys, log, "--lang", "es")
    assert code == 2 and err.endswith("line 2: le toca a A, no a B\n")


def test_the_text_summary_names_no_internal_keys(capsys):
    from companion.cli import main

    for path, lang, needle in (("docs/examples/timeline-worked-example.jsonl", "en", "Cards back in the box: 3"),
                               ("docs/exhibition/game.jsonl", "es", "Variante: Década secreta")):
        assert main(["replay", path, "--lang", lang]) == 0
        out = capsys.readouterr().out
        assert needle in out
        assert "\nbox:" not in out and "_" not in out, out


def test_ranges_and_game_names_that_read_as_meant(capsys, tmp_path):
    from companion.cli import main

    assert main(["stickers", "HIST", "--only", "30-17", "--out", str(tmp_path / "s.pdf")]) == 2
    assert "'30-17' runs backwards: write the smaller number first (17-30)" in capsys.readouterr().err
    assert main(["score", "Exhibition", "docs/exhibition/table.json"]) == 0
    assert capsys.readouterr().out.startswith("Exhibition: final score")
    one = tmp_path / "one.jsonl"
    one.write_text('{"type": "setup", "game": "timeline", "players": ["Ana"], "start": {"year": 1900}}\n')
    assert main(["replay", str(one)]) == 2
    assert "players: 1 player; " in capsys.readouterr().err


@pytest.mark.parametrize("argv, where", [(["kiosk", "--autoplay", "2", "--seed", "-5"], "--seed"),
                                         (["bench", "engine", "--games", "0"], "--games")])
def test_bad_numbers_on_the_command_line_are_bad_input(argv, where, capsys):
    from companion.cli import main

    assert main(argv) == 2
    assert capsys.readouterr().err.startswith(where + ": ")
