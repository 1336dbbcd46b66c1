"""``companion cafe simulate``: N virtual tables, each with its own game log and its own publisher,
playing complete games through the real engines. It is how a café tries its broker and dashboard,
and how the tests and ``companion bench cafe`` make load.

Each table plays random but legal games of every registered game in turn (each ``GameSpec.random_game``),
writes every action to a real :class:`~companion.store.log.GameLog` as a kiosk does, with the facts of
the cards it names (now and then taking one back with UNDO, as players do), and a real
:class:`~companion.cafe.publisher.Publisher` sends the log to the broker.
"""

from __future__ import annotations

import heapq
import json
import os
import random
import re
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from companion.broker import Broker, check_table_name, parse_broker
from companion.cafe import publisher as publisher_module
from companion.cafe.fleet import PER_PROCESS, SETTLE_S, Fleet, FleetError
from companion.cafe.publisher import Publisher
from companion.cards.decks import facts_in, with_facts
from companion.errors import BadInput, output_folder
from companion.games.base import fold
from companion.registry import GAMES, engine_for
from companion.store.log import GameLog
from companion.words import counted

UNDO_CHANCE = 0.05
MAX_ACTIONS = 3000        # a random game's longest (Ancient Knowledge's end after about a thousand)
BUSY_TIMEOUT_MS = 120_000
SIM_POLL_S = 5.0
SIM_PREFIX = "SIM"
WORKER_SWITCH_S = 0.05       # a fleet worker's interpreter lock switch interval (Python's default: 0.005)
SAY_EVERY_S = 10.0


def add_arguments(parser) -> None:
    parser.add_argument("--broker", required=True, metavar="URL", help="mqtt://[USER[:PASSWORD]@]HOST[:PORT] or mqtts://")
    parser.add_argument("--tables", type=int, required=True, metavar="N",
                        help="how many tables (SIM01 ... SIMNN; up to 2000, in processes of 50)")
    parser.add_argument("--prefix", default=SIM_PREFIX, metavar="P",
                        help=f"the tables' names begin with P (default {SIM_PREFIX}, so a trial never writes into "
                             "the café's real tables T01 ...; --prefix T gives T01 ...)")
    parser.add_argument("--games", type=int, default=1, metavar="G", help="complete games per table (default 1)")
    parser.add_argument("--seed", type=int, default=1, metavar="S", help="the random seed of the players")
    parser.add_argument("--json", action="store_true", help="print the totals as one JSON document")
    parser.add_argument("--until-confirmed", action="store_true",
                        help="exit once the dashboard (not just the broker) has confirmed every action; the "
                             "tables keep offering until then")
    parser.add_argument("--per-minute", type=float, default=None, metavar="R",
                        help="each table plays R actions a minute (default: as fast as the broker takes them)")
    parser.add_argument("--logins", metavar="FILE",
                        help="each table logs in as itself: lines TABLE:PASSWORD (as a café's installed broker, "
                             "which binds client ids to logins, needs); default: the URL's one login for all")
    parser.add_argument("--keep", metavar="DIR", help="keep the tables' game logs in DIR (default: a temporary "
                                                      "folder, removed at the end)")


def table_names(n: int, prefix: str = SIM_PREFIX) -> list[str]:
    width = max(2, len(str(n)))
    return [f"{prefix}{i:0{width}d}" for i in range(1, n + 1)]


def final_summary(setup: dict, lines: list[dict]) -> dict:
    """The summary a whole random game ends in."""
    engine = engine_for(setup["game"])
    return engine.summary(fold(engine, setup, lines))


