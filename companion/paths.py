"""Where the companion keeps things: shipped assets, the data directory, the config file.

Environment variables override every default so tests, the demo and the Pi service can each point
the program at their own places.
"""

from __future__ import annotations

import os
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]


def assets_dir() -> Path:
    return Path(os.environ.get("COMPANION_ASSETS", PROJECT_ROOT / "assets"))


def data_dir() -> Path:
    """Writable data: the game database, the user's own decks, logs. Created on first use."""
    default = Path(os.environ.get("XDG_DATA_HOME", Path.home() / ".local" / "share")) / "companion"
    path = Path(os.environ.get("COMPANION_DATA", default))
    path.mkdir(parents=True, exist_ok=True)
    return path


def config_file() -> Path:
    default = Path(os.environ.get("XDG_CONFIG_HOME", Path.home() / ".config")) / "companion" / "config.toml"
    return Path(os.environ.get("COMPANION_CONFIG", default))


def command() -> str:
    """How to type the ``companion`` command that is running now, for a message that suggests one:
    ``companion`` when that name on the PATH is this very program, else the path it was started by
    (``.venv/bin/companion`` from the project's folder, as ``./dev.sh`` starts it), or
    ``python -m companion`` with the interpreter's path."""
    import shutil
    import sys

    started = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if started is None or not started.is_file():
        return "companion"                  # python -c, an embedded interpreter: the command's own name
    if started.name == "__main__.py" or started.suffix == ".py":
        return f"{_shown(Path(sys.executable))} -m companion"
    found = shutil.which("companion")
    try:
        if found and Path(found).resolve() == started.resolve():
            return "companion"
    except OSError:
        pass
    return _shown(started)


def _shown(path: Path) -> str:
    """A path as a person would type it here: relative below the current folder, else absolute."""
    try:
        rel = path.absolute().relative_to(Path.cwd())
    except (ValueError, OSError):
        return str(path.absolute())
    return str(rel) if rel.parent != Path(".") else f"./{rel}"
