"""Ancient Knowledge catalog and formula evaluator: counts, every descriptor, precise errors."""

import shutil
from collections import Counter

import pytest

from companion.errors import BadInput
from companion.games.ancient_knowledge.catalog import catalog, load_catalog, slug
from companion.games.ancient_knowledge.formula import COUNTS, FormulaError, parse_formula, parse_requirement
from companion.paths import assets_dir


@pytest.fixture(scope="module")
def cat():
    return catalog()


def test_builder_counts_by_kind_activation_and_lock(cat):
    builders = list(cat.builders.values())
    assert len(builders) == 144
    assert Counter(b.kind for b in builders) == {"city": 36, "megalith": 36, "pyramid": 36, "artifact": 36}
    monuments = [b for b in builders if b.is_monument]
    assert Counter(b.activation for b in monuments) == {"immediate": 27, "anytime": 12, "timeline": 19,
                                                        "decline": 27, "endgame": 23}
    assert Counter(b.activation for b in builders if not b.is_monument) == {"anytime": 16, "timeline": 20}
    locked = {b.id: b.start_zone for b in monuments if b.locked}
    assert locked == {"mycenae": 6, "tulum": 4, "aramu-muru": 3, "carnac-standing-stones": 6,
                      "menhir-of-kerloas": 3, "teotihuacan": 6, "candi-sukuh": 4, "borobudur-temple": 3}
    assert sum(b.vp for b in monuments) == 193
    assert sum(b.knowledge for b in monuments) == 357
    assert max(b.knowledge for b in monuments) == 14 and max(b.vp for b in monuments) == 12
    zones = {k: [sum(1 for b in monuments if b.kind == k and b.start_zone == z) for z in range(1, 7)]
             for k in ("city", "megalith", "pyramid")}
    assert zones == {"city": [1, 5, 15, 5, 8, 2], "megalith": [1, 8, 7, 8, 7, 5], "pyramid": [2, 8, 12, 8, 5, 1]}
    assert sum(1 for b in monuments if b.discard_cost > 0) == 32
    assert {b.id: b.discard_cost for b in builders if not b.is_monument and b.discard_cost} == \
        {"pachamama-monolith": 3, "nimrud-lens": 1, "michaux-stone": 3}
    assert Counter(b.starting_hand for b in builders if b.starting_hand) == {1: 6, 2: 6, 3: 6, 4: 6}
    assert cat.builders["jericho"].discard_cost == 2


def test_technology_counts_by_level_type_and_vp(cat):
    techs = list(cat.techs.values())
    assert len(techs) == 45
    assert Counter((t.level, t.type) for t in techs) == {
        (1, "ancient"): 9, (1, "writing"): 9, (1, "secret"): 9,
        (2, "ancient"): 6, (2, "writing"): 6, (2, "secret"): 6}
    assert Counter(t.vp for t in techs if t.level == 2) == {2: 9, 3: 4, 4: 4, 5: 1}
    assert sum(1 for t in techs if t.level == 1 and t.requirement.conds) == 10
    assert all(t.requirement.conds for t in techs if t.level == 2)
    assert {t.activation for t in techs if t.level == 1} == {"immediate"}
    assert {t.activation for t in techs if t.level == 2} == {"endgame"}
    assert len(set(cat.ids())) == 189


def _all_counts(value):
    return {name: value for name in COUNTS}


@pytest.mark.parametrize("value", [0, 1, 3, 5, 7, 20])
def test_every_formula_and_requirement_parses_and_evaluates(cat, value):
    formulas = [b for b in cat.builders.values() if b.endgame is not None]
    assert len(formulas) == 23
    counts = _all_counts(value)
    for b in formulas:
        points = b.endgame.value(counts)
        assert isinstance(points, int) and points >= 0, b.id
        assert set(b.endgame.counts_used()) <= set(COUNTS) - {"hand"}
    requirements = [t for t in cat.techs.values() if t.requirement.conds]
    assert len(requirements) == 28
    for t in requirements:
        assert isinstance(t.requirement.holds(counts), bool)
        assert isinstance(t.requirement.holds(counts, lower_one=True), bool)


