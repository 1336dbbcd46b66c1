"""``companion bench fuzz --cases N``: every kind of file a person hands the program, broken on purpose.

Each input kind has a case maker ``make(rng, folder)`` that writes one fuzzed file (a bundled example
mutated as bytes, as lines or as JSON/TOML values, or a structure built from scratch) and says how it
is used; :func:`run_case` then drives the real command in this process (``companion.cli.main``) or the
real parser (settings, sticker payloads, the buttons on gpiozero's mock pins) and :func:`problems`
judges the outcome by the one rule of shared/spec/cli.md: exit 0, or exit 2 with one line on stderr
naming the file, line or field; never exit 1, never a traceback, never a hang.

The tests (tests/test_fuzz*.py) run the same makers from hypothesis's random streams, a few hundred
cases per input; this bench runs thousands from a seed and prints, per input: cases, exit codes,
tracebacks (must be 0), hangs (must be 0) and the slowest case, as a time and as a multiple of the
median case of the same run. It needs a source checkout (the examples under docs/).
"""

from __future__ import annotations

import contextlib
import csv
import functools
import io
import json
import math
import os
import random
import signal
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.paths import PROJECT_ROOT, assets_dir

HANG_SECONDS = 60.0          # a case that runs longer than this counts as a hang (and is stopped)
DOCS = PROJECT_ROOT / "docs"


@dataclass
class Case:
    input: str
    argv: list[str] | None = None     # a command line for companion.cli.main
    call: Callable[[], tuple[int, str]] | None = None   # or () -> (exit code, stderr) for non-CLI inputs
    names: tuple[str, ...] = ()       # an exit-2 message must name one of these (the file, the option)
    note: str = ""                    # what was done to the input, for a report


@dataclass
class Outcome:
    case: Case
    code: int | None                  # None: a hang
    out: str = ""
    err: str = ""
    seconds: float = 0.0
    escaped: str = ""                 # an exception that got out of main() (a traceback on a terminal)


# -- the rule --------------------------------------------------------------------------------------------

def problems(o: Outcome) -> list[str]:
    """What is wrong with an outcome by the one rule (empty: nothing)."""
    what = f"{o.case.input} ({o.case.note}): "
    if o.code is None:
        return [what + f"hang: still running after {HANG_SECONDS:.0f} s"]
    if o.escaped:
        return [what + f"an exception escaped: {o.escaped}"]
    found = []
    if "Traceback (most recent call last)" in o.err + o.out:
        found.append(what + "a traceback was printed")
    if o.code not in (0, 2):
        found.append(what + f"exit {o.code}: {o.err.strip()[:300]}")
    if o.code == 2:
        lines = o.err.strip().splitlines()
        if len(lines) != 1:
            found.append(what + f"exit 2 with {len(lines)} lines on stderr: {o.err[:300]!r}")
        elif o.case.names and not any(n in lines[0] for n in o.case.names):
            found.append(what + f"exit 2 names none of {list(o.case.names)}: {lines[0][:300]}")
    return found


class _Hang(BaseException):
    pass


def _alarm(signum, frame):
    raise _Hang()


def run_case(case: Case) -> Outcome:
    """Run one case in this process, stdout and stderr captured, stopped after HANG_SECONDS."""
    out, err = io.StringIO(), io.StringIO()
    timed = threading.current_thread() is threading.main_thread()
    if timed:
        old = signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, HANG_SECONDS)
    t0 = time.perf_counter()
    code: int | None
    escaped = ""
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            if case.argv is not None:
                from companion.cli import main
                try:
                    code = main(case.argv)
                except SystemExit as e:       # argparse: --help, or a mistyped option
                    code = e.code if isinstance(e.code, int) else 2
            elif case.call is not None:
                code, message = case.call()
                if message:
                    print(message, file=sys.stderr)
    except _Hang:
        code = None
    except Exception as e:  # the finding itself: reported, never hidden
        code, escaped = 1, f"{type(e).__name__}: {e}"[:300]
    finally:
        if timed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
    return Outcome(case, code, out.getvalue(), err.getvalue(), time.perf_counter() - t0, escaped)


# -- mutation ------------------------------------------------------------------------------------------

