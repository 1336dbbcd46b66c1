"""ruff and mypy with the settings in pyproject.toml, so `./dev.sh test` (and CI) fails on what they find.

The modules other developers are rewriting are skipped there by a list that shrinks as their work is
merged. mypy keeps its cache in .mypy_cache/, so a warm run takes about a second (cold: ten or so).
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
