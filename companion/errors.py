"""The one exception type for bad input (exit code 2 on the command line).

Everything a person can get wrong -- a file, a JSON path, a log line, a card code -- is raised as
BadInput with *where* it is wrong, so the message can point at it: ``table.json: players[1].name: ...``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")


class BadInput(Exception):
    """Input that cannot be used. ``where`` names the file/line/path, ``message`` what is wrong."""

    def __init__(self, where: str, message: str):
        super().__init__(f"{where}: {message}" if where else message)
        self.where = where
        self.message = message

    def within(self, outer: str) -> BadInput:
        """The same error located inside ``outer`` (a file name or ``line 7``)."""
        return BadInput(f"{outer}: {self.where}" if self.where else outer, self.message)


def present(value: T | None, what: str) -> T:
    """``value``, which the program's own checks guarantee although its type allows None (a monument's
    start zone, a board file's required field). None here is a bug, and fails as one."""
    if value is None:
        raise ValueError(f"{what} is missing")
    return value


def json_path(*parts: str | int) -> str:
    """``json_path("players", 1, "showcases", "one_era", 2)`` -> ``players[1].showcases.one_era[2]``."""
    out = ""
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        else:
            out += f".{p}" if out else str(p)
    return out


def read_text(path: str | Path, what: str = "file") -> str:
    """A person's file as text; BadInput names the file and says why it cannot be read."""
    name = str(path)
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise BadInput(name, f"no such {what}") from None
    except IsADirectoryError:
        raise BadInput(name, f"is a folder, not a {what}") from None
    except PermissionError:
        raise BadInput(name, "not readable (permission denied)") from None
    except OSError as e:
        raise BadInput(name, f"cannot read: {e.strerror}") from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise BadInput(name, f"not UTF-8 text (byte {e.start})") from None


def read_json(path: str | Path, what: str = "file"):
    """A person's JSON file; a syntax error names the line and column."""
    try:
        return json.loads(read_text(path, what))
    except json.JSONDecodeError as e:
        raise BadInput(f"{path}: line {e.lineno} column {e.colno}", f"malformed JSON: {e.msg}") from None