TOKENS = ["null", "true", "false", "0", "-0", "-1", "1e999", "-1e999", "NaN", "Infinity", "1.5", "2e-308",
          "9" * 30, "9" * 5000, '""', '"TC:EXH20:017"', '"TC:DEMO:999"', '"TC:ZZ:0001"', '"\\u0000"',
          '"\\ud800"', "[]", "{}", "[" * 100_000, "{\"a\":" * 50, ",", ":", "\"", "\\", "\n", "\r\n", "\x00",
          "\ufeff", "é", "🂡", "\u202e", " " * 1000]


def mutate_bytes(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    """One to three blind edits: a flipped byte, a cut, a doubled or dropped slice, a token put in."""
    notes = []
    for _ in range(rng.randint(1, 3)):
        op = rng.choice(("flip", "truncate", "drop", "double", "token", "token", "empty"))
        n = len(data)
        i = rng.randrange(n + 1)
        j = min(n, i + rng.choice((1, 2, 8, 64, 1000)))
        if op == "flip" and n:
            i = min(i, n - 1)
            data = data[:i] + bytes([data[i] ^ (1 << rng.randrange(8))]) + data[i + 1:]
        elif op == "truncate":
            data = data[:i]
        elif op == "drop":
            data = data[:i] + data[j:]
        elif op == "double":
            data = data[:j] + data[i:j] * rng.choice((1, 2, 50)) + data[j:]
        elif op == "token":
            data = data[:i] + rng.choice(TOKENS).encode("utf-8", "surrogatepass") + data[i:]
        elif op == "empty" and rng.random() < 0.1:
            data = b""
        notes.append(op)
    return data, "bytes:" + "+".join(notes)


def random_value(rng: random.Random, keys: list[str], depth: int = 0):
    """A JSON value from scratch: the awkward numbers and strings, and lists and objects of them."""
    kind = rng.randrange(12 if depth < 3 else 9)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice((True, False))
    if kind == 2:
        return rng.choice((0, -1, 1, 2, 3, 5, 9, 10, 1945, -753, 9999, 10000, 2 ** 31, 2 ** 63, -(2 ** 63), 10 ** 50))
    if kind == 3:
        return rng.choice((0.5, -0.0, 1e308, -1e308, float("inf"), float("nan"), 1945.0, 1e-320))
    if kind == 4:
        return rng.randint(-5000, 5000)
    if kind in (5, 6):
        return rng.choice(keys + ["", " ", "TC:EXH20:017", "TC:DEMO:001", "TC:DEMO:999", "TC:NOPE:1", "TC::",
                                  "x" * 10_000, "Ana", "é\u0301", "\u0000", "🂡", "a\nb", "-753", "1969"])
    if kind in (7, 8):
        text = "".join(chr(rng.choice((rng.randrange(32, 127), rng.randrange(0x10000))))
                       for _ in range(rng.randrange(12)))
        return text.encode("utf-8", "replace").decode("utf-8", "replace")
    if kind == 9:
        return [random_value(rng, keys, depth + 1) for _ in range(rng.choice((0, 1, 2, 5, 30)))]
    if kind == 10:
        return {rng.choice(keys + ["", "extra"]): random_value(rng, keys, depth + 1) for _ in range(rng.randrange(5))}
    return rng.choice(([[]] * 3, {"": {}}, list(range(rng.choice((100, 20_000))))))


def keys_of(value, out: set | None = None) -> list[str]:
    """Every object key and short string in a document: the dictionary mutations draw words from."""
    out = set() if out is None else out
    if isinstance(value, dict):
        for k, v in value.items():
            out.add(k)
            keys_of(v, out)
    elif isinstance(value, list):
        for v in value:
            keys_of(v, out)
    elif isinstance(value, str) and len(value) < 40:
        out.add(value)
    return sorted(out)


def mutate_json(doc, rng: random.Random, keys: list[str]):
    """A copy of ``doc`` with one to three nodes replaced, dropped, doubled or given a stray key."""
    doc = json.loads(json.dumps(doc))
    notes = []
    for _ in range(rng.randint(1, 3)):
        parent: Any = None
        key: Any = None
        path: list = []
        node = doc
        while isinstance(node, (dict, list)) and node and rng.random() < 0.8:
            parent = node
            key = rng.choice(list(node)) if isinstance(node, dict) else rng.randrange(len(node))
            node = node[key]
            path.append(key)
        op = rng.choice(("replace", "replace", "drop", "double", "extra", "number"))
        if parent is None:
            if isinstance(doc, dict):
                doc[rng.choice(keys or ["x"])] = random_value(rng, keys)
            else:
                doc = random_value(rng, keys)
        elif op == "replace":
            parent[key] = random_value(rng, keys)
        elif op == "number" and isinstance(node, (int, float)) and not isinstance(node, bool):
            parent[key] = rng.choice((node + 1, node - 1, -node, node * 1000, float(node), 0, str(node)))
        elif op == "drop":
            del parent[key]
        elif op == "double" and isinstance(parent, list):
            parent.insert(key, json.loads(json.dumps(node)))
        elif op == "extra" and isinstance(node, dict):
            node[rng.choice(keys + ["extra"])] = random_value(rng, keys)
        else:
            parent[key] = random_value(rng, keys)
        notes.append(f"{op}@{'.'.join(map(str, path))[:60]}")
    return doc, "json:" + "+".join(notes)


def _write(folder: Path, name: str, data: bytes | str) -> Path:
    path = folder / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass"))
    return path


# -- the inputs ---------------------------------------------------------------------------------------

def _log_seeds(rng: random.Random) -> list[list[str]]:
    from companion.registry import GAMES
    seeds = [p.read_text(encoding="utf-8").splitlines() for p in sorted((DOCS / "examples").glob("*.jsonl"))]
    seeds.append((DOCS / "exhibition" / "game.jsonl").read_text(encoding="utf-8").splitlines())
    for spec in GAMES.values():             # a random legal game of every registered game
        seeds.append([json.dumps(line) for line in spec.load_random_game()(rng, 30)])
    return seeds


def mutated_log(lines: list[str], seeds: list[list[str]], rng: random.Random) -> tuple[bytes, str]:
    """A log's lines broken: as bytes, or a few lines changed (their JSON values, an undo slipped in, a
    line doubled, dropped, swapped, or one of another log)."""
    lines = list(lines)
    if rng.randrange(4) == 0:
        return mutate_bytes("\n".join(lines).encode(), rng)
    notes = []
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(lines))
        op = rng.choice(("json", "json", "json", "undo", "dup", "drop", "swap", "foreign"))
        if op == "json":
            doc = json.loads(lines[i])
            lines[i] = json.dumps(mutate_json(doc, rng, keys_of(doc) + ["type", "undo", "place", "gap"])[0])
        elif op == "undo":
            lines.insert(i + 1, '{"type": "undo"}')
        elif op == "dup":
            lines.insert(i, lines[i])
        elif op == "drop" and len(lines) > 1:
            del lines[i]
        elif op == "swap":
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        else:
            lines.insert(i, rng.choice(rng.choice(seeds)))
        notes.append(op)
    return "\n".join(lines).encode("utf-8", "surrogatepass"), "lines:" + "+".join(notes)


