"""The README's command lines run as written, pasted into a fresh shell after its two commands
(``./dev.sh demo``, ``./dev.sh test``): on a laptop the program is ``.venv/bin/companion`` (what
dev.sh installs), on a Pi plain ``companion`` (what pi/install.sh puts on the PATH); every
subcommand shown exists, every concrete line parses, and every file of the repository it names is
there. Also: the no-screen message suggests the command as it was typed."""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import sys
from pathlib import Path

import pytest

from companion import cli, paths

ROOT = Path(__file__).resolve().parents[1]
LAPTOP = ".venv/bin/companion"
PI_SECTION = "On a Raspberry Pi"


def _sections() -> list[tuple[str, str]]:
    """(heading, text) of each ``## `` section of the README."""
    out: list[tuple[str, str]] = []
    heading, lines = "", []
    for line in (ROOT / "README.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            out.append((heading, "\n".join(lines)))
            heading, lines = line[3:].strip(), []
        else:
            lines.append(line)
    out.append((heading, "\n".join(lines)))
    return out


def _commands() -> list[tuple[str, str, str]]:
    """(section, kind, line): every line of a ```bash block, every ``$ `` line of another block
    (kind "block"), and every inline code span naming a command (kind "span")."""
    found = []
    for heading, text in _sections():
        prose = []
        for k, part in enumerate(re.split(r"^```", text, flags=re.M)):
            if k % 2 == 0:
                prose.append(part)
                continue
            lang, _, body = part.partition("\n")
            for line in body.splitlines():
                if lang.strip() == "bash" and line.strip():
                    found.append((heading, "block", line.strip()))
                elif line.startswith("$ "):
                    found.append((heading, "block", line[2:].strip()))
        for span in re.findall(r"`([^`]+)`", " ".join(prose).replace("\n", " ")):
            if re.search(r"(^|[\s/])companion\s", span):
                found.append((heading, "span", span))
    return found


def _calls(line: str) -> list[tuple[str, list[str]]]:
    """(the program as typed, its arguments up to a comment, a pipe or a redirection) of each
    ``companion`` in a command line, the comment included (``# or: companion deck import ...``)."""
    code, _, comment = line.partition("  #")
    out = []
    for part in (code, comment.removeprefix(" or: ")):
        words = part.split()
        for i, w in enumerate(words):
            starts = i == 0 or words[i - 1] in ("&&", ";", "|") or (i >= 2 and words[i - 2] == "-u")
            if (w == "companion" or w.endswith("/companion")) and starts:
                args = []
                for a in words[i + 1:]:
                    if a in (">", ">>", "&&", ";", "#"):
                        break
                    args.append(a)
                out.append((w, args))
                break
    return out


def _named(kind: str, args: list[str]) -> bool:
    """A command named in a sentence ("`companion plan-camera` and hardware/camera.md"), not typed."""
    return kind == "span" and all(re.fullmatch(r"[a-z-]+", a) for a in args)


def _concrete(args: list[str]) -> bool:
    """A line to run as it stands, not a synopsis with [options] or a | b alternatives."""
    return not any(a.startswith("[") or a == "|" for a in args)


CALLS = [(section, kind, line, prog, args) for section, kind, line in _commands() for prog, args in _calls(line)
         if args[:1] != ["…"]]          # "`companion …`": the program, no command


def test_the_readme_shows_commands():
    assert len(CALLS) > 20
    assert {args[0] for *_, args in CALLS if args} >= {"kiosk", "replay", "score", "scan", "deck", "stickers",
                                                        "cards", "plan-camera", "bench", "doctor", "cafe"}


@pytest.mark.parametrize("section,kind,line,prog,args", CALLS, ids=[c[2][:60] for c in CALLS])
def test_each_command_is_typed_as_it_runs(section, kind, line, prog, args):
    assert args and args[0] in cli.COMMANDS, f"README: {line!r}: no such command"
    if section == PI_SECTION:
        assert prog == "companion", f"README, {section}: {line!r}: pi/install.sh puts 'companion' on the PATH"
        return
    if _named(kind, args):
        return
    assert prog == LAPTOP, (f"README, {section}: {line!r}: after ./dev.sh the program is {LAPTOP} "
                            f"('companion' alone is not on the PATH)")


@pytest.mark.parametrize("section,kind,line,prog,args", CALLS, ids=[c[2][:60] for c in CALLS])
def test_each_command_line_parses(section, kind, line, prog, args):
    words = shlex.split(" ".join(args))
    if _named(kind, args):
        return
    if not _concrete(args):
        # a synopsis: each of the alternatives "deck list | show | new" is a subcommand
        if "|" in args and words[0] in ("deck", "bench"):
            for alt in [a for a in args[1:] if a != "|" and not a.startswith(("[", "#"))]:
                with contextlib.redirect_stdout(io.StringIO()), pytest.raises(SystemExit) as e:
                    cli.build_parser([words[0], alt, "--help"]).parse_args([words[0], alt, "--help"])
                assert e.value.code == 0, f"README: {line!r}: '{words[0]} {alt}' does not exist"
        return
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            cli.build_parser(words).parse_args(words)
    except SystemExit:
        pytest.fail(f"README: {line!r} does not parse: {err.getvalue().strip()}")
    for w in words:
        if w.startswith(("docs/", "assets/", "hardware/")):
            assert (ROOT / w).exists(), f"README: {line!r}: {w} is not in the repository"


def test_the_two_ways_the_program_is_installed():
    assert "exec .venv/bin/companion " in (ROOT / "dev.sh").read_text(encoding="utf-8")
    assert 'companion = "companion.cli:main"' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert "WRAPPER=/usr/local/bin/companion" in (ROOT / "pi" / "install.sh").read_text(encoding="utf-8")


def test_a_suggested_command_is_the_one_that_runs(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    program = tmp_path / ".venv" / "bin" / "companion"
    program.parent.mkdir(parents=True)
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    monkeypatch.setattr(sys, "argv", [str(program), "kiosk"])
    monkeypatch.setenv("PATH", "/nonexistent")
    assert paths.command() == ".venv/bin/companion"            # as ./dev.sh starts it, from the project's folder
    monkeypatch.setenv("PATH", str(program.parent))
    assert paths.command() == "companion"                      # on the PATH (an activated venv, a Pi)
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    monkeypatch.setenv("PATH", "/nonexistent")
    assert paths.command() == str(program)                     # elsewhere: the whole path
    monkeypatch.setattr(sys, "argv", [str(ROOT / "companion" / "__main__.py"), "kiosk"])
    assert paths.command().endswith(" -m companion")
