"""The house's rules, checked: no import circle under companion/, engines free of pygame, OpenCV and
gpiozero, and screens that open each other by name."""

from __future__ import annotations

import ast
import dataclasses
import subprocess
import sys
import typing
from pathlib import Path

import companion

ROOT = Path(companion.__file__).parent


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _import_statements():
    """(importer, line, modules) for every import statement under companion/, lazy ones included:
    ``modules`` pairs what each imported name may be, (``package.name``, ``package``), since ``from
    package import name`` imports a module or a name of the package; ``import a.b`` gives (a.b, a.b)."""
    modules = {_module_name(p): p for p in ROOT.rglob("*.py")}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                yield modules, name, node.lineno, [(a.name, a.name) for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(up + ([base] if base else []))
                yield modules, name, node.lineno, [(f"{base}.{a.name}", base) for a in node.names]


def _companion_module(t: str, modules, importer: str) -> str | None:
    """The companion module ``t`` names (its nearest enclosing one), or None (outside, or itself)."""
    while t and t not in modules:
        t = t.rpartition(".")[0]
    return t if t and t != importer and t.startswith("companion") else None


def _imports() -> dict[str, set[str]]:
    """module -> the companion modules it imports (at any depth of the file: a lazy import is an import;
    ``from package import module`` counts the package too)."""
    graph: dict[str, set[str]] = {_module_name(p): set() for p in ROOT.rglob("*.py")}
    for modules, name, _line, pairs in _import_statements():
        out = graph[name]
        for t in [t for pair in pairs for t in pair]:
            found = _companion_module(t, modules, name)
            if found:
                out.add(found)
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle, or None (a package's __init__ importing its own modules is not a circle back)."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        stack.append(m)
        for n in sorted(graph.get(m, ())):
            if m.startswith(n + "."):
                continue                 # a module importing its own package's __init__ (always loaded first)
            if state.get(n) == 1:
                return stack[stack.index(n):] + [n]
            if n not in state:
                found = visit(n)
                if found:
                    return found
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state:
            found = visit(m)
            if found:
                return found
    return None


def test_no_import_circle_under_companion():
    assert _cycle(_imports()) is None, " -> ".join(_cycle(_imports()) or [])


def _package(module: str) -> str:
    """The package (or single module) right under companion/ that a module lies in: its folder."""
    return ".".join(module.split(".")[:2])


def _package_imports(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """package -> the other packages its modules import (any import, lazy ones included)."""
    out: dict[str, set[str]] = {}
    for a, targets in graph.items():
        out.setdefault(_package(a), set()).update(_package(b) for b in targets if _package(b) != _package(a))
    return out


def test_no_import_circle_between_packages():
    """Folders show the layers: no two packages under companion/ import each other (``cards`` and
    ``games`` once did, through the registry that lay in ``games/``)."""
    circle = _cycle(_package_imports(_imports()))
    assert circle is None, " -> ".join(circle or [])


def test_the_circle_finder_finds_a_circle():
    assert _package_imports({"companion.a.x": {"companion.b.y"}, "companion.b.y": {"companion.a"},
                             "companion.a": set()}) == {"companion.a": {"companion.b"}, "companion.b": {"companion.a"}}

    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_no_screen_imports_another():
    graph = _imports()
    screens = {m for m in graph if m.startswith("companion.ui.screens.")}
    for m in screens:
        assert not (graph[m] & screens), (m, graph[m] & screens)


def test_engines_import_no_pygame_opencv_or_gpiozero():
    """Every registered engine, imported alone in a fresh interpreter."""
    from companion.registry import GAMES

    code = ("import sys\n"
            "from companion.registry import GAMES\n"
            "for spec in GAMES.values():\n"
            "    spec.load_engine()\n"
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('pygame', 'cv2', 'gpiozero', 'zxingcpp'))\n"
            "print(','.join(bad))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", out.stdout
    assert len(GAMES) >= 4


# -- the layers of docs/architecture.md --------------------------------------------------------------

ARCHITECTURE = ROOT.parent / "docs" / "architecture.md"


def _layers() -> dict[str, int]:
    """module or package -> its layer's number, from the table in docs/architecture.md."""
    import re

    layers: dict[str, int] = {}
    for line in ARCHITECTURE.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and cells[0].isdigit():
            for name in re.findall(r"`([a-z0-9_.]+)`", cells[2]):
                layers[name] = int(cells[0])
    return layers


def _layer_of(module: str, layers: dict[str, int]) -> int | None:
    """The layer of the longest row name that is the module or one of its packages; ``companion``
    names the package's __init__ alone, so a module of its own under companion/ needs a row."""
    name = module
    while name and name != "companion":
        if name in layers:
            return layers[name]
        name = name.rpartition(".")[0]
    return layers.get(module) if module == "companion" else None


def _edges() -> list[tuple[str, str, int]]:
    """(importer, imported, line) for every import of a companion module, lazy ones included. ``from
    package import module`` imports the module (the package's __init__ comes with it: below or beside)."""
    edges = []
    for modules, name, line, pairs in _import_statements():
        for full, base in pairs:
            found = _companion_module(full if full in modules else base, modules, name)
            if found:
                edges.append((name, found, line))
    return edges


def test_every_module_has_a_layer():
    layers = _layers()
    assert len(set(layers.values())) >= 10, layers
    missing = sorted(m for m in (_module_name(p) for p in ROOT.rglob("*.py")) if _layer_of(m, layers) is None)
    assert missing == [], f"modules in no layer of docs/architecture.md: {missing}"


def _upward(edges, layers: dict[str, int]) -> list[str]:
    return [f"{a} (layer {_layer_of(a, layers)}) imports {b} (layer {_layer_of(b, layers)}) at line {line}"
            for a, b, line in edges if (_layer_of(b, layers) or 0) > (_layer_of(a, layers) or 0)]


def test_no_module_imports_a_layer_above_its_own():
    upward = _upward(_edges(), _layers())
    assert upward == [], "\n".join(upward)


def test_the_layer_check_finds_an_upward_import():
    layers = {"companion.low": 1, "companion.high": 2}
    assert _layer_of("companion.low.x", layers) == 1 and _layer_of("companion.high", layers) == 2
    assert _layer_of("companion.other", layers) is None
    assert _layer_of("companion.progress", {"companion": 1}) is None and _layer_of("companion", {"companion": 1}) == 1
    edges = [("companion.high.a", "companion.low.b", 3), ("companion.low.b", "companion.high", 7)]
    assert _upward(edges, layers) == ["companion.low.b (layer 1) imports companion.high (layer 2) at line 7"]


def test_no_command_module_imports_another():
    commands = {m for m in _imports() if m.endswith("_cli")}
    for a, b, line in _edges():
        assert not (a in commands and b in commands), f"{a} imports {b} at line {line}"


def _agrees(engine, state) -> None:
    """The typed read model says what the summary says (the one owner of each fact is the engine)."""
    from companion.games.base import outcome_of
    s = engine.summary(state)
    declared = typing.get_type_hints(engine.summary).get("return")
    assert typing.is_typeddict(declared), f"{engine.GAME_ID}: summary() must return a typed Summary"
    undeclared = set(s) - set(typing.get_type_hints(declared))
    assert not undeclared, f"{engine.GAME_ID}: summary keys not declared in {declared.__name__}: {undeclared}"
    out = engine.outcome(state)
    assert out == outcome_of(s)
    assert out.over == (s["status"] != "in_progress")
    assert engine.current_player(state) == (None if out.over else s["turn"])
    assert all(c is not None for c in engine.cards_on_table(state))
    if hasattr(engine, "standings"):        # a game without points: its standings name every player, winners first
        st = engine.standings(state)
        assert st.places and st.places[0].place == 1 and all(p.figure.render("en") for p in st.places)
        assert set(out.winners) <= {p.player for p in st.places if p.place == 1}
        assert st.why.render("es")
    if hasattr(engine, "table"):            # a game's own read model: frozen
        t = engine.table(state)
        assert dataclasses.is_dataclass(t) and type(t).__dataclass_params__.frozen, type(t)


def keeps_the_contract(spec) -> None:
    """The parts docs/adding-a-game.md lists, declared in companion/games/contract.py, play/view.py and
    ui/demo_boards.py, kept by a registered game (tests/test_fifth_game.py asks it of the test game)."""
    from companion.games.contract import Engine, Ranked, Scorer, missing
    from companion.ui.demo_boards import BoardPlayers
    from companion.ui.games import VIEWS, available_views, missing_parts

    assert missing(spec.load_engine(), Engine) == [], spec.id
    assert spec.load_engine().GAME_ID == spec.id
    assert callable(spec.load_random_game()), spec.id
    assert callable(spec.load_screenshots()), f"{spec.id}: its screenshot script (GameSpec.screenshots)"
    if spec.scorer:
        assert missing(spec.load_scorer(), Scorer) == [], spec.id
    else:       # a game without points ranks its players: `companion score` says where they stand
        assert missing(spec.load_engine(), Ranked) == [], f"{spec.id}: neither a scorer nor standings"
    offered = {v.engine_id for v in available_views()}
    views = [v for v in VIEWS.values() if v.engine_id == spec.id]
    assert spec.id in offered and views and all(missing_parts(v) == [] for v in views), spec.id
    boards = [v for v in views if v.table_kind == "board"]
    assert not boards or issubclass(spec.load_demo() or object, BoardPlayers), f"{spec.id}: demo players"


# -- a game lies in its own places ---------------------------------------------------------------------

# Where the first four games are still named outside their own places (they came before the contract);
# each with its reason. The list only shrinks: a game added since is named nowhere else (personal
# timelines, the test game).
NAMED_OUTSIDE = {
    ("timeline", "companion/bench/cafe.py"): "the café bench's made-up logs are Timeline games",
    ("timeline", "companion/ui/games/cronologia.py"): "Cronología's views build on Timeline's row view",
    ("timeline", "companion/ui/games/personal_timelines.py"): "its views build on Timeline's row view",
    ("exhibition", "assets/translations/es/board_views.po"): "the Spanish of both board games' views, in one file",
    ("ancient-knowledge", "companion/cards/rules.py"): "its docstring points at Ancient Knowledge's card ids",
}


def own_places(spec) -> list[str]:
    """The places docs/adding-a-game.md gives a game (paths under the checkout, a folder ending in /):
    its engine's package (or module), every module its spec names (random games, scorer, views, demo
    players, card rule, screenshot script), its views' private helpers (ui/games/_<game>*.py), its
    Spanish and the registry."""
    import importlib.util

    def file_of(module: str) -> str:
        found = importlib.util.find_spec(module)
        origin = Path(found.origin) if found and found.origin else None
        if origin is None:
            return module
        if origin.name == "__init__.py":
            origin = origin.parent
        return str(origin.relative_to(ROOT.parent)) + ("/" if origin.is_dir() else "")

    engine = spec.engine.rsplit(".", 1)[0] if spec.engine.endswith(".engine") else spec.engine
    by_path = (spec.random_game, spec.scorer, spec.demo, spec.card_rule, spec.screenshots)
    named = [engine, *spec.views] + [path.partition(":")[0] for path in by_path if path]
    pkg = engine.rpartition(".")[2]
    return [file_of(m) for m in named] + [f"companion/ui/games/_{pkg}", f"assets/translations/es/{pkg}.po",
                                           "companion/registry.py"]


def named_outside(spec) -> list[str]:
    """The files of companion/, tools/ and assets/translations/ that name ``spec``'s game -- a log line of
    it (``"game": "<id>"``) or one of its own modules by path -- outside its own places."""
    import re
    engine = spec.engine.rsplit(".", 1)[0] if spec.engine.endswith(".engine") else spec.engine
    modules = {engine, *spec.views}
    pattern = re.compile("|".join([r'"game":\s*"' + re.escape(spec.id) + '"'] +
                                  [re.escape(m) + r"\b" for m in modules] +
                                  [re.escape(m.replace(".", "/")) + r"\b" for m in modules]))
    places = own_places(spec)
    out = []
    for base in ("companion", "tools", "assets/translations"):
        for path in sorted((ROOT.parent / base).rglob("*")):
            if path.suffix not in (".py", ".po", ".html", ".js"):
                continue
            rel = str(path.relative_to(ROOT.parent))
            if any(rel == p or rel.startswith(p) for p in places):
                continue
            if pattern.search(path.read_text(encoding="utf-8", errors="replace")):
                out.append(rel)
    return out


def test_a_game_is_named_only_in_its_own_places():
    """A game is its own places and one register line: a file elsewhere that names it is a file a new game
    would have to edit (docs/adding-a-game.md's table)."""
    from companion.registry import GAMES
    found = [f"{spec.id}: {path}" for spec in GAMES.values() for path in named_outside(spec)
             if (spec.id, path) not in NAMED_OUTSIDE]
    assert not found, "\n".join(found)
    gone = [key for key in NAMED_OUTSIDE if key[1] not in named_outside(GAMES[key[0]])]
    assert not gone, f"no longer named there (remove the line): {gone}"


def read_model_agrees_to_the_end(spec, rng) -> None:
    """outcome(), current_player() and cards_on_table() beside summary(), action by action, to the end of
    a random whole game (the spec's random_game)."""
    engine = spec.load_engine()
    setup, *lines = spec.load_random_game()(rng, 3000)
    state = engine.setup(setup)
    _agrees(engine, state)
    for line in lines:
        state, _events = engine.apply(state, engine.parse_action(line))
        _agrees(engine, state)
    assert engine.outcome(state).over, f"{spec.id}: a random game ends"
    assert len(engine.cards_on_table(state)) > 0
    if spec.scorer:         # the table the game leaves, scored as `companion score` does, says what the engine says
        summary = engine.summary(state)
        scorer = spec.load_scorer()
        result = scorer.score_table(scorer.table_of(summary), spec.id)
        if "scores" in summary:
            assert [(p["name"], p["total"]) for p in result["players"]] == \
                [(p["name"], p["total"]) for p in summary["scores"]], spec.id
            assert result["winners"] == summary["winners"], spec.id


def test_every_registered_game_keeps_the_contract():
    """A game added is checked by being added: no list of games here."""
    from companion.registry import GAMES
    for spec in GAMES.values():
        keeps_the_contract(spec)


def test_every_engine_keeps_the_read_model_beside_its_summary():
    import random

    from companion.registry import GAMES
    rng = random.Random(3)
    for spec in GAMES.values():
        read_model_agrees_to_the_end(spec, rng)


# -- the views read the read model, never the engine's state ------------------------------------------

def _state_reads(source: str) -> list[str]:
    """Where ``source`` reads a session's engine state (``session.state``, ``self.session.state``...) or a
    read model's private ``_state``: ``line: expression``."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Attribute):
            continue
        base = ast.unparse(node.value)
        if node.attr == "_state" or node.attr == "state" and base.split(".")[-1].endswith("session"):
            out.append(f"{node.lineno}: {ast.unparse(node)}")
    return out


def test_no_view_reads_the_engine_state():
    """The kiosk (companion/ui) draws and asks from the engines' read model (``session.summary()``,
    ``outcome()``, ``current_player()``, ``cards_on_table()``, ``table()``), so an engine may keep its
    state as it likes."""
    found = [f"{path.relative_to(ROOT.parent)}:{where}" for path in sorted((ROOT / "ui").rglob("*.py"))
             for where in _state_reads(path.read_text())]
    assert not found, "\n".join(found)


# the session's writing methods: only the turn controller (companion/play/turns.py) calls them
_SESSION_WRITES = {"confirm", "undo", "end_early"}


def _session_writes(source: str) -> list[str]:
    """Where ``source`` names a session's writing method (``session.undo``, ``k.session.end_early``..., a
    call or a reference handed on): ``line: expression``."""
    return [f"{node.lineno}: {ast.unparse(node)}" for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Attribute) and node.attr in _SESSION_WRITES
            and ast.unparse(node.value).split(".")[-1].endswith("session")]


def test_the_controller_is_the_only_writer():
    """The kiosk's screens ask the turn controller to confirm, undo or end a game early; none writes
    through the session itself."""
    found = [f"{path.relative_to(ROOT.parent)}:{where}" for path in sorted((ROOT / "ui").rglob("*.py"))
             for where in _session_writes(path.read_text())]
    assert not found, "\n".join(found)


def test_the_session_write_finder_finds_one():
    assert sorted(_session_writes("ok = self.session.confirm(a)\nf(k.session.undo)\nsession.end_early()\n")) == [
        "1: self.session.confirm", "2: k.session.undo", "3: session.end_early"]
    assert _session_writes("stack.undo()\nTurnController.end_early(k, again=f)\nsession.line(a)\n") == []


def test_the_state_read_finder_finds_one():
    assert sorted(_state_reads("s = session.state\nb = self.session.state.boards\nx = t._state\n")) == [
        "1: session.state", "2: self.session.state", "3: t._state"]
    assert _state_reads("pressed = rig.state\nsession.table()\n") == []