def make_replay(rng: random.Random, folder: Path) -> Case:
    seeds = _log_seeds(rng)
    data, note = mutated_log(rng.choice(seeds), seeds, rng)
    path = _write(folder, "game.jsonl", data)
    return Case("replay", ["replay", str(path), *rng.choice(([], ["--json"], ["--lang", "es"]))], names=(str(path),),
                note=note)


SEED_GAMES = 4      # whole random games per registered game, the material of its `score` cases


@functools.cache
def whole_games(game: str) -> list[list[dict]]:
    """A few random whole games of ``game`` (its spec's RandomGame, seeded), played to their end."""
    from companion.registry import spec_for
    random_game = spec_for(game).load_random_game()
    return [random_game(random.Random(f"{game}:{n}"), 3000) for n in range(SEED_GAMES)]


@functools.cache
def end_tables(game: str) -> list[dict]:
    """The tables those games leave, as the game's scorer reads them (its ``table_of`` of each final summary)."""
    from companion.games.base import fold
    from companion.registry import spec_for
    spec = spec_for(game)
    engine, scorer = spec.load_engine(), spec.load_scorer()
    return [scorer.table_of(engine.summary(fold(engine, lines[0], lines[1:]))) for lines in whole_games(game)]


def make_score(game: str):
    """``companion score GAME FILE`` broken, from the registry's contract alone: the end tables of random
    whole games (a game with a scorer), or their logs (a game without points, ranked from its log)."""
    def make(rng: random.Random, folder: Path) -> Case:
        from companion.registry import spec_for
        if spec_for(game).scorer is None:
            seeds = [[json.dumps(line) for line in lines] for lines in whole_games(game)]
            data, note = mutated_log(rng.choice(seeds), seeds, rng)
            path = _write(folder, "game.jsonl", data)
        else:
            seed = rng.choice(end_tables(game))
            if rng.random() < 0.25:
                data, note = mutate_bytes(json.dumps(seed, indent=1).encode(), rng)
            else:
                doc, note = mutate_json(seed, rng, keys_of(seed))
                data = json.dumps(doc, ensure_ascii=False, indent=rng.choice((None, 1))).encode("utf-8",
                                                                                               "surrogatepass")
            path = _write(folder, "table.json", data)
        return Case(f"score-{game}", ["score", game, str(path), *rng.choice(([], ["--json"], ["--lang", "es"]))],
                    names=(str(path),), note=note)
    return make