def test_formula_values_of_the_readme_examples(cat):
    f = {b.id: b.endgame for b in cat.builders.values() if b.endgame}
    assert f["ellora-caves"].value({"past.city": 5}) == 5
    assert f["byblos"].value({"past.city": 5, "past.megalith": 5, "past.pyramid": 4}) == 8
    assert f["gobekli-tepe"].value({"past.city": 3, "past.megalith": 3, "past.pyramid": 7}) == 7
    osirion = f["osirion"]
    assert [osirion.value({"techs.ancient": n}) for n in range(7)] == [0, 0, 0, 4, 4, 7, 7]
    assert f["menhir-di-monte-corru-tundu"].value({"lost_knowledge": 14}) == 0
    assert f["menhir-di-monte-corru-tundu"].value({"lost_knowledge": 15}) == 9
    khafre = f["pyramid-of-khafre"]
    assert [khafre.value({"techs.any": n}) for n in (7, 8, 11, 12)] == [0, 5, 5, 12]
    assert parse_formula("2 * (1 + past.city) + max(1, 2)").value({"past.city": 3}) == 10


def test_requirement_examples_and_the_candi_sukuh_modifier(cat):
    r = {t.id: t.requirement for t in cat.techs.values()}
    assert r["golden-mean"].holds({"past.city": 3}) and not r["golden-mean"].holds({"past.city": 2})
    assert r["golden-mean"].holds({"past.city": 2}, lower_one=True)
    assert not r["golden-mean"].holds({"past.city": 1}, lower_one=True)
    trio = {"past.city": 3, "past.megalith": 2, "past.pyramid": 3}
    assert not r["ari-kat"].holds(trio) and r["ari-kat"].holds(trio, lower_one=True)
    # exactly one type may fall one short
    assert not r["ari-kat"].holds({**trio, "past.pyramid": 2}, lower_one=True)
    # Alchemy: only the monument count is lowered, never the lost-knowledge cap
    assert r["alchemy"].holds({"past.any": 6, "lost_knowledge": 3}, lower_one=True)
    assert not r["alchemy"].holds({"past.any": 7, "lost_knowledge": 4}, lower_one=True)
    # Ptolemy (hand<=1) is recorded without the modifier and an upper bound is never lowered
    assert r["ptolemy"].holds({"hand": 1}, lower_one=True) and not r["ptolemy"].holds({"hand": 2}, lower_one=True)
    # never below 0
    assert parse_requirement("past.city>=0").holds({"past.city": 0}, lower_one=True)
    assert [c.text for c in r["alchemy"].conds] == ["past.any>=7", "lost_knowledge<=3"]


@pytest.mark.parametrize("text, column, message", [
    ("2 *", 4, "expected a number, a count"),
    ("min(past.city", 14, "expected ')'"),
    ("past.cities", 1, "unknown count 'past.cities'"),
    ("step(hand; 5:1, 5:2)", 17, "strictly ascending (5 after 5)"),
    ("step(hand; 5)", 13, "expected ':'"),
    ("3 4", 3, "unexpected '4'"),
    ("past.city $ 3", 11, "unexpected character '$'"),
    ("", 1, "empty formula"),
])
def test_formula_parse_errors_name_the_column(text, column, message):
    with pytest.raises(FormulaError) as e:
        parse_formula(text)
    assert e.value.column == column and message in e.value.message


def test_requirement_parse_errors():
    for text, message in [("past.city", "expected '>=' or '<='"), ("past.city>=3 &", "expected a number"),
                          ("past.city>=x", "expected a bound"), ("past.city>=3 past.any>=1", "unexpected")]:
        with pytest.raises(FormulaError, match=message):
            parse_requirement(text)
    assert parse_requirement("  ").conds == ()


def test_slugs_follow_the_readme_rule():
    assert slug("Ħaġar Qim") == "hagar-qim"
    assert slug("The Fairies' Rock") == "the-fairies-rock"
    assert slug("Oronce Finé's Map") == "oronce-fines-map"
    assert slug("Dogū Figurines") == "dogu-figurines"


def _copy(tmp_path):
    folder = tmp_path / "ak"
    shutil.copytree(assets_dir() / "ancient-knowledge", folder)
    return folder


