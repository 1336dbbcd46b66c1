"""Progress of a long command on a terminal: a tqdm bar on stderr, nothing at all when stderr is not a
terminal (a pipe, a log file, the tests), so output meant for programs stays as it was."""

from __future__ import annotations

import sys
from typing import Any


def bar(total: int | None, desc: str, unit: str = "it", **kw: Any):
    """A progress bar to ``update(n)`` and ``close()`` (or use ``with``); silent off a terminal."""
    from tqdm import tqdm
    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, leave=False, dynamic_ncols=True,
                disable=not _terminal(), **kw)


def _terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False