CELLS = ["", " ", "753 BC", "c. 3000 a. C.", "-753", "0", "-0", "1e5", "1,969", "1.969.000", "١٩٦٩", "²",
         "99999", "swap", "swap, swap", "replace_opp replace_own", "media", "Contemporánea", "EU", "eu", "xx",
         "einstein", "1945", "yes", "sí", "maybe", "babylon", "\"", "a\"b", "x" * 200_000, "\x00", "=1+1", "9" * 5000]


def make_deck_csv(rng: random.Random, folder: Path) -> Case:
    from companion.cards.deck_csv import write_cards
    from companion.cards.decks import load_deck
    deck = load_deck(rng.choice(sorted((assets_dir() / "decks").glob("*.json"))))
    text = write_cards(deck.entries(), deck.game)
    if rng.random() < 0.3:
        data, note = mutate_bytes(text.encode(), rng)
    else:
        rows = list(csv.reader(io.StringIO(text)))
        notes = []
        for _ in range(rng.randint(1, 4)):
            r = rng.randrange(len(rows))
            op = rng.choice(("cell", "cell", "cell", "dup", "drop", "header", "long"))
            if op == "cell" and rows[r]:
                rows[r][rng.randrange(len(rows[r]))] = rng.choice(CELLS)
            elif op == "dup":
                rows.insert(r, list(rows[r]))
            elif op == "drop" and len(rows) > 1:
                del rows[r]
            elif op == "header":
                names = ("n", "year", "año", "icons", "title", "nope", "", "N", "continent")
                rows[0] = [rng.choice(names) for _ in rows[0]]
            else:
                rows[r] = rows[r] + [rng.choice(CELLS)] * rng.randint(1, 3)
            notes.append(op)
        out = io.StringIO()
        csv.writer(out, delimiter=rng.choice((",", ",", ";"))).writerows(rows)
        data, note = out.getvalue().encode("utf-8", "surrogatepass"), "csv:" + "+".join(notes)
    path = _write(folder, "cards.csv", data)
    from companion.registry import GAMES
    deck_id = "FZIMP" + str(list(GAMES).index(deck.game))
    return Case("deck-import", ["deck", "import", deck_id, str(path), "--game", deck.game], names=(str(path),),
                note=note)


_ADD_VALUES = {
    "--number": ["1", "7", "9999", "10000", "0", "-1", "abc", "1e3", "", "99999999999999999999"],
    "--year": CELLS[:13] + ["1969", "c. 1492", "2 a. de C.", "+5", "1 000", "bc"],
    "--title": ["Moon landing", "", " ", "x" * 100_000, "\x00", "é", "a\nb"],
    "--title-es": ["Llegada a la Luna", ""],
    "--period": ["media", "antigua", "Contemporánea", "future", "", "prehistoria"],
    "--icons": ["swap", "swap,swap", "replace_opp, replace_own", "nope", "", ",", "SWAP"],
    "--continent": ["EU", "eu", "XX", "", "OC"],
    "--white": ["1945", "einstein", "EINSTEIN", "1946", ""],
    "--ak-id": ["babylon", "", "nope"],
}


