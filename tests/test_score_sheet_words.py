"""The score sheets of all four games, on the kiosk and on the command line, in English and Spanish, are
written in players' words: no identifier (``six_continents_round``, ``past.city``, ``karnak-temple``,
``FP``), no formula (``2 * min(...)``), no raw negative year (``-753``). Every explained line is scanned."""

from __future__ import annotations

import copy
import json
import random
import re

import pytest
from test_ancient_knowledge_score import TABLE_8_3

from companion.cli import main
from companion.games import cronologia, random_play, timeline
from companion.games.ancient_knowledge.catalog import catalog
from companion.games.ancient_knowledge.formula import COUNTS
from companion.games.ancient_knowledge.score import format_score as ak_format
from companion.games.ancient_knowledge.score import score_table as ak_score
from companion.games.exhibition import autoplay
from companion.games.exhibition import engine as exhibition
from companion.games.exhibition.board import OVERLAYS, SHOWCASES
from companion.games.exhibition.score import format_score as exh_format
from companion.games.exhibition.score import score_table as exh_score
from companion.i18n import render
from companion.ui.games.ancient_knowledge import AncientKnowledgeView
from companion.ui.games.cronologia import CronologiaCompetitiveView, CronologiaCooperativeView
from companion.ui.games.exhibition import ExhibitionView
from companion.ui.games.timeline import TimelineView

LANGS = ("en", "es")
AK_IDS = sorted(i for i in [*catalog().builders, *catalog().techs] if "-" in i)
KEYS = sorted({*SHOWCASES, *OVERLAYS, "six_continents", "six_continents_round", "secret_decade", "continent_focus",
               "empty_spots", "mid_century", "past_vp", "endgame_effects", "lost_knowledge", "sudden_death"})


def offences(text: str, lang: str, values_column: bool = False, dated: bool = True) -> list[str]:
    """What in ``text`` a player should not have to read. ``values_column``: a command-line sheet, whose
    right-hand column holds points (a -100 there is a penalty, not a year). ``dated``: the game's cards
    carry years that may be BC (Timeline, Cronología); Exhibition's and Ancient Knowledge's negative
    numbers are points ("Depot -300" in a solo game)."""
    if values_column:
        text = "\n".join(re.sub(r"\s+[-–✓✗\d]+$", "", line) for line in text.splitlines())
    found = []
    found += re.findall(r"\b[a-z]+(?:_[a-z]+)+\b", text)                       # snake_case keys
    found += [k for k in KEYS if re.search(rf"\b{k}\b", text)]
    found += [c for c in COUNTS if "." in c and c in text]                      # past.city, techs.secret
    found += [i for i in AK_IDS if re.search(rf"(?<![\w-]){re.escape(i)}(?![\w-])", text)]
    found += re.findall(r"\b(?:FP|VP|PF|PV)\b", text)                          # units spelled out
    found += re.findall(r"\b(?:min|max|step)\(|\w ?\* ?\w|[<>]=", text)        # formulas
    # -753: a raw negative year (a negative total of points is a score: "-638 points")
    if dated:
        found += re.findall(r"(?<![\w\d.,:–-])-\d{3,}(?!\d)(?! (?:points|puntos|fame|victory))", text)
    found += re.findall(r"\b(?:None|True|False)\b|[{}]", text)                 # Python, or a placeholder
    if lang == "en":
        found += re.findall(r"\b(?:medio|iniciado|experto)\b", text)           # the box's Spanish level names
    return found


class Session:
    """What a board view's score sheet reads: the engine's summary and its read model of the table."""

    def __init__(self, engine, state):
        self.engine, self.state = engine, state

    def summary(self):
        return self.engine.summary(self.state)

    def table(self):
        return self.engine.table(self.state)


def kiosk_lines(view, session, lang: str) -> list[str]:
    pages = view.score_pages(session) if hasattr(view, "score_pages") else 1
    out = []
    for page in range(pages):
        headline, _good, rows = view.score_sheet(session, page) if pages > 1 or hasattr(view, "score_pages") \
            else view.score_sheet(session)
        out.append(render(headline, lang))
        for row in rows:
            out.append(render(row.label, lang) + ": " + (render(row.explain, lang) if row.explain else ""))
    return out


def _play(engine, lines):
    state = engine.setup(lines[0])
    for line in lines[1:]:
        state, _ = engine.apply(state, engine.parse_action(line))
    return state


def _row_game_logs():
    rng = random.Random(7)
    out = []
    for setup in (random_play.timeline_setup(rng, 3), random_play.competitive_setup(rng, 2),
                  random_play.cooperative_setup(rng, 2)):
        setup = json.loads(json.dumps(setup))
        out.append([setup, *random_play.play(setup, rng, 400)])
    return out


def _exhibition_logs():
    return [autoplay.play_game(["Ana", "Bo", "Cy"], seed=3, secret_decade=True,
                               variations={"plain": "short_era", "one_era": "links"}),
            autoplay.play_game(["Ana", "Bo"], seed=11, variations={"years_gap": "antiquity"}),
            autoplay.play_game(["Solo"], seed=5)]


