"""``companion bench chaos --steps N``: the demo kiosk under random buttons and failing parts.

The demo kiosk (virtual table, simulated players who lay and take back cards and press OK) is driven
frame by frame while random presses of NEXT, UNDO, OK, a short MENU (BACK) and a held MENU land on
whatever screen is up, and the parts fail as they do in a café: the camera drops out and comes back,
the disk fills (every write of the store fails, with SQLite's own message) and frees, and the clocks
jump (the wall clock by hours when NTP sets it after boot, the kiosk's clock too).

After every frame: no fault screen but the intended ones (camera, store, a stray or unknown code),
nothing logged at ERROR (a kiosk fault writes its trace there), and the stored game replays, through
the same code as ``companion replay``, to the game the screen shows. Prints steps, screens visited,
faults injected and the unexpected errors (must be 0). tests/test_chaos.py runs a short one.
"""

from __future__ import annotations

import json
import logging
import os
import random
import time
from collections import Counter
from dataclasses import dataclass, field

BUTTONS = ("NEXT", "UNDO", "OK", "BACK", "MENU")     # BACK is a short press of MENU, MENU a held one
INTENDED_FAULTS = {"fault:camera", "fault:store", "fault:foreign-code", "fault:unknown-card"}


@dataclass
class Report:
    steps: int = 0
    presses: int = 0
    screens: Counter = field(default_factory=Counter)
    faults: Counter = field(default_factory=Counter)       # injected: camera, disk, clock
    actions_stored: int = 0
    games_started: int = 0
    replay_checks: int = 0
    tidied: int = 0                                        # times the players put the table back
    games_ended: int = 0                                   # games the stuck players ended from the menu
    errors: list = field(default_factory=list)             # the unexpected: must stay empty

    def as_dict(self) -> dict:
        return {"steps": self.steps, "presses": self.presses, "screens_visited": len(self.screens),
                "screens": dict(sorted(self.screens.items())), "faults_injected": dict(self.faults),
                "actions_stored": self.actions_stored, "games_started": self.games_started,
                "replay_checks": self.replay_checks, "table_tidied": self.tidied,
                "games_ended_by_players": self.games_ended,
                "unexpected_errors": len(self.errors),
                "errors": self.errors[:20]}


class _Errors(logging.Handler):
    """Everything logged at ERROR while the kiosk runs (a kiosk fault logs its trace)."""

    def __init__(self, report: Report):
        super().__init__(logging.ERROR)
        self.report = report

    def emit(self, record):
        self.report.errors.append(f"logged: {record.getMessage()[-600:]}")


class _Clocks:
    """The kiosk's clock and the store's wall clock, both of which may jump."""

    def __init__(self):
        self.mono = 10_000.0
        self.wall_offset = 0.0

    def kiosk(self) -> float:
        return self.mono

    def wall(self) -> float:
        return time.time() + self.wall_offset


class _FullDisk:
    """The store's write fails as SQLite fails on a full disk, while ``full`` is set."""

    def __init__(self, store):
        from companion.errors import StoreError
        self.full = False
        self.store = store
        real = store._write

        def write(sql_steps):
            if self.full:
                raise StoreError(store._explain(_sqlite_full()))
            return real(sql_steps)
        store._write = write


def _sqlite_full():
    import sqlite3
    return sqlite3.OperationalError("database or disk is full")