def make_deck_add(rng: random.Random, folder: Path) -> Case:
    from companion.cards.decks import DeckFile, reload_decks, save_user_deck, user_deck_path
    from companion.registry import GAMES
    game = rng.choice(list(GAMES))
    deck_id = "FZADD" + str(list(GAMES).index(game))
    path = user_deck_path(deck_id)
    fresh = rng.random() < 0.02                     # now and then start again from an empty deck
    if fresh or not path.exists():
        save_user_deck(DeckFile(id=deck_id, name=deck_id, game=game, cards=[]))
        reload_decks()
    argv = ["deck", "add", deck_id]
    options = rng.sample(sorted(_ADD_VALUES), rng.randint(0, 5))
    for opt in options:
        value = rng.choice(_ADD_VALUES[opt]) if rng.random() < 0.8 else mutate_bytes(
            rng.choice(_ADD_VALUES[opt]).encode(), rng)[0].decode("utf-8", "replace")
        argv += [opt, value] if not value.startswith("-") or opt in ("--number", "--year") else [f"{opt}={value}"]
    return Case("deck-add", argv, names=(*_ADD_VALUES, "deck add", deck_id), note=" ".join(argv[3:])[:80])


def make_deck_json(rng: random.Random, folder: Path) -> Case:
    seed = json.loads(rng.choice(sorted((assets_dir() / "decks").glob("*.json"))).read_text(encoding="utf-8"))
    if rng.random() < 0.25:
        data, note = mutate_bytes(json.dumps(seed, indent=1).encode(), rng)
    else:
        doc, note = mutate_json(seed, rng, keys_of(seed) + ["n", "cards", "year", "icons"])
        data = json.dumps(doc, ensure_ascii=False).encode("utf-8", "surrogatepass")
    path = _write(folder, "mydeck.json", data)
    return Case("deck-json", ["deck", "show", str(path), *rng.choice(([], ["--json"]))], names=(str(path),), note=note)


def _toml_value(rng: random.Random) -> str:
    return rng.choice(('""', '"es"', '"xx"', '"usb:0"', '"files:/nope"', "true", "0", "-1", "17", "27", "28", "1e308",
                       "inf", "-inf", "nan", "0.0001", "1979-05-27T07:32:00Z", "[1, 2]", "{a = 1}",
                       "99999999999999999999",
                       '"' + "9" * 50 + '"', "'''\n'''", "[[[[1]]]]", "0x1F", "1_000"))


def make_config(rng: random.Random, folder: Path) -> Case:
    from companion.config import Config, save_config
    seed = PROJECT_ROOT / "pi" / "config.toml"
    if rng.random() < 0.5 and seed.exists():
        text = seed.read_text(encoding="utf-8")
    else:
        save_config(Config(), folder / "default.toml")
        text = (folder / "default.toml").read_text(encoding="utf-8")
    if rng.random() < 0.35:
        data, note = mutate_bytes(text.encode(), rng)
    else:
        lines = text.splitlines()
        notes = []
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(lines))
            if "=" in lines[i] and rng.random() < 0.8:
                key = lines[i].split("=", 1)[0]
                lines[i] = f"{key}= {_toml_value(rng)}"
                notes.append(f"value@{key.strip()}")
            else:
                lines.insert(i, rng.choice(("[nope]", "extra = 1", "[kiosk]", "next = 22", "x = " + "[" * 5000)))
                notes.append("line")
        data, note = "\n".join(lines).encode(), "toml:" + "+".join(notes)
    return settings_case(_write(folder, "config.toml", data), note)


def settings_case(path: Path, note: str = "") -> Case:
    """Reading a settings file as the kiosk and ``companion doctor`` do (no command reads one alone)."""
    def call():
        from companion.config import load_config
        from companion.errors import BadInput
        try:
            load_config(path)
        except BadInput as e:
            return 2, str(e)
        return 0, ""
    return Case("config", call=call, names=(str(path),), note=note)


