"""The live page at scale (issue 29): what changed and nothing else goes to the pages, worked out once
for every viewer; the history and the figures kept per change; /api/plays in pages; the virtual
tables spread over worker processes."""

from __future__ import annotations

import asyncio
import json
import uuid

import pytest
from cafe_support import Dashboard, broker_fixture, needs_mosquitto, wait_until  # noqa: F401

from companion.broker import parse_broker
from companion.cafe.auth import Gate
from companion.cafe.fleet import Fleet
from companion.cafe.schema import log_item
from companion.cafe.simulate import table_names
from companion.cafe.store import CafeStore
from companion.cafe.web import Dashboard as Web


def state(turn: str, rnd: int) -> dict:
    return {"game": "timeline", "status": "in_progress", "players": ["Ana", "Bo"], "turn": turn, "round": rnd,
            "started": 1.79e9, "health": {"camera": True, "disk": True}}


def events(raw: bytes) -> list[tuple[str, str]]:
    out = []
    for block in raw.decode().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line and not line.startswith(":"))
        if "event" in fields:
            out.append((fields["event"], fields.get("data", "")))
    return out


def test_a_turn_passing_sends_only_that_tiles_changed_slots_the_same_bytes_to_every_viewer(tmp_path):
    store = CafeStore(tmp_path / "cafe.sqlite")
    names = table_names(300, "T")
    store.record_batch([("state", n, state("Ana", 1)) for n in names] + [("online", n, True) for n in names])
    web = Web(store, Gate(None))
    hub = web.hub

    async def scenario():
        hub.ensure_started()
        since, tiles, _ = hub.snapshot("en")
        assert len(tiles) == 300
        viewers = [hub.stream("en", since, _never) for _ in range(3)]
        for v in viewers:
            assert (await anext(v)).startswith(b"event: health")      # what the badge says now
        store.record_batch([("state", "T042", state("Bo", 1))])
        got = await asyncio.gather(*(anext(v) for v in viewers))
        assert got[0] == got[1] == got[2]                           # one rendering for all of them
        (kind, data), = events(got[0])
        assert kind == "tiles"
        assert json.loads(data) == {"T042": {"turn": 'Turn: <span data-role="turn">Bo</span>'}}
        assert len(got[0]) < 120                                    # bytes, out of 300 tiles
        for v in viewers:
            await v.aclose()
    asyncio.run(scenario())
    store.close()


async def _never() -> bool:
    return False


def test_a_page_opened_late_catches_up_from_its_cursor_and_a_lost_one_reloads(tmp_path):
    store = CafeStore(tmp_path / "cafe.sqlite")
    store.record_batch([("state", "T01", state("Ana", 1)), ("online", "T01", True)])
    hub = Web(store, Gate(None)).hub

    async def scenario():
        hub.ensure_started()
        since, tiles, _ = hub.snapshot("es")
        assert "Ana" in tiles[0]
        store.record_batch([("state", "T01", state("Bo", 2)), ("online", "T02", True)])
        await hub._news.wait()                              # the hub's next tick has it
        late = hub.stream("es", since, _never)
        await anext(late)                                   # health
        (_event, data), = events(await anext(late))
        diff = json.loads(data)
        assert diff["T01"] == {"turn": 'Turno: <span data-role="turn">Bo</span>', "round": "Ronda 2"}
        assert "html" in diff["T02"]                        # a new table comes whole
        await late.aclose()
        stale = hub.stream("es", "another-epoch-3", _never)   # the dashboard restarted since
        assert b"event: reload" in await anext(stale)
    asyncio.run(scenario())
    store.close()


def test_plays_keep_their_counts_the_figures_are_worked_out_once_per_change_and_the_api_pages(tmp_path):
    store = CafeStore(tmp_path / "cafe.sqlite")
    for n in range(30):
        log = uuid.uuid4().hex
        line = {"type": "setup", "game": "timeline", "players": ["Ana", "Bo"]}
        msgs = [{"log": log, "game_id": 1, "seq": 0, "kind": "setup", "game": "timeline", "at": 1.79e9 + n,
                 "line": line}]
        msgs += [{"log": log, "game_id": 1, "seq": s, "kind": "action", "game": "timeline", "at": 1.79e9 + n,
                  "line": {"type": "place"}} for s in range(1, n % 5 + 2)]
        store.record_batch([("log", f"T{n:02d}", log_item(m)) for m in msgs + msgs])   # each delivered twice
    plays = store.plays()
    assert [p["actions"] for p in plays] == [n % 5 + 1 for n in reversed(range(30))]
    first = store.figures()
    assert store.figures() is first                         # nothing changed: the same figures
    page = store.plays(limit=10, offset=10)
    assert [p["id"] for p in page] == [p["id"] for p in plays[10:20]]
    store.close()


@needs_mosquitto
@pytest.mark.slow
def test_tables_spread_over_worker_processes_each_action_arrives(broker, tmp_path):
    d = Dashboard(broker.url, tmp_path / "cafe.sqlite").start()
    try:
        wait_until(d.connected, what="the dashboard")
        names = table_names(5, "T")
        (tmp_path / "logs").mkdir()
        fleet = Fleet(names, tmp_path / "logs", parse_broker(broker.url), 1, 3, per_process=2).start()
        try:
            assert len(fleet.procs) == 3                    # 2 + 2 + 1 tables
            fleet.go()
            done = fleet.wait(timeout=120)
        finally:
            fleet.close()
        assert sorted(done) == names and all(t["games"] == 1 for t in done.values())
        want = {n: t["actions"] for n, t in done.items()}

        def held():
            return {p["table"]: p["actions"] for p in d.json("/api/plays")["plays"]}
        wait_until(lambda: held() == want, what=f"every action of {want}")
        status, body = d.get("/api/plays?limit=2&offset=0")
        page = json.loads(body)
        assert status == 200 and len(page["plays"]) == 2 and page["next"] == "/api/plays?limit=2&offset=2"
        assert d.get("/api/plays?limit=0")[0] == 400 and d.get("/api/plays?offset=x")[0] == 400
    finally:
        assert d.stop() == 0


def test_what_queued_up_is_stored_in_one_transaction_then_acknowledged_in_order(tmp_path):
    from companion.cafe.serve import Subscriber

    store = CafeStore(tmp_path / "cafe.sqlite")
    writes = []
    real = store._write

    def counted(steps):
        writes.append(1)
        return real(steps)
    store._write = counted
    sub = Subscriber(parse_broker("mqtt://127.0.0.1:9"), store, "test-writer")
    acks: list[int] = []
    sub.client.ack = lambda mid, qos: acks.append(mid)
    log = uuid.uuid4().hex
    line = {"type": "setup", "game": "timeline", "players": ["Ana", "Bo"]}
    msgs = [{"log": log, "game_id": 1, "seq": 0, "kind": "setup", "game": "timeline", "at": 1.79e9, "line": line}]
    msgs += [{"log": log, "game_id": 1, "seq": s, "kind": "action", "game": "timeline", "at": 1.79e9,
              "line": {"type": "place"}} for s in range(1, 200)]
    for mid, m in enumerate(msgs, 1):                   # 200 messages arrive while the writer is busy ...
        sub._queue.put(("cafe/T01/log", json.dumps(m).encode(), mid, 1, False))
    sub._queue.put(None)
    sub._write()                                        # ... and go to the disk in one transaction
    assert writes == [1] and acks == list(range(1, 201))
    assert store.plays()[0]["actions"] == 199
    store.close()
