"""The one exception type for bad input (exit code 2 on the command line).

Everything a person can get wrong -- a file, a JSON path, a log line, a card code -- is raised as
BadInput with *where* it is wrong, so the message can point at it: ``table.json: players[1].name: ...``.
"""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

# A person's file is read whole, so its size is bounded before it is read: 4 MiB is many times the
# longest game log, table, deck (9,999 cards) or settings file, and keeps a command's memory near
# 100 MB whatever the file holds (docs/limits.md). A FIFO or /dev/zero stops there too.
MAX_FILE_BYTES = 4 * 1024 * 1024
# Our JSON is at most six levels deep (a table's players[i].showcases.x[j].icons[k]); deeper input is
# refused before anything recurses over it (json itself, repr in a message, pydantic).
MAX_JSON_DEPTH = 32


class BadInput(Exception):
    """Input that cannot be used. ``where`` names the file/line/path, ``message`` what is wrong."""

    def __init__(self, where: str, message: str):
        super().__init__(one_line(f"{where}: {message}" if where else message))
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


def one_line(text: str) -> str:
    """``text`` with its line breaks and other control characters written as escapes (``\\n``), so a
    message that quotes what a person typed stays the one line the command line promises."""
    if text.isprintable():
        return text
    return "".join(ch.encode("unicode_escape").decode("ascii") if unicodedata.category(ch) in ("Cc", "Zl", "Zp")
                   else ch for ch in text)


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
        with open(path, "rb") as fh:
            raw = fh.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise BadInput(name, f"no such {what}") from None
    except IsADirectoryError:
        raise BadInput(name, f"is a folder, not a {what}") from None
    except PermissionError:
        raise BadInput(name, "not readable (permission denied)") from None
    except OSError as e:
        raise BadInput(name, f"cannot read: {e.strerror or e}") from None
    if len(raw) > MAX_FILE_BYTES:
        raise BadInput(name, f"larger than {MAX_FILE_BYTES // 2**20} MiB, far more than any {what} the companion "
                             f"reads (the limit keeps its memory bounded; docs/limits.md)")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise BadInput(name, f"not UTF-8 text (byte {e.start})") from None


def read_json(path: str | Path, what: str = "file"):
    """A person's JSON file; a syntax error names the line and column."""
    try:
        return parse_json(read_text(path, what), str(path))
    except json.JSONDecodeError as e:
        raise BadInput(f"{path}: line {e.lineno} column {e.colno}", f"malformed JSON: {e.msg}") from None


def parse_json(text: str, where: str):
    """``json.loads`` of a person's text (JSONDecodeError is left to the caller, who knows the line);
    nesting deeper than MAX_JSON_DEPTH and numbers Python refuses are BadInput naming ``where``."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        raise
    except RecursionError:
        raise BadInput(where, f"JSON nested deeper than {MAX_JSON_DEPTH} levels") from None
    except ValueError as e:      # an integer of more than 4300 digits (sys.int_info.default_max_str_digits)
        raise BadInput(where, f"unusable JSON: {e}") from None
    if _too_deep(value):
        raise BadInput(where, f"JSON nested deeper than {MAX_JSON_DEPTH} levels")
    return value


def _too_deep(value) -> bool:
    level = [value]
    for _ in range(MAX_JSON_DEPTH):
        level = [v for item in level if isinstance(item, (list, dict))
                 for v in (item.values() if isinstance(item, dict) else item)]
        if not level:
            return False
    return any(isinstance(v, (list, dict)) for v in level)


def output_file(path: str | Path) -> Path:
    """Where a command writes a file (``--out``, ``deck export``): its folder must exist. One rule for
    every command: a missing folder is bad input, never made on the way (a mistyped path would leave
    a tree of folders behind)."""
    out = Path(path)
    folder = out.parent
    if not folder.is_dir():
        raise BadInput(str(path), f"the folder {folder} does not exist: create it first, or write the file "
                                  f"into a folder that exists")
    return out


def output_folder(path: str | Path) -> Path:
    """A folder a command writes files into (``--screenshots``, ``--keep``): made if missing, in a
    folder that exists (the rule of :func:`output_file`)."""
    folder = Path(path)
    if folder.is_dir():
        return folder
    if not folder.parent.is_dir():
        raise BadInput(str(path), f"the folder {folder.parent} does not exist: create it first, or name a folder "
                                  f"inside one that exists")
    try:
        folder.mkdir()
    except OSError as e:
        raise BadInput(str(path), f"cannot create the folder: {e.strerror}") from None
    return folder
class StoreError(Exception):
    """The game log could not be read or written; the message says which file and why. Raised by the
    store (companion/store/log.py); defined here so the turn controller and the screens tell a store
    fault from a bug without importing the store."""


def is_store_error(e: Exception) -> bool:
    """Whether ``e`` means the log could not be written (the disk is full, gone, read-only)."""
    return isinstance(e, (StoreError, OSError))