class VirtualTable:
    """One table: a game log in ``folder``, its publisher, and players who play ``games`` games."""

    def __init__(self, name: str, folder: Path, broker: Broker, games: int, seed: int,
                 per_minute: float | None = None, publish: bool = True, until_confirmed: bool = True):
        self.name = name
        self.log = GameLog(folder / f"{name}.sqlite")
        # a kiosk has its disk to itself; hundreds of virtual tables share one, and a write may wait
        # seconds for the others' syncs (the publisher's reading connection has its own, longer wait)
        self.log._db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        # waiting only for the broker, a table need not hold back what the dashboard has not confirmed
        # the players poke the publisher on every write, so it need not look at the log five times a
        # second as a kiosk's does (a thousand tables polling would take a core of their own)
        # its items say they are simulated: the staff can remove them from the dashboard's history
        self.publisher = Publisher(name, self.log.path, broker, unconfirmed=None if not until_confirmed
                                   else publisher_module.UNCONFIRMED, poll_s=SIM_POLL_S,
                                   simulated=True) if publish else None
        self.games_wanted = games
        self.rng = random.Random(f"{seed}:{name}")
        self.per_minute = per_minute
        self.games_done = 0
        self.actions = 0
        self.stop = threading.Event()
        self._dealt: list[dict] | None = None      # the next game, worked out before the players sit down
        self._next_game: int | None = None         # the registry's game this table plays next

    def start_publishing(self) -> None:
        if self.publisher is not None:
            self.publisher.start()

    def deal(self) -> None:
        """Work out the first game before the players are told to go: a whole random game takes up to a
        third of a second of CPU (Ancient Knowledge's), and a thousand tables told 'go' together must not
        all work theirs out in the first seconds of play (a kiosk's players bring theirs to the table)."""
        if self._dealt is None and self.games_wanted > 0:
            self._dealt = self._random_game()

    def _random_game(self) -> list[dict]:
        """The next game: each table goes round the registry (each game by its spec's random games), a
        numbered table starting one game on from the table before it, so six tables of one game, or one
        table of six, play every game (a random choice would leave a game out of a short run)."""
        games = list(GAMES.values())
        if self._next_game is None:
            digits = "".join(c for c in self.name if c.isdigit())
            self._next_game = (int(digits) - 1) if digits else self.rng.randrange(len(games))
        spec = games[self._next_game % len(games)]
        self._next_game += 1
        return spec.load_random_game()(self.rng, MAX_ACTIONS)

    def play(self) -> None:
        """The table's games, in this thread (a fleet worker plays all its paced tables in one: :func:`play_all`)."""
        play_all([self], self.stop)

    def steps(self) -> Iterator[float]:
        """The players' games, one write at a time: before each action it yields how long they think (0
        without ``per_minute``); whoever drives it waits that long, or stops driving it."""
        self.deal()
        # tables told 'go' together sit down at different moments, as a café's do: not a thousand
        # setups in one instant either
        yield self._pause()
        for _ in range(self.games_wanted):
            game, self._dealt = self._dealt or self._random_game(), None
            yield from self._one_game(game)

    def _one_game(self, game: list[dict]) -> Iterator[float]:
        """Store a whole game as a kiosk does (each line with the facts of the cards it names first),
        one action at a time, now and then taking the newest back with UNDO and playing it again."""
        setup, lines = game[0], game[1:]
        facts: dict[str, dict] = {}
        stored_setup = with_facts(setup, facts)
        facts.update(facts_in(stored_setup))
        game_id = self.log.new_game(stored_setup)
        self._poke()
        kept = 0
        # the players think before every move, the game's first one included: a thousand tables told
        # 'go' together do not all write their first action in the same instant
        while kept < len(lines):
            yield self._pause()
            if kept and self.rng.random() < UNDO_CHANCE:
                self.log.undo(game_id)
                kept -= 1
            else:
                stored = with_facts(lines[kept], facts)
                facts.update(facts_in(stored))
                self.log.append(game_id, stored)
                kept += 1
            self.actions += 1
            self._poke()
        summary = final_summary(setup, lines)
        if summary["status"] == "in_progress":      # cut at MAX_ACTIONS: the players leave it unfinished
            self.log.abandon(game_id)
        else:
            self.log.finish(game_id, summary)
        self.games_done += 1
        self._poke()

    def _poke(self) -> None:
        if self.publisher is not None:
            self.publisher.poke()

    def _pause(self) -> float:
        """A random wait before the next action (``per_minute`` actions a minute on average, none without it)."""
        return self.rng.expovariate(self.per_minute / 60.0) if self.per_minute else 0.0

    def close(self) -> None:
        if self.publisher is not None:
            self.publisher.stop()
        self.log.close()


def play_all(tables: list[VirtualTable], stop: threading.Event) -> None:
    """Every table's players in this one thread, until all are done or ``stop`` (or a table's own stop) is
    set; a table stops after its current action. Each table's next action waits in a heap by when it is
    due. (A thread per table had 150 threads in a worker of 50 tables, and at 1,000 tables the workers
    spent more CPU handing their interpreter lock around than playing.)"""
    due = [(time.monotonic(), n, t.steps()) for n, t in enumerate(tables)]
    heapq.heapify(due)
    while due:
        at, n, steps = due[0]
        wait = at - time.monotonic()
        if stop.wait(wait) if wait > 0 else stop.is_set():
            return
        heapq.heappop(due)
        if tables[n].stop.is_set():
            continue
        pause = next(steps, None)
        if pause is not None:
            heapq.heappush(due, (time.monotonic() + pause, n, steps))


