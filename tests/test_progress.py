"""Long commands show their progress on a terminal (a tqdm bar on stderr) and nothing anywhere else."""

from __future__ import annotations

import io

from companion import progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_bar_on_a_terminal(monkeypatch):
    err = _Terminal()
    monkeypatch.setattr("sys.stderr", err)
    with progress.bar(4, "autoplay", unit="turn") as shown:
        shown.update(3)
        shown.refresh()
    assert "autoplay" in err.getvalue() and "3/4" in err.getvalue()


def test_nothing_off_a_terminal(monkeypatch):
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    with progress.bar(4, "autoplay", unit="turn") as shown:
        shown.update(4)
    assert err.getvalue() == ""
