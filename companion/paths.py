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