def play_apart(tables: list[VirtualTable], stop: threading.Event) -> None:
    """Tables paced (``per_minute``) share one thread (:func:`play_all`); tables playing flat out each have
    their own, so their log writes wait for the disk side by side."""
    if all(t.per_minute for t in tables):
        play_all(tables, stop)
        return
    players = [threading.Thread(target=play_all, args=([t], stop), name=f"players-{t.name}", daemon=True)
               for t in tables]
    for p in players:
        p.start()
    for p in players:
        p.join()


def wait_acknowledged(tables: list[VirtualTable], timeout: float | None = None, say=None,
                      confirmed: bool = False) -> bool:
    """Until every table's publisher has everything acknowledged by the broker (has sent every item
    and heard the broker's acknowledgement) or, with ``confirmed``, until the dashboard has confirmed
    every item (read from the logs themselves). ``say(text)`` is told, every 10 s, how many tables
    still wait and why (:func:`why_waiting`)."""
    start = time.monotonic()
    told = start
    # a round of the publisher that began after this call has seen every item written before it
    rounds = {t.name: t.publisher.rounds for t in tables if t.publisher is not None}

    def done(t: VirtualTable) -> bool:
        p = t.publisher
        if p is None:
            return True
        if confirmed:
            return not t.log.unconfirmed_games(0, 1)
        return p.caught_up and p.rounds >= rounds[t.name] + 2
    while waiting := [t for t in tables if not done(t)]:
        now = time.monotonic()
        if timeout is not None and now - start > timeout:
            return False
        if say is not None and now - told > SAY_EVERY_S:
            say(why_waiting(waiting, confirmed))
            told = now
        time.sleep(0.2)
    return True


def why_waiting(tables: list[VirtualTable], confirmed: bool) -> str:
    """``3 tables still wait: SIM01, SIM02: no confirmation from any dashboard yet (...); SIM03: ...``"""
    reasons: dict[str, list[str]] = {}
    now = time.time()
    for t in tables:
        p = t.publisher
        if p is None:
            continue
        if p.refused:
            why = f"the broker refuses its login ({p.refused})"
        elif not p.connected:
            why = f"not connected to {p.broker}"
        elif not confirmed:
            why = f"{p.broker} has not acknowledged all it was sent"
        elif p.confirmed_at is None:
            why = "no confirmation from any dashboard yet (is 'companion cafe serve' subscribed to this broker?)"
        else:
            why = ("the dashboard has confirmed nothing for over a minute" if now - p.confirmed_at > 60 else
                   "the dashboard confirms, not yet every action")
        reasons.setdefault(why, []).append(t.name)
    parts = [", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "") + f": {why}"
             for why, names in reasons.items()]
    verb = "waits" if len(tables) == 1 else "wait"
    return f"{counted(len(tables), 'table')} still {verb}: " + "; ".join(parts)


def probe(broker: Broker, timeout: float = 20.0, shared_by: int = 1) -> None:
    """One connection to the broker with the tables' login: a refusal or no answer is BadInput (one
    line, exit 2) before any table plays. With ``shared_by`` tables on this one login, a broker that
    binds client ids to logins (``use_username_as_clientid``, as a café's is set up) is refused too:
    there the tables would knock each other off all the time."""
    client, events = _probe_client(broker)
    try:
        try:
            client.connect(broker.host, broker.port, keepalive=15)
        except (OSError, ValueError) as e:
            raise BadInput("--broker", f"cannot reach {broker}: {getattr(e, 'strerror', None) or e}") from None
        client.loop_start()
        if not events["connected"].wait(timeout):
            raise BadInput("--broker", f"{broker} did not answer within {timeout:.0f} s")
        if events["rc"].is_failure:
            raise BadInput("--broker", f"{broker} refused the login: {events['rc']}")
        if shared_by > 1 and broker.username and _binds_client_ids(broker, client, events, timeout):
            raise BadInput("--broker", f"{broker} binds client ids to logins (use_username_as_clientid): "
                                       f"{shared_by} tables on the one login {broker.username} would knock each other "
                                       "off; give each table its own login with --logins FILE")
    finally:
        client.disconnect()
        client.loop_stop()