def make_payload(rng: random.Random, folder: Path) -> Case:
    from companion.cards.decks import all_decks
    decks = [d.id for d in all_decks()] + ["ZZ", "A", "TOOLONGID9", "demo", ""]
    text = f"TC:{rng.choice(decks)}:{rng.choice(('001', '1', '0', '9999', '10000', '017', '999', '', '-1', '1 '))}"
    if rng.random() < 0.5:
        text = mutate_bytes(text.encode(), rng)[0].decode("utf-8", "replace")

    def call():
        from companion.cards.decks import resolve
        from companion.cards.json_cards import parse_card
        from companion.errors import BadInput
        try:
            resolve(text, "sticker")
            parse_card(text, "table.json: players[0].depot[0]")
        except BadInput as e:
            return 2, str(e)
        return 0, ""
    return Case("payload", call=call, names=("sticker", "table.json"), note=repr(text)[:60])


# -- images ------------------------------------------------------------------------------------------

MAX_SIDE = 12_000
# libwebp takes about half a second per megapixel of noise to write (a 6000 x 6000 one took 55 s, most of a
# test's time): WebP pictures stay under a megapixel, bigger ones are written as PNG
WEBP_MAX_PIXELS = 1_000_000


def image_size(rng: random.Random) -> tuple[int, int]:
    """Mostly what cameras and phones give, sometimes tiny, sometimes up to 12,000 x 12,000."""
    r = rng.random()
    if r < 0.15:
        return rng.randint(1, 4), rng.randint(1, 4)
    if r < 0.93:
        return (int(math.exp(rng.uniform(0, math.log(2000)))), int(math.exp(rng.uniform(0, math.log(2000)))))
    if r < 0.97:
        return rng.randint(2000, 6000), rng.randint(2000, 6000)
    return rng.randint(6000, MAX_SIDE), rng.randint(6000, MAX_SIDE)


def make_image_bytes(rng: random.Random, w: int, h: int) -> tuple[bytes, str]:
    import numpy as np
    from PIL import Image
    if w * h > 36_000_000:      # big ones are plain one-bit pictures: cheap to write, a full decode to read
        buf = io.BytesIO()
        Image.new("1", (w, h), 1).save(buf, format=rng.choice(("PNG", "TIFF", "BMP")))
        return buf.getvalue(), f"{w}x{h} 1-bit"
    kind = rng.choice(("grey", "bgr", "bgra", "grey16", "bgr16", "bool", "sticker"))
    gen = np.random.default_rng(rng.randrange(2 ** 32))
    if kind == "sticker":
        import cv2

        from companion.vision.stickers import make_sticker_matrix
        m = np.pad(make_sticker_matrix(f"TC:DEMO:{rng.randint(1, 999):03d}"), 4)      # with its quiet zone
        img = cv2.resize(np.where(m, 0, 255).astype(np.uint8), (w, h), interpolation=cv2.INTER_NEAREST)
    elif kind.endswith("16"):
        shape: tuple[int, ...] = (h, w) if kind == "grey16" else (h, w, 3)
        img = gen.integers(0, 65536, shape, dtype=np.uint16)
    else:
        shape = {"grey": (h, w), "bgr": (h, w, 3), "bgra": (h, w, 4), "bool": (h, w)}[kind]
        img = gen.integers(0, 256, shape, dtype=np.uint8)
        if kind == "bool" or rng.random() < 0.3:
            img = (img > 127).astype(np.uint8) * 255
    fmt = rng.choice((".png", ".png", ".jpg", ".bmp", ".tiff", ".webp")) if img.dtype == np.uint8 else \
        rng.choice((".png", ".tiff"))
    if fmt in (".jpg", ".bmp") and img.ndim == 3 and img.shape[2] == 4:
        fmt = ".png"
    if fmt == ".webp" and w * h > WEBP_MAX_PIXELS:
        fmt = ".png"
    import cv2
    ok, enc = cv2.imencode(fmt, img)
    if not ok:
        raise RuntimeError(f"cv2 could not write a {kind} {fmt}")
    return enc.tobytes(), f"{w}x{h} {kind} {fmt}"