def _ak_docs():
    tie = copy.deepcopy(TABLE_8_3)
    tie["players"].append({"name": "Ana", "past": ["atlantis", "machu-picchu", "llaqtapata", "cyrene"],
                           "timeline": ["warangal", "angkor-wat"], "techs": ["plato", "akhenaten"],
                           "lost_knowledge": 5})
    extra = copy.deepcopy(TABLE_8_3)
    extra["players"][0]["past"] += ["sulawesi-megaliths", "gobekli-tepe", "osirion", "giants-tomb"]
    return [ak_score(t, "t.json") for t in (copy.deepcopy(TABLE_8_3), tie, extra)]


@pytest.mark.parametrize("lang", LANGS)
def test_the_kiosk_score_sheets_of_all_four_games_are_in_players_words(lang):
    seen = []
    views = {"timeline": TimelineView(), "competitive": CronologiaCompetitiveView(),
             "cooperative": CronologiaCooperativeView()}
    for lines in _row_game_logs():
        engine = timeline if lines[0]["game"] == "timeline" else cronologia
        state = _play(engine, lines)
        assert engine.summary(state)["status"] != "in_progress"
        view = views[lines[0].get("mode", "timeline")]
        seen += [(view.key, line) for line in kiosk_lines(view, Session(engine, state), lang)]
    for lines in _exhibition_logs():
        state = _play(exhibition, lines)
        assert exhibition.summary(state)["scores"]
        seen += [("exhibition", line) for line in kiosk_lines(ExhibitionView(), Session(exhibition, state), lang)]
    for doc in _ak_docs():
        session = type("AK", (), {"summary": lambda self, d=doc: {"scores": d["players"], "winners": d["winners"]},
                                  "state": None})()
        seen += [("ancient-knowledge", line) for line in kiosk_lines(AncientKnowledgeView(), session, lang)]
    assert {game for game, _ in seen} == {"timeline", "cronologia-competitive", "cronologia-cooperative",
                                          "exhibition", "ancient-knowledge"}
    assert len(seen) > 120
    dated = ("timeline", "cronologia-competitive", "cronologia-cooperative")
    bad = [(game, line, found) for game, line in seen if (found := offences(line, lang, dated=game in dated))]
    assert bad == []


@pytest.mark.parametrize("lang", LANGS)
def test_the_command_line_sheets_of_all_four_games_are_in_players_words(lang, tmp_path, monkeypatch, capsys):
    texts = []          # (text, whether its cards are dated)
    for doc in _ak_docs():
        texts.append((ak_format(doc, lang), False))
    for lines in _exhibition_logs():
        s = exhibition.summary(_play(exhibition, lines))
        table = {"players": [{"name": p["name"], "showcases": p["showcases"],
                              "depot": [c for c in p["depot"] if c],
                              "six_continents_round": p["six_continents_round"],
                              **({"secret_decade": p["secret_decade"]} if "secret_decade" in p else {})}
                             for p in s["players"]],
                 "variations": s["variations"], "market": [c for col in s["market"].values() for c in col]}
        texts.append((exh_format(exh_score(table, "t.json"), lang), False))
    # replay: the row games' rows and grids, Exhibition's finished game with its explained figures
    monkeypatch.chdir(tmp_path)
    for n, lines in enumerate(_row_game_logs() + _exhibition_logs()):
        (tmp_path / f"g{n}.jsonl").write_text("\n".join(json.dumps(line) for line in lines))
        assert main(["replay", f"g{n}.jsonl", "--lang", lang]) == 0
        texts.append((capsys.readouterr().out, lines[0]["game"] != "exhibition"))
    assert sum("Row" in t or "Fila" in t for t, _ in texts) >= 2       # the row games wrote their rows
    bad = [(line, found) for t, dated in texts for line in t.splitlines()
           if (found := offences(line, lang, values_column=True, dated=dated))]
    assert bad == []


def test_the_scan_finds_what_it_is_for():
    """The scan itself catches each kind of offence (so a clean sheet means something)."""
    for text in ("2 * min(techs.ancient, techs.writing, techs.secret)", "Row: -10000 -753", "Level: medio",
                 "Ana: 15 FP", "players[0].six_continents_round", "ellora-caves 5", "step(lost_knowledge; 10:4)"):
        assert offences(text, "en"), text
    for text in ("2 points for each complete set of Ancient, Writing and Secret technologies: 2 sets = 4",
                 "Row: 10,000 BC · 753 BC", "Level: medium (6 cards)", "Ana: 15 fame points",
                 "Lost knowledge: 7 tokens, -1 each.", "Empty spots: One Era 1–3, Plain 5"):
        assert offences(text, "en") == [], text
    assert offences("  Depot: 1933 NA                    -100", "en", values_column=True) == []
    assert offences("Solo score: -638 points", "en") == [] and offences("Row: 1066 · -753", "en")