def _probe_client(broker: Broker):
    client = broker.client(f"companion-simulate-probe-{random.getrandbits(32):08x}")
    events: dict = {"connected": threading.Event(), "gone": threading.Event(), "subscribed": threading.Event()}

    def on_connect(c, userdata, flags, reason_code, properties=None):
        events["rc"] = reason_code
        events["connected"].set()
    client.on_connect = on_connect
    client.on_disconnect = lambda *a: events["gone"].set()
    client.on_subscribe = lambda *a: events["subscribed"].set()
    return client, events


def _binds_client_ids(broker: Broker, first, first_events: dict, timeout: float) -> bool:
    """A second connection under the same login (another client id): on a broker that binds ids to
    logins, it takes the first one's place, and the broker closes the first before it lets the second
    in. The first then asks for a subscription (its own confirmation topic, which the café's ACL
    allows): an answer means it is still connected; a closed connection means the ids are bound."""
    second, events = _probe_client(broker)
    try:
        second.connect(broker.host, broker.port, keepalive=15)
        second.loop_start()
        if not events["connected"].wait(timeout) or events["rc"].is_failure:
            return False
        first.subscribe(f"cafe/{broker.username}/confirm", qos=1)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if first_events["gone"].wait(0.05):
                return True
            if first_events["subscribed"].is_set():
                return False
        return False
    finally:
        second.disconnect()
        second.loop_stop()


MAX_TABLES = 2000
TABLE_PREFIX = re.compile(r"^[A-Za-z0-9_-]{1,24}$")


def read_logins(path: str, names: list[str], broker: Broker) -> dict[str, Broker]:
    """Each table's broker with its own login, from lines ``TABLE:PASSWORD``."""
    if broker.username:
        raise BadInput("--logins", "the broker URL already names a login; give one or the other")
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise BadInput(path, f"cannot read the logins: {e.strerror}") from None
    logins: dict[str, str] = {}
    for n, line in enumerate(lines, 1):
        if not line.strip() or line.startswith("#"):
            continue
        table, sep, password = line.partition(":")
        if not sep or not table or not password:
            raise BadInput(f"{path}:{n}", "each line is TABLE:PASSWORD")
        logins[table] = password
    missing = [t for t in names if t not in logins]
    if missing:
        raise BadInput(path, f"no login for {', '.join(missing[:5])}" + (" ..." if len(missing) > 5 else ""))
    return {t: broker.with_login(t, logins[t]) for t in names}


def run(args) -> int:
    broker = parse_broker(args.broker)
    if args.tables < 1 or args.tables > MAX_TABLES:
        raise BadInput("--tables", f"between 1 and {MAX_TABLES} tables")
    if args.games < 1:
        raise BadInput("--games", "1 or more games per table")
    if args.per_minute is not None and args.per_minute <= 0:
        raise BadInput("--per-minute", "more than 0 actions a minute")
    if not TABLE_PREFIX.match(args.prefix):
        raise BadInput("--prefix", f"{args.prefix!r}: 1 to 24 letters, digits, '-' or '_' (e.g. SIM or T)")
    names = [check_table_name(n, "--prefix") for n in table_names(args.tables, args.prefix)]
    brokers = read_logins(args.logins, names, broker) if args.logins else {t: broker for t in names}
    probe(brokers[names[0]], shared_by=1 if args.logins else len(names))
    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="companion-cafe-sim-"))
    folder = output_folder(folder)
    try:
        if len(names) <= PER_PROCESS:
            per_table = _play_here(names, folder, brokers, args)
        else:                            # more than one process can hold (paho's 1024 descriptors)
            fleet = Fleet(names, folder, broker, args.games, args.seed, args.per_minute,
                          until_confirmed=args.until_confirmed, brokers=brokers)
            try:
                fleet.start()
                fleet.go()
                per_table = {n: {"games": t["games"], "actions": t["actions"]} for n, t in fleet.wait().items()}
            except FleetError as e:
                raise BadInput("simulate", str(e)) from None
            finally:
                fleet.close()
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
    totals = {"tables": len(names), "games": sum(t["games"] for t in per_table.values()),
              "actions": sum(t["actions"] for t in per_table.values()), "per_table": per_table}
    if args.json:
        print(json.dumps(totals))
    else:
        print(f"simulate: {counted(totals['tables'], 'table')} played {counted(totals['games'], 'game')}, "
              f"{counted(totals['actions'], 'action')}, all " +
              ("confirmed by the dashboard" if args.until_confirmed else f"acknowledged by {broker}"))
    sys.stdout.flush()
    return 0