def make_scan(rng: random.Random, folder: Path) -> Case:
    w, h = image_size(rng)
    data, note = make_image_bytes(rng, w, h)
    r = rng.random()
    if r < 0.15:
        data, more = mutate_bytes(data, rng)
        note += " " + more
    elif r < 0.25:
        data = data[:rng.randrange(len(data) + 1)]
        note += " truncated"
    elif r < 0.28:
        data = rng.choice((b"", b"not an image\n", os.urandom(100)))
        note = "not an image"
    path = _write(folder, "table" + rng.choice((".png", ".jpg", ".img")), data)
    argv = ["scan", str(path), *rng.choice(([], ["--json"], ["--layout", "row"], ["--layout", "free", "--json"]))]
    return Case("scan", argv, names=(str(path),), note=note)


# -- the buttons ------------------------------------------------------------------------------------

def make_buttons(rng: random.Random, folder: Path) -> Case:
    """Random press/release sequences on gpiozero's mock pins, with chatter (edges closer than the
    debounce time) and holds of MENU; then a quiet moment and one clean press of every button, which
    must each give their command (chatter never leaves a button stuck)."""
    steps = []
    for _ in range(rng.randint(1, 40)):
        steps.append((rng.choice(("next", "undo", "ok", "menu")), rng.choice(("press", "release")),
                      rng.choice((0.0, 0.0005, 0.002, 0.01, 0.05, 0.2))))
    hold = rng.random() < 0.1
    note = f"{len(steps)} edges" + (", a hold" if hold else "")
    return Case("buttons", call=lambda: run_buttons(steps, hold), names=(), note=note)


class _Rig:
    """The four buttons on gpiozero's mock pins, made once (closing gpiozero's hold threads takes a
    while), with a clock of our own for the debouncer: chatter is timed exactly, not slept."""

    def __init__(self):
        from gpiozero import Device
        from gpiozero.pins.mock import MockFactory

        from companion.config import ButtonPins
        from companion.inputs import gpio
        from companion.inputs.commands import CommandStream

        self.clock = gpio.ManualClock()
        self.pins = ButtonPins(bounce_ms=40, hold_menu_seconds=0.03)
        self.factory = MockFactory()
        self.stream = CommandStream()
        old = Device.pin_factory
        Device.pin_factory = self.factory
        try:
            self.buttons = gpio.GpioButtons(self.pins, self.stream, self.clock)
        finally:
            Device.pin_factory = old
        self.pin = {name: self.factory.pin(getattr(self.pins, name)) for name in ("next", "undo", "ok", "menu")}

    def release_all(self) -> None:
        for p in self.pin.values():
            p.drive_high()
        self.clock.advance(1)        # the re-reads the chatter left pending fall due on the rig's clock
        self.stream.drain()


_rig: _Rig | None = None


def run_buttons(steps, hold: bool) -> tuple[int, str]:
    """Drive the sequence; (0, "") when every property holds, else (1, what went wrong)."""
    from companion.inputs.commands import BACK, MENU, NEXT, OK, UNDO

    global _rig
    if _rig is None:
        _rig = _Rig()
    rig = _rig
    errors: list[str] = []
    old_hook = threading.excepthook
    threading.excepthook = lambda args: errors.append(f"{args.exc_type.__name__}: {args.exc_value}")
    try:
        rig.release_all()
        presses: Counter[str] = Counter()
        for name, edge, wait in steps:
            rig.clock.advance(wait)
            if edge == "press":
                presses[name] += bool(rig.pin[name].state)
                rig.pin[name].drive_low()
            else:
                rig.pin[name].drive_high()
        kinds = Counter(c.kind for c in rig.stream.drain())
        for name, kind in (("next", NEXT), ("undo", UNDO), ("ok", OK)):
            if kinds[kind] > presses[name]:
                errors.append(f"{kinds[kind]} {kind} from {presses[name]} presses")
        if kinds[BACK] + kinds[MENU] > presses["menu"]:
            errors.append(f"{kinds[BACK]} BACK + {kinds[MENU]} MENU from {presses['menu']} presses of MENU")
        if hold:        # hold MENU for real (gpiozero's hold timer runs on real time)
            rig.release_all()
            rig.pin["menu"].drive_low()
            deadline = time.monotonic() + 2
            while MENU not in [c.kind for c in rig.stream.drain()]:
                if time.monotonic() > deadline:
                    errors.append("MENU held for 2 s gave no MENU")
                    break
                time.sleep(0.005)
            rig.clock.advance(1)
            rig.pin["menu"].drive_high()
            if rig.stream.drain():
                errors.append("releasing a held MENU gave a command too")
        # the quiet moment, then one clean press and release of each button
        rig.release_all()
        for name, want in (("next", NEXT), ("undo", UNDO), ("ok", OK), ("menu", BACK)):
            rig.clock.advance(1)
            rig.pin[name].drive_low()
            rig.clock.advance(0.1)
            rig.pin[name].drive_high()
            got = [c.kind for c in rig.stream.drain()]
            if got != [want]:
                errors.append(f"after the chatter, a clean press of {name.upper()} gave {got}, not [{want}]")
    finally:
        threading.excepthook = old_hook
    return (1, "; ".join(errors)) if errors else (0, "")


