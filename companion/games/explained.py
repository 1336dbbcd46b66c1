"""An explained score: one row per figure, with its points and why. Each game builds its rows once
(from the score document); the kiosk's score sheet draws them and ``companion score`` prints them, so
the two always say the same."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

from companion.i18n import Msg, render


@dataclass
class ScoreRow:
    label: Msg                    # the figure, or the player
    value: str                    # its points ("–": scores nothing, e.g. a tie-breaker)
    explain: Msg | None = None    # why
    highlight: bool = False


def sheet_lines(rows: list[ScoreRow], lang: str, width: int = 66, indent: int = 2) -> list[str]:
    """The rows as text lines, "Label: why" wrapped to ``width`` with the points right-aligned on the
    last line of each."""
    out = []
    for row in rows:
        text = render(row.label, lang) + (f": {render(row.explain, lang)}" if row.explain else "")
        wrapped = textwrap.wrap(text, width - indent - 1, initial_indent=" " * indent,
                                subsequent_indent=" " * (indent + 4)) or [" " * indent]
        out.extend(wrapped[:-1] + [f"{wrapped[-1]:<{width}}{row.value:>6}"])
    return out
