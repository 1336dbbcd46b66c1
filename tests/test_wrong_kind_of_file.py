"""A file of the wrong kind gets the right error: a CSV given where a deck is wanted is a CSV (import
it), a game log given to ``score`` is a game log (replay it); exit 2 and one line, as for any bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion import cli

ROOT = Path(__file__).resolve().parents[1]


def _run(capsys, *argv):
    rc = cli.main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.mark.parametrize("command", [["deck", "show"], ["stickers"], ["cards"]])
def test_a_csv_is_not_a_deck(capsys, tmp_path, command):
    sheet = tmp_path / "excel.csv"
    sheet.write_text("number,year,title\n1,1969,Moon landing\n")
    extra = ["--out", str(tmp_path / "x.pdf")] if command[0] != "deck" else []
    rc, out, err = _run(capsys, *command, str(sheet), *extra)
    assert rc == 2 and out == ""
    assert err.count("\n") == 1
    assert "that is a CSV file, not a deck" in err and f"deck import ID {sheet}" in err


def test_a_game_log_is_not_a_deck(capsys):
    rc, _out, err = _run(capsys, "deck", "show", "game.jsonl")
    assert rc == 2 and "that is a game log, not a deck" in err and "replay game.jsonl" in err


def test_a_game_log_is_not_a_table(capsys):
    log = ROOT / "docs" / "exhibition" / "game.jsonl"
    rc, out, err = _run(capsys, "score", "exhibition", str(log))
    assert rc == 2 and out == ""
    assert err.count("\n") == 1
    assert "that is a game log (one JSON action a line), not a table" in err and f"replay {log}" in err


def test_a_broken_table_is_still_malformed_json(capsys, tmp_path):
    table = tmp_path / "table.json"
    table.write_text('{"players": [\n')
    rc, _out, err = _run(capsys, "score", "exhibition", str(table))
    assert rc == 2 and "malformed JSON" in err and "line 2" in err


def test_score_help_points_to_the_table_formats_in_the_repository(capsys):
    with pytest.raises(SystemExit):
        cli.main(["score", "--help"])
    out = capsys.readouterr().out
    assert "docs/score-tables.md" in out and "shared/spec" not in out
    text = (ROOT / "docs" / "score-tables.md").read_text(encoding="utf-8")
    for key in ("showcases", "six_continents_round", "variations", "lost_knowledge", "techs", "--json"):
        assert key in text


@pytest.mark.parametrize("indent", [None, 2])
def test_a_table_is_not_a_game_log(capsys, tmp_path, indent):
    import json
    table = tmp_path / "table.json"
    table.write_text(json.dumps({"players": [{"name": "Bo", "past": [], "timeline": [], "techs": [],
                                              "lost_knowledge": 0}]}, indent=indent))
    rc, out, err = _run(capsys, "replay", str(table))
    assert rc == 2 and out == "" and err.count("\n") == 1
    assert "that is a table" in err and f"score ancient-knowledge {table} scores it" in err


def test_a_row_game_is_scored_by_its_log(capsys, tmp_path):
    table = tmp_path / "table.json"
    table.write_text('{"players": [{"name": "Ana", "row": []}]}')
    rc, out, err = _run(capsys, "score", "timeline", str(table))
    assert rc == 2 and out == "" and err.count("\n") == 1
    assert "Timeline is not scored from a table: it has no points" in err and "score timeline LOG.jsonl" in err


def test_a_game_without_points_is_ranked_from_its_log(capsys, tmp_path):
    """Every game without a scorer (the contract's Ranked) gets its standings from ``score``: each player's
    place and what places them, and why the first won; a log of another game is named."""
    import json
    import random

    from companion.registry import GAMES
    for spec in GAMES.values():
        if spec.scorer:
            continue
        lines = spec.load_random_game()(random.Random(4), 3000)
        log = tmp_path / f"{spec.id}.jsonl"
        log.write_text("\n".join(json.dumps(line) for line in lines))
        rc, out, err = _run(capsys, "score", spec.id, str(log), "--json")
        doc = json.loads(out)
        assert rc == 0 and doc["game"] == spec.id and doc["why"] and doc["players"][0]["place"] == 1
        assert set(doc["winners"]) <= {p["name"] for p in doc["players"] if p["place"] == 1}
        rc, out, err = _run(capsys, "score", spec.id, str(log), "--lang", "es")
        assert rc == 0 and len(out.splitlines()) == len(doc["players"]) + 2 and "Traceback" not in out + err
    rc, out, err = _run(capsys, "score", "personal-timelines", str(tmp_path / "timeline.jsonl"))
    assert rc == 2 and "that is a game log of Timeline, not of Personal timelines" in err


@pytest.mark.parametrize("text", ["5", '"x"', "[1]", '{"players": 3}', '{"players": [{"name": 1e400}]}', "[" * 5000])
def test_any_one_document_given_to_replay_is_one_clear_line(capsys, tmp_path, text):
    log = tmp_path / "x.json"
    log.write_text(text)
    rc, out, err = _run(capsys, "replay", str(log))
    assert rc == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err