def _registered() -> list[str]:
    from companion.registry import GAMES
    return list(GAMES)


INPUTS = {
    "replay": make_replay,
    # `companion score` of every registered game (its random whole games: no example written by hand)
    **{f"score-{game}": make_score(game) for game in _registered()},
    "deck-import": make_deck_csv,
    "deck-add": make_deck_add,
    "deck-json": make_deck_json,
    "config": make_config,
    "scan": make_scan,
    "payload": make_payload,
    "buttons": make_buttons,
}


# -- the bench ---------------------------------------------------------------------------------------

def add_arguments(parser) -> None:
    parser.add_argument("--cases", type=int, default=10_000, help="cases per input (10,000)")
    parser.add_argument("--seed", type=int, default=1, help="the seed of the cases (1)")
    parser.add_argument("--only", choices=sorted(INPUTS), action="append",
                        help="fuzz only this input (repeatable; default: all)")
    parser.add_argument("--json", action="store_true", help="one JSON document on stdout")


def fuzz(name: str, cases: int, seed: int, folder: Path) -> dict:
    rng = random.Random(f"{name}:{seed}")
    codes: Counter = Counter()
    found: list[str] = []
    tracebacks = hangs = 0
    slowest = (0.0, "")
    times = []
    for _ in range(cases):
        case = INPUTS[name](rng, folder)
        o = run_case(case)
        codes[str(o.code) if o.code is not None else "hang"] += 1
        hangs += o.code is None
        tracebacks += bool(o.escaped) or "Traceback (most recent call last)" in o.err + o.out
        bad = problems(o)
        if bad and len(found) < 10:
            found.extend(bad)
        times.append(o.seconds)
        if o.seconds > slowest[0]:
            slowest = (o.seconds, case.note)
    return {"input": name, "cases": cases, "exit_codes": dict(sorted(codes.items())), "tracebacks": tracebacks,
            "hangs": hangs, "median_ms": round(statistics.median(times) * 1000, 2), "slowest_s": round(slowest[0], 3),
            "slowest_x_median": round(slowest[0] / max(statistics.median(times), 1e-9)), "slowest_case": slowest[1],
            "problems": found}


def run(args) -> int:
    from companion.errors import BadInput
    if args.cases < 1:
        raise BadInput("--cases", f"{args.cases} is not a number of cases (1 or more)")
    if not (DOCS / "examples").is_dir():
        raise BadInput(str(DOCS / "examples"),
                       "the bundled examples are not here; run the bench from a source checkout")
    results = []
    with tempfile.TemporaryDirectory(prefix="companion-fuzz-") as tmp:
        os.environ["COMPANION_DATA"] = str(Path(tmp) / "data")   # decks the fuzz adds stay out of the user's
        from companion.cards.decks import reload_decks
        reload_decks()
        for name in args.only or INPUTS:
            results.append(fuzz(name, args.cases, args.seed, Path(tmp)))
            if not args.json:
                r = results[-1]
                codes = " ".join(f"{k}:{v}" for k, v in r["exit_codes"].items())
                print(f"{name:<24} cases {r['cases']:>6}  exit {codes:<24} tracebacks {r['tracebacks']}  "
                      f"hangs {r['hangs']}  median {r['median_ms']} ms  slowest {r['slowest_s']:.3f} s = "
                      f"{r['slowest_x_median']}x the median ({r['slowest_case']})", flush=True)
                for p in r["problems"]:
                    print(f"    {p}")
    if args.json:
        print(json.dumps({"seed": args.seed, "inputs": results}, ensure_ascii=False))
    return 0