def run_chaos(steps: int, seed: int = 1, press_rate: float = 0.25, size=(800, 480)) -> Report:
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    from companion import app
    from companion.config import Config
    from companion.inputs.commands import Command
    from companion.store import log as store_log

    rng = random.Random(seed)
    report = Report()
    clocks = _Clocks()
    k = app.build(Config(), demo=True, windowed=True, size=size, autoplay=True, seed=seed, threaded=False)
    k.demo.tour = []
    k.clock = clocks.kiosk
    k.last_input = clocks.kiosk()
    disk = _FullDisk(k.store)
    handler = _Errors(report)
    logging.getLogger().addHandler(handler)
    real_time = store_log.time
    store_log.time = type("WallClock", (), {"time": staticmethod(clocks.wall)})  # type: ignore[assignment]
    camera_until = disk_until = -1
    seen_games: set = set()
    rate = press_rate
    differs = 0
    last_lines, last_progress = -1, 0
    # every part fails at least once in a run, whatever the seed: one the dice have spared by its turn
    # (a fifth, two fifths, three fifths of the run) fails then, so no seed is luckier than another
    due = {steps // 5: "camera out", 2 * steps // 5: "disk full", 3 * steps // 5: "clock jump"}
    try:
        for step in range(steps):
            report.steps = step + 1
            clocks.mono += 1 / 30
            forced = due.get(step) if not report.faults[due.get(step, "")] else None
            # the parts fail now and then, and come back
            if camera_until < 0 and (rng.random() < 0.004 or forced == "camera out"):
                camera_until = step + rng.randint(5, 90)
                k.demo.table.unplugged = True
                report.faults["camera out"] += 1
            elif step == camera_until:
                k.demo.table.unplugged, camera_until = False, -1
            if disk_until < 0 and (rng.random() < 0.004 or forced == "disk full"):
                disk_until = step + (300 if forced else rng.randint(30, 300))     # long enough to store on
                disk.full = True
                report.faults["disk full"] += 1
            elif step == disk_until:
                disk.full, disk_until = False, -1
            if rng.random() < 0.002 or forced == "clock jump":
                jump = rng.choice((-1, 1)) * rng.choice((3600.0, 86400.0, 3 * 365 * 86400.0))
                clocks.wall_offset += jump
                clocks.mono += abs(jump) if rng.random() < 0.5 else 0    # a long idle, as the kiosk sees it
                report.faults["clock jump"] += 1
            if step % 300 == 0:      # storms of presses, and calm spells in which the players get on with the game
                rate = rng.choice((0.0, press_rate, press_rate, 2 * press_rate))
            if rng.random() < rate:
                kind = rng.choices(BUTTONS, weights=(4, 2, 4, 2, 1))[0]
                k.stream.post(Command(kind, source="chaos"))
                report.presses += 1
            try:
                k.demo.tick(k.clock())
            except Exception as e:   # the simulated players are the demo's own code: a fault there is a bug too
                report.errors.append(f"step {step}: demo players: {type(e).__name__}: {e}")
            k.step()
            if not k.running:        # "Quit" was chosen: the service would start it again; carry on
                k.running = True
            top = k.stack.top
            waiting = top.name == "table" and getattr(top, "phase", "") == "watch" and \
                (getattr(top, "table_note", None) is not None or k.demo.placed is not None)
            differs = differs + 1 if waiting else 0
            if differs > 90:         # the players put the table back as the game has it (after an UNDO)
                _tidy_table(k)
                differs = 0
                report.tidied += 1
            lines = len(k.session.lines) if k.session is not None else -1
            if lines != last_lines or not k.game_in_progress():
                last_lines, last_progress = lines, step
            elif step - last_progress > 900:     # the simulated players lost track: they end the game
                _end_game(k)
                report.games_ended += 1
                last_progress = step
            report.screens[k.screen_key()] += 1
            name = k.stack.top.name
            if name.startswith("fault:") and name not in INTENDED_FAULTS:
                report.errors.append(f"step {step}: unintended fault screen {name}: {' | '.join(k.texts())[:300]}")
                k.stack.pop()
            if k.session is not None and k.session.game_id not in seen_games:
                seen_games.add(k.session.game_id)
                report.games_started += 1
            if k.session is not None and (step % 5 == 0 or step == steps - 1):
                problem = _replays_to_screen(k)
                report.replay_checks += 1
                if problem:
                    report.errors.append(f"step {step}: {problem}")
            if len(report.errors) > 50:
                break
        report.actions_stored = sum(len(k.store.lines(g)) for g in seen_games)
    finally:
        logging.getLogger().removeHandler(handler)
        store_log.time = real_time
        disk.full = False
        close = getattr(k.table, "close", None)
        if close:
            close()
    return report


def _tidy_table(k) -> None:
    """What people do when the screen says the table is not as expected (an UNDO took back a card
    they had laid): lay it as the game has it."""
    from companion.vision.layouts import GridLayout, RowLayout
    layout = getattr(getattr(k.table, "tracker", None), "expected", None)
    demo = k.demo
    if isinstance(layout, RowLayout):
        demo.row = list(layout.codes)
        demo.show_row()
    elif isinstance(layout, GridLayout):
        demo.grid = [list(r) for r in layout.rows]
        demo.show_grid()
    demo.placed = None


def _end_game(k) -> None:
    """MENU (held), "End this game now", OK: what players do when they give up on a game."""
    from companion.inputs.commands import MENU, OK, Command
    k.stream.post(Command(MENU, source="chaos"))
    k.step()
    if k.stack.top.name == "menu":
        values = [v for _, v in k.stack.top.choice.items]
        if "end" in values:
            k.stream.post(Command(OK, index=values.index("end"), source="chaos"))
            k.step()
            if k.stack.top.name == "confirm":
                k.stream.post(Command(OK, source="chaos"))
                k.step()


def _replays_to_screen(k) -> str | None:
    """The stored log, replayed as ``companion replay`` replays it, against the game on the screen."""
    from companion.errors import BadInput
    from companion.store import replay
    s = k.session
    try:
        stored = k.store.lines(s.game_id)
        r = replay.start(k.store.setup(s.game_id))
        for n, line in enumerate(stored, start=2):
            replay.step(r, line, f"line {n}")
    except BadInput as e:
        return f"the stored game does not replay: {e}"
    if stored != s.lines:
        return f"the store holds {len(stored)} actions, the screen's game {len(s.lines)}"
    want = s.summary()
    got = r.engine.summary(r.state)
    if got != want and not s.ended_early:
        return f"replayed {json.dumps(got)[:200]} but the screen shows {json.dumps(want)[:200]}"
    return None


def add_arguments(parser) -> None:
    parser.add_argument("--steps", type=int, default=20_000, help="kiosk frames driven (20,000)")
    parser.add_argument("--seed", type=int, default=1, help="the seed of the presses and faults (1)")
    parser.add_argument("--json", action="store_true", help="one JSON document on stdout")


def run(args) -> int:
    from companion.errors import BadInput
    if args.steps < 1:
        raise BadInput("--steps", f"{args.steps} is not a number of steps (1 or more)")
    report = run_chaos(args.steps, args.seed).as_dict()
    if args.json:
        print(json.dumps(report))
        return 0
    print(f"kiosk chaos, seed {args.seed}: {report['steps']} steps, {report['presses']} random presses, "
          f"{report['games_started']} games, {report['actions_stored']} actions stored")
    print(f"screens visited: {report['screens_visited']} ({', '.join(report['screens'])})")
    print("faults injected: " + ", ".join(f"{k} {v}" for k, v in report["faults_injected"].items()))
    print(f"stored game replayed against the screen: {report['replay_checks']} times")
    print(f"unexpected errors: {report['unexpected_errors']}")
    for e in report["errors"]:
        print(f"    {e}")
    return 0