def _play_here(names: list[str], folder: Path, brokers: dict[str, Broker], args) -> dict[str, dict]:
    """The tables in this process (as many as :data:`~companion.cafe.fleet.PER_PROCESS`)."""
    tables = [VirtualTable(n, folder, brokers[n], args.games, args.seed, args.per_minute,
                           until_confirmed=args.until_confirmed) for n in names]
    try:
        for t in tables:
            t.start_publishing()
        players = threading.Thread(target=play_apart, args=(tables, threading.Event()), name="players",
                                   daemon=True)
        players.start()
        from companion.progress import bar
        with bar(len(tables) * args.games, "simulate", unit="game") as shown:
            while players.is_alive():
                players.join(0.5)
                shown.update(sum(t.games_done for t in tables) - shown.n)
        wait_acknowledged(tables, confirmed=args.until_confirmed,
                          say=lambda text: print(f"simulate: {text}", file=sys.stderr, flush=True))
    finally:
        for t in tables:
            t.close()
    return {t.name: {"games": t.games_done, "actions": t.actions} for t in tables}


def worker(spec: dict) -> int:
    """A worker process of a :class:`~companion.cafe.fleet.Fleet`: its tables, spoken to in JSON lines on
    standard input and output (the protocol is in companion/cafe/fleet.py)."""
    # 100 threads (each table's publisher and MQTT loop; the paced players share one) share this
    # interpreter's lock: every thread waiting for it wakes each switch interval, and at 1,000 tables on 2
    # cores those wake-ups took the machine (perf: 73 % of the CPU in the kernel's futex and task switches,
    # 2 % running Python). Kiosks are machines of their own; here the lock is handed over less often
    sys.setswitchinterval(WORKER_SWITCH_S)
    if spec.get("elsewhere") and hasattr(os, "SCHED_IDLE"):
        # kiosks of their own machines: a thousand tables' threads on the dashboard's two cores would
        # otherwise outweigh it (the scheduler shares by thread), measuring the bench, not the café
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    broker = Broker(**spec["broker"])
    folder = Path(spec["folder"])
    confirmed = spec["until_confirmed"]
    logins = spec.get("logins", {})
    tables = [VirtualTable(n, folder, broker.with_login(*logins[n]) if n in logins else broker, spec["games"],
                           spec["seed"], spec["per_minute"], until_confirmed=confirmed) for n in spec["names"]]
    try:
        for t in tables:
            t.deal()
            t.start_publishing()
        if spec.get("settle"):
            # steady play is measured from 'go': the tables' first connection and the dashboard's first
            # confirmation (a café's kiosks come up long before the evening's play) are done before it
            deadline = time.monotonic() + SETTLE_S
            while time.monotonic() < deadline and not all(t.publisher is None or t.publisher.confirmed_at
                                                           for t in tables):
                time.sleep(0.2)
        print(json.dumps({"ready": len(tables)}), flush=True)
        word = sys.stdin.readline().strip()
        if word != "go":
            return 0
        stop = threading.Event()

        def listen() -> None:             # "stop", or the parent gone: the players stop
            sys.stdin.readline()
            stop.set()
        threading.Thread(target=listen, daemon=True).start()
        play_apart(tables, stop)
        print(json.dumps({"played": {t.name: {"games": t.games_done, "actions": t.actions} for t in tables}}),
              flush=True)
        first, last = spec["names"][0], spec["names"][-1]
        wait_acknowledged(tables, confirmed=confirmed, say=lambda text: print(
            f"simulate (tables {first}-{last}): {text}", file=sys.stderr, flush=True))
        print(json.dumps({"done": {t.name: {"games": t.games_done, "actions": t.actions,
                                            "published": t.publisher.published if t.publisher else 0}
                                   for t in tables}}), flush=True)
        return 0
    finally:
        for t in tables:
            t.close()


if __name__ == "__main__":
    sys.exit(worker(json.loads(sys.stdin.readline())))
