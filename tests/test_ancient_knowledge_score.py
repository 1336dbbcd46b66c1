"""Ancient Knowledge final scoring: the 36-point example (§8.3), tiebreaks, table errors, the sheet."""

import copy
import json
import subprocess
import sys

import pytest

from companion.errors import BadInput
from companion.games.ancient_knowledge.score import format_score, score_table

TABLE_8_3 = {"players": [{
    "name": "Bo",
    "past": ["babylon", "ellora-caves", "byblos", "petra", "tiwanaku",
             "stonehenge", "the-fairies-rock", "menhir-of-kerloas", "barabar-caves", "great-sphinx-of-giza",
             "pyramid-of-the-niches", "pyramid-of-userkaf", "pyramid-of-coba", "gunung-padang"],
    "timeline": ["karnak-temple", "heracleion", "mycenae"],
    "techs": ["thales", "aristotle", "runic-alphabet", "the-number-pi", "golden-mean"],
    "lost_knowledge": 7}]}
BREAKDOWN_8_3 = {"past_vp": 23, "endgame_effects": 15, "techs": 2, "timeline": 3, "lost_knowledge": -7}


def test_8_3_the_36_point_score():
    result = score_table(copy.deepcopy(TABLE_8_3), "table.json")
    assert result["game"] == "ancient-knowledge" and result["winners"] == ["Bo"]
    bo = result["players"][0]
    assert (bo["name"], bo["total"], bo["place"]) == ("Bo", 36, 1)
    assert bo["breakdown"] == BREAKDOWN_8_3
    assert list(bo["breakdown"]) == ["past_vp", "endgame_effects", "techs", "timeline", "lost_knowledge"]
    assert {e["card"]: e["points"] for e in bo["explain"]["endgame"]} == \
        {"ellora-caves": 5, "byblos": 8, "stonehenge": 2}


def _run_cli(*args):
    return subprocess.run([sys.executable, "-m", "companion", *args], capture_output=True, text=True, timeout=60)


def test_8_3_through_the_real_command(tmp_path):
    path = tmp_path / "table.json"
    path.write_text(json.dumps(TABLE_8_3))
    done = _run_cli("score", "ancient-knowledge", str(path), "--json")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["players"][0]["total"] == 36 and doc["players"][0]["breakdown"] == BREAKDOWN_8_3
    assert doc["winners"] == ["Bo"]
    text = _run_cli("score", "ancient-knowledge", str(path))
    assert text.returncode == 0 and "Byblos" in text.stdout and "36" in text.stdout
    spanish = _run_cli("score", "ancient-knowledge", str(path), "--lang", "es")
    assert spanish.returncode == 0 and "Ganador: Bo" in spanish.stdout
    bad = copy.deepcopy(TABLE_8_3)
    bad["players"][0]["past"][3] = "babylonn"
    path.write_text(json.dumps(bad))
    done = _run_cli("score", "ancient-knowledge", str(path), "--json")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == f"{path}: players[0].past[3]: unknown card 'babylonn'; did you mean babylon?"


def test_an_opponent_on_36_with_less_lost_knowledge_wins_the_tiebreak():
    table = copy.deepcopy(TABLE_8_3)
    table["players"].append({"name": "Ana", "past": ["atlantis", "machu-picchu", "llaqtapata", "cyrene"],
                             "timeline": ["warangal", "angkor-wat"], "techs": ["plato", "akhenaten"],
                             "lost_knowledge": 5})
    result = score_table(table, "t.json")
    assert [(p["name"], p["total"], p["place"]) for p in result["players"]] == [("Ana", 36, 1), ("Bo", 36, 2)]
    assert result["winners"] == ["Ana"]
    sheet = format_score(result)
    assert "Winner: Ana" in sheet and "tie on 36 victory points broken by fewer lost knowledge" in sheet