def _edit(path, old, new):
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.mark.parametrize("file, old, new, where, message", [
    ("builders.csv", "karnak-temple,Karnak Temple,city,3,0,0,8,8", "karnak-temple,Karnak Temple,city,3,0,0,x,8",
     "line 28 (karnak-temple), column knowledge", "'x' is not a whole number"),
    ("builders.csv", "mycenae,Mycenae,city,6,1", "mycenae,Mycenae,city,7,1",
     "line 22 (mycenae), column start_zone", "7 is outside 1-6"),
    ("builders.csv", "nimrud-lens,Nimrud Lens,artifact,,0,1", "nimrud-lens,Nimrud Lens,artifact,,0,2",
     "column discard_cost", "2 is not one of 0, 1, 3"),
    ("builders.csv", "petra,Petra,city", "petra,Petra,temple", "column kind", "'temple' is not one of"),
    ("builders.csv", "babylon,Babylon", "babylon,Babylonia", "line 29 (babylon), column id",
     "does not match the name 'Babylonia'"),
    ("builders.csv", "byblos,Byblos", "osirion,Osirion", "column id", "'osirion' is used twice"),
    ("builders.csv", ",discard_cost,", ",cost,", "line 1", "missing column 'discard_cost'"),
    ("builders.csv", "A1_DiskOfSabu\n", "A1_DiskOfSabu,extra\n", "line 110", "12 fields, expected 11"),
    ("technologies.csv", "golden-mean,Golden Mean,secret,2,2,endgame,past.city>=3",
     "golden-mean,Golden Mean,secret,2,2,endgame,past.citty>=3", "line 35 (golden-mean), column requirement",
     "unknown count 'past.citty'"),
    ("technologies.csv", "thales,Thales,ancient,1,0", "thales,Thales,ancient,1,3", "column vp",
     "a level I technology scores nothing"),
    ("endgame.csv", "ellora-caves,past.city", "ellora-caves,past.city +", "line 6 (ellora-caves), column formula",
     "expected a number"),
    ("endgame.csv", "byblos,", "bylos,", "column id", "did you mean byblos?"),
])
def test_corrupt_catalog_names_file_line_and_column(tmp_path, file, old, new, where, message):
    folder = _copy(tmp_path)
    _edit(folder / file, old, new)
    with pytest.raises(BadInput) as e:
        load_catalog(folder)
    text = str(e.value)
    assert text.startswith(f"{folder / file}: line "), text
    assert where in text and message in text, text


def test_a_missing_formula_row_is_reported(tmp_path):
    folder = _copy(tmp_path)
    lines = (folder / "endgame.csv").read_text(encoding="utf-8").splitlines(keepends=True)
    (folder / "endgame.csv").write_text("".join(x for x in lines if not x.startswith("byblos,")), encoding="utf-8")
    with pytest.raises(BadInput, match=r"endgame\.csv: no formula for byblos \(Byblos\)"):
        load_catalog(folder)


def test_missing_and_non_utf8_files(tmp_path):
    folder = _copy(tmp_path)
    (folder / "endgame.csv").unlink()
    with pytest.raises(BadInput, match="endgame.csv: missing catalog file"):
        load_catalog(folder)
    (folder / "endgame.csv").write_bytes(b"id,formula,note\nbyblos,\xff,x\n")
    with pytest.raises(BadInput, match="not UTF-8"):
        load_catalog(folder)


def test_unknown_ids_suggest_the_nearest(cat):
    with pytest.raises(BadInput, match=r"^x: unknown card 'babylonn'; did you mean babylon\?$"):
        cat.monument("babylonn", "x")
    with pytest.raises(BadInput, match="did you mean karnak-temple"):
        cat.monument("Karnak Temple", "x")
    with pytest.raises(BadInput, match="is an artifact, not a monument"):
        cat.monument("dogu-figurines", "x")
    with pytest.raises(BadInput, match="is a technology"):
        cat.monument("golden-mean", "x")
    with pytest.raises(BadInput, match="card ids are lowercase names"):
        cat.tech("qqqqqq", "x")


def test_every_ancient_knowledge_sticker_deck_names_catalog_cards(cat):
    from companion.cards.decks import all_decks
    for deck in all_decks():
        if deck.game == "ancient-knowledge":
            unknown = [c.ak_id for c in deck.cards.values() if c.ak_id not in cat.builders and c.ak_id not in cat.techs]
            assert unknown == [], f"deck {deck.id}: {unknown[:5]}"
