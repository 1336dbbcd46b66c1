"""The one exception type for bad input (exit code 2 on the command line).

Everything a person can get wrong -- a file, a JSON path, a log line, a card code -- is raised as
BadInput with *where* it is wrong, so the message can point at it: ``table.json: players[1].name: ...``.
"""

from __future__ import annotations


class BadInput(Exception):
    """Input that cannot be used. ``where`` names the file/line/path, ``message`` what is wrong."""

    def __init__(self, where: str, message: str):
        super().__init__(f"{where}: {message}" if where else message)
        self.where = where
        self.message = message

    def within(self, outer: str) -> "BadInput":
        """The same error located inside ``outer`` (a file name or ``line 7``)."""
        return BadInput(f"{outer}: {self.where}" if self.where else outer, self.message)


def json_path(*parts: str | int) -> str:
    """``json_path("players", 1, "showcases", "one_era", 2)`` -> ``players[1].showcases.one_era[2]``."""
    out = ""
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        else:
            out += f".{p}" if out else str(p)
    return out
