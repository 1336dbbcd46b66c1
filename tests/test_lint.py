"""ruff, mypy and vulture with the settings in pyproject.toml, so `./dev.sh test` (and CI) fails on what they
find: vulture reports a name (function, class, method, attribute, constant) defined and used nowhere in
companion/, tests/ or tools/; tests/dead_names_allowed.py lists the few used from outside Python's sight.

mypy keeps its cache in .mypy_cache/, so a warm run takes about a second (cold: ten or so).
"""

import subprocess
import sys
import typing
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True)


def test_ruff_finds_nothing():
    proc = run("ruff", "check", "--no-fix", "companion", "tests", "tools")
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.slow
def test_mypy_finds_nothing():
    proc = run("mypy")     # the files and flags are in [tool.mypy]
    assert proc.returncode == 0, proc.stdout + proc.stderr


def registry_names() -> list[str]:
    """The names the registry's specs name by "module:name" (a game's random games, demo players, card rule,
    screenshot script) and the keys of each engine's typed summary (a TypedDict's fields, written by the
    engines as a dict's string keys): used where vulture cannot see it. Derived here so that no
    game needs a line in tests/dead_names_allowed.py."""
    import re
    from dataclasses import fields

    from companion.registry import GAMES
    named = re.compile(r"[a-z_][\w.]*:(\w+)")          # "companion.games.random_play:timeline_game"
    names = {found[1] for spec in GAMES.values() for f in fields(spec)
             if isinstance(value := getattr(spec, f.name), str) and (found := named.fullmatch(value))}
    # the keys of each engine's typed summary: the engines write them as a dict's string keys
    for spec in GAMES.values():
        names |= set(typing.get_type_hints(typing.get_type_hints(spec.load_engine().summary)["return"]))
    return sorted(names)


def test_no_dead_names(tmp_path):
    used = tmp_path / "registry_names.py"
    used.write_text("".join(f"{name}\n" for name in registry_names()))
    import tomllib
    paths = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["vulture"]["paths"]
    proc = run("vulture", *paths, str(used))  # the settings and the allowed names are in [tool.vulture]
    assert proc.returncode == 0, ("defined and used nowhere (remove it, or list it with its reason in "
                                  "tests/dead_names_allowed.py):\n" + proc.stdout + proc.stderr)


def test_the_registry_names_what_it_imports_by_string():
    names = registry_names()
    assert {"timeline_game", "DemoRowsPlayers", "card_problem", "screenshots"} <= set(names)


@pytest.mark.slow(6)
def test_mypy_checks_what_a_view_reads(tmp_path):
    """A view's session is typed (GameSession[<its engine's Table>]; summary() is the typed Summary), so a
    read of a key or a field no engine fills, or of the wrong type, fails mypy -- before any test runs."""
    view = ("from companion.play.session import GameSession\n"
            "from companion.games.personal_timelines.engine import Table\n"
            "def draw(session: GameSession[Table]) -> None:\n"
            "    session.summary()['no_such_key']\n"
            "    session.table().no_such_field\n"
            "    session.summary()['round'] + 'a'\n"
            "    session.table().goal + 1\n")
    module = tmp_path / "a_view.py"
    module.write_text(view)
    proc = run("mypy", str(module))       # the settings of [tool.mypy], this file instead of its files
    out = proc.stdout
    assert proc.returncode == 1 and out.count("error:") == 3, out
    assert 'has no key "no_such_key"' in out and '"Table" has no attribute "no_such_field"' in out
    assert 'Unsupported operand types for + ("int" and "str")' in out
