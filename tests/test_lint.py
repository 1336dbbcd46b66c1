"""ruff, mypy and vulture with the settings in pyproject.toml, so `./dev.sh test` (and CI) fails on what they
find: vulture reports a name (function, class, method, attribute, constant) defined and used nowhere in
companion/, tests/ or tools/; tests/dead_names_allowed.py lists the few used from outside Python's sight.

mypy keeps its cache in .mypy_cache/, so a warm run takes about a second (cold: ten or so).
"""

import subprocess
import sys
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


def test_no_dead_names():
    proc = run("vulture")  # the paths and the allowed names are in [tool.vulture]
    assert proc.returncode == 0, ("defined and used nowhere (remove it, or list it with its reason in "
                                  "tests/dead_names_allowed.py):\n" + proc.stdout + proc.stderr)