def test_the_sheet_explains_every_end_game_card():
    table = copy.deepcopy(TABLE_8_3)
    table["players"][0]["past"].append("sulawesi-megaliths")
    sheet = format_score(score_table(table, "t.json"))
    lines = sheet.splitlines()
    assert lines[0] == "Ancient Knowledge: final score"
    flat = " ".join(" ".join(sheet.replace("\u00a0", " ").split()).split())     # the wrapped lines joined
    # each card in players' words, with the player's numbers and its points (never the formula)
    assert "Byblos: 2 points for each complete set of a city, a megalith and a pyramid in your Past: 4 sets = 8 8" \
        in flat
    assert "Sulawesi Megaliths: 6 points with 7 or more megaliths in your Past: 6 = 0 0" in flat
    assert "min(" not in sheet and "past.city" not in sheet
    assert "Lost knowledge: 7 tokens, -1 each." in sheet and "Winner: Bo" in sheet


def test_the_sheet_in_spanish():
    sheet = format_score(score_table(copy.deepcopy(TABLE_8_3), "t.json"), lang="es")
    assert "Ganador: Bo" in sheet and "Conocimiento perdido" in sheet
    flat = " ".join(sheet.replace("\u00a0", " ").split())
    assert "Byblos: 2 puntos por cada juego completo de una ciudad, un megalito y una pirámide en tu Pasado: " \
        "4 juegos = 8" in flat
    assert "Stonehenge: 2 puntos por cada juego completo de tecnologías antigua, de escritura y secreta: " \
        "1 juego = 2" in flat


@pytest.mark.parametrize("edit, where, message", [
    (lambda t: t["players"][0]["past"].__setitem__(3, "babylonn"), "t.json: players[0].past[3]",
     "unknown card 'babylonn'; did you mean babylon?"),
    (lambda t: t["players"][0]["past"].__setitem__(0, "Karnak Temple"), "t.json: players[0].past[0]",
     "did you mean karnak-temple?"),
    (lambda t: t["players"][0]["past"].append("dogu-figurines"), "t.json: players[0].past[14]",
     "is an artifact, not a monument"),
    (lambda t: t["players"][0]["techs"].append("petra"), "t.json: players[0].techs[5]", "not a technology"),
    (lambda t: t["players"][0]["timeline"].append("babylon"), "t.json: players[0].timeline[3]",
     "Babylon is already at players[0].past[0]; every card exists once"),
    (lambda t: t["players"][0].pop("lost_knowledge"), "t.json: players[0]", "missing key 'lost_knowledge'"),
    (lambda t: t["players"][0].__setitem__("lost_knowledge", -1), "t.json: players[0].lost_knowledge",
     "is not a number of tokens"),
    (lambda t: t["players"][0].__setitem__("teks", []), "t.json: players[0].teks", "unknown key"),
    (lambda t: t["players"][0].__setitem__("past", "babylon"), "t.json: players[0].past", "a list of card ids"),
    (lambda t: t.__setitem__("players", []), "t.json: players", "a non-empty list"),
    (lambda t: t["players"].extend([dict(t["players"][0], name=f"P{i}", past=[], timeline=[], techs=[])
                                    for i in range(4)]), "t.json: players", "2-4 (decision A8)"),
    (lambda t: t["players"].append(dict(t["players"][0], past=[], timeline=[], techs=[])),
     "t.json: players[1].name", "'Bo' is used by two players"),
])
def test_table_errors_name_the_path(edit, where, message):
    table = copy.deepcopy(TABLE_8_3)
    edit(table)
    with pytest.raises(BadInput) as e:
        score_table(table, "t.json")
    assert e.value.where == where and message in e.value.message, str(e.value)


def test_timeline_spots_may_be_null_and_artifacts_are_optional():
    table = copy.deepcopy(TABLE_8_3)
    table["players"][0]["timeline"] = [None, "karnak-temple", None, "heracleion", "mycenae"]
    table["players"][0]["artifacts"] = ["dogu-figurines"]
    assert score_table(table, "t.json")["players"][0]["total"] == 36
    with pytest.raises(BadInput, match="not a JSON object|must be a JSON object"):
        score_table([], "t.json")
